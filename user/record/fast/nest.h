/*
 * The fast path's begin and end records of one process turned into the
 * events the kernel path sends (struct sb_call_event, struct
 * sb_unmatched_event), with the kernel path's own calls of the process merged
 * in by time: bpf/region.bpf.c's frames, done in user space.
 */
#ifndef SB_RECORD_FAST_NEST_H
#define SB_RECORD_FAST_NEST_H

#include <stddef.h>
#include <stdint.h>

#include <linux/types.h>

#include "region.h"
#include "scope_bpf/abi.h"

/*
 * Threads followed at once per process; records of more are counted, not
 * nested. Room for every thread the kernel's table keeps (its kernel calls)
 * and every fast-path slot's thread (its marker calls), which need not be the
 * same threads: the nesting never drops a call the kernel kept.
 */
#define SB_FAST_NEST_MAX_THREADS (SB_MAX_THREADS + SCOPE_BPF_IMPL_FAST_SLOTS)
/* Off-CPU intervals a thread may have ahead of its records; more are merged (counted). */
#define SB_FAST_NEST_MAX_GAPS 256
/*
 * Kernel calls (MPI, OpenMP) a process's threads may have waiting for their
 * records, all threads together (24 MiB); more are placed early (counted).
 * The recorder reads the kernel's ring ahead of a backlog of records it is
 * still nesting, and 1024 a thread placed OpenMP calls under whatever their
 * thread had open then: a third of them under the wrong region.
 */
#define SB_FAST_NEST_MAX_QUEUED (1u << 18)

/* Called with each event, as the kernel's ring would give it; a negative return is passed on. */
typedef int (*sb_fast_emit_fn)(void *ctx, const void *event, size_t size);

struct sb_fast_nest;

/* The kernel's counters (SB_CNT_*) of the calls nested here, and this module's own. */
struct sb_fast_nest_stats {
	uint64_t calls;			/* call events sent, kernel calls placed included */
	uint64_t open_dropped;		/* SB_CNT_OPEN_DROPPED: open at thread exit, or unwound */
	uint64_t depth_overflow;	/* SB_CNT_DEPTH_OVERFLOW: begins beyond SB_MAX_DEPTH */
	uint64_t unmatched_ends;	/* SB_CNT_UNMATCHED_END */
	/* Records earlier than their thread's last; calls or intervals ending before they start. */
	uint64_t bad_time;
	uint64_t open_now;		/* fast calls open now, all threads */
	uint64_t kernel_calls;		/* kernel calls placed */
	uint64_t kernel_early;		/* placed early: the process's queue was full */
	uint64_t kernel_orphans;	/* kernel parent unknown, not inferable */
	uint64_t kernel_begins;		/* kernel calls placed at their begin: fast calls nest in them */
	uint64_t kernel_begins_late;	/* begins that came after their thread's later records */
	uint64_t offcpu_merged;		/* intervals merged with the one before: too many ahead */
	uint64_t offcpu_from_children;	/* calls whose intervals gave less off-CPU than their children's */
	uint64_t threads_full;		/* records dropped: SB_FAST_NEST_MAX_THREADS followed */
};

struct sb_fast_nest *sb_fast_nest_new(uint32_t tgid, sb_fast_emit_fn emit, void *ctx);
void sb_fast_nest_free(struct sb_fast_nest *n);
/* Ids go on from here: the kernel numbered the process's calls before it took the fast path. */
void sb_fast_nest_set_next_id(struct sb_fast_nest *n, int64_t id);

/*
 * Records of one thread come in time order per thread (threads interleave
 * freely); an earlier one is dropped (bad_time). Times everywhere are the
 * kernel's clock (bpf_ktime_get_ns): the caller converts hdr->clock's units.
 * 0, -ENOMEM, or the emit callback's negative return.
 */
int sb_fast_nest_begin(struct sb_fast_nest *n, uint32_t tid, int64_t t, uint64_t name_hash,
		       uint64_t site);
int sb_fast_nest_end(struct sb_fast_nest *n, uint32_t tid, int64_t t, uint64_t name_hash,
		     uint64_t site);

/*
 * A completed call of this process that the kernel path recorded, queued per
 * thread and placed before the first record of its thread after its end (or
 * by sb_fast_nest_settle): under the innermost call open at its start, fast
 * or kernel. Kernel events of a thread come children
 * first; ids, parents, depths and paths are recomputed in this process's id
 * space. -EINVAL: another process's call.
 */
int sb_fast_nest_kernel_call(struct sb_fast_nest *n, const struct sb_call_event *e);
/*
 * A kernel call of this process began (SB_EV_KBEGIN): queued like its end,
 * it takes its id and place once its thread's records pass its start, and
 * the fast calls begun in it until its end hang under it. Its end
 * (sb_fast_nest_kernel_call) then keeps that id and place. Without it a
 * kernel call is placed at its end, and fast calls begun in it hang under the
 * fast call open around it. -EINVAL: another process's call.
 */
int sb_fast_nest_kernel_begin(struct sb_fast_nest *n, const struct sb_kbegin_event *b);
/* Place the queued kernel begins and calls that came before before. */
int sb_fast_nest_settle(struct sb_fast_nest *n, int64_t before);

/*
 * A finished off-CPU interval of thread tid, given before any record written
 * after it: a fast call's offcpu_ns is its overlap with the thread's intervals.
 */
int sb_fast_nest_offcpu(struct sb_fast_nest *n, uint32_t tid, int64_t start, int64_t end);

/* The thread exited: its queued kernel calls are placed, its open calls dropped. */
void sb_fast_nest_thread_exit(struct sb_fast_nest *n, uint32_t tid);

void sb_fast_nest_stats(const struct sb_fast_nest *n, struct sb_fast_nest_stats *s);

#endif
