#!/bin/bash
# dlhald --metrics-file with Debian's Prometheus tools: promtool checks the file and docs/fleet.md's
# alerting rules; prometheus-node-exporter serves the textfile folder and prometheus scrapes it, both on
# loopback ports and stopped afterwards; after a split through dlhald, the server's query API shows the
# new ports and the operation.
# Usage: tests/metrics.sh BUILD SRC
lib_name=metrics lib_tools="promtool prometheus prometheus-node-exporter python3"
. "$(dirname "$0")/script-lib.sh"
# Free loopback ports, from the kernel.
port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
# GET on the server's query API: the result vector as "LABELS VALUE" lines, sorted (python3: no curl needed).
query() {
	python3 - "$PROM" "$1" <<'PY'
import json, sys, urllib.parse, urllib.request
url = 'http://%s/api/v1/query?query=%s' % (sys.argv[1], urllib.parse.quote(sys.argv[2]))
try:
    r = json.load(urllib.request.urlopen(url, timeout=5))
except Exception as e:
    print('error', e)
    sys.exit(0)
for s in sorted(r['data']['result'], key=lambda s: json.dumps(s['metric'], sort_keys=True)):
    m = dict(s['metric'])
    for k in ('__name__', 'instance', 'job'):
        m.pop(k, None)
    print(' '.join('%s=%s' % kv for kv in sorted(m.items())), s['value'][1])
PY
}
# Waits (up to 60 s) until query $1's answer holds $2.
until_query() {
	for _ in $(seq 120); do
		query "$1" > "$T/q"
		grep -qF -- "$2" "$T/q" && return 0
		sleep 0.5
	done
	return 1
}

mkdir -p "$T/textfile" "$T/tsdb"
# A board whose netdev names hold '"' and '\' (the kernel allows both): label escaping, end to end.
sed 's/"netdev": "eth%d"/"netdev": "q\\"\\\\%d"/' "$SRC/drivers/mlxsw/profiles/sn2700.json" |
	sed 's#"handle": "pci/0000:03:00.0"#"handle": "pci/0000:04:00.0"#' > "$T/odd.json"
printf '[Match]\nDevice=pci/0000:03:00.0\nNumber=18\n[Port]\nSplit=2\n\n[Match]\nDevice=pci/0000:03:00.0\nNumber=99\n[Port]\nSplit=2\n' \
	> "$T/ports.conf"
"$DLHALD" -f -s "$T/d.sock" --sim "sn2700,e810-cqda2,$T/odd.json" --desired "$T/ports.conf" \
	--metrics-file "$T/textfile/dlhal.prom" --metrics-interval 1 2> "$T/dlhald.log" &
pids+=($!)
daemon_wait "$T/d.sock"
for _ in $(seq 400); do [ -f "$T/textfile/dlhal.prom" ] && break; sleep 0.05; done
"$DL" -s "$T/d.sock" port split eth2 3 > /dev/null 2>&1 # refused: an error counted
sleep 0.2
if promtool check metrics < "$T/textfile/dlhal.prom" > "$T/pc" 2>&1 && [ ! -s "$T/pc" ] &&
	grep -q '^dlhal_port_info{device="pci/0000:04:00.0",port="pci/0000:04:00.0/1",index="1",number="17",netdev="q\\"\\\\0",' "$T/textfile/dlhal.prom"; then
	ok "promtool check metrics accepts dlhald's file, with a netdev name's quote and backslash escaped"
else
	nok "promtool check metrics" "$(cat "$T/pc"; grep 'pci/0000:04:00.0/1"' "$T/textfile/dlhal.prom")"
fi
# Written whole: the file is always complete while dlhald rewrites it (a reader races the renames
# of 40 splits and unsplits by another client).
(for _ in $(seq 20); do "$DL" -s "$T/d.sock" port split eth4 2; "$DL" -s "$T/d.sock" port unsplit eth4; done) > /dev/null 2>&1 &
churn=$!
# each read whole: its first and last lines (a file cut short would end elsewhere)
while kill -0 $churn 2> /dev/null; do sed -n '1p;$p' "$T/textfile/dlhal.prom" | tr '\n' ' '; echo; done | sort -u > "$T/tails"
sleep 0.2
if [ "$(cat "$T/tails")" = "$(sed -n '1p;$p' "$T/textfile/dlhal.prom" | tr '\n' ' ')" ] &&
	grep -q 'op="unsplit",source="client",result="ok"} 20$' "$T/textfile/dlhal.prom" &&
	! ls "$T/textfile" | grep -qv '^dlhal.prom$'; then
	ok "the file is replaced whole (write, fsync, rename): reads during 40 rewrites saw complete files only"
else
	nok "atomic writes" "$(cat "$T/tails"; ls "$T/textfile")"
fi

NE=127.0.0.1:$(port) PROM=127.0.0.1:$(port)
prometheus-node-exporter --web.listen-address="$NE" --collector.disable-defaults --collector.textfile \
	--collector.textfile.directory="$T/textfile" > "$T/ne.log" 2>&1 &
pids+=($!)
cat > "$T/prometheus.yml" <<CONF
global: {scrape_interval: 1s, evaluation_interval: 1s}
scrape_configs:
  - job_name: dlhal
    static_configs: [{targets: ["$NE"]}]
CONF
prometheus --config.file="$T/prometheus.yml" --storage.tsdb.path="$T/tsdb" --web.listen-address="$PROM" \
	> "$T/prom.log" 2>&1 &
pids+=($!)
if until_query 'dlhal_device_ports{device="pci/0000:03:00.0"}' 'device=pci/0000:03:00.0 driver=mlxsw 33'; then
	ok "Debian's prometheus scrapes Debian's node exporter serving dlhald's file: 33 ports (port 18 split by the desired file)"
else
	nok "scrape" "$(cat "$T/q"; tail -n 5 "$T/ne.log" "$T/prom.log")"
fi
"$DL" -s "$T/d.sock" port split eth0 4
# (Prometheus drops empty labels: they are absent in the answers.)
if until_query 'dlhal_port_info{netdev="eth33"}' 'netdev=eth33 number=17 port=pci/0000:03:00.0/3 split_group=16 type=eth 1' &&
	until_query 'dlhal_operations_total{op="split",source="client"}' 'op=split result=ok source=client 21' &&
	grep -q 'op=split result=error source=client 1' "$T/q" &&
	until_query 'dlhal_operation_duration_seconds_count{op="split"}' 'op=split 23'; then
	ok "after a split through dlhald the query API shows its new ports, the splits (20 of the churn and this one), the refusal and their latencies"
else
	nok "split seen through prometheus" "$(cat "$T/q")"
fi
if until_query 'dlhal_desired_drift' 'file='"$T"'/ports.conf line=8 number=99 1' &&
	grep -q 'file='"$T"'/ports.conf line=2 number=18 0' "$T/q"; then
	ok "desired-state drift per entry: 0 for the met port 18, 1 for port 99 that does not exist"
else
	nok "drift" "$(cat "$T/q")"
fi
if until_query 'dlhal_port_info{netdev="q\"\\0"}' 'port=pci/0000:04:00.0/1'; then
	ok "the escaped netdev name reads back as it is through prometheus"
else
	nok "escaped label through prometheus" "$(cat "$T/q")"
fi
"$DL" -s "$T/d.sock" -j monitor > /dev/null 2>&1 &
mon=$!
pids+=($mon)
sleep 0.3
"$DL" -s "$T/d.sock" port unsplit eth0 > /dev/null
if until_query 'dlhal_monitor_subscribers' ' 1' && until_query 'dlhal_events_delivered_total' '' &&
	[ "$(query dlhal_events_delivered_total | cut -d' ' -f2)" -ge 6 ]; then
	ok "a monitor is a subscriber, and the unsplit's notifications to it are counted"
else
	nok "subscribers and events" "$(query dlhal_monitor_subscribers; query dlhal_events_delivered_total)"
fi
kill $mon
# The staged device: a pending reset is a series once a split is stored.
"$DL" -s "$T/d.sock" port split ens16f0 4 > /dev/null 2>&1
if until_query 'dlhal_device_pending_reset{device="pci/0000:16:00.0"}' 'device=pci/0000:16:00.0 split=4 1'; then
	ok "a split an E810 keeps for its next reset shows as a pending reset"
else
	nok "pending reset" "$(cat "$T/q")"
fi
# An 8-lane cage split by 8 (issue 43): eight ports of one lane in the file, promtool content.
"$DLHALD" -f -s "$T/s8.sock" --sim sn4700 --metrics-file "$T/s8.prom" > "$T/s8.log" 2>&1 &
pids+=($!)
daemon_wait "$T/s8.sock"
"$DL" -s "$T/s8.sock" port split eth0 8 > /dev/null 2>&1
for _ in $(seq 100); do
	[ "$(grep -c '^dlhal_port_info{device="pci/0000:0b:00.0",.*number="1",.*lanes="1"} 1$' "$T/s8.prom" 2> /dev/null)" = 8 ] && break
	sleep 0.1
done
if [ "$(grep -c '^dlhal_port_info{device="pci/0000:0b:00.0",.*number="1",.*lanes="1"} 1$' "$T/s8.prom")" = 8 ] &&
	grep -q '^dlhal_port_info{device="pci/0000:0b:00.0",port="pci/0000:0b:00.0/9",.*lanes="8"} 1$' "$T/s8.prom" &&
	promtool check metrics < "$T/s8.prom" > "$T/s8.pc" 2>&1; then
	ok "an SN4700's cage split by 8: eight 1-lane ports of number 1 in dlhald's file, beside 8-lane ones"
else
	nok "split by 8 in the metrics" "$(grep 'number="1"' "$T/s8.prom"; cat "$T/s8.pc")"
fi
# The alerting rules of docs/fleet.md, as written there.
sed -n '/<!-- rules:/,/^```$/p' "$SRC/docs/fleet.md" | sed '1,2d;$d' > "$T/rules.yml"
if [ -s "$T/rules.yml" ] && promtool check rules "$T/rules.yml" > "$T/pr" 2>&1 && grep -q "SUCCESS: 5 rules found" "$T/pr"; then
	ok "promtool check rules accepts docs/fleet.md's alerting rules (5)"
else
	nok "rules" "$(cat "$T/pr")"
fi
# Stopped afterwards: nothing of ours listens any more.
cleanup
pids=()
if ! python3 -c 'import socket,sys; s=socket.socket(); sys.exit(s.connect_ex(("127.0.0.1", int(sys.argv[1]))) != 0)' "${PROM#*:}"; then
	ok "prometheus, the node exporter and dlhald are stopped"
else
	nok "still listening on $PROM"
fi
echo "$pass passed, $fail failed"
[ $fail = 0 ]
