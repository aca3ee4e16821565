/* HDF5 read in a child (io/h5guard.c), the model through its pipe (io/profile_wire.c). */
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cuda_fixture.h"
#include "io/h5guard.h"
#include "io/profile_read.h"
#include "io/profile_wire.h"
#include "same_samples.h"

/* ---- a profile with every table the wire carries ---- */

static void add_samples(struct sb_samples *s)
{
	static const uint32_t ids[] = { 0, 1 };
	static const struct sb_stack stack = { 0, 2 };
	static const struct sb_sample row = { SB_SAMPLE_CPU, 0, 0, 0, 0, -1, 5, 0 };
	static const struct sb_timed_sample timed[] = {
		{ 210, 0, 3, 0, 0, 0, -1 }, { 260, 0, 1, 0, -1, 0, -1 },
	};

	s->frames = calloc(2, sizeof(*s->frames));
	assert_non_null(s->frames);
	s->frames[0] = (struct sb_frame_sym){ strdup("solve"), strdup("app.cu"), 21,
					      strdup("/app"), 0x1010, true };
	s->frames[1] = (struct sb_frame_sym){ strdup("main"), strdup(""), -1, strdup("/app"),
					      0x1000, false };
	s->n_frames = 2;
	s->stack_frames = fx_copy(ids, sizeof(ids));
	s->n_stack_frames = 2;
	s->stacks = fx_copy(&stack, sizeof(stack));
	s->n_stacks = 1;
	s->paths = calloc(1, sizeof(*s->paths));
	assert_non_null(s->paths);
	s->paths[0] = (struct sb_region_path){ -1, strdup("main") };
	s->n_paths = 1;
	s->samples = fx_copy(&row, sizeof(row));
	s->n_samples = 1;
	s->timeline = fx_copy(timed, sizeof(timed));
	s->n_timeline = 2;
}

/* cu_build()'s two ranks with CUDA activity, plus counters, off-CPU times, a process, samples. */
static void build_full(struct sb_profile *p)
{
	static const struct sb_process proc = { 4242, 1, 0, 90, 1100, 0, "./app --n 3" };
	size_t i;

	cu_build(p, true);
	free(p->regions[CU_SOLVE].source_text);
	p->regions[CU_SOLVE].source_text = strdup("solve(a, n);");
	p->columns |= SB_COL_OFFCPU | SB_COL_METRIC(SB_METRIC_COUNTER) |
		      SB_COL_METRIC(SB_METRIC_COUNTER_EXCL);
	assert_int_equal(sb_profile_alloc_counters(p), 0);
	for (i = 0; i < p->n_events; i++) {
		p->events[i].metric[SB_METRIC_OFFCPU] = 3 * (int64_t)i;
		sb_event_set_metric(p, i, SB_METRIC_COUNTER, 100 + (int64_t)i);
		sb_event_set_metric(p, i, SB_METRIC_COUNTER_EXCL, 50 + (int64_t)i);
	}
	assert_int_equal(sb_profile_set_str(p, "counter_events", "page-faults"), 0);
	assert_int_equal(sb_profile_set_str(p, "label", "wire test"), 0);
	fx_add_processes(p, &proc, 1);
	add_samples(&p->samples);
}

/* ---- comparing profiles field by field, not through the code under test ---- */

static void same_regions(const struct sb_profile *a, const struct sb_profile *b)
{
	size_t i;

	assert_int_equal(b->n_regions, a->n_regions);
	for (i = 0; i < a->n_regions; i++) {
		assert_string_equal(b->regions[i].name, a->regions[i].name);
		assert_string_equal(b->regions[i].source_file, a->regions[i].source_file);
		assert_int_equal(b->regions[i].source_line, a->regions[i].source_line);
		assert_string_equal(b->regions[i].source_text, a->regions[i].source_text);
		assert_string_equal(b->regions[i].tags, a->regions[i].tags);
	}
}

static void same_threads_and_processes(const struct sb_profile *a, const struct sb_profile *b)
{
	const struct sb_thread *s, *t;
	const struct sb_process *x, *y;
	size_t i;

	assert_int_equal(b->n_threads, a->n_threads);
	for (i = 0; i < a->n_threads; i++) {
		s = &a->threads[i];
		t = &b->threads[i];
		assert_true(s->rank == t->rank && s->index == t->index && s->tid == t->tid &&
			    s->start_ns == t->start_ns && s->end_ns == t->end_ns &&
			    s->cpu_ns == t->cpu_ns);
		assert_string_equal(t->name, s->name);
	}
	assert_int_equal(b->n_processes, a->n_processes);
	for (i = 0; i < a->n_processes; i++) {
		x = &a->processes[i];
		y = &b->processes[i];
		assert_true(x->pid == y->pid && x->ppid == y->ppid && x->rank == y->rank &&
			    x->start_ns == y->start_ns && x->end_ns == y->end_ns &&
			    x->exit_code == y->exit_code);
		assert_string_equal(y->command, x->command);
	}
}

static void same_meta(const struct sb_profile *a, const struct sb_profile *b)
{
	size_t i;

	assert_int_equal(b->n_meta, a->n_meta);
	for (i = 0; i < a->n_meta; i++) {
		assert_string_equal(b->meta[i].key, a->meta[i].key);
		assert_int_equal(b->meta[i].is_int, a->meta[i].is_int);
		if (a->meta[i].is_int)
			assert_int_equal(b->meta[i].i, a->meta[i].i);
		else
			assert_string_equal(b->meta[i].s, a->meta[i].s);
	}
}


static void same_cuda(const struct sb_cuda_data *a, const struct sb_cuda_data *b)
{
	size_t i;

	assert_int_equal(b->n_acts, a->n_acts);
	assert_memory_equal(b->acts, a->acts, a->n_acts * sizeof(*a->acts));
	assert_int_equal(b->n_names, a->n_names);
	for (i = 0; i < a->n_names; i++)
		assert_string_equal(b->names[i], a->names[i]);
}

static void same_profile(const struct sb_profile *a, const struct sb_profile *b)
{
	size_t stride = sb_counter_stride(sb_profile_counter_slots(a));

	assert_int_equal(b->schema, a->schema);
	assert_string_equal(b->format, a->format);
	assert_int_equal(b->columns, a->columns);
	same_regions(a, b);
	assert_int_equal(b->n_pairs, a->n_pairs);
	assert_memory_equal(b->pairs, a->pairs, a->n_pairs * sizeof(*a->pairs));
	same_threads_and_processes(a, b);
	assert_int_equal(b->n_events, a->n_events);
	assert_int_equal(b->events == NULL, a->events == NULL);
	if (a->events)
		assert_memory_equal(b->events, a->events, a->n_events * sizeof(*a->events));
	assert_int_equal(b->counters == NULL, a->counters == NULL);
	if (a->counters)
		assert_memory_equal(b->counters, a->counters,
				    a->n_events * stride * sizeof(*a->counters));
	same_meta(a, b);
	assert_same_samples(&a->samples, &b->samples);
	same_cuda(&a->cuda, &b->cuda);
}

/* No child is left behind, running or unreaped. */
static void no_children(void)
{
	assert_int_equal(waitpid(-1, NULL, WNOHANG), -1);
	assert_int_equal(errno, ECHILD);
}

/* ---- the guarded read is the read ---- */

static void test_guarded_read_is_the_read(void **state)
{
	const char *path = tmp_path("full.h5");
	struct sb_error err = { .msg = "" };
	struct sb_profile src, a, b;
	unsigned flags;

	(void)state;
	build_full(&src);
	if (fx_write_h5(path, &src, &err))
		fail_msg("%s", err.msg);
	for (flags = 0; flags <= SB_H5_READ_LEAN; flags += SB_H5_READ_LEAN) {
		if (sb_h5_read_opts(path, &a, flags, &err) ||
		    sb_h5_read_guarded(path, &b, flags, &err))
			fail_msg("%s", err.msg);
		/* Every table has rows to carry; lean leaves events and counters on disk. */
		assert_true(a.samples.n_samples && a.cuda.n_acts && a.n_processes);
		assert_int_equal(a.counters != NULL, !flags);
		same_profile(&a, &b);
		sb_profile_free(&a);
		sb_profile_free(&b);
	}
	sb_profile_free(&src);
	no_children();
}

/* One region's n calls with off-CPU times and counters: more than one frame of a pass. */
static void build_many(struct sb_profile *p, size_t n)
{
	struct sb_thread th = { .rank = 0, .index = 0, .tid = 42, .end_ns = -1, .cpu_ns = -1,
				.name = "app" };
	struct sb_event *e = calloc(n, sizeof(*e));
	size_t i;

	assert_non_null(e);
	sb_profile_init(p);
	p->format = strdup("synthetic");
	assert_int_equal(sb_profile_add_region(p, "step", "app.c", 3, "[]"), 0);
	assert_int_equal(sb_profile_set_str(p, "counter_events", "page-faults"), 0);
	fx_add_threads(p, &th, 1);
	p->columns = SB_COL_THREAD | SB_COL_CALL_ID | SB_COL_PARENT_ID | SB_COL_OFFCPU |
		     SB_COL_METRIC(SB_METRIC_COUNTER) | SB_COL_METRIC(SB_METRIC_COUNTER_EXCL);
	for (i = 0; i < n; i++)
		e[i] = (struct sb_event){ .start = 10 * (int64_t)i, .end = 10 * (int64_t)i + 7,
					  .thread = 0, .call_id = (int64_t)i, .parent_id = -1,
					  .metric = { -1, (int64_t)(i % 5) } };
	fx_add_pair(p, 0, 0, e, n);
	free(e);
	assert_int_equal(sb_profile_alloc_counters(p), 0);
	for (i = 0; i < n; i++) {
		sb_event_set_metric(p, i, SB_METRIC_COUNTER, (int64_t)i);
		sb_event_set_metric(p, i, SB_METRIC_COUNTER_EXCL, (int64_t)i / 2);
	}
}

#define MANY 40000	/* over two frames of a pass */
#define STRIDE 2	/* build_many()'s counter values per call */

static void build_many_calls(struct sb_profile *p)
{
	build_many(p, MANY);
}

/* A pass of src in reads of at most max events, into rows and counters (NULL: none asked). */
static size_t read_pass(struct sb_event_source *src, unsigned mask, size_t max,
			struct sb_event *rows, int64_t *counters)
{
	struct sb_error err = { .msg = "" };
	struct sb_event_stream *s;
	size_t n = 0;
	ssize_t got;

	if (src->open(src, mask, &s, &err))
		fail_msg("%s", err.msg);
	while ((got = s->read(s, rows + n, counters ? counters + n * STRIDE : NULL, max)) > 0)
		n += (size_t)got;
	assert_int_equal(got, 0);
	src->close(src, s);
	return n;
}

static void test_guarded_passes_are_the_passes(void **state)
{
	const unsigned masks[] = { SB_COL_TIMES, SB_COL_CALL_ID | SB_COL_PARENT_ID,
				   SB_COL_TIMES | SB_COL_OFFCPU | SB_COL_GPU |
				   SB_COL_METRIC(SB_METRIC_COUNTER) };
	const char *path = tmp_path("many.h5");
	struct sb_error err = { .msg = "" };
	struct sb_h5_guarded_source g;
	struct sb_h5_source h;
	struct sb_event *x, *y;
	int64_t *cx, *cy;
	struct sb_profile p;
	size_t k, with;

	(void)state;
	fx_write_built(path, build_many_calls);
	if (sb_h5_read_guarded(path, &p, SB_H5_READ_LEAN, &err))
		fail_msg("%s", err.msg);
	assert_null(p.events);
	x = calloc(MANY, sizeof(*x));
	y = calloc(MANY, sizeof(*y));
	cx = calloc(MANY * STRIDE, sizeof(*cx));
	cy = calloc(MANY * STRIDE, sizeof(*cy));
	sb_h5_source_init(&h, path, &p);
	sb_h5_guarded_source_init(&g, path, &p);
	for (k = 0; k < sizeof(masks) / sizeof(masks[0]); k++) {
		for (with = 0; with < 2; with++) {
			/* Reads that do not line up with the child's frames. */
			assert_int_equal(read_pass(&h.base, masks[k], 999, x, with ? cx : NULL),
					 MANY);
			assert_int_equal(read_pass(&g.base, masks[k], 1234, y, with ? cy : NULL),
					 MANY);
			assert_memory_equal(x, y, MANY * sizeof(*x));
			if (with)
				assert_memory_equal(cx, cy, MANY * STRIDE * sizeof(*cx));
		}
	}
	free(x);
	free(y);
	free(cx);
	free(cy);
	sb_profile_free(&p);
	no_children();
}

/* A pass given up early stops its child and reaps it. */
static void test_pass_closed_early_leaves_no_child(void **state)
{
	const char *path = tmp_path("many.h5");
	struct sb_error err = { .msg = "" };
	struct sb_h5_guarded_source g;
	struct sb_event_stream *s;
	struct sb_event rows[10];
	struct sb_profile p;

	(void)state;
	fx_write_built(path, build_many_calls);
	if (sb_h5_read_guarded(path, &p, SB_H5_READ_LEAN, &err))
		fail_msg("%s", err.msg);
	sb_h5_guarded_source_init(&g, path, &p);
	assert_int_equal(g.base.open(&g.base, SB_COL_TIMES, &s, &err), 0);
	assert_int_equal(s->read(s, rows, NULL, 10), 10);
	g.base.close(&g.base, s);
	no_children();
	sb_profile_free(&p);
}

/* ---- what libhdf5 does to a child ends there ---- */

static void test_an_abort_in_the_child_is_an_error_and_we_live_on(void **state)
{
	const char *path = tmp_path("full.h5");
	struct sb_error err = { .msg = "" };
	struct sb_h5_guarded_source g;
	struct sb_event_stream *s;
	struct sb_profile p;
	char want[600];

	(void)state;
	fx_write_built(path, build_full);
	snprintf(want, sizeof(want), "%s: corrupt HDF5 file (the HDF5 library crashed reading it: "
		 "Aborted)", path);
	assert_int_equal(setenv(SB_H5_TEST_ABORT_ENV, path, 1), 0);
	assert_int_equal(sb_profile_read(path, &p, &err), -EINVAL);
	assert_string_equal(err.msg, want);
	assert_null(p.events);
	assert_int_equal(p.n_pairs, 0);
	assert_int_equal(sb_h5_read_guarded(path, &p, SB_H5_READ_LEAN, &err), -EINVAL);
	assert_string_equal(err.msg, want);
	unsetenv(SB_H5_TEST_ABORT_ENV);
	/* This process was never touched: the next read works. */
	if (sb_h5_read_guarded(path, &p, SB_H5_READ_LEAN, &err))
		fail_msg("%s", err.msg);
	/* A pass whose child aborts says so, naming the file. */
	sb_h5_guarded_source_init(&g, path, &p);
	assert_int_equal(setenv(SB_H5_TEST_ABORT_ENV, path, 1), 0);
	memset(&err, 0, sizeof(err));
	assert_int_equal(g.base.open(&g.base, SB_COL_TIMES, &s, &err), -EINVAL);
	assert_string_equal(err.msg, want);
	unsetenv(SB_H5_TEST_ABORT_ENV);
	sb_profile_free(&p);
	no_children();
}

/* ---- the parent trusts no byte the child sends ---- */

/* p's wire form into the file path; its size. */
static size_t wire_file(const char *path, const struct sb_profile *p)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	struct sb_wire_out *w = malloc(sizeof(*w));
	off_t size;

	assert_true(fd >= 0);
	assert_non_null(w);
	sb_wire_out_init(w, fd);
	sb_wire_put_profile(w, p);
	assert_int_equal(sb_wire_flush(w), 0);
	free(w);
	size = lseek(fd, 0, SEEK_END);
	close(fd);
	return (size_t)size;
}

/* Decode the file path under budget into p: 0 or the decoder's error, its why into why. */
static int wire_decode(const char *path, uint64_t budget, struct sb_profile *p, char *why,
		       size_t len)
{
	struct sb_wire_in *r = malloc(sizeof(*r));
	int fd = open(path, O_RDONLY), ret;

	assert_true(fd >= 0);
	assert_non_null(r);
	sb_wire_in_init(r, fd, 1000, budget);
	ret = sb_wire_get_profile(r, p);
	snprintf(why, len, "%s", r->why);
	free(r);
	close(fd);
	return ret;
}

/* The wire form of p, cut after len bytes, into path. */
static void cut_copy(const char *from, const char *to, size_t len)
{
	char cmd[1200];

	snprintf(cmd, sizeof(cmd), "head -c %zu '%s' > '%s'", len, from, to);
	assert_int_equal(system(cmd), 0);
}

static void test_wire_round_trip_and_every_cut(void **state)
{
	const char *path = tmp_path("full.wire"), *cut = tmp_path("cut.wire");
	struct sb_profile a, b;
	size_t size, len;
	char why[160];

	(void)state;
	build_full(&a);
	size = wire_file(path, &a);
	if (wire_decode(path, UINT64_MAX, &b, why, sizeof(why)))
		fail_msg("%s", why);
	same_profile(&a, &b);
	sb_profile_free(&b);
	/* Cut anywhere, it ends early: refused, nothing kept. */
	for (len = 0; len < size; len += 1 + len / 64) {
		cut_copy(path, cut, len);
		assert_int_equal(wire_decode(cut, UINT64_MAX, &b, why, sizeof(why)), -EPIPE);
		assert_int_equal(b.n_regions + b.n_pairs + b.n_events, 0);
	}
	/* More bytes than the budget allows are refused before they are held. */
	assert_int_equal(wire_decode(path, size / 2, &b, why, sizeof(why)), -EPROTO);
	sb_profile_free(&a);
}

/* Rewrite the int64 at offset off of the file path. */
static void patch(const char *path, off_t off, int64_t v)
{
	int fd = open(path, O_WRONLY);

	assert_true(fd >= 0);
	assert_int_equal(pwrite(fd, &v, sizeof(v), off), sizeof(v));
	close(fd);
}

static void expect_refused(const char *path, const char *cause)
{
	struct sb_profile p;
	char why[160];

	assert_int_equal(wire_decode(path, 1u << 30, &p, why, sizeof(why)), -EPROTO);
	if (!strstr(why, cause))
		fail_msg("refused for '%s', not '%s'", why, cause);
}

static void test_wire_refuses_what_does_not_add_up(void **state)
{
	const char *path = tmp_path("bad.wire");
	struct sb_profile a;
	off_t regions;

	(void)state;
	build_full(&a);
	/* begin, schema, format (length, bytes), columns: then the region count. */
	regions = 8 + 8 + 8 + (off_t)strlen(a.format) + 8;
	wire_file(path, &a);
	patch(path, regions, 1ll << 40);
	expect_refused(path, "1099511627776 regions");
	wire_file(path, &a);
	patch(path, 0, 42);
	expect_refused(path, "no profile");
	wire_file(path, &a);
	patch(path, regions - 8, 1ll << 40);
	expect_refused(path, "columns");
	/* Whole, but pointing outside its own tables. */
	a.pairs[1].offset = a.n_events;
	wire_file(path, &a);
	expect_refused(path, "past the end of /events");
	a.pairs[1].offset = 1;
	a.threads[0].rank = SB_MAX_RANK;
	wire_file(path, &a);
	expect_refused(path, "thread 0: rank 1048576");
	a.threads[0].rank = 0;
	a.samples.samples[0].ustack = 7;
	wire_file(path, &a);
	expect_refused(path, "stack");
	a.samples.samples[0].ustack = 0;
	a.cuda.acts[1].name = 2;
	wire_file(path, &a);
	expect_refused(path, "name 2 out of range");
	sb_profile_free(&a);
}

static int64_t ms_since(const struct timespec *t0)
{
	struct timespec t1;

	clock_gettime(CLOCK_MONOTONIC, &t1);
	return (t1.tv_sec - t0->tv_sec) * 1000 + (t1.tv_nsec - t0->tv_nsec) / 1000000;
}

/* A process on CPU 0 only, at nice 19 when low. */
static void pin_to_cpu0(bool low)
{
	cpu_set_t one;

	CPU_ZERO(&one);
	CPU_SET(0, &one);
	if (sched_setaffinity(0, sizeof(one), &one) || (low && nice(19) < 0))
		_exit(9);
}

/* Spin until this process has run for ms of CPU, or for ms of wall time. */
static void spin(int64_t ms, clockid_t clock)
{
	struct timespec t0, t;

	clock_gettime(clock, &t0);
	do
		clock_gettime(clock, &t);
	while ((t.tv_sec - t0.tv_sec) * 1000 + (t.tv_nsec - t0.tv_nsec) / 1000000 < ms);
}

/*
 * A writer starved of CPU is not silent (a read beside a busy job): pinned
 * at nice 19 to one CPU with a hog of a second, it gets about 1.5% of it and
 * needs 10 ms, and its value is still read, not timed out after 200 ms.
 */
static void test_wire_starved_writer_is_waited_for(void **state)
{
	struct sb_wire_in *r = malloc(sizeof(*r));
	pid_t hog, writer;
	struct timespec t0;
	int64_t v = 0, took;
	int fds[2], st;

	(void)state;
	assert_non_null(r);
	assert_int_equal(pipe(fds), 0);
	hog = fork();
	if (!hog) {
		pin_to_cpu0(false);
		spin(1000, CLOCK_MONOTONIC);
		_exit(0);
	}
	writer = fork();
	if (!writer) {
		pin_to_cpu0(true);
		spin(10, CLOCK_PROCESS_CPUTIME_ID);
		v = 42;
		_exit(write(fds[1], &v, sizeof(v)) == sizeof(v) ? 0 : 1);
	}
	close(fds[1]);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	sb_wire_in_init(r, fds[0], 200, 1024);
	sb_wire_in_writer(r, writer);
	assert_int_equal(sb_wire_get_i64(r, &v), 0);
	took = ms_since(&t0);
	assert_int_equal(v, 42);
	assert_int_equal(waitpid(writer, &st, 0), writer);
	assert_int_equal(st, 0);
	assert_int_equal(waitpid(hog, &st, 0), hog);
	print_message("the starved writer's value came after %lld ms\n", (long long)took);
	/* Starved it was: without the run queue's time the read ended at 200 ms. */
	assert_true(took > 300);
	close(fds[0]);
	free(r);
}

/* A writer that sleeps is silent: its time asleep counts, as if no writer were known. */
static void test_wire_sleeping_writer_times_out(void **state)
{
	struct sb_wire_in *r = malloc(sizeof(*r));
	struct timespec t0;
	pid_t writer;
	int fds[2];
	int64_t v;

	(void)state;
	assert_non_null(r);
	assert_int_equal(pipe(fds), 0);
	writer = fork();
	if (!writer) {
		sleep(10);
		_exit(0);
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	sb_wire_in_init(r, fds[0], 200, 1024);
	sb_wire_in_writer(r, writer);
	assert_int_equal(sb_wire_get_i64(r, &v), -ETIMEDOUT);
	assert_true(ms_since(&t0) < 2000);
	kill(writer, SIGKILL);
	waitpid(writer, NULL, 0);
	close(fds[0]);
	close(fds[1]);
	free(r);
}

/* A child gone silent is waited for no longer than the timeout. */
static void test_wire_silence_times_out(void **state)
{
	struct sb_wire_in *r = malloc(sizeof(*r));
	struct timespec t0, t1;
	int fds[2];
	int64_t v;

	(void)state;
	assert_non_null(r);
	assert_int_equal(pipe(fds), 0);
	sb_wire_in_init(r, fds[0], 200, 1024);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	assert_int_equal(sb_wire_get_i64(r, &v), -ETIMEDOUT);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	assert_true(t1.tv_sec - t0.tv_sec < 3);
	/* The failure sticks: nothing after it is read as if in order. */
	assert_int_equal(write(fds[1], &v, sizeof(v)), sizeof(v));
	assert_int_equal(sb_wire_get_i64(r, &v), -ETIMEDOUT);
	close(fds[0]);
	close(fds[1]);
	free(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_guarded_read_is_the_read),
		cmocka_unit_test(test_guarded_passes_are_the_passes),
		cmocka_unit_test(test_pass_closed_early_leaves_no_child),
		cmocka_unit_test(test_an_abort_in_the_child_is_an_error_and_we_live_on),
		cmocka_unit_test(test_wire_round_trip_and_every_cut),
		cmocka_unit_test(test_wire_refuses_what_does_not_add_up),
		cmocka_unit_test(test_wire_silence_times_out),
		cmocka_unit_test(test_wire_starved_writer_is_waited_for),
		cmocka_unit_test(test_wire_sleeping_writer_times_out),
	};

	H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
	return cmocka_run_group_tests(tests, tmp_setup, tmp_teardown);
}
