/* SPDX-License-Identifier: MIT */
/*
 * Output: the seed's text lines, or iproute2's JSON layout written with
 * jansson. Keys and words come from the enum tables of <dlhal/dlhal.h>.
 */
#include "dl.h"

#include <stdlib.h>
#include <string.h>

struct buf {
	char *data;
	size_t len, cap;
};

/*
 * Compact JSON listings are streamed: each device or port object is built
 * and encoded by jansson as soon as it is complete, inside an enclosing
 * {"port":{...}} written here, rather than held in one tree of 1024 objects.
 * The bytes are those jansson writes for the whole tree; pretty output
 * (indentation depends on depth) still builds the tree.
 */
static struct {
	bool on;
	size_t count;
	struct buf out;
} stream;

static int buf_add(const char *s, size_t n, void *arg)
{
	struct buf *b = arg;

	if (b->len + n > b->cap) {
		size_t cap = (b->len + n) * 2;
		char *d = realloc(b->data, cap);

		if (!d)
			return -1;
		b->data = d;
		b->cap = cap;
	}
	memcpy(b->data + b->len, s, n);
	b->len += n;
	return 0;
}

void out_begin(struct dl *dl, const char *object)
{
	if (!dl->json)
		return;
	if (!dl->pretty) {
		stream.on = true;
		stream.count = 0;
		stream.out.len = 0;
		buf_add("{\"", 2, &stream.out);
		buf_add(object, strlen(object), &stream.out);
		buf_add("\":{", 3, &stream.out);
		return;
	}
	dl->jroot = json_object();
	dl->jobj = json_object();
	json_object_set_new(dl->jroot, object, dl->jobj);
}

/* A monitor line: {"event": "new", "port": {...}} in JSON, "[port,new] " before the text line. */
void out_begin_event(struct dl *dl, const char *object, const char *action)
{
	if (!dl->json) {
		printf("[%s,%s] ", object, action);
		return;
	}
	dl->jroot = json_object();
	json_object_set_new(dl->jroot, "event", json_string(action));
	dl->jobj = json_object();
	json_object_set_new(dl->jroot, object, dl->jobj);
}

void out_end(struct dl *dl)
{
	size_t flags = JSON_PRESERVE_ORDER | (dl->pretty ? JSON_INDENT(4) : JSON_COMPACT);
	struct buf b = {0};

	if (stream.on) {
		stream.on = false;
		if (buf_add("}}\n", 3, &stream.out))
			fprintf(stderr, "dl: out of memory writing JSON\n");
		else
			fwrite(stream.out.data, 1, stream.out.len, stdout);
		free(stream.out.data);
		stream.out = (struct buf){0};
		return;
	}
	if (!dl->jroot)
		return;
	/* jansson emits token by token; one write instead of a locked fwrite per token. */
	if (json_dump_callback(dl->jroot, buf_add, &b, flags) || buf_add("\n", 1, &b))
		fprintf(stderr, "dl: out of memory writing JSON\n");
	else
		fwrite(b.data, 1, b.len, stdout);
	free(b.data);
	json_decref(dl->jroot);
	dl->jroot = NULL;
	dl->jobj = NULL;
}

/*
 * Where one object's fields go: a text line, a jansson object (pretty
 * output, monitor lines), or the compact stream. In the stream, values are
 * still encoded by jansson; the keys are our own constant ASCII words, and
 * skipping a jansson object per port skips its per-object loop check (a
 * pointer formatted and hashed for every object dumped), most of the cost.
 */
struct fields {
	struct dl *dl;
	json_t *o;
	bool stream;
	size_t n;
};

static void fields_begin(struct fields *f, struct dl *dl, const char *handle)
{
	*f = (struct fields){.dl = dl, .stream = dl->json && stream.on};
	if (f->stream) {
		json_t *k = json_string(handle);

		if (stream.count++)
			buf_add(",", 1, &stream.out);
		if (!k || json_dump_callback(k, buf_add, &stream.out, JSON_ENCODE_ANY) || buf_add(":{", 2, &stream.out))
			fprintf(stderr, "dl: out of memory writing JSON\n");
		json_decref(k);
	} else if (dl->json) {
		f->o = json_object();
	}
}

static void fields_end(struct fields *f, const char *handle)
{
	if (f->stream)
		buf_add("}", 1, &stream.out);
	else if (f->o)
		json_object_set_new(f->dl->jobj, handle, f->o);
	else
		putchar('\n');
}

/* A JSON field (takes @val). */
static void field_json(struct fields *f, const char *key, json_t *val)
{
	if (!f->stream) {
		json_object_set_new_nocheck(f->o, key, val);
		return;
	}
	if ((f->n++ && buf_add(",", 1, &stream.out)) || buf_add("\"", 1, &stream.out) ||
	    buf_add(key, strlen(key), &stream.out) || buf_add("\":", 2, &stream.out) || !val ||
	    json_dump_callback(val, buf_add, &stream.out, JSON_ENCODE_ANY | JSON_COMPACT))
		fprintf(stderr, "dl: out of memory writing JSON\n");
	json_decref(val);
}

static void field_str(struct fields *f, const char *key, const char *val)
{
	if (f->dl->json)
		field_json(f, key, json_string(val));
	else
		printf(" %s %s", key, val);
}

static void field_uint(struct fields *f, const char *key, uint32_t val)
{
	if (f->dl->json)
		field_json(f, key, json_integer(val));
	else
		printf(" %s %u", key, val);
}

static void field_bool(struct fields *f, const char *key, bool val)
{
	if (f->dl->json)
		field_json(f, key, json_boolean(val));
	else
		printf(" %s %s", key, val ? "true" : "false");
}

void out_dev(struct dl *dl, const struct dlh_dev *dev)
{
	struct fields f;

	fields_begin(&f, dl, dlh_dev_handle(dev));
	if (!dl->json)
		printf("%s%s", dlh_dev_handle(dev), dl->details ? ":" : "");
	if (dl->details && dl->json)
		field_json(&f, "dlhal", json_pack("{s:s}", "driver", dlh_dev_driver(dev)));
	else if (dl->details)
		field_str(&f, "driver", dlh_dev_driver(dev));
	fields_end(&f, dlh_dev_handle(dev));
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
		if (mask & (1u << n) && !dlh_port_split_plan((struct dlh_port *)port, n, &plan, NULL))
			now |= 1u << n;
	return now;
}

/*
 * JSON: iproute2 6.1's keys, values and order for every backend (a script
 * written against "devlink -j port show" reads dl's); -d adds what dlhal
 * knows beyond devlink under "dlhal".
 */
static void port_json(struct fields *f, const struct dlh_port *port)
{
	enum dlh_port_type type = dlh_port_type(port), des = dlh_port_desired_type(port);
	uint32_t module, lane;
	json_t *x;

	field_str(f, "type", dlh_port_type_name(type));
	if (des != DLH_PORT_TYPE_NOTSET && des != type)
		field_str(f, "des_type", dlh_port_type_name(des));
	if (dlh_port_netdev(port))
		field_str(f, "netdev", dlh_port_netdev(port));
	if (dlh_port_ibdev(port))
		field_str(f, "ibdev", dlh_port_ibdev(port));
	field_str(f, "flavour", dlh_port_flavour_name(dlh_port_flavour(port)));
	if (dlh_port_number(port))
		field_uint(f, "port", dlh_port_number(port));
	if (dlh_port_is_split(port))
		field_uint(f, "split_group", dlh_port_split_group(port));
	field_bool(f, "splittable", dlh_port_splittable(port));
	if (dlh_port_lanes(port))
		field_uint(f, "lanes", dlh_port_lanes(port));
	if (!f->dl->details)
		return;
	x = json_object();
	if (dlh_port_is_split(port))
		json_object_set_new(x, "split_subport", json_integer(dlh_port_split_subport(port)));
	if (dlh_port_speed(port))
		json_object_set_new(x, "speed", json_integer(dlh_port_speed(port)));
	if (dlh_port_module(port, &module, &lane)) {
		json_object_set_new(x, "module", json_integer(module));
		json_object_set_new(x, "lane", json_integer(lane));
	}
	if (dlh_port_split_counts(port)) {
		uint32_t now = counts_now(port);
		json_t *a = json_array();

		for (unsigned int n = 2; n < 32; n++)
			if (now & (1u << n))
				json_array_append_new(a, json_integer(n));
		json_object_set_new(x, "split_counts", a);
	}
	if (json_object_size(x))
		field_json(f, "dlhal", x);
	else
		json_decref(x);
}

/* Text: the seed's line; -d adds devlink's attributes and dlhal's. */
static void port_text(struct fields *f, const struct dlh_port *port)
{
	enum dlh_port_type type = dlh_port_type(port), des = dlh_port_desired_type(port);
	bool details = f->dl->details;
	uint32_t module, lane;

	/* The seed's "type eth(auto)"; iproute2 says "des_type auto" (JSON keeps its key). */
	printf("%s: type %s", dlh_port_handle(port), dlh_port_type_name(type));
	if (des != DLH_PORT_TYPE_NOTSET && des != type)
		printf("(%s)", dlh_port_type_name(des));
	if (dlh_port_netdev(port))
		field_str(f, "netdev", dlh_port_netdev(port));
	if (dlh_port_ibdev(port))
		field_str(f, "ibdev", dlh_port_ibdev(port));
	if (details) {
		field_str(f, "flavour", dlh_port_flavour_name(dlh_port_flavour(port)));
		if (dlh_port_number(port))
			field_uint(f, "port", dlh_port_number(port));
	}
	if (dlh_port_is_split(port)) {
		field_uint(f, "split_group", dlh_port_split_group(port));
		if (details)
			field_uint(f, "split_subport", dlh_port_split_subport(port));
	}
	if (!details)
		return;
	field_bool(f, "splittable", dlh_port_splittable(port));
	if (dlh_port_lanes(port))
		field_uint(f, "lanes", dlh_port_lanes(port));
	if (dlh_port_speed(port))
		field_uint(f, "speed", dlh_port_speed(port));
	if (dlh_port_module(port, &module, &lane)) {
		field_uint(f, "module", module);
		field_uint(f, "lane", lane);
	}
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
}

void out_port(struct dl *dl, const struct dlh_port *port)
{
	struct fields f;

	fields_begin(&f, dl, dlh_port_handle(port));
	if (dl->json)
		port_json(&f, port);
	else
		port_text(&f, port);
	fields_end(&f, dlh_port_handle(port));
}

/* An emulator value: as the driver gives it in text; in JSON a number or a
 * document when it is one ("accesses", "state"), else a string. */
void out_sim(struct dl *dl, const char *handle, const char *key, const char *value)
{
	struct fields f;
	json_t *v;

	if (!dl->json) {
		printf("%s\n", value);
		return;
	}
	out_begin(dl, "sim");
	fields_begin(&f, dl, handle);
	v = json_loads(value, JSON_DECODE_ANY, NULL);
	if (!json_is_integer(v) && !json_is_object(v) && !json_is_array(v)) {
		json_decref(v);
		v = json_string(value);
	}
	field_json(&f, key, v);
	fields_end(&f, handle);
	out_end(dl);
}

/* A --dry-run: what the change would do (the ports that would go, as they are; those that would come). */
void out_plan(struct dl *dl, const char *change, const struct dlh_port *port, unsigned int count, const char *type,
	      const struct dlh_plan *plan)
{
	const struct dlh_dev *dev = dlh_port_dev(port);
	json_t *o, *del, *add;

	if (!dl->json) {
		printf("%s %s", change, dlh_port_handle(port));
		if (count)
			printf(" into %u", count);
		if (type)
			printf(" type %s", type);
		if (plan->partial) {
			printf(": %s's core would take it; the ports it would change are for the driver to say\n",
			       dl->kernel ? "the kernel" : "the peer");
			return;
		}
		printf(": would be done\n");
		for (unsigned int i = 0; i < plan->ngone; i++) {
			const struct dlh_port *p = dlh_port_find(dev, plan->gone[i]);

			if (!p)
				continue;
			printf("del ");
			out_port(dl, p);
		}
		for (unsigned int i = 0; i < plan->ncome; i++) {
			const struct dlh_plan_port *c = &plan->come[i];

			printf("new %s/%u: type %s", dlh_dev_handle(dev), c->index, dlh_port_type_name(c->type));
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
		return;
	}
	dl->jroot = json_object();
	o = json_object();
	json_object_set_new(dl->jroot, "plan", o);
	json_object_set_new(o, "change", json_string(change));
	json_object_set_new(o, "port", json_string(dlh_port_handle(port)));
	if (count)
		json_object_set_new(o, "count", json_integer(count));
	if (type)
		json_object_set_new(o, "type", json_string(type));
	json_object_set_new(o, "accepted", json_true());
	json_object_set_new(o, "partial", json_boolean(plan->partial));
	del = json_array();
	add = json_array();
	json_object_set_new(o, "del", del);
	json_object_set_new(o, "new", add);
	for (unsigned int i = 0; i < plan->ngone; i++) {
		char h[DLH_HANDLE_MAX];

		snprintf(h, sizeof(h), "%s/%u", dlh_dev_handle(dev), plan->gone[i]);
		json_array_append_new(del, json_string(h));
	}
	for (unsigned int i = 0; i < plan->ncome; i++) {
		const struct dlh_plan_port *c = &plan->come[i];
		json_t *p = json_object();
		char h[DLH_HANDLE_MAX];

		snprintf(h, sizeof(h), "%s/%u", dlh_dev_handle(dev), c->index);
		json_object_set_new(p, "port", json_string(h));
		json_object_set_new(p, "type", json_string(dlh_port_type_name(c->type)));
		if (c->netdev[0])
			json_object_set_new(p, "netdev", json_string(c->netdev));
		if (c->ibdev[0])
			json_object_set_new(p, "ibdev", json_string(c->ibdev));
		json_object_set_new(p, "lanes", json_integer(c->lanes));
		json_object_set_new(p, "split", json_boolean(c->split));
		if (c->split) {
			json_object_set_new(p, "split_group", json_integer(c->split_group));
			json_object_set_new(p, "subport", json_integer(c->split_subport));
		}
		json_array_append_new(add, p);
	}
	out_end(dl);
}
