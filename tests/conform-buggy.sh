#!/bin/sh
# dlhal-conform against tests/buggy.c with each of its bugs: the check the bug
# is for must fail (and the run exit 1); without a bug every check passes.
set -u
kit=$1 module=$2 profile=$3 dlhald=$4 dl=$5 staged_module=$6 staged_profile=$7
pass=0 fail=0

run() { # BUG EXPECTED-FAILING-CHECK [kit options]
	bug=$1 want=$2
	shift 2
	out=$(DLHAL_BUG=$bug "$kit" --module "$module" --profile "$profile" --cycles 20 "$@" 2>&1)
	rc=$?
	if [ -z "$want" ]; then
		if [ $rc -eq 0 ] && ! printf '%s\n' "$out" | grep -q '^not ok'; then
			pass=$((pass + 1))
		else
			fail=$((fail + 1)) && printf 'FAIL: no bug %s: exit %d\n%s\n' "$*" $rc "$out"
		fi
		return
	fi
	if [ $rc -eq 1 ] && printf '%s\n' "$out" | grep -q "^not ok [0-9]* - $want"; then
		pass=$((pass + 1))
	else
		fail=$((fail + 1))
		printf 'FAIL: bug %s %s: exit %d, expected "not ok ... %s"\n%s\n' "$bug" "$*" $rc "$want" "$out"
	fi
}

run "" ""
run "" "" --dlhald "$dlhald"
# The staged driver: its check passes without a bug, fails on each of its two.
staged() { # BUG EXPECTED-FAILING-CHECK [kit options]: as run(), on tests/buggy_staged.c
	m=$module p=$profile
	module=$staged_module profile=$staged_profile
	run "$@"
	module=$m profile=$p
}
staged "" ""
staged "" "" --dlhald "$dlhald"
staged forget "a staged split"
staged forget "a staged split" --dlhald "$dlhald"
# Applied at once by a driver that says it stages: core refuses it (-EIO), and the split check says so.
staged at_once "split into 2 and unsplit"
run noports "device probes with ports"
run lanes "ports report flavour, lanes, splittable and names consistently"
run split_count "split into 2 and unsplit"
run split_count "split into 4 and unsplit"
run events "split into 2 and unsplit"
run count_msg "split by a count the port does not advertise is refused"
run splittable_split "a split port cannot be split again"
run refuse "unsplit of a port that is not split is refused"
run plan "plans say exactly what the operations then do"
run plan_view "a change planned after another is its plan once the first is done"
run type "type set"
run atomic "a failed hardware access leaves ports and hardware as before"
run state "the hardware state survives a restart"
run state "the hardware state survives a restart" --dlhald "$dlhald"
run cycles "[0-9]* split/unsplit cycles return to the starting ports"
# A driver that fails and sets no message (issue 19): the error line says what failed, never ": ."
silent() { # BUG EXPECTED-LINE DL-ARGS...
	bug=$1 want=$2
	shift 2
	out=$(DLHAL_BUG=$bug DLHAL_MODULE_PATH="$(dirname "$module"):$DLHAL_MODULE_PATH" "$dl" --sim "$profile" "$@" 2>&1)
	rc=$?
	case $rc:$out in
	1:*"$want"*) pass=$((pass + 1)) ;;
	*) fail=$((fail + 1)) && printf 'FAIL: dl %s with bug %s: exit %d, expected 1 and "%s"\n%s\n' "$*" "$bug" $rc "$want" "$out" ;;
	esac
}
silent silent "Error: pci/0000:06:00.0: $profile: probe failed: Input/output error." port show
silent silent_op "Error: pci/0000:06:00.0/4: split failed: Input/output error." port split swp2 2
# Bad usage: exit 2 and a message naming the bad part, no check run.
usage() { # EXPECTED-MESSAGE ARGS...
	want=$1
	shift
	out=$("$kit" "$@" 2>&1)
	rc=$?
	case $rc:$out in
	2:*"$want"*) pass=$((pass + 1)) ;;
	*) fail=$((fail + 1)) && printf 'FAIL: dlhal-conform %s: exit %d, expected 2 and "%s"\n%s\n' "$*" $rc "$want" "$out" ;;
	esac
}
usage "Usage: dlhal-conform" --module "$module"
usage "--cycles \"0\": expected 1 to 100000" --profile "$profile" --cycles 0
usage "--format \"xml\": expected tap or criterion" --profile "$profile" --format xml
usage "Usage: dlhal-conform" --profile "$profile" --bogus
usage "/nonexistent.so: Cannot load module" --module /nonexistent.so --profile "$profile"
usage "Unknown profile \"nosuch\"" --profile nosuch
usage "Usage: dlhal-conform" --profile "$profile" --kernel pci/0000:03:00.0
usage "--steps \"0\": expected 1 to 100000" --kernel pci/0000:03:00.0 --steps 0
usage "--seed \"abc\": expected 1 to 2147483647" --kernel pci/0000:03:00.0 --seed abc
echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
