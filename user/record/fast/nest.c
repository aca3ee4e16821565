/*
 * Fast-path records nested into calls, as bpf/region.bpf.c nests the kernel
 * path's (push_frame_on, find_frame, pop_frame, emit_call): same fields, same
 * path hashes, same counters, with the kernel path's calls of the process
 * placed among them by time.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "record/fast/nest.h"

#define FNV_PRIME 0x100000001b3ULL
#define FNV_PRIME_INV 0xce965057aff6957bULL	/* FNV_PRIME * this == 1 (mod 2^64) */
/* First sizes of the thread table and of a thread's rings; they double up to their limits. */
#define MIN_TABLE 64
#define MIN_RING 8

/* Where a call hangs in this process's tree: its parent, or none. */
struct link {
	int64_t id;		/* -1: none */
	uint64_t path;
	uint32_t depth;
	int32_t fast;		/* the parent's fast frame, -1 when the parent is no fast call */
	int64_t fast_id;	/* that frame's call id: whether the frame still holds it */
	int32_t kern;		/* the parent's kernel depth when it is an open kernel call, else -1 */
};

/* An open fast call: struct sb_frame, its off-CPU time kept as a clock reading. */
struct frame {
	uint64_t name_hash;
	uint64_t path_hash;
	uint64_t site;
	int64_t start;
	int64_t call_id;
	uint64_t child_ns;
	uint64_t child_off;	/* its children's off-CPU time, kernel calls' included */
	uint64_t off_start;	/* the thread's off-CPU clock at start */
	uint32_t depth;		/* in the tree: fast and kernel calls above it */
	struct link up;		/* its parent: a fast call, or a kernel call it began inside */
};

/* An off-CPU interval the thread's records have not passed yet; ns < end - start once merged. */
struct gap {
	int64_t start;
	int64_t end;
	uint64_t ns;
};

/*
 * The kernel call last seen at one kernel depth: placed, or named by a child
 * (parent_id, parent_path) before it arrived, its id and place then fixed.
 */
struct kparent {
	int64_t kid;		/* the kernel's call id */
	uint64_t kpath;		/* the kernel's path hash */
	int64_t start;
	int64_t end;		/* INT64_MAX until it arrived */
	int64_t id;
	uint64_t path;
	uint32_t depth;
	bool arrived;
	/* Added to the kernel's child_ns: fast calls begun in it, less kernel children under those. */
	uint64_t child_adj;
	struct link parent;
};

/* A thread's kernel calls: made at its first, as most threads have none. */
struct kstate {
	struct sb_call_event *q;	/* ended, waiting: [head, len), by end, children first */
	uint32_t head;
	uint32_t len;
	uint32_t cap;
	struct sb_kbegin_event *b;	/* begun, waiting: [bhead, blen), by start */
	uint32_t bhead;
	uint32_t blen;
	uint32_t bcap;
	uint32_t open;			/* kp[0, open) began and have not ended: fast calls nest in */
	uint64_t known;			/* bit d: kp[d] is set */
	struct kparent kp[SB_MAX_DEPTH];
};

/* A thread's open fast calls and what their events still need: struct sb_thread_state. */
struct thread {
	uint32_t tid;
	uint32_t depth;		/* frames in use */
	uint32_t overflow;	/* open calls beyond SB_MAX_DEPTH */
	bool seen;
	int64_t last_t;
	uint64_t off_sum;	/* off-CPU ns of the intervals the records passed */
	struct gap *gaps;	/* ring of the intervals ahead, in time order */
	uint32_t gap_head;
	uint32_t gap_len;
	uint32_t gap_cap;
	struct kstate *k;	/* NULL until a kernel call of the thread came */
	struct frame frames[SB_MAX_DEPTH];
};

struct sb_fast_nest {
	uint32_t tgid;
	sb_fast_emit_fn emit;
	void *ctx;
	int64_t next_id;
	struct thread *last;	/* records come in runs of one thread */
	/* By tid, open addressing: util/hashmap.h has no delete, and threads come and go. */
	struct thread **table;	/* NULL: empty */
	uint32_t cap;
	uint32_t len;
	uint32_t queued;	/* kernel calls waiting, all threads */
	struct sb_fast_nest_stats st;
};

_Static_assert(SB_MAX_DEPTH <= 64, "kstate.known is one u64");

/* Times are whatever a target wrote: their difference in unsigned arithmetic cannot overflow. */
static uint64_t span(int64_t from, int64_t to)
{
	return (uint64_t)to - (uint64_t)from;
}

static uint32_t slot_of(uint32_t tid, uint32_t cap)
{
	return (uint32_t)(((uint64_t)tid * 0x9e3779b97f4a7c15ULL) >> 32) & (cap - 1);
}

static struct thread *table_find(const struct sb_fast_nest *n, uint32_t tid)
{
	uint32_t i;

	if (!n->cap)
		return NULL;
	for (i = slot_of(tid, n->cap); n->table[i]; i = (i + 1) & (n->cap - 1))
		if (n->table[i]->tid == tid)
			return n->table[i];
	return NULL;
}

static void table_put(struct thread **table, uint32_t cap, struct thread *th)
{
	uint32_t i = slot_of(th->tid, cap);

	while (table[i])
		i = (i + 1) & (cap - 1);
	table[i] = th;
}

static int table_grow(struct sb_fast_nest *n)
{
	uint32_t cap = n->cap ? n->cap * 2 : MIN_TABLE, i;
	struct thread **t = calloc(cap, sizeof(*t));

	if (!t)
		return -ENOMEM;
	for (i = 0; i < n->cap; i++)
		if (n->table[i])
			table_put(t, cap, n->table[i]);
	free(n->table);
	n->table = t;
	n->cap = cap;
	return 0;
}

/* Linear probing without tombstones: entries after the hole move back when their home allows. */
static void table_del(struct sb_fast_nest *n, struct thread *th)
{
	uint32_t mask = n->cap - 1, i = slot_of(th->tid, n->cap), j, home;

	while (n->table[i] != th)
		i = (i + 1) & mask;
	n->table[i] = NULL;
	for (j = (i + 1) & mask; n->table[j]; j = (j + 1) & mask) {
		home = slot_of(n->table[j]->tid, n->cap);
		/* Stays when its home lies cyclically in (i, j]. */
		if (i <= j ? (i < home && home <= j) : (i < home || home <= j))
			continue;
		n->table[i] = n->table[j];
		n->table[j] = NULL;
		i = j;
	}
	n->len--;
}

/* thread_get when the thread is not the last one seen: looked up, or made. */
static struct thread *thread_lookup(struct sb_fast_nest *n, uint32_t tid, int *err)
{
	struct thread *th = table_find(n, tid);

	if (th)
		return n->last = th;
	if (n->len >= SB_FAST_NEST_MAX_THREADS) {
		n->st.threads_full++;
		return NULL;
	}
	if ((n->len + 1) * 2 > n->cap && (*err = table_grow(n)))
		return NULL;
	th = calloc(1, sizeof(*th));
	if (!th) {
		*err = -ENOMEM;
		return NULL;
	}
	th->tid = tid;
	table_put(n->table, n->cap, th);
	n->len++;
	return n->last = th;
}

/* The thread's state, made at its first record; NULL: no memory (*err) or no room (counted). */
static inline struct thread *thread_get(struct sb_fast_nest *n, uint32_t tid, int *err)
{
	struct thread *th = n->last;

	*err = 0;
	if (th && th->tid == tid)
		return th;
	return thread_lookup(n, tid, err);
}

/*
 * The thread's off-CPU time before t. Intervals the records passed fold into
 * off_sum (no open call needs them apart any more), so a call's overlap with
 * them, children included, is the clock at its end less the clock at its start.
 */
static uint64_t off_clock(struct thread *th, int64_t t)
{
	struct gap *g;
	uint64_t part;

	while (th->gap_len) {
		g = &th->gaps[th->gap_head];
		if (g->end > t) {
			if (g->start >= t)
				return th->off_sum;
			part = span(g->start, t);
			return th->off_sum + (part < g->ns ? part : g->ns);
		}
		th->off_sum += g->ns;
		th->gap_head = (th->gap_head + 1) & (th->gap_cap - 1);
		th->gap_len--;
	}
	return th->off_sum;
}

static int emit_call(struct sb_fast_nest *n, const struct sb_call_event *e)
{
	n->st.calls++;
	return n->emit(n->ctx, e, sizeof(*e));
}

/* The innermost fast call open at t: one begun after t is no ancestor of what began at t. */
static void fast_link(const struct thread *th, int64_t t, struct link *l)
{
	int i;

	for (i = (int)th->depth - 1; i >= 0; i--) {
		if (th->frames[i].start <= t) {
			l->id = th->frames[i].call_id;
			l->path = th->frames[i].path_hash;
			l->depth = th->frames[i].depth;
			l->fast = i;
			l->fast_id = l->id;
			l->kern = -1;
			return;
		}
	}
	l->id = -1;
	l->path = 0;
	l->depth = 0;
	l->fast = -1;
	l->fast_id = -1;
	l->kern = -1;
}

static uint64_t path_under(const struct link *l, uint64_t name_hash)
{
	return ((l->id >= 0 ? l->path : SB_PATH_SEED) ^ name_hash) * FNV_PRIME;
}

/* A link to the kernel call at kernel depth d; kern says it only while that call is open. */
static void link_to(const struct kstate *k, uint32_t d, struct link *l)
{
	const struct kparent *kp = &k->kp[d];

	l->id = kp->id;
	l->path = kp->path;
	l->depth = kp->depth;
	l->fast = -1;
	l->fast_id = -1;
	l->kern = d < k->open ? (int32_t)d : -1;
}

/*
 * Where a call beginning at t hangs: under the innermost call open then, a
 * fast call or a kernel call that began (and was told so) and has not ended,
 * whichever began later. Kernel call kd, when kd >= 0, is the kernel parent
 * of the call: no other kernel call may be its parent.
 */
static void inner_link(const struct thread *th, int64_t t, int32_t kd, struct link *l)
{
	const struct kstate *k = th->k;

	fast_link(th, t, l);
	if (!k || kd < 0 || (uint32_t)kd >= k->open || k->kp[kd].start > t)
		return;
	if (l->id < 0 || k->kp[kd].start > th->frames[l->fast].start)
		link_to(k, (uint32_t)kd, l);
}

/*
 * Child e names a kernel parent at kernel depth d that has not arrived (it is
 * still open): fix its id and place now. Its name is in the kernel's path of
 * it, e->parent_path = (kernel path above it ^ name) * FNV_PRIME, and the path
 * above it is SB_PATH_SEED at depth 0, else its own parent's, if known.
 */
static bool reserve_parent(struct sb_fast_nest *n, struct thread *th, uint32_t d,
			   const struct sb_call_event *e)
{
	struct kstate *k = th->k;
	struct kparent *kp = &k->kp[d], *up;
	uint64_t mixed = e->parent_path * FNV_PRIME_INV, name;
	struct link g;

	if (d == 0) {
		name = mixed ^ SB_PATH_SEED;
		fast_link(th, (int64_t)e->start, &g);
	} else {
		up = &k->kp[d - 1];
		if (!(k->known >> (d - 1) & 1) || up->start > (int64_t)e->start ||
		    up->end < (int64_t)e->end)
			return false;
		name = mixed ^ up->kpath;
		link_to(k, d - 1, &g);
	}
	kp->kid = e->parent_id;
	kp->kpath = e->parent_path;
	kp->start = INT64_MIN;
	kp->end = INT64_MAX;
	kp->id = n->next_id++;
	kp->path = path_under(&g, name);
	kp->depth = g.id >= 0 ? g.depth + 1 : 0;
	kp->arrived = false;
	kp->child_adj = 0;
	kp->parent = g;
	k->known |= 1ULL << d;
	return true;
}

/* Kernel call e's parent: its kernel parent, else the innermost fast call open at its start. */
static void kernel_link(struct sb_fast_nest *n, struct thread *th, const struct sb_call_event *e,
			struct link *l)
{
	struct kstate *k = th->k;
	uint32_t d = e->depth;
	struct kparent *kp;

	if (e->parent_id >= 0) {
		if (d >= 1 && d <= SB_MAX_DEPTH) {
			kp = &k->kp[d - 1];
			if (((k->known >> (d - 1) & 1) && kp->kid == e->parent_id) ||
			    reserve_parent(n, th, d - 1, e)) {
				link_to(k, d - 1, l);
				return;
			}
		}
		n->st.kernel_orphans++;
	}
	fast_link(th, (int64_t)e->start, l);
}

/*
 * The kernel counted call e in its kernel parent's child time; placed under
 * a fast call begun inside that parent, it is a grandchild here.
 */
static void uncount_from_kernel_parent(struct kstate *k, const struct sb_call_event *e,
				       const struct link *l)
{
	struct kparent *up;

	if (e->depth == 0 || e->depth > SB_MAX_DEPTH || e->parent_id < 0)
		return;
	up = &k->kp[e->depth - 1];
	if ((k->known >> (e->depth - 1) & 1) && up->kid == e->parent_id && !up->arrived &&
	    up->id != l->id)
		up->child_adj -= span((int64_t)e->start, (int64_t)e->end);
}

/* A child that lasted ns, off CPU for off, is charged to its parent if an open fast call. */
static bool charge_fast(struct thread *th, const struct link *up, uint64_t ns, uint64_t off)
{
	struct frame *f;

	if (up->fast < 0 || (uint32_t)up->fast >= th->depth)
		return false;
	f = &th->frames[up->fast];
	if (f->call_id != up->fast_id)
		return false;
	f->child_ns += ns;
	f->child_off += off;
	return true;
}

static int place_kernel(struct sb_fast_nest *n, struct thread *th, const struct sb_call_event *e)
{
	struct kstate *k = th->k;
	struct sb_call_event out = *e;
	uint32_t d = e->depth;
	struct kparent *kp = d < SB_MAX_DEPTH ? &k->kp[d] : NULL;
	struct link l;

	n->queued--;
	if (kp && (k->known >> d & 1) && kp->kid == e->call_id && !kp->arrived) {
		/* Its begin or its children placed it already; fast calls begun in it are children. */
		l = kp->parent;
		out.call_id = kp->id;
		out.path_hash = kp->path;
		out.child_ns += kp->child_adj;
	} else {
		kernel_link(n, th, e, &l);
		out.call_id = n->next_id++;
		out.path_hash = path_under(&l, e->name_hash);
		if (kp) {
			kp->kid = e->call_id;
			kp->id = out.call_id;
			kp->path = out.path_hash;
			kp->depth = l.id >= 0 ? l.depth + 1 : 0;
			kp->parent = l;
			k->known |= 1ULL << d;
		}
	}
	if (kp) {
		kp->kpath = e->path_hash;
		kp->start = (int64_t)e->start;
		kp->end = (int64_t)e->end;
		kp->arrived = true;
		kp->child_adj = 0;
	}
	/* It ended, and with it any deeper call whose end was lost. */
	if (k->open > d)
		k->open = d;
	uncount_from_kernel_parent(k, e, &l);
	out.depth = l.id >= 0 ? l.depth + 1 : 0;
	out.parent_id = l.id;
	out.parent_path = l.id >= 0 ? l.path : 0;
	charge_fast(th, &l, e->end - e->start, e->offcpu_ns);
	n->st.kernel_calls++;
	return emit_call(n, &out);
}

/* Place the queued kernel calls that began before t, in start order. */
/*
 * Kernel call b began: it takes its id and place now, under the innermost
 * call open at its start, and the fast calls begun in it until it ends hang
 * under it. One begun at a depth whose calls are still open means their ends
 * were lost: they are closed.
 */
static void open_kernel(struct sb_fast_nest *n, struct thread *th, const struct sb_kbegin_event *b)
{
	struct kstate *k = th->k;
	uint32_t d = b->depth;
	struct kparent *kp = &k->kp[d];
	bool parent_known = d > 0 && (k->known >> (d - 1) & 1) && k->kp[d - 1].kid == b->parent_id;
	struct link l;

	n->queued--;
	if (k->open > d)
		k->open = d;
	if (d > 0 && !parent_known)
		n->st.kernel_orphans++;
	inner_link(th, (int64_t)b->start, parent_known ? (int32_t)d - 1 : -1, &l);
	kp->kid = b->call_id;
	kp->kpath = ((parent_known ? k->kp[d - 1].kpath : SB_PATH_SEED) ^ b->name_hash) * FNV_PRIME;
	kp->start = (int64_t)b->start;
	kp->end = INT64_MAX;
	kp->id = n->next_id++;
	kp->path = path_under(&l, b->name_hash);
	kp->depth = l.id >= 0 ? l.depth + 1 : 0;
	kp->arrived = false;
	kp->child_adj = 0;
	kp->parent = l;
	k->known |= 1ULL << d;
	k->open = d + 1;
	n->st.kernel_begins++;
}

/* Whether the next kernel event of the thread is a begin: ends come first at one time. */
static bool begin_is_next(const struct kstate *k)
{
	if (k->bhead == k->blen)
		return false;
	return k->head == k->len || (int64_t)k->b[k->bhead].start < (int64_t)k->q[k->head].end;
}

static bool kernel_waiting(const struct thread *th)
{
	return th->k && (th->k->head < th->k->len || th->k->bhead < th->k->blen);
}

/* The time of the thread's next kernel event (kernel_waiting). */
static int64_t next_time(const struct kstate *k)
{
	return begin_is_next(k) ? (int64_t)k->b[k->bhead].start : (int64_t)k->q[k->head].end;
}

/* The thread's next kernel event (kernel_waiting): a begin or an end, whichever came first. */
static int place_next(struct sb_fast_nest *n, struct thread *th)
{
	struct kstate *k = th->k;

	if (begin_is_next(k)) {
		open_kernel(n, th, &k->b[k->bhead++]);
		return 0;
	}
	return place_kernel(n, th, &k->q[k->head++]);
}

/* The thread's kernel events before t (all of them at INT64_MAX), in time order. */
static int place_due(struct sb_fast_nest *n, struct thread *th, int64_t t)
{
	struct kstate *k = th->k;
	int ret = 0, err;

	while (kernel_waiting(th) && (t == INT64_MAX || next_time(k) < t)) {
		err = place_next(n, th);
		if (err && !ret)
			ret = err;
	}
	if (k->head == k->len)
		k->head = k->len = 0;
	if (k->bhead == k->blen)
		k->bhead = k->blen = 0;
	return ret;
}

/* The thread of a record at t, its kernel calls before t placed; NULL: dropped (counted), *err. */
static inline struct thread *record_thread(struct sb_fast_nest *n, uint32_t tid, int64_t t,
					   int *err)
{
	struct thread *th = thread_get(n, tid, err);

	if (!th)
		return NULL;
	if (th->seen && t < th->last_t) {
		n->st.bad_time++;
		return NULL;
	}
	th->seen = true;
	th->last_t = t;
	if (kernel_waiting(th))
		*err = place_due(n, th, t);
	return th;
}

int sb_fast_nest_begin(struct sb_fast_nest *n, uint32_t tid, int64_t t, uint64_t name_hash,
		       uint64_t site)
{
	struct frame *f;
	struct thread *th;
	uint32_t d;
	int err;

	th = record_thread(n, tid, t, &err);
	if (!th)
		return err;
	d = th->depth;
	if (d >= SB_MAX_DEPTH || th->overflow) {
		th->overflow++;
		n->st.depth_overflow++;
		return err;
	}
	f = &th->frames[d];
	inner_link(th, t, th->k && th->k->open ? (int32_t)th->k->open - 1 : -1, &f->up);
	f->name_hash = name_hash;
	f->path_hash = path_under(&f->up, name_hash);
	f->depth = f->up.id >= 0 ? f->up.depth + 1 : 0;
	f->site = site;
	f->start = t;
	f->call_id = n->next_id++;
	f->child_ns = 0;
	f->child_off = 0;
	f->off_start = off_clock(th, t);
	th->depth = d + 1;
	n->st.open_now++;
	return err;
}

/* The parent of a call that lasted ns learns it: a fast call still open, or a kernel call. */
static void charge_parent(struct thread *th, const struct link *up, uint64_t ns, uint64_t off)
{
	struct kstate *k = th->k;

	if (charge_fast(th, up, ns, off))
		return;
	if (up->kern >= 0 && k && (uint32_t)up->kern < k->open && k->kp[up->kern].id == up->id)
		k->kp[up->kern].child_adj += ns;
}

/*
 * A fast call's off-CPU time is what the thread's intervals give within it,
 * and never less than its children's: a kernel child (OpenMP, MPI) counts
 * its own in the kernel, which goes on when an interval is lost (the ring
 * half full) or the kernel learnt of the process's memory after the call
 * began (-p of a job whose memory an earlier recording made).
 */
static uint64_t frame_offcpu(struct sb_fast_nest *n, struct thread *th, const struct frame *f,
			     int64_t t)
{
	uint64_t off = off_clock(th, t) - f->off_start;

	if (off >= f->child_off)
		return off;
	n->st.offcpu_from_children++;
	return f->child_off;
}

/* Close frame i at t: its call is sent, its time passes to its parent, frames above are dropped. */
static int pop_frame(struct sb_fast_nest *n, struct thread *th, uint32_t i, int64_t t)
{
	struct frame *f = &th->frames[i];
	struct sb_call_event e = {
		.type = SB_EV_CALL,
		.tgid = n->tgid,
		.tid = th->tid,
		.depth = f->depth,
		.site = f->site,
		.start = (uint64_t)f->start,
		.end = (uint64_t)t,
		.call_id = f->call_id,
		.parent_id = f->up.id,
		.child_ns = f->child_ns,
		.offcpu_ns = frame_offcpu(n, th, f, t),
		.path_hash = f->path_hash,
		.parent_path = f->up.id >= 0 ? f->up.path : 0,
		.name_hash = f->name_hash,
	};

	/* Frames above the match lost their end (a jump out of a region): drop them. */
	n->st.open_dropped += th->depth - i - 1;
	n->st.open_now -= th->depth - i;
	th->depth = i;
	charge_parent(th, &f->up, span(f->start, t), e.offcpu_ns);
	return emit_call(n, &e);
}

int sb_fast_nest_end(struct sb_fast_nest *n, uint32_t tid, int64_t t, uint64_t name_hash,
		     uint64_t site)
{
	struct sb_unmatched_event u;
	struct thread *th;
	int i, err, ret;

	uint64_t full = n->st.threads_full;

	th = record_thread(n, tid, t, &err);
	if (!th) {
		/* No room for the thread: its call was counted at its begin, not again here. */
		n->st.threads_full = full;
		return err;
	}
	if (th->overflow) {
		th->overflow--;
		return err;
	}
	for (i = (int)th->depth - 1; i >= 0; i--)
		if (th->frames[i].name_hash == name_hash)
			break;
	if (i >= 0) {
		ret = pop_frame(n, th, (uint32_t)i, t);
		return err ? err : ret;
	}
	n->st.unmatched_ends++;
	memset(&u, 0, sizeof(u));
	u.type = SB_EV_UNMATCHED;
	u.tgid = n->tgid;
	u.tid = tid;
	u.site = site;
	u.name_hash = name_hash;
	ret = n->emit(n->ctx, &u, sizeof(u));
	return err ? err : ret;
}

/* Room for one more entry of size in a waiting list: compacted or grown. */
static int list_room(void **list, uint32_t *head, uint32_t *len, uint32_t *cap, size_t size)
{
	uint32_t more;
	void *grown;

	if (*len < *cap)
		return 0;
	if (*head) {
		memmove(*list, (char *)*list + *head * size, (*len - *head) * size);
		*len -= *head;
		*head = 0;
		return 0;
	}
	more = *cap ? *cap * 2 : MIN_RING;
	grown = realloc(*list, more * size);
	if (!grown)
		return -ENOMEM;
	*list = grown;
	*cap = more;
	return 0;
}

/* The thread's kernel state, made at its first kernel event; room for one more (counted). */
static struct kstate *kernel_room(struct sb_fast_nest *n, struct thread *th, bool begin, int *err)
{
	struct kstate *k = th->k;

	*err = 0;
	if (!k) {
		k = th->k = calloc(1, sizeof(*k));
		if (!k) {
			*err = -ENOMEM;
			return NULL;
		}
	}
	if (n->queued >= SB_FAST_NEST_MAX_QUEUED && kernel_waiting(th)) {
		n->st.kernel_early++;
		*err = place_next(n, th);
	}
	if (begin ? list_room((void **)&k->b, &k->bhead, &k->blen, &k->bcap, sizeof(*k->b)) :
		    list_room((void **)&k->q, &k->head, &k->len, &k->cap, sizeof(*k->q))) {
		*err = -ENOMEM;
		return NULL;
	}
	return k;
}

int sb_fast_nest_kernel_call(struct sb_fast_nest *n, const struct sb_call_event *e)
{
	struct thread *th;
	struct kstate *k;
	uint32_t i;
	int err;

	if (e->tgid != n->tgid)
		return -EINVAL;
	if (e->end < e->start) {
		n->st.bad_time++;
		return 0;
	}
	th = thread_get(n, e->tid, &err);
	if (!th)
		return err;
	k = kernel_room(n, th, false, &err);
	if (!k)
		return err;
	/* By end; at one end, children (deeper) first. */
	for (i = k->len; i > k->head; i--) {
		if (k->q[i - 1].end < e->end ||
		    (k->q[i - 1].end == e->end && k->q[i - 1].depth >= e->depth))
			break;
		k->q[i] = k->q[i - 1];
	}
	k->q[i] = *e;
	k->len++;
	n->queued++;
	return err;
}

int sb_fast_nest_kernel_begin(struct sb_fast_nest *n, const struct sb_kbegin_event *b)
{
	uint64_t full = n->st.threads_full;
	struct thread *th;
	struct kstate *k;
	uint32_t i;
	int err;

	if (b->tgid != n->tgid)
		return -EINVAL;
	if (b->depth >= SB_MAX_DEPTH) {
		n->st.bad_time++;
		return 0;
	}
	th = thread_get(n, b->tid, &err);
	if (!th) {
		/* No room for the thread: its call is counted when its record comes. */
		n->st.threads_full = full;
		return err;
	}
	k = kernel_room(n, th, true, &err);
	if (!k)
		return err;
	/* Its thread's records went past its start: calls begun since are not in it. */
	if (th->seen && (int64_t)b->start < th->last_t)
		n->st.kernel_begins_late++;
	for (i = k->blen; i > k->bhead && (int64_t)k->b[i - 1].start > (int64_t)b->start; i--)
		k->b[i] = k->b[i - 1];
	k->b[i] = *b;
	k->blen++;
	n->queued++;
	return err;
}

int sb_fast_nest_settle(struct sb_fast_nest *n, int64_t before)
{
	struct thread *th;
	uint32_t i;
	int ret = 0, err;

	for (i = 0; i < n->cap; i++) {
		th = n->table[i];
		if (!th || !kernel_waiting(th))
			continue;
		err = place_due(n, th, before);
		if (err && !ret)
			ret = err;
	}
	return ret;
}

int sb_fast_nest_offcpu(struct sb_fast_nest *n, uint32_t tid, int64_t start, int64_t end)
{
	uint64_t full = n->st.threads_full;
	struct thread *th;
	struct gap *g, *ring;
	uint32_t cap, i;
	int err;

	th = thread_get(n, tid, &err);
	if (!th) {
		/* An interval of a thread without room is no call: nothing to count. */
		n->st.threads_full = full;
		return err;
	}
	if (end < start) {
		n->st.bad_time++;
		return 0;
	}
	/* Time the records passed already stays on-CPU: the calls that began there were told so. */
	if (th->seen && start < th->last_t)
		start = th->last_t;
	if (th->gap_len) {
		g = &th->gaps[(th->gap_head + th->gap_len - 1) & (th->gap_cap - 1)];
		if (start < g->end)
			start = g->end;
		if (end > start && th->gap_len == th->gap_cap &&
		    th->gap_cap >= SB_FAST_NEST_MAX_GAPS) {
			g->ns += span(start, end);
			g->end = end;
			n->st.offcpu_merged++;
			return 0;
		}
	}
	if (end <= start)
		return 0;
	if (th->gap_len == th->gap_cap) {
		cap = th->gap_cap ? th->gap_cap * 2 : MIN_RING;
		ring = malloc(cap * sizeof(*ring));
		if (!ring)
			return -ENOMEM;
		for (i = 0; i < th->gap_len; i++)
			ring[i] = th->gaps[(th->gap_head + i) & (th->gap_cap - 1)];
		free(th->gaps);
		th->gaps = ring;
		th->gap_cap = cap;
		th->gap_head = 0;
	}
	g = &th->gaps[(th->gap_head + th->gap_len) & (th->gap_cap - 1)];
	g->start = start;
	g->end = end;
	g->ns = span(start, end);
	th->gap_len++;
	return 0;
}

static void thread_free(struct thread *th)
{
	if (th->k) {
		free(th->k->q);
		free(th->k->b);
	}
	free(th->k);
	free(th->gaps);
	free(th);
}

void sb_fast_nest_thread_exit(struct sb_fast_nest *n, uint32_t tid)
{
	struct thread *th = table_find(n, tid);

	if (!th)
		return;
	/* Its kernel calls are complete: they keep their places among the calls still open. */
	if (kernel_waiting(th))
		place_due(n, th, INT64_MAX);
	n->st.open_dropped += th->depth;
	n->st.open_now -= th->depth;
	if (n->last == th)
		n->last = NULL;
	table_del(n, th);
	thread_free(th);
}

struct sb_fast_nest *sb_fast_nest_new(uint32_t tgid, sb_fast_emit_fn emit, void *ctx)
{
	struct sb_fast_nest *n = calloc(1, sizeof(*n));

	if (!n)
		return NULL;
	n->tgid = tgid;
	n->emit = emit;
	n->ctx = ctx;
	return n;
}

void sb_fast_nest_set_next_id(struct sb_fast_nest *n, int64_t id)
{
	if (id > n->next_id)
		n->next_id = id;
}

void sb_fast_nest_free(struct sb_fast_nest *n)
{
	uint32_t i;

	if (!n)
		return;
	for (i = 0; i < n->cap; i++)
		if (n->table[i])
			thread_free(n->table[i]);
	free(n->table);
	free(n);
}

void sb_fast_nest_stats(const struct sb_fast_nest *n, struct sb_fast_nest_stats *s)
{
	*s = n->st;
}
