/* SPDX-License-Identifier: MIT */
/* dl dev: devices. */
#include "dl.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

void dev_usage(FILE *f)
{
	fprintf(f, "Usage: dl dev show [DEV]\n"
		   "Usage: dl dev info [DEV]\n"
		   "Usage: dl dev reload DEV [ action { driver_reinit | fw_activate } ] [ limit no_reset ]\n");
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

/*
 * "devlink dev info": what each device reports of itself. A device that
 * cannot answer is named on stderr and the others are still shown; the exit
 * status says that one failed.
 */
static int dev_info(struct dl *dl)
{
	struct dlh_dev_info *info = malloc(sizeof(*info));
	struct dlh_dev *dev = NULL, *next;
	const char *what = dl_shift(dl);
	struct dlh_extack ext;
	struct dlh_ctx *ctx;
	int err, ret = DL_OK;

	if (!info)
		return dl_op_err(-ENOMEM, NULL);
	if (dl_arg(dl)) {
		free(info);
		return dl_usage_err(dev_usage, "Unexpected argument \"%s\"", dl_arg(dl));
	}
	err = dl_ctx(dl, &ctx);
	if (!err && what && (err = dlh_dev_lookup(ctx, what, &dev, &ext)))
		err = dl_lookup_err(err, &ext, dev_usage);
	if (err) {
		free(info);
		return err;
	}
	out_begin(dl, "info");
	for (dev = dev ? dev : dlh_dev_first(ctx); dev; dev = next) {
		next = what ? NULL : dlh_dev_next(dev);
		err = dlh_dev_info_get(dev, info, &ext);
		if (err)
			ret = dl_op_err(err, &ext);
		else
			out_info(dl, dev, info);
	}
	out_end(dl);
	free(info);
	return ret;
}

/*
 * iproute2 6.1's "devlink dev reload": the kernel answers with the actions
 * performed only when an action or a limit was given, and devlink prints
 * them then.
 */
static int dev_reload(struct dl *dl)
{
	enum dlh_reload_action action = DLH_RELOAD_ACTION_DRIVER_REINIT;
	enum dlh_reload_limit limit = DLH_RELOAD_LIMIT_UNSPEC;
	const char *what = dl_shift(dl), *word;
	bool asked = false;
	struct dlh_extack ext;
	struct dlh_ctx *ctx;
	struct dlh_dev *dev;
	uint32_t done;
	int err;

	if (!what || dl_match(what, "help")) {
		dev_usage(what ? stdout : stderr);
		return what ? DL_OK : DL_EUSAGE;
	}
	while ((word = dl_shift(dl))) {
		const char *val = dl_shift(dl);

		if (!strcmp(word, "action")) {
			if (!val || dlh_reload_action_parse(val, &action))
				return dl_usage_err(dev_usage, "Unknown reload action \"%s\"", val ? val : "");
		} else if (!strcmp(word, "limit")) {
			if (!val || dlh_reload_limit_parse(val, &limit) || limit == DLH_RELOAD_LIMIT_UNSPEC)
				return dl_usage_err(dev_usage, "Unknown reload limit \"%s\"", val ? val : "");
		} else if (!strcmp(word, "netns")) {
			return dl_usage_err(dev_usage, "netns: dl moves no device between network namespaces");
		} else {
			return dl_usage_err(dev_usage, "Unknown option \"%s\"", word);
		}
		asked = true;
	}
	err = dl_ctx(dl, &ctx);
	if (err)
		return err;
	err = dlh_dev_lookup(ctx, what, &dev, &ext);
	if (err)
		return dl_lookup_err(err, &ext, dev_usage);
	err = dlh_dev_reload(dev, action, limit, &done, &ext);
	if (err)
		return dl_op_err(err, &ext);
	if (!asked)
		return DL_OK;
	out_reload(dl, done);
	return DL_OK;
}

int cmd_dev(struct dl *dl)
{
	const char *cmd = dl_shift(dl);

	if (!cmd || dl_match(cmd, "show") || dl_match(cmd, "list"))
		return dev_show(dl);
	if (dl_match(cmd, "info"))
		return dev_info(dl);
	if (dl_match(cmd, "reload"))
		return dev_reload(dl);
	if (dl_match(cmd, "help")) {
		dev_usage(stdout);
		return DL_OK;
	}
	return dl_usage_err(dev_usage, "Command \"%s\" not found", cmd);
}
