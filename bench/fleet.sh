#!/bin/sh
# The Ansible rollout's time a host (docs/fleet.md): N hosts (default 16, then 64), each with its own
# dlhald --sim sn2700, the dlhal.devlink.ports module in batches of 4 (serial), four runs: --check,
# for real, again, once more. Prints numbers and the command; asserts nothing.
#   bench/fleet.sh [BUILD] [N...]
set -eu
cd "$(dirname "$0")/.."
build=${1:-build}
[ $# -gt 0 ] && shift
[ $# -gt 0 ] || set -- 16 64
for n in "$@"; do
	tests/ansible.sh "$build" . --bench "$n"
done
