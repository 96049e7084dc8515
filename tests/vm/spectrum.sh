# Sourced by guest.sh after rules.sh (its ok, nok, $T, kit_check, spectrum_rounds): today's switches
# (issue 43). An SN3700, an SN4700 and an SN5600 bridged as Linux's mlxsw_spectrum2, 3 and 4 report
# themselves as those drivers do; a separate dl --kernel recognises each board from its driver and the
# layout the kernel reports (no PSID names a model), plans exactly, draws its faceplate; random splits
# by 2, 4 and 8 and unsplits made by dl and by iproute2 end as the dry runs said; and the kernel's own
# port-split selftest (devlink_port_split.py, from the booted kernel's source) passes against the
# 8-lane SN4700: every port split by 8, 4 and 2 and back, the split ports with their lanes.
dlhald -f -s $T/r8.sock --sim sn3700,sn4700,sn5600 --kernel-bridge > $T/r8.log 2>&1 &
r8=$!
S4=dlhal/0000:0b:00.0
i=0; until [ "$(devlink port show 2> /dev/null | grep -c '^dlhal/0000:0[bc]:00\.0/')" = 97 ]; do
	i=$((i + 1)); [ $i -gt 300 ] && break; sleep 0.1
done
for b in "0000:0a:00.0 mlxsw_spectrum2 sn3700 32 4 200000" "0000:0b:00.0 mlxsw_spectrum3 sn4700 32 8 400000" \
	"0000:0c:00.0 mlxsw_spectrum4 sn5600 65 8 800000"; do
	set -- $b
	bd=dlhal/$1
	drv=$(basename "$(readlink /sys/bus/dlhal/devices/$1/driver)")
	devlink dev info $bd > $T/s.info 2>&1
	dl --kernel -d dev show $bd > $T/s.dev 2>&1
	dl --kernel -d port show $bd/1 > $T/s.port 2>&1
	dl --kernel port split $bd/1 $5 --dry-run > $T/s.plan 2>&1; rp=$?
	dl --kernel panel --ascii $bd > $T/s.panel 2>&1
	if [ "$drv" = $2 ] && grep -qx "  driver $2" $T/s.info && grep -q "^        fw " $T/s.info &&
		grep -qx "  plans exact: mlxsw rules, profile $3" $T/s.dev &&
		grep -q " lanes $5 speed $6 module 0 lane 0 split_counts 2,4$([ $5 = 8 ] && echo ,8)\$" $T/s.port &&
		[ $rp = 0 ] && head -n 1 $T/s.plan | grep -qx "split $bd/1 into $5: would be done" &&
		[ "$(grep -c "^del $bd/" $T/s.plan)" = 1 ] && [ "$(grep -c "^new $bd/[0-9]*: type eth split_group 1\$" $T/s.plan)" = $5 ] &&
		grep -q "^$bd: $2, $4 cages\$" $T/s.panel; then
		ok "a bridged $3 as $2: recognised by driver and layout, split by $5 planned exactly, its $4 cages"
	else
		nok "recognised $3" "driver '$drv' / $(cat $T/s.info $T/s.dev $T/s.port) / $rp $(cat $T/s.plan) / $(head -n 1 $T/s.panel)"
	fi
done
# The SN5600's split by 8 of every cage, by iproute2: 512 ports, as dl's dry runs said, then back.
i=0 bad=
while [ $i -lt 64 ] && [ -z "$bad" ]; do
	i=$((i + 1))
	devlink port split dlhal/0000:0c:00.0/$((8 * i - 7)) count 8 > $T/s.o 2>&1 || bad="cage $i: $(cat $T/s.o)"
done
n=$(dl --kernel port show dlhal/0000:0c:00.0 | grep -c ': type eth')
l=$(dl --kernel -d port show dlhal/0000:0c:00.0 | grep -c ' lanes 1 speed 100000 ')
i=0
while [ $i -lt 64 ] && [ -z "$bad" ]; do
	i=$((i + 1))
	devlink port unsplit dlhal/0000:0c:00.0/$((8 * i)) > $T/s.o 2>&1 || bad="unsplit cage $i: $(cat $T/s.o)"
done
if [ -z "$bad" ] && [ "$n" = 513 ] && [ "$l" = 512 ] && [ "$(dl --kernel port show dlhal/0000:0c:00.0 | grep -c ': type eth')" = 65 ]; then
	ok "an SN5600 split by 8 in every cage through iproute2: 512 ports of one 100G lane, and back to 65"
else
	nok "SN5600 by 8" "${bad:-$n ports, $l of one lane}"
fi
spectrum_rounds $S4 ${RULES_STEPS8:-200} 8
if [ -z "$bad" ] && [ $good -gt 0 ] && [ $refused -gt 0 ]; then
	ok "${RULES_STEPS8:-200} random splits by 2, 4 and 8 and unsplits of the SN4700 by dl and devlink: $good done as planned, $refused refused as planned"
else
	nok "the SN4700's plans against the kernel's outcomes" "${bad:-$good done, $refused refused}"
fi
kit_check $S4 11 "the SN4700"
# The kernel's selftest: every port of N lanes splits into N, N/2 ... 2 ports of N/k lanes, and back.
if command -v python3 > /dev/null && [ -f /devlink_port_split.py ]; then
	for p in $(devlink port show | sed -n "s|^$S4/\([0-9]*\): .* split_group .*|\1|p"); do
		devlink port unsplit $S4/$p > /dev/null 2>&1
	done
	devlink port show | grep "^$S4/" | sed 's/ netdev [^ ]*//' > $T/st.before
	UDEV_DEV=0000:0b:00.0 udevadm settle
	UDEV_DEV=0000:0b:00.0 python3 /devlink_port_split.py --dev $S4 > $T/st 2>&1; r=$?
	devlink port show | grep "^$S4/" | sed 's/ netdev [^ ]*//' > $T/st.after
	if [ $r = 0 ] && ! grep -q 'FAIL' $T/st && [ "$(grep -c 'split port swp[0-9]* into 8 .*\[ OK \]' $T/st)" = 32 ] &&
		[ "$(grep -c 'split port swp[0-9]* into 4 .*\[ OK \]' $T/st)" = 32 ] &&
		[ "$(grep -c 'split port swp[0-9]* into 2 .*\[ OK \]' $T/st)" = 32 ] && cmp -s $T/st.before $T/st.after; then
		ok "the kernel's devlink_port_split.py passes against the bridged SN4700: $(grep -c '\[ OK \]' $T/st) checks, splits by 8, 4 and 2"
	else
		nok "devlink_port_split.py against the SN4700" "rc=$r $(grep -v '\[ OK \]' $T/st | head -n 12; diff $T/st.before $T/st.after | head -n 4)"
	fi
else
	nok "devlink_port_split.py" "python3 or the selftest is missing in the VM"
fi
kill -TERM $r8; wait $r8
