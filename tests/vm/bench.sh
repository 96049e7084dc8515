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
# The bridge (kernel/bridge + dlhald --kernel-bridge): a split+unsplit pair through the kernel with
# devlink and with dl --kernel, and the bridged device's JSON dump from the kernel and from dlhald.
echo 12 > /sys/bus/netdevsim/del_device
dlhald -f -s /tmp/b.sock --sim sn2700 --kernel-bridge > /tmp/bd.log 2>&1 &
bd=$!
i=0
until devlink dev show 2> /dev/null | grep -q '^dlhal/0000:03:00.0$'; do
	i=$((i + 1)); [ $i -gt 100 ] && { echo "not ok bench: no bridge"; cat /tmp/bd.log; exit 1; }; sleep 0.1
done
P=dlhal/0000:03:00.0/1
echo "BENCH pair $(timeit $RUNS sh -c "dl --kernel port split $P 2 && dl --kernel port unsplit $P" ::: \
	sh -c "devlink port split $P count 2 && devlink port unsplit $P")"
echo "BENCH bridged $(timeit $RUNS dl -s /tmp/b.sock -j port show ::: devlink -j port show)"
kill $bd; wait $bd
echo "1 passed, 0 failed"
