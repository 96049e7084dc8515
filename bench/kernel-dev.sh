#!/bin/sh
# "dl port show DEV" for one device of 16 x 256 netdevsim ports, against
# Debian's devlink, on each kernel dlhal supports (tests/vm/bench-dev.sh in
# the VM): from Linux 6.6 the kernel dumps one device's ports, before dl
# reads every port as devlink does. Prints the table docs/benchmarks.md keeps.
#   bench/kernel-dev.sh [BUILD]      (BUILD defaults to ./build, built first)
set -eu
cd "$(dirname "$0")/.."
build=${1:-build}
[ -f "$build/build.ninja" ] || meson setup "$build" >/dev/null
meson compile -C "$build" >/dev/null
printf '| kernel | case | dl (ms) | devlink (ms) | dl / devlink |\n|---|---|---|---|---|\n'
for k in 6.1 6.12; do
	out=$(tests/vm/run.sh --kernel $k "$build" . "$build/tools/dl/dl" "$build/tests/jsoncmp" "$build/tests/timeit" \
		tests/vm/bench-dev.sh)
	echo "$out" | grep -q '^BENCH ' || { echo "$out"; exit 1; }
	echo "$out" | grep -q '^SAME ' || { echo "$k: dl's lines differ from devlink's"; exit 1; }
	# (one expression per line: mawk, Debian's awk, takes no line break inside a ?: chain)
	echo "$out" | awk -v k="$(echo "$out" | sed -n 's/^KERNEL //p')" '
	BEGIN {
		name["dev"] = "`port show DEV` (256 of 4096 ports)"; name["all"] = "`port show` (4096 ports)"
		name["dev-aslr"] = "`port show DEV`, ASLR on"; name["all-aslr"] = "`port show`, ASLR on"
	}
	/^BENCH / { printf "| %s | %s | %.1f | %.1f | %.2f |\n", k, name[$2], $3 / 1000, $4 / 1000, $3 / $4 }'
done
