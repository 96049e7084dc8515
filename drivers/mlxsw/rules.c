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

uint16_t mlxsw_cluster_base_port(uint16_t local_port)
{
	uint16_t offset = (uint16_t)((local_port - 1) % MLXSW_SP_PORTS_PER_CLUSTER_MAX);

	return (uint16_t)(local_port - offset);
}

/* spectrum.c's mlxsw_sp{1,2,3,4}_driver_name */
const char *mlxsw_asic_driver(enum mlxsw_asic asic)
{
	static const char *const names[] = {
	    [MLXSW_ASIC_SPECTRUM1] = "mlxsw_spectrum",
	    [MLXSW_ASIC_SPECTRUM2] = "mlxsw_spectrum2",
	    [MLXSW_ASIC_SPECTRUM3] = "mlxsw_spectrum3",
	    [MLXSW_ASIC_SPECTRUM4] = "mlxsw_spectrum4",
	};

	return asic >= MLXSW_ASIC_SPECTRUM1 && asic <= MLXSW_ASIC_SPECTRUM4 ? names[asic] : names[1];
}

/*
 * A lane's top speed: 25G NRZ on Spectrum-1 (seed 002's base speed), 50G
 * PAM4 on Spectrum-2 and -3 (200G QSFP56, 400G QSFP-DD), 100G on
 * Spectrum-4 (800G OSFP).
 */
uint32_t mlxsw_asic_speed(enum mlxsw_asic asic, unsigned int lanes)
{
	uint32_t lane = asic == MLXSW_ASIC_SPECTRUM4   ? 100000
			: asic >= MLXSW_ASIC_SPECTRUM2 ? 50000
						       : MLXSW_SP_PORT_BASE_SPEED;

	return lane * lanes;
}

uint32_t mlxsw_port_speed(const struct mlxsw_facts *facts, unsigned int module, unsigned int lanes)
{
	if (module < MLXSW_MODULE_MAX && facts->lane_speed[module])
		return facts->lane_speed[module] * lanes;
	return mlxsw_asic_speed(facts->asic, lanes);
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
	    /* mlxsw_sp_port_create(): lanes > 1 && !split */
	    .splittable = ps->width > 1 && !ps->split,
	    .speed = mlxsw_port_speed(facts, ps->module, ps->width),
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

static int asic_parse(struct mlxsw_facts *facts, const struct dlh_sdk_json *hw, struct dlh_extack *ext)
{
	char name[24];

	facts->asic = MLXSW_ASIC_SPECTRUM1;
	if (!dlh_sdk_json_has(hw, "asic"))
		return 0;
	if (!dlh_sdk_json_str(hw, "asic", name, sizeof(name), NULL))
		for (enum mlxsw_asic a = MLXSW_ASIC_SPECTRUM1; a <= MLXSW_ASIC_SPECTRUM4; a++)
			if (!strcmp(name, mlxsw_asic_driver(a) + strlen("mlxsw_"))) {
				facts->asic = a;
				return 0;
			}
	return dlh_sdk_extack(
	    ext, -EINVAL, "field \"hw.asic\": expected \"spectrum\", \"spectrum2\", \"spectrum3\" or \"spectrum4\"");
}

/*
 * Whether the board's wiring leaves each module the local ports its splits
 * take (mlxsw_board_split()): none of them another module's port. The
 * highest they reach is the ASIC's last local port.
 */
static int wires_check(struct mlxsw_facts *f, struct dlh_extack *ext)
{
	for (unsigned int i = 0; i < f->nwires; i++) {
		const struct mlxsw_wire *w = &f->wires[i];
		uint16_t lps[MLXSW_SPLIT_MAX];

		if (w->local_port > f->max_local_port)
			f->max_local_port = w->local_port;
		for (unsigned int count = 2; count <= w->width; count *= 2) {
			if (!mlxsw_board_split(f->asic, w->local_port, w->width, count, lps))
				return dlh_sdk_extack(ext, -EINVAL,
						      "field \"hw.ports[%u]\": no local ports for a split into %u", i,
						      count);
			for (unsigned int k = 0; k < count; k++)
				if (lps[k] > f->max_local_port)
					f->max_local_port = lps[k];
			/* (Spectrum-1's split into 4 takes its cluster's other port: seed 004) */
			for (unsigned int k = 0; k < count && f->asic != MLXSW_ASIC_SPECTRUM1; k++)
				if (lps[k] != w->local_port && f->port_at_probe[lps[k]])
					return dlh_sdk_extack(
					    ext, -EINVAL,
					    "field \"hw.ports[%u]\": its split into %u would take local "
					    "port %u, another module's",
					    i, count, lps[k]);
		}
	}
	return 0;
}

/* hw.asic, hw.netdev and hw.ports of a profile: the generation, the netdev pattern and the board's wiring. */
int mlxsw_facts_parse(struct mlxsw_facts *facts, const struct dlh_sdk_json *hw, struct dlh_extack *ext)
{
	static const char *const keys[] = {"local_port", "module", "width", "lane_speed", NULL};
	size_t n = 0;
	int err;

	err = asic_parse(facts, hw, ext);
	if (err)
		return err;
	bool sp1 = facts->asic == MLXSW_ASIC_SPECTRUM1;

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
		long lp, module, width, speed = 0;

		snprintf(at, sizeof(at), "ports[%zu]", i);
		if (dlh_sdk_json_only(hw, at, keys, NULL))
			return dlh_sdk_extack(ext, -EINVAL, "field \"hw.ports[%zu]\": expected an object", i);
		/* Spectrum-1: 64 local ports and modules (seed 002) */
		err = wire_int(hw, i, "local_port", 1, sp1 ? 64 : MLXSW_PORT_MAX_PORTS - 1, &lp, ext);
		if (!err)
			err = wire_int(hw, i, "module", 0, sp1 ? 63 : MLXSW_MODULE_MAX - 1, &module, ext);
		if (!err)
			err = wire_int(hw, i, "width", 1, MLXSW_PORT_MODULE_MAX_WIDTH, &width, ext);
		/* a cage slower than the ASIC's lanes (an SFP28 service port): Mb/s a lane */
		snprintf(at, sizeof(at), "ports[%zu].lane_speed", i);
		if (!err && dlh_sdk_json_has(hw, at))
			err = wire_int(hw, i, "lane_speed", 1000, 400000, &speed, ext);
		if (err)
			return err;
		if (width & (width - 1) || (facts->asic == MLXSW_ASIC_SPECTRUM1 && width > 4))
			return dlh_sdk_extack(ext, -EINVAL, "field \"hw.ports[%zu].width\": expected %s", i,
					      facts->asic == MLXSW_ASIC_SPECTRUM1 ? "1, 2 or 4" : "1, 2, 4 or 8");
		/* Spectrum-1's split logic assumes 4-lane ports at the first or third local port of a cluster. */
		if (facts->asic == MLXSW_ASIC_SPECTRUM1 && width == 4 && (lp - 1) % 2)
			return dlh_sdk_extack(
			    ext, -EINVAL,
			    "field \"hw.ports[%zu].local_port\": a 4-lane port must be at the first or "
			    "third local port of a cluster",
			    i);
		if (facts->port_at_probe[lp] || facts->module_port[module])
			return dlh_sdk_extack(
			    ext, -EINVAL,
			    "field \"hw.ports[%zu]\": local port %ld or lanes of module %ld already mapped", i, lp,
			    module);
		facts->port_to_module[lp] = (uint8_t)module;
		facts->port_at_probe[lp] = true;
		facts->module_port[module] = (uint16_t)lp;
		facts->module_width[module] = (uint8_t)width;
		facts->lane_speed[module] = (uint32_t)speed;
		facts->wires[facts->nwires++] = (struct mlxsw_wire){(uint16_t)lp, (uint8_t)module, (uint8_t)width};
	}
	return wires_check(facts, ext);
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
		ps->local_port = (uint16_t)local_port;
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
	const struct mlxsw_facts *f = dlh_sdk_dev_facts(dev);

	/* the seeds are Spectrum-1's: a later generation is Linux's mlxsw as it is now */
	if (f && f->asic > MLXSW_ASIC_SPECTRUM1)
		return MLXSW_LINUX_PMTDB;
	return dlh_sdk_linux_version(dlh_sdk_dev_linux(dev)) >= 0x060100 ? MLXSW_LINUX_PMTDB : MLXSW_LINUX_SEEDS;
}

/* PMTDB as the profile's wiring gives it, as the emulated firmware answers (mlxsw_board_split()). */
void mlxsw_pmtdb_of(const struct mlxsw_facts *f, uint8_t module, unsigned int count, struct mlxsw_pmtdb *db)
{
	memset(db, 0, sizeof(*db));
	if (module < MLXSW_MODULE_MAX)
		db->ok = mlxsw_board_split(f->asic, f->module_port[module], f->module_width[module], count, db->port);
}

/* The ports of @lps (@n of them) that the view has: what a split or an unsplit takes down. */
static int collect_at(const struct ports_view *v, const uint16_t *lps, unsigned int n, struct port_spec *old)
{
	int nold = 0;

	for (unsigned int i = 0; i < n; i++)
		if (view_port(v, lps[i], &old[nold]))
			nold++;
	return nold;
}

static int collect_old(const struct ports_view *v, uint16_t base, unsigned int count, struct port_spec *old)
{
	uint16_t lps[MLXSW_SPLIT_MAX];

	for (unsigned int i = 0; i < count; i++)
		lps[i] = (uint16_t)(base + i);
	return collect_at(v, lps, count, old);
}

/* A module's lanes, as the board wires it (mlxsw_sp_port_mapping's module_width). */
static unsigned int module_width(const struct ports_view *v, uint8_t module)
{
	return module < MLXSW_MODULE_MAX && v->facts->module_width[module] ? v->facts->module_width[module]
									   : MLXSW_SP_PORTS_PER_CLUSTER_MAX;
}

static void split_ports(const struct ports_view *v, const uint16_t *lps, unsigned int count, uint8_t module,
			struct port_spec *new)
{
	uint8_t width = (uint8_t)(module_width(v, module) / count);

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
int mlxsw_split_decide(const struct ports_view *v, uint16_t local_port, unsigned int count, uint8_t module,
		       uint8_t cur_width, const struct mlxsw_pmtdb *db, struct port_spec *old, int *nold,
		       struct port_spec *new, struct dlh_extack *ext)
{
	uint16_t base_port, lps[MLXSW_SPLIT_MAX];

	if (v->linux == MLXSW_LINUX_PMTDB) {
		/* (a port narrower than its module is a split one: mlxsw_sp_port->split) */
		if (cur_width != module_width(v, module))
			return dlh_sdk_extack(ext, -EINVAL, "Port is already split");
		if (!db || !db->ok)
			return dlh_sdk_extack(ext, -EINVAL, "Unsupported split configuration");
		*nold = collect_at(v, db->port, count, old);
		split_ports(v, db->port, count, module, new);
		return 0;
	}
	if (cur_width != module_width(v, module))
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
		lps[i] = (uint16_t)(base_port + i);
	split_ports(v, lps, count, module, new);
	return 0;
}

int mlxsw_split_port_of(const struct ports_view *v, struct dlh_port *port, unsigned int count, uint16_t *local_port,
			struct dlh_extack *ext)
{
	uint32_t index = dlh_port_index(port);

	if (index < 1 || index >= MLXSW_PORT_MAX_PORTS || !view_port(v, index, NULL))
		return v->linux == MLXSW_LINUX_PMTDB
			   ? dlh_sdk_extack(ext, -EINVAL, "Port number does not exist")
			   : dlh_sdk_extack(ext, -EINVAL, "Port number \"%u\" does not exist", index);
	*local_port = (uint16_t)index;
	/* from 6.1 devlink's core checks the count against the lanes, and PMTDB the rest */
	if (v->linux == MLXSW_LINUX_SEEDS && count != 2 && count != 4)
		return dlh_sdk_extack(ext, -EINVAL, "Port can only be split into 2 or 4 ports");
	return 0;
}

/* A module's unsplit port where the board has one at @lp: what an unsplit re-creates. */
static bool unsplit_port(const struct ports_view *v, uint16_t lp, struct port_spec *ps)
{
	const struct mlxsw_facts *facts = v->facts;

	if (!facts->port_at_probe[lp])
		return false;
	*ps = (struct port_spec){
	    .local_port = lp,
	    .module = facts->port_to_module[lp],
	    .width = (uint8_t)module_width(v, facts->port_to_module[lp]),
	};
	memcpy(ps->netdev, facts->netdev_pattern, sizeof(ps->netdev));
	return true;
}

int mlxsw_unsplit_decide(const struct ports_view *v, uint16_t local_port, uint8_t module, uint8_t cur_width,
			 const struct mlxsw_pmtdb *db, struct port_spec *old, int *nold, struct port_spec *new,
			 int *nnew, struct dlh_extack *ext)
{
	/* mlxsw_sp_port_unsplit(): module_width / width */
	unsigned int count = module_width(v, module) / (cur_width ? cur_width : 1);
	uint16_t base_port = mlxsw_cluster_base_port(local_port);

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
		base_port = (uint16_t)(base_port + 2);

	*nold = collect_old(v, base_port, count, old);
	/* The seed re-creates every even port; only re-create those the board had. */
	for (unsigned int i = 0; i < count / 2; i++)
		if (unsplit_port(v, (uint16_t)(base_port + i * 2), &new[*nnew]))
			(*nnew)++;
	return 0;
}

int mlxsw_unsplit_port_of(const struct ports_view *v, struct dlh_port *port, uint16_t *local_port, struct port_spec *ps,
			  struct dlh_extack *ext)
{
	uint32_t index = dlh_port_index(port);

	if (index < 1 || index >= MLXSW_PORT_MAX_PORTS || !view_port(v, index, ps))
		return v->linux == MLXSW_LINUX_PMTDB
			   ? dlh_sdk_extack(ext, -EINVAL, "Port number does not exist")
			   : dlh_sdk_extack(ext, -EINVAL, "Port number \"%u\" does not exist", index);
	*local_port = (uint16_t)index;
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
	struct port_spec old[MLXSW_SPLIT_MAX], new[MLXSW_SPLIT_MAX], ps;
	const struct ports_view v = {
	    .facts = dlh_sdk_dev_facts(dlh_port_dev(port)), .linux = mlxsw_linux_of(dlh_port_dev(port)), .plan = plan};
	struct mlxsw_pmtdb db;
	uint16_t local_port;
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
	struct port_spec old[MLXSW_SPLIT_MAX], new[MLXSW_SPLIT_MAX], ps;
	const struct ports_view v = {
	    .facts = dlh_sdk_dev_facts(dlh_port_dev(port)), .linux = mlxsw_linux_of(dlh_port_dev(port)), .plan = plan};
	struct mlxsw_pmtdb db;
	uint16_t local_port;
	int nold, nnew, err;

	err = mlxsw_unsplit_port_of(&v, port, &local_port, &ps, ext);
	if (err)
		return err;
	mlxsw_pmtdb_of(v.facts, ps.module, module_width(&v, ps.module) / (ps.width ? ps.width : 1), &db);
	err = mlxsw_unsplit_decide(&v, local_port, ps.module, ps.width, &db, old, &nold, new, &nnew, ext);
	if (err)
		return err;
	return plan_fill(v.facts, plan, old, nold, new, nnew, ext);
}

/*
 * A kernel port as Linux's mlxsw registers it (6.1 and 6.12 alike, every
 * generation): the port number is the module's front-panel label (module +
 * 1), a split port's lanes start at its subport times its width.
 */
static void mlxsw_port_attrs_fill(const struct dlh_dev *dev, uint32_t index, struct dlh_sdk_port_attrs *attrs)
{
	const struct mlxsw_facts *f = dlh_sdk_dev_facts(dev);

	(void)index;
	if (attrs->flavour != DLH_PORT_FLAVOUR_PHYSICAL || !attrs->number || attrs->number > MLXSW_MODULE_MAX ||
	    attrs->lanes > MLXSW_PORT_MODULE_MAX_WIDTH)
		return;
	attrs->has_module = true;
	attrs->module = attrs->number - 1;
	attrs->lane = attrs->split ? attrs->split_subport * attrs->lanes : 0;
	attrs->speed =
	    f ? mlxsw_port_speed(f, attrs->module, attrs->lanes) : (uint32_t)MLXSW_SP_PORT_BASE_SPEED * attrs->lanes;
}

/* Whether the kernel's port at @lp, on module @module, is where the board's wiring can put one. */
static bool port_fits(const struct mlxsw_facts *f, unsigned int lp, const struct dlh_sdk_port_attrs *a)
{
	unsigned int width = a->module < MLXSW_MODULE_MAX ? f->module_width[a->module] : 0;
	struct mlxsw_pmtdb db;

	if (lp < 1 || lp >= MLXSW_PORT_MAX_PORTS || a->lanes < 1 || !width || width % a->lanes)
		return false;
	if (!a->split)
		return f->module_port[a->module] == lp && a->lanes == width;
	/* a split port is at one of the local ports the module's split into width / lanes takes */
	mlxsw_pmtdb_of(f, (uint8_t)a->module, width / a->lanes, &db);
	for (unsigned int i = 0; db.ok && i < width / a->lanes; i++)
		if (db.port[i] == lp)
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
	bool on[MLXSW_MODULE_MAX] = {0}, held[MLXSW_PORT_MAX_PORTS] = {0};

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
		on[a.module] = true;
		held[dlh_port_index(p)] = true;
	}
	/*
	 * A board of the same driver with fewer cages fits too: each of this
	 * one's has a port, its split's, or another module's split holds its
	 * local port (Spectrum-1's split by 4 takes its cluster's other module).
	 */
	for (unsigned int i = 0; i < facts->nwires; i++)
		if (!on[facts->wires[i].module] && !held[facts->wires[i].local_port])
			return dlh_sdk_extack(ext, -EINVAL,
					      "module %u, which the board wires to local port %u, has no port",
					      facts->wires[i].module, facts->wires[i].local_port);
	return 0;
}

static const char *const mlxsw_kernel_drivers[] = {"mlxsw_spectrum", "mlxsw_spectrum2", "mlxsw_spectrum3",
						   "mlxsw_spectrum4", NULL};

const struct dlh_sdk_rules mlxsw_rules = {
    .kernel_drivers = mlxsw_kernel_drivers,
    .facts_size = sizeof(struct mlxsw_facts),
    .attach = mlxsw_rules_attach,
    .port_attrs_fill = mlxsw_port_attrs_fill,
    .port_split_plan = mlxsw_port_split_plan,
    .port_unsplit_plan = mlxsw_port_unsplit_plan,
};
