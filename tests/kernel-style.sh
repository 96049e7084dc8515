#!/bin/sh
# kernel/bridge and its message header in the kernel's style: checkpatch.pl
# --strict from each kernel source dlhal builds against (Debian's
# linux-source-6.1 and linux-source-6.12), no error, warning or check.
#   kernel-style.sh SRC [CACHE]
# CACHE keeps the three files taken from each tarball (whose whole xz stream
# must be read to reach them: some 12 s a kernel), keyed by the tarball's size
# and time, so that a second build directory's run does not pay it again.
set -u
src=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cache=${2:-$tmp}
pass=0 fail=0
for v in 6.1 6.12; do
	tar=/usr/src/linux-source-$v.tar.xz
	if [ ! -f "$tar" ]; then
		echo "not ok: $tar missing (apt-get install linux-source-$v)"
		fail=$((fail + 1))
		continue
	fi
	key=$(stat -c '%s %Y' "$tar")
	if [ "$(cat "$cache/linux-source-$v.key" 2>/dev/null)" != "$key" ]; then
		mkdir -p "$cache"
		rm -rf "$cache/linux-source-$v"
		tar -xf "$tar" -C "$cache" linux-source-$v/scripts/checkpatch.pl linux-source-$v/scripts/spelling.txt \
			linux-source-$v/scripts/const_structs.checkpatch && echo "$key" > "$cache/linux-source-$v.key"
	fi
	for f in "$src"/kernel/bridge/*.c "$src"/kernel/bridge/*.h "$src/include/dlhal/bridge.h"; do
		out=$(cd "$cache/linux-source-$v" && perl scripts/checkpatch.pl --no-tree --strict --show-types -f "$f" 2>&1)
		if printf '%s\n' "$out" | grep -q '^total: 0 errors, 0 warnings, 0 checks'; then
			pass=$((pass + 1))
		else
			fail=$((fail + 1))
			printf 'not ok checkpatch (%s) %s\n%s\n' "$v" "$f" "$out"
		fi
	done
done
echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
