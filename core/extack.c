/* SPDX-License-Identifier: MIT */
/* Error messages: the extack core and drivers fill in. */
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
void dlh__extack_vset(struct dlh_extack *ext, const char *fmt, va_list ap)
{
	int n;

	if (!ext)
		return;
	n = vsnprintf(ext->msg, sizeof(ext->msg), fmt, ap);
	if (n >= (int)sizeof(ext->msg))
		memcpy(ext->msg + sizeof(ext->msg) - 4, "...", 4);
}

DLH_EXPORT int dlh_extack_set(struct dlh_extack *ext, int err, const char *obj, const char *fmt, ...)
{
	va_list ap;

	if (!ext)
		return err;
	va_start(ap, fmt);
	dlh__extack_vset(ext, fmt, ap);
	va_end(ap);
	ext->obj[0] = '\0';
	dlh__extack_obj(ext, obj);
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
