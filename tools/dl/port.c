/* SPDX-License-Identifier: MIT */
/* dl port: show, set type, split, unsplit. */
#include "dl.h"

#include <errno.h>
#include <stdint.h>
#include <string.h>

void port_usage(FILE *f)
{
	fprintf(f, "Usage: dl port show [DEV/PORT_INDEX]\n"
		   "Usage: dl port set DEV/PORT_INDEX [ type { eth | ib | auto} ]\n"
		   "Usage: dl port split DEV/PORT_INDEX count\n"
		   "Usage: dl port unsplit DEV/PORT_INDEX\n"
		   "DEV/PORT_INDEX may also be a netdev name (eth0); \"show\" also takes a DEV (pci/0000:03:00.0)\n"
		   "to list that device's ports; the split count may be given as \"count COUNT\".\n"
		   "A last --dry-run on set, split or unsplit prints what it would do (the ports that would go and\n"
		   "come) and changes nothing: exit 0 if it would be done, 1 with the refusal it would get, 3 if\n"
		   "the backend cannot say (the kernel: its core's checks passed, the driver decides).\n");
}

static int slashes(const char *s)
{
	int n = 0;

	for (; *s; s++)
		n += *s == '/';
	return n;
}

/* The next argument as a port: DEV/PORT_INDEX or a netdev name. */
static int port_arg(struct dl *dl, const char *cmd, struct dlh_port **port)
{
	const char *what = dl_shift(dl);
	struct dlh_extack ext;
	struct dlh_ctx *ctx;
	int err;

	if (!what)
		return dl_usage_err(port_usage, "port %s: DEV/PORT_INDEX expected", cmd);
	err = dl_ctx(dl, &ctx);
	if (err)
		return err;
	err = dlh_port_lookup(ctx, what, port, &ext);
	return err ? dl_lookup_err(err, &ext, port_usage) : 0;
}

static int show_one(const struct dlh_port *port, void *arg)
{
	out_port(arg, port);
	return 0;
}

static int port_show(struct dl *dl)
{
	const char *what = dl_shift(dl);
	struct dlh_port *port = NULL;
	struct dlh_dev *only = NULL;
	struct dlh_extack ext;
	struct dlh_ctx *ctx;
	int err;

	if (dl_arg(dl))
		return dl_usage_err(port_usage, "Unexpected argument \"%s\"", dl_arg(dl));
	err = dl_ctx(dl, &ctx);
	if (err)
		return err;
	if (what && slashes(what) == 1)
		err = dlh_dev_lookup(ctx, what, &only, &ext);
	else if (what)
		err = dlh_port_lookup(ctx, what, &port, &ext);
	if (err)
		return dl_lookup_err(err, &ext, port_usage);
	out_begin(dl, "port");
	if (port) {
		out_port(dl, port);
	} else if (only) {
		for (port = dlh_port_first(only); port; port = dlh_port_next(port))
			out_port(dl, port);
	} else if (!dl->details) {
		/* Streamed from a kernel or a dlhald, not mirrored: -d's split counts need the model. */
		err = dlh_port_walk(ctx, show_one, dl, &ext);
	} else {
		/* recognised first: a kernel device's rules may say what is pending (a ConnectX-6's type, from
		 * its configuration), which the kernel does not */
		for (struct dlh_dev *d = dlh_dev_first(ctx); d; d = dlh_dev_next(d))
			dlh_dev_rules(d, NULL);
		for (port = dlh_port_first_all(ctx); port; port = dlh_port_next_all(port))
			out_port(dl, port);
	}
	out_end(dl);
	return err ? dl_op_err(err, &ext) : DL_OK;
}

/* A dry run's answer: the plan (exit 0, or 3 when partial), or the refusal (exit 1; -j: a document too). */
static int dry_done(struct dl *dl, const char *change, const struct dlh_port *port, unsigned int count,
		    const char *type, int err, const struct dlh_plan *plan, const struct dlh_extack *ext)
{
	if (err) {
		out_plan_refused(dl, change, port, count, type, ext);
		return dl_op_err(err, ext);
	}
	out_plan(dl, change, port, count, type, plan, ext->msg);
	return plan->partial ? DL_EPARTIAL : DL_OK;
}

static int port_set(struct dl *dl)
{
	enum dlh_port_type type = DLH_PORT_TYPE_NOTSET;
	unsigned long misses;
	struct dlh_port *port;
	struct dlh_extack ext;
	const char *kw, *val;
	struct dlh_plan plan;
	bool dry = false;
	int err = port_arg(dl, "set", &port);

	if (err)
		return err;
	if (!dl_arg(dl))
		return dl_usage_err(port_usage, "port set: nothing to set, expected \"type\"");
	while ((kw = dl_shift(dl))) {
		if (!strcmp(kw, "--dry-run") && !dl_arg(dl)) {
			dry = true;
			break;
		}
		if (!dl_match(kw, "type"))
			return dl_usage_err(port_usage, "port set: unknown option \"%s\"", kw);
		val = dl_shift(dl);
		if (!val)
			return dl_usage_err(port_usage, "port set: type expects eth, ib or auto");
		if (dlh_port_type_parse(val, &type) || type == DLH_PORT_TYPE_NOTSET)
			return dl_usage_err(port_usage, "Unknown port type \"%s\", expected eth, ib or auto", val);
	}
	if (type == DLH_PORT_TYPE_NOTSET)
		return dl_usage_err(port_usage, "port set: nothing to set, expected \"type\"");
	if (dry) {
		err = dlh_port_type_set_plan(port, type, &plan, &ext);
		return dry_done(dl, "set", port, 0, dlh_port_type_name(type), err, &plan, &ext);
	}
	misses = dlh_ctx_plan_misses(dl->ctx);
	err = dlh_port_type_set(port, type, &ext);
	return dl_change_done(dl, misses, err, &ext);
}

static int count_parse(const char *s, unsigned int *count)
{
	uint64_t v = 0;

	if (!*s)
		return -EINVAL;
	for (const char *p = s; *p; p++) {
		if (*p < '0' || *p > '9')
			return -EINVAL;
		v = v * 10 + (uint64_t)(*p - '0');
		if (v > UINT32_MAX)
			return -ERANGE;
	}
	if (v < 2)
		return -ERANGE;
	*count = (unsigned int)v;
	return 0;
}

/* A trailing --dry-run; anything else left is bad usage. */
static int dry_run_arg(struct dl *dl, bool *dry)
{
	*dry = dl_arg(dl) && !strcmp(dl_arg(dl), "--dry-run");
	if (*dry)
		dl_shift(dl);
	if (dl_arg(dl))
		return dl_usage_err(port_usage, "Unexpected argument \"%s\"", dl_arg(dl));
	return 0;
}

static int port_split(struct dl *dl)
{
	unsigned long misses;
	struct dlh_port *port;
	struct dlh_extack ext;
	struct dlh_plan plan;
	unsigned int count;
	const char *word;
	bool dry;
	int err = port_arg(dl, "split", &port);

	if (err)
		return err;
	word = dl_shift(dl);
	if (word && dl_match(word, "count"))
		word = dl_shift(dl);
	if (!word || !strcmp(word, "--dry-run"))
		return dl_usage_err(port_usage, "port split: count expected");
	err = dry_run_arg(dl, &dry);
	if (err)
		return err;
	err = count_parse(word, &count);
	if (err == -EINVAL)
		return dl_usage_err(port_usage, "Split count \"%s\" is not a number", word);
	if (err)
		return dl_usage_err(port_usage, "Split count \"%s\" is out of range (2 to %u)", word, UINT32_MAX);
	if (dry) {
		err = dlh_port_split_plan(port, count, &plan, &ext);
		return dry_done(dl, "split", port, count, NULL, err, &plan, &ext);
	}
	misses = dlh_ctx_plan_misses(dl->ctx);
	err = dlh_port_split(port, count, &ext);
	return dl_change_done(dl, misses, err, &ext);
}

static int port_unsplit(struct dl *dl)
{
	unsigned long misses;
	struct dlh_port *port;
	struct dlh_extack ext;
	struct dlh_plan plan;
	bool dry;
	int err = port_arg(dl, "unsplit", &port);

	if (err)
		return err;
	err = dry_run_arg(dl, &dry);
	if (err)
		return err;
	if (dry) {
		err = dlh_port_unsplit_plan(port, &plan, &ext);
		return dry_done(dl, "unsplit", port, 0, NULL, err, &plan, &ext);
	}
	misses = dlh_ctx_plan_misses(dl->ctx);
	err = dlh_port_unsplit(port, &ext);
	return dl_change_done(dl, misses, err, &ext);
}

int cmd_port(struct dl *dl)
{
	const char *cmd = dl_shift(dl);

	/* Order matters: a prefix takes the first command it matches ("s" is show), as in iproute2. */
	if (!cmd || dl_match(cmd, "show") || dl_match(cmd, "list"))
		return port_show(dl);
	if (dl_match(cmd, "set"))
		return port_set(dl);
	if (dl_match(cmd, "split"))
		return port_split(dl);
	if (dl_match(cmd, "unsplit"))
		return port_unsplit(dl);
	if (dl_match(cmd, "help")) {
		port_usage(stdout);
		return DL_OK;
	}
	return dl_usage_err(port_usage, "Command \"%s\" not found", cmd);
}
