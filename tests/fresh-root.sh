#!/bin/sh
# tests/fresh-root.sh: run the README's two commands in a fresh Debian 12
# root, as a new user on a clean machine would, to catch what build.sh
# assumes of the developer's host (a tool or package missing from its
# lists).  Not run by make check: it needs root, debootstrap and the network.
#
#   tests/fresh-root.sh [--no-shared] TARGET MIRROR [COMMAND...]
#
# TARGET   directory of the root; made with `debootstrap --variant=minbase
#          bookworm TARGET MIRROR` when it holds no system yet (remove it for
#          a run from scratch: packages installed by an earlier run stay)
# MIRROR   the Debian mirror, e.g. http://deb.debian.org/debian
# COMMAND  what to run in the checkout, as root, each timed; default
#          "./build.sh demo" then "./build.sh check"
#
# The checkout is a git clone of this repository's HEAD (committed work
# only) in TARGET/srv/pprof-tools; ../shared beside this checkout, when
# present, is copied beside it (the tests that read it skip without it;
# --no-shared leaves it out).  proc, sys, dev and dev/pts are mounted for
# the chroot and unmounted on exit.
set -eu
src=$(cd "$(dirname "$0")/.." && pwd)

shared=yes
if [ "${1:-}" = --no-shared ]; then
	shared=no
	shift
fi
if [ $# -lt 2 ]; then
	sed -n '7,15s/^# \{0,1\}//p' "$0" >&2
	exit 2
fi
target=$1
mirror=$2
shift 2
[ "$(id -u)" = 0 ] || { echo "fresh-root.sh: needs root (chroot, mount)" >&2; exit 1; }

if [ ! -x "$target/bin/sh" ]; then
	command -v debootstrap >/dev/null ||
		{ echo "fresh-root.sh: debootstrap not found (apt-get install debootstrap)" >&2; exit 1; }
	echo "== debootstrap --variant=minbase bookworm $target $mirror" >&2
	debootstrap --variant=minbase bookworm "$target" "$mirror" >"$target.debootstrap.log" 2>&1 ||
		{ tail -20 "$target.debootstrap.log" >&2; exit 1; }
fi
target=$(cd "$target" && pwd)

# The user got the repository somehow; a minbase root has no git, so the
# clone is made here and copied in.
work=$target/srv/pprof-tools
rm -rf "$work" "$target/srv/shared"
git clone -q --no-hardlinks "$src" "$work"
if [ "$shared" = yes ] && [ -d "$src/../shared" ]; then
	cp -R "$src/../shared" "$target/srv/shared"
fi
echo "== checkout: $(git -C "$work" log -1 --format='%h %s')" >&2

mounted=""
# shellcheck disable=SC2317 # called by the trap
cleanup() {
	for m in $mounted; do
		umount "$m" 2>/dev/null || umount -l "$m" || true
	done
}
trap cleanup EXIT
trap 'exit 130' INT TERM
# Reverse order of mounting, so dev/pts goes before dev.
mnt() {
	mount "$@"
	for _m; do :; done	# the mount point, the last argument
	mounted="$_m $mounted"
}
mnt -t proc proc "$target/proc"
mnt --bind /sys "$target/sys"
mnt --bind /dev "$target/dev"
mnt --bind /dev/pts "$target/dev/pts"
# Chromium needs a writable /dev/shm.
mnt -t tmpfs -o mode=1777 shm "$target/dev/shm"
cp /etc/resolv.conf "$target/etc/resolv.conf"

[ $# -gt 0 ] || set -- "./build.sh demo" "./build.sh check"
status=0
for cmd in "$@"; do
	echo "== $cmd (in $target/srv/pprof-tools)" >&2
	start=$(date +%s)
	if chroot "$target" /usr/bin/env -i HOME=/root TERM=dumb \
		PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
		/bin/sh -c "cd /srv/pprof-tools && $cmd"; then
		rc=0
	else
		rc=$?
	fi
	echo "== $cmd: exit $rc, $(($(date +%s) - start)) s" >&2
	if [ "$rc" != 0 ]; then
		status=$rc
		break
	fi
done
exit "$status"
