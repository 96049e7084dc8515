# Sourced by guest.sh after spectrum.sh (its ok, nok, $T): today's VPI adapters (issue 44). A
# ConnectX-6 VPI bridged as Linux's mlx5_core publishes it: one instance per function, bound to
# mlx5_core, fw.psid and fw.version, a devlink port only for a function that runs Ethernet, and no
# type set through devlink. From 6.7 (6.12 here) that port is on an instance of its own nested in the
# function's (6.12's auxiliary/mlx5_core.eth.N, here dlhal/mlx5_core.eth.N, bound to mlx5_core.eth). A separate dl --kernel recognises it, reaches the card's configuration
# through mstflint's programs (the stand-ins in /stand-ins, over the emulated card the same dlhald
# serves), shows an InfiniBand function's port from it, and over random sets and resets (dl's
# fw_activate, or mstfwreset) every change is stored as its dry run said and every reset brings up
# what the dry run of the last change said, in the kernel and in dl alike.
[ -x /usr/bin/python3 ] || nok "mstflint's stand-ins" "no python3 in the VM to run them"
sed 's|"pci/0000:03:00.0"|"pci/0000:3b:00.0"|' /cx6-vpi.json > $T/cx6.json
export DLHAL_STANDIN_SOCKET=$T/v.sock DLHAL_STANDIN_DL=/usr/bin/dl
vpath=/stand-ins:$PATH
dlhald -f -s $T/v.sock --sim $T/cx6.json --kernel-bridge > $T/v.log 2>&1 &
vd=$!
V=dlhal/0000:3b:00
i=0; until [ "$(devlink dev show 2> /dev/null | grep -c "^$V\.")" = 2 ]; do i=$((i + 1)); [ $i -gt 100 ] && break; sleep 0.1; done
vdl() { PATH=$vpath dl --kernel "$@"; }
# Where function $1's Ethernet port is: its own instance (6.1), or the one nested in it (6.7 on).
kmaj=$(uname -r | cut -d. -f1) kmin=$(uname -r | cut -d. -f2)
nests=0; [ "$kmaj" -gt 6 ] || { [ "$kmaj" = 6 ] && [ "$kmin" -ge 7 ]; } && nests=1
eth_of() { if [ $nests = 1 ]; then echo dlhal/mlx5_core.eth.$1; else echo $V.$1; fi; }
# The card's instances and ports, as the kernel holds them.
K="^\($V\.\|dlhal/mlx5_core\.eth\.\)"

# The card's state, as the emulated firmware holds it: "eth ib / eth eth" (current / next).
card() { dl -s $T/v.sock sim show pci/0000:3b:00.0 state | sed 's/[][{}"]//g; s/current://; s/,next:/ \/ /; s/,/ /g'; }

drv=$(basename "$(readlink /sys/bus/dlhal/devices/0000:3b:00.0/driver)")
devlink dev info $V.0 > $T/v.info 2>&1
devlink port show > $T/v.ports 2>&1
devlink port set $(eth_of 0)/65535 type ib > $T/v.set 2>&1; r=$?
if [ "$drv" = mlx5_core ] && grep -qx "        fw.psid DLHAL_CX6VPI" $T/v.info && grep -q "^        fw.version 20.35.1012" $T/v.info &&
	[ "$(grep -c "$K" $T/v.ports)" = 1 ] && grep -q "^$(eth_of 0)/65535: type eth netdev ens1f0np0 flavour physical port 0" $T/v.ports &&
	[ $r != 0 ] && grep -qi "not supported" $T/v.set && [ "$(card)" = "eth ib / eth ib" ]; then
	ok "a bridged ConnectX-6 as mlx5_core: bound in sysfs, its info, an Ethernet port only$([ $nests = 1 ] && echo " (on its nested instance)"), no type set through devlink"
else
	nok "ConnectX-6 as mlx5_core" "driver '$drv' $(cat $T/v.info; grep "$K" $T/v.ports; echo rc=$r; cat $T/v.set; card)"
fi
if [ $nests = 1 ]; then
	ndrv=$(basename "$(readlink /sys/bus/dlhal/devices/mlx5_core.eth.0/driver)")
	devlink dev info dlhal/mlx5_core.eth.0 > $T/v.ninfo 2>&1
	vdl -d dev show dlhal/mlx5_core.eth.0 > $T/v.ndev 2>&1
	PATH=$vpath dl --kernel port set dlhal/mlx5_core.eth.0/65535 type ib --dry-run > $T/v.nplan 2>&1; r=$?
	if [ "$ndrv" = mlx5_core.eth ] && grep -q "driver mlx5_core.eth" $T/v.ninfo && ! grep -q fw.psid $T/v.ninfo &&
		grep -qx "  plans exact: mlx5 rules, profile cx6-vpi" $T/v.ndev && [ $r = 0 ] &&
		grep -q "^after $V.0/65535: type ib" $T/v.nplan; then
		ok "6.7 on: the Ethernet port's nested instance (mlx5_core.eth, no info) recognised through the function it is nested in"
	else
		nok "nested Ethernet instance" "driver '$ndrv' $(cat $T/v.ninfo $T/v.ndev; echo rc=$r; cat $T/v.nplan)"
	fi
fi
vdl -d dev show $V.0 > $T/v.dev 2>&1
vdl -d port show > $T/v.dports 2>&1
PATH=/nonexistent:/bin:/sbin:/usr/bin:/usr/sbin dl --kernel port set $(eth_of 0)/65535 type ib > $T/v.nomst 2>&1; r=$?
if grep -qx "  plans exact: mlx5 rules, profile cx6-vpi" $T/v.dev &&
	grep -q "^$V.1/131071: type ib ibdev mlx5_1 flavour physical port 1" $T/v.dports &&
	[ $r != 0 ] && grep -q "The kernel.s driver cannot set a port.s type, and mlx5 rules, profile cx6-vpi, do not fit: mstconfig not found: install Debian.s mstflint package" $T/v.nomst; then
	ok "dl --kernel recognises it through mstconfig, shows the InfiniBand function's port, and says to install mstflint where it is not"
else
	nok "ConnectX-6 recognised" "$(cat $T/v.dev $T/v.dports; echo rc=$r; cat $T/v.nomst)"
fi
# Random sets and resets; the card's state is the truth, the dry runs what each step must do. A dry
# run that cannot name a nested instance not there yet (an IB function's, back to Ethernet) is
# partial (exit 3): what the reset then brings is checked against the card only.
want="eth ib / eth ib" bad= sets=0 resets=0 n=0 planned= partial=0 checked=0
while [ $n -lt ${VPI_ROUNDS:-150} ] && [ -z "$bad" ]; do
	n=$((n + 1))
	fn=$((RANDOM % 2))
	idx=$((fn * 65536 + 65535))
	if [ $((RANDOM % 3)) != 0 ]; then
		t=eth; [ $((RANDOM % 2)) = 0 ] && t=ib
		set -- $want
		cur0=$1 cur1=$2 nx0=$4 nx1=$5
		h=$V.$fn; [ "$(eval echo \$cur$fn)" = eth ] && h=$(eth_of $fn)
		vdl port set $h/$idx type $t --dry-run > $T/v.plan 2> $T/v.perr; rp=$?
		vdl port set $h/$idx type $t > $T/v.o 2>&1; r=$?
		[ $fn = 0 ] && nx0=$t
		[ $fn = 1 ] && nx1=$t
		want="$cur0 $cur1 / $nx0 $nx1"
		if [ $r != 0 ] || [ "$(card)" != "$want" ]; then
			bad="set $h type $t: rc=$r $(cat $T/v.o) card $(card), wanted $want"
		elif [ $rp = 0 ] && grep -q '^after ' $T/v.plan; then
			planned=$(sed -n 's/^after \(.*\): type \([a-z]*\).*/\1 \2/p' $T/v.plan | sort | tr '\n' ' ')
		elif [ $rp = 3 ] && [ $nests = 1 ]; then
			planned= partial=$((partial + 1))
		elif [ $rp != 0 ]; then
			bad="dry run of set $h type $t: rc=$rp $(cat $T/v.plan $T/v.perr)"
		fi
		sets=$((sets + 1))
	else
		if [ $((RANDOM % 2)) = 0 ]; then
			vdl dev reload $V.$fn action fw_activate > $T/v.o 2>&1; r=$?
		else
			PATH=$vpath mstfwreset -d 0000:3b:00.$fn -l 3 -y reset > $T/v.o 2>&1; r=$?
		fi
		set -- $want
		want="$4 $5 / $4 $5"
		set -- $want
		weth=0; [ $1 = eth ] && weth=1; [ $2 = eth ] && weth=$((weth + 1))
		# the reload is answered first; the functions' ports then follow as the bridge publishes them
		i=0
		until [ "$(devlink dev show 2> /dev/null | grep -c "^$V\.")" = 2 ] &&
			[ "$(devlink dev show 2> /dev/null | grep -c "^dlhal/mlx5_core\.eth\.")" = $((weth * nests)) ] &&
			[ "$(devlink port show 2> /dev/null | grep -c "$K")" = $weth ]; do
			i=$((i + 1)); [ $i -gt 100 ] && break; sleep 0.1
		done
		kports=$(devlink port show | grep -c "$K")
		now=$(vdl -d port show | sed -n "s#\($K[^:]*\): type \([a-z]*\).*#\1 \3#p" | sort | tr '\n' ' ')
		if [ $r != 0 ] || [ "$(card)" != "$want" ] || [ "$kports" != $weth ]; then
			bad="reset of $V.$fn: rc=$r $(cat $T/v.o) card $(card), wanted $want; $kports kernel ports"
		elif [ -n "$planned" ] && [ "$now" != "$planned" ]; then
			bad="reset: dl shows '$now', the last dry run said '$planned'"
		elif [ -n "$planned" ]; then
			checked=$((checked + 1))
		fi
		planned=
		resets=$((resets + 1))
	fi
done
if [ -z "$bad" ] && [ $sets -gt 0 ] && [ $resets -gt 0 ] && [ $checked -gt 0 ]; then
	ok "${VPI_ROUNDS:-150} random rounds on the bridged ConnectX-6 through mstflint's stand-ins: $sets sets stored as planned ($partial dry runs partial), $resets resets (fw_activate and mstfwreset), $checked bringing up what the dry run said"
else
	nok "ConnectX-6 sets and resets" "${bad:-$sets sets, $resets resets, $checked compared with a dry run}"
fi
# A dlhald --kernel (recognising the card through the stand-ins too), dl monitor and the panel follow
# the card across a reset: function 0 switched to the other type through that dlhald, then reset.
PATH=$vpath dlhald -f -v -s $T/k.sock --kernel > $T/k.log 2>&1 &
kd=$!
PATH=$vpath dl --kernel -v monitor port > $T/kmon 2> $T/kmon.err &
km=$!
i=0; until [ -S $T/k.sock ] && grep -q "dl monitor: watching" $T/kmon.err; do i=$((i + 1)); [ $i -gt 300 ] && break; sleep 0.1; done
# function 0 to the other type, then back: both ways across a reset
follow() {
	t=ib h=$(eth_of 0); [ $1 = ib ] && t=eth h=$V.0
	kmon0=$(wc -l < $T/kmon)
	dl -s $T/k.sock port set $h/65535 type $t > $T/k.set 2>&1; r1=$?
	dl -s $T/k.sock -d port show $h/65535 > $T/k.pend 2>&1
	dl -s $T/k.sock dev reload $V.0 action fw_activate > $T/k.rl 2>&1; r2=$?
	h=$V.0; [ $t = eth ] && h=$(eth_of 0)
	i=0; until dl -s $T/k.sock -d port show 2> /dev/null | grep -q "^$h/65535: type $t"; do i=$((i + 1)); [ $i -gt 100 ] && break; sleep 0.1; done
	dl -s $T/k.sock -d port show > $T/k.ports 2>&1
	dl -s $T/k.sock panel > $T/k.panel 2>&1; r3=$?
	sleep 0.5
	ev='\[port,del\]' cell='I mlx5_0'; [ $t = eth ] && ev='\[port,new\]' cell='0np0'
	if [ $r1 = 0 ] && grep -q "pending type $t" $T/k.pend && [ $r2 = 0 ] && grep -q "^$h/65535: type $t" $T/k.ports &&
		[ "$(grep -c "/65535:" $T/k.ports)" = 1 ] && ! grep -q "pending" $T/k.ports &&
		tail -n +$((kmon0 + 1)) $T/kmon | grep -q "$ev $(eth_of 0)/65535" && [ $r3 = 0 ] && grep -q "$cell" $T/k.panel; then
		ok "dlhald --kernel, dl monitor and dl panel follow the card across the reset (function 0 to $t)"
	else
		nok "following the card across a reset" "to $t: rc=$r1,$r2,$r3 $(cat $T/k.set $T/k.pend $T/k.rl $T/k.ports $T/kmon $T/k.panel; tail -n 25 $T/k.log)"
	fi
}
set -- $want
follow $1
follow $t
kill -TERM $km; wait $km
kill -TERM $kd; wait $kd
kill -TERM $vd; wait $vd
