/* SPDX-License-Identifier: MIT */
/*
 * Bus attachments: drivers that find their devices themselves (the kernel
 * backend), and the file descriptors they need watched by the host's loop.
 */
#include "core.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

int dlh__bus_attach(struct dlh_ctx *ctx, const struct dlh_sdk_driver *drv, const char *config, struct dlh_extack *ext)
{
	int (*attach)(struct dlh_sdk_bus *, struct dlh_extack *) = DLH__OP(drv, bus_attach);
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
	if (config && !(bus->config = strdup(config))) {
		free(bus);
		return dlh__extack_set(ext, -ENOMEM, drv->name, "Out of memory");
	}
	dlh__list_init(&bus->ios);
	dlh__list_add_tail(&ctx->buses, &bus->node);
	err = attach(bus, ext);
	if (err)
		goto err_attach;
	return 0;

err_attach:
	dlh__extack_obj(ext, drv->name);
	/* Devices the driver added before failing go with it. */
	for (struct dlh__list *it = ctx->devs.prev, *prev; it != &ctx->devs; it = prev) {
		struct dlh_dev *dev = dlh__container_of(it, struct dlh_dev, node);

		prev = it->prev;
		if (dev->sdk_bus == bus)
			dlh_sdk_dev_remove(dev);
	}
	while (!dlh__list_empty(&bus->ios))
		dlh_sdk_io_free(dlh__container_of(bus->ios.next, struct dlh_sdk_io, node));
	dlh__list_del(&bus->node);
	free(bus->config);
	free(bus);
	return err;
}

void dlh__buses_detach(struct dlh_ctx *ctx)
{
	while (!dlh__list_empty(&ctx->buses)) {
		struct dlh_sdk_bus *bus = dlh__container_of(ctx->buses.prev, struct dlh_sdk_bus, node);
		void (*detach)(struct dlh_sdk_bus *) = DLH__OP(bus->drv, bus_detach);

		if (detach)
			detach(bus);
		while (!dlh__list_empty(&bus->ios))
			dlh_sdk_io_free(dlh__container_of(bus->ios.next, struct dlh_sdk_io, node));
		dlh__list_del(&bus->node);
		free(bus->config);
		free(bus);
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

/*
 * The model is logically complete: a lookup or listing first lets lazy buses
 * fill what it needs. Filling changes only the mirror, so const callers are
 * fine. A failed fill is logged; the model holds what was read.
 */
void dlh__fill(const struct dlh_ctx *cctx, unsigned int what)
{
	struct dlh_ctx *ctx = (struct dlh_ctx *)cctx;
	struct dlh_extack ext;

	if (!(ctx->fill_pending & what) || ctx->filling)
		return;
	ctx->filling = 1;
	ctx->fill_pending = 0;
	for (struct dlh__list *it = ctx->buses.next; it != &ctx->buses; it = it->next) {
		struct dlh_sdk_bus *bus = dlh__container_of(it, struct dlh_sdk_bus, node);
		int (*fill)(struct dlh_sdk_bus *, unsigned int, struct dlh_extack *) = DLH__OP(bus->drv, bus_fill);
		unsigned int wanted = bus->fill_pending & what;

		bus->fill_pending &= ~wanted;
		if (wanted && fill) {
			dlh__extack_clear(&ext);
			if (fill(bus, wanted, &ext))
				dlh__log(ctx, DLH_LOG_ERR, NULL, "%s: %s", bus->drv->name, ext.msg);
		}
		ctx->fill_pending |= bus->fill_pending;
	}
	ctx->filling = 0;
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
	for (struct dlh__list *b = ctx->buses.next; b != &ctx->buses; b = b->next) {
		struct dlh_sdk_bus *bus = dlh__container_of(b, struct dlh_sdk_bus, node);

		for (struct dlh__list *it = bus->ios.next; it != &bus->ios; it = it->next) {
			struct dlh_sdk_io *io = dlh__container_of(it, struct dlh_sdk_io, node);

			if (io->fd == fd) {
				io->fn(io, fd, io->arg);
				return;
			}
		}
	}
}
