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
	printf "| case | dl (ms) | devlink (ms) | dl / devlink |\n|---|---|---|---|\n"
	row("`-V` (process start only)", "start 1024")
	row("`dev show` (1024 ports)", "devs 1024")
	row("`port show eth512` from the kernel (1024 ports)", "one 1024")
	row("`port show eth512`: dl through a dlhald mirroring the kernel", "mirror 1024")
	for (n = 64; n <= 4096; n *= 4)
		row("`-j port show`, " n " ports", "dump " n)
	row("bridged split+unsplit pair (dl --kernel vs devlink, through dlhald)", "pair 64")
	row("bridged Spectrum `-j port show`: dlhald socket (dl) vs kernel (devlink)", "bridged 64")
	row("bridged SN5600 split by 8 in every cage and back: `dl --kernel apply` of a file vs 128 devlink commands", "board 512")
	row("bridged SN5600 split by 8, 513 ports, `-j port show` from the kernel", "dump513 513")
	row("the same, dl through dlhald's socket (devlink from the kernel)", "bdump513 513")
	row("`dl --kernel panel` of it (vs one `devlink port show`, a process's floor)", "panel513 513")
	printf "\nThe same with ASLR on (each run translates its code again: see tests/vm/bench.sh):\n\n"
	printf "| case | dl (ms) | devlink (ms) | dl / devlink |\n|---|---|---|---|\n"
	row("`-V` (process start only)", "start-aslr 1024")
	row("`dev show` (1024 ports)", "devs-aslr 1024")
	row("`port show eth512` from the kernel (1024 ports)", "one-aslr 1024")
	row("`port show eth512`: dl through a dlhald mirroring the kernel", "mirror-aslr 1024")
	row("`-j port show`, 1024 ports", "dump-aslr 1024")
	a = t["dump-aslr 1024 dl"] - t["start-aslr 1024 dl"]; b = t["dump-aslr 1024 devlink"] - t["start-aslr 1024 devlink"]
	printf "\nPer-port work at 1024 ports with ASLR on, (t(dump) - t(-V)) / 1024: dl %.1f µs, devlink %.1f µs (%.2f)\n", a * 1000 / 1024, b * 1000 / 1024, a / b
	if (("dump-aslr 4096 dl") in t) {
		a = (t["dump-aslr 4096 dl"] - t["dump-aslr 1024 dl"]) * 1000 / 3072
		b = (t["dump-aslr 4096 devlink"] - t["dump-aslr 1024 devlink"]) * 1000 / 3072
		printf "Each port added from 1024 to 4096 with ASLR on, (t(4096) - t(1024)) / 3072: dl %.1f µs, devlink %.1f µs (%.2f)\n", a, b, a / b
	}
	printf "\nPer-port work of the JSON dump, (t(dump) - t(-V)) / ports (-V timed next to each dump), and\n"
	printf "the cost of each port added from the size before, (t(n) - t(n/4)) / (n - n/4):\n\n"
	printf "| ports | dl (µs/port) | devlink (µs/port) | dl / devlink | dl, added (µs/port) | devlink, added (µs/port) |\n"
	printf "|---|---|---|---|---|---|\n"
	for (n = 64; n <= 4096; n *= 4) {
		a = (t["dump " n " dl"] - t["start " n " dl"]) * 1000 / n
		b = (t["dump " n " devlink"] - t["start " n " devlink"]) * 1000 / n
		if (n > 64) {
			m = n / 4
			da = sprintf("%.1f", (t["dump " n " dl"] - t["dump " m " dl"]) * 1000 / (n - m))
			db = sprintf("%.1f", (t["dump " n " devlink"] - t["dump " m " devlink"]) * 1000 / (n - m))
		} else {
			da = db = ""
		}
		printf "| %d | %.1f | %.1f | %.2f | %s | %s |\n", n, a, b, a / b, da, db
	}
}
function row(name, key) {
	if ((key " dl") in t)
		printf "| %s | %.1f | %.1f | %.2f |\n", name, t[key " dl"], t[key " devlink"], t[key " dl"] / t[key " devlink"]
}'
echo
echo "Reproduce: bench/kernel-vm.sh $build"
