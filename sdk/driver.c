/* SPDX-License-Identifier: MIT */
/*
 * The driver-facing calls that change nothing in the model: registering a
 * linked-in driver, messages, log lines, name checks. What changes the model
 * (ports, types, timers) lives in core/, next to what it changes.
 */
#include "../core/core.h"

#include <stdarg.h>

DLH_EXPORT int dlh_sdk_driver_register(struct dlh_ctx *ctx, const struct dlh_sdk_driver *drv, struct dlh_extack *ext)
{
	dlh__extack_clear(ext);
	return dlh__driver_add(ctx, drv, NULL, drv->name, ext);
}

DLH_EXPORT int dlh_sdk_extack(struct dlh_extack *ext, int err, const char *fmt, ...)
{
	va_list ap;

	if (!ext)
		return err;
	va_start(ap, fmt);
	dlh__extack_vset(ext, fmt, ap);
	va_end(ap);
	return err;
}

DLH_EXPORT void dlh_sdk_log(const struct dlh_dev *dev, enum dlh_log_level level, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	dlh__vlog(dev ? dev->ctx : NULL, level, dev, fmt, ap);
	va_end(ap);
}

DLH_EXPORT bool dlh_sdk_netdev_name_valid(const char *name)
{
	return name && dlh__netdev_name_valid(name);
}
