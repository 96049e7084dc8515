/* SPDX-License-Identifier: MIT */
/*
 * Resets: devlink's reload (Linux 6.1's checks and words before the driver
 * runs), the emulator's power cycle, and the firmware options a reset
 * chooses between. A reset may remove the device it was asked of and add
 * others (a card whose option sets how many PCI functions it has), so
 * nothing here touches @dev once the driver has run.
 */
#include "core.h"

#include <errno.h>
#include <string.h>

static int reset_run(struct dlh_dev *dev, const char *name, int (*fn)(struct dlh_dev *, void *), void *arg,
		     struct dlh_extack *ext)
{
	const struct dlh_sdk_driver *drv = dev->drv;
	struct dlh_ctx *ctx = dev->ctx;
	char handle[DLH_HANDLE_MAX];
	int err;

	memcpy(handle, dev->handle, strlen(dev->handle) + 1);
	err = dlh__op_begin_reset(dev, name, handle, ext);
	if (err)
		return err;
	return dlh__op_end(ctx, drv, handle, fn(dev, arg), ext);
}

struct reload_args {
	enum dlh_reload_action action;
	enum dlh_reload_limit limit;
	uint32_t done;
	struct dlh_extack *ext;
};

static int reload_fn(struct dlh_dev *dev, void *arg)
{
	struct reload_args *a = arg;

	return DLH__OP(dev->drv, dev_reload)(dev, a->action, a->limit, &a->done, a->ext);
}

DLH_EXPORT int dlh_dev_reload(struct dlh_dev *dev, enum dlh_reload_action action, enum dlh_reload_limit limit,
			      uint32_t *performed, struct dlh_extack *ext)
{
	const struct dlh_sdk_driver *drv = dev->drv;
	uint32_t actions = DLH__OPVAL(drv, reload_actions);
	struct reload_args a = {action, limit, 0, ext};
	struct dlh_ctx *ctx = dev->ctx;
	char handle[DLH_HANDLE_MAX];
	int err;

	dlh__extack_clear(ext);
	if (performed)
		*performed = 0;
	err = dlh__dev_live(dev, ext);
	if (err)
		return err;
	if (action != DLH_RELOAD_ACTION_DRIVER_REINIT && action != DLH_RELOAD_ACTION_FW_ACTIVATE)
		return dlh__extack_set(ext, -EINVAL, dev->handle, "Unknown reload action %d", (int)action);
	if (limit != DLH_RELOAD_LIMIT_UNSPEC && limit != DLH_RELOAD_LIMIT_NO_RESET)
		return dlh__extack_set(ext, -EINVAL, dev->handle, "Invalid limit selected");
	/* A relay leaves the rest to the core it relays to (the kernel's words come back as they are). */
	if (DLH__RELAY(drv) && DLH__OP(drv, dev_reload)) {
		err = reset_run(dev, "dev_reload", reload_fn, &a, ext);
		if (!err && performed)
			*performed = a.done;
		return err;
	}
	if (!DLH__OP(drv, dev_reload) || !actions)
		return dlh__extack_set(ext, -EOPNOTSUPP, dev->handle, "Reload is not supported");
	if (!(actions & (1u << action)))
		return dlh__extack_set(ext, -EOPNOTSUPP, dev->handle,
				       "Requested reload action is not supported by the driver");
	if (limit != DLH_RELOAD_LIMIT_UNSPEC) {
		if (!(DLH__OPVAL(drv, reload_limits) & (1u << limit)))
			return dlh__extack_set(ext, -EOPNOTSUPP, dev->handle,
					       "Requested limit is not supported by the driver");
		if (action == DLH_RELOAD_ACTION_DRIVER_REINIT && limit == DLH_RELOAD_LIMIT_NO_RESET)
			return dlh__extack_set(ext, -EINVAL, dev->handle, "Requested limit is invalid for this action");
	}
	memcpy(handle, dev->handle, strlen(dev->handle) + 1);
	err = reset_run(dev, "dev_reload", reload_fn, &a, ext);
	if (err)
		return err;
	/* As Linux warns: a reload that did not do what was asked is a driver bug. */
	if (!(a.done & (1u << action))) {
		dlh__log(ctx, DLH_LOG_ERR, NULL,
			 "driver %s: dev_reload on %s did not report %s as performed (driver bug)", drv->name, handle,
			 dlh_reload_action_name(action));
		a.done |= 1u << action;
	}
	if (performed)
		*performed = a.done & ((1u << DLH_RELOAD_ACTION_DRIVER_REINIT) | (1u << DLH_RELOAD_ACTION_FW_ACTIVATE));
	return 0;
}

static int sim_reset_fn(struct dlh_dev *dev, void *arg)
{
	return DLH__OP(dev->drv, sim_reset)(dev, arg);
}

DLH_EXPORT int dlh_dev_sim_reset(struct dlh_dev *dev, struct dlh_extack *ext)
{
	dlh__extack_clear(ext);
	if (dev->gone)
		return dlh__dev_live(dev, ext);
	if (!DLH__OP(dev->drv, sim_reset))
		return dlh__extack_set(ext, -EOPNOTSUPP, dev->handle, "Device has no emulated power cycle");
	return reset_run(dev, "sim_reset", sim_reset_fn, ext, ext);
}

DLH_EXPORT int dlh_dev_fw_options(struct dlh_dev *dev, struct dlh_fw_option *opts, size_t max, size_t *n,
				  struct dlh_extack *ext)
{
	int (*op)(struct dlh_dev *, struct dlh_fw_option *, size_t, size_t *, struct dlh_extack *) =
	    DLH__OP(dev->drv, dev_fw_options);
	size_t got = 0, active = 0, pending = 0;
	int err;

	dlh__extack_clear(ext);
	*n = 0;
	if (dev->gone)
		return dlh__dev_live(dev, ext);
	if (!op)
		return dlh__extack_set(ext, -EOPNOTSUPP, dev->handle, "Device has no firmware options");
	if (max)
		memset(opts, 0, max * sizeof(*opts));
	err = op(dev, opts, max, &got, ext);
	if (err) {
		if (ext && !ext->msg[0] && err < 0)
			return dlh__extack_set(ext, err, dev->handle, "firmware options failed: %s", strerror(-err));
		dlh__extack_obj(ext, dev->handle);
		return err < 0 ? err : -EIO;
	}
	/* What a driver hands back is checked as a registration is. */
	for (size_t i = 0; i < got && i < max; i++) {
		active += opts[i].active;
		pending += opts[i].pending;
		if (opts[i].split == 0 || opts[i].split > 64)
			return dlh__extack_set(ext, -EIO, dev->handle, "Driver bug: option %zu splits into %u ports", i,
					       opts[i].split);
	}
	if (active > 1 || pending > 1)
		return dlh__extack_set(ext, -EIO, dev->handle, "Driver bug: %zu active and %zu pending options", active,
				       pending);
	*n = got;
	return 0;
}
