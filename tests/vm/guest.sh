#!/bin/sh
# Runs inside the test VM as root, after init loaded netdevsim: dl against the
# real kernel devlink family, with Debian's devlink as the independent peer.
# Prints "ok NAME" or "not ok NAME: why" per test, then "N passed, M failed".
pass=0 fail=0
ok() { echo "ok $1"; pass=$((pass + 1)); }
nok() { echo "not ok $1: $2"; fail=$((fail + 1)); }
T=/tmp/t
mkdir -p $T

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
dl dev show | sort > $T/dl.dev
devlink dev show | sort > $T/devlink.dev
if [ -s $T/dl.dev ] && cmp -s $T/dl.dev $T/devlink.dev; then ok "dev show lists the same handles"
else nok "dev show lists the same handles" "$(cat $T/dl.dev) vs $(cat $T/devlink.dev)"; fi
# text lines: handle, type and netdev as devlink prints them
dl port show netdevsim/netdevsim10/0 > $T/line
case "$(cat $T/line)" in
"netdevsim/netdevsim10/0: type eth netdev "*) ok "text port line" ;;
*) nok "text port line" "$(cat $T/line)" ;;
esac

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
ready() { # wait for dl -v monitor to say it is watching
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

echo "$pass passed, $fail failed"
