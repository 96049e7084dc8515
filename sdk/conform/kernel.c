/* SPDX-License-Identifier: MIT */
/*
 * The kit against a kernel device (--kernel DEV): Linux's own driver runs it,
 * and a vendor's rules must know it (a profile standing for what it
 * reports). Then over random splits and unsplits, or type sets where its
 * rules plan types (seeded: a failure is replayed with the same --seed),
 * each change must end as the plan made just before it said: the ports that
 * were to go gone, those to come there with their type, lanes, subport and
 * netdev (where the plan names one), nothing else changed; or refused, in the
 * plan's words, with nothing changed; a plan the rules make partially (what
 * the kernel does not report) must say why, and is counted apart. The ports
 * after each change are read from a second context, so that the answer does
 * not rest on the model the plan came from; core's own check
 * (DLH_EVENT_PLAN_MISS) must agree.
 */
#include "conform.h"

#include <dlhal/sdk.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct kport {
	uint32_t index;
	enum dlh_port_type type; /* planned auto: whichever the link is */
	uint32_t lanes;
	bool split;
	uint32_t subport;
	char netdev[DLH_NETDEV_NAME_MAX];
};

struct kports {
	struct kport v[4096];
	size_t n;
};

static int kport_cmp(const void *a, const void *b)
{
	const struct kport *x = a, *y = b;

	return x->index < y->index ? -1 : x->index > y->index;
}

static void kport_of(const struct dlh_port *p, struct kport *k)
{
	memset(k, 0, sizeof(*k));
	k->index = dlh_port_index(p);
	k->type = dlh_port_type(p);
	k->lanes = dlh_port_lanes(p);
	k->split = dlh_port_is_split(p);
	k->subport = k->split ? dlh_port_split_subport(p) : 0;
	snprintf(k->netdev, sizeof(k->netdev), "%s", dlh_port_netdev(p) ? dlh_port_netdev(p) : "");
}

/* The device's ports as the kernel reports them now, read by a context of their own. */
static int kernel_ports(const char *handle, struct kports *out, struct dlh_extack *ext)
{
	struct dlh_ctx *ctx;
	struct dlh_dev *dev;
	int err = dlh_ctx_new(&ctx, ext);

	if (err)
		return err;
	err = dlh_ctx_backends_attach(ctx, &(struct dlh_backends){.kernel = true}, NULL, ext);
	if (!err && !(dev = dlh_dev_find(ctx, handle)))
		err = dlh_sdk_extack(ext, -ENODEV, "%s: no such kernel device", handle);
	out->n = 0;
	for (struct dlh_port *p = err ? NULL : dlh_port_first(dev); p; p = dlh_port_next(p))
		if (out->n < sizeof(out->v) / sizeof(out->v[0]))
			kport_of(p, &out->v[out->n++]);
	qsort(out->v, out->n, sizeof(out->v[0]), kport_cmp);
	dlh_ctx_free(ctx);
	return err;
}

/* @before with @plan applied: its ports gone, then those that come. */
static void expected(const struct kports *before, const struct dlh_plan *plan, struct kports *want)
{
	want->n = 0;
	for (size_t i = 0; i < before->n; i++) {
		bool gone = false;

		for (unsigned int g = 0; g < plan->ngone && !gone; g++)
			gone = plan->gone[g] == before->v[i].index;
		if (!gone)
			want->v[want->n++] = before->v[i];
	}
	for (unsigned int c = 0; c < plan->ncome && want->n < sizeof(want->v) / sizeof(want->v[0]); c++) {
		struct kport *k = &want->v[want->n++];

		memset(k, 0, sizeof(*k));
		k->index = plan->come[c].index;
		k->type = plan->come[c].type;
		k->lanes = plan->come[c].lanes;
		k->split = plan->come[c].split;
		k->subport = plan->come[c].split ? plan->come[c].split_subport : 0;
		snprintf(k->netdev, sizeof(k->netdev), "%s", plan->come[c].netdev);
	}
	qsort(want->v, want->n, sizeof(want->v[0]), kport_cmp);
}

/* Whether @g is as @w plans it: a planned auto takes either type, a plan without a netdev any name. */
static bool kport_as(const struct kport *w, const struct kport *g)
{
	return w->index == g->index && (w->type == g->type || w->type == DLH_PORT_TYPE_AUTO) && w->lanes == g->lanes &&
	       w->split == g->split && w->subport == g->subport && (!w->netdev[0] || !strcmp(w->netdev, g->netdev));
}

/* The first port where @want and @got differ, said into @buf; false if they are the same. */
static bool differ(const struct kports *want, const struct kports *got, char *buf, size_t len)
{
	for (size_t i = 0; i < want->n || i < got->n; i++) {
		const struct kport *w = i < want->n ? &want->v[i] : NULL, *g = i < got->n ? &got->v[i] : NULL;

		if (w && g && kport_as(w, g))
			continue;
		if (!w || (g && g->index < w->index))
			snprintf(buf, len, "port %u is there, not planned", g->index);
		else if (!g || w->index < g->index)
			snprintf(buf, len, "port %u was planned, not there", w->index);
		else
			snprintf(
			    buf, len,
			    "port %u: %s %u lanes%s subport %u netdev %s, planned %s %u lanes%s subport %u netdev %s",
			    w->index, dlh_port_type_name(g->type), g->lanes, g->split ? " split" : "", g->subport,
			    g->netdev, dlh_port_type_name(w->type), w->lanes, w->split ? " split" : "", w->subport,
			    w->netdev[0] ? w->netdev : "(any)");
		return true;
	}
	return false;
}

static unsigned int rnd(unsigned int *seed, unsigned int n)
{
	*seed = *seed * 1103515245u + 12345u;
	return (*seed >> 16) % n;
}

struct step {
	uint32_t index;
	enum dlh_change kind;
	unsigned int count;	 /* a split's */
	enum dlh_port_type type; /* a type set's */
	char what[32];
};

static int step_plan(struct dlh_port *p, const struct step *s, struct dlh_plan *plan, struct dlh_extack *ext)
{
	return s->kind == DLH_CHANGE_SPLIT  ? dlh_port_split_plan(p, s->count, plan, ext)
	       : s->kind == DLH_CHANGE_TYPE ? dlh_port_type_set_plan(p, s->type, plan, ext)
					    : dlh_port_unsplit_plan(p, plan, ext);
}

static int step_run(struct dlh_port *p, const struct step *s, struct dlh_extack *ext)
{
	return s->kind == DLH_CHANGE_SPLIT  ? dlh_port_split(p, s->count, ext)
	       : s->kind == DLH_CHANGE_TYPE ? dlh_port_type_set(p, s->type, ext)
					    : dlh_port_unsplit(p, ext);
}

/* What the steps ended as: done or refused as planned, or planned partially, the rules saying why. */
struct tally {
	unsigned int done, refused, partial;
};

static int one(struct kit_run *run, struct dlh_ctx *ctx, const char *handle, const struct step *s,
	       struct kports *before, struct kports *want, struct kports *after, struct tally *t)
{
	struct dlh_extack pext, oext, ext;
	struct dlh_plan *plan = malloc(sizeof(*plan));
	unsigned long misses = dlh_ctx_plan_misses(ctx);
	struct dlh_dev *dev = dlh_dev_find(ctx, handle);
	struct dlh_port *p = dev ? dlh_port_find(dev, s->index) : NULL;
	char why[512] = "";
	int perr, err, ret = -1;

	if (!plan || !p) {
		kit_diag(run, "%s/%u: %s", handle, s->index, plan ? "gone from the model" : "out of memory");
		goto out;
	}
	if (kernel_ports(handle, before, &ext)) {
		kit_diag(run, "%s", ext.msg);
		goto out;
	}
	perr = step_plan(p, s, plan, &pext);
	if (!perr && plan->partial && !pext.msg[0]) {
		kit_diag(run, "%s/%u: a partial plan on a recognised device, not saying why", handle, s->index);
		goto out;
	}
	err = step_run(p, s, &oext);
	/* rules that cannot decide from what the kernel reports (an E810's pending option) said why:
	 * nothing to hold the answer to, and the rules learn from it */
	if (!perr && plan->partial) {
		t->partial++;
		ret = 0;
		goto out;
	}
	if (kernel_ports(handle, after, &ext)) {
		kit_diag(run, "%s", ext.msg);
		goto out;
	}
	/* the kernel's words hold the plan's (Linux 6.1's core prefixes its own with "leftover: ") */
	if (perr) {
		bool changed = differ(before, after, why, sizeof(why));

		if (!err || !strstr(oext.msg, pext.msg) || changed) {
			kit_diag(run, "%s/%u %s: planned \"%s\"; the kernel: %s \"%s\"%s%s", handle, s->index, s->what,
				 pext.msg, err ? "refused" : "did it", oext.msg, changed ? ", " : "",
				 changed ? why : "");
			goto out;
		}
		t->refused++;
	} else {
		expected(before, plan, want);
		if (err || differ(want, after, why, sizeof(why))) {
			kit_diag(run, "%s/%u %s: planned, then %s%s", handle, s->index, s->what, err ? "refused: " : "",
				 err ? oext.msg : why);
			goto out;
		}
		t->done++;
	}
	if (dlh_ctx_plan_misses(ctx) != misses) {
		kit_diag(run, "core counted a plan miss the kit did not see");
		goto out;
	}
	ret = 0;
out:
	free(plan);
	return ret;
}

int kit_kernel_run(struct kit_run *run, const struct dlh_conform_opts *opts, struct dlh_extack *ext)
{
	struct kports *bufs = calloc(3, sizeof(*bufs));
	unsigned int seed = opts->seed ? opts->seed : 1, steps = opts->steps ? opts->steps : 200;
	unsigned int n = 0;
	struct tally t = {0};
	const char *rules;
	struct dlh_ctx *ctx = NULL;
	struct dlh_dev *dev;
	bool exact = false, splits = false, types = false;
	struct dlh_plan *probe = NULL;
	struct dlh_extack pext;
	int err;

	if (!bufs)
		return dlh_sdk_extack(ext, -ENOMEM, "Out of memory");
	err = dlh_ctx_new(&ctx, ext);
	if (!err)
		err = dlh_ctx_backends_attach(ctx, &(struct dlh_backends){.kernel = true}, NULL, ext);
	if (!err && !(dev = dlh_dev_find(ctx, opts->kernel_dev)))
		err = dlh_sdk_extack(ext, -ENODEV, "%s: no such kernel device", opts->kernel_dev);
	if (err)
		goto out;
	if (run->format == DLH_CONFORM_TAP)
		fprintf(run->out, "TAP version 13\n# kernel device %s (driver %s), seed %u\n", opts->kernel_dev,
			dlh_dev_driver(dev), seed);
	rules = dlh_dev_rules(dev, &exact);
	if (!exact)
		kit_diag(run, "%s: %s", opts->kernel_dev, rules ? rules : "no vendor's rules know it");
	else if (run->format == DLH_CONFORM_TAP)
		fprintf(run->out, "# %s\n", rules);
	kit_report(run, "kernel_device_recognised", NULL);
	if (!exact) {
		kit_report(run, "kernel_plans_match_outcomes", "the device is not recognised");
		goto out;
	}
	/* what its rules plan: splits where a port can split or is split, types where a plan says so */
	for (struct dlh_port *p = dlh_port_first(dev); p; p = dlh_port_next(p))
		splits |= dlh_port_splittable(p) || dlh_port_is_split(p);
	probe = malloc(sizeof(*probe));
	if (probe && dlh_port_first(dev) &&
	    !dlh_port_type_set_plan(dlh_port_first(dev),
				    dlh_port_type(dlh_port_first(dev)) == DLH_PORT_TYPE_IB ? DLH_PORT_TYPE_ETH
											   : DLH_PORT_TYPE_IB,
				    probe, &pext))
		types = !probe->partial;
	free(probe);
	while (n < steps && (splits || types)) {
		struct dlh_port *p;
		struct step s = {0};
		size_t k = 0, pick;

		dev = dlh_dev_find(ctx, opts->kernel_dev);
		for (p = dev ? dlh_port_first(dev) : NULL; p; p = dlh_port_next(p))
			k++;
		if (!k) {
			kit_diag(run, "%s: no ports left", opts->kernel_dev);
			break;
		}
		pick = rnd(&seed, (unsigned int)k);
		for (p = dlh_port_first(dev); pick--; p = dlh_port_next(p))
			;
		s.index = dlh_port_index(p);
		k = rnd(&seed, 10);
		if (types && (!splits || rnd(&seed, 2))) {
			static const enum dlh_port_type all[] = {DLH_PORT_TYPE_ETH, DLH_PORT_TYPE_IB,
								 DLH_PORT_TYPE_AUTO};

			s.kind = DLH_CHANGE_TYPE;
			s.type = all[k % 3];
			snprintf(s.what, sizeof(s.what), "type %s", dlh_port_type_name(s.type));
		} else {
			/* mostly what may be done (a split port unsplit, a whole one split), sometimes what may not */
			s.count = dlh_port_is_split(p) ? (k ? 0 : 2) : k < 5 ? 2 : k < 9 ? 4 : 0;
			s.kind = s.count ? DLH_CHANGE_SPLIT : DLH_CHANGE_UNSPLIT;
			snprintf(s.what, sizeof(s.what), s.count ? "split %u" : "unsplit", s.count);
		}
		n++;
		if (one(run, ctx, opts->kernel_dev, &s, &bufs[0], &bufs[1], &bufs[2], &t)) {
			kit_diag(run, "at step %u of %u (--seed %u replays it)", n, steps, opts->seed ? opts->seed : 1);
			break;
		}
	}
	if (!splits && !types)
		kit_diag(run, "%s: its rules plan neither splits nor types", opts->kernel_dev);
	if (run->format == DLH_CONFORM_TAP)
		fprintf(run->out, "# %u steps: %u done as planned, %u refused as planned%s", n, t.done, t.refused,
			t.partial ? "" : "\n");
	if (run->format == DLH_CONFORM_TAP && t.partial)
		fprintf(run->out, ", %u planned partially (the rules said why)\n", t.partial);
	kit_report(run, "kernel_plans_match_outcomes", NULL);
out:
	dlh_ctx_free(ctx);
	free(bufs);
	return err;
}
