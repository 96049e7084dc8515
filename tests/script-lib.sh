# Sourced by the script tests that drive dl and dlhald of a build (ansible.sh, metrics.sh, panel.sh):
# their arguments (BUILD SRC), the programs, a scratch folder, the "ok"/"not ok" lines and their count,
# and the daemons they start (in $pids) stopped on the way out. KEEP=1 keeps the scratch folder.
#   . "$(dirname "$0")/script-lib.sh" NAME TOOL...   (NAME: the scratch folder's; TOOL: needed commands)
set -u
BUILD=$(cd "$1" && pwd) SRC=$(cd "$2" && pwd)
DL=$BUILD/tools/dl/dl DLHALD=$BUILD/tools/dlhald/dlhald
T=$(mktemp -d "/tmp/dlhal-$lib_name-XXXXXX")
pass=0 fail=0 pids=()
ok() { echo "ok $1"; pass=$((pass + 1)); }
nok() { echo "not ok $1"; [ -n "${2:-}" ] && printf '%s\n' "$2" | sed 's/^/#   /' | head -n 40; fail=$((fail + 1)); }
cleanup_more() { :; }
# Until the dlhald on socket $1 answers (up to 20 s): the socket file comes at bind(), a moment before
# the daemon listens, and a loaded machine can stretch that moment.
daemon_wait() {
	for _ in $(seq 400); do "$DL" -s "$1" dev show > /dev/null 2>&1 && return 0; sleep 0.05; done
	return 1
}
cleanup() {
	cleanup_more
	for p in "${pids[@]}"; do kill "$p" 2> /dev/null; done
	wait 2> /dev/null
	[ -n "${KEEP:-}" ] || rm -rf "$T"
}
trap cleanup EXIT
for tool in $lib_tools; do
	command -v "$tool" > /dev/null || { echo "not ok $tool is not installed (tools/deps.sh test)"; exit 1; }
done
export DLHAL_MODULE_DIR=
