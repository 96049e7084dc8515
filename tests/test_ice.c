/* SPDX-License-Identifier: MIT */
/*
 * drivers/ice over the emulated E810 (profile e810-cqda2), and core's staged
 * ops and resets: Linux 6.1's rules and messages (ice_devlink.c, devlink's
 * reload), option cycling, every firmware command failing in turn, and what a
 * reset brings up.
 */
#include "helpers.h"

#include <criterion/criterion.h>
#include <dlhal/sdk.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define PF0 "pci/0000:16:00.0"
#define PF1 "pci/0000:16:00.1"
#define MSG "Reboot required to finish port split"

static struct dlh_port *port0(struct dlh_ctx *ctx)
{
	struct dlh_port *p = NULL;

	cr_assert_eq(dlh_port_lookup(ctx, PF0 "/0", &p, NULL), 0);
	return p;
}

static const char *state(struct dlh_ctx *ctx)
{
	static char buf[128];

	cr_assert_eq(dlh_dev_sim_get(dlh_dev_find(ctx, PF0), NULL, "state", buf, sizeof(buf), NULL), 0);
	return buf;
}

static unsigned int pending_split(struct dlh_ctx *ctx)
{
	struct dlh_pending p;

	return dlh_dev_pending(dlh_dev_find(ctx, PF0), &p) ? p.split : 0;
}

Test(ice, boots_as_ice_registers_its_pfs)
{
	struct dlh_ctx *ctx = ctx_with("e810-cqda2");
	char *dump = model_dump(ctx);
	struct dlh_port *p1 = NULL;

	cr_expect_str_eq(dlh_dev_driver(dlh_dev_find(ctx, PF0)), "ice");
	cr_expect_not_null(dlh_dev_find(ctx, PF1));
	cr_expect_null(dlh_dev_find(ctx, "pci/0000:16:00.2"));
	/* Only PF 0's port is splittable; its lanes are the largest count of the table. */
	cr_expect(dlh_port_splittable(port0(ctx)));
	cr_expect_eq(dlh_port_lanes(port0(ctx)), 8);
	cr_expect_eq(dlh_port_number(port0(ctx)), 0);
	cr_assert_eq(dlh_port_lookup(ctx, PF1 "/0", &p1, NULL), 0);
	cr_expect_not(dlh_port_splittable(p1));
	cr_expect_eq(dlh_port_number(p1), 1, "port number = PCI function");
	cr_expect_str_eq(dlh_port_netdev(p1), "ens16f1");
	cr_expect_not(dlh_dev_pending(dlh_dev_find(ctx, PF0), NULL));
	cr_expect_str_eq(state(ctx), "{\"active\":0}");
	free(dump);
	dlh_ctx_free(ctx);
}

Test(ice, split_is_stored_for_the_next_reset_and_changes_no_port)
{
	struct dlh_ctx *ctx = ctx_with("e810-cqda2");
	char *before = model_dump(ctx), *after;
	struct recorder rec;
	struct dlh_extack ext;
	struct dlh_pending p;

	recorder_attach(&rec, ctx);
	cr_assert_eq(dlh_port_split(port0(ctx), 4, &ext), 0, "%s", ext.msg);
	cr_expect_str_eq(ext.msg, MSG, "the driver's message comes back with the success");
	cr_expect_str_eq(ext.obj, PF0 "/0");
	after = model_dump(ctx);
	cr_expect_str_eq(after, before, "no port changes before the reset");
	cr_expect_str_eq(rec.log, "dev,new " PF0 "\n", "one event: the device has something pending");
	cr_assert(dlh_dev_pending(dlh_dev_find(ctx, PF0), &p));
	cr_expect_eq(p.split, 4);
	cr_expect_str_eq(p.message, MSG);
	cr_expect_str_eq(state(ctx), "{\"active\":0,\"pending\":2}");
	free(before);
	free(after);
	dlh_ctx_free(ctx);
	free(rec.log);
}

/* The next option with that count after the active (or pending) one, wrapping around. */
Test(ice, the_same_count_again_cycles_through_its_options)
{
	struct dlh_ctx *ctx = ctx_with("e810-cqda2");
	static const char *const four[] = {"{\"active\":0,\"pending\":2}", "{\"active\":0,\"pending\":3}",
					   "{\"active\":0,\"pending\":2}"};
	struct dlh_extack ext;

	for (size_t i = 0; i < 3; i++) {
		cr_assert_eq(dlh_port_split(port0(ctx), 4, &ext), 0, "%s", ext.msg);
		cr_expect_str_eq(state(ctx), four[i], "split 4, time %zu", i + 1);
	}
	/* Count 2 from the pending option 2: option 0, the active one, becomes pending again. */
	cr_assert_eq(dlh_port_split(port0(ctx), 2, &ext), 0, "%s", ext.msg);
	cr_expect_str_eq(state(ctx), "{\"active\":0,\"pending\":0}");
	cr_assert_eq(dlh_port_split(port0(ctx), 2, &ext), 0, "%s", ext.msg);
	cr_expect_str_eq(state(ctx), "{\"active\":0,\"pending\":1}");
	dlh_ctx_free(ctx);
}

Test(ice, refusals_in_ice_and_devlink_words)
{
	struct dlh_ctx *ctx = ctx_with("e810-cqda2");
	struct dlh_port *p1 = NULL;
	struct dlh_extack ext;

	/* The only option of 8 ports, asked for twice. */
	cr_assert_eq(dlh_port_split(port0(ctx), 8, &ext), 0, "%s", ext.msg);
	cr_expect_eq(dlh_port_split(port0(ctx), 8, &ext), -EINVAL);
	cr_expect_str_eq(ext.msg, "Requested split count is already set");
	cr_expect_str_eq(state(ctx), "{\"active\":0,\"pending\":4}", "nothing else chosen");
	/* devlink's core, before the driver. */
	cr_expect_eq(dlh_port_split(port0(ctx), 3, &ext), -EINVAL);
	cr_expect_str_eq(ext.msg, "Invalid split count");
	cr_expect_eq(dlh_port_split(port0(ctx), 16, &ext), -EINVAL);
	cr_expect_str_eq(ext.msg, "Invalid split count");
	cr_assert_eq(dlh_port_lookup(ctx, PF1 "/0", &p1, NULL), 0);
	cr_expect_eq(dlh_port_split(p1, 2, &ext), -EINVAL);
	cr_expect_str_eq(ext.msg, "Port cannot be split");
	cr_expect_eq(pending_split(ctx), 8);
	/* Unsplit is a split by 1: the table's last option. */
	cr_assert_eq(dlh_port_unsplit(port0(ctx), &ext), 0, "%s", ext.msg);
	cr_expect_str_eq(ext.msg, MSG);
	cr_expect_eq(pending_split(ctx), 1);
	cr_expect_str_eq(state(ctx), "{\"active\":0,\"pending\":5}");
	dlh_ctx_free(ctx);
}

Test(ice, a_count_no_option_has)
{
	char *path = profile_tmp("{\"driver\": \"ice\", \"handle\": \"pci/0000:16:00.0\", \"hw\": {"
				 "\"netdev_prefix\": \"ens16f\", \"options\": ["
				 "{\"split\": 2, \"lanes\": [100, 0, 0, 0, 100, 0, 0, 0]},"
				 "{\"split\": 4, \"lanes\": [25, 25, 25, 25, 0, 0, 0, 0]}]}}");
	struct dlh_ctx *ctx = ctx_with(path);
	struct dlh_extack ext;

	cr_expect_eq(dlh_port_lanes(port0(ctx)), 4);
	cr_expect_eq(dlh_port_split(port0(ctx), 2, &ext), -EINVAL, "the active option is the only one of 2");
	cr_expect_str_eq(ext.msg, "Requested split count is already set");
	cr_expect_eq(dlh_port_unsplit(port0(ctx), &ext), -EINVAL, "no option of one port");
	cr_expect_str_eq(ext.msg, "Port split requested unsupported port config");
	cr_expect_not(dlh_dev_pending(dlh_dev_find(ctx, PF0), NULL));
	unlink(path);
	free(path);
	dlh_ctx_free(ctx);
}

/* Every admin queue command of a split failing in turn: ice's message, -EIO, nothing stored. */
Test(ice, each_firmware_command_failing_leaves_nothing_pending)
{
	static const char *const msgs[] = {"Failed to get available port split options", "Port split request failed",
					   "Failed to acquire NVM semaphore", "Port split request failed to save data"};
	struct dlh_ctx *ctx = ctx_with("e810-cqda2");
	char *before = model_dump(ctx), *after;
	struct dlh_extack ext;
	char n[8];

	for (size_t i = 0; i < 4; i++) {
		snprintf(n, sizeof(n), "%zu", i + 1);
		cr_assert_eq(dlh_dev_sim_set(dlh_dev_find(ctx, PF0), NULL, "fail_nth", n, &ext), 0);
		cr_expect_eq(dlh_port_split(port0(ctx), 4, &ext), -EIO, "command %zu", i + 1);
		cr_expect_str_eq(ext.msg, msgs[i]);
		cr_expect_str_eq(state(ctx), "{\"active\":0}", "command %zu: nothing pending", i + 1);
		cr_expect_not(dlh_dev_pending(dlh_dev_find(ctx, PF0), NULL));
	}
	/* Another owner holds the NVM. */
	cr_assert_eq(dlh_dev_sim_set(dlh_dev_find(ctx, PF0), NULL, "nvm_busy", "1", &ext), 0);
	cr_expect_eq(dlh_port_split(port0(ctx), 4, &ext), -EIO);
	cr_expect_str_eq(ext.msg, "Failed to acquire NVM semaphore");
	cr_assert_eq(dlh_dev_sim_set(dlh_dev_find(ctx, PF0), NULL, "nvm_busy", "0", &ext), 0);
	after = model_dump(ctx);
	cr_expect_str_eq(after, before);
	/* And the next try, with nothing failing, is as the first would have been. */
	cr_expect_eq(dlh_port_split(port0(ctx), 4, &ext), 0, "%s", ext.msg);
	cr_expect_str_eq(state(ctx), "{\"active\":0,\"pending\":2}");
	free(before);
	free(after);
	dlh_ctx_free(ctx);
}

Test(ice, reload_checks_in_devlink_words)
{
	struct dlh_ctx *ctx = ctx_with("e810-cqda2");
	struct dlh_extack ext;
	uint32_t done = 7;

	cr_expect_eq(dlh_dev_reload(dlh_dev_find(ctx, PF0), DLH_RELOAD_ACTION_DRIVER_REINIT, DLH_RELOAD_LIMIT_UNSPEC,
				    &done, &ext),
		     -EOPNOTSUPP);
	cr_expect_str_eq(ext.msg, "Requested reload action is not supported by the driver");
	cr_expect_eq(done, 0);
	cr_expect_eq(dlh_dev_reload(dlh_dev_find(ctx, PF0), DLH_RELOAD_ACTION_FW_ACTIVATE, DLH_RELOAD_LIMIT_NO_RESET,
				    &done, &ext),
		     -EOPNOTSUPP);
	cr_expect_str_eq(ext.msg, "Requested limit is not supported by the driver");
	cr_expect_eq(
	    dlh_dev_reload(dlh_dev_find(ctx, PF0), (enum dlh_reload_action)9, DLH_RELOAD_LIMIT_UNSPEC, &done, &ext),
	    -EINVAL);
	cr_expect_eq(
	    dlh_dev_reload(dlh_dev_find(ctx, PF0), DLH_RELOAD_ACTION_FW_ACTIVATE, DLH_RELOAD_LIMIT_UNSPEC, &done, &ext),
	    -ECANCELED);
	cr_expect_str_eq(ext.msg, "No pending firmware update");
	cr_expect_not_null(dlh_dev_find(ctx, PF1), "nothing was reset");
	dlh_ctx_free(ctx);
	/* mlxsw has no reload at all. */
	ctx = ctx_with("sn2700");
	cr_expect_eq(
	    dlh_dev_reload(dlh_dev_first(ctx), DLH_RELOAD_ACTION_FW_ACTIVATE, DLH_RELOAD_LIMIT_UNSPEC, NULL, &ext),
	    -EOPNOTSUPP);
	cr_expect_str_eq(ext.msg, "Reload is not supported");
	cr_expect_eq(dlh_dev_sim_reset(dlh_dev_first(ctx), &ext), -EOPNOTSUPP);
	dlh_ctx_free(ctx);
}

/* The reset brings the card up with the pending option: PFs go and come, nothing stays pending. */
Test(ice, fw_activate_brings_up_the_pending_option)
{
	struct dlh_ctx *ctx = ctx_with("e810-cqda2");
	struct recorder rec;
	struct dlh_extack ext;
	char *dump;
	uint32_t done = 0;

	cr_assert_eq(dlh_port_split(port0(ctx), 4, &ext), 0, "%s", ext.msg);
	recorder_attach(&rec, ctx);
	/* Asked of PF 1, which the reset removes like the others. */
	cr_assert_eq(
	    dlh_dev_reload(dlh_dev_find(ctx, PF1), DLH_RELOAD_ACTION_FW_ACTIVATE, DLH_RELOAD_LIMIT_UNSPEC, &done, &ext),
	    0, "%s", ext.msg);
	cr_expect_eq(done, 1u << DLH_RELOAD_ACTION_FW_ACTIVATE);
	dump = model_dump(ctx);
	/* 25G on quad 0's four lanes: each PF on module 0, lane by lane */
	cr_expect_str_eq(dump, "pci/0000:16:00.0/0 eth notset ens16f0 - 0 0 8 0 0\n"
			       "pci/0000:16:00.1/0 eth notset ens16f1 - 0 0 0 0 1\n"
			       "pci/0000:16:00.2/0 eth notset ens16f2 - 0 0 0 0 2\n"
			       "pci/0000:16:00.3/0 eth notset ens16f3 - 0 0 0 0 3\n");
	cr_expect_str_eq(rec.log, "port,del pci/0000:16:00.1/0 ens16f1\n"
				  "dev,del pci/0000:16:00.1\n"
				  "port,del pci/0000:16:00.0/0 ens16f0\n"
				  "dev,del pci/0000:16:00.0\n"
				  "dev,new pci/0000:16:00.0\n"
				  "port,new pci/0000:16:00.0/0 notset\n"
				  "port,new pci/0000:16:00.0/0 ens16f0\n"
				  "dev,new pci/0000:16:00.1\n"
				  "port,new pci/0000:16:00.1/0 notset\n"
				  "port,new pci/0000:16:00.1/0 ens16f1\n"
				  "dev,new pci/0000:16:00.2\n"
				  "port,new pci/0000:16:00.2/0 notset\n"
				  "port,new pci/0000:16:00.2/0 ens16f2\n"
				  "dev,new pci/0000:16:00.3\n"
				  "port,new pci/0000:16:00.3/0 notset\n"
				  "port,new pci/0000:16:00.3/0 ens16f3\n");
	cr_expect_not(dlh_dev_pending(dlh_dev_find(ctx, PF0), NULL), "nothing pending after the reset");
	cr_expect_str_eq(state(ctx), "{\"active\":2}");
	cr_expect_eq(dlh_port_speed(port0(ctx)), 25000);
	free(dump);
	dlh_ctx_free(ctx);
	free(rec.log);
}

Test(ice, a_failed_emp_reset_changes_nothing)
{
	struct dlh_ctx *ctx = ctx_with("e810-cqda2");
	struct dlh_extack ext;
	char *before;

	cr_assert_eq(dlh_port_split(port0(ctx), 8, &ext), 0, "%s", ext.msg);
	before = model_dump(ctx);
	/* The reload's second command is the EMP reset. */
	cr_assert_eq(dlh_dev_sim_set(dlh_dev_find(ctx, PF0), NULL, "fail_nth", "2", &ext), 0);
	cr_expect_eq(
	    dlh_dev_reload(dlh_dev_find(ctx, PF0), DLH_RELOAD_ACTION_FW_ACTIVATE, DLH_RELOAD_LIMIT_UNSPEC, NULL, &ext),
	    -EIO);
	cr_expect_str_eq(ext.msg, "Failed to trigger EMP device reset to reload firmware");
	{
		char *after = model_dump(ctx);

		cr_expect_str_eq(after, before);
		free(after);
	}
	cr_expect_eq(pending_split(ctx), 8);
	cr_expect_str_eq(state(ctx), "{\"active\":0,\"pending\":4}");
	free(before);
	dlh_ctx_free(ctx);
}

/* A card whose firmware cannot reset itself: only a power cycle applies the option. */
Test(ice, without_emp_reset_a_power_cycle_applies_it)
{
	char *path = profile_tmp("{\"driver\": \"ice\", \"handle\": \"pci/0000:16:00.0\", \"hw\": {"
				 "\"netdev_prefix\": \"ens16f\", \"emp_reset\": false, \"options\": ["
				 "{\"split\": 2, \"lanes\": [100, 0, 0, 0, 100, 0, 0, 0]},"
				 "{\"split\": 1, \"lanes\": [100, 0, 0, 0, 0, 0, 0, 0]}]}}");
	struct dlh_ctx *ctx = ctx_with(path);
	struct dlh_extack ext;

	cr_assert_eq(dlh_port_unsplit(port0(ctx), &ext), 0, "%s", ext.msg);
	cr_expect_eq(
	    dlh_dev_reload(dlh_dev_find(ctx, PF0), DLH_RELOAD_ACTION_FW_ACTIVATE, DLH_RELOAD_LIMIT_UNSPEC, NULL, &ext),
	    -ECANCELED);
	cr_expect_str_eq(ext.msg,
			 "EMP reset is not available. To activate firmware, a reboot or power cycle is needed");
	cr_expect_not_null(dlh_dev_find(ctx, PF1));
	cr_assert_eq(dlh_dev_sim_reset(dlh_dev_find(ctx, PF1), &ext), 0, "%s", ext.msg);
	cr_expect_null(dlh_dev_find(ctx, PF1), "one port, one PF");
	cr_expect_eq(dlh_dev_port_count(dlh_dev_find(ctx, PF0)), 1);
	cr_expect_not(dlh_dev_pending(dlh_dev_find(ctx, PF0), NULL));
	unlink(path);
	free(path);
	dlh_ctx_free(ctx);
}

Test(ice, firmware_options_with_active_and_pending)
{
	struct dlh_ctx *ctx = ctx_with("e810-cqda2");
	struct dlh_fw_option o[16];
	struct dlh_extack ext;
	size_t n = 0;

	cr_assert_eq(dlh_port_split(port0(ctx), 4, &ext), 0, "%s", ext.msg);
	cr_assert_eq(dlh_dev_fw_options(dlh_dev_find(ctx, PF1), o, 16, &n, &ext), 0, "%s", ext.msg);
	cr_assert_eq(n, 6);
	cr_expect(o[0].active && !o[0].pending && o[0].split == 2 && o[0].speed[4] == 100000);
	cr_expect(o[2].pending && !o[2].active && o[2].split == 4 && o[2].speed[3] == 25000 && o[2].speed[4] == 0);
	cr_expect_eq(o[5].split, 1);
	/* Fewer places than options: the count still says how many there are. */
	cr_assert_eq(dlh_dev_fw_options(dlh_dev_find(ctx, PF1), o, 2, &n, &ext), 0);
	cr_expect_eq(n, 6);
	dlh_ctx_free(ctx);
	ctx = ctx_with("sn2700");
	cr_expect_eq(dlh_dev_fw_options(dlh_dev_first(ctx), o, 16, &n, &ext), -EOPNOTSUPP);
	dlh_ctx_free(ctx);
}

Test(ice, bad_profiles_are_refused_by_field)
{
	static const char *const cases[][2] = {
	    {"{\"driver\": \"ice\", \"handle\": \"pci/0000:16:00.1\", \"hw\": {\"netdev_prefix\": \"e\", \"options\": "
	     "[{\"split\": 1, \"lanes\": [100, 0, 0, 0, 0, 0, 0, 0]}]}}",
	     "handle: expected PF 0's"},
	    {"{\"driver\": \"ice\", \"handle\": \"pci/0000:16:00.0\", \"hw\": {\"options\": []}}", "netdev_prefix"},
	    {"{\"driver\": \"ice\", \"handle\": \"pci/0000:16:00.0\", \"hw\": {\"netdev_prefix\": \"e\", \"options\": "
	     "[]}}",
	     "options: expected 1 to 16 options"},
	    {"{\"driver\": \"ice\", \"handle\": \"pci/0000:16:00.0\", \"hw\": {\"netdev_prefix\": \"e\", \"options\": "
	     "[{\"split\": 9, \"lanes\": [100, 0, 0, 0, 0, 0, 0, 0]}]}}",
	     "options[0]: expected"},
	    /* a PF per lane in use: two ports over one lane is no option a firmware offers */
	    {"{\"driver\": \"ice\", \"handle\": \"pci/0000:16:00.0\", \"hw\": {\"netdev_prefix\": \"e\", \"options\": "
	     "[{\"split\": 2, \"lanes\": [100, 0, 0, 0, 0, 0, 0, 0]}]}}",
	     "options[0]: split 2, but not as many lanes in use (a port per lane)"},
	    {"{\"driver\": \"ice\", \"handle\": \"pci/0000:16:00.0\", \"hw\": {\"netdev_prefix\": \"e\", \"dsn\": "
	     "\"6cb311ffff4d9a10\", \"options\": [{\"split\": 1, \"lanes\": [100, 0, 0, 0, 0, 0, 0, 0]}]}}",
	     "dsn: expected the PCI Device Serial Number, \"0x\" and 16 hex digits"},
	    {"{\"driver\": \"ice\", \"handle\": \"pci/0000:16:00.0\", \"hw\": {\"netdev_prefix\": \"e\", \"dsn\": "
	     "\"0x6cb311ffff4d9a1g\", \"options\": [{\"split\": 1, \"lanes\": [100, 0, 0, 0, 0, 0, 0, 0]}]}}",
	     "dsn: expected"},
	    {"{\"driver\": \"ice\", \"handle\": \"pci/0000:16:00.0\", \"hw\": {\"netdev_prefix\": \"e\", \"pba\": "
	     "\"K65390 000\", \"options\": [{\"split\": 1, \"lanes\": [100, 0, 0, 0, 0, 0, 0, 0]}]}}",
	     "pba: expected the Product Board Assembly string, up to 31 characters, no blank"},
	    {"{\"driver\": \"ice\", \"handle\": \"pci/0000:16:00.0\", \"hw\": {\"netdev_prefix\": \"e\", \"pba\": 7, "
	     "\"options\": [{\"split\": 1, \"lanes\": [100, 0, 0, 0, 0, 0, 0, 0]}]}}",
	     "pba: expected"},
	    {"{\"driver\": \"ice\", \"handle\": \"pci/0000:16:00.0\", \"hw\": {\"netdev_prefix\": \"e\", \"active\": "
	     "1, "
	     "\"options\": [{\"split\": 1, \"lanes\": [100, 0, 0, 0, 0, 0, 0, 0]}]}}",
	     "active: expected an option index below 1"},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *path = profile_tmp(cases[i][0]);
		struct dlh_extack ext;
		struct dlh_ctx *ctx;

		cr_assert_eq(dlh_ctx_new(&ctx, &ext), 0);
		cr_assert_eq(dlh_ctx_module_load(ctx, getenv("MODULE_ICE"), &ext), 0, "%s", ext.msg);
		cr_expect_eq(dlh_ctx_sim_load(ctx, path, &ext), -EINVAL, "case %zu", i);
		cr_expect_not_null(strstr(ext.msg, cases[i][1]), "case %zu: %s", i, ext.msg);
		cr_expect_null(dlh_dev_first(ctx), "case %zu: no device left", i);
		dlh_ctx_free(ctx);
		unlink(path);
		free(path);
	}
}

/*
 * What each PF reports of itself, as Linux 6.1's ice_devlink_info_get(): the driver, the DSN as the
 * serial number, the PBA as board.id, ice's versions (stored as running: no flash update pending).
 * A PBA the NVM cannot give is left out, as ice leaves it.
 */
Test(ice, info_as_ice_reports_it)
{
	struct dlh_ctx *ctx = ctx_with("e810-cqda2");
	struct dlh_dev_info info;
	struct dlh_extack ext;
	static const char *const want[][3] = {
	    {"fixed", "board.id", "K65390-000"},
	    {"running", "fw.mgmt", "2.1.7"},
	    {"running", "fw.mgmt.api", "1.5.1"},
	    {"running", "fw.mgmt.build", "0x305d955f"},
	    {"running", "fw.undi", "1.2581.0"},
	    {"stored", "fw.undi", "1.2581.0"},
	    {"running", "fw.psid.api", "0.80"},
	    {"stored", "fw.psid.api", "0.80"},
	    {"running", "fw.bundle_id", "0x80002ec0"},
	    {"stored", "fw.bundle_id", "0x80002ec0"},
	    {"running", "fw.app.name", "ICE OS Default Package"},
	    {"running", "fw.app", "1.3.1.0"},
	    {"running", "fw.app.bundle_id", "0xc0000001"},
	    {"running", "fw.netlist", "1.1.2000-6.7.0"},
	    {"stored", "fw.netlist", "1.1.2000-6.7.0"},
	    {"running", "fw.netlist.build", "0xee16ced7"},
	    {"stored", "fw.netlist.build", "0xee16ced7"},
	};

	for (int pf = 0; pf < 2; pf++) {
		cr_assert_eq(dlh_dev_info_get(dlh_dev_find(ctx, pf ? PF1 : PF0), &info, &ext), 0, "%s", ext.msg);
		cr_expect_str_eq(info.driver, "ice");
		cr_expect_str_eq(info.serial, "6c-b3-11-ff-ff-4d-9a-10", "the card's DSN, on PF %d", pf);
		cr_assert_eq(info.nversions, sizeof(want) / sizeof(want[0]));
		for (size_t i = 0; i < info.nversions; i++) {
			cr_expect_str_eq(dlh_version_kind_name(info.versions[i].kind), want[i][0], "version %zu", i);
			cr_expect_str_eq(info.versions[i].name, want[i][1], "version %zu", i);
			cr_expect_str_eq(info.versions[i].value, want[i][2], "version %zu", i);
		}
	}
	cr_assert_eq(dlh_dev_sim_set(dlh_dev_find(ctx, PF0), NULL, "fail_nth", "1", &ext), 0, "%s", ext.msg);
	cr_assert_eq(dlh_dev_info_get(dlh_dev_find(ctx, PF0), &info, &ext), 0, "%s", ext.msg);
	cr_expect_eq(info.nversions, sizeof(want) / sizeof(want[0]) - 1, "the NVM's PBA unread: no board.id");
	cr_expect_str_eq(info.versions[0].name, "fw.mgmt");
	dlh_ctx_free(ctx);
}

/* ---- core's contract for staged drivers -------------------------------------------------- */

static int bug;

static int staged_probe(struct dlh_dev *dev, const char *config, struct dlh_extack *ext)
{
	struct dlh_sdk_port_attrs a = {.splittable = true, .lanes = 4};

	(void)config;
	return dlh_sdk_port_register(dev, 1, &a, NULL, ext);
}

/* bug 0: as it should; 1: sets nothing pending; 2: changes the ports now; 3: fails after setting pending. */
static int staged_split(struct dlh_port *port, unsigned int count, struct dlh_extack *ext)
{
	struct dlh_pending p = {.split = count};

	if (bug == 2)
		return dlh_sdk_port_register(dlh_port_dev(port), 2, NULL, NULL, ext);
	if (bug != 1)
		dlh_sdk_dev_pending_set(dlh_port_dev(port), &p);
	if (bug == 3)
		return dlh_sdk_extack(ext, -EIO, "Flash write failed");
	return 0;
}

static const struct dlh_sdk_ops staged_ops = {
    .probe = staged_probe,
    .port_split = staged_split,
    .staged = DLH_SDK_STAGED_SPLIT,
};
static const struct dlh_sdk_driver staged_driver = {DLH_SDK_DRIVER_INIT("staged", &staged_ops)};

/*
 * The four drivers of @drv (bug 0 to 3) each asked for @change on their first port: @word's messages,
 * the ports as they were after each, and pending (what @pending reads) only after the good one.
 */
static void promise_check(const struct dlh_sdk_driver *drv, const char *word,
			  int (*change)(struct dlh_port *, struct dlh_extack *),
			  bool (*pending)(struct dlh_port *, struct dlh_pending *))
{
	static const int errs[] = {0, -EIO, -EIO, -EIO};
	char json[128], msgs[4][128], *path;

	snprintf(json, sizeof(json), "{\"driver\": \"%s\", \"handle\": \"pci/0000:20:00.0\"}", drv->name);
	path = profile_tmp(json);
	snprintf(msgs[0], sizeof(msgs[0]), "Pending until the next reset");
	snprintf(msgs[1], sizeof(msgs[1]), "Driver bug: staged %s set nothing pending", word);
	snprintf(msgs[2], sizeof(msgs[2]), "Driver bug: staged %s changed the ports", word);
	snprintf(msgs[3], sizeof(msgs[3]), "Flash write failed");
	for (bug = 0; bug < 4; bug++) {
		struct dlh_extack ext;
		struct dlh_ctx *ctx;
		struct dlh_port *p;
		char *before, *after;

		cr_assert_eq(dlh_ctx_new(&ctx, &ext), 0);
		cr_assert_eq(dlh_sdk_driver_register(ctx, drv, &ext), 0);
		cr_assert_eq(dlh_ctx_sim_load(ctx, path, &ext), 0, "%s", ext.msg);
		p = dlh_port_first(dlh_dev_first(ctx));
		before = model_dump(ctx);
		cr_expect_eq(change(p, &ext), errs[bug], "%s, bug %d", word, bug);
		cr_expect_str_eq(ext.msg, msgs[bug], "%s, bug %d", word, bug);
		after = model_dump(ctx);
		/* a stored type is the port's desired type from then on; the rest of the port as it was */
		if (bug || !strstr(word, "type"))
			cr_expect_str_eq(after, before, "%s, bug %d: the ports as they were", word, bug);
		else
			cr_expect_eq(dlh_port_type(p), DLH_PORT_TYPE_ETH, "%s: runs what it ran", word);
		cr_expect_eq(pending(p, NULL), bug == 0, "%s, bug %d: pending only on success", word, bug);
		free(before);
		free(after);
		dlh_ctx_free(ctx);
	}
	unlink(path);
	free(path);
}

static int split_by_2(struct dlh_port *p, struct dlh_extack *ext)
{
	return dlh_port_split(p, 2, ext);
}

static bool dev_pending(struct dlh_port *p, struct dlh_pending *out)
{
	return dlh_dev_pending(dlh_port_dev(p), out);
}

Test(staged, core_holds_a_staged_driver_to_its_promise)
{
	promise_check(&staged_driver, "split", split_by_2, dev_pending);
}

/* bug 0: as it should; 1: sets nothing pending; 2: changes the type now; 3: fails after setting pending. */
static int staged_type_set(struct dlh_port *port, enum dlh_port_type type, struct dlh_extack *ext)
{
	struct dlh_pending p = {.type = type};

	if (bug == 2)
		return dlh_sdk_port_type_ib(port, "mlx5_0", ext);
	if (bug != 1)
		dlh_sdk_port_pending_set(port, &p);
	if (bug == 3)
		return dlh_sdk_extack(ext, -EIO, "Flash write failed");
	return 0;
}

static int staged_type_probe(struct dlh_dev *dev, const char *config, struct dlh_extack *ext)
{
	struct dlh_port *port;

	(void)config;
	return dlh_sdk_port_register(dev, 1, &(struct dlh_sdk_port_attrs){.flavour = DLH_PORT_FLAVOUR_PHYSICAL}, &port,
				     ext)
		   ?: dlh_sdk_port_type_eth(port, "ens5", ext);
}

static const struct dlh_sdk_ops staged_type_ops = {
    .probe = staged_type_probe,
    .port_type_set = staged_type_set,
    .staged = DLH_SDK_STAGED_TYPE,
};
static const struct dlh_sdk_driver staged_type_driver = {DLH_SDK_DRIVER_INIT("stagedtype", &staged_type_ops)};

static int type_ib(struct dlh_port *p, struct dlh_extack *ext)
{
	return dlh_port_type_set(p, DLH_PORT_TYPE_IB, ext);
}

static bool port_pending(struct dlh_port *p, struct dlh_pending *out)
{
	return dlh_port_pending(p, out);
}

/* A type change that waits for a reset (a VPI card's link type in its NVM): held to the same promise, the
 * port's type kept until the reset, its desired type the one asked for. */
Test(staged, core_holds_a_staged_type_change_to_its_promise)
{
	struct dlh_extack ext;
	struct dlh_pending pend;
	struct dlh_ctx *ctx;
	struct dlh_port *p;
	char *path = profile_tmp("{\"driver\": \"stagedtype\", \"handle\": \"pci/0000:22:00.0\"}");

	promise_check(&staged_type_driver, "type change", type_ib, port_pending);
	bug = 0;
	cr_assert_eq(dlh_ctx_new(&ctx, &ext), 0);
	cr_assert_eq(dlh_sdk_driver_register(ctx, &staged_type_driver, &ext), 0);
	cr_assert_eq(dlh_ctx_sim_load(ctx, path, &ext), 0, "%s", ext.msg);
	p = dlh_port_first(dlh_dev_first(ctx));
	cr_assert_eq(type_ib(p, &ext), 0, "%s", ext.msg);
	cr_expect(dlh_port_pending(p, &pend) && pend.type == DLH_PORT_TYPE_IB);
	cr_expect_eq(dlh_port_type(p), DLH_PORT_TYPE_ETH);
	cr_expect_eq(dlh_port_desired_type(p), DLH_PORT_TYPE_IB, "what was asked is stored");
	/* asked again: nothing to do, the driver is not called (a set it counted would be a second write) */
	bug = 1;
	cr_expect_eq(type_ib(p, &ext), 0, "%s", ext.msg);
	cr_expect(dlh_port_pending(p, &pend) && pend.type == DLH_PORT_TYPE_IB);
	dlh_ctx_free(ctx);
	unlink(path);
	free(path);
}

/* The plan of a staged split lists the devices and ports the reset brings up: after the split and the
 * reset, the model is exactly that. Refusals are the op's. */
Test(ice, the_reset_brings_up_exactly_the_plan)
{
	struct dlh_ctx *ctx = ctx_with("e810-cqda2");
	struct dlh_plan plan;
	struct dlh_extack ext;
	char planned[1024] = "", *now;
	size_t len = 0;

	cr_assert_eq(dlh_port_split_plan(port0(ctx), 8, &plan, &ext), 0, "%s", ext.msg);
	cr_expect(plan.staged);
	cr_expect_eq(plan.ngone + plan.ncome, 0, "no port goes or comes now");
	cr_assert_eq(plan.nafter, 8);
	cr_expect_str_eq(state(ctx), "{\"active\":0}", "planning stores nothing");
	/* 10G on all eight lanes: PF i on quad i / 4, lane i % 4 (plans do not say where ports are) */
	for (unsigned int i = 0; i < plan.nafter; i++)
		len += (size_t)snprintf(planned + len, sizeof(planned) - len, "%s/%u eth notset %s - 0 0 %u %u %u\n",
					plan.after[i].dev, plan.after[i].port.index, plan.after[i].port.netdev,
					plan.after[i].port.lanes, i / 4, i % 4);
	cr_assert_eq(dlh_port_split(port0(ctx), 8, &ext), 0, "%s", ext.msg);
	cr_assert_eq(
	    dlh_dev_reload(dlh_dev_find(ctx, PF0), DLH_RELOAD_ACTION_FW_ACTIVATE, DLH_RELOAD_LIMIT_UNSPEC, NULL, &ext),
	    0, "%s", ext.msg);
	now = model_dump(ctx);
	cr_expect_str_eq(now, planned);
	free(now);
	/* The plan refuses as the op does. */
	cr_expect_eq(dlh_port_split_plan(port0(ctx), 8, &plan, &ext), -EINVAL);
	cr_expect_str_eq(ext.msg, "Requested split count is already set");
	cr_assert_eq(dlh_port_unsplit_plan(port0(ctx), &plan, &ext), 0, "%s", ext.msg);
	cr_expect_eq(plan.nafter, 1);
	cr_expect_str_eq(plan.after[0].dev, PF0);
	dlh_ctx_free(ctx);
}

/*
 * In a sequence each split is planned from the option the ones before it chose (pending by then),
 * as the ops then run: the same options, the same refusal at the end.
 */
Test(ice, a_sequence_plans_each_split_from_the_last_one_chosen)
{
	static const struct {
		unsigned int count; /* 1: unsplit */
		int err;
		unsigned int nafter;
		const char *state;
	} steps[] = {
	    {4, 0, 4, "{\"active\":0,\"pending\":2}"}, {4, 0, 4, "{\"active\":0,\"pending\":3}"},
	    {2, 0, 2, "{\"active\":0,\"pending\":0}"}, {8, 0, 8, "{\"active\":0,\"pending\":4}"},
	    {1, 0, 1, "{\"active\":0,\"pending\":5}"}, {1, -EINVAL, 0, "{\"active\":0,\"pending\":5}"},
	};
	struct dlh_ctx *ctx = ctx_with("e810-cqda2");
	struct dlh_seq *seq;
	struct dlh_plan plan;
	struct dlh_extack ext, oext;

	cr_assert_eq(dlh_seq_new(ctx, &seq), 0);
	for (size_t i = 0; i < sizeof(steps) / sizeof(steps[0]); i++) {
		struct dlh_port *vp = dlh_seq_port_first(seq, dlh_dev_find(ctx, PF0));
		int err;

		cr_assert_not_null(vp);
		err = steps[i].count > 1 ? dlh_seq_split(seq, vp, steps[i].count, &plan, &ext)
					 : dlh_seq_unsplit(seq, vp, &plan, &ext);
		cr_expect_eq(err, steps[i].err, "step %zu planned: %s", i, ext.msg);
		if (!err) {
			cr_expect_not(plan.partial, "step %zu: exact, from the options chosen before it", i);
			cr_expect_eq(plan.nafter, steps[i].nafter, "step %zu", i);
		}
		err = steps[i].count > 1 ? dlh_port_split(port0(ctx), steps[i].count, &oext)
					 : dlh_port_unsplit(port0(ctx), &oext);
		cr_expect_eq(err, steps[i].err, "step %zu done as planned: %s", i, oext.msg);
		cr_expect_str_eq(state(ctx), steps[i].state, "step %zu", i);
		if (err)
			cr_expect_str_eq(oext.msg, ext.msg, "refused in the plan's words");
	}
	dlh_seq_free(seq);
	dlh_ctx_free(ctx);
}

static int nowplan_split(struct dlh_port *port, unsigned int count, struct dlh_sdk_plan *plan, struct dlh_extack *ext)
{
	(void)count;
	return dlh_sdk_plan_gone(plan, dlh_port_index(port), ext);
}

static const struct dlh_sdk_ops nowplan_ops = {
    .probe = staged_probe,
    .port_split = staged_split,
    .port_split_plan = nowplan_split,
    .staged = DLH_SDK_STAGED_SPLIT,
};
static const struct dlh_sdk_driver nowplan_driver = {DLH_SDK_DRIVER_INIT("nowplan", &nowplan_ops)};

Test(staged, a_staged_driver_whose_plan_changes_ports_now_is_a_bug)
{
	char *path = profile_tmp("{\"driver\": \"nowplan\", \"handle\": \"pci/0000:21:00.0\"}");
	struct dlh_extack ext;
	struct dlh_plan plan;
	struct dlh_ctx *ctx;

	cr_assert_eq(dlh_ctx_new(&ctx, &ext), 0);
	cr_assert_eq(dlh_sdk_driver_register(ctx, &nowplan_driver, &ext), 0);
	cr_assert_eq(dlh_ctx_sim_load(ctx, path, &ext), 0, "%s", ext.msg);
	cr_expect_eq(dlh_port_split_plan(dlh_port_first(dlh_dev_first(ctx)), 2, &plan, &ext), -EIO);
	cr_expect_str_eq(ext.msg, "Driver bug: nowplan's plan is not what the op does");
	cr_expect_eq(plan.ngone, 0, "the bad plan is not handed on");
	dlh_ctx_free(ctx);
	unlink(path);
	free(path);
}

/* Core lays out the card: its PFs together on its faceplate, each port in its quad's cage by lane,
 * and the quad no port uses marked unused. */
Test(ice, the_card_is_laid_out_by_quad_and_lane)
{
	struct dlh_ctx *ctx = ctx_with("e810-cqda2");
	const struct dlh_layout_cage *c;
	struct dlh_dev *const *devs;
	struct dlh_layout *l;
	struct dlh_extack ext;

	cr_assert_eq(dlh_layout_new(dlh_dev_find(ctx, PF1), &l), 0);
	cr_expect_eq(dlh_layout_devs(l, &devs), 2, "the card's two PFs, whichever asked");
	cr_expect_str_eq(dlh_dev_handle(devs[0]), PF0);
	cr_expect_not(dlh_layout_generic(l));
	cr_assert_eq(dlh_layout_cages(l, &c), 2);
	cr_expect(c[0].nports == 1 && c[1].nports == 1, "one 100G port a quad");
	cr_expect_str_eq(dlh_port_handle(c[1].ports[0]), PF1 "/0");
	dlh_layout_free(l);
	cr_assert_eq(dlh_port_split(port0(ctx), 4, &ext), 0, "%s", ext.msg);
	cr_assert_eq(
	    dlh_dev_reload(dlh_dev_find(ctx, PF0), DLH_RELOAD_ACTION_FW_ACTIVATE, DLH_RELOAD_LIMIT_UNSPEC, NULL, &ext),
	    0, "%s", ext.msg);
	cr_assert_eq(dlh_layout_new(dlh_dev_find(ctx, PF0), &l), 0);
	cr_assert_eq(dlh_layout_cages(l, &c), 2);
	cr_assert_eq(c[0].nports, 4, "quad 0's four lanes");
	for (size_t i = 0; i < 4; i++) {
		uint32_t module, lane;

		cr_expect(dlh_port_module(c[0].ports[i], &module, &lane) && module == 0 && lane == i, "by lane");
	}
	cr_expect_not(c[0].unused);
	cr_expect(c[1].unused && c[1].nports == 0, "quad 1: its lanes unused by the option");
	dlh_layout_free(l);
	dlh_layout_free(NULL);
	dlh_ctx_free(ctx);
}
