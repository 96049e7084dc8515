/* SPDX-License-Identifier: MIT */
/* Ports: registry, attributes, generic validation of port operations. */
#include "core.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct index_key {
	uint32_t index;
};

static struct dlh_port *port_find(const struct dlh_dev *dev, const struct index_key *key);
static int port_gone(struct dlh_port *port, const char *call);

static int index_match(const struct dlh__hnode *n, const void *key)
{
	return dlh__container_of(n, struct dlh_port, index_node)->index == ((const struct index_key *)key)->index;
}

static int netdev_match(const struct dlh__hnode *n, const void *key)
{
	return !strcmp(dlh__container_of(n, struct dlh_port, netdev_node)->netdev, key);
}

DLH_EXPORT struct dlh_port *dlh_port_find(const struct dlh_dev *dev, uint32_t index)
{
	struct index_key k = {index};

	dlh__fill_dev(dev);
	return port_find(dev, &k);
}

struct dlh_port *dlh__port_find(const struct dlh_dev *dev, uint32_t index)
{
	return port_find(dev, &(struct index_key){index});
}

static struct dlh_port *port_find(const struct dlh_dev *dev, const struct index_key *key)
{
	struct dlh__hnode *n = dlh__htab_find(&dev->port_by_index, dlh__hash_u64(key->index), index_match, key);

	return n ? dlh__container_of(n, struct dlh_port, index_node) : NULL;
}

DLH_EXPORT struct dlh_port *dlh_port_find_netdev(const struct dlh_ctx *ctx, const char *netdev)
{
	dlh__fill_netdev(ctx, netdev);
	return dlh__port_find_netdev(ctx, netdev);
}

struct dlh_port *dlh__port_find_netdev(const struct dlh_ctx *ctx, const char *netdev)
{
	struct dlh__hnode *n = dlh__htab_find(&ctx->port_by_netdev, dlh__hash_str(netdev), netdev_match, netdev);

	return n ? dlh__container_of(n, struct dlh_port, netdev_node) : NULL;
}

DLH_EXPORT struct dlh_port *dlh_port_first(const struct dlh_dev *dev)
{
	dlh__fill_dev(dev);
	return dlh__list_empty(&dev->ports) ? NULL : dlh__container_of(dev->ports.next, struct dlh_port, node);
}

/* The device list as it stands: a port listing needs no device without ports. */
static struct dlh_port *first_from(const struct dlh_ctx *ctx, const struct dlh__list *dev_node)
{
	for (; dev_node != &ctx->devs; dev_node = dev_node->next) {
		const struct dlh_dev *dev = dlh__container_of(dev_node, struct dlh_dev, node);

		if (!dlh__list_empty(&dev->ports))
			return dlh__container_of(dev->ports.next, struct dlh_port, node);
	}
	return NULL;
}

struct dlh_port *dlh__port_first_all_nofill(const struct dlh_ctx *ctx)
{
	return first_from(ctx, ctx->devs.next);
}

DLH_EXPORT struct dlh_port *dlh_port_first_all(const struct dlh_ctx *ctx)
{
	dlh__fill(ctx, DLH_SDK_FILL_PORTS);
	return first_from(ctx, ctx->devs.next);
}

DLH_EXPORT struct dlh_port *dlh_port_next_all(const struct dlh_port *port)
{
	struct dlh_port *next = dlh_port_next(port);

	if (port->dev->gone)
		return NULL;
	return next ? next : first_from(port->dev->ctx, port->dev->node.next);
}

DLH_EXPORT struct dlh_port *dlh_port_next(const struct dlh_port *port)
{
	if (port->life == DLH__PORT_LIVE)
		dlh__dev_whole(port->dev); /* a port found by netdev alone: its neighbours first */
	if (port->life != DLH__PORT_LIVE)
		return NULL;
	return port->node.next == &port->dev->ports ? NULL : dlh__container_of(port->node.next, struct dlh_port, node);
}

static int parse_index(const char *s, uint32_t *out)
{
	uint64_t v = 0;

	if (!*s)
		return -EINVAL;
	for (; *s; s++) {
		if (*s < '0' || *s > '9')
			return -EINVAL;
		v = v * 10 + (uint64_t)(*s - '0');
		if (v > UINT32_MAX)
			return -ERANGE;
	}
	*out = (uint32_t)v;
	return 0;
}

DLH_EXPORT int dlh_port_lookup(const struct dlh_ctx *ctx, const char *what, struct dlh_port **out,
			       struct dlh_extack *ext)
{
	char bus[DLH_BUS_NAME_MAX], name[DLH_DEV_NAME_MAX], handle[DLH_BUS_NAME_MAX + DLH_DEV_NAME_MAX];
	const char *slash = strrchr(what, '/');
	struct dlh_port *port;
	struct dlh_dev *dev;
	uint32_t index;
	int err;

	dlh__extack_clear(ext);
	if (!slash) {
		if (!dlh__netdev_name_valid(what))
			return dlh__extack_set(ext, -EINVAL, NULL, "\"%s\" is neither DEV/PORT_INDEX nor a netdev name",
					       DLH__QUOTE(what, strlen(what)));
		/* The one port where a bus can find it alone, else every port. */
		dlh__fill_netdev(ctx, what);
		port = dlh__port_find_netdev(ctx, what);
		if (!port)
			return dlh__extack_set(ext, -ENODEV, what, "No port has this netdev");
		*out = port;
		return 0;
	}
	if (slash == strchr(what, '/'))
		return dlh__extack_set(ext, -EINVAL, NULL, "Port handle \"%s\" is not of the form bus/dev/index",
				       DLH__QUOTE(what, strlen(what)));
	/* bus/dev/index/ (a trailing slash) or more parts: a port handle with one too many, not a device's */
	if (strchr(strchr(what, '/') + 1, '/') != slash)
		return dlh__extack_set(
		    ext, -EINVAL, NULL,
		    "Port handle \"%s\" is not of the form bus/dev/index: it has more than two \"/\"",
		    DLH__QUOTE(what, strlen(what)));
	err = dlh__dev_handle_parse(what, (size_t)(slash - what), bus, name, ext);
	if (err)
		return err;
	err = parse_index(slash + 1, &index);
	if (err)
		return dlh__extack_set(ext, -EINVAL, NULL, "Port index \"%s\" is not a number from 0 to %u",
				       DLH__QUOTE(slash + 1, strlen(slash + 1)), UINT32_MAX);
	memcpy(handle, what, (size_t)(slash - what)); /* parsed and bounded above */
	handle[slash - what] = '\0';
	/* A port's device comes with the port where a bus reads every port anyway (and
	 * the device list then is only needed for a device without ports); where a
	 * bus reads one device's ports alone, the device list is read first. */
	if (!dlh__fill_dev_capable(ctx))
		dlh__fill(ctx, DLH_SDK_FILL_PORTS);
	dev = dlh__dev_find(ctx, handle);
	if (!dev) {
		dlh__fill(ctx, DLH_SDK_FILL_DEVS);
		dev = dlh__dev_find(ctx, handle);
	}
	if (!dev)
		return dlh__extack_set(ext, -ENODEV, handle, "Device does not exist");
	dlh__fill_dev(dev);
	if (dev != dlh__dev_find(ctx, handle)) /* gone while its ports were read */
		return dlh__extack_set(ext, -ENODEV, handle, "Device does not exist");
	port = port_find(dev, &(struct index_key){index});
	/* a kernel device's rules may show a port the kernel has none for (a ConnectX-6's InfiniBand
	 * function: mlx5 registers no devlink port for it): recognised, the device may have it */
	if (!port && DLH__RELAY(dev->drv) && !dev->rules && !dev->rules_asked) {
		dlh__dev_rules(dev);
		dev = dlh__dev_find(ctx, handle);
		port = dev ? port_find(dev, &(struct index_key){index}) : NULL;
	}
	if (!port)
		return dlh__extack_set(ext, -ENODEV, what, "Port does not exist");
	*out = port;
	return 0;
}

DLH_EXPORT struct dlh_dev *dlh_port_dev(const struct dlh_port *port)
{
	return port->dev;
}

DLH_EXPORT uint32_t dlh_port_index(const struct dlh_port *port)
{
	return port->index;
}

DLH_EXPORT const char *dlh_port_handle(const struct dlh_port *port)
{
	return port->handle;
}

DLH_EXPORT enum dlh_port_type dlh_port_type(const struct dlh_port *port)
{
	return port->type;
}

DLH_EXPORT enum dlh_port_type dlh_port_desired_type(const struct dlh_port *port)
{
	return port->desired_type;
}

DLH_EXPORT const char *dlh_port_netdev(const struct dlh_port *port)
{
	return dlh__port_netdev(port);
}

DLH_EXPORT const char *dlh_port_ibdev(const struct dlh_port *port)
{
	return dlh__port_ibdev(port);
}

DLH_EXPORT bool dlh_port_is_split(const struct dlh_port *port)
{
	return port->attrs.split;
}

DLH_EXPORT uint32_t dlh_port_split_group(const struct dlh_port *port)
{
	return port->attrs.split_group;
}

DLH_EXPORT uint32_t dlh_port_split_subport(const struct dlh_port *port)
{
	return port->attrs.split_subport;
}

DLH_EXPORT enum dlh_port_flavour dlh_port_flavour(const struct dlh_port *port)
{
	return port->attrs.flavour;
}

DLH_EXPORT uint32_t dlh_port_number(const struct dlh_port *port)
{
	return port->attrs.number;
}

DLH_EXPORT bool dlh_port_has_number(const struct dlh_port *port)
{
	return dlh__port_has_number(port);
}

DLH_EXPORT uint32_t dlh_port_lanes(const struct dlh_port *port)
{
	return port->attrs.lanes;
}

DLH_EXPORT bool dlh_port_splittable(const struct dlh_port *port)
{
	return port->attrs.splittable;
}

DLH_EXPORT uint32_t dlh_port_split_counts(const struct dlh_port *port)
{
	const struct dlh_sdk_driver *drv = port->dev->drv;
	uint32_t mask = 0;

	if (!port->attrs.splittable)
		return 0;
	for (uint32_t n = 2; n <= port->attrs.lanes && n < 32; n *= 2)
		mask |= 1u << n;
	if (port->said_counts)
		return mask & port->said_counts;
	/* a device that stands for a Linux driver splits as that Linux's core checks (split_check()) */
	return drv->split_counts && !DLH__RELAY(drv) && !port->dev->linux_release[0] ? mask & drv->split_counts : mask;
}

DLH_EXPORT void dlh_sdk_port_split_counts_set(struct dlh_port *port, uint32_t counts)
{
	if (!port_gone(port, "dlh_sdk_port_split_counts_set"))
		port->said_counts = counts;
}

/*
 * What a kernel device's rules add to what the kernel reports (module, lane,
 * speed): the device is recognised when first asked, as for a plan. Added
 * on each read, never stored: it may rest on other devices (an E810's PFs,
 * which come one by one after a reset), and the port keeps what the kernel
 * said, for the next notification to be compared with. (A port
 * streamed by a walk has a device on the stack, never recognised: the walk
 * is a listing's, which asks nothing more.)
 */
static struct dlh_sdk_port_attrs attrs_filled(const struct dlh_port *port)
{
	struct dlh_sdk_port_attrs a = port->attrs;

	if (!a.has_module && port->life != DLH__PORT_WALKED && DLH__RELAY(port->dev->drv)) {
		dlh__dev_rules(port->dev);
		dlh__port_attrs_fill(port->dev, port->index, &a);
	}
	return a;
}

DLH_EXPORT uint32_t dlh_port_speed(const struct dlh_port *port)
{
	return attrs_filled(port).speed;
}

DLH_EXPORT bool dlh_port_module(const struct dlh_port *port, uint32_t *module, uint32_t *lane)
{
	struct dlh_sdk_port_attrs a = attrs_filled(port);

	if (!a.has_module)
		return false;
	if (module)
		*module = a.module;
	if (lane)
		*lane = a.lane;
	return true;
}

DLH_EXPORT void *dlh_sdk_port_priv(const struct dlh_port *port)
{
	return (void *)port->priv;
}

/* "bus/dev/index"; called once per port, which a 1024-port dump makes hot. */
void dlh__port_handle_format(char *out, const char *dev, uint32_t index)
{
	char digits[10];
	size_t n = strlen(dev), d = 0;

	memcpy(out, dev, n);
	out[n++] = '/';
	do
		digits[d++] = (char)('0' + index % 10);
	while ((index /= 10));
	while (d)
		out[n++] = digits[--d];
	out[n] = '\0';
}

/* A driver call on a port that is no longer in the model: a driver bug, logged and ignored. */
static int port_gone(struct dlh_port *port, const char *call)
{
	if (port->life == DLH__PORT_LIVE)
		return 0;
	dlh__log(port->dev->ctx, DLH_LOG_ERR, port->dev, "driver %s: %s on port %s, which was removed (driver bug)",
		 port->dev->drv->name, call, port->handle);
	return 1;
}

DLH_EXPORT int dlh_sdk_port_register(struct dlh_dev *dev, uint32_t index, const struct dlh_sdk_port_attrs *attrs,
				     struct dlh_port **out, struct dlh_extack *ext)
{
	struct dlh_port *port;
	int err;

	/* UINT32_MAX is no port: drivers' "index + n" must not wrap into the valid range */
	if (index == UINT32_MAX)
		return dlh__extack_set(ext, -EINVAL, dev->handle, "Port index %u is out of range (driver %s)", index,
				       dev->drv->name);
	if (port_find(dev, &(struct index_key){index}))
		return dlh__extack_set(ext, -EEXIST, dev->handle, "Port index %u already exists", index);
	if (attrs && !dlh__port_flavour_valid(attrs->flavour))
		return dlh__extack_set(ext, -EINVAL, dev->handle, "Port %u has an unknown flavour %d", index,
				       (int)attrs->flavour);
	/* The object the running op unregistered at this index comes back, so
	 * that an op which fails after undoing itself leaves every pointer a
	 * subscriber holds valid. */
	port = dlh__op_revive(dev, index);
	if (!port) {
		/* "bus/dev/" and at most 10 digits */
		port = calloc(1, sizeof(*port) + dev->drv->port_priv_size + strlen(dev->handle) + 12);
		if (!port)
			return dlh__extack_set(ext, -ENOMEM, dev->handle, "Out of memory");
		port->dev = dev;
		port->index = index;
		port->handle = (char *)port->priv + dev->drv->port_priv_size;
		dlh__port_handle_format(port->handle, dev->handle, index);
	}
	err = dlh__htab_insert(&dev->port_by_index, &port->index_node, dlh__hash_u64(index));
	if (err) {
		if (port->life == DLH__PORT_LIVE)
			free(port);
		return dlh__extack_set(ext, err, dev->handle, "Out of memory");
	}
	if (port->life != DLH__PORT_LIVE) {
		dlh__list_del(&port->node); /* out of the op's graveyard */
		memset(port->priv, 0, dev->drv->port_priv_size);
	}
	port->life = DLH__PORT_LIVE;
	port->type = port->desired_type = DLH_PORT_TYPE_NOTSET;
	port->netdev[0] = port->ibdev[0] = '\0';
	port->attrs = attrs ? *attrs : (struct dlh_sdk_port_attrs){0};
	if (!port->attrs.split)
		port->attrs.split_group = port->attrs.split_subport = 0;
	dlh__list_add_tail(&dev->ports, &port->node);
	dev->nports++;
	if (dev->ctx->fill_mode)
		dlh__fill_place(dev, port);
	dlh__event_emit(dev->ctx, DLH_EVENT_PORT_NEW, dev, port);
	if (out)
		*out = port;
	return 0;
}

/* Out of the name table; the name stays readable for the port's del event. */
static void netdev_unlink(struct dlh_port *port)
{
	if (port->netdev[0]) {
		dlh__htab_remove(&port->dev->ctx->port_by_netdev, &port->netdev_node);
		dlh__netdev_name_note(port->dev->ctx, port->netdev, false);
	}
}

int dlh__port_netdev_link(struct dlh_port *port)
{
	int err;

	if (!port->netdev[0])
		return 0;
	err = dlh__htab_insert(&port->dev->ctx->port_by_netdev, &port->netdev_node, dlh__hash_str(port->netdev));
	if (!err)
		dlh__netdev_name_note(port->dev->ctx, port->netdev, true);
	return err;
}

/* Out of the model (tables, list); the object stays. */
void dlh__port_unlink(struct dlh_port *port)
{
	struct dlh_dev *dev = port->dev;

	netdev_unlink(port);
	dlh__htab_remove(&dev->port_by_index, &port->index_node);
	dlh__list_del(&port->node);
	dev->nports--;
}

/* Back into the model, at the end of the list. */
int dlh__port_link(struct dlh_port *port)
{
	struct dlh_dev *dev = port->dev;
	int err = dlh__htab_insert(&dev->port_by_index, &port->index_node, dlh__hash_u64(port->index));

	if (err)
		return err;
	dlh__list_add_tail(&dev->ports, &port->node);
	dev->nports++;
	port->life = DLH__PORT_LIVE;
	return 0;
}

void dlh__port_free(struct dlh_port *port)
{
	if (port->life == DLH__PORT_LIVE)
		dlh__port_unlink(port);
	else
		dlh__list_del(&port->node);
	free(port->pending);
	free(port);
}

DLH_EXPORT void dlh_sdk_port_unregister(struct dlh_port *port)
{
	struct dlh_dev *dev;

	if (!port || port_gone(port, "dlh_sdk_port_unregister"))
		return;
	dev = port->dev;
	dlh__event_emit(dev->ctx, DLH_EVENT_PORT_DEL, dev, port);
	dlh__port_unlink(port);
	dlh__op_bury(port);
	/* rules that did not fit the ports as they were are asked again (a reset's ports go one by one) */
	if (dev->rules_misfit && !dev->recognising) {
		dlh__dev_rules_again(dev);
		dlh__dev_rules_catch_up(dev->ctx);
	}
}

void dlh__port_free_all(struct dlh_dev *dev)
{
	dev->rules_misfit = false; /* going: not to be recognised again as its ports go */
	while (!dlh__list_empty(&dev->ports))
		dlh_sdk_port_unregister(dlh__container_of(dev->ports.prev, struct dlh_port, node));
	while (!dlh__list_empty(&dev->quarantine))
		dlh__port_free(dlh__container_of(dev->quarantine.next, struct dlh_port, node));
}

DLH_EXPORT void dlh_sdk_port_attrs_set(struct dlh_port *port, const struct dlh_sdk_port_attrs *attrs)
{
	struct dlh_sdk_port_attrs a = *attrs;

	if (port_gone(port, "dlh_sdk_port_attrs_set"))
		return;
	if (port->dev->ctx->fill_mode)
		dlh__fill_place(port->dev, port);
	if (!a.split)
		a.split_group = a.split_subport = 0;
	if (!memcmp(&a, &port->attrs, sizeof(a)))
		return;
	port->attrs = a;
	dlh__event_emit(port->dev->ctx, DLH_EVENT_PORT_CHANGE, port->dev, port);
}

DLH_EXPORT void dlh_sdk_port_desired_type_set(struct dlh_port *port, enum dlh_port_type type)
{
	if (port_gone(port, "dlh_sdk_port_desired_type_set") || port->desired_type == type)
		return;
	port->desired_type = type;
	dlh__event_emit(port->dev->ctx, DLH_EVENT_PORT_CHANGE, port->dev, port);
}

DLH_EXPORT int dlh_sdk_port_type_eth(struct dlh_port *port, const char *netdev, struct dlh_extack *ext)
{
	struct dlh_ctx *ctx = port->dev->ctx;
	char name[DLH_NETDEV_NAME_MAX];
	struct dlh_port *holder;
	int err;

	if (port_gone(port, "dlh_sdk_port_type_eth"))
		return dlh__extack_set(ext, -ENODEV, port->handle, "Port was removed");
	if (!netdev) {
		if (port->type == DLH_PORT_TYPE_ETH && !port->netdev[0])
			return 0;
		netdev_unlink(port);
		port->netdev[0] = port->ibdev[0] = '\0';
		port->type = DLH_PORT_TYPE_ETH;
		dlh__event_emit(ctx, DLH_EVENT_PORT_CHANGE, port->dev, port);
		return 0;
	}
	if (strchr(netdev, '%')) {
		err = dlh_sdk_netdev_name_alloc(ctx, netdev, name, sizeof(name), ext);
		if (err)
			return dlh__extack_obj(ext, port->handle), err;
	} else {
		if (!dlh__netdev_name_valid(netdev))
			return dlh__extack_set(ext, -EINVAL, port->handle, "Invalid netdev name \"%s\"",
					       DLH__QUOTE(netdev, strlen(netdev)));
		memcpy(name, netdev, strlen(netdev) + 1); /* valid: shorter than name */
		holder = dlh__port_find_netdev(ctx, name);
		if (holder && holder != port)
			return dlh__extack_set(ext, -EEXIST, port->handle, "Netdev name \"%s\" is in use by %s", name,
					       holder->handle);
	}
	if (port->type == DLH_PORT_TYPE_ETH && !strcmp(port->netdev, name))
		return 0;
	netdev_unlink(port);
	memcpy(port->netdev, name, sizeof(name));
	err = dlh__htab_insert(&ctx->port_by_netdev, &port->netdev_node, dlh__hash_str(name));
	if (err) {
		port->netdev[0] = '\0';
		return dlh__extack_set(ext, err, port->handle, "Out of memory");
	}
	dlh__netdev_name_note(ctx, name, true);
	port->type = DLH_PORT_TYPE_ETH;
	port->ibdev[0] = '\0';
	dlh__event_emit(ctx, DLH_EVENT_PORT_CHANGE, port->dev, port);
	return 0;
}

DLH_EXPORT int dlh_sdk_port_type_ib(struct dlh_port *port, const char *ibdev, struct dlh_extack *ext)
{
	size_t len = ibdev ? strlen(ibdev) : 0;

	if (port_gone(port, "dlh_sdk_port_type_ib"))
		return dlh__extack_set(ext, -ENODEV, port->handle, "Port was removed");
	if (ibdev && (!len || len >= DLH_IBDEV_NAME_MAX || strchr(ibdev, '/')))
		return dlh__extack_set(ext, -EINVAL, port->handle, "Invalid ibdev name \"%s\"", DLH__QUOTE(ibdev, len));
	if (port->type == DLH_PORT_TYPE_IB && !strcmp(port->ibdev, ibdev ? ibdev : ""))
		return 0;
	netdev_unlink(port);
	port->netdev[0] = '\0';
	memcpy(port->ibdev, ibdev ? ibdev : "", len + 1);
	port->type = DLH_PORT_TYPE_IB;
	dlh__event_emit(port->dev->ctx, DLH_EVENT_PORT_CHANGE, port->dev, port);
	return 0;
}

DLH_EXPORT void dlh_sdk_port_type_clear(struct dlh_port *port)
{
	if (port_gone(port, "dlh_sdk_port_type_clear") || port->type == DLH_PORT_TYPE_NOTSET)
		return;
	netdev_unlink(port);
	port->netdev[0] = port->ibdev[0] = '\0';
	port->type = DLH_PORT_TYPE_NOTSET;
	dlh__event_emit(port->dev->ctx, DLH_EVENT_PORT_CHANGE, port->dev, port);
}

/*
 * Port operations. Core checks what it can before the driver runs, and names
 * the port in the message of any failure. Ops may replace the port they were
 * given (split does), so nothing here touches @port after the op returns.
 */

/*
 * Only a port in the model takes an operation (a stale pointer does not);
 * its device is read whole first (a port found by netdev came alone), since
 * every op and plan reads its neighbours.
 */
static int port_live(const struct dlh_port *port, struct dlh_extack *ext)
{
	dlh__dev_whole(port->dev);
	return port->life == DLH__PORT_LIVE ? 0 : dlh__extack_set(ext, -ENODEV, port->handle, "Port was removed");
}

/*
 * Linux's devlink core skips a type set equal to the type the port runs: the
 * driver is not asked and the desired type stays. On a kernel device where
 * that differs from what is asked (a port sensed eth, desired auto, set to
 * eth) the kernel would answer success and keep sensing: refuse instead.
 */
static int kernel_type_skipped(const struct dlh_port *port, enum dlh_port_type type, struct dlh_extack *ext)
{
	const struct dlh_sdk_driver *drv = port->dev->drv;

	if (!DLH__RELAY(drv) || DLH__OP(drv, port_split_plan) || type != port->type ||
	    port->desired_type == DLH_PORT_TYPE_NOTSET || port->desired_type == type)
		return 0;
	return dlh__extack_set(ext, -EALREADY, port->handle,
			       "Port runs %s already and the kernel skips a type a port runs: it would stay %s",
			       dlh_port_type_name(type), dlh_port_type_name(port->desired_type));
}

DLH_EXPORT int dlh_port_type_set(struct dlh_port *port, enum dlh_port_type type, struct dlh_extack *ext)
{
	int (*op)(struct dlh_port *, enum dlh_port_type, struct dlh_extack *) = DLH__OP(port->dev->drv, port_type_set);
	struct dlh_dev *dev = port->dev;
	const struct dlh_sdk_driver *drv = dev->drv;
	struct dlh_ctx *ctx = dev->ctx;
	struct dlh__expect *x;
	char handle[DLH_HANDLE_MAX], devhandle[DLH_HANDLE_MAX];
	uint32_t index = port->index;
	int err;

	dlh__extack_clear(ext);
	err = port_live(port, ext);
	if (err)
		return err;
	if (type != DLH_PORT_TYPE_ETH && type != DLH_PORT_TYPE_IB && type != DLH_PORT_TYPE_AUTO)
		return dlh__extack_set(ext, -EINVAL, port->handle, "Port type must be eth, ib or auto");
	if (type == port->desired_type)
		return 0;
	/* a kernel device whose Linux driver cannot change the type, under rules that can (mlx5) */
	if (DLH__RELAY(drv) && !DLH__OP(drv, port_split_plan))
		dlh__dev_rules(dev);
	if (DLH__RULES_TYPE_OP(dev))
		op = DLH__RULES_TYPE_OP(dev);
	else if ((err = kernel_type_skipped(port, type, ext)))
		return err;
	if (!op && dev->rules_misfit && dev->basis)
		return dlh__extack_set(ext, -EOPNOTSUPP, port->handle,
				       "The kernel's driver cannot set a port's type, and %s", dev->basis);
	if (!op)
		return dlh__extack_set(ext, -EOPNOTSUPP, port->handle, "Port type setting is not supported");
	/* ctx and drv are read before the op: a relay's answer brings notifications that may remove
	 * the device (a kernel instance unregistered meanwhile), so @dev is not read after it */
	memcpy(handle, port->handle, strlen(port->handle) + 1);
	memcpy(devhandle, dev->handle, strlen(dev->handle) + 1);
	x = dlh__rules_expect(port, &(struct dlh_change_req){DLH_CHANGE_TYPE, port->index, 0, type});
	err = dlh__op_begin(dev, port, "port_type_set", handle, ext);
	if (!err)
		err = dlh__op_end(ctx, drv, handle, op(port, type, ext), ext);
	dlh__rules_check(x, err, ext);
	if (err == -EOPNOTSUPP && ext && !ext->msg[0]) {
		/* the kernel's driver has no type set, and the rules that would (mlx5's, through mstflint)
		 * could not take the device: say why, rather than devlink's bare refusal */
		struct dlh_dev *d = dlh__dev_find(ctx, devhandle);

		if (d && d->rules_misfit && d->basis)
			dlh__extack_set(ext, err, handle, "The kernel's driver cannot set a port's type, and %s",
					d->basis);
	}
	if (err)
		return err;
	/* A staged change keeps the type the port runs until the reset (its pending says the new one), but
	 * what is asked for is stored: the desired type, as any other, so that asking again is a no-op. */
	/* a relay's device may have gone with the notifications its answer brought */
	dev = dlh__dev_find(ctx, devhandle);
	port = dev ? port_find(dev, &(struct index_key){index}) : NULL;
	if (port) {
		port->desired_type = type;
		dlh__event_emit(dev->ctx, DLH_EVENT_PORT_CHANGE, dev, port);
	}
	return 0;
}

/*
 * What Linux 6.1's devlink core refuses before a driver's port_split runs,
 * in its words; a driver that names the counts its hardware takes
 * (split_counts) has other counts refused first, in its own words, as
 * Linux 4.6 drivers checked the count before anything else, unless its
 * device stands for one that a newer Linux's driver runs
 * (dlh_sdk_dev_linux_set()): that Linux's core checks. A relay leaves this
 * to the core it relays to.
 */
static int split_check(const struct dlh_port *port, unsigned int count, bool relayed, struct dlh_extack *ext)
{
	const struct dlh_sdk_driver *drv = port->dev->drv;

	if (count < 2)
		return dlh__extack_set(ext, -EINVAL, port->handle, "Invalid split count");
	if (DLH__RELAY(drv) && relayed)
		return 0;
	if (drv->split_counts && !DLH__RELAY(drv) && !port->dev->linux_release[0] &&
	    (count >= 32 || !(drv->split_counts & (1u << count))))
		return dlh__extack_set(ext, -EINVAL, port->handle, "%s",
				       drv->split_count_msg ? drv->split_count_msg : "Invalid split count");
	if (!port->attrs.splittable)
		return dlh__extack_set(ext, -EINVAL, port->handle, "%s",
				       port->attrs.split ? "Port cannot be split further" : "Port cannot be split");
	if (count & (count - 1) || count > port->attrs.lanes)
		return dlh__extack_set(ext, -EINVAL, port->handle, "Invalid split count");
	return 0;
}

DLH_EXPORT int dlh_port_split(struct dlh_port *port, unsigned int count, struct dlh_extack *ext)
{
	int (*op)(struct dlh_port *, unsigned int, struct dlh_extack *) = DLH__OP(port->dev->drv, port_split);
	struct dlh_dev *dev = port->dev;
	const struct dlh_sdk_driver *drv = dev->drv;
	struct dlh_ctx *ctx = dev->ctx;
	struct dlh__expect *x;
	char handle[DLH_HANDLE_MAX];
	int err;

	dlh__extack_clear(ext);
	err = port_live(port, ext);
	if (err)
		return err;
	if (!op)
		return dlh__extack_set(ext, -EOPNOTSUPP, port->handle, "Port splitting is not supported");
	err = split_check(port, count, true, ext);
	if (err)
		return err;
	memcpy(handle, port->handle, strlen(port->handle) + 1);
	x = dlh__rules_expect(port, &(struct dlh_change_req){DLH_CHANGE_SPLIT, port->index, count, 0});
	err = dlh__op_begin(dev, port, "port_split", handle, ext);
	if (!err)
		err = dlh__op_end(ctx, drv, handle, op(port, count, ext), ext);
	dlh__rules_check(x, err, ext);
	return err;
}

DLH_EXPORT int dlh_port_unsplit(struct dlh_port *port, struct dlh_extack *ext)
{
	int (*op)(struct dlh_port *, struct dlh_extack *) = DLH__OP(port->dev->drv, port_unsplit);
	struct dlh_dev *dev = port->dev;
	const struct dlh_sdk_driver *drv = dev->drv;
	struct dlh_ctx *ctx = dev->ctx;
	struct dlh__expect *x;
	char handle[DLH_HANDLE_MAX];
	int err;

	dlh__extack_clear(ext);
	err = port_live(port, ext);
	if (err)
		return err;
	if (!op)
		return dlh__extack_set(ext, -EOPNOTSUPP, port->handle, "Port unsplitting is not supported");
	memcpy(handle, port->handle, strlen(port->handle) + 1);
	x = dlh__rules_expect(port, &(struct dlh_change_req){DLH_CHANGE_UNSPLIT, port->index, 0, 0});
	err = dlh__op_begin(dev, port, "port_unsplit", handle, ext);
	if (!err)
		err = dlh__op_end(ctx, drv, handle, op(port, ext), ext);
	dlh__rules_check(x, err, ext);
	return err;
}

/*
 * Plans run the op's checks, then the driver's plan op with the same guard
 * as an op (no op may start from inside one), and check its result as an
 * op's. A relay plans from what the kernel's core checks, and says partial.
 */
static int plan_end(struct dlh_ctx *ctx, const struct dlh_sdk_driver *drv, const char *name, const char *handle,
		    int err, bool partial, struct dlh_extack *ext)
{
	ctx->op.name = NULL;
	dlh__dev_rules_catch_up(ctx);
	/* a partial plan keeps the rules' word on why it is (what the kernel does not report) */
	if (!err && partial && ext && ext->msg[0]) {
		dlh__extack_obj(ext, handle);
		return 0;
	}
	if (err > 0) {
		dlh__log(ctx, DLH_LOG_ERR, NULL, "driver %s: %s returned %d, not 0 or a negative errno (driver bug)",
			 drv->name, name, err);
		return dlh__extack_set(ext, -EIO, handle, "Driver bug: %s returned %d", name, err);
	}
	if (!err) {
		dlh__extack_clear(ext);
		return 0;
	}
	if (ext && !ext->msg[0])
		return dlh__extack_set(ext, err, handle, "%s", strerror(-err));
	dlh__extack_obj(ext, handle);
	return err;
}

/*
 * After each plan's own checks: a relay without the plan op plans partially;
 * another driver without it cannot plan. In a sequence, a driver that plans
 * only from its device as it is (no DLH_SDK_F_PLAN_VIEW) plans partially once
 * the sequence changed the device, and is given the model's port before. The
 * plan op runs under the op guard (nothing may start from inside it) and its
 * result is checked as an op's.
 */
/* The plan ops of a device: its rules' (its driver's own or a kernel device's), else its driver's. */
struct plan_ops {
	int (*split)(struct dlh_port *port, unsigned int count, struct dlh_sdk_plan *plan, struct dlh_extack *ext);
	int (*unsplit)(struct dlh_port *port, struct dlh_sdk_plan *plan, struct dlh_extack *ext);
	int (*type_set)(struct dlh_port *port, enum dlh_port_type type, struct dlh_sdk_plan *plan,
			struct dlh_extack *ext);
	bool view; /* they plan on a sequence's view (DLH_SDK_F_PLAN_VIEW; rules always do) */
};

static struct plan_ops plan_ops_of(const struct dlh_dev *dev)
{
	const struct dlh_sdk_driver *drv = dev->drv;

	if (dev->rules)
		return (struct plan_ops){dev->rules->port_split_plan, dev->rules->port_unsplit_plan,
					 dev->rules->port_type_set_plan, true};
	return (struct plan_ops){DLH__OP(drv, port_split_plan), DLH__OP(drv, port_unsplit_plan),
				 DLH__OP(drv, port_type_set_plan), (DLH__OPVAL(drv, flags) & DLH_SDK_F_PLAN_VIEW) != 0};
}

static int plan_run(struct dlh_port *port, const struct dlh_change_req *req, struct dlh_plan *plan,
		    struct dlh_sdk_port_attrs *come_attrs, struct dlh_extack *ext)
{
	static const char *const names[] = {"port_split_plan", "port_unsplit_plan", "port_type_set_plan"};
	static const char *const words[] = {"a split", "an unsplit", "a type set"};
	const struct dlh_sdk_driver *drv = port->dev->drv;
	const struct plan_ops ops = plan_ops_of(port->dev);
	struct dlh_sdk_plan sp = {.dev = port->dev, .out = plan, .view = port->view};
	struct dlh_ctx *ctx = port->dev->ctx;
	char handle[DLH_HANDLE_MAX];
	bool has, ruled = port->dev->rules != NULL;
	int err;

	has = req->kind == DLH_CHANGE_SPLIT	? ops.split != NULL
	      : req->kind == DLH_CHANGE_UNSPLIT ? ops.unsplit != NULL
						: ops.type_set != NULL;
	if (!has && DLH__RELAY(drv)) {
		plan->partial = true;
		return 0;
	}
	if (!has)
		return dlh__extack_set(ext, -EOPNOTSUPP, port->handle, "%s cannot plan %s",
				       ruled ? "Rules of driver" : "Driver", words[req->kind]);
	if (port->view && !ops.view) {
		port = port->view->nsteps ? NULL : dlh__port_find(port->dev, port->index);
		if (!port) {
			plan->partial = true;
			return 0;
		}
	}
	if (ctx->op.name)
		return dlh__extack_set(ext, -EBUSY, port->handle, "Another operation is in progress");
	ctx->op.name = names[req->kind];
	ctx->op.local = 0;
	ctx->op.dev = port->dev;
	memcpy(handle, port->handle, strlen(port->handle) + 1);
	if (req->kind == DLH_CHANGE_SPLIT)
		err = ops.split(port, req->count, &sp, ext);
	else if (req->kind == DLH_CHANGE_UNSPLIT)
		err = ops.unsplit(port, &sp, ext);
	else
		err = ops.type_set(port, req->type, &sp, ext);
	/* A relayed plan is partial or as the other core's driver says it (staged or not). */
	if (!err && plan->partial) {
		plan->ngone = plan->ncome = plan->nafter = 0;
		plan->staged = false;
	}
	/* A staged op's plan says what the reset brings up and nothing now; any other's, the ports now. */
	if (!err && !DLH__RELAY(drv) &&
	    (DLH__STAGED(drv, req->kind == DLH_CHANGE_TYPE ? DLH_SDK_STAGED_TYPE : DLH_SDK_STAGED_SPLIT)
		 ? !plan->staged || plan->ngone || plan->ncome
		 : plan->staged)) {
		dlh__log(ctx, DLH_LOG_ERR, port->dev, "driver %s: %s on %s does not plan what the op does (driver bug)",
			 drv->name, names[req->kind], handle);
		memset(plan, 0, sizeof(*plan));
		err = dlh__extack_set(ext, -EIO, handle, "Driver bug: %s's plan is not what the op does", drv->name);
	}
	if (!err && come_attrs)
		memcpy(come_attrs, sp.come_attrs, plan->ncome * sizeof(*come_attrs));
	return plan_end(ctx, drv, names[req->kind], handle, err, plan->partial, ext);
}

/*
 * A plan on a port of the model or of a sequence's view (a phantom): the
 * op's checks, then the driver's. A device whose ports a partial plan left
 * unknown plans partially.
 */
int dlh__port_plan(struct dlh_port *port, const struct dlh_change_req *req, struct dlh_plan *plan,
		   struct dlh_sdk_port_attrs *come_attrs, struct dlh_extack *ext)
{
	const struct dlh_sdk_driver *drv = port->dev->drv;
	int err;

	dlh__extack_clear(ext);
	memset(plan, 0, sizeof(*plan));
	if (port->life != DLH__PORT_PHANTOM) {
		err = port_live(port, ext);
		if (err)
			return err;
	} else if (port->dev->gone) {
		return dlh__dev_live(port->dev, ext);
	}
	/* a dry run is refused to whom the change would be (the kernel's CAP_NET_ADMIN) */
	if (DLH__OP(drv, dev_change_allowed)) {
		err = DLH__OP(drv, dev_change_allowed)(port->dev, ext);
		if (err) {
			dlh__extack_obj(ext, port->handle);
			return err < 0 ? err : -EPERM;
		}
	}
	if (port->view && port->view->unknown) {
		plan->partial = true;
		return 0;
	}
	/* a kernel device a vendor's rules know plans with them (recognised once, on first need) */
	dlh__dev_rules(port->dev);
	switch (req->kind) {
	case DLH_CHANGE_SPLIT:
		if (!DLH__OP(drv, port_split))
			return dlh__extack_set(ext, -EOPNOTSUPP, port->handle, "Port splitting is not supported");
		/* a relay that plans (a dlhald) leaves the checks to the core it asks, as its op does; a
		 * kernel device under a vendor's rules is checked as the kernel's core checks it */
		err = split_check(port, req->count, DLH__OP(drv, port_split_plan) != NULL && !port->dev->rules, ext);
		if (err)
			return err;
		break;
	case DLH_CHANGE_UNSPLIT:
		if (!DLH__OP(drv, port_unsplit))
			return dlh__extack_set(ext, -EOPNOTSUPP, port->handle, "Port unsplitting is not supported");
		break;
	case DLH_CHANGE_TYPE:
		if (req->type != DLH_PORT_TYPE_ETH && req->type != DLH_PORT_TYPE_IB && req->type != DLH_PORT_TYPE_AUTO)
			return dlh__extack_set(ext, -EINVAL, port->handle, "Port type must be eth, ib or auto");
		if (req->type == port->desired_type)
			return 0;
		if (DLH__RELAY(drv) && !DLH__OP(drv, port_split_plan))
			dlh__dev_rules(port->dev);
		if (DLH__RULES_TYPE_OP(port->dev))
			break; /* the rules make the change, not the kernel: theirs are the checks */
		if (!DLH__OP(drv, port_type_set))
			return dlh__extack_set(ext, -EOPNOTSUPP, port->handle, "Port type setting is not supported");
		err = kernel_type_skipped(port, req->type, ext);
		if (err)
			return err;
		break;
	default:
		return dlh__extack_set(ext, -EINVAL, port->handle, "Unknown change %d", (int)req->kind);
	}
	return plan_run(port, req, plan, come_attrs, ext);
}

DLH_EXPORT int dlh_port_split_plan(struct dlh_port *port, unsigned int count, struct dlh_plan *plan,
				   struct dlh_extack *ext)
{
	return dlh__port_plan(port, &(struct dlh_change_req){DLH_CHANGE_SPLIT, port->index, count, 0}, plan, NULL, ext);
}

DLH_EXPORT int dlh_port_unsplit_plan(struct dlh_port *port, struct dlh_plan *plan, struct dlh_extack *ext)
{
	return dlh__port_plan(port, &(struct dlh_change_req){DLH_CHANGE_UNSPLIT, port->index, 0, 0}, plan, NULL, ext);
}

DLH_EXPORT int dlh_port_type_set_plan(struct dlh_port *port, enum dlh_port_type type, struct dlh_plan *plan,
				      struct dlh_extack *ext)
{
	return dlh__port_plan(port, &(struct dlh_change_req){DLH_CHANGE_TYPE, port->index, 0, type}, plan, NULL, ext);
}

DLH_EXPORT int dlh_port_change(struct dlh_port *port, const struct dlh_change_req *req, struct dlh_extack *ext)
{
	switch (req->kind) {
	case DLH_CHANGE_SPLIT:
		return dlh_port_split(port, req->count, ext);
	case DLH_CHANGE_UNSPLIT:
		return dlh_port_unsplit(port, ext);
	case DLH_CHANGE_TYPE:
		return dlh_port_type_set(port, req->type, ext);
	}
	return dlh__extack_set(ext, -EINVAL, port->handle, "Unknown change %d", (int)req->kind);
}
