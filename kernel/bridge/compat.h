/* SPDX-License-Identifier: (GPL-2.0 OR MIT) */
/*
 * What changed in the kernel's devlink and driver core interfaces between
 * the kernels dlhal_bridge builds on (6.1 to 6.12), where a helper hides it;
 * where the code differs (the port ops from 6.5, the netdev link from 6.2)
 * dlhal_bridge.c says so itself. conftest.h says what the headers have
 * (conftest.sh writes it).
 */
#ifndef DLHAL_BRIDGE_COMPAT_H
#define DLHAL_BRIDGE_COMPAT_H

#include <linux/device.h>
#include <linux/netdevice.h>
#include <net/devlink.h>

#include "conftest.h"

/*
 * The bus, typed as struct device points at it: const from 6.3 on, when the
 * driver core stopped writing to it; writable before.
 */
#define DLB_BUS_TYPE typeof(*((struct device *)NULL)->bus)

/* From 6.11 the driver core hands a bus's match a const driver. */
#ifdef DLB_HAVE_BUS_MATCH_CONST
#define DLB_MATCH_CONST const
#else
#define DLB_MATCH_CONST
#endif

/*
 * An instance whose process said nothing of it answers `devlink dev info` as
 * it did without info_get: up to 6.1 with -EOPNOTSUPP, from 6.2 with what the
 * core puts (the bound driver's name, if any).
 */
#ifdef DLB_HAVE_DEVLINK_INFO_DRIVER_NAME_PUT
#define DLB_INFO_NONE (-EOPNOTSUPP)
#else
#define DLB_INFO_NONE 0
#endif

/* Up to 6.2 reload needs the feature flag as well as the ops. */
static inline void dlb_devlink_reload_enable(struct devlink *devlink)
{
#ifdef DLB_HAVE_DEVLINK_SET_FEATURES
	devlink_set_features(devlink, DEVLINK_F_RELOAD);
#endif
}

/* From 6.7 an instance names those nested in it; before, there are none. */
static inline int dlb_devl_nested_devlink_set(struct devlink *devlink, struct devlink *nested)
{
#ifdef DLB_HAVE_DEVL_NESTED_DEVLINK_SET
	return devl_nested_devlink_set(devlink, nested);
#else
	return -EOPNOTSUPP;
#endif
}

#endif
