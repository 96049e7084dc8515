/* SPDX-License-Identifier: MIT */
/*
 * ConnectX-3 port types (eth/ib/auto), as Linux's mlx4 main.c does them.
 * Unlike the kernel, a refused or failed change keeps the port's previous
 * possible type (the kernel leaves the refused "auto" behind in some paths),
 * and a firmware failure mid-change restores the ports' types.
 */
#define MLX4_INTERNAL
#include "mlx4.h"

#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static struct mlx4_priv *priv_of(const struct dlh_dev *dev)
{
	return dlh_sdk_dev_priv(dev);
}

/* Announces the port's type to core, re-creating its netdev or ibdev. */
static int port_model_type_set(struct mlx4_priv *priv, int port, enum mlx4_port_type type, struct dlh_extack *ext)
{
	struct dlh_port *dl = priv->port[port];

	dlh_sdk_port_type_clear(dl);
	if (type == MLX4_PORT_TYPE_ETH)
		return dlh_sdk_port_type_eth(dl, priv->facts->netdev[port], ext);
	return dlh_sdk_port_type_ib(dl, priv->facts->ibdev, ext);
}

int mlx4_change_port_types(struct mlx4_priv *priv, const enum mlx4_port_type *port_types, struct dlh_extack *ext)
{
	enum mlx4_port_type prev[MLX4_MAX_PORTS + 1];
	unsigned int changed = 0, closed = 0, set = 0, inited = 0, modelled = 0;
	int n = priv->caps.num_ports, err = 0, port;

	for (port = 1; port <= n; port++) {
		prev[port] = (enum mlx4_port_type)priv->caps.port_type[port];
		if (port_types[port - 1] != prev[port])
			changed |= 1u << port;
	}
	if (!changed)
		return 0;

	/* Close every changing port before opening any, so that an HCA
	 * without DPDP never sees two open ports of different types. */
	for (port = 1; port <= n; port++) {
		if (!(changed & (1u << port)))
			continue;
		err = mlx4_CLOSE_PORT(priv->emu, port);
		if (err)
			goto err_hw;
		closed |= 1u << port;
	}
	for (port = 1; port <= n; port++) {
		if (!(changed & (1u << port)))
			continue;
		err = mlx4_SET_PORT(priv->emu, port, port_types[port - 1]);
		if (err)
			goto err_hw;
		set |= 1u << port;
	}
	for (port = 1; port <= n; port++) {
		if (!(changed & (1u << port)))
			continue;
		err = mlx4_INIT_PORT(priv->emu, port);
		if (err)
			goto err_hw;
		inited |= 1u << port;
	}
	for (port = 1; port <= n; port++) {
		if (!(changed & (1u << port)))
			continue;
		modelled |= 1u << port;
		err = port_model_type_set(priv, port, port_types[port - 1], ext);
		if (err)
			goto err_model;
		priv->caps.port_type[port] = (uint8_t)port_types[port - 1];
	}
	return 0;

err_model:
	for (port = 1; port <= n; port++) {
		if (!(modelled & (1u << port)))
			continue;
		priv->caps.port_type[port] = (uint8_t)prev[port];
		if (port_model_type_set(priv, port, prev[port], NULL))
			dlh_sdk_log(priv->dev, DLH_LOG_ERR, "Failed to restore type of port %d", port);
	}
	goto undo_hw;
err_hw:
	dlh_sdk_extack(ext, err, "Failed to set port type of port %d", port);
	dlh_sdk_log(priv->dev, DLH_LOG_ERR, "Failed to set port %d, aborting", port);
undo_hw:
	for (port = 1; port <= n; port++)
		if (inited & (1u << port))
			mlx4_CLOSE_PORT(priv->emu, port);
	for (port = 1; port <= n; port++)
		if (set & (1u << port))
			mlx4_SET_PORT(priv->emu, port, prev[port]);
	for (port = 1; port <= n; port++)
		if (closed & (1u << port) && mlx4_INIT_PORT(priv->emu, port))
			dlh_sdk_log(priv->dev, DLH_LOG_ERR, "Failed to reopen port %d", port);
	return err;
}

static int __set_port_type(struct mlx4_priv *priv, int port, enum mlx4_port_type port_type, struct dlh_extack *ext)
{
	enum mlx4_port_type possible[MLX4_MAX_PORTS + 1], types[MLX4_MAX_PORTS], new_types[MLX4_MAX_PORTS];
	enum mlx4_port_type cur[MLX4_MAX_PORTS + 1];
	int err;

	for (int i = 1; i <= priv->caps.num_ports; i++)
		cur[i] = (enum mlx4_port_type)priv->caps.port_type[i];
	memcpy(possible, priv->possible_type, sizeof(priv->possible_type));
	mlx4_stop_sense(priv);
	err = mlx4_type_decide(priv->facts, priv->dev, cur, port, port_type, possible, types, ext);
	if (!err) {
		mlx4_do_sense_ports(priv, new_types, types, possible);
		err = mlx4_check_port_params(priv->facts, priv->dev, new_types, ext);
	}
	if (!err)
		err = mlx4_change_port_types(priv, new_types, ext);
	if (!err)
		memcpy(priv->possible_type, possible, sizeof(possible));
	mlx4_start_sense(priv);
	return err;
}

static int mlx4_devlink_port_type_set(struct dlh_port *port, enum dlh_port_type type, struct dlh_extack *ext)
{
	struct mlx4_priv *priv = priv_of(dlh_port_dev(port));

	if (mlx4_type_of(type) == MLX4_PORT_TYPE_NONE)
		return dlh_sdk_extack(ext, -EOPNOTSUPP, "Unsupported port type");
	return __set_port_type(priv, (int)dlh_port_index(port), mlx4_type_of(type), ext);
}

static int mlx4_probe(struct dlh_dev *dev, const char *config, struct dlh_extack *ext)
{
	struct mlx4_priv *priv = priv_of(dev);
	enum mlx4_port_type cable[MLX4_MAX_PORTS + 1] = {0};
	struct mlx4_dev_cap board;
	int err, port;

	priv->dev = dev;
	priv->facts = dlh_sdk_dev_facts(dev);
	err = mlx4_hw_parse(priv->facts, config, &board, cable, ext);
	if (err)
		return err;
	priv->emu = mlx4_emu_new(&board);
	if (!priv->emu)
		return dlh_sdk_extack(ext, -ENOMEM, "Out of memory");
	for (port = 1; port <= board.num_ports; port++)
		mlx4_emu_cable_set(priv->emu, port, cable[port]);

	err = mlx4_QUERY_DEV_CAP(priv->emu, &priv->caps);
	if (err) {
		dlh_sdk_extack(ext, err, "QUERY_DEV_CAP command failed, aborting");
		goto err_emu;
	}
	for (port = 1; port <= priv->caps.num_ports; port++) {
		priv->possible_type[port] = (enum mlx4_port_type)priv->caps.port_type[port];
		/* Link sensing needs both protocols on the port, DPDP and firmware support. */
		priv->sense_allowed[port] = priv->caps.supported_type[port] == MLX4_PORT_TYPE_AUTO &&
					    (priv->caps.flags & MLX4_DEV_CAP_FLAG_DPDP) &&
					    (priv->caps.flags & MLX4_DEV_CAP_FLAG_SENSE_SUPPORT);
	}
	err = mlx4_sense_init(priv);
	if (err) {
		dlh_sdk_extack(ext, err, "Out of memory");
		goto err_emu;
	}
	for (port = 1; port <= priv->caps.num_ports; port++) {
		struct dlh_sdk_port_attrs attrs = {.flavour = DLH_PORT_FLAVOUR_PHYSICAL, .number = (uint32_t)port};

		err = dlh_sdk_port_register(dev, (uint32_t)port, &attrs, &priv->port[port], ext);
		if (err)
			goto err_ports;
		err = port_model_type_set(priv, port, (enum mlx4_port_type)priv->caps.port_type[port], ext);
		if (err) {
			port++;
			goto err_ports;
		}
	}
	mlx4_start_sense(priv);
	return 0;

err_ports:
	while (--port >= 1) {
		dlh_sdk_port_unregister(priv->port[port]);
		priv->port[port] = NULL;
	}
	dlh_sdk_timer_free(priv->sense_timer);
	priv->sense_timer = NULL;
err_emu:
	mlx4_emu_free(priv->emu);
	priv->emu = NULL;
	return err;
}

static void mlx4_remove(struct dlh_dev *dev)
{
	struct mlx4_priv *priv = priv_of(dev);

	dlh_sdk_timer_free(priv->sense_timer);
	priv->sense_timer = NULL;
	for (int port = priv->caps.num_ports; port >= 1; port--) {
		dlh_sdk_port_unregister(priv->port[port]);
		priv->port[port] = NULL;
	}
	mlx4_emu_free(priv->emu);
	priv->emu = NULL;
}

static int mlx4_sim_set(struct dlh_dev *dev, struct dlh_port *port, const char *key, const char *value,
			struct dlh_extack *ext)
{
	struct mlx4_priv *priv = priv_of(dev);
	enum mlx4_port_type t;
	unsigned long n;
	char *end;

	if (port && !strcmp(key, "cable")) {
		if (mlx4_type_word(value, &t))
			return dlh_sdk_extack(ext, -EINVAL, "cable: expected eth, ib or none, got \"%s\"", value);
		mlx4_emu_cable_set(priv->emu, (int)dlh_port_index(port), t);
		return 0;
	}
	if (!port && !strcmp(key, "fail_nth")) {
		errno = 0;
		n = strtoul(value, &end, 10);
		if (!*value || *value == '-' || *end || errno)
			return dlh_sdk_extack(ext, -EINVAL, "fail_nth: expected a number of commands, got \"%s\"",
					      value);
		mlx4_emu_fail_nth(priv->emu, n);
		return 0;
	}
	return dlh_sdk_extack(ext, -EINVAL,
			      "Unknown emulator control \"%s\" (ConnectX-3 has: cable on a port, "
			      "fail_nth on the device)",
			      key);
}

static const char *type_str(enum mlx4_port_type t)
{
	return t == MLX4_PORT_TYPE_ETH ? "eth" : t == MLX4_PORT_TYPE_IB ? "ib" : "none";
}

static int mlx4_sim_get(struct dlh_dev *dev, struct dlh_port *port, const char *key, char *buf, size_t len,
			struct dlh_extack *ext)
{
	struct mlx4_priv *priv = priv_of(dev);
	int p = port ? (int)dlh_port_index(port) : 0, n;

	if (port && !strcmp(key, "cable"))
		n = snprintf(buf, len, "%s", type_str(mlx4_emu_cable(priv->emu, p)));
	else if (port && !strcmp(key, "type"))
		n = snprintf(buf, len, "%s%s", type_str(mlx4_emu_port_type(priv->emu, p)),
			     mlx4_emu_port_open(priv->emu, p) ? "" : " closed");
	else if (!port && !strcmp(key, "fail_nth"))
		n = snprintf(buf, len, "%lu", mlx4_emu_fail_pending(priv->emu));
	else if (!port && !strcmp(key, "accesses"))
		n = snprintf(buf, len, "%lu", mlx4_emu_accesses(priv->emu));
	else if (!port && !strcmp(key, "state"))
		n = priv->caps.num_ports == 2
			? snprintf(buf, len, "{\"types\":[\"%s\",\"%s\"],\"cables\":[\"%s\",\"%s\"]}",
				   type_str(mlx4_emu_port_type(priv->emu, 1)),
				   type_str(mlx4_emu_port_type(priv->emu, 2)), type_str(mlx4_emu_cable(priv->emu, 1)),
				   type_str(mlx4_emu_cable(priv->emu, 2)))
			: snprintf(buf, len, "{\"types\":[\"%s\"],\"cables\":[\"%s\"]}",
				   type_str(mlx4_emu_port_type(priv->emu, 1)), type_str(mlx4_emu_cable(priv->emu, 1)));
	else
		return dlh_sdk_extack(ext, -EINVAL,
				      "Unknown emulator control \"%s\" (ConnectX-3 has: cable and type "
				      "on a port, fail_nth, accesses and state on the device)",
				      key);
	return n < 0 || (size_t)n >= len ? dlh_sdk_extack(ext, -ENOSPC, "Buffer too small") : 0;
}

/*
 * What Linux's mlx4 says of the device: nothing of its own (6.1 and 6.12
 * have no info_get); from 6.2 on the core names the PCI function's driver.
 */
static int mlx4_dev_info_get(struct dlh_dev *dev, struct dlh_sdk_info *info, struct dlh_extack *ext)
{
	(void)dev;
	return dlh_sdk_info_driver_put(info, "mlx4_core", ext);
}

static const struct dlh_sdk_ops mlx4_ops = {
    .probe = mlx4_probe,
    .remove = mlx4_remove,
    .port_type_set = mlx4_devlink_port_type_set,
    .sim_set = mlx4_sim_set,
    .sim_get = mlx4_sim_get,
    .dev_info_get = mlx4_dev_info_get,
    /* the plan reads the ports' types through the plan: a sequence can plan on its view */
    .flags = DLH_SDK_F_PLAN_VIEW,
};

const struct dlh_sdk_driver mlx4_driver = {
    DLH_SDK_DRIVER_INIT("mlx4", &mlx4_ops),
    .dev_priv_size = sizeof(struct mlx4_priv),
    /* plans come from the rules, here and on a kernel device that Linux's mlx4_core runs */
    .rules = &mlx4_rules,
};
