/* SPDX-License-Identifier: MIT */
/*
 * drivers/mlx5 over the emulated ConnectX-6 VPI (profile cx6-vpi): a port's
 * type stored in the card's configuration and loaded by a firmware reset, as
 * Linux's mlx5_core and mstflint's mstconfig do it; the plan of a set is what
 * the reset brings up; every firmware access failing in turn changes nothing.
 */
#include "helpers.h"

#include <criterion/criterion.h>
#include <fcntl.h>
#include <dlhal/sdk.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define FN0 "pci/0000:03:00.0"
#define FN1 "pci/0000:03:00.1"
#define MSG "Please reboot machine to load new configurations"

static struct dlh_port *port_of(struct dlh_ctx *ctx, const char *handle)
{
	struct dlh_port *p = NULL;

	cr_assert_eq(dlh_port_lookup(ctx, handle, &p, NULL), 0, "%s", handle);
	return p;
}

#define P0(ctx) port_of(ctx, FN0 "/65535")
#define P1(ctx) port_of(ctx, FN1 "/131071")

static const char *state(struct dlh_ctx *ctx)
{
	static char buf[128];

	cr_assert_eq(dlh_dev_sim_get(dlh_dev_find(ctx, FN0), NULL, "state", buf, sizeof(buf), NULL), 0);
	return buf;
}

static enum dlh_port_type pending_type(struct dlh_port *p)
{
	struct dlh_pending pend;

	return dlh_port_pending(p, &pend) ? pend.type : DLH_PORT_TYPE_NOTSET;
}

static int fw_activate(struct dlh_ctx *ctx, const char *dev, uint32_t *done, struct dlh_extack *ext)
{
	return dlh_dev_reload(dlh_dev_find(ctx, dev), DLH_RELOAD_ACTION_FW_ACTIVATE, DLH_RELOAD_LIMIT_UNSPEC, done,
			      ext);
}

Test(mlx5, boots_as_mlx5_core_registers_its_functions)
{
	struct dlh_ctx *ctx = ctx_with("cx6-vpi");
	char *dump = model_dump(ctx);

	cr_expect_str_eq(dlh_dev_driver(dlh_dev_find(ctx, FN0)), "mlx5");
	/* one devlink instance per function, its port at vhca_id << 16 | MLX5_VPORT_UPLINK, numbered by it */
	cr_expect_str_eq(dump, "pci/0000:03:00.0/65535 eth eth ens1f0np0 - 0 0 0 0 0\n"
			       "pci/0000:03:00.1/131071 ib ib - mlx5_1 0 0 0 1 0\n");
	cr_expect_eq(dlh_port_number(P1(ctx)), 1);
	cr_expect_not(dlh_port_splittable(P0(ctx)));
	cr_expect_eq(pending_type(P0(ctx)), DLH_PORT_TYPE_NOTSET, "nothing pending as it ships");
	cr_expect_str_eq(state(ctx), "{\"current\":[\"eth\",\"ib\"],\"next\":[\"eth\",\"ib\"]}");
	free(dump);
	dlh_ctx_free(ctx);
}

/* A set stores the next value and says it waits; the port runs what it ran; asked again, nothing to do. */
Test(mlx5, a_type_set_waits_for_a_reset)
{
	struct dlh_ctx *ctx = ctx_with("cx6-vpi");
	struct recorder rec;
	struct dlh_extack ext;

	recorder_attach(&rec, ctx);
	cr_assert_eq(dlh_port_type_set(P0(ctx), DLH_PORT_TYPE_IB, &ext), 0, "%s", ext.msg);
	cr_expect_str_eq(ext.msg, MSG);
	cr_expect_eq(dlh_port_type(P0(ctx)), DLH_PORT_TYPE_ETH, "runs eth until the reset");
	cr_expect_str_eq(dlh_port_netdev(P0(ctx)), "ens1f0np0");
	cr_expect_eq(dlh_port_desired_type(P0(ctx)), DLH_PORT_TYPE_IB);
	cr_expect_eq(pending_type(P0(ctx)), DLH_PORT_TYPE_IB);
	cr_expect_str_eq(state(ctx), "{\"current\":[\"eth\",\"ib\"],\"next\":[\"ib\",\"ib\"]}");
	/* no port goes: it changes (devlink says "new"), for its pending type, then its desired one */
	cr_expect_str_eq(rec.log,
			 "port,new pci/0000:03:00.0/65535 ens1f0np0\nport,new pci/0000:03:00.0/65535 ens1f0np0\n");
	cr_expect_eq(dlh_port_type_set(P0(ctx), DLH_PORT_TYPE_IB, &ext), 0);
	cr_expect_str_eq(ext.msg, "", "asked again: nothing to do, no message");
	/* back to what it runs: the stored change is undone, nothing pending (mstconfig would say reboot) */
	cr_assert_eq(dlh_port_type_set(P0(ctx), DLH_PORT_TYPE_ETH, &ext), 0, "%s", ext.msg);
	cr_expect_str_eq(ext.msg, "Pending type change cancelled: the port runs eth");
	cr_expect_eq(pending_type(P0(ctx)), DLH_PORT_TYPE_NOTSET);
	cr_expect_str_eq(state(ctx), "{\"current\":[\"eth\",\"ib\"],\"next\":[\"eth\",\"ib\"]}");
	dlh_ctx_free(ctx);
	free(rec.log);
}

/* The reset loads the configuration: every function goes and comes, each port of its next type. */
Test(mlx5, fw_activate_loads_the_configuration)
{
	struct dlh_ctx *ctx = ctx_with("cx6-vpi");
	struct recorder rec;
	struct dlh_extack ext;
	uint32_t done = 0;
	char *dump;

	cr_assert_eq(dlh_port_type_set(P0(ctx), DLH_PORT_TYPE_IB, &ext), 0, "%s", ext.msg);
	cr_assert_eq(dlh_port_type_set(P1(ctx), DLH_PORT_TYPE_ETH, &ext), 0, "%s", ext.msg);
	recorder_attach(&rec, ctx);
	/* asked of function 1: the reset is the card's */
	cr_assert_eq(fw_activate(ctx, FN1, &done, &ext), 0, "%s", ext.msg);
	cr_expect_eq(done, 1u << DLH_RELOAD_ACTION_FW_ACTIVATE | 1u << DLH_RELOAD_ACTION_DRIVER_REINIT,
		     "mlx5 reports the driver reinit its fw_activate performs");
	dump = model_dump(ctx);
	cr_expect_str_eq(dump, "pci/0000:03:00.0/65535 ib ib - mlx5_0 0 0 0 0 0\n"
			       "pci/0000:03:00.1/131071 eth eth ens1f1np1 - 0 0 0 1 0\n");
	cr_expect_eq(pending_type(P0(ctx)), DLH_PORT_TYPE_NOTSET);
	cr_expect_eq(pending_type(P1(ctx)), DLH_PORT_TYPE_NOTSET);
	cr_expect(strstr(rec.log, "dev,del pci/0000:03:00.0\n") && strstr(rec.log, "dev,new pci/0000:03:00.1\n"), "%s",
		  rec.log);
	free(dump);
	/* nothing pending: the reset is done all the same (mlx5 does not ask), and changes nothing */
	dump = model_dump(ctx);
	cr_assert_eq(fw_activate(ctx, FN0, &done, &ext), 0, "%s", ext.msg);
	{
		char *again = model_dump(ctx);

		cr_expect_str_eq(again, dump);
		free(again);
	}
	free(dump);
	dlh_ctx_free(ctx);
	free(rec.log);
}

/* A power cycle of the emulator loads it too; driver_reinit and a live patch load nothing. */
Test(mlx5, only_a_reset_of_the_card_loads_it)
{
	struct dlh_ctx *ctx = ctx_with("cx6-vpi");
	struct dlh_extack ext;
	uint32_t done = 0;

	cr_assert_eq(dlh_port_type_set(P0(ctx), DLH_PORT_TYPE_IB, &ext), 0, "%s", ext.msg);
	cr_assert_eq(dlh_dev_reload(dlh_dev_find(ctx, FN0), DLH_RELOAD_ACTION_DRIVER_REINIT, DLH_RELOAD_LIMIT_UNSPEC,
				    &done, &ext),
		     0, "%s", ext.msg);
	cr_expect_eq(done, 1u << DLH_RELOAD_ACTION_DRIVER_REINIT);
	cr_expect_eq(dlh_port_type(P0(ctx)), DLH_PORT_TYPE_ETH);
	cr_expect_eq(pending_type(P0(ctx)), DLH_PORT_TYPE_IB, "still pending after the driver's reload");
	cr_assert_eq(dlh_dev_reload(dlh_dev_find(ctx, FN0), DLH_RELOAD_ACTION_FW_ACTIVATE, DLH_RELOAD_LIMIT_NO_RESET,
				    &done, &ext),
		     0, "%s", ext.msg);
	cr_expect_eq(dlh_port_type(P0(ctx)), DLH_PORT_TYPE_ETH, "a live patch loads no configuration");
	cr_assert_eq(dlh_dev_sim_reset(dlh_dev_find(ctx, FN1), &ext), 0, "%s", ext.msg);
	cr_expect_eq(dlh_port_type(P0(ctx)), DLH_PORT_TYPE_IB);
	cr_expect_str_eq(dlh_port_ibdev(P0(ctx)), "mlx5_0");
	cr_expect_null(dlh_port_netdev(P0(ctx)), "an IB port has no netdev");
	dlh_ctx_free(ctx);
}

/* Refusals in mlx5's and the card's words, with nothing stored. */
Test(mlx5, refusals)
{
	struct dlh_ctx *ctx = ctx_with("cx6-vpi");
	struct dlh_extack ext;
	struct dlh_plan plan;
	uint32_t done = 0;

	cr_expect_eq(dlh_port_type_set(P0(ctx), DLH_PORT_TYPE_AUTO, &ext), -EOPNOTSUPP);
	cr_expect_str_eq(ext.msg, "Unsupported port type");
	cr_expect_eq(dlh_port_type_set_plan(P0(ctx), DLH_PORT_TYPE_AUTO, &plan, &ext), -EOPNOTSUPP, "the plan too");
	cr_expect_eq(dlh_port_split(P0(ctx), 2, &ext), -EOPNOTSUPP);
	cr_assert_eq(dlh_dev_sim_set(dlh_dev_find(ctx, FN0), NULL, "lag", "1", &ext), 0, "%s", ext.msg);
	cr_expect_eq(fw_activate(ctx, FN0, &done, &ext), -EOPNOTSUPP);
	cr_expect_str_eq(ext.msg, "reload is unsupported in Lag mode");
	cr_expect_str_eq(state(ctx), "{\"current\":[\"eth\",\"ib\"],\"next\":[\"eth\",\"ib\"]}");
	dlh_ctx_free(ctx);
}

/* A card whose firmware has no level-3 reset, and one without LINK_TYPE_Pn. */
Test(mlx5, cards_that_cannot)
{
	char *path = profile_tmp(
	    "{\"driver\": \"mlx5\", \"handle\": \"pci/0000:07:00.0\", \"hw\": {\"device_type\": \"ConnectX5\", "
	    "\"psid\": \"MT_X\", \"fw\": \"16.35.1012\", \"reset_levels\": [4], \"ports\": [{\"netdev\": "
	    "\"ens7f0np0\", "
	    "\"ibdev\": \"mlx5_4\", \"link_type\": {\"default\": \"eth\", \"current\": \"eth\", \"next\": "
	    "\"eth\"}}]}}");
	char *eth = profile_tmp(
	    "{\"driver\": \"mlx5\", \"handle\": \"pci/0000:08:00.0\", \"hw\": {\"device_type\": \"ConnectX6DX\", "
	    "\"psid\": \"MT_Y\", \"fw\": \"22.35.1012\", \"vpi\": false, \"ports\": [{\"netdev\": \"ens8f0np0\", "
	    "\"ibdev\": \"mlx5_6\", \"link_type\": {\"default\": \"eth\", \"current\": \"eth\", \"next\": "
	    "\"eth\"}}]}}");
	struct dlh_ctx *ctx = ctx_with(path);
	struct dlh_port *p = NULL;
	struct dlh_extack ext;
	uint32_t done = 0;

	cr_assert_eq(dlh_port_lookup(ctx, "pci/0000:07:00.0/65535", &p, &ext), 0, "%s", ext.msg);
	cr_assert_eq(dlh_port_type_set(p, DLH_PORT_TYPE_IB, &ext), 0, "%s", ext.msg);
	cr_expect_eq(fw_activate(ctx, "pci/0000:07:00.0", &done, &ext), -EINVAL);
	cr_expect_str_eq(ext.msg, "FW activate requires reboot");
	cr_assert_eq(dlh_port_lookup(ctx, "pci/0000:07:00.0/65535", &p, &ext), 0, "refused: nothing was reset");
	cr_expect_eq(pending_type(p), DLH_PORT_TYPE_IB);
	dlh_ctx_free(ctx);
	ctx = ctx_with(eth);
	cr_assert_eq(dlh_port_lookup(ctx, "pci/0000:08:00.0/65535", &p, &ext), 0, "%s", ext.msg);
	cr_expect_eq(dlh_port_type_set(p, DLH_PORT_TYPE_IB, &ext), -EOPNOTSUPP);
	cr_expect_str_eq(ext.msg, "Card has no LINK_TYPE_P1: its ports run Ethernet only");
	cr_expect_eq(pending_type(p), DLH_PORT_TYPE_NOTSET);
	dlh_ctx_free(ctx);
	unlink(path);
	unlink(eth);
	free(path);
	free(eth);
}

/* Each firmware access of a set and of a reset failing in turn: refused, and the card as it was. */
Test(mlx5, every_access_failing_changes_nothing)
{
	for (unsigned int nth = 1;; nth++) {
		struct dlh_ctx *ctx = ctx_with("cx6-vpi");
		char n[16], *before = model_dump(ctx), *after;
		struct dlh_extack ext;
		int err;

		snprintf(n, sizeof(n), "%u", nth);
		cr_assert_eq(dlh_dev_sim_set(dlh_dev_find(ctx, FN0), NULL, "fail_nth", n, &ext), 0);
		err = dlh_port_type_set(P0(ctx), DLH_PORT_TYPE_IB, &ext);
		after = model_dump(ctx);
		if (!err) {
			cr_expect(nth > 6, "a set reads 6 values and writes one: %u", nth);
			free(before);
			free(after);
			dlh_ctx_free(ctx);
			break;
		}
		cr_expect_eq(err, -EIO);
		cr_expect_str_eq(after, before, "access %u", nth);
		cr_expect_eq(pending_type(P0(ctx)), DLH_PORT_TYPE_NOTSET, "access %u", nth);
		cr_expect_str_eq(state(ctx), "{\"current\":[\"eth\",\"ib\"],\"next\":[\"eth\",\"ib\"]}", "access %u",
				 nth);
		free(before);
		free(after);
		dlh_ctx_free(ctx);
	}
}

/* The dry run lists what the reset brings up; after the set and the reset, the model is that. */
Test(mlx5, the_reset_brings_up_exactly_the_plan)
{
	struct dlh_ctx *ctx = ctx_with("cx6-vpi");
	char planned[512] = "", *now;
	struct dlh_extack ext;
	struct dlh_plan plan;
	size_t len = 0;

	cr_assert_eq(dlh_port_type_set(P1(ctx), DLH_PORT_TYPE_ETH, &ext), 0, "%s", ext.msg);
	cr_assert_eq(dlh_port_type_set_plan(P0(ctx), DLH_PORT_TYPE_IB, &plan, &ext), 0, "%s", ext.msg);
	cr_expect(plan.staged);
	cr_expect_eq(plan.ngone + plan.ncome, 0, "nothing goes or comes now");
	cr_assert_eq(plan.nafter, 2);
	for (unsigned int i = 0; i < plan.nafter; i++)
		len += (size_t)snprintf(planned + len, sizeof(planned) - len, "%s/%u %s %s %s\n", plan.after[i].dev,
					plan.after[i].port.index, dlh_port_type_name(plan.after[i].port.type),
					plan.after[i].port.netdev[0] ? plan.after[i].port.netdev : "-",
					plan.after[i].port.ibdev[0] ? plan.after[i].port.ibdev : "-");
	cr_expect_str_eq(planned, "pci/0000:03:00.0/65535 ib - mlx5_0\npci/0000:03:00.1/131071 eth ens1f1np1 -\n");
	cr_expect_str_eq(state(ctx), "{\"current\":[\"eth\",\"ib\"],\"next\":[\"eth\",\"eth\"]}",
			 "planning stores nothing");
	cr_assert_eq(dlh_port_type_set(P0(ctx), DLH_PORT_TYPE_IB, &ext), 0, "%s", ext.msg);
	cr_assert_eq(fw_activate(ctx, FN0, NULL, &ext), 0, "%s", ext.msg);
	len = 0;
	now = calloc(1, 512);
	for (struct dlh_dev *d = dlh_dev_first(ctx); d; d = dlh_dev_next(d))
		for (struct dlh_port *p = dlh_port_first(d); p; p = dlh_port_next(p))
			len += (size_t)snprintf(now + len, 512 - len, "%s %s %s %s\n", dlh_port_handle(p),
						dlh_port_type_name(dlh_port_type(p)),
						dlh_port_netdev(p) ? dlh_port_netdev(p) : "-",
						dlh_port_ibdev(p) ? dlh_port_ibdev(p) : "-");
	cr_expect_str_eq(now, planned);
	free(now);
	dlh_ctx_free(ctx);
}

/* What dlhald --state keeps: the configuration's current and next values, a pending type with them. */
Test(mlx5, saved_state_brings_back_what_is_pending)
{
	struct dlh_ctx *ctx = ctx_with("");
	struct dlh_extack ext;

	cr_assert_eq(
	    dlh_ctx_sim_load_state(ctx, "cx6-vpi",
				   "{\"" FN0 "\": {\"current\": [\"ib\", \"ib\"], \"next\": [\"eth\", \"ib\"]}}", &ext),
	    0, "%s", ext.msg);
	cr_expect_eq(dlh_port_type(P0(ctx)), DLH_PORT_TYPE_IB);
	cr_expect_eq(pending_type(P0(ctx)), DLH_PORT_TYPE_ETH, "Next Boot differs from Current");
	cr_expect_eq(dlh_port_desired_type(P0(ctx)), DLH_PORT_TYPE_ETH);
	dlh_ctx_free(ctx);
	ctx = ctx_with("");
	cr_expect_eq(
	    dlh_ctx_sim_load_state(ctx, "cx6-vpi", "{\"" FN0 "\": {\"current\": [\"ib\"], \"next\": []}}", &ext),
	    -EINVAL);
	cr_expect(strstr(ext.msg, "field \"hw.state.current\": expected a type per port"), "%s", ext.msg);
	dlh_ctx_free(ctx);
}

/* Malformed profiles refused, naming the field. */
Test(mlx5, malformed_profiles_name_the_field)
{
	static const struct {
		const char *hw, *msg;
	} cases[] = {
	    {"\"ports\": []", "field \"hw.ports\": expected 1 or 2 ports"},
	    {"\"ports\": [{\"netdev\": \"a/b\", \"ibdev\": \"m\", \"link_type\": {}}]",
	     "field \"hw.ports[0].netdev\": expected a netdev name"},
	    {"\"ports\": [{\"netdev\": \"e0\", \"ibdev\": \"m\", \"link_type\": {\"default\": \"vpi\", \"current\": "
	     "\"eth\", \"next\": \"eth\"}}]",
	     "field \"hw.ports[0].link_type.default\": expected \"eth\" or \"ib\""},
	    {"\"reset_levels\": [9], \"ports\": []", "field \"hw.reset_levels[0]\""},
	    {"\"speed\": \"fast\", \"ports\": []", "field \"hw.speed\""},
	    {"\"colour\": 1, \"ports\": []", "field \"hw.colour\": unknown"},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char json[768];
		struct dlh_ctx *ctx = ctx_with("");
		struct dlh_extack ext;
		char *path;

		snprintf(json, sizeof(json),
			 "{\"driver\": \"mlx5\", \"handle\": \"pci/0000:07:00.0\", \"hw\": {\"device_type\": \"C\", "
			 "\"psid\": \"P\", \"fw\": \"1.2.3\", %s}}",
			 cases[i].hw);
		path = profile_tmp(json);
		cr_expect_eq(dlh_ctx_sim_load(ctx, path, &ext), -EINVAL, "%s", cases[i].hw);
		cr_expect(strstr(ext.msg, cases[i].msg), "%s: %s", cases[i].hw, ext.msg);
		cr_expect_null(dlh_dev_first(ctx), "nothing left behind");
		dlh_ctx_free(ctx);
		unlink(path);
		free(path);
	}
}

/* ---- mstflint's programs: the table read as hostile input, the runner's bounds, the stand-ins ---- */

#include "mstflint.h"

#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>

#define HEAD                                                                                                \
	"\nDevice #1:\n----------\n\nDevice type:    ConnectX6       \nName:           MCX653106A-HDA_Ax\n" \
	"Description:    ConnectX-6 VPI adapter card\nDevice:         0000:03:00.0    \n\n"
#define COLS3 "Configurations:                              Default         Current         Next Boot\n"

static int parse(const char *text, struct mlx5_nv *nv, struct dlh_extack *ext)
{
	return mlx5_nv_parse(text, strlen(text), nv, ext);
}

Test(mstflint, a_query_table_is_read_by_its_heading)
{
	struct mlx5_nv nv;
	struct dlh_extack ext;

	cr_assert_eq(parse(HEAD COLS3
			   "*        LINK_TYPE_P1                        IB(1)           ETH(2)          "
			   "IB(1)           \n"
			   "         SRIOV_EN                            False(0)        False(0)        "
			   "False(0)        \n"
			   "         LINK_TYPE_P2                        IB(1)           IB(1)           "
			   "IB(1)           \n"
			   "The '*' shows parameters with next value different from default/current value.\n",
			   &nv, &ext),
		     0, "%s", ext.msg);
	cr_expect_eq(nv.nports, 2);
	cr_expect_str_eq(nv.device_type, "ConnectX6");
	cr_expect(nv.has_default && nv.has_current);
	cr_expect_eq(nv.link_type[MLX5_NV_CURRENT][0], MLX5_LINK_TYPE_ETH);
	cr_expect_eq(nv.link_type[MLX5_NV_NEXT][0], MLX5_LINK_TYPE_IB, "pending: Next Boot differs from Current");
	/* firmware that cannot read the current values: the heading has no Current column */
	cr_assert_eq(parse(HEAD "Configurations:                              Default           Next Boot\n"
				"         LINK_TYPE_P1                        2               1               \n"
				"Device Firmware does not support reading current configurations\n",
			   &nv, &ext),
		     0, "%s", ext.msg);
	cr_expect(nv.has_default && !nv.has_current);
	cr_expect_eq(nv.link_type[MLX5_NV_NEXT][0], MLX5_LINK_TYPE_IB, "a bare number is a value too");
	/* an Ethernet-only card: a table without LINK_TYPE */
	cr_assert_eq(parse(HEAD COLS3 "         SRIOV_EN                            False(0)        False(0)        "
				      "False(0)        \n",
			   &nv, &ext),
		     0);
	cr_expect_eq(nv.nports, 0);
}

Test(mstflint, what_is_not_its_table_is_refused_naming_the_line)
{
	static const struct {
		const char *text, *msg;
	} cases[] = {
	    {"", "mstconfig: no configuration table in its output"},
	    {"-E- Failed to open the device\n", "mstconfig: no configuration table in its output"},
	    {HEAD "Configurations:      Default    Current\n", "mstconfig: line 10: no Next Boot column"},
	    {HEAD COLS3 "         LINK_TYPE_P1    IB(1)   ETH(2)\n",
	     "mstconfig: line 11: LINK_TYPE_P1: expected 3 values, each IB(1) or ETH(2)"},
	    {HEAD COLS3 "         LINK_TYPE_P1    IB(1)   ETH(2)  VPI(3)\n",
	     "mstconfig: line 11: LINK_TYPE_P1: expected 3 values, each IB(1) or ETH(2)"},
	    {HEAD COLS3 "         LINK_TYPE_P1    IB(1)   ETH(2)  IB(1)  IB(1)\n",
	     "mstconfig: line 11: LINK_TYPE_P1: more than 3 values"},
	    {HEAD COLS3 "         LINK_TYPE_P2    IB(1)   ETH(2)  IB(1)\n",
	     "mstconfig: line 11: LINK_TYPE_P2 out of order"},
	    {HEAD COLS3 "         LINK_TYPE_P9    IB(1)   ETH(2)  IB(1)\n",
	     "mstconfig: line 11: LINK_TYPE_P9 is no port of a card of 2"},
	    {HEAD COLS3 "         LINK_TYPE_P1    IB(1)   ETH(2)  IB(1)\n"
			"         LINK_TYPE_P1    IB(1)   ETH(2)  IB(1)\n",
	     "mstconfig: line 12: LINK_TYPE_P1 out of order"},
	    /* found by fuzz_mstconfig: a second heading would give the first table's ports its columns */
	    {HEAD "Configurations:                              Default           Next Boot\n"
		  "         LINK_TYPE_P1                        2               1               \n"
		  "\n" COLS3 "         LINK_TYPE_P2    IB(1)   ETH(2)  IB(1)\n",
	     "mstconfig: line 13: a second configuration table"},
	};
	struct mlx5_nv nv;
	struct dlh_extack ext;
	char *long_line = malloc(8192);

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		cr_expect_eq(parse(cases[i].text, &nv, &ext), -EPROTO, "case %zu", i);
		cr_expect_str_eq(ext.msg, cases[i].msg, "case %zu", i);
	}
	cr_expect_eq(mlx5_nv_parse("Configurations: Next Boot\n\0x", 28, &nv, &ext), -EPROTO);
	cr_expect_str_eq(ext.msg, "mstconfig: a NUL in its output");
	memset(long_line, 'x', 8191);
	long_line[8191] = '\0';
	cr_expect_eq(parse(long_line, &nv, &ext), -EPROTO);
	cr_expect_str_eq(ext.msg, "mstconfig: line 1 is over 4096 bytes");
	free(long_line);
}

/* The runner: no program, one that overstays, one that writes too much, one killed, exit codes. */
Test(mstflint, programs_run_bounded)
{
	char out[256];
	size_t len;
	int status = -1;
	struct dlh_extack ext;

	cr_expect_eq(mlx5_mst_run((const char *const[]){"mstconfig-not-here", NULL}, out, sizeof(out), &len, &status,
				  1000, &ext),
		     -ENOENT);
	cr_expect_str_eq(ext.msg, "mstconfig-not-here not found: install Debian's mstflint package");
	cr_expect_eq(
	    mlx5_mst_run((const char *const[]){"sleep", "10", NULL}, out, sizeof(out), &len, &status, 200, &ext),
	    -ETIMEDOUT);
	cr_expect_str_eq(ext.msg, "sleep took more than 200 ms: killed");
	cr_expect_eq(mlx5_mst_run((const char *const[]){"yes", NULL}, out, sizeof(out), &len, &status, 5000, &ext),
		     -EMSGSIZE);
	cr_expect_eq(len, sizeof(out) - 1);
	cr_expect_eq(mlx5_mst_run((const char *const[]){"sh", "-c", "kill -9 $$", NULL}, out, sizeof(out), &len,
				  &status, 5000, &ext),
		     -EIO);
	cr_expect_str_eq(ext.msg, "sh was killed by signal 9");
	cr_assert_eq(mlx5_mst_run((const char *const[]){"sh", "-c", "echo out; echo err >&2; exit 3", NULL}, out,
				  sizeof(out), &len, &status, 5000, &ext),
		     0, "%s", ext.msg);
	cr_expect_eq(status, 3);
	cr_expect_str_eq(out, "out\nerr\n", "stdout and stderr, as a terminal shows them");
	/* no shell: a parameter is one argument, whatever it holds */
	cr_assert_eq(
	    mlx5_mst_run((const char *const[]){"echo", "$(id); x", NULL}, out, sizeof(out), &len, &status, 5000, &ext),
	    0);
	cr_expect_str_eq(out, "$(id); x\n");
}

static pid_t standin_daemon(const char *sock)
{
	const char *dlhald = getenv("DLHALD");
	pid_t pid;

	cr_assert_not_null(dlhald, "DLHALD must name dlhald");
	unlink(sock);
	pid = fork();
	if (!pid) {
		int fd = open("/dev/null", O_WRONLY);

		dup2(fd, 2);
		execl(dlhald, dlhald, "-f", "-s", sock, "--sim", "cx6-vpi", (char *)NULL);
		_exit(127);
	}
	for (int i = 0; i < 3000; i++) { /* under valgrind it takes seconds */
		struct stat st;

		if (!stat(sock, &st))
			return pid;
		usleep(10000);
	}
	cr_assert_fail("dlhald did not listen on %s", sock);
	return pid;
}

static void standin_env(const char *sock)
{
	char path[4096];

	snprintf(path, sizeof(path), "%s/tests/stand-ins:%s", getenv("SRCDIR"), getenv("PATH"));
	setenv("PATH", path, 1);
	setenv("DLHAL_STANDIN_SOCKET", sock, 1);
	setenv("DLHAL_STANDIN_DL", getenv("DL"), 1);
}

/* The stand-ins speak mstconfig to the emulated card: a query, a set read back, refusals by exit code. */
Test(mstflint, the_stand_ins_reach_the_emulated_card)
{
	char sock[64];
	struct mlx5_nv nv;
	struct dlh_extack ext;
	pid_t pid;
	int st;

	snprintf(sock, sizeof(sock), "/tmp/dlhal-standin-%d.sock", (int)getpid());
	standin_env(sock);
	pid = standin_daemon(sock);
	cr_assert_eq(mlx5_mst_query("0000:03:00.1", &nv, &ext), 0, "%s", ext.msg);
	cr_expect_eq(nv.nports, 2);
	cr_expect_eq(nv.link_type[MLX5_NV_CURRENT][0], MLX5_LINK_TYPE_ETH);
	cr_expect_eq(nv.link_type[MLX5_NV_DEFAULT][0], MLX5_LINK_TYPE_IB);
	cr_assert_eq(mlx5_mst_set("0000:03:00.0", 0, MLX5_LINK_TYPE_IB, &ext), 0, "%s", ext.msg);
	cr_assert_eq(mlx5_mst_query("0000:03:00.0", &nv, &ext), 0, "%s", ext.msg);
	cr_expect_eq(nv.link_type[MLX5_NV_CURRENT][0], MLX5_LINK_TYPE_ETH, "runs eth until the reset");
	cr_expect_eq(nv.link_type[MLX5_NV_NEXT][0], MLX5_LINK_TYPE_IB, "stored for the next boot");
	cr_expect_eq(mlx5_mst_query("0000:09:00.0", &nv, &ext), -EIO);
	cr_expect_str_eq(ext.msg, "mstconfig -d 0000:09:00.0 failed (exit 3): Failed to open the device");
	cr_expect_eq(mlx5_mst_query("0000:03:00.0; reboot", &nv, &ext), -EINVAL);
	cr_expect_str_eq(ext.msg, "Not a PCI address: expected DDDD:BB:SS.F");
	kill(pid, SIGTERM);
	waitpid(pid, &st, 0);
	unlink(sock);
	/* no card behind the stand-in: mstconfig's own words */
	cr_expect_eq(mlx5_mst_query("0000:03:00.0", &nv, &ext), -EIO);
	cr_expect_str_eq(ext.msg, "mstconfig -d 0000:03:00.0 failed (exit 3): Failed to open the device");
}
