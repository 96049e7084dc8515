/* SPDX-License-Identifier: MIT */
/* The board-profile loader (sdk/host.c, then the driver's config parser) on any file. */
#include "mlx4.h"
#include "mlxsw.h"

#include <dlhal/dlhal.h>
#include <dlhal/sdk.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static char path[64];

static void file_remove(void)
{
	unlink(path);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	snprintf(path, sizeof(path), "/tmp/dlhal-fuzz-profile-%d.json", (int)getpid());
	/* No module directory: a profile naming another driver is refused, never loaded. */
	setenv("DLHAL_MODULE_PATH", "/nonexistent", 1);
	atexit(file_remove);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct dlh_extack ext;
	struct dlh_ctx *ctx;
	FILE *f = fopen(path, "w");

	if (!f || fwrite(data, 1, size, f) != size || fclose(f))
		abort();
	if (dlh_ctx_new(&ctx, &ext) || dlh_sdk_driver_register(ctx, &mlxsw_driver, &ext) ||
	    dlh_sdk_driver_register(ctx, &mlx4_driver, &ext))
		abort();
	if (!dlh_ctx_sim_load(ctx, path, &ext)) {
		/* A split frees the port it splits: one, then stop walking. */
		for (struct dlh_port *p = dlh_port_first_all(ctx); p; p = dlh_port_next_all(p)) {
			if (dlh_port_splittable(p)) {
				dlh_port_split(p, 2, &ext);
				break;
			}
		}
	}
	dlh_ctx_free(ctx);
	return 0;
}
