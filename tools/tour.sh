#!/bin/sh
# Builds dlhal and runs the tour: seed 001's two walkthroughs on the embedded
# default (emulated ConnectX-3 and Spectrum), printing each command and its output.
set -eu
cd "$(dirname "$0")/.."
tools/deps.sh build
build=${BUILD:-build}
# Quiet when it works; the failing command's own output when it does not.
quiet() {
	out=$("$@" 2>&1) || {
		printf '%s\n' "$out" | tail -n 30 >&2
		echo "tools/tour.sh: failed: $*" >&2
		exit 1
	}
}
[ -f "$build/build.ninja" ] || quiet meson setup "$build"
quiet meson compile -C "$build"
exec "$build/tools/dl/dl" -v --sim cx3-vpi,sn2700 -b tools/dl/tour.dl
