/* SPDX-License-Identifier: (GPL-2.0 OR MIT) */
/*
 * What changed in the kernel's devlink and netdev interfaces between the
 * kernels dlhal_bridge builds on (6.1 to 6.12), one helper per change, so
 * that dlhal_bridge.c reads the same on each (the port ops, 6.5 on, are
 * there: they are tables). conftest.h says which of them
 * the headers have (conftest.sh writes it).
 */
#ifndef DLHAL_BRIDGE_COMPAT_H
#define DLHAL_BRIDGE_COMPAT_H

#include <linux/device.h>
#include <linux/netdevice.h>
#include <net/devlink.h>

#include "conftest.h"

#ifdef DLB_HAVE_SET_NETDEV_DEVLINK_PORT
/*
 * 6.2 on: the netdev names its port before it is registered, and devlink
 * sets the port's type and netdev as the netdev is registered, renamed and
 * unregistered. Setting or clearing an Ethernet type by hand warns.
 */
static inline void dlb_netdev_link(struct net_device *netdev, struct devlink_port *dl)
{
	SET_NETDEV_DEVLINK_PORT(netdev, dl);
}

static inline void dlb_port_eth_set(struct devlink_port *dl, struct net_device *netdev)
{
}

static inline void dlb_port_eth_clear(struct devlink_port *dl)
{
}
#else
/* Up to 6.1: the netdev's ndo_get_devlink_port names the port; the driver sets its type. */
static inline void dlb_netdev_link(struct net_device *netdev, struct devlink_port *dl)
{
}

static inline void dlb_port_eth_set(struct devlink_port *dl, struct net_device *netdev)
{
	devlink_port_type_eth_set(dl, netdev);
}

static inline void dlb_port_eth_clear(struct devlink_port *dl)
{
	devlink_port_type_clear(dl);
}
#endif

/*
 * The bus, typed as struct device points at it: const from 6.3 on, when the
 * driver core stopped writing to it; writable before.
 */
#define DLB_BUS_TYPE typeof(*((struct device *)NULL)->bus)

/* Up to 6.2 reload needs the feature flag as well as the ops. */
static inline void dlb_devlink_reload_enable(struct devlink *devlink)
{
#ifdef DLB_HAVE_DEVLINK_SET_FEATURES
	devlink_set_features(devlink, DEVLINK_F_RELOAD);
#endif
}

#endif
