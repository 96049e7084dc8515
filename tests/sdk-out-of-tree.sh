#!/bin/sh
# Installs dlhal into a scratch root, builds the installed examples/driver with
# its Makefile (pkg-config only), checks that the module needs no dlhal library,
# has dl load it and split a port, and runs the conformance kit on it.
set -eu
build=$1 src=$2 dl=$3 kit=$4
root=$(mktemp -d)
trap 'rm -rf "$root"' EXIT
pass=0
ok() { pass=$((pass + 1)); }
meson install -C "$build" --destdir "$root" --quiet >/dev/null
pc=$(dirname "$(find "$root" -name dlhal-sdk.pc | head -n 1)")
[ -n "$pc" ] || { echo "FAIL: dlhal-sdk.pc not installed"; exit 1; }
ex=$(find "$root" -path '*examples/driver/example.c' | head -n 1)
[ -n "$ex" ] || { echo "FAIL: examples/driver not installed"; exit 1; }
ex=$(dirname "$ex")
[ -f "$ex/Makefile" ] && [ -f "$ex/example.json" ] && ok
PKG_CONFIG_PATH=$pc PKG_CONFIG_SYSROOT_DIR=$root make -s -C "$ex" example.so
want=$(sed -n 's/^#define DLH_SDK_ABI_VERSION \([0-9]*\)u$/\1/p' "$src/include/dlhal/sdk.h")
[ "$(PKG_CONFIG_PATH=$pc pkg-config --variable=abi_version dlhal-sdk)" = "$want" ] && ok
if readelf -d "$ex/example.so" | grep -q 'NEEDED.*libdlhal'; then
	echo "FAIL: example.so needs libdlhal (a module must take the symbols from its host)"
	exit 1
fi
ok
out=$(DLHAL_MODULE_PATH=$ex "$dl" --sim "$ex/example.json" port split swp2 4 && DLHAL_MODULE_PATH=$ex "$dl" --sim "$ex/example.json" port)
expect='pci/0000:05:00.0/0: type eth netdev swp1
pci/0000:05:00.0/4: type eth netdev swp2
pci/0000:05:00.0/8: type eth netdev swp3
pci/0000:05:00.0/12: type eth netdev swp4'
if [ "$out" != "$expect" ]; then
	printf 'FAIL: dl printed:\n%s\nexpected:\n%s\n' "$out" "$expect"
	exit 1
fi
ok
err=$(DLHAL_MODULE_PATH=$ex "$dl" --sim "$ex/example.json" port set swp2 type ib 2>&1) && exit 1
case $err in *"This switch runs Ethernet only"*) ok ;; *) echo "FAIL: $err"; exit 1 ;; esac
DLHAL_MODULE_PATH=$DLHAL_MODULE_PATH "$kit" --module "$ex/example.so" --profile "$ex/example.json" >"$root/kit.out" ||
	{ cat "$root/kit.out"; echo "FAIL: dlhal-conform on the installed example"; exit 1; }
ok
# The installed kit starts from wherever it was installed, with no library path set (issue 19: it
# could not find libdlhal-conform.so.0 outside the system's library directories).
inst=$(find "$root" -path '*/bin/dlhal-conform' | head -n 1)
[ -n "$inst" ] || { echo "FAIL: dlhal-conform not installed"; exit 1; }
env -u LD_LIBRARY_PATH DLHAL_MODULE_PATH=$DLHAL_MODULE_PATH "$inst" --module "$ex/example.so" --profile "$ex/example.json" \
	>"$root/kit2.out" 2>&1 || { cat "$root/kit2.out"; echo "FAIL: the installed dlhal-conform does not run"; exit 1; }
ok
# The installed dl (issue 19): linked statically where dl-dynamic is installed beside it, which it runs
# for a profile whose driver is a module, from the install's own directories (found relative to dl).
inst_dl=$(find "$root" -path '*/sbin/dl' | head -n 1)
twin=$(find "$root" -path '*/dlhal/dl-dynamic' | head -n 1)
if [ -n "$twin" ]; then
	if readelf -l "$inst_dl" | grep -q 'Requesting program interpreter'; then
		echo "FAIL: dl-dynamic is installed but $inst_dl is not linked statically"
		exit 1
	fi
	out=$(env -u LD_LIBRARY_PATH DLHAL_MODULE_PATH=$ex "$inst_dl" --sim "$ex/example.json" port show swp2 2>&1)
	[ "$out" = 'pci/0000:05:00.0/4: type eth netdev swp2' ] ||
		{ echo "FAIL: the installed static dl with a module's profile: $out"; exit 1; }
	out=$(printf 'port split swp2 2\nport show pci/0000:05:00.0/4\n' |
		env -u LD_LIBRARY_PATH DLHAL_MODULE_PATH=$ex "$inst_dl" --sim "$ex/example.json" -b - 2>&1)
	case $out in
	'pci/0000:05:00.0/4: type eth netdev swp2s0 split_group 1') ok ;;
	*) echo "FAIL: the installed static dl, a batch on a module's profile: $out"; exit 1 ;;
	esac
	rm "$twin"
	# Without it, the error names it; unless this machine has dlhal installed at that very prefix,
	# where dl finds the system's twin (its last place to look).
	if [ -e "${twin#"$root"}" ]; then
		echo "note: ${twin#"$root"} is installed on this machine: the missing-twin error is not tried"
	else
		out=$(DLHAL_MODULE_PATH=$ex "$inst_dl" --sim "$ex/example.json" port show swp2 2>&1) &&
			{ echo "FAIL: dl without its twin loaded a module: $out"; exit 1; }
		case $out in
		*"example.so needs "*"dl-dynamic"*) ok ;;
		*) echo "FAIL: dl without its twin: $out"; exit 1 ;;
		esac
	fi
fi
# The installed units (issue 19): the packaged default serves the machine's own devlink devices (no
# emulation unless a user asks), keeps /etc/dlhal/ports.conf when it exists, listens by socket
# activation, and systemd-analyze verifies both (ExecStart pointed at the installed dlhald).
svc=$(find "$root" -name dlhald.service | head -n 1)
sock=$(find "$root" -name dlhald.socket | head -n 1)
inst_d=$(find "$root" -path '*/sbin/dlhald' | head -n 1)
[ -n "$svc" ] && [ -n "$sock" ] && [ -n "$inst_d" ] || { echo "FAIL: dlhald.service, dlhald.socket or dlhald not installed"; exit 1; }
exec_line=$(grep '^ExecStart=' "$svc")
case $exec_line in
*--sim*) echo "FAIL: the installed service emulates devices: $exec_line"; exit 1 ;;
*" --kernel "*"--desired -/etc/dlhal/ports.conf"*) ok ;;
*) echo "FAIL: the installed service: $exec_line"; exit 1 ;;
esac
grep -q '^ListenSequentialPacket=/run/dlhal/dlhald.sock$' "$sock" || { echo "FAIL: dlhald.socket does not listen"; exit 1; }
if command -v systemd-analyze > /dev/null; then
	mkdir "$root/units"
	cp "$svc" "$sock" "$root/units/"
	sed -i "s|=[^ ]*/sbin/dlhald |=$inst_d |" "$root/units/dlhald.service"
	systemd-analyze verify --man=no "$root/units/dlhald.socket" "$root/units/dlhald.service" > "$root/verify.out" 2>&1 ||
		{ cat "$root/verify.out"; echo "FAIL: systemd-analyze verify"; exit 1; }
	ok
else
	echo "FAIL: systemd-analyze is not installed (tools/debian-packages: systemd)"
	exit 1
fi
echo "$pass passed, 0 failed"
