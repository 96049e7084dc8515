#!/bin/sh
# SPDX-License-Identifier: (GPL-2.0 OR MIT)
# conftest.sh OUT CC CFLAGS...: which devlink and netdev interfaces the kernel
# headers have, by compiling a line that uses each with the kernel's own
# compiler and flags (Kbuild runs it). Distribution kernels carry backports,
# so the headers are asked, not the version number. Writes OUT: one
# "#define DLB_HAVE_X 1" for each one found.
set -u
out=$1 cc=$2 # CC may be more than one word (ccache gcc): split below
shift 2
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT

# try NAME CODE: CODE compiles, with no warning, as a function body after the headers.
try() {
	name=$1 code=$2
	shift 2
	cat >"$tmp/t.c" <<EOF
#include <linux/fs.h>
#include <linux/netdevice.h>
#include <net/devlink.h>
int conftest(struct devlink *devlink, struct devlink_port *port, struct net_device *netdev);
int conftest(struct devlink *devlink, struct devlink_port *port, struct net_device *netdev)
{
	$code
	return 0;
}
EOF
	if $cc "$@" -Werror -c "$tmp/t.c" -o "$tmp/t.o" >"$tmp/log" 2>&1; then
		echo "#define DLB_HAVE_$name 1"
	else
		echo "/* DLB_HAVE_$name: not in these headers */"
	fi
}

# Without this one, every answer below would be a no.
try_all() {
	if ! try SANITY ';' "$@" | grep -q '^#define'; then
		echo "conftest.sh: the kernel's compiler cannot build a test file:" >&2
		cat "$tmp/log" >&2
		return 1
	fi
	echo "/* Written by conftest.sh: what these kernel headers have. */"
	# 6.2: the netdev names its port, and devlink follows its registration.
	try SET_NETDEV_DEVLINK_PORT 'SET_NETDEV_DEVLINK_PORT(netdev, port);' "$@"
	# 6.5: split, unsplit and type set are the port's ops, given at registration.
	try DEVLINK_PORT_OPS 'static const struct devlink_port_ops ops = { .port_split = NULL };
	return devl_port_register_with_ops(devlink, port, 0, &ops);' "$@"
	# Up to 6.2: reload is enabled by a feature flag, not by the ops alone.
	try DEVLINK_SET_FEATURES 'devlink_set_features(devlink, DEVLINK_F_RELOAD);' "$@"
	# Up to 6.1: a driver names itself in devlink dev info (6.2 on, the core names the bound driver).
	try DEVLINK_INFO_DRIVER_NAME_PUT 'return devlink_info_driver_name_put((struct devlink_info_req *)NULL, "x");' "$@"
	# 6.11: a bus's match takes a const driver.
	try BUS_MATCH_CONST 'extern int m(struct device *dev, const struct device_driver *drv);
	static struct bus_type b = { .match = m };
	return b.match != NULL;' "$@"
	# 6.7: an instance says which are nested in it (mlx5_core's Ethernet instance, 6.7 on).
	try DEVL_NESTED_DEVLINK_SET 'return devl_nested_devlink_set(devlink, devlink);' "$@"
	# Up to 6.11.
	try NO_LLSEEK 'loff_t (*llseek)(struct file *, loff_t, int) = no_llseek;
	return llseek != NULL;' "$@"
}

try_all "$@" >"$tmp/out" || exit 1
mv "$tmp/out" "$out"
