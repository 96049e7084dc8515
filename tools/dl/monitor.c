/* SPDX-License-Identifier: MIT */
/* dl monitor: needs a backend whose devices outlive one command. */
#include "dl.h"

void monitor_usage(FILE *f)
{
	fprintf(f, "Usage: dl monitor [ all | dev | port ]\n");
}

int cmd_monitor(struct dl *dl)
{
	const char *what = dl_shift(dl);

	if (what && dl_match(what, "help")) {
		monitor_usage(stdout);
		return DL_OK;
	}
	fprintf(stderr, "dl monitor needs a backend whose devices outlive this command (the kernel's devlink family\n"
			"or the dlhald daemon); this build has only --sim, whose devices live and die with dl.\n");
	return DL_EUSAGE;
}
