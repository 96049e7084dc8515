#!/bin/sh
# Whether a big board's work stays linear in its ports (issue 43): an emulated SN5600 (64 OSFP cages of
# 8 lanes) with K of its cages split by 8 (65 + 7K ports), for K = 8, 16, 32, 64 (121 to 513 ports).
# For each K, the instructions (valgrind, deterministic) of one dl process that
#   apply:  applies a file splitting K cages by 8 (each step planned on what the ones before leave)
#   dump:   then lists every port as JSON
#   panel:  then draws the panel
# and of dlhald serving the apply to another dl (what the daemon spends, notifications included).
# Each phase is the difference between batches that stop after it and before it. Per port: the
# instructions added from one K to the next, divided by the ports added: flat when linear.
#   bench/board.sh [BUILD]      (BUILD defaults to ./build)
set -eu
cd "$(dirname "$0")/.."
build=${1:-build}
[ -f "$build/build.ninja" ] || meson setup "$build" >/dev/null
meson compile -C "$build" >/dev/null
command -v valgrind >/dev/null || { echo "bench/board.sh: valgrind is not installed" >&2; exit 1; }
dl=$build/tools/dl/dl dlhald=$build/tools/dlhald/dlhald
tmp=$(mktemp -d)
trap 'kill $(cat "$tmp"/pid 2>/dev/null) 2>/dev/null || true; rm -rf "$tmp"' EXIT
S=pci/0000:0c:00.0

irefs() { # CMD...: the instructions it executes
	valgrind --tool=cachegrind --cache-sim=no --cachegrind-out-file=/dev/null "$@" 2>&1 >/dev/null |
		awk '/I *refs:/{ gsub(",", "", $NF); print $NF }'
}
conf() { # K: a file splitting the first K cages by 8
	i=0
	while [ $i -lt $1 ]; do
		i=$((i + 1))
		printf '[Match]\nDevice=%s\nNumber=%d\n[Port]\nSplit=8\n\n' $S $i
	done > "$tmp/k$1.conf"
}
batch() { # K PHASES: a batch (run with -j) that applies the file, dumps, draws, stopping after PHASES
	: > "$tmp/b"
	[ $2 -ge 1 ] && echo "apply $tmp/k$1.conf" >> "$tmp/b"
	[ $2 -ge 2 ] && echo "port show" >> "$tmp/b"
	[ $2 -ge 3 ] && echo "panel $S" >> "$tmp/b"
	cat "$tmp/b"
}

printf '| cages split | ports | apply (instr.) | dump | panel | dlhald serving the apply |\n|---|---|---|---|---|---|\n'
for k in 8 16 32 64; do
	conf $k
	for ph in 0 1 2 3; do
		batch $k $ph > "$tmp/b$ph"
		eval "i$ph=\$(irefs \"\$dl\" --sim sn5600 -j -b \"\$tmp/b$ph\")"
	done
	# the daemon: its instructions serving a fresh start, then the apply by another dl
	rm -f "$tmp/s"
	valgrind --tool=cachegrind --cache-sim=no --cachegrind-out-file=/dev/null --log-file="$tmp/vg$k" \
		"$dlhald" -f -s "$tmp/s" --sim sn5600 > /dev/null 2>&1 &
	echo $! > "$tmp/pid"
	i=0; until [ -S "$tmp/s" ]; do i=$((i + 1)); [ $i -lt 600 ] || exit 1; sleep 0.1; done
	"$dl" -s "$tmp/s" apply "$tmp/k$k.conf" > /dev/null
	kill -TERM "$(cat "$tmp/pid")"; wait "$(cat "$tmp/pid")" 2>/dev/null || true
	d=$(awk '/I *refs:/{ gsub(",", "", $NF); print $NF }' "$tmp/vg$k")
	# the same daemon started and stopped with nothing asked: its own start, taken off
	rm -f "$tmp/s"
	valgrind --tool=cachegrind --cache-sim=no --cachegrind-out-file=/dev/null --log-file="$tmp/vg0" \
		"$dlhald" -f -s "$tmp/s" --sim sn5600 > /dev/null 2>&1 &
	echo $! > "$tmp/pid"
	i=0; until [ -S "$tmp/s" ]; do i=$((i + 1)); [ $i -lt 600 ] || exit 1; sleep 0.1; done
	kill -TERM "$(cat "$tmp/pid")"; wait "$(cat "$tmp/pid")" 2>/dev/null || true
	d0=$(awk '/I *refs:/{ gsub(",", "", $NF); print $NF }' "$tmp/vg0")
	eval "a$k=$((i1 - i0)) u$k=$((i2 - i1)) p$k=$((i3 - i2)) s$k=$((d - d0))"
	printf '| %d | %d | %d | %d | %d | %d |\n' $k $((65 + 7 * k)) $((i1 - i0)) $((i2 - i1)) $((i3 - i2)) $((d - d0))
done
echo
echo "Each port added, from K/2 to K cages split (7K/2 ports), instructions a port:"
echo
printf '| cages split | apply | dump | panel | dlhald serving the apply |\n|---|---|---|---|---|\n'
for k in 16 32 64; do
	h=$((k / 2)) n=$((7 * k / 2))
	eval "printf '| %d | %d | %d | %d | %d |\n' $k \$(((a$k - a$h) / n)) \$(((u$k - u$h) / n)) \$(((p$k - p$h) / n)) \$(((s$k - s$h) / n))"
done
echo
echo "Reproduce: bench/board.sh $build"
