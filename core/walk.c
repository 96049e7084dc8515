/* SPDX-License-Identifier: MIT */
/*
 * Walking every port without mirroring: the ports a lazy bus streams
 * (bus_ports_walk) become a port on the stack for one callback each, so a
 * listing of a 100K-port kernel takes the memory of one port. Each report is
 * checked as a registration is (core.h's rules: device handle, index,
 * flavour, names) before the caller sees it.
 */
#include "core.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

struct walk {
	int (*fn)(const struct dlh_port *port, void *arg);
	void *arg;
	int ret;
	unsigned int refused;
	struct dlh_dev dev; /* the device of the ports being streamed */
};

/* The stack device for @handle; the one before when the port is on it too (a dump comes device by device). */
static int walk_dev(struct walk *w, const char *handle)
{
	struct dlh_extack ext;

	if (w->dev.handle[0] && !strcmp(w->dev.handle, handle))
		return 0;
	if (dlh__dev_handle_parse(handle, strlen(handle), w->dev.bus, w->dev.name, &ext)) {
		w->dev.handle[0] = '\0';
		return -EINVAL;
	}
	snprintf(w->dev.handle, sizeof(w->dev.handle), "%s/%s", w->dev.bus, w->dev.name);
	return 0;
}

static int walk_one(const struct dlh_sdk_port_info *in, void *arg)
{
	struct walk *w = arg;
	char handle[DLH_HANDLE_MAX];
	struct dlh_port p = {0};
	struct dlh_pending pend = {0};

	if (w->ret)
		return w->ret;
	if (!in || !in->dev || !in->attrs || walk_dev(w, in->dev) || in->index == UINT32_MAX ||
	    !dlh__port_flavour_valid(in->attrs->flavour) || !dlh__port_type_valid(in->type) ||
	    (in->netdev && !dlh__netdev_name_valid(in->netdev)) ||
	    (in->ibdev && (!in->ibdev[0] || strlen(in->ibdev) >= sizeof(p.ibdev)))) {
		w->refused++;
		return 0;
	}
	p.dev = &w->dev;
	p.index = in->index;
	p.life = DLH__PORT_WALKED;
	p.type = in->type;
	p.desired_type = dlh__port_type_valid(in->desired_type) ? in->desired_type : DLH_PORT_TYPE_NOTSET;
	p.attrs = *in->attrs;
	if (!p.attrs.split)
		p.attrs.split_group = p.attrs.split_subport = 0;
	/* Names as the model keeps them: a netdev only on an eth port, an ibdev only on an ib port. */
	if (in->netdev && p.type == DLH_PORT_TYPE_ETH)
		memcpy(p.netdev, in->netdev, strlen(in->netdev) + 1);
	if (in->ibdev && p.type == DLH_PORT_TYPE_IB)
		memcpy(p.ibdev, in->ibdev, strlen(in->ibdev) + 1);
	/* checked as dlh_sdk_port_pending_set() keeps it: a type or nothing, a terminated message */
	if (in->pending && dlh__port_type_valid(in->pending->type) && in->pending->type != DLH_PORT_TYPE_NOTSET) {
		pend.type = in->pending->type;
		memcpy(pend.message, in->pending->message, strnlen(in->pending->message, sizeof(pend.message) - 1));
		p.pending = &pend;
	}
	dlh__port_handle_format(handle, w->dev.handle, in->index);
	p.handle = handle;
	w->ret = w->fn(&p, w->arg);
	return w->ret;
}

/* A bus whose ports a walk streams: ports pending, the op, and none of its devices in the model yet (so
 * that its ports come after every port the model has, as a fill would put them). */
static bool streams(const struct dlh_ctx *ctx, const struct dlh_sdk_bus *bus)
{
	if (!(bus->fill_pending & DLH_SDK_FILL_PORTS) || !DLH__OP(bus->drv, bus_ports_walk))
		return false;
	for (const struct dlh__list *it = ctx->devs.next; it != &ctx->devs; it = it->next)
		if (dlh__container_of(it, struct dlh_dev, node)->sdk_bus == bus)
			return false;
	return true;
}

DLH_EXPORT int dlh_port_walk(const struct dlh_ctx *cctx, int (*fn)(const struct dlh_port *port, void *arg), void *arg,
			     struct dlh_extack *ext)
{
	struct dlh_ctx *ctx = (struct dlh_ctx *)cctx;
	struct walk w = {.fn = fn, .arg = arg};
	int ret = 0;

	dlh__extack_clear(ext);
	if (!fn)
		return dlh__extack_set(ext, -EINVAL, NULL, "No function to call for each port");
	/* From a walk's callback (or a fill): the bus is in the middle of a read. */
	if (ctx->filling)
		return dlh__extack_set(ext, -EBUSY, NULL, "Ports are being read already (a walk or a fill is running)");
	/* Every bus that cannot stream is filled, then the model's ports go first. */
	for (struct dlh__list *it = ctx->buses.next; it != &ctx->buses; it = it->next) {
		struct dlh_sdk_bus *bus = dlh__container_of(it, struct dlh_sdk_bus, node);

		if ((bus->fill_pending & DLH_SDK_FILL_PORTS) && !streams(ctx, bus))
			dlh__fill_bus(ctx, bus, DLH_SDK_FILL_PORTS);
	}
	/* From here @fn runs: reading the model must start no fill, and a walk in it none either. */
	ctx->filling++;
	for (struct dlh_port *p = dlh__port_first_all_nofill(ctx); p && !ret; p = dlh_port_next_all(p))
		ret = fn(p, arg);
	for (struct dlh__list *it = ctx->buses.next; !ret && it != &ctx->buses; it = it->next) {
		struct dlh_sdk_bus *bus = dlh__container_of(it, struct dlh_sdk_bus, node);
		int (*walk)(struct dlh_sdk_bus *, int (*)(const struct dlh_sdk_port_info *, void *), void *,
			    struct dlh_extack *) = DLH__OP(bus->drv, bus_ports_walk);
		struct dlh_extack bext;
		int err;

		if (!streams(ctx, bus))
			continue;
		memset(&w.dev, 0, sizeof(w.dev));
		w.dev.ctx = ctx;
		w.dev.drv = bus->drv;
		w.dev.sdk_bus = bus;
		w.dev.node.next = w.dev.node.prev = &ctx->devs; /* no next device */
		dlh__list_init(&w.dev.ports);
		dlh__list_init(&w.dev.quarantine);
		dlh__list_init(&w.dev.timers);
		w.refused = 0;
		dlh__extack_clear(&bext);
		err = walk(bus, walk_one, &w, &bext);
		ret = w.ret;
		if (w.refused)
			dlh__log(ctx, DLH_LOG_ERR, NULL, "driver %s: %u malformed port reports skipped in a walk",
				 bus->drv->name, w.refused);
		if (err && !ret)
			ret = dlh__extack_set(ext, -EIO, NULL, "%s: %s", bus->drv->name, bext.msg);
	}
	ctx->filling--;
	dlh__dev_rules_catch_up(ctx);
	return ret;
}
