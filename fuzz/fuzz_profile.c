/* SPDX-License-Identifier: MIT */
/* The board-profile loader (sdk/host.c, then the driver's config parser: mlxsw, mlx4, the example) on any file. */
#include "input_file.h"
#include "ice.h"
#include "mlx5.h"
#include "mlx4.h"
#include "mlxsw.h"

#include <dlhal/dlhal.h>
#include <dlhal/sdk.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

extern const struct dlh_sdk_driver *const fuzz_example_driver;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	input_file_init("profile", ".json");
	/* No module directory: a profile naming another driver is refused, never loaded. */
	setenv("DLHAL_MODULE_PATH", "/nonexistent", 1);
	setenv("DLHAL_MODULE_DIR", "", 1);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *path = input_file_write(data, size);
	struct dlh_extack ext;
	struct dlh_ctx *ctx;

	if (dlh_ctx_new(&ctx, &ext) || dlh_sdk_driver_register(ctx, &mlxsw_driver, &ext) ||
	    dlh_sdk_driver_register(ctx, &mlx4_driver, &ext) || dlh_sdk_driver_register(ctx, &ice_driver, &ext) ||
	    dlh_sdk_driver_register(ctx, &mlx5_driver, &ext) || dlh_sdk_driver_register(ctx, fuzz_example_driver, &ext))
		abort();
	if (!dlh_ctx_sim_load(ctx, path, &ext)) {
		struct dlh_dev_info info;

		/* what the profile's board says of itself (ice: its PBA and DSN) */
		for (struct dlh_dev *d = dlh_dev_first(ctx); d; d = dlh_dev_next(d))
			dlh_dev_info_get(d, &info, &ext);
		/* A split frees the port it splits: one, then stop walking. */
		for (struct dlh_port *p = dlh_port_first_all(ctx); p; p = dlh_port_next_all(p)) {
			if (dlh_port_splittable(p)) {
				dlh_port_split(p, 2, &ext);
				break;
			}
		}
		/* A staged split (ice) waits for the reset: the card comes up again from what it stored. */
		for (struct dlh_dev *d = dlh_dev_first(ctx); d; d = dlh_dev_next(d)) {
			if (dlh_dev_pending(d, NULL)) {
				dlh_dev_reload(d, DLH_RELOAD_ACTION_FW_ACTIVATE, DLH_RELOAD_LIMIT_UNSPEC, NULL, &ext);
				break;
			}
		}
	}
	dlh_ctx_free(ctx);
	return 0;
}
