#!/bin/bash
# run.sh [-q] [-t SECONDS] ALIAS CMD...: boot Debian kernel ALIAS (see fetch.sh) under QEMU
# (TCG: no KVM needed) on the host's own root file system and run CMD there as root, in the
# current folder, with the current environment. Exit status:
#   CMD's own status  when the kernel booted and CMD ran to its end,
#   124               when the hard timeout (-t, KTIMEOUT, default 900 s) hit first,
#   125               when the kernel did not boot (no modules, no 9p, panic, QEMU error),
#   126               when the guest's kernel died (panic, oops) while CMD ran.
# Output: CMD's output on stdout (the guest console with -v / KVERBOSE=1); everything of
# the run (console.log, output, rc) stays in build/kernels/runs/ALIAS.N/, printed at the end.
set -eu
. "$(dirname "$0")/common.sh"

quiet=0; timeout_s=${KTIMEOUT:-900}; verbose=${KVERBOSE:-0}
while [ $# -gt 0 ]; do
	case $1 in
	-q) quiet=1; shift ;;
	-v) verbose=1; shift ;;
	-t) timeout_s=$2; shift 2 ;;
	*) break ;;
	esac
done
[ $# -ge 2 ] || kdie "usage: run.sh [-q] [-v] [-t SECONDS] ALIAS CMD..."
alias=$1; shift
kneed qemu-system-x86
[ -f "$KDIR/$alias/kernel.info" ] || "$(dirname "$0")/fetch.sh" "$alias" || exit 125
"$(dirname "$0")/initramfs.sh" "$alias" > /dev/null
out=$KDIR/$alias

# The results share: KRES names it (matrix.sh does), else a new folder per run.
mkdir -p "$KDIR/runs"
if [ -n "${KRES:-}" ]; then
	res=$KRES
	# It is emptied first: refuse anything that does not look like an earlier results folder.
	if [ -e "$res" ] && [ -n "$(ls -A "$res")" ] && [ ! -f "$res/cmd.sh" ]; then
		kdie "KRES=$res is not empty and not an earlier results folder; not touching it"
	fi
	rm -rf "$res"; mkdir -p "$res"
else
	res=$(mktemp -d "$KDIR/runs/$alias.XXXXXX")
fi
chmod 755 "$res"

# Under TCG a guest's thread runs 10 to 20 times slower than the host's: tests that want a
# flood or a process outliving a load scale by this (tests/integration/harness.h).
case ${KACCEL:-tcg} in
tcg*) export SCOPE_BPF_TEST_SLOWDOWN=${SCOPE_BPF_TEST_SLOWDOWN:-20} ;;
esac
# The guest's /init runs cmd.sh (with the host's /bin/sh) in the folder named by cwd.
# Environment: everything exported here, single-quoted for sh; not the shell's own state.
q() { printf "'%s'" "$(printf '%s' "$1" | sed "s/'/'\\\\''/g")"; }
{
	echo "# written by tools/kernels/run.sh"
	while IFS= read -r -d '' kv; do
		k=${kv%%=*}
		case $k in PWD|OLDPWD|SHLVL|_|TERM|KRES|*[!A-Za-z0-9_]*) continue ;; esac
		echo "export $k=$(q "${kv#*=}")"
	done < <(env -0)
	printf 'exec'
	for a in "$@"; do printf ' %s' "$(q "$a")"; done
	echo
} > "$res/cmd.sh"
pwd > "$res/cwd"

# oops=panic: after an Oops (7.3.4 had one in bpf_ringbuf_discard under a uprobe program) the
# guest is not to be trusted and the test would only hang until its timeout; a panic ends the
# run at once (panic=-1, -no-reboot) and comes back as exit 126 with the Oops's first line.
# TCG with one host thread for both vCPUs (thread=single): with multi-threaded TCG, 7.3's
# sched_switch patching (text_poke_bp) hit a stale int3 in __schedule and the guest
# panicked ("Oops: int3"); one thread is also no slower on a two-core host.
# The host's root goes in read-only (the guest overlays it with tmpfs); results is the only
# folder the guest can write on the host. multidevs=remap: the host root spans several
# file systems, whose inode numbers would otherwise clash in the guest.
start=$(date +%s.%N)
set +e
timeout -k 10 "$timeout_s" qemu-system-x86_64 -accel "${KACCEL:-tcg,thread=single}" -cpu "${KCPU:-max}" -m "${KMEM:-4G}" -smp "${KSMP:-2}" \
	-nographic -no-reboot -nic none \
	-kernel "$out/vmlinuz" -initrd "$out/initramfs.cpio.gz" \
	-append "console=ttyS0 tsc=unstable panic=-1 oops=panic quiet loglevel=3 ${KAPPEND:-}" \
	-virtfs "local,path=/,mount_tag=hostroot,security_model=none,readonly=on,multidevs=remap" \
	-virtfs "local,path=$res,mount_tag=results,security_model=none" \
	< /dev/null > "$res/console.log" 2>&1 &
qpid=$!
if [ "$verbose" = 1 ]; then
	tail -n +1 -f --pid=$qpid "$res/console.log"
elif [ "$quiet" = 0 ]; then
	# The command's output as it comes (the guest writes it to the results share).
	while [ ! -e "$res/output" ] && kill -0 $qpid 2>/dev/null; do sleep 0.5; done
	[ -e "$res/output" ] && tail -n +1 -f --pid=$qpid "$res/output"
fi
wait $qpid
qrc=$?
set -e
secs=$(echo "$(date +%s.%N) $start" | awk '{ printf "%.1f", $1 - $2 }')
boot=$(sed -n 's/.*kinit: kernel .* up after \([0-9.]*\) s.*/\1/p' "$res/console.log" | head -1)
tr -d '\r' < "$res/console.log" > "$res/console.txt" 2>/dev/null || true

if [ -f "$res/rc" ]; then
	rc=$(cat "$res/rc")
	msg="exit $rc"
elif [ -f "$res/booted" ] && [ -z "$(cat "$res/boot-error" 2>/dev/null)" ]; then
	rc=124
	msg="TIMEOUT after ${timeout_s}s (kernel booted; the command did not finish)"
	if [ $qrc -ne 124 ] && [ $qrc -ne 137 ]; then
		rc=126
		msg="guest kernel died while running the command: $(grep -m3 -E 'Kernel panic|Oops|BUG:|RIP:' "$res/console.txt" | tr -s '\n' ' ')"
	fi
else
	rc=125
	msg="kernel did not boot: $(cat "$res/boot-error" 2>/dev/null || tail -n 5 "$res/console.txt" | tr '\n' ' ')"
fi
{
	echo "alias=$alias"
	echo "release=$(sed -n 's/^release=//p' "$out/kernel.info")"
	echo "package=$(sed -n 's/^package=//p' "$out/kernel.info")"
	echo "boot_s=${boot:-}"
	echo "total_s=$secs"
	echo "rc=$rc"
} > "$res/summary"
kmsg "$alias ($(sed -n 's/^release=//p' "$out/kernel.info")): $msg; boot ${boot:-?} s, total $(printf '%.1f' "$secs") s; files in $res"
exit "$rc"
