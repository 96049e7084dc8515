/* SPDX-License-Identifier: MIT */
/*
 * The streaming JSON writer dl prints with: the bytes jansson would write for
 * the same document (compact, and JSON_INDENT(4), iproute2's -p layout), the
 * escapes, what it does with bytes that are not UTF-8, and its limits.
 */
#include "jsonw.h"

#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

/* What jsonw wrote, as a string (the trailing newline kept). */
static char *output(struct jsonw *w)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	cr_assert_not_null(f);
	cr_assert_eq(jsonw_flush(w, f), 0);
	fclose(f);
	return buf;
}

static json_t *random_value(unsigned int *seed, int depth)
{
	static const char *const words[] = {
	    "eth0",	    "pci/0000:03:00.0/1", "", "a\"b\\c", "tab\there", "nl\n", "\x01\x1f", "caf\xc3\xa9",
	    "\xe2\x82\xac", "\xf0\x9f\x98\x80",	  "/"};
	static const char *const keys[] = {"type", "netdev", "port", "split_group", "q\"\\k\x01", "caf\xc3\xa9"};
	int kind = depth > 3 ? 2 + rand_r(seed) % 4 : rand_r(seed) % 6;
	json_t *v;

	switch (kind) {
	case 0:
		v = json_object();
		for (int n = rand_r(seed) % 4; n > 0; n--)
			json_object_set_new(v, keys[rand_r(seed) % 6], random_value(seed, depth + 1));
		return v;
	case 1:
		v = json_array();
		for (int n = rand_r(seed) % 4; n > 0; n--)
			json_array_append_new(v, random_value(seed, depth + 1));
		return v;
	case 2:
		return json_string(words[rand_r(seed) % 11]);
	case 3:
		return json_integer((json_int_t)rand_r(seed) - RAND_MAX / 2);
	case 4:
		return json_integer(rand_r(seed) % 2 ? INT64_MAX : INT64_MIN);
	default:
		return json_boolean(rand_r(seed) % 2);
	}
}

/* 2000 random documents: byte for byte what jansson writes, compact and indented. */
Test(jsonw, same_bytes_as_jansson)
{
	unsigned int seed = 1;

	for (int i = 0; i < 2000; i++) {
		json_t *doc = json_object();

		json_object_set_new(doc, "port", random_value(&seed, 1));
		for (int pretty = 0; pretty < 2; pretty++) {
			char *want = json_dumps(doc, pretty ? JSON_INDENT(4) : JSON_COMPACT), *got;
			struct jsonw w;

			jsonw_init(&w, pretty);
			jsonw_jansson(&w, NULL, doc);
			got = output(&w);
			cr_assert_not_null(want);
			cr_assert_eq(strlen(got), strlen(want) + 1, "document %d:\n%s\n%s", i, got, want);
			cr_assert_eq(strncmp(got, want, strlen(want)), 0, "document %d:\n%s\n%s", i, got, want);
			free(want);
			free(got);
			jsonw_free(&w);
		}
		json_decref(doc);
	}
}

Test(jsonw, escapes)
{
	struct jsonw w;
	char *s;

	jsonw_init(&w, false);
	jsonw_arr_open(&w, NULL);
	jsonw_str(&w, NULL, "q\" b\\ \b\f\n\r\t \x01\x1f \x7f /");
	jsonw_arr_close(&w);
	s = output(&w);
	cr_expect_str_eq(s, "[\"q\\\" b\\\\ \\b\\f\\n\\r\\t \\u0001\\u001F \x7f /\"]\n");
	free(s);
	jsonw_free(&w);
}

/* A kernel netdev name may be any bytes: what is not UTF-8 becomes U+FFFD, so the output stays JSON. */
Test(jsonw, not_utf8)
{
	static const char *const bad[] = {
	    "\xff",
	    "\xc0\xaf",		/* overlong '/' */
	    "\xed\xa0\x80",	/* a surrogate */
	    "\xf4\x90\x80\x80", /* past U+10FFFF */
	    "\xe2\x82",		/* cut short */
	    "\x80",
	};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct jsonw w;
		json_error_t e;
		json_t *doc;
		char *s;

		jsonw_init(&w, false);
		jsonw_obj_open(&w, NULL);
		jsonw_str(&w, "netdev", bad[i]);
		jsonw_obj_close(&w);
		s = output(&w);
		doc = json_loads(s, 0, &e);
		cr_expect_not_null(doc, "case %zu: %s: %s", i, s, e.text);
		cr_expect_not_null(strstr(s, "\xef\xbf\xbd"), "case %zu: %s", i, s);
		json_decref(doc);
		free(s);
		jsonw_free(&w);
	}
}

Test(jsonw, too_deep_is_an_error)
{
	struct jsonw w;

	jsonw_init(&w, false);
	for (int i = 0; i < JSONW_DEPTH_MAX + 1; i++)
		jsonw_arr_open(&w, NULL);
	cr_expect_eq(jsonw_flush(&w, stdout), -1);
	jsonw_free(&w);
}

/* Streamed a chunk at a time: the same bytes as built whole, and no more memory than a chunk. */
Test(jsonw, streaming_writes_the_same_bytes)
{
	char *streamed = NULL, *whole;
	struct jsonw a, b;
	size_t len = 0;
	FILE *f = open_memstream(&streamed, &len);

	cr_assert_not_null(f);
	for (int pretty = 0; pretty < 2; pretty++) {
		jsonw_init(&a, pretty);
		jsonw_init_stream(&b, pretty, f);
		for (struct jsonw *w = &a; w; w = w == &a ? &b : NULL) {
			jsonw_obj_open(w, NULL);
			jsonw_obj_open(w, "port");
			for (unsigned int i = 0; i < 5000; i++) {
				char h[32];

				snprintf(h, sizeof(h), "netdevsim/netdevsim12/%u", i);
				jsonw_obj_open(w, h);
				jsonw_str(w, "type", "eth");
				jsonw_uint(w, "port", i + 1);
				jsonw_bool(w, "splittable", false);
				jsonw_obj_close(w);
			}
			jsonw_obj_close(w);
			jsonw_obj_close(w);
		}
		cr_expect_leq(b.cap, JSONW_CHUNK, "streaming keeps one chunk");
		whole = output(&a);
		cr_assert_eq(jsonw_flush(&b, f), 0);
		fflush(f);
		cr_expect_gt(strlen(whole), 4 * JSONW_CHUNK);
		cr_expect_eq(len, strlen(whole));
		cr_expect_eq(memcmp(streamed, whole, strlen(whole)), 0);
		free(whole);
		jsonw_free(&a);
		jsonw_free(&b);
		rewind(f);
	}
	fclose(f);
	free(streamed);
}
