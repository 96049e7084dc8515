# Sourced by guest.sh, with dlhal_bridge loaded and no dlhald running: the bridge under hostile
# clients and real timing, a test for each case that broke it (docs/fuzzing.md), then a campaign of
# bridge_fuzz with iproute2 racing it. Leaks are attributed with slub_debug=U,kmalloc-512 (run.sh),
# blocking is caught by the hung-task detector at 20 s, and every case ends with dmesg clean.
mount -t debugfs none /sys/kernel/debug 2> /dev/null
echo 20 > /proc/sys/kernel/hung_task_timeout_secs
P=/sys/module/dlhal_bridge/parameters/op_timeout_ms
TRACES=/sys/kernel/debug/slab/kmalloc-512/alloc_traces
dmesg -c > /dev/null
now() { cut -d' ' -f1 /proc/uptime; }
# kmalloc-512 objects the module allocated and still holds
leaks() { awk '/\[dlhal_bridge\]/ { n += $1 } END { print n + 0 }' $TRACES; }
dmesg_bad() { dmesg | grep -iE 'warning|bug|call trace|oops|blocked for more than|refcount|corruption|duplicate filename|kobject_add_internal failed'; }
# "NAME" "CMDS": the client's answers to CMDS (one a line) in $T/c.out, line N+1 for command N
client() { printf '%b' "$1" | bridge_client > $T/c.out 2>&1; }
answer() { sed -n "$(($1 + 1))p" $T/c.out; }
# (inside a { ... } | bridge_client > $T/c.out pipeline) until the client has answered N commands, 10 s at most
answered() {
	i=0; until [ "$(cat $T/c.out 2> /dev/null | grep -c .)" -gt "$1" ]; do
		i=$((i + 1)); [ $i -gt 100 ] && { echo "no answer to command $1 in 10 s" >> $T/c.slow; return 1; }; sleep 0.1
	done
}
published() { # name: until devlink has instance dlhal/NAME, 10 s at most
	i=0; until devlink dev show "dlhal/$1" > /dev/null 2>&1; do i=$((i + 1)); [ $i -gt 200 ] && break; sleep 0.05; done
}
clean() { # name: dmesg clean since the last case
	b=$(dmesg_bad)
	if [ -z "$b" ]; then ok "$1: dmesg clean"; else nok "$1: dmesg" "$(echo "$b" | head -n 5)"; fi
	dmesg -c > /dev/null
}
if [ -r $TRACES ]; then ok "slub_debug=U: kmalloc-512 records who allocated each object"
else nok "slab allocation traces" "no $TRACES (slub_debug=U,kmalloc-512 on the command line?)"; fi

# An instance is seen only once published: with all its ports.
rm -f $T/c.out
{ printf 'dev add pub1\nport add pub1 1 eth pb1 1 4 1 0 0\nport add pub1 2 eth pb2 2 4 0 0 0\n'; answered 3
	devlink dev show > $T/p0 2>&1; devlink port show > $T/p0p 2>&1
	printf 'dev pub pub1\n'; answered 4
	devlink port show > $T/p1 2>&1; printf 'dev pub pub1\n'; answered 5; } | bridge_client > $T/c.out 2>&1
if ! grep -q '^dlhal/pub1' $T/p0 $T/p0p && [ "$(grep -c '^dlhal/pub1/' $T/p1)" = 2 ] && [ "$(answer 4)" = ok ] &&
	[ "$(answer 5)" = "err -114" ]; then
	ok "devlink sees an instance only once published, with its ports; a second publish is -EALREADY"
else
	nok "publish" "$(cat $T/p0 $T/p1 $T/c.out)"
fi

# 1. Names at the top of /sys/devices: the instances have a parent, /sys/devices/dlhal.
rm -f $T/c.out
{ printf 'dev add platform\ndev add virtual\ndev add system\ndev add software\ndev pub platform\n'; answered 5
	ls -d /sys/devices/dlhal/platform /sys/bus/dlhal/devices/virtual > $T/ls 2>&1; devlink dev show > $T/p1 2>&1
	devlink dev show dlhal/platform >> $T/p1 2>&1; } |
	bridge_client > $T/c.out 2>&1
if [ "$(grep -c '^ok' $T/c.out)" = 5 ] && [ "$(wc -l < $T/ls)" = 2 ] && grep -q '^dlhal/platform$' $T/p1; then
	ok "instances named platform, virtual, system, software live under /sys/devices/dlhal"
else
	nok "top-level names" "$(cat $T/c.out $T/ls $T/p1)"
fi
clean "top-level names"

# 2. Names outside [A-Za-z0-9:._-] in ASCII, and . and ..
name_raw() { printf 'raw 0100000000000000%s%0'$((128 - ${#1}))'d\n' "$1" 0; }
client "dev add .\ndev add ..\n$(name_raw e974e9)\n$(name_raw ff)\n$(name_raw 2e2e2e)\n"
if [ "$(answer 1)$(answer 2)$(answer 3)$(answer 4)" = "err -22err -22err -22err -22" ] && [ "$(answer 5)" = ok ]; then
	ok "instance names . and .. and bytes 0xC0-0xFF are refused (... is a name)"
else
	nok "instance names" "$(cat $T/c.out)"
fi

# 3. Port numbers whose phys_port_name would not fit IFNAMSIZ.
rm -f $T/c.out
{ printf 'dev add pn\nport add pn 1 eth pn1 4000000000 4 0 1 4000000000\nport add pn 1 eth pn1 9999999 4 0 1 9999999\n'
	printf 'port add pn 1 eth pn1 9999999 4 0 1 999999\nport add pn 2 eth pn2 4294967295 4 0 0 0\ndev pub pn\n'
	answered 6; ip link show pn1 > $T/l1 2>&1; echo $? >> $T/l1; ip link show pn2 >> $T/l1 2>&1; echo $? >> $T/l1; } |
	bridge_client > $T/c.out 2>&1
if [ "$(answer 2)$(answer 3)" = "err -22err -22" ] && [ "$(answer 4)$(answer 5)" = okok ] &&
	[ "$(grep -c '^0$' $T/l1)" = 2 ]; then
	ok "a port whose phys_port_name would exceed IFNAMSIZ is refused (p9999999s999999 fits)"
else
	nok "port numbers" "$(cat $T/c.out $T/l1)"
fi
clean "port numbers"

# 4. An undo notice for a file closed at once after the reply: 20 runs, nothing leaked.
before=$(leaks) runs=0
i=0; while [ $i -lt 20 ]; do
	(published ul; devlink port split dlhal/ul/1 count 2) > /dev/null 2>&1 &
	client 'dev add ul\nport add ul 1 eth ul1 1 4 1 0 0\ndev pub ul\nread\nreply-last 0 - del:1 add:1:eth:ul1s0:1:2:0:1:0 add:2:eth:lo:1:2:0:1:1\n'
	wait
	case "$(answer 4) $(answer 5)" in "req 16 "*" ok") runs=$((runs + 1)) ;; esac
	i=$((i + 1))
done
after=$(leaks)
if [ $runs = 20 ] && [ "$after" -le "$before" ]; then
	ok "a reply the kernel undoes, file closed at once: no notice leaked in 20 runs ($before -> $after objects)"
else
	nok "undo notice on close" "$runs runs, kmalloc-512 objects of the module $before -> $after; $(grep dlhal_bridge $TRACES | head -n 3)"
fi
clean "undo notice on close"

# 5. Errnos netlink does not answer (-EINTR, kernel-internal) are refused; a real one reaches devlink.
(published ei; t0=$(now); devlink port split dlhal/ei/1 count 2 > $T/ei 2>&1; echo "rc $? $t0 $(now)" >> $T/ei) > /dev/null 2>&1 &
client 'dev add ei\nport add ei 1 eth ei1 1 4 1 0 0\ndev pub ei\nread\nreply-last -4 -\nreply-last -516 -\nreply-last -5 Refused_here\n'
wait
set -- $(grep '^rc ' $T/ei)
if [ "$(answer 5)$(answer 6)$(answer 7)" = "err -22err -22ok" ] && [ "$2" != 0 ] && grep -q "Refused here" $T/ei &&
	awk -v a="$3" -v b="$4" 'BEGIN { exit !(b - a < 3) }'; then
	ok "a reply with -EINTR or -ERESTART_RESTARTBLOCK is refused; -EIO reaches devlink at once"
else
	nok "reply errno" "$(cat $T/c.out $T/ei)"
fi

# 6. Removal behind queued ops fails them at once; a port added while an op waits gets -EBUSY at once.
rm -f $T/dd.rc
rm -f $T/c.out
{ printf 'dev add dd\n'; for p in 1 2 3 4 5; do echo "port add dd $p eth dd$p $p 4 1 0 0"; done; echo 'dev pub dd'; answered 7
	for p in 1 2 3 4 5; do (devlink port split dlhal/dd/$p count 2; echo $? >> $T/dd.rc) > /dev/null 2>&1 & done
	echo read; answered 8; echo "port add dd 9 eth dd9 9 4 0 0 0"; answered 9; sleep 0.5
	now > $T/dd.t0; echo 'dev del dd'; answered 10; } |
	bridge_client > $T/c.out 2>&1
wait
t1=$(now)
if [ "$(answer 9)" = "err -16" ] && [ "$(answer 10)" = ok ] && [ "$(grep -vc '^0$' $T/dd.rc)" = 5 ] &&
	awk -v a="$(cat $T/dd.t0)" -v b="$t1" 'BEGIN { exit !(b - a < 3) }' && ! ip link show dd1 > /dev/null 2>&1; then
	ok "DEV_DEL with 5 ops queued: done, and the 5 devlink callers answered, within 3 s; PORT_ADD meanwhile: -EBUSY"
else
	nok "removal behind queued ops" "$(cat $T/c.out; cat $T/dd.rc; echo "$(cat $T/dd.t0) -> $t1")"
fi
clean "removal behind queued ops"

# 7. A refused retype (netdev name taken) leaves the port and its netdev as they were.
rm -f $T/c.out
{ printf 'dev add rt\nport add rt 1 eth rta 1 4 0 0 0\nport add rt 2 eth rtb 2 4 0 0 0\ndev pub rt\n'
	printf 'port add rt 1 eth rtb 1 4 0 0 0\n'; answered 5
	ip link show rta > /dev/null 2>&1; echo "link $?" > $T/rt; devlink port show dlhal/rt/1 >> $T/rt 2>&1
	{ devlink dev show; devlink port show; ls /sys/bus/dlhal/devices; } > $T/rt.more 2>&1; } |
	bridge_client > $T/c.out 2>&1
if [ "$(answer 5)" = "err -17" ] && grep -q '^link 0' $T/rt && grep -q 'type eth netdev rta ' $T/rt; then
	ok "a retype to a netdev name taken is refused and the port keeps its netdev"
else
	nok "refused retype" "$(cat $T/c.out $T/rt $T/rt.more $T/c.slow 2> /dev/null)"
fi

# 8. Undo of a retype, then an op whose reply deletes that port and fails: the port comes back.
rm -f $T/c.out
{ printf 'dev add ud\nport add ud 1 eth ud1 1 4 1 0 0\nport add ud 2 eth ud2 2 4 0 0 0\ndev pub ud\n'; answered 4
	(devlink port split dlhal/ud/1 count 2) > /dev/null 2>&1 &
	printf 'read\nreply-last 0 - add:2:eth:ud2x:2:4:0:0:0 add:9:eth:lo:9:4:0:0:0\nread\n'; answered 7
	(devlink port split dlhal/ud/1 count 2) > /dev/null 2>&1 &
	printf 'read\nreply-last 0 - del:2 add:8:eth:lo:8:4:0:0:0\nread\n'; answered 10
	devlink port show dlhal/ud/2 > $T/ud 2>&1; ip link show ud2 > /dev/null 2>&1; echo "link $?" >> $T/ud; } |
	bridge_client > $T/c.out 2>&1
wait
case "$(answer 7)|$(answer 10)" in "req 19 "*"|req 19 "*) undo2=yes ;; *) undo2=no ;; esac
if [ $undo2 = yes ] && grep -q 'type eth netdev ud2 ' $T/ud && grep -q '^link 0' $T/ud; then
	ok "an undone retype, then an undone delete of that port: port 2 and ud2 are back both times"
else
	nok "undo after undo" "$(cat $T/c.out $T/ud)"
fi
clean "undo"

# 9. Two files adding and removing one name: never a duplicate sysfs name.
i=0; while [ $i -lt 300 ]; do echo "dev add fz3"; echo "dev del fz3"; i=$((i + 1)); done > $T/race.in
bridge_client < $T/race.in > $T/race1 2>&1 & r1=$!
bridge_client < $T/race.in > $T/race2 2>&1 & r2=$!
wait $r1 $r2
if [ "$(grep -c '^ok' $T/race1)" -gt 0 ] && [ "$(grep -c '^ok' $T/race2)" -gt 0 ]; then
	ok "two files racing on one instance name, 300 rounds each ($(grep -c '^ok' $T/race1)+$(grep -c '^ok' $T/race2) taken)"
else
	nok "name race" "$(sort $T/race1 | uniq -c)"
fi
clean "name race"

# 10. devlink reload (issue 20): the process answers in reload_down with the actions it did. A reply
#     without the action asked for, or with another bit, is refused (devlink would warn); a success's
#     message reaches devlink as a warning, an error with its message; a namespace change is refused
#     before the process is asked.
devlink dev reload dlhal/nonesuch netns 1 > /dev/null 2>&1
rm -f $T/c.out
(published rl; devlink dev reload dlhal/rl netns 1 > $T/rl0 2>&1; echo "rc $?" >> $T/rl0
	devlink dev reload dlhal/rl action fw_activate > $T/rl1 2>&1; echo "rc $?" >> $T/rl1
	devlink dev reload dlhal/rl action driver_reinit > $T/rl2 2>&1; echo "rc $?" >> $T/rl2) > /dev/null 2>&1 &
client 'dev add rl\nport add rl 1 eth rl1 1 4 1 0 0\ndev pub rl\nread\nreply-last 0 - perf:0\nreply-last 0 - perf:12\nreply-last 0 Stored_for_later perf:4\nread\nreply-last -95 No_reinit_here\n'
wait
if grep -q "Namespace change is not supported" $T/rl0 && grep -q "^rc [1-9]" $T/rl0 &&
	[ "$(answer 5)|$(answer 6)|$(answer 7)|$(answer 9)" = "err -22|err -22|ok|ok" ] &&
	grep -q "^rc 0" $T/rl1 && grep -q "fw_activate" $T/rl1 && grep -q "Stored for later" $T/rl1 &&
	grep -q "^rc [1-9]" $T/rl2 && grep -q "No reinit here" $T/rl2; then
	ok "reload: answered with the actions done (a reply without the action or with a stray bit refused), errors and warnings reach devlink, netns refused"
else
	nok "reload through the bridge" "$(cat $T/c.out $T/rl0 $T/rl1 $T/rl2)"
fi
clean "reload through the bridge"

# 11. Nested instances (6.7 on; mlx5_core's Ethernet one in 6.12): set once, before the nested one is
#     published, never on itself or a stranger; the kernel names it in the parent's messages until
#     it goes. Before 6.7 the kernel has none: -EOPNOTSUPP.
kmaj=$(uname -r | cut -d. -f1) kmin=$(uname -r | cut -d. -f2)
nests=0; [ "$kmaj" -gt 6 ] || { [ "$kmaj" = 6 ] && [ "$kmin" -ge 7 ]; } && nests=1
rm -f $T/c.out
{ printf 'dev add np\ndev add nc\nnest nc np\nnest nc np\nnest np np\nnest nx np\nbind nc mlx5_core.eth\ndev pub np\ndev pub nc\nnest nc np\n'
	answered 10; published nc; sleep 0.3; dl --kernel -d dev show dlhal/np > $T/n1 2>&1; dl --kernel -j -d dev show dlhal/np > $T/n1j 2>&1
	printf 'dev del nc\n'; answered 11; sleep 0.3; dl --kernel -d dev show dlhal/np > $T/n2 2>&1; } | bridge_client > $T/c.out 2>&1
got="$(answer 3)|$(answer 4)|$(answer 5)|$(answer 6)|$(answer 10)|$(answer 11)"
if [ $nests = 1 ] && [ "$got" = "ok|err -114|err -22|err -19|err -114|ok" ] && grep -qx "  nested: dlhal/nc" $T/n1 &&
	grep -q '"nested": *\[ *"dlhal/nc" *\]' $T/n1j && ! grep -q nested $T/n2; then
	ok "nested instances: once, before publishing, not on itself or a stranger; the kernel names it until it goes"
elif [ $nests = 0 ] && [ "$got" = "err -95|err -95|err -22|err -19|err -114|ok" ] && ! grep -q nested $T/n1; then
	ok "nested instances: -EOPNOTSUPP on a kernel before 6.7"
else
	nok "nested instances" "$got $(cat $T/c.out $T/n1 $T/n1j $T/n2)"
fi
clean "nested instances"

# The stall of a reader behind an op that waits for the process is bounded by op_timeout_ms.
echo 1000 > $P
rm -f $T/c.out
{ printf 'dev add st\nport add st 1 eth st1 1 4 1 0 0\ndev pub st\n'; answered 3
	(devlink port split dlhal/st/1 count 2 > $T/st.split 2>&1) &
	echo read; answered 4; t0=$(now); su user -c "devlink port show dlhal/st/1" > $T/st 2>&1; echo "$t0 $(now)" >> $T/st; wait; } |
	bridge_client > $T/c.out 2>&1
set -- $(tail -n 1 $T/st)
if grep -q 'did not answer' $T/st.split && grep -q '^dlhal/st/1' $T/st && awk -v a="$1" -v b="$2" 'BEGIN { exit !(b - a < 2) }'; then
	ok "op_timeout_ms=1000: an unprivileged reader waits at most that for an op nobody answers"
else
	nok "reader stall" "$(cat $T/st.split $T/st)"
fi
echo 5000 > $P

# The campaign: bridge_fuzz's processes and iproute2 racing them on the same instances (the drivers'
# fz1 and fz3, which answer; the chaos processes' fz0 and fz2, which mostly do not), requesters
# SIGKILLed mid-op, netdev renames.
secs=$(cat /fuzz-seconds 2> /dev/null || echo 20)
echo 1000 > $P
before=$(leaks)
bridge_fuzz "$secs" 4 18 > $T/fz.out 2>&1 &
fz=$!
end=$(($(cut -d. -f1 /proc/uptime) + secs))
(while [ "$(cut -d. -f1 /proc/uptime)" -lt $end ]; do
	for d in fz1 fz3 fz0 fz1 fz3 fz2; do
		p=$((RANDOM % 4 + 1)) t=eth
		[ $((RANDOM % 2)) = 0 ] && t=ib
		devlink port split dlhal/$d/$p count 2 & k=$!
		devlink port set dlhal/$d/$(((p % 4) + 1)) type $t &
		devlink port unsplit dlhal/$d/$((p + 10 * (RANDOM % 2))) &
		devlink port show > /dev/null &
		devlink dev show > /dev/null &
		[ $((RANDOM % 4)) = 0 ] && devlink dev reload dlhal/$d action fw_activate &
		ip link set dev fzd1p2 name fzr1 2> /dev/null; ip link set dev fzr1 name fzd1p2 2> /dev/null
		sleep 0.2; [ $((RANDOM % 3)) = 0 ] && kill -9 $k 2> /dev/null
	done
	wait
done) > /dev/null 2>&1 &
race=$!
wait $fz
wait $race
sleep 2
after=$(leaks)
if [ "$(grep -c '^proc ' $T/fz.out)" = 4 ] && ! devlink dev show | grep -q '^dlhal/' && [ "$after" -le "$before" ]; then
	ok "bridge_fuzz for $secs s, 4 processes, iproute2 racing: $(awk '{ w += $3; t += substr($5, 2); r += $9; c += $11 } END { print w " writes (" t " taken), " r " replies, " c " closes" }' $T/fz.out), nothing left, no leak"
else
	nok "bridge_fuzz campaign" "$(cat $T/fz.out; devlink dev show; grep dlhal_bridge $TRACES | head -n 3)"
fi
clean "bridge_fuzz campaign"
echo 5000 > $P

# A desired-state daemon watching the kernel, then the publisher (dlhald --kernel-bridge): the file's
# split is applied once the instance is there, whole; again when the publisher restarts; and in
# $rounds rounds of publish and removal while devlink hammers another port of the instance.
printf '[Match]\nDevice=dlhal/0000:03:00.0\nNumber=17\n[Port]\nSplit=2\n' > $T/pub.conf
dlhald -f -v -s $T/dsd.sock --kernel --desired $T/pub.conf > $T/dsd.log 2>&1 &
dsd=$!
# What went wrong in a round: the kernel's port 17, what the desired daemon's model holds (it
# answers within 5 s or is stuck, and then where), and the end of its log.
stuck() {
	echo "kernel: $(devlink port show 2> /dev/null | grep -c '^dlhal/0000:03:00.0/') ports; $(devlink port show 2> /dev/null | grep 'port 17 ')"
	timeout 5 dl -s $T/dsd.sock port show > $T/dsd.ports 2>&1
	echo "desired daemon (dl rc $?): $(grep -c '^dlhal/0000:03:00.0/' $T/dsd.ports) ports; $(grep 'port 17 ' $T/dsd.ports)"
	echo "desired daemon in $(cat /proc/$dsd/wchan 2> /dev/null), state $(awk '{ print $3 }' /proc/$dsd/stat 2> /dev/null)"
	cat /proc/$dsd/stack 2> /dev/null
	grep -v ': client ' $T/dsd.log | tail -n 25
}
sleep 1
applied() { # port 17 split in two in the kernel, within 30 s
	i=0; until [ "$(devlink port show 2> /dev/null | grep -c '^dlhal/0000:03:00.0/[12]: .*port 17 split_group 17')" = 2 ]; do
		i=$((i + 1)); [ $i -gt 300 ] && return 1; sleep 0.1; done
}
round() { # publisher up, file applied, instance whole, publisher down
	dlhald -f -s $T/pb.sock --sim sn2700 --kernel-bridge > $T/pb.log 2>&1 &
	pb=$!
	applied && kill -0 $pb 2> /dev/null && n=$(devlink port show | grep -c '^dlhal/0000:03:00.0/') &&
		[ "$n" -ge 33 ] && [ "$n" -le 34 ] && ! grep -q ': err: ' $T/pb.log
	r=$?
	[ $r = 0 ] || stuck > $T/stuck.txt
	kill -TERM $pb 2> /dev/null; wait $pb
	return $r
}
if round; then ok "desired daemon first, publisher second: the instance complete and the file's split applied"
else nok "desired then publisher" "$(cat $T/pb.log $T/stuck.txt)"; fi
if round; then ok "the publisher restarted under the desired daemon: the split applied again"
else nok "publisher restart" "$(cat $T/pb.log $T/stuck.txt)"; fi
rounds=$(cat /publish-rounds 2> /dev/null || echo 100)
(while :; do devlink port split dlhal/0000:03:00.0/5 count 2; devlink port unsplit dlhal/0000:03:00.0/5; done) > /dev/null 2>&1 &
ham=$!
k=0 good=0 bad=0
# three failed rounds in a row say enough (each waits 30 s): the VM's time is for the other tests
while [ $k -lt $rounds ] && [ $bad -lt 3 ]; do
	if round; then good=$((good + 1)) bad=0; else bad=$((bad + 1)); [ $bad = 1 ] && cp $T/stuck.txt $T/stuck1.txt; fi
	k=$((k + 1))
done
kill $ham; wait $ham 2> /dev/null
kill -TERM $dsd; wait $dsd
warn=$(grep -c 'cannot reach' $T/dsd.log)
if [ $good = $rounds ] && [ "$warn" -le $((2 * rounds)) ]; then
	ok "$rounds rounds of publish and removal with devlink splitting port 5 throughout: each complete, the split applied ($warn failures logged)"
else
	nok "publish under a hammer" "$good of $rounds rounds; $(cat $T/pb.log $T/stuck1.txt 2> /dev/null)"
fi
clean "publish under a desired daemon"
