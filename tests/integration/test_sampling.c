/* Integration: sample the hotspots app with real BPF and check where the samples land. */
#include <inttypes.h>

#include "harness.h"
#include "util/hashmap.h"

/* Share of kind-weighted samples of path `region` whose stack holds `function` (leaf if leaf_only). */
static double share_in(const struct sb_profile *p, const char *region, uint32_t kind,
		       const char *function, bool leaf_only, uint64_t *total_out)
{
	const struct sb_samples *s = &p->samples;
	uint64_t total = 0, hit = 0, w;
	size_t i, j;

	for (i = 0; i < s->n_samples; i++) {
		const struct sb_sample *x = &s->samples[i];
		const struct sb_stack *st;

		if (x->kind != kind || x->path < 0 || strcmp(s->paths[x->path].name, region))
			continue;
		w = kind == SB_SAMPLE_CPU ? x->count : x->ns;
		total += w;
		if (x->ustack < 0)
			continue;
		st = &s->stacks[x->ustack];
		for (j = 0; j < st->depth && (!leaf_only || j == 0); j++) {
			const struct sb_frame_sym *f = &s->frames[s->stack_frames[st->first + j]];

			if (strstr(f->function, function)) {
				hit += w;
				break;
			}
		}
	}
	if (total_out)
		*total_out = total;
	return total ? (double)hit / (double)total : 0.0;
}

static const struct sb_frame_sym *find_frame(const struct sb_profile *p, const char *function)
{
	size_t i;

	for (i = 0; i < p->samples.n_frames; i++)
		if (!strcmp(p->samples.frames[i].function, function))
			return &p->samples.frames[i];
	return NULL;
}

static void test_samples_land_in_each_regions_hot_function(void **state)
{
	const struct sb_frame_sym *inl, *lib;
	struct sb_profile p;
	uint64_t total;
	char out[300];
	char *argv[] = { (char *)scope_bin(), "record", "-q", "--sample=999", "--offcpu-stacks",
			 "-o", (char *)tmp_file("hot.h5", out, sizeof(out)), "--", NULL, "300", NULL };
	char path[512];

	(void)state;
	require_bpf();
	argv[8] = (char *)app_path("hotspots", path, sizeof(path));
	assert_int_equal(run(argv), 0);
	load_profile(out, &p);
	assert_true(p.samples.n_samples > 0);
	assert_true(share_in(&p, "A", SB_SAMPLE_CPU, "hot_a", false, &total) >= 0.9);
	assert_true(total >= 100);	/* ~300 ms at 999 Hz */
	assert_true(share_in(&p, "B", SB_SAMPLE_CPU, "hot_b", false, NULL) >= 0.9);
	assert_true(share_in(&p, "A", SB_SAMPLE_CPU, "hot_b", false, NULL) < 0.05);
	/* Inlined: the frame is named after the inlined function and marked so. */
	assert_true(share_in(&p, "C", SB_SAMPLE_CPU, "inl_work", false, NULL) >= 0.9);
	inl = find_frame(&p, "inl_work");
	assert_non_null(inl);
	assert_true(inl->inlined);
	assert_non_null(strstr(inl->file, "hotspots.c"));
	/* A shared library's function, with its module. */
	assert_true(share_in(&p, "L", SB_SAMPLE_CPU, "sbtest_lib_spin", false, NULL) >= 0.9);
	lib = find_frame(&p, "sbtest_lib_spin");
	assert_non_null(lib);
	assert_non_null(strstr(lib->module, "libsbtest.so"));
	/* A child that exited long before the end is still symbolized. */
	assert_true(share_in(&p, "K", SB_SAMPLE_CPU, "child_hot", false, NULL) >= 0.9);
	/* Off-CPU: the sleeping region blocked in nanosleep, ~300 ms of it. */
	assert_true(share_in(&p, "S", SB_SAMPLE_OFFCPU, "nanosleep", true, &total) >= 0.9);
	assert_in_range(total, 250 * MS, 600 * MS);
	assert_int_equal(meta_int(&p, "sample_frequency_hz"), 999);
	assert_int_equal(meta_int(&p, "lost_samples"), 0);
	assert_int_equal(meta_int(&p, "lost_stacks"), 0);
	sb_profile_free(&p);
}

/*
 * Thousands of distinct stacks each keep their own: a table that holds one
 * stack per hash bucket (a BPF stack-trace map) drops a few percent of them.
 */
static void test_every_sample_keeps_its_stack_among_thousands(void **state)
{
	const struct sb_samples *s;
	uint64_t total = 0, stackless = 0;
	struct sb_profile p;
	char out[300];
	char *argv[] = { (char *)scope_bin(), "record", "-q", "--sample=999",
			 "-o", (char *)tmp_file("stacks.h5", out, sizeof(out)), "--", NULL, NULL };
	char path[512];
	size_t i;

	(void)state;
	require_bpf();
	argv[7] = (char *)app_path("many_stacks", path, sizeof(path));
	assert_int_equal(run(argv), 0);
	load_profile(out, &p);
	s = &p.samples;
	for (i = 0; i < s->n_samples; i++) {
		if (s->samples[i].kind != SB_SAMPLE_CPU || s->samples[i].path < 0)
			continue;
		total += s->samples[i].count;
		stackless += s->samples[i].ustack < 0 ? s->samples[i].count : 0;
	}
	print_message("%" PRIu64 " samples in walk, %zu stacks, %" PRIu64 " without stack\n",
		      total, s->n_stacks, stackless);
	assert_true(total >= 1000);
	assert_true(s->n_stacks >= 500);
	assert_true(stackless * 200 <= total);
	assert_int_equal(meta_int(&p, "lost_stacks"), 0);
	sb_profile_free(&p);
}

/* Off-CPU time of samples with `function` in their kernel stack. */
static uint64_t offcpu_with_kernel_frame(const struct sb_profile *p, const char *function)
{
	const struct sb_samples *s = &p->samples;
	const struct sb_stack *st;
	uint64_t ns = 0;
	size_t i, j;

	for (i = 0; i < s->n_samples; i++) {
		if (s->samples[i].kind != SB_SAMPLE_OFFCPU || s->samples[i].kstack < 0)
			continue;
		st = &s->stacks[s->samples[i].kstack];
		for (j = 0; j < st->depth; j++)
			if (!strcmp(s->frames[s->stack_frames[st->first + j]].function, function)) {
				ns += s->samples[i].ns;
				break;
			}
	}
	return ns;
}

/*
 * The recorder stops the command it launches at exec (and at its start-up
 * dlopen syncs) until the probes are attached: that stop, tens of ms on a busy
 * machine, is the recorder's, not the command's off-CPU time. Before the
 * scheduler hook left it out, it showed as do_signal_stop under _start.
 */
static void test_startup_stop_is_not_offcpu_time(void **state)
{
	struct sb_profile p;
	char out[300];
	char *argv[] = { (char *)scope_bin(), "record", "-q", "--offcpu-stacks",
			 "-o", (char *)tmp_file("stop.h5", out, sizeof(out)), "--", NULL, "20", NULL };
	char path[512];
	uint64_t total;

	(void)state;
	require_bpf();
	argv[7] = (char *)app_path("hotspots", path, sizeof(path));
	assert_int_equal(run(argv), 0);
	load_profile(out, &p);
	/* Off-CPU stacks were recorded: the sleeping region's ~20 ms. */
	assert_true(share_in(&p, "S", SB_SAMPLE_OFFCPU, "nanosleep", true, &total) >= 0.9);
	assert_true(total >= 15 * MS);
	assert_int_equal(offcpu_with_kernel_frame(&p, "do_signal_stop"), 0);
	sb_profile_free(&p);
}

/* record --sample=999 -o NAME -- APP ARG into p; record's exit status says whether it lost any. */
static void record_sampled(const char *name, const char *app, const char *arg, struct sb_profile *p,
			   char *out, size_t size)
{
	char *argv[] = { (char *)scope_bin(), "record", "--sample=999", "-o",
			 (char *)tmp_file(name, out, size), "--", NULL, (char *)arg, NULL };
	char path[512];
	int status;

	argv[6] = (char *)app_path(app, path, sizeof(path));
	status = run(argv);
	load_profile(out, p);
	print_losses(p);
	assert_int_equal(status, meta_int(p, "lost_events") > 0 ||
			 meta_int(p, "lost_timed_samples") > 0 ? 3 : 0);
}

static bool same_place(const struct sb_timed_sample *t, const struct sb_sample *x)
{
	return x->kind == SB_SAMPLE_CPU && x->rank == t->rank && x->thread == t->thread &&
	       x->path == t->path && x->ustack == t->ustack && x->kstack == t->kstack;
}

/* Timed samples with the aggregate row's (rank, thread, path, stacks). */
static uint64_t timed_at(const struct sb_samples *s, const struct sb_sample *x)
{
	uint64_t n = 0;
	size_t i;

	for (i = 0; i < s->n_timeline; i++)
		n += same_place(&s->timeline[i], x);
	return n;
}

static const struct sb_thread *thread_of(const struct sb_profile *p, uint32_t rank, int64_t row)
{
	size_t i;

	for (i = 0; i < p->n_threads; i++)
		if (p->threads[i].rank == rank && p->threads[i].index == row)
			return &p->threads[i];
	return NULL;
}

static int64_t pid_of_rank(const struct sb_profile *p, uint32_t rank)
{
	size_t i;

	for (i = 0; i < p->n_processes; i++)
		if (p->processes[i].rank == (int64_t)rank)
			return p->processes[i].pid;
	return -1;
}

/*
 * Each sample summed in the kernel is also in the timeline, named as its
 * aggregate is (or counted in lost_timed_samples), taken while recording, and
 * the file keeps them by rank, then time. hotspots is two single-threaded
 * processes: each sample's thread is its rank's process.
 */
static void test_the_timeline_holds_every_summed_sample_by_rank_then_time(void **state)
{
	const struct sb_timed_sample *t;
	const struct sb_samples *s;
	const struct sb_thread *th;
	uint64_t summed = 0, lost;
	int64_t start, end;
	struct sb_profile p;
	uint32_t ranks = 0;
	char out[300];
	size_t i;

	(void)state;
	require_bpf();
	record_sampled("timeline.h5", "hotspots", "300", &p, out, sizeof(out));
	s = &p.samples;
	lost = (uint64_t)meta_int(&p, "lost_timed_samples");
	start = meta_int(&p, "start_time_ns");
	end = meta_int(&p, "finalize_time_ns");
	for (i = 0; i < s->n_samples; i++) {
		if (s->samples[i].kind != SB_SAMPLE_CPU)
			continue;
		summed += s->samples[i].count;
		if (lost)
			assert_true(timed_at(s, &s->samples[i]) <= s->samples[i].count);
		else
			assert_int_equal(timed_at(s, &s->samples[i]), s->samples[i].count);
	}
	print_message("%zu timed samples, %" PRIu64 " summed, %" PRIu64 " lost\n", s->n_timeline,
		      summed, lost);
	assert_true(s->n_timeline >= 500);	/* 5 busy regions of ~300 ms at 999 Hz */
	assert_true(s->n_timeline <= summed && s->n_timeline + lost >= summed);
	for (i = 0; i < s->n_timeline; i++) {
		t = &s->timeline[i];
		assert_in_range(t->time, start, end);
		if (i)
			assert_true(t->rank > t[-1].rank ||
				    (t->rank == t[-1].rank && t->time >= t[-1].time));
		th = thread_of(&p, t->rank, t->thread);
		assert_non_null(th);
		assert_int_equal(th->tid, pid_of_rank(&p, t->rank));
		assert_true(t->cpu < (uint32_t)sysconf(_SC_NPROCESSORS_CONF));
		ranks |= 1u << (t->rank & 31);
	}
	assert_int_equal(ranks, 3);	/* the parent and the child that ran K */
	sb_profile_free(&p);
}

/* Whether stack id holds a frame of function. */
static bool stack_has(const struct sb_samples *s, int64_t id, const char *function)
{
	size_t j;

	for (j = 0; id >= 0 && j < s->stacks[id].depth; j++)
		if (!strcmp(s->frames[s->stack_frames[s->stacks[id].first + j]].function, function))
			return true;
	return false;
}

/*
 * threads: eight workers named worker-N, and the main thread that starts and
 * joins them. A sample whose stack began in start_thread was taken on a
 * worker, one that began in __libc_start_call_main on the main thread.
 */
static void test_timed_samples_name_the_thread_that_took_them(void **state)
{
	const struct sb_timed_sample *t;
	const struct sb_thread *th;
	uint64_t on_workers = 0;
	struct sb_profile p;
	char out[300];
	int64_t pid;
	size_t i;

	(void)state;
	require_bpf();
	record_sampled("threads.h5", "threads", NULL, &p, out, sizeof(out));
	pid = pid_of_rank(&p, 0);
	for (i = 0; i < p.samples.n_timeline; i++) {
		t = &p.samples.timeline[i];
		th = thread_of(&p, t->rank, t->thread);
		assert_non_null(th);
		if (stack_has(&p.samples, t->ustack, "__libc_start_call_main"))
			assert_int_equal(th->tid, pid);
		if (!stack_has(&p.samples, t->ustack, "start_thread"))
			continue;
		on_workers++;
		assert_int_not_equal(th->tid, pid);
		assert_non_null(th->name);
		assert_memory_equal(th->name, "worker-", 7);
	}
	assert_true(on_workers >= 20);	/* 80 ms of work at 999 Hz */
	sb_profile_free(&p);
}

/*
 * A fast-path thread's samples keep its region from the first one: the
 * kernel side finds the thread's slot itself when the recorder has not read
 * the thread's first record yet (threads: eight short workers, each ~10 ms
 * of "work", shorter than a drainer pass may be away). Before, all of them
 * fell outside regions in the default mode; kernel mode is the reference.
 */
static void test_samples_in_short_fast_path_threads_keep_their_region(void **state)
{
	const char *modes[] = { NULL, "--mode=kernel" };
	const struct sb_timed_sample *t;
	uint64_t on_workers, in_work;
	struct sb_profile p;
	char out[300], path[512];
	size_t i, m;

	(void)state;
	require_bpf();
	for (m = 0; m < 2; m++) {
		char *argv[] = { (char *)scope_bin(), "record", "-q", "--sample=999", "-o",
				 (char *)tmp_file("fastpath.h5", out, sizeof(out)), "--",
				 (char *)app_path("threads", path, sizeof(path)), NULL, NULL };

		if (modes[m]) {
			memmove(&argv[3], &argv[2], 6 * sizeof(*argv));
			argv[2] = (char *)modes[m];
		}
		assert_int_equal(run(argv), 0);
		load_profile(out, &p);
		on_workers = in_work = 0;
		for (i = 0; i < p.samples.n_timeline; i++) {
			t = &p.samples.timeline[i];
			if (!stack_has(&p.samples, t->ustack, "start_thread"))
				continue;
			on_workers++;
			in_work += t->path >= 0 && !strcmp(p.samples.paths[t->path].name, "work");
		}
		print_message("%s: %" PRIu64 " of %" PRIu64 " workers' samples in work\n",
			      modes[m] ? modes[m] : "default", in_work, on_workers);
		assert_true(on_workers >= 20);	/* 80 ms of work at 999 Hz */
		assert_true(in_work >= on_workers * 9 / 10);
		sb_profile_free(&p);
	}
}

/* The root region of path q, and whether region up is the parent of region name along it. */
static const char *path_root(const struct sb_samples *s, int64_t q, const char *name,
			     const char *up, bool *under)
{
	*under = true;
	for (; s->paths[q].parent >= 0; q = s->paths[q].parent)
		if (!strcmp(s->paths[q].name, name))
			*under = !strcmp(s->paths[s->paths[q].parent].name, up);
	return s->paths[q].name;
}

#define MAX_PATH_DEPTH 64

/* names[n-1] (the root) .. names[0] (the leaf) as "outer;inner". */
static void join_path(const char **names, int n, char *out, size_t size)
{
	size_t len = 0;

	out[0] = 0;
	while (n-- > 0 && len < size)
		len += (size_t)snprintf(out + len, size - len, "%s%s", len ? ";" : "", names[n]);
}

/* A sample's region path as "outer;inner". */
static void sample_path(const struct sb_samples *s, int64_t q, char *out, size_t size)
{
	const char *names[MAX_PATH_DEPTH];
	int n = 0;

	for (; q >= 0 && n < MAX_PATH_DEPTH; q = s->paths[q].parent)
		names[n++] = s->paths[q].name;
	join_path(names, n, out, size);
}

/* Each event's pair, and each (rank, call id)'s event: to walk a call's parents. */
struct call_index {
	const struct sb_profile *p;
	const struct sb_pair **pair;
	struct sb_hashmap by_id;
};

static void index_calls(struct call_index *x, const struct sb_profile *p)
{
	size_t k, i;

	x->p = p;
	x->pair = calloc(p->n_events + 1, sizeof(*x->pair));
	assert_non_null(x->pair);
	sb_hashmap_init(&x->by_id);
	for (k = 0; k < p->n_pairs; k++)
		for (i = p->pairs[k].offset; i < p->pairs[k].offset + p->pairs[k].count; i++)
			x->pair[i] = &p->pairs[k];
	for (i = 0; i < p->n_events; i++)
		assert_int_equal(sb_hashmap_put(&x->by_id, x->pair[i]->rank,
						(uint64_t)p->events[i].call_id, i), 0);
}

static void free_index(struct call_index *x)
{
	free(x->pair);
	sb_hashmap_free(&x->by_id);
}

/* A call's region path as "outer;inner", by its parents' ids within its rank. */
static void call_path(const struct call_index *x, size_t i, char *out, size_t size)
{
	const struct sb_profile *p = x->p;
	const char *names[MAX_PATH_DEPTH];
	uint64_t *up = &(uint64_t){ i };
	int n = 0;

	while (up && n < MAX_PATH_DEPTH) {
		i = (size_t)*up;
		names[n++] = p->regions[x->pair[i]->region].name;
		up = p->events[i].parent_id < 0 ? NULL :
		     sb_hashmap_get(&x->by_id, x->pair[i]->rank, (uint64_t)p->events[i].parent_id);
	}
	join_path(names, n, out, size);
}

/*
 * Every timed sample a call holds has that call's path: the innermost call
 * of its thread whose span holds its time (issue 25: placed by time, the
 * fast path's calls and the kernel's alike). Returns the samples checked.
 */
static size_t check_samples_by_time(const struct sb_profile *p)
{
	const struct sb_timed_sample *t;
	char want[512], got[512];
	struct call_index x;
	size_t i, k, n = 0;
	ssize_t best;

	index_calls(&x, p);
	for (i = 0; i < p->samples.n_timeline; i++) {
		t = &p->samples.timeline[i];
		best = -1;
		for (k = 0; k < p->n_events; k++) {
			const struct sb_event *e = &p->events[k];

			if (e->thread != t->thread || e->start > t->time || e->end < t->time ||
			    x.pair[k]->rank != t->rank)
				continue;
			if (best < 0 || e->start > p->events[best].start ||
			    (e->start == p->events[best].start && e->call_id > p->events[best].call_id))
				best = (ssize_t)k;
		}
		if (best < 0)
			continue;
		call_path(&x, (size_t)best, want, sizeof(want));
		sample_path(&p->samples, t->path, got, sizeof(got));
		if (strcmp(want, got))
			fail_msg("a sample at %" PRId64 " is in \"%s\", its call in \"%s\"", t->time,
				 got, want);
		n++;
	}
	free_index(&x);
	return n;
}

/*
 * Samples in marker regions inside OpenMP bodies, and in the OpenMP regions
 * around them, keep the whole path, markers and OpenMP calls as they nest:
 * "outer;omp:parallel;omp:implicit_task;inner" on the thread that forks (on
 * the fast path, issue 25, its OpenMP samples once lost "outer" and its
 * "inner" samples the OpenMP calls).
 */
static void test_samples_in_parallel_bodies_keep_the_whole_path(void **state)
{
	const char *modes[] = { NULL, "--mode=kernel" };
	const struct sb_timed_sample *t;
	uint64_t in_inner, in_omp;
	struct sb_profile p;
	char out[300], path[512];
	const char *root, *leaf;
	size_t i, m, placed;
	bool under;

	(void)state;
	require_bpf();
	for (m = 0; m < 2; m++) {
		char *argv[] = { (char *)scope_bin(), "record", "-q", "--sample=999", "-o",
				 (char *)tmp_file("ompinner.h5", out, sizeof(out)), "--",
				 (char *)app_path("omp_inner", path, sizeof(path)), "200", NULL, NULL };

		if (modes[m]) {
			memmove(&argv[3], &argv[2], 7 * sizeof(*argv));
			argv[2] = (char *)modes[m];
		}
		assert_int_equal(run(argv), 0);
		load_profile(out, &p);
		in_inner = in_omp = 0;
		for (i = 0; i < p.samples.n_timeline; i++) {
			t = &p.samples.timeline[i];
			if (t->path < 0)
				continue;
			leaf = p.samples.paths[t->path].name;
			root = path_root(&p.samples, t->path, "inner", "omp:implicit_task", &under);
			if (!under)
				fail_msg("a sample's \"inner\" is not under omp:implicit_task");
			in_inner += !strcmp(leaf, "inner");
			/* omp:parallel runs only inside "outer". */
			if (strstr(leaf, "omp:") || !strcmp(leaf, "inner")) {
				if (strcmp(root, "outer") && strcmp(root, "omp:implicit_task"))
					fail_msg("a sample in %s has the root %s", leaf, root);
				in_omp += !strcmp(root, "outer");
			}
		}
		placed = check_samples_by_time(&p);
		print_message("%s: %" PRIu64 " samples in inner, %" PRIu64 " under outer; %zu "
			      "placed in their calls, %" PRId64 " moved from their stack read\n",
			      modes[m] ? modes[m] : "default", in_inner, in_omp, placed,
			      meta_int(&p, "samples_moved_by_time"));
		assert_true(placed >= in_inner);
		assert_int_equal(meta_int(&p, "samples_moves_refused"), 0);
		assert_true(in_inner >= 40);	/* 2 threads x 60 ms of work at 999 Hz */
		assert_true(in_omp >= 20);
		sb_profile_free(&p);
	}
}

/* Lines of f that contain text. */
static size_t lines_with(const char *path, const char *text)
{
	FILE *f = fopen(path, "r");
	char line[1024];
	size_t n = 0;

	assert_non_null(f);
	while (fgets(line, sizeof(line), f))
		n += strstr(line, text) != NULL;
	fclose(f);
	return n;
}

/* Lines the region paths of the timed samples take in perf script: one per region. */
static size_t region_lines(const struct sb_samples *s)
{
	size_t i, n = 0;
	int64_t q;

	for (i = 0; i < s->n_timeline; i++)
		for (q = s->timeline[i].path; q >= 0; q = s->paths[q].parent)
			n++;
	return n;
}

/* export perf-script prints each timed sample of a real recording, with its stack and region. */
static void test_perf_script_prints_each_timed_sample_of_a_recording(void **state)
{
	char out[300], txt[300];
	char *argv[] = { (char *)scope_bin(), "export", "perf-script", out, "-o",
			 (char *)tmp_file("hot.perf.txt", txt, sizeof(txt)), NULL };
	struct sb_profile p;

	(void)state;
	require_bpf();
	record_sampled("script.h5", "hotspots", "200", &p, out, sizeof(out));
	assert_int_equal(run(argv), 0);
	assert_true(p.samples.n_timeline > 0);
	assert_int_equal(lines_with(txt, ": cpu-clock:") + lines_with(txt, ": cycles:"),
			 p.samples.n_timeline);
	assert_true(lines_with(txt, " hot_a (") >= 100);	/* 200 ms of region A at 999 Hz */
	assert_true(region_lines(&p.samples) > 0);
	assert_int_equal(lines_with(txt, " ([region])"), region_lines(&p.samples));
	sb_profile_free(&p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_samples_land_in_each_regions_hot_function),
		cmocka_unit_test(test_startup_stop_is_not_offcpu_time),
		cmocka_unit_test(test_every_sample_keeps_its_stack_among_thousands),
		cmocka_unit_test(test_the_timeline_holds_every_summed_sample_by_rank_then_time),
		cmocka_unit_test(test_timed_samples_name_the_thread_that_took_them),
		cmocka_unit_test(test_samples_in_short_fast_path_threads_keep_their_region),
		cmocka_unit_test(test_samples_in_parallel_bodies_keep_the_whole_path),
		cmocka_unit_test(test_perf_script_prints_each_timed_sample_of_a_recording),
	};

	return cmocka_run_group_tests_name("sampling", tests, setup_tmp, teardown_tmp);
}
