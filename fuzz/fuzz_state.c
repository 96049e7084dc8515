/* SPDX-License-Identifier: MIT */
/* dlhald's state-file loader: the file parsed, the profiles loaded from it, then written back. */
#include "dlhald.h"
#include "mlx4.h"
#include "mlxsw.h"

#include <dlhal/sdk.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static char out[64];

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	log_init(true, 0);
	snprintf(out, sizeof(out), "/tmp/dlhal-fuzz-state-%d.json", (int)getpid());
	return 0;
}

/* dlhald.c's, which the harness does not link: no desired-state file. */
const struct dlh_desired *dlhald_desired(void)
{
	return NULL;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char why[512], *devices;
	struct dlh_extack ext;
	struct dlh_ctx *ctx;

	if (state_parse((const char *)data, size, "fuzz", &devices, why, sizeof(why)))
		return 0;
	if (dlh_ctx_new(&ctx, &ext) || dlh_sdk_driver_register(ctx, &mlxsw_driver, &ext) ||
	    dlh_sdk_driver_register(ctx, &mlx4_driver, &ext))
		abort();
	/* What loads must write back (the round trip dlhald makes on every change). */
	if (!state_load(ctx, "cx3-vpi,sn2700", devices, "fuzz", why, sizeof(why)) &&
	    state_write(ctx, out, why, sizeof(why))) {
		fprintf(stderr, "a loaded state could not be written: %s\n", why);
		abort();
	}
	unlink(out);
	dlh_ctx_free(ctx);
	free(devices);
	return 0;
}
