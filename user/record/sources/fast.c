/*
 * The fast path (docs/DESIGN.md): markers built with the current header
 * write begin/end records to per-thread rings in memory each process shares
 * with the recorder. This source adopts that memory when a process names it
 * (SB_EV_FAST_READY) or, under -p, finds it already made; a drainer thread
 * copies records out; each turn of the recording loop this source takes them
 * and reads the kernel's records (site names, off-CPU intervals, kernel-path
 * calls of the same threads), both through record/transport/, then nests the
 * copied records into calls exactly as the kernel programs would have, the
 * kernel calls placed among them once both transports' watermarks passed
 * them, and hands them to the collector.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "record/fast/budget.h"
#include "record/fast/drainer.h"
#include "record/fast/nest.h"
#include "record/fast/proc.h"
#include "record/fast/site_read.h"
#include "record/recorder.h"
#include "record/sources/sources.h"
#include "record/transport/fast_rings.h"
#include "record/transport/kernel_ring.h"
#include "record/transport/merge.h"
#include "region.skel.h"
#include "util/meminfo.h"

/*
 * Nesting a backlog (a flood the queue absorbed) goes on for this long a
 * turn: the recording loop between turns reads the kernel's ring buffer,
 * answers signals and -d, and keeps the heartbeat processes are stopped by.
 */
#define TURN_NS 20000000LL
/* The last read of the kernel's ring gives up at a record held this long (the recorder's too). */
#define STOP_HELD_NS 1000000000LL
/*
 * Taken records are nested once the kernel's ring was read up to where it
 * was written at the take (their sites' names are in it), over as many turns
 * as that takes (a fork storm's thousands of adoptions take milliseconds
 * each), but at most this long; and after HELD_NS when a record reserved and
 * not yet submitted holds the reader (a preempted vCPU; recorder.c,
 * RING_STALL_NS): the queue would fill meanwhile.
 */
#define NAMES_WAIT_NS 2000000000LL
#define HELD_NS 50000000LL
/*
 * A turn makes a pass itself when the drainer made none for this long: the
 * drainer sleeps while no ring fills, and the rings' watermark, which kernel
 * calls and thread events of fast-path threads wait for, moves with passes.
 */
#define CATCH_UP_NS 50000000LL
/*
 * While the kernel's ring brings off-CPU intervals of fast-path threads at
 * FLOW_RATE a second or more, and for FLOW_NS after (env->flowing), the loop
 * looks again within its 20 ms, as before it slept, and takes every
 * CATCH_UP_NS at most. A slow writer (omp_sleep: a few hundred records a
 * second, a thread blocking every few ms) never fills half a ring, so
 * neither drainer thread wakes; taken once a second, its records came after
 * a second of intervals, past the 256 a thread may have ahead of its records
 * (SB_FAST_NEST_MAX_GAPS), and a merged interval is charged from its start:
 * a call got all of its wall time off-CPU, the next less than its OpenMP
 * children (test_omp). At FLOW_RATE a second's sleep brings a quarter of
 * that. A thread that seldom blocks (a compute loop) lets the loop sleep.
 */
#define FLOW_RATE (SB_FAST_NEST_MAX_GAPS / 4)
#define FLOW_NS 250000000LL

struct fast_state {
	struct fast_proc *procs;
	struct sb_fast_drainer drainer;
	bool drainer_ready;
	struct sb_fast_rings rings;		/* its records; what was taken is nested a turn at a time */
	/* The rings, then the kernel's ring; holds thread and process events of fast-path processes. */
	struct sb_merge merge;
	int64_t taken_ns;			/* when the latest take began */
	uint64_t arrived;			/* their off-CPU intervals read since the take before */
	int64_t took_ns;			/* the take before */
	int64_t flow_ns;			/* intervals came at FLOW_RATE, or a memory was adopted */
	bool names_read;			/* the kernel's ring read past it (or given up) */
	struct sb_fast_mem_stats closed;	/* of memories already closed, all processes */
	uint64_t refused;			/* memories that could not be adopted */
	uint64_t extra;				/* second memories in one image (dlopen'd copies) */
	uint64_t invalid;			/* records not used: lapped, unnamed, back in time */
	uint64_t guessed;			/* kernel calls nested by their start alone */
	bool stopped;				/* the final turn is over: no turn places what comes */
	struct sb_source_env *env;
};

static int64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static struct fast_proc *proc_of(struct fast_state *f, uint32_t tgid)
{
	struct fast_proc *p;

	for (p = f->procs; p; p = p->next)
		if (p->tgid == tgid)
			return p;
	return NULL;
}

static int emit(void *ctx, const void *event, size_t size)
{
	struct fast_state *f = ctx;
	const struct sb_call_event *e = event;

	/* Most are calls, made by the nester: handed over as they are, not copied. */
	if (size == sizeof(*e) && e->type == SB_EV_CALL)
		return sb_collector_call(f->env->coll, e);
	return sb_collector_record(f->env->coll, event, size);
}

/* Call ids go on from the kernel's for this process: its calls so far keep theirs. */
static uint64_t kernel_next_id(struct sb_source_env *env, uint32_t tgid)
{
	struct sb_proc proc;

	if (bpf_map_lookup_elem(bpf_map__fd(env->skel->maps.procs), &tgid, &proc))
		return 0;
	return proc.next_call_id;
}

static struct fast_proc *new_proc(struct fast_state *f, uint32_t tgid)
{
	struct fast_proc *p = calloc(1, sizeof(*p));

	if (!p)
		return NULL;
	p->tgid = tgid;
	p->nest = sb_fast_nest_new(tgid, emit, f);
	if (!p->nest) {
		free(p);
		return NULL;
	}
	sb_fast_nest_set_next_id(p->nest, kernel_next_id(f->env, tgid));
	p->next = f->procs;
	f->procs = p;
	return p;
}

static void say_refused(struct fast_state *f, uint32_t tgid, const char *why)
{
	if (!f->refused++ || f->env->opts->verbose)
		record_say("process %u: its fast-path memory cannot be read (%s); its markers' "
			   "records are lost (record --mode=kernel avoids this)", tgid, why);
}

/* Before the recording begins (-p), no record already in an earlier memory is ours. */
static enum sb_fast_mem_from adopt_from(const struct fast_state *f, bool fresh)
{
	if (fresh)
		return SB_FAST_MEM_NEW;
	return f->env->start_ns == INT64_MAX ? SB_FAST_MEM_STALE : SB_FAST_MEM_EARLIER;
}

/*
 * A memory no fast_ready announced in this recording: the kernel takes it as
 * fast_ready's (off-CPU intervals, kernel calls' begins, samples' marker
 * paths) at the process's next switch or call (bpf/region.bpf.c, proc_fast).
 */
static void tell_kernel(struct fast_state *f, uint32_t tgid, uint64_t hdr_addr)
{
	if (bpf_map_update_elem(bpf_map__fd(f->env->skel->maps.fast_adopted), &tgid, &hdr_addr,
				BPF_ANY)) {
		record_say("process %u: the kernel cannot be told of its fast-path memory (%s); its "
			   "markers' off-CPU time and its samples' marker paths are lost", tgid,
			   strerror(errno));
		return;
	}
	f->env->skel->bss->fast_adopting = true;
}

/* Adopt the memory fd names in process tgid; fresh: it was made just now. */
static int adopt(struct fast_state *f, uint32_t tgid, int fd, uint64_t hdr_addr, bool fresh)
{
	struct sb_error err = { { 0 } };
	struct fast_image *im;
	struct fast_proc *p;
	int ret;

	p = proc_of(f, tgid);
	/* Named again (a recording that found it at attach): the same memory. */
	if (p && p->images && !p->images->closing && hdr_addr && p->images->hdr_addr == hdr_addr)
		return 0;
	if (p && p->images && !p->images->closing) {
		if (f->env->opts->verbose)
			record_say("process %u: a second fast-path memory (fd %d) is not read", tgid, fd);
		f->extra++;
		return 0;
	}
	if (!p && !(p = new_proc(f, tgid)))
		return -ENOMEM;
	im = calloc(1, sizeof(*im));
	if (!im)
		return -ENOMEM;
	ret = sb_fast_mem_adopt(&im->mem, (pid_t)tgid, fd, adopt_from(f, fresh), &err);
	if (!ret)
		ret = sb_fast_clock_init(&im->clock, sb_fast_mem_clock(im->mem), &err);
	if (ret) {
		sb_fast_mem_close(im->mem);
		free(im);
		say_refused(f, tgid, err.msg);
		return 0;
	}
	sb_fast_clock_sample(&im->clock);
	im->proc = p;
	im->hdr_addr = hdr_addr;
	sb_fast_sites_init(&im->sites);
	im->next = p->images;
	p->images = im;
	if (!fresh)
		tell_kernel(f, tgid, hdr_addr);
	/* Without them the drainer looks every 200 us, as before fast_wake. */
	if (sb_fast_drainer_wakes(&f->drainer, bpf_map__fd(f->env->skel->maps.fast_wake_drainer),
				  bpf_map__fd(f->env->skel->maps.fast_wake_standby),
				  &f->env->fast_unwaking) && f->env->opts->verbose)
		record_say("the fast path's drainer cannot sleep until woken: it looks often");
	ret = sb_fast_drainer_add(&f->drainer, im->mem, im);
	/* After it: a pass begun from now on reads the new rings. */
	sb_fast_rings_adopted(&f->rings, mono_ns());
	f->flow_ns = mono_ns();
	/* Said once the drainer runs: a test that stalls it looks for its thread then. */
	if (!ret && f->env->opts->verbose)
		record_say("process %u: fast-path memory taken (fd %d, %s)", tgid, fd,
			   fresh ? "new" : "made for an earlier recording");
	return ret;
}

/*
 * A thread's first record in this image. After an exec its calls open in the
 * image before are dropped, as the kernel drops a thread's frames at exec.
 * The sampler reads a thread's open regions from its slot: tell it where.
 */
static void first_in_slot(struct fast_state *f, struct fast_image *im, uint32_t slot, uint32_t tid)
{
	uint64_t at = im->hdr_addr + SCOPE_BPF_IMPL_FAST_SLOTS_AT +
		      (uint64_t)slot * sizeof(struct scope_bpf_impl_fast_slot);

	if (im->next)
		sb_fast_nest_thread_exit(im->proc->nest, tid);
	im->slot_tid[slot] = tid;
	if (im->hdr_addr)
		bpf_map_update_elem(bpf_map__fd(f->env->skel->maps.fast_slots), &tid, &at, BPF_ANY);
}

/* Name site as the kernel would from the descriptor s read in the process. */
static int name_read(struct fast_state *f, struct fast_image *im, uint64_t site,
		     struct sb_fast_site *s)
{
	uint64_t h = sb_name_hash(s->name);
	int ret = sb_collector_add_region(f->env->coll, h, s->name, s->file, s->line, s->tags);

	return ret ?: sb_fast_sites_name(&im->sites, site, h, 0);
}

/*
 * A site no announcement named, at a record of time t. While the process
 * lives its descriptor is read there at once, named as the kernel would: the
 * kernel's announcement may never have been sent (a crowd of 8 300 threads
 * filled the ring first, and the process ended while the recorder read the
 * ring to its end: every call lost, under emulation). Else the kernel
 * submitted the announcement before the record was written, but a turn reads
 * its ring for a bounded time, and behind a backlog it may still wait there:
 * the ring is read to its end (a child that exited before its announcement
 * was read, fork_storm under emulation: 2 396 calls counted invalid). An
 * unreadable or invalid one is remembered as such (hash 0): its calls count
 * as invalid sites, once each. 0 when the site is now known either way.
 */
static int name_late(struct fast_state *f, struct fast_image *im, uint64_t site, int64_t t)
{
	struct sb_fast_site s;
	uint64_t h = 0;

	/* A process that makes up sites cannot grow the table (or the syscalls) without end. */
	if (im->closed || im->named_late >= SB_MAX_SITES)
		return -ESRCH;
	im->named_late++;
	if (!im->closing && !sb_fast_site_read((pid_t)im->proc->tgid, site, &s))
		return name_read(f, im, site, &s);
	if (f->env->ring && !f->stopped) {
		sb_ring_read_all(f->env->ring, STOP_HELD_NS);
		if (sb_fast_sites_at(&im->sites, site, t, &h))
			return 0;
	}
	/* A live process's was read above; a closing one's may still be readable now. */
	if (im->closing && !sb_fast_site_read((pid_t)im->proc->tgid, site, &s))
		return name_read(f, im, site, &s);
	return sb_fast_sites_name(&im->sites, site, 0, 0);
}

static int nest_one(struct fast_state *f, struct fast_image *im, const struct sb_fast_run *run,
		    const struct scope_bpf_impl_fast_rec *r)
{
	uint64_t site = r->site & ~SCOPE_BPF_IMPL_FAST_END, h;
	int64_t t = sb_fast_clock_ns(&im->clock, r->time);
	bool known;

	/*
	 * Written between attach and the start (an earlier recording's too), or
	 * after the end, when the kernel programs record nothing either: a
	 * step's MPI calls would be missing from it. Its site is not looked up.
	 */
	if (t < f->env->start_ns || t > f->env->end_ns)
		return 0;
	/* The name the site had when the record was written: its address may be reused since. */
	known = sb_fast_sites_at(&im->sites, site, t, &h);
	if (!known && !name_late(f, im, site, t))
		known = sb_fast_sites_at(&im->sites, site, t, &h);
	if (!known) {
		im->proc->unknown_sites++;
		return 0;
	}
	/* An invalid descriptor: its calls are counted once each, at their begin, as the kernel's. */
	if (!h) {
		im->proc->bad_site_calls += !(r->site & SCOPE_BPF_IMPL_FAST_END);
		return 0;
	}
	if (r->site & SCOPE_BPF_IMPL_FAST_END)
		return sb_fast_nest_end(im->proc->nest, run->tid, t, h, site);
	return sb_fast_nest_begin(im->proc->nest, run->tid, t, h, site);
}

static int nest_run(struct fast_state *f, const struct sb_fast_chunk *c, const struct sb_fast_run *run)
{
	struct fast_image *im = run->proc;
	uint32_t i;
	int ret = 0;

	if (run->slot < SCOPE_BPF_IMPL_FAST_SLOTS && im->slot_tid[run->slot] != run->tid)
		first_in_slot(f, im, run->slot, run->tid);
	for (i = run->start; i < run->start + run->n && !ret; i++)
		ret = nest_one(f, im, run, &c->recs[i]);
	return ret;
}

/*
 * Each chunk goes back to the drainer as soon as it is nested, not after the
 * whole backlog: during a burst the drainer then reuses warm memory rather
 * than fault in new memory (docs/DESIGN.md, "The fast path"). Stops once
 * past until, the rest left for the next turn.
 */
static int nest_chunks(struct fast_state *f, int64_t until)
{
	struct sb_fast_chunk *c;
	uint32_t i;
	int ret = 0;

	while ((c = sb_fast_rings_next(&f->rings)) && !ret) {
		for (i = 0; i < c->n_runs && !ret; i++)
			ret = nest_run(f, c, &c->runs[i]);
		sb_fast_rings_consumed(&f->rings);
		if (mono_ns() >= until)
			break;
	}
	/* After an error, the chunks not nested go back too. */
	if (ret)
		sb_fast_rings_drop(&f->rings);
	return ret;
}

static void add_stats(struct sb_fast_mem_stats *sum, const struct sb_fast_mem_stats *s)
{
	sum->records += s->records;
	sum->lost += s->lost;
	sum->dropped += s->dropped;
	sum->unslotted += s->unslotted;
	sum->unread += s->unread;
	sum->threads += s->threads;
}

static void close_image(struct fast_state *f, struct fast_image *im)
{
	struct sb_fast_mem_stats s;

	if (im->closed)
		return;
	sb_fast_drainer_remove(&f->drainer, im->mem);
	sb_fast_mem_stats(im->mem, &s);
	add_stats(&f->closed, &s);
	add_stats(&im->proc->closed, &s);
	im->proc->capped |= s.capped;
	sb_fast_mem_close(im->mem);
	im->mem = NULL;
	im->closed = true;
}

static void forget_thread(struct fast_state *f, struct fast_proc *p, uint32_t tid)
{
	struct fast_image *im;

	sb_fast_nest_thread_exit(p->nest, tid);
	for (im = p->images; im; im = im->next)
		if (!im->closed)
			sb_fast_mem_thread_gone(im->mem, tid);
	bpf_map_delete_elem(bpf_map__fd(f->env->skel->maps.fast_slots), &tid);
}

/*
 * A kernel record held back until every record of the fast path before it
 * was nested (sb_merge_release): a thread's exit, a process's exec or exit,
 * which the fast path's records of that thread or process all precede.
 */
static int apply(void *ctx, const void *rec, size_t size)
{
	const struct sb_thread_event *te = rec;
	const struct sb_proc_event *pe = rec;
	struct fast_state *f = ctx;
	struct fast_proc *p;
	struct fast_image *im;

	switch (te->type) {
	case SB_EV_THREAD_EXIT:
		p = proc_of(f, te->tgid);
		if (p)
			forget_thread(f, p, te->tid);
		return sb_collector_record(f->env->coll, rec, size);
	case SB_EV_SYNC:
	case SB_EV_PROC_EXIT:
		/* The images before an exec, or all at exit: their writers are gone. */
		p = proc_of(f, pe->tgid);
		if (!p)
			return 0;
		for (im = p->images; im; im = im->next)
			if (im->closing)
				close_image(f, im);
		return 0;
	}
	return 0;
}

/*
 * Held until the fast path's watermark passes its time: the thread, or every
 * thread of the process, finished its records before the kernel wrote this.
 */
static int hold(struct fast_state *f, int64_t time, const void *data, size_t size)
{
	return sb_merge_hold(&f->merge, time, data, size);
}

/* The kernel calls of fast-path threads, and the held events, before before: placed, applied. */
static int release_before(struct fast_state *f, int64_t before)
{
	struct fast_proc *p;
	int ret = 0;

	for (p = f->procs; p && !ret; p = p->next)
		ret = sb_fast_nest_settle(p->nest, before);
	return ret ?: sb_merge_release(&f->merge, before, apply, f);
}

static void mark_closing(struct fast_proc *p)
{
	struct fast_image *im;

	for (im = p->images; im; im = im->next)
		im->closing = true;
}

static int on_site(struct fast_state *f, const struct sb_fast_site_event *e)
{
	struct fast_proc *p = proc_of(f, e->tgid);

	/* A name hash of 0 marks a descriptor the kernel found invalid. */
	if (!p || !p->images)
		return 0;
	return sb_fast_sites_name(&p->images->sites, e->site, e->name_hash, (int64_t)e->time);
}

/* The records of the kernel that concern fast-path processes: 0 when kept here. */
static int intercept(struct fast_state *f, struct sb_source_env *env, const void *data,
		     size_t size)
{
	const struct sb_fast_ready_event *ready = data;
	const struct sb_offcpu_event *off = data;
	const struct sb_proc_event *pe = data;
	const struct sb_call_event *call = data;
	const struct sb_site_pending_event *pend = data;
	struct fast_proc *p;
	uint32_t type;
	int ret;

	memcpy(&type, data, sizeof(type));
	switch (type) {
	case SB_EV_FAST_READY:
		if (size < sizeof(*ready))
			return 0;
		ret = adopt(f, ready->tgid, ready->fd, ready->hdr, true);
		/* The process waited (stopped) for this, whatever came of it. */
		if (ready->stop_seq && env->resume)
			env->resume(env, (pid_t)ready->tgid, ready->stop_seq);
		return ret;
	case SB_EV_FAST_SITE:
		return size < sizeof(struct sb_fast_site_event) ? 0 : on_site(f, data);
	case SB_EV_SITE_PENDING:
		/* A fast-path site the recorder names (the regions source): its stand-in from now. */
		if (size >= sizeof(*pend) && (p = proc_of(f, pend->tgid)) && p->images &&
		    sb_fast_sites_name(&p->images->sites, pend->site, pend->name_hash,
				       (int64_t)pend->time))
			return -ENOMEM;
		return 1;
	case SB_EV_OFFCPU:
		p = size < sizeof(*off) ? NULL : proc_of(f, off->tgid);
		f->arrived += p != NULL;
		return p ? sb_fast_nest_offcpu(p->nest, off->tid, (int64_t)off->start,
					       (int64_t)off->end) : 0;
	case SB_EV_CALL:
		/* A kernel-path call of a fast-path process (MPI, an older header): nested by time. */
		p = size == sizeof(*call) ? proc_of(f, call->tgid) : NULL;
		return p ? sb_fast_nest_kernel_call(p->nest, call) : 1;
	case SB_EV_KBEGIN:
		/* Only fast-path processes send them; one whose memory is gone has no use for it. */
		p = size == sizeof(struct sb_kbegin_event) ?
			proc_of(f, ((const struct sb_kbegin_event *)data)->tgid) : NULL;
		return p ? sb_fast_nest_kernel_begin(p->nest, data) : 0;
	case SB_EV_THREAD_EXIT:
		p = size < sizeof(struct sb_thread_event) ? NULL :
			proc_of(f, ((const struct sb_thread_event *)data)->tgid);
		return p ? hold(f, (int64_t)((const struct sb_thread_event *)data)->time, data,
				size) : 1;
	case SB_EV_SYNC:
	case SB_EV_PROC_EXIT:
		p = size < sizeof(*pe) ? NULL : proc_of(f, pe->tgid);
		if (!p || (type == SB_EV_SYNC && pe->reason != SB_SYNC_EXEC))
			return 1;
		mark_closing(p);
		return hold(f, (int64_t)pe->time, data, size) ?: 1;
	}
	return 1;
}

/*
 * After the final turn only a record the kernel finished late comes (the
 * recorder's last read waits for it): no turn follows to place a kernel call
 * or apply a thread's exit that waits here, so they are at once.
 */
static int fast_intercept(void *state, struct sb_source_env *env, const void *data, size_t size)
{
	struct fast_state *f = state;
	int ret = intercept(f, env, data, size);
	uint32_t type;

	memcpy(&type, data, sizeof(type));
	if (!ret && f->stopped && (type == SB_EV_CALL || type == SB_EV_THREAD_EXIT))
		ret = release_before(f, INT64_MAX);
	return ret;
}

static void sample_clocks(struct fast_state *f)
{
	struct fast_image *im;
	struct fast_proc *p;

	for (p = f->procs; p; p = p->next)
		for (im = p->images; im; im = im->next)
			if (!im->closed)
				sb_fast_clock_sample(&im->clock);
}

/* The kernel's ring joins the merge once the recorder opened it, after the sources were configured. */
static int with_kernel_ring(struct fast_state *f)
{
	if (f->merge.n_backends > 1 || !f->env->ring)
		return 0;
	return sb_merge_add(&f->merge, &f->env->ring->transport);
}

/* Whether the kernel's records written before the take are read (see NAMES_WAIT_NS). */
static bool names_read(struct fast_state *f, bool final, int64_t now)
{
	struct sb_ring_reader *ring = f->env->ring;

	f->names_read = f->names_read || final || !ring || ring->watermark_ns >= f->taken_ns ||
			now - f->taken_ns >= NAMES_WAIT_NS ||
			sb_ring_held_ns(ring, mono_ns()) >= HELD_NS;
	return f->names_read;
}

/*
 * Deliver from both transports, the fast path's first (a pass first if the
 * drainer sleeps): whatever a copied record depends on (its site's name,
 * off-CPU intervals, kernel calls of its thread that ended before it) was
 * submitted to the kernel's ring before the record was written, so it is in
 * once the kernel's watermark passed the take; until then, each turn reads
 * the kernel's ring again. What was taken is nested over as many turns as it
 * needs, TURN_NS at a time (final: all of it). Then the kernel calls of
 * fast-path threads, and the held thread and process events, whose time the
 * least watermark passed are placed and applied (docs/DESIGN.md,
 * "Transports and their order").
 */
static int fast_turn(struct fast_state *f, bool final)
{
	int64_t now = mono_ns(), before;
	int ret = with_kernel_ring(f);

	if (!ret && !sb_fast_rings_next(&f->rings)) {
		sb_fast_drainer_catch_up(&f->drainer, CATCH_UP_NS);
		f->taken_ns = mono_ns();
		ret = sb_merge_deliver(&f->merge);
		f->names_read = !sb_fast_rings_next(&f->rings);
		if ((int64_t)f->arrived * 1000000000LL >= FLOW_RATE * (f->taken_ns - f->took_ns))
			f->flow_ns = f->taken_ns;
		f->env->flowing = f->taken_ns - f->flow_ns < FLOW_NS;
		f->arrived = 0;
		f->took_ns = f->taken_ns;
		sample_clocks(f);
	} else if (!ret && !f->names_read) {
		/* The rings keep what they delivered: this reads the kernel's ring alone. */
		ret = sb_merge_deliver(&f->merge);
	}
	/* Not yet: the loop turns again at once. */
	if (!ret && !names_read(f, final, now)) {
		f->env->busy = true;
		return 0;
	}
	ret = ret ?: nest_chunks(f, final ? INT64_MAX : now + TURN_NS);
	f->env->busy = sb_fast_rings_next(&f->rings) != NULL;
	before = final ? INT64_MAX : sb_merge_watermark(&f->merge);
	return ret ?: release_before(f, before);
}

static int fast_tick(void *state, struct sb_source_env *env)
{
	struct fast_state *f = state;

	if (!f->procs) {
		env->flowing = false;
		return 0;
	}
	return fast_turn(f, false);
}

/* -p: a process traced before may have made its memory already. */
static uint64_t mapped_at(pid_t pid)
{
	char path[64], line[512];
	unsigned long long start;
	uint64_t at = 0;
	FILE *m;

	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	m = fopen(path, "re");
	if (!m)
		return 0;
	while (!at && fgets(line, sizeof(line), m))
		if (strstr(line, "/memfd:scope-bpf-fast") && sscanf(line, "%llx-", &start) == 1)
			at = start;
	fclose(m);
	return at;
}

static int fast_process(void *state, struct sb_source_env *env, const struct sb_proc_change *ch,
			struct sb_error *err)
{
	struct fast_state *f = state;
	int fd;

	(void)err;
	if (ch->what != SB_PROC_START || !record_fast_wanted(env->opts) ||
	    !sb_kernel_fast_ok(env->kernel))
		return 0;
	if (sb_fast_mem_find(ch->pid, &fd))
		return 0;
	return adopt(f, (uint32_t)ch->pid, fd, mapped_at(ch->pid), false);
}

/* The queue's sizes (record/fast/budget.h) from --buffer and the memory this machine has. */
static void queue_sizes(const struct sb_source_env *env, struct sb_fast_budget *b)
{
	struct sb_meminfo m;

	sb_fast_budget(env->opts->buffer_bytes,
		       record_fast_wanted(env->opts) && sb_kernel_fast_ok(env->kernel),
		       sb_meminfo_read(&m) ? NULL : &m, b);
}

/* Before the programs load (a second or more), so the queue is warm when markers first write. */
static int fast_configure(void *state, struct sb_source_env *env)
{
	struct fast_state *f = state;
	struct sb_fast_budget q;
	int ret;

	f->env = env;
	if (f->drainer_ready)
		return 0;
	queue_sizes(env, &q);
	ret = sb_fast_drainer_init(&f->drainer, q.max_bytes, q.warm_bytes, q.reserve_bytes);
	if (ret)
		return ret;
	sb_fast_rings_init(&f->rings, &f->drainer.queue);
	sb_merge_init(&f->merge);
	/* The recording loop sleeps until the drainer hands records over, or longer. */
	f->drainer.notify_fd = env->wake_fd;
	f->drainer_ready = true;
	return sb_merge_add(&f->merge, &f->rings.transport);
}

/* Nest what was taken and what waits in the queue, a turn at a time. */
static int nest_queued(struct fast_state *f)
{
	int ret = 0;

	while (!ret && (sb_fast_rings_next(&f->rings) || !sb_fast_queue_empty(&f->drainer.queue)))
		ret = fast_turn(f, false);
	return ret;
}

/*
 * The records written before the end, however many the rings still hold
 * (a ring a thread, of hundreds of threads): a pass within the queue's
 * budget, nested, and again, until none is left or no pass makes progress
 * (no memory to copy into): those are counted as dropped (unread).
 */
static int drain_to_the_end(struct fast_state *f)
{
	uint64_t left, before;
	int ret = nest_queued(f);

	left = sb_fast_drainer_unread(&f->drainer, NULL, 0);
	while (!ret && left) {
		sb_fast_drainer_pass(&f->drainer);
		ret = nest_queued(f);
		before = left;
		left = sb_fast_drainer_unread(&f->drainer, NULL, 0);
		if (left >= before)
			break;
	}
	return ret;
}

/* Recording begins: what was dropped while it attached is not its. */
static void fast_begin(void *state, struct sb_source_env *env)
{
	struct fast_state *f = state;

	(void)env;
	if (f->drainer_ready)
		sb_fast_drainer_begin(&f->drainer);
}

/* Recording has ended: its records nested within the queue's budget, every held record applied. */
static void fast_stop(void *state, struct sb_source_env *env)
{
	struct fast_state *f = state;
	struct fast_image *im;
	struct fast_proc *p;

	if (!f->drainer_ready)
		return;
	sb_fast_drainer_end(&f->drainer);
	sb_fast_drainer_stop(&f->drainer);
	if (!f->procs)
		return;
	/*
	 * First all the kernel wrote before the end: a turn reads for 50 ms,
	 * and on a loaded machine the last calls and exits of thousands of
	 * threads stand behind that. Kept here after the final turn, they
	 * would never be placed.
	 */
	if (env->ring)
		sb_ring_read_all(env->ring, STOP_HELD_NS);
	env->error = drain_to_the_end(f);
	env->error = env->error ?: fast_turn(f, true);
	for (p = f->procs; p; p = p->next)
		for (im = p->images; im; im = im->next)
			close_image(f, im);
	f->stopped = true;
}

/*
 * After the live threads' open calls were counted: the fast path's too, and
 * its part of the counts the regions source writes (before any losses hook).
 */
static void fast_detach(void *state, struct sb_source_env *env)
{
	struct fast_state *f = state;
	struct sb_fast_mem_stats *t = &f->closed;
	struct sb_fast_nest_stats s;
	struct fast_proc *p;

	for (p = f->procs; p; p = p->next) {
		sb_fast_nest_stats(p->nest, &s);
		env->open_at_end += s.open_now + s.open_dropped;
		env->fast.overflow += s.depth_overflow;
		env->fast.unmatched += s.unmatched_ends;
		env->fast.threads_full += s.threads_full;
		env->fast.bad_sites += p->bad_site_calls;
		p->invalid = p->unknown_sites + s.bad_time + p->closed.lost;
		f->invalid += p->invalid;
		f->guessed += s.kernel_early + s.kernel_orphans + s.kernel_begins_late;
	}
	/* lost_events counts calls: a call on the fast path is two records. */
	env->fast.calls = (f->invalid + t->dropped + t->unread + 1) / 2;
}

enum by_process { PATH, DROPPED, INVALID };

static uint64_t loss_of(const struct fast_proc *p, enum by_process what)
{
	if (!p)
		return 0;
	return what == DROPPED ? p->closed.dropped + p->closed.unread : p->invalid;
}

/*
 * "PID:VALUE" for the processes of the profile, space-separated: the path
 * each took, or the fast-path records dropped or invalid of each that had any.
 * What a process counts itself is cut to what it could have written
 * (record/fast/shm.h): a hostile one cannot make a count a reader believes.
 */
static char *by_process(struct fast_state *f, const struct sb_profile *prof, enum by_process what)
{
	const struct fast_proc *p;
	const char *sep;
	size_t i, len;
	char *s = NULL;
	long long pid;
	uint64_t n;
	FILE *m = open_memstream(&s, &len);

	if (!m)
		return NULL;
	for (i = 0; i < prof->n_processes; i++) {
		pid = (long long)prof->processes[i].pid;
		p = proc_of(f, (uint32_t)pid);
		sep = ftell(m) ? " " : "";
		if (what == PATH)
			fprintf(m, "%s%lld:%s", sep, pid, p ? "fast" : "kernel");
		else if ((n = loss_of(p, what)))
			fprintf(m, "%s%lld:%llu", sep, pid, (unsigned long long)n);
	}
	if (fclose(m)) {
		free(s);
		return NULL;
	}
	return s;
}

/* Processes whose own counts were more than they could have written (cut to that). */
static int64_t capped_processes(const struct fast_state *f)
{
	const struct fast_proc *p;
	int64_t n = 0;

	for (p = f->procs; p; p = p->next)
		n += p->capped;
	return n;
}

static int fast_losses(void *state, struct sb_source_env *env)
{
	struct sb_profile *prof = &env->coll->prof;
	struct fast_state *f = state;
	struct sb_fast_mem_stats *t = &f->closed;
	char *paths = by_process(f, prof, PATH), *dropped = by_process(f, prof, DROPPED);
	char *invalid = by_process(f, prof, INVALID);
	int ret = !paths || !dropped || !invalid;

	if (ret)
		goto out;
	ret |= sb_profile_set_str(prof, "record_mode", record_mode_name(env->opts->mode));
	ret |= sb_profile_set_str(prof, "record_path_by_process", paths);
	ret |= sb_profile_set_int(prof, "fast_records", (int64_t)t->records);
	/* Not written (a full ring) and written but never read (no room left at the end). */
	ret |= sb_profile_set_int(prof, "fast_records_dropped", (int64_t)(t->dropped + t->unread));
	ret |= sb_profile_set_str(prof, "fast_records_dropped_by_process", dropped);
	ret |= sb_profile_set_str(prof, "fast_records_invalid_by_process", invalid);
	ret |= sb_profile_set_int(prof, "fast_counts_cut", capped_processes(f));
	/* Not a loss: threads beyond the slots took the kernel path. */
	ret |= sb_profile_set_int(prof, "fast_threads_unslotted", (int64_t)t->unslotted);
	ret |= sb_profile_set_int(prof, "fast_records_invalid", (int64_t)f->invalid);
	ret |= sb_profile_set_int(prof, "fast_memories_refused", (int64_t)f->refused);
	ret |= sb_profile_set_int(prof, "fast_memories_extra", (int64_t)f->extra);
	ret |= sb_profile_set_int(prof, "fast_kernel_calls_guessed", (int64_t)f->guessed);
	/*
	 * Not a loss: the memory the records waited in, mostly a backlog that
	 * one thread writing faster than the recorder nests leaves behind; the
	 * rest of the recorder's peak RSS is what it holds whatever the calls.
	 */
	ret |= sb_profile_set_int(prof, "fast_queue_bytes",
				  f->drainer_ready ? (int64_t)sb_fast_queue_bytes(&f->drainer.queue) : 0);
	/* Not a loss: passes the standby made while the drainer's CPU stalled. */
	ret |= sb_profile_set_int(prof, "fast_standby_passes",
				  f->drainer_ready ? (int64_t)f->drainer.stood_in : 0);
out:
	free(paths);
	free(dropped);
	free(invalid);
	return ret ? -ENOMEM : 0;
}

static void fast_free(void *state)
{
	struct fast_state *f = state;
	struct fast_image *im, *next_im;
	struct fast_proc *p, *next;

	if (f->drainer_ready)
		sb_fast_drainer_free(&f->drainer);
	for (p = f->procs; p; p = next) {
		next = p->next;
		for (im = p->images; im; im = next_im) {
			next_im = im->next;
			sb_fast_mem_close(im->mem);
			sb_fast_sites_free(&im->sites);
			free(im);
		}
		sb_fast_nest_free(p->nest);
		free(p);
	}
	if (f->drainer_ready)
		sb_merge_free(&f->merge);
}

const struct sb_source_ops sb_fast_source = {
	.name = "fast",
	.state_size = sizeof(struct fast_state),
	/* Always: in kernel mode it only says so in the metadata. */
	.configure = fast_configure,
	.process = fast_process,
	.intercept = fast_intercept,
	.tick = fast_tick,
	.begin = fast_begin,
	.stop = fast_stop,
	.detach = fast_detach,
	.losses = fast_losses,
	.free = fast_free,
};
