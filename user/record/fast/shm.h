/*
 * The recorder's side of a traced process's fast-path memory: take it from the process, seal
 * and check it, and drain the records its threads append to their rings.
 */
#ifndef SB_FAST_SHM_H
#define SB_FAST_SHM_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "record/fast/layout.h"
#include "util/error.h"

/* One process's memory as the recorder sees it (heap). */
struct sb_fast_mem;

/* Where a memory's records are read from when it is adopted. */
enum sb_fast_mem_from {
	SB_FAST_MEM_NEW,	/* just made: every slot from 0 */
	/*
	 * Made before: from where an earlier reader left each ring. Found after
	 * the recording began, so what was written since the start is ours.
	 */
	SB_FAST_MEM_EARLIER,
	/*
	 * Made before, adopted before the recording begins: nothing written yet
	 * is ours, so each ring is read from its head. An earlier recorder's
	 * backlog, read here, kept the ring full while the process wrote on, and
	 * the drops were charged to this recording.
	 */
	SB_FAST_MEM_STALE,
};

/*
 * Take fd target_fd of process pid (pidfd_getfd; its mapping, through
 * /proc/PID/map_files, for SB_FAST_MAPPED or a closed fd), check it is a memfd named
 * "scope-bpf-fast" of exactly SCOPE_BPF_IMPL_FAST_SIZE bytes, seal its size (so the target can
 * never make our mapping SIGBUS), map it and check its header against our layout and pid.
 * from: where each slot is read from (enum sb_fast_mem_from). A memory that predates this
 * recording gets hdr->gen changed, so that sites are announced again.
 * Either way, slots still held by threads that exited before (no exit event will say so) are
 * freed as sb_fast_mem_thread_gone() would.
 * Returns 0, or -errno with err naming the process and the cause: -ESRCH (no process),
 * -EPERM (no right to trace it), -EBADF (no such fd), -EINVAL (not ours or invalid).
 */
int sb_fast_mem_adopt(struct sb_fast_mem **out, pid_t pid, int target_fd,
		      enum sb_fast_mem_from from, struct sb_error *err);

/* A target_fd meaning: the process closed its memfd, and the memory is reached by its mapping. */
#define SB_FAST_MAPPED (-1)

/*
 * The fd number in pid of its "scope-bpf-fast" memfd, else SB_FAST_MAPPED
 * where it closed that fd but still maps the memory; -ENOENT when neither, or -errno.
 */
int sb_fast_mem_find(pid_t pid, int *target_fd);

/* The clock of every record (enum scope_bpf_impl_clock), as checked at adoption. */
uint32_t sb_fast_mem_clock(const struct sb_fast_mem *m);

/*
 * One record, copied out of the shared memory. tid: the slot's owner as snapshotted at the
 * start of the pass. site_word: the site's address in the target | SCOPE_BPF_IMPL_FAST_END.
 * A negative return stops the drain; that record is handed again by the next one.
 */
typedef int (*sb_fast_rec_fn)(void *ctx, uint32_t slot, uint32_t tid, uint64_t time,
			      uint64_t site_word);

/*
 * One pass: snapshot every slot's head and owner, hand each new record to fn, slot by slot in
 * order, and give the room back to the writer as we go (every 4096 records of a slot, and at
 * the end of it): a writer that found its ring full resumes without waiting for the whole
 * backlog. Returns the records handed, or
 * the first negative return of fn. A head that went back, or ran more than a ring ahead of
 * what we read, is counted (lost, resyncs) and skipped: never read out of bounds.
 */
long sb_fast_mem_drain(struct sb_fast_mem *m, sb_fast_rec_fn fn, void *ctx);
/*
 * The same in runs, at memory speed: fn gets up to a chunk of one slot's
 * records where they lie in shared memory, must copy them before reading
 * them, and returns how many it took (fewer: the pass stops there, they come
 * again next pass) or -errno.
 */
typedef long (*sb_fast_run_fn)(void *ctx, uint32_t slot, uint32_t tid,
			       const struct scope_bpf_impl_fast_rec *recs, uint64_t n);
long sb_fast_mem_drain_runs(struct sb_fast_mem *m, sb_fast_run_fn fn, void *ctx);

/*
 * Thread tid of the process has exited (the kernel said so): free its slot for a new thread
 * once it is still held by tid, every record of it was drained and /proc/<pid>/task/<tid> is
 * gone. What is not yet so is retried at the end of each drain: the exit event comes before
 * the task leaves /proc, and a new thread given the same tid keeps the slot until it exits.
 */
void sb_fast_mem_thread_gone(struct sb_fast_mem *m, uint32_t tid);

/*
 * The memory's health since adoption. Counts the process keeps itself
 * (dropped, unslotted) and ours that a lying head inflates (lost) are each cut
 * to what its threads could have written meanwhile: SB_FAST_MAX_PER_NS records
 * a nanosecond on each of the machine's CPUs (a thread drops a record in 3.4
 * ns here, writes one in 12).
 */
#define SB_FAST_MAX_PER_NS 2
struct sb_fast_mem_stats {
	uint64_t records;	/* handed to fn */
	uint64_t lost;		/* skipped by us: a head that ran ahead, ownerless records */
	uint64_t dropped;	/* not written by the threads: their ring was full */
	uint64_t unslotted;	/* not written: the thread found no free slot */
	uint64_t unread;	/* ended: written before the end, never read (no room for them) */
	uint64_t threads;	/* owners seen writing */
	uint64_t resyncs;	/* times a slot's head broke the protocol (went back, ran ahead) */
	bool capped;		/* a count was more than the threads could have done: cut */
};
void sb_fast_mem_stats(const struct sb_fast_mem *m, struct sb_fast_mem_stats *s);
/*
 * The recording began: what the threads dropped or found no slot for until
 * now (a memory adopted while the recorder attached, under -p) is not its.
 * Not while a drain runs.
 */
void sb_fast_mem_begin(struct sb_fast_mem *m);
/*
 * The recording ended: records the threads drop from now on are not its
 * (under -p they go on writing while the recorder nests what it has), so
 * dropped and unslotted stay as they are now, and drains read no record
 * written after now. Not while a drain runs.
 */
void sb_fast_mem_end(struct sb_fast_mem *m);
/*
 * Records in the rings (of the slots thread tid holds; 0: of all) not handed
 * yet: up to the heads now, or once ended, up to where the recording's
 * records end. Not while a drain runs.
 */
uint64_t sb_fast_mem_unread(const struct sb_fast_mem *m, uint32_t tid);

/* Unmap and close; NULL is fine. */
void sb_fast_mem_close(struct sb_fast_mem *m);

#endif
