/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Counters per region call (record -e/-g), a part of region.bpf.c. User space
 * opens one counting perf event per traced thread and event (the thread's own,
 * not the CPU's: exact across migrations and other tasks), puts them in
 * ctr_events and the thread's slot in ctr_threads. Every frame push reads the
 * thread's counters, every pop reads them again: the call's inclusive deltas,
 * and exclusive ones less what its direct children counted. record --memory
 * adds slots that read the task's resident size and page faults instead.
 *
 * A sleepable program may not use a perf-event array, not even as the inner
 * map of an array of maps (refused since 6.18.44): only the marker programs'
 * counting variants (the _ctr programs, never sleepable) call in here.
 */
#ifndef SB_COUNTERS_BPF_H
#define SB_COUNTERS_BPF_H

/* Events per thread; 0 = no counters: every hook returns before a map lookup. */
const volatile __u32 n_counters = 0;
/*
 * Bit k: event k may be multiplexed (a hardware event), so its readings need
 * the enabled and running times. Software events always run: a plain read,
 * which skips computing those times, is enough.
 */
const volatile __u32 ctr_timed = 0;
/* Set when a reading ran for less time than it was enabled: the values are scaled. */
volatile __u32 ctr_multiplexed = 0;
/*
 * record --memory: bit k = slot k is a memory value of the task (ctr_mem_what[k],
 * enum sb_mem_value), read from the kernel's structures, not a perf event.
 * 0 = none: the push and pop read nothing more than the events.
 */
const volatile __u32 ctr_mem = 0;
const volatile __u8 ctr_mem_what[SB_CTR_MAX] = {};
/* Bit k: slot k counts how far its value fell over the call (the RSS released), not rose. */
const volatile __u32 ctr_falling = 0;
/* Bytes per page: resident sizes are kept in pages. */
const volatile __u64 mem_page_size = 4096;

/* Index slot * SB_CTR_MAX + event: the threads' counting events. */
struct ctr_event_array {
	__uint(type, BPF_MAP_TYPE_PERF_EVENT_ARRAY);
	__uint(max_entries, SB_CTR_MAX_THREADS * SB_CTR_MAX);
	__type(key, __u32);
	__type(value, __u32);
} ctr_events SEC(".maps");

/* Key: tid. Inserted by user space once the thread's events are open; removed at its exit. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct sb_ctr_thread);
} ctr_threads SEC(".maps");

/*
 * Event k of a thread, scaled by enabled / running time when the kernel
 * multiplexed it. False when it cannot be read or never ran.
 */
static __always_inline bool ctr_read(void *events, __u32 slot, __u32 k, __u64 *v)
{
	struct bpf_perf_event_value pv;
	__u64 plain;

	if (!(ctr_timed & (1 << k))) {
		/* Errors come back as -errno in the value itself. */
		plain = bpf_perf_event_read(events, slot * SB_CTR_MAX + k);
		if ((__s64)plain < 0 && (__s64)plain >= -4095)
			return false;
		*v = plain;
		return true;
	}
	if (bpf_perf_event_read_value(events, slot * SB_CTR_MAX + k, &pv, sizeof(pv)))
		return false;
	if (pv.running < pv.enabled) {
		ctr_multiplexed = 1;
		if (!pv.running)
			return false;
	}
	*v = sb_ctr_scale(pv.counter, pv.enabled, pv.running);
	return true;
}

/* mm->rss_stat before 6.2: atomic counters; since, percpu_counter[NR_MM_COUNTERS]. */
struct mm_rss_stat___pre62 {
	atomic_long_t count[4];
} __attribute__((preserve_access_index));

struct mm_struct___pre62 {
	struct mm_rss_stat___pre62 rss_stat;
} __attribute__((preserve_access_index));

/*
 * Pages of mm's counter i (MM_FILEPAGES 0, MM_ANONPAGES 1, MM_SHMEMPAGES 3, the
 * same since 4.5), what /proc/PID/status shows: since 6.2 the shared count
 * without the CPUs' pending batches, before it without the threads' caches.
 */
#define MM_PAGES(mm, i)								\
	(bpf_core_field_exists(((struct mm_struct___pre62 *)(mm))->rss_stat) ?	\
	 BPF_CORE_READ((struct mm_struct___pre62 *)(mm), rss_stat.count[i].counter) :	\
	 BPF_CORE_READ((mm), rss_stat[i].count))

/* The task's memory values now, by enum sb_mem_value. */
static __always_inline void mem_read(__u64 *val)
{
	struct task_struct *t = (struct task_struct *)bpf_get_current_task();
	struct mm_struct *mm = BPF_CORE_READ(t, mm);
	__s64 rss = 0;
	__u64 high = 0;

	if (mm) {
		rss = MM_PAGES(mm, 0) + MM_PAGES(mm, 1) + MM_PAGES(mm, 3);
		rss = rss > 0 ? rss : 0;
		high = BPF_CORE_READ(mm, hiwater_rss);
	}
	/* The high-water mark is raised only as pages go: the peak is the larger one. */
	if (high < (__u64)rss)
		high = (__u64)rss;
	val[SB_MEM_RSS] = (__u64)rss * mem_page_size;
	val[SB_MEM_PEAK] = high * mem_page_size;
	val[SB_MEM_FAULTS] = BPF_CORE_READ(t, min_flt) + BPF_CORE_READ(t, maj_flt);
}

/* Slot k's reading: a memory value of mem, or event k of the thread's slot. */
static __always_inline bool ctr_value(__u32 slot, __u32 k, const __u64 *mem, __u64 *v)
{
	__u32 what;

	if (ctr_mem & (1 << k)) {
		what = ctr_mem_what[k & (SB_CTR_MAX - 1)];
		*v = mem[what < SB_MEM_VALUES ? what : 0];
		return true;
	}
	return ctr_read(&ctr_events, slot, k, v);
}

/*
 * Frame d was pushed: its entry readings, last so the push's own work is not
 * counted. A global function, verified once: inlined, its loop would be
 * verified again for every frame index the callers' loops can reach.
 */
__noinline int ctr_push_frame(__u32 tid, __u32 d)
{
	struct sb_ctr_thread *ct = bpf_map_lookup_elem(&ctr_threads, &tid);
	__u64 v, mem[SB_MEM_VALUES] = {};
	__u8 known = 0;
	__u32 k;

	if (!ct)
		return 0;
	if (ctr_mem)
		mem_read(mem);
	d &= SB_MAX_DEPTH - 1;
	for (k = 0; k < SB_CTR_MAX; k++) {
		ct->child[d][k] = 0;
		if (k < n_counters && ctr_value(ct->slot, k, mem, &v)) {
			ct->start[d][k] = v;
			known |= 1 << k;
		}
	}
	ct->known[d] = known;
	return 0;
}

/*
 * Frame d is popped: its deltas into the thread's last_* (the call record
 * takes them), its inclusive counts to its parent's children. A counter not
 * read at entry stays unknown. Global, as ctr_push_frame. 1 when counted.
 */
__noinline int ctr_pop_frame(__u32 tid, __u32 d)
{
	struct sb_ctr_thread *ct = bpf_map_lookup_elem(&ctr_threads, &tid);
	__u64 v, delta, mem[SB_MEM_VALUES] = {};
	__u32 k;

	if (!ct)
		return 0;
	if (ctr_mem)
		mem_read(mem);
	d &= SB_MAX_DEPTH - 1;
	for (k = 0; k < SB_CTR_MAX; k++) {
		ct->last_incl[k] = SB_CTR_UNKNOWN;
		ct->last_excl[k] = SB_CTR_UNKNOWN;
		if (k >= n_counters || !(ct->known[d] & (1 << k)) ||
		    !ctr_value(ct->slot, k, mem, &v))
			continue;
		if (ctr_falling & (1 << k))
			delta = sb_ctr_delta(v, ct->start[d][k]);
		else
			delta = sb_ctr_delta(ct->start[d][k], v);
		ct->last_incl[k] = delta;
		ct->last_excl[k] = sb_ctr_exclusive(delta, ct->child[d][k]);
		if (d > 0)
			ct->child[(d - 1) & (SB_MAX_DEPTH - 1)][k] += delta;
	}
	return 1;
}

/* The popped call's counts into its record: ctr_pop_frame's, or unknown. */
static __always_inline void ctr_fill(struct sb_call_ctr_event *e, __u32 tid, int counted)
{
	struct sb_ctr_thread *ct = counted ? bpf_map_lookup_elem(&ctr_threads, &tid) : NULL;
	__u32 k;

	for (k = 0; k < SB_CTR_MAX; k++) {
		e->incl[k] = ct ? ct->last_incl[k] : SB_CTR_UNKNOWN;
		e->excl[k] = ct ? ct->last_excl[k] : SB_CTR_UNKNOWN;
	}
}

/* Tell user space about a thread: to open its counters, or (exited) to close them. */
static __always_inline void ctr_thread_note(__u32 tgid, __u32 tid, __u32 exited)
{
	struct sb_ctr_thread_event *e;

	if (!n_counters)
		return;
	if (exited && !bpf_map_lookup_elem(&ctr_threads, &tid))
		return;
	e = reserve_event(sizeof(*e));
	if (!e) {
		count(SB_CNT_LOST_OTHER, 1);
		return;
	}
	e->type = SB_EV_CTR_THREAD;
	e->tgid = tgid;
	e->tid = tid;
	e->exited = exited;
	/* Rare, and every call before user space answers is unknown: wake it now. */
	bpf_ringbuf_submit(e, BPF_RB_FORCE_WAKEUP);
}

#endif
