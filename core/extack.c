/* SPDX-License-Identifier: MIT */
/* Error messages and the enum word tables. */
#include "core.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

void dlh__extack_clear(struct dlh_extack *ext)
{
	if (ext) {
		ext->msg[0] = '\0';
		ext->obj[0] = '\0';
	}
}

int dlh__extack_obj(struct dlh_extack *ext, const char *obj)
{
	/* The innermost code that knows the object names it; do not overwrite. */
	if (ext && !ext->obj[0] && obj)
		snprintf(ext->obj, sizeof(ext->obj), "%s", obj);
	return 0;
}

const char *dlh__quote(char *buf, size_t size, const char *s, size_t len)
{
	size_t max = size - 4;

	if (len <= max)
		snprintf(buf, size, "%.*s", (int)len, s);
	else
		snprintf(buf, size, "%.*s...", (int)max, s);
	return buf;
}

/* Nothing is cut silently: a message too long for the buffer ends in "...". */
static void vset(struct dlh_extack *ext, const char *fmt, va_list ap)
{
	int n;

	if (!ext)
		return;
	n = vsnprintf(ext->msg, sizeof(ext->msg), fmt, ap);
	if (n >= (int)sizeof(ext->msg))
		memcpy(ext->msg + sizeof(ext->msg) - 4, "...", 4);
}

int dlh__extack_set(struct dlh_extack *ext, int err, const char *obj, const char *fmt, ...)
{
	va_list ap;

	if (!ext)
		return err;
	va_start(ap, fmt);
	vset(ext, fmt, ap);
	va_end(ap);
	ext->obj[0] = '\0';
	dlh__extack_obj(ext, obj);
	return err;
}

DLH_EXPORT int dlh_sdk_extack(struct dlh_extack *ext, int err, const char *fmt, ...)
{
	va_list ap;

	if (!ext)
		return err;
	va_start(ap, fmt);
	vset(ext, fmt, ap);
	va_end(ap);
	return err;
}

DLH_EXPORT const char *dlh_extack_str(const struct dlh_extack *ext, char *buf, size_t len)
{
	if (!len)
		return buf;
	if (!ext)
		buf[0] = '\0';
	else if (ext->obj[0])
		snprintf(buf, len, "%s: %s", ext->obj, ext->msg);
	else
		snprintf(buf, len, "%s", ext->msg);
	return buf;
}

static const struct {
	int value;
	const char *name;
} port_types[] = {
#define DLH_X(s, n, v) {v, n},
    DLH_PORT_TYPE_MAP(DLH_X)
#undef DLH_X
};

static const struct {
	int value;
	const char *name;
} flavours[] = {
#define DLH_X(s, n, v) {v, n},
    DLH_PORT_FLAVOUR_MAP(DLH_X)
#undef DLH_X
};

static const char *const event_objects[] = {
#define DLH_X(s, o, a) o,
    DLH_EVENT_MAP(DLH_X)
#undef DLH_X
};

static const char *const event_actions[] = {
#define DLH_X(s, o, a) a,
    DLH_EVENT_MAP(DLH_X)
#undef DLH_X
};

DLH_EXPORT const char *dlh_port_type_name(enum dlh_port_type type)
{
	for (size_t i = 0; i < DLH__ARRAY_SIZE(port_types); i++)
		if (port_types[i].value == (int)type)
			return port_types[i].name;
	return "unknown";
}

DLH_EXPORT int dlh_port_type_parse(const char *word, enum dlh_port_type *type)
{
	for (size_t i = 0; word && i < DLH__ARRAY_SIZE(port_types); i++) {
		if (!strcmp(port_types[i].name, word)) {
			*type = (enum dlh_port_type)port_types[i].value;
			return 0;
		}
	}
	return -EINVAL;
}

DLH_EXPORT const char *dlh_port_flavour_name(enum dlh_port_flavour flavour)
{
	for (size_t i = 0; i < DLH__ARRAY_SIZE(flavours); i++)
		if (flavours[i].value == (int)flavour)
			return flavours[i].name;
	return "unknown";
}

DLH_EXPORT const char *dlh_event_object(enum dlh_event_type type)
{
	return (unsigned)type < DLH_EVENT_COUNT ? event_objects[type] : "unknown";
}

DLH_EXPORT const char *dlh_event_action(enum dlh_event_type type)
{
	return (unsigned)type < DLH_EVENT_COUNT ? event_actions[type] : "unknown";
}
