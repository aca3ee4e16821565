/*
 * The fast path's kernel side (docs/DESIGN.md; the memory's layout is
 * include/scope_bpf/abi.h's). Markers write their records to memory shared
 * with the recorder and trap only here: once per process (fast_ready: where
 * that memory is) and once per site and recording (fast_site: the
 * descriptor, read as region_begin reads it, so the recorder knows the name
 * before any record uses the site). The scheduler hook sends such a
 * process's off-CPU intervals, which user space merges with the records by
 * time; the sampler reads the thread's open regions from its slot.
 */

/*
 * Where each thread's slot is in its process: filled in by the recorder when
 * it reads the thread's first record, or found by fast_slot_of() before.
 */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, SB_MAX_THREADS);
	__type(key, __u32);
	__type(value, __u64);
} fast_slots SEC(".maps");

/* Threads of fast-path processes whose slot was looked for and not found, and when. */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, SB_MAX_THREADS);
	__type(key, __u32);
	__type(value, __u64);
} fast_unslotted SEC(".maps");

/*
 * A thread without a slot is looked for again after this: it may not have
 * run its first marker yet (its samples then are outside regions, rightly),
 * or run none. A search reads 256 words, about 10 us: at most 1% of a
 * sampled thread that never gets a slot, at 999 Hz.
 */
#define FAST_RESCAN_NS 1000000

/* The slot's open regions as the sampler copies them. */
struct fast_stack {
	__u64 site[SCOPE_BPF_IMPL_FAST_STACK];
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct fast_stack);
} fast_scratch SEC(".maps");

SEC("usdt")
int BPF_USDT(fast_ready, void *hdr, int fd)
{
	__u64 id = bpf_get_current_pid_tgid();
	__u32 tgid = id >> 32, tid = (__u32)id;
	struct sb_fast_ready_event *e;
	struct sb_proc *proc;

	/*
	 * Not gated on recording: the memory and the sites are named once, and
	 * a marker that runs between attach and the start of recording must
	 * not have them go unheard.
	 */
	proc = bpf_map_lookup_elem(&procs, &tgid);
	if (!proc && !(proc = proc_unseen()))
		return 0;
	proc->fast = 1;
	proc->fast_hdr = (__u64)hdr;
	thread_get(tid, tgid, 0);
	e = reserve_event(sizeof(*e));
	if (!e) {
		count(SB_CNT_LOST_OTHER, 1);
		return 0;
	}
	e->type = SB_EV_FAST_READY;
	e->tgid = tgid;
	e->tid = tid;
	e->fd = fd;
	e->hdr = (__u64)hdr;
	e->pad = 0;
	/*
	 * Held until the recorder has taken the memory, as at exec: a process
	 * that exits first would take its records with it.
	 */
	e->stop_seq = hold_current(tgid);
	bpf_ringbuf_submit(e, BPF_RB_FORCE_WAKEUP);
	return 0;
}

/*
 * Wake-ups for the recorder's drainer and its standby, one ring each (each
 * has its own reader): they sleep while no ring fills, and a writer whose
 * ring passed half full fires fast_wake. What is in them is never read.
 */
struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 4096);
} fast_wake_drainer SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 4096);
} fast_wake_standby SEC(".maps");

SEC("usdt")
int BPF_USDT(fast_wake, void *slot)
{
	__u64 one = 1;

	/* A full ring already wakes its reader: a failed write loses nothing. */
	bpf_ringbuf_output(&fast_wake_drainer, &one, sizeof(one), BPF_RB_FORCE_WAKEUP);
	bpf_ringbuf_output(&fast_wake_standby, &one, sizeof(one), BPF_RB_FORCE_WAKEUP);
	return 0;
}

static __always_inline int fast_site_at(__u64 site)
{
	__u32 tgid = bpf_get_current_pid_tgid() >> 32;
	struct sb_fast_site_event *e;
	struct sb_proc *proc;
	__u64 h;

	proc = bpf_map_lookup_elem(&procs, &tgid);
	if (!proc)
		return 0;
	/*
	 * A burst of new sites (tens of thousands of run-time names) while the
	 * recorder is short of CPU: past half the ring, no description is sent;
	 * the small pending record has the recorder name the site, the process
	 * held meanwhile. A pause of the burst, not its names lost (a process
	 * may end a moment later, and no one could read them then).
	 */
	if (bpf_ringbuf_query(&events, BPF_RB_AVAIL_DATA) >
	    bpf_ringbuf_query(&events, BPF_RB_RING_SIZE) / 2) {
		struct sb_site_key key = { .tgid = tgid, .gen = proc->gen, .site = site };

		pending_site(&key);
		return 0;
	}
	/* Not counted here when invalid: user space counts each call that names it. */
	/*
	 * A program that may not sleep cannot read a page never touched (a shared
	 * library's descriptors, often): it holds the process while the recorder
	 * names the site (pend), since by the time a record names it the process
	 * may be gone (a library's 100 calls were all "invalid" so). A sleepable
	 * one that still cannot read it, or a full ring: no record, since a name
	 * hash of 0 would call the site invalid; the recorder names it when a
	 * record names it.
	 */
	h = site_name_hash(tgid, proc, site, false, !sleepable);
	if (h == SB_SITE_UNREAD)
		return 0;
	e = reserve_event(sizeof(*e));
	if (!e) {
		/* The recorder reads the site from the process when a record names it. */
		count(SB_CNT_SITES_UNSENT, 1);
		return 0;
	}
	e->type = SB_EV_FAST_SITE;
	e->tgid = tgid;
	e->site = site;
	e->name_hash = h;
	e->time = bpf_ktime_get_ns();
	bpf_ringbuf_submit(e, submit_flags());
	return 0;
}

/* Sleepable where the marker programs are. */
SEC("?usdt")
int BPF_USDT(fast_site, void *site)
{
	return fast_site_at((__u64)site);
}

/* Never sleepable, on its task's stack: the one loaded where the kernel has private stacks. */
SEC("?usdt")
int BPF_USDT(fast_site_ts, void *site)
{
	KEEP_TASK_STACK(ctx);
	return fast_site_at((__u64)site);
}

/*
 * Called by the scheduler hook as a fast-path thread comes back on a CPU.
 * Intervals yield to every other record once the ring is half full: a crowd
 * of threads in a futex storm sends far more of them than calls (thread_crowd:
 * half a million in a few seconds), and a call lost is a hole in the tree
 * where an interval lost is off-CPU time not split among calls. Counted
 * either way.
 */
static __always_inline void fast_offcpu(__u32 tgid, __u32 tid, __u64 start, __u64 end)
{
	struct sb_offcpu_event *e;

	if (bpf_ringbuf_query(&events, BPF_RB_AVAIL_DATA) >
	    bpf_ringbuf_query(&events, BPF_RB_RING_SIZE) / 2) {
		count(SB_CNT_OFFCPU_LOST, 1);
		return;
	}
	e = reserve_event(sizeof(*e));
	if (!e) {
		count(SB_CNT_OFFCPU_LOST, 1);
		return;
	}
	e->type = SB_EV_OFFCPU;
	e->tgid = tgid;
	e->tid = tid;
	e->pad = 0;
	e->start = start;
	e->end = end;
	bpf_ringbuf_submit(e, submit_flags());
}

/*
 * Where tid's slot is in its process's memory; 0 if it has none. The
 * recorder says so once it has read the thread's first record, which can be
 * a drainer pass (up to 50 ms) away, longer than a short thread lives: until
 * then the process's slot table is searched (a thread claims the lowest free
 * slot), and a thread found in none is looked for again FAST_RESCAN_NS later.
 */
static __noinline __u64 fast_slot_of(__u32 tid, __u64 hdr)
{
	__u64 *known = bpf_map_lookup_elem(&fast_slots, &tid), *missed, now, at;
	__u32 i, owner;

	if (known)
		return *known;
	now = bpf_ktime_get_ns();
	missed = bpf_map_lookup_elem(&fast_unslotted, &tid);
	if (!hdr || (missed && now - *missed < FAST_RESCAN_NS))
		return 0;
	for (i = 0; i < SCOPE_BPF_IMPL_FAST_SLOTS; i++) {
		at = hdr + SCOPE_BPF_IMPL_FAST_SLOTS_AT +
		     (__u64)i * sizeof(struct scope_bpf_impl_fast_slot);
		if (bpf_probe_read_user(&owner, sizeof(owner), (void *)at))
			break;
		if (owner == tid) {
			bpf_map_update_elem(&fast_slots, &tid, &at, BPF_ANY);
			return at;
		}
	}
	bpf_map_update_elem(&fast_unslotted, &tid, &now, BPF_ANY);
	return 0;
}

/*
 * path extended by the names of the fast-path frames [from, depth) open in
 * the current thread's slot, as push_frame_on would have made it; *depth:
 * the slot's depth. 0 (outside every region) when the slot is unknown or
 * unreadable, or names a site the kernel has not read: then *depth is from.
 * A slot that another thread owns now (tids are reused) is forgotten.
 */
static __noinline __u64 fast_extend(struct sb_proc *proc, __u32 tid, __u64 path, __u32 from,
				    __u32 *depth)
{
	struct sb_site_key key = { .tgid = bpf_get_current_pid_tgid() >> 32, .gen = proc->gen };
	__u64 slot = fast_slot_of(tid, proc->fast_hdr), *h;
	struct { __u32 tid, depth; } head;	/* a slot's first two fields */
	struct fast_stack *st;
	__u32 zero = 0, n, i;

	*depth = from;
	st = bpf_map_lookup_elem(&fast_scratch, &zero);
	if (!slot || !st || bpf_probe_read_user(&head, sizeof(head), (void *)slot))
		return 0;
	if (head.tid != tid) {
		bpf_map_delete_elem(&fast_slots, &tid);
		return 0;
	}
	n = head.depth < SCOPE_BPF_IMPL_FAST_STACK ? head.depth : SCOPE_BPF_IMPL_FAST_STACK;
	if (n <= from) {
		*depth = n;
		return path;
	}
	if (bpf_probe_read_user(st->site, sizeof(st->site),
				((struct scope_bpf_impl_fast_slot *)slot)->stack))
		return 0;
	/*
	 * From from on, not from 0 skipping the first ones: a skipped turn and a
	 * taken one reach the next with different states, which the verifier
	 * walked apart, 90 000 instructions in every program that opens a call
	 * (0.55 s of the 0.87 s of CPU a recording took to start); 17 000 so.
	 */
	for (i = 0; i < SCOPE_BPF_IMPL_FAST_STACK; i++) {
		if (from + i >= n)
			break;
		key.site = st->site[(from + i) & (SCOPE_BPF_IMPL_FAST_STACK - 1)];
		h = bpf_map_lookup_elem(&sites, &key);
		if (!h)
			return 0;
		path = (path ^ *h) * FNV_PRIME;
	}
	*depth = n;
	return path;
}

/* The path hash of the regions open in a fast-path thread's slot; 0 outside every region. */
static __always_inline __u64 fast_path(struct sb_proc *proc, __u32 tid)
{
	__u32 depth;
	__u64 path = fast_extend(proc, tid, SB_PATH_SEED, 0, &depth);

	return depth ? path : 0;
}
