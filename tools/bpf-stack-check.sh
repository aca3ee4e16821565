#!/bin/sh
# bpf-stack-check.sh OBJ: every uprobe or USDT program in the BPF object OBJ that a kernel
# could run on a per-CPU private stack keeps its task's stack instead (bpf/task_stack.bpf.h).
#
# Linux 6.14's x86-64 JIT gives a kprobe-type program a private stack, one per CPU, when a
# function it runs needs a frame of 64 bytes or more (more than 48 before rounding to 16);
# a uprobe program that sleeps or is preempted then shares it with the next task to run the
# same program on that CPU. A program passes when it makes a tail call (bpf_tail_call, helper
# 12: the verifier then gives it no private stack), or when no function it runs, its own or a
# subprogram it reaches, needs more than 48 bytes, or when it has a twin that passes and is
# loaded in its place where the kernel has private stacks (a program that may be sleepable,
# or one for uprobe multi links, neither of which may make a tail call).
set -eu
obj=${1:?usage: bpf-stack-check.sh OBJ}
llvm-objdump -dr --no-show-raw-insn "$obj" | awk '
BEGIN {
	twin["region_begin"] = "region_begin_ctr"; twin["region_end"] = "region_end_ctr"
	twin["begin_site_reg"] = "begin_site_reg_ctr"; twin["end_site_reg"] = "end_site_reg_ctr"
	twin["fast_site"] = "fast_site_ts"
	twin["mpi_enter"] = "mpi_enter_ts"; twin["mpi_exit"] = "mpi_exit_ts"
	twin["mpi_enter_nc"] = "mpi_enter_nc_ts"
	twin["cuda_host_enter"] = "cuda_host_enter_ts"; twin["cuda_host_exit"] = "cuda_host_exit_ts"
}
/^Disassembly of section / { sec = $4; sub(/:$/, "", sec) }
/^[0-9a-f]+ <[^>]+>:$/ {
	name = $2; gsub(/[<>:]/, "", name)
	if (name ~ /^LBB/) next		# a branch target inside the function, not a function
	fn = name; frame[fn] = 0; section[fn] = sec; order[++n] = fn
}
/r10 - [0-9]+/ {
	v = $0; sub(/.*r10 - /, "", v); sub(/[^0-9].*/, "", v)
	if (v + 0 > frame[fn]) frame[fn] = v + 0
}
/call 12$/ { tail[fn] = 1 }
/R_BPF_64_32/ { calls[fn] = calls[fn] " " $NF }
function big(f, seen,   k, m, c, i) {
	if (f in seen) return 0
	seen[f] = 1
	if (frame[f] > 48) return 1
	m = split(calls[f], c, " ")
	for (i = 1; i <= m; i++)
		if (c[i] in frame && big(c[i], seen)) return 1
	return 0
}
function ok(f,   seen) {
	return (f in tail) || !big(f, seen)
}
END {
	bad = 0
	for (i = 1; i <= n; i++) {
		f = order[i]
		if (section[f] !~ /^\??(uprobe|uretprobe|usdt)/) continue
		checked++
		if (ok(f)) continue
		if ((f in twin) && (twin[f] in frame) && ok(twin[f])) continue
		printf "bpf-stack-check: %s (%s) needs a frame over 48 bytes and makes no tail call: " \
		       "a kernel with private stacks (6.14) would share its stack between tasks " \
		       "(add KEEP_TASK_STACK, bpf/task_stack.bpf.h)\n", f, section[f]
		bad = 1
	}
	if (!checked) { print "bpf-stack-check: no uprobe program found"; exit 1 }
	if (!bad) printf "bpf-stack-check: %d uprobe and USDT programs keep their task stack\n", checked
	exit bad
}'
