/*
 * Integration: the annotations programs already carry become regions with no
 * change to them (docs/ANNOTATIONS.md). `scope-bpf record` launches
 * tests/apps/nvtx_ranges (NVTX v3, loaded through NVTX_INJECTION64_PATH),
 * tests/apps/kokkos_tools (the Kokkos Tools interface, through
 * KOKKOS_TOOLS_LIBS) and tests/apps/itt_tasks (ITT, through
 * INTEL_LIBITTNOTIFY64) with its default --annotations, and each range must be
 * a region with its name, count, tags and place in the tree among markers;
 * a pop with nothing open and a range ended on another thread must leave the
 * tree nested, nothing dropped. --annotations=none records none of them.
 */
#include "harness.h"

#define STEPS 5			/* tests/apps/nvtx_ranges.c */
#define WORKER_CALLS 20
#define OMP_THREADS 3
#define MPI_STEPS 3		/* tests/apps/mpi_nvtx.c, on each of 2 ranks */
#define INITS 3			/* tests/apps/kokkos_tools.c */
#define ITERS 4
#define TASKS 3			/* tests/apps/itt_tasks.c */

/* Every call of name on rank 0: count of them, and each inside parent (NULL: top level). */
static const struct sb_pair *check_calls(const struct sb_profile *p, const char *name,
					 uint64_t count, const char *parent)
{
	const struct sb_pair *pair = must_pair(p, name, 0);
	const char *got;
	uint64_t i;

	assert_int_equal(pair->count, count);
	for (i = pair->offset; i < pair->offset + pair->count; i++) {
		got = parent_region(p, 0, &p->events[i]);
		if (parent && (!got || strcmp(got, parent)))
			fail_msg("%s: a call inside %s, not %s", name, got ? got : "(top level)",
				 parent);
		if (!parent && got)
			fail_msg("%s: a call inside %s, not at top level", name, got);
	}
	return pair;
}

/* How many calls of name on rank 0 are directly inside parent. */
static uint64_t calls_inside(const struct sb_profile *p, const char *name, const char *parent)
{
	const struct sb_pair *pair = must_pair(p, name, 0);
	const char *got;
	uint64_t i, n = 0;

	for (i = pair->offset; i < pair->offset + pair->count; i++) {
		got = parent_region(p, 0, &p->events[i]);
		n += got && !strcmp(got, parent);
	}
	return n;
}

static void check_tag(const struct sb_profile *p, const struct sb_pair *pair, const char *tag)
{
	const char *tags = p->regions[pair->region].tags;

	if (!strstr(tags, tag))
		fail_msg("%s: tags %s, no %s", p->regions[pair->region].name, tags, tag);
}

/* Nothing lost, no end left unmatched, no open call dropped by an end out of order. */
static void check_clean(const struct sb_profile *p)
{
	assert_int_equal(meta_int(p, "lost_events"), 0);
	assert_int_equal(meta_int(p, "unmatched_region_ends"), 0);
	assert_int_equal(meta_int(p, "open_calls_dropped"), 0);
}

#ifdef SB_TEST_NVTX
/*
 * What tests/apps/nvtx_ranges must leave; its ranges in a gcc OpenMP team
 * sit inside each thread's omp:implicit_task, on both paths.
 */
static void check_nvtx(const struct sb_profile *p)
{
	const struct sb_pair *pair;
	int64_t main_thread = p->events[must_pair(p, "outer", 0)->offset].thread;

	/* Markers around NVTX ranges around markers. */
	check_calls(p, "outer", 1, NULL);
	check_tag(p, check_calls(p, "step", STEPS, "outer"), "nvtx");
	check_calls(p, "inner", STEPS, "step");
	check_calls(p, "wide \xc3\xa9", 1, NULL);
	check_tag(p, check_calls(p, "categorized", 1, NULL), "nvtx.category:io");
	check_tag(p, check_calls(p, "solve", 1, NULL), "nvtx.domain:solver");
	check_calls(p, "started", 1, NULL);
	/* Ended in the order begun: held until "second" ends, so it nests. */
	check_calls(p, "first", 1, NULL);
	check_calls(p, "second", 1, "first");
	/* The pop with nothing open changed nothing. */
	check_calls(p, "guard", 1, NULL);
	/* Ended by another thread, closed by its own at its next NVTX call, before "after". */
	check_calls(p, "handed_off", 1, NULL);
	check_calls(p, "after", 1, NULL);
	pair = check_calls(p, "worker_range", WORKER_CALLS, NULL);
	assert_int_not_equal(p->events[pair->offset].thread, main_thread);
	check_calls(p, "omp_body", OMP_THREADS, "omp:implicit_task");
	check_clean(p);
}

static void test_nvtx_ranges_are_regions(void **state)
{
	struct sb_profile p;
	char out[300];

	(void)state;
	require_bpf();
	assert_int_equal(record_app(tmp_file("nvtx.h5", out, sizeof(out)), "nvtx_ranges", NULL), 0);
	load_profile(out, &p);
	check_nvtx(&p);
	sb_profile_free(&p);
}

/* Record nvtx_ranges with one option of record's into file, and load it. */
static void record_nvtx_with(const char *option, const char *file, struct sb_profile *p)
{
	char out[300], app[512];
	char *argv[] = { (char *)scope_bin(), "record", "-q", (char *)option, "-o",
			 (char *)tmp_file(file, out, sizeof(out)), "--",
			 (char *)app_path("nvtx_ranges", app, sizeof(app)), NULL };

	require_bpf();
	assert_int_equal(run(argv), 0);
	load_profile(out, p);
}

/* The kernel path, where libgomp's regions and the ranges in them share one stack. */
static void test_nvtx_ranges_kernel_path(void **state)
{
	struct sb_profile p;

	(void)state;
	record_nvtx_with("--mode=kernel", "nvtx_kernel.h5", &p);
	check_nvtx(&p);
	sb_profile_free(&p);
}

/* On each rank of an MPI job: markers around NVTX ranges around MPI calls. */
static void test_nvtx_ranges_in_mpi(void **state)
{
	char out[300], app[512];
	char *argv[] = { (char *)scope_bin(), "record", "-q", "-o",
			 (char *)tmp_file("mpi.h5", out, sizeof(out)), "--", (char *)mpiexec_mpich(),
			 "-n", "2", (char *)app_path("mpi_nvtx", app, sizeof(app)), NULL };
	const struct sb_pair *pair;
	struct sb_profile p;
	uint64_t allreduces[2] = { 0 }, i;
	uint32_t rank;
	size_t k;

	(void)state;
	require_bpf();
	assert_int_equal(run(argv), 0);
	load_profile(out, &p);
	for (rank = 0; rank < 2; rank++) {
		pair = must_pair(&p, "step", rank);
		assert_int_equal(pair->count, MPI_STEPS);
		pair = must_pair(&p, "exchange", rank);
		assert_int_equal(pair->count, MPI_STEPS);
		for (i = pair->offset; i < pair->offset + pair->count; i++)
			assert_string_equal(parent_region(&p, rank, &p.events[i]), "step");
	}
	for (k = 0; k < p.n_pairs; k++) {
		pair = &p.pairs[k];
		if (strncmp(p.regions[pair->region].name, "mpi:allreduce", 13) || pair->rank > 1)
			continue;
		for (i = pair->offset; i < pair->offset + pair->count; i++)
			assert_string_equal(parent_region(&p, pair->rank, &p.events[i]), "exchange");
		allreduces[pair->rank] += pair->count;
	}
	assert_int_equal(allreduces[0], MPI_STEPS);
	assert_int_equal(allreduces[1], MPI_STEPS);
	check_clean(&p);
	sb_profile_free(&p);
}

static void test_annotations_none(void **state)
{
	struct sb_profile p;

	(void)state;
	record_nvtx_with("--annotations=none", "none.h5", &p);
	check_calls(&p, "inner", STEPS, "outer");
	assert_null(find_pair(&p, "step", 0));
	assert_null(find_pair(&p, "worker_range", 0));
	sb_profile_free(&p);
}
#endif

static void test_kokkos_tools_are_regions(void **state)
{
	struct sb_profile p;
	char out[300];

	(void)state;
	require_bpf();
	assert_int_equal(record_app(tmp_file("kokkos.h5", out, sizeof(out)), "kokkos_tools", NULL),
			 0);
	load_profile(out, &p);
	check_tag(&p, check_calls(&p, "setup", 1, NULL), "kokkos.kind:region");
	check_tag(&p, check_calls(&p, "init_x", INITS, "setup"), "kokkos.kind:parallel_for");
	check_calls(&p, "iterate", ITERS, NULL);
	check_tag(&p, check_calls(&p, "dot", ITERS, "iterate"), "kokkos.kind:parallel_reduce");
	check_tag(&p, check_calls(&p, "prefix", ITERS, "iterate"), "kokkos.kind:parallel_scan");
	check_tag(&p, check_calls(&p, "Kokkos::fence: step", ITERS, "iterate"),
		  "kokkos.kind:fence");
	check_tag(&p, check_calls(&p, "Kokkos::deep_copy y <- x", ITERS, "iterate"),
		  "kokkos.bytes:8000");
	check_calls(&p, "marked", 1, NULL);
	check_calls(&p, "inside_marker", 1, "marked");
	check_calls(&p, "guard", 1, NULL);
	check_clean(&p);
	sb_profile_free(&p);
}

static void test_itt_tasks_are_regions(void **state)
{
	struct sb_profile p;
	char out[300];

	(void)state;
	require_bpf();
	assert_int_equal(record_app(tmp_file("itt.h5", out, sizeof(out)), "itt_tasks", NULL), 0);
	load_profile(out, &p);
	check_calls(&p, "outer", 1, NULL);
	check_tag(&p, check_calls(&p, "parse", 1, NULL), "itt.domain:tbb");
	assert_int_equal(must_pair(&p, "compute", 0)->count, TASKS + 1);
	assert_int_equal(calls_inside(&p, "compute", "outer"), TASKS);
	assert_int_equal(calls_inside(&p, "compute", "parse"), 1);
	check_calls(&p, "guard", 1, NULL);
	check_clean(&p);
	sb_profile_free(&p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
#ifdef SB_TEST_NVTX
		cmocka_unit_test(test_nvtx_ranges_are_regions),
		cmocka_unit_test(test_nvtx_ranges_kernel_path),
		cmocka_unit_test(test_nvtx_ranges_in_mpi),
		cmocka_unit_test(test_annotations_none),
#endif
		cmocka_unit_test(test_kokkos_tools_are_regions),
		cmocka_unit_test(test_itt_tasks_are_regions),
	};

	return cmocka_run_group_tests_name("annotations", tests, setup_tmp, teardown_tmp);
}
