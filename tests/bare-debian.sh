#!/bin/sh
# A newcomer's first commands on a bare Debian 12 (issue 19): a minimal root made by
# "debootstrap --variant=minbase bookworm", a clean export of this tree copied in, and, as root in
# a chroot, exactly what README.md and docs/driver-guide.md say to type. The commands are read from
# the documents themselves (the fenced block after each "<!-- newcomer: NAME -->" marker), so a
# document that changes is the document tested:
#   quick-start    README's first command (tools/tour.sh installs its packages, builds, tours);
#                  the tour must print the seed's split and eth(auto) lines
#   lua            README's Lua example, run in "meson devenv -C build"
#   driver-install the driver guide's install and out-of-tree build, then the kit on it
# With BARE_FULL=1, README's second command (tests/run, the whole suite) runs there too; with
# BARE_KEEP=1 the root is left in place, mounted, for a look inside.
#   bare-debian.sh BUILD SRC
# The minbase root and the downloaded .deb files are cached in BUILD/bare-cache (as the VM test
# caches its kernel); the package lists are not, so every run starts with none, as a new machine
# does. Needs root, debootstrap and a reachable Debian mirror ($DLHAL_DEBIAN_MIRROR, default
# deb.debian.org); skipped (77) without root or inside such a root.
set -eu
build=$(cd "$1" && pwd) src=$(cd "$2" && pwd)
mirror=${DLHAL_DEBIAN_MIRROR:-http://deb.debian.org/debian}
cache=$build/bare-cache
pass=0
ok() { echo "ok - $1"; pass=$((pass + 1)); }
fail() {
	echo "not ok - $1"
	[ $# -gt 1 ] && printf '%s\n' "$2" > "$cache/failure.log" && printf '%s\n' "$2" | tail -n 40 | sed 's/^/# /' &&
		echo "# all of it: $cache/failure.log; the suite's logs, if it ran: $cache/logs"
	echo "$pass passed, 1 failed"
	exit 1
}

[ -n "${DLHAL_BARE_ROOT:-}" ] && { echo "skip: already inside a bare root"; exit 77; }
[ "$(id -u)" -eq 0 ] || { echo "skip: debootstrap and chroot need root"; exit 77; }
command -v debootstrap >/dev/null || fail "debootstrap is not installed (tools/debian-packages: test)"

# The block after "<!-- newcomer: NAME -->" in FILE, without its fences.
block() { # FILE NAME
	awk -v name="$2" '
		$0 == "<!-- newcomer: " name " -->" { want = 1; next }
		want && /^```/ { if (inside) exit; inside = 1; next }
		inside { print }' "$1"
}
quick=$(block "$src/README.md" quick-start)
lua=$(block "$src/README.md" lua)
install=$(block "$src/docs/driver-guide.md" driver-install)
[ -n "$quick" ] && [ -n "$lua" ] && [ -n "$install" ] ||
	fail "README.md or docs/driver-guide.md lost a <!-- newcomer: ... --> block"

mkdir -p "$cache/archives/partial"
base=$cache/bookworm-minbase.tar
if [ ! -f "$base" ]; then
	rm -rf "$cache/debootstrap"
	out=$(debootstrap --variant=minbase bookworm "$cache/debootstrap" "$mirror" 2>&1) ||
		fail "debootstrap --variant=minbase bookworm $mirror" "$out"
	tar -C "$cache/debootstrap" -cf "$base.new" . && mv "$base.new" "$base"
	rm -rf "$cache/debootstrap"
fi

rm -rf "$cache/logs" "$cache/failure.log"
root=$(mktemp -d "$cache/root.XXXXXX")
cleanup() {
	# What the suite inside logged, for a failure to be read after the root is gone.
	for d in "$root"/root/dlhal/build*/meson-logs; do
		[ -d "$d" ] && mkdir -p "$cache/logs" && cp -r "$d" "$cache/logs/$(basename "$(dirname "$d")")"
	done
	if [ "${BARE_KEEP:-0}" = 1 ]; then
		echo "# kept: $root (chroot into it; umount its proc, sys, dev/pts, dev, var/cache/apt/archives, then remove it)"
		return
	fi
	for m in var/cache/apt/archives dev/pts dev sys proc; do
		mountpoint -q "$root/$m" 2>/dev/null && umount -l "$root/$m"
	done
	rm -rf --one-file-system "$root"
}
trap cleanup EXIT
tar -C "$root" -xf "$base"
# What a new machine has and a chroot lacks: its kernel's file systems and a resolver. The
# downloaded packages are shared with later runs; what is installed is not.
mount -t proc proc "$root/proc"
mount -t sysfs sys "$root/sys"
mount --bind /dev "$root/dev"
mount --bind /dev/pts "$root/dev/pts"
mount --bind "$cache/archives" "$root/var/cache/apt/archives"
cp -L /etc/resolv.conf "$root/etc/resolv.conf"
# No package's service is started from the chroot (Debian's convention for chroots).
printf '#!/bin/sh\nexit 101\n' > "$root/usr/sbin/policy-rc.d"
chmod 755 "$root/usr/sbin/policy-rc.d"

# A clean export of the tree: the files git knows (tracked, or new and not ignored) as they are in
# the work tree; no build directory.
mkdir "$root/root/dlhal"
if git -C "$src" rev-parse --git-dir >/dev/null 2>&1; then
	git -C "$src" ls-files -z -co --exclude-standard | (cd "$src" && xargs -0 sh -c '
		for f; do [ -e "$f" ] && printf "%s\0" "$f"; done' sh) |
		tar -C "$src" --null -T - -cf - | tar -C "$root/root/dlhal" -xf -
else
	tar -C "$src" --exclude='./build*' -cf - . | tar -C "$root/root/dlhal" -xf -
fi

# As root on a fresh machine: a login shell's environment and nothing of ours.
in_root() { # DIR SCRIPT
	env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin HOME=/root TERM=dumb \
		DLHAL_BARE_ROOT=1 chroot "$root" /bin/sh -ec "cd $1
$2" 2>&1
}

first=$(printf "%s\n" "$quick" | sed -n "1s/ *#.*//p")
out=$(in_root /root/dlhal "$first") || fail "README's first command on a bare Debian 12: $first" "$out"
printf '%s\n' "$out" | grep -qx 'pci/0000:03:00.0/2: type eth netdev eth32 split_group 16' &&
	printf '%s\n' "$out" | grep -qx 'pci/0000:01:00.0/1: type eth(auto) netdev ens4' ||
	fail "the tour on a bare Debian 12 lacks the seed's split and eth(auto) lines" "$out"
printf '%s\n' "$out" | grep -q '^tools/deps.sh: installing .*meson' ||
	fail "the root was not bare: the tour installed nothing" "$out"
ok "README's first command ($first) installs what it lacks, builds and prints the seed's lines"

out=$(printf '%s\n' "$lua" | in_root /root/dlhal "meson devenv -C build lua5.4 -") ||
	fail "README's Lua example in meson devenv" "$out"
[ "$out" = 'pci/0000:03:00.0/1: type eth netdev eth0 split_group 16
pci/0000:03:00.0/2: type eth netdev eth32 split_group 16' ] ||
	fail "README's Lua example printed something else than the split ports" "$out"
ok "README's Lua example runs after meson devenv and prints the two split ports"

out=$(in_root /root/dlhal "$install") || fail "the driver guide's install and out-of-tree build" "$out"
printf '%s\n' "$out" | grep -q '^ok ' && ! printf '%s\n' "$out" | grep -q '^not ok ' ||
	fail "the driver guide's out-of-tree build: the kit did not pass" "$out"
ok "the driver guide's install, out-of-tree build and kit run as written"

if [ "${BARE_FULL:-0}" = 1 ]; then
	second=$(printf "%s\n" "$quick" | sed -n "2s/ *#.*//p")
	out=$(in_root /root/dlhal "$second") || fail "README's second command on a bare Debian 12: $second" "$out"
	printf '%s\n' "$out" | tail -n 1
	ok "README's second command ($second) installs what it lacks and passes"
fi
echo "$pass passed, 0 failed"
