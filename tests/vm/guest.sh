#!/bin/sh
# Runs inside the test VM as root, after init loaded netdevsim: dl against the
# real kernel devlink family, with Debian's devlink as the independent peer.
# Prints "ok NAME" or "not ok NAME: why" per test, then "N passed, M failed".
pass=0 fail=0
ok() { echo "ok $1"; pass=$((pass + 1)); }
nok() { echo "not ok $1: $2"; fail=$((fail + 1)); }
T=/tmp/t
mkdir -p $T

desired_until() { # FILE LOG WORDS: dlhald --kernel --desired FILE, logging to LOG until WORDS are in it (10 s)
	: > "$2" # emptied before the job runs: an earlier log's WORDS would end the wait at once
	dlhald -f -s $T/desired.sock --kernel --desired "$1" > "$2" 2>&1 &
	du=$!
	i=0; until grep -q "$3" "$2"; do i=$((i + 1)); [ $i -gt 100 ] && break; sleep 0.1; done
	kill $du; wait $du 2> /dev/null
}

nsim_dev() { # id ports
	echo "$1 $2" > /sys/bus/netdevsim/new_device || return 1
	i=0
	until [ "$(devlink port show 2>/dev/null | grep -c "^netdevsim/netdevsim$1/")" = "$2" ]; do
		i=$((i + 1)); [ $i -gt 600 ] && return 1; sleep 0.1
	done
}

for spec in "10 1" "11 4" "12 1024"; do
	set -- $spec
	nsim_dev "$1" "$2" || nok "create netdevsim$1" "no $2 ports after 60 s"
done

# --- differential: the same ports and values as iproute2 --------------------------------------
# -j: exactly iproute2's keys and values; dl -j -d: every key of devlink's most detailed output
# (iproute2 6.1's devlink has no -d: -v is its detail flag), plus dl's "dlhal" object only.
for d in "" "-d"; do
	dl -j $d port show > $T/dl.json 2> $T/dl.err
	devlink -j ${d:+-v} port show > $T/devlink.json 2> $T/devlink.err
	if jsoncmp $T/dl.json $T/devlink.json 2> $T/cmp.err && { [ -n "$d" ] || ! grep -q '"dlhal"' $T/dl.json; }; then
		ok "port dump -j $d of 1, 4 and 1024 ports matches devlink ($(grep -o 'netdevsim/netdevsim[0-9]*/[0-9]*' $T/devlink.json | wc -l) ports)"
	else
		nok "port dump -j $d matches devlink" "$(head -5 $T/cmp.err; cat $T/dl.err)"
	fi
done
for p in netdevsim/netdevsim11/2 eth0; do
	dl -j port show $p > $T/one.json && devlink -j port show $p > $T/one-dl.json
	if jsoncmp $T/one.json $T/one-dl.json 2> $T/cmp.err; then ok "port show $p matches devlink"
	else nok "port show $p matches devlink" "$(head -3 $T/cmp.err)"; fi
done
# What each device reports of itself (issue 30: what recognises a vendor's device): the driver and
# versions as devlink prints them, text and JSON, every device and one.
for w in "" netdevsim/netdevsim11; do
	for j in "" -j; do
		dl $j dev info $w > $T/info.dl 2>&1; devlink $j dev info $w > $T/info.devlink 2>&1
		if cmp -s $T/info.dl $T/info.devlink && grep -q "netdevsim" $T/info.dl; then
			ok "dev info $j ${w:-(every device)}: devlink's bytes ($(grep -c . $T/info.dl) lines)"
		else
			nok "dev info $j ${w:-(every device)}" "$(diff $T/info.devlink $T/info.dl | head -c 400)"
		fi
	done
done
# Byte for byte: iproute2's compact JSON, and its text line.
dl -j port show > $T/dl.json; devlink -j port show > $T/devlink.json
if cmp -s $T/dl.json $T/devlink.json; then ok "port dump -j: the same bytes as devlink's"
else nok "port dump -j: the same bytes as devlink's" "$(cmp $T/dl.json $T/devlink.json)"; fi
# One port by netdev name reads only up to it (Linux 6.1 has no lookup by name); a listing
# after that lookup, in the same process, is still in the kernel's order (the port found
# first, on the last device, takes its place).
far=$(devlink port show netdevsim/netdevsim12/600 | sed -n 's/.* netdev \([^ ]*\).*/\1/p')
printf 'port show %s\nport show\n' "$far" | dl -j -b - > $T/batch.json
devlink -j port show "$far" > $T/one-dl.json
if [ -n "$far" ] && cat $T/one-dl.json $T/devlink.json | cmp -s - $T/batch.json; then
	ok "port show $far, then the listing: devlink's bytes, in its order"
else
	nok "port show $far, then the listing" "$(head -c 300 $T/batch.json)"
fi
dl port show ethnone > /dev/null 2> $T/e1; r1=$?
if [ $r1 = 2 ] && grep -q "ethnone: No port has this netdev" $T/e1; then ok "unknown netdev: usage error, named"
else nok "unknown netdev" "$r1 $(cat $T/e1)"; fi
dl dev show | sort > $T/dl.dev
devlink dev show | sort > $T/devlink.dev
if [ -s $T/dl.dev ] && cmp -s $T/dl.dev $T/devlink.dev; then ok "dev show lists the same handles"
else nok "dev show lists the same handles" "$(cat $T/dl.dev) vs $(cat $T/devlink.dev)"; fi
# the driver is the kernel's driver (devlink dev info's), the kernel the backend
dl -d dev show netdevsim/netdevsim10 > $T/ddrv 2>&1
kdrv=$(devlink dev info netdevsim/netdevsim10 | sed -n 's/^ *driver \([^ ]*\).*/\1/p')
if [ -n "$kdrv" ] && grep -qx "netdevsim/netdevsim10: driver $kdrv backend kernel" $T/ddrv; then
	ok "dev show -d: driver $kdrv as devlink dev info says, backend kernel"
else
	nok "the kernel driver's name" "$kdrv / $(cat $T/ddrv)"
fi
# no vendor's rules stand for netdevsim: its plans are partial, and dev show -d says why
if grep -qx "  plans partial: no profile stands for driver netdevsim" $T/ddrv; then
	ok "dev show -d: netdevsim's plans partial, no profile standing for its driver"
else
	nok "plans of an unknown driver" "$(cat $T/ddrv)"
fi
# text lines: handle, type and netdev as devlink prints them
dl port show netdevsim/netdevsim10/0 > $T/line
case "$(cat $T/line)" in
"netdevsim/netdevsim10/0: type eth netdev "*) ok "text port line" ;;
*) nok "text port line" "$(cat $T/line)" ;;
esac

# --- one device: its ports read alone where the kernel can (a port dump of one device, 6.6 on), with
# every port before; the same lines either way (iproute2 6.1's devlink shows one port or all of them)
for d in netdevsim/netdevsim10 netdevsim/netdevsim11 netdevsim/netdevsim12; do
	dl port show $d > $T/devp 2> $T/devp.err
	devlink port show | grep "^$d/" | sed 's/ flavour .*//' > $T/devp-dl # dl's line: handle, type, netdev
	if [ -s $T/devp ] && cmp -s $T/devp $T/devp-dl; then ok "port show $d: devlink's $(wc -l < $T/devp) lines"
	else nok "port show $d" "$(diff $T/devp $T/devp-dl | head -n 4; cat $T/devp.err)"; fi
done
printf 'port show netdevsim/netdevsim11\nport show\n' | dl -b - > $T/devb
{ devlink port show | grep '^netdevsim/netdevsim11/'; devlink port show; } | sed 's/ flavour .*//' > $T/devb-dl
if cmp -s $T/devb $T/devb-dl; then ok "one device's ports, then every port, in one process: devlink's order"
else nok "one device, then every port" "$(diff $T/devb $T/devb-dl | head -n 4)"; fi

# --- operations the device lacks: the kernel's errno and message, unchanged ------------------
same_error() { # name, dl args..., --, devlink args...
	name=$1; shift
	dlargs=""; while [ "$1" != "--" ]; do dlargs="$dlargs $1"; shift; done; shift
	dl $dlargs > /dev/null 2> $T/e1; r1=$?
	devlink "$@" > /dev/null 2> $T/e2; r2=$?
	want=$(sed -n 's/^Error: \(.*\)/\1/p' $T/e2 | sed 's/\.$//')
	errno=$(sed -n 's/^\(devlink\|kernel\) answers: //p' $T/e2)
	if [ $r1 = 1 ] && [ $r2 != 0 ] && grep -q "dl answers: $errno" $T/e1 &&
		{ [ -z "$want" ] || grep -q "$want" $T/e1; } &&
		{ [ -n "$want" ] || ! grep -q "^Error:" $T/e1; }; then
		ok "$name: $errno${want:+ ($want)}"
	else
		nok "$name" "dl($r1): $(cat $T/e1) / devlink($r2): $(cat $T/e2)"
	fi
}
same_error "split" port split netdevsim/netdevsim11/0 2 -- port split netdevsim/netdevsim11/0 count 2
same_error "unsplit" port unsplit netdevsim/netdevsim11/1 -- port unsplit netdevsim/netdevsim11/1
same_error "type set" port set netdevsim/netdevsim11/2 type ib -- port set netdevsim/netdevsim11/2 type ib
if dl port show netdevsim/netdevsim11/0 | grep -q "type eth"; then ok "ports unchanged after refusals"
else nok "ports unchanged after refusals" "$(dl port show netdevsim/netdevsim11/0)"; fi

# --- devlink reload, relayed to the kernel (issue 20): devlink's answer and refusals ------------
# iproute2 6.1's devlink selects reload limits 6.12's policy does not take (a bitfield with only
# no_reset and unspec's bits valid): the kernel refuses its request before the driver sees it, so
# there the peer is the kernel's own answer to a well-formed request.
devlink dev reload netdevsim/netdevsim10 action driver_reinit limit no_reset > /dev/null 2> $T/e2
if grep -q "Attribute failed policy validation" $T/e2; then
	dl dev reload netdevsim/netdevsim10 action driver_reinit limit no_reset > /dev/null 2> $T/e1; r1=$?
	if [ $r1 = 1 ] && grep -q "Requested limit is not supported by the driver" $T/e1 &&
		grep -q "dl answers: Operation not supported" $T/e1; then
		ok "reload driver_reinit with no_reset: the kernel's refusal (iproute2 6.1's request fails this kernel's policy)"
	else
		nok "reload driver_reinit with no_reset" "dl($r1): $(cat $T/e1)"
	fi
else
	same_error "reload driver_reinit with no_reset" dev reload netdevsim/netdevsim10 action driver_reinit limit no_reset \
		-- dev reload netdevsim/netdevsim10 action driver_reinit limit no_reset
fi
dl dev reload netdevsim/netdevsim10 action driver_reinit > $T/r1 2> $T/r1e; r1=$?
devlink dev reload netdevsim/netdevsim10 action driver_reinit > $T/r2 2> $T/r2e; r2=$?
i=0; until [ "$(devlink port show 2>/dev/null | grep -c '^netdevsim/netdevsim10/')" = 1 ]; do
	i=$((i + 1)); [ $i -gt 100 ] && break; sleep 0.1
done
if [ $r1 = 0 ] && [ $r2 = 0 ] && cmp -s $T/r1 $T/r2 && [ "$(cat $T/r1)" = "reload_actions_performed:
    driver_reinit" ] && dl port show netdevsim/netdevsim10/0 | grep -q "type eth"; then
	ok "dev reload action driver_reinit: devlink's answer, the port back"
else
	nok "dev reload through the kernel" "dl($r1): $(cat $T/r1 $T/r1e) / devlink($r2): $(cat $T/r2 $T/r2e)"
fi

# --- the Lua module on the real kernel (tests/vm/lua.lua) --------------------------------------
if [ -f /lua.lua ]; then
	DLHAL_MODULE_PATH=/usr/lib/dlhal lua5.4 /lua.lua > $T/lua.out 2>&1
	grep -q '^ok \|^not ok ' $T/lua.out || nok "lua module" "$(cat $T/lua.out)"
	while IFS= read -r line; do
		case $line in
		"ok "*) ok "${line#ok }" ;;
		"not ok "*) nok "${line#not ok }" "" ;;
		esac
	done < $T/lua.out
fi

# --- dl monitor sees new_port and del_port, in order ------------------------------------------
ready() { # wait for dl -v monitor to say it is watching (its file emptied before it started)
	i=0
	until grep -q "dl monitor: watching" $1; do i=$((i + 1)); [ $i -gt 300 ] && break; sleep 0.1; done
}
dl -v monitor port > $T/mon 2> $T/mon.err &
mon=$!
ready $T/mon.err
echo 7 > /sys/bus/netdevsim/devices/netdevsim10/new_port
sleep 1
echo 7 > /sys/bus/netdevsim/devices/netdevsim10/del_port
sleep 1
kill -TERM $mon
wait $mon; rc=$?
grep -n "netdevsim/netdevsim10/7" $T/mon > $T/mon7
first_new=$(grep -m1 "\[port,new\]" $T/mon7 | cut -d: -f1)
last_del=$(grep "\[port,del\]" $T/mon7 | tail -n1 | cut -d: -f1)
if [ $rc = 0 ] && [ -n "$first_new" ] && [ -n "$last_del" ] && [ "$first_new" -lt "$last_del" ] &&
	grep -q "\[port,new\] netdevsim/netdevsim10/7: type eth netdev" $T/mon; then
	ok "monitor: new then del of netdevsim10/7, exit 0 on SIGTERM"
else
	nok "monitor" "rc=$rc: $(cat $T/mon)"
fi
dl -v -j monitor port > $T/monj 2> $T/monj.err &
mon=$!
ready $T/monj.err
echo 8 > /sys/bus/netdevsim/devices/netdevsim10/new_port
sleep 1
kill -INT $mon
wait $mon
if jsoncmp_lines=$(grep -c '^{"event":"new","port":{"netdevsim/netdevsim10/8"' $T/monj) && [ "$jsoncmp_lines" -ge 1 ]; then
	ok "monitor -j: one JSON object per event"
else
	nok "monitor -j" "$(cat $T/monj)"
fi

# --- a monitor of one device: from 6.8 the kernel sends it that device's notifications alone
dl -v monitor port netdevsim/netdevsim11 > $T/mdev 2> $T/mdev.err &
mon=$!
ready $T/mdev.err
echo 9 > /sys/bus/netdevsim/devices/netdevsim10/new_port
echo 5 > /sys/bus/netdevsim/devices/netdevsim11/new_port
sleep 1
echo 9 > /sys/bus/netdevsim/devices/netdevsim10/del_port
echo 5 > /sys/bus/netdevsim/devices/netdevsim11/del_port
sleep 1
kill -TERM $mon
wait $mon; rc=$?
if [ $rc = 0 ] && ! grep -q "netdevsim10" $T/mdev &&
	grep -q "^\[port,new\] netdevsim/netdevsim11/5: type eth netdev" $T/mdev &&
	[ "$(tail -n 1 $T/mdev | cut -d: -f1)" = "[port,del] netdevsim/netdevsim11/5" ]; then
	ok "monitor port netdevsim/netdevsim11: its port's new and del events, none of netdevsim10's"
else
	nok "monitor of one device" "rc=$rc: $(cat $T/mdev $T/mdev.err | head -n 8)"
fi

# --- unprivileged: show works, changes get EPERM ---------------------------------------------
su user -c "dl port show netdevsim/netdevsim11/0" > $T/u1 2>&1; r=$?
if [ $r = 0 ] && grep -q "netdevsim/netdevsim11/0: type eth" $T/u1; then ok "unprivileged show"
else nok "unprivileged show" "rc=$r: $(cat $T/u1)"; fi
for cmd in "port split netdevsim/netdevsim11/0 2" "port set netdevsim/netdevsim11/0 type eth"; do
	su user -c "dl $cmd" > $T/u2 2>&1; r=$?
	if [ $r = 1 ] && grep -q "dl answers: Operation not permitted" $T/u2; then ok "unprivileged $cmd: EPERM"
	else nok "unprivileged $cmd" "rc=$r: $(cat $T/u2)"; fi
done

# --- the backend is the default, and --sim still works alongside ------------------------------
if dl --kernel --sim sn2700 dev show | grep -q "pci/0000:03:00.0" && dl --sim sn2700 dev show | grep -qv netdevsim; then
	ok "--kernel with --sim"
else
	nok "--kernel with --sim" "$(dl --kernel --sim sn2700 dev show 2>&1)"
fi

# --- a dry run is refused to whom the change would be: devlink's changes need CAP_NET_ADMIN ---
if [ -x /usr/bin/setpriv ]; then
	# util-linux's: busybox's applet of that name, first on PATH, cannot change uids
	nobody() { /usr/bin/setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; }
	nobody dl --kernel port split netdevsim/netdevsim11/0 2 --dry-run > $T/np.out 2> $T/np.err; r1=$?
	nobody dl --kernel port split netdevsim/netdevsim11/0 2 > $T/nr.out 2> $T/nr.err; r2=$?
	nobody dl --kernel -j port show netdevsim/netdevsim11/0 > /dev/null 2>&1; r3=$?
	if [ $r1 = 1 ] && [ $r2 = 1 ] && [ $r3 = 0 ] && grep -q "Operation not permitted" $T/np.err &&
		grep -q "CAP_NET_ADMIN" $T/np.err && grep -q "Operation not permitted" $T/nr.err; then
		ok "an unprivileged dry run is refused as the kernel refuses the change (EPERM), reading works"
	else
		nok "an unprivileged dry run is refused" "dry $r1: $(cat $T/np.out $T/np.err); real $r2: $(cat $T/nr.err); show $r3"
	fi
else
	nok "an unprivileged dry run is refused" "no setpriv in the VM"
fi

# --- dlhald serving the kernel's devices beside emulated ones, on the default socket -----------
dlhald -f --kernel --sim sn2700 > $T/dlhald.log 2>&1 &
dmn=$!
i=0
until [ -S /run/dlhal/dlhald.sock ]; do i=$((i + 1)); [ $i -gt 100 ] && break; sleep 0.1; done
# plain dl (no backend option) goes through the daemon's socket
if dl dev show > $T/ddev && grep -q "^pci/0000:03:00.0$" $T/ddev &&
	[ "$(grep -c netdevsim $T/ddev)" = "$(devlink dev show | grep -c netdevsim)" ]; then
	ok "dl finds dlhald's socket; one daemon serves emulated and kernel devices"
else
	nok "daemon with --kernel" "$(cat $T/ddev $T/dlhald.log)"
fi
if [ "$(dl port show netdevsim/netdevsim11/1)" = "$(dl --kernel port show netdevsim/netdevsim11/1)" ]; then
	ok "a kernel port through the daemon as through the kernel"
else
	nok "kernel port through the daemon" "$(dl port show netdevsim/netdevsim11/1)"
fi
dl port split netdevsim/netdevsim11/0 2 > /dev/null 2> $T/de; r=$?
if [ $r = 1 ] && grep -q "dl answers: Operation not supported" $T/de; then
	ok "the kernel's refusal through the daemon"
else
	nok "the kernel's refusal through the daemon" "rc=$r $(cat $T/de)"
fi
dl -v monitor port > $T/dmon 2> $T/dmon.err &
mon=$!
ready $T/dmon.err
echo 9 > /sys/bus/netdevsim/devices/netdevsim10/new_port
sleep 1
kill -TERM $mon; wait $mon
if grep -q "\[port,new\] netdevsim/netdevsim10/9: type eth netdev" $T/dmon; then
	ok "kernel port events reach a monitor through the daemon"
else
	nok "kernel events through the daemon" "$(cat $T/dmon $T/dmon.err)"
fi
kill -TERM $dmn; wait $dmn; r=$?
if [ $r = 0 ] && [ ! -e /run/dlhal/dlhald.sock ]; then ok "dlhald stops on SIGTERM and removes its socket"
else nok "dlhald stop" "rc=$r $(cat $T/dlhald.log)"; fi

# --- dlhald --desired with --kernel: a device that appears gets the desired state applied ----------
printf '[Match]\nDevice=netdevsim/netdevsim20\nNumber=1\n[Port]\nType=ib\n' > $T/want.conf
dlhald -f -s $T/dsd.sock --kernel --desired $T/want.conf > $T/dsd.log 2>&1 &
dsd=$!
i=0; until [ -S $T/dsd.sock ]; do i=$((i + 1)); [ $i -gt 100 ] && break; sleep 0.1; done
echo "20 1" > /sys/bus/netdevsim/new_device
i=0; until grep -q "netdevsim20" $T/dsd.log; do i=$((i + 1)); [ $i -gt 100 ] && break; sleep 0.1; done
kill -TERM $dsd; wait $dsd
echo 20 > /sys/bus/netdevsim/del_device
if grep -q "desired: type ib on netdevsim/netdevsim20 port 1" $T/dsd.log &&
	grep -q "desired: cannot reach: type ib on netdevsim/netdevsim20 port 1 ($T/want.conf:5): .*Operation not supported" $T/dsd.log; then
	ok "dlhald --desired applies to a kernel device when it appears, and logs what it cannot reach"
else
	nok "desired on a device that appears" "$(cat $T/dsd.log)"
fi

# --- bursts: 12 devices of 256 ports registered back to back, removed the same way ---------------
# A mirror whose socket overflows (ENOBUFS) reads everything again: two dlhalds (the default 8 MiB
# buffer; 32 KiB, which must overflow) and a direct monitor with 32 KiB, clients reading meanwhile;
# after each burst each daemon's -j port show is devlink's, byte for byte.
burst() { # create|remove
	for id in 30 31 32 33 34 35 36 37 38 39 40 41; do
		if [ "$1" = create ]; then echo "$id 256" > /sys/bus/netdevsim/new_device
		else echo $id > /sys/bus/netdevsim/del_device; fi
	done
}
settle() { # until devlink lists $1 ports, at most 180 s
	i=0; until [ "$(devlink port show | wc -l)" = "$1" ]; do i=$((i + 1)); [ $i -gt 1800 ] && return 1; sleep 0.1; done
}
same_as_devlink() { # sock: the daemon's -j port show equals devlink's, within 20 s
	i=0; while [ $i -lt 20 ]; do
		devlink -j port show > $T/bk.json; dl -s "$1" -j port show > $T/bd.json 2>&1
		cmp -s $T/bk.json $T/bd.json && return 0
		i=$((i + 1)); sleep 1
	done
	return 1
}
ports_diff() { # the ports on which the daemon's last -j port show and devlink's differ, one per line
	sed 's/},"/},\n"/g' $T/bk.json > $T/bk.lines
	sed 's/},"/},\n"/g' $T/bd.json > $T/bd.lines
	diff $T/bk.lines $T/bd.lines | head -c 400
}
burst_check() { # round create|remove ports: count a good check, or say which step failed and how
	if ! settle $3; then
		bwhy="$bwhy; round $1 $2: devlink lists $(devlink port show | wc -l) ports, not $3, after 180 s"
	elif ! same_as_devlink $T/bu.sock; then
		bwhy="$bwhy; round $1 $2: the 8 MiB daemon differs: $(ports_diff)"
	elif ! same_as_devlink $T/bs.sock; then
		bwhy="$bwhy; round $1 $2: the 32 KiB daemon differs: $(ports_diff)"
	else
		good=$((good + 1))
	fi
}
bwhy=
base=$(devlink port show | wc -l)
dlhald -f -s $T/bu.sock --kernel > $T/bu.log 2>&1 &
bu=$!
DLHAL_KERNEL_RCVBUF=32768 dlhald -f -s $T/bs.sock --kernel > $T/bsd.log 2>&1 &
bsd=$!
DLHAL_KERNEL_RCVBUF=32768 dl --kernel -v monitor > $T/bumon 2> $T/bumon.err &
bumon=$!
i=0; until [ -S $T/bu.sock ] && [ -S $T/bs.sock ]; do i=$((i + 1)); [ $i -gt 100 ] && break; sleep 0.1; done
dl -s $T/bs.sock monitor port > $T/bsmon 2>&1 &
bsmon=$!
ready $T/bumon.err
good=0
for round in 1 2; do
	(k=0; while [ $k -lt 20 ]; do dl -s $T/bs.sock port show > /dev/null 2>&1; k=$((k + 1)); done) &
	rd=$!
	# the direct monitor reads nothing during the first burst: its 32 KiB overflow, whatever the kernel's pace
	[ $round = 1 ] && kill -STOP $bumon
	burst create
	burst_check $round create $((base + 3072))
	[ $round = 1 ] && kill -CONT $bumon
	wait $rd
	burst remove
	burst_check $round remove $base
done
kill -TERM $bumon $bsmon; wait $bumon $bsmon 2> /dev/null
kill -TERM $bu $bsd; wait $bu $bsd
# an error logged during a burst (a read refused, a fill lost) is a failure even if the state ends right
berr=$(grep -h "err:" $T/bu.log $T/bsd.log | head -3)
if [ $good = 4 ] && [ -z "$berr" ]; then
	ok "2 bursts of 3072 ports created and removed: both dlhalds' -j port show are devlink's, byte for byte, no error logged"
else
	nok "bursts" "$good of 4 checks$bwhy${berr:+; logged: $berr}"
fi
if grep -q "kernel: notifications were lost; the state was read again" $T/bsd.log &&
	grep -q "^\[bus,resync\] kernel: notifications were lost" $T/bumon; then
	ok "a 32 KiB buffer overflows: the daemon logs the resync and dl monitor prints [bus,resync] ($(grep -c 'were lost' $T/bsd.log) resyncs)"
else
	nok "resync reported" "$(tail -n 3 $T/bsd.log; grep -c . $T/bumon; tail -n 2 $T/bumon.err)"
fi

# --- a reload with a mirror running: the kernel (6.3 on) deletes and adds every port around it
dlhald -f -s $T/rl.sock --kernel > $T/rl.log 2>&1 &
rl=$!
i=0; until [ -S $T/rl.sock ]; do i=$((i + 1)); [ $i -gt 100 ] && break; sleep 0.1; done
dl -s $T/rl.sock port show > /dev/null
devlink dev reload netdevsim/netdevsim11 > $T/rl.out 2>&1; r=$?
i=0; until [ "$(devlink port show | grep -c '^netdevsim/netdevsim11/')" = 4 ]; do
	i=$((i + 1)); [ $i -gt 100 ] && break; sleep 0.1
done
if [ $r = 0 ] && same_as_devlink $T/rl.sock; then ok "devlink dev reload under a running dlhald: its -j port show is devlink's after"
else nok "reload under a mirror" "rc=$r $(cat $T/rl.out) $(diff $T/bk.json $T/bd.json | head -c 300)"; fi
kill -TERM $rl; wait $rl

# --- kernel/bridge: userspace drivers' instances in the kernel's devlink family ----------------
if [ -c /dev/dlhal ] && [ "$(stat -c %a /dev/dlhal)" = 600 ]; then ok "/dev/dlhal exists, mode 0600"
else nok "/dev/dlhal" "$(ls -l /dev/dlhal 2>&1)"; fi
dmesg -c > /dev/null
out=$(su user -c "echo sizes | bridge_client" 2>&1)
case $out in "open -1"|"open -13") ok "/dev/dlhal refuses a user without CAP_NET_ADMIN ($out)" ;;
*) nok "/dev/dlhal for a user" "$out" ;; esac
mkfifo $T/bin
# (background commands below close fd 3, the FIFO's writer: else the client never sees EOF)
bridge_client < $T/bin > $T/bout 2>&1 &
bc=$!
exec 3> $T/bin
n=0
say() { # command expected-answer name
	echo "$1" >&3
	n=$((n + 1))
	i=0
	until [ "$(grep -c . $T/bout)" -gt $n ]; do i=$((i + 1)); [ $i -gt 100 ] && break; sleep 0.1; done
	got=$(sed -n "$((n + 1))p" $T/bout)
	if [ "$got" = "$2" ]; then [ -n "$3" ] && ok "$3"; else nok "${3:-$1}" "answered \"$got\", expected \"$2\""; fi
}
say "dev add 0000:03:00.0" ok ""
say "port add 0000:03:00.0 1 eth swp1 1 4 1 0 0" ok ""
say "port add 0000:03:00.0 2 eth swp2s0 2 2 0 1 0" ok ""
say "port add 0000:03:00.0 3 eth swp2s1 2 2 0 1 1" ok ""
say "port add 0000:03:00.0 5 ib - 3 4 0 0 0" ok "an instance with eth, split and ib ports is created"
if ! devlink dev show | grep -q '^dlhal/'; then ok "devlink does not see the instance before it is published"
else nok "an unpublished instance" "$(devlink dev show)"; fi
# What the instance reports of itself (DEV_INFO): checked whole, only before it is published.
say "info 0000:03:00.0 Mlx 0" "err -22" "an info driver name outside [a-z0-9_-] is refused"
say "info 0000:03:00.0 x 33" "err -22" "more than 32 info versions are refused"
say "info 0000:03:00.0 x 1 3 fw.x 1" "err -22" "an unknown info version kind is refused"
say "info 0000:03:00.0 x 2 0 fw.psid MT_1" "err -22" "an empty info version is refused"
say "info 0000:09:00.0 x 0" "err -19" "the info of an unknown instance is refused"
say "info 0000:03:00.0 dlhal_test 1 0 fw.psid MT_1" ok "an instance says what it reports of itself"
say "dev pub 0000:03:00.0" ok "the instance is published with its ports"
say "info 0000:03:00.0 other 0" "err -114" "its info once published is refused (EALREADY)"
devlink dev info dlhal/0000:03:00.0 > $T/binfo 2>&1
if [ "$(basename "$(readlink /sys/bus/dlhal/devices/0000:03:00.0/driver)")" = dlhal_test ] &&
	grep -qx "  driver dlhal_test" $T/binfo && grep -qx "        fw.psid MT_1" $T/binfo; then
	ok "devlink dev info and sysfs name the driver the instance stands for, with its versions"
else
	nok "the instance's info" "$(ls -l /sys/bus/dlhal/devices/0000:03:00.0/ 2>&1 | grep driver; cat $T/binfo)"
fi
# A driver with no info of its own (DEV_BIND, as Linux 6.1's mlx4_core): bound in sysfs; devlink dev
# info answers as that kernel does for such a driver (6.1: not supported; 6.2 on: the core's driver name).
say "dev add 0000:04:00.0" ok ""
say "bind 0000:04:00.0 dlhal_bare SN1" "err -22" "a bind that carries more than a driver name is refused"
say "bind 0000:04:00.0 -" "err -22" "a bind without a driver name is refused"
say "bind 0000:04:00.0 dlhal_bare" ok "an instance is bound to a driver with no info of its own"
say "dev pub 0000:04:00.0" ok ""
devlink dev info dlhal/0000:04:00.0 > $T/binfo2 2>&1; binfo_rc=$?
case "$(uname -r)" in
6.1.*) binfo_ok() { [ $binfo_rc -ne 0 ] && grep -q "Operation not supported" $T/binfo2; } ;;
*) binfo_ok() { [ $binfo_rc -eq 0 ] && grep -qx "  driver dlhal_bare" $T/binfo2; } ;;
esac
if [ "$(basename "$(readlink /sys/bus/dlhal/devices/0000:04:00.0/driver)")" = dlhal_bare ] && binfo_ok; then
	ok "a bound instance without info: sysfs names its driver, devlink dev info answers as $(uname -r) does"
else
	nok "a bound instance without info" "rc $binfo_rc: $(cat $T/binfo2)"
fi
say "dev del 0000:04:00.0" ok ""
out=$(echo "dev add 0000:03:00.0" | bridge_client | tail -n 1)
if [ "$out" = "err -17" ]; then ok "another file cannot take an instance name in use"
else nok "a name in use by another file" "answered \"$out\""; fi
devlink port show > $T/bports 2>&1
if grep -q "^dlhal/0000:03:00.0/1: type eth netdev swp1 flavour physical port 1 splittable true lanes 4" $T/bports &&
	grep "^dlhal/0000:03:00.0/3: type eth netdev swp2s1 flavour physical port 2 " $T/bports | grep -q "splittable false lanes 2" &&
	grep -q "^dlhal/0000:03:00.0/5: type ib flavour physical port 3" $T/bports &&
	devlink dev show | grep -q "^dlhal/0000:03:00.0$" && ip link show swp2s0 > /dev/null 2>&1; then
	ok "iproute2's devlink and ip see the instance, its ports and netdevs"
else
	nok "devlink sees the bridge instance" "$(grep dlhal $T/bports; devlink dev show)"
fi
dl -j port show dlhal/0000:03:00.0/3 > $T/b1.json 2>&1 && devlink -j port show dlhal/0000:03:00.0/3 > $T/b2.json
if jsoncmp $T/b1.json $T/b2.json 2> $T/cmp.err; then ok "dl --kernel shows a bridge port as devlink does"
else nok "dl on a bridge port" "$(cat $T/b1.json $T/cmp.err)"; fi
# Hostile messages: each refused with its errno, nothing left behind.
say "raw 0100" "err -22" "a message shorter than its type is refused"
say "raw 09000000$(printf '%0144d' 0)" "err -22" "an unknown message type is refused"
say "raw 01000000$(printf '%0138d' 0)" "err -22" "a message of the wrong size is refused"
say "raw 0100000000000000$(printf '41%.0s' $(seq 64))" "err -22" "an instance name without its NUL is refused"
say "raw 0100000001000000$(printf '41%.0s' $(seq 4))$(printf '%0120d' 0)" "err -22" "a nonzero reserved field is refused"
say "dev add a/b" "err -22" "an instance name with a slash is refused"
say "dev add 0000:03:00.0" "err -17" "an instance name taken is refused"
say "port add 0000:03:00.0 1 eth swp9 1 2 0 0 0" "err -17" "a port index taken (other attributes) is refused"
say "port add 0000:03:00.0 7 eth a/b 1 4 1 0 0" "err -22" "an invalid netdev name is refused"
say "port add 0000:03:00.0 7 eth sw%d 1 4 1 0 0" "err -22" "a netdev name pattern is refused"
say "port add 0000:03:00.0 7 eth swp7 1 4 1 1 0" "err -22" "a port both split and splittable is refused"
say "port add 0000:03:00.0 7 eth swp7 1 1 1 0 0" "err -22" "a splittable port with one lane is refused"
say "port add 0000:03:00.0 7 eth swp7 1 99 0 0 0" "err -22" "a lane count above 16 is refused"
say "port add 0000:03:00.0 7 7 - 1 4 0 0 0" "err -22" "an unknown port type is refused"
say "port add 0000:03:00.0 7 ib swp7 1 4 0 0 0" "err -22" "an ib port with a netdev name is refused"
say "port add 0000:09:00.0 7 eth swp7 1 4 0 0 0" "err -19" "a port of an unknown instance is refused"
say "port add 0000:03:00.0 7 eth lo 1 4 0 0 0" "err -17" "a netdev name the kernel has is refused"
say "port add 0000:03:00.0 7 eth abcdefghijklmnopq 1 4 0 0 0" "err -22" "a netdev name of 17 bytes is refused"
out=$(echo "port add 0000:03:00.0 7 eth swp7 1 4 0 0 0" | bridge_client | tail -n 1)
if [ "$out" = "err -19" ]; then ok "another process's instance is unknown to this one"
else nok "another process's instance" "answered \"$out\""; fi
if ! devlink port show dlhal/0000:03:00.0/7 > /dev/null 2>&1 && [ "$(devlink port show | grep -c '^dlhal/')" = 4 ]; then
	ok "refused ports leave nothing in devlink"
else
	nok "refused ports leave nothing" "$(devlink port show | grep dlhal)"
fi
say "port del 0000:03:00.0 2" ok ""
if ! ip link show swp2s0 > /dev/null 2>&1 && ! devlink port show dlhal/0000:03:00.0/2 > /dev/null 2>&1; then
	ok "port del removes the port and its netdev"
else
	nok "port del" "$(devlink port show | grep dlhal)"
fi
i=1; while [ $i -le 15 ]; do echo "dev add x$i" >&3; i=$((i + 1)); done
n=$((n + 15)); sleep 1
say "dev add x16" "err -28" "a 17th instance on one file is refused"
# Ops forwarded to the process: devlink waits for its reply, the changes come within the op.
ask() { # command: send, wait for one answer line, leave it in $got (no subshell: n must count)
	echo "$1" >&3
	n=$((n + 1))
	i=0
	until [ "$(grep -c . $T/bout)" -gt $n ]; do i=$((i + 1)); [ $i -gt 100 ] && break; sleep 0.1; done
	got=$(sed -n "$((n + 1))p" $T/bout)
}
devlink monitor port > $T/bmon 2>&1 3>&- &
bmon=$!
sleep 0.5
devlink port split dlhal/0000:03:00.0/1 count 2 > $T/bsplit 2>&1 3>&- &
dlp=$!
ask read; req=$got
set -- $req
if [ "$1 $2 $4 $5 $6" = "req 16 0000:03:00.0 1 2" ]; then ok "devlink's split reaches the process as a request ($req)"
else nok "split request" "$req"; fi
seq=$3
say "reply $seq 0 - del:1 add:1:eth:swp1s0:1:2:0:1:0 add:2:eth:swp1s1:1:2:0:1:1" ok ""
wait $dlp; r=$?
devlink port show > $T/bports 2>&1
if [ $r = 0 ] && grep -q "^dlhal/0000:03:00.0/1: type eth netdev swp1s0 flavour physical port 1 split_group 1" $T/bports &&
	grep -q "^dlhal/0000:03:00.0/2: type eth netdev swp1s1 " $T/bports && ! ip link show swp1 > /dev/null 2>&1 &&
	ip link show swp1s1 > /dev/null 2>&1; then
	ok "iproute2's devlink splits a userspace driver's port: the reply's ports replace it"
else
	nok "split through the bridge" "rc=$r $(cat $T/bsplit; grep dlhal $T/bports)"
fi
kill $bmon; wait $bmon 2> /dev/null
if grep -q "\[port,del\] dlhal/0000:03:00.0/1" $T/bmon && grep -q "\[port,new\] dlhal/0000:03:00.0/2" $T/bmon; then
	ok "the kernel's own notifications report the ports the op replaced"
else
	nok "notifications of a bridged split" "$(cat $T/bmon)"
fi
devlink port split dlhal/0000:03:00.0/2 count 2 > $T/bsplit 2>&1; r=$?
ask read
if [ $r != 0 ] && grep -q "Port cannot be split further" $T/bsplit && [ "$got" = none ]; then
	ok "the kernel core refuses a split of a split port before the process hears of it"
else
	nok "kernel core refusal" "rc=$r $(cat $T/bsplit)"
fi
devlink port unsplit dlhal/0000:03:00.0/5 > $T/bsplit 2>&1 3>&- &
dlp=$!
ask read; set -- $got; seq=$3
say "reply $seq -22 Port_was_not_split" ok ""
wait $dlp; r=$?
if [ $r != 0 ] && grep -q "Port was not split" $T/bsplit; then
	ok "the process's errno and message reach devlink ($(head -n 1 $T/bsplit))"
else
	nok "refusal message through the bridge" "rc=$r $(cat $T/bsplit)"
fi
devlink port set dlhal/0000:03:00.0/5 type eth > $T/bset 2>&1 3>&- &
dlp=$!
ask read; set -- $got; req="$1 $2 $5 $6"; seq=$3
say "reply $seq 0 - add:5:eth:swp3:3:4:0:0:0" ok ""
wait $dlp; r=$?
if [ "$req" = "req 18 5 2" ] && [ $r = 0 ] && devlink port show dlhal/0000:03:00.0/5 | grep -q "type eth netdev swp3"; then
	ok "type set: the process answers with the port's new type and netdev"
else
	nok "type set through the bridge" "req=$req rc=$r $(cat $T/bset; devlink port show dlhal/0000:03:00.0/5)"
fi
devlink port show | grep '^dlhal/' | sort > $T/before
devlink port unsplit dlhal/0000:03:00.0/2 > $T/bsplit 2>&1 3>&- &
dlp=$!
ask read; set -- $got; seq=$3
say "reply $seq 0 - del:1 del:2 add:1:eth:lo:1:4:1:0:0" ok ""
wait $dlp; r=$?
devlink port show | grep '^dlhal/' | sort > $T/after
ask read; set -- $got
if [ $r != 0 ] && grep -q "could not take the driver's ports" $T/bsplit && cmp -s $T/before $T/after &&
	ip link show swp1s0 > /dev/null 2>&1 && [ "$1 $2 $3" = "req 19 $seq" ]; then
	ok "a reply the kernel cannot apply (netdev name taken) is undone, and the process told to undo"
else
	nok "undo of a reply" "rc=$r $(cat $T/bsplit; diff $T/before $T/after) $*"
fi
devlink port unsplit dlhal/0000:03:00.0/2 > $T/bsplit 2>&1 3>&- &
dlp=$!
ask read; set -- $got; seq=$3
say "reply 99999 0 -" "err -3" "a reply to no request is refused"
say "reply $seq 5 -" "err -22" "a reply with a positive error is refused"
say "reply-dev $seq 0000:09:00.0 add:9:eth:swp9:9:4:0:0:0" "err -22" "a reply changing another instance is refused"
say "raw 05000000$(printf '%08x' $seq | sed 's/\(..\)\(..\)\(..\)\(..\)/\4\3\2\1/')0000000001000000$(printf '%0256d' 0)" "err -22" "a reply shorter than its changes is refused"
say "raw 05000000$(printf '%08x' $seq | sed 's/\(..\)\(..\)\(..\)\(..\)/\4\3\2\1/')00000000ffffffff$(printf '%0256d' 0)" "err -22" "a reply claiming 4294967295 changes is refused"
i=0; while kill -0 $dlp 2> /dev/null && [ $i -lt 150 ]; do sleep 0.1; i=$((i + 1)); done
wait $dlp; r=$?
if [ $r != 0 ] && grep -q "did not answer" $T/bsplit && devlink port show dlhal/0000:03:00.0/2 > /dev/null; then
	ok "a process that does not answer fails the op after op_timeout_ms (5 s), ports unchanged"
else
	nok "op timeout" "rc=$r $(cat $T/bsplit)"
fi
devlink port unsplit dlhal/0000:03:00.0/2 > $T/bsplit 2>&1 3>&- &
dlp=$!
ask read
exec 3>&-
wait $bc
wait $dlp; r=$?
if [ $r != 0 ] && grep -q "went away" $T/bsplit; then ok "an op waiting on a process that closes fails at once"
else nok "op when the process closes" "rc=$r $(cat $T/bsplit)"; fi
if [ "$(devlink dev show | grep -c '^dlhal/')" = 0 ] && ! ip link show swp1 > /dev/null 2>&1; then
	ok "closing /dev/dlhal removes its instances, ports and netdevs"
else
	nok "close removes everything" "$(devlink dev show | grep dlhal)"
fi

# dlhald --kernel-bridge: its emulated Spectrum and ConnectX-3 in the kernel; Debian's devlink
# replays the seed's split and unsplit on them. netdevsim goes first: its eth names would clash.
# The Spectrum's board is one no profile stands for (its PSID changed, /sn2700-other.json), so
# that these checks keep the generic path: a kernel device whose rules nobody knows, plans partial.
for id in 10 11 12; do echo $id > /sys/bus/netdevsim/del_device; done
dlhald -f -s $T/b.sock --sim /sn2700-other.json,cx3-vpi --kernel-bridge > $T/bd.log 2>&1 &
bd=$!
i=0; until devlink dev show 2> /dev/null | grep -q '^dlhal/0000:01:00.0$'; do i=$((i + 1)); [ $i -gt 100 ] && break; sleep 0.1; done
devlink port show > $T/bports 2>&1
if [ "$(grep -c '^dlhal/0000:03:00.0/' $T/bports)" = 32 ] && [ "$(grep -c '^dlhal/0000:01:00.0/' $T/bports)" = 2 ] &&
	grep -q "^dlhal/0000:03:00.0/1: type eth netdev eth0 flavour physical port 17 splittable true lanes 4" $T/bports; then
	ok "dlhald --kernel-bridge: 32 Spectrum and 2 ConnectX-3 ports in the kernel's devlink"
else
	nok "dlhald --kernel-bridge" "$(grep -c '^dlhal/' $T/bports) $(head -n 3 $T/bports; cat $T/bd.log)"
fi
bdl() { dl -s $T/b.sock "$@"; }
# The seed's walkthrough (001) through the kernel: its lines, handle prefix dlhal/ for pci/, and the
# split group as Linux 6.1 reports it (the port number, 17, where the seed's Linux 4.6 said 16).
seed_ports() { # the seed's "dl port" for the Spectrum, ports 1..63 odd, eth0..eth31, in its order
	i=1; while [ $i -le 63 ]; do echo "dlhal/0000:03:00.0/$i: type eth netdev eth$(((i - 1) / 2))"; i=$((i + 2)); done
}
kdl() { dl --kernel "$@"; }
kjson() { # dl --kernel -j and devlink -j agree on every port
	kdl -j port show > $T/kj1.json 2>&1 && devlink -j port show > $T/kj2.json && jsoncmp $T/kj1.json $T/kj2.json 2> $T/kjcmp
}
seed_ports > $T/want
kdl port show | grep '^dlhal/0000:03:00.0/' > $T/got
if cmp -s $T/want $T/got; then ok "seed walkthrough, dl --kernel port: the seed's 32 lines"
else nok "seed listing through the kernel" "$(diff $T/want $T/got | head -n 5)"; fi
if kjson; then ok "dl --kernel -j and devlink -j agree on the bridged ports"; else nok "json before split" "$(head -n 3 $T/kjcmp)"; fi
dl --kernel -v monitor port > $T/kmon 2> $T/kmon.err &
kmon=$!
ready $T/kmon.err
devlink monitor port > $T/dmon2 2>&1 &
dmon2=$!
sleep 0.5
devlink port split dlhal/0000:03:00.0/1 count 2 > $T/bs 2>&1; r=$?
if [ $r = 0 ] && devlink port show dlhal/0000:03:00.0/1 | grep -q "type eth netdev eth0 flavour physical port 17 split_group 17" &&
	devlink port show dlhal/0000:03:00.0/2 | grep -q "type eth netdev eth32 " &&
	[ "$(bdl port show pci/0000:03:00.0/2)" = "pci/0000:03:00.0/2: type eth netdev eth32 split_group 16" ]; then
	ok "devlink port split runs Spectrum's split in dlhald: eth0 and eth32, as the seed shows"
else
	nok "devlink split through dlhald" "rc=$r $(cat $T/bs; devlink port show dlhal/0000:03:00.0/2; bdl port show pci/0000:03:00.0/2)"
fi
{ seed_ports | grep -v '/1:'; echo "dlhal/0000:03:00.0/1: type eth netdev eth0 split_group 17"
	echo "dlhal/0000:03:00.0/2: type eth netdev eth32 split_group 17"; } > $T/want
# (sorted: Linux 6.1 lists a device's ports as registered, 6.12 by index; -j above checks the order)
kdl port show | grep '^dlhal/0000:03:00.0/' | sort > $T/got
sort -o $T/want $T/want
if cmp -s $T/want $T/got && ip link show eth32 > /dev/null 2>&1; then
	ok "seed walkthrough after the split: the seed's lines, and eth32 in ip link"
else
	nok "seed listing after split" "$(diff $T/want $T/got | head -n 5)"
fi
if kjson; then ok "dl --kernel -j and devlink -j agree after the split"; else nok "json after split" "$(head -n 3 $T/kjcmp)"; fi
# Plans through the kernel: partial (the kernel core's rules), and its refusals are the kernel's.
kdl port split dlhal/0000:03:00.0/2 2 --dry-run > $T/pl 2>&1; r1=$?
kdl port split dlhal/0000:03:00.0/3 3 --dry-run > $T/pl3 2>&1; r3=$?
kdl port split dlhal/0000:03:00.0/3 2 --dry-run > $T/pl2 2>&1; r2=$?
if [ $r1 = 1 ] && grep -q "Port cannot be split further" $T/pl && [ $r3 = 1 ] && grep -q "Invalid split count" $T/pl3 &&
	[ $r2 = 3 ] && grep -q "core would take it" $T/pl2; then
	ok "dl --kernel --dry-run: the kernel core's refusals, and a partial plan otherwise (exit 3)"
else
	nok "plans through the kernel" "$r1 $(cat $T/pl) / $r3 $(cat $T/pl3) / $r2 $(cat $T/pl2)"
fi
# A file planned through the kernel: partial, said per step and by exit 3 (not "would be done").
printf '[Match]\nDevice=dlhal/0000:03:00.0\nNumber=1\n[Port]\nSplit=2\n' > $T/k.conf
kdl apply $T/k.conf --dry-run > $T/ka 2>&1; r=$?
if [ $r = 3 ] && grep -q "^maybe: split dlhal/0000:03:00.0 port 1 into 2" $T/ka &&
	grep -q "could not be planned whole" $T/ka && ! grep -q "^would:" $T/ka; then
	ok "dl --kernel apply --dry-run: each step partial, exit 3"
else
	nok "apply --dry-run through the kernel" "rc=$r $(cat $T/ka)"
fi
devlink port split dlhal/0000:03:00.0/3 count 3 > $T/bs 2>&1; r=$?
if [ $r != 0 ] && grep -q "Invalid split count" $T/bs; then ok "count 3: the kernel's core refuses ($(head -n 1 $T/bs))"
else nok "count 3 through the kernel" "rc=$r $(cat $T/bs)"; fi
su user -c "devlink port split dlhal/0000:03:00.0/3 count 2" > $T/bs 2>&1; r=$?
if [ $r != 0 ] && grep -q "Operation not permitted" $T/bs && ! devlink port show dlhal/0000:03:00.0/4 > /dev/null 2>&1; then
	ok "an unprivileged user gets the kernel's EPERM"
else
	nok "unprivileged split" "rc=$r $(cat $T/bs)"
fi
# (the firmware's answer to the split's query fails: as Linux 6.1's mlxsw, which the bridged Spectrum
# follows, the split is refused in its words and nothing changes)
bdl sim set pci/0000:03:00.0 fail_nth 2
devlink port split dlhal/0000:03:00.0/3 count 4 > $T/bs 2>&1; r=$?
if [ $r != 0 ] && grep -q "Failed to query split info" $T/bs && devlink port show dlhal/0000:03:00.0/3 > /dev/null; then
	ok "Spectrum's own refusal reaches devlink: $(head -n 1 $T/bs)"
else
	nok "driver refusal through dlhald" "rc=$r $(cat $T/bs)"
fi
devlink port split dlhal/0000:03:00.0/1 count 2 > $T/bs 2>&1; r=$?
if [ $r != 0 ] && grep -q "Port cannot be split further" $T/bs; then ok "a split port: the kernel's core refuses"
else nok "split of a split port" "rc=$r $(cat $T/bs)"; fi
devlink port unsplit dlhal/0000:03:00.0/2 > $T/bs 2>&1; r=$?
if [ $r = 0 ] && devlink port show dlhal/0000:03:00.0/1 | grep -q "netdev eth0 flavour physical port 17 splittable true" &&
	! devlink port show dlhal/0000:03:00.0/2 > /dev/null 2>&1 && ! ip link show eth32 > /dev/null 2>&1 &&
	[ "$(bdl port show pci/0000:03:00.0/1)" = "pci/0000:03:00.0/1: type eth netdev eth0" ]; then
	ok "devlink port unsplit gives eth0 back, in the kernel and in dlhald"
else
	nok "unsplit through dlhald" "rc=$r $(cat $T/bs; devlink port show | grep 0000:03:00.0/[12]:)"
fi
{ seed_ports | grep -v '/1:'; echo "dlhal/0000:03:00.0/1: type eth netdev eth0"; } | sort > $T/want
kdl port show | grep '^dlhal/0000:03:00.0/' | sort > $T/got
if cmp -s $T/want $T/got; then ok "seed walkthrough after the unsplit: the seed's lines"
else nok "seed listing after unsplit" "$(diff $T/want $T/got | head -n 5)"; fi
if kjson; then ok "dl --kernel -j and devlink -j agree after the unsplit"; else nok "json after unsplit" "$(head -n 3 $T/kjcmp)"; fi
kill -TERM $kmon; wait $kmon; kill $dmon2; wait $dmon2 2> /dev/null
if grep -q "\[port,del\] dlhal/0000:03:00.0/1" $T/kmon && grep -q "\[port,new\] dlhal/0000:03:00.0/2: type eth netdev eth32" $T/kmon &&
	grep -q "\[port,del\] dlhal/0000:03:00.0/2" $T/kmon && grep -q "\[port,new\] dlhal/0000:03:00.0/2" $T/dmon2; then
	ok "dl monitor and devlink monitor report the split's and the unsplit's del/new events"
else
	nok "monitors of bridged ops" "$(head -n 8 $T/kmon; cat $T/kmon.err)"
fi
# The port matrix on the kernel backend (tests/port-matrix.sh): every dl command that takes a port
# answers the same by handle as by netdev (the bridged Spectrum and ConnectX-3, whole again here).
port-matrix.sh "dl --kernel|dlhal/0000:03:00.0|dlhal/0000:01:00.0" > $T/matrix 2>&1; r=$?
if [ $r = 0 ]; then ok "dl --kernel: $(tail -n 1 $T/matrix) port commands the same by handle and by netdev"
else nok "port matrix on the kernel" "$(grep -A 12 '^not ok' $T/matrix | head -n 30)"; fi
# A file whose plan is partial (the kernel has no dry run): port 17 by 4 takes port 1's lanes, so
# the entry for port 1 cannot be met. The dry run names both entries; the run does what it can,
# plans again on what the kernel then reports, and names the entry left unmet, exit 1 at once.
printf '[Match]\nDevice=dlhal/0000:03:00.0\nNumber=17\n[Port]\nSplit=4\n\n[Match]\nDevice=dlhal/0000:03:00.0\nNumber=1\n[Port]\nSplit=2\n' > $T/c.conf
kdl apply $T/c.conf --dry-run > $T/ca 2>&1; r1=$?
kdl apply $T/c.conf > $T/cb 2>&1; r2=$?
kdl apply $T/c.conf > $T/cc 2>&1; r3=$?
kdl -j apply $T/c.conf --dry-run > $T/cj 2> /dev/null
if [ $r1 = 3 ] && grep -q "^maybe: split dlhal/0000:03:00.0 port 17 into 4 (.*c.conf:5)" $T/ca && [ "$(grep -c '^maybe:' $T/ca)" = 2 ] &&
	grep -q "^maybe: dlhal/0000:03:00.0 port 1: split into 2 (.*c.conf:11): planned once" $T/ca &&
	[ $r2 = 1 ] && grep -q "^done: split dlhal/0000:03:00.0 port 17 into 4" $T/cb &&
	grep -q "c.conf:8: matches no port" $T/cb && grep -q "1 entry of .*c.conf unmet" $T/cb &&
	[ $r3 = 1 ] && grep -q "c.conf:8: matches no port" $T/cc; then
	ok "dl --kernel apply of a partial plan: every entry in the dry run, the unmet one named in the run (exit 1)"
else
	nok "partial apply through the kernel" "$r1 $(cat $T/ca) / $r2 $(cat $T/cb) / $r3 $(cat $T/cc)"
fi
# dlhald --kernel --desired logs the same unmet entry, and Lua's apply returns it
desired_until $T/c.conf $T/kd.log "unmet"
if grep -q "c.conf:8: matches no port" $T/kd.log; then ok "dlhald --kernel --desired: the unmet entry is logged ($(grep -m1 unmet $T/kd.log))"
else nok "dlhald --kernel --desired unmet" "$(cat $T/kd.log)"; fi
kdl port unsplit dlhal/0000:03:00.0/1 > /dev/null 2>&1
# Lua's apply returns it too (nil, the unmet entry, ENODEV), having done what it could
if [ -f /lua.lua ]; then
	cat > $T/capply.lua << 'LUA'
local dlhal = require "dlhal"
local ctx = assert(dlhal.open { kernel = true })
local D = "dlhal/0000:03:00.0"
print(ctx:apply { { device = D, number = 17, split = 4 }, { device = D, number = 1, split = 2 } })
LUA
	DLHAL_MODULE_PATH=/usr/lib/dlhal lua5.4 $T/capply.lua > $T/capply 2>&1
	if grep -qx "nil	entry:2: matches no port	ENODEV" $T/capply && kdl port show dlhal/0000:03:00.0/4 > /dev/null 2>&1; then
		ok "Lua's apply through the kernel: port 17 split, the unmet entry returned (nil, entry:2, ENODEV)"
	else
		nok "Lua apply of a partial plan" "$(cat $T/capply)"
	fi
	kdl port unsplit dlhal/0000:03:00.0/1 > /dev/null 2>&1
fi
bdl port split pci/0000:03:00.0/5 4 > $T/bs 2>&1; r=$?
sleep 0.5
if [ $r = 0 ] && [ "$(devlink port show | grep -c '^dlhal/0000:03:00.0/[5678]: .*split_group 18')" = 4 ]; then
	ok "a split made through dlhald's socket appears in the kernel"
else
	nok "socket split mirrored" "rc=$r $(cat $T/bs; devlink port show | grep '0000:03:00.0/[5678]:')"
fi
devlink port unsplit dlhal/0000:03:00.0/7 > $T/bs 2>&1
bdl port > $T/bdl
devlink port show | grep '^dlhal/0000:03:00.0/' | sed 's|^dlhal/\([^:]*:[^:]*:[^/]*\)/\([0-9]*\): type eth netdev \([a-z0-9]*\) .*|\1/\2 \3|' | sort > $T/k
grep '^pci/0000:03:00.0/' $T/bdl | sed 's|^pci/\([^:]*:[^:]*:[^/]*\)/\([0-9]*\): type eth netdev \([a-z0-9]*\).*|\1/\2 \3|' | sort > $T/d
if cmp -s $T/k $T/d && [ "$(wc -l < $T/k)" = 32 ]; then
	ok "the kernel and dlhald's socket show the same 32 ports and netdevs"
else
	nok "kernel vs dlhald" "$(diff $T/k $T/d | head -n 5)"
fi
before=$(bdl port show pci/0000:01:00.0/2)
devlink port set dlhal/0000:01:00.0/2 type eth > $T/bs 2>&1; r=$?
after=$(bdl port show pci/0000:01:00.0/2)
k=$(devlink port show dlhal/0000:01:00.0/2)
case $r:$after:$k in
0:*"type eth netdev"*:*"type eth netdev"*) ok "devlink port set type eth runs mlx4's type set in dlhald ($after)" ;;
*) nok "type set through dlhald" "rc=$r $(cat $T/bs) before: $before after: $after kernel: $k" ;;
esac
# The Ansible modules on the kernel backend (docs/fleet.md), as Ansible runs them on a managed host:
# info lists a netdevsim device and the bridged Spectrum; ports plans (check mode: partial, the kernel
# has no dry run), splits port 20 of the latter through the kernel's devlink, finds nothing to do the
# second time, and puts it back.
if command -v python3 > /dev/null; then
	module() { # NAME ARGS-JSON: the module's JSON answer in $T/m.out
		printf '{"ANSIBLE_MODULE_ARGS": %s}' "$2" > $T/m.args
		python3 -m "ansible_collections.dlhal.devlink.plugins.modules.$1" $T/m.args > $T/m.out 2>&1
	}
	echo "14 1" > /sys/bus/netdevsim/new_device
	i=0; until devlink port show 2> /dev/null | grep -q '^netdevsim/netdevsim14/'; do i=$((i + 1)); [ $i -gt 50 ] && break; sleep 0.1; done
	module info '{"kernel": true, "dl_path": "/usr/bin/dl"}'
	if grep -q '"netdevsim/netdevsim14": {' $T/m.out && grep -q '"dlhal/0000:03:00.0": {' $T/m.out &&
		grep -q '"dlhal/0000:03:00.0/39": {' $T/m.out && grep -q '"dlhal_ports": {' $T/m.out &&
		grep -q '"netdevsim/netdevsim14/0": {' $T/m.out; then
		ok "Ansible's dlhal.devlink.info on the kernel: a netdevsim device and the bridged Spectrum, as facts"
	else
		nok "dlhal.devlink.info on the kernel" "$(head -c 600 $T/m.out)"
	fi
	# dl panel on the kernel: both devices laid out from their port numbers (no faceplate known there)
	dl --kernel panel --ascii > $T/panel 2>&1; r=$?
	if [ $r = 0 ] && grep -q '^netdevsim/netdevsim14: netdevsim, 1 cage (laid out from the port numbers)$' $T/panel &&
		grep -q '^dlhal/0000:03:00.0: mlxsw_spectrum, 32 cages (laid out from the port numbers)$' $T/panel &&
		grep -q '^+17------+' $T/panel && awk 'length($0) > 80 { bad = 1 } END { exit bad }' $T/panel; then
		ok "dl --kernel panel: netdevsim and the bridged Spectrum, laid out from their port numbers, in 80 columns"
	else
		nok "dl --kernel panel" "rc=$r $(grep -v '^[|+]' $T/panel)"
	fi
	echo 14 > /sys/bus/netdevsim/del_device
	want='"kernel": true, "dl_path": "/usr/bin/dl", "ports": [{"device": "dlhal/0000:03:00.0", "number": 20, "split": 2}]'
	module ports "{$want, \"_ansible_check_mode\": true}"
	c1=$(cat $T/m.out)
	module ports "{$want}"
	c2=$(cat $T/m.out)
	module ports "{$want}"
	c3=$(cat $T/m.out)
	n=$(dl --kernel -j port show | grep -o '"port":20,' | wc -l)
	case "$c1" in *'"changed": true'*'"partial": true'*'"result": "partial"'*"no dry run"*) r1=ok ;; *) r1=no ;; esac
	case "$c2" in *'"changed": true'*'"result": "done"'*) r2=ok ;; *) r2=no ;; esac
	case "$c3" in *'"changed": false'*'"result": "nothing"'*) r3=ok ;; *) r3=no ;; esac
	if [ $r1 = ok ] && [ $r2 = ok ] && [ $r3 = ok ] && [ "$n" = 2 ]; then
		ok "Ansible's dlhal.devlink.ports on the kernel: check mode partial (warned), splits the bridged Spectrum's port 20, then changed=0"
	else
		nok "dlhal.devlink.ports on the kernel" "$n / $(echo "$c1" | head -c 400) / $(echo "$c2" | head -c 400) / $(echo "$c3" | head -c 300)"
	fi
	module ports '{"kernel": true, "dl_path": "/usr/bin/dl", "ports": [{"device": "dlhal/0000:03:00.0", "number": 20, "split": 1}]}'
	case "$(cat $T/m.out)" in *'"changed": true'*) ;; *) nok "port 20 whole again" "$(head -c 400 $T/m.out)" ;; esac
else
	nok "python3 in the VM (tests/vm/run.sh copies Debian's with ansible's module_utils)"
fi
# A netdev name the kernel has: netdevsim takes eth32, the name Spectrum gives port 2 on a split.
echo "13 1" > /sys/bus/netdevsim/new_device
i=0; until ip link show eth32 > /dev/null 2>&1; do i=$((i + 1)); [ $i -gt 100 ] && break; sleep 0.1; done
devlink port show | grep '^dlhal/' | sort > $T/before
devlink port split dlhal/0000:03:00.0/1 count 2 > $T/bs 2>&1; r=$?
sleep 1
devlink port show | grep '^dlhal/' | sort > $T/after
if [ $r != 0 ] && grep -q "could not take the driver's ports" $T/bs && cmp -s $T/before $T/after &&
	[ "$(bdl port show pci/0000:03:00.0/1)" = "pci/0000:03:00.0/1: type eth netdev eth0" ] &&
	! bdl port show pci/0000:03:00.0/2 > /dev/null 2>&1; then
	ok "a split whose netdev name the kernel has fails, and dlhald undoes it too"
else
	nok "undo through dlhald" "rc=$r $(cat $T/bs; diff $T/before $T/after | head -n 4; bdl port show pci/0000:03:00.0/1; grep -i undo $T/bd.log)"
fi
echo 13 > /sys/bus/netdevsim/del_device
# 1,000 split/unsplit cycles through devlink: nothing left behind.
links=$(ip link | wc -l); slab=$(grep -E '^Slab:' /proc/meminfo | awk '{print $2}')
i=0; bad=0
while [ $i -lt 1000 ]; do
	devlink port split dlhal/0000:03:00.0/1 count 2 || bad=$((bad + 1))
	devlink port unsplit dlhal/0000:03:00.0/1 || bad=$((bad + 1))
	i=$((i + 1))
done > $T/cycles 2>&1
links2=$(ip link | wc -l); slab2=$(grep -E '^Slab:' /proc/meminfo | awk '{print $2}')
if [ $bad = 0 ] && [ "$links" = "$links2" ] && [ "$(devlink port show | grep -c '^dlhal/0000:03:00.0/')" = 32 ] &&
	[ $((slab2 - slab)) -lt 4096 ]; then
	ok "1000 split/unsplit cycles through devlink: same ports and links, slab $slab -> $slab2 kB"
else
	nok "1000 cycles" "failures $bad, links $links -> $links2, slab $slab -> $slab2 kB $(head -n 3 $T/cycles)"
fi
kill -TERM $bd; wait $bd
# --state: SIGKILL takes the instances out; a restart brings the split back in the kernel too.
dlhald -f -s $T/b.sock --sim sn2700,cx3-vpi --kernel-bridge --state $T/bstate.json > $T/bd.log 2>&1 &
bd=$!
i=0; until devlink dev show 2> /dev/null | grep -q '^dlhal/0000:01:00.0$'; do i=$((i + 1)); [ $i -gt 100 ] && break; sleep 0.1; done
devlink port split dlhal/0000:03:00.0/9 count 4 > $T/bs 2>&1
kill -KILL $bd; wait $bd 2> /dev/null
sleep 0.5
if ! devlink dev show | grep -q '^dlhal/' && ! ip link show eth4 > /dev/null 2>&1; then
	ok "SIGKILL of dlhald removes its instances and netdevs"
else
	nok "SIGKILL with the bridge" "$(devlink dev show)"
fi
dlhald -f -s $T/b.sock --sim sn2700,cx3-vpi --kernel-bridge --state $T/bstate.json > $T/bd.log 2>&1 &
bd=$!
i=0; until devlink dev show 2> /dev/null | grep -q '^dlhal/0000:01:00.0$'; do i=$((i + 1)); [ $i -gt 100 ] && break; sleep 0.1; done
if [ "$(devlink port show | grep -c '^dlhal/0000:03:00.0/\(9\|10\|11\|12\): .*split_group')" = 4 ]; then
	ok "restarted with --state, dlhald puts the split ports back in the kernel"
else
	nok "restart with --state" "$(devlink port show | grep '0000:03:00.0/1[0-2]\?:'; cat $T/bs $T/bd.log)"
fi
kill -TERM $bd; wait $bd
if ! devlink dev show | grep -q '^dlhal/'; then ok "dlhald stopping takes its instances out of the kernel"
else nok "dlhald stop with the bridge" "$(devlink dev show)"; fi
# An Intel E810 through the bridge (issue 20): iproute2's split is stored for the next reset (a
# warning, no port changes), devlink's reload activates it: four instances, one port each.
dlhald -f -s $T/ice.sock --sim e810-cqda2 --kernel-bridge > $T/ice.log 2>&1 &
ice=$!
i=0; until devlink dev show 2> /dev/null | grep -q '^dlhal/0000:16:00.1$'; do i=$((i + 1)); [ $i -gt 100 ] && break; sleep 0.1; done
devlink port show | grep '^dlhal/0000:16' | sort > $T/ice0
# Each PF tells what Linux 6.1's ice tells: its driver, the card's DSN, the PBA, ice's 17 versions.
devlink dev info dlhal/0000:16:00.1 > $T/iceinfo 2>&1
if grep -qx "  driver ice" $T/iceinfo && grep -qx "  serial_number 6c-b3-11-ff-ff-4d-9a-10" $T/iceinfo &&
	grep -qx "        board.id K65390-000" $T/iceinfo && grep -qx "        fw.app.name ICE OS Default Package" $T/iceinfo &&
	[ "$(grep -c "fw.netlist.build 0xee16ced7" $T/iceinfo)" = 2 ] &&
	[ "$(basename "$(readlink /sys/bus/dlhal/devices/0000:16:00.1/driver)")" = ice ]; then
	ok "a bridged E810's PF in devlink dev info and sysfs as ice: driver, DSN, board.id, running and stored versions"
else
	nok "a bridged E810's info" "$(cat $T/iceinfo)"
fi
devlink port split dlhal/0000:16:00.0/0 count 4 > $T/ice.split 2>&1; r=$?
devlink port show | grep '^dlhal/0000:16' | sort > $T/ice1
pend=$(dl -s $T/ice.sock -d dev show pci/0000:16:00.0)
if [ $r = 0 ] && grep -q "Reboot required to finish port split" $T/ice.split && [ -s $T/ice0 ] && cmp -s $T/ice0 $T/ice1 &&
	[ "$(echo "$pend" | head -n 1)" = "pci/0000:16:00.0: driver ice backend daemon pending split 4" ] &&
	echo "$pend" | grep -q '^  Pending 4 '; then
	ok "devlink port split on a bridged E810: the warning, no port changed, pending split 4 in dlhald (and its options)"
else
	nok "staged split through the bridge" "rc=$r $(cat $T/ice.split; diff $T/ice0 $T/ice1; echo "$pend")"
fi
devlink dev reload dlhal/0000:16:00.0 action fw_activate > $T/ice.rl 2>&1; r=$?
i=0; until [ "$(devlink port show 2> /dev/null | grep -c '^dlhal/0000:16:00\.[0-3]/0: type eth netdev ens16f[0-3]')" = 4 ]; do
	i=$((i + 1)); [ $i -gt 100 ] && break; sleep 0.1
done
if [ $r = 0 ] && [ "$(cat $T/ice.rl)" = "reload_actions_performed:
    fw_activate" ] && [ "$(devlink dev show | grep -c '^dlhal/0000:16:00\.')" = 4 ] &&
	[ "$(devlink port show | grep -c '^dlhal/0000:16:00\.[0-3]/0: type eth netdev ens16f[0-3]')" = 4 ] &&
	[ "$(dl -s $T/ice.sock -d dev show pci/0000:16:00.0 | head -n 1)" = "pci/0000:16:00.0: driver ice backend daemon" ] &&
	dl -s $T/ice.sock -d dev show pci/0000:16:00.0 | grep -q '^  Active  4 '; then
	ok "devlink dev reload action fw_activate: four instances of one port each, nothing pending"
else
	nok "reload through the bridge" "rc=$r $(cat $T/ice.rl; devlink dev show; devlink port show | grep 0000:16; tail -n 5 $T/ice.log)"
fi
devlink dev reload dlhal/0000:16:00.2 > $T/ice.rl2 2>&1; r=$?
if [ $r != 0 ] && grep -q "Requested reload action is not supported by the driver" $T/ice.rl2; then
	ok "devlink dev reload without an action (driver_reinit): ice's refusal, in devlink's words"
else
	nok "reload driver_reinit through the bridge" "rc=$r $(cat $T/ice.rl2)"
fi
kill -TERM $ice; wait $ice
if ! devlink dev show | grep -q '^dlhal/'; then ok "the E810's instances go with dlhald"
else nok "E810 instances after dlhald stops" "$(devlink dev show)"; fi
. /rules.sh
. /spectrum.sh
. /vpi.sh
. /bridge-cases.sh
if rmmod dlhal_bridge; then ok "the module unloads once its files are closed"; else nok "rmmod dlhal_bridge" "busy"; fi
if dmesg | grep -qiE "warning|bug|call trace|oops"; then nok "dmesg is clean during the bridge tests" "$(dmesg | tail -n 20)"
else ok "dmesg is clean during the bridge tests"; fi

echo "$pass passed, $fail failed"
