# Sourced by guest.sh (ok, nok, $T): a bridged Spectrum that reports itself as Linux's
# mlxsw_spectrum on an SN2700 does (issue 30). A separate dl --kernel recognises it from what the
# kernel reports, plans with Spectrum's rules (exact dry runs, conflicts refused before anything
# changes, the board's faceplate), and every plan is checked against what the kernel then does,
# over random splits and unsplits made by dl and by iproute2's devlink in turn. A bridged ConnectX-3
# VPI, reporting itself as Linux's mlx4_core does (nothing of its own: sysfs names the driver), is
# recognised by its driver alone and planned with mlx4's type rules the same way. A bridged E810,
# reporting itself as Linux's ice does (a devlink instance per PF, the PBA as board.id), is recognised
# by its board and planned with ice's rules, exactly where what Linux reports is enough.
D=dlhal/0000:03:00.0
H=dlhal/0000:01:00.0
dlhald -f -s $T/r.sock --sim sn2700,e810-cqda2,cx3-vpi --kernel-bridge > $T/r.log 2>&1 &
rd=$!
i=0; until devlink dev show 2> /dev/null | grep -q "^$D\$"; do i=$((i + 1)); [ $i -gt 100 ] && break; sleep 0.1; done

# What the instance reports of itself: as mlxsw_spectrum reports an SN2700, bound to that driver.
printf '%s\n' "$D:" "  driver mlxsw_spectrum" "  versions:" "      fixed:" "        hw.revision A1" \
	"        fw.psid MT_2860111033" "      running:" "        fw.version 13.2010.1006" "        fw 13.2010.1006" \
	> $T/rinfo.want
devlink dev info $D > $T/rinfo 2>&1
dl --kernel dev info $D > $T/rinfo.dl 2>&1
drv=$(basename "$(readlink /sys/bus/dlhal/devices/0000:03:00.0/driver)")
if cmp -s $T/rinfo.want $T/rinfo && cmp -s $T/rinfo $T/rinfo.dl && [ "$drv" = mlxsw_spectrum ]; then
	ok "a bridged SN2700 reports itself as mlxsw_spectrum does, bound to that driver in sysfs"
else
	nok "bridged device info" "driver '$drv' $(diff $T/rinfo.want $T/rinfo; diff $T/rinfo $T/rinfo.dl)"
fi

# Recognised: exact dry runs in Spectrum's words, the board's lanes, modules and faceplate.
dl --kernel port split $D/3 2 --dry-run > $T/r1 2>&1; r1=$?
dl --kernel port split $D/3 8 --dry-run > $T/r2 2>&1; r2=$?
dl --kernel port unsplit $D/3 --dry-run > $T/r3 2>&1; r3=$?
dl --kernel -d port show $D/1 > $T/r4 2>&1
dl --kernel -d dev show $D > $T/r5 2>&1
if [ $r1 = 0 ] && [ "$(cat $T/r1)" = "split $D/3 into 2: would be done
del $D/3: type eth netdev eth1
new $D/3: type eth split_group 1
new $D/4: type eth split_group 1" ] && [ $r2 = 1 ] && grep -q "Invalid split count" $T/r2 &&
	[ $r3 = 1 ] && grep -q "Port was not split" $T/r3 &&
	grep -q "lanes 4 speed 100000 module 16 lane 0 split_counts 2,4$" $T/r4 &&
	grep -qx "  plans exact: mlxsw rules, profile sn2700" $T/r5; then
	ok "dl --kernel on a recognised Spectrum: exact dry runs, refusals in its words, modules and split counts"
else
	nok "recognised Spectrum plans" "$r1 $(cat $T/r1) / $r2 $(cat $T/r2) / $r3 $(cat $T/r3) / $(cat $T/r4 $T/r5)"
fi
dl --kernel panel --ascii > $T/rpanel 2>&1; r=$?
if [ $r = 0 ] && grep -q "^$D: mlxsw_spectrum, 32 cages\$" $T/rpanel; then
	ok "dl --kernel panel draws the recognised Spectrum from its board's faceplate"
else
	nok "panel of a recognised Spectrum" "rc=$r $(grep -v '^[|+]' $T/rpanel)"
fi
# A conflicting file is refused before anything changes, naming both lines.
printf '[Match]\nDevice=%s\nNumber=17\n[Port]\nSplit=4\n\n[Match]\nDevice=%s\nNumber=1\n[Port]\nSplit=2\n' $D $D > $T/rc.conf
devlink port show | grep "^$D/" > $T/rbefore
dl --kernel apply $T/rc.conf --dry-run > $T/rca 2>&1; r1=$?
dl --kernel apply $T/rc.conf > $T/rcb 2>&1; r2=$?
devlink port show | grep "^$D/" > $T/rafter
if [ $r1 = 1 ] && [ $r2 = 1 ] && grep -q "rc.conf:11 conflicts with .*rc.conf:5: split $D port 17 into 4" $T/rcb &&
	grep -q "(nothing was changed)" $T/rcb && cmp -s $T/rbefore $T/rafter; then
	ok "dl --kernel apply: a conflicting file refused before anything changes, both lines named"
else
	nok "conflict through the kernel" "$r1 $(cat $T/rca) / $r2 $(cat $T/rcb) / $(diff $T/rbefore $T/rafter | head -n 4)"
fi
# dlhald --kernel --desired refuses the same file whole, and changes nothing.
desired_until $T/rc.conf $T/rk.log "nothing of"
devlink port show | grep "^$D/" > $T/rafter
if grep -q "rc.conf:11 conflicts with .*rc.conf:5: .*nothing of .*rc.conf applied" $T/rk.log && cmp -s $T/rbefore $T/rafter; then
	ok "dlhald --kernel --desired: the conflicting file refused whole, nothing changed"
else
	nok "dlhald --desired conflict on the kernel" "$(cat $T/rk.log; diff $T/rbefore $T/rafter | head -n 4)"
fi

# Ansible's ports module in check mode: the recognised Spectrum is planned exactly, without a warning.
if command -v python3 > /dev/null; then
	printf '{"ANSIBLE_MODULE_ARGS": {"kernel": true, "dl_path": "/usr/bin/dl", "_ansible_check_mode": true, "_ansible_diff": true, "ports": [{"device": "%s", "number": 20, "split": 2}]}}' $D > $T/ra.args
	python3 -m ansible_collections.dlhal.devlink.plugins.modules.ports $T/ra.args > $T/ra.out 2>&1
	devlink port show | grep "^$D/" > $T/rafter
	case "$(cat $T/ra.out)" in
	*'"changed": true'*'"partial": false'*'"result": "would"'*) r=ok ;;
	*) r=no ;;
	esac
	# the diff's after is dl's dry run's: port 20's two halves, split group 20 (the port number, as Linux groups)
	if [ $r = ok ] && ! grep -q "no dry run" $T/ra.out && cmp -s $T/rbefore $T/rafter &&
		[ "$(grep -o "$D/[0-9]*: type eth split_group 20" $T/ra.out | wc -l)" = 2 ]; then
		ok "Ansible's dlhal.devlink.ports in check mode: the recognised Spectrum planned exactly, the diff's after from dl, nothing changed"
	else
		nok "Ansible check mode on a recognised Spectrum" "$(head -c 600 $T/ra.out)"
	fi
fi

# The rules follow the running kernel's mlxsw (6.1 and 6.12 alike), as the bridged Spectrum does: a
# split takes the local ports the firmware names (PMTDB) and takes down whatever holds them, where the
# seeds' Linux 4.6 refused ("Invalid split configuration"). Planned exactly, then done as planned.
devlink port split $D/3 count 2 > /dev/null 2>&1
dl --kernel port split $D/1 4 --dry-run > $T/rp 2>&1; r1=$?
dl --kernel port split $D/1 4 > $T/rp2 2>&1; r2=$?
devlink port show > $T/rp3
dl --kernel port unsplit $D/4 > $T/rp4 2>&1; r4=$?
# (sorted: Linux 6.1 lists ports as registered, and ports 1 and 3 are registered anew)
devlink port show | grep "^$D/" | sort > $T/rafter
sort $T/rbefore > $T/rbefore.sorted
if [ $r1 = 0 ] && head -n 1 $T/rp | grep -qx "split $D/1 into 4: would be done" &&
	[ "$(grep -c "^del $D/[134]:" $T/rp)" = 3 ] && [ "$(grep -c "^new $D/[1-4]: type eth split_group 17" $T/rp)" = 4 ] &&
	[ $r2 = 0 ] && [ "$(grep -c "^$D/[1-4]: .* port 17 split_group 17 splittable false lanes 1" $T/rp3)" = 4 ] &&
	[ $r4 = 0 ] && cmp -s $T/rbefore.sorted $T/rafter; then
	ok "a recognised Spectrum follows Linux's mlxsw: port 1 by 4 over port 3's split planned exactly and done so, then undone"
else
	nok "Spectrum rules of the running kernel" "$r1 $(cat $T/rp) / $r2 $(cat $T/rp2) / $(grep "^$D/[1-5]:" $T/rp3) / $r4 $(cat $T/rp4; diff $T/rbefore.sorted $T/rafter | head -n 4)"
fi

# Plans against outcomes: random changes, made by dl and by devlink in turn; each dry run (a
# separate dl) must say exactly what the kernel then reports, or refuse as the kernel does.
# The kit against kernel device DEV with seed SEED ("WHAT" names it): both checks pass, and the steps
# line matches PATTERN when given.
kit_check() { # DEV SEED WHAT [PATTERN]
	DLHAL_MODULE_PATH=/usr/lib/dlhal dlhal-conform --kernel $1 --steps ${RULES_STEPS:-200} --seed $2 > $T/kit 2>&1; r=$?
	if [ $r = 0 ] && grep -q "^ok 1 - kernel_device_recognised" $T/kit && grep -q "^ok 2 - kernel_plans_match_outcomes" $T/kit &&
		grep -q "^# .* steps: ${4:-}" $T/kit; then
		ok "dlhal-conform --kernel on $3: $(grep '^# .* steps:' $T/kit | sed 's/^# //')"
	else
		nok "the kit against $3" "rc=$r $(head -n 12 $T/kit)"
	fi
}
# The op (its exit in $ro) refused in the words of the dry run in PLAN, OUT its output, and the ports
# BEFORE and AFTER it the same.
refused_as_planned() { # PLAN OUT BEFORE AFTER
	why=$(sed -n 's/^Error: .*: \(.*\)\.$/\1/p' $1)
	[ $ro != 0 ] && [ -n "$why" ] && grep -qF "$why" $2 && cmp -s $3 $4
}
seed=${RULES_SEED:-30}
rnd() { seed=$(((seed * 1103515245 + 12345) % 2147483648)); R=$((seed / 65536 % $1)); } # in this shell, into R
# udev names a kernel device's netdevs, not the board: plans name none, so none is compared
ports() { dl --kernel port show ${1:-$D} | sed 's/ netdev [^ ]*//' | sort; }
steps=${RULES_STEPS:-200}
# STEPS random changes of Spectrum DEV's ports, made by dl and by devlink in turn, each held to its dry
# run (a separate dl): done as it said, or refused as the kernel refuses. A whole port is split by 2 or
# 4, and by 8 when MAX is 8 (an 8-lane board). Counts into good and refused; the first miss into bad.
spectrum_rounds() { # DEV STEPS MAX
	sr_dev=$1 sr_steps=$2 sr_max=$3
	n=0 good=0 refused=0 bad=
	while [ $n -lt $sr_steps ]; do
		n=$((n + 1))
		set -- $(devlink port show | sed -n "s|^$sr_dev/\([0-9]*\):.*|\1|p")
		rnd $#
		shift $R
		p=$1
		# mostly what may be done (a split port unsplit, a whole one split), sometimes what may not
		rnd 10
		if devlink port show $sr_dev/$p | grep -q split_group; then
			case $R in 0) op="split"; arg=2 ;; *) op="unsplit"; arg= ;; esac
		elif [ $sr_max = 8 ]; then
			case $R in [0-2]) op="split"; arg=2 ;; [3-5]) op="split"; arg=4 ;; [6-8]) op="split"; arg=8 ;;
			*) op="unsplit"; arg= ;; esac
		else
			case $R in [0-4]) op="split"; arg=2 ;; [5-8]) op="split"; arg=4 ;; *) op="unsplit"; arg= ;; esac
		fi
		ports $sr_dev > $T/pb
		dl --kernel port $op $sr_dev/$p $arg --dry-run > $T/pp 2>&1; rp=$?
		if [ $((n % 2)) = 0 ]; then
			devlink port $op $sr_dev/$p ${arg:+count $arg} > $T/po 2>&1; ro=$?; by=devlink
		else
			dl --kernel port $op $sr_dev/$p $arg > $T/po 2>&1; ro=$?; by=dl
		fi
		ports $sr_dev > $T/pa
		if [ $rp = 0 ]; then
			{ sed -n 's/^del \(.*\): type .*/\1:/p' $T/pp > $T/pdel
			  grep -v -F -f $T/pdel $T/pb; sed -n 's/^new //p' $T/pp; } | sort > $T/pw
			if [ $ro = 0 ] && cmp -s $T/pw $T/pa; then good=$((good + 1)); continue; fi
		elif [ $rp = 1 ] && refused_as_planned $T/pp $T/po $T/pb $T/pa; then
			refused=$((refused + 1)); continue
		fi
		bad="step $n ($by: port $op $sr_dev/$p $arg): plan rc=$rp $(head -n 6 $T/pp) / op rc=$ro $(head -n 2 $T/po) / $(diff $T/pw $T/pa 2> /dev/null | head -n 6)"
		break
	done
}
spectrum_rounds $D $steps 4
if [ -z "$bad" ] && [ $good -gt 0 ] && [ $refused -gt 0 ]; then
	ok "$steps random changes by dl and devlink: $good done as planned, $refused refused as planned"
else
	nok "plans against the kernel's outcomes" "${bad:-$good done, $refused refused}"
fi
# The kit against the kernel device: recognised, and its own random run (another seed) as planned.
kit_check $D 7 "the Spectrum"

# The ConnectX-3: bound to mlx4_core, with no info of its own on 6.1 (as mlx4_core), the core's name
# from 6.2 on; recognised by the driver alone, exact type plans, the board's two cages. The bridge has
# no ib_device to give devlink, so the kernel names no ibdev (mlx4_ib would): the plan names none.
i=0; until devlink dev show 2> /dev/null | grep -q "^$H\$"; do i=$((i + 1)); [ $i -gt 50 ] && break; sleep 0.1; done
drv=$(basename "$(readlink /sys/bus/dlhal/devices/0000:01:00.0/driver)")
devlink dev info $H > $T/hinfo 2>&1; hr=$?
case "$(uname -r)" in 6.1.*) [ $hr != 0 ] && hinfo=ok ;; *) grep -qx "  driver mlx4_core" $T/hinfo && hinfo=ok ;; esac
dl --kernel -d dev show $H > $T/h1 2>&1
dl --kernel port set $H/1 type eth --dry-run > $T/h2 2>&1; h2=$?
dl --kernel panel --ascii > $T/hpanel 2>&1
if [ "$drv" = mlx4_core ] && [ "${hinfo:-}" = ok ] && grep -qx "  plans exact: mlx4 rules, profile cx3-vpi" $T/h1 &&
	[ $h2 = 0 ] && [ "$(cat $T/h2)" = "set $H/1 type eth: would be done
del $H/1: type ib
new $H/1: type eth" ] && grep -q "^$H: mlx4_core, 2 cages\$" $T/hpanel; then
	ok "a bridged ConnectX-3 as mlx4_core: recognised by its driver alone, exact type plans, its two cages"
else
	nok "recognised ConnectX-3" "driver '$drv' info rc $hr / $(cat $T/h1) / $h2 $(cat $T/h2) / $(grep "^$H" $T/hpanel)"
fi
# Linux's devlink skips a type the port runs: port 1 sensed eth in auto stays auto when set to eth.
# dl refuses that rather than report success, and its dry run says so.
devlink port set $H/1 type auto > $T/h3 2>&1
dl --kernel port set $H/1 type eth --dry-run > $T/h4 2>&1; h4=$?
dl --kernel port set $H/1 type eth > $T/h5 2>&1; h5=$?
if [ $h4 = 1 ] && [ $h5 = 1 ] && grep -q "Port runs eth already and the kernel skips a type a port runs: it would stay auto" $T/h5 &&
	dl --kernel -j port show $H/1 | grep -q '"des_type":"auto"'; then
	ok "a type the kernel would skip (eth on a port sensed eth in auto) is refused, not reported done"
else
	nok "the kernel's skipped type" "$(cat $T/h3) / $h4 $(cat $T/h4) / $h5 $(cat $T/h5) / $(dl --kernel -j port show $H/1)"
fi
# Plans against outcomes: random type sets by dl and devlink in turn, each after a dry run.
# "HANDLE TYPE" a line (a handle holds colons: the last ": type" ends it)
htypes() { dl --kernel port show $H | sed -n 's|^\(.*\): type \([a-z]*\).*|\1 \2|p' | sort; }
n=0 good=0 refused=0 bad=
while [ $n -lt ${RULES_STEPS:-200} ]; do
	n=$((n + 1))
	rnd 2; p=$((R + 1)); rnd 3
	case $R in 0) t=eth ;; 1) t=ib ;; *) t=auto ;; esac
	htypes > $T/hb
	if [ $(wc -l < $T/hb) != 2 ]; then bad="step $n: the ConnectX-3's ports: $(cat $T/hb)"; break; fi
	dl --kernel port set $H/$p type $t --dry-run > $T/hp 2>&1; rp=$?
	if [ $((n % 2)) = 0 ]; then
		devlink port set $H/$p type $t > $T/ho 2>&1; ro=$?; by=devlink
	else
		dl --kernel port set $H/$p type $t > $T/ho 2>&1; ro=$?; by=dl
	fi
	htypes > $T/ha
	if [ $rp = 0 ]; then
		# a planned auto port: whichever type the link has
		{ sed -n 's/^del \(.*\): type .*/\1 /p' $T/hp > $T/hdel
		  grep -v -F -f $T/hdel $T/hb; sed -n 's/^new \(.*\): type \([a-z]*\).*/\1 \2/p' $T/hp; } | sort > $T/hw
		if [ $ro = 0 ] && [ $(wc -l < $T/hw) = $(wc -l < $T/ha) ] &&
			[ $(awk 'NR == FNR { w[$1] = $2; next } ($1 in w) && (w[$1] == "auto" || w[$1] == $2)' $T/hw $T/ha | wc -l) = $(wc -l < $T/hw) ]; then
			good=$((good + 1)); continue
		fi
	elif [ $rp = 1 ]; then
		why=$(sed -n 's/^Error: .*: \(.*\)\.$/\1/p' $T/hp)
		# refused by dl (the kernel would skip it) or by the kernel, in the rules' words; nothing changed
		if { [ $by = dl ] && [ $ro != 0 ] && grep -qF "$why" $T/ho || [ $by = devlink ]; } && [ -n "$why" ] && cmp -s $T/hb $T/ha; then
			refused=$((refused + 1)); continue
		fi
	fi
	bad="step $n ($by: port set $H/$p type $t): plan rc=$rp $(head -n 4 $T/hp) / op rc=$ro $(head -n 2 $T/ho) / before $(cat $T/hb) after $(cat $T/ha)"
	break
done
if [ -z "$bad" ] && [ $good -gt 0 ]; then
	ok "${RULES_STEPS:-200} random type sets on the ConnectX-3 by dl and devlink: $good done as planned, $refused refused as planned"
else
	nok "type plans against the kernel's outcomes" "${bad:-$good done, $refused refused}"
fi
kit_check $H 11 "the ConnectX-3"

# The E810: a devlink instance per PF, each reporting itself as ice does; recognised by its board.
# Linux reports neither the card's active port option nor its pending one: a split into a count that
# several options have is exact whichever they are (the search finds another); one into a count that
# a single option has is refused if that one is pending, so its plan is partial and says so.
E=dlhal/0000:16:00.0
i=0; until devlink dev show 2> /dev/null | grep -q "^dlhal/0000:16:00.1\$"; do i=$((i + 1)); [ $i -gt 100 ] && break; sleep 0.1; done
dl --kernel -d dev show $E > $T/e1 2>&1
dl --kernel port split $E/0 4 --dry-run > $T/e2 2>&1; e2=$?
dl --kernel port split $E/0 8 --dry-run > $T/e3 2>&1; e3=$?
dl --kernel port split dlhal/0000:16:00.1/0 2 --dry-run > $T/e4 2>&1; e4=$?
dl --kernel panel --ascii > $T/epanel 2>&1
if grep -qx "  plans exact: ice rules, profile e810-cqda2" $T/e1 && [ $e2 = 0 ] && [ "$(cat $T/e2)" = "split $E/0 into 4: would be done after a reset
after dlhal/0000:16:00.0/0: type eth
after dlhal/0000:16:00.1/0: type eth
after dlhal/0000:16:00.2/0: type eth
after dlhal/0000:16:00.3/0: type eth" ] && [ $e3 = 3 ] &&
	[ "$(cat $T/e3)" = "split $E/0 into 8: cannot be planned: The kernel does not report the card's pending port option: a split into 8 is refused if it is option 4" ] &&
	[ $e4 = 1 ] && grep -q "Port cannot be split" $T/e4 && grep -q "^$E: ice, card of 2 devices, 2 cages\$" $T/epanel; then
	ok "dl --kernel on a recognised E810: exact staged plans, a partial one saying why, one card of its PFs"
else
	nok "recognised E810" "$(cat $T/e1 | tail -n 3) / $e2 $(cat $T/e2) / $e3 $(cat $T/e3) / $e4 $(cat $T/e4) / $(grep "^dlhal/0000:16" $T/epanel)"
fi
# Plans against outcomes: random splits and unsplits by dl and devlink in turn, each after a dry run,
# and resets (devlink's reload) between them: a done split changes no port now, the reset brings up
# as many PFs as the last split done asked for, and without one the reset is refused.
eports() { devlink port show | grep '^dlhal/0000:16:00\.' | sed 's/ netdev [^ ]*//' | sort; }
n=0 exact=0 maybe=0 refused=0 resets=0 last= bad=
while [ $n -lt ${RULES_STEPS:-200} ]; do
	n=$((n + 1))
	rnd 14
	pf=0 arg=
	case $R in 0) op=split; arg=2; pf=1 ;; 1) op=split; arg=16 ;; [2-4]) op=split; arg=2 ;; [5-7]) op=split; arg=4 ;;
	8) op=split; arg=8 ;; 9) op=unsplit ;; *) op=reload ;; esac
	if [ $op = reload ]; then
		devlink dev reload $E action fw_activate > $T/eo 2>&1; ro=$?
		if [ -z "$last" ]; then
			if [ $ro != 0 ] && grep -q "No pending firmware update" $T/eo; then refused=$((refused + 1)); continue; fi
			bad="step $n: reload with nothing pending: rc=$ro $(cat $T/eo)"; break
		fi
		i=0; until [ "$(eports | grep -c ': type eth')" = "$last" ]; do i=$((i + 1)); [ $i -gt 100 ] && break; sleep 0.1; done
		if [ $ro = 0 ] && [ "$(eports | grep -c ': type eth')" = "$last" ] &&
			[ "$(devlink dev show | grep -c '^dlhal/0000:16:00\.')" = "$last" ]; then
			resets=$((resets + 1)); last=; continue
		fi
		bad="step $n: reset after a split into $last: rc=$ro $(cat $T/eo) / $(eports)"; break
	fi
	[ $pf = 1 ] && ! devlink dev show | grep -q '^dlhal/0000:16:00.1$' && pf=0
	P=dlhal/0000:16:00.$pf/0
	eports > $T/eb
	dl --kernel port $op $P $arg --dry-run > $T/ep 2>&1; rp=$?
	if [ $((n % 2)) = 0 ]; then
		devlink port $op $P ${arg:+count $arg} > $T/eo 2>&1; ro=$?; by=devlink
	else
		dl --kernel port $op $P $arg > $T/eo 2>&1; ro=$?; by=dl
	fi
	eports > $T/ea
	if [ $rp = 0 ] && [ $ro = 0 ] && grep -q "Reboot required to finish port split" $T/eo && cmp -s $T/eb $T/ea &&
		[ "$(grep -c '^after ' $T/ep)" = "${arg:-1}" ]; then
		exact=$((exact + 1)); last=${arg:-1}; continue
	elif [ $rp = 3 ] && grep -q "cannot be planned: The kernel does not report the card's pending port option" $T/ep &&
		cmp -s $T/eb $T/ea; then
		if [ $ro = 0 ]; then last=${arg:-1}; maybe=$((maybe + 1)); continue; fi
		if grep -q "Requested split count is already set" $T/eo; then maybe=$((maybe + 1)); continue; fi
	elif [ $rp = 1 ] && refused_as_planned $T/ep $T/eo $T/eb $T/ea; then
		refused=$((refused + 1)); continue
	fi
	bad="step $n ($by: port $op $P $arg): plan rc=$rp $(head -n 3 $T/ep) / op rc=$ro $(head -n 2 $T/eo) / $(diff $T/eb $T/ea | head -n 4)"
	break
done
if [ -z "$bad" ] && [ $exact -gt 0 ] && [ $maybe -gt 0 ] && [ $refused -gt 0 ] && [ $resets -gt 0 ]; then
	ok "${RULES_STEPS:-200} random steps on the E810 by dl and devlink: $exact exact, $maybe partial as said, $refused refused as planned, $resets resets to the last split"
else
	nok "E810 plans against the kernel's outcomes" "${bad:-$exact exact, $maybe partial, $refused refused, $resets resets}"
fi
# A monitor of one PF mirrors the card's others: PF 7 of the eight a reset brings up after a split
# into 8 sits on cage 1, lane 3, which only all eight tell (one PF alone would be a one-port option).
# Recognised once the event that asked is printed (or the fill it came in, from 6.6, is read): a
# line follows that places it.
devlink port split $E/0 count 8 > $T/e8 2>&1 # done, or refused as already pending: 8 after the reset
: > $T/emon
: > $T/emon.err
dl --kernel -v -d monitor port dlhal/0000:16:00.7 > $T/emon 2> $T/emon.err &
em=$!
i=0; until grep -q watching $T/emon.err; do i=$((i + 1)); [ $i -gt 100 ] && break; sleep 0.1; done
devlink dev reload $E action fw_activate > $T/eo 2>&1
i=0; until grep -q "^\[port,new\] dlhal/0000:16:00.7/0: type eth.* module" $T/emon; do
	i=$((i + 1)); [ $i -gt 100 ] && break; sleep 0.1
done
kill -TERM $em; wait $em
if grep "^\[port,new\] dlhal/0000:16:00.7/0: type eth" $T/emon | tail -n 1 | grep -q " speed 10000 module 1 lane 3" &&
	[ "$(grep -vc '16:00\.7' $T/emon)" = 0 ] && [ "$(eports | grep -c ': type eth')" = 8 ]; then
	ok "dl monitor of one E810 PF mirrors its card: PF 7 after a reset into 8 on cage 1, lane 3"
else
	nok "monitor of one E810 PF" "$(cat $T/e8 $T/eo) / $(cat $T/emon.err) / $(cat $T/emon)"
fi
# dlhald --kernel learns from the kernel's answers to its clients' changes, and with --state keeps
# what it learnt across its restarts, for the boot it was learnt in: after a split into 4 through it,
# a split into 8 is planned exactly (a fresh dl --kernel cannot), and PF 0 shows the 4 pending.
kd_start() {
	: > $T/kd.log
	dlhald -f -v -s $T/kd.sock --kernel --state $T/kd.state > $T/kd.log 2>&1 &
	kdp=$!
}
kd_wait() {
	i=0; until [ -S $T/kd.sock ] && dl -s $T/kd.sock dev show $E > /dev/null 2>&1; do
		i=$((i + 1)); [ $i -gt 100 ] && break; sleep 0.1
	done
}
kd() { kd_start; kd_wait; }
rm -f $T/kd.state $T/kd.sock
kd
dl -s $T/kd.sock port split $E/0 4 > $T/k1 2>&1; k1=$?
dl -s $T/kd.sock port split $E/0 8 --dry-run > $T/k2 2>&1; k2=$?
dl -s $T/kd.sock -d dev show $E > $T/k3 2>&1
kill -TERM $kdp; wait $kdp
kd
dl -s $T/kd.sock port split $E/0 8 --dry-run > $T/k4 2>&1; k4=$?
dl -s $T/kd.sock -d dev show $E > $T/k5 2>&1
dl --kernel port split $E/0 8 --dry-run > $T/k6 2>&1; k6=$?
kill -TERM $kdp; wait $kdp
cp $T/kd.log $T/kd.log2
sed -i 's/"boot": "[^"]*"/"boot": "another"/' $T/kd.state
kd
dl -s $T/kd.sock port split $E/0 8 --dry-run > $T/k7 2>&1; k7=$?
kill -TERM $kdp; wait $kdp
if [ $k1 = 0 ] && grep -q "Reboot required to finish port split" $T/k1 && [ $k2 = 0 ] &&
	grep -q "^split $E/0 into 8: would be done after a reset" $T/k2 && grep -q " pending split 4" $T/k3 &&
	[ $k4 = 0 ] && cmp -s $T/k2 $T/k4 && cmp -s $T/k3 $T/k5 && grep -q "taken back what was learnt of $E" $T/kd.log2 &&
	[ $k6 = 3 ] && [ $k7 = 3 ] && grep -q "is of another boot: dropped" $T/kd.log; then
	ok "dlhald --kernel --state: what ice's rules learnt is kept across a restart, for one boot"
else
	nok "dlhald --kernel --state on the E810" "$k1 $(cat $T/k1) / $k2 $(cat $T/k2) / $(cat $T/k3) / $k4 $(cat $T/k4) / $(cat $T/k5) / $k6 / $k7 / $(cat $T/kd.log2 $T/kd.log)"
fi
devlink dev reload $E action fw_activate > /dev/null 2>&1 # the 4 pending: done
i=0; until [ "$(eports | grep -c ': type eth')" = 4 ]; do i=$((i + 1)); [ $i -gt 100 ] && break; sleep 0.1; done
# A reset while dlhald is not running: the kernel counts the card's reloads, so what was learnt before
# it (the 8 pending) is dropped at the next start and said, not taken back as still pending.
rm -f $T/kd.state
kd
dl -s $T/kd.sock port split $E/0 8 > $T/k8 2>&1; k8=$?
kill -TERM $kdp; wait $kdp
tr -d ' \n' < $T/kd.state | grep -q "\"reloads\":{\"$E\":[0-9]"; k9=$?
devlink dev reload $E action fw_activate > /dev/null 2>&1
i=0; until [ "$(eports | grep -c ': type eth')" = 8 ]; do i=$((i + 1)); [ $i -gt 100 ] && break; sleep 0.1; done
kd
dl -s $T/kd.sock -d dev show $E > $T/k10 2>&1
kill -TERM $kdp; wait $kdp
if [ $k8 = 0 ] && [ $k9 = 0 ] && grep -q "what was learnt of $E is dropped: it was reset while dlhald was not running" $T/kd.log &&
	grep -q "^$E:" $T/k10 && ! grep -q "pending split" $T/k10; then
	ok "dlhald --kernel --state: a reset while it was down is seen by the kernel's reload count, and what was learnt dropped"
else
	nok "reset while dlhald was down" "$k8 $(cat $T/k8) / $k9 $(cat $T/kd.state) / $(cat $T/k10 $T/kd.log)"
fi
devlink port split $E/0 count 4 > /dev/null 2>&1 # back to 4 PFs, as the checks below found it
devlink dev reload $E action fw_activate > /dev/null 2>&1
i=0; until [ "$(eports | grep -c ': type eth')" = 4 ]; do i=$((i + 1)); [ $i -gt 100 ] && break; sleep 0.1; done
# A running dlhald --kernel learns from its clients' splits, and iproute2 splits behind its back. Its
# plans are right except the first after such a split, which may miss: the miss is logged, and the
# rules learn again from that answer, so the next plan is right. A reset starts from nothing known.
rm -f $T/kd.state
kd
n=0 exact=0 maybe=0 refused=0 missed=0 behind=0 resets=0 bad=
while [ $n -lt ${RULES_STEPS_KD:-60} ]; do
	n=$((n + 1))
	rnd 12
	arg=
	case $R in [0-2]) arg=2 ;; [3-5]) arg=4 ;; [6-7]) arg=8 ;; 8) ;; *) arg=reload ;; esac
	if [ "$arg" = reload ]; then
		devlink dev reload $E action fw_activate > $T/eo 2>&1 || continue
		# the card comes back with its new PFs, each in dlhald's model before the next step
		i=0; until [ "$(dl -s $T/kd.sock dev show | grep -c '^dlhal/0000:16:00\.')" = "$(devlink dev show | grep -c '^dlhal/0000:16:00\.')" ] &&
			dl -s $T/kd.sock port show $E/0 > /dev/null 2>&1; do
			i=$((i + 1)); [ $i -gt 100 ] && break; sleep 0.1
		done
		resets=$((resets + 1)) behind=0
		continue
	fi
	op=split; [ -z "$arg" ] && op=unsplit
	if [ $R = 1 ] || [ $R = 4 ] || [ $R = 7 ]; then
		devlink port $op $E/0 ${arg:+count $arg} > $T/eo 2>&1 && behind=1
		continue
	fi
	eports > $T/eb
	dl -s $T/kd.sock port $op $E/0 $arg --dry-run > $T/ep 2>&1; rp=$?
	dl -s $T/kd.sock port $op $E/0 $arg > $T/eo 2>&1; ro=$?
	eports > $T/ea
	if [ $rp = 0 ] && [ $ro = 0 ] && grep -q "Reboot required to finish port split" $T/eo && cmp -s $T/eb $T/ea; then
		exact=$((exact + 1))
	elif [ $rp = 3 ] && cmp -s $T/eb $T/ea; then
		maybe=$((maybe + 1))
	elif [ $rp = 1 ] && refused_as_planned $T/ep $T/eo $T/eb $T/ea; then
		refused=$((refused + 1))
	elif [ $behind = 1 ] && cmp -s $T/eb $T/ea; then
		missed=$((missed + 1))
	else
		bad="step $n: port $op $E/0 $arg: plan rc=$rp $(head -n 2 $T/ep) / op rc=$ro $(head -n 2 $T/eo) / behind=$behind"
		break
	fi
	behind=0
done
# And once for certain: after a split into 4 through it, devlink splits into 8; dlhald plans its own 8
# as done (exact), the kernel refuses it, the miss is logged, and the next plan says what it learnt.
dl -s $T/kd.sock port split $E/0 4 > $T/m1 2>&1; m1=$?
devlink port split $E/0 count 8 > $T/m2 2>&1; m2=$?
dl -s $T/kd.sock port split $E/0 8 --dry-run > $T/m3 2>&1; m3=$?
dl -s $T/kd.sock port split $E/0 8 > $T/m4 2>&1; m4=$?
dl -s $T/kd.sock port split $E/0 8 --dry-run > $T/m5 2>&1; m5=$?
kill -TERM $kdp; wait $kdp
if [ $m1 = 0 ] && [ $m2 = 0 ] && [ $m3 = 0 ] && [ $m4 = 1 ] && grep -q "Requested split count is already set" $T/m4 &&
	[ $m5 = 3 ] && [ "$(cat $T/m5)" = "split $E/0 into 8: cannot be planned: Requested split count is already set, if the pending port option is still the one dlhal learnt (the kernel does not report it)" ] &&
	grep -q "not as planned: split of $E/0: the kernel refused it" $T/kd.log; then
	ok "dlhald --kernel after a split behind its back: one plan misses, logged; the next says what it learnt, through the socket"
else
	nok "dlhald --kernel miss and relearn" "$m1 $m2 $m3 $m4 $(cat $T/m4) / $m5 $(cat $T/m5) / $(grep 'not as planned' $T/kd.log | tail -n 2)"
fi
missed=$((missed + 1))
logged=$(grep -c "not as planned" $T/kd.log)
if [ -z "$bad" ] && [ $exact -gt 0 ] && [ $missed = "$logged" ]; then
	ok "dlhald --kernel over the E810 with iproute2 behind its back: $exact exact, $maybe partial, $refused refused as planned, $missed missed right after a change it did not see (each logged), $resets resets"
else
	nok "dlhald --kernel learning over the E810" "${bad:-$exact exact, $missed missed, $logged logged} / $(grep 'not as planned' $T/kd.log | head -n 3)"
fi
# The kit on PF 0: in one process, each split's answer says which option is pending, so the plans
# after the first are exact, and a staged split is held to changing no port now.
kit_check $E 5 "the E810" "[1-9][0-9]* done as planned"
kill -TERM $rd; wait $rd

# dlhald --kernel --state restarting while the E810's PFs are published again (ice reloaded, or the
# publisher restarted: the pending option is the card's, and stays), many rounds. The restore races
# the PFs: it takes back what was learnt when PF 0 is there already, and drops it, logged, when not;
# either way the dry run of a split into 8 is then exact (learnt: 4 pending) or partial, and never
# anything else. The publisher keeps the card's state in its own --state file.
pub() { dlhald -f -s $T/rp.sock --sim e810-cqda2 --kernel-bridge --state $T/rp.state > $T/rp.log 2>&1 & rp=$!; }
# until dlhald --kernel has every PF the kernel has, PF 0's port among them
all_pfs() {
	i=0; until [ -S $T/kd.sock ] && pfs=$(devlink dev show | grep -c '^dlhal/0000:16:00\.') && [ "$pfs" -gt 0 ] &&
		[ "$(dl -s $T/kd.sock dev show 2> /dev/null | grep -c '^dlhal/0000:16:00\.')" = "$pfs" ] &&
		dl -s $T/kd.sock port show $E/0 > /dev/null 2>&1; do
		i=$((i + 1)); [ $i -gt 150 ] && return 1; sleep 0.1
	done
}
rm -f $T/rp.state $T/kd.state $T/kd.sock
pub
i=0; until devlink dev show 2> /dev/null | grep -q "^$E\$"; do i=$((i + 1)); [ $i -gt 100 ] && break; sleep 0.1; done
kd
all_pfs
dl -s $T/kd.sock port split $E/0 4 > $T/q1 2>&1; q1=$?
kill -TERM $kdp; wait $kdp
cp $T/kd.state $T/kd.state.learnt
rr=0 took=0 dropped=0 bad=
while [ $rr -lt ${RESTORE_ROUNDS:-40} ] && [ $q1 = 0 ]; do
	rr=$((rr + 1))
	kill -TERM $rp; wait $rp
	cp $T/kd.state.learnt $T/kd.state
	rm -f $T/kd.sock
	# the restore meets the card with no PF yet (started first), racing it, or with PF 0 there
	rnd 3
	case $R in
	0) kd_start; sleep 0.3; pub ;;
	1) pub; kd_start ;;
	*) pub; i=0; until devlink dev show 2> /dev/null | grep -q "^$E\$"; do i=$((i + 1)); [ $i -gt 100 ] && break; sleep 0.1; done
	   kd_start ;;
	esac
	kd_wait
	all_pfs || { bad="round $rr: dlhald --kernel did not mirror the card: $(tail -n 3 $T/kd.log)"; break; }
	dl -s $T/kd.sock port split $E/0 8 --dry-run > $T/q2 2>&1; q2=$?
	kill -0 $kdp 2> /dev/null || { bad="round $rr: dlhald --kernel died: $(tail -n 5 $T/kd.log)"; break; }
	kill -TERM $kdp; wait $kdp
	if [ $q2 = 0 ] && grep -q "^split $E/0 into 8: would be done after a reset" $T/q2 &&
		grep -q "taken back what was learnt of $E" $T/kd.log; then
		took=$((took + 1))
	elif [ $q2 = 3 ] && ! grep -q "taken back what was learnt of $E" $T/kd.log &&
		grep -q "what was learnt of $E is dropped" $T/kd.log; then
		dropped=$((dropped + 1))
	else
		bad="round $rr: dry run rc=$q2 $(head -n 2 $T/q2) / $(grep -i 'learnt' $T/kd.log | head -n 3)"
		break
	fi
done
kill -TERM $rp; wait $rp
if [ $q1 = 0 ] && [ -z "$bad" ] && [ $((took + dropped)) = ${RESTORE_ROUNDS:-40} ] && [ $took -gt 0 ]; then
	ok "dlhald --kernel --state restarting while the E810's PFs come back, ${RESTORE_ROUNDS:-40} rounds: $took took back what was learnt (exact plans), $dropped dropped it, logged (partial plans)"
else
	nok "restore racing the E810's PFs" "${bad:-split rc=$q1 $(cat $T/q1); $took took, $dropped dropped}"
fi
