// SPDX-License-Identifier: GPL-2.0
/* The kernel's clock as the region programs read it, for tests that compare the fast path's. */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>

char LICENSE[] SEC("license") = "GPL";

/* bpf_ktime_get_ns() at the last run; the test reads it through the skeleton's bss. */
__u64 ktime_ns;

/* Run on demand by BPF_PROG_TEST_RUN: no attach, no context. */
SEC("syscall")
int ktime_probe(void *ctx)
{
	ktime_ns = bpf_ktime_get_ns();
	return 0;
}
