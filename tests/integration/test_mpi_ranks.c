/*
 * MPI ranks under mpiexec: the profile's rank r is MPI rank r, the launcher's
 * processes are listed but are no ranks, and the metadata names the job.
 */
#include "harness.h"

static const struct sb_process *process_named(const struct sb_profile *p, const char *name)
{
	size_t i;

	for (i = 0; i < p->n_processes; i++)
		if (p->processes[i].command && strstr(p->processes[i].command, name))
			return &p->processes[i];
	return NULL;
}

static const char *meta_str(const struct sb_profile *p, const char *key)
{
	const struct sb_meta *m = sb_profile_meta(p, key);

	if (!m || m->is_int)
		fail_msg("metadata %s missing or not a string", key);
	return m->s;
}

static void test_ranks_are_mpi_ranks(void **state)
{
	const struct sb_process *launcher, *proxy;
	struct sb_profile p;
	char out[300], app[512];
	char *argv[] = { (char *)scope_bin(), "record", "-q", "-o", out, "--", "mpiexec", "-n", "4",
			 (char *)app_path("mpi_ranks", app, sizeof(app)), NULL };
	uint32_t r;

	(void)state;
	require_bpf();
	tmp_file("mpi.h5", out, sizeof(out));
	assert_int_equal(run(argv), 0);
	load_profile(out, &p);
	/* Higher ranks call first: numbering by first call would get these backwards. */
	for (r = 0; r < 4; r++) {
		assert_int_equal(must_pair(&p, "work", r)->count, r + 1);
		assert_int_equal(must_pair(&p, "setup", r)->count, 1);
	}
	assert_int_equal(meta_int(&p, "mpi_size"), 4);
	assert_int_equal(sb_profile_rank_count(&p), 4);
	assert_int_equal(meta_int(&p, "num_nodes"), 1);
	assert_string_equal(meta_str(&p, "mpi_rank_source"), "PMI_RANK");
	/* Each rank's own MPI_Comm_rank(MPI_COMM_WORLD) said the same. */
	assert_int_equal(meta_int(&p, "mpi_ranks_confirmed"), 4);
	assert_int_equal(meta_int(&p, "mpi_ranks_disagreeing"), 0);
	assert_string_equal(meta_str(&p, "mpi_library"), "MPICH");
	assert_non_null(strstr(meta_str(&p, "mpi_library_path"), "libmpich.so"));
	assert_true(strspn(meta_str(&p, "mpi_library_version"), "0123456789.") > 0);
	/* The launcher and its proxy are listed, with no rank. */
	launcher = process_named(&p, "mpiexec");
	proxy = process_named(&p, "hydra_pmi_proxy");
	assert_non_null(launcher);
	assert_non_null(proxy);
	assert_int_equal(launcher->rank, -1);
	assert_int_equal(proxy->rank, -1);
	assert_int_equal(p.n_processes, 6);
	sb_profile_free(&p);
}

/*
 * An environment that lies: both ranks are told OMPI_COMM_WORLD_RANK=0, which
 * is trusted before PMI_RANK but which MPICH does not read. What each process
 * learned from MPI_Comm_rank wins, and the disagreement is said.
 */
static void test_the_rank_a_process_learned_wins(void **state)
{
	char out[300], app[512], err[300], line[512];
	char *argv[] = { (char *)scope_bin(), "record", "-o", out, "--", "mpiexec", "-n", "2",
			 "env", "OMPI_COMM_WORLD_RANK=0", "OMPI_COMM_WORLD_SIZE=2",
			 (char *)app_path("mpi_ranks", app, sizeof(app)), NULL };
	struct sb_profile p;
	bool warned = false;
	uint32_t r;
	FILE *f;

	(void)state;
	require_bpf();
	tmp_file("lie.h5", out, sizeof(out));
	assert_int_equal(run(argv), 0);
	load_profile(out, &p);
	for (r = 0; r < 2; r++)
		assert_int_equal(must_pair(&p, "work", r)->count, r + 1);
	assert_int_equal(sb_profile_rank_count(&p), 2);
	assert_string_equal(meta_str(&p, "mpi_rank_source"), "OMPI_COMM_WORLD_RANK");
	assert_int_equal(meta_int(&p, "mpi_ranks_confirmed"), 1);
	assert_int_equal(meta_int(&p, "mpi_ranks_disagreeing"), 1);
	f = fopen(tmp_file("stderr.txt", err, sizeof(err)), "r");
	assert_non_null(f);
	while (fgets(line, sizeof(line), f))
		warned |= strstr(line, "OMPI_COMM_WORLD_RANK says rank 0, MPI_Comm_rank says 1") != NULL;
	fclose(f);
	assert_true(warned);
	sb_profile_free(&p);
}

static void test_a_run_without_mpi_keeps_its_numbering(void **state)
{
	struct sb_profile p;
	char out[300];

	(void)state;
	require_bpf();
	assert_int_equal(record_app(tmp_file("count.h5", out, sizeof(out)), "count", "5", NULL), 0);
	load_profile(out, &p);
	assert_int_equal(must_pair(&p, "tick", 0)->count, 5);
	assert_int_equal(meta_int(&p, "mpi_size"), 1);
	assert_null(sb_profile_meta(&p, "mpi_rank_source"));
	assert_null(sb_profile_meta(&p, "mpi_library"));
	sb_profile_free(&p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ranks_are_mpi_ranks),
		cmocka_unit_test(test_the_rank_a_process_learned_wins),
		cmocka_unit_test(test_a_run_without_mpi_keeps_its_numbering),
	};

	return cmocka_run_group_tests_name("mpi_ranks", tests, setup_tmp, teardown_tmp);
}
