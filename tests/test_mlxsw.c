/* SPDX-License-Identifier: MIT */
/*
 * Spectrum split/unsplit against an independent model of seeds 004-006,
 * and of Linux 6.1's mlxsw (the firmware names a split's local ports,
 * PMTDB) for a device that stands for one it runs, with the emulated ASIC's
 * lane map checked after every operation.
 */
#include "helpers.h"
#include "rules.h"

#include <criterion/criterion.h>
#include <dlhal/sdk.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DEV "pci/0000:03:00.0"
#define NLP 65

/* ---- reference model of the seed logic ------------------------------------------------------ */

struct ref_port {
	int width, module, lane, split, subport;
	char netdev[16];
	long order; /* registration sequence: listing order */
};

struct ref {
	struct ref_port p[NLP];
	int exists[NLP];
	int to_module[NLP];
	int at_probe[NLP];
	long seq;
	bool linux61; /* as Linux 6.1's devlink core and mlxsw decide */
};

static void ref_name(struct ref *r, char *out)
{
	for (int i = 0;; i++) {
		int used = 0;

		sprintf(out, "eth%d", i);
		for (int lp = 1; lp < NLP; lp++)
			used |= r->exists[lp] && !strcmp(r->p[lp].netdev, out);
		if (!used)
			return;
	}
}

static void ref_add(struct ref *r, int lp, int module, int width, int lane, int split, int subport)
{
	struct ref_port *p = &r->p[lp];

	memset(p, 0, sizeof(*p));
	p->width = width;
	p->module = module;
	p->lane = lane;
	p->split = split;
	p->subport = subport;
	ref_name(r, p->netdev);
	p->order = r->seq++;
	r->exists[lp] = 1;
}

/* The sn2700 board: local port 4c+1 on module 16+c, 4c+3 on module c. */
static void ref_init(struct ref *r)
{
	memset(r, 0, sizeof(*r));
	for (int lp = 1; lp < NLP; lp += 2) {
		int c = (lp - 1) / 4;

		r->to_module[lp] = (lp - 1) % 4 ? c : 16 + c;
		r->at_probe[lp] = 1;
		ref_add(r, lp, r->to_module[lp], 4, 0, 0, 0);
	}
}

/*
 * Linux 6.1: the local ports PMTDB gives for @module split into @count (the
 * emulated firmware's answers: the module's port and the next, or its
 * cluster), the number of them; 0 if the board has no port of that module.
 */
static int ref_pmtdb(const struct ref *r, int module, unsigned count, int *lps)
{
	int lp = 0;

	for (int i = 1; i < NLP && !lp; i++)
		if (r->at_probe[i] && r->to_module[i] == module)
			lp = i;
	if (!lp)
		return 0;
	if (count == 4)
		lp -= (lp - 1) % 4;
	for (unsigned i = 0; i < count; i++)
		lps[i] = lp + (int)i;
	return (int)count;
}

static const char *ref_split61(struct ref *r, int lp, unsigned count)
{
	int lps[4], module = r->p[lp].module, width = 4 / (int)(count ? count : 1);

	if (count < 2)
		return "Invalid split count";
	if (r->p[lp].width != 4)
		return "Port cannot be split further";
	if ((count & (count - 1)) || count > 4)
		return "Invalid split count";
	if (!ref_pmtdb(r, module, count, lps))
		return "Unsupported split configuration";
	for (unsigned i = 0; i < count; i++)
		r->exists[lps[i]] = 0;
	for (unsigned i = 0; i < count; i++)
		ref_add(r, lps[i], module, width, (int)i * width, 1, (int)i);
	return NULL;
}

static const char *ref_unsplit61(struct ref *r, int lp)
{
	int lps[4], n;

	if (!r->p[lp].split)
		return "Port was not split";
	n = ref_pmtdb(r, r->p[lp].module, 4 / (unsigned)r->p[lp].width, lps);
	for (int i = 0; i < n; i++)
		r->exists[lps[i]] = 0;
	for (int i = 0; i < n; i++)
		if (r->at_probe[lps[i]])
			ref_add(r, lps[i], r->to_module[lps[i]], 4, 0, 0, 0);
	return NULL;
}

static const char *ref_split(struct ref *r, int lp, unsigned count)
{
	int base, module, width;

	if (!r->exists[lp])
		return "does not exist";
	if (r->linux61)
		return ref_split61(r, lp, count);
	if (count != 2 && count != 4)
		return "Port can only be split into 2 or 4 ports";
	if (r->p[lp].width != 4)
		return "Port cannot be split further";
	if (count == 2) {
		base = lp;
		if (base + 1 >= NLP || r->exists[base + 1])
			return "Invalid split configuration";
	} else {
		base = lp - (lp - 1) % 4;
		if (r->exists[base + 1] || r->exists[base + 3])
			return "Invalid split configuration";
	}
	module = r->p[lp].module;
	width = 4 / (int)count;
	for (unsigned i = 0; i < count; i++)
		r->exists[base + (int)i] = 0;
	for (unsigned i = 0; i < count; i++)
		ref_add(r, base + (int)i, module, width, (int)i * width, 1, (int)i);
	return NULL;
}

static const char *ref_unsplit(struct ref *r, int lp)
{
	int base, count;

	if (!r->exists[lp])
		return "does not exist";
	if (r->linux61)
		return ref_unsplit61(r, lp);
	if (!r->p[lp].split)
		return "Port wasn't split";
	count = r->p[lp].width == 1 ? 4 : 2;
	base = lp - (lp - 1) % 4;
	if (count == 2 && lp >= base + 2)
		base += 2;
	for (int i = 0; i < count; i++)
		r->exists[base + i] = 0;
	for (int i = 0; i < count / 2; i++)
		if (r->at_probe[base + i * 2])
			ref_add(r, base + i * 2, r->to_module[base + i * 2], 4, 0, 0, 0);
	return NULL;
}

/* The model dump (see helpers.c) the reference predicts, in listing order. */
static char *ref_dump(struct ref *r)
{
	char *buf = calloc(1, 16384), line[256];
	long last = -1;

	for (;;) {
		long best = -1;
		int lp_best = 0;

		for (int lp = 1; lp < NLP; lp++)
			if (r->exists[lp] && r->p[lp].order > last && (best < 0 || r->p[lp].order < best))
				best = r->p[lp].order, lp_best = lp;
		if (best < 0)
			return buf;
		last = best;
		struct ref_port *p = &r->p[lp_best];
		snprintf(line, sizeof(line), DEV "/%d eth notset %s - %d %d %d %d %d\n", lp_best, p->netdev, p->split,
			 p->split ? p->module : 0, p->width, p->module, p->lane);
		strcat(buf, line);
	}
}

/* ---- checks against the hardware ------------------------------------------------------------ */

static char *pmlp(struct dlh_ctx *ctx)
{
	static char buf[8192];
	struct dlh_extack ext;

	cr_assert_eq(dlh_dev_sim_get(dlh_dev_find(ctx, DEV), NULL, "pmlp", buf, sizeof(buf), &ext), 0, "%s", ext.msg);
	return buf;
}

/* Each module lane is mapped at most once; every port is mapped and enabled as the model says. */
static void check_hw(struct dlh_ctx *ctx)
{
	char *dump = strdup(pmlp(ctx)), *save = NULL;
	int owner[64][4] = {{0}}, seen[NLP] = {0};
	struct dlh_dev *dev = dlh_dev_find(ctx, DEV);

	for (char *e = strtok_r(dump, " ", &save); e; e = strtok_r(NULL, " ", &save)) {
		unsigned lp, width, module, lane;
		char en;
		struct dlh_port *port;
		uint32_t m, l;

		cr_assert_eq(sscanf(e, "%u:%u:%u:%u:%c", &lp, &width, &module, &lane, &en), 5, "%s", e);
		for (unsigned i = 0; i < width; i++) {
			cr_assert_eq(owner[module][lane + i], 0, "module %u lane %u mapped twice", module, lane + i);
			owner[module][lane + i] = (int)lp;
		}
		port = dlh_port_find(dev, lp);
		cr_assert_not_null(port, "local port %u mapped in hardware but not in the model", lp);
		cr_assert_eq(en, 'e', "local port %u mapped but disabled", lp);
		cr_assert(dlh_port_module(port, &m, &l));
		cr_assert_eq(m, module);
		cr_assert_eq(l, lane);
		cr_assert_eq(dlh_port_lanes(port), width);
		seen[lp] = 1;
	}
	for (struct dlh_port *p = dlh_port_first(dev); p; p = dlh_port_next(p))
		cr_assert(seen[dlh_port_index(p)], "port %u in the model but unmapped", dlh_port_index(p));
	free(dump);
}

static void check(struct dlh_ctx *ctx, struct ref *r)
{
	char *want = ref_dump(r), *got = model_dump(ctx);

	cr_assert_str_eq(got, want);
	check_hw(ctx);
	free(want);
	free(got);
}

static struct dlh_port *port(struct dlh_ctx *ctx, unsigned lp)
{
	return dlh_port_find(dlh_dev_find(ctx, DEV), lp);
}

/*
 * The plan made before an op says exactly what the op did: the same refusal
 * and message, or the same ports gone and come (indices, netdevs, lanes,
 * split groups, subports), and nothing else changed.
 */
struct planned {
	int err;
	struct dlh_extack ext;
	struct dlh_plan plan;
	char before[128][64]; /* each local port's netdev before, "" for none */
};

static void port_names(struct dlh_ctx *ctx, char (*names)[64])
{
	for (unsigned lp = 0; lp < 128; lp++) {
		struct dlh_port *p = dlh_port_find(dlh_dev_find(ctx, DEV), lp);

		snprintf(names[lp], 64, "%s", p && dlh_port_netdev(p) ? dlh_port_netdev(p) : "");
	}
}

static void plan_check(struct dlh_ctx *ctx, const struct planned *pl, int err, const struct dlh_extack *ext)
{
	char after[128][64];
	bool gone[128] = {0}, come[128] = {0};

	cr_assert_eq(pl->err, err, "plan %d (%s), op %d (%s)", pl->err, pl->ext.msg, err, ext->msg);
	if (err) {
		cr_assert_str_eq(pl->ext.msg, ext->msg, "the plan refuses in the op's words");
		return;
	}
	for (unsigned i = 0; i < pl->plan.ngone; i++)
		gone[pl->plan.gone[i]] = true;
	for (unsigned i = 0; i < pl->plan.ncome; i++) {
		const struct dlh_plan_port *c = &pl->plan.come[i];
		struct dlh_port *p = dlh_port_find(dlh_dev_find(ctx, DEV), c->index);

		come[c->index] = true;
		cr_assert_not_null(p, "planned port %u came", c->index);
		cr_assert_str_eq(c->netdev, dlh_port_netdev(p), "port %u's netdev", c->index);
		cr_assert_eq(c->lanes, dlh_port_lanes(p));
		cr_assert_eq(c->split, dlh_port_is_split(p));
		cr_assert_eq(c->split_group, dlh_port_split_group(p));
		cr_assert_eq(c->split_subport, dlh_port_split_subport(p));
	}
	port_names(ctx, after);
	for (unsigned lp = 0; lp < 128; lp++) {
		if (come[lp])
			continue;
		if (gone[lp])
			cr_assert_str_eq(after[lp], "", "planned gone, port %u went", lp);
		else
			cr_assert_str_eq(after[lp], pl->before[lp], "port %u, in no plan, is as it was", lp);
	}
}

static int split(struct dlh_ctx *ctx, struct ref *r, unsigned lp, unsigned count)
{
	struct dlh_extack ext;
	const char *want = ref_split(r, (int)lp, count);
	static struct planned pl;
	int err;

	port_names(ctx, pl.before);
	pl.err = dlh_port_split_plan(port(ctx, lp), count, &pl.plan, &pl.ext);
	err = dlh_port_split(port(ctx, lp), count, &ext);
	plan_check(ctx, &pl, err, &ext);

	if (want) {
		cr_assert_eq(err, -EINVAL, "split %u by %u", lp, count);
		cr_assert_str_eq(ext.msg, want);
		char handle[64];

		snprintf(handle, sizeof(handle), DEV "/%u", lp);
		cr_assert_str_eq(ext.obj, handle, "the message names the port");
	} else {
		cr_assert_eq(err, 0, "split %u by %u: %s", lp, count, ext.msg);
	}
	check(ctx, r);
	return err;
}

static int unsplit(struct dlh_ctx *ctx, struct ref *r, unsigned lp)
{
	struct dlh_extack ext;
	const char *want = ref_unsplit(r, (int)lp);
	static struct planned pl;
	int err;

	port_names(ctx, pl.before);
	pl.err = dlh_port_unsplit_plan(port(ctx, lp), &pl.plan, &pl.ext);
	err = dlh_port_unsplit(port(ctx, lp), &ext);
	plan_check(ctx, &pl, err, &ext);

	if (want) {
		cr_assert_eq(err, -EINVAL, "unsplit %u", lp);
		cr_assert_str_eq(ext.msg, want);
	} else {
		cr_assert_eq(err, 0, "unsplit %u: %s", lp, ext.msg);
	}
	check(ctx, r);
	return err;
}

/* ---- tests ------------------------------------------------------------------------------------ */

Test(spectrum, probe_matches_the_seed)
{
	struct dlh_ctx *ctx = ctx_with("sn2700");
	struct ref r;
	struct dlh_port *p1 = port(ctx, 1);
	uint32_t module;

	ref_init(&r);
	check(ctx, &r);
	cr_expect_eq(dlh_dev_port_count(dlh_dev_find(ctx, DEV)), 32);
	cr_expect_str_eq(dlh_port_netdev(port(ctx, 63)), "eth31");
	cr_expect(dlh_port_module(p1, &module, NULL));
	cr_expect_eq(module, 16, "local port 1 is on module 16");
	cr_expect_eq(dlh_port_speed(p1), 100000);
	cr_expect(dlh_port_splittable(p1));
	cr_expect_eq(dlh_port_flavour(p1), DLH_PORT_FLAVOUR_PHYSICAL);
	dlh_ctx_free(ctx);
}

Test(spectrum, seed_transcript_split_by_2_and_unsplit)
{
	struct dlh_ctx *ctx = ctx_with("sn2700");
	struct ref r;
	struct dlh_port *p;

	ref_init(&r);
	split(ctx, &r, 1, 2);
	p = port(ctx, 2);
	cr_expect_str_eq(dlh_port_netdev(port(ctx, 1)), "eth0");
	cr_expect_str_eq(dlh_port_netdev(p), "eth32");
	cr_expect(dlh_port_is_split(p));
	cr_expect_eq(dlh_port_split_group(p), 16);
	cr_expect_eq(dlh_port_speed(p), 50000, "25G per lane, 2 lanes");
	cr_expect_not(dlh_port_splittable(p));
	unsplit(ctx, &r, 1);
	cr_expect_str_eq(dlh_port_netdev(port(ctx, 1)), "eth0");
	cr_expect_null(port(ctx, 2));
	dlh_ctx_free(ctx);
}

Test(spectrum, split_by_4_from_port_1_and_3_then_unsplit_from_each)
{
	for (unsigned from = 1; from <= 3; from += 2) {
		for (unsigned un = 1; un <= 4; un++) {
			struct dlh_ctx *ctx = ctx_with("sn2700");
			struct ref r;

			ref_init(&r);
			split(ctx, &r, from, 4);
			cr_expect_eq(dlh_port_split_group(port(ctx, 4)), from == 1 ? 16 : 0,
				     "group is the module of the handle port");
			cr_expect_eq(dlh_port_speed(port(ctx, 4)), 25000);
			unsplit(ctx, &r, un);
			cr_expect_str_eq(dlh_port_netdev(port(ctx, 1)), "eth0");
			cr_expect_str_eq(dlh_port_netdev(port(ctx, 3)), "eth1");
			dlh_ctx_free(ctx);
		}
	}
}

Test(spectrum, split_by_2_then_unsplit_from_either_half)
{
	for (unsigned from = 1; from <= 3; from += 2) {
		for (unsigned un = from; un <= from + 1; un++) {
			struct dlh_ctx *ctx = ctx_with("sn2700");
			struct ref r;

			ref_init(&r);
			split(ctx, &r, from, 2);
			split(ctx, &r, from == 1 ? 3 : 1, 2); /* the neighbour pair too */
			unsplit(ctx, &r, un);
			dlh_ctx_free(ctx);
		}
	}
}

Test(spectrum, invalid_configurations)
{
	struct dlh_ctx *ctx = ctx_with("sn2700");
	struct ref r;

	ref_init(&r);
	cr_expect_eq(split(ctx, &r, 1, 3), -EINVAL);
	cr_expect_eq(split(ctx, &r, 1, 8), -EINVAL);
	cr_expect_eq(unsplit(ctx, &r, 1), -EINVAL, "Port wasn't split");
	split(ctx, &r, 1, 2);
	cr_expect_eq(split(ctx, &r, 1, 2), -EINVAL, "split port cannot be split further");
	cr_expect_eq(split(ctx, &r, 2, 2), -EINVAL);
	cr_expect_eq(split(ctx, &r, 3, 4), -EINVAL, "port 2 of the cluster is in use");
	split(ctx, &r, 63, 4);
	cr_expect_eq(split(ctx, &r, 62, 2), -EINVAL);
	cr_expect_eq(split(ctx, &r, 61, 4), -EINVAL);
	dlh_ctx_free(ctx);
}

Test(spectrum, random_sequences_follow_the_seed_logic)
{
	unsigned seed = 12345;

	for (int run = 0; run < 4; run++) {
		struct dlh_ctx *ctx = ctx_with("sn2700");
		struct ref r;

		ref_init(&r);
		for (int i = 0; i < 300; i++) {
			unsigned lp;

			do
				lp = 1 + (unsigned)rand_r(&seed) % 64;
			while (!r.exists[lp]);
			if (rand_r(&seed) % 2)
				split(ctx, &r, lp, (unsigned[]){2, 4, 2, 4, 3}[rand_r(&seed) % 5]);
			else
				unsplit(ctx, &r, lp);
		}
		dlh_ctx_free(ctx);
	}
}

/* A Spectrum that stands for one Linux 6.1's mlxsw_spectrum runs (dlhald --kernel-bridge publishes it so). */
static struct dlh_ctx *ctx_linux61(struct ref *r)
{
	struct dlh_ctx *ctx = ctx_with("sn2700");
	struct dlh_extack ext;

	cr_assert_eq(dlh_sdk_dev_linux_set(dlh_dev_find(ctx, DEV), "6.1.0-28-amd64", &ext), 0, "%s", ext.msg);
	ref_init(r);
	r->linux61 = true;
	return ctx;
}

Test(spectrum, as_linux_6_1_a_split_takes_the_ports_the_firmware_names)
{
	struct ref r;
	struct dlh_ctx *ctx = ctx_linux61(&r);

	split(ctx, &r, 3, 2);
	/* the seeds refuse this (port 4 of the cluster is in use); 6.1 takes ports 1 to 4 from both modules */
	split(ctx, &r, 1, 4);
	{
		uint32_t module, lane;

		cr_assert(dlh_port_module(port(ctx, 4), &module, &lane));
		cr_expect_eq(module, 16, "port 4 is now lane 3 of port 1's module");
		cr_expect_eq(lane, 3);
	}
	unsplit(ctx, &r, 2);
	cr_expect_str_eq(dlh_port_netdev(port(ctx, 1)), "eth0");
	cr_expect_eq(dlh_port_lanes(port(ctx, 3)), 4, "module 0's port is back, whole");
	cr_expect_eq(unsplit(ctx, &r, 5), -EINVAL, "Port was not split");
	cr_expect_eq(split(ctx, &r, 1, 3), -EINVAL, "6.1's core: Invalid split count");
	cr_expect_eq(split(ctx, &r, 1, 8), -EINVAL, "more than its 4 lanes");
	dlh_ctx_free(ctx);
}

Test(spectrum, as_linux_6_1_random_sequences_follow_its_mlxsw)
{
	unsigned seed = 6100;

	for (int run = 0; run < 4; run++) {
		struct ref r;
		struct dlh_ctx *ctx = ctx_linux61(&r);

		for (int i = 0; i < 300; i++) {
			unsigned lp;

			do
				lp = 1 + (unsigned)rand_r(&seed) % 64;
			while (!r.exists[lp]);
			if (rand_r(&seed) % 2)
				split(ctx, &r, lp, (unsigned[]){2, 4, 2, 4, 3, 8}[rand_r(&seed) % 6]);
			else
				unsplit(ctx, &r, lp);
		}
		dlh_ctx_free(ctx);
	}
}

/* The firmware's answer to PMTDB is asked after PMLP; when it fails, nothing changes. */
Test(spectrum, as_linux_6_1_a_failed_split_query_changes_nothing)
{
	struct ref r;
	struct dlh_ctx *ctx = ctx_linux61(&r);
	struct dlh_dev *dev = dlh_dev_find(ctx, DEV);
	struct dlh_extack ext;

	cr_assert_eq(dlh_dev_sim_set(dev, NULL, "fail_nth", "2", &ext), 0, "%s", ext.msg);
	cr_expect_eq(dlh_port_split(port(ctx, 1), 2, &ext), -EIO);
	cr_expect_str_eq(ext.msg, "Failed to query split info");
	check(ctx, &r);
	split(ctx, &r, 1, 2);
	cr_assert_eq(dlh_dev_sim_set(dev, NULL, "fail_nth", "2", &ext), 0, "%s", ext.msg);
	cr_expect_eq(dlh_port_unsplit(port(ctx, 2), &ext), -EIO);
	cr_expect_str_eq(ext.msg, "Failed to query split info");
	check(ctx, &r);
	dlh_ctx_free(ctx);
}

Test(spectrum, events_of_a_split)
{
	struct dlh_ctx *ctx = ctx_with("sn2700");
	struct recorder rec;

	recorder_attach(&rec, ctx);
	cr_assert_eq(dlh_port_split(port(ctx, 1), 2, NULL), 0);
	cr_expect_str_eq(rec.log, "port,del " DEV "/1 eth0\n"
				  "port,new " DEV "/1 notset\n"
				  "port,new " DEV "/1 eth0\n"
				  "port,new " DEV "/2 notset\n"
				  "port,new " DEV "/2 eth32\n");
	dlh_ctx_free(ctx);
	free(rec.log);
}

Test(spectrum, emulator_controls_are_checked)
{
	struct dlh_ctx *ctx = ctx_with("sn2700");
	struct dlh_dev *dev = dlh_dev_find(ctx, DEV);
	struct dlh_extack ext;
	char buf[8];

	cr_expect_eq(dlh_dev_sim_set(dev, NULL, "fail_nth", "x", &ext), -EINVAL);
	cr_expect_eq(dlh_dev_sim_set(dev, NULL, "fail_nth", "-1", &ext), -EINVAL);
	cr_expect_eq(dlh_dev_sim_set(dev, NULL, "cable", "ib", &ext), -EINVAL);
	cr_expect_not_null(strstr(ext.msg, "Unknown emulator control \"cable\""));
	cr_expect_eq(dlh_dev_sim_get(dev, NULL, "pmlp", buf, sizeof(buf), &ext), -ENOSPC);
	cr_expect_eq(dlh_dev_sim_set(dev, NULL, "fail_nth", "1", &ext), 0);
	cr_expect_eq(dlh_port_split(port(ctx, 1), 2, &ext), -EIO);
	cr_expect_str_eq(ext.msg, "Failed to get port's width");
	cr_expect_str_eq(ext.obj, DEV "/1");
	dlh_ctx_free(ctx);
}

/*
 * dl dev info of a Spectrum: what Linux's mlxsw says (6.1's mlxsw_devlink_info_get): the PCI
 * driver's name, MGIR's hardware revision in hex and PSID (fixed), the running firmware; a
 * failing MGIR read is an error that says so, and leaves nothing half filled.
 */
Test(spectrum, dev_info_is_linux_mlxsw_from_mgir)
{
	struct dlh_ctx *ctx = ctx_with("sn2700");
	struct dlh_dev *dev = dlh_dev_find(ctx, DEV);
	struct dlh_dev_info *info = malloc(sizeof(*info));
	struct dlh_extack ext;

	cr_assert_not_null(info);
	cr_assert_eq(dlh_dev_info_get(dev, info, &ext), 0, "%s", ext.msg);
	cr_expect_str_eq(info->driver, "mlxsw_spectrum");
	cr_assert_eq(info->nversions, 4);
	cr_expect_eq(info->versions[0].kind, DLH_VERSION_FIXED);
	cr_expect_str_eq(info->versions[0].name, "hw.revision");
	cr_expect_str_eq(info->versions[0].value, "A1");
	cr_expect_str_eq(info->versions[1].name, "fw.psid");
	cr_expect_str_eq(info->versions[1].value, "MT_2860111033");
	cr_expect_eq(info->versions[2].kind, DLH_VERSION_RUNNING);
	cr_expect_str_eq(info->versions[2].name, "fw.version");
	cr_expect_str_eq(info->versions[2].value, "13.2010.1006");
	cr_expect_eq(info->versions[3].kind, DLH_VERSION_RUNNING);
	cr_expect_str_eq(info->versions[3].name, "fw");
	cr_expect_str_eq(info->versions[3].value, "13.2010.1006");
	cr_expect_eq(dlh_dev_sim_set(dev, NULL, "fail_nth", "1", &ext), 0);
	cr_expect_eq(dlh_dev_info_get(dev, info, &ext), -EIO);
	cr_expect_str_eq(ext.msg, "Failed to query the device's general information (MGIR)");
	cr_expect_eq(info->nversions, 0);
	cr_expect_str_eq(info->driver, "");
	free(info);
	dlh_ctx_free(ctx);
}

static bool no_port(const void *arg, unsigned int local_port, struct port_spec *ps)
{
	(void)arg;
	(void)local_port;
	(void)ps;
	return false;
}

/* Linux 6.1 takes PMTDB's answer to an unsplit unchecked; a board that has no answer is refused, never "done". */
Test(spectrum, as_linux_6_1_an_unsplit_without_an_answer_is_refused)
{
	struct mlxsw_facts facts = {.netdev_pattern = "eth%d"};
	const struct ports_view v = {.facts = &facts, .linux = MLXSW_LINUX_PMTDB, .own = no_port};
	struct port_spec old[MLXSW_SPLIT_MAX], new[MLXSW_SPLIT_MAX];
	struct mlxsw_pmtdb db = {.ok = false};
	struct dlh_extack ext = {0};
	int nold = -1, nnew = -1;

	cr_expect_eq(mlxsw_unsplit_decide(&v, 1, 0, 2, &db, old, &nold, new, &nnew, &ext), -EINVAL);
	cr_expect_str_eq(ext.msg, "Unsupported split configuration");
	cr_expect_eq(mlxsw_unsplit_decide(&v, 1, 0, 2, NULL, old, &nold, new, &nnew, &ext), -EINVAL);
}

/*
 * Spectrum-2, -3 and -4 boards (issue 43), emulated: every port of N lanes
 * splits into every power of two up to N and back (the kernel selftest's
 * contract, devlink_port_split.py), each split port N/count lanes at its
 * share of the module's lanes, at the generation's lane speed, on local
 * ports of its own module; counts Linux's core refuses are refused in its
 * words.
 */
Test(spectrum, later_generations_split_every_port_by_every_power_of_two_up_to_its_lanes)
{
	static const struct {
		const char *profile, *dev, *driver;
		unsigned int lane_speed, splits; /* cages of N lanes times log2(N) */
	} boards[] = {
	    {"sn3700", "pci/0000:0a:00.0", "mlxsw_spectrum2", 50000, 32 * 2},
	    {"sn4700", "pci/0000:0b:00.0", "mlxsw_spectrum3", 50000, 32 * 3},
	    {"sn5600", "pci/0000:0c:00.0", "mlxsw_spectrum4", 100000, 64 * 3},
	};

	for (size_t b = 0; b < sizeof(boards) / sizeof(boards[0]); b++) {
		struct dlh_ctx *ctx = ctx_with(boards[b].profile);
		struct dlh_dev *dev = dlh_dev_find(ctx, boards[b].dev);
		struct dlh_dev_info *info = malloc(sizeof(*info));
		uint32_t indexes[80];
		size_t n = 0, splits = 0;
		struct dlh_extack ext;

		cr_assert_not_null(dev, "%s", boards[b].profile);
		cr_assert_eq(dlh_dev_info_get(dev, info, &ext), 0, "%s", ext.msg);
		cr_expect_str_eq(info->driver, boards[b].driver);
		free(info);
		for (struct dlh_port *p = dlh_port_first(dev); p && n < 80; p = dlh_port_next(p))
			indexes[n++] = dlh_port_index(p);
		for (size_t i = 0; i < n; i++) {
			struct dlh_port *p = dlh_port_find(dev, indexes[i]);
			unsigned int lanes = dlh_port_lanes(p), number = dlh_port_number(p);
			uint32_t module = 0, lane = 0;

			cr_expect_eq(dlh_port_splittable(p), lanes > 1, "%s/%u", boards[b].dev, indexes[i]);
			if (lanes == 1) {
				cr_expect_eq(dlh_port_split(p, 2, &ext), -EINVAL);
				cr_expect_str_eq(ext.msg, "Port cannot be split");
				continue;
			}
			cr_expect_eq(dlh_port_split(p, lanes * 2, &ext), -EINVAL);
			cr_expect_str_eq(ext.msg, "Invalid split count");
			cr_expect_eq(dlh_port_split(dlh_port_find(dev, indexes[i]), 3, &ext), -EINVAL);
			cr_expect_str_eq(ext.msg, "Invalid split count");
			for (unsigned int count = lanes; count > 1; count /= 2, splits++) {
				cr_assert_eq(dlh_port_split(dlh_port_find(dev, indexes[i]), count, &ext), 0,
					     "%s/%u by %u: %s", boards[b].dev, indexes[i], count, ext.msg);
				for (unsigned int k = 0; k < count; k++) {
					struct dlh_port *s = dlh_port_find(dev, indexes[i] + k);

					cr_assert_not_null(s, "%s/%u by %u: port %u", boards[b].dev, indexes[i], count,
							   indexes[i] + k);
					cr_expect_eq(dlh_port_lanes(s), lanes / count);
					cr_expect_eq(dlh_port_number(s), number);
					cr_expect_eq(dlh_port_split_subport(s), k);
					cr_expect(dlh_port_module(s, &module, &lane));
					cr_expect_eq(lane, k * (lanes / count));
					cr_expect_eq(dlh_port_speed(s), boards[b].lane_speed * (lanes / count));
					cr_expect_not(dlh_port_splittable(s));
				}
				cr_expect_eq(dlh_port_split(dlh_port_find(dev, indexes[i]), 2, &ext), -EINVAL);
				cr_expect_str_eq(ext.msg, "Port cannot be split further");
				cr_assert_eq(dlh_port_unsplit(dlh_port_find(dev, indexes[i] + count - 1), &ext), 0,
					     "%s", ext.msg);
				cr_expect_eq(dlh_port_lanes(dlh_port_find(dev, indexes[i])), lanes);
				cr_expect_null(dlh_port_find(dev, indexes[i] + 1));
			}
		}
		cr_expect_eq(splits, boards[b].splits, "%s: %zu splits", boards[b].profile, splits);
		dlh_ctx_free(ctx);
	}
}

/* An SN5600 split by 8 everywhere: 512 ports, and back; the lane map the ASIC holds says so. */
Test(spectrum, an_sn5600_split_by_8_has_512_ports)
{
	struct dlh_ctx *ctx = ctx_with("sn5600");
	struct dlh_dev *dev = dlh_dev_find(ctx, "pci/0000:0c:00.0");
	struct dlh_extack ext;
	char pmlp[16384];
	size_t n = 0;

	for (unsigned int cage = 0; cage < 64; cage++)
		cr_assert_eq(dlh_port_split(dlh_port_find(dev, 8 * cage + 1), 8, &ext), 0, "%s", ext.msg);
	for (struct dlh_port *p = dlh_port_first(dev); p; p = dlh_port_next(p))
		n++;
	cr_expect_eq(n, 513, "512 split ports and the service port");
	cr_assert_eq(dlh_dev_sim_get(dev, NULL, "pmlp", pmlp, sizeof(pmlp), &ext), 0, "%s", ext.msg);
	cr_expect_not_null(strstr(pmlp, " 512:1:63:7:e 513:1:64:0:e"), "%s", pmlp + strlen(pmlp) - 40);
	for (unsigned int cage = 0; cage < 64; cage++)
		cr_assert_eq(dlh_port_unsplit(dlh_port_find(dev, 8 * cage + 8), &ext), 0, "%s", ext.msg);
	n = 0;
	for (struct dlh_port *p = dlh_port_first(dev); p; p = dlh_port_next(p))
		n++;
	cr_expect_eq(n, 65);
	dlh_ctx_free(ctx);
}
