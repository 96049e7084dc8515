/* SPDX-License-Identifier: MIT */
/*
 * A desired-state set as JSON: {"NAME": [entry, ...]}, each entry an object
 * of device, number, netdev, split and type (null: not said), named
 * "NAME[I]" in every message. It is how a program hands dl its entries with
 * their own names (the Ansible module's ports[N]) instead of writing an INI
 * file and mapping its lines back. Numbers may be strings of digits (what a
 * template renders); a boolean is refused, never taken as 0 or 1.
 */
#include "internal.h"

#include <errno.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define NAME_CHARS "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_"

static const char *const entry_keys[] = {"device", "number", "netdev", "split", "type", NULL};

/* @v as a whole number into @out, or -EINVAL saying why it is not one. */
static int whole_number(json_t *v, const char *origin, const char *key, long long *out, struct dlh_extack *ext)
{
	const char *s;

	if (json_is_integer(v)) {
		*out = json_integer_value(v);
		return 0;
	}
	/* 4.0 is 4 (YAML and Ansible hand over floats); 2.5 is no port count */
	if (json_is_real(v)) {
		double r = json_real_value(v);

		if (r >= -1e15 && r <= 1e15 && r == (double)(long long)r) {
			*out = (long long)r;
			return 0;
		}
		return dlh__desired_refuse(ext, origin, key, "%g: expected a whole number", r);
	}
	if (json_is_boolean(v))
		return dlh__desired_refuse(ext, origin, key, "%s is a boolean: expected a whole number",
					   json_is_true(v) ? "true" : "false");
	if (!json_is_string(v))
		return dlh__desired_refuse(ext, origin, key, "expected a whole number");
	s = json_string_value(v);
	if (!*s || strlen(s) > 6 || strspn(s, "0123456789") != strlen(s))
		return dlh__desired_refuse(ext, origin, key, "\"%.64s\" is not a number", s);
	*out = strtoll(s, NULL, 10);
	return 0;
}

/* @v, a string of at most @size - 1 bytes, into @out. */
static int string(json_t *v, const char *origin, const char *key, char *out, size_t size, struct dlh_extack *ext)
{
	if (!json_is_string(v))
		return dlh__desired_refuse(ext, origin, key, "expected a string");
	if (strlen(json_string_value(v)) != json_string_length(v))
		return dlh__desired_refuse(ext, origin, key, "holds a NUL character");
	if (json_string_length(v) >= size)
		return dlh__desired_refuse(ext, origin, key, "\"%.32s...\": too long (%zu bytes at most)",
					   json_string_value(v), size - 1);
	memcpy(out, json_string_value(v), json_string_length(v) + 1);
	return 0;
}

/* One entry, checked field by field, then added (dlh_desired_entry_add() checks the whole). */
static int entry_read(struct dlh_desired *d, json_t *o, const char *origin, struct dlh_extack *ext)
{
	struct dlh_desired_entry e = {0};
	const char *key;
	long long n;
	json_t *v;
	int err;

	if (!json_is_object(o))
		return dlh__desired_refuse(ext, origin, NULL, "expected an object");
	json_object_foreach(o, key, v)
	{
		const char *const *k = entry_keys;

		while (*k && strcmp(*k, key))
			k++;
		if (!*k)
			return dlh__desired_refuse(
			    ext, origin, NULL, "unknown field \"%.32s\": expected device, number, netdev, split, type",
			    key);
	}
	if ((v = json_object_get(o, "device")) && !json_is_null(v)) {
		err = string(v, origin, "device", e.device, sizeof(e.device), ext);
		if (err)
			return err;
	}
	if ((v = json_object_get(o, "netdev")) && !json_is_null(v)) {
		err = string(v, origin, "netdev", e.netdev, sizeof(e.netdev), ext);
		if (err)
			return err;
	}
	if ((v = json_object_get(o, "number")) && !json_is_null(v)) {
		err = whole_number(v, origin, "number", &n, ext);
		if (err)
			return err;
		if (n < 0 || n > 65535)
			return dlh__desired_refuse(ext, origin, "number", DLH__DESIRED_NUMBER_RANGE, n);
		e.number = (unsigned int)n;
		e.has_number = true;
	}
	if ((v = json_object_get(o, "split")) && !json_is_null(v)) {
		err = whole_number(v, origin, "split", &n, ext);
		if (err)
			return err;
		if (n < 1 || n > 64)
			return dlh__desired_refuse(ext, origin, "split", DLH__DESIRED_SPLIT_RANGE, n);
		e.split = (unsigned int)n;
	}
	if ((v = json_object_get(o, "type")) && !json_is_null(v)) {
		if (!json_is_string(v) || dlh_port_type_parse(json_string_value(v), &e.type) ||
		    e.type == DLH_PORT_TYPE_NOTSET)
			return dlh__desired_refuse(ext, origin, "type", DLH__DESIRED_TYPE);
	}
	return dlh_desired_entry_add(d, &e, origin, ext);
}

static int set_read(json_t *root, const char *path, struct dlh_desired **out, char *why, size_t whylen)
{
	struct dlh_extack ext;
	const char *name;
	json_t *entries, *o;
	char origin[DLH_DESIRED_ORIGIN_MAX];
	size_t i;
	int err;

	if (!json_is_object(root) || json_object_size(root) != 1) {
		snprintf(why, whylen, "%s: expected one object with one member, {\"NAME\": [entries]}", path);
		return -EINVAL;
	}
	json_object_foreach(root, name, entries)
	{
		if (!*name || strlen(name) > 32 || strspn(name, NAME_CHARS) != strlen(name)) {
			snprintf(why, whylen, "%s: \"%.40s\": expected a name of 1 to 32 letters, digits, '-' or '_'",
				 path, name);
			return -EINVAL;
		}
		if (!json_is_array(entries)) {
			snprintf(why, whylen, "%s: %s: expected an array of entries", path, name);
			return -EINVAL;
		}
		err = dlh_desired_new(name, out);
		if (err) {
			snprintf(why, whylen, "%s: out of memory", path);
			return err;
		}
		json_array_foreach(entries, i, o)
		{
			char msg[DLH_EXTACK_MSG_MAX + DLH_HANDLE_MAX + 4];

			snprintf(origin, sizeof(origin), "%s[%zu]", name, i);
			err = entry_read(*out, o, origin, &ext);
			if (err) {
				snprintf(why, whylen, "%s", dlh_extack_str(&ext, msg, sizeof(msg)));
				dlh_desired_free(*out);
				*out = NULL;
				return err;
			}
		}
	}
	return 0;
}

DLH_EXPORT int dlh_desired_load_json(const char *path, struct dlh_desired **out, char *why, size_t whylen)
{
	bool in = !strcmp(path, "-");
	FILE *f = in ? stdin : fopen(path, "re");
	json_error_t jerr;
	struct stat st;
	json_t *root;
	int err;

	*out = NULL;
	if (!f) {
		err = errno;
		snprintf(why, whylen, "%s: %s", path, strerror(err));
		return -err;
	}
	if (!fstat(fileno(f), &st) && S_ISDIR(st.st_mode)) {
		fclose(f);
		snprintf(why, whylen, "%s: %s", path, strerror(EISDIR));
		return -EISDIR;
	}
	root = json_loadf(f, JSON_REJECT_DUPLICATES, &jerr);
	if (!in)
		fclose(f);
	if (!root) {
		snprintf(why, whylen, "%s:%d:%d: %s", path, jerr.line, jerr.column, jerr.text);
		return -EINVAL;
	}
	err = set_read(root, path, out, why, whylen);
	json_decref(root);
	return err;
}
