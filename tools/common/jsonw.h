/* SPDX-License-Identifier: MIT */
/*
 * A streaming JSON writer: one path for compact and indented output, into
 * one growing buffer written out at the end, or (jsonw_init_stream) written
 * to a FILE whenever JSONW_CHUNK bytes are ready, so that a listing of any
 * length takes the same memory (fresh pages are costly: see
 * docs/benchmarks.md). Indented output is iproute2's
 * and jansson's JSON_INDENT(4) layout ("key": value, four spaces a level,
 * {} and [] when empty), so "dl -jp" reads like "devlink -jp".
 *
 * Measured on the same 4096 ports (bench/json.c, build/bench/bench-json):
 * jansson as dl used it (a json_t per value) 554 ns a port, yajl's yajl_gen
 * (streaming, one path for both layouts too) 257 ns, this writer 63 ns, all
 * three writing the same bytes. yajl's cost is its per-token state machine
 * and print callback; jansson's an allocation per value.
 *
 * Keys and string values are escaped alike. A key is
 * given inside objects and is NULL inside arrays and at the top.
 */
#ifndef DLHAL_JSONW_H
#define DLHAL_JSONW_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define JSONW_DEPTH_MAX 16
#define JSONW_CHUNK	16384

struct jsonw {
	char *buf;
	size_t len, cap;
	FILE *out; /* streaming: chunks go here as they fill */
	bool pretty;
	bool failed; /* out of memory or too deep: jsonw_flush() reports it */
	unsigned int depth;
	bool has[JSONW_DEPTH_MAX]; /* the container at each depth has members */
};

void jsonw_init(struct jsonw *w, bool pretty);
/* As jsonw_init(), writing to @out a chunk at a time (the rest at jsonw_flush()). */
void jsonw_init_stream(struct jsonw *w, bool pretty, FILE *out);
void jsonw_obj_open(struct jsonw *w, const char *key);
void jsonw_obj_close(struct jsonw *w);
void jsonw_arr_open(struct jsonw *w, const char *key);
void jsonw_arr_close(struct jsonw *w);
/* A string value: escaped, invalid UTF-8 replaced by U+FFFD. */
void jsonw_str(struct jsonw *w, const char *key, const char *val);
void jsonw_uint(struct jsonw *w, const char *key, uint64_t val);
void jsonw_int(struct jsonw *w, const char *key, int64_t val);
void jsonw_bool(struct jsonw *w, const char *key, bool val);
/* A document read with jansson (an emulator's value), member by member (reals as %.17g). */
void jsonw_jansson(struct jsonw *w, const char *key, const json_t *v);
/* Writes what was built (what is left, when streaming) and a newline to @f, and empties the buffer.
 * 0, or -1 (out of memory, nesting past JSONW_DEPTH_MAX, write error). */
int jsonw_flush(struct jsonw *w, FILE *f);
void jsonw_free(struct jsonw *w);

#endif
