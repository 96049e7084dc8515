#!/bin/bash
# dl panel with Debian's tools: the SVG well-formed (xmllint) and rendered to PNG (rsvg-convert) with
# the right cages in the right colours; the same picture through a dlhald; --follow driven in tmux (a
# split from another shell shows, ^C gives the terminal back).
# Usage: tests/panel.sh BUILD SRC
lib_name=panel lib_tools="xmllint rsvg-convert tmux python3"
. "$(dirname "$0")/script-lib.sh"
cleanup_more() { tmux -L "dlhal-$$" kill-server 2> /dev/null; }

# The pixel under each cage's cells (or its outline when it has none) of a rendered SVG: ID COLOUR lines.
cat > "$T/px.py" <<'PY'
import struct, sys, zlib, xml.etree.ElementTree as ET
def png(path):
    data = open(path, 'rb').read()
    assert data[:8] == b'\x89PNG\r\n\x1a\n'
    pos, idat, w, bpp = 8, b'', 0, 4
    while pos < len(data):
        n, kind = struct.unpack('>I4s', data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if kind == b'IHDR':
            w, h, depth, ctype, _, _, interlace = struct.unpack('>IIBBBBB', body)
            assert depth == 8 and ctype in (2, 6) and not interlace, (depth, ctype, interlace)
            bpp = 4 if ctype == 6 else 3
        elif kind == b'IDAT':
            idat += body
        pos += 12 + n
    raw, stride = zlib.decompress(idat), w * bpp
    rows, prev, i = [], bytearray(stride), 0
    for y in range(h):
        f, line = raw[i], bytearray(raw[i + 1:i + 1 + stride]); i += 1 + stride
        for x in range(stride):
            a = line[x - bpp] if x >= bpp else 0
            b, c = prev[x], prev[x - bpp] if x >= bpp else 0
            if f == 1: line[x] = (line[x] + a) & 255
            elif f == 2: line[x] = (line[x] + b) & 255
            elif f == 3: line[x] = (line[x] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c; pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[x] = (line[x] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(bytes(line)); prev = line
    return lambda x, y: '#%02x%02x%02x' % tuple(rows[y][x * bpp:x * bpp + 3])
px = png(sys.argv[2])
svg = '{http://www.w3.org/2000/svg}'
for g in ET.parse(sys.argv[1]).getroot().iter(svg + 'g'):
    rects = g.findall(svg + 'rect')
    if not g.get('id', '').startswith('d'):
        continue
    # the cage's outline, then its cells: a point inside each, away from the text
    for r in rects[1:] or rects[:1]:
        x, y, w = int(r.get('x')), int(r.get('y')), int(r.get('width'))
        print(g.get('id'), px(x + w - 6, y + 4))
PY

# The SVG of the seed's split by 4 beside a ConnectX-3 in auto.
printf 'port split eth0 4\nport set pci/0000:01:00.0/1 type auto\npanel --svg\n' |
	"$DL" --sim sn2700,cx3-vpi -b - > "$T/p.svg" 2> "$T/err"
if xmllint --noout "$T/p.svg" 2> "$T/xml" && grep -q '<title>cage 17 (QSFP28)' "$T/p.svg"; then
	ok "the SVG is well-formed XML (xmllint), with a title on each cage"
else
	nok "xmllint" "$(cat "$T/xml" "$T/err")"
fi
# Each cage's <title> holds its ports' dl port show lines.
printf 'port split eth0 4\nport show\n' | "$DL" --sim sn2700 -b - | grep '^pci/0000:03:00.0/[1-4]:' > "$T/show"
python3 - "$T/p.svg" > "$T/titles" <<'PY'
import sys, xml.etree.ElementTree as ET
ns = {'s': 'http://www.w3.org/2000/svg'}
for g in ET.parse(sys.argv[1]).getroot().iter('{http://www.w3.org/2000/svg}g'):
    if g.get('id') == 'd0-cage-17':
        print('\n'.join(g.find('s:title', ns).text.split('\n')[1:]))
PY
if diff -u "$T/show" "$T/titles" > "$T/d"; then
	ok "cage 17's title is its four ports' dl port show lines"
else
	nok "titles" "$(cat "$T/d")"
fi
# Rendered: the pixels at each checked cage's cells are its type's colour; port 1's cage is grey.
if rsvg-convert "$T/p.svg" -o "$T/p.png" 2> "$T/rsvg"; then
	python3 "$T/px.py" "$T/p.svg" "$T/p.png" > "$T/px"
	want="d0-cage-1 #bdbdbd
d0-cage-17 #2e7d32
d0-cage-17 #2e7d32
d0-cage-17 #2e7d32
d0-cage-17 #2e7d32
d0-cage-3 #2e7d32
d1-cage-1 #66bb6a
d1-cage-2 #1565c0"
	got=$(grep -E '^d0-cage-(1|17|3) |^d1-' "$T/px" | sort -t' ' -k1,1 -s)
	if [ "$got" = "$(echo "$want" | sort -t' ' -k1,1 -s)" ]; then
		ok "rsvg-convert renders it: port 1's cage grey (taken), 17's four cells eth green, the ConnectX-3's auto-eth light green and ib blue"
	else
		nok "pixels" "$(printf 'got:\n%s\nwant:\n%s' "$got" "$want")"
	fi
else
	nok "rsvg-convert" "$(cat "$T/rsvg")"
fi

# The E810 card after a split by 4 and the reset: one picture of its four devices, the four PFs' cells in
# cage 0 (quad 0: their lanes), cage 1 unused; cage 0's title their dl port show lines.
R='dev reload pci/0000:16:00.0 action fw_activate'
printf 'port split ens16f0 4\n%s\npanel --svg\n' "$R" | "$DL" --sim e810-cqda2 -b - 2> "$T/err" |
	sed -n '/^<?xml/,$p' > "$T/e.svg"
printf 'port split ens16f0 4\n%s\nport show\n' "$R" | "$DL" --sim e810-cqda2 -b - 2> /dev/null | grep '^pci/' > "$T/eshow"
python3 - "$T/e.svg" > "$T/etitles" <<'PY'
import sys, xml.etree.ElementTree as ET
ns = {'s': 'http://www.w3.org/2000/svg'}
for g in ET.parse(sys.argv[1]).getroot().iter('{http://www.w3.org/2000/svg}g'):
    if g.get('id') in ('d0-cage-0', 'd0-cage-1'):
        print(g.get('id'), g.get('class'))
        print('\n'.join(g.find('s:title', ns).text.split('\n')[1:]))
PY
if xmllint --noout "$T/e.svg" 2> "$T/xml" &&
	[ "$(sed -n 2,5p "$T/etitles")" = "$(cat "$T/eshow")" ] &&
	grep -qx 'd0-cage-1 cage unused' "$T/etitles" &&
	grep -q '>pci/0000:16:00.0: ice, card of 4 devices, 2 cages<' "$T/e.svg" &&
	rsvg-convert "$T/e.svg" -o "$T/e.png" 2>> "$T/xml" &&
	[ "$(python3 "$T/px.py" "$T/e.svg" "$T/e.png" | tr '\n' ' ')" = \
		"d0-cage-0 #2e7d32 d0-cage-0 #2e7d32 d0-cage-0 #2e7d32 d0-cage-0 #2e7d32 d0-cage-1 #fafafa " ]; then
	ok "the E810 card's SVG: its four PFs' cells eth green in cage 0 (their lanes'), titled with their dl port show lines; cage 1 unused"
else
	nok "E810 SVG" "$(cat "$T/err" "$T/xml" "$T/etitles"; python3 "$T/px.py" "$T/e.svg" "$T/e.png")"
fi

# Through a dlhald: its faceplate and the same picture as in-process.
"$DLHALD" -f -s "$T/d.sock" --sim sn2700,cx3-vpi 2> "$T/d.log" &
pids+=($!)
daemon_wait "$T/d.sock"
"$DL" -s "$T/d.sock" port split eth0 4
"$DL" -s "$T/d.sock" panel pci/0000:03:00.0 > "$T/dpanel"
printf 'port split eth0 4\npanel pci/0000:03:00.0\n' | "$DL" --sim sn2700 -b - > "$T/lpanel"
if cmp -s "$T/dpanel" "$T/lpanel"; then
	ok "through dlhald: its faceplate relayed, the picture as in-process (port 1's cage taken)"
else
	nok "panel through dlhald" "$(diff "$T/lpanel" "$T/dpanel" | head -n 10)"
fi

# The E810 card through a dlhald: its faceplate and card relayed with each device, before and after a reset.
"$DLHALD" -f -s "$T/e.sock" --sim e810-cqda2 2> "$T/e.log" &
pids+=($!)
daemon_wait "$T/e.sock"
"$DL" -s "$T/e.sock" port split ens16f0 4 2> /dev/null
"$DL" -s "$T/e.sock" panel > "$T/de1"
"$DL" -s "$T/e.sock" $R > /dev/null
"$DL" -s "$T/e.sock" -j panel pci/0000:16:00.3 > "$T/dej"
"$DL" -s "$T/e.sock" panel > "$T/de2"
printf 'port split ens16f0 4\npanel\n%s\npanel\n' "$R" | "$DL" --sim e810-cqda2 -b - 2> /dev/null |
	grep -v -e '^reload_actions_performed:' -e '^    fw_activate' > "$T/le"
printf 'port split ens16f0 4\n%s\npanel pci/0000:16:00.3\n' "$R" | "$DL" --sim e810-cqda2 -j -b - 2> /dev/null |
	grep '"panel"' > "$T/lej"
if cat "$T/de1" "$T/de2" | cmp -s - "$T/le" && grep -q '"cages":\[{"number":0,.*"module":0,' "$T/dej" &&
	cmp -s "$T/dej" "$T/lej"; then
	ok "the E810 card through dlhald: pending, then after the reset, text and JSON as in-process"
else
	nok "E810 through dlhald" "$(diff "$T/le" <(cat "$T/de1" "$T/de2") | head -n 20; diff "$T/lej" "$T/dej" | head -n 4)"
fi

# --follow in tmux: drawn, redrawn in place when another shell splits, the terminal given back on ^C.
TM="tmux -L dlhal-$$"
$TM new-session -d -x 100 -y 50 -s p "$DL -s $T/d.sock panel pci/0000:03:00.0 --follow; echo FOLLOW-ENDED; sleep 30"
# a picture is whole once its legend, the last line, is drawn: a capture may come mid-redraw
whole() { $TM capture-pane -p -t "$1" > "$T/cap"; grep -q '~cable$' "$T/cap" && grep -q "$2" "$T/cap"; }
for _ in $(seq 300); do whole p '┌17' && break; sleep 0.1; done
$TM capture-pane -p -t p > "$T/c1"
"$DL" -s "$T/d.sock" port unsplit eth0
for _ in $(seq 300); do whole p '│E eth1  │' && ! grep -q eth33 "$T/cap" && break; sleep 0.1; done
$TM capture-pane -p -t p > "$T/c2"
"$DL" -s "$T/d.sock" port split eth2 2
for _ in $(seq 300); do whole p 'eth32' && break; sleep 0.1; done
$TM capture-pane -p -t p > "$T/c3"
$TM send-keys -t p C-c
for _ in $(seq 300); do $TM capture-pane -p -t p | grep -q FOLLOW-ENDED && break; sleep 0.1; done
$TM capture-pane -p -t p > "$T/c4"
if grep -q '│E eth33 │' "$T/c1" && ! grep -q 'eth33' "$T/c2" && grep -q '│E eth1  │' "$T/c2" &&
	grep -q '│E eth32 │' "$T/c3" && [ "$(grep -c 'pci/0000:03:00.0: ' "$T/c3")" = 1 ] &&
	grep -q FOLLOW-ENDED "$T/c4" && [ "$(grep -c 'pci/0000:03:00.0: ' "$T/c4")" = 1 ]; then
	ok "--follow in tmux: the split by 4, then the unsplit and another split from a second shell redrawn in place, ^C ends it"
else
	nok "--follow" "$(cat "$T/c1" | head -n 8; echo ---; cat "$T/c3" | head -n 20; echo ---; tail -n 5 "$T/c4")"
fi
# --follow on the E810 card while another shell resets it: its devices go and come, the card redrawn
# whole in place (8 devices, ens16f7 in cage 1).
$TM new-session -d -x 100 -y 30 -s e "$DL -s $T/e.sock panel pci/0000:16:00.1 --follow; echo FOLLOW-ENDED; sleep 30"
for _ in $(seq 300); do whole e 'card of 4 devices' && break; sleep 0.1; done
"$DL" -s "$T/e.sock" port split ens16f0 8 2> /dev/null
"$DL" -s "$T/e.sock" $R > /dev/null
for _ in $(seq 300); do whole e 'e…16f7' && break; sleep 0.1; done
$TM capture-pane -p -t e > "$T/ef"
$TM send-keys -t e C-c
if [ "$(grep -c 'pci/0000:16:00.0: ' "$T/ef")" = 1 ] && grep -q 'card of 8 devices, 2 cages' "$T/ef" &&
	grep -q '│E e…16f3││E e…16f7│' "$T/ef" && ! grep -q unused "$T/ef"; then
	ok "--follow on the E810 while another shell resets it: the card redrawn in place with its 8 devices"
else
	nok "--follow E810" "$(cat "$T/ef")"
fi
echo "$pass passed, $fail failed"
[ $fail = 0 ]
