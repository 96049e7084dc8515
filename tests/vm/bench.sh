#!/bin/sh
# Runs inside the test VM: dl against iproute2's devlink on netdevsim devices
# of 64, 256, 1024 and 4096 ports; prints one "BENCH case ports dl_us
# devlink_us" line per case, the median wall-clock time of RUNS runs of each
# whole command, the two alternated. bench/kernel-vm.sh makes the table.
RUNS=${RUNS:-61}
# ASLR off: QEMU 7.2's TCG keys its translations by virtual address, so with
# ASLR every run translates again every block it executes, and the time
# measures how much code a run touches rather than the work it does (process
# start drops from ~27 ms to ~5 ms without it). On hardware nothing is
# translated. The same cases with ASLR on are timed too ("-aslr").
echo 0 > /proc/sys/kernel/randomize_va_space

nsim_ports() { # N: a fresh netdevsim12 with N ports, and their netdevs
	[ -e /sys/bus/netdevsim/devices/netdevsim12 ] && echo 12 > /sys/bus/netdevsim/del_device
	echo "12 $1" > /sys/bus/netdevsim/new_device
	i=0
	until [ "$(devlink port show 2>/dev/null | grep -c '^netdevsim/netdevsim12/')" = "$1" ] &&
		[ -e /sys/class/net/eth$(($1 - 1)) ]; do
		i=$((i + 1)); [ $i -gt 1200 ] && { echo "not ok bench: no ports"; exit 1; }; sleep 0.1
	done
}

for n in 64 256 1024 4096; do
	nsim_ports $n
	dl -j port show > /tmp/dl.json; devlink -j port show > /tmp/devlink.json
	cmp -s /tmp/dl.json /tmp/devlink.json && echo "SAME $n" || echo "DIFFERENT $n"
	# Warm up (the first runs translate the code), then process start and the dump side by side.
	timeit 5 dl -j port show ::: devlink -j port show > /dev/null
	echo "BENCH start $n $(timeit $RUNS dl -V ::: devlink -V)"
	echo "BENCH dump $n $(timeit $RUNS dl -j port show ::: devlink -j port show)"
	if [ $n = 1024 ]; then
		one=eth$((n / 2))
		echo "BENCH one $n $(timeit $RUNS dl port show $one ::: devlink port show $one)"
		echo "BENCH devs $n $(timeit $RUNS dl dev show ::: devlink dev show)"
		# A dlhald mirroring the kernel (kept current by its notifications): one request, no dump.
		dlhald -f -s /tmp/k.sock --kernel > /tmp/kd.log 2>&1 &
		kd=$!
		i=0
		until dl -s /tmp/k.sock port show $one > /dev/null 2>&1; do
			i=$((i + 1)); [ $i -gt 100 ] && { echo "not ok bench: no dlhald"; cat /tmp/kd.log; exit 1; }; sleep 0.1
		done
		echo "BENCH mirror $n $(timeit $RUNS dl -s /tmp/k.sock port show $one ::: devlink port show $one)"
		echo 2 > /proc/sys/kernel/randomize_va_space
		echo "BENCH start-aslr $n $(timeit $RUNS dl -V ::: devlink -V)"
		echo "BENCH dump-aslr $n $(timeit $RUNS dl -j port show ::: devlink -j port show)"
		echo "BENCH one-aslr $n $(timeit $RUNS dl port show $one ::: devlink port show $one)"
		echo "BENCH mirror-aslr $n $(timeit $RUNS dl -s /tmp/k.sock port show $one ::: devlink port show $one)"
		echo "BENCH devs-aslr $n $(timeit $RUNS dl dev show ::: devlink dev show)"
		echo 0 > /proc/sys/kernel/randomize_va_space
		kill $kd; wait $kd
	fi
	# With ASLR on, "dump minus -V" holds every block of code the dump runs and the start does not,
	# translated once per run: a fixed cost, not per port. The cost of a port added, 1024 to 4096,
	# is the per-port figure there.
	if [ $n = 4096 ]; then
		echo 2 > /proc/sys/kernel/randomize_va_space
		echo "BENCH dump-aslr $n $(timeit $RUNS dl -j port show ::: devlink -j port show)"
		echo 0 > /proc/sys/kernel/randomize_va_space
	fi
done
echo 12 > /sys/bus/netdevsim/del_device
# The bridge (kernel/bridge + dlhald --kernel-bridge): a split+unsplit pair through the kernel with
# devlink and with dl --kernel, and the bridged device's JSON dump from the kernel and from dlhald.
dlhald -f -s /tmp/b.sock --sim sn2700 --kernel-bridge > /tmp/bd.log 2>&1 &
bd=$!
i=0
until devlink dev show 2> /dev/null | grep -q '^dlhal/0000:03:00.0$'; do
	i=$((i + 1)); [ $i -gt 100 ] && { echo "not ok bench: no bridge"; cat /tmp/bd.log; exit 1; }; sleep 0.1
done
P=dlhal/0000:03:00.0/1
echo "BENCH pair 64 $(timeit $RUNS sh -c "dl --kernel port split $P 2 && dl --kernel port unsplit $P" ::: \
	sh -c "devlink port split $P count 2 && devlink port unsplit $P")"
echo "BENCH bridged 64 $(timeit $RUNS dl -s /tmp/b.sock -j port show ::: devlink -j port show)"
kill $bd; wait $bd
# Today's largest board (issue 43): an SN5600 bridged as mlxsw_spectrum4, split by 8 in every cage and
# back (512 ports): dl --kernel apply of a whole-board file (each step planned, then done) against 64
# devlink commands each way; then its 513-port JSON dump from the kernel and from dlhald, and dl's panel.
dlhald -f -s /tmp/b5.sock --sim sn5600 --kernel-bridge > /tmp/b5.log 2>&1 &
b5=$!
S=dlhal/0000:0c:00.0
i=0
until [ "$(devlink port show 2> /dev/null | grep -c "^$S/")" = 65 ]; do
	i=$((i + 1)); [ $i -gt 300 ] && { echo "not ok bench: no SN5600"; cat /tmp/b5.log; exit 1; }; sleep 0.1
done
: > /tmp/split8.conf; : > /tmp/whole.conf; : > /tmp/dsplit.sh
i=0
while [ $i -lt 64 ]; do
	i=$((i + 1))
	printf '[Match]\nDevice=%s\nNumber=%d\n[Port]\nSplit=8\n\n' $S $i >> /tmp/split8.conf
	printf '[Match]\nDevice=%s\nNumber=%d\n[Port]\nSplit=1\n\n' $S $i >> /tmp/whole.conf
	echo "devlink port split $S/$((8 * i - 7)) count 8" >> /tmp/dsplit.sh
done
i=0
while [ $i -lt 64 ]; do i=$((i + 1)); echo "devlink port unsplit $S/$((8 * i))" >> /tmp/dsplit.sh; done
echo "BENCH board 512 $(timeit ${BOARD_RUNS:-5} sh -c "dl --kernel apply /tmp/split8.conf > /dev/null &&
	dl --kernel apply /tmp/whole.conf > /dev/null" ::: sh /tmp/dsplit.sh)"
dl --kernel apply /tmp/split8.conf > /dev/null
[ "$(devlink port show | grep -c "^$S/")" = 513 ] || echo "not ok bench: the SN5600 is not split by 8"
echo "BENCH dump513 513 $(timeit $RUNS dl --kernel -j port show ::: devlink -j port show)"
echo "BENCH bdump513 513 $(timeit $RUNS dl -s /tmp/b5.sock -j port show ::: devlink -j port show)"
echo "BENCH panel513 513 $(timeit $RUNS dl --kernel panel $S ::: devlink port show $S/1)"
dl --kernel apply /tmp/whole.conf > /dev/null
kill $b5; wait $b5
echo "1 passed, 0 failed"
