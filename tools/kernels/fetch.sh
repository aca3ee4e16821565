#!/bin/bash
# fetch.sh [--refresh] ALIAS...: download one of Debian's own kernels for the kernel matrix
# and unpack what booting it under QEMU needs into build/kernels/ALIAS/:
#   vmlinuz, modules/*.ko (decompressed: busybox insmod reads neither .xz nor .zst),
#   modules.load (the modules in dependency order, for the initramfs's /init),
#   config (the kernel's .config, when the package has it: 7.x's do not), kernel.info.
#
# Aliases and where "newest" is looked for (resolved now, printed, and remembered):
#   5.10  Debian 11: bullseye-security            linux-image-5.10.0-N-amd64
#   6.1   Debian 12: bookworm, -updates, -security linux-image-6.1.0-N-amd64
#   6.12  Debian 13: trixie, -updates, -security   linux-image-6.12.N+deb13-amd64
#   6.18  the newest 6.18.y anywhere: trixie-backports, forky, sid, experimental
#   7     the newest 7.x anywhere: same suites
#
# apt runs with a private configuration (its own sources list, lists, status and cache under
# build/kernels/apt/), so the machine's apt sources and state are never touched. A kernel
# already unpacked is not looked at again (nothing is downloaded) unless --refresh is given;
# then the lists are updated and a package is downloaded only if a newer one appeared.
set -eu
. "$(dirname "$0")/common.sh"

refresh=0
[ "${1:-}" = "--refresh" ] && { refresh=1; shift; }
[ $# -ge 1 ] || kdie "usage: fetch.sh [--refresh] ALIAS... (aliases: $KALL)"

APTDIR=$KDIR/apt
DEBS=$KDIR/debs
KEYRING=/usr/share/keyrings/debian-archive-keyring.gpg

# Every apt call goes through this: nothing of /etc/apt or /var/lib/apt is read or written
# except the archive keyring (read-only). Languages off and amd64 only keep the lists small.
papt() {
	local tool=$1; shift
	"$tool" -o Dir::Etc::SourceList="$APTDIR/sources.list" -o Dir::Etc::SourceParts=/dev/null \
		-o Dir::Etc::Preferences=/dev/null -o Dir::Etc::PreferencesParts=/dev/null \
		-o Dir::State="$APTDIR/state" -o Dir::State::Lists="$APTDIR/state/lists" \
		-o Dir::State::status="$APTDIR/state/status" -o Dir::Cache="$APTDIR/cache" \
		-o Acquire::Languages=none -o APT::Architecture=amd64 -o APT::Architectures::=amd64 \
		-o APT::Sandbox::User=root "$@"
}

# The suites each alias may come from (the field madison prints is "SUITE/main").
suites_of() {
	case $1 in
	5.10) echo "bullseye-security" ;;
	6.1) echo "bookworm bookworm-updates bookworm-security" ;;
	6.12) echo "trixie trixie-updates trixie-security" ;;
	6.18|7) echo "trixie-backports forky sid experimental" ;;
	*) kdie "unknown kernel alias '$1' (known: $KALL)" ;;
	esac
}

apt_setup() {
	mkdir -p "$APTDIR/state/lists/partial" "$APTDIR/cache/archives/partial"
	[ -f "$APTDIR/state/status" ] || : > "$APTDIR/state/status"
	local o="arch=amd64 signed-by=$KEYRING"
	# One line per suite (the one-line format takes one suite, then components).
	{
		for s in bullseye-security bookworm-security trixie-security; do
			echo "deb [$o] http://deb.debian.org/debian-security $s main"
		done
		for s in bookworm bookworm-updates trixie trixie-updates trixie-backports forky sid experimental; do
			echo "deb [$o] http://deb.debian.org/debian $s main"
		done
	} > "$APTDIR/sources.list"
	# Lists are fetched once per fetch.sh run that needs them (or once ever, without --refresh).
	if [ "$refresh" = 1 ] || ! ls "$APTDIR"/state/lists/*_Packages > /dev/null 2>&1; then
		kmsg "updating the private package lists in $APTDIR"
		papt apt-get -qq update || kdie "apt-get update (private lists) failed"
	fi
	refresh_done=1
}

# Print "VERSION PACKAGE SUITE" for the newest flavourless amd64 image of ALIAS.
# Names: linux-image-5.10.0-35-amd64, linux-image-6.12.48+deb13-amd64, linux-image-7.3-amd64;
# never -cloud-, -rt-, -dbg or -unsigned (the signed and unsigned images are the same kernel).
resolve() {
	local alias=$1 re best="" bestpkg="" bestsuite="" pkg ver where suite s
	re="^linux-image-${alias//./\\.}(\.[0-9]+)*(\+[a-z0-9]+)?(-[0-9]+)?-amd64$"
	for pkg in $(papt apt-cache pkgnames linux-image- | grep -E "$re"); do
		while IFS='|' read -r _ ver where; do
			ver=${ver// /}
			suite=$(echo "$where" | awk '{print $2}'); suite=${suite%%/*}
			for s in $(suites_of "$alias"); do
				[ "$s" = "$suite" ] || continue
				if [ -z "$best" ] || dpkg --compare-versions "$ver" gt "$best"; then
					best=$ver; bestpkg=$pkg; bestsuite=$suite
				fi
			done
		done < <(papt apt-cache madison "$pkg")
	done
	[ -n "$best" ] || return 1
	echo "$best $bestpkg $bestsuite"
}

# Put NAME (and, first, what it depends on) into $out/modules and append it to modules.load.
# A module the package does not ship is built in (or absent, which insmod would tell anyway).
add_module() {
	local name=${1//-/_} path dep
	grep -qx "$name" "$work/seen" 2>/dev/null && return 0
	echo "$name" >> "$work/seen"
	path=$(awk -v n="$name" '$1 == n { print $2; exit }' "$work/index")
	if [ -z "$path" ]; then
		echo "$name" >> "$work/builtin"
		return 0
	fi
	case $path in
	*.xz) xz -dc "$path" > "$out/modules/$name.ko" ;;
	*.zst) zstd -qdc "$path" > "$out/modules/$name.ko" ;;
	*.gz) gzip -dc "$path" > "$out/modules/$name.ko" ;;
	*) cp "$path" "$out/modules/$name.ko" ;;
	esac
	for dep in $(modinfo -F depends "$out/modules/$name.ko" | tr ',' ' '); do
		add_module "$dep"
	done
	echo "$name" >> "$out/modules.load"
}

fetch_one() {
	local alias=$1 line ver pkg suite extra p deb vmlinuz moddir kver cfg
	out=$KDIR/$alias
	suites_of "$alias" > /dev/null
	if [ "$refresh" = 0 ] && [ -f "$out/kernel.info" ] && [ -f "$out/vmlinuz" ]; then
		kmsg "$alias: cached: $(grep '^package=' "$out/kernel.info" | cut -d= -f2-)"
		return 0
	fi
	[ "${refresh_done:-0}" = 1 ] || apt_setup
	line=$(resolve "$alias") || kdie "$alias: no linux-image package found in: $(suites_of "$alias")"
	read -r ver pkg suite <<< "$line"
	kmsg "$alias: newest is $pkg $ver ($suite)"
	if [ -f "$out/kernel.info" ] && grep -qxF "package=$pkg=$ver" "$out/kernel.info"; then
		kmsg "$alias: already unpacked"
		return 0
	fi

	# Since 6.16 or so the image package is a small one that depends on linux-binary-* (the
	# kernel) and linux-modules-*; older ones hold everything. Take whichever of these exists.
	extra=$(papt apt-cache show "$pkg=$ver" | sed -n 's/^Depends: //p' | head -1 | tr ',|' '\n\n' |
		sed -n 's/^ *\(linux-\(binary\|modules\)-[^ (]*\).*/\1/p' | sort -u)
	mkdir -p "$DEBS"
	for p in "$pkg" $extra; do
		ls "$DEBS/${p}_"*"_amd64.deb" > /dev/null 2>&1 && [ "$(dpkg-deb -f "$(ls "$DEBS/${p}_"*"_amd64.deb" | tail -1)" Version)" = "$ver" ] && continue
		kmsg "$alias: downloading $p=$ver"
		(cd "$DEBS" && papt apt-get -qq download "$p=$ver") || kdie "$alias: download of $p=$ver failed"
	done

	# Unpack into a scratch folder, keep only what booting needs, drop the rest.
	work=$KDIR/.unpack-$alias
	rm -rf "$work" "$out"; mkdir -p "$work/root" "$out/modules"
	for p in "$pkg" $extra; do
		deb=$(ls "$DEBS/${p}_"*"_amd64.deb" | while read -r f; do
			[ "$(dpkg-deb -f "$f" Version)" = "$ver" ] && echo "$f"; done | head -1)
		dpkg-deb -x "$deb" "$work/root"
	done
	vmlinuz=$(find "$work/root" -type f -name 'vmlinuz*' | head -1)
	[ -n "$vmlinuz" ] || kdie "$alias: no vmlinuz in $pkg"
	cp "$vmlinuz" "$out/vmlinuz"
	moddir=$(find "$work/root" -mindepth 3 -maxdepth 4 -type d -path '*lib/modules/*' -name '[0-9]*' | head -1)
	kver=$(basename "$moddir")
	cfg=$(find "$work/root" -type f \( -name "config-$kver" -o -path "*/modules/$kver/config" \) | head -1)
	[ -n "$cfg" ] && cp "$cfg" "$out/config"
	find "$moddir" -name '*.ko*' | awk '{ n = $0; sub(/.*\//, "", n); sub(/\.ko.*/, "", n);
		gsub(/-/, "_", n); print n, $0 }' > "$work/index"
	: > "$out/modules.load"
	# virtio transport (often built in), 9p over virtio for the host's root and the results
	# share, and overlayfs to make that root writable in the guest.
	for m in virtio virtio_ring virtio_pci 9pnet 9pnet_virtio netfs fscache 9p overlay; do
		add_module "$m"
	done
	rm -rf "$work"
	# The packages are not needed once unpacked (about 120 MB a kernel); --refresh downloads
	# again only when a newer version appeared.
	for p in "$pkg" $extra; do rm -f "$DEBS/${p}_"*"_amd64.deb"; done
	{
		echo "alias=$alias"
		echo "package=$pkg=$ver"
		echo "packages=$(echo "$pkg" $extra)"
		echo "suite=$suite"
		echo "release=$kver"
		echo "modules=$(tr '\n' ' ' < "$out/modules.load")"
		echo "fetched=$(date -u +%Y-%m-%dT%H:%M:%SZ)"
	} > "$out/kernel.info"
	kmsg "$alias: $kver from $pkg=$ver ($suite); modules: $(tr '\n' ' ' < "$out/modules.load")"
}

kneed xz-utils zstd kmod
for a in "$@"; do fetch_one "$a"; done
