/* A traced process's fast-path memory, adopted and drained by the recorder; see shm.h. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "record/fast/layout.h"
#include "record/fast/shm.h"

#define SLOTS SCOPE_BPF_IMPL_FAST_SLOTS
#define RING SCOPE_BPF_IMPL_FAST_RING
#define SIZE SCOPE_BPF_IMPL_FAST_SIZE
/* Records copied out per memcpy: 4 KiB, in L1 while fn reads them. */
#define CHUNK 1024	/* records per run handed over (16 KiB) */
/* Records between the tail's publications inside one slot's drain (64 KiB). */
#define RELEASE_EVERY 4096
#define MEMFD_LINK "/memfd:scope-bpf-fast (deleted)"

/* What we know of one slot. Never read back from the shared slot: the target may rewrite it. */
struct sb_fast_cursor {
	uint64_t tail;		/* the next record to read */
	uint64_t lost;		/* records we skipped */
	uint64_t dropped0;	/* the slot's dropped at adoption, not this recording's */
	uint32_t tid;		/* the owner last seen writing, to count threads */
	uint32_t gone;		/* owner said to have exited: free the slot when we can */
};

struct sb_fast_mem {
	pid_t pid;
	int fd;
	uint32_t clock;
	struct scope_bpf_impl_fast_hdr *hdr;	/* the mapping: every byte is the target's */
	struct scope_bpf_impl_fast_slot *slots;
	const struct scope_bpf_impl_fast_rec *rings;
	uint64_t adopted;	/* CLOCK_BOOTTIME ns: the counts are since then */
	uint64_t cpus;		/* CPUs this machine may run: at most as many writers at once */
	uint64_t unslotted0;	/* hdr->unslotted at adoption */
	uint64_t records;
	uint64_t threads;
	uint64_t resyncs;
	bool ended;		/* recording ended: drops are those counted then */
	uint64_t end_ns;	/* CLOCK_BOOTTIME */
	uint64_t end_dropped;	/* as the process said, at the end */
	uint64_t end_unslotted;
	uint64_t end_head[SLOTS];	/* where the recording's records end: never read past */
	uint64_t head[SLOTS];	/* one pass's snapshot */
	uint32_t tid[SLOTS];
	struct sb_fast_cursor cur[SLOTS];
};

static uint64_t sat_add(uint64_t a, uint64_t b)
{
	return a + b < a ? UINT64_MAX : a + b;
}

static uint64_t min_u64(uint64_t a, uint64_t b)
{
	return a < b ? a : b;
}

static uint64_t clock_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* fd is a memfd named "scope-bpf-fast", now sealed against resizing, of exactly our size. */
static int check_memfd(int fd, pid_t pid, int target_fd, struct sb_error *err)
{
	const int seals = F_SEAL_SHRINK | F_SEAL_GROW;
	char path[64], link[sizeof(MEMFD_LINK) + 1];
	struct stat st;
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	n = readlink(path, link, sizeof(link) - 1);
	if (n < 0 || (size_t)n != strlen(MEMFD_LINK) || memcmp(link, MEMFD_LINK, (size_t)n))
		return sb_fail(err, EINVAL, "process %d: fd %d is not a \"scope-bpf-fast\" memfd",
			       (int)pid, target_fd);
	/* Only shmem takes seals: this also rules out a file that merely has that name. */
	if (fcntl(fd, F_ADD_SEALS, seals) || (fcntl(fd, F_GET_SEALS) & seals) != seals)
		return sb_fail(err, EINVAL, "process %d: cannot seal its fast memory (fd %d): %s",
			       (int)pid, target_fd, strerror(errno));
	/* After sealing: the size cannot change between this check and any access. */
	if (fstat(fd, &st))
		return sb_fail(err, errno, "process %d: fast memory (fd %d): %s", (int)pid,
			       target_fd, strerror(errno));
	if (!S_ISREG(st.st_mode) || (uint64_t)st.st_size != SIZE)
		return sb_fail(err, EINVAL, "process %d: fast memory (fd %d): %lld bytes, not %llu",
			       (int)pid, target_fd, (long long)st.st_size,
			       (unsigned long long)SIZE);
	return 0;
}

/* The header, read once into our copy: the target may rewrite it while we look. */
static int check_hdr(struct sb_fast_mem *m, struct sb_error *err)
{
	struct scope_bpf_impl_fast_hdr h;
	const char *bad = NULL;
	uint32_t magic;

	/* The writer stores the magic last (release): once it is there, the rest is too. */
	magic = __atomic_load_n(&m->hdr->magic, __ATOMIC_ACQUIRE);
	memcpy(&h, m->hdr, sizeof(h));
	if (magic != SCOPE_BPF_IMPL_FAST_MAGIC)
		bad = "bad magic";
	else if (h.version != SCOPE_BPF_IMPL_FAST_VERSION)
		bad = "unknown version";
	else if (h.pid != (uint32_t)m->pid)
		bad = "made by another process";
	else if (h.slots != SLOTS || h.ring != RING || h.stack != SCOPE_BPF_IMPL_FAST_STACK ||
		 h.size != SIZE)
		bad = "another layout";
	else if (h.clock < SCOPE_BPF_IMPL_CLOCK_TSC || h.clock > SCOPE_BPF_IMPL_CLOCK_MONO)
		bad = "unknown clock";
	if (bad)
		return sb_fail(err, EINVAL, "process %d: fast memory header: %s", (int)m->pid, bad);
	m->clock = h.clock;
	return 0;
}

/* Whether /proc no longer lists thread tid of pid (it may be listed a while after it exits). */
static bool task_gone(pid_t pid, uint32_t tid)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/%d/task/%u", (int)pid, tid);
	return access(path, F_OK) && errno == ENOENT;
}

/*
 * Free slot i for a new thread once its owner, said to have exited, is really gone: the
 * kernel reports an exit before the task leaves /proc, and may give its tid to a new thread
 * (which then takes the same slot: leave it). Only once every record of it was handed.
 */
static void free_if_gone(struct sb_fast_mem *m, uint32_t i)
{
	struct scope_bpf_impl_fast_slot *s = &m->slots[i];
	struct sb_fast_cursor *c = &m->cur[i];
	uint32_t owner = c->gone;

	if (__atomic_load_n(&s->tid, __ATOMIC_RELAXED) != owner) {
		c->gone = 0;
		return;
	}
	if (__atomic_load_n(&s->head, __ATOMIC_ACQUIRE) != c->tail || !task_gone(m->pid, owner))
		return;
	c->gone = 0;
	c->tid = 0;
	/* The next owner starts with no open regions; tail already is head. */
	__atomic_store_n(&s->depth, 0, __ATOMIC_RELAXED);
	__atomic_compare_exchange_n(&s->tid, &owner, 0, false, __ATOMIC_RELEASE, __ATOMIC_RELAXED);
}

/*
 * Where an earlier reader left slot s, or its head when that is not where a
 * reader can be. The records after it were written with some tracer's
 * semaphore set: an earlier recording's, or ours since we attached (a memory
 * made then and found at a sync, not named by its probe); the times of
 * recording sort them (sources/fast.c), so none after our start is skipped.
 */
static uint64_t read_from(const struct scope_bpf_impl_fast_slot *s)
{
	uint64_t head = __atomic_load_n(&s->head, __ATOMIC_ACQUIRE);
	uint64_t tail = __atomic_load_n(&s->tail, __ATOMIC_RELAXED);

	return tail <= head && head - tail <= RING ? tail : head;
}

/*
 * A memory no recorder adopted yet still has the generation its process gave
 * it (include/scope_bpf/slow.h): it was made while our probes attached, so what
 * it dropped is ours, not an earlier recording's.
 */
static bool never_adopted(const struct sb_fast_mem *m)
{
	return __atomic_load_n(&m->hdr->gen, __ATOMIC_RELAXED) ==
	       ((uint32_t)m->pid * 2654435761u | 1);
}

/* What the threads dropped or found no slot for until now is not counted as this recording's. */
static void set_aside_counts(struct sb_fast_mem *m)
{
	uint32_t i;

	for (i = 0; i < SLOTS; i++)
		m->cur[i].dropped0 = __atomic_load_n(&m->slots[i].dropped, __ATOMIC_RELAXED);
	m->unslotted0 = __atomic_load_n(&m->hdr->unslotted, __ATOMIC_RELAXED);
}

/* Start reading where from says (shm.h). */
static void start(struct sb_fast_mem *m, enum sb_fast_mem_from from)
{
	bool fresh = from == SB_FAST_MEM_NEW;
	struct scope_bpf_impl_fast_slot *s;
	uint32_t gen, tid, i;

	if (!fresh && !never_adopted(m))
		set_aside_counts(m);
	for (i = 0; i < SLOTS; i++) {
		s = &m->slots[i];
		if (from == SB_FAST_MEM_EARLIER)
			m->cur[i].tail = read_from(s);
		else if (from == SB_FAST_MEM_STALE)
			m->cur[i].tail = __atomic_load_n(&s->head, __ATOMIC_ACQUIRE);
		__atomic_store_n(&s->tail, m->cur[i].tail, __ATOMIC_RELEASE);
		/* Threads that exited before we came are told of by no exit event: look now. */
		tid = __atomic_load_n(&s->tid, __ATOMIC_RELAXED);
		if (tid && task_gone(m->pid, tid)) {
			m->cur[i].gone = tid;
			free_if_gone(m, i);
		}
	}
	if (fresh)
		return;
	/*
	 * Not the earlier recording's (bit 1 flips), and odd, so never 0: what a site that was
	 * never announced holds.
	 */
	gen = __atomic_load_n(&m->hdr->gen, __ATOMIC_RELAXED);
	gen ^= (uint32_t)(clock_ns(CLOCK_MONOTONIC) * 2654435761u) | 2;
	__atomic_store_n(&m->hdr->gen, gen | 1, __ATOMIC_RELAXED);
}

/* A copy of the process's fd target_fd, or -errno with err. */
static int take_fd(pid_t pid, int target_fd, struct sb_error *err)
{
	int pidfd, fd, rc;

	pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
	if (pidfd < 0) {
		rc = errno;
		return sb_fail(err, rc, "process %d: %s", (int)pid, strerror(rc));
	}
	fd = (int)syscall(SYS_pidfd_getfd, pidfd, target_fd, 0);
	rc = errno;
	close(pidfd);
	if (fd < 0)
		return sb_fail(err, rc, "process %d: cannot take its fd %d: %s%s", (int)pid,
			       target_fd, strerror(rc),
			       rc == EPERM ? " (no right to trace it)" : "");
	return fd;
}

/*
 * The shared mapping of our memfd in pid, of exactly our size: [*start, *end).
 * 0, or -ENOENT. Only the name and the size are the kernel's word here; the
 * file opened through it is checked again (check_memfd).
 */
static int find_mapping(pid_t pid, unsigned long long *start, unsigned long long *end)
{
	char path[64], line[512], flags[8];
	int rc = -ENOENT;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	while (rc && fgets(line, sizeof(line), f)) {
		if (!strstr(line, MEMFD_LINK) ||
		    sscanf(line, "%llx-%llx %7s", start, end, flags) != 3)
			continue;
		if (flags[3] == 's' && *end - *start == SIZE)
			rc = 0;
	}
	fclose(f);
	return rc;
}

/*
 * The memory of a process that closed its memfd (a daemon closes what it
 * inherited; the mapping stays): opened through /proc/PID/map_files, which
 * needs what reading its fds needs and CAP_SYS_ADMIN or CAP_CHECKPOINT_RESTORE.
 */
static int open_mapping(pid_t pid, struct sb_error *err)
{
	unsigned long long start, end;
	char path[96];
	int fd, rc;

	rc = find_mapping(pid, &start, &end);
	if (rc)
		return sb_fail(err, -rc, "process %d: its fast memory is neither open nor mapped",
			       (int)pid);
	snprintf(path, sizeof(path), "/proc/%d/map_files/%llx-%llx", (int)pid, start, end);
	fd = open(path, O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		rc = errno;
		return sb_fail(err, rc, "process %d: cannot open its fast memory through %s: %s",
			       (int)pid, path, strerror(rc));
	}
	return fd;
}

int sb_fast_mem_adopt(struct sb_fast_mem **out, pid_t pid, int target_fd,
		      enum sb_fast_mem_from from, struct sb_error *err)
{
	struct sb_fast_mem *m;
	int fd, rc;
	long cpus;
	void *p;

	*out = NULL;
	fd = target_fd == SB_FAST_MAPPED ? open_mapping(pid, err) : take_fd(pid, target_fd, err);
	/* Named, then closed before we came for it: its mapping is still there. */
	if (fd == -EBADF)
		fd = open_mapping(pid, err);
	if (fd < 0)
		return fd;
	rc = check_memfd(fd, pid, target_fd, err);
	if (rc)
		goto fail_fd;
	m = calloc(1, sizeof(*m));
	if (!m) {
		rc = sb_fail(err, ENOMEM, "process %d: fast memory: out of memory", (int)pid);
		goto fail_fd;
	}
	p = mmap(NULL, SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED) {
		rc = sb_fail(err, errno, "process %d: cannot map its fast memory: %s", (int)pid,
			     strerror(errno));
		free(m);
		goto fail_fd;
	}
	m->pid = pid;
	m->fd = fd;
	m->hdr = p;
	m->slots = (struct scope_bpf_impl_fast_slot *)((char *)p + SCOPE_BPF_IMPL_FAST_SLOTS_AT);
	m->rings = (const struct scope_bpf_impl_fast_rec *)((char *)p +
							    SCOPE_BPF_IMPL_FAST_RINGS_AT);
	rc = check_hdr(m, err);
	if (rc) {
		sb_fast_mem_close(m);
		return rc;
	}
	m->adopted = clock_ns(CLOCK_BOOTTIME);
	cpus = sysconf(_SC_NPROCESSORS_CONF);
	m->cpus = cpus > 0 ? (uint64_t)cpus : 1;
	start(m, from);
	*out = m;
	return 0;
fail_fd:
	close(fd);
	return rc;
}

int sb_fast_mem_find(pid_t pid, int *target_fd)
{
	char path[64], link[sizeof(MEMFD_LINK) + 1];
	struct dirent *e;
	int rc = -ENOENT;
	ssize_t n;
	DIR *d;

	snprintf(path, sizeof(path), "/proc/%d/fd", (int)pid);
	d = opendir(path);
	if (!d)
		return -errno;
	while (rc && (e = readdir(d))) {
		n = readlinkat(dirfd(d), e->d_name, link, sizeof(link) - 1);
		if (n == (ssize_t)strlen(MEMFD_LINK) && !memcmp(link, MEMFD_LINK, (size_t)n)) {
			*target_fd = atoi(e->d_name);
			rc = 0;
		}
	}
	closedir(d);
	if (rc == -ENOENT) {
		unsigned long long start, end;

		/* Closed, yet still mapped: adopted through its mapping. */
		if (!find_mapping(pid, &start, &end)) {
			*target_fd = SB_FAST_MAPPED;
			rc = 0;
		}
	}
	return rc;
}

uint32_t sb_fast_mem_clock(const struct sb_fast_mem *m)
{
	return m->clock;
}

/*
 * Hand slot i's records from our tail to the snapshotted head, as runs that
 * point into the ring (fn copies them out before anything reads them); 0 or
 * fn's negative return.
 */
static int drain_slot(struct sb_fast_mem *m, uint32_t i, sb_fast_run_fn fn, void *ctx,
		      long *handed)
{
	const struct scope_bpf_impl_fast_rec *ring = m->rings + (uint64_t)i * RING;
	struct sb_fast_cursor *c = &m->cur[i];
	uint64_t head = m->head[i], t = c->tail, n;
	uint32_t tid = m->tid[i];
	long took;

	/* A head that went back is a lie, and records in a free slot are nobody's: skip them. */
	if (head < t || !tid) {
		if (head > t)
			c->lost = sat_add(c->lost, head - t);
		m->resyncs++;
		c->tail = head;
		return 0;
	}
	if (tid != c->tid) {
		c->tid = tid;
		m->threads++;
	}
	/* The writer never passes our tail by a ring: only the newest ring can still be there. */
	if (head - t > RING) {
		c->lost = sat_add(c->lost, head - t - RING);
		m->resyncs++;
		t = head - RING;
	}
	while (t != head) {
		n = min_u64(min_u64(head - t, CHUNK), RING - (t & (RING - 1)));
		took = fn(ctx, i, tid, &ring[t & (RING - 1)], n);
		if (took < 0 || (uint64_t)took < n) {
			n = took < 0 ? 0 : (uint64_t)took;
			c->tail = t + n;
			m->records += n;
			*handed += (long)n;
			return took < 0 ? (int)took : -ENOSPC;
		}
		t += n;
		m->records += n;
		*handed += (long)n;
		/* A writer that found its ring full resumes now, not after the whole backlog. */
		if (!(t & (RELEASE_EVERY - 1)))
			__atomic_store_n(&m->slots[i].tail, t, __ATOMIC_RELEASE);
	}
	c->tail = t;
	return 0;
}

long sb_fast_mem_drain_runs(struct sb_fast_mem *m, sb_fast_run_fn fn, void *ctx)
{
	long handed = 0;
	uint32_t i;
	int rc;

	/* One cut across all threads first, so a pass ends at one moment for every slot. */
	for (i = 0; i < SLOTS; i++) {
		m->head[i] = __atomic_load_n(&m->slots[i].head, __ATOMIC_ACQUIRE);
		m->tid[i] = __atomic_load_n(&m->slots[i].tid, __ATOMIC_RELAXED);
		if (m->ended)
			m->head[i] = min_u64(m->head[i], m->end_head[i]);
	}
	for (i = 0; i < SLOTS; i++) {
		if (m->head[i] == m->cur[i].tail)
			continue;
		rc = drain_slot(m, i, fn, ctx, &handed);
		/* Room for the writer as soon as its slot is read, not at the end of the pass. */
		__atomic_store_n(&m->slots[i].tail, m->cur[i].tail, __ATOMIC_RELEASE);
		if (rc < 0)
			return rc;
	}
	for (i = 0; i < SLOTS; i++)
		if (m->cur[i].gone)
			free_if_gone(m, i);
	return handed;
}

/* sb_fast_mem_drain's records, one by one, from a copy of each run. */
struct one_by_one {
	sb_fast_rec_fn fn;
	void *ctx;
	int err;	/* fn's error, which a partly taken run turns into a short count */
};

static long run_one_by_one(void *ctx, uint32_t slot, uint32_t tid,
			   const struct scope_bpf_impl_fast_rec *recs, uint64_t n)
{
	struct scope_bpf_impl_fast_rec buf[CHUNK];
	struct one_by_one *o = ctx;
	uint64_t k;
	int rc;

	memcpy(buf, recs, n * sizeof(*buf));
	for (k = 0; k < n; k++) {
		rc = o->fn(o->ctx, slot, tid, buf[k].time, buf[k].site);
		if (rc < 0) {
			o->err = rc;
			return k ? (long)k : rc;
		}
	}
	return (long)n;
}

long sb_fast_mem_drain(struct sb_fast_mem *m, sb_fast_rec_fn fn, void *ctx)
{
	struct one_by_one o = { fn, ctx, 0 };
	long n = sb_fast_mem_drain_runs(m, run_one_by_one, &o);

	return n == -ENOSPC && o.err ? o.err : n;
}

void sb_fast_mem_thread_gone(struct sb_fast_mem *m, uint32_t tid)
{
	uint32_t i;

	if (!m || !tid)
		return;
	for (i = 0; i < SLOTS; i++) {
		if (__atomic_load_n(&m->slots[i].tid, __ATOMIC_RELAXED) != tid)
			continue;
		m->cur[i].gone = tid;
		free_if_gone(m, i);
	}
}

static uint64_t since(uint64_t now, uint64_t then)
{
	return now > then ? now - then : 0;
}

/*
 * The most records the process's threads could have written, or dropped,
 * since adoption (until the end): SB_FAST_MAX_PER_NS a nanosecond on each
 * CPU. Counts of ours that a lying head inflates, and counts the process
 * keeps itself, are cut to it.
 */
static uint64_t most_written(const struct sb_fast_mem *m)
{
	uint64_t ns = since(m->ended ? m->end_ns : clock_ns(CLOCK_BOOTTIME), m->adopted) + 1;
	uint64_t per_ns = m->cpus * SB_FAST_MAX_PER_NS;

	return ns > UINT64_MAX / per_ns ? UINT64_MAX : ns * per_ns;
}

/* What the process says it did not write since adoption: its threads' drops, and its unslotted. */
static void claimed(const struct sb_fast_mem *m, uint64_t *dropped, uint64_t *unslotted)
{
	uint32_t i;

	*dropped = 0;
	for (i = 0; i < SLOTS; i++)
		*dropped = sat_add(*dropped, since(__atomic_load_n(&m->slots[i].dropped,
								   __ATOMIC_RELAXED),
						   m->cur[i].dropped0));
	*unslotted = since(__atomic_load_n(&m->hdr->unslotted, __ATOMIC_RELAXED), m->unslotted0);
}

uint64_t sb_fast_mem_unread(const struct sb_fast_mem *m, uint32_t tid)
{
	uint64_t n = 0, head;
	uint32_t i;

	if (!m)
		return 0;
	/* The writer is never more than a ring past our tail: beyond that a head lies. */
	for (i = 0; i < SLOTS; i++) {
		if (tid && __atomic_load_n(&m->slots[i].tid, __ATOMIC_RELAXED) != tid)
			continue;
		head = m->ended ? m->end_head[i] : __atomic_load_n(&m->slots[i].head,
								   __ATOMIC_ACQUIRE);
		n += min_u64(since(head, m->cur[i].tail), RING);
	}
	return n;
}

void sb_fast_mem_stats(const struct sb_fast_mem *m, struct sb_fast_mem_stats *s)
{
	uint64_t cap, dropped, unslotted, lost = 0;
	uint32_t i;

	memset(s, 0, sizeof(*s));
	if (!m)
		return;
	cap = most_written(m);
	s->records = m->records;
	s->threads = m->threads;
	s->resyncs = m->resyncs;
	for (i = 0; i < SLOTS; i++)
		lost = sat_add(lost, m->cur[i].lost);
	claimed(m, &dropped, &unslotted);
	if (m->ended) {
		dropped = m->end_dropped;
		unslotted = m->end_unslotted;
	}
	s->capped = dropped > cap || unslotted > cap || lost > cap;
	s->dropped = min_u64(dropped, cap);
	s->unslotted = min_u64(unslotted, cap);
	s->lost = min_u64(lost, cap);
	s->unread = m->ended ? sb_fast_mem_unread(m, 0) : 0;
}

void sb_fast_mem_begin(struct sb_fast_mem *m)
{
	if (!m || m->ended)
		return;
	set_aside_counts(m);
	m->adopted = clock_ns(CLOCK_BOOTTIME);
}

void sb_fast_mem_end(struct sb_fast_mem *m)
{
	uint32_t i;

	if (!m || m->ended)
		return;
	claimed(m, &m->end_dropped, &m->end_unslotted);
	m->end_ns = clock_ns(CLOCK_BOOTTIME);
	for (i = 0; i < SLOTS; i++)
		m->end_head[i] = __atomic_load_n(&m->slots[i].head, __ATOMIC_ACQUIRE);
	m->ended = true;
}

void sb_fast_mem_close(struct sb_fast_mem *m)
{
	if (!m)
		return;
	munmap(m->hdr, SIZE);
	close(m->fd);
	free(m);
}
