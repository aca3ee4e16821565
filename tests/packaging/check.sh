#!/bin/bash
# The packaging check (make packaging-check, part of make check): install into
# a temporary prefix (the Python module into a venv), then check what was
# installed and build a CMake and a plain Makefile project against it, and
# against the installed tree moved elsewhere; install and uninstall under
# DESTDIR; make the release tarball and check it is complete.
#
# Usage: tests/packaging/check.sh BUILD_DIR
#
# Each step says what it checks; the first failure ends the check with exit 1.
set -eu -o pipefail

build=${1:-build}
make=make
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
case $build in /*) ;; *) build=$root/$build ;; esac
tmp=$(mktemp -d /tmp/scope-bpf-packaging.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
prefix=$tmp/prefix
bin=$prefix/bin/scope-bpf

fail() {
	echo "packaging-check: $*" >&2
	exit 1
}

step() {
	echo "  PKG      $*"
}

# The Python module goes where the interpreter given as PYTHON looks: here a
# venv's (no pip: nothing is downloaded).
venv=$tmp/venv
python3 -m venv --without-pip "$venv" > "$tmp/venv.log" 2>&1 ||
	fail "python3 -m venv failed (Debian: python3-venv): $(tail -5 "$tmp/venv.log")"

step "make install PREFIX=$prefix PYTHON=$venv/bin/python"
$make --no-print-directory -s install BUILD="$build" PREFIX="$prefix" PYTHON="$venv/bin/python" \
	> "$tmp/install.log" 2>&1 || fail "make install failed: $(tail -5 "$tmp/install.log")"
commands=$("$bin" --help | awk 'tolower($0) ~ /^commands:/ { on = 1; next } on && /^  [a-z]/ { print $1 } on && /^$/ { on = 0 }')
[ -n "$commands" ] || fail "no subcommands in scope-bpf --help"
for f in bin/scope-bpf include/scope_bpf.h $(ls include/scope_bpf/*.h) lib/libscope_bpf_markers.so.0 \
	lib/libscope_bpf_markers.so lib/libscope_bpf_markers.a lib/pkgconfig/scope_bpf.pc \
	lib/cmake/scope_bpf/scope_bpf-config.cmake lib/cmake/scope_bpf/scope_bpf-config-version.cmake \
	share/scope-bpf/fortran/scope_bpf.f90 \
	share/bash-completion/completions/scope-bpf share/man/man1/scope-bpf.1 \
	$(for c in $commands; do echo "share/man/man1/scope-bpf-$c.1"; done) \
	$(cd "$build" && ls libscope_bpf_ompt.so libscope_bpf_cupti.so libscope_bpf_mpi_mpich.so \
		libscope_bpf_mpi_openmpi.so spank_scope_bpf.so 2>/dev/null | sed 's|^|lib/scope-bpf/|'); do
	[ -e "$prefix/$f" ] || fail "make install did not install $f"
done

step "scope-bpfd and its systemd units: ExecStart is the installed daemon; systemd-analyze verify"
units=$prefix/lib/systemd/system
[ -x "$prefix/sbin/scope-bpfd" ] || fail "make install did not install sbin/scope-bpfd"
grep -qx "ExecStart=$prefix/sbin/scope-bpfd --foreground" "$units/scope-bpfd.service" ||
	fail "scope-bpfd.service does not start $prefix/sbin/scope-bpfd --foreground"
grep -qx 'ListenSequentialPacket=/run/scope-bpf.sock' "$units/scope-bpf.socket" ||
	fail "scope-bpf.socket does not listen on /run/scope-bpf.sock as a seqpacket socket"
if command -v systemd-analyze > /dev/null; then
	SYSTEMD_LOG_LEVEL=warning systemd-analyze verify --man=no "$units/scope-bpf.socket" \
		"$units/scope-bpfd.service" > "$tmp/verify.log" 2>&1 ||
		fail "systemd-analyze verify: $(head -10 "$tmp/verify.log")"
	[ ! -s "$tmp/verify.log" ] || fail "systemd-analyze verify warns: $(head -10 "$tmp/verify.log")"
fi

step "man pages: valid roff, and each one's text is its command's --help, word for word"
for c in "" $commands; do
	page=$prefix/share/man/man1/scope-bpf${c:+-$c}.1
	warnings=$(groff -man -ww -z "$page" 2>&1) || fail "$page: groff failed"
	[ -z "$warnings" ] || fail "$page: groff warns: $warnings"
	# The page's SYNOPSIS and DESCRIPTION, roff requests and escapes removed.
	sed -n '/^\.SH \(SYNOPSIS\|DESCRIPTION\)/,/^\.SH SEE ALSO/p' "$page" | grep -v '^\.' |
		sed -e 's/\\-/-/g' -e 's/\\&//g' -e 's/\\e/\\/g' |
		perl -CSD -pe 's/\\\[u([0-9A-F]+)\]/chr hex $1/ge' |
		tr -s ' \n' '\n\n' | grep -v '^$' > "$tmp/page.words"
	"$bin" $c --help | sed 's/^[Uu]sage: //' | tr -s ' \n' '\n\n' | grep -v '^$' > "$tmp/help.words"
	diff -u "$tmp/help.words" "$tmp/page.words" > "$tmp/words.diff" ||
		fail "$page differs from scope-bpf${c:+ $c} --help: $(head -20 "$tmp/words.diff")"
done

step "bash completion: subcommands and options from --help"
complete_words() {
	PATH=$prefix/bin:$PATH bash -c '. "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1))
		_scope_bpf; echo "${COMPREPLY[*]}"' _ \
		"$prefix/share/bash-completion/completions/scope-bpf" "$@"
}
[ "$(complete_words scope-bpf re)" = "record report" ] ||
	fail "completing 'scope-bpf re' gave '$(complete_words scope-bpf re)'"
[ "$(complete_words scope-bpf report --fl)" = "--flat" ] ||
	fail "completing 'scope-bpf report --fl' gave '$(complete_words scope-bpf report --fl)'"
[ "$(complete_words scope-bpf record --offcpu-m)" = "--offcpu-min-us" ] ||
	fail "completing 'scope-bpf record --offcpu-m' gave '$(complete_words scope-bpf record --offcpu-m)'"

step "pkg-config --cflags --libs scope_bpf"
export PKG_CONFIG_PATH=$prefix/lib/pkgconfig
# No __pycache__ beside the sources (it would go into the tarball).
export PYTHONDONTWRITEBYTECODE=1
flags=$(pkg-config --cflags --libs scope_bpf | sed "s/ *$//")
[ "$flags" = "-I$prefix/include -L$prefix/lib -lscope_bpf_markers" ] ||
	fail "pkg-config --cflags --libs scope_bpf gave '$flags'"
[ "$(pkg-config --variable=fortran_module scope_bpf)" = "$prefix/share/scope-bpf/fortran/scope_bpf.f90" ] ||
	fail "pkg-config's fortran_module is not the installed module source"

step "a plain Makefile project (pkg-config), shared and static"
mkdir -p "$tmp/make"
$make --no-print-directory -s -C tests/packaging/make O="$tmp/make" > "$tmp/make.log" 2>&1 ||
	fail "the Makefile project did not build: $(tail -5 "$tmp/make.log")"
ldd "$tmp/make/app" > "$tmp/ldd.app"
grep -q "libscope_bpf_markers.so.0 => $prefix/lib/" "$tmp/ldd.app" ||
	fail "app does not load the installed library: $(cat "$tmp/ldd.app")"
ldd "$tmp/make/app_static" > "$tmp/ldd.static"
! grep -q libscope_bpf_markers "$tmp/ldd.static" || fail "app_static loads the shared library"

step "a CMake project: find_package(scope_bpf), scope_bpf::markers, ::header, the Fortran module"
cmake -S tests/packaging/cmake -B "$tmp/cmake" -DCMAKE_PREFIX_PATH="$prefix" > "$tmp/cmake.log" 2>&1 &&
	cmake --build "$tmp/cmake" >> "$tmp/cmake.log" 2>&1 ||
	fail "the CMake project did not build: $(tail -15 "$tmp/cmake.log")"
mkdir -p "$tmp/version"
cat > "$tmp/version/CMakeLists.txt" <<'CMAKE'
cmake_minimum_required(VERSION 3.16)
project(version_check NONE)
find_package(scope_bpf 0.999 QUIET)
if(scope_bpf_FOUND)
	message(FATAL_ERROR "find_package(scope_bpf 0.999) accepted ${scope_bpf_VERSION}")
endif()
find_package(scope_bpf 0.1 REQUIRED)
CMAKE
cmake -S "$tmp/version" -B "$tmp/version/build" -DCMAKE_PREFIX_PATH="$prefix" > "$tmp/version.log" 2>&1 ||
	fail "find_package's version check is wrong: $(tail -5 "$tmp/version.log")"

step "the venv's python imports the installed module, and it loads the installed library"
loaded=$(cd "$tmp" && env -u SCOPE_BPF_MARKERS_LIB -u PYTHONPATH "$venv/bin/python" -W error -c \
	'import scope_bpf; print(scope_bpf.__file__, scope_bpf._lib._name if scope_bpf.enabled() else "none")' 2>&1) ||
	fail "the venv's python cannot import scope_bpf: $loaded"
case $loaded in
"$venv/"*" $prefix/lib/libscope_bpf_markers.so.0") ;;
*) fail "the venv's python imported scope_bpf and loaded: $loaded" ;;
esac
out=$(SCOPE_BPF_MARKERS_LIB=$tmp/none.so PYTHONPATH=markers python3 -c '
import scope_bpf
with scope_bpf.region("x"):
    pass
print(scope_bpf.enabled())' 2>&1)
case $out in
*"RuntimeWarning: scope_bpf: libscope_bpf_markers.so.0 not found"*False) ;;
*) fail "without its library scope_bpf.py did not warn once and go on: $out" ;;
esac

step "record the projects' programs with the installed scope-bpf"
record() {
	local name=$1 expect=$2
	shift 2
	"$bin" record -q -o "$tmp/$name.h5" -- "$@" || fail "recording $* failed"
	"$bin" report -f csv "$tmp/$name.h5" | cut -d, -f1-3 | sort > "$tmp/$name.csv"
	[ "$(cat "$tmp/$name.csv")" = "$(printf '%b' "$expect" | sort)" ] ||
		fail "recording $*: expected\n$expect\ngot\n$(cat "$tmp/$name.csv")"
}
if [ "$(id -u)" -eq 0 ]; then
	calls='path,depth,calls\nfrom_header,1,3\nfrom_header;%s,2,3'
	record make "$(printf "$calls" from_library)" "$tmp/make/app"
	record static "$(printf "$calls" static)" "$tmp/make/app_static" static
	record cmake "$(printf "$calls" cmake)" "$tmp/cmake/app_c" cmake
	record header 'path,depth,calls\nheader_only,1,2' "$tmp/cmake/app_header"
	record fortran 'path,depth,calls\nfrom_fortran,1,2' "$tmp/cmake/app_fortran"
elif [ "${CI:-}" = true ]; then
	fail "recording needs root (or CAP_BPF+CAP_PERFMON) and CI=true forbids skipping"
else
	echo "packaging-check: skipping the recordings: they need root" >&2
fi

step "the installed tree moved elsewhere: a CMake project finds it where it now is"
moved=$tmp/moved
mv "$prefix" "$moved"
cmake -S tests/packaging/cmake -B "$tmp/cmake-moved" -DCMAKE_PREFIX_PATH="$moved" > "$tmp/cmake-moved.log" 2>&1 &&
	cmake --build "$tmp/cmake-moved" >> "$tmp/cmake-moved.log" 2>&1 ||
	fail "the CMake project did not build against the moved tree: $(tail -15 "$tmp/cmake-moved.log")"
ldd "$tmp/cmake-moved/app_c" > "$tmp/ldd.moved"
grep -q "libscope_bpf_markers.so.0 => $moved/lib/" "$tmp/ldd.moved" ||
	fail "app_c does not load the moved library: $(cat "$tmp/ldd.moved")"
mv "$moved" "$prefix"

step "a CMake config reached through a link into its prefix (/lib -> usr/lib) finds the prefix"
merged=$tmp/merged
$make --no-print-directory -s install BUILD="$build" PREFIX="$merged/usr" PYTHONDIR="$merged/python" > /dev/null
ln -s usr/lib "$merged/lib"
mkdir -p "$tmp/linked"
cat > "$tmp/linked/CMakeLists.txt" <<'CMAKE'
cmake_minimum_required(VERSION 3.16)
project(linked_check NONE)
find_package(scope_bpf REQUIRED)
get_target_property(include scope_bpf::header INTERFACE_INCLUDE_DIRECTORIES)
if(NOT EXISTS "${include}/scope_bpf.h")
	message(FATAL_ERROR "scope_bpf::header's include folder is ${include}")
endif()
CMAKE
cmake -S "$tmp/linked" -B "$tmp/linked/build" -Dscope_bpf_DIR="$merged/lib/cmake/scope_bpf" \
	> "$tmp/linked.log" 2>&1 || fail "find_package through the link failed: $(tail -15 "$tmp/linked.log")"

step "make install and make uninstall under DESTDIR (the Python module in python3's purelib)"
dest=$tmp/dest
$make --no-print-directory -s install BUILD="$build" DESTDIR="$dest" PREFIX=/usr/local > /dev/null
[ -x "$dest/usr/local/bin/scope-bpf" ] || fail "DESTDIR install has no usr/local/bin/scope-bpf"
purelib=$(python3 -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
grep -q '^_INSTALLED_LIB = "/usr/local/lib/libscope_bpf_markers.so.0"$' "$dest$purelib/scope_bpf.py" ||
	fail "no Python module under DESTDIR in python3's purelib ($purelib) that names /usr/local/lib's library"
grep -qx 'prefix=/usr/local' "$dest/usr/local/lib/pkgconfig/scope_bpf.pc" ||
	fail "scope_bpf.pc under DESTDIR does not say prefix=/usr/local"
$make --no-print-directory -s uninstall BUILD="$build" DESTDIR="$dest" PREFIX=/usr/local > /dev/null
left=$(find "$dest" \( -type f -o -type l \) -printf '%P\n')
[ -z "$left" ] || fail "make uninstall left: $left"

step "make dist: the release tarball"
$make --no-print-directory -s dist BUILD="$build" > /dev/null
version=$("$bin" --version | awk '{ print $NF }')
tarball=$build/scope-bpf-$version.tar.gz
[ -f "$tarball" ] || fail "make dist did not write $tarball"
mkdir -p "$tmp/dist"
tar -xzf "$tarball" -C "$tmp/dist"
src=$tmp/dist/scope-bpf-$version
for f in Makefile README.md include/scope_bpf.h markers/scope_bpf_markers.c packaging/packaging.mk \
	tools/install-deps.sh vmlinux/x86/vmlinux.h tests/packaging/check.sh; do
	[ -f "$src/$f" ] || fail "the tarball has no $f"
done
[ ! -e "$src/build" ] || fail "the tarball has the build folder"
if git rev-parse --is-inside-work-tree > /dev/null 2>&1; then
	(cd "$src" && find . \( -type f -o -type l \) -printf '%P\n' | sort) > "$tmp/dist.files"
	git ls-files --cached --others --exclude-standard | sort -u | grep -vxF -f <(git ls-files --deleted) \
		> "$tmp/git.files" || true
	diff -u "$tmp/git.files" "$tmp/dist.files" > "$tmp/dist.diff" ||
		fail "the tarball is not the checkout's files: $(head -20 "$tmp/dist.diff")"
fi
# The README's two commands, as far as make can tell without running them.
$make --no-print-directory -n -C "$src" demo check > "$tmp/dist-n.log" 2>&1 ||
	fail "make -n demo check fails in the unpacked tarball: $(tail -5 "$tmp/dist-n.log")"
# BUILD=build: a BUILD given to the make that runs this check reaches this one through MAKEFLAGS.
$make --no-print-directory -s -C "$src" -j2 BUILD=build all > "$tmp/dist-build.log" 2>&1 ||
	fail "make all fails in the unpacked tarball: $(tail -10 "$tmp/dist-build.log")"
[ -x "$src/build/scope-bpf" ] && [ -f "$src/build/libscope_bpf_markers.so.0" ] ||
	fail "make all in the unpacked tarball built no scope-bpf or marker library"
echo "  PKG      all packaging checks passed"
