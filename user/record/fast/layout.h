/*
 * The fast path's shared memory as the recorder reads it: the layout of
 * include/scope_bpf/abi.h, without the markers (the recorder traces, it is
 * not traced).
 */
#ifndef SB_FAST_LAYOUT_H
#define SB_FAST_LAYOUT_H

#include <stddef.h>
#include <linux/types.h>

#include "region.h"
#include "scope_bpf/abi.h"

_Static_assert(sizeof(struct scope_bpf_impl_fast_rec) == 16, "record size");
_Static_assert(sizeof(struct scope_bpf_impl_fast_slot) == 640, "slot size");
_Static_assert(SCOPE_BPF_IMPL_FAST_RINGS_AT == 167936, "rings offset");
/* What the kernel side reads of a process's slots (bpf/region.h, bpf/fast.bpf.h). */
_Static_assert(SB_FAST_SLOTS == SCOPE_BPF_IMPL_FAST_SLOTS, "slots");
_Static_assert(SB_FAST_SLOTS_AT == SCOPE_BPF_IMPL_FAST_SLOTS_AT, "slots offset");
_Static_assert(SB_FAST_SLOT_SIZE == sizeof(struct scope_bpf_impl_fast_slot), "slot size, kernel");
_Static_assert(SB_FAST_STACK == SCOPE_BPF_IMPL_FAST_STACK, "slot stack");
_Static_assert(SB_FAST_STACK_AT == offsetof(struct scope_bpf_impl_fast_slot, stack), "stack offset");
_Static_assert(offsetof(struct scope_bpf_impl_fast_slot, depth) == 4, "depth after tid");

#endif
