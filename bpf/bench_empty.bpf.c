// SPDX-License-Identifier: GPL-2.0
/* Empty programs for the region probes: the floor that make bench measures region.bpf.c against. */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
/* Not used by the programs, but libbpf's USDT attach needs the maps it declares. */
#include <bpf/usdt.bpf.h>

char LICENSE[] SEC("license") = "GPL";

/* No argument fetch, no map: only the uprobe trap and the BPF dispatch remain. */
SEC("usdt")
int empty_begin(struct pt_regs *ctx)
{
	return 0;
}

SEC("usdt")
int empty_end(struct pt_regs *ctx)
{
	return 0;
}

/* The floor of a scheduler hook: what attaching any program to sched_switch costs. */
SEC("tp_btf/sched_switch")
int BPF_PROG(empty_switch, bool preempt, struct task_struct *prev, struct task_struct *next)
{
	return 0;
}
