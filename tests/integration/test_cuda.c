/*
 * Integration: CUDA activity through the real path without a GPU.
 * tests/apps/cuda_synth fires the CUPTI library's own probes
 * (scope_bpf_cuda:name and :batch) with made-up activity of known shape;
 * the kernel side copies it into the ring buffer, the recorder attributes
 * each piece of GPU work to the region call that launched it, and the file
 * has the GPU time per call and per region and every kernel's name, also
 * where the name program cannot fault a page in. Then `--cuda` on a program
 * that never loads CUDA: it says so and records the rest.
 */
#include <sys/stat.h>

#include "harness.h"

#define US 1000
#define BULK (50 * 64)	/* cuda_synth's batches of driver calls */

static const struct sb_event *call_at(const struct sb_profile *p, const struct sb_pair *pair,
				      size_t k)
{
	assert_true(k < pair->count);
	return &p->events[pair->offset + k];
}

/* Each kernel activity's name, as cuda_synth sent it: never empty. */
static void assert_kernel_names(const struct sb_profile *p)
{
	const struct sb_cuda_activity *a;
	size_t i, kernels = 0;
	const char *name;

	for (i = 0; i < p->cuda.n_acts; i++) {
		a = &p->cuda.acts[i];
		if (a->kind != SB_CUDA_ACT_KERNEL)
			continue;
		assert_true(a->name >= 0 && (size_t)a->name < p->cuda.n_names);
		name = p->cuda.names[a->name];
		assert_true(!strcmp(name, "_Z5scalePfi") || !strcmp(name, "_Z4axpyPKfPfi"));
		kernels++;
	}
	assert_int_equal(kernels, 6);
}

static void test_gpu_time_reaches_the_launching_regions(void **state)
{
	const struct sb_pair *solve, *step, *worker;
	struct sb_profile p;
	char out[300];

	(void)state;
	require_bpf();
	assert_int_equal(record_app(tmp_file("synth.h5", out, sizeof(out)), "cuda_synth", NULL), 0);
	load_profile(out, &p);
	solve = must_pair(&p, "solve", 0);
	step = must_pair(&p, "step", 0);
	worker = must_pair(&p, "worker", 0);
	assert_true(p.columns & SB_COL_METRIC(SB_METRIC_GPU));
	/* Each step has what it launched, in start order; the worker thread's launch is its own. */
	assert_int_equal(step->count, 3);
	assert_int_equal(call_at(&p, step, 0)->metric[SB_METRIC_GPU], 100 * US);
	assert_int_equal(call_at(&p, step, 1)->metric[SB_METRIC_GPU], 250 * US);
	assert_int_equal(call_at(&p, step, 2)->metric[SB_METRIC_GPU], 300 * US);
	assert_int_equal(step->stats.gpu_count, 3);
	assert_int_equal(step->stats.gpu_total, 650 * US);
	assert_int_equal(call_at(&p, worker, 0)->metric[SB_METRIC_GPU], 30 * US);
	/* solve's own copy only: its steps' kernels are theirs. */
	assert_int_equal(call_at(&p, solve, 0)->metric[SB_METRIC_GPU], 200 * US);
	assert_int_equal(solve->stats.gpu_total, 200 * US);
	assert_int_equal(meta_int(&p, "cuda_processes"), 1);
	assert_int_equal(meta_int(&p, "cuda_activities"), 16 + BULK);
	assert_int_equal(meta_int(&p, "cuda_launches"), 7);
	assert_int_equal(meta_int(&p, "cuda_launches_in_regions"), 6);
	assert_int_equal(meta_int(&p, "cuda_records_dropped"), 5);
	assert_int_equal(meta_int(&p, "cuda_records_lost"), 0);
	assert_int_equal(meta_int(&p, "cuda_clock_offset_ns"), -1234);
	assert_int_equal(meta_int(&p, "lost_events"), 0);
	assert_kernel_names(&p);
	sb_profile_free(&p);
}

/*
 * cuda_synth names its kernels from pages it never touches. A name program
 * that may not fault them in (not sleepable: as with -e, or on an older
 * kernel) leaves the read to the recorder: the names arrive all the same.
 */
static void test_kernel_names_arrive_where_the_program_cannot_fault_them_in(void **state)
{
	const char *was = getenv("SCOPE_BPF_KERNEL_OFF");
	char out[300], keep[256];
	struct sb_profile p;
	int st;

	(void)state;
	require_bpf();
	snprintf(keep, sizeof(keep), "%s", was ? was : "");
	setenv("SCOPE_BPF_KERNEL_OFF", "sleepable", 1);
	st = record_app(tmp_file("unread.h5", out, sizeof(out)), "cuda_synth", NULL);
	if (was)
		setenv("SCOPE_BPF_KERNEL_OFF", keep, 1);
	else
		unsetenv("SCOPE_BPF_KERNEL_OFF");
	assert_int_equal(st, 0);
	load_profile(out, &p);
	assert_kernel_names(&p);
	assert_int_equal(meta_int(&p, "cuda_records_lost"), 0);
	sb_profile_free(&p);
}

static bool cupti_library_built(void)
{
	char path[512];
	struct stat st;

	snprintf(path, sizeof(path), "%s", scope_bin());
	*strrchr(path, '/') = 0;
	strncat(path, "/libscope_bpf_cupti.so", sizeof(path) - strlen(path) - 1);
	return !stat(path, &st);
}

/* A program that never loads CUDA: one line says so, its regions are recorded. */
static void test_cuda_on_a_program_without_cuda(void **state)
{
	char out[300], app[512], msg[4096];
	char *argv[] = { (char *)scope_bin(), "record", "-q", "--cuda", "-o",
			 (char *)tmp_file("plain.h5", out, sizeof(out)), "--",
			 (char *)app_path("nested", app, sizeof(app)), NULL };
	struct sb_profile p;
	int st;

	(void)state;
	require_bpf();
	st = run(argv);
	read_stderr(msg, sizeof(msg));
	if (!cupti_library_built()) {
		/* No toolkit where this was built: refused before anything runs. */
		assert_int_equal(st, 2);
		assert_non_null(strstr(msg, "libscope_bpf_cupti.so"));
		return;
	}
	assert_int_equal(st, 0);
	assert_non_null(strstr(msg, "no traced process loaded the CUDA driver"));
	load_profile(out, &p);
	assert_true(p.n_pairs > 0);
	assert_false(p.columns & SB_COL_METRIC(SB_METRIC_GPU));
	assert_int_equal(p.cuda.n_acts, 0);
	sb_profile_free(&p);
}

/* Who must hold cuda_omp's kernels, by their GPU time (tests/apps/cuda_omp.c). */
static const char *launcher_of(int64_t gpu_ns)
{
	switch (gpu_ns) {
	case 10 * US:
		return "outer";
	case 50 * US:
		return "inner";
	case 100 * US:
	case 200 * US:
		return "omp:implicit_task";
	}
	return "(unknown)";
}

/* The call with this id among pair's calls, or NULL. */
static const struct sb_event *call_in(const struct sb_profile *p, const struct sb_pair *pair,
				      int64_t id)
{
	size_t k;

	for (k = 0; k < pair->count; k++)
		if (call_at(p, pair, k)->call_id == id)
			return call_at(p, pair, k);
	return NULL;
}

/*
 * Launches go to the innermost call open on their thread at their time,
 * whichever way it was recorded (docs/DESIGN.md): cuda_omp launches in a
 * marker region holding OpenMP calls, in OpenMP bodies (kernel-path calls)
 * and in marker regions inside those. Each kernel's launching call is on
 * its thread and holds its launch, in both modes alike.
 */
static void test_launches_land_in_the_innermost_call_of_either_path(void **state)
{
	static const char *const modes[] = { "--mode=auto", "--mode=kernel" };
	char out[300], app[512];
	char *argv[] = { (char *)scope_bin(), "record", NULL, "-q", "-o",
			 (char *)tmp_file("omp.h5", out, sizeof(out)), "--",
			 (char *)app_path("cuda_omp", app, sizeof(app)), NULL };
	const struct sb_cuda_activity *a;
	const struct sb_event *call;
	const struct sb_pair *pair;
	struct sb_profile p;
	size_t m, i, kernels;

	(void)state;
	require_bpf();
	for (m = 0; m < 2; m++) {
		argv[2] = (char *)modes[m];
		assert_int_equal(run(argv), 0);
		load_profile(out, &p);
		for (i = 0, kernels = 0; i < p.cuda.n_acts; i++) {
			a = &p.cuda.acts[i];
			if (a->kind != SB_CUDA_ACT_KERNEL)
				continue;
			kernels++;
			assert_true(a->pair >= 0 && (size_t)a->pair < p.n_pairs);
			pair = &p.pairs[a->pair];
			assert_string_equal(p.regions[pair->region].name,
					    launcher_of(a->end - a->start));
			call = call_in(&p, pair, a->call_id);
			assert_non_null(call);
			assert_int_equal(call->thread, a->thread);
			assert_true(call->start <= a->launch_start && a->launch_start <= call->end);
		}
		/* 3 iterations: one launch in "outer", two per thread of 2. */
		assert_int_equal(kernels, 15);
		assert_int_equal(must_pair(&p, "outer", 0)->stats.gpu_total, 3 * 10 * US);
		assert_int_equal(must_pair(&p, "inner", 0)->stats.gpu_total, 6 * 50 * US);
		assert_int_equal(must_pair(&p, "omp:implicit_task", 0)->stats.gpu_total,
				 3 * 300 * US);
		sb_profile_free(&p);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_gpu_time_reaches_the_launching_regions),
		cmocka_unit_test(test_launches_land_in_the_innermost_call_of_either_path),
		cmocka_unit_test(test_kernel_names_arrive_where_the_program_cannot_fault_them_in),
		cmocka_unit_test(test_cuda_on_a_program_without_cuda),
	};

	return cmocka_run_group_tests_name("cuda", tests, setup_tmp, teardown_tmp);
}
