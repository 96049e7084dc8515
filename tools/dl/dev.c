/* SPDX-License-Identifier: MIT */
/* dl dev: devices. */
#include "dl.h"

void dev_usage(FILE *f)
{
	fprintf(f, "Usage: dl dev show [DEV]\n");
}

static int dev_show(struct dl *dl)
{
	struct dlh_extack ext;
	struct dlh_ctx *ctx;
	struct dlh_dev *dev = NULL;
	const char *what = dl_shift(dl);
	int err;

	if (dl_arg(dl))
		return dl_usage_err(dev_usage, "Unexpected argument \"%s\"", dl_arg(dl));
	err = dl_ctx(dl, &ctx);
	if (err)
		return err;
	if (what) {
		err = dlh_dev_lookup(ctx, what, &dev, &ext);
		if (err)
			return dl_lookup_err(err, &ext, dev_usage);
	}
	out_begin(dl, "dev");
	if (dev)
		out_dev(dl, dev);
	else
		for (dev = dlh_dev_first(ctx); dev; dev = dlh_dev_next(dev))
			out_dev(dl, dev);
	out_end(dl);
	return DL_OK;
}

int cmd_dev(struct dl *dl)
{
	const char *cmd = dl_shift(dl);

	if (!cmd || dl_match(cmd, "show") || dl_match(cmd, "list"))
		return dev_show(dl);
	if (dl_match(cmd, "help")) {
		dev_usage(stdout);
		return DL_OK;
	}
	return dl_usage_err(dev_usage, "Command \"%s\" not found", cmd);
}
