#!/bin/sh
# Times dl against Debian's devlink in one VM run (tests/vm/bench.sh), on
# netdevsim devices of 64, 256, 1024 and 4096 ports: the full JSON port dump,
# one port by netdev name (from the kernel, and from a dlhald mirroring it),
# dev show, and process start; medians of RUNS runs each, alternated.
# Prints the tables docs/benchmarks.md keeps.
#   bench/kernel-vm.sh [BUILD]      (BUILD defaults to ./build, built first)
set -eu
cd "$(dirname "$0")/.."
build=${1:-build}
[ -f "$build/build.ninja" ] || meson setup "$build" >/dev/null
meson compile -C "$build" >/dev/null
out=$(tests/vm/run.sh "$build" . "$build/tools/dl/dl" "$build/tests/jsoncmp" "$build/tests/timeit" bench)
echo "$out" | grep -q '^BENCH ' || { echo "$out"; exit 1; }
echo "$out" | grep -E '^(SAME|DIFFERENT) ' | awk '{ printf "JSON of %s ports: %s bytes as devlink'"'"'s\n", $2, $1 == "SAME" ? "the same" : "NOT the same" }'
echo
echo "$out" | awk '
/^BENCH /{ t[$2 " " $3 " dl"] = $4 / 1000; t[$2 " " $3 " devlink"] = $5 / 1000 }
END {
	s1 = t["start 0 dl"]; s2 = t["start 0 devlink"]
	printf "| case | dl (ms) | devlink (ms) | dl / devlink |\n|---|---|---|---|\n"
	row("`-V` (process start only)", "start 0")
	row("`dev show` (1024 ports)", "devs 1024")
	row("`port show eth512` from the kernel (1024 ports)", "one 1024")
	row("`port show eth512`: dl through a dlhald mirroring the kernel", "mirror 1024")
	for (n = 64; n <= 4096; n *= 4)
		row("`-j port show`, " n " ports", "dump " n)
	row("bridged split+unsplit pair (dl --kernel vs devlink, through dlhald)", "pair 64")
	row("bridged Spectrum `-j port show`: dlhald socket (dl) vs kernel (devlink)", "bridged 64")
	printf "\nPer-port work of the JSON dump, (t(dump) - t(-V)) / ports:\n\n"
	printf "| ports | dl (µs/port) | devlink (µs/port) | dl / devlink |\n|---|---|---|---|\n"
	for (n = 64; n <= 4096; n *= 4) {
		a = (t["dump " n " dl"] - s1) * 1000 / n; b = (t["dump " n " devlink"] - s2) * 1000 / n
		printf "| %d | %.1f | %.1f | %.2f |\n", n, a, b, a / b
	}
}
function row(name, key) {
	if ((key " dl") in t)
		printf "| %s | %.1f | %.1f | %.2f |\n", name, t[key " dl"], t[key " devlink"], t[key " dl"] / t[key " devlink"]
}'
echo
echo "Reproduce: bench/kernel-vm.sh $build"
