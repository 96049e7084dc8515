/* SPDX-License-Identifier: MIT */
/* dl apply: take the devices to a desired-state file (docs/desired-state.md). */
#include <dlhal/desired.h>
#include "dl.h"

#include <stdlib.h>
#include <string.h>

void apply_usage(FILE *f)
{
	fprintf(f, "Usage: dl apply FILE [ --dry-run | --reload ] [ --atomic ] [ --format ini | json ]\n"
		   "FILE (- for standard input) says per front-panel port the split count and/or type wanted\n"
		   "([Match] and [Port] sections, docs/desired-state.md). dl plans the whole file first, each step\n"
		   "on the ports the steps before it leave: entries that conflict are refused, naming both lines,\n"
		   "before anything runs. Then it prints the steps and runs them, unsplits first.\n"
		   "--dry-run  print the steps (would: ...) and change nothing\n"
		   "--atomic   when a step is refused, undo the steps done, in reverse order\n"
		   "--reload   reset the devices that have something pending (a split an Intel E810 or a type a\n"
		   "           ConnectX-4..7 stores for its next reset), where the driver can, and run what\n"
		   "           the reset made possible\n"
		   "--format json  FILE is {\"NAME\": [{\"device\": ..., \"number\": ..., \"netdev\": ...,\n"
		   "           \"split\": ..., \"type\": ...}, ...]}, each entry named NAME[I] in every message;\n"
		   "           with -j, a dry run's report adds \"after\": the ports the steps would leave\n"
		   "Exit 0: done, or would be done; 1: refused, conflicting, or an entry unmet (named);\n"
		   "3: a dry run that could not plan every step (the kernel's devlink has no dry run).\n");
}

/*
 * --reload: every device with something pending is reset with a firmware
 * activation, where its driver has one. The handles are taken first: a reset
 * replaces a card's devices.
 */
static int reload_pending(struct dlh_ctx *ctx, bool quiet, size_t *nreloaded)
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
		(*nreloaded)++;
		if (!quiet)
			printf("done: reload %s (fw_activate)\n", handles[i]);
	}
	free(handles);
	return ret;
}

/* What a run leaves to report at its end. */
struct apply_run {
	const char *result;
	bool changed, partial;
	const struct dlh_desired_plan *failed; /* the plan that refused, conflicted or left an entry unmet */
	char error[1200];
	size_t npending;
	size_t reloaded;			  /* devices reset (--reload) */
	size_t deferred[DLH_DESIRED_ENTRIES_MAX]; /* the entries a dry run could not plan (the last round's) */
	size_t ndeferred;
};

static void after_port(void *arg, const struct dlh_port *port)
{
	out_port_planned(arg, port);
}

static void apply_json_end(struct dl *dl, const struct dlh_desired *d, struct dlh_ctx *ctx, bool dry,
			   const struct apply_run *r)
{
	struct jsonw *w = &dl->jw;
	struct dlh_writer fields;
	const struct dlh_desired_outcome o = {
	    .result = r->result,
	    .changed = r->changed,
	    .partial = r->partial,
	    .npending = r->npending,
	    .reloaded = r->reloaded,
	    .failed = r->failed,
	    .deferred = r->deferred,
	    .ndeferred = r->ndeferred,
	    .error = r->error,
	};

	jsonw_arr_close(w);
	out_writer(dl, &fields);
	dlh_desired_outcome_write(d, &o, &fields);
	/*
	 * A dry run's prediction: the ports of the devices the steps act on, as
	 * `dl -j port show` has them, planned again (nothing changed since).
	 */
	if (dry && d && strcmp(r->result, "refused") && strcmp(r->result, "conflict")) {
		struct dlh_desired_plan after;

		jsonw_obj_open(w, "after");
		dlh_desired_plan_ports(d, ctx, &after, NULL, after_port, dl);
		dlh_desired_plan_free(&after);
		jsonw_obj_close(w);
	}
	out_end(dl);
}

/* FILE and the options, in any order ("-" is standard input, not an option). */
static int apply_args(struct dl *dl, const char **path, bool *dry, bool *reload, bool *atomic, bool *json)
{
	for (const char *a; (a = dl_arg(dl)); dl_shift(dl)) {
		if (!strcmp(a, "--format")) {
			dl_shift(dl);
			a = dl_arg(dl);
			if (!a || (strcmp(a, "ini") && strcmp(a, "json")))
				return dl_usage_err(apply_usage, "--format: expected ini or json");
			*json = !strcmp(a, "json");
		} else if (!strcmp(a, "--dry-run"))
			*dry = true;
		else if (!strcmp(a, "--reload"))
			*reload = true;
		else if (!strcmp(a, "--atomic"))
			*atomic = true;
		else if (a[0] == '-' && a[1])
			return dl_usage_err(apply_usage, "Unknown option \"%s\"", a);
		else if (!*path)
			*path = a;
		else
			return dl_usage_err(apply_usage, "Unexpected argument \"%s\" (one FILE)", a);
	}
	if (!*path)
		return dl_usage_err(apply_usage, "apply: FILE expected");
	if (*dry && *reload)
		return dl_usage_err(apply_usage, "--dry-run and --reload: choose one");
	return DL_OK;
}

/*
 * One round: plan the file whole, refuse it on a conflict or a refusal, else
 * print the steps (a dry run) or run them. Returns the exit code; @r says why.
 */
static int apply_round(struct dl *dl, const struct dlh_desired *d, struct dlh_ctx *ctx, bool dry, bool atomic,
		       struct dlh_desired_plan *p, struct apply_run *r)
{
	char why[1200], what[1024];
	size_t npartial = 0;
	int err;

	if (dlh_desired_plan(d, ctx, p, dl->json ? NULL : stderr)) {
		snprintf(r->error, sizeof(r->error), "%s: out of memory", dlh_desired_name(d));
		return DL_EOP;
	}
	r->npending = p->npending;
	if (p->status == DLH_DESIRED_REFUSED || p->status == DLH_DESIRED_CONFLICT) {
		r->result = p->status == DLH_DESIRED_REFUSED ? "refused" : "conflict";
		r->failed = p;
		snprintf(r->error, sizeof(r->error), "%s%s", p->why,
			 p->status == DLH_DESIRED_CONFLICT ? " (nothing was changed)" : " (nothing was changed)");
		return DL_EOP;
	}
	for (size_t i = 0; dry && i < p->nsteps; i++) {
		const struct dlh_desired_step *s = &p->steps[i];

		npartial += s->partial;
		if (dl->json)
			continue;
		dlh_desired_step_describe(d, s, what, sizeof(what));
		if (s->partial && s->why[0])
			printf("maybe: %s: %s\n", what, s->why);
		else if (s->partial)
			printf("maybe: %s: the kernel's devlink has no dry run; its driver decides when it runs\n",
			       what);
		else
			printf("would: %s%s\n", what, s->staged ? ", applied at the next reset" : "");
	}
	/* entries on a device the steps before leave unknown: said, and planned once those have run */
	for (size_t i = 0; dry && i < p->ndeferred; i++) {
		npartial++;
		if (dl->json)
			continue;
		dlh_desired_entry_describe(d, p->deferred[i], what, sizeof(what));
		printf("maybe: %s: planned once the steps before it have run (the kernel's devlink has no dry run)\n",
		       what);
	}
	if (!dry && p->nsteps) {
		err = dlh_desired_apply(d, ctx, p, atomic, dl->json ? NULL : stdout, why, sizeof(why));
		for (size_t i = 0; i < p->nsteps; i++)
			r->changed |= p->steps[i].result == DLH_DESIRED_STEP_DONE ||
				      p->steps[i].result == DLH_DESIRED_STEP_PENDING;
		if (err) {
			bool undone = atomic && dlh_desired_plan_undone(p);

			r->result = atomic ? (undone ? "undone" : "undo_failed") : "refused";
			snprintf(r->error, sizeof(r->error), "%s%s", why,
				 atomic ? (undone ? " (the steps done were undone)"
						  : " (some steps done could not be undone: see above)")
					: "");
			return DL_EOP;
		}
	}
	r->partial |= npartial != 0;
	/* planned again as it ran (the kernel's plans are not whole): what is unmet now is said here */
	for (size_t i = 0; p->replanned && !dl->json && p->status == DLH_DESIRED_UNMET && i < p->nunmet; i++) {
		dlh_desired_where(d, p->unmet[i].entry, dlh_desired_entry(d, p->unmet[i].entry)->match_line, what,
				  sizeof(what));
		fprintf(stderr, "%s: %s\n", what, p->unmet[i].why);
	}
	if (p->status == DLH_DESIRED_UNMET) {
		r->result = "unmet";
		r->failed = p;
		snprintf(r->error, sizeof(r->error), "%zu entr%s of %s unmet%s", p->nunmet,
			 p->nunmet == 1 ? "y" : "ies", dlh_desired_name(d), dl->json ? "" : " (listed above)");
		return DL_EOP;
	}
	if (dry && npartial) {
		r->result = "partial";
		snprintf(r->error, sizeof(r->error), "%zu step%s or entr%s of %s could not be planned whole", npartial,
			 npartial == 1 ? "" : "s", npartial == 1 ? "y" : "ies", dlh_desired_name(d));
		return DL_EPARTIAL;
	}
	r->result = dry ? (p->nsteps ? "would" : "nothing") : (r->changed ? "done" : "nothing");
	return DL_OK;
}

int cmd_apply(struct dl *dl)
{
	const char *path = NULL;
	bool dry = false, reload = false, atomic = false, json = false;
	struct apply_run r = {.result = "nothing"};
	struct dlh_desired_plan p = {0};
	char why[1024];
	struct dlh_desired *d;
	struct dlh_ctx *ctx;
	int ret = DL_OK, err;

	if (dl_arg(dl) && dl_match(dl_arg(dl), "help")) {
		apply_usage(stdout);
		return DL_OK;
	}
	err = apply_args(dl, &path, &dry, &reload, &atomic, &json);
	if (err)
		return err;
	err = dl_ctx(dl, &ctx);
	if (err)
		return err;
	if (dl->json) {
		out_begin(dl, "apply");
		jsonw_str(&dl->jw, "file", path);
		jsonw_bool(&dl->jw, "dry_run", dry);
		jsonw_bool(&dl->jw, "atomic", atomic);
		jsonw_arr_open(&dl->jw, "steps");
	}
	if ((json ? dlh_desired_load_json : dlh_desired_load)(path, &d, why, sizeof(why))) {
		/* -j: a document all the same, with the file's error */
		fprintf(stderr, "Error: %s\n", why);
		if (dl->json) {
			r.result = "error";
			snprintf(r.error, sizeof(r.error), "%s", why);
			apply_json_end(dl, NULL, ctx, dry, &r);
		}
		return DL_EOP;
	}
	/* With --reload, a second round runs what the reset made possible (the new ports' types). */
	for (int round = 0; round < (reload ? 2 : 1); round++) {
		bool none;

		ret = apply_round(dl, d, ctx, dry, atomic, &p, &r);
		none = !p.nsteps && !p.npending && p.status == DLH_DESIRED_OK;
		for (size_t i = 0; dl->json && i < p.nsteps; i++) {
			struct dlh_writer fields;

			out_writer(dl, &fields);
			dlh_desired_step_write(d, &p.steps[i], dry, &fields);
		}
		r.ndeferred = dry ? p.ndeferred : 0;
		if (r.ndeferred)
			memcpy(r.deferred, p.deferred, r.ndeferred * sizeof(*r.deferred));
		if (ret == DL_OK && none && !round && !dl->json)
			printf("nothing to do: the devices are as %s says\n", dlh_desired_name(d));
		if (ret != DL_OK || !reload || round) {
			if (r.failed == &p)
				break; /* the plan is reported below */
			dlh_desired_plan_free(&p);
			break;
		}
		dlh_desired_plan_free(&p);
		if (reload_pending(ctx, dl->json, &r.reloaded)) {
			ret = DL_EOP;
			snprintf(r.error, sizeof(r.error), "a reset failed (see above)");
			r.result = "refused";
			break;
		}
	}
	if (r.reloaded) {
		r.changed = true;
		if (ret == DL_OK)
			r.result = "done";
	}
	if (ret == DL_OK && !reload && !dry) {
		/* What waits for a reset, said once at the end (each entry was noted on stderr). */
		struct dlh_desired_plan after;

		if (!dlh_desired_plan(d, ctx, &after, NULL)) {
			r.npending = after.npending;
			if (after.npending && !dl->json)
				printf("pending until a reset: %zu entr%s of %s (dl apply --reload %s, or dl dev "
				       "reload)\n",
				       after.npending, after.npending == 1 ? "y" : "ies", dlh_desired_name(d),
				       dlh_desired_name(d));
		}
		dlh_desired_plan_free(&after);
	}
	if (r.error[0])
		fprintf(stderr, "Error: %s\n", r.error);
	if (dl->json)
		apply_json_end(dl, d, ctx, dry, &r);
	dlh_desired_plan_free(&p);
	dlh_desired_free(d);
	return ret;
}
