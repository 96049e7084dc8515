# Sourced by guest.sh after spectrum.sh (its ok, nok, $T): today's VPI adapters (issue 44). A
# ConnectX-6 VPI bridged as Linux's mlx5_core publishes it: one instance per function, bound to
# mlx5_core, fw.psid and fw.version, a devlink port only for a function that runs Ethernet, and no
# type set through devlink. A separate dl --kernel recognises it, reaches the card's configuration
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
# The card's state, as the emulated firmware holds it: "eth ib / eth eth" (current / next).
card() { dl -s $T/v.sock sim show pci/0000:3b:00.0 state | sed 's/[][{}"]//g; s/current://; s/,next:/ \/ /; s/,/ /g'; }

drv=$(basename "$(readlink /sys/bus/dlhal/devices/0000:3b:00.0/driver)")
devlink dev info $V.0 > $T/v.info 2>&1
devlink port show > $T/v.ports 2>&1
devlink port set $V.0/65535 type ib > $T/v.set 2>&1; r=$?
if [ "$drv" = mlx5_core ] && grep -qx "        fw.psid DLHAL_CX6VPI" $T/v.info && grep -q "^        fw.version 20.35.1012" $T/v.info &&
	[ "$(grep -c "^$V\." $T/v.ports)" = 1 ] && grep -q "^$V.0/65535: type eth netdev ens1f0np0 flavour physical port 0" $T/v.ports &&
	[ $r != 0 ] && grep -qi "not supported" $T/v.set && [ "$(card)" = "eth ib / eth ib" ]; then
	ok "a bridged ConnectX-6 as mlx5_core: bound in sysfs, its info, an Ethernet port only, no type set through devlink"
else
	nok "ConnectX-6 as mlx5_core" "driver '$drv' $(cat $T/v.info; grep "^$V" $T/v.ports; echo rc=$r; cat $T/v.set; card)"
fi
vdl -d dev show $V.0 > $T/v.dev 2>&1
vdl -d port show > $T/v.dports 2>&1
PATH=/nonexistent:/bin:/sbin:/usr/bin:/usr/sbin dl --kernel port set $V.0/65535 type ib > $T/v.nomst 2>&1; r=$?
if grep -qx "  plans exact: mlx5 rules, profile cx6-vpi" $T/v.dev &&
	grep -q "^$V.1/131071: type ib ibdev mlx5_1 flavour physical port 1" $T/v.dports &&
	[ $r != 0 ] && grep -q "The kernel.s driver cannot set a port.s type, and mlx5 rules, profile cx6-vpi, do not fit: mstconfig not found: install Debian.s mstflint package" $T/v.nomst; then
	ok "dl --kernel recognises it through mstconfig, shows the InfiniBand function's port, and says to install mstflint where it is not"
else
	nok "ConnectX-6 recognised" "$(cat $T/v.dev $T/v.dports; echo rc=$r; cat $T/v.nomst)"
fi
# Random sets and resets; the card's state is the truth, the dry runs what each step must do.
want="eth ib / eth ib" bad= sets=0 resets=0 n=0 planned=
while [ $n -lt ${VPI_ROUNDS:-100} ] && [ -z "$bad" ]; do
	n=$((n + 1))
	fn=$((RANDOM % 2))
	idx=$((fn * 65536 + 65535))
	if [ $((RANDOM % 3)) != 0 ]; then
		t=eth; [ $((RANDOM % 2)) = 0 ] && t=ib
		vdl port set $V.$fn/$idx type $t --dry-run > $T/v.plan 2> $T/v.perr; rp=$?
		vdl port set $V.$fn/$idx type $t > $T/v.o 2>&1; r=$?
		set -- $want
		cur0=$1 cur1=$2 nx0=$4 nx1=$5
		[ $fn = 0 ] && nx0=$t
		[ $fn = 1 ] && nx1=$t
		want="$cur0 $cur1 / $nx0 $nx1"
		if [ $r != 0 ] || [ "$(card)" != "$want" ]; then
			bad="set $V.$fn type $t: rc=$r $(cat $T/v.o) card $(card), wanted $want"
		elif [ $rp = 0 ] && grep -q '^after ' $T/v.plan; then
			planned=$(sed -n 's/^after \([^:]*\): type \([a-z]*\).*/\1 \2/p' $T/v.plan | tr '\n' ' ')
		elif [ $rp != 0 ]; then
			bad="dry run of set $V.$fn type $t: rc=$rp $(cat $T/v.perr)"
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
			[ "$(devlink port show 2> /dev/null | grep -c "^$V\.")" = $weth ]; do
			i=$((i + 1)); [ $i -gt 100 ] && break; sleep 0.1
		done
		kports=$(devlink port show | grep -c "^$V\.")
		now=$(vdl -d port show | sed -n "s|^\($V[^:]*\): type \([a-z]*\).*|\1 \2|p" | tr '\n' ' ')
		if [ $r != 0 ] || [ "$(card)" != "$want" ] || [ "$kports" != $weth ]; then
			bad="reset of $V.$fn: rc=$r $(cat $T/v.o) card $(card), wanted $want; $kports kernel ports"
		elif [ -n "$planned" ] && [ "$now" != "$planned" ]; then
			bad="reset: dl shows '$now', the last dry run said '$planned'"
		fi
		planned=
		resets=$((resets + 1))
	fi
done
if [ -z "$bad" ] && [ $sets -gt 0 ] && [ $resets -gt 0 ]; then
	ok "${VPI_ROUNDS:-100} random rounds on the bridged ConnectX-6 through mstflint's stand-ins: $sets sets stored as planned, $resets resets (fw_activate and mstfwreset) bringing up what the dry runs said"
else
	nok "ConnectX-6 sets and resets" "${bad:-$sets sets, $resets resets}"
fi
kill -TERM $vd; wait $vd
