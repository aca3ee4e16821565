#!/bin/sh
# /init of the kernel-matrix initramfs (busybox sh, runs as PID 1 in the guest).
# It gets the guest to the point where the host's own programs run as they would on the host:
# the host's root, read-only over 9p, under a tmpfs overlay (so anything the tests write
# lands in guest memory and the host is never changed), with the kernel file systems BPF
# needs. It then runs /results/cmd.sh from the writable "results" share, leaves the output
# and the exit status there, and powers off.
export PATH=/bin:/sbin
mkdir -p /proc /sys /dev /tmp /host /results /newroot /ovl
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev 2>/dev/null || mdev -s

say() { echo "kinit: $*" > /dev/console; }
fail() { say "$*"; echo "$*" > /results/boot-error 2>/dev/null; poweroff -f; }

# Modules in dependency order (fetch.sh wrote the list); built-in ones are not listed.
for m in $(cat /modules.load); do
	insmod "/modules/$m.ko" 2>/dev/null || say "insmod $m failed (built in already?)"
done

# msize: bigger 9p messages mean fewer round trips, which are what costs under TCG.
# cache=loose: the host's root does not change while a test runs.
P9="trans=virtio,version=9p2000.L,msize=262144"
mount -t 9p -o "$P9" results /results || fail "cannot mount the results share"
echo booted > /results/booted
mount -t 9p -o "$P9,ro,cache=loose" hostroot /host || fail "cannot mount the host root"

# A writable view of the host root: overlayfs with a tmpfs upper layer when the kernel has it,
# else the read-only root with tmpfs on the folders programs write to.
mount -t tmpfs -o mode=755 tmpfs /ovl
mkdir -p /ovl/upper /ovl/work
if mount -t overlay -o "lowerdir=/host,upperdir=/ovl/upper,workdir=/ovl/work" overlay /newroot 2>/dev/null; then
	say "root: host / over 9p (read-only) + tmpfs overlay"
else
	mount --bind /host /newroot
	for d in /root /var/tmp /var/lib /var/cache /home; do
		[ -d "/newroot$d" ] && mount -t tmpfs tmpfs "/newroot$d"
	done
	say "root: host / over 9p (read-only), tmpfs on /root /var/tmp /var/lib /var/cache /home"
fi

# Loopback up and the host's name: MPI launchers talk over TCP to themselves and look their
# own host name up in /etc/hosts (the host's).
ip link set lo up 2>/dev/null || ifconfig lo 127.0.0.1 up
[ -f /host/etc/hostname ] && hostname "$(cat /host/etc/hostname)"

# Kernel file systems, as the host has them.
R=/newroot
mount -t proc proc $R/proc
mount -t sysfs sysfs $R/sys
mount -t devtmpfs devtmpfs $R/dev
mkdir -p $R/dev/pts $R/dev/shm
mount -t devpts devpts $R/dev/pts
mount -t tmpfs -o mode=1777 tmpfs $R/dev/shm
mount -t tmpfs -o mode=1777 tmpfs $R/tmp
mount -t tmpfs -o mode=755 tmpfs $R/run
mount -t bpf bpf $R/sys/fs/bpf 2>/dev/null || say "no bpffs"
mount -t debugfs debugfs $R/sys/kernel/debug 2>/dev/null
mount -t tracefs tracefs $R/sys/kernel/tracing 2>/dev/null ||
	mount -t tracefs tracefs $R/sys/kernel/debug/tracing 2>/dev/null
mount -t cgroup2 cgroup2 $R/sys/fs/cgroup 2>/dev/null || say "no cgroup2"
# Hand every controller down to child groups, as systemd does on the host (the tests make
# memory-limited groups).
for c in $(cat $R/sys/fs/cgroup/cgroup.controllers 2>/dev/null); do
	echo "+$c" > $R/sys/fs/cgroup/cgroup.subtree_control 2>/dev/null
done
mkdir -p $R/results
mount --bind /results $R/results
# Old kernels (before 5.11) charge BPF maps to RLIMIT_MEMLOCK.
ulimit -l unlimited 2>/dev/null
ulimit -c 0

say "kernel $(uname -r) up after $(cut -d' ' -f1 /proc/uptime) s; running the command"
# The command and its environment come from the results share (see run.sh); output goes to
# the console and to /results/output, the exit status to /results/rc.
{
	chroot $R /bin/sh -c 'cd "$(cat /results/cwd)" && exec /bin/sh /results/cmd.sh' < /dev/null
	echo $? > /results/rc.tmp
} 2>&1 | tee /results/output > /dev/console
sync
mv /results/rc.tmp /results/rc
say "command exited $(cat /results/rc) after $(cut -d' ' -f1 /proc/uptime) s"
umount -a -r 2>/dev/null
poweroff -f
