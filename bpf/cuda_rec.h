/*
 * CUDA activity as the CUPTI injection library (cupti/) hands it over: the
 * fixed-size record of one GPU or API activity and the probes that carry
 * batches of them and the kernel names, and the ring-buffer records the
 * kernel side (cuda.bpf.h) makes of them for the recorder
 * (user/record/sources/cuda.c). docs/CUDA.md.
 */
#ifndef SB_CUDA_REC_H
#define SB_CUDA_REC_H

/* What a record describes. */
enum sb_cuda_kind {
	SB_CUDA_KERNEL = 1,	/* a kernel ran: grid, block, name_id */
	SB_CUDA_MEMCPY,		/* a copy: bytes, copy_kind (CUpti_ActivityMemcpyKind) */
	SB_CUDA_MEMSET,		/* a memset: bytes, detail = the value */
	SB_CUDA_RUNTIME,	/* a CUDA runtime API call: tid, detail = its callback id */
	SB_CUDA_DRIVER,		/* a CUDA driver API call: the same */
	SB_CUDA_SYNC,		/* a synchronization: detail = CUpti_ActivitySynchronizationType */
	SB_CUDA_DROPPED,	/* CUPTI dropped records of context, stream: bytes = how many */
	SB_CUDA_CLOCK,		/* first of all, when times were offset: detail, bytes = the offset */
};

/* How the library put CUPTI's times on CLOCK_MONOTONIC. */
enum sb_cuda_clock {
	SB_CUDA_CLOCK_CALLBACK = 0,	/* CUPTI read CLOCK_MONOTONIC itself (timestamp callback) */
	SB_CUDA_CLOCK_OFFSET = 1,	/* callback refused: a measured offset (s64 ns) was added */
};

/*
 * One activity, 80 bytes, 8-aligned. Times are CLOCK_MONOTONIC nanoseconds
 * (the library's timestamp callback). The correlation id ties GPU work to
 * the runtime or driver call that launched it; name_id to a name sent once
 * through the name probe.
 */
struct sb_cuda_rec {
	__u16 kind;		/* enum sb_cuda_kind */
	__u8 copy_kind;		/* memcpy: CUpti_ActivityMemcpyKind */
	__u8 reserved;		/* 0 */
	__u32 device;
	__u32 context;
	__u32 stream;
	__u32 correlation;
	__u32 name_id;		/* kernel: its name's id (> 0); else 0 */
	__u32 detail;		/* per kind, above */
	__u32 tid;		/* runtime and driver calls: the calling thread */
	__u64 start;
	__u64 end;
	__u64 bytes;
	__s32 grid[3];
	__s32 block[3];
};

/*
 * The library's USDT probes (provider scope_bpf_cuda), each with a
 * semaphore so they cost one load and a branch when nobody traces:
 *   batch(recs, n)	n struct sb_cuda_rec at recs
 *   name(id, name)	the NUL-terminated kernel name of name_id id; fired
 *			once per name, before the first batch that uses it
 */
#define SB_CUDA_BATCH_MAX 64	/* records in one batch */
#define SB_CUDA_NAME_MAX 1024	/* bytes of a name the kernel side copies */

/* The ring-buffer records (type SB_EV_CUDA of region.h), by what they carry. */
enum sb_cuda_msg {
	SB_CUDA_MSG_BATCH = 1,
	SB_CUDA_MSG_NAME,
	SB_CUDA_MSG_NAME_UNREAD,
};

/* A batch: the header and n records; only those n are in the ring. */
struct sb_cuda_batch_event {
	__u32 type;		/* SB_EV_CUDA */
	__u32 msg;		/* SB_CUDA_MSG_BATCH */
	__u32 tgid;
	__u32 n;		/* 1..SB_CUDA_BATCH_MAX */
	__u64 time;		/* when the probe fired */
	struct sb_cuda_rec recs[SB_CUDA_BATCH_MAX];
};

/* A kernel name: as much of it as fit, NUL-terminated. */
struct sb_cuda_name_event {
	__u32 type;		/* SB_EV_CUDA */
	__u32 msg;		/* SB_CUDA_MSG_NAME */
	__u32 tgid;
	__u32 id;
	char name[SB_CUDA_NAME_MAX];
};

/*
 * A kernel name the program could not read: a page the process never
 * touched, and a program that may not fault it in (not sleepable). User
 * space reads it at addr, which faults the page in; the process is held
 * meanwhile, as for a marker's site (struct sb_site_pending_event).
 */
struct sb_cuda_name_unread_event {
	__u32 type;		/* SB_EV_CUDA */
	__u32 msg;		/* SB_CUDA_MSG_NAME_UNREAD */
	__u32 tgid;
	__u32 id;
	__u64 addr;		/* the name in the process */
	__u32 stop_seq;		/* the process waits, stopped, until it is read (0: not held) */
	__u32 pad;
};

#endif /* SB_CUDA_REC_H */
