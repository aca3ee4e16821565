#!/bin/bash
# initramfs.sh ALIAS: build build/kernels/ALIAS/initramfs.cpio.gz for run.sh: Debian's static
# busybox (the host's programs are not usable before the host's root is mounted), the
# kernel's 9p/virtio/overlay modules that fetch.sh unpacked, and init.sh as /init.
# Rebuilt each time (well under a second), so an edit of init.sh always takes effect.
set -eu
. "$(dirname "$0")/common.sh"
[ $# -eq 1 ] || kdie "usage: initramfs.sh ALIAS"
alias=$1
out=$KDIR/$alias
[ -f "$out/kernel.info" ] || "$(dirname "$0")/fetch.sh" "$alias"
kneed busybox-static cpio gzip

stage=$(mktemp -d "$KDIR/.initramfs-$alias.XXXXXX")
trap 'rm -rf "$stage"' EXIT
mkdir -p "$stage/bin" "$stage/sbin" "$stage/modules"
# busybox-static installs /bin/busybox (and /usr/bin/busybox on some releases).
bb=$(dpkg -L busybox-static | grep -E '/bin/busybox$' | head -1)
cp "$bb" "$stage/bin/busybox"
# One link per applet, so /init can call mount, insmod, chroot, poweroff... by name.
for a in $("$stage/bin/busybox" --list); do
	[ "$a" = busybox ] || ln -s busybox "$stage/bin/$a"
done
cp "$(dirname "$0")/init.sh" "$stage/init"
chmod 755 "$stage/init"
cp "$out"/modules/*.ko "$stage/modules/" 2>/dev/null || true
cp "$out/modules.load" "$stage/modules.load"
(cd "$stage" && find . | cpio -o -H newc --quiet | gzip -1) > "$out/initramfs.cpio.gz.tmp"
mv "$out/initramfs.cpio.gz.tmp" "$out/initramfs.cpio.gz"
echo "$out/initramfs.cpio.gz"
