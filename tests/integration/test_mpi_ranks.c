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

static void test_ranks_are_mpi_ranks(void **state)
{
	const struct sb_process *launcher, *proxy;
	struct sb_profile p;
	char out[300], app[512];
	char *argv[] = { (char *)scope_bin(), "record", "-q", "-o", out, "--",
			 (char *)mpiexec_mpich(), "-n", "4", (char *)app_path("mpi_ranks", app, sizeof(app)), NULL };
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
	char *argv[] = { (char *)scope_bin(), "record", "-o", out, "--",
			 (char *)mpiexec_mpich(), "-n", "2", "env", "OMPI_COMM_WORLD_RANK=0", "OMPI_COMM_WORLD_SIZE=2",
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

/* The pid rank writes once it runs (tests/apps/mpi_attach.c), waiting up to 30 s; -1 if none. */
static pid_t rank_pid(const char *dir, int rank)
{
	char path[400];
	int pid = -1, tries;
	FILE *f;

	snprintf(path, sizeof(path), "%s/rank.%d.pid", dir, rank);
	for (tries = 0; tries < 3000; tries++) {
		f = fopen(path, "r");
		if (f) {
			if (fscanf(f, "%d", &pid) != 1)
				pid = -1;
			fclose(f);
			return pid;
		}
		sleep_ms(10);
	}
	return -1;
}

/*
 * record -p on MPI rank 2 of a running `mpiexec -n 4`: the profile has rank 2
 * (from its environment: its MPI_Comm_rank was long done), its MPI calls from
 * the attach on, and no other rank.
 */
static void test_attach_to_one_rank(void **state)
{
	char out[300], app[512], dir[300], stop[320], pidstr[16], path_by_proc[32];
	char *job[] = { "/usr/bin/env", (char *)mpiexec_mpich(), "-n", "4",
			(char *)app_path("mpi_attach", app, sizeof(app)), dir, NULL };
	/* The default mode: the steps on the fast path, the MPI calls nested in them by time. */
	char *rec[] = { (char *)scope_bin(), "record", "-q", "-d", "1", "-p",
			pidstr, "-o", (char *)tmp_file("attach.h5", out, sizeof(out)), NULL };
	const struct sb_pair *step, *sendrecv;
	struct sb_profile p;
	pid_t mpiexec, pid;
	int fd, status;
	size_t i;

	(void)state;
	require_bpf();
	tmp_file("", dir, sizeof(dir));
	snprintf(stop, sizeof(stop), "%s/stop", dir);
	mpiexec = spawn(job, NULL, NULL);
	assert_true(mpiexec > 0);
	pid = rank_pid(dir, 2);
	if (pid <= 0) {
		kill(mpiexec, SIGTERM);
		wait_status(mpiexec);
		fail_msg("rank 2 never wrote its pid");
	}
	snprintf(pidstr, sizeof(pidstr), "%d", (int)pid);
	status = run(rec);
	/* The job ends whatever the recording did. */
	fd = open(stop, O_WRONLY | O_CREAT, 0644);
	if (fd < 0)
		kill(mpiexec, SIGTERM);
	else
		close(fd);
	assert_int_equal(wait_status(mpiexec), 0);
	assert_int_equal(status, 0);
	load_profile(out, &p);
	for (i = 0; i < p.n_pairs; i++)
		assert_int_equal(p.pairs[i].rank, 2);
	assert_int_equal(meta_int(&p, "mpi_size"), 4);
	assert_int_equal(p.n_processes, 1);
	assert_int_equal(p.processes[0].pid, pid);
	assert_int_equal(p.processes[0].rank, 2);
	snprintf(path_by_proc, sizeof(path_by_proc), "%d:fast", (int)pid);
	assert_string_equal(meta_str(&p, "record_path_by_process"), path_by_proc);
	step = must_pair(&p, "step", 2);
	sendrecv = must_pair(&p, "mpi:sendrecv kind=point-to-point bytes=32 peer=3 root=-1 tag=5 "
			     "comm=1140850688", 2);
	/*
	 * Over 1 s of 2 ms steps: many, each with its one exchange. A step cut at
	 * either end keeps its exchange; no step whole in the recording lacks one
	 * (fast records after the end once made it so).
	 */
	assert_true(step->count >= 20);
	assert_in_range(sendrecv->count, step->count, step->count + 2);
	must_pair(&p, "mpi:allreduce kind=collective bytes=4 peer=-1 root=-1 tag=-1 "
		  "comm=1140850688", 2);
	/* Attached long after they ran. */
	assert_null(find_pair(&p, "mpi:init kind=collective bytes=0 peer=-1 root=-1 tag=-1 "
			      "comm=1140850688", 2));
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
		cmocka_unit_test(test_attach_to_one_rank),
		cmocka_unit_test(test_a_run_without_mpi_keeps_its_numbering),
	};

	return cmocka_run_group_tests_name("mpi_ranks", tests, setup_tmp, teardown_tmp);
}
