#!/bin/sh
# Boots Debian's own kernel under qemu (TCG) with netdevsim built out of tree
# from that kernel's own source, and the bridge module from this tree, and runs
# guest.sh (or bench.sh) in it: dl against the real kernel devlink family, with
# Debian's devlink as the peer. Downloads and builds are cached under
# BUILD/vm-cache. A VM that cannot start is a failure, with the reason.
#   run.sh [--kernel SERIES] BUILD SRC DL JSONCMP TIMEIT [test|bench|SCRIPT]
# SERIES: 6.1 (default: linux-headers-amd64, Debian 12's kernel) or 6.12
# (linux-headers-6.12-amd64, from Debian 12's security suite); the matching
# linux-source-SERIES must be installed.
# (SCRIPT: any shell script to run in the guest instead, for investigations;
# strace, perf and callgrind are copied in when the host has them.)
set -eu
series=6.1
if [ "${1:-}" = --kernel ]; then
	series=$2
	shift 2
fi
build=$(cd "$1" && pwd) src=$2 dl=$3 jsoncmp=$4 timeit=$5 mode=${6:-test}
case $mode in
test) script=guest.sh ;;
bench) script=bench.sh ;;
*) [ -f "$mode" ] || { echo "usage: run.sh [--kernel SERIES] BUILD SRC DL JSONCMP TIMEIT [test|bench|SCRIPT]" >&2; exit 2; }
	script=probe.sh ;;
esac
cache=$build/vm-cache
mkdir -p "$cache"

fail() {
	echo "not ok vm ($series): $*"
	echo "0 passed, 1 failed"
	exit 1
}

# The kernel version is the one the installed headers' metapackage is for, so
# that netdevsim builds against headers matching the image we boot.
case $series in
6.1) meta=linux-headers-amd64 ;;
*) meta=linux-headers-$series-amd64 ;;
esac
ver=$(dpkg-query -W -f='${Depends}' "$meta" 2>/dev/null | sed -n 's/^linux-headers-\([^ ,]*\).*/\1/p')
[ -n "$ver" ] || fail "$meta is not installed"
[ -d "/usr/src/linux-headers-$ver" ] || fail "/usr/src/linux-headers-$ver missing"
lsrc=/usr/src/linux-source-$series.tar.xz
[ -f "$lsrc" ] || fail "linux-source-$series is not installed"
command -v qemu-system-x86_64 >/dev/null || fail "qemu-system-x86_64 is not installed"
[ -x /bin/busybox ] || fail "busybox-static is not installed"

img=$cache/img-$ver
if [ ! -f "$img/boot/vmlinuz-$ver" ]; then
	(cd "$cache" && apt-get download -q "linux-image-$ver" >/dev/null 2>&1) ||
		fail "cannot download linux-image-$ver"
	dpkg -x "$cache"/linux-image-"$ver"_*.deb "$img" || fail "cannot unpack linux-image-$ver"
	rm -f "$cache"/linux-image-"$ver"_*.deb
fi
psample=$(find "$img/lib/modules/$ver" -name 'psample.ko*' | head -n 1)
[ -n "$psample" ] || fail "psample.ko not in linux-image-$ver"

nsim=$cache/netdevsim-$ver
if [ ! -f "$nsim/netdevsim.ko" ]; then
	rm -rf "$nsim" "$cache/src-$ver"
	mkdir -p "$cache/src-$ver" "$nsim"
	tar -xf "$lsrc" -C "$cache/src-$ver" --wildcards "linux-source-$series/drivers/net/netdevsim/*" ||
		fail "cannot extract netdevsim from linux-source-$series"
	cp -r "$cache/src-$ver/linux-source-$series/drivers/net/netdevsim/." "$nsim/"
	rm -rf "$cache/src-$ver"
	make -s -C "/usr/src/linux-headers-$ver" M="$nsim" CONFIG_NETDEVSIM=m modules >"$cache/netdevsim-$ver.log" 2>&1 ||
		fail "netdevsim does not build: $(tail -n 5 "$cache/netdevsim-$ver.log")"
fi

# The bridge module, from this tree: built each run (the source changes), as netdevsim is.
bridge=$cache/bridge-$ver
rm -rf "$bridge"
mkdir -p "$bridge/include/dlhal"
cp "$src"/kernel/bridge/* "$bridge/"
cp "$src/include/dlhal/bridge.h" "$bridge/include/dlhal/"
make -s -C "/usr/src/linux-headers-$ver" M="$bridge" modules >"$cache/bridge-$ver.log" 2>&1 ||
	fail "kernel/bridge does not build: $(tail -n 5 "$cache/bridge-$ver.log")"
if grep -E 'warning|error' "$cache/bridge-$ver.log"; then
	fail "kernel/bridge builds with warnings"
fi

root=$(mktemp -d)
out=$(mktemp)
trap 'rm -rf "$root" "$out"' EXIT
mkdir -p "$root/run" "$root/bin" "$root/sbin" "$root/usr/bin" "$root/usr/sbin" "$root/etc" "$root/proc" "$root/sys" \
	"$root/dev" "$root/tmp" "$root/modules" "$root/root"

# A binary and every library ldd resolves for it: the loader at its own path,
# the libraries in /usr/lib, which the loader searches by default (a build
# tree's RUNPATH would not resolve in the VM).
mkdir -p "$root/usr/lib"
copy_bin() { # path dest
	cp "$1" "$root$2"
	ldd "$1" | awk '/=> \//{ print $3 }' | while read -r lib; do
		cp -L "$lib" "$root/usr/lib/"
	done
	ldd "$1" | awk '/^\t\/[^ ]*ld-linux/{ print $1 }' | while read -r ld; do
		mkdir -p "$root$(dirname "$ld")"
		cp -L "$ld" "$root$ld"
	done
}
cp /bin/busybox "$root/bin/busybox"
copy_bin "$dl" /usr/bin/dl
copy_bin "$(dirname "$dl")/../dlhald/dlhald" /usr/sbin/dlhald
copy_bin /usr/sbin/devlink /usr/sbin/devlink
# util-linux's setpriv: dl as an unprivileged user (busybox's cannot change uids)
[ -x /usr/bin/setpriv ] && copy_bin /usr/bin/setpriv /usr/bin/setpriv
copy_bin "$jsoncmp" /usr/bin/jsoncmp
copy_bin "$timeit" /usr/bin/timeit
[ -x "$build/bench/nlrecord" ] && copy_bin "$build/bench/nlrecord" /usr/bin/nlrecord
# The Lua module, when built: the interpreter, the module, the kernel backend's module, dkjson.
luamod=$(dirname "$dl")/../../bindings/lua/dlhal.so
if [ -f "$luamod" ] && command -v lua5.4 >/dev/null && [ -f /usr/share/lua/5.4/dkjson.lua ]; then
	mkdir -p "$root/usr/lib/lua/5.4" "$root/usr/lib/dlhal" "$root/usr/share/lua/5.4"
	copy_bin "$(command -v lua5.4)" /usr/bin/lua5.4
	copy_bin "$luamod" /usr/lib/lua/5.4/dlhal.so
	copy_bin "$(dirname "$dl")/../../kernel/kernel.so" /usr/lib/dlhal/kernel.so
	cp /usr/share/lua/5.4/dkjson.lua "$root/usr/share/lua/5.4/"
	cp "$src/tests/vm/lua.lua" "$root/"
fi
# The Ansible collection's modules, run as Ansible runs them on a managed host (python3 MODULE ARGS):
# Debian's python3 with its standard library (less what no module imports), ansible's module_utils
# and the collection's plugins.
py=/usr/bin/python3.11
if [ -x $py ] && [ -d /usr/lib/python3/dist-packages/ansible/module_utils ]; then
	copy_bin $py /usr/bin/python3
	mkdir -p "$root/usr/lib/python3.11" "$root/usr/lib/python3/dist-packages/ansible/_vendor"
	(cd /usr/lib/python3.11 && tar -cf - --exclude='./config-*' --exclude=./test --exclude=./idlelib \
		--exclude=./tkinter --exclude=./lib2to3 --exclude=./pydoc_data --exclude=./ensurepip \
		--exclude=./turtledemo --exclude=./distutils --exclude=./site-packages .) | tar -xf - -C "$root/usr/lib/python3.11"
	for so in /usr/lib/python3.11/lib-dynload/*.so; do
		ldd "$so" | awk '/=> \//{ print $3 }' | while read -r lib; do
			[ -f "$root/usr/lib/$(basename "$lib")" ] || cp -L "$lib" "$root/usr/lib/"
		done
	done
	a=/usr/lib/python3/dist-packages/ansible
	cp $a/__init__.py $a/release.py "$root$a/"
	cp $a/_vendor/__init__.py "$root$a/_vendor/"
	cp -r $a/module_utils "$root$a/"
	mkdir -p "$root/usr/lib/python3/dist-packages/ansible_collections/dlhal/devlink"
	cp -r "$src/ansible/ansible_collections/dlhal/devlink/plugins" \
		"$root/usr/lib/python3/dist-packages/ansible_collections/dlhal/devlink/"
fi
cp "$psample" "$nsim/netdevsim.ko" "$bridge/dlhal_bridge.ko" "$root/modules/"
# The kernel's own port-split selftest, from the source of the kernel booted (rules.sh runs it against
# a bridged 8-lane board), and udev's part in it, which busybox lacks: "udevadm settle" names the
# ports of device UDEV_DEV as a switch's udev rules do (sw + phys_port_name: swp1, swp1s0).
case $series in
6.1) selftest=tools/testing/selftests/net/devlink_port_split.py ;;
*) selftest=tools/testing/selftests/drivers/net/hw/devlink_port_split.py ;;
esac
if [ ! -s "$cache/devlink_port_split-$series.py" ]; then
	tar -xOf "$lsrc" "linux-source-$series/$selftest" > "$cache/devlink_port_split-$series.py" ||
		fail "cannot extract $selftest from linux-source-$series"
fi
cp "$cache/devlink_port_split-$series.py" "$root/devlink_port_split.py"
cat > "$root/usr/bin/udevadm" <<'UDEV'
#!/bin/sh
[ "$1" = settle ] && [ -n "${UDEV_DEV:-}" ] || exit 0
for n in /sys/class/net/*; do
	case "$(readlink -f "$n/device" 2> /dev/null)" in */"$UDEV_DEV") ;; *) continue ;; esac
	p=$(cat "$n/phys_port_name" 2> /dev/null) || continue
	[ -n "$p" ] && [ "${n##*/}" != "sw$p" ] && ip link set dev "${n##*/}" name "sw$p" 2> /dev/null
done
exit 0
UDEV
chmod 755 "$root/usr/bin/udevadm"
# The kit against a kernel device: it loads the kernel backend and, to recognise a Spectrum or a
# ConnectX-3, the vendor's module.
mkdir -p "$root/usr/lib/dlhal"
copy_bin "$build/sdk/conform/dlhal-conform" /usr/bin/dlhal-conform
copy_bin "$build/kernel/kernel.so" /usr/lib/dlhal/kernel.so
copy_bin "$build/drivers/mlxsw/mlxsw.so" /usr/lib/dlhal/mlxsw.so
copy_bin "$build/drivers/mlx4/mlx4.so" /usr/lib/dlhal/mlx4.so
copy_bin "$build/drivers/ice/ice.so" /usr/lib/dlhal/ice.so
copy_bin "$build/drivers/mlx5/mlx5.so" /usr/lib/dlhal/mlx5.so
copy_bin "$build/tests/bridge_client" /usr/bin/bridge_client
copy_bin "$build/tests/bridge_fuzz" /usr/bin/bridge_fuzz
cp "$src/tests/vm/guest.sh" "$src/tests/vm/bench.sh" "$src/tests/vm/bridge-cases.sh" "$src/tests/vm/rules.sh" \
	"$src/tests/vm/spectrum.sh" "$src/tests/vm/vpi.sh" "$src/drivers/mlx5/profiles/cx6-vpi.json" "$root/"
# mstflint's programs for a ConnectX card: their stand-ins over an emulated one (vpi.sh; python3 above)
mkdir -p "$root/stand-ins"
cp "$src/tests/stand-ins/mstconfig" "$src/tests/stand-ins/mstfwreset" "$root/stand-ins/"
# An SN2700 whose board no profile stands for (another PSID): the generic path on a bridged Spectrum.
sed '/"mgir"/s/MT_2860111033/MT_0000000001/' "$src/drivers/mlxsw/profiles/sn2700.json" > "$root/sn2700-other.json"
cp "$src/tests/port-matrix.sh" "$root/usr/bin/"
# The hostile-client campaign's length in the guest (docs/fuzzing.md: its long form).
echo "${BRIDGE_FUZZ_SECONDS:-20}" > "$root/fuzz-seconds"
echo "${PUBLISH_ROUNDS:-100}" > "$root/publish-rounds"
if [ "$script" = probe.sh ]; then
	cp "$mode" "$root/probe.sh"
	for tool in strace perf; do
		if command -v $tool >/dev/null; then copy_bin "$(command -v $tool)" /usr/bin/$tool; fi
	done
	# callgrind, for what code a command touches (the ASLR-on time follows it).
	if [ -x /usr/libexec/valgrind/callgrind-amd64-linux ]; then
		copy_bin /usr/bin/valgrind.bin /usr/bin/valgrind
		mkdir -p "$root/usr/libexec/valgrind"
		cp /usr/libexec/valgrind/callgrind-amd64-linux /usr/libexec/valgrind/vgpreload_core-amd64-linux.so \
			/usr/libexec/valgrind/default.supp "$root/usr/libexec/valgrind/"
	fi
fi
printf 'root:x:0:0:root:/root:/bin/sh\nuser:x:1000:1000:user:/tmp:/bin/sh\n' >"$root/etc/passwd"
printf 'root:x:0:\nuser:x:1000:\n' >"$root/etc/group"
cat >"$root/init" <<INIT
#!/bin/busybox sh
/bin/busybox --install -s /bin
export PATH=/usr/bin:/usr/sbin:/bin:/sbin
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev
mount -t tmpfs tmp /tmp
chmod 1777 /tmp
insmod /modules/$(basename "$psample") && insmod /modules/netdevsim.ko || echo "not ok insmod"
insmod /modules/dlhal_bridge.ko || echo "not ok insmod dlhal_bridge"
echo VM-BOOTED
sh /$script
echo VM-DONE
poweroff -f
INIT
chmod 755 "$root" "$root/init"
(cd "$root" && find . | cpio -o -H newc --quiet | gzip -1) >"$cache/initrd-$ver.gz" || fail "cannot build the initramfs"

# The tests record who allocated each kmalloc-512 object, to attribute the bridge's leaks; the
# benchmarks run without it.
debug=
[ "$mode" = test ] && debug=" slub_debug=U,kmalloc-512"
boot() {
	timeout 1700 qemu-system-x86_64 -accel tcg -m 2048 -smp 2 -nographic -no-reboot \
		-kernel "$img/boot/vmlinuz-$ver" -initrd "$cache/initrd-$ver.gz" \
		-append "console=ttyS0 panic=-1 quiet loglevel=3$debug" >"$out" 2>&1 </dev/null || true
	tr -d '\r' <"$out" >"$out.clean" && mv "$out.clean" "$out"
}
boot
# Console escape codes may precede the markers: match them anywhere on a line.
# A kernel that dies before init runs is booted once more, saying so: under TCG, Linux 6.12's
# live code patching (int3 on a CPU another vCPU thread is executing) has oopsed at 2 s of boot
# (sched_clock_cpu), once in some twenty boots, on a loaded host. Nothing of dlhal has run by
# then; once booted, nothing is ever retried.
if ! grep -q 'VM-BOOTED' "$out" && grep -qE 'Oops|Kernel panic' "$out"; then
	echo "# the VM did not boot ($(grep -m1 -E 'RIP:|Kernel panic' "$out" | sed 's/^\[[^]]*\] *//')): booting again"
	boot
fi
grep -q 'VM-BOOTED' "$out" || fail "the VM did not boot: $(tail -n 20 "$out")"
grep -q 'VM-DONE' "$out" || fail "the VM stopped before the tests ended: $(tail -n 20 "$out")"
sed -n '/VM-BOOTED/,/VM-DONE/p' "$out" | grep -v 'VM-'
last=$(grep -E '^[0-9]+ passed, [0-9]+ failed$' "$out" | tail -n 1)
[ -n "$last" ] || fail "no result line from the guest"
case $last in *" 0 failed") exit 0 ;; *) exit 1 ;; esac
