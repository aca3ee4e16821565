/* SPDX-License-Identifier: GPL-2.0 */
#ifndef SB_TASK_STACK_BPF_H
#define SB_TASK_STACK_BPF_H

/*
 * Since Linux 6.14 the x86-64 JIT runs a kprobe-type program (uprobes and
 * USDT probes are) whose frame needs 64 bytes or more on a private stack,
 * one per CPU, not on its task's. A uprobe program may sleep, and from 7.x
 * it may be preempted: another task that runs the same program on that CPU
 * meanwhile writes over its locals. 7.3 under emulation showed it: a forked
 * child's begin marker, asleep faulting in its site, woke up with its
 * sibling's thread id and pushed its frame on the sibling's stack, and one
 * held process was never let go (docs/KERNELS.md, "Private stacks").
 *
 * The verifier never gives a private stack to a program that makes a tail
 * call, so every such program names this map in a branch the verifier knows
 * is never taken (never_true is read-only data): it then runs on its task's
 * stack, at no cost. Kernels before 7.x refuse a prog array in a sleepable
 * program, so of the markers only the variants that are never sleepable carry
 * it; where the kernel has private stacks, the recorder loads those
 * (record/kernel/load.c), and a build check (tools/bpf-stack-check.sh) makes
 * sure no uprobe program with a large frame lacks it.
 */
struct {
	__uint(type, BPF_MAP_TYPE_PROG_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u32);
} task_stack_only SEC(".maps");

const volatile bool never_true = false;

/* The never-taken tail call through prog array map. */
#define KEEP_TASK_STACK_WITH(ctx, map)					\
	do {								\
		if (never_true)						\
			bpf_tail_call(ctx, &map, 0);			\
	} while (0)

#define KEEP_TASK_STACK(ctx) KEEP_TASK_STACK_WITH(ctx, task_stack_only)

/*
 * The library-call programs (MPI, CUDA host) name a prog array of their own:
 * one takes the attach type of the first program that uses it, and theirs
 * attach by uprobe multi links where the kernel has them, the markers by
 * plain uprobes. Their frames hold a call's arguments: always over 48 bytes.
 */
struct {
	__uint(type, BPF_MAP_TYPE_PROG_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u32);
} lib_task_stack_only SEC(".maps");

#define LIB_CALL_PROGRAM(sec, name)					\
	SEC(sec)							\
	int name(struct pt_regs *ctx)					\
	{								\
		KEEP_TASK_STACK_WITH(ctx, lib_task_stack_only);		\
		return name##_at(ctx);					\
	}

#endif
