/* SPDX-License-Identifier: MIT */
/* The desired-state file (tools/common/desired.c, libinih): parsed, its steps computed and applied. */
#include "desired.h"
#include "input_file.h"
#include "mlx4.h"
#include "mlxsw.h"

#include <dlhal/sdk.h>
#include <stdlib.h>

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	input_file_init("desired", ".conf");
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *path = input_file_write(data, size);
	struct dlh_extack ext;
	struct dlh_ctx *ctx;
	struct desired d;
	struct step *steps;
	char why[1024];
	size_t n;

	if (desired_load(&d, path, why, sizeof(why)))
		return 0;
	if (dlh_ctx_new(&ctx, &ext) || dlh_sdk_driver_register(ctx, &mlxsw_driver, &ext) ||
	    dlh_sdk_driver_register(ctx, &mlx4_driver, &ext) || dlh_ctx_sim_load(ctx, "sn2700", &ext) ||
	    dlh_ctx_sim_load(ctx, "cx3-vpi", &ext))
		abort();
	if (!desired_steps(&d, ctx, &steps, &n, NULL)) {
		desired_apply(&d, ctx, steps, n, NULL, why, sizeof(why));
		free(steps);
	}
	dlh_ctx_free(ctx);
	desired_free(&d);
	return 0;
}
