#!/bin/sh
# Runs inside the test VM: dl against iproute2's devlink on a 1024-port
# netdevsim device; prints one "BENCH name dl_us devlink_us" line per case,
# the median wall-clock time of RUNS runs of each whole command, alternated.
RUNS=61
echo "12 1024" > /sys/bus/netdevsim/new_device
i=0
until [ "$(devlink port show 2>/dev/null | grep -c '^netdevsim/netdevsim12/')" = 1024 ]; do
	i=$((i + 1)); [ $i -gt 600 ] && { echo "not ok bench: no ports"; exit 1; }; sleep 0.1
done
for case in "dump:-j port show" "one:port show eth512" "devs:dev show" "start:-V"; do
	name=${case%%:*} args=${case#*:}
	echo "BENCH $name $(timeit $RUNS dl $args ::: devlink $args)"
done
echo "1 passed, 0 failed"
