#!/bin/bash
# Drives dl's bash completion as bash would: objects, commands, handles, netdev names, keywords.
set -u
src=$1 dl=$2
. /usr/share/bash-completion/bash_completion
. "$src/tools/dl/dl.bash-completion"
PATH=$(dirname "$dl"):$PATH
pass=0 fail=0

complete_line() { # the command line typed so far; prints the candidates, sorted
	COMP_LINE=$1
	COMP_POINT=${#COMP_LINE}
	read -ra COMP_WORDS <<<"$COMP_LINE"
	[[ $COMP_LINE == *" " ]] && COMP_WORDS+=("")
	COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
	COMPREPLY=()
	_dl dl "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD - 1]}"
	printf '%s\n' "${COMPREPLY[@]}" | sort | tr '\n' ' '
}

expect() { # line, words that must all be offered
	local got
	got=" $(complete_line "$1")"
	for w in $2; do
		if [[ $got != *" $w "* ]]; then
			echo "FAIL: '$1' offers [$got], missing $w"
			fail=$((fail + 1))
			return
		fi
	done
	pass=$((pass + 1))
}

expect "dl " "dev port monitor apply panel help"
expect "dl --sim e8" "e810-cqda2"
expect "dl apply $src/README.m" "$src/README.md"
expect "dl apply ports.conf --" "--dry-run --reload --atomic --format"
expect "dl apply ports.json --format " "ini json"
expect "dl apply ports.conf --dry-run --a" "--atomic"
expect "dl --sim sn2700 panel " "pci/0000:03:00.0"
expect "dl --sim sn2700 panel pci/0000:03:00.0 --" "--ascii --svg --follow --color=never"
expect "dl p" "port"
expect "dl port " "show set split unsplit help"
expect "dl port s" "show set split"
expect "dl --sim sn2700 port split " "pci/0000:03:00.0/1 pci/0000:03:00.0/63 eth0 eth31"
expect "dl --sim sn2700 port split eth3" "eth3 eth30 eth31"
expect "dl --sim sn2700 port split eth0 " "count 2 4"
expect "dl --sim cx3-vpi port set pci/0000:01:00.0/1 " "type"
expect "dl --sim cx3-vpi port set pci/0000:01:00.0/1 type " "eth ib auto"
expect "dl --sim cx3-vpi dev show " "pci/0000:01:00.0"
expect "dl --sim cx3-vpi port show " "pci/0000:01:00.0/2 pci/0000:01:00.0"
expect "dl --sim cx3-vpi monitor " "all dev port pci/0000:01:00.0"
expect "dl --sim cx3-vpi monitor port " "pci/0000:01:00.0"
expect "dl --sim " "sn2700 cx3-vpi"
expect "dl --j" "--json"
expect "dl " "sim"
expect "dl --sim cx3-vpi sim " "cable fail set show"
expect "dl --sim cx3-vpi sim cable " "pci/0000:01:00.0/1 pci/0000:01:00.0/2"
expect "dl --sim cx3-vpi sim cable pci/0000:01:00.0/1 " "eth ib none"
expect "dl --sim e810-cqda2 dev " "info reload"
expect "dl --sim e810-cqda2 dev info " "pci/0000:16:00.0 pci/0000:16:00.1"
expect "dl --sim e810-cqda2 dev reload " "pci/0000:16:00.0 pci/0000:16:00.1"
expect "dl --sim e810-cqda2 dev reload pci/0000:16:00.0 " "action limit"
expect "dl --sim e810-cqda2 dev reload pci/0000:16:00.0 action " "driver_reinit fw_activate"
expect "dl --sim e810-cqda2 sim " "reset"
expect "dl --sim e810-cqda2 sim reset " "pci/0000:16:00.1"
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
