#!/bin/sh
# Every dl command that takes a port gives the same answer whichever way the port is named (its
# handle or its netdev) and whichever backend serves it: port show -d, split, unsplit and set, each
# with and without --dry-run, text and -j.
#
# usage: port-matrix.sh WAY...
#   WAY is "DL-COMMAND|SWITCH|ADAPTER": how to run dl (words, run by the shell), and the handles of the
#   Spectrum and of the ConnectX-3 it sees. Each case runs as one batch (its set-up, the command, then
#   the device's ports) on a device as the profiles ship it, and is put back afterwards. Answers are
#   compared with the first WAY's by handle, the devices' handles replaced by SW and CX.
# Prints "ok ..." / "not ok ..." per case and "N passed, M failed"; exits non-zero on a failure.
set -u
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
pass=0 fail=0

run() { # way-index name-form case-setup command dev put-back options -> $T/out.$1.$2 (stdout, stderr, exit)
	eval "r_dl=\${way_dl$1} r_sw=\${way_sw$1} r_cx=\${way_cx$1}"
	r_setup=$(printf '%s' "$3" | sed "s#SW#$r_sw#g; s#CX#$r_cx#g")
	r_cmd=$(printf '%s' "$4" | sed "s#SW#$r_sw#g; s#CX#$r_cx#g")
	r_dev=$(printf '%s' "$5" | sed "s#SW#$r_sw#g; s#CX#$r_cx#g")
	r_port=${r_cmd#* P=}
	r_port=${r_port%% *}
	if [ "$2" = netdev ]; then
		# the port's netdev once the set-up ran, as this way shows it
		printf '%s\nport show %s\n' "$r_setup" "$r_port" | $r_dl -f -b - > $T/nd 2> /dev/null
		r_name=$(sed -n 's/.* netdev \([^ ]*\).*/\1/p' $T/nd | tail -n 1)
		[ -n "$r_name" ] || r_name=NO-NETDEV
		printf '%s\n' "$6" | sed "s#SW#$r_sw#g; s#CX#$r_cx#g" | $r_dl -f -b - > /dev/null 2>&1
	else
		r_name=$r_port
	fi
	r_cmd=$(printf '%s' "$r_cmd" | sed "s#P=[^ ]*#$r_name#")
	# the device's ports after it, in text (-j's listing would be the same facts): sorted, since a
	# port that a split or unsplit brings back comes last in a daemon's or the kernel's order
	r_list="port show $r_dev"
	case "$7" in *-j*) r_list= ;; esac
	printf '%s\n%s\n%s\n' "$r_setup" "$r_cmd" "$r_list" | $r_dl $7 -f -b - > $T/o 2> $T/e
	echo "exit $?" > $T/out.$1.$2
	{ sort $T/o; echo "--- stderr"; cat $T/e; } | sed "s#$r_sw#SW#g; s#$r_cx#CX#g" >> $T/out.$1.$2
	# put the device back as it shipped, whatever the case did
	printf '%s\n' "$6" | sed "s#SW#$r_sw#g; s#CX#$r_cx#g" | $r_dl -f -b - > /dev/null 2>&1
}

n=0
for w in "$@"; do
	n=$((n + 1))
	eval "way_dl$n=\${w%%|*}"
	rest=${w#*|}
	eval "way_sw$n=\${rest%%|*} way_cx$n=\${rest#*|}"
done

# set-up | options | command (P=port stands for the port, named each way) | device listed after | put back
cases='
|-d|port show P=SW/1|SW|
||port split P=SW/1 4|SW|port unsplit SW/1
||port split P=SW/1 4 --dry-run|SW|
||port split P=SW/1 2|SW|port unsplit SW/1
||port split P=SW/1 2 --dry-run|SW|
||port split P=SW/1 3|SW|
||port split P=SW/3 4 --dry-run|SW|
port split SW/1 2|-d|port show P=SW/1|SW|port unsplit SW/1
port split SW/1 2||port unsplit P=SW/1|SW|port unsplit SW/1
port split SW/1 2||port unsplit P=SW/2 --dry-run|SW|port unsplit SW/1
port split SW/1 4||port unsplit P=SW/4|SW|port unsplit SW/1
||port unsplit P=SW/1 --dry-run|SW|
||port set P=SW/1 type ib|SW|
||port set P=SW/1 type ib --dry-run|SW|
port set CX/1 type eth||port set P=CX/1 type auto|CX|port set CX/1 type ib
port set CX/1 type eth||port set P=CX/1 type auto --dry-run|CX|port set CX/1 type ib
port set CX/1 type eth|-d|port show P=CX/1|CX|port set CX/1 type ib
'
printf '%s\n' "$cases" > $T/cases
while IFS='|' read -r setup opts cmd dev back; do
	[ -n "$cmd" ] || continue
	for j in "" "-j "; do
		i=0
		while [ $i -lt $n ]; do
			i=$((i + 1))
			for form in handle netdev; do
				run $i $form "$setup" "$cmd" "$dev" "$back" "$j$opts"
			done
		done
		bad=
		i=0
		while [ $i -lt $n ]; do
			i=$((i + 1))
			for form in handle netdev; do
				cmp -s $T/out.1.handle $T/out.$i.$form || bad="$bad way $i by $form"
				[ $form = netdev ] && grep -q NO-NETDEV $T/out.$i.$form && bad="$bad (way $i: no netdev)"
			done
		done
		what="dl $j$opts${opts:+ }$(printf '%s' "$cmd" | sed 's#P=##')${setup:+ after $setup}"
		if [ -z "$bad" ]; then
			echo "ok $what: the same answer by handle and by netdev, $n way(s)"
			pass=$((pass + 1))
		else
			echo "not ok $what:$bad differs"
			for f in $T/out.*; do echo "# $f"; sed 's/^/#   /' $f; done
			fail=$((fail + 1))
		fi
	done
done < $T/cases
echo "$pass passed, $fail failed"
[ $fail = 0 ]
