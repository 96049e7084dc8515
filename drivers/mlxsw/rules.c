/* SPDX-License-Identifier: MIT */
/*
 * Spectrum's split and unsplit rules (seeds 002-006), once, for two homes:
 * the emulated ASIC's ops and plans (spectrum.c), and plans for a kernel
 * device that Linux's mlxsw_spectrum runs, whose facts come from the profile
 * of its board (matched by its PSID).
 */
#include "rules.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

uint8_t mlxsw_cluster_base_port(uint8_t local_port)
{
	uint8_t offset = (uint8_t)((local_port - 1) % MLXSW_SP_PORTS_PER_CLUSTER_MAX);

	return (uint8_t)(local_port - offset);
}

/* The attributes a port of this spec registers with (also what a plan says it would). */
void mlxsw_port_attrs_of(const struct mlxsw_facts *facts, const struct port_spec *ps, struct dlh_sdk_port_attrs *attrs)
{
	*attrs = (struct dlh_sdk_port_attrs){
	    .flavour = DLH_PORT_FLAVOUR_PHYSICAL,
	    .number = ps->module + 1u,
	    .split = ps->split,
	    /* Linux 4.6 groups a split by module; 6.1's core by the port number */
	    .split_group = facts->kernel ? ps->module + 1u : ps->module,
	    .split_subport = ps->subport,
	    .lanes = ps->width,
	    .splittable = ps->width == MLXSW_PORT_MODULE_MAX_WIDTH && !ps->split,
	    .speed = (uint32_t)MLXSW_SP_PORT_BASE_SPEED * ps->width,
	    .has_module = true,
	    .module = ps->module,
	    .lane = ps->lane,
	};
}

static int wire_int(const struct dlh_sdk_json *hw, size_t idx, const char *key, long min, long max, long *out,
		    struct dlh_extack *ext)
{
	char path[48];
	uint64_t v;

	snprintf(path, sizeof(path), "ports[%zu].%s", idx, key);
	if (dlh_sdk_json_uint(hw, path, (uint64_t)min, (uint64_t)max, &v, NULL))
		return dlh_sdk_extack(ext, -EINVAL, "field \"hw.%s\": expected an integer from %ld to %ld", path, min,
				      max);
	*out = (long)v;
	return 0;
}

/* hw.netdev and hw.ports of a profile: the netdev pattern and the board's wiring (the SDK's checked reads). */
int mlxsw_facts_parse(struct mlxsw_facts *facts, const struct dlh_sdk_json *hw, struct dlh_extack *ext)
{
	static const char *const keys[] = {"local_port", "module", "width", NULL};
	size_t n = 0;
	int err;

	snprintf(facts->netdev_pattern, sizeof(facts->netdev_pattern), "eth%%d");
	if (dlh_sdk_json_has(hw, "netdev") &&
	    dlh_sdk_json_str(hw, "netdev", facts->netdev_pattern, sizeof(facts->netdev_pattern), NULL))
		return dlh_sdk_extack(ext, -EINVAL, "field \"hw.netdev\": expected a name pattern such as \"eth%%d\"");
	if (!strchr(facts->netdev_pattern, '%'))
		return dlh_sdk_extack(ext, -EINVAL, "field \"hw.netdev\": expected a pattern with %%d");
	if (dlh_sdk_json_count(hw, "ports", &n, NULL) || !n)
		return dlh_sdk_extack(ext, -EINVAL, "field \"hw.ports\": expected a non-empty array");
	if (n >= MLXSW_PORT_MAX_PORTS)
		return dlh_sdk_extack(ext, -EINVAL, "field \"hw.ports\": more than %d local ports",
				      MLXSW_PORT_MAX_PORTS - 1);
	for (size_t i = 0; i < n; i++) {
		char at[32];
		long lp, module, width;

		snprintf(at, sizeof(at), "ports[%zu]", i);
		if (dlh_sdk_json_only(hw, at, keys, NULL))
			return dlh_sdk_extack(ext, -EINVAL, "field \"hw.ports[%zu]\": expected an object", i);
		err = wire_int(hw, i, "local_port", 1, MLXSW_PORT_MAX_PORTS - 1, &lp, ext);
		if (!err)
			err = wire_int(hw, i, "module", 0, MLXSW_MODULE_MAX - 1, &module, ext);
		if (!err)
			err = wire_int(hw, i, "width", 1, MLXSW_PORT_MODULE_MAX_WIDTH, &width, ext);
		if (err)
			return err;
		if (width == 3)
			return dlh_sdk_extack(ext, -EINVAL, "field \"hw.ports[%zu].width\": expected 1, 2 or 4", i);
		/* The split logic assumes 4-lane ports at the first or third local port of a cluster. */
		if (width == MLXSW_PORT_MODULE_MAX_WIDTH && (lp - 1) % 2)
			return dlh_sdk_extack(
			    ext, -EINVAL,
			    "field \"hw.ports[%zu].local_port\": a 4-lane port must be at the first or "
			    "third local port of a cluster",
			    i);
		facts->port_to_module[lp] = (uint8_t)module;
		facts->port_at_probe[lp] = width == MLXSW_PORT_MODULE_MAX_WIDTH;
		facts->wires[facts->nwires++] = (struct mlxsw_wire){(uint8_t)lp, (uint8_t)module, (uint8_t)width};
	}
	return 0;
}

/* The port at @local_port as @v has it, into @ps; false if there is none. */
static bool view_port(const struct ports_view *v, unsigned int local_port, struct port_spec *ps)
{
	const struct dlh_port *p;
	uint32_t module = 0, lane = 0;

	if (local_port < 1 || local_port >= MLXSW_PORT_MAX_PORTS)
		return false;
	if (!v->plan)
		return v->own(v->arg, local_port, ps);
	p = dlh_sdk_plan_port(v->plan, local_port);
	if (!p)
		return false;
	if (ps) {
		memset(ps, 0, sizeof(*ps));
		dlh_port_module(p, &module, &lane);
		ps->local_port = (uint8_t)local_port;
		ps->split = dlh_port_is_split(p);
		ps->module = (uint8_t)module;
		ps->width = (uint8_t)dlh_port_lanes(p);
		ps->lane = (uint8_t)lane;
		ps->subport = (uint8_t)dlh_port_split_subport(p);
		snprintf(ps->netdev, sizeof(ps->netdev), "%s", dlh_port_netdev(p));
	}
	return true;
}

enum mlxsw_linux mlxsw_linux_of(const struct dlh_dev *dev)
{
	return dlh_sdk_linux_version(dlh_sdk_dev_linux(dev)) >= 0x060100 ? MLXSW_LINUX_PMTDB : MLXSW_LINUX_SEEDS;
}

/*
 * PMTDB as the profile's wiring gives it: a module's split into 2 takes its
 * port and the next local port, into 4 its port's cluster. What a real
 * SN2700's firmware answers is not published; this is what the seeds' own
 * layout implies, and what the emulated firmware answers (emu.c).
 */
void mlxsw_pmtdb_of(const struct mlxsw_facts *f, uint8_t module, unsigned int count, struct mlxsw_pmtdb *db)
{
	unsigned int lp = 0, first;

	memset(db, 0, sizeof(*db));
	for (unsigned int i = 1; i < MLXSW_PORT_MAX_PORTS && !lp; i++)
		if (f->port_at_probe[i] && f->port_to_module[i] == module)
			lp = i;
	if (!lp || (count != 1 && count != 2 && count != 4))
		return;
	first = count == 4 ? mlxsw_cluster_base_port((uint8_t)lp) : lp;
	if (first + count > MLXSW_PORT_MAX_PORTS)
		return;
	for (unsigned int i = 0; i < count; i++)
		db->port[i] = (uint8_t)(first + i);
	db->ok = true;
}

/* The ports of @lps (@n of them) that the view has: what a split or an unsplit takes down. */
static int collect_at(const struct ports_view *v, const uint8_t *lps, unsigned int n, struct port_spec *old)
{
	int nold = 0;

	for (unsigned int i = 0; i < n; i++)
		if (view_port(v, lps[i], &old[nold]))
			nold++;
	return nold;
}

static int collect_old(const struct ports_view *v, uint8_t base, unsigned int count, struct port_spec *old)
{
	uint8_t lps[MLXSW_SP_PORTS_PER_CLUSTER_MAX];

	for (unsigned int i = 0; i < count; i++)
		lps[i] = (uint8_t)(base + i);
	return collect_at(v, lps, count, old);
}

static void split_ports(const struct ports_view *v, const uint8_t *lps, unsigned int count, uint8_t module,
			struct port_spec *new)
{
	uint8_t width = (uint8_t)(MLXSW_PORT_MODULE_MAX_WIDTH / count);

	for (unsigned int i = 0; i < count; i++) {
		new[i] = (struct port_spec){
		    .local_port = lps[i],
		    .split = true,
		    .module = module,
		    .width = width,
		    .lane = (uint8_t)(i * width),
		    .subport = (uint8_t)i,
		};
		memcpy(new[i].netdev, v->facts->netdev_pattern, sizeof(new[i].netdev));
	}
}

/*
 * What a split or an unsplit does, decided once for the op and its plan: the
 * op reads the port's module and width from the ASIC (PMLP, as the seed
 * does), the plan from the port as the view has it, and both give them to
 * these, which check the rules and list the ports to go and come. Linux 4.6
 * (the seeds) finds the local ports in the cluster and refuses a split
 * whose ports another split holds; from 6.1 mlxsw asks the firmware
 * (PMTDB) and takes down whatever port holds them (mlxsw_sp_port_split()).
 */
int mlxsw_split_decide(const struct ports_view *v, uint8_t local_port, unsigned int count, uint8_t module,
		       uint8_t cur_width, const struct mlxsw_pmtdb *db, struct port_spec *old, int *nold,
		       struct port_spec *new, struct dlh_extack *ext)
{
	uint8_t base_port, lps[MLXSW_SP_PORTS_PER_CLUSTER_MAX];

	if (v->linux == MLXSW_LINUX_PMTDB) {
		if (cur_width != MLXSW_PORT_MODULE_MAX_WIDTH)
			return dlh_sdk_extack(ext, -EINVAL, "Port is already split");
		if (!db || !db->ok)
			return dlh_sdk_extack(ext, -EINVAL, "Unsupported split configuration");
		*nold = collect_at(v, db->port, count, old);
		split_ports(v, db->port, count, module, new);
		return 0;
	}
	if (cur_width != MLXSW_PORT_MODULE_MAX_WIDTH)
		return dlh_sdk_extack(ext, -EINVAL, "Port cannot be split further");

	/* Make sure we have enough slave (even) ports for the split. */
	if (count == 2) {
		base_port = local_port;
		if (base_port + 1 >= MLXSW_PORT_MAX_PORTS || view_port(v, base_port + 1u, NULL))
			return dlh_sdk_extack(ext, -EINVAL, "Invalid split configuration");
	} else {
		base_port = mlxsw_cluster_base_port(local_port);
		if (base_port + 3 >= MLXSW_PORT_MAX_PORTS || view_port(v, base_port + 1u, NULL) ||
		    view_port(v, base_port + 3u, NULL))
			return dlh_sdk_extack(ext, -EINVAL, "Invalid split configuration");
	}
	*nold = collect_old(v, base_port, count, old);
	for (unsigned int i = 0; i < count; i++)
		lps[i] = (uint8_t)(base_port + i);
	split_ports(v, lps, count, module, new);
	return 0;
}

int mlxsw_split_port_of(const struct ports_view *v, struct dlh_port *port, unsigned int count, uint8_t *local_port,
			struct dlh_extack *ext)
{
	uint32_t index = dlh_port_index(port);

	if (index < 1 || index >= MLXSW_PORT_MAX_PORTS || !view_port(v, index, NULL))
		return v->linux == MLXSW_LINUX_PMTDB
			   ? dlh_sdk_extack(ext, -EINVAL, "Port number does not exist")
			   : dlh_sdk_extack(ext, -EINVAL, "Port number \"%u\" does not exist", index);
	*local_port = (uint8_t)index;
	/* from 6.1 devlink's core checks the count against the lanes, and PMTDB the rest */
	if (v->linux == MLXSW_LINUX_SEEDS && count != 2 && count != 4)
		return dlh_sdk_extack(ext, -EINVAL, "Port can only be split into 2 or 4 ports");
	return 0;
}

/* A module's unsplit port where the board has one at @lp: what an unsplit re-creates. */
static bool unsplit_port(const struct ports_view *v, uint8_t lp, struct port_spec *ps)
{
	const struct mlxsw_facts *facts = v->facts;

	if (!facts->port_at_probe[lp])
		return false;
	*ps = (struct port_spec){
	    .local_port = lp,
	    .module = facts->port_to_module[lp],
	    .width = MLXSW_PORT_MODULE_MAX_WIDTH,
	};
	memcpy(ps->netdev, facts->netdev_pattern, sizeof(ps->netdev));
	return true;
}

int mlxsw_unsplit_decide(const struct ports_view *v, uint8_t local_port, uint8_t cur_width,
			 const struct mlxsw_pmtdb *db, struct port_spec *old, int *nold, struct port_spec *new,
			 int *nnew, struct dlh_extack *ext)
{
	unsigned int count = cur_width == 1 ? 4 : 2;
	uint8_t base_port = mlxsw_cluster_base_port(local_port);

	*nnew = 0;
	if (v->linux == MLXSW_LINUX_PMTDB) {
		/* Linux does not check PMTDB's status here (the split it undoes was one the firmware took);
		 * an unsplit that would take nothing down is refused, not reported done */
		if (!db || !db->ok)
			return dlh_sdk_extack(ext, -EINVAL, "Unsupported split configuration");
		/* the ports PMTDB names go; those of them the board had come back (mlxsw_sp_port_unsplit_create()) */
		*nold = collect_at(v, db->port, count, old);
		for (unsigned int i = 0; i < count; i++)
			if (unsplit_port(v, db->port[i], &new[*nnew]))
				(*nnew)++;
		return 0;
	}
	/* Determine which ports to remove. */
	if (count == 2 && local_port >= base_port + 2)
		base_port = (uint8_t)(base_port + 2);

	*nold = collect_old(v, base_port, count, old);
	/* The seed re-creates every even port; only re-create those the board had. */
	for (unsigned int i = 0; i < count / 2; i++)
		if (unsplit_port(v, (uint8_t)(base_port + i * 2), &new[*nnew]))
			(*nnew)++;
	return 0;
}

int mlxsw_unsplit_port_of(const struct ports_view *v, struct dlh_port *port, uint8_t *local_port, struct port_spec *ps,
			  struct dlh_extack *ext)
{
	uint32_t index = dlh_port_index(port);

	if (index < 1 || index >= MLXSW_PORT_MAX_PORTS || !view_port(v, index, ps))
		return v->linux == MLXSW_LINUX_PMTDB
			   ? dlh_sdk_extack(ext, -EINVAL, "Port number does not exist")
			   : dlh_sdk_extack(ext, -EINVAL, "Port number \"%u\" does not exist", index);
	*local_port = (uint8_t)index;
	if (!ps->split)
		return dlh_sdk_extack(ext, -EINVAL,
				      v->linux == MLXSW_LINUX_PMTDB ? "Port was not split" : "Port wasn't split");
	return 0;
}

/* The ports to go and come as the plan says them: what the op does, in its order. */
static int plan_fill(const struct mlxsw_facts *facts, struct dlh_sdk_plan *plan, const struct port_spec *old, int nold,
		     const struct port_spec *new, int nnew, struct dlh_extack *ext)
{
	int err = 0;

	for (int i = 0; i < nold && !err; i++)
		err = dlh_sdk_plan_gone(plan, old[i].local_port, ext);
	for (int i = 0; i < nnew && !err; i++) {
		struct dlh_sdk_port_attrs attrs;

		mlxsw_port_attrs_of(facts, &new[i], &attrs);
		/* a kernel device's netdevs are named by udev, which the board does not decide: none planned */
		err = dlh_sdk_plan_come(plan, new[i].local_port, &attrs, DLH_PORT_TYPE_ETH,
					facts->kernel ? NULL : new[i].netdev, ext);
	}
	return err;
}

static int mlxsw_port_split_plan(struct dlh_port *port, unsigned int count, struct dlh_sdk_plan *plan,
				 struct dlh_extack *ext)
{
	struct port_spec old[MLXSW_SP_PORTS_PER_CLUSTER_MAX], new[MLXSW_SP_PORTS_PER_CLUSTER_MAX], ps;
	const struct ports_view v = {
	    .facts = dlh_sdk_dev_facts(dlh_port_dev(port)), .linux = mlxsw_linux_of(dlh_port_dev(port)), .plan = plan};
	struct mlxsw_pmtdb db;
	uint8_t local_port;
	int nold, err;

	err = mlxsw_split_port_of(&v, port, count, &local_port, ext);
	if (!err && view_port(&v, local_port, &ps)) {
		mlxsw_pmtdb_of(v.facts, ps.module, count, &db);
		err = mlxsw_split_decide(&v, local_port, count, ps.module, ps.width, &db, old, &nold, new, ext);
	}
	return err ? err : plan_fill(v.facts, plan, old, nold, new, (int)count, ext);
}

static int mlxsw_port_unsplit_plan(struct dlh_port *port, struct dlh_sdk_plan *plan, struct dlh_extack *ext)
{
	struct port_spec old[MLXSW_SP_PORTS_PER_CLUSTER_MAX], new[MLXSW_SP_PORTS_PER_CLUSTER_MAX], ps;
	const struct ports_view v = {
	    .facts = dlh_sdk_dev_facts(dlh_port_dev(port)), .linux = mlxsw_linux_of(dlh_port_dev(port)), .plan = plan};
	struct mlxsw_pmtdb db;
	uint8_t local_port;
	int nold, nnew, err;

	err = mlxsw_unsplit_port_of(&v, port, &local_port, &ps, ext);
	if (err)
		return err;
	mlxsw_pmtdb_of(v.facts, ps.module, MLXSW_PORT_MODULE_MAX_WIDTH / (ps.width ? ps.width : 1), &db);
	err = mlxsw_unsplit_decide(&v, local_port, ps.width, &db, old, &nold, new, &nnew, ext);
	if (err)
		return err;
	return plan_fill(v.facts, plan, old, nold, new, nnew, ext);
}

/*
 * A kernel port as Linux's mlxsw_spectrum registers it (6.1 and 6.12 alike):
 * the port number is the module's front-panel label (module + 1), a split
 * port's lanes start at its subport times its width.
 */
static void mlxsw_port_attrs_fill(const struct dlh_dev *dev, uint32_t index, struct dlh_sdk_port_attrs *attrs)
{
	(void)dev;
	(void)index;
	if (attrs->flavour != DLH_PORT_FLAVOUR_PHYSICAL || !attrs->number || attrs->number > MLXSW_MODULE_MAX ||
	    attrs->lanes > MLXSW_PORT_MODULE_MAX_WIDTH)
		return;
	attrs->has_module = true;
	attrs->module = attrs->number - 1;
	attrs->lane = attrs->split ? attrs->split_subport * attrs->lanes : 0;
	attrs->speed = (uint32_t)MLXSW_SP_PORT_BASE_SPEED * attrs->lanes;
}

/* Whether the kernel's port at @lp, on module @module, is where the board's wiring can put one. */
static bool port_fits(const struct mlxsw_facts *f, unsigned int lp, const struct dlh_sdk_port_attrs *a)
{
	uint8_t base = mlxsw_cluster_base_port((uint8_t)lp);

	if (lp < 1 || lp >= MLXSW_PORT_MAX_PORTS || a->lanes < 1 || a->lanes > MLXSW_PORT_MODULE_MAX_WIDTH)
		return false;
	if (!a->split)
		return f->port_at_probe[lp] && f->port_to_module[lp] == a->module;
	/* a split port is on the module of a 4-lane port of its cluster */
	for (unsigned int i = 0; i < MLXSW_SP_PORTS_PER_CLUSTER_MAX && base + i < MLXSW_PORT_MAX_PORTS; i++)
		if (f->port_at_probe[base + i] && f->port_to_module[base + i] == a->module)
			return true;
	return false;
}

static int mlxsw_rules_attach(struct dlh_dev *dev, const char *config, struct dlh_extack *ext)
{
	struct mlxsw_facts *facts = dlh_sdk_dev_facts(dev);
	struct dlh_sdk_json *hw = NULL;
	int err;

	if (!config)
		return dlh_sdk_extack(ext, -EINVAL, "field \"hw\": missing");
	err = dlh_sdk_json_parse(config, "hw", &hw, ext);
	if (!err)
		err = mlxsw_facts_parse(facts, hw, ext);
	dlh_sdk_json_free(hw);
	if (err)
		return err;
	facts->kernel = true;
	for (struct dlh_port *p = dlh_port_first(dev); p; p = dlh_port_next(p)) {
		struct dlh_sdk_port_attrs a = {0};
		uint32_t module = 0, lane = 0;

		a.number = dlh_port_number(p);
		a.split = dlh_port_is_split(p);
		a.lanes = dlh_port_lanes(p);
		if (!dlh_port_module(p, &module, &lane))
			module = a.number - 1;
		a.module = module;
		if (dlh_port_flavour(p) != DLH_PORT_FLAVOUR_PHYSICAL)
			continue;
		if (!port_fits(facts, dlh_port_index(p), &a))
			return dlh_sdk_extack(ext, -EINVAL,
					      "port %u (number %u, %u lanes%s) is not where the board has one",
					      dlh_port_index(p), a.number, a.lanes, a.split ? ", split" : "");
	}
	return 0;
}

static const char *const mlxsw_kernel_drivers[] = {"mlxsw_spectrum", NULL};

const struct dlh_sdk_rules mlxsw_rules = {
    .kernel_drivers = mlxsw_kernel_drivers,
    .facts_size = sizeof(struct mlxsw_facts),
    .attach = mlxsw_rules_attach,
    .port_attrs_fill = mlxsw_port_attrs_fill,
    .port_split_plan = mlxsw_port_split_plan,
    .port_unsplit_plan = mlxsw_port_unsplit_plan,
};
