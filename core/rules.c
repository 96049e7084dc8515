/* SPDX-License-Identifier: MIT */
/*
 * A vendor's rules and the devices they serve: a driver's own (facts given
 * before probe) and a kernel device that Linux's driver for the same hardware
 * runs (recognised by the host from what the device reports, facts from the
 * profile that stands for it). Plans then come from the rules either way.
 */
#include "core.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int (*dlh__recognise_hook)(struct dlh_dev *dev, struct dlh_extack *ext);

DLH_EXPORT void *dlh_sdk_dev_facts(const struct dlh_dev *dev)
{
	return dev->facts;
}

DLH_EXPORT const struct dlh_sdk_rules *dlh_sdk_dev_rules(const struct dlh_dev *dev)
{
	return dev->rules;
}

static int basis_set(struct dlh_dev *dev, const char *fmt, const char *a, const char *b)
{
	size_t n = strlen(fmt) + strlen(a) + strlen(b) + 1;
	char *s = malloc(n);

	if (!s)
		return -ENOMEM;
	snprintf(s, n, fmt, a, b);
	free(dev->basis);
	dev->basis = s;
	return 0;
}

static int facts_alloc(struct dlh_dev *dev, const struct dlh_sdk_rules *rules, struct dlh_extack *ext)
{
	dev->facts = calloc(1, rules->facts_size ? rules->facts_size : 1);
	return dev->facts ? 0 : dlh__extack_set(ext, -ENOMEM, dev->handle, "Out of memory");
}

/* A driver's own device: its rules, with facts for probe to fill. */
int dlh__dev_rules_own(struct dlh_dev *dev, struct dlh_extack *ext)
{
	const struct dlh_sdk_rules *rules = dev->drv->rules;
	int err;

	if (!rules || DLH__RELAY(dev->drv))
		return 0;
	err = facts_alloc(dev, rules, ext);
	if (err)
		return err;
	if (basis_set(dev, "%s rules%s", dev->drv->name, "")) {
		dlh__dev_rules_free(dev);
		return dlh__extack_set(ext, -ENOMEM, dev->handle, "Out of memory");
	}
	dev->rules = rules;
	dev->rules_drv = dev->drv;
	return 0;
}

void dlh__dev_rules_free(struct dlh_dev *dev)
{
	free(dev->facts);
	free(dev->basis);
	dev->facts = NULL;
	dev->basis = NULL;
	dev->rules = NULL;
	dev->rules_drv = NULL;
}

/*
 * Recognition is lazy, as the driver name is: asked once, outside a fill or
 * an op, for a relay that cannot plan itself (the kernel); a relay that is
 * busy now is asked again next time.
 */
void dlh__dev_rules(struct dlh_dev *dev)
{
	struct dlh_extack ext;
	int err;

	if (dev->rules || dev->rules_asked || !DLH__RELAY(dev->drv) || DLH__OP(dev->drv, port_split_plan) ||
	    !dlh__recognise_hook)
		return;
	/* Not inside a fill or an op (the relay's socket is busy then), nor inside a subscriber's
	 * callback: what recognition reads and says (its ports' filled attributes, as events) would
	 * reach subscribers in the middle of the event they are handling (a monitor printing a
	 * port's line printed another inside it). Asked for then, it is done once none is. */
	if (dev->ctx->delivering || dev->ctx->filling || dev->ctx->op.name) {
		dev->rules_wanted = dev->ctx->rules_wanted = true;
		return;
	}
	dev->rules_asked = true;
	dlh__extack_clear(&ext);
	dev->recognising = true;
	err = dlh__recognise_hook(dev, &ext);
	dev->recognising = false;
	if (err == -EBUSY) {
		/* the relay is answering another request: the next catch-up asks again */
		dev->rules_asked = false;
		dev->rules_wanted = dev->ctx->rules_wanted = true;
		dlh__log(dev->ctx, DLH_LOG_DEBUG, dev, "recognition put off: %s", ext.msg);
		return;
	}
	if (err && err != -ENODEV)
		dlh__log(dev->ctx, DLH_LOG_WARNING, dev, "not recognised: %s", ext.msg);
	else if (!err)
		dlh__log(dev->ctx, DLH_LOG_DEBUG, dev, "recognised: %s", dev->basis);
}

/*
 * The devices whose recognition was asked for while an event was delivered, a fill read or an op
 * ran, recognised once none is (each of those ends here). One at a time, from the start:
 * recognising one may fill the model, adding or removing devices.
 */
void dlh__dev_rules_catch_up(struct dlh_ctx *ctx)
{
	while (ctx->rules_wanted && !ctx->delivering && !ctx->filling && !ctx->op.name) {
		struct dlh_dev *dev = NULL;

		for (struct dlh__list *it = ctx->devs.next; it != &ctx->devs && !dev; it = it->next) {
			struct dlh_dev *d = dlh__container_of(it, struct dlh_dev, node);

			if (d->rules_wanted)
				dev = d;
		}
		if (!dev) {
			ctx->rules_wanted = false;
			break;
		}
		dev->rules_wanted = false;
		dlh__dev_rules(dev);
		if (dev->rules_wanted)
			break; /* busy: left for the next catch-up */
	}
}

/*
 * Recognise the device again, soon: once no event is delivered, fill read or op run (a daemon
 * mirroring the kernel follows a card across its reset with no client asking).
 */
void dlh__dev_rules_again(struct dlh_dev *dev)
{
	dev->rules_asked = false;
	dev->rules_wanted = dev->ctx->rules_wanted = true;
}

void dlh__dev_rules_missing(struct dlh_dev *dev, const char *why)
{
	if (!dev->rules)
		basis_set(dev, "%s%s", why, "");
}

void dlh__port_attrs_fill(const struct dlh_dev *dev, uint32_t index, struct dlh_sdk_port_attrs *attrs)
{
	if (dev->rules && dev->rules->port_attrs_fill && DLH__RELAY(dev->drv))
		dev->rules->port_attrs_fill(dev, index, attrs);
}

static bool knows_linux_driver(const struct dlh_sdk_rules *rules, const char *linux_drv)
{
	for (const char *const *k = rules->kernel_drivers; k && *k; k++)
		if (!strcmp(*k, linux_drv))
			return true;
	return false;
}

/*
 * A kernel device that Linux's @linux_drv runs, recognised as one @drv's
 * rules know (they must name that driver), with the facts of @profile's hw.
 */
int dlh__dev_rules_attach(struct dlh_dev *dev, const struct dlh_sdk_driver *drv, const char *linux_drv,
			  const char *config, const char *profile, struct dlh_extack *ext)
{
	const struct dlh_sdk_rules *rules = drv->rules;
	int err;

	if (!rules || !rules->attach)
		return dlh__extack_set(ext, -EOPNOTSUPP, dev->handle, "Driver %s has no rules for a kernel device",
				       drv->name);
	if (!knows_linux_driver(rules, linux_drv)) {
		char why[DLH_EXTACK_MSG_MAX];

		snprintf(why, sizeof(why), "%s rules do not know Linux's %s (profile %s)", drv->name, linux_drv,
			 profile);
		dlh__dev_rules_missing(dev, why);
		return dlh__extack_set(ext, -EOPNOTSUPP, dev->handle, "%s", why);
	}
	err = facts_alloc(dev, rules, ext);
	if (err)
		return err;
	err = rules->attach(dev, config, ext);
	if (err > 0)
		err = -EIO;
	if (err) {
		char why[DLH_EXTACK_MSG_MAX + 96];

		snprintf(why, sizeof(why), "%s rules, profile %s, do not fit: %s", drv->name, profile,
			 ext && ext->msg[0] ? ext->msg : strerror(-err));
		dlh__dev_rules_free(dev);
		dlh__dev_rules_missing(dev, why);
		dev->rules_misfit = true;
		dlh__extack_set(ext, err, dev->handle, "%s", why);
		return err;
	}
	if (basis_set(dev, "%s rules, profile %s", drv->name, profile)) {
		dlh__dev_rules_free(dev);
		return dlh__extack_set(ext, -ENOMEM, dev->handle, "Out of memory");
	}
	dev->rules = rules;
	dev->rules_drv = drv;
	dev->rules_misfit = false;
	/* What the kernel reported is now read completed as the vendor's own device would have it. */
	for (struct dlh__list *n = dev->ports.next; n != &dev->ports; n = n->next) {
		struct dlh_port *p = dlh__container_of(n, struct dlh_port, node);
		struct dlh_sdk_port_attrs attrs = p->attrs;

		dlh__port_attrs_fill(dev, p->index, &attrs);
		if (memcmp(&attrs, &p->attrs, sizeof(attrs)))
			dlh__event_emit(dev->ctx, DLH_EVENT_PORT_CHANGE, dev, p);
	}
	return 0;
}

DLH_EXPORT void dlh_sdk_dev_rules_reset(struct dlh_dev *dev)
{
	/* refused before: what it did not fit may have changed (its nested instance came) */
	if (dev->rules_misfit && DLH__RELAY(dev->drv)) {
		dlh__dev_rules_again(dev);
		return;
	}
	if (!dev->rules || !dev->rules->port_type_set || !DLH__RELAY(dev->drv))
		return;
	dlh__dev_rules_free(dev);
	dlh__dev_rules_again(dev);
}

DLH_EXPORT const char *dlh_dev_rules(const struct dlh_dev *dev, bool *exact)
{
	if (!dev->gone)
		dlh__dev_rules((struct dlh_dev *)dev);
	if (exact)
		*exact = dev->rules != NULL;
	return dev->basis;
}

/* A rules op's refusal: its own message, else @fallback; the device named. */
static int rules_refused(struct dlh_dev *dev, int err, const char *fallback, struct dlh_extack *ext)
{
	if (ext && !ext->msg[0])
		return dlh__extack_set(ext, err, dev->handle, "%s", fallback);
	dlh__extack_obj(ext, dev->handle);
	return err;
}

/*
 * Rules that learn. Taking back recognises the device first, as a plan would;
 * asking does not: a device not recognised yet has learnt nothing.
 */
static int learning_rules(struct dlh_dev *dev, bool recognise, struct dlh_extack *ext)
{
	if (dev->gone)
		return dlh__dev_live(dev, ext);
	if (recognise)
		dlh__dev_rules(dev);
	if (!dev->rules && !recognise)
		return dlh__extack_set(ext, -EOPNOTSUPP, dev->handle, "Not recognised: it has learnt nothing");
	if (!dev->rules)
		return dlh__extack_set(ext, -EOPNOTSUPP, dev->handle, "No vendor's rules plan for it%s%s",
				       dev->basis ? ": " : "", dev->basis ? dev->basis : "");
	if (!dev->rules->learnt_save || !dev->rules->learnt_restore)
		return dlh__extack_set(ext, -EOPNOTSUPP, dev->handle, "Its rules (%s) learn nothing to keep",
				       dev->basis);
	return 0;
}

DLH_EXPORT int dlh_dev_learnt_get(struct dlh_dev *dev, char *buf, size_t len, struct dlh_extack *ext)
{
	size_t n;
	int err;

	dlh__extack_clear(ext);
	if (!buf || !len)
		return dlh__extack_set(ext, -EINVAL, dev->handle, "No buffer for what the rules learnt");
	buf[0] = '\0';
	err = learning_rules(dev, false, ext);
	if (err)
		return err;
	err = dev->rules->learnt_save(dev, buf, len, ext);
	if (err > 0)
		err = -EIO;
	if (err) {
		buf[0] = '\0';
		return rules_refused(dev, err, "Its rules cannot say what they learnt", ext);
	}
	/* What a module hands back is checked: a string in the buffer, an object or nothing. */
	n = strnlen(buf, len);
	if (n == len || (n && (buf[0] != '{' || buf[n - 1] != '}'))) {
		buf[0] = '\0';
		return dlh__extack_set(ext, -EIO, dev->handle, "Its rules (%s) said what they learnt as no JSON object",
				       dev->basis);
	}
	return 0;
}

DLH_EXPORT int dlh_dev_learnt_set(struct dlh_dev *dev, const char *json, struct dlh_extack *ext)
{
	int err;

	dlh__extack_clear(ext);
	if (!json)
		return dlh__extack_set(ext, -EINVAL, dev->handle, "Nothing to take back");
	err = learning_rules(dev, true, ext);
	if (err || !json[0])
		return err;
	err = dev->rules->learnt_restore(dev, json, ext);
	if (err > 0)
		err = -EINVAL;
	return err ? rules_refused(dev, err, "Its rules do not take it back", ext) : 0;
}

/*
 * The plan is checked against what happens: on a kernel device its rules
 * plan each change just before it is sent, and once the kernel answers (its
 * notifications applied), the device must be as planned, or refused as
 * planned. A miss is a wrong rule, shown the first time it is wrong.
 */
struct dlh__expect {
	struct dlh_ctx *ctx;
	char dev[DLH_HANDLE_MAX];
	char what[DLH_HANDLE_MAX + 32];
	struct dlh_change_req req;
	bool hold; /* the plan says what happens (not partial): held to it */
	int perr;  /* the plan's refusal, or 0 */
	char pwhy[DLH_EXTACK_MSG_MAX];
	struct dlh_plan plan;
	size_t nbefore; /* the ports before, which those the plan leaves must stay as they were */
	struct dlh__port_was {
		uint32_t index;
		enum dlh_port_type type;
		uint32_t lanes;
		bool split;
	} before[];
};

struct dlh__expect *dlh__rules_expect(struct dlh_port *port, const struct dlh_change_req *req)
{
	static const char *const verbs[] = {"split", "unsplit", "type set"};
	struct dlh_dev *dev = port->dev;
	struct dlh__expect *x;
	struct dlh_extack ext;
	size_t n = 0;

	if (!DLH__RELAY(dev->drv) || DLH__OP(dev->drv, port_split_plan))
		return NULL;
	dlh__dev_rules(dev);
	if (!dev->rules)
		return NULL;
	for (struct dlh__list *l = dev->ports.next; l != &dev->ports; l = l->next)
		n++;
	x = calloc(1, sizeof(*x) + n * sizeof(x->before[0]));
	if (!x)
		return NULL;
	for (struct dlh__list *l = dev->ports.next; l != &dev->ports; l = l->next) {
		const struct dlh_port *p = dlh__container_of(l, struct dlh_port, node);

		if (p->life == DLH__PORT_LIVE)
			x->before[x->nbefore++] =
			    (struct dlh__port_was){p->index, p->type, p->attrs.lanes, p->attrs.split};
	}
	x->ctx = dev->ctx;
	snprintf(x->dev, sizeof(x->dev), "%s", dev->handle);
	snprintf(x->what, sizeof(x->what), "%s of %s", verbs[req->kind], port->handle);
	x->req = *req;
	x->perr = dlh__port_plan(port, req, &x->plan, NULL, &ext);
	snprintf(x->pwhy, sizeof(x->pwhy), "%s", ext.msg);
	/* nothing to hold a partial plan to (one that waits for a reset changes no port now: held to that);
	 * the rules may still learn from the answer */
	x->hold = x->perr || !x->plan.partial;
	return x;
}

static void was_str(char *buf, size_t len, enum dlh_port_type type, bool split, uint32_t lanes)
{
	int n = snprintf(buf, len, "%s%s", dlh_port_type_name(type), split ? ", split" : "");

	if (lanes && n >= 0 && (size_t)n < len)
		snprintf(buf + n, len - (size_t)n, ", %u lanes", lanes);
}

static bool planned(const struct dlh_plan *plan, uint32_t index)
{
	for (unsigned int i = 0; i < plan->ngone; i++)
		if (plan->gone[i] == index)
			return true;
	for (unsigned int i = 0; i < plan->ncome; i++)
		if (plan->come[i].index == index)
			return true;
	return false;
}

/* The first way @dev differs from the plan (and the ports it leaves as they were), into @why; false if none. */
static bool outcome_differs(struct dlh_dev *dev, const struct dlh__expect *x, char *why, size_t len)
{
	const struct dlh_plan *plan = &x->plan;

	for (unsigned int i = 0; i < plan->ncome; i++) {
		const struct dlh_plan_port *c = &plan->come[i];
		struct dlh_port *p = dlh__port_find(dev, c->index);

		if (!p || p->life != DLH__PORT_LIVE)
			return snprintf(why, len, "port %u did not come", c->index), true;
		if (c->lanes && p->attrs.lanes != c->lanes)
			return snprintf(why, len, "port %u has %u lanes, planned %u", c->index, p->attrs.lanes,
					c->lanes),
			       true;
		if (p->attrs.split != c->split || (c->split && p->attrs.split_subport != c->split_subport))
			return snprintf(why, len, "port %u is %s subport %u, planned %s subport %u", c->index,
					p->attrs.split ? "split," : "whole,", p->attrs.split_subport,
					c->split ? "split," : "whole,", c->split_subport),
			       true;
		if (c->netdev[0] && strcmp(p->netdev, c->netdev))
			return snprintf(why, len, "port %u's netdev is \"%s\", planned \"%s\"", c->index, p->netdev,
					c->netdev),
			       true;
		/* auto: whichever the link is */
		if ((c->type == DLH_PORT_TYPE_ETH || c->type == DLH_PORT_TYPE_IB) && p->type != c->type)
			return snprintf(why, len, "port %u is %s, planned %s", c->index, dlh_port_type_name(p->type),
					dlh_port_type_name(c->type)),
			       true;
	}
	for (size_t i = 0; i < x->nbefore; i++) {
		const struct dlh__port_was *w = &x->before[i];
		struct dlh_port *p = dlh__port_find(dev, w->index);

		if (planned(plan, w->index))
			continue;
		if (!p || p->life != DLH__PORT_LIVE)
			return snprintf(why, len, "port %u went, planned to stay", w->index), true;
		if (p->type != w->type || p->attrs.lanes != w->lanes || p->attrs.split != w->split) {
			char now[48], then[48];

			was_str(now, sizeof(now), p->type, p->attrs.split, p->attrs.lanes);
			was_str(then, sizeof(then), w->type, w->split, w->lanes);
			return snprintf(why, len, "port %u is %s, planned to stay %s", w->index, now, then), true;
		}
	}
	for (struct dlh__list *l = dev->ports.next; l != &dev->ports; l = l->next) {
		const struct dlh_port *p = dlh__container_of(l, struct dlh_port, node);
		bool was = false;

		for (size_t i = 0; i < x->nbefore && !was; i++)
			was = x->before[i].index == p->index;
		if (p->life == DLH__PORT_LIVE && !was && !planned(plan, p->index))
			return snprintf(why, len, "port %u came, not planned", p->index), true;
	}
	for (unsigned int i = 0; i < plan->ngone; i++) {
		bool back = false;
		struct dlh_port *p = dlh__port_find(dev, plan->gone[i]);

		for (unsigned int j = 0; j < plan->ncome && !back; j++)
			back = plan->come[j].index == plan->gone[i];
		if (!back && p && p->life == DLH__PORT_LIVE)
			return snprintf(why, len, "port %u did not go", plan->gone[i]), true;
	}
	return false;
}

void dlh__rules_check(struct dlh__expect *x, int err, struct dlh_extack *ext)
{
	struct dlh_dev *dev;
	char why[DLH_EXTACK_MSG_MAX + 64] = "";
	char line[sizeof(why) + sizeof(x->what) + 160];

	if (!x)
		return;
	dev = dlh__dev_find(x->ctx, x->dev);
	if (x->hold && !err && x->perr)
		snprintf(why, sizeof(why), "the kernel did it where the rules refuse it (\"%s\")", x->pwhy);
	else if (x->hold && err == -EINVAL && !x->perr)
		snprintf(why, sizeof(why), "the kernel refused it (\"%s\") where the rules plan it",
			 ext && ext->msg[0] ? ext->msg : strerror(-err));
	else if (x->hold && !err && dev)
		outcome_differs(dev, x, why, sizeof(why));
	if (why[0] && dev) {
		x->ctx->plan_misses++;
		snprintf(line, sizeof(line), "%s: %s (%s)", x->what, why, dev->basis ? dev->basis : "rules");
		dlh__log(x->ctx, DLH_LOG_ERR, dev, "not as planned: %s", line);
		if (!err && ext)
			dlh__extack_set(ext, 0, x->dev, "Done, but not as planned: %s", why);
		dlh__event_emit_miss(x->ctx, dev, line);
	}
	/* what the kernel does not report, learnt from its answer (the rules of the device as it is now) */
	if (dev && dev->rules && dev->rules->kernel_answered && err != -EBUSY)
		dev->rules->kernel_answered(dev, &x->req, err, ext);
	free(x);
}
