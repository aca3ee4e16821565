/*
 * What the MPI interposition libraries (libscope_bpf_mpi_mpich.so,
 * libscope_bpf_mpi_openmpi.so; docs/MPI.md, "The PMPI path") share: each
 * wrapped call is a region named as the uprobe path names it
 * (user/record/sources/mpi_names.c), begun and ended through the library's
 * own runtime-named markers, so it takes the fast path's ring. This part
 * knows no MPI: wrappers.c, built once per MPI, reads the arguments.
 */
#ifndef SB_PMPI_H
#define SB_PMPI_H

#include <stdbool.h>
#include <stdint.h>
#include <linux/types.h>

#include "region.h"
#include "scope_bpf.h"

/* Set while this thread is in a wrapped call: MPI calls the library makes then are part of it. */
extern __thread bool pmpi_inside __attribute__((tls_model("initial-exec")));

/* Whether a tracer watches this library's markers: a load of two semaphores. */
static inline bool pmpi_traced(void)
{
#if SCOPE_BPF_ENABLED
	return scope_bpf_impl_traced(0);
#else
	return false;
#endif
}

/* Whether a call now is a region: traced, and not made by the MPI library inside another. */
static inline bool pmpi_on(void)
{
	return __builtin_expect(pmpi_traced(), 0) && !pmpi_inside;
}

/* Whether the polling calls (MPI_Test*, MPI_Iprobe, MPI_Wtime) are regions: record --mpi=all. */
bool pmpi_all(void);

/* An event of op with every value unknown (-1), as the kernel side starts one. */
static inline void pmpi_event(struct sb_mpi_event *e, unsigned int op)
{
	e->type = SB_EV_MPI;
	e->op = op;
	e->bytes = -1;
	e->peer = -1;
	e->root = -1;
	e->tag = -1;
	e->comm = -1;
	e->request = -1;
	e->pad = 0;
	e->name_hash = 0;
}

/* A call's identity: its event but name_hash and pad (type 0: none yet), and its site. */
struct pmpi_cached {
	struct sb_mpi_event key;
	struct scope_bpf_site *site;	/* NULL: a name the recorder could not take */
};

/* This thread's last call of each operation (SB_MPI_N_OPS of them); NULL before its first. */
extern __thread struct pmpi_cached *pmpi_last __attribute__((tls_model("initial-exec")));

/* The site named for e, from the thread's table of calls, made the first time (pmpi.c). */
struct scope_bpf_site *pmpi_site(const struct sb_mpi_event *e) __attribute__((cold, noinline));

/*
 * Field by field, each load as wide as the store that wrote the field: a
 * memcmp's 8- and 16-byte loads of an event just written a field at a time
 * could not take the values from the pending stores (store forwarding
 * failed), and each waited for them to reach the cache. In this order no
 * two comparisons in a row lie within 8 bytes, which GCC would merge into
 * one 8-byte comparison, built from a register's two halves through the
 * stack: the same failed forwarding.
 */
static inline bool pmpi_same_call(const struct sb_mpi_event *a, const struct sb_mpi_event *b)
{
	return a->type == b->type && a->bytes == b->bytes && a->peer == b->peer &&
	       a->tag == b->tag && a->request == b->request && a->op == b->op &&
	       a->root == b->root && a->comm == b->comm;
}

/*
 * Begin e's region on this thread (peer and tag below 0 become -1); returns
 * its site, for pmpi_end. Inline in each wrapper: a loop repeats its call,
 * which is then its operation's last one, found by one comparison.
 */
static inline __attribute__((always_inline)) struct scope_bpf_site *
pmpi_begin(struct sb_mpi_event *e)
{
	struct pmpi_cached *last = pmpi_last;
	struct scope_bpf_site *site;

	/* MPI_ANY_SOURCE, MPI_PROC_NULL and the like are no rank. */
	if (e->peer < -1)
		e->peer = -1;
	if (e->tag < -1)
		e->tag = -1;
	pmpi_inside = true;
	last = last && e->op < SB_MPI_N_OPS ? &last[e->op] : NULL;
	if (__builtin_expect(last && pmpi_same_call(&last->key, e), 1))
		site = last->site;
	else
		site = pmpi_site(e);
#if SCOPE_BPF_ENABLED
	if (site)
		scope_bpf_impl_begin(site);
#endif
	return site;
}

/* End the region pmpi_begin began at site. */
static inline __attribute__((always_inline)) void pmpi_end(struct scope_bpf_site *site)
{
#if SCOPE_BPF_ENABLED
	if (site)
		scope_bpf_impl_end(site);
#else
	(void)site;
#endif
	pmpi_inside = false;
}

/* n elements of size bytes (-1: unknown): -1 when either is unknown or the product too big. */
static inline int64_t pmpi_times(int64_t n, int64_t size)
{
	if (n < 0 || size < 0 || (size && (uint64_t)n > (uint64_t)INT64_MAX / (uint64_t)size))
		return -1;
	return n * size;
}

/* A request started by e, kept at addr with the value handle, until a wait takes it. */
void pmpi_request_started(const void *addr, uint64_t handle, const struct sb_mpi_event *e);
/*
 * The call that started the request at addr if its handle there is still
 * handle; taken out when take (a wait completes it), kept otherwise.
 */
bool pmpi_request_find(const void *addr, uint64_t handle, bool take, struct sb_mpi_event *out);
/* The request at addr completed (MPI_Waitany, MPI_Waitsome returned): forget it. */
void pmpi_request_forget(const void *addr);

/* What this process asked of comm (-1: not asked): its rank, or its size. */
void pmpi_learned(int32_t comm, int32_t rank, int32_t size);
/* false when the process never asked anything of comm (or comm is -1). */
bool pmpi_comm_info(int32_t comm, int32_t *rank, int32_t *size);

/*
 * In a process whose MPI is other's (its library exports other_symbol) and
 * not this library's (mine_symbol): run the program again with other_file
 * (beside this library) in LD_PRELOAD in place of mine_file, whose wrappers
 * would pass the other MPI's handles as the wrong types.
 */
void pmpi_check_mpi(const char *mine_symbol, const char *other_symbol, const char *mine_file,
		    const char *other_file);

#endif
