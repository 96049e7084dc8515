/* SPDX-License-Identifier: MIT */
/*
 * jsoncmp DL.json DEVLINK.json: do dl's and iproute2's `-j port show` hold
 * the same ports, keys and values? Every key devlink prints must be in dl's
 * object with the same value, and dl may add only its "dlhal" object (with
 * -d). Runs inside the test VM.
 */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const dl_extras[] = {"dlhal", NULL};

static int extra(const char *key)
{
	for (int i = 0; dl_extras[i]; i++)
		if (!strcmp(key, dl_extras[i]))
			return 1;
	return 0;
}

int main(int argc, char **argv)
{
	json_t *a, *b, *pa, *pb, *va, *vb, *x;
	const char *handle, *key;
	json_error_t err;
	size_t diffs = 0;

	if (argc != 3) {
		fprintf(stderr, "usage: jsoncmp DL.json DEVLINK.json\n");
		return 2;
	}
	a = json_load_file(argv[1], 0, &err);
	b = json_load_file(argv[2], 0, &err);
	if (!a || !b) {
		fprintf(stderr, "jsoncmp: %s: %s\n", a ? argv[2] : argv[1], err.text);
		return 2;
	}
	pa = json_object_get(a, "port");
	pb = json_object_get(b, "port");
	if (!json_is_object(pa) || !json_is_object(pb)) {
		fprintf(stderr, "jsoncmp: no \"port\" object\n");
		return 1;
	}
	if (json_object_size(pa) != json_object_size(pb)) {
		fprintf(stderr, "jsoncmp: dl has %zu ports, devlink %zu\n", json_object_size(pa), json_object_size(pb));
		diffs++;
	}
	json_object_foreach(pb, handle, vb)
	{
		va = json_object_get(pa, handle);
		if (!va) {
			fprintf(stderr, "jsoncmp: %s: missing in dl\n", handle);
			diffs++;
			continue;
		}
		json_object_foreach(vb, key, x)
		{
			if (!json_equal(json_object_get(va, key), x)) {
				char *s = json_dumps(x, JSON_ENCODE_ANY),
				     *t = json_dumps(json_object_get(va, key), JSON_ENCODE_ANY);

				fprintf(stderr, "jsoncmp: %s: %s: devlink %s, dl %s\n", handle, key, s,
					t ? t : "(none)");
				free(s);
				free(t);
				diffs++;
			}
		}
		json_object_foreach(va, key, x)
		{
			if (!json_object_get(vb, key) && !extra(key)) {
				fprintf(stderr, "jsoncmp: %s: dl has %s, devlink does not\n", handle, key);
				diffs++;
			}
		}
	}
	json_decref(a);
	json_decref(b);
	if (diffs)
		fprintf(stderr, "jsoncmp: %zu differences\n", diffs);
	return diffs ? 1 : 0;
}
