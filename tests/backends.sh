#!/bin/bash
# dl the same on every backend it can reach here, and long-lived clients when the backend goes:
# - the port matrix (tests/port-matrix.sh): every command that takes a port, by handle and by netdev,
#   in process and through a real dlhald, the same answers;
# - a device behind dlhald is its driver's (mlxsw), the daemon the way there;
# - dl monitor, dl panel --follow and a Lua event loop when dlhald stops (SIGTERM, SIGKILL) under them:
#   each says so and ends non-zero, several rounds; a monitor started on the dlhald started again hears it;
# - dlhald --desired names every unmet entry of its file in its log.
# (The kernel's column of the matrix runs in the VM: tests/vm/guest.sh.)
# Usage: tests/backends.sh BUILD SRC
lib_name=backends lib_tools="lua5.4"
. "$(dirname "$0")/script-lib.sh"
export DLHAL_MODULE_PATH=$BUILD/kernel:$BUILD/drivers/mlxsw:$BUILD/drivers/mlx4:$BUILD/drivers/ice
S=$T/d.sock

start() { # PROFILES [dlhald options]: a dlhald on $S, its pid in $dpid
	local sim=$1
	shift
	"$DLHALD" -f -s "$S" --sim "$sim" "$@" 2>> "$T/d.log" &
	dpid=$!
	pids+=("$dpid")
	daemon_wait "$S" || { nok "dlhald did not start" "$(tail -n 5 "$T/d.log")"; exit 1; }
}

# --- the port matrix: in process and through dlhald ------------------------------------------------
start sn2700,cx3-vpi
if "$SRC/tests/port-matrix.sh" "$DL --sim sn2700,cx3-vpi|pci/0000:03:00.0|pci/0000:01:00.0" \
	"$DL -s $S|pci/0000:03:00.0|pci/0000:01:00.0" > "$T/matrix" 2>&1; then
	ok "port matrix: $(tail -n 1 "$T/matrix" | cut -d' ' -f1) cases (text and -j), each by handle and by netdev, in process and through dlhald: the same answers"
else
	nok "port matrix" "$(grep -A 30 '^not ok' "$T/matrix" | head -n 40)"
fi

# --- the driver of a device behind dlhald is its driver --------------------------------------------
"$DL" -s "$S" -d dev show > "$T/dev" 2>&1
"$DL" -s "$S" -j -d dev show > "$T/devj" 2>&1
"$DL" -s "$S" panel pci/0000:03:00.0 --ascii > "$T/panel" 2>&1
"$DL" -s "$S" -j panel pci/0000:03:00.0 > "$T/panelj" 2>&1
if grep -qx 'pci/0000:03:00.0: driver mlxsw backend daemon' "$T/dev" &&
	grep -qx 'pci/0000:01:00.0: driver mlx4 backend daemon' "$T/dev" &&
	grep -q '"pci/0000:03:00.0":{"dlhal":{"driver":"mlxsw","backend":"daemon"}}' "$T/devj" &&
	head -n 1 "$T/panel" | grep -qx 'pci/0000:03:00.0: mlxsw, 32 cages' && grep -q '"driver":"mlxsw"' "$T/panelj" &&
	! grep -q '"driver":"daemon"' "$T/panelj"; then
	ok "through dlhald the driver is mlxsw (dev show -d, -j, panel), the daemon the backend"
else
	nok "driver through dlhald" "$(cat "$T/dev" "$T/devj"; head -n 1 "$T/panel")"
fi

# --- long-lived clients when dlhald goes away, several rounds --------------------------------------
cat > "$T/loop.lua" << 'LUA'
local dlhal = require "dlhal"
local ctx <close> = assert(dlhal.open { socket = arg[1] })
local lost
ctx:subscribe(function(e) if e.action == "lost" then lost = e.message end end)
print("ready")
io.stdout:flush()
local ok, msg, errname = ctx:run()
print(ok, msg, errname, lost)
LUA
round=0 good=0
for sig in TERM KILL TERM KILL; do
	round=$((round + 1))
	# the files the waits below read, emptied here: a background job truncates its own only once it
	# runs, and an earlier round's "ready" or "watching" would end a wait before it has started
	: > "$T/mon"; : > "$T/mon.err"; : > "$T/follow"; : > "$T/follow.err"; : > "$T/lua"
	"$DL" -s "$S" monitor > "$T/mon" 2> "$T/mon.err" &
	mon=$!
	"$DL" -s "$S" panel pci/0000:03:00.0 --follow --ascii > "$T/follow" 2> "$T/follow.err" &
	fol=$!
	LUA_CPATH="$BUILD/bindings/lua/?.so;;" lua5.4 "$T/loop.lua" "$S" > "$T/lua" 2>&1 &
	lua=$!
	for _ in $(seq 200); do grep -q ready "$T/lua" && grep -q '^┌\|^+' "$T/follow" && break; sleep 0.05; done
	sleep 0.2
	kill -"$sig" "$dpid"
	wait "$dpid" 2> /dev/null
	# each client must end by itself, non-zero, naming what went
	for _ in $(seq 100); do kill -0 $mon 2> /dev/null || kill -0 $fol 2> /dev/null || kill -0 $lua 2> /dev/null || break; sleep 0.05; done
	alive=
	for p in $mon $fol $lua; do kill -0 $p 2> /dev/null && alive="$alive $p" && kill $p; done
	wait $mon; rm=$?
	wait $fol; rf=$?
	wait $lua
	what="the connection to dlhald at $S closed"
	if [ -z "$alive" ] && [ $rm = 1 ] && [ $rf = 1 ] &&
		grep -qx "\[bus,lost\] daemon: $what; nothing more will come from it" "$T/mon" &&
		grep -q "\[dev,del\] pci/0000:03:00.0" "$T/mon" &&
		grep -qx "dl monitor: $what: stopped (run it again once it is back)" "$T/mon.err" &&
		grep -qx "dl panel: $what: stopped (run it again once it is back)" "$T/follow.err" &&
		grep -qx "nil	daemon: $what	ECONNRESET	$what" "$T/lua"; then
		good=$((good + 1))
	else
		nok "round $round (SIG$sig): the clients when dlhald goes" "alive:$alive monitor $rm, panel $rf
$(tail -n 2 "$T/mon"; cat "$T/mon.err" "$T/follow.err" "$T/lua")"
	fi
	# dlhald again on the same socket: a monitor started now hears a split
	rm -f "$S"
	start sn2700,cx3-vpi
	: > "$T/mon2"; : > "$T/mon2.err"
	"$DL" -s "$S" -v monitor port > "$T/mon2" 2> "$T/mon2.err" &
	mon=$!
	# up to 20 s each: on a loaded 2-core machine (CI runs the bare Debian build beside this) the
	# monitor's first fill and the split's notification can take seconds; success ends the wait
	for _ in $(seq 400); do grep -q watching "$T/mon2.err" && break; sleep 0.05; done
	"$DL" -s "$S" port split eth0 2 > "$T/split2" 2>&1; rs=$?
	for _ in $(seq 400); do grep -q 'eth32' "$T/mon2" && break; sleep 0.05; done
	kill $mon; wait $mon 2> /dev/null
	if ! grep -q '\[port,new\] pci/0000:03:00.0/2: type eth netdev eth32' "$T/mon2"; then
		nok "round $round: a monitor on the dlhald started again" "split rc=$rs $(cat "$T/split2")
$(cat "$T/mon2" "$T/mon2.err")"
		good=0
	fi
	"$DL" -s "$S" port unsplit eth0
done
[ $good = $round ] && ok "dl monitor, dl panel --follow and a Lua loop end (exit 1, nil+ECONNRESET) naming the closed connection when dlhald stops: $round rounds, SIGTERM and SIGKILL; a new monitor hears the restarted one"
kill "$dpid"; wait "$dpid" 2> /dev/null; rm -f "$S"

# --- dlhald --desired names every unmet entry --------------------------------------------------------
{
	for n in 2 3 4; do printf '[Match]\nDevice=pci/0000:99:00.%s\nNumber=1\n[Port]\nSplit=2\n\n' "$n"; done
	printf '[Match]\nDevice=pci/0000:03:00.0\nNumber=17\n[Port]\nSplit=2\n'
} > "$T/des.conf"
: > "$T/d.log"
start sn2700 --desired "$T/des.conf"
for _ in $(seq 100); do grep -q 'unmet' "$T/d.log" && break; sleep 0.05; done
line=$(grep 'desired: unmet' "$T/d.log")
if [ "$(printf '%s\n' "$line" | grep -o 'matches no port: no device pci/0000:99:00.[234]' | sort -u | wc -l)" = 3 ] &&
	printf '%s\n' "$line" | grep -q "des.conf:2: .*des.conf:8: .*des.conf:14: " && ! printf '%s' "$line" | grep -q 'and more' &&
	"$DL" -s "$S" port show pci/0000:03:00.0/2 > /dev/null 2>&1; then
	ok "dlhald --desired: the met entry applied, each of the 3 unmet ones named in one log line"
else
	nok "dlhald unmet log" "$(cat "$T/d.log")"
fi

echo "$pass passed, $fail failed"
[ $fail = 0 ]
