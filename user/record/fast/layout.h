/*
 * The fast path's shared memory as the recorder reads it: the layout of
 * include/scope_bpf/abi.h, without the markers (the recorder traces, it is
 * not traced).
 */
#ifndef SB_FAST_LAYOUT_H
#define SB_FAST_LAYOUT_H

#include <stddef.h>

#include "scope_bpf/abi.h"

_Static_assert(sizeof(struct scope_bpf_impl_fast_rec) == 16, "record size");
_Static_assert(sizeof(struct scope_bpf_impl_fast_slot) == 640, "slot size");
_Static_assert(SCOPE_BPF_IMPL_FAST_RINGS_AT == 167936, "rings offset");
/* The kernel side reads a slot's tid and depth as one pair (bpf/fast.bpf.h). */
_Static_assert(offsetof(struct scope_bpf_impl_fast_slot, depth) == 4, "depth after tid");

#endif
