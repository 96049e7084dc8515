#!/bin/sh
# fuzz/run.sh BUILD_DIR [RUNS]: each libFuzzer harness for RUNS executions
# (default 5000) from its seed corpus, under the sanitizers the build has.
# Fails on any report. New inputs go to a scratch copy, never to fuzz/corpus.
# A longer campaign: docs/fuzzing.md.
set -u
build=$1
runs=${2:-5000}
src=$(cd "$(dirname "$0")/.." && pwd)
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
pass=0
fail=0
for f in daemon client kernel state profile batch desired desired_json mstconfig; do
	case $f in
	mstconfig) dict=mstconfig.dict ;;
	daemon | client | kernel) dict=devlink.dict ;;
	state | profile | desired_json) dict=json.dict ;;
	batch) dict=dl.dict ;;
	desired) dict=desired.dict ;;
	esac
	mkdir -p "$scratch/$f"
	# -close_fd_mask=3: the harnesses' own output (dl's, dlhald's log) is not kept;
	# libFuzzer's and the sanitizers' reports are.
	if "$build/fuzz/fuzz_$f" -runs="$runs" -seed=1 -close_fd_mask=3 -dict="$src/fuzz/$dict" \
		-artifact_prefix="$scratch/$f-" "$scratch/$f" "$src/fuzz/corpus/$f" > "$build/fuzz-$f.log" 2>&1; then
		echo "fuzz_$f: $(grep -E '^Done [0-9]+ runs' "$build/fuzz-$f.log")"
		pass=$((pass + 1))
	else
		echo "fuzz_$f: FAILED (log: $build/fuzz-$f.log)"
		grep -E 'ERROR|SUMMARY|runtime error' "$build/fuzz-$f.log" | head -5
		for a in "$scratch/$f"-*; do [ -e "$a" ] && cp "$a" "$build/" && echo "  input kept: $build/$(basename "$a")"; done
		fail=$((fail + 1))
	fi
done
echo "$pass passed, $fail failed" | tee "$build/fuzz-summary.txt"
[ "$fail" -eq 0 ]
