/* SPDX-License-Identifier: MIT */
/*
 * Checked reads of a driver's profile ("hw") and saved state, for drivers:
 * a value is found by a path ("ports", "state[3]", "wiring[2].lanes") and
 * every read checks type and range, refusing in core's words with the
 * field's whole path, so that no vendor parses JSON by hand and a state of
 * another shape stops a start instead of being ignored.
 */
#include "../core/core.h"

#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ROOT_MAX 32

struct dlh_sdk_json {
	json_t *root;
	char name[ROOT_MAX]; /* what messages call the root: "hw" */
};

DLH_EXPORT int dlh_sdk_json_parse(const char *text, const char *root, struct dlh_sdk_json **out, struct dlh_extack *ext)
{
	struct dlh_sdk_json *j;
	json_error_t jerr;

	*out = NULL;
	if (!root || strlen(root) >= ROOT_MAX)
		return dlh__extack_set(ext, -EINVAL, NULL, "Driver bug: a JSON root name of 1 to %d characters",
				       ROOT_MAX - 1);
	j = calloc(1, sizeof(*j));
	if (!j)
		return dlh__extack_set(ext, -ENOMEM, NULL, "Out of memory");
	snprintf(j->name, sizeof(j->name), "%s", root);
	j->root = text && text[0] ? json_loads(text, JSON_REJECT_DUPLICATES, &jerr) : json_object();
	if (!j->root || !json_is_object(j->root)) {
		int err = dlh__extack_set(ext, -EINVAL, NULL, "field \"%s\": %s", root,
					  j->root ? "expected an object" : jerr.text);

		json_decref(j->root);
		free(j);
		return err;
	}
	*out = j;
	return 0;
}

DLH_EXPORT void dlh_sdk_json_free(struct dlh_sdk_json *j)
{
	if (!j)
		return;
	json_decref(j->root);
	free(j);
}

/*
 * The value at @path: keys joined by '.', each followed by any number of
 * [INDEX]; "" is the root. NULL when absent; -EINVAL (with @ext) for a path
 * that is no path (a driver bug) through *@err.
 */
static json_t *lookup(const struct dlh_sdk_json *j, const char *path, int *err, struct dlh_extack *ext)
{
	json_t *v = j->root;
	const char *s = path;

	*err = 0;
	while (v && *s) {
		size_t n = strcspn(s, ".[");
		char key[128];

		if (n) {
			if (n >= sizeof(key) || !json_is_object(v))
				return NULL;
			memcpy(key, s, n);
			key[n] = '\0';
			v = json_object_get(v, key);
			s += n;
		}
		while (v && *s == '[') {
			char *end;
			unsigned long i = strtoul(s + 1, &end, 10);

			if (end == s + 1 || *end != ']') {
				*err = dlh__extack_set(ext, -EINVAL, NULL, "Driver bug: \"%s\" is no JSON path", path);
				return NULL;
			}
			v = json_is_array(v) ? json_array_get(v, i) : NULL;
			s = end + 1;
		}
		if (*s == '.')
			s++;
		else if (*s && *s != '[') {
			*err = dlh__extack_set(ext, -EINVAL, NULL, "Driver bug: \"%s\" is no JSON path", path);
			return NULL;
		}
	}
	return json_is_null(v) ? NULL : v;
}

/* "field \"ROOT.PATH\": " and the reason. */
static int refuse(const struct dlh_sdk_json *j, const char *path, int err, struct dlh_extack *ext, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
static int refuse(const struct dlh_sdk_json *j, const char *path, int err, struct dlh_extack *ext, const char *fmt, ...)
{
	char why[DLH_EXTACK_MSG_MAX];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	return dlh__extack_set(ext, err, NULL, "field \"%s%s%s\": %s", j->name, path[0] && path[0] != '[' ? "." : "",
			       path, why);
}

DLH_EXPORT bool dlh_sdk_json_has(const struct dlh_sdk_json *j, const char *path)
{
	int err;

	return j && path && lookup(j, path, &err, NULL);
}

/* The value at @path for a read of @what ("a string"): NULL with *@err set for a bad path or none there. */
static json_t *value_at(const struct dlh_sdk_json *j, const char *path, const char *what, int *err,
			struct dlh_extack *ext)
{
	json_t *v = lookup(j, path, err, ext);

	if (!*err && !v)
		*err = refuse(j, path, -ENOENT, ext, "missing: expected %s", what);
	return *err ? NULL : v;
}

DLH_EXPORT int dlh_sdk_json_uint(const struct dlh_sdk_json *j, const char *path, uint64_t min, uint64_t max,
				 uint64_t *out, struct dlh_extack *ext)
{
	char what[64];
	json_t *v;
	int err;

	snprintf(what, sizeof(what), "a whole number from %llu to %llu", (unsigned long long)min,
		 (unsigned long long)max);
	v = value_at(j, path, what, &err, ext);
	if (!v)
		return err;
	if (!json_is_integer(v) || json_integer_value(v) < 0 || (uint64_t)json_integer_value(v) < min ||
	    (uint64_t)json_integer_value(v) > max)
		return refuse(j, path, -EINVAL, ext, "expected %s", what);
	*out = (uint64_t)json_integer_value(v);
	return 0;
}

DLH_EXPORT int dlh_sdk_json_number(const struct dlh_sdk_json *j, const char *path, double min, double max, double *out,
				   struct dlh_extack *ext)
{
	char what[64];
	json_t *v;
	int err;

	snprintf(what, sizeof(what), "a number from %g to %g", min, max);
	v = value_at(j, path, what, &err, ext);
	if (!v)
		return err;
	if (!json_is_number(v) || json_number_value(v) < min || json_number_value(v) > max)
		return refuse(j, path, -EINVAL, ext, "expected %s", what);
	*out = json_number_value(v);
	return 0;
}

DLH_EXPORT int dlh_sdk_json_bool(const struct dlh_sdk_json *j, const char *path, bool *out, struct dlh_extack *ext)
{
	int err;
	json_t *v = value_at(j, path, "true or false", &err, ext);

	if (!v)
		return err;
	if (!json_is_boolean(v))
		return refuse(j, path, -EINVAL, ext, "expected true or false");
	*out = json_is_true(v);
	return 0;
}

DLH_EXPORT int dlh_sdk_json_key(const struct dlh_sdk_json *j, const char *path, size_t i, char *buf, size_t size,
				struct dlh_extack *ext)
{
	int err;
	json_t *v = value_at(j, path, "an object", &err, ext), *m;
	const char *key;
	size_t n = 0;

	if (!v)
		return err;
	if (!json_is_object(v))
		return refuse(j, path, -EINVAL, ext, "expected an object");
	json_object_foreach(v, key, m)
	{
		if (n++ != i)
			continue;
		if (strlen(key) >= size)
			return refuse(j, path, -EINVAL, ext, "member \"%.32s...\": a name of at most %zu bytes", key,
				      size ? size - 1 : 0);
		memcpy(buf, key, strlen(key) + 1);
		return 0;
	}
	return -ENOENT; /* past the last member: the end of a walk, no message */
}

DLH_EXPORT int dlh_sdk_json_str(const struct dlh_sdk_json *j, const char *path, char *buf, size_t size,
				struct dlh_extack *ext)
{
	int err;
	json_t *v = value_at(j, path, "a string", &err, ext);

	if (!v)
		return err;
	if (!json_is_string(v) || strlen(json_string_value(v)) != json_string_length(v) ||
	    json_string_length(v) >= size)
		return refuse(j, path, -EINVAL, ext, "expected a string of at most %zu bytes", size ? size - 1 : 0);
	memcpy(buf, json_string_value(v), json_string_length(v) + 1);
	return 0;
}

DLH_EXPORT int dlh_sdk_json_count(const struct dlh_sdk_json *j, const char *path, size_t *n, struct dlh_extack *ext)
{
	int err;
	json_t *v = value_at(j, path, "an array", &err, ext);

	if (!v)
		return err;
	if (!json_is_array(v))
		return refuse(j, path, -EINVAL, ext, "expected an array");
	*n = json_array_size(v);
	return 0;
}

DLH_EXPORT int dlh_sdk_json_only(const struct dlh_sdk_json *j, const char *path, const char *const *keys,
				 struct dlh_extack *ext)
{
	int err;
	json_t *v = lookup(j, path, &err, ext), *m;
	const char *key;

	if (err)
		return err;
	if (!v)
		return 0;
	if (!json_is_object(v))
		return refuse(j, path, -EINVAL, ext, "expected an object");
	json_object_foreach(v, key, m)
	{
		const char *const *k = keys;
		char list[256] = "", at[160];
		size_t used = 0;

		while (*k && strcmp(*k, key))
			k++;
		if (*k)
			continue;
		for (k = keys; *k && used < sizeof(list); k++)
			used += (size_t)snprintf(list + used, sizeof(list) - used, "%s%s", k == keys ? "" : ", ", *k);
		snprintf(at, sizeof(at), "%s%s%.64s", path, path[0] ? "." : "", key);
		return refuse(j, at, -EINVAL, ext, "unknown (expected %s)", list);
	}
	return 0;
}
