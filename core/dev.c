/* SPDX-License-Identifier: MIT */
/* Devices: registry, handles, probe/remove, emulator controls. */
#include "core.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int dev_match(const struct dlh__hnode *n, const void *key)
{
	return !strcmp(dlh__container_of(n, struct dlh_dev, hnode)->handle, key);
}

DLH_EXPORT struct dlh_dev *dlh_dev_find(const struct dlh_ctx *ctx, const char *handle)
{
	dlh__fill(ctx, DLH_SDK_FILL_DEVS);
	return dlh__dev_find(ctx, handle);
}

struct dlh_dev *dlh__dev_find(const struct dlh_ctx *ctx, const char *handle)
{
	struct dlh__hnode *n = dlh__htab_find(&ctx->dev_by_handle, dlh__hash_str(handle), dev_match, handle);

	return n ? dlh__container_of(n, struct dlh_dev, hnode) : NULL;
}

DLH_EXPORT struct dlh_dev *dlh_dev_first(const struct dlh_ctx *ctx)
{
	dlh__fill(ctx, DLH_SDK_FILL_DEVS);
	return dlh__list_empty(&ctx->devs) ? NULL : dlh__container_of(ctx->devs.next, struct dlh_dev, node);
}

DLH_EXPORT struct dlh_dev *dlh_dev_next(const struct dlh_dev *dev)
{
	if (dev->gone)
		return NULL;
	return dev->node.next == &dev->ctx->devs ? NULL : dlh__container_of(dev->node.next, struct dlh_dev, node);
}

DLH_EXPORT const char *dlh_dev_handle(const struct dlh_dev *dev)
{
	return dev->handle;
}

DLH_EXPORT const char *dlh_dev_bus(const struct dlh_dev *dev)
{
	return dev->bus;
}

DLH_EXPORT const char *dlh_dev_name(const struct dlh_dev *dev)
{
	return dev->name;
}

DLH_EXPORT const char *dlh_dev_driver(const struct dlh_dev *dev)
{
	int (*get)(struct dlh_dev *, char *, size_t, struct dlh_extack *) = DLH__OP(dev->drv, dev_driver_get);
	struct dlh_dev *d = (struct dlh_dev *)dev; /* a lazy mirror's, as a fill is */
	int err;

	/* asked once, never from inside a fill or an op (the relay's socket is busy then) */
	if (!d->driver[0] && !d->gone && !d->driver_asked && get && !d->ctx->filling && !d->ctx->op.name) {
		char buf[DLH_DRIVER_NAME_MAX] = "";
		struct dlh_extack ext;

		d->driver_asked = true;
		dlh__extack_clear(&ext);
		err = get(d, buf, sizeof(buf), &ext);
		if (!err)
			dlh_sdk_dev_driver_set(d, memchr(buf, '\0', sizeof(buf)) ? buf : NULL, NULL);
		d->driver_asked = err != -EBUSY; /* busy now: asked again next time */
	}
	return dev->driver[0] ? dev->driver : dev->drv->name;
}

DLH_EXPORT const char *dlh_dev_backend(const struct dlh_dev *dev)
{
	return dev->drv->name;
}

/* A word a relay or host gives the device (@what: "Driver name"), into @dst of @size; NULL clears it. */
static int word_set(struct dlh_dev *dev, char *dst, size_t size, const char *word, const char *what,
		    struct dlh_extack *ext)
{
	size_t n = word ? strlen(word) : 0;

	if (word && (!n || n >= size))
		return dlh__extack_set(ext, -EINVAL, dev->handle, "%s must be 1 to %zu characters", what, size - 1);
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)word[i] <= ' ' || (unsigned char)word[i] >= 0x7f)
			return dlh__extack_set(ext, -EINVAL, dev->handle, "%s has a blank or an unprintable character",
					       what);
	memcpy(dst, word ? word : "", n + 1);
	return 0;
}

DLH_EXPORT int dlh_sdk_dev_driver_set(struct dlh_dev *dev, const char *name, struct dlh_extack *ext)
{
	return word_set(dev, dev->driver, sizeof(dev->driver), name, "Driver name", ext);
}

DLH_EXPORT int dlh_sdk_dev_linux_set(struct dlh_dev *dev, const char *release, struct dlh_extack *ext)
{
	return word_set(dev, dev->linux_release, sizeof(dev->linux_release), release, "Linux release", ext);
}

DLH_EXPORT const char *dlh_sdk_dev_linux(const struct dlh_dev *dev)
{
	return dev->linux_release[0] ? dev->linux_release : NULL;
}

DLH_EXPORT unsigned int dlh_sdk_linux_version(const char *release)
{
	unsigned int major = 0, minor = 0;
	int n = 0;

	if (!release || sscanf(release, "%3u.%3u%n", &major, &minor, &n) != 2 || !n || !major || minor > 255)
		return 0;
	return major * 65536 + minor * 256;
}

DLH_EXPORT void dlh_sdk_dev_reloads_set(struct dlh_dev *dev, uint64_t count)
{
	dev->reloads = count;
	dev->has_reloads = true;
}

DLH_EXPORT int dlh_dev_reloads(const struct dlh_dev *dev, uint64_t *count)
{
	if (!dev->has_reloads)
		return -ENODATA;
	*count = dev->reloads;
	return 0;
}

DLH_EXPORT size_t dlh_dev_port_count(const struct dlh_dev *dev)
{
	dlh__fill_dev(dev);
	return dev->nports;
}

DLH_EXPORT void *dlh_sdk_dev_priv(const struct dlh_dev *dev)
{
	return (void *)dev->priv;
}

DLH_EXPORT struct dlh_ctx *dlh_sdk_dev_ctx(const struct dlh_dev *dev)
{
	return dev->ctx;
}

static int name_char_ok(char c)
{
	/* Bus and device names as the kernel forms them: "pci", "0000:03:00.0", "netdevsim10". */
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == ':' || c == '.' ||
	       c == '_' || c == '-';
}

/* Parses "bus/dev" from s[0..len). */
int dlh__dev_handle_parse(const char *s, size_t len, char *bus, char *name, struct dlh_extack *ext)
{
	const char *slash = memchr(s, '/', len);
	size_t blen, nlen;

	if (!slash)
		return dlh__extack_set(ext, -EINVAL, NULL, "Device handle \"%s\" is not of the form bus/dev",
				       DLH__QUOTE(s, len));
	blen = (size_t)(slash - s);
	nlen = len - blen - 1;
	if (!blen)
		return dlh__extack_set(ext, -EINVAL, NULL, "Bus name missing before \"/\"");
	if (!nlen)
		return dlh__extack_set(ext, -EINVAL, NULL, "Device name missing after \"%s/\"", DLH__QUOTE(s, blen));
	if (blen >= DLH_BUS_NAME_MAX)
		return dlh__extack_set(ext, -EINVAL, NULL, "Bus name is longer than %d characters",
				       DLH_BUS_NAME_MAX - 1);
	if (nlen >= DLH_DEV_NAME_MAX)
		return dlh__extack_set(ext, -EINVAL, NULL, "Device name is longer than %d characters",
				       DLH_DEV_NAME_MAX - 1);
	for (size_t i = 0; i < len; i++)
		if (i != blen && !name_char_ok(s[i]))
			return dlh__extack_set(ext, -EINVAL, NULL, "Device handle \"%s\" has an invalid character",
					       DLH__QUOTE(s, len));
	memcpy(bus, s, blen);
	bus[blen] = '\0';
	memcpy(name, slash + 1, nlen);
	name[nlen] = '\0';
	return 0;
}

DLH_EXPORT int dlh_dev_lookup(const struct dlh_ctx *ctx, const char *what, struct dlh_dev **out, struct dlh_extack *ext)
{
	char bus[DLH_BUS_NAME_MAX], name[DLH_DEV_NAME_MAX];
	struct dlh_dev *dev;
	int err;

	dlh__extack_clear(ext);
	/* a port's handle where a device is asked for: said so, not "an invalid character" */
	{
		const char *last = strrchr(what, '/');

		if (last && last != strchr(what, '/') && last[1] && strspn(last + 1, "0123456789") == strlen(last + 1))
			return dlh__extack_set(ext, -EINVAL, NULL,
					       "\"%s\" is a port (BUS/DEV/PORT_INDEX): expected a device, BUS/DEV",
					       DLH__QUOTE(what, strlen(what)));
	}
	err = dlh__dev_handle_parse(what, strlen(what), bus, name, ext);
	if (err)
		return err;
	dev = dlh_dev_find(ctx, what);
	if (!dev)
		return dlh__extack_set(ext, -ENODEV, what, "Device does not exist");
	*out = dev;
	return 0;
}

/* Out of the model: no list, table, timer or bus reaches it; its fields stay readable until reaped. */
static void dev_unlink(struct dlh_dev *dev)
{
	dlh__timers_free_dev(dev);
	dlh__port_free_all(dev);
	dlh__htab_fini(&dev->port_by_index);
	dlh__htab_remove(&dev->ctx->dev_by_handle, &dev->hnode);
	dlh__list_del(&dev->node);
	dev->sdk_bus = NULL; /* the bus may go before the reap: nothing fills a removed device */
}

static void dev_free(struct dlh_dev *dev)
{
	free(dev->pending);
	free(dev->cages);
	free(dev->card);
	free(dev->nested);
	dlh__dev_rules_free(dev);
	free(dev);
}

DLH_EXPORT int dlh_sdk_dev_nested_set(struct dlh_dev *dev, const char *const *handles, size_t n, struct dlh_extack *ext)
{
	char bus[DLH_BUS_NAME_MAX], name[DLH_DEV_NAME_MAX], *copy = NULL, *at;
	size_t len = 0;

	if (n > DLH_NESTED_MAX)
		return dlh__extack_set(ext, -E2BIG, dev->handle, "More than %d nested instances", DLH_NESTED_MAX);
	for (size_t i = 0; i < n; i++) {
		int err = dlh__dev_handle_parse(handles[i], strlen(handles[i]), bus, name, ext);

		if (err)
			return err;
		len += strlen(handles[i]) + 1;
	}
	if (n && !(copy = malloc(len)))
		return dlh__extack_set(ext, -ENOMEM, dev->handle, "Out of memory");
	at = copy;
	for (size_t i = 0; i < n; i++) {
		size_t l = strlen(handles[i]) + 1;

		memcpy(at, handles[i], l);
		at += l;
	}
	free(dev->nested);
	dev->nested = copy;
	dev->nnested = n;
	/* an instance not recognised before it was named here may be now, through this one */
	for (size_t i = 0; i < n; i++) {
		struct dlh_dev *d = dlh__dev_find(dev->ctx, dlh_dev_nested(dev, i));

		if (d && !d->rules)
			dlh__dev_rules_again(d);
	}
	return 0;
}

DLH_EXPORT const char *dlh_dev_nested(const struct dlh_dev *dev, size_t i)
{
	const char *at = dev->nested;

	if (i >= dev->nnested)
		return NULL;
	while (i--)
		at += strlen(at) + 1;
	return at;
}

DLH_EXPORT struct dlh_dev *dlh_dev_nested_in(const struct dlh_dev *dev)
{
	if (dev->gone)
		return NULL;
	for (struct dlh__list *it = dev->ctx->devs.next; it != &dev->ctx->devs; it = it->next) {
		struct dlh_dev *d = dlh__container_of(it, struct dlh_dev, node);
		const char *h;

		for (size_t i = 0; d != dev && (h = dlh_dev_nested(d, i)); i++)
			if (!strcmp(h, dev->handle))
				return d;
	}
	return NULL;
}

int dlh__dev_live(const struct dlh_dev *dev, struct dlh_extack *ext)
{
	return dev->gone ? dlh__extack_set(ext, -ENODEV, dev->handle, "Device was removed") : 0;
}

/*
 * What was removed stays readable while a call may hold it (dlhal.h,
 * "Lifetime"); this frees it once nothing runs that could: not inside a
 * fill, an op, a plan or an event's delivery, which the outer call reaps.
 */
void dlh__gone_reap(struct dlh_ctx *ctx)
{
	if (ctx->filling || ctx->op.name || ctx->delivering)
		return;
	while (!dlh__list_empty(&ctx->gone_ports))
		dlh__port_free(dlh__container_of(ctx->gone_ports.next, struct dlh_port, node));
	while (!dlh__list_empty(&ctx->gone_devs)) {
		struct dlh_dev *dev = dlh__container_of(ctx->gone_devs.next, struct dlh_dev, node);

		dlh__list_del(&dev->node);
		dev_free(dev);
	}
}

int dlh__dev_create(struct dlh_ctx *ctx, const char *handle, const struct dlh_sdk_driver *drv, struct dlh_sdk_bus *bus,
		    struct dlh_dev **out, struct dlh_extack *ext)
{
	struct dlh_dev *dev;
	int err;

	dev = calloc(1, sizeof(*dev) + drv->dev_priv_size);
	if (!dev)
		return dlh__extack_set(ext, -ENOMEM, handle, "Out of memory");
	err = dlh__dev_handle_parse(handle, strlen(handle), dev->bus, dev->name, ext);
	if (err)
		goto err_parse;
	snprintf(dev->handle, sizeof(dev->handle), "%s/%s", dev->bus, dev->name);
	if (dlh__dev_find(ctx, dev->handle)) {
		const struct dlh_sdk_driver *other = dlh__dev_find(ctx, dev->handle)->drv;

		err = dlh__extack_set(ext, -EEXIST, dev->handle, "Device already exists");
		/* Another backend's (a dlhald's and an emulated one's): neither may hide the other's. */
		if (other != drv) {
			if (!ctx->clash[0])
				snprintf(ctx->clash, sizeof(ctx->clash),
					 "Device %s is served by two backends, %s and %s: use one of them", dev->handle,
					 other->name, drv->name);
			dlh__log(ctx, DLH_LOG_ERR, NULL, "%s: served by %s already: %s's is not mirrored", dev->handle,
				 other->name, drv->name);
			err = dlh__extack_set(ext, -EEXIST, dev->handle, "Device is served by %s already", other->name);
		}
		goto err_parse;
	}
	dev->ctx = ctx;
	dev->drv = drv;
	dev->sdk_bus = bus;
	dlh__list_init(&dev->ports);
	dlh__list_init(&dev->quarantine);
	dlh__list_init(&dev->timers);
	/* a card's device: the card's faceplate from its first message on */
	if (bus) {
		err = dlh__dev_card_copy(dev, bus, ext);
		if (err)
			goto err_card;
	}
	err = dlh__dev_rules_own(dev, ext);
	if (err)
		goto err_card;
	err = dlh__htab_insert(&ctx->dev_by_handle, &dev->hnode, dlh__hash_str(dev->handle));
	if (err) {
		dlh__extack_set(ext, err, dev->handle, "Out of memory");
		goto err_card;
	}
	dlh__list_add_tail(&ctx->devs, &dev->node);
	dev->early = ctx->fill_mode == DLH__FILL_NETDEV || ctx->fill_mode == DLH__FILL_DEV;
	dlh__event_emit(ctx, DLH_EVENT_DEV_NEW, dev, NULL);
	*out = dev;
	return 0;

err_card:
	free(dev->cages);
	free(dev->card);
	dlh__dev_rules_free(dev);
err_parse:
	free(dev);
	return err;
}

int dlh__dev_add(struct dlh_ctx *ctx, const char *handle, const struct dlh_sdk_driver *drv, const char *config,
		 struct dlh_extack *ext)
{
	int (*probe)(struct dlh_dev *, const char *, struct dlh_extack *) = DLH__OP(drv, probe);
	struct dlh_dev *dev;
	int err;

	err = dlh__dev_create(ctx, handle, drv, NULL, &dev, ext);
	if (err)
		return err;
	if (probe) {
		err = probe(dev, config, ext);
		if (err) {
			/* a driver that says nothing: the error line says what failed */
			if (ext && !ext->msg[0] && err < 0)
				dlh__extack_set(ext, err, dev->handle, "probe failed: %s", strerror(-err));
			dlh__extack_obj(ext, dev->handle);
			goto err_probe;
		}
	}
	return 0;

err_probe:
	/* The driver should have unregistered its ports; catch any it left. */
	dlh__port_free_all(dev);
	dlh__event_emit(ctx, DLH_EVENT_DEV_DEL, dev, NULL);
	dev_unlink(dev);
	dev->gone = true;
	dlh__list_add_tail(&ctx->gone_devs, &dev->node);
	return err;
}

DLH_EXPORT int dlh_sdk_bus_dev_add(struct dlh_sdk_bus *bus, const char *handle, struct dlh_dev **out,
				   struct dlh_extack *ext)
{
	struct dlh_dev *dev;
	int err = dlh__dev_create(bus->ctx, handle, bus->drv, bus, &dev, ext);

	if (!err && out)
		*out = dev;
	return err;
}

DLH_EXPORT void dlh_sdk_dev_remove(struct dlh_dev *dev)
{
	if (dev->ctx->op.name && dev->ctx->op.local && dev->ctx->op.dev == dev) {
		dlh__log(dev->ctx, DLH_LOG_ERR, dev, "driver %s: device removed from inside %s: refused (driver bug)",
			 dev->drv->name, dev->ctx->op.name);
		return;
	}
	if (dev->gone)
		return; /* removed already: its memory waits for the reap (dlhal.h, "Lifetime") */
	/* a relay's op on it is still running (the notifications its answer brought removed it) */
	if (dev->ctx->op.name && dev->ctx->op.dev == dev)
		dev->ctx->op.dev = NULL;
	dlh__port_free_all(dev);
	dlh__event_emit(dev->ctx, DLH_EVENT_DEV_DEL, dev, NULL);
	dev_unlink(dev);
	dev->gone = true;
	dlh__list_add_tail(&dev->ctx->gone_devs, &dev->node);
}

DLH_EXPORT struct dlh_sdk_bus *dlh_sdk_dev_bus(const struct dlh_dev *dev)
{
	return dev->sdk_bus;
}

void dlh__dev_remove(struct dlh_dev *dev)
{
	void (*remove)(struct dlh_dev *) = DLH__OP(dev->drv, remove);

	if (dev->gone)
		return;
	if (remove)
		remove(dev);
	/* Ports the driver left go first, so subscribers never see a port outlive its device. */
	dlh_sdk_dev_remove(dev);
}

static int sim_check(struct dlh_dev *dev, struct dlh_port *port, const char *key, struct dlh_extack *ext)
{
	dlh__extack_clear(ext);
	if (dev->gone)
		return dlh__dev_live(dev, ext);
	if (port && port->life != DLH__PORT_LIVE)
		return dlh__extack_set(ext, -ENODEV, port->handle, "Port was removed");
	if (port && port->dev != dev)
		return dlh__extack_set(ext, -EINVAL, port->handle, "Port is not on device %s", dev->handle);
	if (!key || !key[0])
		return dlh__extack_set(ext, -EINVAL, dev->handle, "Emulator control name missing");
	return 0;
}

DLH_EXPORT int dlh_dev_sim_set(struct dlh_dev *dev, struct dlh_port *port, const char *key, const char *value,
			       struct dlh_extack *ext)
{
	int (*op)(struct dlh_dev *, struct dlh_port *, const char *, const char *, struct dlh_extack *) =
	    DLH__OP(dev->drv, sim_set);
	char obj[DLH_HANDLE_MAX];
	int err = sim_check(dev, port, key, ext);

	if (err)
		return err;
	if (!op)
		return dlh__extack_set(ext, -EOPNOTSUPP, dev->handle, "Device has no emulator controls");
	/* a copy: a control may remove the port or device (a relay's answer brings the notifications) */
	snprintf(obj, sizeof(obj), "%s", port ? port->handle : dev->handle);
	if (!value)
		return dlh__extack_set(ext, -EINVAL, obj, "Value missing for \"%s\"", key);
	err = op(dev, port, key, value, ext);
	if (err)
		dlh__extack_obj(ext, obj);
	return err;
}

DLH_EXPORT int dlh_dev_sim_get(struct dlh_dev *dev, struct dlh_port *port, const char *key, char *buf, size_t len,
			       struct dlh_extack *ext)
{
	int (*op)(struct dlh_dev *, struct dlh_port *, const char *, char *, size_t, struct dlh_extack *) =
	    DLH__OP(dev->drv, sim_get);
	int err = sim_check(dev, port, key, ext);

	if (err)
		return err;
	if (!op)
		return dlh__extack_set(ext, -EOPNOTSUPP, dev->handle, "Device has no emulator controls");
	if (!buf || !len)
		return dlh__extack_set(ext, -EINVAL, dev->handle, "No room for the value");
	err = op(dev, port, key, buf, len, ext);
	if (err)
		dlh__extack_obj(ext, port ? port->handle : dev->handle);
	return err;
}
