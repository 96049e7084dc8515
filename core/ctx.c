/* SPDX-License-Identifier: MIT */
/* The context: devices, subscribers, drivers and the log sink. */
#include "core.h"

#include <dlfcn.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

DLH_EXPORT int dlh_ctx_new(struct dlh_ctx **out, struct dlh_extack *ext)
{
	struct dlh_ctx *ctx = calloc(1, sizeof(*ctx));

	dlh__extack_clear(ext);
	if (!ctx)
		return dlh__extack_set(ext, -ENOMEM, NULL, "Out of memory");
	dlh__list_init(&ctx->devs);
	dlh__list_init(&ctx->buses);
	dlh__list_init(&ctx->subs);
	dlh__list_init(&ctx->drivers);
	dlh__list_init(&ctx->timers);
	dlh__list_init(&ctx->gone_ports);
	dlh__list_init(&ctx->gone_devs);
	*out = ctx;
	return 0;
}

DLH_EXPORT void dlh_ctx_free(struct dlh_ctx *ctx)
{
	if (!ctx)
		return;
	/* Newest first, as a kernel unloads drivers in reverse probe order. */
	while (!dlh__list_empty(&ctx->devs))
		dlh__dev_remove(dlh__container_of(ctx->devs.prev, struct dlh_dev, node));
	dlh__buses_detach(ctx);
	/* nothing runs any more that could hold what was removed (a context freed from a callback too) */
	ctx->filling = ctx->delivering = 0;
	ctx->op.name = NULL;
	dlh__gone_reap(ctx);
	while (!dlh__list_empty(&ctx->subs)) {
		struct dlh_sub *s = dlh__container_of(ctx->subs.next, struct dlh_sub, node);

		dlh__list_del(&s->node);
		free(s);
	}
	free(ctx->op.events);
	while (!dlh__list_empty(&ctx->drivers)) {
		struct dlh__driver_ent *d = dlh__container_of(ctx->drivers.next, struct dlh__driver_ent, node);

		dlh__list_del(&d->node);
		if (d->dl_handle)
			dlclose(d->dl_handle);
		free(d);
	}
	dlh__htab_fini(&ctx->dev_by_handle);
	dlh__htab_fini(&ctx->port_by_netdev);
	for (size_t i = 0; i < DLH__NAME_BITS; i++)
		dlh__name_bits_fini(&ctx->name_bits[i]);
	free(ctx);
}

DLH_EXPORT int dlh_ctx_subscribe(struct dlh_ctx *ctx, dlh_event_fn fn, void *arg, struct dlh_sub **out)
{
	struct dlh_sub *s = calloc(1, sizeof(*s));

	if (!s)
		return -ENOMEM;
	s->ctx = ctx;
	s->fn = fn;
	s->arg = arg;
	dlh__list_add_tail(&ctx->subs, &s->node);
	if (out)
		*out = s;
	return 0;
}

static void subs_sweep(struct dlh_ctx *ctx)
{
	struct dlh__list *it, *next;

	for (it = ctx->subs.next; it != &ctx->subs; it = next) {
		struct dlh_sub *s = dlh__container_of(it, struct dlh_sub, node);

		next = it->next;
		if (s->dead) {
			dlh__list_del(&s->node);
			free(s);
		}
	}
}

DLH_EXPORT void dlh_ctx_unsubscribe(struct dlh_sub *sub)
{
	if (!sub)
		return;
	if (sub->ctx->delivering) {
		sub->dead = 1;
		return;
	}
	dlh__list_del(&sub->node);
	free(sub);
}

static void deliver(struct dlh_ctx *ctx, const struct dlh_event *ev)
{
	ctx->delivering++;
	for (struct dlh__list *it = ctx->subs.next; it != &ctx->subs; it = it->next) {
		struct dlh_sub *s = dlh__container_of(it, struct dlh_sub, node);

		if (!s->dead)
			s->fn(ev, s->arg);
	}
	if (!--ctx->delivering) {
		subs_sweep(ctx);
		dlh__dev_rules_catch_up(ctx);
	}
}

void dlh__event_emit(struct dlh_ctx *ctx, enum dlh_event_type type, struct dlh_dev *dev, struct dlh_port *port)
{
	struct dlh_event ev = {.type = type, .dev = dev, .port = port};

	/* rules that did not fit the ports as they were are asked again once a port comes or changes
	 * (a reset's ports come one by one; the kernel's Ethernet port replaces one the rules showed) */
	if (dev && dev->rules_misfit && !dev->recognising &&
	    (type == DLH_EVENT_PORT_NEW || type == DLH_EVENT_PORT_CHANGE))
		dlh__dev_rules_again(dev);
	if (dlh__op_defer(ctx, &ev))
		return;
	deliver(ctx, &ev);
}

void dlh__event_emit_bus(struct dlh_ctx *ctx, enum dlh_event_type type, const char *bus)
{
	struct dlh_event ev = {.type = type, .bus = bus};

	deliver(ctx, &ev);
}

void dlh__event_emit_lost(struct dlh_ctx *ctx, const char *bus, const char *why)
{
	struct dlh_event ev = {.type = DLH_EVENT_LOST, .bus = bus, .msg = why};

	deliver(ctx, &ev);
}

void dlh__event_emit_miss(struct dlh_ctx *ctx, struct dlh_dev *dev, const char *why)
{
	struct dlh_event ev = {.type = DLH_EVENT_PLAN_MISS, .dev = dev, .msg = why};

	deliver(ctx, &ev);
}

DLH_EXPORT unsigned long dlh_ctx_plan_misses(const struct dlh_ctx *ctx)
{
	return ctx->plan_misses;
}

DLH_EXPORT void dlh_ctx_log_set(struct dlh_ctx *ctx, dlh_log_fn fn, void *arg)
{
	ctx->log_fn = fn;
	ctx->log_arg = arg;
}

void dlh__vlog(const struct dlh_ctx *ctx, enum dlh_log_level level, const struct dlh_dev *dev, const char *fmt,
	       va_list ap)
{
	char buf[512];

	if (!ctx || !ctx->log_fn)
		return;
	vsnprintf(buf, sizeof(buf), fmt, ap);
	ctx->log_fn(ctx->log_arg, level, dev, buf);
}

void dlh__log(const struct dlh_ctx *ctx, enum dlh_log_level level, const struct dlh_dev *dev, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	dlh__vlog(ctx, level, dev, fmt, ap);
	va_end(ap);
}

const struct dlh_sdk_driver *dlh__driver_find(const struct dlh_ctx *ctx, const char *name)
{
	for (struct dlh__list *it = ctx->drivers.next; it != &ctx->drivers; it = it->next) {
		struct dlh__driver_ent *d = dlh__container_of(it, struct dlh__driver_ent, node);

		if (!strcmp(d->drv->name, name))
			return d->drv;
	}
	return NULL;
}

int dlh__driver_add(struct dlh_ctx *ctx, const struct dlh_sdk_driver *drv, void *dl_handle, const char *origin,
		    struct dlh_extack *ext)
{
	struct dlh__driver_ent *d;

	if (drv->abi_version != DLH_SDK_ABI_VERSION)
		return dlh__extack_set(ext, -ENOEXEC, origin, "Driver ABI version %u, host ABI version %u",
				       drv->abi_version, DLH_SDK_ABI_VERSION);
	if (!drv->name || !drv->name[0])
		return dlh__extack_set(ext, -EINVAL, origin, "Driver has no name");
	if (!drv->ops || !drv->ops_size)
		return dlh__extack_set(ext, -EINVAL, origin, "Driver \"%s\" has no ops table (ops NULL or ops_size 0)",
				       drv->name);
	if (dlh__driver_find(ctx, drv->name))
		return dlh__extack_set(ext, -EEXIST, origin, "Driver \"%s\" is already loaded", drv->name);
	d = calloc(1, sizeof(*d));
	if (!d)
		return dlh__extack_set(ext, -ENOMEM, origin, "Out of memory");
	d->drv = drv;
	d->dl_handle = dl_handle;
	dlh__list_add_tail(&ctx->drivers, &d->node);
	return 0;
}
