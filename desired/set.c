/* SPDX-License-Identifier: MIT */
/* A set of desired-state entries: made by the caller, or read from a file (file.c). */
#include "internal.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
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

/* No blank or control character: nothing a handle or a netdev name can hold. */
static bool printable(const char *v)
{
	for (; *v; v++)
		if ((unsigned char)*v <= ' ' || *v == 0x7f)
			return false;
	return true;
}

bool dlh__desired_handle_ok(const char *v)
{
	const char *slash = strchr(v, '/');

	return strlen(v) < DLH_HANDLE_MAX && slash && slash != v && slash[1] && !strchr(slash + 1, '/') && printable(v);
}

bool dlh__desired_netdev_ok(const char *v)
{
	return *v && strlen(v) < DLH_NETDEV_NAME_MAX && !strchr(v, '/') && !strchr(v, ':') && printable(v);
}

int dlh__desired_refuse(struct dlh_extack *ext, const char *origin, const char *field, const char *fmt, ...)
{
	char obj[DLH_DESIRED_ORIGIN_MAX + 8], msg[DLH_EXTACK_MSG_MAX + 8];
	va_list ap;

	snprintf(obj, sizeof(obj), "%s%s%s", origin, field ? "." : "", field ? field : "");
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return dlh_extack_set(ext, -EINVAL, obj, "%s", msg);
}

/* A string field as a message may quote it: its bytes up to the field's size, control characters as '?'. */
static const char *quoted(const char *v, size_t size, char *buf)
{
	size_t i;

	for (i = 0; i < size - 1 && v[i]; i++)
		buf[i] = (unsigned char)v[i] < ' ' || v[i] == 0x7f ? '?' : v[i];
	buf[i] = '\0';
	return buf;
}

DLH_EXPORT int dlh_desired_entry_add(struct dlh_desired *d, const struct dlh_desired_entry *e, const char *origin,
				     struct dlh_extack *ext)
{
	char shown[DLH_HANDLE_MAX];
	struct dlh_desired_entry *n;
	bool by_port, by_netdev;

	if (!d || !e || !origin || !origin_ok(origin))
		return dlh_extack_set(ext, -EINVAL, NULL, "An origin is printable and shorter than %d bytes",
				      DLH_DESIRED_ORIGIN_MAX);
	by_port = e->device[0] || e->has_number;
	by_netdev = e->netdev[0] != '\0';
	if (by_port && by_netdev)
		return dlh__desired_refuse(ext, origin, NULL, "give device and number, or netdev, not both");
	if (!by_netdev && !(e->device[0] && e->has_number))
		return dlh__desired_refuse(ext, origin, NULL, "give device and number, or netdev");
	if (!e->split && !e->type)
		return dlh__desired_refuse(ext, origin, NULL, "says nothing: give split and/or type");
	if (e->has_number && e->number > 65535)
		return dlh__desired_refuse(ext, origin, "number", DLH__DESIRED_NUMBER_RANGE, (long long)e->number);
	if (e->split > 64)
		return dlh__desired_refuse(ext, origin, "split", DLH__DESIRED_SPLIT_RANGE, (long long)e->split);
	if ((unsigned int)e->type > DLH_PORT_TYPE_IB)
		return dlh__desired_refuse(ext, origin, "type", DLH__DESIRED_TYPE);
	if (by_port && (!memchr(e->device, '\0', sizeof(e->device)) || !dlh__desired_handle_ok(e->device)))
		return dlh__desired_refuse(ext, origin, "device", DLH__DESIRED_DEVICE,
					   quoted(e->device, sizeof(e->device), shown));
	if (by_netdev && (!memchr(e->netdev, '\0', sizeof(e->netdev)) || !dlh__desired_netdev_ok(e->netdev)))
		return dlh__desired_refuse(ext, origin, "netdev", DLH__DESIRED_NETDEV,
					   quoted(e->netdev, sizeof(e->netdev), shown));
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
	return d ? d->path : "";
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
	if (!len)
		return;
	if (!d)
		buf[0] = '\0';
	else if (i < d->n && d->e[i].origin[0])
		snprintf(buf, len, "%s", d->e[i].origin);
	else
		snprintf(buf, len, "%s:%d", d->path, line);
}
