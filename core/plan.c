/* SPDX-License-Identifier: MIT */
/*
 * Plans: what a split or unsplit would do, said by the driver from the same
 * rules as its op, touching nothing. The driver names the ports that would
 * go and come; core resolves their netdev names as the op would get them.
 */
#include "core.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

static bool gone_has(const struct dlh_sdk_plan *plan, uint32_t index)
{
	for (unsigned int i = 0; i < plan->out->ngone; i++)
		if (plan->out->gone[i] == index)
			return true;
	return false;
}

DLH_EXPORT struct dlh_port *dlh_sdk_plan_port(const struct dlh_sdk_plan *plan, uint32_t index)
{
	struct dlh_port *p;

	if (plan->view)
		return dlh__view_port(plan->view, index);
	p = dlh__port_find(plan->dev, index);
	return p && p->life == DLH__PORT_LIVE ? p : NULL;
}

DLH_EXPORT const struct dlh_change_req *dlh_sdk_plan_before(const struct dlh_sdk_plan *plan, size_t *n)
{
	*n = plan->view ? plan->view->nsteps : 0;
	return *n ? plan->view->steps : NULL;
}

DLH_EXPORT void dlh_sdk_plan_partial(struct dlh_sdk_plan *plan)
{
	plan->out->partial = true;
}

/* Taken once the change is done: by a port that stays, or by one planned before. */
static bool plan_taken(const struct dlh_ctx *ctx, const char *name, const void *arg)
{
	const struct dlh_sdk_plan *plan = arg;
	const struct dlh_port *holder = plan->view ? NULL : dlh__port_find_netdev(ctx, name);

	if (plan->view && dlh__seq_name_taken(plan->view->seq, name, plan))
		return true;
	if (holder && !(holder->dev == plan->dev && gone_has(plan, holder->index)))
		return true;
	for (unsigned int i = 0; i < plan->out->ncome; i++)
		if (!strcmp(plan->out->come[i].netdev, name))
			return true;
	return false;
}

DLH_EXPORT int dlh_sdk_plan_gone(struct dlh_sdk_plan *plan, uint32_t index, struct dlh_extack *ext)
{
	if (!dlh_sdk_plan_port(plan, index))
		return dlh__extack_set(ext, -ENOENT, plan->dev->handle, "Plan: port %u does not exist", index);
	if (gone_has(plan, index))
		return 0;
	if (plan->out->ngone == DLH_PLAN_PORTS_MAX)
		return dlh__extack_set(ext, -E2BIG, plan->dev->handle, "Plan: more than %d ports", DLH_PLAN_PORTS_MAX);
	plan->out->gone[plan->out->ngone++] = index;
	return 0;
}

/*
 * The next number of the pattern being picked at or above @n that may be
 * free for the plan: one whose bit is clear (in the model's bits, or in a
 * sequence's), or the name of a port the plan takes away. plan_taken()
 * then decides.
 */
static int plan_next(const void *arg, int n)
{
	const struct dlh_sdk_plan *plan = arg;
	int best = plan->pick_bits ? dlh__name_bits_free(plan->pick_bits, n) : n;

	for (unsigned int i = 0; i < plan->out->ngone && best > n; i++) {
		const struct dlh_port *g = dlh_sdk_plan_port(plan, plan->out->gone[i]);
		int k = g && dlh__port_netdev(g) ? dlh__netdev_name_number(plan->pick_pattern, g->netdev) : -1;

		if (k >= n && k < best)
			best = k;
	}
	return best;
}

DLH_EXPORT int dlh_sdk_plan_come(struct dlh_sdk_plan *plan, uint32_t index, const struct dlh_sdk_port_attrs *attrs,
				 enum dlh_port_type type, const char *name, struct dlh_extack *ext)
{
	const char *netdev = type == DLH_PORT_TYPE_ETH ? name : NULL;
	struct dlh_plan_port *pc;
	int err;

	if (!attrs) {
		const struct dlh_port *now = dlh_sdk_plan_port(plan, index);

		if (!now || !gone_has(plan, index))
			return dlh__extack_set(ext, -EINVAL, plan->dev->handle,
					       "Plan: port %u comes back without being gone", index);
		attrs = &now->attrs;
	}
	if (index == UINT32_MAX)
		return dlh__extack_set(ext, -EINVAL, plan->dev->handle, "Plan: port index %u is out of range", index);
	if (dlh_sdk_plan_port(plan, index) && !gone_has(plan, index))
		return dlh__extack_set(ext, -EEXIST, plan->dev->handle, "Plan: port index %u already exists", index);
	for (unsigned int i = 0; i < plan->out->ncome; i++)
		if (plan->out->come[i].index == index)
			return dlh__extack_set(ext, -EEXIST, plan->dev->handle, "Plan: port index %u twice", index);
	if (plan->out->ncome == DLH_PLAN_PORTS_MAX)
		return dlh__extack_set(ext, -E2BIG, plan->dev->handle, "Plan: more than %d ports", DLH_PLAN_PORTS_MAX);
	pc = &plan->out->come[plan->out->ncome];
	memset(pc, 0, sizeof(*pc));
	plan->come_attrs[plan->out->ncome] = *attrs;
	if (!attrs->split)
		plan->come_attrs[plan->out->ncome].split_group = plan->come_attrs[plan->out->ncome].split_subport = 0;
	pc->index = index;
	if (attrs) {
		pc->lanes = attrs->lanes;
		pc->split = attrs->split;
		pc->split_group = attrs->split ? attrs->split_group : 0;
		pc->split_subport = attrs->split ? attrs->split_subport : 0;
	}
	/* auto: eth or ib, as the link is sensed when the op runs */
	pc->type = type == DLH_PORT_TYPE_IB || type == DLH_PORT_TYPE_AUTO ? type : DLH_PORT_TYPE_NOTSET;
	if (type == DLH_PORT_TYPE_IB && name) {
		if (!*name || strlen(name) >= sizeof(pc->ibdev) || strchr(name, '/'))
			return dlh__extack_set(ext, -EINVAL, plan->dev->handle, "Invalid ibdev name \"%s\"",
					       DLH__QUOTE(name, strlen(name)));
		memcpy(pc->ibdev, name, strlen(name) + 1);
	}
	if (type == DLH_PORT_TYPE_ETH && !netdev) {
		pc->type = DLH_PORT_TYPE_ETH;
	} else if (netdev) {
		if (strchr(netdev, '%')) {
			/* the ports a driver plans come one by one: each pick of a pattern starts after the last */
			if (strncmp(plan->pick_pattern, netdev, sizeof(plan->pick_pattern)) ||
			    plan->pick_ngone != plan->out->ngone || strlen(netdev) >= sizeof(plan->pick_pattern))
				plan->pick_next = 0;
			snprintf(plan->pick_pattern, sizeof(plan->pick_pattern), "%s", netdev);
			plan->pick_ngone = plan->out->ngone;
			plan->pick_bits = plan->view ? dlh__seq_name_bits(plan->view->seq, netdev)
						     : dlh__netdev_name_bits(plan->dev->ctx, netdev);
			err = dlh__netdev_name_pick(plan->dev->ctx, netdev, plan_taken, plan_next, plan,
						    &plan->pick_next, pc->netdev, sizeof(pc->netdev), ext);
			if (err)
				return err;
		} else if (!dlh__netdev_name_valid(netdev)) {
			return dlh__extack_set(ext, -EINVAL, plan->dev->handle, "Invalid netdev name \"%s\"",
					       DLH__QUOTE(netdev, strlen(netdev)));
		} else if (plan_taken(plan->dev->ctx, netdev, plan)) {
			return dlh__extack_set(ext, -EEXIST, plan->dev->handle, "Netdev name \"%s\" is in use", netdev);
		} else {
			memcpy(pc->netdev, netdev, strlen(netdev) + 1);
		}
		pc->type = DLH_PORT_TYPE_ETH;
	}
	plan->out->ncome++;
	return 0;
}

DLH_EXPORT int dlh_sdk_plan_after(struct dlh_sdk_plan *plan, const char *dev, uint32_t index,
				  const struct dlh_sdk_port_attrs *attrs, enum dlh_port_type type, const char *name,
				  struct dlh_extack *ext)
{
	char bus[DLH_BUS_NAME_MAX], devname[DLH_DEV_NAME_MAX];
	struct dlh_plan *out = plan->out;
	struct dlh_plan_after *a;

	if (!dev || dlh__dev_handle_parse(dev, strlen(dev), bus, devname, ext))
		return dlh__extack_set(ext, -EINVAL, plan->dev->handle, "Plan: a device handle \"bus/name\" is needed");
	if (!dlh__port_type_valid(type) || index == UINT32_MAX)
		return dlh__extack_set(ext, -EINVAL, plan->dev->handle, "Plan: port %u of %s is out of range", index,
				       dev);
	if (name && (type == DLH_PORT_TYPE_ETH ? !dlh__netdev_name_valid(name)
					       : !*name || strlen(name) >= DLH_IBDEV_NAME_MAX || strchr(name, '/')))
		return dlh__extack_set(ext, -EINVAL, plan->dev->handle, "Plan: invalid name \"%s\"",
				       DLH__QUOTE(name, strlen(name)));
	for (unsigned int i = 0; i < out->nafter; i++) {
		if (!strcmp(out->after[i].dev, dev) && out->after[i].port.index == index)
			return dlh__extack_set(ext, -EEXIST, plan->dev->handle, "Plan: %s port %u twice", dev, index);
		if (name && type == DLH_PORT_TYPE_ETH && !strcmp(out->after[i].port.netdev, name))
			return dlh__extack_set(ext, -EEXIST, plan->dev->handle, "Plan: netdev \"%s\" twice", name);
	}
	if (out->nafter == DLH_PLAN_PORTS_MAX)
		return dlh__extack_set(ext, -E2BIG, plan->dev->handle, "Plan: more than %d ports", DLH_PLAN_PORTS_MAX);
	a = &out->after[out->nafter];
	memset(a, 0, sizeof(*a));
	snprintf(a->dev, sizeof(a->dev), "%s/%s", bus, devname);
	a->port.index = index;
	a->port.type = type;
	if (attrs) {
		a->port.lanes = attrs->lanes;
		a->port.split = attrs->split;
		a->port.split_group = attrs->split ? attrs->split_group : 0;
		a->port.split_subport = attrs->split ? attrs->split_subport : 0;
	}
	if (name && type == DLH_PORT_TYPE_ETH)
		snprintf(a->port.netdev, sizeof(a->port.netdev), "%s", name);
	else if (name && type == DLH_PORT_TYPE_IB)
		snprintf(a->port.ibdev, sizeof(a->port.ibdev), "%s", name);
	out->staged = true;
	out->nafter++;
	return 0;
}
