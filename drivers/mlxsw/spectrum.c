/* SPDX-License-Identifier: MIT */
/*
 * Spectrum port split/unsplit, after the mlxsw patches of Linux 4.6
 * (seeds 002-006): local ports 1..64 in clusters of 4, a port's lanes on one
 * module, 100G (4-lane) ports split into 2x2 or 4x1 lanes. Published in the
 * kernel's devlink as Linux 6.1's mlxsw_spectrum (dlhald --kernel-bridge),
 * it splits as that driver does: the local ports are the firmware's answer
 * to PMTDB (docs/vendors.md).
 *
 * Where the seed leaves ports half-done on a failure (a failed removal step
 * is ignored, a failed re-creation on unsplit loses the port), this driver
 * brings the hardware down and up in phases and unwinds each phase, and
 * touches the port model only once the hardware has accepted everything:
 * a failed split or unsplit leaves ports, names and lane maps as they were.
 */
#include "emu.h"
#include "mlxsw.h"
#include "reg.h"
#include "rules.h"

#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct mlxsw_sp_port {
	uint16_t local_port;
	bool split;
	uint8_t module;
	uint8_t width;
	uint8_t lane;
	struct dlh_port *dl;
	char netdev[DLH_NETDEV_NAME_MAX];
};

struct mlxsw_sp {
	struct dlh_dev *dev;
	struct mlxsw_emu *emu;
	struct mlxsw_bus bus;
	struct mlxsw_sp_port *ports[MLXSW_PORT_MAX_PORTS]; /* NULL: local port unused (seed 005) */
	struct mlxsw_facts *facts; /* the board's wiring, as found at probe (seed 004), for the rules */
	char saved_netdev[MLXSW_PORT_MAX_PORTS][DLH_NETDEV_NAME_MAX]; /* from a saved state, for probe */
};

static struct mlxsw_sp *sp_of(const struct dlh_dev *dev)
{
	return dlh_sdk_dev_priv(dev);
}

static int module_lane_get(struct mlxsw_sp *sp, uint16_t local_port, uint8_t *module, uint8_t *width, uint8_t *lane)
{
	struct mlxsw_reg_pmlp pmlp = {.local_port = local_port};
	int err = mlxsw_reg_query(&sp->bus, MLXSW_REG_PMLP, &pmlp);

	if (err)
		return err;
	*module = pmlp.module[0];
	*width = pmlp.width;
	*lane = pmlp.lane[0];
	return 0;
}

static int module_info_get(struct mlxsw_sp *sp, uint16_t local_port, uint8_t *module, uint8_t *width)
{
	uint8_t lane;

	return module_lane_get(sp, local_port, module, width, &lane);
}

static int module_map(struct mlxsw_sp *sp, uint16_t local_port, uint8_t module, uint8_t width, uint8_t lane)
{
	struct mlxsw_reg_pmlp pmlp = {.local_port = local_port, .width = width};

	for (int i = 0; i < width; i++) {
		pmlp.module[i] = module;
		pmlp.lane[i] = (uint8_t)(lane + i);
	}
	return mlxsw_reg_write(&sp->bus, MLXSW_REG_PMLP, &pmlp);
}

static int module_unmap(struct mlxsw_sp *sp, uint16_t local_port)
{
	struct mlxsw_reg_pmlp pmlp = {.local_port = local_port, .width = 0};

	return mlxsw_reg_write(&sp->bus, MLXSW_REG_PMLP, &pmlp);
}

static int port_enable_set(struct mlxsw_sp *sp, uint16_t local_port, bool enabled)
{
	struct mlxsw_reg_pspa pspa = {.local_port = local_port, .enabled = enabled};

	return mlxsw_reg_write(&sp->bus, MLXSW_REG_PSPA, &pspa);
}

static int port_speed_by_width_set(struct mlxsw_sp *sp, uint16_t local_port, uint8_t module, uint8_t width)
{
	struct mlxsw_reg_ptys ptys = {.local_port = local_port,
				      .speed_admin = mlxsw_port_speed(sp->facts, module, width)};

	return mlxsw_reg_write(&sp->bus, MLXSW_REG_PTYS, &ptys);
}

/* Brings a port up in hardware; on failure undoes its own steps. */
static int port_hw_up(struct mlxsw_sp *sp, const struct port_spec *ps, bool map)
{
	int err;

	if (map) {
		err = module_map(sp, ps->local_port, ps->module, ps->width, ps->lane);
		if (err)
			return err;
	}
	err = port_speed_by_width_set(sp, ps->local_port, ps->module, ps->width);
	if (err)
		goto err_speed_set;
	err = port_enable_set(sp, ps->local_port, true);
	if (err)
		goto err_enable;
	return 0;

err_enable:
err_speed_set:
	if (map)
		module_unmap(sp, ps->local_port);
	return err;
}

/* Disables, then unmaps (seed 003: active ports cannot be unmapped); undoes itself on failure. */
static int port_hw_down(struct mlxsw_sp *sp, uint16_t local_port, bool unmap)
{
	int err = port_enable_set(sp, local_port, false);

	if (err)
		return err;
	if (unmap) {
		err = module_unmap(sp, local_port);
		if (err)
			goto err_unmap;
	}
	return 0;

err_unmap:
	port_enable_set(sp, local_port, true);
	return err;
}

static void port_spec_of(const struct mlxsw_sp_port *p, struct port_spec *ps)
{
	memset(ps, 0, sizeof(*ps));
	ps->local_port = p->local_port;
	ps->split = p->split;
	ps->module = p->module;
	ps->width = p->width;
	ps->lane = p->lane;
	memcpy(ps->netdev, p->netdev, sizeof(ps->netdev));
}

/* Registers the port with core: devlink port, then its netdev. */
static int port_model_add(struct mlxsw_sp *sp, const struct port_spec *ps, struct dlh_extack *ext)
{
	struct dlh_sdk_port_attrs attrs;
	struct mlxsw_sp_port *p = calloc(1, sizeof(*p));
	int err;

	mlxsw_port_attrs_of(sp->facts, ps, &attrs);
	if (!p)
		return dlh_sdk_extack(ext, -ENOMEM, "Out of memory");
	p->local_port = ps->local_port;
	p->split = ps->split;
	p->module = ps->module;
	p->width = ps->width;
	p->lane = ps->lane;
	err = dlh_sdk_port_register(sp->dev, ps->local_port, &attrs, &p->dl, ext);
	if (err)
		goto err_port_register;
	err = dlh_sdk_port_type_eth(p->dl, ps->netdev, ext);
	if (err)
		goto err_type_eth;
	memcpy(p->netdev, dlh_port_netdev(p->dl), sizeof(p->netdev));
	sp->ports[ps->local_port] = p;
	return 0;

err_type_eth:
	dlh_sdk_port_unregister(p->dl);
err_port_register:
	free(p);
	return err;
}

static void port_model_del(struct mlxsw_sp *sp, uint16_t local_port)
{
	struct mlxsw_sp_port *p = sp->ports[local_port];

	if (!p)
		return;
	sp->ports[local_port] = NULL;
	dlh_sdk_port_unregister(p->dl);
	free(p);
}

/*
 * Replaces ports @old by ports @new: hardware down, hardware up, then the
 * model. Each phase unwinds itself and the phases before it.
 */
static int ports_replace(struct mlxsw_sp *sp, const struct port_spec *old, int nold, struct port_spec *new, int nnew,
			 struct dlh_extack *ext)
{
	int i = 0, j = 0, k = 0, err;

	for (i = 0; i < nold; i++) {
		err = port_hw_down(sp, old[i].local_port, true);
		if (err) {
			dlh_sdk_extack(ext, err, "Failed to disable port %u", old[i].local_port);
			goto err_old_down;
		}
	}
	for (j = 0; j < nnew; j++) {
		err = port_hw_up(sp, &new[j], true);
		if (err) {
			dlh_sdk_extack(ext, err, "Failed to create port %u", new[j].local_port);
			goto err_new_up;
		}
	}
	for (i = 0; i < nold; i++)
		port_model_del(sp, old[i].local_port);
	for (k = 0; k < nnew; k++) {
		err = port_model_add(sp, &new[k], ext);
		if (err)
			goto err_new_model;
	}
	return 0;

err_new_model:
	while (k--)
		port_model_del(sp, new[k].local_port);
	for (i = 0; i < nold; i++)
		if (port_model_add(sp, &old[i], NULL))
			dlh_sdk_log(sp->dev, DLH_LOG_ERR, "Failed to re-register port %u", old[i].local_port);
err_new_up:
	while (j--)
		if (port_hw_down(sp, new[j].local_port, true))
			dlh_sdk_log(sp->dev, DLH_LOG_ERR, "Failed to remove port %u", new[j].local_port);
	i = nold;
err_old_down:
	while (i--)
		if (port_hw_up(sp, &old[i], true))
			dlh_sdk_log(sp->dev, DLH_LOG_ERR, "Failed to reinstantiate port %u", old[i].local_port);
	return err;
}

/* The driver's own ports, for its ops' decisions (struct ports_view). */
static bool own_port(const void *arg, unsigned int local_port, struct port_spec *ps)
{
	const struct mlxsw_sp *sp = arg;

	if (!sp->ports[local_port])
		return false;
	if (ps)
		port_spec_of(sp->ports[local_port], ps);
	return true;
}

/* A module's lanes: its port's width at probe (mlxsw_sp_port_mapping's module_width). */
static uint8_t module_width_of(const struct mlxsw_sp *sp, uint8_t module)
{
	return module < MLXSW_MODULE_MAX && sp->facts->module_width[module] ? sp->facts->module_width[module]
									    : MLXSW_SP_PORTS_PER_CLUSTER_MAX;
}

/* What the firmware answers PMTDB for @module split into @count (Linux 6.1's mlxsw_sp_port_split()). */
static int pmtdb_get(struct mlxsw_sp *sp, uint8_t module, unsigned int count, struct mlxsw_pmtdb *db,
		     struct dlh_extack *ext)
{
	struct mlxsw_reg_pmtdb q = {.module = module,
				    .ports_width = (uint8_t)(module_width_of(sp, module) / (count ? count : 1)),
				    .num_ports = (uint8_t)count};
	int err = mlxsw_reg_query(&sp->bus, MLXSW_REG_PMTDB, &q);

	if (err)
		return dlh_sdk_extack(ext, err, "Failed to query split info");
	db->ok = q.status == MLXSW_REG_PMTDB_STATUS_SUCCESS;
	memcpy(db->port, q.port_num, sizeof(db->port));
	return 0;
}

/* The driver's own ports, as the Linux the device stands for decides on them (the seeds' unless bridged). */
static struct ports_view own_view(struct mlxsw_sp *sp)
{
	return (struct ports_view){.facts = sp->facts, .linux = mlxsw_linux_of(sp->dev), .own = own_port, .arg = sp};
}

static int mlxsw_sp_port_split(struct dlh_port *port, unsigned int count, struct dlh_extack *ext)
{
	struct mlxsw_sp *sp = sp_of(dlh_port_dev(port));
	struct port_spec old[MLXSW_SPLIT_MAX], new[MLXSW_SPLIT_MAX];
	const struct ports_view v = own_view(sp);
	struct mlxsw_pmtdb db = {0};
	uint16_t local_port;
	uint8_t module, cur_width;
	int nold, err;

	err = mlxsw_split_port_of(&v, port, count, &local_port, ext);
	if (err)
		return err;
	err = module_info_get(sp, local_port, &module, &cur_width);
	if (err)
		return dlh_sdk_extack(ext, err, "Failed to get port's width");
	/* 6.1 asks the firmware only for a port that is not split already */
	if (v.linux == MLXSW_LINUX_PMTDB && cur_width == module_width_of(sp, module)) {
		err = pmtdb_get(sp, module, count, &db, ext);
		if (err)
			return err;
	}
	err = mlxsw_split_decide(&v, local_port, count, module, cur_width, &db, old, &nold, new, ext);
	if (err)
		return err;
	err = ports_replace(sp, old, nold, new, (int)count, ext);
	if (err)
		dlh_sdk_log(sp->dev, DLH_LOG_ERR, "Failed to create split port");
	return err;
}

static int mlxsw_sp_port_unsplit(struct dlh_port *port, struct dlh_extack *ext)
{
	struct mlxsw_sp *sp = sp_of(dlh_port_dev(port));
	struct port_spec old[MLXSW_SPLIT_MAX], new[MLXSW_SPLIT_MAX], ps;
	const struct ports_view v = own_view(sp);
	struct mlxsw_pmtdb db = {0};
	uint16_t local_port;
	uint8_t module, cur_width;
	int nold, nnew, err;

	err = mlxsw_unsplit_port_of(&v, port, &local_port, &ps, ext);
	if (err)
		return err;
	err = module_info_get(sp, local_port, &module, &cur_width);
	if (err)
		return dlh_sdk_extack(ext, err, "Failed to get port's width");
	if (v.linux == MLXSW_LINUX_PMTDB) {
		err = pmtdb_get(sp, module, module_width_of(sp, module) / (cur_width ? cur_width : 1), &db, ext);
		if (err)
			return err;
	}
	err = mlxsw_unsplit_decide(&v, local_port, module, cur_width, &db, old, &nold, new, &nnew, ext);
	if (err)
		return err;
	err = ports_replace(sp, old, nold, new, nnew, ext);
	if (err)
		dlh_sdk_log(sp->dev, DLH_LOG_ERR, "Failed to reinstantiate port");
	return err;
}

/*
 * Profile "hw": {"netdev": "eth%d", "ports": [{"local_port": 1, "module": 16, "width": 4}, ...],
 * "fail_nth": N (optional: fail the Nth register access, counting from probe)}
 */
/*
 * hw.state: {"pmlp": [[local_port, width, module, first_lane], ...], "netdev": {"1": "eth0", ...}}: what
 * dlhald saved, read with the SDK's checked reads; a state of another shape stops the start.
 */
static int state_apply(struct mlxsw_sp *sp, const struct dlh_sdk_json *hw, struct dlh_extack *ext)
{
	size_t n = 0;

	char none[1];

	/* (a walk past an object's last member is -ENOENT; anything but an object, -EINVAL) */
	if (dlh_sdk_json_only(hw, "state", (const char *const[]){"pmlp", "netdev", NULL}, NULL) ||
	    dlh_sdk_json_count(hw, "state.pmlp", &n, NULL) ||
	    (dlh_sdk_json_has(hw, "state.netdev") &&
	     dlh_sdk_json_key(hw, "state.netdev", SIZE_MAX, none, sizeof(none), NULL) != -ENOENT))
		return dlh_sdk_extack(ext, -EINVAL,
				      "field \"hw.state\": expected {\"pmlp\": [...], \"netdev\": {...}}");
	for (size_t i = 0; i < n; i++) {
		uint64_t v[4];
		size_t items = 0;
		char path[48];

		/* exactly four items, each range checked before any sum, so no value overflows */
		snprintf(path, sizeof(path), "state.pmlp[%zu]", i);
		if (dlh_sdk_json_count(hw, path, &items, NULL) || items != 4)
			goto bad_record;
		for (size_t k = 0; k < 4; k++) {
			snprintf(path, sizeof(path), "state.pmlp[%zu][%zu]", i, k);
			if (dlh_sdk_json_uint(hw, path, 0, INT64_MAX, &v[k], NULL))
				goto bad_record;
		}
		if (v[0] < 1 || v[0] > sp->facts->max_local_port || v[1] < 1 || v[1] > MLXSW_PORT_MODULE_MAX_WIDTH ||
		    v[2] >= MLXSW_MODULE_MAX || v[3] > MLXSW_PORT_MODULE_MAX_WIDTH - v[1] ||
		    mlxsw_emu_map(sp->emu, (uint16_t)v[0], (uint8_t)v[2], (uint8_t)v[1], (uint8_t)v[3]))
			return dlh_sdk_extack(ext, -EINVAL,
					      "field \"hw.state.pmlp[%zu]\": not a mapping the ASIC takes", i);
		continue;
	bad_record:
		return dlh_sdk_extack(ext, -EINVAL,
				      "field \"hw.state.pmlp[%zu]\": expected [local_port, width, module, "
				      "first_lane], four integers",
				      i);
	}
	for (size_t i = 0; dlh_sdk_json_has(hw, "state.netdev"); i++) {
		char key[16], path[40];
		char *end;
		long lp;
		int err = dlh_sdk_json_key(hw, "state.netdev", i, key, sizeof(key), NULL);

		if (err == -ENOENT)
			break;
		lp = err ? 0 : strtol(key, &end, 10);
		if (err || !*key || *end || lp < 1 || lp > sp->facts->max_local_port)
			return dlh_sdk_extack(ext, -EINVAL,
					      "field \"hw.state.netdev.%s\": expected a local port number",
					      err ? "?" : key);
		snprintf(path, sizeof(path), "state.netdev.%s", key);
		if (dlh_sdk_json_str(hw, path, sp->saved_netdev[lp], sizeof(sp->saved_netdev[lp]), NULL) ||
		    !dlh_sdk_netdev_name_valid(sp->saved_netdev[lp]))
			return dlh_sdk_extack(ext, -EINVAL, "field \"hw.state.netdev.%s\": expected a netdev name",
					      key);
	}
	return 0;
}

/* hw.mgir: {"hw_revision": N, "psid": "...", "fw_version": "major.minor.subminor"}: what MGIR answers. */
static int mgir_apply(struct mlxsw_sp *sp, const struct dlh_sdk_json *hw, struct dlh_extack *ext)
{
	struct mlxsw_reg_mgir mgir = {0};
	char psid[sizeof(mgir.psid) + 1], ver[32];
	uint64_t rev;
	int end = 0;

	if (dlh_sdk_json_only(hw, "mgir", (const char *const[]){"hw_revision", "psid", "fw_version", NULL}, NULL) ||
	    dlh_sdk_json_uint(hw, "mgir.hw_revision", 0, 0xffff, &rev, NULL) || !dlh_sdk_json_has(hw, "mgir.psid") ||
	    !dlh_sdk_json_has(hw, "mgir.fw_version"))
		return dlh_sdk_extack(ext, -EINVAL,
				      "field \"hw.mgir\": expected {\"hw_revision\": 0 to 65535, \"psid\": \"...\", "
				      "\"fw_version\": \"major.minor.subminor\"}");
	if (dlh_sdk_json_str(hw, "mgir.psid", psid, sizeof(psid), NULL) || !psid[0])
		return dlh_sdk_extack(ext, -EINVAL, "field \"hw.mgir.psid\": expected 1 to %zu characters",
				      sizeof(mgir.psid));
	if (dlh_sdk_json_str(hw, "mgir.fw_version", ver, sizeof(ver), NULL) ||
	    sscanf(ver, "%5u.%5u.%5u%n", &mgir.fw_major, &mgir.fw_minor, &mgir.fw_sub_minor, &end) != 3 || ver[end] ||
	    mgir.fw_major > 0xffff || mgir.fw_minor > 0xffff || mgir.fw_sub_minor > 0xffff)
		return dlh_sdk_extack(ext, -EINVAL, "field \"hw.mgir.fw_version\": expected \"major.minor.subminor\"");
	mgir.hw_revision = (uint32_t)rev;
	memcpy(mgir.psid, psid, strlen(psid));
	mlxsw_emu_identity(sp->emu, &mgir);
	return 0;
}

static int config_apply(struct mlxsw_sp *sp, const char *config, struct dlh_extack *ext)
{
	struct dlh_sdk_json *hw;
	uint64_t fail_nth;
	int err;

	if (!config)
		return dlh_sdk_extack(ext, -EINVAL, "field \"hw\": missing");
	err = dlh_sdk_json_parse(config, "hw", &hw, ext);
	if (err)
		return err;
	/* The generation, the netdev pattern and the board's wiring: the rules' facts; then the ASIC. */
	err = mlxsw_facts_parse(sp->facts, hw, ext);
	if (err)
		goto out;
	sp->emu = mlxsw_emu_new(sp->facts->asic);
	if (!sp->emu) {
		err = dlh_sdk_extack(ext, -ENOMEM, "Out of memory");
		goto out;
	}
	/* Fault injection from the first access on, so that probe itself can be tested. */
	if (dlh_sdk_json_has(hw, "fail_nth")) {
		if (dlh_sdk_json_uint(hw, "fail_nth", 0, UINT64_MAX >> 1, &fail_nth, NULL)) {
			err = dlh_sdk_extack(ext, -EINVAL, "field \"hw.fail_nth\": expected a non-negative integer");
			goto out;
		}
		mlxsw_emu_fail_nth(sp->emu, (unsigned long)fail_nth);
	}
	if (dlh_sdk_json_has(hw, "mgir")) {
		err = mgir_apply(sp, hw, ext);
		if (err)
			goto out;
	}
	for (unsigned int i = 0; i < sp->facts->nwires; i++) {
		const struct mlxsw_wire *w = &sp->facts->wires[i];

		/* the firmware's port-module database holds the wiring whatever a saved state maps */
		mlxsw_emu_wire(sp->emu, w->local_port, w->module, w->width);
		if (dlh_sdk_json_has(hw, "state"))
			continue;
		if (mlxsw_emu_board_map(sp->emu, w->local_port, w->module, w->width)) {
			err = dlh_sdk_extack(
			    ext, -EINVAL, "field \"hw.ports[%u]\": local port %u or lanes of module %u already mapped",
			    i, w->local_port, w->module);
			goto out;
		}
	}
	if (dlh_sdk_json_has(hw, "state"))
		err = state_apply(sp, hw, ext);
out:
	dlh_sdk_json_free(hw);
	return err;
}

static void ports_remove_all(struct mlxsw_sp *sp, bool unmap)
{
	for (int lp = MLXSW_PORT_MAX_PORTS - 1; lp >= 1; lp--) {
		if (!sp->ports[lp])
			continue;
		port_hw_down(sp, (uint16_t)lp, unmap);
		port_model_del(sp, (uint16_t)lp);
	}
}

static int mlxsw_sp_probe(struct dlh_dev *dev, const char *config, struct dlh_extack *ext)
{
	struct mlxsw_sp *sp = sp_of(dev);
	uint8_t module, width, lane;
	int err;

	sp->dev = dev;
	sp->facts = dlh_sdk_dev_facts(dev);
	sp->emu = NULL;
	err = config_apply(sp, config, ext);
	if (err)
		goto err_config;
	mlxsw_emu_bus(sp->emu, &sp->bus);
	/* no seeds but Spectrum-1's: a later generation splits as Linux's mlxsw does now (docs/vendors.md) */
	if (sp->facts->asic > MLXSW_ASIC_SPECTRUM1 && !dlh_sdk_dev_linux(dev)) {
		err = dlh_sdk_dev_linux_set(dev, MLXSW_LINUX_RELEASE, ext);
		if (err)
			goto err_config;
	}

	for (int lp = 1; lp <= sp->facts->max_local_port; lp++) {
		struct port_spec ps = {.local_port = (uint16_t)lp};

		err = module_lane_get(sp, (uint16_t)lp, &module, &width, &lane);
		if (err) {
			dlh_sdk_extack(ext, err, "Failed to get module info of local port %d", lp);
			goto err_ports;
		}
		if (!width)
			continue;
		ps.module = module;
		ps.width = width;
		ps.split = width < module_width_of(sp, module);
		ps.lane = lane;
		ps.subport = (uint8_t)(lane / width);
		/* A restored port keeps its name; others take the pattern's next. */
		memcpy(ps.netdev, sp->saved_netdev[lp][0] ? sp->saved_netdev[lp] : sp->facts->netdev_pattern,
		       sizeof(ps.netdev));
		/* Firmware mapped the port at reset; probe only enables it. */
		err = port_hw_up(sp, &ps, false);
		if (err) {
			dlh_sdk_extack(ext, err, "Failed to create port %d", lp);
			goto err_ports;
		}
		err = port_model_add(sp, &ps, ext);
		if (err) {
			port_hw_down(sp, (uint16_t)lp, false);
			goto err_ports;
		}
	}
	return 0;

err_ports:
	/* Undo only what probe did (enable): leave the board's lane map as found. */
	ports_remove_all(sp, false);
err_config:
	mlxsw_emu_free(sp->emu);
	sp->emu = NULL;
	return err;
}

static void mlxsw_sp_remove(struct dlh_dev *dev)
{
	struct mlxsw_sp *sp = sp_of(dev);

	ports_remove_all(sp, true);
	mlxsw_emu_free(sp->emu);
	sp->emu = NULL;
}

static int parse_ulong(const char *s, unsigned long *out)
{
	char *end;

	if (!*s || *s == '-')
		return -EINVAL;
	errno = 0;
	*out = strtoul(s, &end, 10);
	return errno || *end ? -EINVAL : 0;
}

static int mlxsw_sp_sim_set(struct dlh_dev *dev, struct dlh_port *port, const char *key, const char *value,
			    struct dlh_extack *ext)
{
	struct mlxsw_sp *sp = sp_of(dev);
	unsigned long n;

	if (port || strcmp(key, "fail_nth"))
		return dlh_sdk_extack(ext, -EINVAL, "Unknown emulator control \"%s\" (Spectrum has: fail_nth)", key);
	if (parse_ulong(value, &n))
		return dlh_sdk_extack(ext, -EINVAL, "fail_nth: expected a number of register accesses, got \"%s\"",
				      value);
	mlxsw_emu_fail_nth(sp->emu, n);
	return 0;
}

/* The hardware as hw.state restores it: the lane map, and each port's netdev name. */
static int state_get(struct mlxsw_sp *sp, char *buf, size_t len, struct dlh_extack *ext)
{
	json_t *st = json_object(), *pmlp = json_array(), *names = json_object();
	char key[8];
	size_t n;

	for (int lp = 1; lp < MLXSW_PORT_MAX_PORTS; lp++) {
		struct mlxsw_sp_port *p = sp->ports[lp];

		if (!p)
			continue;
		json_array_append_new(pmlp, json_pack("[iiii]", lp, p->width, p->module, p->lane));
		snprintf(key, sizeof(key), "%d", lp);
		json_object_set_new(names, key, json_string(p->netdev));
	}
	json_object_set_new(st, "pmlp", pmlp);
	json_object_set_new(st, "netdev", names);
	n = json_dumpb(st, buf, len - 1, JSON_COMPACT);
	json_decref(st);
	if (!n || n >= len)
		return dlh_sdk_extack(ext, -ENOSPC, "Buffer too small");
	buf[n] = '\0';
	return 0;
}

static int mlxsw_sp_sim_get(struct dlh_dev *dev, struct dlh_port *port, const char *key, char *buf, size_t len,
			    struct dlh_extack *ext)
{
	struct mlxsw_sp *sp = sp_of(dev);
	int n;

	if (port)
		return dlh_sdk_extack(ext, -EINVAL, "Spectrum has no per-port emulator controls");
	if (!strcmp(key, "fail_nth"))
		n = snprintf(buf, len, "%lu", mlxsw_emu_fail_pending(sp->emu));
	else if (!strcmp(key, "accesses"))
		n = snprintf(buf, len, "%lu", mlxsw_emu_accesses(sp->emu));
	else if (!strcmp(key, "pmlp"))
		return mlxsw_emu_dump(sp->emu, buf, len) ? dlh_sdk_extack(ext, -ENOSPC, "Buffer too small") : 0;
	else if (!strcmp(key, "state"))
		return state_get(sp, buf, len, ext);
	else
		return dlh_sdk_extack(ext, -EINVAL,
				      "Unknown emulator control \"%s\" (Spectrum has: fail_nth, "
				      "accesses, pmlp, state)",
				      key);
	return n < 0 || (size_t)n >= len ? dlh_sdk_extack(ext, -ENOSPC, "Buffer too small") : 0;
}

/*
 * What Linux's mlxsw says of the device (mlxsw_devlink_info_get, 6.1 and
 * 6.12): the driver of its PCI function (the generation's), then MGIR's
 * hardware revision ("%X") and PSID, fixed, and the running firmware
 * version, as "fw.version" and as "fw"; from 6.2 on the core puts the same
 * driver name. An empty PSID (a profile without hw.mgir) is left out rather
 * than put empty.
 */
static int mlxsw_sp_dev_info_get(struct dlh_dev *dev, struct dlh_sdk_info *info, struct dlh_extack *ext)
{
	struct mlxsw_sp *sp = sp_of(dev);
	struct mlxsw_reg_mgir mgir = {0};
	char buf[32], psid[MLXSW_REG_MGIR_FW_INFO_PSID_SIZE + 1];
	int err;

	err = dlh_sdk_info_driver_put(info, mlxsw_asic_driver(sp->facts->asic), ext);
	if (err)
		return err;
	err = mlxsw_reg_query(&sp->bus, MLXSW_REG_MGIR, &mgir);
	if (err)
		return dlh_sdk_extack(ext, err, "Failed to query the device's general information (MGIR)");
	snprintf(buf, sizeof(buf), "%X", mgir.hw_revision);
	err = dlh_sdk_info_version_put(info, DLH_VERSION_FIXED, "hw.revision", buf, ext);
	memcpy(psid, mgir.psid, sizeof(mgir.psid));
	psid[sizeof(mgir.psid)] = '\0';
	if (!err && psid[0])
		err = dlh_sdk_info_version_put(info, DLH_VERSION_FIXED, "fw.psid", psid, ext);
	snprintf(buf, sizeof(buf), "%u.%u.%u", mgir.fw_major, mgir.fw_minor, mgir.fw_sub_minor);
	if (!err)
		err = dlh_sdk_info_version_put(info, DLH_VERSION_RUNNING, "fw.version", buf, ext);
	/* and again as the generic "fw" (mlxsw_devlink_info_get(), 6.1 and 6.12) */
	if (!err)
		err = dlh_sdk_info_version_put(info, DLH_VERSION_RUNNING, "fw", buf, ext);
	return err;
}

static const struct dlh_sdk_ops mlxsw_sp_ops = {
    .probe = mlxsw_sp_probe,
    .remove = mlxsw_sp_remove,
    .port_split = mlxsw_sp_port_split,
    .port_unsplit = mlxsw_sp_port_unsplit,
    .sim_set = mlxsw_sp_sim_set,
    .sim_get = mlxsw_sp_sim_get,
    .dev_info_get = mlxsw_sp_dev_info_get,
};

const struct dlh_sdk_driver mlxsw_driver = {
    DLH_SDK_DRIVER_INIT("mlxsw", &mlxsw_sp_ops),
    .dev_priv_size = sizeof(struct mlxsw_sp),
    /* The seed checks the count before anything else, in these words. */
    .split_counts = 1u << 2 | 1u << 4,
    .split_count_msg = "Port can only be split into 2 or 4 ports",
    /* plans come from the rules, here and on a kernel device that Linux's mlxsw_spectrum runs */
    .rules = &mlxsw_rules,
};
