// SPDX-License-Identifier: GPL-2.0
/*
 * Small programs the kernel layer (user/record/kernel/) loads, one at a time,
 * to learn what the running kernel accepts before it builds the real object:
 * a point release can refuse what an older one took, so nothing is assumed
 * from the version number.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

char LICENSE[] SEC("license") = "GPL";

/* The kinds of map the sleepable marker programs use (region.bpf.c), each once. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} probe_hash SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 8);
	__type(key, __u32);
	__type(value, __u64);
} probe_lru SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} probe_percpu SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 4096);
} probe_ring SEC(".maps");

/*
 * Loaded sleepable (user space sets the flag): a uprobe that may fault user
 * pages in with bpf_copy_from_user and uses every kind of map above. The
 * address is never read (the probe is loaded, not attached) and the verifier
 * takes any value there; read from ctx, a register would be a CO-RE access to
 * struct pt_regs, and libbpf would parse the kernel's BTF for this load too.
 */
SEC("?uprobe")
int sleepable_uprobe(struct pt_regs *ctx)
{
	__u32 zero = 0;
	__u64 *v, byte = 0;
	void *r;

	bpf_copy_from_user(&byte, 1, (void *)(unsigned long)zero);
	v = bpf_map_lookup_elem(&probe_hash, &zero);
	if (v)
		*v = byte;
	v = bpf_map_lookup_elem(&probe_lru, &zero);
	if (v)
		*v = byte;
	v = bpf_map_lookup_elem(&probe_percpu, &zero);
	if (v)
		*v = byte;
	r = bpf_ringbuf_reserve(&probe_ring, 8, 0);
	if (r)
		bpf_ringbuf_discard(r, 0);
	return 0;
}

/*
 * Atomic fetch-and-add (5.12), which numbers calls across a process's threads
 * (else a per-CPU count does). Older kernels refuse the instruction itself.
 */
SEC("?uprobe")
int atomic_fetch(struct pt_regs *ctx)
{
	__u32 zero = 0;
	__u64 *v = bpf_map_lookup_elem(&probe_hash, &zero);

	if (v && __sync_fetch_and_add(v, 1) == 1)
		return 1;
	return 0;
}
