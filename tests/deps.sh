#!/bin/sh
# tools/deps.sh against stand-in dpkg-query and apt-get: installs exactly what is
# missing (build, or build and test), says how when it cannot, and does
# nothing when all is there. No package is really installed.
set -u
src=$1
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fails=0
passes=0
ok() { passes=$((passes + 1)); echo "ok - $1"; }
nok() { fails=$((fails + 1)); echo "not ok - $1: $2"; }

mkdir -p "$T/bin"
# dpkg-query: installed unless named in $T/missing
cat > "$T/bin/dpkg-query" <<FAKE
#!/bin/sh
for a; do p=\$a; done
grep -qx "\$p" "$T/missing" 2>/dev/null && exit 1
printf 'install ok installed'
FAKE
cat > "$T/bin/apt-get" <<FAKE
#!/bin/sh
echo "apt-get \$*" >> "$T/apt.log"
FAKE
cat > "$T/bin/id" <<FAKE
#!/bin/sh
echo "\${FAKE_UID:-0}"
FAKE
chmod +x "$T/bin/"*
run() { PATH="$T/bin:/usr/bin:/bin" "$src/tools/deps.sh" "$@" > "$T/out" 2>&1; }

: > "$T/missing"
rm -f "$T/apt.log"
run build && [ ! -e "$T/apt.log" ] && ok "nothing missing: nothing run" || nok "nothing missing" "$(cat "$T/out" "$T/apt.log" 2>/dev/null)"

printf 'meson\nlibev-dev\n' > "$T/missing"
rm -f "$T/apt.log"
if run build && grep -qx "apt-get update" "$T/apt.log" && grep -qx "apt-get install -y meson libev-dev" "$T/apt.log"; then
	ok "build: apt-get update, then exactly the missing packages"
else
	nok "build installs what is missing" "$(cat "$T/out" "$T/apt.log" 2>/dev/null)"
fi

printf 'meson\nlibcriterion-dev\n' > "$T/missing"
rm -f "$T/apt.log"
if run test && grep -qx "apt-get install -y meson libcriterion-dev" "$T/apt.log"; then
	ok "test: build's list and test's"
else
	nok "test installs build's and test's" "$(cat "$T/out" "$T/apt.log" 2>/dev/null)"
fi

# Not root and no sudo on PATH: says what to run, exits 1, installs nothing.
rm -f "$T/apt.log"
mkdir -p "$T/nosudo"
for t in sed grep dpkg-query id apt-get dirname ls; do ln -sf "$(PATH="$T/bin:/usr/bin:/bin" command -v $t)" "$T/nosudo/$t"; done
if FAKE_UID=1000 PATH="$T/nosudo" /bin/sh "$src/tools/deps.sh" build > "$T/out" 2>&1; then
	nok "non-root without sudo" "exit 0"
elif grep -q "apt-get install -y meson" "$T/out" && [ ! -e "$T/apt.log" ]; then
	ok "non-root without sudo: prints the apt-get line, exits 1"
else
	nok "non-root without sudo" "$(cat "$T/out")"
fi

run bogus
[ $? -eq 2 ] && grep -q "usage: tools/deps.sh build|test" "$T/out" && ok "unknown section: usage, exit 2" || nok "bad argument" "$(cat "$T/out")"

echo "$passes passed, $fails failed"
[ $fails -eq 0 ]
