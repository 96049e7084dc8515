#!/bin/sh
# The dlhal-ports YANG module (yang/, issue 45): yanglint, libyang's own checker, takes the module
# with no warning; takes configurations (desired-state entries), state as a <get> returns it and a
# notification; refuses what the server must refuse, each for its reason; and the module's enum
# names are the X-macro tables' (include/dlhal/dlhal.h), the words dl, JSON and Lua use.
#   yang.sh SRC
set -u
src=$1
y=$(ls "$src"/yang/dlhal-ports@*.yang | tail -n 1)
d=$src/tests/yang
pass=0 fail=0
ok() { echo "ok $1"; pass=$((pass + 1)); }
nok() { echo "not ok $1: $2"; fail=$((fail + 1)); }
command -v yanglint > /dev/null || { nok yanglint "not installed (apt-get install libyang2-tools)"; echo "0 passed, 1 failed"; exit 1; }

out=$(yanglint "$y" 2>&1); r=$?
if [ $r = 0 ] && [ -z "$out" ]; then ok "yanglint takes $(basename "$y") with no warning"; else nok "module" "rc=$r $out"; fi
# the revision in the file's name is the module's latest
rev=$(sed -n 's/^  revision \([0-9-]*\) {/\1/p' "$y" | head -n 1)
case $y in *"@$rev.yang") ok "file named for its revision $rev" ;; *) nok "revision" "$y, revision $rev" ;; esac

# take TYPE FILE WHAT
take() {
	out=$(yanglint -t "$1" "$y" "$d/$2" 2>&1); r=$?
	if [ $r = 0 ] && [ -z "$out" ]; then ok "$3"; else nok "$3" "rc=$r $out"; fi
}
take config config-ok.xml "a configuration: devices by handle (a nested instance's too), ports by number, split and type"
take get state-ok.xml "state as a get returns it: driver, plans, ports with their index, type, names, lanes, split counts, pending"
take notif notif-ok.xml "a port-event notification"

# refuse FILE REASON WHAT
refuse() {
	out=$(yanglint -t config "$y" "$d/$1" 2>&1); r=$?
	if [ $r != 0 ] && echo "$out" | grep -q "$2"; then ok "refused: $3"; else nok "$3" "rc=$r $out"; fi
}
refuse config-split65.xml 'value "65" is out of the allowed range' "a split past 64"
refuse config-number.xml 'value "65536" is out of the allowed range' "a port number past 65535"
refuse config-type-fc.xml 'Invalid enumeration value "fc"' "an unknown type"
refuse config-notset.xml 'Invalid enumeration value "notset"' "type notset, which is no type to set"
refuse config-handle.xml 'does not conform to' "a port's handle where a device's is expected"
refuse config-state.xml 'Unexpected data state node "state"' "state in a configuration"

# enum NAME MAP: the typedef's enum names, in order, are the X-macro table's
enum() {
	have=$(awk -v t="typedef $1 {" '$0 ~ t { on = 1 } on && /^  }/ { exit } on && $1 == "enum" { sub(/;$/, "", $2); print $2 }' "$y" | tr '\n' ' ')
	want=$(sed -n "/#define $2(X)/,/^\$/p" "$src/include/dlhal/dlhal.h" | sed -n 's/.*X([A-Z_]*, "\([a-z_]*\)", [0-9]*).*/\1/p' | tr '\n' ' ')
	if [ -n "$have" ] && [ "$have" = "$want" ]; then ok "typedef $1: dlhal's names ($have)"; else nok "typedef $1" "module '$have', dlhal.h '$want'"; fi
}
enum port-flavour DLH_PORT_FLAVOUR_MAP
# a type to set: the table's but notset, in its order from eth (eth and ib first: what users set)
have=$(awk '/typedef port-type \{/ { on = 1 } on && /^  }/ { exit } on && $1 == "enum" { sub(/;$/, "", $2); sub(/ .*/, "", $2); print $2 }' "$y" | sort | tr '\n' ' ')
want=$(sed -n '/#define DLH_PORT_TYPE_MAP(X)/,/^$/p' "$src/include/dlhal/dlhal.h" | sed -n 's/.*X([A-Z_]*, "\([a-z_]*\)", [0-9]*).*/\1/p' | grep -vx notset | sort | tr '\n' ' ')
if [ "$have" = "$want" ]; then ok "typedef port-type: dlhal's names but notset ($have)"; else nok "typedef port-type" "module '$have', dlhal.h '$want'"; fi
echo "$pass passed, $fail failed"
[ $fail = 0 ]
