/* SPDX-License-Identifier: MIT */
/*
 * The JSON encoders dl could print a port listing with, on the same 4096
 * ports (netdevsim's keys and values): jansson as dl used it before issue 13
 * (a json_t per value, encoded into a buffer), yajl's yajl_gen (streaming,
 * compact and beautified on one path), and dl's own writer (jsonw). Prints
 * nanoseconds per port, the best of 21 rounds, and whether each one's bytes
 * equal jsonw's.
 *   build/bench/bench-json        (built when libyajl-dev is installed)
 */
#include "jsonw.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <yajl/yajl_gen.h>

#define PORTS 4096

struct port {
	char handle[40], netdev[16];
	unsigned int number;
};

static struct port ports[PORTS];

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

struct buf {
	char *data;
	size_t len, cap;
};

static int buf_add(const char *s, size_t n, void *arg)
{
	struct buf *b = arg;

	if (b->len + n > b->cap) {
		b->cap = (b->len + n) * 2;
		b->data = realloc(b->data, b->cap);
	}
	memcpy(b->data + b->len, s, n);
	b->len += n;
	return 0;
}

/* dl before: the frame by hand, each value a json_t encoded by jansson. */
static void value(struct buf *b, const char *key, json_t *v, int first)
{
	buf_add(first ? "\"" : ",\"", first ? 1 : 2, b);
	buf_add(key, strlen(key), b);
	buf_add("\":", 2, b);
	json_dump_callback(v, buf_add, b, JSON_ENCODE_ANY | JSON_COMPACT);
	json_decref(v);
}

static size_t with_jansson(char **out)
{
	struct buf b = {0};

	buf_add("{\"port\":{", 9, &b);
	for (int i = 0; i < PORTS; i++) {
		json_t *k = json_string(ports[i].handle);

		if (i)
			buf_add(",", 1, &b);
		json_dump_callback(k, buf_add, &b, JSON_ENCODE_ANY);
		json_decref(k);
		buf_add(":{", 2, &b);
		value(&b, "type", json_string("eth"), 1);
		value(&b, "netdev", json_string(ports[i].netdev), 0);
		value(&b, "flavour", json_string("physical"), 0);
		value(&b, "port", json_integer(ports[i].number), 0);
		value(&b, "splittable", json_false(), 0);
		buf_add("}", 1, &b);
	}
	buf_add("}}\n", 3, &b);
	*out = b.data;
	return b.len;
}

static void ystr(yajl_gen g, const char *s)
{
	yajl_gen_string(g, (const unsigned char *)s, strlen(s));
}

static size_t with_yajl(char **out)
{
	yajl_gen g = yajl_gen_alloc(NULL);
	const unsigned char *s;
	size_t len;

	yajl_gen_map_open(g);
	ystr(g, "port");
	yajl_gen_map_open(g);
	for (int i = 0; i < PORTS; i++) {
		ystr(g, ports[i].handle);
		yajl_gen_map_open(g);
		ystr(g, "type");
		ystr(g, "eth");
		ystr(g, "netdev");
		ystr(g, ports[i].netdev);
		ystr(g, "flavour");
		ystr(g, "physical");
		ystr(g, "port");
		yajl_gen_integer(g, ports[i].number);
		ystr(g, "splittable");
		yajl_gen_bool(g, 0);
		yajl_gen_map_close(g);
	}
	yajl_gen_map_close(g);
	yajl_gen_map_close(g);
	yajl_gen_get_buf(g, &s, &len);
	*out = malloc(len + 1);
	memcpy(*out, s, len);
	(*out)[len] = '\n';
	yajl_gen_free(g);
	return len + 1;
}

static size_t with_jsonw(char **out)
{
	struct jsonw w;
	size_t len;

	jsonw_init(&w, false);
	jsonw_obj_open(&w, NULL);
	jsonw_obj_open(&w, "port");
	for (int i = 0; i < PORTS; i++) {
		jsonw_obj_open(&w, ports[i].handle);
		jsonw_str(&w, "type", "eth");
		jsonw_str(&w, "netdev", ports[i].netdev);
		jsonw_str(&w, "flavour", "physical");
		jsonw_uint(&w, "port", ports[i].number);
		jsonw_bool(&w, "splittable", false);
		jsonw_obj_close(&w);
	}
	jsonw_obj_close(&w);
	jsonw_obj_close(&w);
	/* What jsonw_flush() would write: the buffer and a newline. */
	len = w.len;
	*out = realloc(w.buf, len + 1);
	(*out)[len] = '\n';
	return len + 1;
}

int main(void)
{
	static const struct {
		const char *name;
		size_t (*fn)(char **out);
	} enc[] = {{"jansson, a json_t per value (dl before issue 13)", with_jansson},
		   {"yajl_gen", with_yajl},
		   {"jsonw (dl now)", with_jsonw}};
	char *ref;
	size_t ref_len = with_jsonw(&ref);

	for (int i = 0; i < PORTS; i++) {
		snprintf(ports[i].handle, sizeof(ports[i].handle), "netdevsim/netdevsim12/%d", i);
		snprintf(ports[i].netdev, sizeof(ports[i].netdev), "eth%d", i);
		ports[i].number = (unsigned int)i + 1;
	}
	free(ref);
	ref_len = with_jsonw(&ref);
	printf("| encoder | ns a port | same bytes as jsonw |\n|---|---|---|\n");
	for (size_t e = 0; e < sizeof(enc) / sizeof(enc[0]); e++) {
		double best = 1e30;
		int same = 0;

		for (int r = 0; r < 21; r++) {
			char *out;
			double t0 = now();
			size_t len = enc[e].fn(&out);
			double t = now() - t0;

			best = t < best ? t : best;
			same = len == ref_len && !memcmp(out, ref, len);
			free(out);
		}
		printf("| %s | %.0f | %s |\n", enc[e].name, best / PORTS, same ? "yes" : "no");
	}
	free(ref);
	printf("\nReproduce: build/bench/bench-json (needs libyajl-dev)\n");
	return 0;
}
