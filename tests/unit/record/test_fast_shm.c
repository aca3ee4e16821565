/*
 * Tests for adopting and draining a process's fast-path memory: records of the real writer
 * (a forked child running markers) arrive complete and in order, and a memory forged by a
 * hostile target (here the test process itself) is refused or drained without harm.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "scope_bpf.h"	/* markers on: the child below is a real writer */
#include "record/fast/shm.h"

#define RING SCOPE_BPF_IMPL_FAST_RING
#define SIZE SCOPE_BPF_IMPL_FAST_SIZE
#define END SCOPE_BPF_IMPL_FAST_END

#if defined(__SANITIZE_ADDRESS__)
#define UNDER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define UNDER_ASAN 1
#endif
#endif

/* What fn was handed, in order. */
struct got {
	size_t n, cap;
	int fail_at;		/* fn returns -EIO for the record with this index; -1: never */
	uint32_t *slot, *tid;
	uint64_t *time, *site;
};

static int collect(void *ctx, uint32_t slot, uint32_t tid, uint64_t time, uint64_t site)
{
	struct got *g = ctx;

	if (g->fail_at >= 0 && g->n == (size_t)g->fail_at) {
		g->fail_at = -1;
		return -EIO;
	}
	if (g->n == g->cap) {
		g->cap = g->cap ? 2 * g->cap : 1024;
		g->slot = realloc(g->slot, g->cap * sizeof(*g->slot));
		g->tid = realloc(g->tid, g->cap * sizeof(*g->tid));
		g->time = realloc(g->time, g->cap * sizeof(*g->time));
		g->site = realloc(g->site, g->cap * sizeof(*g->site));
		assert_non_null(g->slot && g->tid && g->time && g->site);
	}
	g->slot[g->n] = slot;
	g->tid[g->n] = tid;
	g->time[g->n] = time;
	g->site[g->n] = site;
	g->n++;
	return 0;
}

static void got_reset(struct got *g)
{
	g->n = 0;
	g->fail_at = -1;
}

static void got_free(struct got *g)
{
	free(g->slot);
	free(g->tid);
	free(g->time);
	free(g->site);
	memset(g, 0, sizeof(*g));
}

static uint32_t my_tid(void)
{
	return (uint32_t)syscall(SYS_gettid);
}

/* ---- A real writer: a forked child running markers on command. ---- */

static void work(int n)
{
	int i;

	for (i = 0; i < n; i++)
		SCOPE_BPF_REGION("work")
			__asm__ __volatile__("" ::: "memory");
}

static void *thread_work(void *arg)
{
	uint32_t *tid = arg;
	int n = (int)*tid;

	work(n);
	*tid = my_tid();
	return NULL;
}

struct child {
	pid_t pid;
	int to, from;
	int fd;			/* its memfd's number, as its writer says */
	uint32_t tid;		/* its main thread */
};

/* A command: a raw clone whose child and parent each run CLONE_WORK regions at once. */
#define RAW_CLONE INT_MIN
#define CLONE_WORK 20000

/*
 * The raw clone's child: no fork handler ran, yet its records went to memory
 * of its own, all of them by its own thread. Exits with what it found (0: all so).
 */
static void clone_child(void)
{
	const struct scope_bpf_impl_fast_proc *p = &scope_bpf_impl_fast_proc;
	const struct scope_bpf_impl_fast_slot *slots;
	int i;

	work(CLONE_WORK);
	if (!p->hdr || p->hdr->pid != (uint32_t)getpid())
		_exit(10);
	slots = (const void *)((const char *)p->hdr + SCOPE_BPF_IMPL_FAST_SLOTS_AT);
	for (i = 0; i < SCOPE_BPF_IMPL_FAST_SLOTS; i++)
		if (slots[i].tid == my_tid())
			_exit(slots[i].head == 2 * CLONE_WORK ? 0 : 12);
	_exit(11);
}

/* RAW_CLONE: the clone's exit status, once both ran their regions. */
static uint32_t raw_clone(void)
{
	long pid = syscall(SYS_clone, SIGCHLD, 0, 0, 0, 0);
	int status;

	if (!pid)
		clone_child();
	if (pid < 0)
		_exit(1);
	work(CLONE_WORK);
	if (waitpid((pid_t)pid, &status, 0) != pid || !WIFEXITED(status))
		_exit(1);
	return (uint32_t)WEXITSTATUS(status);
}

/*
 * Commands: n > 0: n regions on the main thread; n < 0: -n on a new thread, joined;
 * RAW_CLONE; 0: exit.
 */
static void child_main(int rd, int wr, int n)
{
	pthread_t th;
	uint32_t msg[2];
	int cmd;

	scope_bpf_fast_semaphore = 1;
	work(n);
	msg[0] = scope_bpf_impl_fast_proc.hdr ? (uint32_t)scope_bpf_impl_fast_proc.fd : UINT32_MAX;
	msg[1] = my_tid();
	if (write(wr, msg, sizeof(msg)) != sizeof(msg))
		_exit(1);
	while (read(rd, &cmd, sizeof(cmd)) == sizeof(cmd) && cmd) {
		msg[0] = 0;
		if (cmd == RAW_CLONE) {
			msg[0] = raw_clone();
		} else if (cmd > 0) {
			work(cmd);
		} else {
			msg[0] = (uint32_t)-cmd;
			if (pthread_create(&th, NULL, thread_work, &msg[0]) ||
			    pthread_join(th, NULL))
				_exit(1);
		}
		if (write(wr, msg, sizeof(msg[0])) != sizeof(msg[0]))
			_exit(1);
	}
	_exit(0);
}

static void child_start(struct child *c, int n)
{
	int down[2], up[2];
	uint32_t msg[2];

	assert_int_equal(pipe(down), 0);
	assert_int_equal(pipe(up), 0);
	c->pid = fork();
	assert_true(c->pid >= 0);
	if (!c->pid) {
		close(down[1]);
		close(up[0]);
		child_main(down[0], up[1], n);
	}
	close(down[0]);
	close(up[1]);
	c->to = down[1];
	c->from = up[0];
	assert_int_equal(read(c->from, msg, sizeof(msg)), sizeof(msg));
	assert_int_not_equal(msg[0], UINT32_MAX);
	c->fd = (int)msg[0];
	c->tid = msg[1];
}

/* Run a command; returns the tid of the thread that ran it when it was a new one. */
static uint32_t child_do(struct child *c, int cmd)
{
	uint32_t reply;

	assert_int_equal(write(c->to, &cmd, sizeof(cmd)), sizeof(cmd));
	assert_int_equal(read(c->from, &reply, sizeof(reply)), sizeof(reply));
	return reply;
}

static void child_end(struct child *c)
{
	int cmd = 0, status;

	assert_int_equal(write(c->to, &cmd, sizeof(cmd)), sizeof(cmd));
	assert_int_equal(waitpid(c->pid, &status, 0), c->pid);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	close(c->to);
	close(c->from);
}

/* Until /proc no longer lists thread tid of this process: the kernel reaps after join. */
static void wait_task_gone(pid_t pid, uint32_t tid)
{
	char path[64];
	int i;

	snprintf(path, sizeof(path), "/proc/%d/task/%u", (int)pid, tid);
	for (i = 0; i < 1000 && !access(path, F_OK); i++)
		usleep(1000);
	assert_int_not_equal(access(path, F_OK), 0);
}

/* Records from..n of g are begin/end pairs of work()'s site, of one slot and tid, in order. */
static void check_work_records(const struct got *g, size_t from, uint32_t tid)
{
	const struct scope_bpf_site *site;
	size_t i;

	for (i = from; i < g->n; i++) {
		assert_int_equal(g->slot[i], g->slot[from]);
		assert_int_equal(g->tid[i], tid);
		assert_int_equal(g->site[i] & END, (i - from) % 2 ? END : 0);
		if (i > from)
			assert_true(g->time[i] >= g->time[i - 1]);
		/* The child is a fork of us: its descriptor is at the same address here. */
		site = (const struct scope_bpf_site *)(uintptr_t)(g->site[i] & ~END);
		assert_int_equal(site->magic, SCOPE_BPF_SITE_MAGIC);
		assert_string_equal(site->name, "work");
	}
}

static void test_real_writer_records_arrive_complete_and_in_order(void **state)
{
	struct sb_fast_mem_stats st;
	struct sb_fast_mem *m;
	struct sb_error err;
	struct got g = { 0 };
	struct child c;
	int fd = -1;

	(void)state;
	got_reset(&g);
	child_start(&c, 1000);
	assert_int_equal(sb_fast_mem_find(c.pid, &fd), 0);
	assert_int_equal(fd, c.fd);
	assert_int_equal(sb_fast_mem_adopt(&m, c.pid, c.fd, SB_FAST_MEM_NEW, &err), 0);
	assert_true(sb_fast_mem_clock(m) >= SCOPE_BPF_IMPL_CLOCK_TSC &&
		    sb_fast_mem_clock(m) <= SCOPE_BPF_IMPL_CLOCK_MONO);
	assert_int_equal(sb_fast_mem_drain(m, collect, &g), 2000);
	assert_int_equal(g.n, 2000);
	check_work_records(&g, 0, c.tid);
	assert_int_equal(sb_fast_mem_drain(m, collect, &g), 0);
	child_do(&c, 500);
	assert_int_equal(sb_fast_mem_drain(m, collect, &g), 1000);
	check_work_records(&g, 2000, c.tid);
	assert_true(g.time[2000] >= g.time[1999]);
	sb_fast_mem_stats(m, &st);
	assert_int_equal(st.records, 3000);
	assert_int_equal(st.lost, 0);
	assert_int_equal(st.dropped, 0);
	assert_int_equal(st.unslotted, 0);
	assert_int_equal(st.threads, 1);
	assert_int_equal(st.resyncs, 0);
	sb_fast_mem_close(m);
	child_end(&c);
	got_free(&g);
}

static void test_full_ring_drops_until_drained_then_has_room(void **state)
{
	struct sb_fast_mem_stats st;
	struct sb_fast_mem *m;
	struct sb_error err;
	struct got g = { 0 };
	struct child c;

	(void)state;
	got_reset(&g);
	/* RING + 3000 records with nobody draining: the last 3000 find the ring full. */
	child_start(&c, RING / 2 + 1500);
	assert_int_equal(sb_fast_mem_adopt(&m, c.pid, c.fd, SB_FAST_MEM_NEW, &err), 0);
	assert_int_equal(sb_fast_mem_drain(m, collect, &g), RING);
	check_work_records(&g, 0, c.tid);
	sb_fast_mem_stats(m, &st);
	assert_int_equal(st.dropped, 3000);
	assert_int_equal(st.lost, 0);
	/* The drain gave the room back: new records are written again. */
	child_do(&c, 10);
	assert_int_equal(sb_fast_mem_drain(m, collect, &g), 20);
	check_work_records(&g, RING, c.tid);
	sb_fast_mem_stats(m, &st);
	assert_int_equal(st.dropped, 3000);
	assert_int_equal(st.records, RING + 20);
	sb_fast_mem_close(m);
	child_end(&c);
	got_free(&g);
}

/*
 * A writer's child made by a raw clone system call runs no fork handler and
 * inherits its parent's thread-local view: it must still write memory of its
 * own, never its parent's ring, whose records stay complete and its own.
 */
static void test_raw_clone_child_never_writes_its_parents_ring(void **state)
{
	struct sb_fast_mem *m;
	struct sb_error err;
	struct got g = { 0 };
	struct child c;

	(void)state;
	got_reset(&g);
	child_start(&c, 1000);
	assert_int_equal(sb_fast_mem_adopt(&m, c.pid, c.fd, SB_FAST_MEM_NEW, &err), 0);
	assert_int_equal(child_do(&c, RAW_CLONE), 0);
	assert_int_equal(sb_fast_mem_drain(m, collect, &g), 2000 + 2 * CLONE_WORK);
	check_work_records(&g, 0, c.tid);
	sb_fast_mem_close(m);
	child_end(&c);
	got_free(&g);
}

/* Our own view of another process's memory, to watch what the recorder changed in it. */
static struct scope_bpf_impl_fast_hdr *peek(pid_t pid, int target_fd)
{
	int pidfd = (int)syscall(SYS_pidfd_open, pid, 0), fd;
	void *p;

	assert_true(pidfd >= 0);
	fd = (int)syscall(SYS_pidfd_getfd, pidfd, target_fd, 0);
	assert_true(fd >= 0);
	p = mmap(NULL, SCOPE_BPF_IMPL_PAGE, PROT_READ, MAP_SHARED, fd, 0);
	assert_true(p != MAP_FAILED);
	close(fd);
	close(pidfd);
	return p;
}

/* A child whose 100 calls one recording read whole before it let the memory go. */
static struct scope_bpf_impl_fast_hdr *read_by_a_first_recording(struct child *c, struct got *g)
{
	struct sb_fast_mem *m;
	struct sb_error err;

	got_reset(g);
	child_start(c, 100);
	assert_int_equal(sb_fast_mem_adopt(&m, c->pid, c->fd, SB_FAST_MEM_NEW, &err), 0);
	assert_int_equal(sb_fast_mem_drain(m, collect, g), 200);
	sb_fast_mem_close(m);
	return peek(c->pid, c->fd);
}

static void test_adopting_old_memory_reads_on_from_its_last_reader_and_renews_gen(void **state)
{
	struct scope_bpf_impl_fast_hdr *hdr;
	struct sb_fast_mem_stats st;
	struct sb_fast_mem *m;
	struct sb_error err;
	struct got g = { 0 };
	struct child c;
	uint32_t gen;

	(void)state;
	hdr = read_by_a_first_recording(&c, &g);
	/*
	 * Written after that recording's reader left: handed on from where it
	 * stopped (the source keeps only what is after its own start), so that
	 * a call made between attach and adoption is not skipped uncounted.
	 */
	child_do(&c, 50);
	gen = hdr->gen;
	assert_int_equal(sb_fast_mem_adopt(&m, c.pid, c.fd, SB_FAST_MEM_EARLIER, &err), 0);
	assert_int_not_equal(hdr->gen, gen);
	assert_int_equal(hdr->gen & 1, 1);
	assert_int_equal(sb_fast_mem_drain(m, collect, &g), 100);
	child_do(&c, 7);
	assert_int_equal(sb_fast_mem_drain(m, collect, &g), 14);
	check_work_records(&g, 200, c.tid);
	sb_fast_mem_stats(m, &st);
	assert_int_equal(st.records, 114);
	assert_int_equal(st.lost, 0);
	assert_int_equal(st.dropped, 0);
	sb_fast_mem_close(m);
	munmap(hdr, SCOPE_BPF_IMPL_PAGE);
	child_end(&c);
	got_free(&g);
}

/*
 * Adopted before the recording begins (-p): what an earlier recording's
 * reader left is not ours and is not read, so the ring has room at once.
 */
static void test_adopting_before_the_start_skips_the_backlog(void **state)
{
	struct scope_bpf_impl_fast_hdr *hdr;
	struct sb_fast_mem_stats st;
	struct sb_fast_mem *m;
	struct sb_error err;
	struct got g = { 0 };
	struct child c;

	(void)state;
	hdr = read_by_a_first_recording(&c, &g);
	child_do(&c, 50);
	assert_int_equal(sb_fast_mem_adopt(&m, c.pid, c.fd, SB_FAST_MEM_STALE, &err), 0);
	assert_int_equal(sb_fast_mem_drain(m, collect, &g), 0);
	child_do(&c, 7);
	assert_int_equal(sb_fast_mem_drain(m, collect, &g), 14);
	sb_fast_mem_stats(m, &st);
	assert_int_equal(st.records, 14);
	assert_int_equal(st.dropped, 0);
	sb_fast_mem_close(m);
	munmap(hdr, SCOPE_BPF_IMPL_PAGE);
	child_end(&c);
	got_free(&g);
}

static void test_exited_thread_frees_its_slot_for_the_next(void **state)
{
	struct sb_fast_mem_stats st;
	struct sb_fast_mem *m;
	struct sb_error err;
	struct got g = { 0 };
	struct child c;
	uint32_t t1, t2;

	(void)state;
	got_reset(&g);
	child_start(&c, 1);
	assert_int_equal(sb_fast_mem_adopt(&m, c.pid, c.fd, SB_FAST_MEM_NEW, &err), 0);
	t1 = child_do(&c, -5);
	assert_int_equal(sb_fast_mem_drain(m, collect, &g), 12);
	check_work_records(&g, 2, t1);
	assert_int_equal(g.slot[2], 1);
	/* The main thread lives: its slot stays. */
	sb_fast_mem_thread_gone(m, c.tid);
	wait_task_gone(c.pid, t1);
	sb_fast_mem_thread_gone(m, t1);
	t2 = child_do(&c, -3);
	assert_int_not_equal(t2, t1);
	child_do(&c, 1);
	assert_int_equal(sb_fast_mem_drain(m, collect, &g), 8);
	/* t2 took the slot t1 left (the lowest free), main kept slot 0. */
	assert_int_equal(g.slot[12], 0);
	assert_int_equal(g.tid[12], c.tid);
	check_work_records(&g, 14, t2);
	assert_int_equal(g.slot[14], 1);
	sb_fast_mem_stats(m, &st);
	assert_int_equal(st.threads, 3);
	assert_int_equal(st.lost, 0);
	assert_int_equal(st.records, 20);
	sb_fast_mem_close(m);
	child_end(&c);
	got_free(&g);
}

/* ---- A hostile target: the test process forges its own memory and adopts it. ---- */

struct forged {
	int fd;
	struct scope_bpf_impl_fast_hdr *hdr;
	struct scope_bpf_impl_fast_slot *slots;
	struct scope_bpf_impl_fast_rec *rings;
};

static void forge(struct forged *f, const char *name, uint64_t size)
{
	f->fd = memfd_create(name, MFD_CLOEXEC | MFD_ALLOW_SEALING);
	assert_true(f->fd >= 0);
	assert_int_equal(ftruncate(f->fd, (off_t)size), 0);
	f->hdr = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, f->fd, 0);
	assert_true(f->hdr != MAP_FAILED);
	f->slots = (void *)((char *)f->hdr + SCOPE_BPF_IMPL_FAST_SLOTS_AT);
	f->rings = (void *)((char *)f->hdr + SCOPE_BPF_IMPL_FAST_RINGS_AT);
	*f->hdr = (struct scope_bpf_impl_fast_hdr){
		.magic = SCOPE_BPF_IMPL_FAST_MAGIC,
		.version = SCOPE_BPF_IMPL_FAST_VERSION,
		.pid = (uint32_t)getpid(),
		.clock = SCOPE_BPF_IMPL_CLOCK_MONO,
		.slots = SCOPE_BPF_IMPL_FAST_SLOTS,
		.ring = RING,
		.stack = SCOPE_BPF_IMPL_FAST_STACK,
		.gen = 1,
		.size = SIZE,
	};
}

static void unforge(struct forged *f, uint64_t size)
{
	munmap(f->hdr, size);
	close(f->fd);
}

/* Records n of slot i: time = position, site = 0x1000 + position. */
static void write_recs(struct forged *f, uint32_t i, uint64_t from, uint64_t to)
{
	uint64_t p;

	for (p = from; p < to; p++)
		f->rings[(uint64_t)i * RING + (p & (RING - 1))] =
			(struct scope_bpf_impl_fast_rec){ .time = p, .site = 0x1000 + p };
	f->slots[i].head = to;
}

/* Adopting must fail with code, and the message must name this process. */
static void expect_refused(int fd, int code)
{
	struct sb_fast_mem *m = (void *)1;
	struct sb_error err = { { 0 } };
	char pid[32];

	assert_int_equal(sb_fast_mem_adopt(&m, getpid(), fd, SB_FAST_MEM_NEW, &err), code);
	assert_null(m);
	snprintf(pid, sizeof(pid), "process %d:", (int)getpid());
	assert_non_null(strstr(err.msg, pid));
}

static void test_refuses_memfd_of_another_name(void **state)
{
	struct forged f;

	(void)state;
	forge(&f, "x", SIZE);
	expect_refused(f.fd, -EINVAL);
	unforge(&f, SIZE);
}

static void test_refuses_regular_file(void **state)
{
	char path[] = "/tmp/test_fast_shm.XXXXXX";
	int fd = mkstemp(path);

	(void)state;
	assert_true(fd >= 0);
	assert_int_equal(ftruncate(fd, (off_t)SIZE), 0);
	expect_refused(fd, -EINVAL);
	unlink(path);
	/* Deleted, it still is no memfd, whatever it is called. */
	expect_refused(fd, -EINVAL);
	close(fd);
}

static void test_refuses_wrong_size(void **state)
{
	struct forged f;

	(void)state;
	forge(&f, "scope-bpf-fast", SIZE + SCOPE_BPF_IMPL_PAGE);
	expect_refused(f.fd, -EINVAL);
	unforge(&f, SIZE + SCOPE_BPF_IMPL_PAGE);
	forge(&f, "scope-bpf-fast", SIZE - SCOPE_BPF_IMPL_PAGE);
	expect_refused(f.fd, -EINVAL);
	unforge(&f, SIZE - SCOPE_BPF_IMPL_PAGE);
}

static void test_refuses_memory_the_target_sealed_against_us(void **state)
{
	struct forged f;

	(void)state;
	forge(&f, "scope-bpf-fast", SIZE);
	assert_int_equal(fcntl(f.fd, F_ADD_SEALS, F_SEAL_SEAL), 0);
	expect_refused(f.fd, -EINVAL);
	unforge(&f, SIZE);
}

static void test_refuses_bad_header(void **state)
{
	struct scope_bpf_impl_fast_hdr good;
	struct forged f;
	int i;

	(void)state;
	forge(&f, "scope-bpf-fast", SIZE);
	good = *f.hdr;
	for (i = 0; i < 9; i++) {
		*f.hdr = good;
		switch (i) {
		case 0: f.hdr->magic ^= 1; break;
		case 1: f.hdr->version = 2; break;
		case 2: f.hdr->pid = (uint32_t)getpid() + 1; break;
		case 3: f.hdr->slots = 512; break;
		case 4: f.hdr->ring = RING / 2; break;
		case 5: f.hdr->stack = 0; break;
		case 6: f.hdr->size = SIZE * 2; break;
		case 7: f.hdr->clock = 0; break;
		case 8: f.hdr->clock = 4; break;
		}
		expect_refused(f.fd, -EINVAL);
	}
	unforge(&f, SIZE);
}

static void test_refuses_missing_fd_and_process(void **state)
{
	struct sb_fast_mem *m;
	struct sb_error err;
	pid_t pid;
	int fd;

	(void)state;
	/* Neither open nor mapped (a closed fd's memory is looked for by its mapping). */
	expect_refused(1000, -ENOENT);
	/* This process runs no marker under a fast tracer: it made no memory. */
	assert_int_equal(sb_fast_mem_find(getpid(), &fd), -ENOENT);
	pid = fork();
	assert_true(pid >= 0);
	if (!pid)
		_exit(0);
	assert_int_equal(waitpid(pid, NULL, 0), pid);
	assert_int_equal(sb_fast_mem_adopt(&m, pid, 0, SB_FAST_MEM_NEW, &err), -ESRCH);
	assert_int_equal(sb_fast_mem_find(pid, &fd), -ENOENT);
}

static void test_refuses_without_right_to_trace(void **state)
{
	struct sb_fast_mem *m;
	struct sb_error err;
	struct forged f;
	int status;
	pid_t pid;

	(void)state;
	if (geteuid())
		skip();
	forge(&f, "scope-bpf-fast", SIZE);
	pid = fork();
	assert_true(pid >= 0);
	if (!pid) {
		/* Nobody may not take a root process's descriptors. */
		if (setresgid(65534, 65534, 65534) || setresuid(65534, 65534, 65534))
			_exit(100);
		_exit(-sb_fast_mem_adopt(&m, getppid(), f.fd, SB_FAST_MEM_NEW, &err));
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), EPERM);
	unforge(&f, SIZE);
}

static void test_target_cannot_resize_after_adoption(void **state)
{
	struct sb_fast_mem *m;
	struct sb_error err;
	struct got g = { 0 };
	struct forged f;
	int fd = -1;

	(void)state;
	got_reset(&g);
	forge(&f, "scope-bpf-fast", SIZE);
	f.slots[255].tid = my_tid();
	write_recs(&f, 255, 0, 3);
	assert_int_equal(sb_fast_mem_find(getpid(), &fd), 0);
	assert_int_equal(fd, f.fd);
	assert_int_equal(sb_fast_mem_adopt(&m, getpid(), f.fd, SB_FAST_MEM_NEW, &err), 0);
	assert_int_equal(ftruncate(f.fd, 0), -1);
	assert_int_equal(errno, EPERM);
	assert_int_equal(ftruncate(f.fd, (off_t)SIZE * 2), -1);
	assert_int_equal(errno, EPERM);
	/* The last ring, at the very end of the mapping, is still there. */
	f.rings[255 * (uint64_t)RING + RING - 1].time = 42;
	f.slots[255].head = RING;
	assert_int_equal(sb_fast_mem_drain(m, collect, &g), RING);
	assert_int_equal(g.time[RING - 1], 42);
	sb_fast_mem_close(m);
	unforge(&f, SIZE);
	got_free(&g);
}

static void test_head_beyond_a_ring_is_lost_not_read_out_of_bounds(void **state)
{
	struct sb_fast_mem_stats st;
	struct sb_fast_mem *m;
	struct sb_error err;
	struct got g = { 0 };
	struct forged f;

	(void)state;
	got_reset(&g);
	forge(&f, "scope-bpf-fast", SIZE);
	f.slots[3].tid = my_tid();
	write_recs(&f, 3, 0, RING + 5);
	assert_int_equal(sb_fast_mem_adopt(&m, getpid(), f.fd, SB_FAST_MEM_NEW, &err), 0);
	/* Only the newest ring can be there: the 5 before it are lost. */
	assert_int_equal(sb_fast_mem_drain(m, collect, &g), RING);
	assert_int_equal(g.time[0], 5);
	assert_int_equal(g.time[RING - 1], RING + 4);
	assert_int_equal(g.site[0], 0x1000 + 5);
	assert_int_equal(f.slots[3].tail, RING + 5);
	sb_fast_mem_stats(m, &st);
	assert_int_equal(st.lost, 5);
	assert_int_equal(st.resyncs, 1);
	/* A head near the top of the range: a ring is read, the lost count stays sane. */
	got_reset(&g);
	f.slots[3].head = UINT64_MAX - 1;
	assert_int_equal(sb_fast_mem_drain(m, collect, &g), RING);
	sb_fast_mem_stats(m, &st);
	assert_true(st.lost > 5 && st.lost < UINT64_MAX / 2);
	assert_int_equal(st.resyncs, 2);
	sb_fast_mem_close(m);
	unforge(&f, SIZE);
	got_free(&g);
}

static void test_head_going_back_resynchronises(void **state)
{
	struct sb_fast_mem_stats st;
	struct sb_fast_mem *m;
	struct sb_error err;
	struct got g = { 0 };
	struct forged f;

	(void)state;
	got_reset(&g);
	forge(&f, "scope-bpf-fast", SIZE);
	f.slots[0].tid = my_tid();
	write_recs(&f, 0, 0, 10);
	assert_int_equal(sb_fast_mem_adopt(&m, getpid(), f.fd, SB_FAST_MEM_NEW, &err), 0);
	assert_int_equal(sb_fast_mem_drain(m, collect, &g), 10);
	f.slots[0].head = 4;
	assert_int_equal(sb_fast_mem_drain(m, collect, &g), 0);
	assert_int_equal(f.slots[0].tail, 4);
	f.slots[0].head = 6;
	assert_int_equal(sb_fast_mem_drain(m, collect, &g), 2);
	assert_int_equal(g.time[10], 4);
	assert_int_equal(g.time[11], 5);
	sb_fast_mem_stats(m, &st);
	assert_int_equal(st.resyncs, 1);
	assert_int_equal(st.lost, 0);
	assert_int_equal(st.records, 12);
	sb_fast_mem_close(m);
	unforge(&f, SIZE);
	got_free(&g);
}

static void test_owner_as_snapshotted_and_ownerless_records_skipped(void **state)
{
	struct sb_fast_mem_stats st;
	struct sb_fast_mem *m;
	struct sb_error err;
	struct got g = { 0 };
	struct forged f;
	size_t i;

	(void)state;
	got_reset(&g);
	forge(&f, "scope-bpf-fast", SIZE);
	f.slots[1].tid = my_tid();
	write_recs(&f, 1, 0, 5);
	write_recs(&f, 2, 0, 7);	/* no owner */
	assert_int_equal(sb_fast_mem_adopt(&m, getpid(), f.fd, SB_FAST_MEM_NEW, &err), 0);
	assert_int_equal(sb_fast_mem_drain(m, collect, &g), 5);
	f.slots[1].tid = my_tid() + 1;
	write_recs(&f, 1, 5, 9);
	assert_int_equal(sb_fast_mem_drain(m, collect, &g), 4);
	for (i = 0; i < g.n; i++) {
		assert_int_equal(g.slot[i], 1);
		assert_int_equal(g.tid[i], my_tid() + (i < 5 ? 0 : 1));
		assert_int_equal(g.time[i], i);
	}
	sb_fast_mem_stats(m, &st);
	assert_int_equal(st.threads, 2);
	assert_int_equal(st.lost, 7);
	sb_fast_mem_close(m);
	unforge(&f, SIZE);
	got_free(&g);
}

static void test_fn_error_stops_and_the_record_comes_again(void **state)
{
	struct sb_fast_mem *m;
	struct sb_error err;
	struct got g = { 0 };
	struct forged f;
	size_t i;

	(void)state;
	got_reset(&g);
	forge(&f, "scope-bpf-fast", SIZE);
	f.slots[0].tid = my_tid();
	f.slots[4].tid = my_tid();
	/* An earlier reader left slot 0 there: this one reads on from it. */
	f.slots[0].head = RING - 300;
	f.slots[0].tail = RING - 300;
	assert_int_equal(sb_fast_mem_adopt(&m, getpid(), f.fd, SB_FAST_MEM_EARLIER, &err), 0);
	write_recs(&f, 0, RING - 300, RING + 300);	/* across the ring's end */
	write_recs(&f, 4, 0, 3);
	g.fail_at = 400;
	assert_int_equal(sb_fast_mem_drain(m, collect, &g), -EIO);
	assert_int_equal(g.n, 400);
	assert_int_equal(f.slots[0].tail, RING + 100);
	/* The pass stopped there: slot 4 comes after the rest of slot 0. */
	assert_int_equal(sb_fast_mem_drain(m, collect, &g), 203);
	for (i = 0; i < 600; i++) {
		assert_int_equal(g.slot[i], 0);
		assert_int_equal(g.time[i], RING - 300 + i);
	}
	for (i = 600; i < 603; i++)
		assert_int_equal(g.slot[i], 4);
	sb_fast_mem_close(m);
	unforge(&f, SIZE);
	got_free(&g);
}

/* Where an earlier reader left a ring is the target's word: one no reader could have left is not used. */
static void test_impossible_last_reader_reads_from_head(void **state)
{
	struct sb_fast_mem *m;
	struct sb_error err;
	struct got g = { 0 };
	struct forged f;

	(void)state;
	got_reset(&g);
	forge(&f, "scope-bpf-fast", SIZE);
	f.slots[0].tid = my_tid();
	write_recs(&f, 0, 0, 100);
	f.slots[0].tail = 500;		/* ahead of the head */
	f.slots[1].tid = my_tid();
	write_recs(&f, 1, RING, RING + 60);
	f.slots[1].tail = 0;		/* more than a ring behind it */
	f.slots[2].tid = my_tid();
	write_recs(&f, 2, 0, 40);
	f.slots[2].tail = 30;		/* where a reader can be */
	assert_int_equal(sb_fast_mem_adopt(&m, getpid(), f.fd, SB_FAST_MEM_EARLIER, &err), 0);
	assert_int_equal(sb_fast_mem_drain(m, collect, &g), 10);
	assert_int_equal(g.slot[0], 2);
	assert_int_equal(g.time[0], 30);
	sb_fast_mem_close(m);
	unforge(&f, SIZE);
	got_free(&g);
}

/*
 * What a memory dropped before it was adopted: an earlier recording's when
 * one had it (its generation renewed), ours when it was made as we attached.
 */
static void test_drops_of_a_memory_never_adopted_are_ours(void **state)
{
	struct sb_fast_mem_stats st;
	struct sb_fast_mem *m;
	struct sb_error err;
	struct forged f;
	int made_now;

	(void)state;
	for (made_now = 0; made_now < 2; made_now++) {
		forge(&f, "scope-bpf-fast", SIZE);
		f.hdr->gen = made_now ? (uint32_t)getpid() * 2654435761u | 1 : 0x12345677;
		f.slots[0].tid = my_tid();
		f.slots[0].dropped = 5;
		assert_int_equal(sb_fast_mem_adopt(&m, getpid(), f.fd, SB_FAST_MEM_EARLIER, &err), 0);
		sb_fast_mem_stats(m, &st);
		assert_int_equal(st.dropped, made_now ? 5 : 0);
		sb_fast_mem_close(m);
		unforge(&f, SIZE);
	}
}

static void test_slots_of_threads_gone_before_adoption_are_freed(void **state)
{
	const uint32_t dead = 0x7ffffff0;	/* above any pid_max: no such thread */
	struct sb_fast_mem *m;
	struct sb_error err;
	struct got g = { 0 };
	struct forged f;

	(void)state;
	got_reset(&g);
	forge(&f, "scope-bpf-fast", SIZE);
	f.slots[0].tid = my_tid();
	write_recs(&f, 0, 0, 2);
	f.slots[1].tid = dead;
	write_recs(&f, 1, 0, 9);
	f.slots[2].tid = dead + 1;
	write_recs(&f, 2, 0, 3);
	/* An earlier reader took their records: nothing holds the slots. */
	f.slots[1].tail = 9;
	f.slots[2].tail = 3;
	assert_int_equal(sb_fast_mem_adopt(&m, getpid(), f.fd, SB_FAST_MEM_EARLIER, &err), 0);
	assert_int_equal(f.slots[0].tid, my_tid());
	assert_int_equal(f.slots[1].tid, 0);
	assert_int_equal(f.slots[2].tid, 0);
	sb_fast_mem_close(m);
	/* Fresh: a dead thread's records are handed first, then its slot goes. */
	f.slots[1].tid = dead;
	assert_int_equal(sb_fast_mem_adopt(&m, getpid(), f.fd, SB_FAST_MEM_NEW, &err), 0);
	assert_int_equal(f.slots[1].tid, dead);
	/* Slot 2's records have no owner now: lost, not handed. */
	assert_int_equal(sb_fast_mem_drain(m, collect, &g), 2 + 9);
	assert_int_equal(f.slots[1].tid, 0);
	assert_int_equal(f.slots[0].tid, my_tid());
	sb_fast_mem_close(m);
	unforge(&f, SIZE);
	got_free(&g);
}

/* The slot's published tail as fn sees it at each record. */
struct watch {
	const uint64_t *tail;
	uint64_t n, tail_at_5000;
};

static int watch_tail(void *ctx, uint32_t slot, uint32_t tid, uint64_t time, uint64_t site)
{
	struct watch *w = ctx;

	(void)slot, (void)tid, (void)time, (void)site;
	if (w->n++ == 5000)
		w->tail_at_5000 = __atomic_load_n(w->tail, __ATOMIC_ACQUIRE);
	return 0;
}

static void test_room_is_given_back_during_a_long_drain(void **state)
{
	struct sb_fast_mem *m;
	struct sb_error err;
	struct forged f;
	struct watch w = { 0 };

	(void)state;
	forge(&f, "scope-bpf-fast", SIZE);
	f.slots[2].tid = my_tid();
	write_recs(&f, 2, 0, RING);
	assert_int_equal(sb_fast_mem_adopt(&m, getpid(), f.fd, SB_FAST_MEM_NEW, &err), 0);
	w.tail = &f.slots[2].tail;
	assert_int_equal(sb_fast_mem_drain(m, watch_tail, &w), RING);
	/* Past 4096 records the writer already has room; all of it at the end. */
	assert_int_equal(w.tail_at_5000, 4096);
	assert_int_equal(f.slots[2].tail, RING);
	sb_fast_mem_close(m);
	unforge(&f, SIZE);
}

static void *wait_for_word(void *arg)
{
	uint32_t *tid = arg;

	__atomic_store_n(tid, my_tid(), __ATOMIC_RELEASE);
	while (__atomic_load_n(tid, __ATOMIC_ACQUIRE))
		usleep(1000);
	return NULL;
}

static void test_slot_of_a_thread_still_listed_is_freed_by_a_later_drain(void **state)
{
	struct sb_fast_mem *m;
	struct sb_error err;
	struct got g = { 0 };
	struct forged f;
	uint32_t tid = 0, live;
	pthread_t th;

	(void)state;
	got_reset(&g);
	forge(&f, "scope-bpf-fast", SIZE);
	assert_int_equal(pthread_create(&th, NULL, wait_for_word, &tid), 0);
	while (!(live = __atomic_load_n(&tid, __ATOMIC_ACQUIRE)))
		usleep(1000);
	f.slots[7].tid = live;
	f.slots[7].depth = 3;
	write_recs(&f, 7, 0, 4);
	assert_int_equal(sb_fast_mem_adopt(&m, getpid(), f.fd, SB_FAST_MEM_NEW, &err), 0);
	/* Not drained yet, and alive: kept. */
	sb_fast_mem_thread_gone(m, live);
	assert_int_equal(f.slots[7].tid, live);
	assert_int_equal(sb_fast_mem_drain(m, collect, &g), 4);
	assert_int_equal(f.slots[7].tid, live);
	__atomic_store_n(&tid, 0, __ATOMIC_RELEASE);
	assert_int_equal(pthread_join(th, NULL), 0);
	wait_task_gone(getpid(), live);
	/* Records written since the last pass are handed before the slot goes. */
	write_recs(&f, 7, 4, 6);
	assert_int_equal(sb_fast_mem_drain(m, collect, &g), 2);
	assert_int_equal(f.slots[7].tid, 0);
	assert_int_equal(f.slots[7].depth, 0);
	assert_int_equal(f.slots[7].tail, 6);
	/* Another thread's slot is never freed by a tid that is not its owner. */
	f.slots[8].tid = live + 1;
	sb_fast_mem_thread_gone(m, live);
	assert_int_equal(f.slots[8].tid, live + 1);
	sb_fast_mem_close(m);
	unforge(&f, SIZE);
	got_free(&g);
}

static uint64_t boot_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_BOOTTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/*
 * What the process counts itself is cut to what its threads could have
 * written since adoption, on every CPU at once: the counts of each slot
 * together, however long the process lived before.
 */
static void test_forged_counts_stay_bounded(void **state)
{
	uint64_t before, bound;
	struct sb_fast_mem_stats st;
	struct sb_fast_mem *m;
	struct sb_error err;
	struct forged f;
	int i;

	(void)state;
	forge(&f, "scope-bpf-fast", SIZE);
	before = boot_ns();
	assert_int_equal(sb_fast_mem_adopt(&m, getpid(), f.fd, SB_FAST_MEM_NEW, &err), 0);
	f.slots[0].dropped = 17;
	sb_fast_mem_stats(m, &st);
	assert_int_equal(st.dropped, 17);
	assert_false(st.capped);
	for (i = 0; i < SCOPE_BPF_IMPL_FAST_SLOTS; i++)
		f.slots[i].dropped = UINT64_MAX / 512;
	f.hdr->unslotted = UINT64_MAX;
	sb_fast_mem_stats(m, &st);
	bound = (boot_ns() - before + 1) * (uint64_t)sysconf(_SC_NPROCESSORS_CONF) *
		SB_FAST_MAX_PER_NS;
	assert_true(st.capped);
	assert_true(st.dropped > 17 && st.dropped <= bound);
	assert_true(st.unslotted > 0 && st.unslotted <= bound);
	sb_fast_mem_close(m);
	unforge(&f, SIZE);
}

/* After the end, drains stop where the recording's records did: later ones are not its. */
static void test_records_after_the_end_are_not_read(void **state)
{
	struct sb_fast_mem_stats st;
	struct sb_fast_mem *m;
	struct sb_error err;
	struct got g = { 0 };
	struct forged f;

	(void)state;
	got_reset(&g);
	forge(&f, "scope-bpf-fast", SIZE);
	f.slots[0].tid = my_tid();
	assert_int_equal(sb_fast_mem_adopt(&m, getpid(), f.fd, SB_FAST_MEM_NEW, &err), 0);
	write_recs(&f, 0, 0, 100);
	assert_int_equal(sb_fast_mem_unread(m, 0), 100);
	sb_fast_mem_end(m);
	write_recs(&f, 0, 100, 150);
	assert_int_equal(sb_fast_mem_unread(m, 0), 100);
	assert_int_equal(sb_fast_mem_drain(m, collect, &g), 100);
	assert_int_equal(sb_fast_mem_drain(m, collect, &g), 0);
	assert_int_equal(g.time[99], 99);
	assert_int_equal(sb_fast_mem_unread(m, 0), 0);
	sb_fast_mem_stats(m, &st);
	assert_int_equal(st.unread, 0);
	sb_fast_mem_close(m);
	unforge(&f, SIZE);
	got_free(&g);
}

/* Records of the recording the recorder had no room for at the end are counted, not forgotten. */
static void test_records_left_unread_at_the_end_are_counted(void **state)
{
	struct sb_fast_mem_stats st;
	struct sb_fast_mem *m;
	struct sb_error err;
	struct got g = { 0 };
	struct forged f;

	(void)state;
	got_reset(&g);
	forge(&f, "scope-bpf-fast", SIZE);
	f.slots[3].tid = my_tid();
	assert_int_equal(sb_fast_mem_adopt(&m, getpid(), f.fd, SB_FAST_MEM_NEW, &err), 0);
	write_recs(&f, 3, 0, RING);
	sb_fast_mem_end(m);
	g.fail_at = 1000;
	assert_int_equal(sb_fast_mem_drain(m, collect, &g), -EIO);
	sb_fast_mem_stats(m, &st);
	assert_int_equal(st.records, 1000);
	assert_int_equal(st.unread, RING - 1000);
	assert_int_equal(st.dropped, 0);
	assert_int_equal(st.records + st.unread, RING);
	sb_fast_mem_close(m);
	unforge(&f, SIZE);
	got_free(&g);
}

/*
 * Drops before the recording's start (-p: a memory adopted while the recorder
 * attached) and after its end (threads go on writing while the recorder
 * nests) are not its.
 */
static void test_drops_outside_the_recording_are_not_counted(void **state)
{
	struct sb_fast_mem_stats st;
	struct sb_fast_mem *m;
	struct sb_error err;
	struct forged f;

	(void)state;
	forge(&f, "scope-bpf-fast", SIZE);
	assert_int_equal(sb_fast_mem_adopt(&m, getpid(), f.fd, SB_FAST_MEM_STALE, &err), 0);
	f.slots[0].dropped = 5;
	f.slots[1].dropped = 4;
	f.hdr->unslotted = 1;
	sb_fast_mem_begin(m);
	f.slots[0].dropped = 22;
	f.hdr->unslotted = 3;
	sb_fast_mem_end(m);
	f.slots[0].dropped = 5022;
	f.slots[1].dropped = 40;
	f.hdr->unslotted = 9;
	sb_fast_mem_stats(m, &st);
	assert_int_equal(st.dropped, 17);
	assert_int_equal(st.unslotted, 2);
	/* Ending twice keeps the first end's counts. */
	sb_fast_mem_end(m);
	sb_fast_mem_stats(m, &st);
	assert_int_equal(st.dropped, 17);
	sb_fast_mem_close(m);
	unforge(&f, SIZE);
}

static int count(void *ctx, uint32_t slot, uint32_t tid, uint64_t time, uint64_t site)
{
	uint64_t *sum = ctx;

	*sum += time ^ site ^ slot ^ tid;
	return 0;
}

/* Full rings of 16 slots (16 MiB, past the caches) drained over and over. */
static void test_drain_throughput(void **state)
{
	const uint32_t slots = 16, passes = 16;
	uint64_t sum = 0, t0, t1;
	struct timespec ts;
	struct sb_fast_mem *m;
	struct sb_error err;
	struct forged f;
	uint32_t i, p;
	long n = 0;
	double rate;

	(void)state;
	forge(&f, "scope-bpf-fast", SIZE);
	for (i = 0; i < slots; i++) {
		f.slots[i].tid = my_tid();
		write_recs(&f, i, 0, RING);
		f.slots[i].head = 0;
	}
	assert_int_equal(sb_fast_mem_adopt(&m, getpid(), f.fd, SB_FAST_MEM_NEW, &err), 0);
	clock_gettime(CLOCK_MONOTONIC, &ts);
	t0 = (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
	for (p = 0; p < passes; p++) {
		for (i = 0; i < slots; i++)
			f.slots[i].head = (uint64_t)(p + 1) * RING;
		n += sb_fast_mem_drain(m, count, &sum);
	}
	clock_gettime(CLOCK_MONOTONIC, &ts);
	t1 = (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
	assert_int_equal(n, (long)slots * passes * RING);
	rate = (double)n / ((double)(t1 - t0) / 1e9);
	printf("drain: %ld records in %.1f ms: %.0f M records/s\n", n, (double)(t1 - t0) / 1e6,
	       rate / 1e6);
#ifndef UNDER_ASAN
	assert_true(rate > 20e6);
#endif
	assert_int_not_equal(sum, 0);
	sb_fast_mem_close(m);
	unforge(&f, SIZE);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_real_writer_records_arrive_complete_and_in_order),
		cmocka_unit_test(test_full_ring_drops_until_drained_then_has_room),
		cmocka_unit_test(test_raw_clone_child_never_writes_its_parents_ring),
		cmocka_unit_test(test_adopting_old_memory_reads_on_from_its_last_reader_and_renews_gen),
		cmocka_unit_test(test_adopting_before_the_start_skips_the_backlog),
		cmocka_unit_test(test_exited_thread_frees_its_slot_for_the_next),
		cmocka_unit_test(test_refuses_memfd_of_another_name),
		cmocka_unit_test(test_refuses_regular_file),
		cmocka_unit_test(test_refuses_wrong_size),
		cmocka_unit_test(test_refuses_memory_the_target_sealed_against_us),
		cmocka_unit_test(test_refuses_bad_header),
		cmocka_unit_test(test_refuses_missing_fd_and_process),
		cmocka_unit_test(test_refuses_without_right_to_trace),
		cmocka_unit_test(test_target_cannot_resize_after_adoption),
		cmocka_unit_test(test_head_beyond_a_ring_is_lost_not_read_out_of_bounds),
		cmocka_unit_test(test_head_going_back_resynchronises),
		cmocka_unit_test(test_owner_as_snapshotted_and_ownerless_records_skipped),
		cmocka_unit_test(test_fn_error_stops_and_the_record_comes_again),
		cmocka_unit_test(test_room_is_given_back_during_a_long_drain),
		cmocka_unit_test(test_impossible_last_reader_reads_from_head),
		cmocka_unit_test(test_drops_of_a_memory_never_adopted_are_ours),
		cmocka_unit_test(test_slots_of_threads_gone_before_adoption_are_freed),
		cmocka_unit_test(test_slot_of_a_thread_still_listed_is_freed_by_a_later_drain),
		cmocka_unit_test(test_forged_counts_stay_bounded),
		cmocka_unit_test(test_records_after_the_end_are_not_read),
		cmocka_unit_test(test_records_left_unread_at_the_end_are_counted),
		cmocka_unit_test(test_drops_outside_the_recording_are_not_counted),
		cmocka_unit_test(test_drain_throughput),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
