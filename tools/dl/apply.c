/* SPDX-License-Identifier: MIT */
/* dl apply: take the devices to a desired-state file (docs/desired-state.md). */
#include "desired.h"
#include "dl.h"

#include <stdlib.h>
#include <string.h>

void apply_usage(FILE *f)
{
	fprintf(f, "Usage: dl apply FILE [ --dry-run ]\n"
		   "FILE says per front-panel port the split count and/or type wanted ([Match] and [Port]\n"
		   "sections, docs/desired-state.md); dl prints the steps and runs them, unsplits first.\n");
}

int cmd_apply(struct dl *dl)
{
	const char *path = dl_shift(dl);
	char why[1024], what[1024];
	struct desired d;
	struct step *steps;
	struct dlh_ctx *ctx;
	size_t nsteps;
	bool dry = false;
	int err;

	if (!path || dl_match(path, "help")) {
		apply_usage(path ? stdout : stderr);
		return path ? DL_OK : DL_EUSAGE;
	}
	if (dl_arg(dl) && !strcmp(dl_arg(dl), "--dry-run")) {
		dry = true;
		dl_shift(dl);
	}
	if (dl_arg(dl))
		return dl_usage_err(apply_usage, "Unexpected argument \"%s\"", dl_arg(dl));
	err = dl_ctx(dl, &ctx);
	if (err)
		return err;
	if (desired_load(&d, path, why, sizeof(why))) {
		fprintf(stderr, "Error: %s\n", why);
		return DL_EOP;
	}
	err = desired_steps(&d, ctx, &steps, &nsteps, stderr);
	if (err) {
		fprintf(stderr, "Error: %s: out of memory\n", path);
		desired_free(&d);
		return DL_EOP;
	}
	if (!nsteps)
		printf("nothing to do: the devices are as %s says\n", path);
	for (size_t i = 0; dry && i < nsteps; i++) {
		step_describe(&d, &steps[i], what, sizeof(what));
		printf("would: %s\n", what);
	}
	if (!dry && nsteps && desired_apply(&d, ctx, steps, nsteps, stdout, why, sizeof(why))) {
		fprintf(stderr, "Error: %s\n", why);
		err = DL_EOP;
	}
	free(steps);
	desired_free(&d);
	return err ? DL_EOP : DL_OK;
}
