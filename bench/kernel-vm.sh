#!/bin/sh
# Times dl against Debian's devlink on a 1024-port netdevsim device, in one VM
# run (tests/vm/bench.sh): the full JSON port dump and one port by netdev name,
# median of RUNS runs each. Prints a table; the numbers go in docs/benchmarks.md.
#   bench/kernel-vm.sh [BUILD]      (BUILD defaults to ./build, built first)
set -eu
cd "$(dirname "$0")/.."
build=${1:-build}
[ -f "$build/build.ninja" ] || meson setup "$build" >/dev/null
meson compile -C "$build" >/dev/null
out=$(tests/vm/run.sh "$build" . "$build/tools/dl/dl" "$build/tests/jsoncmp" "$build/tests/timeit" bench)
echo "$out" | grep -q '^BENCH ' || { echo "$out"; exit 1; }
printf '| case | dl (ms) | devlink (ms) | dl / devlink |\n|---|---|---|---|\n'
echo "$out" | awk '/^BENCH /{
	name = $2 == "dump" ? "`-j port show`, 1024 ports" : $2 == "one" ? "`port show eth512`" : $2 == "devs" ? "`dev show`" : $2 == "pair" ? "bridged split+unsplit pair (dl --kernel vs devlink, through dlhald)" : $2 == "bridged" ? "bridged Spectrum `-j port show`: dlhald socket (dl) vs kernel (devlink)" : "`-V` (process start only)"
	printf "| %s | %.1f | %.1f | %.2f |\n", name, $3 / 1000, $4 / 1000, $3 / $4 }'
echo
echo "Reproduce: bench/kernel-vm.sh $build"
