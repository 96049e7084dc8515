#!/bin/sh
# Instructions per port of "dl -j port show" (the kernel backend's parsing,
# the model, the JSON output) on the kernel's own dump of a 4096-port
# netdevsim device, recorded once in the test VM (bench/nlrecord) and served
# by bench-replay over dlhald's protocol: no kernel, no VM, deterministic
# counts (valgrind), so CI shows a regression in every run.
#   bench/replay.sh [BUILD] [COMMAND...]   (BUILD defaults to ./build; COMMAND
#                                           defaults to "-j port show")
# Per port: (I(N) - I(0)) / N, where I(0) is the same command with no ports.
set -eu
cd "$(dirname "$0")/.."
build=${1:-build}
[ $# -gt 0 ] && shift
[ $# -gt 0 ] || set -- -j port show
[ -f "$build/build.ninja" ] || meson setup "$build" >/dev/null
meson compile -C "$build" >/dev/null
command -v valgrind >/dev/null || { echo "bench/replay.sh: valgrind is not installed" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
gzip -dc bench/data/netdevsim-4096.nl.gz > "$tmp/dump.nl"

# Instructions dl executes for COMMAND against a replay of the first N ports.
irefs() { # (run in $(...): a subshell, which stops its server however it ends)
	n=$1
	shift
	"$build/bench/bench-replay" "$tmp/s$n" "$tmp/dump.nl" "$n" >/dev/null &
	srv=$!
	trap 'kill $srv 2>/dev/null || true' EXIT
	i=0
	until [ -S "$tmp/s$n" ]; do i=$((i + 1)); [ $i -lt 100 ] || exit 1; sleep 0.05; done
	"$build/tools/dl/dl" -s "$tmp/s$n" "$@" > "$tmp/out$n" || { echo "bench/replay.sh: dl failed" >&2; exit 1; }
	valgrind --tool=cachegrind --cache-sim=no --cachegrind-out-file=/dev/null \
		"$build/tools/dl/dl" -s "$tmp/s$n" "$@" 2>&1 >/dev/null | awk '/I *refs:/{ gsub(",", "", $NF); print $NF }'
}

base=$(irefs 0 "$@")
printf '| ports | instructions | per port |\n|---|---|---|\n'
printf '| 0 | %s | |\n' "$base"
for ports in 64 256 1024 4096; do
	i=$(irefs $ports "$@")
	printf '| %s | %s | %s |\n' "$ports" "$i" "$(( (i - base) / ports ))"
done
echo
echo "Reproduce: bench/replay.sh $build $*"
