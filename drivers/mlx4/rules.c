/* SPDX-License-Identifier: MIT */
/*
 * ConnectX-3's type rules (Linux's mlx4 main.c, the same in 6.1 and 6.12),
 * once, for two homes: the emulated HCA's op and plans (main.c), and plans
 * for a kernel device that Linux's mlx4_core runs, whose facts (the types
 * each port supports, DPDP, link sensing) come from the profile of its
 * board: the kernel reports none of them.
 */
#include "rules.h"

#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <string.h>

enum mlx4_port_type mlx4_type_of(enum dlh_port_type type)
{
	return type == DLH_PORT_TYPE_AUTO  ? MLX4_PORT_TYPE_AUTO
	       : type == DLH_PORT_TYPE_ETH ? MLX4_PORT_TYPE_ETH
	       : type == DLH_PORT_TYPE_IB  ? MLX4_PORT_TYPE_IB
					   : MLX4_PORT_TYPE_NONE;
}

int mlx4_check_port_params(const struct mlx4_facts *facts, struct dlh_dev *log, const enum mlx4_port_type *port_type,
			   struct dlh_extack *ext)
{
	if (!(facts->flags & MLX4_DEV_CAP_FLAG_DPDP)) {
		for (int i = 0; i < facts->num_ports - 1; i++) {
			if (port_type[i] != port_type[i + 1]) {
				if (log)
					dlh_sdk_log(log, DLH_LOG_ERR,
						    "Only same port types supported on this HCA, aborting");
				return dlh_sdk_extack(ext, -EOPNOTSUPP, "Only same port types supported on this HCA");
			}
		}
	}
	for (int i = 0; i < facts->num_ports; i++) {
		if (!(port_type[i] & facts->supported_type[i + 1]))
			return dlh_sdk_extack(ext, -EOPNOTSUPP,
					      "Requested port type for port %d is not supported on this HCA", i + 1);
	}
	return 0;
}

/*
 * What setting @port to @port_type makes of every port, up to the link
 * sense: @cur holds the ports' types, @possible their possible types (the
 * type last delivered: eth, ib or auto), which takes @port_type; @types
 * gets the types to run, an auto port keeping its type until the op senses
 * it (a hardware command, which a plan does not make).
 */
int mlx4_type_decide(const struct mlx4_facts *facts, struct dlh_dev *log, const enum mlx4_port_type *cur, int port,
		     enum mlx4_port_type port_type, enum mlx4_port_type *possible, enum mlx4_port_type *types,
		     struct dlh_extack *ext)
{
	int n = facts->num_ports;

	if ((port_type & facts->supported_type[port]) != port_type) {
		if (log)
			dlh_sdk_log(log, DLH_LOG_ERR, "Requested port type for port %d is not supported on this HCA",
				    port);
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
	if (!(facts->flags & MLX4_DEV_CAP_FLAG_DPDP) && !(facts->flags & MLX4_DEV_CAP_FLAG_SENSE_SUPPORT)) {
		for (int i = 1; i <= n; i++)
			if (possible[i] == MLX4_PORT_TYPE_AUTO)
				return dlh_sdk_extack(ext, -EOPNOTSUPP,
						      "Auto sensing is not supported on this HCA. Set only 'eth' or "
						      "'ib' for both ports (should be the same)");
	}
	return 0;
}

/* A port's type as the plan finds it; a port planned to auto has the type it has now until sensed. */
static enum mlx4_port_type plan_cur(const struct dlh_sdk_plan *plan, const struct dlh_dev *dev, uint32_t i,
				    enum mlx4_port_type *possible)
{
	const struct dlh_port *p = dlh_sdk_plan_port(plan, i), *now = dlh_port_find(dev, i);
	enum mlx4_port_type t = p ? mlx4_type_of(dlh_port_type(p)) : MLX4_PORT_TYPE_NONE;
	enum mlx4_port_type d = p ? mlx4_type_of(dlh_port_desired_type(p)) : MLX4_PORT_TYPE_NONE;

	if (t != MLX4_PORT_TYPE_ETH && t != MLX4_PORT_TYPE_IB)
		t = now ? mlx4_type_of(dlh_port_type(now)) : MLX4_PORT_TYPE_NONE;
	/* the type last delivered; before any, the type the port came up with */
	*possible = d != MLX4_PORT_TYPE_NONE ? d : t;
	return t;
}

/* The ports whose type would change, as the op would change them. */
static int mlx4_port_type_set_plan(struct dlh_port *port, enum dlh_port_type type, struct dlh_sdk_plan *plan,
				   struct dlh_extack *ext)
{
	const struct dlh_dev *dev = dlh_port_dev(port);
	const struct mlx4_facts *f = dlh_sdk_dev_facts(dev);
	enum mlx4_port_type possible[MLX4_MAX_PORTS + 1] = {0}, types[MLX4_MAX_PORTS], cur[MLX4_MAX_PORTS + 1] = {0};
	uint32_t index = dlh_port_index(port);
	int err;

	if (mlx4_type_of(type) == MLX4_PORT_TYPE_NONE)
		return dlh_sdk_extack(ext, -EOPNOTSUPP, "Unsupported port type");
	if (index < 1 || index > (uint32_t)f->num_ports)
		return dlh_sdk_extack(ext, -EINVAL, "Port %u is not a port of this HCA", index);
	for (int i = 1; i <= f->num_ports; i++)
		cur[i] = plan_cur(plan, dev, (uint32_t)i, &possible[i]);
	err = mlx4_type_decide(f, NULL, cur, (int)index, mlx4_type_of(type), possible, types, ext);
	if (!err)
		err = mlx4_check_port_params(f, NULL, types, ext);
	/* Auto: the type follows the link, which only the op senses (a hardware command). */
	if (!err && type == DLH_PORT_TYPE_AUTO) {
		err = dlh_sdk_plan_gone(plan, index, ext);
		return err ? err : dlh_sdk_plan_come(plan, index, NULL, DLH_PORT_TYPE_AUTO, NULL, ext);
	}
	for (int i = 1; !err && i <= f->num_ports; i++) {
		if (types[i - 1] == cur[i])
			continue;
		err = dlh_sdk_plan_gone(plan, (uint32_t)i, ext);
		if (!err && types[i - 1] == MLX4_PORT_TYPE_ETH)
			err = dlh_sdk_plan_come(plan, (uint32_t)i, NULL, DLH_PORT_TYPE_ETH,
						f->netdev[i][0] ? f->netdev[i] : NULL, ext);
		else if (!err)
			err = dlh_sdk_plan_come(plan, (uint32_t)i, NULL, DLH_PORT_TYPE_IB,
						f->ibdev[0] ? f->ibdev : NULL, ext);
	}
	return err;
}

int mlx4_type_word(const char *w, enum mlx4_port_type *t)
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
static int config_port(struct mlx4_facts *f, json_t *e, int port, struct mlx4_dev_cap *board,
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
		if (!json_is_string(w) || mlx4_type_word(json_string_value(w), &t) || t == MLX4_PORT_TYPE_NONE)
			return dlh_sdk_extack(ext, -EINVAL,
					      "field \"hw.ports[%d].supported[%zu]\": expected \"eth\" or "
					      "\"ib\"",
					      port - 1, i);
		board->supported_type[port] |= (uint8_t)t;
	}
	if (!type || mlx4_type_word(type, &t) || t == MLX4_PORT_TYPE_NONE || !(t & board->supported_type[port]))
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
	snprintf(f->netdev[port], sizeof(f->netdev[port]), "%s", netdev);
	*cable = MLX4_PORT_TYPE_NONE;
	if (json_object_get(e, "cable") && (!cab || mlx4_type_word(cab, cable)))
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

		if (!w || mlx4_type_word(w, &t) || t == MLX4_PORT_TYPE_NONE || !(t & board->supported_type[p]))
			return dlh_sdk_extack(ext, -EINVAL, "field \"hw.state.types[%d]\": not a type port %d supports",
					      p - 1, p);
		board->port_type[p] = (uint8_t)t;
		w = json_string_value(json_array_get(cables, (size_t)p - 1));
		if (!w || mlx4_type_word(w, &cable[p]))
			return dlh_sdk_extack(ext, -EINVAL, "field \"hw.state.cables[%d]\": expected eth, ib or none",
					      p - 1);
	}
	return 0;
}

/* A profile's hw: the board (as firmware will report it), its cables, and the facts the rules need. */
int mlx4_hw_parse(struct mlx4_facts *facts, const char *config, struct mlx4_dev_cap *board, enum mlx4_port_type *cable,
		  struct dlh_extack *ext)
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
	memset(facts, 0, sizeof(*facts));
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
	snprintf(facts->ibdev, sizeof(facts->ibdev), "%s", ibdev);
	ports = json_object_get(root, "ports");
	if (!json_is_array(ports) || !json_array_size(ports) || json_array_size(ports) > MLX4_MAX_PORTS) {
		err = dlh_sdk_extack(ext, -EINVAL, "field \"hw.ports\": expected an array of 1 or %d ports",
				     MLX4_MAX_PORTS);
		goto out;
	}
	board->num_ports = (int)json_array_size(ports);
	for (int p = 1; p <= board->num_ports && !err; p++)
		err = config_port(facts, json_array_get(ports, (size_t)p - 1), p, board, &cable[p], ext);
	if (!err && json_object_get(root, "state"))
		err = state_apply(json_object_get(root, "state"), board, cable, ext);
	facts->num_ports = board->num_ports;
	facts->flags = board->flags;
	memcpy(facts->supported_type, board->supported_type, sizeof(facts->supported_type));
out:
	json_decref(root);
	return err;
}

/*
 * Take a kernel device that Linux's mlx4_core runs: the board's facts from
 * its profile; the names from what the kernel reports (udev names a netdev,
 * not the board), so a type's name is known once the port has had it. Its
 * ports must be the board's: 1 .. num_ports, each of a type it supports.
 */
static int mlx4_rules_attach(struct dlh_dev *dev, const char *config, struct dlh_extack *ext)
{
	struct mlx4_facts *f = dlh_sdk_dev_facts(dev);
	enum mlx4_port_type cable[MLX4_MAX_PORTS + 1] = {0};
	struct mlx4_dev_cap board;
	int err, n = 0;

	err = mlx4_hw_parse(f, config, &board, cable, ext);
	if (err)
		return err;
	memset(f->netdev, 0, sizeof(f->netdev));
	memset(f->ibdev, 0, sizeof(f->ibdev));
	for (struct dlh_port *p = dlh_port_first(dev); p; p = dlh_port_next(p)) {
		uint32_t i = dlh_port_index(p);
		enum mlx4_port_type t = mlx4_type_of(dlh_port_type(p));

		if (i < 1 || i > (uint32_t)f->num_ports || dlh_port_flavour(p) != DLH_PORT_FLAVOUR_PHYSICAL ||
		    dlh_port_is_split(p))
			return dlh_sdk_extack(ext, -EINVAL, "port %u is not one of the HCA's %d ports", i,
					      f->num_ports);
		if (t != MLX4_PORT_TYPE_NONE && !(t & f->supported_type[i]))
			return dlh_sdk_extack(ext, -EINVAL, "port %u runs %s, which the board's port does not support",
					      i, dlh_port_type_name(dlh_port_type(p)));
		if (t == MLX4_PORT_TYPE_ETH && dlh_port_netdev(p))
			snprintf(f->netdev[i], sizeof(f->netdev[i]), "%s", dlh_port_netdev(p));
		if (t == MLX4_PORT_TYPE_IB && dlh_port_ibdev(p))
			snprintf(f->ibdev, sizeof(f->ibdev), "%s", dlh_port_ibdev(p));
		n++;
	}
	if (n != f->num_ports)
		return dlh_sdk_extack(ext, -EINVAL, "the kernel reports %d ports; the board has %d", n, f->num_ports);
	return 0;
}

static const char *const mlx4_kernel_drivers[] = {"mlx4_core", NULL};

const struct dlh_sdk_rules mlx4_rules = {
    .kernel_drivers = mlx4_kernel_drivers,
    .facts_size = sizeof(struct mlx4_facts),
    .attach = mlx4_rules_attach,
    .port_type_set_plan = mlx4_port_type_set_plan,
};
