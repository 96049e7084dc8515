/* SPDX-License-Identifier: MIT */
/*
 * The driver op in progress: one at a time per context, its result checked,
 * and, for a local driver, all or nothing in the model. A local op's events
 * wait until it succeeds; the ports it unregisters stay allocated until then;
 * and a failure puts the device's ports back as they were before the op,
 * whatever the driver left, with no event. A driver that leaves the ports
 * changed after failing has a bug, which is logged with its name.
 */
#include "core.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static void snap_take(struct dlh__snap *s, struct dlh_port *port)
{
	s->port = port;
	s->type = port->type;
	s->desired_type = port->desired_type;
	s->attrs = port->attrs;
	memcpy(s->netdev, port->netdev, sizeof(s->netdev));
	memcpy(s->ibdev, port->ibdev, sizeof(s->ibdev));
	if (port->pending)
		s->pending = *port->pending;
	else
		memset(&s->pending, 0, sizeof(s->pending));
}

/* The port's fields as @s holds them (the tables are the caller's business). */
static void snap_put(const struct dlh__snap *s)
{
	struct dlh_port *p = s->port;

	p->type = s->type;
	p->desired_type = s->desired_type;
	p->attrs = s->attrs;
	memcpy(p->netdev, s->netdev, sizeof(p->netdev));
	memcpy(p->ibdev, s->ibdev, sizeof(p->ibdev));
}

static bool attrs_equal(const struct dlh_sdk_port_attrs *a, const struct dlh_sdk_port_attrs *b)
{
	return a->flavour == b->flavour && a->number == b->number && a->split == b->split &&
	       a->split_group == b->split_group && a->split_subport == b->split_subport && a->lanes == b->lanes &&
	       a->splittable == b->splittable && a->speed == b->speed && a->has_module == b->has_module &&
	       a->module == b->module && a->lane == b->lane;
}

static bool snap_matches(const struct dlh__snap *s)
{
	const struct dlh_port *p = s->port;

	return p->life == DLH__PORT_LIVE && p->type == s->type && p->desired_type == s->desired_type &&
	       attrs_equal(&p->attrs, &s->attrs) && !strcmp(p->netdev, s->netdev) && !strcmp(p->ibdev, s->ibdev);
}

/*
 * A change starts: the objects it acts on must still be in the model (a plan
 * made just before it may have read a removal), and what was removed before
 * it is freed now (dlhal.h, "Lifetime": a change is where a caller lets go).
 */
static int begin_live(struct dlh_dev *dev, const struct dlh_port *port, const char *name, const char *handle,
		      struct dlh_extack *ext)
{
	struct dlh_ctx *ctx = dev->ctx;

	if (ctx->op.name) {
		dlh__log(ctx, DLH_LOG_ERR, dev, "driver %s: %s on %s while %s runs: refused (nested operation)",
			 dev->drv->name, name, handle, ctx->op.name);
		return dlh__extack_set(ext, -EBUSY, handle, "Another operation is in progress");
	}
	if (dev->gone)
		return dlh__extack_set(ext, -ENODEV, handle, "Device was removed");
	if (port && port->life != DLH__PORT_LIVE)
		return dlh__extack_set(ext, -ENODEV, handle, "Port was removed");
	dlh__gone_reap(ctx);
	return 0;
}

int dlh__op_begin(struct dlh_dev *dev, struct dlh_port *port, const char *name, const char *handle,
		  struct dlh_extack *ext)
{
	struct dlh_ctx *ctx = dev->ctx;
	struct dlh__op *op = &ctx->op;
	size_t n = 0;
	int err = begin_live(dev, port, name, handle, ext);

	if (err)
		return err;
	op->dev = dev;
	op->relay = DLH__RELAY(dev->drv);
	op->local = !op->relay;
	op->staged = DLH__DEV_STAGED(dev, !strcmp(name, "port_type_set") ? DLH_SDK_STAGED_TYPE : DLH_SDK_STAGED_SPLIT);
	op->pending_set = false;
	memset(&op->dev_was, 0, sizeof(op->dev_was));
	if (dev->pending)
		op->dev_was = *dev->pending;
	op->nevents = op->nsnap = 0;
	dlh__list_init(&op->graveyard);
	if (op->local && dev->nports) {
		op->snap = malloc(dev->nports * sizeof(*op->snap));
		if (!op->snap)
			return dlh__extack_set(ext, -ENOMEM, handle, "Out of memory");
		for (struct dlh__list *it = dev->ports.next; it != &dev->ports; it = it->next) {
			snap_take(&op->snap[n], dlh__container_of(it, struct dlh_port, node));
			op->snap[n++].port->in_snap = 1;
		}
		op->nsnap = n;
	}
	op->name = name;
	return 0;
}

/*
 * A reset (a reload, an emulated power cycle): the driver re-reads its
 * hardware, and devices and ports go and come as it finds them, the device
 * given among them. Nothing is all or nothing there, so no snapshot; events
 * go out as they happen.
 */
int dlh__op_begin_reset(struct dlh_dev *dev, const char *name, const char *handle, struct dlh_extack *ext)
{
	struct dlh_ctx *ctx = dev->ctx;
	struct dlh__op *op = &ctx->op;
	int err = begin_live(dev, NULL, name, handle, ext);

	if (err)
		return err;
	op->dev = NULL;
	op->local = 0;
	op->relay = DLH__RELAY(dev->drv);
	op->staged = false;
	op->nevents = op->nsnap = 0;
	dlh__list_init(&op->graveyard);
	op->name = name;
	return 0;
}

bool dlh__op_defer(struct dlh_ctx *ctx, const struct dlh_event *ev)
{
	struct dlh__op *op = &ctx->op;

	if (!op->name || !op->local)
		return false;
	if (op->nevents == op->events_cap) {
		size_t cap = op->events_cap ? op->events_cap * 2 : 16;
		struct dlh__deferred *e = realloc(op->events, cap * sizeof(*e));

		if (!e) {
			/* Cannot wait: the event goes out now rather than never. */
			dlh__log(ctx, DLH_LOG_ERR, op->dev, "out of memory: an event of %s is delivered early",
				 op->name);
			return false;
		}
		op->events = e;
		op->events_cap = cap;
	}
	op->events[op->nevents].ev = *ev;
	if (ev->port)
		snap_take(&op->events[op->nevents].then, ev->port);
	op->nevents++;
	return true;
}

void dlh__op_bury(struct dlh_port *port)
{
	struct dlh__op *op = &port->dev->ctx->op;

	if (op->name && op->local && op->dev == port->dev) {
		port->life = DLH__PORT_DEAD;
		dlh__list_add_tail(&op->graveyard, &port->node);
		return;
	}
	port->life = DLH__PORT_GONE;
	dlh__list_add_tail(&port->dev->ctx->gone_ports, &port->node);
}

struct dlh_port *dlh__op_revive(struct dlh_dev *dev, uint32_t index)
{
	struct dlh__op *op = &dev->ctx->op;

	if (!op->name || !op->local || op->dev != dev)
		return NULL;
	for (struct dlh__list *it = op->graveyard.next; it != &op->graveyard; it = it->next) {
		struct dlh_port *p = dlh__container_of(it, struct dlh_port, node);

		if (p->index == index)
			return p;
	}
	return NULL;
}

/* Did the failed op leave the ports as they were (order aside)? */
/* An op's name as its error line says it ("split failed: ..."). */
static const char *op_word(const char *name)
{
	static const char *const words[][2] = {{"port_split", "split"},
					       {"port_unsplit", "unsplit"},
					       {"port_type_set", "type change"},
					       {"dev_reload", "reload"},
					       {"sim_reset", "reset"}};

	for (size_t i = 0; name && i < sizeof(words) / sizeof(words[0]); i++)
		if (!strcmp(name, words[i][0]))
			return words[i][1];
	return name ? name : "operation";
}

static bool unchanged(const struct dlh__op *op)
{
	if (op->dev->nports != op->nsnap)
		return false;
	for (size_t i = 0; i < op->nsnap; i++)
		if (!snap_matches(&op->snap[i]))
			return false;
	return true;
}

/*
 * The device's ports as the snapshot holds them, in its order: ports the op
 * registered leave the model (quarantined: the driver may still hold them),
 * ports it unregistered come back, every field as it was.
 */
static void restore(struct dlh__op *op)
{
	struct dlh_dev *dev = op->dev;
	struct dlh__list *it, *next;

	for (it = dev->ports.next; it != &dev->ports; it = next) {
		struct dlh_port *p = dlh__container_of(it, struct dlh_port, node);

		next = it->next;
		dlh__port_unlink(p);
		if (p->in_snap) {
			dlh__list_init(&p->node);
		} else {
			p->life = DLH__PORT_QUARANTINED;
			dlh__list_add_tail(&dev->quarantine, &p->node);
		}
	}
	for (size_t i = 0; i < op->nsnap; i++) {
		struct dlh__snap *s = &op->snap[i];
		struct dlh_port *p = s->port;

		dlh__list_del(&p->node); /* from the graveyard, or its own */
		snap_put(s);
		/* The tables only grow while ports are out, so this does not allocate. */
		if (dlh__port_link(p) || dlh__port_netdev_link(p)) {
			dlh__log(dev->ctx, DLH_LOG_ERR, dev, "out of memory restoring port %s", p->handle);
			p->netdev[0] = '\0';
		}
	}
}

static bool pending_differs(const struct dlh_pending *now, const struct dlh_pending *was)
{
	static const struct dlh_pending none;

	if (!now)
		now = &none;
	return now->split != was->split || now->type != was->type || strcmp(now->message, was->message);
}

/*
 * A staged op succeeded: it must have stored its change for the next reset
 * (something pending) and left every port as it was. Its message goes back
 * with the success; a driver that gave none gets core's.
 */
static int staged_end(struct dlh_ctx *ctx, struct dlh__op *op, const struct dlh_sdk_driver *drv, const char *handle,
		      struct dlh_extack *ext)
{
	if (op->local && !unchanged(op)) {
		dlh__log(ctx, DLH_LOG_ERR, op->dev,
			 "driver %s: staged %s on %s changed the ports (driver bug): restored", drv->name, op->name,
			 handle);
		return dlh__extack_set(ext, -EIO, handle, "Driver bug: staged %s changed the ports", op_word(op->name));
	}
	if (!op->pending_set) {
		dlh__log(ctx, DLH_LOG_ERR, op->dev, "driver %s: staged %s on %s set nothing pending (driver bug)",
			 drv->name, op->name, handle);
		return dlh__extack_set(ext, -EIO, handle, "Driver bug: staged %s set nothing pending",
				       op_word(op->name));
	}
	if (ext && !ext->msg[0])
		return dlh__extack_set(ext, 0, handle, "Pending until the next reset");
	dlh__extack_obj(ext, handle);
	return 0;
}

static void op_clear(struct dlh__op *op)
{
	for (size_t i = 0; i < op->nsnap; i++)
		op->snap[i].port->in_snap = 0;
	free(op->snap);
	op->snap = NULL;
	op->nsnap = op->nevents = 0;
	/* removed for good: readable until the caller's next change or loop turn, as any removed port */
	while (!dlh__list_empty(&op->graveyard)) {
		struct dlh_port *p = dlh__container_of(op->graveyard.next, struct dlh_port, node);

		dlh__list_del(&p->node);
		p->life = DLH__PORT_GONE;
		dlh__list_add_tail(&p->dev->ctx->gone_ports, &p->node);
	}
}

int dlh__op_end(struct dlh_ctx *ctx, const struct dlh_sdk_driver *drv, const char *handle, int err,
		struct dlh_extack *ext)
{
	struct dlh__op *op = &ctx->op;
	const char *name = op->name;

	if (err > 0) {
		dlh__log(ctx, DLH_LOG_ERR, NULL, "driver %s: %s returned %d, not 0 or a negative errno (driver bug)",
			 drv->name, name, err);
		err = dlh__extack_set(ext, -EIO, handle, "Driver bug: %s returned %d", name, err);
	} else if (!err && op->staged) {
		err = staged_end(ctx, op, drv, handle, ext);
	} else if (!err && op->relay && ext && ext->msg[0]) {
		dlh__extack_obj(ext, handle); /* the kernel's or a dlhald's word with its success, as it came */
	} else if (!err) {
		dlh__extack_clear(ext);
	} else if (ext && !ext->msg[0] && !op->relay) {
		/* A local driver's missing message is filled in; a relay passes the
		 * kernel's or a dlhald's answer on as it came, with no message when
		 * none was sent, as iproute2 shows it. */
		dlh__extack_set(ext, err, handle, "%s failed: %s", op_word(name), strerror(-err));
	} else {
		dlh__extack_obj(ext, handle);
	}
	/* (a relay's device may be gone: dlh_sdk_dev_remove() cleared op->dev) */
	if (op->staged && err && op->dev && pending_differs(op->dev->pending, &op->dev_was)) {
		dlh__log(ctx, DLH_LOG_ERR, op->dev,
			 "driver %s: %s on %s failed but left something pending (driver bug)", drv->name, name, handle);
		dlh__pending_set(&op->dev->pending, &op->dev_was);
	}
	/* a port's too (a staged type change is the port's) */
	for (size_t i = 0; op->staged && err && i < op->nsnap; i++) {
		struct dlh__snap *s = &op->snap[i];

		if (pending_differs(s->port->pending, &s->pending)) {
			dlh__log(ctx, DLH_LOG_ERR, op->dev,
				 "driver %s: %s on %s failed but left %s pending (driver bug)", drv->name, name, handle,
				 s->port->handle);
			dlh__pending_set(&s->port->pending, &s->pending);
		}
	}
	if (op->local && err) {
		if (!unchanged(op))
			dlh__log(ctx, DLH_LOG_ERR, op->dev,
				 "driver %s: %s on %s failed but left the ports changed (driver bug): restored",
				 drv->name, name, handle);
		restore(op);
		op->nevents = 0;
	}
	/* Events go out with the op still marked running (a subscriber cannot
	 * start another from inside), each showing its port as it was when
	 * emitted, as the kernel's notifications do. */
	op->local = 0;
	for (size_t i = 0; i < op->nevents; i++) {
		struct dlh__deferred *d = &op->events[i];
		struct dlh__snap now = {0};

		if (d->ev.port) {
			snap_take(&now, d->ev.port);
			snap_put(&d->then);
		}
		dlh__event_emit(ctx, d->ev.type, d->ev.dev, d->ev.port);
		if (d->ev.port)
			snap_put(&now);
	}
	op_clear(op);
	op->name = NULL;
	dlh__dev_rules_catch_up(ctx);
	return err;
}
