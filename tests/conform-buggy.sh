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
# Through dlhald the kit's folders go with it: nothing left behind (issue 42: 7-20 a run).
TMPDIR=$(mktemp -d) && export TMPDIR
run "" "" --dlhald "$dlhald"
left=$(ls -A "$TMPDIR")
if [ -z "$left" ]; then pass=$((pass + 1)); else fail=$((fail + 1)) && printf 'FAIL: --dlhald left %s\n' "$left"; fi
rmdir "$TMPDIR"
unset TMPDIR
# A driver whose four-lane ports split by 2 only passes alike in the process and through dlhald (issue 42).
run by_two ""
run by_two "" --dlhald "$dlhald"
# A module not named after its driver: the same verdict in the process and through dlhald, saying why.
misnamed=$(mktemp -d)
cp "$module" "$misnamed/acme.so"
for where in "" "--dlhald $dlhald"; do
	# shellcheck disable=SC2086
	out=$("$kit" --module "$misnamed/acme.so" --profile "$profile" $where 2>&1)
	rc=$?
	if [ $rc -eq 2 ] && printf '%s' "$out" | grep -q 'acme.so holds driver "buggy": dlhald and every profile find'; then
		pass=$((pass + 1))
	else
		fail=$((fail + 1)) && printf 'FAIL: misnamed module %s: exit %d\n%s\n' "$where" $rc "$out"
	fi
done
# A dlhald that stops at its start: its reason, not only its status.
cat > "$misnamed/dlhald" <<'EOS'
#!/bin/sh
echo "dlhald: err: --sim nothing: no such profile" >&2
exit 1
EOS
chmod +x "$misnamed/dlhald"
out=$("$kit" --module "$module" --profile "$profile" --dlhald "$misnamed/dlhald" 2>&1)
rc=$?
if [ $rc -ne 0 ] && printf '%s' "$out" | grep -q 'exited (status 1) before listening: --sim nothing: no such profile'; then
	pass=$((pass + 1))
else
	fail=$((fail + 1)) && printf 'FAIL: a dlhald that stops: exit %d\n%s\n' $rc "$out"
fi
rm -rf "$misnamed"
# A plan that ignores a rule its op enforces (two cages sharing a SerDes: one split at most): found once a
# first change was accepted, by planning and acting on every other port (issue 42: it passed 12/12).
run serdes "plans say exactly what the operations then do"
run serdes "plans say exactly what the operations then do" --dlhald "$dlhald"
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
