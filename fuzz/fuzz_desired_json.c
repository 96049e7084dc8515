/* SPDX-License-Identifier: MIT */
/* A desired-state set as JSON (dl apply --format json, the Ansible module): read, planned, walked. */
#include <dlhal/desired.h>
#include "input_file.h"
#include "mlxsw.h"

#include <dlhal/sdk.h>
#include <stdlib.h>
#include <string.h>

static struct dlh_ctx *ctx;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	struct dlh_extack ext;

	(void)argc;
	(void)argv;
	input_file_init("desired-json", ".json");
	if (dlh_ctx_new(&ctx, &ext) || dlh_sdk_driver_register(ctx, &mlxsw_driver, &ext) ||
	    dlh_ctx_sim_load(ctx, "sn2700", &ext))
		abort();
	return 0;
}

/* Each port a plan leaves is one a reader can read whole. */
static void port_read(void *arg, const struct dlh_port *port)
{
	size_t *n = arg;

	if (!dlh_port_handle(port) || !dlh_port_dev(port))
		abort();
	(*n)++;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct dlh_desired *d, *again;
	struct dlh_desired_plan p;
	struct dlh_extack ext;
	char why[1200], want[80];
	size_t nports = 0;

	if (dlh_desired_load_json(input_file_write(data, size), &d, why, sizeof(why))) {
		if (d || !why[0])
			abort(); /* a refusal says why and leaves no set */
		return 0;
	}
	/*
	 * What the reader took, the caller's API takes too, under the same
	 * names: one set of checks, NAME[I] for entry I.
	 */
	if (dlh_desired_new(dlh_desired_name(d), &again))
		abort();
	for (size_t i = 0; i < dlh_desired_count(d); i++) {
		snprintf(want, sizeof(want), "%s[%zu]", dlh_desired_name(d), i);
		if (strcmp(dlh_desired_entry(d, i)->origin, want) ||
		    dlh_desired_entry_add(again, dlh_desired_entry(d, i), want, &ext))
			abort();
	}
	/* the emulator is never changed: a plan only, and its ports as the steps leave them */
	if (!dlh_desired_plan_ports(d, ctx, &p, NULL, port_read, &nports)) {
		if (p.status == DLH_DESIRED_OK && p.nsteps && !nports)
			abort();
		dlh_desired_plan_free(&p);
	}
	dlh_desired_free(again);
	dlh_desired_free(d);
	return 0;
}
