#!/bin/sh
# Runs inside the test VM (bench/kernel-dev.sh): 16 netdevsim devices of 256
# ports, and "dl port show DEV" for one of them against iproute2's devlink.
# Debian 12's devlink (iproute2 6.1) shows one port or every port, so its
# answer for a device is "devlink port show" (grep then keeps the device's).
# Prints "BENCH case dl_us devlink_us" lines: medians of RUNS runs, alternated,
# with ASLR off, then on (see bench.sh for why both).
RUNS=${RUNS:-31}
echo 0 > /proc/sys/kernel/randomize_va_space
for id in $(seq 20 35); do echo "$id 256" > /sys/bus/netdevsim/new_device; done
i=0
until [ "$(devlink port show 2>/dev/null | grep -c '^netdevsim/netdevsim')" = 4096 ]; do
	i=$((i + 1)); [ $i -gt 1800 ] && { echo "not ok bench: no ports"; exit 1; }; sleep 0.1
done
D=netdevsim/netdevsim27
dl port show $D > /tmp/a; devlink port show | grep "^$D/" | sed "s/ flavour .*//" > /tmp/b
cmp -s /tmp/a /tmp/b && echo "SAME $(wc -l < /tmp/a)" || echo "DIFFERENT $(wc -l < /tmp/a)"
echo "KERNEL $(uname -r)"
timeit 5 dl port show $D ::: devlink port show > /dev/null
echo "BENCH dev $(timeit $RUNS dl port show $D ::: devlink port show)"
echo "BENCH all $(timeit $RUNS dl port show ::: devlink port show)"
echo 2 > /proc/sys/kernel/randomize_va_space
echo "BENCH dev-aslr $(timeit $RUNS dl port show $D ::: devlink port show)"
echo "BENCH all-aslr $(timeit $RUNS dl port show ::: devlink port show)"
echo "1 passed, 0 failed"
