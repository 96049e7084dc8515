/* SPDX-License-Identifier: MIT */
/* Driver modules: loading by path and by module path, ABI checks. */
#include "helpers.h"

#include <criterion/criterion.h>
#include <errno.h>
#include <libgen.h>
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
	cr_expect_str_eq(ext.msg, "Module ABI version 99, host ABI version 6");
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
