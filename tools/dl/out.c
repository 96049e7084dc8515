/* SPDX-License-Identifier: MIT */
/*
 * Output: the seed's text lines, or iproute2's JSON layout. Keys and words
 * come from the enum tables of <dlhal/dlhal.h>.
 */
#include "dl.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/*
 * JSON goes through one streaming writer (jsonw.c), compact or indented: a
 * listing is written port by port into one buffer, written out at the end.
 */
void out_begin(struct dl *dl, const char *object)
{
	if (!dl->json)
		return;
	jsonw_init_stream(&dl->jw, dl->pretty, stdout);
	jsonw_obj_open(&dl->jw, NULL);
	jsonw_obj_open(&dl->jw, object);
}

/* A monitor line: {"event": "new", "port": {...}} in JSON, "[port,new] " before the text line. */
void out_begin_event(struct dl *dl, const char *object, const char *action)
{
	if (!dl->json) {
		printf("[%s,%s] ", object, action);
		return;
	}
	jsonw_init_stream(&dl->jw, dl->pretty, stdout);
	jsonw_obj_open(&dl->jw, NULL);
	jsonw_str(&dl->jw, "event", action);
	jsonw_obj_open(&dl->jw, object);
}

/* Notifications were lost and the bus read everything again: the events before this one repaired the model. */
void out_resync(struct dl *dl, const char *bus)
{
	if (!dl->json) {
		printf("%s: notifications were lost; the state was read again\n", bus);
		return;
	}
	jsonw_str(&dl->jw, "name", bus);
	jsonw_bool(&dl->jw, "lost", true);
}

void out_lost(struct dl *dl, const char *bus, const char *why)
{
	if (!dl->json) {
		printf("%s: %s; nothing more will come from it\n", bus, why);
		return;
	}
	jsonw_str(&dl->jw, "name", bus);
	jsonw_str(&dl->jw, "gone", why);
}

/* A kernel device that did otherwise than its vendor's rules planned (DLH_EVENT_PLAN_MISS). */
void out_miss(struct dl *dl, const struct dlh_dev *dev, const char *why)
{
	if (!dl->json) {
		printf("%s: not as planned: %s\n", dlh_dev_handle(dev), why);
		return;
	}
	jsonw_str(&dl->jw, "name", dlh_dev_handle(dev));
	jsonw_str(&dl->jw, "miss", why);
}

void out_end(struct dl *dl)
{
	if (!dl->json)
		return;
	while (dl->jw.depth)
		jsonw_obj_close(&dl->jw);
	if (jsonw_flush(&dl->jw, stdout))
		fprintf(stderr, "dl: out of memory writing JSON\n");
	jsonw_free(&dl->jw);
}

/* Where one object's fields go: a text line or the JSON writer. */
struct fields {
	struct dl *dl;
	struct jsonw *w; /* NULL: text */
	bool details;	 /* -d, or a phantom port's (a plan's), which has no more than devlink's */
};

static void fields_begin(struct fields *f, struct dl *dl, const char *handle)
{
	*f = (struct fields){.dl = dl, .w = dl->json ? &dl->jw : NULL, .details = dl->details};
	if (f->w)
		jsonw_obj_open(f->w, handle);
}

static void fields_end(struct fields *f)
{
	if (f->w)
		jsonw_obj_close(f->w);
	else
		putchar('\n');
}

static void field_str(struct fields *f, const char *key, const char *val)
{
	if (f->w)
		jsonw_str(f->w, key, val);
	else
		printf(" %s %s", key, val);
}

static void field_uint(struct fields *f, const char *key, uint32_t val)
{
	if (f->w)
		jsonw_uint(f->w, key, val);
	else
		printf(" %s %u", key, val);
}

static void field_bool(struct fields *f, const char *key, bool val)
{
	if (f->w)
		jsonw_bool(f->w, key, val);
	else
		printf(" %s %s", key, val ? "true" : "false");
}

/* What is pending until the next reset: " pending split 4" in text, {"split": 4, "message": ...} in JSON. */
static void pending_out(struct fields *f, const struct dlh_pending *p)
{
	if (f->w) {
		jsonw_obj_open(f->w, "pending");
		if (p->split)
			jsonw_uint(f->w, "split", p->split);
		if (p->type != DLH_PORT_TYPE_NOTSET)
			jsonw_str(f->w, "type", dlh_port_type_name(p->type));
		jsonw_str(f->w, "message", p->message);
		jsonw_obj_close(f->w);
		return;
	}
	if (p->split)
		printf(" pending split %u", p->split);
	if (p->type != DLH_PORT_TYPE_NOTSET)
		printf(" pending type %s", dlh_port_type_name(p->type));
}

/* A lane's speed as ice prints it: Gb/s, "-" for a lane the option does not use. */
static const char *lane_str(uint32_t mbps, char *buf, size_t len)
{
	if (!mbps)
		return "-";
	snprintf(buf, len, "%g", mbps / 1000.0);
	return buf;
}

/* The firmware options, as Linux's ice prints its table to dynamic debug, under the device's line. */
static void options_out(struct fields *f, const struct dlh_fw_option *opts, size_t n)
{
	char buf[16];

	if (f->w) {
		jsonw_arr_open(f->w, "options");
		for (size_t i = 0; i < n; i++) {
			jsonw_obj_open(f->w, NULL);
			jsonw_uint(f->w, "split", opts[i].split);
			jsonw_arr_open(f->w, "lanes");
			for (size_t l = 0; l < 8; l++)
				jsonw_uint(f->w, NULL, opts[i].speed[l]);
			jsonw_arr_close(f->w);
			if (opts[i].active)
				jsonw_bool(f->w, "active", true);
			if (opts[i].pending)
				jsonw_bool(f->w, "pending", true);
			jsonw_obj_close(f->w);
		}
		jsonw_arr_close(f->w);
		return;
	}
	printf("\n  Status  Split      Quad 0          Quad 1\n"
	       "          count  L0  L1  L2  L3  L4  L5  L6  L7");
	for (size_t i = 0; i < n; i++) {
		printf("\n  %-8s%-6u", opts[i].active ? "Active" : opts[i].pending ? "Pending" : "", opts[i].split);
		for (size_t l = 0; l < 8; l++)
			printf(l < 7 ? "%3s " : "%3s", lane_str(opts[i].speed[l], buf, sizeof(buf)));
	}
}

void out_dev(struct dl *dl, const struct dlh_dev *dev)
{
	struct dlh_fw_option opts[16];
	struct dlh_pending pending;
	bool has_pending = false, exact = false;
	const char *rules = NULL;
	size_t nopts = 0;
	struct fields f;

	if (dl->details) {
		/* a relayed device: whether its plans are exact, and what they rest on or lack */
		if (strcmp(dlh_dev_backend(dev), dlh_dev_driver(dev)))
			rules = dlh_dev_rules(dev, &exact);
		has_pending = dlh_dev_pending(dev, &pending);
		if (dlh_dev_fw_options((struct dlh_dev *)dev, opts, 16, &nopts, NULL))
			nopts = 0;
		nopts = nopts > 16 ? 16 : nopts;
	}
	fields_begin(&f, dl, dlh_dev_handle(dev));
	if (!dl->json)
		printf("%s%s", dlh_dev_handle(dev), dl->details ? ":" : "");
	if (dl->details && f.w) {
		jsonw_obj_open(f.w, "dlhal");
		jsonw_str(f.w, "driver", dlh_dev_driver(dev));
		if (strcmp(dlh_dev_backend(dev), dlh_dev_driver(dev))) /* a relay's: the way there */
			jsonw_str(f.w, "backend", dlh_dev_backend(dev));
		if (has_pending)
			pending_out(&f, &pending);
		if (nopts)
			options_out(&f, opts, nopts);
		if (rules) {
			jsonw_str(f.w, "plans", exact ? "exact" : "partial");
			jsonw_str(f.w, "rules", rules);
		}
		if (dlh_dev_nested(dev, 0)) {
			jsonw_arr_open(f.w, "nested");
			for (size_t i = 0; dlh_dev_nested(dev, i); i++)
				jsonw_str(f.w, NULL, dlh_dev_nested(dev, i));
			jsonw_arr_close(f.w);
		}
		jsonw_obj_close(f.w);
	} else if (dl->details) {
		field_str(&f, "driver", dlh_dev_driver(dev));
		if (strcmp(dlh_dev_backend(dev), dlh_dev_driver(dev)))
			field_str(&f, "backend", dlh_dev_backend(dev));
		if (has_pending)
			pending_out(&f, &pending);
		if (nopts)
			options_out(&f, opts, nopts);
		if (rules)
			printf("\n  plans %s: %s", exact ? "exact" : "partial", rules);
		/* the instances the kernel nests in it (6.7 on: mlx5_core's Ethernet one) */
		for (size_t i = 0; dlh_dev_nested(dev, i); i++)
			printf("\n  nested: %s", dlh_dev_nested(dev, i));
	}
	fields_end(&f);
}

/* iproute2's answer to a reload given an action or a limit. */
/*
 * `devlink dev info`: the driver, serial numbers, then the versions by kind
 * (fixed, running, stored), each kind only when it has one; a device that
 * reports nothing at all is not printed, as devlink does not.
 */
void out_info(struct dl *dl, const struct dlh_dev *dev, const struct dlh_dev_info *info)
{
	static const char *const keys[] = {"driver", "serial_number", "board.serial_number"};
	const char *vals[] = {info->driver, info->serial, info->board_serial};
	struct jsonw *w = dl->json ? &dl->jw : NULL;
	bool any = info->nversions > 0;

	for (size_t i = 0; i < 3; i++)
		any |= vals[i][0] != '\0';
	if (!any)
		return;
	if (w)
		jsonw_obj_open(w, dlh_dev_handle(dev));
	else
		printf("%s:", dlh_dev_handle(dev));
	for (size_t i = 0; i < 3; i++) {
		if (!vals[i][0])
			continue;
		if (w)
			jsonw_str(w, keys[i], vals[i]);
		else
			printf("\n  %s %s", keys[i], vals[i]);
	}
	if (info->nversions) {
		if (w)
			jsonw_obj_open(w, "versions");
		else
			printf("\n  versions:");
		for (int kind = DLH_VERSION_FIXED; kind <= DLH_VERSION_STORED; kind++) {
			bool opened = false;

			for (size_t i = 0; i < info->nversions; i++) {
				const struct dlh_version *v = &info->versions[i];

				if ((int)v->kind != kind)
					continue;
				if (!opened && w)
					jsonw_obj_open(w, dlh_version_kind_name(v->kind));
				else if (!opened)
					printf("\n      %s:", dlh_version_kind_name(v->kind));
				opened = true;
				if (w)
					jsonw_str(w, v->name, v->value);
				else
					printf("\n        %s %s", v->name, v->value);
			}
			if (opened && w)
				jsonw_obj_close(w);
		}
		if (w)
			jsonw_obj_close(w);
	}
	if (w)
		jsonw_obj_close(w);
	else
		putchar('\n');
}

void out_reload(struct dl *dl, uint32_t done)
{
	const char *sep = "";

	if (dl->json) {
		out_begin(dl, "reload");
		jsonw_arr_open(&dl->jw, "reload_actions_performed");
		for (int a = 0; a < 32; a++)
			if (done & (1u << a))
				jsonw_str(&dl->jw, NULL, dlh_reload_action_name((enum dlh_reload_action)a));
		jsonw_arr_close(&dl->jw);
		out_end(dl);
		return;
	}
	printf("reload_actions_performed:\n    ");
	for (int a = 0; a < 32; a++) {
		if (done & (1u << a)) {
			printf("%s%s", sep, dlh_reload_action_name((enum dlh_reload_action)a));
			sep = " ";
		}
	}
	printf("\n");
}

/*
 * The split counts the port takes now, as a mask: each count core and the
 * driver's plan would accept (a neighbour in the way takes a count out). A
 * relay's plan knows only the kernel core's rules. 0 for a port that cannot
 * be split at all.
 */
static uint32_t counts_now(const struct dlh_port *port)
{
	uint32_t mask = dlh_port_split_counts(port), now = 0;
	struct dlh_plan plan;

	for (unsigned int n = 2; n < 32; n++)
		if (mask & (1u << n)) {
			int err = dlh_port_split_plan((struct dlh_port *)port, n, &plan, NULL);

			/* A driver that cannot plan (a staged one) is left to core's rules. */
			if (!err || err == -EOPNOTSUPP)
				now |= 1u << n;
		}
	return now;
}

/* Field @which of @port under @key, where the port has it (core says which and what: dlh_port_field()). */
static void field_of(struct fields *f, const char *key, const struct dlh_port *port, enum dlh_port_field which)
{
	struct dlh_value v;

	switch (dlh_port_field(port, which, &v)) {
	case DLH_VALUE_STR:
		field_str(f, key, v.str);
		break;
	case DLH_VALUE_UINT:
		field_uint(f, key, (uint32_t)v.uint);
		break;
	case DLH_VALUE_BOOL:
		field_bool(f, key, v.boolean);
		break;
	default:
		break;
	}
}

/*
 * JSON: iproute2 6.1's keys, values and order for every backend (a script
 * written against "devlink -j port show" reads dl's); -d adds what dlhal
 * knows beyond devlink under "dlhal".
 */
static void port_json(struct fields *f, const struct dlh_port *port)
{
	enum dlh_port_type type = dlh_port_type(port), des = dlh_port_desired_type(port);
	uint32_t module, lane, counts;
	bool split = dlh_port_is_split(port), has_module, has_pending;
	struct dlh_pending pending;

	field_of(f, "type", port, DLH_PORT_FIELD_TYPE);
	/* iproute2's key, and only where it differs from the type */
	if (des != DLH_PORT_TYPE_NOTSET && des != type)
		field_of(f, "des_type", port, DLH_PORT_FIELD_DESIRED_TYPE);
	field_of(f, "netdev", port, DLH_PORT_FIELD_NETDEV);
	field_of(f, "ibdev", port, DLH_PORT_FIELD_IBDEV);
	field_of(f, "flavour", port, DLH_PORT_FIELD_FLAVOUR);
	field_of(f, "port", port, DLH_PORT_FIELD_NUMBER);
	field_of(f, "split_group", port, DLH_PORT_FIELD_SPLIT_GROUP);
	field_of(f, "splittable", port, DLH_PORT_FIELD_SPLITTABLE);
	field_of(f, "lanes", port, DLH_PORT_FIELD_LANES);
	if (!f->details)
		return;
	has_module = dlh_port_module(port, &module, &lane);
	counts = dlh_port_split_counts(port);
	has_pending = dlh_port_pending(port, &pending);
	if (!split && !dlh_port_speed(port) && !has_module && !counts && !has_pending)
		return;
	jsonw_obj_open(f->w, "dlhal");
	field_of(f, "split_subport", port, DLH_PORT_FIELD_SPLIT_SUBPORT);
	field_of(f, "speed", port, DLH_PORT_FIELD_SPEED);
	field_of(f, "module", port, DLH_PORT_FIELD_MODULE);
	field_of(f, "lane", port, DLH_PORT_FIELD_LANE);
	if (counts) {
		uint32_t now = counts_now(port);

		jsonw_arr_open(f->w, "split_counts");
		for (unsigned int n = 2; n < 32; n++)
			if (now & (1u << n))
				jsonw_uint(f->w, NULL, n);
		jsonw_arr_close(f->w);
	}
	if (has_pending)
		pending_out(f, &pending);
	jsonw_obj_close(f->w);
}

/* Text: the seed's line; -d adds devlink's attributes and dlhal's. */
static void port_text(struct fields *f, const struct dlh_port *port)
{
	enum dlh_port_type type = dlh_port_type(port), des = dlh_port_desired_type(port);
	bool details = f->details;
	struct dlh_pending pending;
	bool has_pending = dlh_port_pending(port, &pending);

	/* The seed's "type eth(auto)"; iproute2 says "des_type auto" (JSON keeps its key). A type waiting
	 * for a reset (a ConnectX-4..7's) says so instead, on every listing. */
	printf("%s: type %s", dlh_port_handle(port), dlh_port_type_name(type));
	if (des != DLH_PORT_TYPE_NOTSET && des != type && !(has_pending && pending.type == des))
		printf("(%s)", dlh_port_type_name(des));
	field_of(f, "netdev", port, DLH_PORT_FIELD_NETDEV);
	field_of(f, "ibdev", port, DLH_PORT_FIELD_IBDEV);
	if (details) {
		field_of(f, "flavour", port, DLH_PORT_FIELD_FLAVOUR);
		field_of(f, "port", port, DLH_PORT_FIELD_NUMBER);
	}
	field_of(f, "split_group", port, DLH_PORT_FIELD_SPLIT_GROUP);
	if (!details) {
		if (has_pending)
			pending_out(f, &pending);
		return;
	}
	field_of(f, "split_subport", port, DLH_PORT_FIELD_SPLIT_SUBPORT);
	field_of(f, "splittable", port, DLH_PORT_FIELD_SPLITTABLE);
	field_of(f, "lanes", port, DLH_PORT_FIELD_LANES);
	field_of(f, "speed", port, DLH_PORT_FIELD_SPEED);
	field_of(f, "module", port, DLH_PORT_FIELD_MODULE);
	field_of(f, "lane", port, DLH_PORT_FIELD_LANE);
	if (dlh_port_split_counts(port)) {
		uint32_t now = counts_now(port);

		const char *sep = "";

		printf(" split_counts ");
		for (unsigned int n = 2; n < 32; n++) {
			if (now & (1u << n)) {
				printf("%s%u", sep, n);
				sep = ",";
			}
		}
		if (!now)
			printf("none");
	}
	if (has_pending)
		pending_out(f, &pending);
}

void out_port(struct dl *dl, const struct dlh_port *port)
{
	struct fields f;

	fields_begin(&f, dl, dlh_port_handle(port));
	if (f.w)
		port_json(&f, port);
	else
		port_text(&f, port);
	fields_end(&f);
}

void out_port_planned(struct dl *dl, const struct dlh_port *port)
{
	struct fields f;

	fields_begin(&f, dl, dlh_port_handle(port));
	f.details = false;
	port_json(&f, port);
	fields_end(&f);
}

/* An emulator value: as the driver gives it in text; in JSON a number or a
 * document when it is one ("accesses", "state"), else a string. */
void out_sim(struct dl *dl, const char *handle, const char *key, const char *value)
{
	json_t *v;

	if (!dl->json) {
		printf("%s\n", value);
		return;
	}
	out_begin(dl, "sim");
	jsonw_obj_open(&dl->jw, handle);
	v = json_loads(value, JSON_DECODE_ANY, NULL);
	if (json_is_integer(v) || json_is_object(v) || json_is_array(v))
		jsonw_jansson(&dl->jw, key, v);
	else
		jsonw_str(&dl->jw, key, value);
	json_decref(v);
	out_end(dl);
}

/* A --dry-run: what the change would do (the ports that would go, as they are; those that would come). */
/* A planned port's line: "new DEV/INDEX: type eth netdev eth1 split_group 16" (-d: lanes, subport). */
static void plan_port_text(struct dl *dl, const char *what, const char *dev, const struct dlh_plan_port *c)
{
	printf("%s %s/%u: type %s", what, dev, c->index, dlh_port_type_name(c->type));
	if (c->netdev[0])
		printf(" netdev %s", c->netdev);
	if (c->ibdev[0])
		printf(" ibdev %s", c->ibdev);
	if (c->split)
		printf(" split_group %u", c->split_group);
	if (dl->details)
		printf(" lanes %u", c->lanes);
	if (dl->details && c->split)
		printf(" subport %u", c->split_subport);
	printf("\n");
}

static void w_obj_open(void *w, const char *key)
{
	jsonw_obj_open(w, key);
}

static void w_obj_close(void *w)
{
	jsonw_obj_close(w);
}

static void w_arr_open(void *w, const char *key)
{
	jsonw_arr_open(w, key);
}

static void w_arr_close(void *w)
{
	jsonw_arr_close(w);
}

static void w_str(void *w, const char *key, const char *val)
{
	jsonw_str(w, key, val);
}

static void w_uint(void *w, const char *key, uint64_t val)
{
	jsonw_uint(w, key, val);
}

static void w_bool(void *w, const char *key, bool val)
{
	jsonw_bool(w, key, val);
}

void out_writer(struct dl *dl, struct dlh_writer *w)
{
	*w = (struct dlh_writer){.obj_open = w_obj_open,
				 .obj_close = w_obj_close,
				 .arr_open = w_arr_open,
				 .arr_close = w_arr_close,
				 .str = w_str,
				 .uint = w_uint,
				 .boolean = w_bool,
				 .arg = &dl->jw};
}

/* The object of a plan's document: the change asked for, on which port. */
static struct jsonw *plan_open(struct dl *dl, const char *change, const struct dlh_port *port, unsigned int count,
			       const char *type, bool accepted)
{
	struct jsonw *w = &dl->jw;

	jsonw_init_stream(w, dl->pretty, stdout);
	jsonw_obj_open(w, NULL);
	jsonw_obj_open(w, "plan");
	jsonw_str(w, "change", change);
	jsonw_str(w, "port", dlh_port_handle(port));
	if (count)
		jsonw_uint(w, "count", count);
	if (type)
		jsonw_str(w, "type", type);
	jsonw_bool(w, "accepted", accepted);
	return w;
}

void out_plan_refused(struct dl *dl, const char *change, const struct dlh_port *port, unsigned int count,
		      const char *type, const struct dlh_extack *ext)
{
	char buf[DLH_EXTACK_MSG_MAX + DLH_HANDLE_MAX + 4];
	struct jsonw *w;

	if (!dl->json)
		return; /* text: the refusal on stderr says it */
	w = plan_open(dl, change, port, count, type, false);
	jsonw_str(w, "error", dlh_extack_str(ext, buf, sizeof(buf)));
	out_end(dl);
}

void out_plan(struct dl *dl, const char *change, const struct dlh_port *port, unsigned int count, const char *type,
	      const struct dlh_plan *plan, const char *why)
{
	const struct dlh_dev *dev = dlh_port_dev(port);
	struct dlh_writer fields;
	struct jsonw *w;

	if (!dl->json) {
		printf("%s %s", change, dlh_port_handle(port));
		if (count)
			printf(" into %u", count);
		if (type)
			printf(" type %s", type);
		if (plan->partial && why && why[0]) {
			printf(": cannot be planned: %s\n", why);
			return;
		}
		if (plan->partial) {
			printf(": %s's core would take it; the ports it would change are for the driver to say\n",
			       dl->kernel ? "the kernel" : "the peer");
			return;
		}
		printf(plan->staged ? ": would be done after a reset\n" : ": would be done\n");
		/* A staged change: the devices and ports the reset would bring up. */
		for (unsigned int i = 0; i < plan->nafter; i++)
			plan_port_text(dl, "after", plan->after[i].dev, &plan->after[i].port);
		for (unsigned int i = 0; i < plan->ngone; i++) {
			const struct dlh_port *p = dlh_port_find(dev, plan->gone[i]);

			if (!p)
				continue;
			printf("del ");
			out_port(dl, p);
		}
		for (unsigned int i = 0; i < plan->ncome; i++)
			plan_port_text(dl, "new", dlh_dev_handle(dev), &plan->come[i]);
		return;
	}
	w = plan_open(dl, change, port, count, type, true);
	out_writer(dl, &fields);
	dlh_plan_write(plan, dlh_dev_handle(dev), &fields);
	if (plan->partial && why && why[0])
		jsonw_str(w, "why", why);
	out_end(dl);
}
