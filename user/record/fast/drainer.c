/* The drainer thread (drainer.h). */
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "record/fast/drainer.h"
#include "record/fast/shm.h"
#include "util/meminfo.h"
#include "util/pi_mutex.h"

/*
 * Between passes: short while records flow, so a ring (131072 records, about
 * 0.7 ms of a thread writing flat out at 5 ns a record) is emptied well
 * before it fills; longer when idle, still well under what fills a ring
 * from empty, so a quiet recording costs little and a burst loses nothing.
 */
#define BUSY_SLEEP_NS 50000
#define IDLE_SLEEP_NS 200000
/*
 * The standby makes a pass once the drainer has made none for STALE_NS: a
 * ring lasts 1.5 ms of a flood, and the drainer's own gaps (a pass into cold
 * memory, up to about 0.8 ms) seldom reach that. It looks often only while
 * some ring would fill within FILL_WATCH_NS at the rate of the latest pass,
 * else every millisecond: each wake-up took about 12 us from the traced
 * thread on its CPU here, 6% of a fine-grained loop (355 k calls a second,
 * a ring in 185 ms) at 5000 wake-ups a second.
 */
#define FILL_WATCH_NS 20000000ull
#define STANDBY_BUSY_NS 200000
#define STANDBY_IDLE_NS 1000000
#define STALE_NS 250000
#define WARM_CHECK_NS 2000000	/* how often the spares are looked at, once warm */
/*
 * When every writer wakes them as its ring passes half full (fast_wake), the
 * drainer and its standby sleep until one does while no ring would fill an
 * eighth more within this: the recorder's loop, which looks at least this
 * often, then takes what the rings hold itself (sb_fast_drainer_catch_up),
 * and an idle recording wakes neither thread. Till then the standby looks
 * every QUIET_WAIT_NS: a wake-up it slept through while the drainer was just
 * stalled (a pass had begun) comes again only once a pass has moved the tail.
 */
#define IDLE_WAIT_NS 1000000000LL
#define QUIET_WAIT_NS 50000000LL
#define UNTIL_WOKEN (-1)
/* A pass after sleeping sees the fullest ring; the next comes before it is an eighth fuller. */
#define FILL_PART 8
/*
 * Warm at first; the rest of warm_bytes once a burst has used half of what is
 * warm. A recording whose processes write little (most of them) holds no
 * more, and faulting memory in (a CPU for a fraction of a second, the host's
 * first touch) does not slow them: warming 256 MiB as soon as a process used
 * the fast path cost a 140 ms solver loop a third of its time.
 */
#define WARM_BEFORE_USE (64ul << 20)
/*
 * How often the warming thread reads the memory available while the queue
 * grows (about 30 us a read, never while it is idle): the queue outgrows its
 * check by 14 MiB at most while a thread writes flat out.
 */
#define MEMORY_CHECK_NS 10000000

struct copy_ctx {
	struct sb_fast_drainer *d;
	void *proc;
	uint64_t most;		/* the most records taken from one ring */
	void *ring_proc;	/* the ring runs are taken from now: its process and slot */
	uint32_t ring_slot;
	uint64_t ring_n;	/* records taken from it so far (runs are 1024 at most) */
	struct sb_fast_chunk *first, *cur;
	bool left_some;		/* records stayed in a ring: the queue was full */
};

static int64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/*
 * Whether the machine can spare a slab more: the memory available stays
 * above the reserve. Unknown (no MemAvailable) counts as yes: the cap still
 * holds.
 */
static bool memory_to_spare(const struct sb_fast_drainer *d)
{
	struct sb_meminfo m;

	return !d->reserve_bytes || sb_meminfo_read(&m) ||
	       m.available > d->reserve_bytes + SB_FAST_SLAB_BYTES;
}

/*
 * Ahead of the writers' nice 0 while a burst eats into the memory made ready
 * (this thread only: per thread on Linux): when as many threads as CPUs
 * flood, a third of a CPU does not fault memory in as fast as they fill it,
 * and the drainer, copying into cold memory, falls behind. Refused without
 * CAP_SYS_NICE.
 */
static void hurry(bool *hurried, bool urgent)
{
	if (urgent != *hurried && !setpriority(PRIO_PROCESS, 0, urgent ? -10 : 0))
		*hurried = urgent;
}

/*
 * Off the drainer's thread, from the start: the recorder loads and attaches
 * its programs for a second or more before any marker writes, and the spares
 * a burst used are made again while it goes on. Without warm memory a burst
 * only drains more slowly.
 */
/*
 * While passes copy records, every WARM_CHECK_NS; else until a pass leaves
 * the spares short (it signals): an idle recording never wakes this thread.
 */
static void warm_sleep(struct sb_fast_drainer *d, uint64_t *seen)
{
	struct timespec idle = { 0, WARM_CHECK_NS };
	uint64_t copied = __atomic_load_n(&d->copied, __ATOMIC_RELAXED);

	if (copied != *seen) {
		*seen = copied;
		nanosleep(&idle, NULL);
		return;
	}
	pthread_mutex_lock(&d->warm_lock);
	__atomic_store_n(&d->warm_idle, true, __ATOMIC_RELAXED);
	while (__atomic_load_n(&d->warm_idle, __ATOMIC_RELAXED) &&
	       !__atomic_load_n(&d->stop, __ATOMIC_ACQUIRE))
		pthread_cond_wait(&d->warm_cond, &d->warm_lock);
	__atomic_store_n(&d->warm_idle, false, __ATOMIC_RELAXED);
	pthread_mutex_unlock(&d->warm_lock);
}

/* A pass copied records: the warming thread, asleep since, looks again if they used its spares. */
static void warm_up(struct sb_fast_drainer *d)
{
	if (!__atomic_load_n(&d->warm_idle, __ATOMIC_RELAXED) ||
	    !sb_fast_queue_short(&d->queue, __atomic_load_n(&d->warm_now, __ATOMIC_RELAXED)))
		return;
	pthread_mutex_lock(&d->warm_lock);
	__atomic_store_n(&d->warm_idle, false, __ATOMIC_RELAXED);
	pthread_cond_signal(&d->warm_cond);
	pthread_mutex_unlock(&d->warm_lock);
}

static void *warm(void *arg)
{
	struct sb_fast_drainer *d = arg;
	int64_t checked = INT64_MIN / 2, t;
	bool ready = false, hurried = false, burst;
	uint64_t seen = 0;

	pthread_setname_np(pthread_self(), "sb-warm");
	while (!__atomic_load_n(&d->stop, __ATOMIC_ACQUIRE)) {
		t = now_ns();
		burst = ready && sb_fast_queue_short(&d->queue, d->warm_now / 2);
		if (burst)
			__atomic_store_n(&d->warm_now, d->warm_bytes, __ATOMIC_RELAXED);
		if (t - checked >= MEMORY_CHECK_NS && sb_fast_queue_short(&d->queue, d->warm_now)) {
			sb_fast_queue_may_grow(&d->queue, memory_to_spare(d));
			checked = t;
		}
		hurry(&hurried, burst);
		if (!sb_fast_queue_top_up(&d->queue, d->warm_now)) {
			ready = true;
			warm_sleep(d, &seen);
		}
	}
	return NULL;
}

static void start_warming(struct sb_fast_drainer *d)
{
	sigset_t all, old;

	if (!d->warm_bytes)
		return;
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	d->warming = !pthread_create(&d->warmer, NULL, warm, d);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
}

/* The warming thread's idle sleep. */
static int init_warm_wait(struct sb_fast_drainer *d)
{
	int ret;

	ret = pthread_cond_init(&d->warm_cond, NULL);
	if (!ret) {
		ret = pthread_mutex_init(&d->warm_lock, NULL);
		if (ret)
			pthread_cond_destroy(&d->warm_cond);
	}
	return -ret;
}

int sb_fast_drainer_init(struct sb_fast_drainer *d, size_t max_bytes, size_t warm_bytes,
			 uint64_t reserve_bytes)
{
	size_t chunks = max_bytes / sizeof(struct sb_fast_chunk);
	int ret;

	d->running = false;
	d->standing_by = false;
	d->drain_cpu = -1;
	d->last_begun = 0;
	d->filling = false;
	d->fill_ns = INT64_MAX;
	d->unwaking = NULL;
	d->stood_in = 0;
	d->notify_fd = -1;
	d->warming = false;
	d->warm_idle = false;
	d->copied = 0;
	d->warm_bytes = warm_bytes;
	d->warm_now = warm_bytes < WARM_BEFORE_USE ? warm_bytes : WARM_BEFORE_USE;
	d->reserve_bytes = reserve_bytes;
	d->mems = NULL;
	d->n_mems = 0;
	d->pass = 0;
	d->refused = 0;
	d->stop = false;
	ret = sb_fast_wake_init(&d->wake_drainer, -1);
	if (ret)
		return ret;
	ret = sb_fast_wake_init(&d->wake_standby, -1);
	if (ret)
		goto free_wake;
	ret = init_warm_wait(d);
	if (ret)
		goto free_wakes;
	ret = sb_fast_queue_init(&d->queue, chunks ? chunks : 1);
	if (ret)
		goto free_warm_wait;
	/* The recorder's thread takes it to add and remove memories while the drainer runs. */
	ret = sb_pi_mutex_init(&d->lock);
	if (ret)
		goto free_queue;
	start_warming(d);
	return 0;
free_queue:
	sb_fast_queue_free(&d->queue);
free_warm_wait:
	pthread_cond_destroy(&d->warm_cond);
	pthread_mutex_destroy(&d->warm_lock);
free_wakes:
	sb_fast_wake_free(&d->wake_standby);
free_wake:
	sb_fast_wake_free(&d->wake_drainer);
	return ret;
}

/* A run of one slot's records: copied into chunks, as many as there is room for. */
static long copy_run(void *ctx, uint32_t slot, uint32_t tid,
		     const struct scope_bpf_impl_fast_rec *recs, uint64_t n)
{
	struct copy_ctx *c = ctx;
	struct sb_fast_chunk *next;
	struct sb_fast_run *run;
	uint64_t done = 0, k;

	if (c->proc != c->ring_proc || slot != c->ring_slot) {
		c->ring_proc = c->proc;
		c->ring_slot = slot;
		c->ring_n = 0;
	}
	c->ring_n += n;
	c->most = c->ring_n > c->most ? c->ring_n : c->most;
	while (done < n) {
		if (!c->cur || c->cur->n == SB_FAST_CHUNK || c->cur->n_runs == SB_FAST_CHUNK_RUNS) {
			next = sb_fast_queue_chunk(&c->d->queue);
			if (!next) {
				c->left_some = true;
				return done ? (long)done : -ENOSPC;
			}
			if (c->cur)
				c->cur->next = next;
			else
				c->first = next;
			c->cur = next;
		}
		k = n - done < SB_FAST_CHUNK - c->cur->n ? n - done : SB_FAST_CHUNK - c->cur->n;
		run = &c->cur->runs[c->cur->n_runs++];
		*run = (struct sb_fast_run){ .proc = c->proc, .tid = tid, .slot = slot,
					     .start = c->cur->n, .n = (uint32_t)k };
		memcpy(&c->cur->recs[c->cur->n], recs + done, k * sizeof(*recs));
		c->cur->n += (uint32_t)k;
		done += k;
	}
	return (long)n;
}

/* How long the fullest ring, most records in since ns, takes to fill FILL_PART more. */
static int64_t fill_time(uint64_t most, int64_t since)
{
	if (!most || since <= 0)
		return INT64_MAX;
	return (int64_t)((unsigned __int128)SCOPE_BPF_IMPL_FAST_RING / FILL_PART * (uint64_t)since /
			 most);
}

/* Records handed over to an empty queue: the recorder's loop, which may sleep, takes them. */
static void notify(struct sb_fast_drainer *d)
{
	uint64_t one = 1;

	if (d->notify_fd >= 0 && write(d->notify_fd, &one, sizeof(one)) < 0)
		return;
}

/*
 * One pass over every memory; the caller holds d->lock. wake: tell the
 * recorder's loop when it hands records to an empty queue (the drainer's
 * threads do; the loop's own passes need not).
 */
static long pass_locked(struct sb_fast_drainer *d, bool wake)
{
	struct copy_ctx c = { .d = d };
	uint64_t pass;
	int64_t begun, since, fill, prev;
	long total = 0, n;
	size_t i;

	pass = ++d->pass;
	begun = now_ns();
	since = begun - d->last_begun;
	__atomic_store_n(&d->last_begun, begun, __ATOMIC_RELAXED);
	for (i = 0; i < d->n_mems; i++) {
		if (d->mems[i].closed)
			continue;
		c.proc = d->mems[i].proc;
		n = sb_fast_mem_drain_runs(d->mems[i].mem, copy_run, &c);
		if (n == -ENOSPC)
			d->refused++;
		else if (n > 0)
			total += n;
	}
	/* Handed over while the lock is held: passes reach the queue in order. */
	if (sb_fast_queue_push(&d->queue, c.first, pass, begun, !c.left_some) && wake)
		notify(d);
	fill = fill_time(c.most, since);
	/*
	 * A pass that found little says little of the rate when it came right
	 * after another (the standby's and the drainer's) or while the writer
	 * was off its CPU: the estimate at most doubles a pass, so a flood is
	 * not taken for quiet at once, and a quiet recording is one a few
	 * seconds later.
	 */
	prev = __atomic_load_n(&d->fill_ns, __ATOMIC_RELAXED);
	if (prev < INT64_MAX / 2 && fill > 2 * prev)
		fill = 2 * prev;
	__atomic_store_n(&d->fill_ns, fill, __ATOMIC_RELAXED);
	/* At that rate, a ring fills within FILL_WATCH_NS. */
	__atomic_store_n(&d->filling, fill < (int64_t)(FILL_WATCH_NS / FILL_PART), __ATOMIC_RELAXED);
	if (total > 0) {
		__atomic_fetch_add(&d->copied, (uint64_t)total, __ATOMIC_RELAXED);
		warm_up(d);
	}
	return total;
}

static long pass(struct sb_fast_drainer *d, bool wake)
{
	long total;

	/* Once the warming thread has stopped, each of the last passes looks at the memory itself. */
	if (__atomic_load_n(&d->stop, __ATOMIC_ACQUIRE))
		sb_fast_queue_may_grow(&d->queue, memory_to_spare(d));
	pthread_mutex_lock(&d->lock);
	total = pass_locked(d, wake);
	pthread_mutex_unlock(&d->lock);
	return total;
}

long sb_fast_drainer_pass(struct sb_fast_drainer *d)
{
	return pass(d, false);
}

long sb_fast_drainer_catch_up(struct sb_fast_drainer *d, int64_t stale_ns)
{
	long total;

	/* A pass under way (the lock held) hands its records over itself. */
	if (now_ns() - __atomic_load_n(&d->last_begun, __ATOMIC_RELAXED) < stale_ns ||
	    pthread_mutex_trylock(&d->lock))
		return 0;
	total = pass_locked(d, false);
	pthread_mutex_unlock(&d->lock);
	return total;
}

/*
 * The drainer must run when it wakes, even while the recorder's thread nests
 * flat out on the other CPUs: a ring holds a millisecond of a busy writer.
 * The lowest real-time priority does that (it sleeps at least 100 us between
 * passes of a few microseconds, so it never holds a CPU); without the right
 * to it, the highest nice level (per thread on Linux: this one).
 */
static void run_first(void)
{
	struct sched_param sp = { .sched_priority = 1 };

	if (!pthread_setschedparam(pthread_self(), SCHED_FIFO, &sp))
		return;
	setpriority(PRIO_PROCESS, 0, -20);
}

/* Whether every writer wakes the sleepers as its ring passes half full. */
static bool writers_wake(struct sb_fast_drainer *d, const struct sb_fast_wake *w)
{
	return sb_fast_wake_ready(w) && d->unwaking &&
	       !__atomic_load_n(d->unwaking, __ATOMIC_RELAXED);
}

/*
 * Until the next pass: as before when a writer cannot wake us; else until the
 * fullest ring is an eighth fuller at the rate of the latest pass, or, where
 * that is past IDLE_WAIT_NS, until a writer wakes us (the next pass then
 * comes soon) or the recorder pokes (a new memory).
 */
static int64_t drain_wait(struct sb_fast_drainer *d, long copied, bool woken)
{
	int64_t fill = __atomic_load_n(&d->fill_ns, __ATOMIC_RELAXED);

	if (!writers_wake(d, &d->wake_drainer))
		return copied > 0 ? BUSY_SLEEP_NS : IDLE_SLEEP_NS;
	if (woken || fill < BUSY_SLEEP_NS)
		return BUSY_SLEEP_NS;
	return fill < IDLE_WAIT_NS ? fill : UNTIL_WOKEN;
}

static void *drain_loop(void *arg)
{
	struct sb_fast_drainer *d = arg;
	bool woken = false;
	long copied;

	pthread_setname_np(pthread_self(), "sb-drain");
	run_first();
	while (!__atomic_load_n(&d->stop, __ATOMIC_ACQUIRE)) {
		copied = pass(d, true);
		__atomic_store_n(&d->drain_cpu, sched_getcpu(), __ATOMIC_RELAXED);
		woken = sb_fast_wake_wait(&d->wake_drainer, drain_wait(d, copied, woken));
	}
	return NULL;
}

/*
 * Keep off the CPU the drainer last ran on, so that what stalls that CPU
 * does not stall both; false when there is no other CPU to go to.
 */
static bool stand_apart(struct sb_fast_drainer *d, const cpu_set_t *allowed, int *avoided)
{
	int cpu = __atomic_load_n(&d->drain_cpu, __ATOMIC_RELAXED);
	cpu_set_t set;

	if (cpu == *avoided)
		return true;
	set = *allowed;
	if (cpu >= 0 && cpu < CPU_SETSIZE)
		CPU_CLR(cpu, &set);
	if (!CPU_COUNT(&set))
		return false;
	if (!sched_setaffinity(0, sizeof(set), &set))
		*avoided = cpu;
	return true;
}

/* A pass if the drainer has made none for STALE_NS and holds no pass now: true when made. */
static bool stand_in(struct sb_fast_drainer *d)
{
	if (now_ns() - __atomic_load_n(&d->last_begun, __ATOMIC_RELAXED) < STALE_NS ||
	    pthread_mutex_trylock(&d->lock))
		return false;
	pass_locked(d, true);
	d->stood_in++;
	pthread_mutex_unlock(&d->lock);
	return true;
}

/*
 * The standby: a second real-time thread, on another CPU than the drainer,
 * that makes the passes the drainer does not. A CPU can stop under a thread
 * with nothing in the kernel to see: this VM's host takes both of its CPUs
 * for about 35 ms of every 100 while they are busy and gives them back up to
 * 10 ms apart, and a writer whose CPU came back first filled its ring (1.5
 * ms of a flood) while the drainer's timer waited on the other.
 *
 * A writer wakes it once, as its ring passes half full; from then it looks
 * as often as in a flood until a pass has begun since, the drainer's or its
 * own. Else a wake that came while the drainer's last pass was recent, the
 * drainer stalled just after, left it asleep until woken again, which a full
 * ring never does (7.3 under emulation, whose slow writers put the fill
 * estimate past IDLE_WAIT_NS: no pass of its own, a quarter of the records
 * dropped).
 */
static void *standby_loop(void *arg)
{
	struct sb_fast_drainer *d = arg;
	int64_t wait, woken_at = -1;
	int avoided = -2;
	cpu_set_t allowed;

	pthread_setname_np(pthread_self(), "sb-standby");
	run_first();
	if (sched_getaffinity(0, sizeof(allowed), &allowed))
		return NULL;
	while (!__atomic_load_n(&d->stop, __ATOMIC_ACQUIRE) && stand_apart(d, &allowed, &avoided)) {
		if (stand_in(d) || __atomic_load_n(&d->last_begun, __ATOMIC_RELAXED) > woken_at)
			woken_at = -1;
		/* Once idle, only a writer wakes it (as it wakes the drainer): the flood it stands by for. */
		if (woken_at >= 0 || __atomic_load_n(&d->filling, __ATOMIC_RELAXED))
			wait = STANDBY_BUSY_NS;
		else if (!writers_wake(d, &d->wake_standby))
			wait = STANDBY_IDLE_NS;
		else if (__atomic_load_n(&d->fill_ns, __ATOMIC_RELAXED) < IDLE_WAIT_NS)
			wait = QUIET_WAIT_NS;
		else
			wait = UNTIL_WOKEN;
		if (sb_fast_wake_wait(&d->wake_standby, wait) && woken_at < 0)
			woken_at = now_ns();
	}
	return NULL;
}

static int start_thread(struct sb_fast_drainer *d)
{
	sigset_t all, old;
	int ret;

	/* Signals stay with the recorder's thread, which handles them. */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	d->last_begun = now_ns();
	ret = pthread_create(&d->thread, NULL, drain_loop, d);
	if (!ret)
		d->standing_by = !pthread_create(&d->standby, NULL, standby_loop, d);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (ret)
		return -ret;
	d->running = true;
	return 0;
}

int sb_fast_drainer_wakes(struct sb_fast_drainer *d, int drainer_ring, int standby_ring,
			  const int *unwaking)
{
	int ret;

	if (d->running || sb_fast_wake_ready(&d->wake_drainer))
		return 0;
	d->unwaking = unwaking;
	sb_fast_wake_free(&d->wake_drainer);
	sb_fast_wake_free(&d->wake_standby);
	ret = sb_fast_wake_init(&d->wake_drainer, drainer_ring);
	if (!ret)
		ret = sb_fast_wake_init(&d->wake_standby, standby_ring);
	return ret;
}

int sb_fast_drainer_add(struct sb_fast_drainer *d, struct sb_fast_mem *mem, void *proc)
{
	struct sb_fast_drained *m;

	pthread_mutex_lock(&d->lock);
	m = realloc(d->mems, (d->n_mems + 1) * sizeof(*m));
	if (m) {
		d->mems = m;
		d->mems[d->n_mems++] = (struct sb_fast_drained){ .mem = mem, .proc = proc };
	}
	pthread_mutex_unlock(&d->lock);
	if (!m)
		return -ENOMEM;
	/* Its writers may never wake them (an older header): they look whether to sleep less. */
	sb_fast_wake_poke(&d->wake_drainer);
	sb_fast_wake_poke(&d->wake_standby);
	return d->running || d->stop ? 0 : start_thread(d);
}

void sb_fast_drainer_remove(struct sb_fast_drainer *d, struct sb_fast_mem *mem)
{
	size_t i;

	pthread_mutex_lock(&d->lock);
	for (i = 0; i < d->n_mems; i++)
		if (d->mems[i].mem == mem)
			d->mems[i].closed = true;
	pthread_mutex_unlock(&d->lock);
}

void sb_fast_drainer_stop(struct sb_fast_drainer *d)
{
	__atomic_store_n(&d->stop, true, __ATOMIC_RELEASE);
	sb_fast_wake_stop(&d->wake_drainer);
	sb_fast_wake_stop(&d->wake_standby);
	pthread_mutex_lock(&d->warm_lock);
	pthread_cond_signal(&d->warm_cond);
	pthread_mutex_unlock(&d->warm_lock);
	if (d->running)
		pthread_join(d->thread, NULL);
	if (d->standing_by)
		pthread_join(d->standby, NULL);
	if (d->warming)
		pthread_join(d->warmer, NULL);
	d->running = false;
	d->standing_by = false;
	d->warming = false;
}

void sb_fast_drainer_begin(struct sb_fast_drainer *d)
{
	size_t i;

	pthread_mutex_lock(&d->lock);
	for (i = 0; i < d->n_mems; i++)
		if (!d->mems[i].closed)
			sb_fast_mem_begin(d->mems[i].mem);
	pthread_mutex_unlock(&d->lock);
}

void sb_fast_drainer_end(struct sb_fast_drainer *d)
{
	size_t i;

	pthread_mutex_lock(&d->lock);
	for (i = 0; i < d->n_mems; i++)
		if (!d->mems[i].closed)
			sb_fast_mem_end(d->mems[i].mem);
	pthread_mutex_unlock(&d->lock);
}

uint64_t sb_fast_drainer_unread(struct sb_fast_drainer *d, const struct sb_fast_mem *mem,
				uint32_t tid)
{
	uint64_t n = 0;
	size_t i;

	pthread_mutex_lock(&d->lock);
	for (i = 0; i < d->n_mems; i++)
		if (!d->mems[i].closed && (!mem || d->mems[i].mem == mem))
			n += sb_fast_mem_unread(d->mems[i].mem, tid);
	pthread_mutex_unlock(&d->lock);
	return n;
}

void sb_fast_drainer_free(struct sb_fast_drainer *d)
{
	sb_fast_drainer_stop(d);
	free(d->mems);
	d->mems = NULL;
	d->n_mems = 0;
	sb_fast_queue_free(&d->queue);
	pthread_mutex_destroy(&d->lock);
	sb_fast_wake_free(&d->wake_drainer);
	sb_fast_wake_free(&d->wake_standby);
	pthread_cond_destroy(&d->warm_cond);
	pthread_mutex_destroy(&d->warm_lock);
}
