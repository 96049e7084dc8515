/* SPDX-License-Identifier: MIT */
/*
 * The report of a run: each step and the outcome, member by member through
 * the caller's writer, so that every front end reports with the same names
 * (dl -j apply's document, and what reads it: the Ansible module).
 */
#include "internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const step_results[] = {
    [DLH_DESIRED_STEP_NOT_RUN] = "not_run", [DLH_DESIRED_STEP_DONE] = "done",
    [DLH_DESIRED_STEP_PENDING] = "pending", [DLH_DESIRED_STEP_REFUSED] = "refused",
    [DLH_DESIRED_STEP_UNDONE] = "undone",   [DLH_DESIRED_STEP_UNDO_FAILED] = "undo_failed",
};

static const char *const step_changes[] = {
    [DLH_CHANGE_UNSPLIT] = "unsplit", [DLH_CHANGE_SPLIT] = "split", [DLH_CHANGE_TYPE] = "type"};

static const char *name_of(const char *const *names, size_t n, unsigned int v)
{
	return v < n && names[v] ? names[v] : "unknown";
}

DLH_EXPORT void dlh_desired_step_write(const struct dlh_desired *d, const struct dlh_desired_step *s, bool dry,
				       const struct dlh_writer *w)
{
	const char *hash = strchr(s->port, '#'), *slash = strrchr(s->port, '/');
	char dev[DLH_HANDLE_MAX];

	(void)d;
	w->obj_open(w->arg, NULL);
	w->str(w->arg, "change", name_of(step_changes, sizeof(step_changes) / sizeof(*step_changes), s->kind));
	if (hash) {
		snprintf(dev, sizeof(dev), "%.*s", (int)(hash - s->port), s->port);
		w->str(w->arg, "device", dev);
		w->uint(w->arg, "number", strtoul(hash + 1, NULL, 10));
	} else {
		snprintf(dev, sizeof(dev), "%.*s", slash ? (int)(slash - s->port) : 0, s->port);
		w->str(w->arg, "device", dev);
		w->str(w->arg, "port", s->port);
	}
	if (s->kind == DLH_CHANGE_SPLIT || (s->kind == DLH_CHANGE_UNSPLIT && s->staged))
		w->uint(w->arg, "count", s->kind == DLH_CHANGE_SPLIT ? s->count : 1);
	if (s->kind == DLH_CHANGE_TYPE)
		w->str(w->arg, "type", dlh_port_type_name(s->type));
	w->uint(w->arg, "line", (uint64_t)s->line);
	w->uint(w->arg, "entry", s->entry);
	w->boolean(w->arg, "staged", s->staged);
	w->boolean(w->arg, "partial", s->partial);
	if (s->partial && s->why[0])
		w->str(w->arg, "why", s->why);
	w->str(w->arg, "result",
	       dry ? (s->partial ? "partial" : "would")
		   : name_of(step_results, sizeof(step_results) / sizeof(*step_results), s->result));
	if (s->msg[0])
		w->str(w->arg, "message", s->msg);
	w->arr_open(w->arg, "plans");
	for (size_t i = 0; i < s->nplans; i++) {
		w->obj_open(w->arg, NULL);
		dlh_plan_write(&s->plans[i], dev, w);
		w->obj_close(w->arg);
	}
	w->arr_close(w->arg);
	w->obj_close(w->arg);
}

/* The line an entry is named by in a report: its [Match]'s, or 0 for an entry with an origin. */
static uint64_t entry_line(const struct dlh_desired *d, size_t i, bool asks)
{
	const struct dlh_desired_entry *e = dlh_desired_entry(d, i);

	if (!e)
		return 0;
	if (asks)
		return (uint64_t)(e->split ? e->split_line : e->type_line);
	return (uint64_t)e->match_line;
}

DLH_EXPORT void dlh_desired_outcome_write(const struct dlh_desired *d, const struct dlh_desired_outcome *o,
					  const struct dlh_writer *w)
{
	const struct dlh_desired_plan *p = o->failed;

	w->str(w->arg, "result", o->result);
	w->boolean(w->arg, "changed", o->changed);
	w->boolean(w->arg, "partial", o->partial);
	w->uint(w->arg, "pending", o->npending);
	w->uint(w->arg, "reloaded", o->reloaded);
	w->arr_open(w->arg, "unmet");
	for (size_t i = 0; p && p->status == DLH_DESIRED_UNMET && i < p->nunmet; i++) {
		w->obj_open(w->arg, NULL);
		w->uint(w->arg, "entry", p->unmet[i].entry);
		w->uint(w->arg, "line", entry_line(d, p->unmet[i].entry, false));
		w->str(w->arg, "reason", p->unmet[i].why);
		w->obj_close(w->arg);
	}
	w->arr_close(w->arg);
	w->arr_open(w->arg, "deferred");
	for (size_t i = 0; i < o->ndeferred; i++) {
		w->obj_open(w->arg, NULL);
		w->uint(w->arg, "entry", o->deferred[i]);
		w->uint(w->arg, "line", entry_line(d, o->deferred[i], true));
		w->obj_close(w->arg);
	}
	w->arr_close(w->arg);
	if (p && p->status == DLH_DESIRED_CONFLICT) {
		w->obj_open(w->arg, "conflict");
		w->arr_open(w->arg, "entries");
		w->uint(w->arg, NULL, p->entry);
		w->uint(w->arg, NULL, p->other);
		w->arr_close(w->arg);
		w->arr_open(w->arg, "lines");
		w->uint(w->arg, NULL, (uint64_t)p->line);
		w->uint(w->arg, NULL, (uint64_t)p->other_line);
		w->arr_close(w->arg);
		w->obj_close(w->arg);
	}
	if (p && p->status == DLH_DESIRED_REFUSED) {
		w->obj_open(w->arg, "refused");
		w->uint(w->arg, "entry", p->entry);
		w->uint(w->arg, "line", (uint64_t)p->line);
		w->obj_close(w->arg);
	}
	if (o->error && o->error[0])
		w->str(w->arg, "error", o->error);
}
