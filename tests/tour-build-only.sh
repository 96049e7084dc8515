#!/bin/sh
# The README's first command with the "build" packages only (issue 19): the tour configured without
# Criterion (the real pkg-config and meson, searching a copy of the system's .pc files less
# criterion.pc) builds without the test suite and prints the seed's lines; with a library missing
# (jansson.pc removed too) it fails and says why, meson's own words included.
set -u
src=$1
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
pass=0 fail=0
ok() { echo "ok - $1"; pass=$((pass + 1)); }
nok() { echo "not ok - $1: $2"; fail=$((fail + 1)); }
mkdir "$T/pc"
for d in $(pkg-config --variable pc_path pkg-config | tr : ' '); do
	[ -d "$d" ] && cp -L "$d"/*.pc "$T/pc/" 2> /dev/null
done
rm -f "$T/pc/criterion.pc"
out=$(BUILD="$T/b" PKG_CONFIG_LIBDIR="$T/pc" sh "$src/tools/tour.sh" 2>&1)
rc=$?
if [ $rc = 0 ] && printf '%s\n' "$out" | grep -q '^pci/0000:03:00.0/2: type eth netdev eth32 split_group 16$' &&
	printf '%s\n' "$out" | grep -q 'type eth(auto) netdev ens4' && [ ! -d "$T/b/tests" ]; then
	ok "the tour builds without Criterion (no test suite) and prints the seed's split and eth(auto) lines"
else
	nok "the tour without Criterion" "rc=$rc $(printf '%s\n' "$out" | tail -n 8)"
fi
rm -f "$T/pc/jansson.pc"
out=$(BUILD="$T/c" PKG_CONFIG_LIBDIR="$T/pc" sh "$src/tools/tour.sh" 2>&1)
rc=$?
if [ $rc != 0 ] && printf '%s\n' "$out" | grep -q 'jansson' && printf '%s\n' "$out" | grep -q '^tools/tour.sh: failed: meson setup'; then
	ok "a tour whose build cannot be configured says why ($(printf '%s\n' "$out" | grep -m 1 -i 'dependency'))"
else
	nok "a failing tour says why" "rc=$rc $(printf '%s\n' "$out" | tail -n 5)"
fi
echo "$pass passed, $fail failed"
[ $fail = 0 ]
