/* SPDX-License-Identifier: MIT */
/*
 * Output: the seed's text lines, or iproute2's JSON layout written with
 * jansson. Keys and words come from the enum tables of <dlhal/dlhal.h>.
 */
#include "dl.h"

#include <stdlib.h>
#include <string.h>

void out_begin(struct dl *dl, const char *object)
{
	if (!dl->json)
		return;
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

struct buf {
	char *data;
	size_t len, cap;
};

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

void out_end(struct dl *dl)
{
	size_t flags = JSON_PRESERVE_ORDER | (dl->pretty ? JSON_INDENT(4) : JSON_COMPACT);
	struct buf b = {0};

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

static json_t *out_obj(struct dl *dl)
{
	return dl->jobj;
}

void out_dev(struct dl *dl, const struct dlh_dev *dev)
{
	if (dl->json) {
		json_t *o = json_object();

		if (dl->details)
			json_object_set_new(o, "driver", json_string(dlh_dev_driver(dev)));
		json_object_set_new(out_obj(dl), dlh_dev_handle(dev), o);
		return;
	}
	printf("%s", dlh_dev_handle(dev));
	if (dl->details)
		printf(": driver %s", dlh_dev_driver(dev));
	putchar('\n');
}

/* One field of a port, written to the text line or the JSON object. */
static void field_str(json_t *o, const char *key, const char *val)
{
	if (o)
		json_object_set_new_nocheck(o, key, json_string(val));
	else
		printf(" %s %s", key, val);
}

static void field_uint(json_t *o, const char *key, uint32_t val)
{
	if (o)
		json_object_set_new_nocheck(o, key, json_integer(val));
	else
		printf(" %s %u", key, val);
}

static void field_bool(json_t *o, const char *key, bool val)
{
	if (o)
		json_object_set_new_nocheck(o, key, json_boolean(val));
	else
		printf(" %s %s", key, val ? "true" : "false");
}

void out_port(struct dl *dl, const struct dlh_port *port)
{
	enum dlh_port_type type = dlh_port_type(port), des = dlh_port_desired_type(port);
	json_t *o = dl->json ? json_object() : NULL;
	uint32_t module, lane;

	if (o) {
		json_object_set_new_nocheck(o, "type", json_string(dlh_port_type_name(type)));
		if (des != DLH_PORT_TYPE_NOTSET && des != type)
			json_object_set_new_nocheck(o, "des_type", json_string(dlh_port_type_name(des)));
	} else {
		printf("%s: type %s", dlh_port_handle(port), dlh_port_type_name(type));
		if (des != DLH_PORT_TYPE_NOTSET && des != type)
			printf("(%s)", dlh_port_type_name(des));
	}
	if (dlh_port_netdev(port))
		field_str(o, "netdev", dlh_port_netdev(port));
	if (dlh_port_ibdev(port))
		field_str(o, "ibdev", dlh_port_ibdev(port));
	if (dl->details) {
		field_str(o, "flavour", dlh_port_flavour_name(dlh_port_flavour(port)));
		if (dlh_port_number(port))
			field_uint(o, "port", dlh_port_number(port));
	}
	if (dlh_port_is_split(port)) {
		field_uint(o, "split_group", dlh_port_split_group(port));
		if (dl->details)
			field_uint(o, "split_subport", dlh_port_split_subport(port));
	}
	if (dl->details) {
		field_bool(o, "splittable", dlh_port_splittable(port));
		if (dlh_port_lanes(port))
			field_uint(o, "lanes", dlh_port_lanes(port));
		/* What the HAL knows beyond devlink. */
		if (dlh_port_speed(port))
			field_uint(o, "speed", dlh_port_speed(port));
		if (dlh_port_module(port, &module, &lane)) {
			field_uint(o, "module", module);
			field_uint(o, "lane", lane);
		}
	}
	if (o)
		json_object_set_new(out_obj(dl), dlh_port_handle(port), o);
	else
		putchar('\n');
}
