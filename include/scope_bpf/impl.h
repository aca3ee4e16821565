/*
 * How the markers of scope_bpf.h work: the fast path's writer, what a marker
 * runs under a fast-mode recorder. What it shares with the gate every marker
 * runs is in state.h, what runs once per process, thread or site in slow.h.
 * Private: everything here is named scope_bpf_impl_* or SCOPE_BPF_IMPL_* and
 * may change with any release. scope_bpf.h includes it where
 * SCOPE_BPF_ENABLED holds.
 */
#ifndef SCOPE_BPF_IMPL_H
#define SCOPE_BPF_IMPL_H

#include <stdint.h>

#include "slow.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A record's time, in the units of clock (enum scope_bpf_impl_clock). */
static inline uint64_t scope_bpf_impl_now(uint32_t clock)
{
#if defined(__x86_64__)
	if (__builtin_expect(clock == SCOPE_BPF_IMPL_CLOCK_TSC, 1))
		return __builtin_ia32_rdtsc();
#else
	uint64_t v;

	if (__builtin_expect(clock == SCOPE_BPF_IMPL_CLOCK_CNTVCT, 1)) {
		__asm__ __volatile__("isb\n\tmrs %0, cntvct_el0" : "=r"(v) : : "memory");
		return v;
	}
#endif
	return scope_bpf_impl_mono();
}

/*
 * One marker on the fast path: 1 when its record is written or counted as
 * dropped, 0 when this thread has no ring (the caller fires the probe, for a
 * kernel-mode tracer or as the fast tracer's fallback).
 */
static inline int scope_bpf_impl_fast(struct scope_bpf_site *site, uint64_t end)
{
	struct scope_bpf_impl_fast_view *v = scope_bpf_impl_fast_tls.view;
	struct scope_bpf_impl_fast_slot *s;
	struct scope_bpf_impl_fast_rec *r;
	uint64_t h, need;
	uint32_t d;

	if (!scope_bpf_impl_sem(&scope_bpf_fast_semaphore))
		return 0;
	if (__builtin_expect(!v->slot, 0)) {
		v = scope_bpf_impl_fast_first(&scope_bpf_impl_fast_tls);
		if (!v)
			return 0;
	}
	s = v->slot;
	/* The recorder hears of a site before any record names it. */
	if (__builtin_expect(site->announced != v->hdr->gen, 0))
		scope_bpf_impl_fast_announce(site, v->hdr->gen);
	h = s->head;
	d = s->depth;
	/*
	 * Whole calls are dropped, never half of one: a begin is written only
	 * with room left for the ends of every region then open, and a call
	 * whose begin was dropped is dropped with all it contains.
	 */
	if (__builtin_expect(v->skip, 0)) {
		/*
		 * Only within the recording it began in: a recorder that ended
		 * while a dropped call was open cleared the semaphore before its
		 * end ran, and every call of the next recording was dropped.
		 */
		if (v->skip_gen == v->hdr->gen) {
			v->skip += end ? -1 : 1;
			s->dropped++;
			return 1;
		}
		v->skip = 0;
	}
	need = end ? h + 1 : h + d + 2;
	if (__builtin_expect(need > v->limit, 0) && !scope_bpf_impl_fast_room(v, need)) {
		v->skip = !end;
		v->skip_gen = v->hdr->gen;
		s->dropped++;
		return 1;
	}
	r = &v->ring[h & (SCOPE_BPF_IMPL_FAST_RING - 1)];
	r->time = scope_bpf_impl_now(v->clock);
	r->site = (uint64_t)(uintptr_t)site | end;
	if (!end) {
		if (d < SCOPE_BPF_IMPL_FAST_STACK)
			s->stack[d] = (uint64_t)(uintptr_t)site;
		s->depth = d + 1;
	} else if (d) {
		s->depth = d - 1;
	}
	__atomic_store_n(&s->head, h + 1, __ATOMIC_RELEASE);
	return 1;
}

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* SCOPE_BPF_IMPL_H */
