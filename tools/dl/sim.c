/* SPDX-License-Identifier: MIT */
/* dl sim: emulator controls of emulated devices, as netdevsim offers them through debugfs. */
#include "dl.h"

#include <string.h>

void sim_usage(FILE *f)
{
	fprintf(f, "Usage: dl sim cable DEV/PORT_INDEX { eth | ib | none }   link partner of an emulated port\n"
		   "Usage: dl sim fail DEV N                              fail the Nth hardware access from now\n"
		   "Usage: dl sim reset DEV                               power-cycle the emulated card\n"
		   "Usage: dl sim set { DEV | DEV/PORT_INDEX } KEY VALUE\n"
		   "Usage: dl sim show { DEV | DEV/PORT_INDEX } KEY\n");
}

static int slashes(const char *s)
{
	int n = 0;

	for (; *s; s++)
		n += *s == '/';
	return n;
}

/* DEV or DEV/PORT_INDEX (or a netdev name). */
static int target(struct dl *dl, const char *what, struct dlh_dev **dev, struct dlh_port **port)
{
	struct dlh_extack ext;
	struct dlh_ctx *ctx;
	int err = dl_ctx(dl, &ctx);

	if (err)
		return err;
	*port = NULL;
	if (slashes(what) == 1) {
		err = dlh_dev_lookup(ctx, what, dev, &ext);
	} else {
		err = dlh_port_lookup(ctx, what, port, &ext);
		if (!err)
			*dev = dlh_port_dev(*port);
	}
	return err ? dl_lookup_err(err, &ext, sim_usage) : 0;
}

int cmd_sim(struct dl *dl)
{
	const char *cmd = dl_shift(dl), *what, *key, *value;
	struct dlh_port *port;
	struct dlh_extack ext;
	struct dlh_dev *dev;
	char buf[8192];
	bool show = false;
	int err;

	if (!cmd || dl_match(cmd, "help")) {
		sim_usage(cmd ? stdout : stderr);
		return cmd ? DL_OK : DL_EUSAGE;
	}
	what = dl_shift(dl);
	if (dl_match(cmd, "reset")) {
		if (!what)
			return dl_usage_err(sim_usage, "sim reset: missing argument");
		if (dl_arg(dl))
			return dl_usage_err(sim_usage, "Unexpected argument \"%s\"", dl_arg(dl));
		err = target(dl, what, &dev, &port);
		if (err)
			return err;
		if (port)
			return dl_usage_err(sim_usage, "sim reset: expected a device, got port %s", what);
		err = dlh_dev_sim_reset(dev, &ext);
		return err ? dl_op_err(err, &ext) : DL_OK;
	}
	if (dl_match(cmd, "cable")) {
		key = "cable";
		value = dl_shift(dl);
		if (value && strcmp(value, "eth") && strcmp(value, "ib") && strcmp(value, "none"))
			return dl_usage_err(sim_usage, "Unknown link partner \"%s\", expected eth, ib or none", value);
	} else if (dl_match(cmd, "fail")) {
		key = "fail_nth";
		value = dl_shift(dl);
	} else if (dl_match(cmd, "set")) {
		key = dl_shift(dl);
		value = dl_shift(dl);
	} else if (dl_match(cmd, "show")) {
		key = dl_shift(dl);
		value = "";
		show = true;
	} else {
		return dl_usage_err(sim_usage, "Command \"%s\" not found", cmd);
	}
	if (!what || !key || !value)
		return dl_usage_err(sim_usage, "sim %s: missing argument", cmd);
	if (dl_arg(dl))
		return dl_usage_err(sim_usage, "Unexpected argument \"%s\"", dl_arg(dl));
	err = target(dl, what, &dev, &port);
	if (err)
		return err;
	if (show) {
		err = dlh_dev_sim_get(dev, port, key, buf, sizeof(buf), &ext);
		if (!err)
			out_sim(dl, port ? dlh_port_handle(port) : dlh_dev_handle(dev), key, buf);
	} else {
		err = dlh_dev_sim_set(dev, port, key, value, &ext);
	}
	return err ? dl_op_err(err, &ext) : DL_OK;
}
