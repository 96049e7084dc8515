/* SPDX-License-Identifier: MIT */
/*
 * Bus attachments: drivers that find their devices themselves (the kernel
 * backend), and the file descriptors they need watched by the host's loop.
 */
#include "core.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* The devices the driver added, as a context's go: before its bus detaches. */
static void bus_devs_remove(struct dlh_sdk_bus *bus)
{
	struct dlh_ctx *ctx = bus->ctx;

	for (struct dlh__list *it = ctx->devs.prev, *prev; it != &ctx->devs; it = prev) {
		struct dlh_dev *dev = dlh__container_of(it, struct dlh_dev, node);

		prev = it->prev;
		if (dev->sdk_bus == bus)
			dlh_sdk_dev_remove(dev);
	}
}

/* The bus gone: devices first, then its watches and itself. */
static void bus_free(struct dlh_sdk_bus *bus)
{
	bus_devs_remove(bus);
	while (!dlh__list_empty(&bus->ios))
		dlh_sdk_io_free(dlh__container_of(bus->ios.next, struct dlh_sdk_io, node));
	dlh__list_del(&bus->node);
	free(bus->config);
	free(bus->cages);
	free(bus->card);
	free(bus);
}

int dlh__bus_attach(struct dlh_ctx *ctx, const struct dlh_sdk_driver *drv, const char *config,
		    const struct dlh__card *card, struct dlh_extack *ext)
{
	int (*attach)(struct dlh_sdk_bus *, struct dlh_extack *) = DLH__OP(drv, bus_attach);
	void (*detach)(struct dlh_sdk_bus *) = DLH__OP(drv, bus_detach);
	struct dlh_sdk_bus *bus;
	int err;

	if (!attach)
		return dlh__extack_set(ext, -EOPNOTSUPP, drv->name,
				       "Driver does not find devices itself; give it a profile");
	for (struct dlh__list *it = ctx->buses.next; it != &ctx->buses; it = it->next)
		if (dlh__container_of(it, struct dlh_sdk_bus, node)->drv == drv)
			return dlh__extack_set(ext, -EEXIST, drv->name, "Already attached");
	bus = calloc(1, sizeof(*bus) + drv->bus_priv_size);
	if (!bus)
		return dlh__extack_set(ext, -ENOMEM, drv->name, "Out of memory");
	bus->ctx = ctx;
	bus->drv = drv;
	dlh__list_init(&bus->ios);
	dlh__list_add_tail(&ctx->buses, &bus->node);
	if (config && !(bus->config = strdup(config))) {
		err = dlh__extack_set(ext, -ENOMEM, drv->name, "Out of memory");
		goto err_bus;
	}
	/* before the driver adds devices: each gets the card's faceplate as it comes */
	if (card && card->n) {
		err = dlh__bus_card_set(bus, card, ext);
		if (err)
			goto err_bus;
	}
	err = attach(bus, ext);
	if (err) {
		dlh__extack_obj(ext, drv->name);
		goto err_bus;
	}
	if (card && card->n) {
		err = dlh__bus_card_check(bus, card->src, ext);
		if (err)
			goto err_attached;
	}
	return 0;

err_attached:
	bus_devs_remove(bus);
	if (detach)
		detach(bus);
err_bus:
	/* devices the driver added before failing go with it */
	bus_free(bus);
	return err;
}

void dlh__buses_detach(struct dlh_ctx *ctx)
{
	while (!dlh__list_empty(&ctx->buses)) {
		struct dlh_sdk_bus *bus = dlh__container_of(ctx->buses.prev, struct dlh_sdk_bus, node);
		void (*detach)(struct dlh_sdk_bus *) = DLH__OP(bus->drv, bus_detach);

		if (detach)
			detach(bus);
		bus_free(bus);
	}
}

DLH_EXPORT const char *dlh_sdk_bus_config(const struct dlh_sdk_bus *bus)
{
	return bus->config;
}

DLH_EXPORT void dlh_sdk_bus_fill_pending(struct dlh_sdk_bus *bus, unsigned int what)
{
	bus->fill_pending |= what & (DLH_SDK_FILL_DEVS | DLH_SDK_FILL_PORTS);
	bus->ctx->fill_pending |= bus->fill_pending;
}

DLH_EXPORT void dlh_sdk_bus_resynced(struct dlh_sdk_bus *bus)
{
	if (bus)
		dlh__event_emit_bus(bus->ctx, DLH_EVENT_RESYNC, bus->drv->name);
}

DLH_EXPORT void dlh_sdk_bus_lost(struct dlh_sdk_bus *bus, const char *why)
{
	if (bus)
		dlh__event_emit_lost(bus->ctx, bus->drv->name, why ? why : "the source went away");
}

static void pending_update(struct dlh_ctx *ctx)
{
	ctx->fill_pending = 0;
	for (struct dlh__list *it = ctx->buses.next; it != &ctx->buses; it = it->next)
		ctx->fill_pending |= dlh__container_of(it, struct dlh_sdk_bus, node)->fill_pending;
}

static void fill_bus(struct dlh_ctx *ctx, struct dlh_sdk_bus *bus, unsigned int what)
{
	int (*fill)(struct dlh_sdk_bus *, unsigned int, struct dlh_extack *) = DLH__OP(bus->drv, bus_fill);
	unsigned int wanted = bus->fill_pending & what;
	struct dlh_extack ext;
	int err;

	bus->fill_pending &= ~wanted;
	if (!wanted || !fill)
		return;
	dlh__extack_clear(&ext);
	ctx->fill_mode = wanted;
	err = fill(bus, wanted, &ext);
	ctx->fill_mode = 0;
	/* -EBUSY: the bus cannot read now (an event of its own answer being
	 * applied asked); the next lookup fills. Any other failure stands. */
	if (err == -EBUSY)
		bus->fill_pending |= wanted;
	else if (err)
		dlh__log(ctx, DLH_LOG_ERR, NULL, "%s: %s", bus->drv->name, ext.msg);
}

/*
 * The model is logically complete: a lookup or listing first lets lazy buses
 * fill what it needs. Filling changes only the mirror, so const callers are
 * fine. A failed fill is logged; the model holds what was read.
 */
void dlh__fill(const struct dlh_ctx *cctx, unsigned int what)
{
	struct dlh_ctx *ctx = (struct dlh_ctx *)cctx;

	if (!(ctx->fill_pending & what) || ctx->filling)
		return;
	ctx->filling = 1;
	for (struct dlh__list *it = ctx->buses.next; it != &ctx->buses; it = it->next)
		fill_bus(ctx, dlh__container_of(it, struct dlh_sdk_bus, node), what);
	pending_update(ctx);
	ctx->filling = 0;
	dlh__dev_rules_catch_up(ctx);
}

void dlh__fill_bus(struct dlh_ctx *ctx, struct dlh_sdk_bus *bus, unsigned int what)
{
	if (ctx->filling)
		return;
	ctx->filling = 1;
	fill_bus(ctx, bus, what);
	pending_update(ctx);
	ctx->filling = 0;
	dlh__dev_rules_catch_up(ctx);
}

/*
 * One port by netdev name: a lazy bus that can find it alone (bus_fill_netdev:
 * the kernel backend stops its dump there, a dlhald answers a get by name)
 * registers just that port and its device; the others fill every port. The
 * bus's ports stay pending for a listing.
 */
void dlh__fill_netdev(const struct dlh_ctx *cctx, const char *netdev)
{
	struct dlh_ctx *ctx = (struct dlh_ctx *)cctx;

	if (!(ctx->fill_pending & DLH_SDK_FILL_PORTS) || ctx->filling || dlh__port_find_netdev(ctx, netdev))
		return;
	ctx->filling = 1;
	for (struct dlh__list *it = ctx->buses.next; it != &ctx->buses; it = it->next) {
		struct dlh_sdk_bus *bus = dlh__container_of(it, struct dlh_sdk_bus, node);
		int (*one)(struct dlh_sdk_bus *, const char *, struct dlh_extack *) =
		    DLH__OP(bus->drv, bus_fill_netdev);
		struct dlh_extack ext;
		int err = -EOPNOTSUPP;

		if (!(bus->fill_pending & DLH_SDK_FILL_PORTS))
			continue;
		if (one) {
			dlh__extack_clear(&ext);
			ctx->fill_mode = DLH__FILL_NETDEV;
			err = one(bus, netdev, &ext);
			ctx->fill_mode = 0;
			if (err && err != -EOPNOTSUPP && err != -EBUSY)
				dlh__log(ctx, DLH_LOG_WARNING, NULL, "%s: %s", bus->drv->name, ext.msg);
		}
		/* No answer for one port: this bus's every port. */
		if (err)
			fill_bus(ctx, bus, DLH_SDK_FILL_PORTS);
		if (dlh__port_find_netdev(ctx, netdev))
			break;
	}
	pending_update(ctx);
	ctx->filling = 0;
	dlh__dev_rules_catch_up(ctx);
}

/* Whether every bus whose ports are pending can read one device's ports alone. */
bool dlh__fill_dev_capable(const struct dlh_ctx *ctx)
{
	for (const struct dlh__list *it = ctx->buses.next; it != &ctx->buses; it = it->next) {
		const struct dlh_sdk_bus *bus = dlh__container_of(it, struct dlh_sdk_bus, node);

		if ((bus->fill_pending & DLH_SDK_FILL_PORTS) && !DLH__OP(bus->drv, bus_fill_dev))
			return false;
	}
	return true;
}

/*
 * One device's ports: a lazy bus that can read them alone (bus_fill_dev: the
 * kernel from 6.6 on dumps one device's ports) reads just those, once, and
 * its notifications keep them; the others fill every port. The bus's ports
 * stay pending for a listing of every port. The device may go while its
 * ports are read (a notification drained at the end): it is looked up again.
 */
void dlh__fill_dev(const struct dlh_dev *cdev)
{
	struct dlh_dev *dev = (struct dlh_dev *)cdev;
	struct dlh_ctx *ctx = dev->ctx;
	struct dlh_sdk_bus *bus = dev->sdk_bus;
	int (*one)(struct dlh_sdk_bus *, const char *, struct dlh_extack *);
	char handle[sizeof(dev->handle)];
	struct dlh_extack ext;
	int err;

	if (!bus || !(bus->fill_pending & DLH_SDK_FILL_PORTS) || dev->ports_filled || ctx->filling)
		return;
	one = DLH__OP(bus->drv, bus_fill_dev);
	if (!one) {
		dlh__fill(ctx, DLH_SDK_FILL_PORTS);
		return;
	}
	memcpy(handle, dev->handle, sizeof(handle));
	dev->ports_filled = true;
	dlh__extack_clear(&ext);
	ctx->filling = 1;
	ctx->fill_mode = DLH__FILL_DEV;
	err = one(bus, handle, &ext);
	ctx->fill_mode = 0;
	ctx->filling = 0;
	dlh__dev_rules_catch_up(ctx);
	if (!err)
		return;
	dev = dlh__dev_find(ctx, handle);
	if (dev)
		dev->ports_filled = false;
	/* the bus cannot read now: neither can it read every port; later */
	if (err == -EBUSY)
		return;
	if (err != -EOPNOTSUPP)
		dlh__log(ctx, DLH_LOG_WARNING, NULL, "%s: %s", bus->drv->name, ext.msg);
	dlh__fill(ctx, DLH_SDK_FILL_PORTS);
}

/*
 * Objects a netdev lookup registered early take their place when the full
 * fill reports them: a port where the dump lists it, its device at the
 * device's first port, so that a listing after a lookup is in the bus's order.
 */
void dlh__fill_place(struct dlh_dev *dev, struct dlh_port *port)
{
	struct dlh_ctx *ctx = dev->ctx;

	if (ctx->fill_mode == DLH__FILL_NETDEV) {
		if (port)
			port->early = 1;
		return;
	}
	/* A device's ports, all of them in order: each in its place now. */
	if (ctx->fill_mode == DLH__FILL_DEV) {
		if (port && port->early) {
			dlh__list_del(&port->node);
			dlh__list_add_tail(&dev->ports, &port->node);
			port->early = 0;
		}
		return;
	}
	if (!(ctx->fill_mode & DLH_SDK_FILL_PORTS))
		return;
	if (dev->early) {
		dlh__list_del(&dev->node);
		dlh__list_add_tail(&ctx->devs, &dev->node);
		dev->early = false;
	}
	if (port && port->early) {
		dlh__list_del(&port->node);
		dlh__list_add_tail(&dev->ports, &port->node);
		port->early = 0;
	}
}

DLH_EXPORT void *dlh_sdk_bus_priv(const struct dlh_sdk_bus *bus)
{
	return (void *)bus->priv;
}

DLH_EXPORT struct dlh_ctx *dlh_sdk_bus_ctx(const struct dlh_sdk_bus *bus)
{
	return bus->ctx;
}

DLH_EXPORT int dlh_sdk_io_new(struct dlh_sdk_bus *bus, int fd, dlh_sdk_io_fn fn, void *arg, struct dlh_sdk_io **out)
{
	struct dlh_sdk_io *io = calloc(1, sizeof(*io));

	if (!io)
		return -ENOMEM;
	io->bus = bus;
	io->fd = fd;
	io->fn = fn;
	io->arg = arg;
	dlh__list_add_tail(&bus->ios, &io->node);
	if (out)
		*out = io;
	return 0;
}

DLH_EXPORT void dlh_sdk_io_free(struct dlh_sdk_io *io)
{
	if (!io)
		return;
	dlh__list_del(&io->node);
	free(io);
}

DLH_EXPORT size_t dlh_ctx_io_fds(const struct dlh_ctx *ctx, int *fds, size_t max)
{
	size_t n = 0;

	for (struct dlh__list *b = ctx->buses.next; b != &ctx->buses; b = b->next) {
		struct dlh_sdk_bus *bus = dlh__container_of(b, struct dlh_sdk_bus, node);

		for (struct dlh__list *it = bus->ios.next; it != &bus->ios; it = it->next, n++)
			if (n < max)
				fds[n] = dlh__container_of(it, struct dlh_sdk_io, node)->fd;
	}
	return n;
}

DLH_EXPORT void dlh_ctx_io_ready(struct dlh_ctx *ctx, int fd)
{
	dlh__gone_reap(ctx); /* the caller's loop turns: what was removed before is let go (dlhal.h) */
	for (struct dlh__list *b = ctx->buses.next; b != &ctx->buses; b = b->next) {
		struct dlh_sdk_bus *bus = dlh__container_of(b, struct dlh_sdk_bus, node);

		for (struct dlh__list *it = bus->ios.next; it != &bus->ios; it = it->next) {
			struct dlh_sdk_io *io = dlh__container_of(it, struct dlh_sdk_io, node);

			if (io->fd == fd) {
				io->fn(io, fd, io->arg);
				/* devices what was read asks to recognise again (a card's reset), now that
				 * the relay's connection is free */
				dlh__dev_rules_catch_up(ctx);
				return;
			}
		}
	}
}
