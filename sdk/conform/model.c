/* SPDX-License-Identifier: MIT */
/*
 * The model as text, one line a port, sorted by index: listing order follows
 * registration (as in Linux 4.6, whose seed shows an unsplit port listed
 * last), so "as before" means the same ports with the same fields.
 */
#include "conform.h"

#include <dlhal/dlhal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void kit_port_line(const struct dlh_port *p, char *buf, size_t len)
{
	snprintf(buf, len,
		 "%s type %s desired %s netdev %s ibdev %s flavour %s number %u split %d group %u subport %u lanes %u "
		 "splittable %d",
		 dlh_port_handle(p), dlh_port_type_name(dlh_port_type(p)), dlh_port_type_name(dlh_port_desired_type(p)),
		 dlh_port_netdev(p) ? dlh_port_netdev(p) : "-", dlh_port_ibdev(p) ? dlh_port_ibdev(p) : "-",
		 dlh_port_flavour_name(dlh_port_flavour(p)), dlh_port_number(p), dlh_port_is_split(p),
		 dlh_port_split_group(p), dlh_port_split_subport(p), dlh_port_lanes(p), dlh_port_splittable(p));
}

static int by_index(const void *a, const void *b)
{
	uint32_t x = dlh_port_index(*(struct dlh_port *const *)a), y = dlh_port_index(*(struct dlh_port *const *)b);

	return x < y ? -1 : x > y;
}

char *kit_model(struct dlh_dev *dev)
{
	size_t n = dlh_dev_port_count(dev), i = 0, len = 0;
	struct dlh_port **v = calloc(n + 1, sizeof(*v));
	char *text = malloc((n + 1) * 256), line[256];

	if (!v || !text) {
		free(v);
		free(text);
		return NULL;
	}
	for (struct dlh_port *p = dlh_port_first(dev); p && i < n; p = dlh_port_next(p))
		v[i++] = p;
	qsort(v, i, sizeof(*v), by_index);
	text[0] = '\0';
	for (size_t j = 0; j < i; j++) {
		kit_port_line(v[j], line, sizeof(line));
		len += (size_t)snprintf(text + len, 256, "%s\n", line);
	}
	free(v);
	return text;
}

/* A model text as (handle, line) pairs, editable. */
struct entry {
	char *handle, *line;
	uint32_t index;
};

struct table {
	struct entry *v;
	size_t n, cap;
};

static uint32_t handle_index(const char *handle)
{
	const char *s = strrchr(handle, '/');

	return s ? (uint32_t)strtoul(s + 1, NULL, 10) : 0;
}

static struct entry *table_find(struct table *t, const char *handle)
{
	for (size_t i = 0; i < t->n; i++)
		if (!strcmp(t->v[i].handle, handle))
			return &t->v[i];
	return NULL;
}

static void table_set(struct table *t, const char *handle, const char *line)
{
	struct entry *e = table_find(t, handle);

	if (!e) {
		if (t->n == t->cap) {
			size_t cap = t->cap ? 2 * t->cap : 64;
			struct entry *v = realloc(t->v, cap * sizeof(*v));

			if (!v)
				return;
			t->v = v;
			t->cap = cap;
		}
		e = &t->v[t->n++];
		e->handle = strdup(handle);
		e->index = handle_index(handle);
	} else {
		free(e->line);
	}
	e->line = strdup(line);
}

static void table_del(struct table *t, struct entry *e)
{
	free(e->handle);
	free(e->line);
	*e = t->v[--t->n];
}

static void table_load(struct table *t, const char *text)
{
	char handle[DLH_HANDLE_MAX];

	for (const char *s = text; *s;) {
		const char *nl = strchr(s, '\n');
		size_t len = nl ? (size_t)(nl - s) : strlen(s);
		char *line = strndup(s, len);
		size_t hl = strcspn(line, " ");

		snprintf(handle, sizeof(handle), "%.*s", (int)hl, line);
		table_set(t, handle, line);
		free(line);
		s += len + (nl != NULL);
	}
}

static int entry_cmp(const void *a, const void *b)
{
	const struct entry *x = a, *y = b;

	return x->index < y->index ? -1 : x->index > y->index;
}

static char *table_text(struct table *t)
{
	size_t len = 1;
	char *text;

	qsort(t->v, t->n, sizeof(*t->v), entry_cmp);
	for (size_t i = 0; i < t->n; i++)
		len += strlen(t->v[i].line) + 1;
	text = malloc(len);
	if (!text)
		return NULL;
	text[0] = '\0';
	for (size_t i = 0, off = 0; i < t->n; i++)
		off += (size_t)sprintf(text + off, "%s\n", t->v[i].line);
	return text;
}

static void table_free(struct table *t)
{
	while (t->n)
		table_del(t, &t->v[t->n - 1]);
	free(t->v);
}

void kit_model_diff(struct kit_run *run, const char *what, const char *want, const char *got)
{
	while (*want && *got) {
		size_t a = strcspn(want, "\n"), b = strcspn(got, "\n");

		if (a != b || memcmp(want, got, a)) {
			kit_diag(run, "%s: expected \"%.*s\", got \"%.*s\"", what, (int)a, want, (int)b, got);
			return;
		}
		want += a + (want[a] == '\n');
		got += b + (got[b] == '\n');
	}
	if (*want)
		kit_diag(run, "%s: missing \"%.*s\"", what, (int)strcspn(want, "\n"), want);
	else if (*got)
		kit_diag(run, "%s: extra \"%.*s\"", what, (int)strcspn(got, "\n"), got);
}

int kit_events_explain(struct kit_run *run, const char *what, const char *before, const char *after,
		       const struct kit_target *t)
{
	struct table replay = {0}, start = {0}, end = {0};
	char *text;
	int bad = 0;

	table_load(&replay, before);
	table_load(&start, before);
	table_load(&end, after);
	for (size_t i = 0; i < t->nev && !bad; i++) {
		const struct kit_event *e = &t->ev[i];
		struct entry *s, *f;

		if (!e->handle) {
			kit_diag(run, "%s: unexpected device event %s,%s", what, dlh_event_object(e->type),
				 dlh_event_action(e->type));
			bad = 1;
			break;
		}
		s = table_find(&start, e->handle);
		f = table_find(&end, e->handle);
		if (s && f && !strcmp(s->line, f->line)) {
			kit_diag(run, "%s: %s event for %s, which did not change", what, dlh_event_action(e->type),
				 e->handle);
			bad = 1;
		} else if (e->type == DLH_EVENT_PORT_DEL) {
			struct entry *r = table_find(&replay, e->handle);

			if (!r) {
				kit_diag(run, "%s: del event for %s, which did not exist then", what, e->handle);
				bad = 1;
			} else {
				table_del(&replay, r);
			}
		} else {
			table_set(&replay, e->handle, e->line);
		}
	}
	if (!bad) {
		text = table_text(&replay);
		if (text && strcmp(text, after)) {
			kit_model_diff(run, "the events do not add up to the change", after, text);
			bad = 1;
		}
		free(text);
	}
	table_free(&replay);
	table_free(&start);
	table_free(&end);
	return bad ? -1 : 0;
}
