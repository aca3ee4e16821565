/*
 * Integration: the two ways MPI calls are timed (docs/MPI.md) give the same
 * profile. An MPICH job (mpi_calls) and an Open MPI job (ompi_calls) are each
 * recorded with --mpi=pmpi (the interposition library preloaded into the
 * ranks, the fast path) and --mpi=uprobes: every call is in both, on the same
 * rank, under the same region name, tags and parent. An Open MPI job given
 * the MPICH library (as a wrong pick would) runs again with the right one
 * and is recorded the same, and so is an Open MPI job calling through its
 * Fortran bindings (ompi_fortran: the mpi and mpi_f08 modules), but for its
 * waits, which only the PMPI path can name (the uprobes see the binding's
 * own copies of the requests). A rank whose LD_PRELOAD is cleared is told.
 */
#include <libgen.h>
#include <stdlib.h>

#include "harness.h"

#define RANKS "4"
#define LINE_MAX_ 512

static const char *const ompi_options[] = {
	"mpiexec.openmpi", "--allow-run-as-root", "--oversubscribe", "--mca", "btl", "self,vader",
	"--mca", "btl_vader_single_copy_mechanism", "none",
};
#define OMPI_OPTIONS (sizeof(ompi_options) / sizeof(ompi_options[0]))

struct lines {
	char (*line)[LINE_MAX_];
	size_t n;
};

/* scope-bpf record --mpi=PATH -o out -- [pre...] launcher -n ranks app, which must succeed. */
static void record_ranks(const char *out, const char *path, char *const pre[], bool ompi,
			 const char *ranks, const char *app)
{
	char *argv[40], opt[32], app_buf[512];
	int n = 0;
	size_t i;

	argv[n++] = (char *)scope_bin();
	argv[n++] = "record";
	argv[n++] = "-q";
	snprintf(opt, sizeof(opt), "--mpi=%s", path);
	argv[n++] = opt;
	argv[n++] = "-o";
	argv[n++] = (char *)out;
	argv[n++] = "--";
	for (i = 0; pre && pre[i]; i++)
		argv[n++] = pre[i];
	if (ompi) {
		for (i = 0; i < OMPI_OPTIONS; i++)
			argv[n++] = (char *)ompi_options[i];
	} else {
		argv[n++] = (char *)mpiexec_mpich();
	}
	argv[n++] = "-n";
	argv[n++] = (char *)ranks;
	argv[n++] = (char *)app_path(app, app_buf, sizeof(app_buf));
	argv[n] = NULL;
	assert_int_equal(run(argv), 0);
}

static void record_path(const char *out, const char *path, char *const pre[], bool ompi,
			const char *app)
{
	record_ranks(out, path, pre, ompi, RANKS, app);
}

static int by_text(const void *a, const void *b)
{
	return strcmp(a, b);
}

/*
 * One line per call, "rank R: REGION TAGS < PARENT", and the path that timed
 * the MPI calls, sorted: what two recordings of one job must share. With
 * waits_named, a wait is its operation alone, and waits_named counts those
 * that named their requests.
 */
static struct lines tree_of(const char *file, const char *path, size_t *waits_named)
{
	struct lines l = { NULL, 0 };
	struct sb_profile p;
	size_t i, j;

	load_profile(file, &p);
	assert_string_equal(meta_str(&p, "mpi_calls_path"), path);
	l.line = calloc(p.n_events, sizeof(*l.line));
	assert_non_null(l.line);
	for (i = 0; i < p.n_pairs; i++) {
		const struct sb_pair *q = &p.pairs[i];
		const struct sb_region *r = &p.regions[q->region];

		for (j = q->offset; j < q->offset + q->count; j++) {
			const char *parent = parent_region(&p, q->rank, &p.events[j]);
			bool wait = waits_named && !strncmp(r->name, "mpi:wait", 8);

			if (wait)
				*waits_named += strstr(r->name, " request=") != NULL;
			snprintf(l.line[l.n++], LINE_MAX_, "rank %u: %.*s %s < %s", q->rank,
				 wait ? (int)strcspn(r->name, " ") : (int)strlen(r->name), r->name,
				 wait ? "" : r->tags, parent ? parent : "-");
		}
	}
	qsort(l.line, l.n, sizeof(*l.line), by_text);
	sb_profile_free(&p);
	return l;
}

/*
 * The same calls, line for line (waits by their operation alone, with
 * waits_named); at least min MPI calls.
 */
static void assert_same_calls(const char *pmpi, const char *uprobes, size_t min,
			      size_t *waits_named)
{
	struct lines a = tree_of(pmpi, "pmpi", waits_named);
	struct lines b = tree_of(uprobes, "uprobes", waits_named ? &(size_t){ 0 } : NULL);
	size_t i, mpi = 0;

	for (i = 0; i < a.n && i < b.n; i++) {
		if (strcmp(a.line[i], b.line[i]))
			fail_msg("call %zu: --mpi=pmpi has '%s', --mpi=uprobes '%s'", i, a.line[i],
				 b.line[i]);
		mpi += strstr(a.line[i], ": mpi:") != NULL;
	}
	assert_int_equal(a.n, b.n);
	assert_true(mpi >= min);
	free(a.line);
	free(b.line);
}

static void assert_same_tree(const char *pmpi, const char *uprobes)
{
	assert_same_calls(pmpi, uprobes, 24, NULL);
}

static void test_mpich_same_tree(void **state)
{
	char pmpi[300], uprobes[300];

	(void)state;
	require_bpf();
	record_path(tmp_file("mpich_pmpi.h5", pmpi, sizeof(pmpi)), "pmpi", NULL, false,
		    "mpi_calls");
	record_path(tmp_file("mpich_uprobes.h5", uprobes, sizeof(uprobes)), "uprobes", NULL, false,
		    "mpi_calls");
	assert_same_tree(pmpi, uprobes);
}

/*
 * Open MPI, recorded both ways; then given MPICH's library in LD_PRELOAD by
 * env, under record's own choice: each rank runs again with Open MPI's.
 */
static void test_openmpi_same_tree_even_given_the_wrong_library(void **state)
{
	char pmpi[300], uprobes[300], wrong[300], exe[512], lib[600];
	char *pre[] = { "env", lib, NULL };

	(void)state;
	require_bpf();
	record_path(tmp_file("ompi_pmpi.h5", pmpi, sizeof(pmpi)), "pmpi", NULL, true, "ompi_calls");
	record_path(tmp_file("ompi_uprobes.h5", uprobes, sizeof(uprobes)), "uprobes", NULL, true,
		    "ompi_calls");
	assert_same_tree(pmpi, uprobes);
	snprintf(exe, sizeof(exe), "%s", scope_bin());
	snprintf(lib, sizeof(lib), "LD_PRELOAD=%s/libscope_bpf_mpi_mpich.so", dirname(exe));
	record_path(tmp_file("ompi_wrong.h5", wrong, sizeof(wrong)), "pmpi", pre, true,
		    "ompi_calls");
	assert_same_tree(wrong, uprobes);
}

/*
 * Open MPI's Fortran bindings, which call PMPI_X: the library's Fortran
 * wrappers give each call the C call's region, once. Each rank's 28 calls;
 * of its 5 waits, the 3 MPI_Wait name their requests (isend, irecv,
 * ibarrier), the 2 MPI_Waitall none (an irecv and an isend each).
 */
static void test_openmpi_fortran_same_calls(void **state)
{
	char pmpi[300], uprobes[300];
	size_t waits_named = 0;

	(void)state;
	require_bpf();
	record_ranks(tmp_file("fortran_pmpi.h5", pmpi, sizeof(pmpi)), "pmpi", NULL, true, "2",
		     "ompi_fortran");
	record_ranks(tmp_file("fortran_uprobes.h5", uprobes, sizeof(uprobes)), "uprobes", NULL,
		     true, "2", "ompi_fortran");
	assert_same_calls(pmpi, uprobes, 2 * 28, &waits_named);
	assert_int_equal(waits_named, 2 * 3);
}

/* Ranks started without LD_PRELOAD: record says their MPI calls go unrecorded. */
static void test_rank_without_the_library_is_told(void **state)
{
	char out[300], app[512], err[4096];
	char *argv[] = { (char *)scope_bin(), "record", "-q", "--mpi=pmpi", "-o", out, "--",
			 (char *)mpiexec_mpich(), "-n", "2", "env", "-u", "LD_PRELOAD",
			 (char *)app_path("mpi_ranks", app, sizeof(app)), NULL };

	(void)state;
	require_bpf();
	tmp_file("cleared.h5", out, sizeof(out));
	assert_int_equal(run(argv), 0);
	read_stderr(err, sizeof(err));
	if (!strstr(err, "without the PMPI library (was its LD_PRELOAD cleared?)"))
		fail_msg("record did not say a rank lost the library: %s", err);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_mpich_same_tree),
		cmocka_unit_test(test_openmpi_same_tree_even_given_the_wrong_library),
		cmocka_unit_test(test_openmpi_fortran_same_calls),
		cmocka_unit_test(test_rank_without_the_library_is_told),
	};

	return cmocka_run_group_tests(tests, setup_tmp, teardown_tmp);
}
