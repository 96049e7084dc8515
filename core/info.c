/* SPDX-License-Identifier: MIT */
/* What a device reports of itself (devlink dev info): its driver, serial numbers and versions. */
#include "core.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

struct dlh_sdk_info {
	struct dlh_dev *dev;
	struct dlh_dev_info *info;
};

/* 1 to max - 1 printable characters (blanks too, unless @blank is false): what a driver may put. */
static int text_check(const struct dlh_sdk_info *si, const char *what, const char *s, size_t max, bool blank,
		      struct dlh_extack *ext)
{
	size_t n = s ? strnlen(s, max) : 0;

	if (!n || n == max)
		return dlh__extack_set(ext, -EINVAL, si->dev->handle, "Info %s must be 1 to %zu characters", what,
				       max - 1);
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)s[i] < ' ' + !blank || (unsigned char)s[i] >= 0x7f)
			return dlh__extack_set(ext, -EINVAL, si->dev->handle, "Info %s has %s character", what,
					       blank ? "an unprintable" : "a blank or an unprintable");
	return 0;
}

DLH_EXPORT int dlh_sdk_info_driver_put(struct dlh_sdk_info *info, const char *name, struct dlh_extack *ext)
{
	int err = text_check(info, "driver name", name, sizeof(info->info->driver), false, ext);

	if (!err)
		strcpy(info->info->driver, name);
	return err;
}

DLH_EXPORT int dlh_sdk_info_serial_put(struct dlh_sdk_info *info, bool board, const char *serial,
				       struct dlh_extack *ext)
{
	char *to = board ? info->info->board_serial : info->info->serial;
	int err =
	    text_check(info, board ? "board serial number" : "serial number", serial, DLH_VERSION_VALUE_MAX, true, ext);

	if (!err)
		strcpy(to, serial);
	return err;
}

DLH_EXPORT int dlh_sdk_info_version_put(struct dlh_sdk_info *info, enum dlh_version_kind kind, const char *name,
					const char *value, struct dlh_extack *ext)
{
	struct dlh_dev_info *di = info->info;
	struct dlh_version *v;
	int err;

	if ((unsigned)kind > DLH_VERSION_STORED)
		return dlh__extack_set(ext, -EINVAL, info->dev->handle, "Unknown info version kind %d", (int)kind);
	err = text_check(info, "version name", name, DLH_VERSION_NAME_MAX, false, ext);
	if (!err)
		err = text_check(info, "version value", value, DLH_VERSION_VALUE_MAX, true, ext);
	if (err)
		return err;
	if (di->nversions == DLH_VERSIONS_MAX)
		return dlh__extack_set(ext, -E2BIG, info->dev->handle, "More than %d info versions", DLH_VERSIONS_MAX);
	v = &di->versions[di->nversions++];
	v->kind = kind;
	strcpy(v->name, name);
	strcpy(v->value, value);
	return 0;
}

DLH_EXPORT int dlh_dev_info_get(struct dlh_dev *dev, struct dlh_dev_info *info, struct dlh_extack *ext)
{
	int (*get)(struct dlh_dev *, struct dlh_sdk_info *, struct dlh_extack *) = DLH__OP(dev->drv, dev_info_get);
	struct dlh_sdk_info si = {.dev = dev, .info = info};
	int err = 0;

	dlh__extack_clear(ext);
	memset(info, 0, sizeof(*info));
	if (dev->gone)
		return dlh__dev_live(dev, ext);
	/* a relay asks its peer: not while an op or a fill holds its socket */
	if (dev->ctx->op.name || dev->ctx->filling)
		return dlh__extack_set(ext, -EBUSY, dev->handle, "Device info cannot be read inside an operation");
	if (get) {
		err = get(dev, &si, ext);
		if (err) {
			memset(info, 0, sizeof(*info));
			if (ext && !ext->msg[0])
				dlh__extack_set(ext, err, dev->handle, "Driver cannot report the device's info");
			return err;
		}
	}
	/* as Linux from 6.2 on: the core names the driver that reports nothing; a relay's says what it knows */
	else
		snprintf(info->driver, sizeof(info->driver), "%s", dlh_dev_driver(dev));
	return 0;
}
