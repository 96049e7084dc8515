/* SPDX-License-Identifier: MIT */
/* The streaming JSON writer (jsonw.h): compact and indented on one path. */
#include "jsonw.h"

#include <stdlib.h>
#include <string.h>

void jsonw_init(struct jsonw *w, bool pretty)
{
	*w = (struct jsonw){.pretty = pretty};
}

void jsonw_init_stream(struct jsonw *w, bool pretty, FILE *out)
{
	*w = (struct jsonw){.pretty = pretty, .out = out};
}

/* Growth, out of the fast path. */
static bool grow(struct jsonw *w, size_t n)
{
	size_t cap;
	char *b;

	if (w->failed)
		return false;
	/* Streaming: out with what is ready, and the same buffer again. */
	if (w->out && w->len && n <= w->cap) {
		if (fwrite(w->buf, 1, w->len, w->out) != w->len)
			w->failed = true;
		w->len = 0;
		return !w->failed;
	}
	cap = w->cap ? w->cap : w->out ? JSONW_CHUNK : 4096;
	while (cap < w->len + n)
		cap *= 2;
	b = realloc(w->buf, cap);
	if (!b) {
		w->failed = true;
		return false;
	}
	w->buf = b;
	w->cap = cap;
	return true;
}

/* Room for @n more bytes; false (and failed) when there is none. */
static inline bool reserve(struct jsonw *w, size_t n)
{
	return w->len + n <= w->cap || grow(w, n);
}

static inline void put(struct jsonw *w, const char *s, size_t n)
{
	if (reserve(w, n)) {
		memcpy(w->buf + w->len, s, n);
		w->len += n;
	}
}

/* Bytes written as they are: printable ASCII but the quote and the backslash. */
static const bool plain[256] = {
    [' '] = 1, ['!'] = 1, ['#' ... '['] = 1, [']' ... '~'] = 1, [0x7f] = 1,
};

/* Length of the valid UTF-8 sequence at @s (1 to 4), or 0 if it is not one. */
static size_t utf8_len(const unsigned char *s)
{
	uint32_t c;
	size_t n;

	if (s[0] < 0xc2 || s[0] > 0xf4)
		return 0;
	n = s[0] < 0xe0 ? 2 : s[0] < 0xf0 ? 3 : 4;
	c = s[0] & (0x7f >> n);
	for (size_t i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		c = (c << 6) | (s[i] & 0x3f);
	}
	/* Overlong forms, surrogates, past U+10FFFF. */
	if ((n == 3 && c < 0x800) || (n == 4 && (c < 0x10000 || c > 0x10ffff)) || (c >= 0xd800 && c <= 0xdfff))
		return 0;
	return n;
}

/* The escapes of the bytes from @s on, to the end of the string. */
static void put_escaped(struct jsonw *w, const unsigned char *s)
{
	static const char hex[] = "0123456789ABCDEF"; /* as jansson writes them */

	for (;;) {
		const unsigned char *run = s;
		size_t n;

		/* Printable ASCII goes through as is, in one copy. */
		while (plain[*s])
			s++;
		put(w, (const char *)run, (size_t)(s - run));
		if (!*s)
			return;
		if (*s >= 0x80) {
			n = utf8_len(s);
			put(w, n ? (const char *)s : "\xef\xbf\xbd", n ? n : 3);
			s += n ? n : 1;
			continue;
		}
		switch (*s) {
		case '"':
			put(w, "\\\"", 2);
			break;
		case '\\':
			put(w, "\\\\", 2);
			break;
		case '\b':
			put(w, "\\b", 2);
			break;
		case '\f':
			put(w, "\\f", 2);
			break;
		case '\n':
			put(w, "\\n", 2);
			break;
		case '\r':
			put(w, "\\r", 2);
			break;
		case '\t':
			put(w, "\\t", 2);
			break;
		default: {
			char u[6] = {'\\', 'u', '0', '0', hex[*s >> 4], hex[*s & 15]};

			put(w, u, sizeof(u));
		}
		}
		s++;
	}
}

/* A quoted string; @tail (":" after a key) follows the closing quote. */
static void put_string(struct jsonw *w, const char *str, const char *tail, size_t tlen)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t n;

	/* Plain ASCII, nearly always: one copy. */
	while (plain[*s])
		s++;
	n = (size_t)(s - (const unsigned char *)str);
	if (!reserve(w, n + 2 + tlen))
		return;
	w->buf[w->len++] = '"';
	memcpy(w->buf + w->len, str, n);
	w->len += n;
	if (*s) {
		put_escaped(w, s);
		if (!reserve(w, 1 + tlen))
			return;
	}
	w->buf[w->len++] = '"';
	memcpy(w->buf + w->len, tail, tlen);
	w->len += tlen;
}

/* The separator, newline and indentation before a member, then its key (escaped as any string). */
static void member(struct jsonw *w, const char *key)
{
	if (!reserve(w, 2 + 4 * w->depth))
		return;
	if (w->depth && w->has[w->depth - 1])
		w->buf[w->len++] = ',';
	if (w->depth)
		w->has[w->depth - 1] = true;
	if (w->pretty && w->depth) {
		w->buf[w->len++] = '\n';
		memset(w->buf + w->len, ' ', 4 * w->depth);
		w->len += 4 * w->depth;
	}
	if (key)
		put_string(w, key, ": ", w->pretty ? 2 : 1);
}

static void container_open(struct jsonw *w, const char *key, char c)
{
	if (w->depth == JSONW_DEPTH_MAX) {
		w->failed = true;
		return;
	}
	member(w, key);
	put(w, &c, 1);
	w->has[w->depth++] = false;
}

static void container_close(struct jsonw *w, char c)
{
	if (!w->depth)
		return;
	w->depth--;
	if (w->pretty && w->has[w->depth] && reserve(w, 1 + 4 * w->depth)) {
		w->buf[w->len++] = '\n';
		memset(w->buf + w->len, ' ', 4 * w->depth);
		w->len += 4 * w->depth;
	}
	put(w, &c, 1);
}

void jsonw_obj_open(struct jsonw *w, const char *key)
{
	container_open(w, key, '{');
}

void jsonw_obj_close(struct jsonw *w)
{
	container_close(w, '}');
}

void jsonw_arr_open(struct jsonw *w, const char *key)
{
	container_open(w, key, '[');
}

void jsonw_arr_close(struct jsonw *w)
{
	container_close(w, ']');
}

void jsonw_str(struct jsonw *w, const char *key, const char *val)
{
	member(w, key);
	put_string(w, val, "", 0);
}

static void put_u64(struct jsonw *w, uint64_t v, bool neg)
{
	char d[21];
	size_t i = sizeof(d);

	do {
		d[--i] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	if (neg)
		d[--i] = '-';
	put(w, d + i, sizeof(d) - i);
}

void jsonw_uint(struct jsonw *w, const char *key, uint64_t val)
{
	member(w, key);
	put_u64(w, val, false);
}

void jsonw_int(struct jsonw *w, const char *key, int64_t val)
{
	member(w, key);
	put_u64(w, val < 0 ? 0 - (uint64_t)val : (uint64_t)val, val < 0);
}

void jsonw_bool(struct jsonw *w, const char *key, bool val)
{
	member(w, key);
	put(w, val ? "true" : "false", val ? 4 : 5);
}

void jsonw_jansson(struct jsonw *w, const char *key, const json_t *v)
{
	const char *k;
	json_t *m;
	size_t i;
	char num[32];

	switch (json_typeof(v)) {
	case JSON_OBJECT:
		jsonw_obj_open(w, key);
		json_object_foreach((json_t *)v, k, m) jsonw_jansson(w, k, m);
		jsonw_obj_close(w);
		break;
	case JSON_ARRAY:
		jsonw_arr_open(w, key);
		json_array_foreach(v, i, m) jsonw_jansson(w, NULL, m);
		jsonw_arr_close(w);
		break;
	case JSON_STRING:
		jsonw_str(w, key, json_string_value(v));
		break;
	case JSON_INTEGER:
		jsonw_int(w, key, json_integer_value(v));
		break;
	case JSON_REAL:
		member(w, key);
		put(w, num, (size_t)snprintf(num, sizeof(num), "%.17g", json_real_value(v)));
		break;
	case JSON_TRUE:
	case JSON_FALSE:
		jsonw_bool(w, key, json_is_true(v));
		break;
	default:
		member(w, key);
		put(w, "null", 4);
		break;
	}
}

int jsonw_flush(struct jsonw *w, FILE *f)
{
	int err = 0;

	put(w, "\n", 1);
	if (w->failed)
		err = -1;
	else if (fwrite(w->buf, 1, w->len, f) != w->len)
		err = -1;
	w->len = 0;
	w->depth = 0;
	w->failed = false;
	return err;
}

void jsonw_free(struct jsonw *w)
{
	free(w->buf);
	*w = (struct jsonw){0};
}
