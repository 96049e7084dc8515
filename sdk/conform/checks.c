/* SPDX-License-Identifier: MIT */
/*
 * The checks. Each starts from the profile's starting ports and leaves them
 * so; one that cannot (the driver broke something) says so and resets the
 * device under test, so that one bug does not fail every later check.
 * Ports are looked up by handle before each use: an op may replace them.
 */
#include "conform.h"

#include <dlhal/dlhal.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define STATE_MAX (1 << 20)

struct kit {
	struct kit_run *run;
	struct kit_target *t;
	char *start;			 /* the starting ports */
	char (*handles)[DLH_HANDLE_MAX]; /* their handles, by index */
	size_t nhandles;
	struct dlh_extack ext;
	bool staged; /* the driver's splits wait for a reset (check_staged) */
};

static const char *errname(int err)
{
	return strerror(err < 0 ? -err : err);
}

static void start_load(struct kit *k)
{
	size_t i = 0;

	free(k->start);
	free(k->handles);
	k->start = kit_model(k->t->dev);
	k->nhandles = dlh_dev_port_count(k->t->dev);
	k->handles = calloc(k->nhandles + 1, sizeof(*k->handles));
	/* The model text is sorted by index: take handles from it. */
	for (const char *s = k->start; s && *s && i < k->nhandles; s = strchr(s, '\n') + 1)
		snprintf(k->handles[i++], DLH_HANDLE_MAX, "%.*s", (int)strcspn(s, " "), s);
	k->nhandles = i;
}

/* Back to the starting ports, by a reset if need be; 0 if they were there already. */
static int back_to_start(struct kit *k, const char *what)
{
	char *now = kit_model(k->t->dev);
	int same = now && !strcmp(now, k->start);

	if (!same) {
		kit_model_diff(k->run, what, k->start, now ? now : "");
		if (kit_target_reset(k->t, &k->ext))
			kit_diag(k->run, "cannot set the device up again: %s", k->ext.msg);
	}
	free(now);
	kit_events_clear(k->t);
	return same ? 0 : -1;
}

static struct dlh_port *port(struct kit *k, const char *handle)
{
	return kit_port(k->t, handle);
}

static int split(struct kit *k, const char *handle, unsigned int n)
{
	struct dlh_port *p = port(k, handle);

	return p ? dlh_port_split(p, n, &k->ext) : -ENODEV;
}

static int unsplit(struct kit *k, const char *handle)
{
	struct dlh_port *p = port(k, handle);

	return p ? dlh_port_unsplit(p, &k->ext) : -ENODEV;
}

/* After an operation that had to be refused: an error with a message, no change, no event. */
static void expect_refused(struct kit *k, const char *what, int err, const char *before)
{
	char *after;

	if (err >= 0) {
		kit_diag(k->run, "%s: accepted, expected a refusal", what);
		return;
	}
	if (!k->ext.msg[0])
		kit_diag(k->run, "%s: refused (%s) without a message", what, errname(err));
	after = kit_model(k->t->dev);
	if (after && strcmp(after, before))
		kit_model_diff(k->run, what, before, after);
	free(after);
	if (k->t->nev)
		kit_diag(k->run, "%s: %zu events for a refused operation (first: %s %s)", what, k->t->nev,
			 dlh_event_action(k->t->ev[0].type), k->t->ev[0].handle ? k->t->ev[0].handle : "device");
}

/* Ports present after but not before (new, or changed), as handles. */
static size_t changed_ports(struct kit *k, const char *before, char (*out)[DLH_HANDLE_MAX], size_t max)
{
	char line[256];
	size_t n = 0;

	for (struct dlh_port *p = dlh_port_first(k->t->dev); p && n < max; p = dlh_port_next(p)) {
		kit_port_line(p, line, sizeof(line));
		if (!strstr(before, line))
			snprintf(out[n++], DLH_HANDLE_MAX, "%s", dlh_port_handle(p));
	}
	return n;
}

static void check_probe(struct kit *k)
{
	if (!dlh_dev_port_count(k->t->dev))
		kit_diag(k->run, "%s: no ports after probe", dlh_dev_handle(k->t->dev));
	kit_report(k->run, "device probes with ports", NULL);
}

static void check_attributes(struct kit *k)
{
	for (struct dlh_port *p = dlh_port_first(k->t->dev); p; p = dlh_port_next(p)) {
		const char *h = dlh_port_handle(p), *nd = dlh_port_netdev(p);
		uint32_t lanes = dlh_port_lanes(p);

		if (!strcmp(dlh_port_flavour_name(dlh_port_flavour(p)), "unknown"))
			kit_diag(k->run, "%s: unknown flavour", h);
		if (dlh_port_splittable(p) && lanes < 2)
			kit_diag(k->run, "%s: splittable with %u lanes (a split needs at least 2)", h, lanes);
		if (dlh_port_splittable(p) && dlh_port_is_split(p))
			kit_diag(k->run, "%s: split and splittable (a split port cannot be split further)", h);
		if (dlh_port_type(p) == DLH_PORT_TYPE_NOTSET)
			kit_diag(k->run, "%s: no type after probe (notset)", h);
		if (dlh_port_type(p) == DLH_PORT_TYPE_ETH && !nd)
			kit_diag(k->run, "%s: eth without a netdev", h);
		if (nd && dlh_port_find_netdev(k->t->ctx, nd) != p)
			kit_diag(k->run, "%s: netdev %s is not found as this port's", h, nd);
	}
	kit_report(k->run, "ports report flavour, lanes, splittable and names consistently", NULL);
}

/* The ports a split made: @n of them, each with lanes/n lanes, split, not splittable, one group. */
static void split_result(struct kit *k, const char *h, unsigned int n, uint32_t lanes, char (*members)[DLH_HANDLE_MAX],
			 size_t nchanged, size_t *nmembers)
{
	uint32_t group = 0, subports = 0;
	size_t m = 0;

	for (size_t i = 0; i < nchanged; i++) {
		struct dlh_port *q = port(k, members[i]);

		if (!q || !dlh_port_is_split(q))
			continue;
		snprintf(members[m++], DLH_HANDLE_MAX, "%s", dlh_port_handle(q));
		if (dlh_port_lanes(q) != lanes / n)
			kit_diag(k->run, "%s into %u: %s has %u lanes, expected %u", h, n, dlh_port_handle(q),
				 dlh_port_lanes(q), lanes / n);
		if (dlh_port_splittable(q))
			kit_diag(k->run, "%s into %u: %s is splittable", h, n, dlh_port_handle(q));
		if (m == 1)
			group = dlh_port_split_group(q);
		else if (dlh_port_split_group(q) != group)
			kit_diag(k->run, "%s into %u: %s in split group %u, the others in %u", h, n, dlh_port_handle(q),
				 dlh_port_split_group(q), group);
		if (dlh_port_split_subport(q) >= n || subports & (1u << dlh_port_split_subport(q)))
			kit_diag(k->run, "%s into %u: %s has subport %u (not one of 0..%u once each)", h, n,
				 dlh_port_handle(q), dlh_port_split_subport(q), n - 1);
		else
			subports |= 1u << dlh_port_split_subport(q);
		if (dlh_port_type(q) == DLH_PORT_TYPE_ETH && !dlh_port_netdev(q))
			kit_diag(k->run, "%s into %u: %s has no netdev", h, n, dlh_port_handle(q));
		else if (dlh_port_netdev(q) && dlh_port_find_netdev(k->t->ctx, dlh_port_netdev(q)) != q)
			kit_diag(k->run, "%s into %u: %s's netdev %s is not its own", h, n, dlh_port_handle(q),
				 dlh_port_netdev(q));
	}
	if (m != n)
		kit_diag(k->run, "%s into %u: %zu split ports resulted", h, n, m);
	*nmembers = m;
}

static void check_split(struct kit *k, unsigned int n)
{
	char(*members)[DLH_HANDLE_MAX] = calloc(256, DLH_HANDLE_MAX), name[96];
	unsigned int tried = 0;

	for (size_t i = 0; i < k->nhandles && members; i++) {
		const char *h = k->handles[i];
		struct dlh_port *p = port(k, h);
		char *split_model;
		size_t nchanged, nmembers;
		uint32_t lanes;
		int err;

		if (!p || !(dlh_port_split_counts(p) & (1u << n)))
			continue;
		tried++;
		lanes = dlh_port_lanes(p);
		kit_events_clear(k->t);
		err = split(k, h, n);
		if (err) {
			kit_diag(k->run, "%s into %u: refused (%s): %s", h, n, errname(err), k->ext.msg);
			back_to_start(k, "after the refusal");
			continue;
		}
		split_model = kit_model(k->t->dev);
		nchanged = changed_ports(k, k->start, members, 256);
		split_result(k, h, n, lanes, members, nchanged, &nmembers);
		kit_events_explain(k->run, "split", k->start, split_model, k->t);
		/* Unsplit from each member in turn; each must give back the starting ports. */
		for (size_t m = 0; m < nmembers; m++) {
			if (m && (err = split(k, h, n))) {
				kit_diag(k->run, "%s into %u again: refused (%s): %s", h, n, errname(err), k->ext.msg);
				break;
			}
			kit_events_clear(k->t);
			err = unsplit(k, members[m]);
			if (err) {
				kit_diag(k->run, "unsplit %s: refused (%s): %s", members[m], errname(err), k->ext.msg);
				back_to_start(k, "after the refusal");
				break;
			}
			kit_events_explain(k->run, "unsplit", split_model, k->start, k->t);
			snprintf(name, sizeof(name), "unsplit %s (split %s into %u)", members[m], h, n);
			if (back_to_start(k, name))
				break;
		}
		free(split_model);
		back_to_start(k, "after the unsplits");
	}
	free(members);
	snprintf(name, sizeof(name), "split into %u and unsplit from every member (%u ports)", n, tried);
	kit_report(k->run, name, NULL);
}

static void check_refusals(struct kit *k)
{
	static const unsigned int extra[] = {64, 1000, 1u << 31};
	char what[128], (*members)[DLH_HANDLE_MAX] = calloc(256, DLH_HANDLE_MAX);
	const char *splittable = NULL;
	unsigned int first = 0;
	size_t nchanged = 0;

	for (size_t i = 0; i < k->nhandles; i++) {
		struct dlh_port *p = port(k, k->handles[i]);
		uint32_t mask = p ? dlh_port_split_counts(p) : 0, top = p ? 2 * dlh_port_lanes(p) + 9 : 0;

		for (unsigned int j = 0; j < top + 3; j++) {
			unsigned int n = j < top ? j : extra[j - top];

			if (n < 32 && mask & (1u << n))
				continue;
			kit_events_clear(k->t);
			snprintf(what, sizeof(what), "split %s into %u", k->handles[i], n);
			expect_refused(k, what, split(k, k->handles[i], n), k->start);
			if (back_to_start(k, what))
				break;
		}
		if (mask && !splittable) {
			splittable = k->handles[i];
			first = (unsigned int)__builtin_ctz(mask);
		}
	}
	kit_report(k->run, "split by a count the port does not advertise is refused", NULL);

	if (k->staged) {
		/* A split stores an option: no port is split, and unsplit chooses the option of one port (ice). */
		kit_report(k->run, "a split port cannot be split again",
			   "a staged driver: no port is split before a reset");
		kit_report(k->run, "unsplit of a port that is not split is refused",
			   "a staged driver: unsplit chooses the one-port option");
		free(members);
		return;
	}
	if (splittable && members && !split(k, splittable, first)) {
		char *split_model = kit_model(k->t->dev);

		nchanged = changed_ports(k, k->start, members, 256);
		for (size_t i = 0; i < nchanged; i++)
			for (unsigned int n = 2; n <= 8; n++) {
				kit_events_clear(k->t);
				snprintf(what, sizeof(what), "split %s (a split port) into %u", members[i], n);
				expect_refused(k, what, split(k, members[i], n), split_model);
			}
		if (nchanged)
			unsplit(k, members[0]);
		free(split_model);
		back_to_start(k, "after the unsplit");
	}
	kit_report(k->run, "a split port cannot be split again", splittable ? NULL : "no splittable port");

	for (size_t i = 0; i < k->nhandles; i++) {
		struct dlh_port *p = port(k, k->handles[i]);

		if (!p || dlh_port_is_split(p))
			continue;
		kit_events_clear(k->t);
		snprintf(what, sizeof(what), "unsplit %s (not split)", k->handles[i]);
		expect_refused(k, what, unsplit(k, k->handles[i]), k->start);
		back_to_start(k, what);
	}
	kit_report(k->run, "unsplit of a port that is not split is refused", NULL);
	free(members);
}

static bool type_ok(enum dlh_port_type want, const struct dlh_port *p)
{
	enum dlh_port_type t = dlh_port_type(p);

	if (want == DLH_PORT_TYPE_AUTO)
		return t == DLH_PORT_TYPE_ETH || t == DLH_PORT_TYPE_IB;
	return t == want && (t != DLH_PORT_TYPE_ETH || dlh_port_netdev(p));
}

static void check_types(struct kit *k)
{
	static const enum dlh_port_type types[] = {DLH_PORT_TYPE_ETH, DLH_PORT_TYPE_IB, DLH_PORT_TYPE_AUTO};
	unsigned int accepted = 0;
	char what[128], name[96];

	for (size_t i = 0; i < k->nhandles; i++) {
		const char *h = k->handles[i];
		struct dlh_port *p = port(k, h);
		enum dlh_port_type orig = p ? dlh_port_desired_type(p) : DLH_PORT_TYPE_NOTSET;

		for (size_t j = 0; p && j < sizeof(types) / sizeof(types[0]); j++) {
			enum dlh_port_type want = types[j];
			char *before = kit_model(k->t->dev), *after;
			int err;

			kit_events_clear(k->t);
			snprintf(what, sizeof(what), "%s type %s", h, dlh_port_type_name(want));
			err = dlh_port_type_set(port(k, h), want, &k->ext);
			if (err) {
				expect_refused(k, what, err, before);
				free(before);
				continue;
			}
			accepted++;
			p = port(k, h);
			after = kit_model(k->t->dev);
			if (!p || dlh_port_desired_type(p) != want)
				kit_diag(k->run, "%s: accepted, but the desired type is not %s", what,
					 dlh_port_type_name(want));
			else if (!type_ok(want, p))
				kit_diag(k->run, "%s: accepted, but the port is %s%s", what,
					 dlh_port_type_name(dlh_port_type(p)),
					 dlh_port_type(p) == DLH_PORT_TYPE_ETH ? " without a netdev" : "");
			kit_events_explain(k->run, what, before, after, k->t);
			/* The same type again changes nothing. */
			kit_events_clear(k->t);
			err = dlh_port_type_set(port(k, h), want, &k->ext);
			free(before);
			before = kit_model(k->t->dev);
			if (err || strcmp(before, after) || k->t->nev)
				kit_diag(k->run, "%s again: %s, %zu events (expected no change)", what,
					 err ? errname(err) : "accepted", k->t->nev);
			free(before);
			free(after);
		}
		if (p && orig != DLH_PORT_TYPE_NOTSET)
			dlh_port_type_set(port(k, h), orig, &k->ext);
		/* Nothing sets a desired type back to notset: a port that had none starts over. */
		if (orig == DLH_PORT_TYPE_NOTSET) {
			char *now = kit_model(k->t->dev);

			if (now && strcmp(now, k->start))
				kit_target_reset(k->t, &k->ext);
			free(now);
		}
		back_to_start(k, "after setting the type back");
	}
	snprintf(name, sizeof(name), "type set: eth, ib, auto take effect or are refused cleanly (%u accepted)",
		 accepted);
	kit_report(k->run, name, NULL);
}

/* One operation under fault injection, and what undoes it. */
struct scenario {
	const char *name;
	const char *h;
	unsigned int count; /* split into count; 0: unsplit (from a split by @setup) */
	unsigned int setup;
	enum dlh_port_type type; /* type set when not notset */
	enum dlh_port_type undo_type;
};

/* Emulator controls, with their own extack: k->ext holds the operation's answer. */
static int sim_get(struct kit *k, const char *key, char *buf, size_t len)
{
	return dlh_dev_sim_get(k->t->dev, NULL, key, buf, len, NULL);
}

static int sim_set(struct kit *k, const char *key, const char *value)
{
	return dlh_dev_sim_set(k->t->dev, NULL, key, value, NULL);
}

static int scenario_op(struct kit *k, const struct scenario *s, char (*members)[DLH_HANDLE_MAX])
{
	if (s->type != DLH_PORT_TYPE_NOTSET)
		return port(k, s->h) ? dlh_port_type_set(port(k, s->h), s->type, &k->ext) : -ENODEV;
	if (s->count)
		return split(k, s->h, s->count);
	return unsplit(k, members[0]);
}

/* Back to the scenario's starting point after the op succeeded. */
static void scenario_undo(struct kit *k, const struct scenario *s, char (*members)[DLH_HANDLE_MAX])
{
	if (s->type != DLH_PORT_TYPE_NOTSET) {
		if (s->undo_type != DLH_PORT_TYPE_NOTSET)
			dlh_port_type_set(port(k, s->h), s->undo_type, &k->ext);
	} else if (s->count) {
		if (changed_ports(k, k->start, members, 256))
			unsplit(k, members[0]);
	} else {
		split(k, s->h, s->setup);
	}
}

static unsigned int scenario_run(struct kit *k, const struct scenario *s, char *hw)
{
	char(*members)[DLH_HANDLE_MAX] = calloc(256, DLH_HANDLE_MAX), nth[24], pending[24] = "", what[192];
	unsigned int n, accesses = 0;

	if (!members)
		return 0;
	if (!s->count && s->type == DLH_PORT_TYPE_NOTSET) {
		if (split(k, s->h, s->setup) || !changed_ports(k, k->start, members, 256)) {
			kit_diag(k->run, "%s: cannot split %s into %u to start", s->name, s->h, s->setup);
			free(members);
			return 0;
		}
	}
	for (n = 1; n < 100000; n++) {
		char *before = kit_model(k->t->dev), *after;
		int err;

		sim_get(k, "state", hw, STATE_MAX);
		char *hw_before = strdup(hw);

		snprintf(nth, sizeof(nth), "%u", n);
		sim_set(k, "fail_nth", nth);
		kit_events_clear(k->t);
		err = scenario_op(k, s, members);
		if (!err) {
			sim_get(k, "fail_nth", pending, sizeof(pending));
			sim_set(k, "fail_nth", "0");
			if (!strcmp(pending, "0"))
				kit_diag(k->run, "%s: hardware access %u failed, but the operation succeeded", s->name,
					 n);
			accesses = n - 1;
			scenario_undo(k, s, members);
			free(before);
			free(hw_before);
			break;
		}
		/* refused before access n was reached: no fault of the kit's made it fail, and none will (a
		 * count the driver does not take: through dlhald this once went on for 80,000 tries) */
		sim_get(k, "fail_nth", pending, sizeof(pending));
		sim_set(k, "fail_nth", "0");
		if (strcmp(pending, "0")) {
			kit_diag(k->run, "%s: refused with no hardware access failing: %s", s->name, k->ext.msg);
			free(before);
			free(hw_before);
			break;
		}
		snprintf(what, sizeof(what), "%s, access %u failed", s->name, n);
		after = kit_model(k->t->dev);
		if (after && strcmp(after, before))
			kit_model_diff(k->run, what, before, after);
		if (k->t->nev)
			kit_diag(k->run, "%s: %zu events", what, k->t->nev);
		if (!k->ext.msg[0])
			kit_diag(k->run, "%s: refused (%s) without a message", what, errname(err));
		sim_get(k, "state", hw, STATE_MAX);
		if (strcmp(hw, hw_before))
			kit_diag(k->run, "%s: the hardware state changed", what);
		free(before);
		free(after);
		free(hw_before);
		if (k->run->ndiag)
			break;
	}
	if (!s->count && s->type == DLH_PORT_TYPE_NOTSET && changed_ports(k, k->start, members, 256))
		unsplit(k, members[0]);
	/* A type change has no undo to notset: the caller sets the device up again. */
	if (s->type == DLH_PORT_TYPE_NOTSET)
		back_to_start(k, s->name);
	free(members);
	return accesses;
}

static void check_faults(struct kit *k)
{
	char *hw = malloc(STATE_MAX), name[160], probe[24];
	unsigned int total = 0, ops = 0;
	struct scenario s[8];
	size_t ns = 0;

	if (!hw || sim_set(k, "fail_nth", "0") || sim_get(k, "fail_nth", probe, sizeof(probe))) {
		free(hw);
		kit_report(k->run, "a failed hardware access leaves ports and hardware as before",
			   "the driver offers no fail_nth emulator control");
		return;
	}
	hw[0] = '\0';
	for (size_t i = 0; i < k->nhandles && ns < 6; i++) {
		struct dlh_port *p = port(k, k->handles[i]);
		uint32_t mask = p ? dlh_port_split_counts(p) : 0;

		if (!mask)
			continue;
		for (unsigned int n = 2; n < 32 && ns < 5; n *= 2)
			if (mask & (1u << n))
				s[ns++] = (struct scenario){"split", k->handles[i], n, 0, DLH_PORT_TYPE_NOTSET, 0};
		s[ns++] = (struct scenario){
		    "unsplit", k->handles[i], 0, (unsigned int)__builtin_ctz(mask), DLH_PORT_TYPE_NOTSET, 0};
		break;
	}
	for (size_t i = 0; i < k->nhandles && ns < 8; i++) {
		struct dlh_port *p = port(k, k->handles[i]);
		enum dlh_port_type other;

		if (!p)
			continue;
		other = dlh_port_type(p) == DLH_PORT_TYPE_IB ? DLH_PORT_TYPE_ETH : DLH_PORT_TYPE_IB;
		/* Only a change the driver takes is worth failing step by step. */
		if (dlh_port_type_set(p, other, &k->ext)) {
			back_to_start(k, "type probe");
			continue;
		}
		kit_target_reset(k->t, &k->ext);
		s[ns++] = (struct scenario){"type set", k->handles[i], 0, 0, other, DLH_PORT_TYPE_NOTSET};
		break;
	}
	for (size_t i = 0; i < ns && !k->run->ndiag; i++) {
		char label[128];

		if (s[i].count)
			snprintf(label, sizeof(label), "%s %s into %u", s[i].name, s[i].h, s[i].count);
		else if (s[i].type != DLH_PORT_TYPE_NOTSET)
			snprintf(label, sizeof(label), "%s %s %s", s[i].name, s[i].h, dlh_port_type_name(s[i].type));
		else
			snprintf(label, sizeof(label), "%s %s (split into %u)", s[i].name, s[i].h, s[i].setup);
		s[i].name = label;
		total += scenario_run(k, &s[i], hw);
		ops++;
		if (s[i].type != DLH_PORT_TYPE_NOTSET)
			kit_target_reset(k->t, &k->ext);
	}
	free(hw);
	snprintf(name, sizeof(name),
		 "a failed hardware access leaves ports and hardware as before (%u accesses in %u operations)", total,
		 ops);
	kit_report(k->run, name, ns ? NULL : "no operation the driver takes");
}

/* The model without desired types: those are the host's to keep, not the hardware's. */
static char *hardware_view(char *text)
{
	char *w = text;

	for (const char *r = text; r && *r;) {
		if (!strncmp(r, " desired ", 9)) {
			r += 9 + strcspn(r + 9, " ");
			continue;
		}
		*w++ = *r++;
	}
	if (w)
		*w = '\0';
	return text;
}

static void check_state(struct kit *k)
{
	char *buf = malloc(STATE_MAX), *changed, *restored;
	const char *what = NULL;

	if (!buf || sim_get(k, "state", buf, STATE_MAX)) {
		free(buf);
		kit_report(k->run, "the hardware state survives a restart", "the driver offers no state");
		return;
	}
	free(buf);
	for (size_t i = 0; i < k->nhandles && !what; i++) {
		struct dlh_port *p = port(k, k->handles[i]);
		uint32_t mask = p ? dlh_port_split_counts(p) : 0;

		if (mask && !split(k, k->handles[i], (unsigned int)__builtin_ctz(mask)))
			what = "a split";
	}
	for (size_t i = 0; i < k->nhandles; i++) {
		struct dlh_port *p = port(k, k->handles[i]);

		if (p && !dlh_port_is_split(p) &&
		    !dlh_port_type_set(p, dlh_port_type(p) == DLH_PORT_TYPE_IB ? DLH_PORT_TYPE_ETH : DLH_PORT_TYPE_IB,
				       &k->ext)) {
			what = what ? "a split and a type change" : "a type change";
			break;
		}
	}
	changed = hardware_view(kit_model(k->t->dev));
	if (kit_target_restart(k->t, &k->ext)) {
		kit_diag(k->run, "restart after %s: %s", what ? what : "no change", k->ext.msg);
	} else {
		restored = hardware_view(kit_model(k->t->dev));
		kit_model_diff(k->run, "after a restart", changed, restored);
		free(restored);
	}
	free(changed);
	kit_target_reset(k->t, &k->ext);
	kit_report(k->run, "the hardware state survives a restart", NULL);
}

static void check_cycles(struct kit *k)
{
	unsigned int cycles = k->t->opts->cycles ? k->t->opts->cycles : 20;
	char(*members)[DLH_HANDLE_MAX] = calloc(256, DLH_HANDLE_MAX), name[96];
	const char *h = NULL;
	uint32_t mask = 0;

	for (size_t i = 0; i < k->nhandles && !h; i++) {
		struct dlh_port *p = port(k, k->handles[i]);

		if (p && (mask = dlh_port_split_counts(p)))
			h = k->handles[i];
	}
	for (unsigned int c = 0; h && members && c < cycles; c++) {
		unsigned int n = 2;
		int err;

		/* Each advertised count in turn. */
		for (unsigned int skip = c % (unsigned int)__builtin_popcount(mask);; n *= 2)
			if (mask & (1u << n) && !skip--)
				break;
		err = split(k, h, n);
		if (!err && !changed_ports(k, k->start, members, 256))
			err = -ENODEV;
		if (!err)
			err = unsplit(k, members[0]);
		if (err) {
			kit_diag(k->run, "cycle %u (into %u): %s: %s", c + 1, n, errname(err), k->ext.msg);
			break;
		}
		snprintf(name, sizeof(name), "after cycle %u", c + 1);
		if (back_to_start(k, name))
			break;
	}
	free(members);
	snprintf(name, sizeof(name), "%u split/unsplit cycles return to the starting ports", cycles);
	kit_report(k->run, name, h ? NULL : "no splittable port");
}

/* The line a planned port would have, in kit_port_line()'s words for the fields a plan says. */
static bool plan_port_matches(const struct dlh_plan_port *pp, const struct dlh_port *p)
{
	const char *nd = dlh_port_netdev(p);

	return pp->index == dlh_port_index(p) && pp->lanes == dlh_port_lanes(p) && pp->split == dlh_port_is_split(p) &&
	       pp->split_group == dlh_port_split_group(p) && pp->split_subport == dlh_port_split_subport(p) &&
	       pp->type == dlh_port_type(p) && !strcmp(pp->netdev, nd ? nd : "");
}

/* Plan, then act: the plan's refusal or ports must be exactly the op's, and the plan touches nothing. */
static void plan_then_act(struct kit *k, const char *h, unsigned int count, bool *planned)
{
	char what[160], acc0[32] = "", acc1[32] = "", pmsg[DLH_EXTACK_MSG_MAX], (*changed)[DLH_HANDLE_MAX];
	struct dlh_port *p = port(k, h);
	char *before, *after;
	struct dlh_plan plan;
	size_t nchanged;
	int perr, err;

	if (!p)
		return;
	snprintf(what, sizeof(what), count ? "split %s into %u" : "unsplit %s", h, count);
	before = kit_model(k->t->dev);
	kit_events_clear(k->t);
	sim_get(k, "accesses", acc0, sizeof(acc0));
	perr = count ? dlh_port_split_plan(p, count, &plan, &k->ext) : dlh_port_unsplit_plan(p, &plan, &k->ext);
	sim_get(k, "accesses", acc1, sizeof(acc1));
	if (perr == -EOPNOTSUPP && strstr(k->ext.msg, "cannot plan")) {
		free(before);
		return;
	}
	/* A relay's plan (kernel, dlhald) knows only core's refusals: an accepted one says nothing of the op. */
	if (!perr && plan.partial) {
		if (count)
			split(k, h, count);
		else
			unsplit(k, h);
		free(before);
		return;
	}
	*planned = true;
	after = kit_model(k->t->dev);
	if (strcmp(before, after) || k->t->nev || strcmp(acc0, acc1))
		kit_diag(k->run, "%s: the plan changed something (%zu events, accesses %s -> %s)", what, k->t->nev,
			 acc0, acc1);
	free(after);
	snprintf(pmsg, sizeof(pmsg), "%s", k->ext.msg);
	err = count ? split(k, h, count) : unsplit(k, h);
	if (!!perr != !!err || (perr && (perr != err || strcmp(pmsg, k->ext.msg)))) {
		kit_diag(k->run, "%s: the plan said %d \"%s\", the op %d \"%s\"", what, perr, pmsg, err, k->ext.msg);
	} else if (!err && !plan.partial && (changed = calloc(256, DLH_HANDLE_MAX))) {
		unsigned int gone = 0;

		nchanged = changed_ports(k, before, changed, 256);
		/* every port the plan said would come came, as it said */
		for (unsigned int i = 0; i < plan.ncome; i++) {
			struct dlh_port *q = dlh_port_find(k->t->dev, plan.come[i].index);

			if (!q || !plan_port_matches(&plan.come[i], q))
				kit_diag(k->run, "%s: planned port %u (netdev \"%s\", lanes %u) is not what came", what,
					 plan.come[i].index, plan.come[i].netdev, plan.come[i].lanes);
		}
		if (nchanged != plan.ncome)
			kit_diag(k->run, "%s: %zu ports came, the plan said %u", what, nchanged, plan.ncome);
		/* and the ports that went are the plan's */
		for (const char *s = before; *s; s = strchr(s, '\n') + 1) {
			char line[256], hh[DLH_HANDLE_MAX];
			struct dlh_port *q;

			snprintf(hh, sizeof(hh), "%.*s", (int)strcspn(s, " "), s);
			q = port(k, hh);
			if (q)
				kit_port_line(q, line, sizeof(line));
			if (!q || strncmp(s, line, strcspn(s, "\n")))
				gone++;
		}
		if (gone != plan.ngone)
			kit_diag(k->run, "%s: %u ports went or changed, the plan said %u", what, gone, plan.ngone);
		free(changed);
	}
	free(before);
}

/*
 * After an accepted split of @h into @n: every other port of the device is
 * planned then split by the smallest count it takes, and that split planned
 * then undone, from the state the first split left. A plan that ignores a rule its
 * op enforces only once a neighbour changed (two cages sharing a SerDes)
 * shows only here: the profile's starting ports never meet it.
 */
static void others_then_act(struct kit *k, const char *h, unsigned int n, bool *planned)
{
	char(*members)[DLH_HANDLE_MAX] = calloc(256, DLH_HANDLE_MAX);
	char *state = kit_model(k->t->dev);

	for (size_t j = 0; j < k->nhandles && members && state; j++) {
		struct dlh_port *q = port(k, k->handles[j]);
		uint32_t mask = q && strcmp(k->handles[j], h) && !dlh_port_is_split(q) ? dlh_port_split_counts(q) : 0;

		/* its smallest count: what a neighbour's split leaves a port is whether it splits at all */
		for (unsigned int m = 2; m < 32; m++) {
			char *now;

			if (!(mask & (1u << m)) || (mask & ((1u << m) - 1)))
				continue;
			plan_then_act(k, k->handles[j], m, planned);
			if (changed_ports(k, state, members, 256))
				plan_then_act(k, members[0], 0, planned);
			now = kit_model(k->t->dev);
			/* not back where the first split left it: from the start again, and that split */
			if (!now || strcmp(now, state)) {
				back_to_start(k, "after a neighbour's planned split and unsplit");
				split(k, h, n);
			}
			free(now);
		}
	}
	free(state);
	free(members);
}

static void check_plans(struct kit *k)
{
	char(*members)[DLH_HANDLE_MAX] = calloc(256, DLH_HANDLE_MAX);
	bool planned = false;

	for (size_t i = 0; i < k->nhandles && members; i++) {
		struct dlh_port *p = port(k, k->handles[i]);
		uint32_t mask = p ? dlh_port_split_counts(p) : 0;

		for (unsigned int n = 2; n < 32; n++) {
			if (!(mask & (1u << n)))
				continue;
			plan_then_act(k, k->handles[i], n, &planned);
			if (changed_ports(k, k->start, members, 256)) {
				others_then_act(k, k->handles[i], n, &planned);
				plan_then_act(k, members[0], 2, &planned); /* a split port: refused by both */
				plan_then_act(k, members[0], 0, &planned);
			}
			back_to_start(k, "after a planned split and unsplit");
		}
		p = port(k, k->handles[i]); /* the ops above may have replaced it */
		if (p && !dlh_port_is_split(p))
			plan_then_act(k, k->handles[i], 0, &planned); /* unsplit of a whole port: refused by both */
		back_to_start(k, "after a planned unsplit");
	}
	free(members);
	kit_report(k->run, "plans say exactly what the operations then do, and touch nothing",
		   planned ? NULL : "the driver plans nothing");
}

/* Two plans alike: refusal and message, or the ports to go and come, as each would be. */
static bool plans_alike(int e1, const char *m1, const struct dlh_plan *a, int e2, const char *m2,
			const struct dlh_plan *b)
{
	if (e1 || e2)
		return e1 == e2 && !strcmp(m1, m2);
	if (a->partial != b->partial || a->ngone != b->ngone || a->ncome != b->ncome || a->staged != b->staged)
		return false;
	for (unsigned int i = 0; i < a->ngone; i++)
		if (a->gone[i] != b->gone[i])
			return false;
	for (unsigned int i = 0; i < a->ncome; i++) {
		const struct dlh_plan_port *x = &a->come[i], *y = &b->come[i];

		if (x->index != y->index || x->type != y->type || strcmp(x->netdev, y->netdev) ||
		    strcmp(x->ibdev, y->ibdev) || x->lanes != y->lanes || x->split != y->split ||
		    x->split_group != y->split_group || x->split_subport != y->split_subport)
			return false;
	}
	return true;
}

/* A second change planned on a sequence's view: what it is, its result. */
struct second {
	uint32_t index;
	unsigned int count; /* 0: an unsplit */
	int err;
	char msg[DLH_EXTACK_MSG_MAX];
	struct dlh_plan plan;
};

/* Each port of the view: its unsplit if split, else its smallest split; planned, not taken. */
static size_t seconds_plan(struct kit *k, struct dlh_seq *seq, struct second *out, size_t max, bool *partial)
{
	size_t n = 0;

	for (struct dlh_port *v = dlh_seq_port_first(seq, k->t->dev); v && n < max; v = dlh_seq_port_next(v)) {
		uint32_t mask = dlh_port_split_counts(v);
		struct second *s = &out[n];

		memset(s, 0, sizeof(*s));
		s->index = dlh_port_index(v);
		for (unsigned int c = 2; c < 32 && !dlh_port_is_split(v); c++)
			if (mask & (1u << c)) {
				s->count = c;
				break;
			}
		if (!dlh_port_is_split(v) && !s->count)
			continue;
		s->err = s->count ? dlh_port_split_plan(v, s->count, &s->plan, &k->ext)
				  : dlh_port_unsplit_plan(v, &s->plan, &k->ext);
		snprintf(s->msg, sizeof(s->msg), "%s", s->err ? k->ext.msg : "");
		*partial |= !s->err && s->plan.partial;
		n++;
	}
	return n;
}

/*
 * A change planned after another (a desired-state file: struct dlh_seq) is
 * what its plan would be once the first was done: for each split the driver
 * accepts, every port's next change is planned on the sequence's view, the
 * split is made, and each is planned again on the real ports. A driver that
 * plans one change at a time (no DLH_SDK_F_PLAN_VIEW) is said to, not failed.
 */
static void check_sequences(struct kit *k)
{
	struct second *sec = calloc(128, sizeof(*sec));
	bool partial = false, planned = false;

	for (size_t i = 0; i < k->nhandles && sec && !partial; i++) {
		struct dlh_port *p = port(k, k->handles[i]);
		uint32_t mask = p ? dlh_port_split_counts(p) : 0;

		for (unsigned int c = 2; c < 32 && !partial; c++) {
			struct dlh_seq *seq;
			struct dlh_plan first;
			struct dlh_port *v;
			size_t n;

			if (!(mask & (1u << c)) || dlh_seq_new(k->t->ctx, &seq))
				continue;
			for (v = dlh_seq_port_first(seq, k->t->dev); v && strcmp(dlh_port_handle(v), k->handles[i]);
			     v = dlh_seq_port_next(v))
				;
			if (!v || dlh_seq_split(seq, v, c, &first, &k->ext) || first.partial) {
				dlh_seq_free(seq);
				continue;
			}
			n = seconds_plan(k, seq, sec, 128, &partial);
			dlh_seq_free(seq);
			if (partial || split(k, k->handles[i], c)) {
				back_to_start(k, "after a planned sequence");
				continue;
			}
			planned = true;
			for (size_t j = 0; j < n; j++) {
				struct dlh_plan now;
				char h[DLH_HANDLE_MAX + 16];
				int err;

				snprintf(h, sizeof(h), "%s/%u", dlh_dev_handle(k->t->dev), sec[j].index);
				p = port(k, h);
				err = !p ? -ENODEV
				      : sec[j].count ? dlh_port_split_plan(p, sec[j].count, &now, &k->ext)
						     : dlh_port_unsplit_plan(p, &now, &k->ext);
				if (!plans_alike(sec[j].err, sec[j].msg, &sec[j].plan, err, err ? k->ext.msg : "", &now))
					kit_diag(k->run,
						 "after split %s into %u: %s %s planned on the sequence (%d \"%s\", %u gone, "
						 "%u new) is not its plan once the split is done (%d \"%s\", %u gone, %u new)",
						 k->handles[i], c, sec[j].count ? "split of" : "unsplit of", h, sec[j].err,
						 sec[j].msg, sec[j].plan.ngone, sec[j].plan.ncome, err, err ? k->ext.msg : "",
						 err ? 0 : now.ngone, err ? 0 : now.ncome);
			}
			unsplit(k, k->handles[i]);
			back_to_start(k, "after a planned sequence");
		}
	}
	free(sec);
	kit_report(k->run, "a change planned after another is its plan once the first is done",
		   partial    ? "the driver plans one change at a time (no DLH_SDK_F_PLAN_VIEW): a file's later steps "
				"on a device are partial"
		   : !planned ? "no split to plan after"
			      : NULL);
}

/* Whether any device of the target has something pending, with the split it says (0 if none). */
static bool pending_any(struct kit *k, unsigned int *split, char *dev, size_t len)
{
	struct dlh_pending p;

	for (struct dlh_dev *d = dlh_dev_first(k->t->ctx); d; d = dlh_dev_next(d)) {
		if (dlh_dev_pending(d, &p)) {
			*split = p.split;
			snprintf(dev, len, "%s", dlh_dev_handle(d));
			return true;
		}
	}
	return false;
}

/* Every port of every device, "DEV/INDEX netdev" a line: what a reset brought up, against its plan. */
static char *card_ports(struct kit *k)
{
	size_t cap = 4096, len = 0;
	char *out = malloc(cap);

	for (struct dlh_dev *d = dlh_dev_first(k->t->ctx); out && d; d = dlh_dev_next(d)) {
		for (struct dlh_port *p = dlh_port_first(d); out && p; p = dlh_port_next(p)) {
			const char *nd = dlh_port_netdev(p);

			if (cap - len < 2 * DLH_HANDLE_MAX) {
				char *n = realloc(out, cap *= 2);

				if (!n) {
					free(out);
					return NULL;
				}
				out = n;
			}
			len += (size_t)snprintf(out + len, cap - len, "%s %s\n", dlh_port_handle(p), nd ? nd : "-");
		}
	}
	if (out)
		out[len] = '\0';
	return out;
}

/*
 * A staged driver: its split is stored for the next reset (an E810's port
 * option). Found by a first split that succeeds and changes no port; then what
 * such a driver promises: something pending (with its word), nothing changed
 * before the reset, what is pending survives a restart, and the reset (devlink's
 * fw_activate reload, else the emulator's power cycle) brings up what the plan
 * said and leaves nothing pending. Returns whether the driver stages.
 */
static bool check_staged(struct kit *k, uint32_t counts)
{
	char planned[4096] = "", dev[DLH_HANDLE_MAX], *now = NULL, *after;
	unsigned int n = (unsigned int)__builtin_ctz(counts), pend = 0;
	const char *h = NULL;
	struct dlh_plan plan;
	bool has_plan;
	size_t len = 0;
	int err;

	for (size_t i = 0; i < k->nhandles && !h; i++) {
		struct dlh_port *p = port(k, k->handles[i]);

		if (p && dlh_port_split_counts(p) & (1u << n))
			h = k->handles[i];
	}
	if (!h)
		return false;
	has_plan = !dlh_port_split_plan(port(k, h), n, &plan, &k->ext) && plan.staged;
	err = split(k, h, n);
	now = err ? NULL : kit_model(k->t->dev);
	if (err || !now || strcmp(now, k->start) || !pending_any(k, &pend, dev, sizeof(dev))) {
		/* Done at once (or refused): the split checks say what they find, from the start. */
		free(now);
		if (!err && kit_target_reset(k->t, &k->ext))
			kit_diag(k->run, "cannot set the device up again: %s", k->ext.msg);
		start_load(k);
		kit_events_clear(k->t);
		return false;
	}
	if (!k->ext.msg[0])
		kit_diag(k->run,
			 "split %s into %u succeeded without a word: say what waits (\"Reboot required to finish "
			 "port split\")",
			 h, n);
	if (pend != n)
		kit_diag(k->run, "split %s into %u: %s says split %u is pending", h, n, dev, pend);
	for (unsigned int i = 0; has_plan && i < plan.nafter; i++)
		len += (size_t)snprintf(planned + len, sizeof(planned) - len, "%s/%u %s\n", plan.after[i].dev,
					plan.after[i].port.index,
					plan.after[i].port.netdev[0] ? plan.after[i].port.netdev : "-");
	free(now);
	if (kit_target_restart(k->t, &k->ext)) {
		kit_diag(k->run, "restart with split %u pending: %s", n, k->ext.msg);
	} else {
		now = kit_model(k->t->dev);
		kit_model_diff(k->run, "after a restart, before the reset", k->start, now);
		free(now);
		if (!pending_any(k, &pend, dev, sizeof(dev)))
			kit_diag(k->run, "after a restart, nothing is pending any more (the NVM forgot split %u)", n);
	}
	if (pending_any(k, &pend, dev, sizeof(dev))) {
		struct dlh_dev *d = dlh_dev_find(k->t->ctx, dev);

		err = dlh_dev_reload(d, DLH_RELOAD_ACTION_FW_ACTIVATE, DLH_RELOAD_LIMIT_UNSPEC, NULL, &k->ext);
		if (err == -EOPNOTSUPP && (d = dlh_dev_find(k->t->ctx, dev)))
			err = dlh_dev_sim_reset(d, &k->ext);
		if (err) {
			kit_diag(k->run, "the reset of %s: %s: %s", dev, errname(err), k->ext.msg);
		} else {
			if (pending_any(k, &pend, dev, sizeof(dev)))
				kit_diag(k->run, "after the reset, %s still has split %u pending", dev, pend);
			after = card_ports(k);
			if (has_plan && after && strcmp(after, planned))
				kit_model_diff(k->run, "the reset against its plan", planned, after);
			free(after);
		}
	}
	/* A reset may have replaced the device under test: start again from the profile. */
	if (kit_target_reset(k->t, &k->ext))
		kit_diag(k->run, "cannot set the device up again: %s", k->ext.msg);
	start_load(k);
	kit_report(k->run,
		   "a staged split: pending with its word, nothing changes before the reset, pending survives a "
		   "restart, the reset brings up its plan",
		   NULL);
	return true;
}

void kit_checks_run(struct kit_run *run, struct kit_target *t)
{
	static const char staged_skip[] = "a staged driver: its splits wait for a reset (the staged check covers them)";
	struct kit k = {.run = run, .t = t};
	uint32_t counts = 0;
	bool staged = false;

	start_load(&k);
	check_probe(&k);
	check_attributes(&k);
	for (size_t i = 0; i < k.nhandles; i++) {
		struct dlh_port *p = port(&k, k.handles[i]);

		counts |= p ? dlh_port_split_counts(p) : 0;
	}
	if (counts)
		staged = k.staged = check_staged(&k, counts);
	for (unsigned int n = 2; n < 32 && !staged; n++)
		if (counts & (1u << n))
			check_split(&k, n);
	if (!counts)
		kit_report(run, "split and unsplit", "no splittable port");
	check_refusals(&k);
	check_types(&k);
	if (staged) {
		kit_report(run, "plans", staged_skip);
		kit_report(run, "a change planned after another is its plan once the first is done", staged_skip);
		kit_report(run, "faults", staged_skip);
		kit_report(run, "the hardware state survives a restart", staged_skip);
		kit_report(run, "split/unsplit cycles", staged_skip);
	} else {
		check_plans(&k);
		check_sequences(&k);
		check_faults(&k);
		check_state(&k);
		check_cycles(&k);
	}
	free(k.start);
	free(k.handles);
}
