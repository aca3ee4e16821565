#!/bin/sh
# Install the Debian packages scope-bpf needs to build and test; does nothing when all are present.
# With "bench": also the peers make bench compares with in the same run (bpftrace, uftrace).
set -e

PKGS="make gcc g++ clang llvm libbpf-dev bpftool libelf-dev libdw-dev zlib1g-dev
libhdf5-dev hdf5-tools libcmocka-dev pkg-config binutils procps util-linux
chromium libxml2-utils libclang-rt-14-dev mpich libmpich-dev openmpi-bin libopenmpi-dev
libpfm4-dev likwid
libgomp1 libomp-14-dev
libotf2-trace-dev otf2-tools libprotobuf-c-dev protobuf-c-compiler protobuf-compiler
gfortran python3 python3-venv python3-h5py cmake
slurm-wlm libslurm-dev munge"
[ "${1:-}" = bench ] && PKGS="$PKGS bpftrace uftrace"

missing=""
for p in $PKGS; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing="$missing $p"
done
[ -z "$missing" ] && exit 0

if [ "$(id -u)" -ne 0 ]; then
	echo "install-deps: missing Debian packages:$missing" >&2
	echo "install-deps: run as root (sudo $0) to install them" >&2
	exit 1
fi
echo "install-deps: installing$missing"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
# shellcheck disable=SC2086
apt-get install -y -qq --no-install-recommends $missing >/dev/null
