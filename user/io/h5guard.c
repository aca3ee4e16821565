/*
 * HDF5 reads in a child process: libhdf5 trusts its files, and on a corrupt
 * one it can crash, abort on a heap it corrupted, loop or allocate without
 * end. None of that may reach the process that goes on to write files.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "io/h5guard.h"
#include "io/h5read.h"
#include "io/profile_read.h"
#include "io/profile_wire.h"

/* The watchdog: this many seconds of silence, plus one per 10 MB of file. */
#define WATCHDOG_BASE_S 5
/* The address space a read may add: this, plus this many bytes per byte of file. */
#define READ_MEM_BASE (1ull << 30)
#define READ_MEM_PER_BYTE 256
/* Events per frame of a pass. */
#define PASS_ROWS 16384
/* Fewer switches between child and parent; a smaller pipe works too. */
#define PIPE_BYTES (1 << 20)
/* What a child's -errno can be. */
#define MAX_ERRNO 4095

#if defined(__SANITIZE_ADDRESS__)
#define SB_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SB_SANITIZED 1
#endif
#endif
#ifndef SB_SANITIZED
#define SB_SANITIZED 0
#endif

/* One reader child and the limits it runs under. */
struct child {
	const char *path;
	pid_t pid;
	int fd;			/* the read end of its pipe */
	unsigned limit_s;	/* the longest the parent waits for its next bytes */
	uint64_t cap;		/* its address-space cap; 0: none set */
};

/* Address space in use now, from /proc/self/statm; 0 when unknown. */
static uint64_t address_space(void)
{
	unsigned long long pages = 0;
	FILE *f = fopen("/proc/self/statm", "r");

	if (!f)
		return 0;
	if (fscanf(f, "%llu", &pages) != 1)
		pages = 0;
	fclose(f);
	return pages * (uint64_t)sysconf(_SC_PAGESIZE);
}

/*
 * libhdf5 allocates sizes read from the file before it checks them (a vlen
 * length of 4 GiB in a 25 KiB file, a compressed column that inflates
 * a thousandfold): the child runs with the address space capped to what any
 * real file of this size needs, so such a malloc fails at once instead of
 * paging for a minute. Sanitizers reserve terabytes of shadow memory up
 * front: under them no cap is set.
 */
static uint64_t memory_cap(uint64_t file_size)
{
	uint64_t used = address_space(), budget = READ_MEM_BASE;
	struct rlimit old;

	if (SB_SANITIZED || !used || getrlimit(RLIMIT_AS, &old))
		return 0;
	if (file_size > (UINT64_MAX - budget - used) / READ_MEM_PER_BYTE)
		return 0;
	budget += used + file_size * READ_MEM_PER_BYTE;
	if (old.rlim_cur != RLIM_INFINITY && old.rlim_cur <= budget)
		return 0;
	return budget;
}

static void size_limits(struct child *c)
{
	uint64_t size = 0;
	struct stat st;

	if (!stat(c->path, &st))
		size = (uint64_t)st.st_size;
	/* Real reads run at well over 10 MB/s: a few seconds more catch endless loops early. */
	c->limit_s = WATCHDOG_BASE_S + (unsigned)(size / (10 << 20));
	c->cap = memory_cap(size);
}

/* Everything the child must not share with its parent. */
static void child_setup(const struct child *c, pid_t parent, int wfd)
{
	struct rlimit as, core = { 0, 0 };
	sigset_t all;
	int sig, fd;

	/* Gone with the parent: a reader stuck in the library must not outlive the command. */
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != parent)
		_exit(1);
	/* The parent's handlers (a command's, a test runner's) must not resume after a crash. */
	for (sig = 1; sig < NSIG; sig++)
		signal(sig, SIG_DFL);
	sigfillset(&all);
	sigprocmask(SIG_UNBLOCK, &all, NULL);
	setrlimit(RLIMIT_CORE, &core);
	if (c->cap && !getrlimit(RLIMIT_AS, &as)) {
		as.rlim_cur = c->cap;
		setrlimit(RLIMIT_AS, &as);
	}
	/* The parent's one line tells it all; a sanitizer's report is the point of its build. */
	fd = SB_SANITIZED ? -1 : open("/dev/null", O_WRONLY | O_CLOEXEC);
	if (fd > STDERR_FILENO) {
		dup2(fd, STDERR_FILENO);
		close(fd);
	}
	/* No file of the parent's (a profile being written) for the library to touch. */
	if (wfd > 3)
		close_range(3, (unsigned)wfd - 1, 0);
	close_range((unsigned)wfd + 1, ~0u, 0);
}

/* The test hook (h5guard.h): abort, as libhdf5 does, when the test names this file and stage. */
static void test_abort(const char *path, const char *stage)
{
	const char *v = getenv(SB_H5_TEST_ABORT_ENV);
	size_t n = strlen(stage);

	if (v && !strncmp(v, stage, n) && v[n] == ':')
		v += n + 1;
	if (v && !strcmp(v, path))
		abort();
}

typedef void (*child_body)(const struct child *c, struct sb_wire_out *w, const void *ctx);

/* Fork a child that runs body with the pipe's write end; c->fd is the read end. */
static int child_start(struct child *c, child_body body, const void *ctx, struct sb_error *err)
{
	pid_t parent = getpid();
	struct sb_wire_out *w;
	int fds[2];

	size_limits(c);
	if (pipe2(fds, O_CLOEXEC))
		return sb_fail(err, errno, "%s: cannot start its reader: %s", c->path,
			       strerror(errno));
	fcntl(fds[1], F_SETPIPE_SZ, PIPE_BYTES);
	c->pid = fork();
	if (c->pid < 0) {
		close(fds[0]);
		close(fds[1]);
		return sb_fail(err, errno, "%s: cannot start its reader: %s", c->path,
			       strerror(errno));
	}
	if (!c->pid) {
		child_setup(c, parent, fds[1]);
		w = malloc(sizeof(*w));
		if (!w)
			_exit(1);
		sb_wire_out_init(w, fds[1]);
		body(c, w, ctx);
		/* _exit: the parent's buffered output and exit handlers are the parent's. */
		_exit(sb_wire_flush(w) ? 1 : 0);
	}
	close(fds[1]);
	c->fd = fds[0];
	return 0;
}

/*
 * Reap the child; ret says how reading what it sent went. When that failed,
 * what happened to the child says why, into err naming the file. why: the
 * decoder's, for a malformed result.
 */
static int child_end(struct child *c, int ret, const char *why, struct sb_error *err)
{
	int status = 0;
	pid_t w;

	/* It may still run: stuck in the library, or writing what nobody will read. */
	if (ret)
		kill(c->pid, SIGKILL);
	close(c->fd);
	do {
		w = waitpid(c->pid, &status, 0);
	} while (w < 0 && errno == EINTR);
	if (!ret)
		return 0;
	if (ret == -ETIMEDOUT)
		return sb_fail(err, EINVAL, "%s: corrupt HDF5 file (the HDF5 library was still "
			       "reading it after %u s)", c->path, c->limit_s);
	if (ret == -EPROTO)
		return sb_fail(err, EINVAL, "%s: its reader sent a malformed result (%s)", c->path,
			       why);
	if (ret == -ENOMEM)
		return sb_fail(err, ENOMEM, "%s: out of memory", c->path);
	if (w == c->pid && WIFSIGNALED(status))
		return sb_fail(err, EINVAL, "%s: corrupt HDF5 file (the HDF5 library crashed "
			       "reading it: %s)", c->path, strsignal(WTERMSIG(status)));
	if (w == c->pid && WIFEXITED(status) && WEXITSTATUS(status))
		return sb_fail(err, EINVAL, "%s: corrupt HDF5 file (its reader failed with "
			       "status %d)", c->path, WEXITSTATUS(status));
	return sb_fail(err, EINVAL, "%s: its reader ended without a result (%s)", c->path,
		       strerror(-ret));
}

/* How the child's reader ended: 0, or its -errno then its message. */
static void put_outcome(struct sb_wire_out *w, int64_t ret, const struct sb_error *err)
{
	sb_wire_put_i64(w, ret);
	if (ret)
		sb_wire_put_str(w, err->msg);
}

/* The message that follows a failed outcome, into err. */
static int get_message(struct sb_wire_in *in, struct sb_error *err)
{
	char *msg;

	if (sb_wire_get_str(in, &msg, sizeof(err->msg) - 1, false))
		return in->err;
	snprintf(err->msg, sizeof(err->msg), "%s", msg);
	free(msg);
	return 0;
}

static int get_outcome(struct sb_wire_in *in, int *outcome, struct sb_error *err)
{
	int64_t v;

	if (sb_wire_get_i64(in, &v))
		return in->err;
	if (v > 0 || v < -MAX_ERRNO)
		return sb_wire_malformed(in, "outcome %lld", (long long)v);
	*outcome = (int)v;
	return v ? get_message(in, err) : 0;
}

/* ---- the whole read ---- */

#ifdef SB_FUZZING
/* Fuzz builds: the fuzzer must see a crash inside libhdf5 as a crash, to sort it. */
int sb_h5_read_guarded(const char *path, struct sb_profile *p, unsigned flags,
		       struct sb_error *err)
{
	return sb_h5_read_opts(path, p, flags, err);
}
#else
static void read_whole(const struct child *c, struct sb_wire_out *w, const void *ctx)
{
	struct sb_error err = { .msg = "" };
	const unsigned *flags = ctx;
	struct sb_profile p;
	int ret;

	test_abort(c->path, "read");
	ret = sb_h5_read_opts(c->path, &p, *flags, &err);
	put_outcome(w, ret, &err);
	if (!ret)
		sb_wire_put_profile(w, &p);
}

/* The child ran out of its cap: the file asks for more than its size can justify. */
static int too_big(const struct child *c, struct sb_error *err)
{
	return sb_fail(err, EINVAL, "%s: corrupt HDF5 file (reading it needs more than %llu MiB, "
		       "more than a profile of its size can)", c->path,
		       (unsigned long long)(c->cap >> 20));
}

int sb_h5_read_guarded(const char *path, struct sb_profile *p, unsigned flags,
		       struct sb_error *err)
{
	struct child c = { .path = path };
	struct sb_wire_in *in;
	int ret, outcome = 0;

	sb_profile_init(p);
	in = malloc(sizeof(*in));
	if (!in)
		return sb_fail(err, ENOMEM, "%s: out of memory", path);
	ret = child_start(&c, read_whole, &flags, err);
	if (ret) {
		free(in);
		return ret;
	}
	/* Nothing more can come than this process could hold. */
	sb_wire_in_init(in, c.fd, c.limit_s * 1000ll, sb_read_memory_limit());
	sb_wire_in_writer(in, c.pid);
	ret = get_outcome(in, &outcome, err);
	if (!ret && !outcome)
		ret = sb_wire_get_profile(in, p);
	ret = child_end(&c, ret, in->why, err);
	free(in);
	if (ret)
		return ret;
	return outcome == -ENOMEM && c.cap ? too_big(&c, err) : outcome;
}
#endif

/* ---- passes over the events ---- */

/* The event fields a pass can send, each with the column bit that asks for it. */
static const struct {
	unsigned bit;
	size_t off;
} pass_fields[] = {
	{ SB_COL_TIMES, offsetof(struct sb_event, start) },
	{ SB_COL_TIMES, offsetof(struct sb_event, end) },
	{ SB_COL_THREAD, offsetof(struct sb_event, thread) },
	{ SB_COL_CALL_ID, offsetof(struct sb_event, call_id) },
	{ SB_COL_PARENT_ID, offsetof(struct sb_event, parent_id) },
	{ SB_COL_GPU, offsetof(struct sb_event, metric[SB_METRIC_GPU]) },
	{ SB_COL_OFFCPU, offsetof(struct sb_event, metric[SB_METRIC_OFFCPU]) },
};

#define N_FIELDS (sizeof(pass_fields) / sizeof(pass_fields[0]))
_Static_assert(SB_N_ROW_METRICS == 2, "pass_fields lists every metric of an event row");

#define COUNTER_COLUMNS (SB_COL_METRIC(SB_N_METRICS) - SB_COL_METRIC(SB_METRIC_COUNTER))

/*
 * What one pass sends, worked out alike by the child and the parent: per
 * event the fields asked for that the profile has, then its counter row
 * when a counter column is asked for. Only these cross the pipe.
 */
struct pass_plan {
	const struct sb_profile *p;
	unsigned mask;
	size_t off[N_FIELDS];	/* the fields sent, as offsets into struct sb_event */
	size_t n_fields;
	size_t stride;		/* counter values per event; 0: no counter rows */
};

static void plan_pass(struct pass_plan *a, const struct sb_profile *p, unsigned mask)
{
	unsigned f, bit;

	*a = (struct pass_plan){ .p = p, .mask = mask };
	for (f = 0; f < N_FIELDS; f++) {
		bit = pass_fields[f].bit;
		if ((mask & bit) && (bit == SB_COL_TIMES || (p->columns & bit)))
			a->off[a->n_fields++] = pass_fields[f].off;
	}
	if (mask & p->columns & COUNTER_COLUMNS)
		a->stride = sb_counter_stride(sb_profile_counter_slots(p));
}

/* Values in one frame of PASS_ROWS events: the fields, then the counter rows. */
static size_t frame_values(const struct pass_plan *a)
{
	return PASS_ROWS * (a->n_fields + a->stride);
}

static int64_t *field(struct sb_event *e, size_t off)
{
	return (int64_t *)((char *)e + off);
}

/* n > 0 events as a frame: their count, their fields row by row, their counter rows. */
static void put_frame(struct sb_wire_out *w, const struct pass_plan *a, struct sb_event *rows,
		      const int64_t *counters, size_t n, int64_t *frame)
{
	size_t i, j, k = 0;

	for (i = 0; i < n; i++)
		for (j = 0; j < a->n_fields; j++)
			frame[k++] = *field(&rows[i], a->off[j]);
	sb_wire_put_i64(w, (int64_t)n);
	sb_wire_put(w, frame, k * sizeof(*frame));
	sb_wire_put(w, counters, n * a->stride * sizeof(*counters));
}

static void read_pass(const struct child *c, struct sb_wire_out *w, const void *ctx)
{
	const struct pass_plan *a = ctx;
	struct sb_error err = { .msg = "" };
	struct sb_event_stream *s;
	struct sb_h5_source src;
	struct sb_event *rows;
	int64_t *counters, *frame;
	ssize_t got;
	int ret;

	rows = malloc(PASS_ROWS * sizeof(*rows));
	frame = malloc((frame_values(a) + 1) * sizeof(*frame));
	counters = a->stride ? malloc(PASS_ROWS * a->stride * sizeof(*counters)) : NULL;
	if (!rows || !frame || (a->stride && !counters)) {
		sb_fail(&err, ENOMEM, "%s: out of memory", c->path);
		put_outcome(w, -ENOMEM, &err);
		return;
	}
	test_abort(c->path, "pass");
	sb_h5_source_init(&src, c->path, a->p);
	ret = src.base.open(&src.base, a->mask, &s, &err);
	put_outcome(w, ret, &err);
	if (ret)
		return;
	while ((got = s->read(s, rows, counters, PASS_ROWS)) > 0)
		put_frame(w, a, rows, counters, (size_t)got, frame);
	if (got < 0 && !err.msg[0])
		sb_fail(&err, (int)-got, "%s: cannot read events: %s", c->path,
			strerror((int)-got));
	/* 0 ends the pass; a failure ends it with its message. */
	put_outcome(w, got, &err);
}

/* One pass in the parent: its child and the frame it sent last. */
struct pass {
	struct sb_event_stream base;
	struct child c;
	struct pass_plan plan;
	struct sb_error *err;
	uint64_t left;		/* events still to come */
	int64_t *frame;		/* as put_frame() sent it */
	size_t rows, next;	/* events in the frame, and the next to hand out */
	bool ended;		/* the child is reaped */
	int ret;		/* once ended: 0, or why the pass failed */
	struct sb_event blank;
	struct sb_wire_in in;
};

/* The pass is over: the child reaped, and ret (0 or why) kept for every later read. */
static int pass_end(struct pass *ps, int ret)
{
	ps->ret = child_end(&ps->c, ret, ps->in.why, ps->err);
	ps->ended = true;
	return ps->ret;
}

/* The next frame's event count; 0 at the end, or why the pass failed. */
static ssize_t next_frame(struct pass *ps)
{
	int64_t n;

	if (ps->ended)
		return ps->ret;
	if (sb_wire_get_i64(&ps->in, &n))
		return pass_end(ps, ps->in.err);
	if (n < 0) {
		if (n < -MAX_ERRNO || get_message(&ps->in, ps->err))
			return pass_end(ps, sb_wire_malformed(&ps->in, "outcome %lld",
							      (long long)n));
		pass_end(ps, 0);
		return ps->ret = (int)n;
	}
	if (!n && ps->left)
		return pass_end(ps, sb_wire_malformed(&ps->in, "the events end %llu early",
						      (unsigned long long)ps->left));
	if (!n)
		return pass_end(ps, 0);
	if (n > PASS_ROWS || (uint64_t)n > ps->left)
		return pass_end(ps, sb_wire_malformed(&ps->in, "a frame of %lld events",
						      (long long)n));
	if (sb_wire_get(&ps->in, ps->frame,
			(size_t)n * (ps->plan.n_fields + ps->plan.stride) * sizeof(*ps->frame)))
		return pass_end(ps, ps->in.err);
	ps->left -= (uint64_t)n;
	ps->rows = (size_t)n;
	ps->next = 0;
	return n;
}

/* k events of the frame from ps->next into rows, and into counters when asked for. */
static void unpack(struct pass *ps, struct sb_event *rows, int64_t *counters, size_t k)
{
	size_t stride = sb_counter_stride(sb_profile_counter_slots(ps->plan.p)), i, j;
	const struct pass_plan *a = &ps->plan;
	const int64_t *v = ps->frame + ps->next * a->n_fields;

	for (i = 0; i < k; i++) {
		rows[i] = ps->blank;
		for (j = 0; j < a->n_fields; j++)
			*field(&rows[i], a->off[j]) = *v++;
	}
	if (counters && a->stride)
		memcpy(counters, ps->frame + ps->rows * a->n_fields + ps->next * stride,
		       k * stride * sizeof(*counters));
	else
		for (i = 0; counters && i < k * stride; i++)
			counters[i] = -1;
}

static ssize_t pass_read(struct sb_event_stream *s, struct sb_event *rows, int64_t *counters,
			 size_t max)
{
	struct pass *ps = (struct pass *)s;
	ssize_t got;
	size_t k;

	if (ps->next == ps->rows) {
		got = next_frame(ps);
		if (got <= 0)
			return got;
	}
	k = ps->rows - ps->next < max ? ps->rows - ps->next : max;
	unpack(ps, rows, counters, k);
	ps->next += k;
	return (ssize_t)k;
}

static void pass_free(struct pass *ps)
{
	free(ps->frame);
	free(ps);
}

static int pass_open(struct sb_event_source *src, unsigned mask, struct sb_event_stream **s,
		     struct sb_error *err)
{
	struct sb_h5_guarded_source *g = (struct sb_h5_guarded_source *)src;
	struct pass *ps;
	int ret, outcome = 0;

	ps = calloc(1, sizeof(*ps));
	if (!ps)
		return sb_fail(err, ENOMEM, "%s: out of memory", g->path);
	ps->base.read = pass_read;
	ps->c.path = g->path;
	ps->err = err;
	ps->left = g->p->n_events;
	sb_event_blank(&ps->blank);
	plan_pass(&ps->plan, g->p, mask);
	ps->frame = malloc((frame_values(&ps->plan) + 1) * sizeof(*ps->frame));
	ret = ps->frame ? child_start(&ps->c, read_pass, &ps->plan, err) :
			  sb_fail(err, ENOMEM, "%s: out of memory", g->path);
	if (ret) {
		pass_free(ps);
		return ret;
	}
	/* Frames are bounded one by one: the budget is not what limits a pass. */
	sb_wire_in_init(&ps->in, ps->c.fd, ps->c.limit_s * 1000ll, UINT64_MAX);
	sb_wire_in_writer(&ps->in, ps->c.pid);
	ret = get_outcome(&ps->in, &outcome, err);
	if (ret || outcome) {
		ret = child_end(&ps->c, ret, ps->in.why, err);
		pass_free(ps);
		return ret ? ret : outcome;
	}
	*s = &ps->base;
	return 0;
}

static void pass_close(struct sb_event_source *src, struct sb_event_stream *s)
{
	struct pass *ps = (struct pass *)s;

	(void)src;
	/* Closed before its end: the child is stopped, not waited for. */
	if (!ps->ended)
		child_end(&ps->c, -ECANCELED, NULL, NULL);
	pass_free(ps);
}

void sb_h5_guarded_source_init(struct sb_h5_guarded_source *s, const char *path,
			       const struct sb_profile *p)
{
	*s = (struct sb_h5_guarded_source){ .base = { pass_open, pass_close }, .path = path,
					    .p = p };
}
