#!/bin/bash
# The Ansible collection (ansible/ansible_collections/dlhal/devlink) with Debian's ansible-core:
# offline sanity, unit tests, ansible-doc, a built and installed tarball, playbooks against real
# dlhalds (one host, then a fleet of 16 rolled out in batches).
# Usage: tests/ansible.sh BUILD SRC [--bench N]   (--bench: time the rollout per host, assert nothing)
BENCH=${4:-}
[ "${3:-}" = --bench ] || BENCH=
lib_name=ansible lib_tools="ansible-playbook ansible-galaxy ansible-doc ansible-test pycodestyle yamllint"
. "$(dirname "$0")/script-lib.sh"
COLL=$SRC/ansible/ansible_collections/dlhal/devlink
export ANSIBLE_COLLECTIONS_PATH=$SRC/ansible ANSIBLE_NOCOLOR=1 ANSIBLE_FORCE_COLOR=0 ANSIBLE_HOST_KEY_CHECKING=0
export ANSIBLE_LOCAL_TEMP=$T/tmp ANSIBLE_REMOTE_TEMP=$T/tmp ANSIBLE_RETRY_FILES_ENABLED=0 ANSIBLE_PYTHON_INTERPRETER=/usr/bin/python3
export LC_ALL=C.UTF-8
# The emulated boards' drivers, linked in the dl of the build tree.
daemon() { # NAME PROFILES: a dlhald on $T/NAME.sock
	rm -f "$T/$1.sock"
	"$DLHALD" -f -s "$T/$1.sock" --sim "$2" 2> "$T/$1.log" &
	pids+=($!)
}
wait_socks() {
	for s in "$@"; do
		daemon_wait "$T/$s.sock"
	done
}
# The recap line of each host: "HOST changed=N failed=N".
recap() { sed -n 's/^\([a-z0-9]*\) *: ok=[0-9]* *changed=\([0-9]*\) .*failed=\([0-9]*\) .*/\1 changed=\2 failed=\3/p' "$1"; }

if [ -z "$BENCH" ]; then
# --- the collection's own checks ---------------------------------------------------------------
cp -r "$SRC/ansible" "$T/coll"
cd "$T/coll/ansible_collections/dlhal/devlink" || exit 1
skip=""
# These need a venv from PyPI; their offline stand-ins are below (pycodestyle, yamllint, ansible-doc,
# tests/unit/plugins/modules/test_docs.py for validate-modules' argument_spec check).
for t in ansible-doc import pep8 pylint runtime-metadata validate-modules yamllint; do skip="$skip --skip-test $t"; done
if ansible-test sanity --local --python-interpreter /usr/bin/python3 $skip > "$T/sanity" 2>&1; then
	ok "ansible-test sanity: the $(grep -c '^Running sanity test' "$T/sanity") checks that run offline"
else
	nok "ansible-test sanity" "$(grep -v 'Using locale\|Reviewing previous' "$T/sanity" | tail -n 20)"
fi
if pycodestyle --max-line-length 160 --ignore E402,W503,W504,E741 plugins tests > "$T/pep8" 2>&1 &&
	yamllint -d '{extends: default, rules: {line-length: {max: 160}, document-start: disable, truthy: disable}}' \
		galaxy.yml meta tests/integration > "$T/yaml" 2>&1; then
	ok "pycodestyle and yamllint as ansible-test's pep8 and yamllint set them"
else
	nok "pep8/yamllint" "$(cat "$T/pep8" "$T/yaml")"
fi
if DLHAL_DL=$DL PYTHONPATH=$T/coll /usr/bin/python3 -m pytest -q -p no:cacheprovider tests/unit > "$T/unit" 2>&1 &&
	! grep -q skipped "$T/unit"; then
	ok "unit tests of the module code: $(tail -n 1 "$T/unit")"
else
	nok "unit tests" "$(tail -n 30 "$T/unit")"
fi
good=1
for m in ports info; do
	ansible-doc "dlhal.devlink.$m" > "$T/doc.$m" 2>&1 && grep -q "^OPTIONS" "$T/doc.$m" && grep -q "^EXAMPLES" "$T/doc.$m" &&
		grep -q "^RETURN VALUES" "$T/doc.$m" || good=0
done
if [ $good = 1 ] && grep -q "= ports" "$T/doc.ports"; then ok "ansible-doc renders both modules (options, examples, return values)"
else nok "ansible-doc" "$(head -n 20 "$T/doc.ports" "$T/doc.info")"; fi
# Built and installed from the tarball, then used from there (not from the tree).
if ansible-galaxy collection build --output-path "$T/dist" > "$T/build" 2>&1 &&
	ansible-galaxy collection install -p "$T/installed" "$T"/dist/dlhal-devlink-*.tar.gz > "$T/install" 2>&1 &&
	ANSIBLE_COLLECTIONS_PATH=$T/installed ansible localhost -i localhost, -c local \
		-m dlhal.devlink.info -a "sim=sn2700 dl_path=$DL" > "$T/adhoc" 2>&1 &&
	grep -q '"pci/0000:03:00.0/1"' "$T/adhoc"; then
	ok "ansible-galaxy collection build and install: the installed info module lists the emulated Spectrum"
else
	nok "build/install" "$(cat "$T/build" "$T/install"; tail -n 20 "$T/adhoc")"
fi
# Misuse and a backend that is not there, as a task meets them: dl's own words, nothing changed.
adhoc() { ANSIBLE_COLLECTIONS_PATH=$T/installed ansible localhost -i localhost, -c local -m "$1" -a "$2" 2>&1; }
adhoc dlhal.devlink.info "sim=nope dl_path=$DL" > "$T/a1"
adhoc dlhal.devlink.info "sim=sn2700 dl_path=/bin/true" > "$T/a2"
adhoc dlhal.devlink.ports "{\"sim\": \"sn2700\", \"dl_path\": \"$DL\",
	\"ports\": [{\"device\": \"pci/0000:03:00.0\", \"number\": 17, \"split\": true}]}" > "$T/a3"
adhoc dlhal.devlink.ports "{\"sim\": \"sn2700\", \"dl_path\": \"$DL\",
	\"ports\": [{\"device\": \"pci/0000:03:00.0\\n\", \"number\": 17, \"split\": 2}]}" > "$T/a4"
failed_with() { grep -q 'FAILED!' "$1" && grep -q "\"msg\": \"$2" "$1"; }
if failed_with "$T/a1" '--sim nope: Unknown profile' && ! grep -q 'Broken pipe' "$T/a1" &&
	failed_with "$T/a2" 'dl answered nothing (exit 0): is /bin/true dl?' &&
	failed_with "$T/a3" 'ports\[0\].split: true is a boolean: expected a whole number' &&
	failed_with "$T/a4" 'ports\[0\].device: .*expected BUS/DEV'; then
	ok "a profile that is not there, a dl_path that is not dl, split: true and a device with a newline: the task fails, saying why"
else
	nok "misuse through Ansible" "$(cat "$T/a1" "$T/a2" "$T/a3" "$T/a4")"
fi
# An 8-lane cage split by 8 (issue 43): the task reports the eight ports it brings.
adhoc dlhal.devlink.ports "{\"sim\": \"sn4700\", \"dl_path\": \"$DL\",
	\"ports\": [{\"device\": \"pci/0000:0b:00.0\", \"number\": 1, \"split\": 8}]}" > "$T/a5"
if grep -q '"changed": true' "$T/a5" && grep -q '"port": "pci/0000:0b:00.0/8"' "$T/a5" &&
	[ "$(grep -c '"lanes": 1,' "$T/a5")" -ge 8 ]; then
	ok "an SN4700's cage split by 8 through the ports module: changed, eight 1-lane ports"
else
	nok "split by 8 through Ansible" "$(head -n 60 "$T/a5")"
fi
# A ConnectX-3 at once and a ConnectX-6 at its reset from one task (issue 44): changed and waiting for
# a reset, then ok and still waiting, then reload=true: the reset done, nothing waits.
daemon vpi cx3-vpi,cx6-vpi
wait_socks vpi
vpi='"ports": [{"device": "pci/0000:01:00.0", "number": 1, "type": "eth"}, {"device": "pci/0000:03:00.0", "number": 0, "type": "ib"}]'
adhoc dlhal.devlink.ports "{\"socket\": \"$T/vpi.sock\", \"dl_path\": \"$DL\", $vpi}" > "$T/v1"
adhoc dlhal.devlink.ports "{\"socket\": \"$T/vpi.sock\", \"dl_path\": \"$DL\", $vpi}" > "$T/v2"
adhoc dlhal.devlink.ports "{\"socket\": \"$T/vpi.sock\", \"dl_path\": \"$DL\", \"reload\": true, $vpi}" > "$T/v3"
if grep -q '"changed": true' "$T/v1" && grep -q '"reboot_required": true' "$T/v1" &&
	grep -q '"changed": false' "$T/v2" && grep -q '"reboot_required": true' "$T/v2" &&
	grep -q '"pci/0000:03:00.0/65535": {' "$T/v2" && grep -q '"reboot_required": false' "$T/v3" &&
	[ "$("$DL" -s "$T/vpi.sock" port show pci/0000:03:00.0)" = "pci/0000:03:00.0/65535: type ib ibdev mlx5_0" ] &&
	[ "$("$DL" -s "$T/vpi.sock" port show pci/0000:01:00.0/1)" = "pci/0000:01:00.0/1: type eth netdev ens4" ]; then
	ok "one task sets a ConnectX-3 at once and a ConnectX-6 at its reset: changed, then ok waiting for the reset, then reload=true applies it"
else
	nok "ConnectX-3 and -6 through Ansible" "$(cat "$T/v1" "$T/v2" "$T/v3" | head -n 80)"
fi
cd "$T" || exit 1

# --- one host: every behaviour, asserted in the playbook --------------------------------------
daemon one sn2700
daemon staged e810-cqda2
wait_socks one staged
if ansible-playbook -i localhost, -c local -e "dlhal_socket=$T/one.sock dlhal_staged_socket=$T/staged.sock dl_path=$DL" \
	"$COLL/tests/integration/single.yml" > "$T/single" 2>&1 && recap "$T/single" | grep -qx 'localhost changed=[0-9]* failed=0'; then
	ok "one host: check mode plans and changes nothing, for real, again changed=0, conflicts, atomic undo, bad input, reboot_required and reload ($(grep -c '^TASK' "$T/single") tasks)"
else
	nok "one host" "$(grep -B2 -A12 'fatal\|FAILED\|ERROR' "$T/single" | grep -v '^\.\.\.ignoring' | head -n 40)"
fi
fi

# --- a fleet: 16 hosts, each with its own dlhald ------------------------------------------------
N=${BENCH:-16}
{
	echo "fleet:"
	echo "  vars: {ansible_connection: local, dl_path: $DL}"
	echo "  hosts:"
	for i in $(seq -w 1 "$N"); do
		# two layouts across the fleet; sw05's asks for a split by 3, which its driver refuses
		if [ "$i" = 05 ]; then plan="[{device: pci/0000:03:00.0, number: 17, split: 4}, {device: pci/0000:03:00.0, number: 18, split: 3}]"
		elif [ $((10#$i % 2)) = 1 ]; then plan="[{device: pci/0000:03:00.0, number: 17, split: 4}, {device: pci/0000:03:00.0, number: 18, split: 2}]"
		else plan="[{device: pci/0000:03:00.0, number: 19, split: 2}, {device: pci/0000:03:00.0, number: 20, split: 2}]"; fi
		echo "    sw$i: {dlhal_socket: $T/sw$i.sock, breakout: $plan}"
		daemon "sw$i" sn2700
	done
} > "$T/inventory.yml"
for i in $(seq -w 1 "$N"); do wait_socks "sw$i"; done
# every host's ports, one line a host
listing() { for i in $(seq -w 1 "$N"); do echo "sw$i $("$DL" -s "$T/sw$i.sock" port show | md5sum | cut -c1-8)"; done; }
listing > "$T/fresh"
run() { # NAME ARGS...: a rollout; its recap in $T/NAME.recap, its time in $T/NAME.ms
	local name=$1 t0 t1
	shift
	t0=$(date +%s%N)
	ansible-playbook -i "$T/inventory.yml" "$COLL/tests/integration/fleet.yml" "$@" > "$T/$name" 2>&1
	t1=$(date +%s%N)
	recap "$T/$name" | sort > "$T/$name.recap"
	echo $(((t1 - t0) / 1000000)) > "$T/$name.ms"
}
expect() { # NAME: hosts and their changed/failed, as "sw01 changed=1 failed=0" lines on stdin
	sort > "$T/$1.want"
	cmp -s "$T/$1.want" "$T/$1.recap"
}
fleet_want() { # CHANGED_OK CHANGED_09 FAILED_09: every host's recap line
	for i in $(seq -w 1 "$N"); do
		if [ "$i" = 05 ]; then echo "sw05 changed=0 failed=1"
		elif [ "$i" = 09 ]; then echo "sw09 changed=$2 failed=$3"
		else echo "sw$i changed=$1 failed=0"; fi
	done
}
run check --check
listing > "$T/after-check"
if fleet_want 1 1 0 | expect check && cmp -s "$T/fresh" "$T/after-check" &&
	grep -q "sw05.*split pci/0000:03:00.0 port 18 into 3 (ports\[1\]): pci/0000:03:00.0/5: Port can only be split into 2 or 4 ports" "$T/check"; then
	[ -n "$BENCH" ] || ok "fleet, --check: $((N - 1)) hosts would change, sw05's layout refused by its driver, nothing changed anywhere"
else
	nok "fleet --check" "$(diff "$T/check.want" "$T/check.recap"; diff "$T/fresh" "$T/after-check" | head -n 5)"
fi
run real -e '{"fault_hosts": ["sw09"]}'
listing > "$T/after-real"
if fleet_want 1 0 1 | expect real && grep -q "^sw05 $(grep '^sw05' "$T/fresh" | cut -d' ' -f2)" "$T/after-real" &&
	grep -q "^sw09 $(grep '^sw09' "$T/fresh" | cut -d' ' -f2)" "$T/after-real" &&
	grep -q "sw09.*the steps done were undone" "$T/real"; then
	[ -n "$BENCH" ] || ok "fleet, for real in batches of 4: $((N - 2)) changed; sw05 refused and sw09's hardware failed half way, both left as they were (atomic), the others finished"
else
	nok "fleet for real" "$(diff "$T/real.want" "$T/real.recap"; grep -A3 'sw09' "$T/real" | head -n 20)"
fi
run again
if fleet_want 0 1 0 | expect again; then
	[ -n "$BENCH" ] || ok "fleet, again: changed=0 on every host that was done, sw09 done now, sw05 still refused"
else
	nok "fleet again" "$(diff "$T/again.want" "$T/again.recap")"
fi
run idle
if fleet_want 0 0 0 | expect idle; then
	[ -n "$BENCH" ] || ok "fleet, a last time: changed=0 everywhere"
else
	nok "fleet idle" "$(diff "$T/idle.want" "$T/idle.recap")"
fi
if [ -n "$BENCH" ]; then
	for r in check real again idle; do
		echo "fleet rollout $r: $(cat "$T/$r.ms") ms for $N hosts, $(($(cat "$T/$r.ms") / N)) ms a host (serial 4, forks 5)"
	done
	echo "command: tests/ansible.sh BUILD SRC --bench $N"
	exit 0
fi
echo "$pass passed, $fail failed"
[ $fail = 0 ]
