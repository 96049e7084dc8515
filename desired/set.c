/* SPDX-License-Identifier: MIT */
/* A set of desired-state entries: made by the caller, or read from a file (file.c). */
#include "internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

struct dlh_desired_entry *dlh__desired_grow(struct dlh_desired *d)
{
	struct dlh_desired_entry *e = realloc(d->e, (d->n + 1) * sizeof(*e));

	if (!e)
		return NULL;
	d->e = e;
	memset(&e[d->n], 0, sizeof(*e));
	return &e[d->n++];
}

DLH_EXPORT int dlh_desired_new(const char *name, struct dlh_desired **out)
{
	struct dlh_desired *d = calloc(1, sizeof(*d));

	*out = d;
	if (!d)
		return -ENOMEM;
	snprintf(d->path, sizeof(d->path), "%s", name ? name : "");
	return 0;
}

/* A label a message can carry: printable, no line break, shorter than the field. */
static bool origin_ok(const char *o)
{
	size_t n = strnlen(o, DLH_DESIRED_ORIGIN_MAX);

	if (!n || n == DLH_DESIRED_ORIGIN_MAX)
		return false;
	for (; *o; o++)
		if ((unsigned char)*o < ' ' || *o == 0x7f)
			return false;
	return true;
}

DLH_EXPORT int dlh_desired_entry_add(struct dlh_desired *d, const struct dlh_desired_entry *e, const char *origin,
				     struct dlh_extack *ext)
{
	struct dlh_desired_entry *n;

	if (!d || !e || !origin || !origin_ok(origin))
		return dlh_extack_set(ext, -EINVAL, NULL, "An origin is printable and shorter than %d bytes",
				      DLH_DESIRED_ORIGIN_MAX);
	if (!e->netdev[0] == !(e->device[0] && e->has_number) || (e->netdev[0] && (e->device[0] || e->has_number)))
		return dlh_extack_set(ext, -EINVAL, NULL, "give device and number, or netdev");
	if (!memchr(e->device, '\0', sizeof(e->device)) || !memchr(e->netdev, '\0', sizeof(e->netdev)))
		return dlh_extack_set(ext, -EINVAL, NULL, "device or netdev too long");
	if (!e->split && !e->type)
		return dlh_extack_set(ext, -EINVAL, NULL, "says nothing: give split and/or type");
	if (e->split > 64 || e->number > 65535 || (unsigned int)e->type > DLH_PORT_TYPE_IB)
		return dlh_extack_set(ext, -EINVAL, NULL, "split 1 to 64, number 0 to 65535, type eth, ib or auto");
	if (d->n == DLH_DESIRED_ENTRIES_MAX)
		return dlh_extack_set(ext, -ENOSPC, NULL, "more than %d entries", DLH_DESIRED_ENTRIES_MAX);
	n = dlh__desired_grow(d);
	if (!n)
		return dlh_extack_set(ext, -ENOMEM, NULL, "Out of memory");
	*n = *e;
	n->match_line = n->split_line = n->type_line = 0;
	n->device_line = n->number_line = n->netdev_line = n->port_line = 0;
	snprintf(n->origin, sizeof(n->origin), "%s", origin);
	return 0;
}

DLH_EXPORT void dlh_desired_free(struct dlh_desired *d)
{
	if (!d)
		return;
	free(d->e);
	free(d);
}

DLH_EXPORT const char *dlh_desired_name(const struct dlh_desired *d)
{
	return d->path;
}

DLH_EXPORT size_t dlh_desired_count(const struct dlh_desired *d)
{
	return d ? d->n : 0;
}

DLH_EXPORT const struct dlh_desired_entry *dlh_desired_entry(const struct dlh_desired *d, size_t i)
{
	return d && i < d->n ? &d->e[i] : NULL;
}

DLH_EXPORT void dlh_desired_where(const struct dlh_desired *d, size_t i, int line, char *buf, size_t len)
{
	if (i < d->n && d->e[i].origin[0])
		snprintf(buf, len, "%s", d->e[i].origin);
	else
		snprintf(buf, len, "%s:%d", d->path, line);
}
