/* SPDX-License-Identifier: MIT */
/* dl apply: take the devices to a desired-state file (docs/desired-state.md). */
#include "desired.h"
#include "dl.h"

#include <stdlib.h>
#include <string.h>

void apply_usage(FILE *f)
{
	fprintf(f, "Usage: dl apply FILE [ --dry-run | --reload ]\n"
		   "FILE says per front-panel port the split count and/or type wanted ([Match] and [Port]\n"
		   "sections, docs/desired-state.md); dl prints the steps and runs them, unsplits first.\n"
		   "A change a device stores for its next reset (Intel E810) is pending until then; with\n"
		   "--reload dl resets the devices that have something pending, where the driver can.\n");
}

/*
 * --reload: every device with something pending is reset with a firmware
 * activation, where its driver has one. The handles are taken first: a reset
 * replaces a card's devices.
 */
static int reload_pending(struct dlh_ctx *ctx)
{
	char(*handles)[DLH_HANDLE_MAX] = NULL;
	size_t n = 0, cap = 0;
	int ret = 0;

	for (struct dlh_dev *dev = dlh_dev_first(ctx); dev; dev = dlh_dev_next(dev)) {
		bool pending = dlh_dev_pending(dev, NULL);

		for (struct dlh_port *p = dlh_port_first(dev); p && !pending; p = dlh_port_next(p))
			pending = dlh_port_pending(p, NULL);
		if (!pending)
			continue;
		if (n == cap) {
			void *nh = realloc(handles, (cap = cap ? cap * 2 : 8) * sizeof(*handles));

			if (!nh) {
				free(handles);
				fprintf(stderr, "Error: out of memory\n");
				return DL_EOP;
			}
			handles = nh;
		}
		snprintf(handles[n++], sizeof(*handles), "%s", dlh_dev_handle(dev));
	}
	for (size_t i = 0; i < n; i++) {
		struct dlh_dev *dev = dlh_dev_find(ctx, handles[i]);
		struct dlh_extack ext;
		char buf[DLH_EXTACK_MSG_MAX + DLH_HANDLE_MAX + 4];

		if (!dev)
			continue; /* went with an earlier reset of its card */
		if (dlh_dev_reload(dev, DLH_RELOAD_ACTION_FW_ACTIVATE, DLH_RELOAD_LIMIT_UNSPEC, NULL, &ext)) {
			fprintf(stderr, "Error: reload %s: %s\n", handles[i], dlh_extack_str(&ext, buf, sizeof(buf)));
			ret = DL_EOP;
			continue;
		}
		printf("done: reload %s (fw_activate)\n", handles[i]);
	}
	free(handles);
	return ret;
}

int cmd_apply(struct dl *dl)
{
	const char *path = dl_shift(dl);
	char why[1024], what[1024];
	bool dry = false, reload = false;
	size_t nsteps, npending;
	struct desired d;
	struct step *steps;
	struct dlh_ctx *ctx;
	int err;

	if (!path || dl_match(path, "help")) {
		apply_usage(path ? stdout : stderr);
		return path ? DL_OK : DL_EUSAGE;
	}
	for (const char *a; (a = dl_arg(dl)) && (!strcmp(a, "--dry-run") || !strcmp(a, "--reload")); dl_shift(dl))
		*(!strcmp(a, "--dry-run") ? &dry : &reload) = true;
	if (dl_arg(dl))
		return dl_usage_err(apply_usage, "Unexpected argument \"%s\"", dl_arg(dl));
	if (dry && reload)
		return dl_usage_err(apply_usage, "--dry-run and --reload: choose one");
	err = dl_ctx(dl, &ctx);
	if (err)
		return err;
	if (desired_load(&d, path, why, sizeof(why))) {
		fprintf(stderr, "Error: %s\n", why);
		return DL_EOP;
	}
	/* With --reload, a second round runs what the reset made possible (the new ports' types). */
	for (int round = 0; round < (reload ? 2 : 1); round++) {
		err = desired_steps(&d, ctx, &steps, &nsteps, stderr, &npending);
		if (err) {
			fprintf(stderr, "Error: %s: out of memory\n", path);
			desired_free(&d);
			return DL_EOP;
		}
		if (!nsteps && !npending && !round)
			printf("nothing to do: the devices are as %s says\n", path);
		for (size_t i = 0; dry && i < nsteps; i++) {
			step_describe(&d, &steps[i], what, sizeof(what));
			printf("would: %s%s\n", what, steps[i].staged ? ", applied at the next reset" : "");
		}
		if (!dry && nsteps && desired_apply(&d, ctx, steps, nsteps, stdout, why, sizeof(why))) {
			fprintf(stderr, "Error: %s\n", why);
			err = DL_EOP;
		}
		free(steps);
		if (err || !reload || round)
			break;
		err = reload_pending(ctx);
		if (err)
			break;
	}
	if (!err && !reload && !dry) {
		/* What waits for a reset, said once at the end (each entry was noted on stderr). */
		err = desired_steps(&d, ctx, &steps, &nsteps, NULL, &npending);
		free(steps);
		if (!err && npending)
			printf("pending until a reset: %zu entr%s of %s (dl apply --reload %s, or dl dev reload)\n",
			       npending, npending == 1 ? "y" : "ies", path, path);
	}
	desired_free(&d);
	return err ? DL_EOP : DL_OK;
}
