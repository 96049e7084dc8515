#!/bin/sh
# tools/deps.sh build|test: installs the packages of tools/debian-packages that
# this machine lacks ("test" includes "build"), with apt-get, as root or
# through sudo. Does nothing when all are there.
set -eu
cd "$(dirname "$0")/.."
want=${1:-build}
case $want in
build) sections=build ;;
test) sections="build test" ;;
*)
	echo "usage: tools/deps.sh build|test" >&2
	exit 2
	;;
esac
pkgs=
for s in $sections; do
	pkgs="$pkgs $(sed -n "s/^$s: *//p" tools/debian-packages)"
done
missing=
for p in $pkgs; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing="$missing $p"
done
# The VM test downloads the kernel image package (apt-get download): it needs the lists.
lists=yes
[ "$want" = test ] && ! ls /var/lib/apt/lists/*_Packages* >/dev/null 2>&1 && lists=no
[ -z "$missing" ] && [ $lists = yes ] && exit 0

if [ "$(id -u)" -eq 0 ]; then
	sudo=
elif command -v sudo >/dev/null 2>&1; then
	sudo=sudo
else
	echo "dlhal needs these Debian packages:$missing" >&2
	echo "as root: apt-get update && apt-get install -y$missing" >&2
	exit 1
fi
[ -n "$missing" ] && echo "tools/deps.sh: installing$missing" >&2
$sudo apt-get update
[ -z "$missing" ] || DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y $missing
