#!/bin/sh
# kernel/bridge and its message header in the kernel's style: checkpatch.pl
# --strict from Debian's linux-source-6.1, no error, warning or check.
set -u
src=$1
tar=/usr/src/linux-source-6.1.tar.xz
[ -f "$tar" ] || { echo "not ok: $tar missing (apt-get install linux-source-6.1)"; echo "0 passed, 1 failed"; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
tar -xf "$tar" -C "$tmp" linux-source-6.1/scripts/checkpatch.pl linux-source-6.1/scripts/spelling.txt \
	linux-source-6.1/scripts/const_structs.checkpatch
pass=0 fail=0
for f in "$src"/kernel/bridge/*.c "$src/include/dlhal/bridge.h"; do
	out=$(cd "$tmp/linux-source-6.1" && perl scripts/checkpatch.pl --no-tree --strict --show-types -f "$f" 2>&1)
	if printf '%s\n' "$out" | grep -q '^total: 0 errors, 0 warnings, 0 checks'; then
		pass=$((pass + 1))
	else
		fail=$((fail + 1))
		printf 'not ok checkpatch %s\n%s\n' "$f" "$out"
	fi
done
echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
