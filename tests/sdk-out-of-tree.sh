#!/bin/sh
# Installs dlhal into a scratch root, builds examples/driver against the
# installed headers and dlhal-sdk.pc, and has dl load the module and show its ports.
set -eu
build=$1 src=$2 dl=$3
root=$(mktemp -d)
trap 'rm -rf "$root"' EXIT
meson install -C "$build" --destdir "$root" --quiet >/dev/null
pc=$(dirname "$(find "$root" -name dlhal-sdk.pc | head -n 1)")
[ -n "$pc" ] || { echo "FAIL: dlhal-sdk.pc not installed"; exit 1; }
cp "$src/examples/driver/example.c" "$src/examples/driver/Makefile" "$root/"
PKG_CONFIG_PATH=$pc PKG_CONFIG_SYSROOT_DIR=$root make -s -C "$root" example.so
[ "$(PKG_CONFIG_PATH=$pc pkg-config --variable=abi_version dlhal-sdk)" = 1 ]
printf '{"driver": "example", "handle": "pci/0000:05:00.0", "hw": {"ports": 2}}\n' > "$root/example.json"
out=$(DLHAL_MODULE_PATH=$root "$dl" --sim "$root/example.json" port)
expect='pci/0000:05:00.0/0: type eth netdev enp5s0f0
pci/0000:05:00.0/1: type eth netdev enp5s0f1'
if [ "$out" != "$expect" ]; then
	printf 'FAIL: dl printed:\n%s\nexpected:\n%s\n' "$out" "$expect"
	exit 1
fi
err=$(DLHAL_MODULE_PATH=$root "$dl" --sim "$root/example.json" port set enp5s0f1 type ib 2>&1) && exit 1
case $err in *"This NIC runs Ethernet only"*) ;; *) echo "FAIL: $err"; exit 1 ;; esac
echo "1 passed, 0 failed"
