/*
 * What the markers' gate, the fast path's writer (impl.h) and its slow paths
 * (slow.h) share: the markers' USDT semaphores and probes, and a thread's
 * view of its slot in the fast path's memory. Private, like impl.h.
 */
#ifndef SCOPE_BPF_STATE_H
#define SCOPE_BPF_STATE_H

#include <stdint.h>

#include "abi.h"
#include "probe.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * USDT semaphores: a tracer increments one while it is attached to its
 * probe. Weak and hidden, so every translation unit may define them and each
 * executable or shared object ends up with its own pair, as USDT expects.
 */
extern unsigned short scope_bpf_region_begin_semaphore;
extern unsigned short scope_bpf_region_end_semaphore;
__attribute__((weak, visibility("hidden"), section(".probes")))
unsigned short scope_bpf_region_begin_semaphore;
__attribute__((weak, visibility("hidden"), section(".probes")))
unsigned short scope_bpf_region_end_semaphore;

/* The markers' probes, provider "scope_bpf". */
#define SCOPE_BPF_IMPL_PROBE_SEM(probe, sem, args, ...)				\
	SCOPE_BPF_IMPL_USDT("scope_bpf", #probe, #sem, args, __VA_ARGS__)

/*
 * A region marker's site goes in %rax on x86-64: the recorder then reads it
 * straight from the saved registers instead of fetching it where the note
 * says, a quarter of its program's time. Elsewhere the compiler chooses.
 * (Defined beforehand, another constraint: the tests build a binary whose
 * sites are elsewhere, as older headers and other compilers leave them.)
 */
#ifndef SCOPE_BPF_IMPL_SITE_REG
#if defined(__x86_64__)
#define SCOPE_BPF_IMPL_SITE_REG "a"
#else
#define SCOPE_BPF_IMPL_SITE_REG "r"
#endif
#endif

#define SCOPE_BPF_IMPL_PROBE(probe, site)					\
	SCOPE_BPF_IMPL_PROBE_SEM(probe, scope_bpf_##probe##_semaphore, "8@%0",	\
				 SCOPE_BPF_IMPL_SITE_REG(site))

/*
 * A thread's view of its slot. Views live in memory the kernel wipes in a
 * forked child (MADV_WIPEONFORK), one per slot: a child whose fork skipped
 * the handler below (a raw clone system call) finds no view where its
 * thread-local pointer leads, and makes memory of its own rather than write
 * into its parent's ring. 64 bytes: threads write their own only.
 */
struct scope_bpf_impl_fast_view {
	struct scope_bpf_impl_fast_slot *slot;	/* NULL: not set up (or wiped in a child) */
	struct scope_bpf_impl_fast_rec *ring;
	const volatile struct scope_bpf_impl_fast_hdr *hdr;
	uint64_t limit;		/* head may reach this before the tail is read again */
	uint64_t skip;		/* regions open inside a dropped call: dropped too */
	uint32_t clock;
	uint32_t skip_gen;	/* the recording (hdr->gen) skip began in */
	uint64_t woke;		/* 1 + the tail fast_wake last fired at, once per tail */
} __attribute__((aligned(64)));

/* A thread's state, in this object's thread-local storage. */
struct scope_bpf_impl_fast_tls {
	struct scope_bpf_impl_fast_view *view;	/* scope_bpf_impl_fast_blank: not set up */
	uint32_t none;		/* set up and failed (no slot or no memory): take the probes */
};

/* Set while a fast-mode recorder is attached: probes fast_ready and fast_site. */
extern unsigned short scope_bpf_fast_semaphore;
__attribute__((weak, visibility("hidden"), section(".probes")))
unsigned short scope_bpf_fast_semaphore;
/*
 * Whether a tracer wants begins (or ends: end set): a probe's, or the fast
 * path's records. Untraced, a marker pays these two loads and one branch.
 */
static inline unsigned short scope_bpf_impl_traced(int end)
{
	return scope_bpf_impl_sem(end ? &scope_bpf_region_end_semaphore :
				  &scope_bpf_region_begin_semaphore) |
	       scope_bpf_impl_sem(&scope_bpf_fast_semaphore);
}

/* No slot: what a thread's view is until it has one (never written). */
__attribute__((weak, visibility("hidden")))
struct scope_bpf_impl_fast_view scope_bpf_impl_fast_blank;
__attribute__((weak, visibility("hidden")))
__thread struct scope_bpf_impl_fast_tls scope_bpf_impl_fast_tls = { &scope_bpf_impl_fast_blank, 0 };
/* This object's views, one per slot, made at its first slot. */
__attribute__((weak, visibility("hidden")))
struct scope_bpf_impl_fast_view *scope_bpf_impl_fast_views;

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* SCOPE_BPF_STATE_H */
