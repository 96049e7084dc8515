#!/bin/sh
# Builds dlhal and runs the tour: seed 001's two walkthroughs on the embedded
# default (emulated ConnectX-3 and Spectrum), printing each command and its output.
set -eu
cd "$(dirname "$0")/.."
tools/deps.sh build
build=${BUILD:-build}
[ -f "$build/build.ninja" ] || meson setup "$build" >/dev/null
meson compile -C "$build" >/dev/null
exec "$build/tools/dl/dl" -v --sim cx3-vpi,sn2700 -b tools/dl/tour.dl
