/* SPDX-License-Identifier: MIT */
/* Driver modules: loading by path and by module path, ABI checks. */
#include "helpers.h"

#include <criterion/criterion.h>
#include <dlhal/sdk.h>
#include <errno.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

Test(module, loads_by_path_and_drives_a_profile)
{
	struct dlh_extack ext;
	struct dlh_ctx *ctx;

	cr_assert_eq(dlh_ctx_new(&ctx, &ext), 0);
	cr_expect_eq(dlh_ctx_sim_load(ctx, "sn2700", &ext), -ENOENT, "no mlxsw yet");
	cr_expect_not_null(strstr(ext.msg, "No driver \"mlxsw\""), "%s", ext.msg);
	cr_assert_eq(dlh_ctx_module_load(ctx, getenv("MODULE_MLXSW"), &ext), 0, "%s", ext.msg);
	cr_expect_eq(dlh_ctx_module_load(ctx, getenv("MODULE_MLXSW"), &ext), -EEXIST);
	cr_expect_str_eq(ext.obj, getenv("MODULE_MLXSW"));
	cr_assert_eq(dlh_ctx_sim_load(ctx, "sn2700", &ext), 0, "%s", ext.msg);
	cr_expect_eq(dlh_dev_port_count(dlh_dev_first(ctx)), 32);
	cr_expect_str_eq(dlh_dev_driver(dlh_dev_first(ctx)), "mlxsw");
	cr_expect_eq(dlh_port_split(dlh_port_find_netdev(ctx, "eth0"), 4, &ext), 0, "%s", ext.msg);
	dlh_ctx_free(ctx);
}

/* The installed module directory is $DLHAL_MODULE_DIR when set, and none when it is empty (the test
 * suite's own setting, so that a machine's installed dlhal stays out of it). */
Test(module, installed_directory_from_the_environment)
{
	char *dir = strdup(getenv("MODULE_MLX4"));
	struct dlh_extack ext;
	struct dlh_ctx *ctx;

	unsetenv("DLHAL_MODULE_PATH");
	setenv("DLHAL_MODULE_DIR", "", 1);
	cr_assert_eq(dlh_ctx_new(&ctx, &ext), 0);
	cr_expect_eq(dlh_ctx_sim_load(ctx, "cx3-vpi", &ext), -ENOENT);
	cr_expect_not_null(strstr(ext.msg, "No driver \"mlx4\""), "%s", ext.msg);
	setenv("DLHAL_MODULE_DIR", dirname(dir), 1);
	cr_expect_eq(dlh_ctx_sim_load(ctx, "cx3-vpi", &ext), 0, "%s", ext.msg);
	cr_expect_str_eq(dlh_dev_driver(dlh_dev_first(ctx)), "mlx4");
	dlh_ctx_free(ctx);
	free(dir);
}

Test(module, found_on_the_module_path)
{
	char *dir = strdup(getenv("MODULE_MLX4"));
	struct dlh_extack ext;
	struct dlh_ctx *ctx;

	setenv("DLHAL_MODULE_PATH", dirname(dir), 1);
	cr_assert_eq(dlh_ctx_new(&ctx, &ext), 0);
	cr_assert_eq(dlh_ctx_sim_load(ctx, "cx3-vpi", &ext), 0, "%s", ext.msg);
	cr_expect_str_eq(dlh_dev_driver(dlh_dev_first(ctx)), "mlx4");
	dlh_ctx_free(ctx);
	free(dir);
}

Test(module, wrong_abi_is_refused_with_both_versions)
{
	struct dlh_extack ext;
	struct dlh_ctx *ctx;
	char want[512];

	cr_assert_eq(dlh_ctx_new(&ctx, &ext), 0);
	cr_expect_eq(dlh_ctx_module_load(ctx, getenv("MODULE_BADABI"), &ext), -ENOEXEC);
	cr_expect_str_eq(ext.obj, getenv("MODULE_BADABI"), "the module is named");
	cr_expect_str_eq(ext.msg, "Module ABI version 99, host ABI version 7");
	dlh_extack_str(&ext, want, sizeof(want));
	cr_expect_not_null(strstr(want, "bad_abi"), "%s", want);
	dlh_ctx_free(ctx);
}

Test(module, other_shared_objects_are_refused)
{
	struct dlh_extack ext;
	struct dlh_ctx *ctx;

	cr_assert_eq(dlh_ctx_new(&ctx, &ext), 0);
	cr_expect_eq(dlh_ctx_module_load(ctx, getenv("MODULE_NOTMOD"), &ext), -ENOEXEC);
	cr_expect_str_eq(ext.msg, "Not a dlhal driver module (no dlh_sdk_module_entry)");
	cr_expect_eq(dlh_ctx_module_load(ctx, "/nonexistent/x.so", &ext), -ENOENT);
	cr_expect_not_null(strstr(ext.msg, "Cannot load module"));
	dlh_ctx_free(ctx);
}

/* One call chooses a context's backends for every front end: profiles by list or by array, and
 * which one failed. */
Test(backends, profiles_and_which_backend_failed)
{
	const char *const sims[] = {"cx3-vpi", NULL}, *const empty[] = {"", NULL};
	struct dlh_backends_failure failed;
	struct dlh_extack ext;
	struct dlh_ctx *ctx;
	char lng[1100];
	size_t n = 0;

	cr_assert_eq(dlh_ctx_new(&ctx, &ext), 0);
	cr_assert_eq(dlh_ctx_module_load(ctx, getenv("MODULE_MLXSW"), &ext), 0, "%s", ext.msg);
	cr_assert_eq(dlh_ctx_module_load(ctx, getenv("MODULE_MLX4"), &ext), 0, "%s", ext.msg);
	cr_expect_eq(
	    dlh_ctx_backends_attach(ctx, &(struct dlh_backends){.sim = "sn2700,,", .sims = sims}, &failed, &ext), 0,
	    "%s", ext.msg);
	cr_expect_eq(failed.backend, DLH_BACKEND_NONE);
	for (struct dlh_dev *d = dlh_dev_first(ctx); d; d = dlh_dev_next(d))
		n++;
	cr_expect_eq(n, 2, "the list's and the array's");
	cr_expect_eq(dlh_ctx_backends_attach(ctx, &(struct dlh_backends){.sim = "no-such-board"}, &failed, &ext),
		     -ENOENT);
	cr_expect_eq(failed.backend, DLH_BACKEND_SIM);
	cr_expect_str_eq(failed.profile, "no-such-board");
	cr_expect_eq(dlh_ctx_backends_attach(ctx, &(struct dlh_backends){.sims = empty}, &failed, &ext), -EINVAL);
	cr_expect_str_eq(ext.msg, "A profile name is empty");
	memset(lng, 'a', sizeof(lng) - 1);
	lng[sizeof(lng) - 1] = '\0';
	cr_expect_eq(dlh_ctx_backends_attach(ctx, &(struct dlh_backends){.sim = lng}, &failed, &ext), -EINVAL);
	cr_expect_str_eq(ext.msg, "Profile list is longer than 1023 characters");
	/* a socket asked for is the daemon's failure, not the kernel's (nothing else is tried) */
	cr_expect_neq(
	    dlh_ctx_backends_attach(ctx, &(struct dlh_backends){.socket = "/nonexistent/dlhald.sock"}, &failed, &ext),
	    0);
	cr_expect_eq(failed.backend, DLH_BACKEND_DAEMON);
	cr_expect(failed.asked);
	dlh_ctx_free(ctx);
}

/* The SDK's checked JSON reads: paths into objects and arrays, every refusal naming the field. */
Test(json, checked_reads_name_the_field)
{
	struct dlh_sdk_json *j;
	struct dlh_extack ext;
	uint64_t v = 0;
	char s[8];
	size_t n = 0;

	cr_assert_eq(dlh_sdk_json_parse("{\"ports\": 4, \"name\": \"sw\", \"state\": [4, 0, 2, 9, true], "
					"\"w\": [{\"lanes\": 2}], \"off\": null}",
					"hw", &j, &ext),
		     0, "%s", ext.msg);
	cr_expect_eq(dlh_sdk_json_uint(j, "ports", 1, 16, &v, &ext), 0);
	cr_expect_eq(v, 4);
	cr_expect_eq(dlh_sdk_json_uint(j, "ports", 8, 16, &v, &ext), -EINVAL);
	cr_expect_str_eq(ext.msg, "field \"hw.ports\": expected a whole number from 8 to 16");
	cr_expect_eq(dlh_sdk_json_uint(j, "state[2]", 0, 4, &v, &ext), 0);
	cr_expect_eq(v, 2);
	cr_expect_eq(dlh_sdk_json_uint(j, "state[3]", 0, 4, &v, &ext), -EINVAL);
	cr_expect_str_eq(ext.msg, "field \"hw.state[3]\": expected a whole number from 0 to 4");
	cr_expect_eq(dlh_sdk_json_uint(j, "state[4]", 0, 4, &v, &ext), -EINVAL, "a boolean is no number");
	cr_expect_eq(dlh_sdk_json_uint(j, "state[5]", 0, 4, &v, &ext), -ENOENT);
	cr_expect_str_eq(ext.msg, "field \"hw.state[5]\": missing: expected a whole number from 0 to 4");
	cr_expect_eq(dlh_sdk_json_uint(j, "w[0].lanes", 1, 8, &v, &ext), 0);
	cr_expect_eq(v, 2);
	cr_expect_eq(dlh_sdk_json_uint(j, "ports[0]", 0, 8, &v, &ext), -ENOENT, "not an array: nothing there");
	cr_expect_eq(dlh_sdk_json_uint(j, "state[x]", 0, 8, &v, &ext), -EINVAL);
	cr_expect_not_null(strstr(ext.msg, "is no JSON path"), "%s", ext.msg);
	cr_expect_eq(dlh_sdk_json_count(j, "state", &n, &ext), 0);
	cr_expect_eq(n, 5);
	cr_expect_eq(dlh_sdk_json_count(j, "ports", &n, &ext), -EINVAL);
	cr_expect_str_eq(ext.msg, "field \"hw.ports\": expected an array");
	cr_expect_eq(dlh_sdk_json_str(j, "name", s, sizeof(s), &ext), 0);
	cr_expect_str_eq(s, "sw");
	cr_expect_eq(dlh_sdk_json_str(j, "name", s, 2, &ext), -EINVAL);
	cr_expect_str_eq(ext.msg, "field \"hw.name\": expected a string of at most 1 bytes");
	cr_expect(dlh_sdk_json_has(j, "ports") && !dlh_sdk_json_has(j, "off") && !dlh_sdk_json_has(j, "nope"));
	cr_expect_eq(dlh_sdk_json_only(j, "", (const char *const[]){"ports", "name", "state", "w", "off", NULL}, &ext),
		     0);
	cr_expect_eq(dlh_sdk_json_only(j, "", (const char *const[]){"ports", NULL}, &ext), -EINVAL);
	cr_expect_not_null(strstr(ext.msg, "unknown (expected ports)"), "%s", ext.msg);
	cr_expect_eq(dlh_sdk_json_only(j, "w[0]", (const char *const[]){"lane", NULL}, &ext), -EINVAL);
	cr_expect_str_eq(ext.msg, "field \"hw.w[0].lanes\": unknown (expected lane)");
	dlh_sdk_json_free(j);
	/* what is no object, or no JSON */
	cr_expect_eq(dlh_sdk_json_parse("[1]", "hw", &j, &ext), -EINVAL);
	cr_expect_str_eq(ext.msg, "field \"hw\": expected an object");
	cr_expect_eq(dlh_sdk_json_parse("{\"a\": 1, \"a\": 2}", "hw", &j, &ext), -EINVAL);
	cr_expect_null(j);
	cr_expect_eq(dlh_sdk_json_parse(NULL, "hw", &j, &ext), 0, "no hw: an empty object");
	dlh_sdk_json_free(j);
}

/* The example driver vendors copy reads its saved state through them: a state of another shape stops the probe. */
Test(json, the_example_refuses_a_state_of_another_shape_naming_the_field)
{
	static const struct {
		const char *state, *why;
	} bad[] = {
	    {"{\"pci/0000:05:00.0\": {\"lanes\": [4, 0, 0, 0]}}", "field \"hw.state\": expected an array"},
	    {"{\"pci/0000:05:00.0\": [4, 0]}", "field \"hw.state\": expected 16 lane widths, one a lane"},
	    {"{\"pci/0000:05:00.0\": [4,0,0,0, 4,0,0,0, 4,0,0,0, 4,0,0,\"x\"]}",
	     "field \"hw.state[15]\": expected a whole number from 0 to 4"},
	    {"{\"pci/0000:05:00.0\": [4,0,0,0, 4,0,0,0, 4,0,0,0, 0,2,0,0]}",
	     "field \"hw.state[13]\": 2 lanes cannot start at lane 1"},
	};
	char profile[512];
	struct dlh_extack ext;
	struct dlh_ctx *ctx;

	snprintf(profile, sizeof(profile), "%s/examples/driver/example.json", getenv("SRCDIR"));
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		cr_assert_eq(dlh_ctx_new(&ctx, &ext), 0);
		cr_assert_eq(dlh_ctx_module_load(ctx, getenv("MODULE_EXAMPLE"), &ext), 0, "%s", ext.msg);
		cr_expect_eq(dlh_ctx_sim_load_state(ctx, profile, bad[i].state, &ext), -EINVAL, "%s", bad[i].state);
		cr_expect_not_null(strstr(ext.msg, bad[i].why), "%s: %s", bad[i].state, ext.msg);
		cr_expect_null(dlh_dev_first(ctx), "no device");
		dlh_ctx_free(ctx);
	}
	/* a state that fits is taken */
	cr_assert_eq(dlh_ctx_new(&ctx, &ext), 0);
	cr_assert_eq(dlh_ctx_module_load(ctx, getenv("MODULE_EXAMPLE"), &ext), 0, "%s", ext.msg);
	cr_expect_eq(
	    dlh_ctx_sim_load_state(ctx, profile, "{\"pci/0000:05:00.0\": [4,0,0,0, 2,0,2,0, 4,0,0,0, 4,0,0,0]}", &ext),
	    0, "%s", ext.msg);
	cr_expect_eq(dlh_dev_port_count(dlh_dev_first(ctx)), 5);
	dlh_ctx_free(ctx);
}

/*
 * Every driver reads its saved state through the checked reads: a state of another shape is refused,
 * naming the field (ice took "active": "2" as option 0 before), and dlhald's start stops on it.
 */
Test(json, every_driver_refuses_a_state_of_another_shape)
{
	static const struct {
		const char *profile, *states, *why;
	} bad[] = {
	    {"e810-cqda2", "{\"pci/0000:16:00.0\": {\"active\": \"2\"}}",
	     "field \"hw.state.active\": expected a whole number from 0 to"},
	    {"e810-cqda2", "{\"pci/0000:16:00.0\": {\"active\": 1, \"pendnig\": 2}}",
	     "field \"hw.state.pendnig\": unknown (expected active, pending)"},
	    {"cx3-vpi", "{\"pci/0000:01:00.0\": {\"types\": [\"eth\", \"ib\"], \"cables\": [\"eth\"]}}",
	     "field \"hw.state\": expected {\"types\""},
	    {"cx3-vpi", "{\"pci/0000:01:00.0\": {\"types\": [\"eth\", 2], \"cables\": [\"eth\", \"ib\"]}}",
	     "field \"hw.state.types[1]\""},
	    {"sn2700", "{\"pci/0000:03:00.0\": {\"pmlp\": [[1, 4, 16, \"0\"]]}}",
	     "field \"hw.state.pmlp[0]\": expected [local_port, width, module, first_lane], four integers"},
	    {"sn2700", "{\"pci/0000:03:00.0\": {\"pmlp\": [], \"netdev\": [\"eth0\"]}}",
	     "field \"hw.state\": expected {\"pmlp\": [...], \"netdev\": {...}}"},
	};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct dlh_ctx *ctx = ctx_with("");
		struct dlh_extack ext;

		cr_expect_eq(dlh_ctx_sim_load_state(ctx, bad[i].profile, bad[i].states, &ext), -EINVAL, "case %zu", i);
		cr_expect_not_null(strstr(ext.msg, bad[i].why), "case %zu: %s", i, ext.msg);
		dlh_ctx_free(ctx);
	}
}
