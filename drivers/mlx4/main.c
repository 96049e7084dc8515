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

int mlx4_check_port_params(struct mlx4_priv *priv, const enum mlx4_port_type *port_type, struct dlh_extack *ext)
{
	if (!(priv->caps.flags & MLX4_DEV_CAP_FLAG_DPDP)) {
		for (int i = 0; i < priv->caps.num_ports - 1; i++) {
			if (port_type[i] != port_type[i + 1]) {
				dlh_sdk_log(priv->dev, DLH_LOG_ERR,
					    "Only same port types supported on this HCA, aborting");
				return dlh_sdk_extack(ext, -EOPNOTSUPP, "Only same port types supported on this HCA");
			}
		}
	}
	for (int i = 0; i < priv->caps.num_ports; i++) {
		if (!(port_type[i] & priv->caps.supported_type[i + 1]))
			return dlh_sdk_extack(ext, -EOPNOTSUPP,
					      "Requested port type for port %d is not supported on this HCA", i + 1);
	}
	return 0;
}

/* Announces the port's type to core, re-creating its netdev or ibdev. */
static int port_model_type_set(struct mlx4_priv *priv, int port, enum mlx4_port_type type, struct dlh_extack *ext)
{
	struct dlh_port *dl = priv->port[port];

	dlh_sdk_port_type_clear(dl);
	if (type == MLX4_PORT_TYPE_ETH)
		return dlh_sdk_port_type_eth(dl, priv->netdev[port], ext);
	return dlh_sdk_port_type_ib(dl, priv->ibdev, ext);
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

/*
 * What setting @port to @port_type makes of every port, decided once for the
 * op and its plan: the op senses the auto ports (a hardware command), the
 * plan takes the type the last sense found; the rest is the same rules.
 */
static int type_decide(struct mlx4_priv *priv, const enum mlx4_port_type *cur, int port, enum mlx4_port_type port_type,
		       bool sense, enum mlx4_port_type *possible, enum mlx4_port_type *new_types,
		       struct dlh_extack *ext)
{
	enum mlx4_port_type types[MLX4_MAX_PORTS];
	int n = priv->caps.num_ports;

	if ((port_type & priv->caps.supported_type[port]) != port_type) {
		if (sense)
			dlh_sdk_log(priv->dev, DLH_LOG_ERR,
				    "Requested port type for port %d is not supported on this HCA", port);
		return dlh_sdk_extack(ext, -EOPNOTSUPP, "Requested port type for port %d is not supported on this HCA",
				      port);
	}
	/* Possible type is always the one that was delivered */
	possible[port] = port_type;
	for (int i = 0; i < n; i++) {
		types[i] = possible[i + 1];
		if (types[i] == MLX4_PORT_TYPE_AUTO)
			types[i] = cur[i + 1];
	}
	if (!(priv->caps.flags & MLX4_DEV_CAP_FLAG_DPDP) && !(priv->caps.flags & MLX4_DEV_CAP_FLAG_SENSE_SUPPORT)) {
		for (int i = 1; i <= n; i++)
			if (possible[i] == MLX4_PORT_TYPE_AUTO)
				return dlh_sdk_extack(ext, -EOPNOTSUPP,
						      "Auto sensing is not supported on this HCA. Set only 'eth' or "
						      "'ib' for both ports (should be the same)");
	}
	if (sense)
		mlx4_do_sense_ports(priv, new_types, types, possible);
	else
		memcpy(new_types, types, (size_t)n * sizeof(*types));
	return mlx4_check_port_params(priv, new_types, ext);
}

static int __set_port_type(struct mlx4_priv *priv, int port, enum mlx4_port_type port_type, struct dlh_extack *ext)
{
	enum mlx4_port_type possible[MLX4_MAX_PORTS + 1], new_types[MLX4_MAX_PORTS];
	int err;

	enum mlx4_port_type cur[MLX4_MAX_PORTS + 1];

	for (int i = 1; i <= priv->caps.num_ports; i++)
		cur[i] = (enum mlx4_port_type)priv->caps.port_type[i];
	memcpy(possible, priv->possible_type, sizeof(priv->possible_type));
	mlx4_stop_sense(priv);
	err = type_decide(priv, cur, port, port_type, true, possible, new_types, ext);
	if (!err)
		err = mlx4_change_port_types(priv, new_types, ext);
	if (!err)
		memcpy(priv->possible_type, possible, sizeof(possible));
	mlx4_start_sense(priv);
	return err;
}

static enum mlx4_port_type mlx4_type_of(enum dlh_port_type type)
{
	return type == DLH_PORT_TYPE_AUTO  ? MLX4_PORT_TYPE_AUTO
	       : type == DLH_PORT_TYPE_ETH ? MLX4_PORT_TYPE_ETH
	       : type == DLH_PORT_TYPE_IB  ? MLX4_PORT_TYPE_IB
					   : MLX4_PORT_TYPE_NONE;
}

/* The ports whose type would change, as mlx4_change_port_types() would make them. */
static int mlx4_devlink_port_type_set_plan(struct dlh_port *port, enum dlh_port_type type, struct dlh_sdk_plan *plan,
					   struct dlh_extack *ext)
{
	struct mlx4_priv *priv = priv_of(dlh_port_dev(port));
	enum mlx4_port_type possible[MLX4_MAX_PORTS + 1], new_types[MLX4_MAX_PORTS], cur[MLX4_MAX_PORTS + 1];
	int err;

	if (mlx4_type_of(type) == MLX4_PORT_TYPE_NONE)
		return dlh_sdk_extack(ext, -EOPNOTSUPP, "Unsupported port type");
	/*
	 * The types as the plan finds them (after the changes planned before it
	 * in a sequence): a port planned to auto has the type the last sense
	 * found until the op senses again.
	 */
	memcpy(possible, priv->possible_type, sizeof(priv->possible_type));
	for (int i = 1; i <= priv->caps.num_ports; i++) {
		const struct dlh_port *p = dlh_sdk_plan_port(plan, (uint32_t)i);
		enum mlx4_port_type t = p ? mlx4_type_of(dlh_port_type(p)) : MLX4_PORT_TYPE_NONE;

		cur[i] = t == MLX4_PORT_TYPE_ETH || t == MLX4_PORT_TYPE_IB
			     ? t
			     : (enum mlx4_port_type)priv->caps.port_type[i];
		t = p ? mlx4_type_of(dlh_port_desired_type(p)) : MLX4_PORT_TYPE_NONE;
		if (t != MLX4_PORT_TYPE_NONE)
			possible[i] = t;
	}
	err = type_decide(priv, cur, (int)dlh_port_index(port), mlx4_type_of(type), false, possible, new_types, ext);
	/* Auto: the type follows the link, which only the op senses (a hardware command). */
	if (!err && type == DLH_PORT_TYPE_AUTO) {
		err = dlh_sdk_plan_gone(plan, dlh_port_index(port), ext);
		return err ? err : dlh_sdk_plan_come(plan, dlh_port_index(port), NULL, DLH_PORT_TYPE_AUTO, NULL, ext);
	}
	for (int i = 1; !err && i <= priv->caps.num_ports; i++) {
		if (new_types[i - 1] == cur[i])
			continue;
		err = dlh_sdk_plan_gone(plan, (uint32_t)i, ext);
		if (!err && new_types[i - 1] == MLX4_PORT_TYPE_ETH)
			err = dlh_sdk_plan_come(plan, (uint32_t)i, NULL, DLH_PORT_TYPE_ETH, priv->netdev[i], ext);
		else if (!err)
			err = dlh_sdk_plan_come(plan, (uint32_t)i, NULL, DLH_PORT_TYPE_IB, priv->ibdev, ext);
	}
	return err;
}

static int mlx4_devlink_port_type_set(struct dlh_port *port, enum dlh_port_type type, struct dlh_extack *ext)
{
	struct mlx4_priv *priv = priv_of(dlh_port_dev(port));

	if (mlx4_type_of(type) == MLX4_PORT_TYPE_NONE)
		return dlh_sdk_extack(ext, -EOPNOTSUPP, "Unsupported port type");
	return __set_port_type(priv, (int)dlh_port_index(port), mlx4_type_of(type), ext);
}

static int type_word(const char *w, enum mlx4_port_type *t)
{
	if (!strcmp(w, "eth"))
		*t = MLX4_PORT_TYPE_ETH;
	else if (!strcmp(w, "ib"))
		*t = MLX4_PORT_TYPE_IB;
	else if (!strcmp(w, "none"))
		*t = MLX4_PORT_TYPE_NONE;
	else
		return -EINVAL;
	return 0;
}

/*
 * Profile "hw": {"dpdp": bool, "sense": bool, "ibdev": "mlx4_0", "ports": [{"supported": ["eth", "ib"],
 * "type": "ib", "netdev": "ens4", "cable": "eth"}, ...]}
 */
static int config_port(struct mlx4_priv *priv, json_t *e, int port, struct mlx4_dev_cap *board,
		       enum mlx4_port_type *cable, struct dlh_extack *ext)
{
	json_t *sup = json_object_get(e, "supported"), *w;
	const char *type = json_string_value(json_object_get(e, "type"));
	const char *netdev = json_string_value(json_object_get(e, "netdev"));
	const char *cab = json_string_value(json_object_get(e, "cable"));
	enum mlx4_port_type t;
	size_t i;

	if (!json_is_object(e))
		return dlh_sdk_extack(ext, -EINVAL, "field \"hw.ports[%d]\": expected an object", port - 1);
	if (!json_is_array(sup) || !json_array_size(sup))
		return dlh_sdk_extack(ext, -EINVAL,
				      "field \"hw.ports[%d].supported\": expected [\"eth\"], [\"ib\"] or "
				      "[\"eth\", \"ib\"]",
				      port - 1);
	json_array_foreach(sup, i, w)
	{
		if (!json_is_string(w) || type_word(json_string_value(w), &t) || t == MLX4_PORT_TYPE_NONE)
			return dlh_sdk_extack(ext, -EINVAL,
					      "field \"hw.ports[%d].supported[%zu]\": expected \"eth\" or "
					      "\"ib\"",
					      port - 1, i);
		board->supported_type[port] |= (uint8_t)t;
	}
	if (!type || type_word(type, &t) || t == MLX4_PORT_TYPE_NONE || !(t & board->supported_type[port]))
		return dlh_sdk_extack(ext, -EINVAL,
				      "field \"hw.ports[%d].type\": expected a supported type, \"eth\" or "
				      "\"ib\"",
				      port - 1);
	board->port_type[port] = (uint8_t)t;
	if (!netdev || !netdev[0] || strlen(netdev) >= DLH_NETDEV_NAME_MAX || strchr(netdev, '/'))
		return dlh_sdk_extack(ext, -EINVAL,
				      "field \"hw.ports[%d].netdev\": expected a netdev name of 1 to %d "
				      "characters",
				      port - 1, DLH_NETDEV_NAME_MAX - 1);
	snprintf(priv->netdev[port], sizeof(priv->netdev[port]), "%s", netdev);
	*cable = MLX4_PORT_TYPE_NONE;
	if (json_object_get(e, "cable") && (!cab || type_word(cab, cable)))
		return dlh_sdk_extack(ext, -EINVAL,
				      "field \"hw.ports[%d].cable\": expected \"eth\", \"ib\" or \"none\"", port - 1);
	return 0;
}

/* hw.state: {"types": ["eth", "ib"], "cables": ["eth", "none"]}: what firmware and cables had. */
static int state_apply(json_t *st, struct mlx4_dev_cap *board, enum mlx4_port_type *cable, struct dlh_extack *ext)
{
	json_t *types = json_object_get(st, "types"), *cables = json_object_get(st, "cables");
	enum mlx4_port_type t;

	if (!json_is_array(types) || !json_is_array(cables) || (int)json_array_size(types) != board->num_ports ||
	    (int)json_array_size(cables) != board->num_ports)
		return dlh_sdk_extack(ext, -EINVAL,
				      "field \"hw.state\": expected {\"types\": [...], \"cables\": [...]} "
				      "with one entry per port");
	for (int p = 1; p <= board->num_ports; p++) {
		const char *w = json_string_value(json_array_get(types, (size_t)p - 1));

		if (!w || type_word(w, &t) || t == MLX4_PORT_TYPE_NONE || !(t & board->supported_type[p]))
			return dlh_sdk_extack(ext, -EINVAL, "field \"hw.state.types[%d]\": not a type port %d supports",
					      p - 1, p);
		board->port_type[p] = (uint8_t)t;
		w = json_string_value(json_array_get(cables, (size_t)p - 1));
		if (!w || type_word(w, &cable[p]))
			return dlh_sdk_extack(ext, -EINVAL, "field \"hw.state.cables[%d]\": expected eth, ib or none",
					      p - 1);
	}
	return 0;
}

static int config_parse(struct mlx4_priv *priv, const char *config, struct mlx4_dev_cap *board,
			enum mlx4_port_type *cable, struct dlh_extack *ext)
{
	json_t *root, *ports, *dpdp, *sense;
	const char *ibdev;
	json_error_t jerr;
	int err = 0;

	if (!config)
		return dlh_sdk_extack(ext, -EINVAL, "field \"hw\": missing");
	root = json_loads(config, 0, &jerr);
	if (!root)
		return dlh_sdk_extack(ext, -EINVAL, "field \"hw\": %s", jerr.text);
	memset(board, 0, sizeof(*board));
	dpdp = json_object_get(root, "dpdp");
	sense = json_object_get(root, "sense");
	if ((dpdp && !json_is_boolean(dpdp)) || (sense && !json_is_boolean(sense))) {
		err = dlh_sdk_extack(ext, -EINVAL, "field \"hw.%s\": expected true or false",
				     dpdp && !json_is_boolean(dpdp) ? "dpdp" : "sense");
		goto out;
	}
	if (json_is_true(dpdp))
		board->flags |= MLX4_DEV_CAP_FLAG_DPDP;
	if (json_is_true(sense))
		board->flags |= MLX4_DEV_CAP_FLAG_SENSE_SUPPORT;
	ibdev = json_string_value(json_object_get(root, "ibdev"));
	if (!ibdev || !ibdev[0] || strlen(ibdev) >= DLH_IBDEV_NAME_MAX) {
		err = dlh_sdk_extack(ext, -EINVAL, "field \"hw.ibdev\": expected an ibdev name such as \"mlx4_0\"");
		goto out;
	}
	snprintf(priv->ibdev, sizeof(priv->ibdev), "%s", ibdev);
	ports = json_object_get(root, "ports");
	if (!json_is_array(ports) || !json_array_size(ports) || json_array_size(ports) > MLX4_MAX_PORTS) {
		err = dlh_sdk_extack(ext, -EINVAL, "field \"hw.ports\": expected an array of 1 or %d ports",
				     MLX4_MAX_PORTS);
		goto out;
	}
	board->num_ports = (int)json_array_size(ports);
	for (int p = 1; p <= board->num_ports && !err; p++)
		err = config_port(priv, json_array_get(ports, (size_t)p - 1), p, board, &cable[p], ext);
	if (!err && json_object_get(root, "state"))
		err = state_apply(json_object_get(root, "state"), board, cable, ext);
out:
	json_decref(root);
	return err;
}

static int mlx4_probe(struct dlh_dev *dev, const char *config, struct dlh_extack *ext)
{
	struct mlx4_priv *priv = priv_of(dev);
	enum mlx4_port_type cable[MLX4_MAX_PORTS + 1] = {0};
	struct mlx4_dev_cap board;
	int err, port;

	priv->dev = dev;
	err = config_parse(priv, config, &board, cable, ext);
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
		if (type_word(value, &t))
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

static const struct dlh_sdk_ops mlx4_ops = {
    .probe = mlx4_probe,
    .remove = mlx4_remove,
    .port_type_set = mlx4_devlink_port_type_set,
    .port_type_set_plan = mlx4_devlink_port_type_set_plan,
    .sim_set = mlx4_sim_set,
    .sim_get = mlx4_sim_get,
    /* the plan reads the ports' types through the plan: a sequence can plan on its view */
    .flags = DLH_SDK_F_PLAN_VIEW,
};

const struct dlh_sdk_driver mlx4_driver = {
    DLH_SDK_DRIVER_INIT("mlx4", &mlx4_ops),
    .dev_priv_size = sizeof(struct mlx4_priv),
};
