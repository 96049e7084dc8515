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
 * "type": "ib", "netdev": "ens4", "cable": "eth"}, ...]}, read with the SDK's checked reads; each refusal
 * names the field, in mlx4's words where they say more than a type.
 */
static int type_at(const struct dlh_sdk_json *j, const char *path, enum mlx4_port_type *t)
{
	char w[8];

	return dlh_sdk_json_str(j, path, w, sizeof(w), NULL) || mlx4_type_word(w, t) ? -EINVAL : 0;
}

static int config_port(struct mlx4_facts *f, const struct dlh_sdk_json *j, int port, struct mlx4_dev_cap *board,
		       enum mlx4_port_type *cable, struct dlh_extack *ext)
{
	static const char *const keys[] = {"supported", "type", "netdev", "cable", NULL};
	char at[48], path[64];
	enum mlx4_port_type t;
	size_t n = 0;
	int err;

	snprintf(at, sizeof(at), "ports[%d]", port - 1);
	err = dlh_sdk_json_only(j, at, keys, ext);
	if (err)
		return err;
	snprintf(path, sizeof(path), "%s.supported", at);
	if (dlh_sdk_json_count(j, path, &n, NULL) || !n)
		return dlh_sdk_extack(ext, -EINVAL,
				      "field \"hw.%s\": expected [\"eth\"], [\"ib\"] or [\"eth\", \"ib\"]", path);
	for (size_t i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "%s.supported[%zu]", at, i);
		if (type_at(j, path, &t) || t == MLX4_PORT_TYPE_NONE)
			return dlh_sdk_extack(ext, -EINVAL, "field \"hw.%s\": expected \"eth\" or \"ib\"", path);
		board->supported_type[port] |= (uint8_t)t;
	}
	snprintf(path, sizeof(path), "%s.type", at);
	if (type_at(j, path, &t) || t == MLX4_PORT_TYPE_NONE || !(t & board->supported_type[port]))
		return dlh_sdk_extack(ext, -EINVAL, "field \"hw.%s\": expected a supported type, \"eth\" or \"ib\"",
				      path);
	board->port_type[port] = (uint8_t)t;
	snprintf(path, sizeof(path), "%s.netdev", at);
	if (dlh_sdk_json_str(j, path, f->netdev[port], sizeof(f->netdev[port]), NULL) || !f->netdev[port][0] ||
	    strchr(f->netdev[port], '/'))
		return dlh_sdk_extack(ext, -EINVAL, "field \"hw.%s\": expected a netdev name of 1 to %d characters",
				      path, DLH_NETDEV_NAME_MAX - 1);
	*cable = MLX4_PORT_TYPE_NONE;
	snprintf(path, sizeof(path), "%s.cable", at);
	if (dlh_sdk_json_has(j, path) && type_at(j, path, cable))
		return dlh_sdk_extack(ext, -EINVAL, "field \"hw.%s\": expected \"eth\", \"ib\" or \"none\"", path);
	return 0;
}

/* hw.state: {"types": ["eth", "ib"], "cables": ["eth", "none"]}: what firmware and cables had. */
static int state_apply(const struct dlh_sdk_json *j, struct mlx4_dev_cap *board, enum mlx4_port_type *cable,
		       struct dlh_extack *ext)
{
	size_t nt = 0, nc = 0;
	char path[48];
	enum mlx4_port_type t;

	if (dlh_sdk_json_only(j, "state", (const char *const[]){"types", "cables", NULL}, NULL) ||
	    dlh_sdk_json_count(j, "state.types", &nt, NULL) || dlh_sdk_json_count(j, "state.cables", &nc, NULL) ||
	    (int)nt != board->num_ports || (int)nc != board->num_ports)
		return dlh_sdk_extack(ext, -EINVAL,
				      "field \"hw.state\": expected {\"types\": [...], \"cables\": [...]} "
				      "with one entry per port");
	for (int p = 1; p <= board->num_ports; p++) {
		snprintf(path, sizeof(path), "state.types[%d]", p - 1);
		if (type_at(j, path, &t) || t == MLX4_PORT_TYPE_NONE || !(t & board->supported_type[p]))
			return dlh_sdk_extack(ext, -EINVAL, "field \"hw.%s\": not a type port %d supports", path, p);
		board->port_type[p] = (uint8_t)t;
		snprintf(path, sizeof(path), "state.cables[%d]", p - 1);
		if (type_at(j, path, &cable[p]))
			return dlh_sdk_extack(ext, -EINVAL, "field \"hw.%s\": expected eth, ib or none", path);
	}
	return 0;
}

/* A profile's hw: the board (as firmware will report it), its cables, and the facts the rules need. */
int mlx4_hw_parse(struct mlx4_facts *facts, const char *config, struct mlx4_dev_cap *board, enum mlx4_port_type *cable,
		  struct dlh_extack *ext)
{
	struct dlh_sdk_json *j;
	bool dpdp = false, sense = false;
	size_t n = 0;
	int err;

	if (!config)
		return dlh_sdk_extack(ext, -EINVAL, "field \"hw\": missing");
	err = dlh_sdk_json_parse(config, "hw", &j, ext);
	if (err)
		return err;
	memset(board, 0, sizeof(*board));
	memset(facts, 0, sizeof(*facts));
	if (dlh_sdk_json_has(j, "dpdp"))
		err = dlh_sdk_json_bool(j, "dpdp", &dpdp, ext);
	if (!err && dlh_sdk_json_has(j, "sense"))
		err = dlh_sdk_json_bool(j, "sense", &sense, ext);
	if (err)
		goto out;
	if (dpdp)
		board->flags |= MLX4_DEV_CAP_FLAG_DPDP;
	if (sense)
		board->flags |= MLX4_DEV_CAP_FLAG_SENSE_SUPPORT;
	if (dlh_sdk_json_str(j, "ibdev", facts->ibdev, sizeof(facts->ibdev), NULL) || !facts->ibdev[0]) {
		err = dlh_sdk_extack(ext, -EINVAL, "field \"hw.ibdev\": expected an ibdev name such as \"mlx4_0\"");
		goto out;
	}
	if (dlh_sdk_json_count(j, "ports", &n, NULL) || !n || n > MLX4_MAX_PORTS) {
		err = dlh_sdk_extack(ext, -EINVAL, "field \"hw.ports\": expected an array of 1 or %d ports",
				     MLX4_MAX_PORTS);
		goto out;
	}
	board->num_ports = (int)n;
	for (int p = 1; p <= board->num_ports && !err; p++)
		err = config_port(facts, j, p, board, &cable[p], ext);
	if (!err && dlh_sdk_json_has(j, "state"))
		err = state_apply(j, board, cable, ext);
	facts->num_ports = board->num_ports;
	facts->flags = board->flags;
	memcpy(facts->supported_type, board->supported_type, sizeof(facts->supported_type));
out:
	dlh_sdk_json_free(j);
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
