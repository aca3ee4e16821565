# shellcheck shell=bash
# Shared settings for the kernel-matrix scripts (sourced, not run).
# Every script takes the repository from KROOT (default: the checkout these scripts sit in)
# and the build folder from KBUILD (default: $KROOT/build), so one set of scripts can test
# another worktree: KROOT=/some/worktree tools/kernels/run.sh 6.1 true

KROOT=${KROOT:-$(cd "$(dirname "$0")/../.." && pwd)}
KBUILD=${KBUILD:-$KROOT/build}
case $KBUILD in /*) ;; *) KBUILD=$KROOT/$KBUILD ;; esac
# Everything downloaded or generated lives here (build/ is git-ignored).
KDIR=${KDIR:-$KBUILD/kernels}

# The five kernels of the matrix, oldest first.
KALL="5.10 6.1 6.12 6.18 7"

kmsg() { echo "kernels: $*" >&2; }
kdie() { echo "kernels: $*" >&2; exit 2; }

# Install the Debian packages a script needs when they are missing (we are root on the
# test machines; the project's install-deps.sh is for building, not for booting kernels).
kneed() {
	missing=""
	for p in "$@"; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing="$missing $p"
	done
	[ -z "$missing" ] && return 0
	[ "$(id -u)" -eq 0 ] || kdie "missing Debian packages:$missing (run as root to install them)"
	kmsg "installing$missing"
	# shellcheck disable=SC2086
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $missing >/dev/null ||
		{ DEBIAN_FRONTEND=noninteractive apt-get update -qq &&
		  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $missing >/dev/null; } ||
		kdie "could not install$missing"
}
