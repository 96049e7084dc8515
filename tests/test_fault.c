/* SPDX-License-Identifier: MIT */
/*
 * Fault injection: fail each register access of an operation in turn; the
 * operation must fail and leave ports, names, modules, lanes and listing
 * order exactly as before, with no events delivered.
 */
#include "helpers.h"

#include <criterion/criterion.h>
#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define DEV "pci/0000:03:00.0"

struct scenario {
	const char *name;
	unsigned setup_split_port, setup_count; /* 0: none */
	int op_split;				/* 1: split, 0: unsplit */
	unsigned port, count;
};

static char *hw_dump(struct dlh_ctx *ctx)
{
	char *buf = malloc(8192);
	struct dlh_extack ext;

	cr_assert_eq(dlh_dev_sim_get(dlh_dev_find(ctx, DEV), NULL, "pmlp", buf, 8192, &ext), 0);
	return buf;
}

static unsigned long pending(struct dlh_ctx *ctx)
{
	char buf[32];

	cr_assert_eq(dlh_dev_sim_get(dlh_dev_find(ctx, DEV), NULL, "fail_nth", buf, sizeof(buf), NULL), 0);
	return strtoul(buf, NULL, 10);
}

static int run_op(struct dlh_ctx *ctx, const struct scenario *s, struct dlh_extack *ext)
{
	struct dlh_port *p = dlh_port_find(dlh_dev_find(ctx, DEV), s->port);

	cr_assert_not_null(p);
	return s->op_split ? dlh_port_split(p, s->count, ext) : dlh_port_unsplit(p, ext);
}

static void scenario_run(const struct scenario *s)
{
	char *clean_model = NULL, *clean_hw = NULL;
	unsigned n;

	for (n = 1;; n++) {
		struct dlh_ctx *ctx = ctx_with("sn2700");
		struct dlh_dev *dev = dlh_dev_find(ctx, DEV);
		char *model, *hw, *after, *after_hw, nth[16];
		struct dlh_extack ext;
		struct recorder rec;
		int err;

		if (s->setup_split_port)
			cr_assert_eq(dlh_port_split(dlh_port_find(dev, s->setup_split_port), s->setup_count, &ext), 0);
		model = model_dump(ctx);
		hw = hw_dump(ctx);
		recorder_attach(&rec, ctx);
		snprintf(nth, sizeof(nth), "%u", n);
		cr_assert_eq(dlh_dev_sim_set(dev, NULL, "fail_nth", nth, &ext), 0);
		err = run_op(ctx, s, &ext);
		if (!err) {
			/* The fault lies beyond the operation's last access: every position was covered. */
			cr_assert_gt(pending(ctx), 0, "%s: access %u failed but the operation succeeded", s->name, n);
			cr_assert_gt(n, 3, "%s: too few accesses", s->name);
			after = model_dump(ctx);
			after_hw = hw_dump(ctx);
			cr_assert_str_eq(after, clean_model ? clean_model : "", "%s: same result as unfaulted",
					 s->name);
			cr_assert_str_eq(after_hw, clean_hw ? clean_hw : "");
			free(after);
			free(after_hw);
			dlh_ctx_free(ctx);
			free(rec.log);
			free(model);
			free(hw);
			break;
		}
		cr_assert_eq(err, -EIO, "%s, access %u: %d %s", s->name, n, err, ext.msg);
		after = model_dump(ctx);
		after_hw = hw_dump(ctx);
		cr_assert_str_eq(after, model, "%s, access %u: ports changed", s->name, n);
		cr_assert_str_eq(after_hw, hw, "%s, access %u: lane map changed", s->name, n);
		cr_assert_eq(rec.count, 0, "%s, access %u: events on a failed operation: %s", s->name, n, rec.log);
		/* Not wedged: the same operation now succeeds. */
		cr_assert_eq(run_op(ctx, s, &ext), 0, "%s after fault at %u: %s", s->name, n, ext.msg);
		if (!clean_model) {
			clean_model = model_dump(ctx);
			clean_hw = hw_dump(ctx);
		}
		free(model);
		free(hw);
		free(after);
		free(after_hw);
		dlh_ctx_free(ctx);
		free(rec.log);
	}
	free(clean_model);
	free(clean_hw);
}

Test(fault, split)
{
	static const struct scenario s[] = {
	    {"split 1 by 2", 0, 0, 1, 1, 2},
	    {"split 1 by 4", 0, 0, 1, 1, 4},
	    {"split 3 by 4", 0, 0, 1, 3, 4},
	    {"split 63 by 2", 0, 0, 1, 63, 2},
	    {"split 3 by 2 next to a split", 1, 2, 1, 3, 2},
	};

	for (size_t i = 0; i < sizeof(s) / sizeof(s[0]); i++)
		scenario_run(&s[i]);
}

Test(fault, unsplit)
{
	static const struct scenario s[] = {
	    {"unsplit 1 of 2", 1, 2, 0, 1, 0}, {"unsplit 2 of 2", 1, 2, 0, 2, 0}, {"unsplit 1 of 4", 1, 4, 0, 1, 0},
	    {"unsplit 2 of 4", 1, 4, 0, 2, 0}, {"unsplit 3 of 4", 3, 4, 0, 3, 0}, {"unsplit 4 of 4", 3, 4, 0, 4, 0},
	};

	for (size_t i = 0; i < sizeof(s) / sizeof(s[0]); i++)
		scenario_run(&s[i]);
}

static char *profile_with_fault(unsigned n)
{
	char src[512], *path = malloc(64);
	json_t *root;
	int fd;

	snprintf(src, sizeof(src), "%s/drivers/mlxsw/profiles/sn2700.json", getenv("SRCDIR"));
	root = json_load_file(src, 0, NULL);
	cr_assert_not_null(root, "%s", src);
	json_object_set_new(json_object_get(root, "hw"), "fail_nth", json_integer(n));
	snprintf(path, 64, "/tmp/dlhal-fault-XXXXXX.json");
	fd = mkstemps(path, 5);
	cr_assert(fd >= 0);
	close(fd);
	cr_assert_eq(json_dump_file(root, path, 0), 0);
	json_decref(root);
	return path;
}

Test(fault, probe)
{
	struct dlh_ctx *clean = ctx_with("sn2700");
	char *want = model_dump(clean);
	unsigned n;

	dlh_ctx_free(clean);
	for (n = 1;; n++) {
		struct dlh_ctx *ctx = ctx_with("");
		char *path = profile_with_fault(n), *got;
		struct dlh_extack ext;
		int err = dlh_ctx_sim_load(ctx, path, &ext);

		unlink(path);
		free(path);
		if (!err) {
			cr_assert_gt(pending(ctx), 0, "probe access %u failed but probe succeeded", n);
			cr_assert_gt(n, 64, "probe reads all 64 local ports");
			dlh_ctx_free(ctx);
			break;
		}
		cr_assert_eq(err, -EIO, "access %u: %s", n, ext.msg);
		cr_assert_null(dlh_dev_first(ctx), "access %u: device left behind", n);
		cr_assert_null(dlh_port_find_netdev(ctx, "eth0"), "access %u: name left behind", n);
		/* The context is usable: a clean probe gives the usual ports. */
		cr_assert_eq(dlh_ctx_sim_load(ctx, "sn2700", &ext), 0, "%s", ext.msg);
		got = model_dump(ctx);
		cr_assert_str_eq(got, want);
		free(got);
		dlh_ctx_free(ctx);
	}
	free(want);
}
