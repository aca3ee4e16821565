/*
 * Integration: Open MPI jobs (Debian's openmpi-bin, launched by its own name,
 * mpiexec.openmpi). tests/apps/mpi_ranks.c and mpi_calls.c built with
 * mpicc.openmpi (ompi_ranks, ompi_calls): the profile's ranks are the MPI
 * ranks and the launcher is none; every MPI call is a region named by the
 * grammar with its bytes (from Open MPI's datatype objects, derived and pair
 * types too: mpi_types.c), peer, root and tag, comm -1 (Open MPI's
 * communicators are pointers), nested in its user region; record -a beside a
 * job traces its ranks only.
 */
#include <stdbool.h>

#include "harness.h"

#define RANKS 4
#define OMPIEXEC "mpiexec.openmpi"
/* tests/apps/mpi_calls.c's MPI calls per rank (test_mpi_calls.c) */
#define MPI_CALLS_PER_RANK 24
#define READY_MS 60000
#define IDLE_MS 120000

/*
 * As root Open MPI refuses to run without --allow-run-as-root; 4 ranks on
 * fewer cores need --oversubscribe. The transports are named (shared memory
 * and self) and vader's single-copy mechanism (process_vm_readv, refused
 * where ptrace is restricted, as in containers) is off, so that the job does
 * not depend on the machine's network interfaces or ptrace policy.
 */
static const char *const job_options[] = {
	"--allow-run-as-root", "--oversubscribe", "--mca", "btl", "self,vader",
	"--mca", "btl_vader_single_copy_mechanism", "none", "-n",
};
#define JOB_OPTIONS (sizeof(job_options) / sizeof(job_options[0]))

/* The end of argv from n on: the launcher, its options, ranks and app (a buffer of 512). */
static int add_job(char **argv, int n, const char *ranks, const char *app, char *path)
{
	size_t i;

	if (!in_path(OMPIEXEC))
		fail_msg(OMPIEXEC " not found in PATH: install Debian's openmpi-bin "
			 "(tools/install-deps.sh)");
	argv[n++] = OMPIEXEC;
	for (i = 0; i < JOB_OPTIONS; i++)
		argv[n++] = (char *)job_options[i];
	argv[n++] = (char *)ranks;
	argv[n++] = (char *)app_path(app, path, 512);
	argv[n] = NULL;
	return n;
}

/* scope-bpf record -q -o out -- mpiexec.openmpi ... -n ranks APPS/app */
static void record_job(const char *out, const char *ranks, const char *app)
{
	char *argv[32], path[512];
	int n = 0;

	argv[n++] = (char *)scope_bin();
	argv[n++] = "record";
	argv[n++] = "-q";
	argv[n++] = "-o";
	argv[n++] = (char *)out;
	argv[n++] = "--";
	add_job(argv, n, ranks, app, path);
	assert_int_equal(run(argv), 0);
}

/* The ranks are the launcher's; the launcher (and any helper) is no rank. */
static void test_ranks_are_mpi_ranks(void **state)
{
	bool seen[RANKS] = { false };
	struct sb_profile p;
	int launchers = 0;
	char out[300];
	uint32_t r;
	size_t i;

	(void)state;
	require_bpf();
	record_job(tmp_file("ranks.h5", out, sizeof(out)), "4", "ompi_ranks");
	load_profile(out, &p);
	/* Higher ranks call first: numbering by first call would get these backwards. */
	for (r = 0; r < RANKS; r++) {
		assert_int_equal(must_pair(&p, "work", r)->count, r + 1);
		assert_int_equal(must_pair(&p, "setup", r)->count, 1);
		assert_int_equal(must_pair(&p, "mpi:barrier kind=collective bytes=0 peer=-1 root=-1 "
					   "tag=-1 comm=-1", r)->count, 1);
	}
	assert_int_equal(sb_profile_rank_count(&p), RANKS);
	assert_int_equal(meta_int(&p, "mpi_size"), RANKS);
	assert_int_equal(meta_int(&p, "num_nodes"), 1);
	assert_string_equal(meta_str(&p, "mpi_rank_source"), "OMPI_COMM_WORLD_RANK");
	assert_string_equal(meta_str(&p, "mpi_library"), "Open MPI");
	assert_non_null(strstr(meta_str(&p, "mpi_library_path"), "libmpi.so.40"));
	assert_memory_equal(meta_str(&p, "mpi_library_version"), "40.", 3);
	for (i = 0; i < p.n_processes; i++) {
		const struct sb_process *proc = &p.processes[i];

		if (!strstr(proc->command, "ompi_ranks") || strstr(proc->command, OMPIEXEC)) {
			/* mpiexec.openmpi (orterun), and orted or prted where it starts one. */
			assert_int_equal(proc->rank, -1);
			launchers += strstr(proc->command, OMPIEXEC) != NULL;
			continue;
		}
		assert_in_range(proc->rank, 0, RANKS - 1);
		assert_false(seen[proc->rank]);
		seen[proc->rank] = true;
	}
	for (r = 0; r < RANKS; r++)
		assert_true(seen[r]);
	assert_int_equal(launchers, 1);
	sb_profile_free(&p);
}

/* The calls of the region named so on a rank, each nested in parent (NULL: top level). */
static uint64_t expect(const struct sb_profile *p, uint32_t rank, uint64_t calls,
		       const char *parent, const char *fmt, ...)
{
	const struct sb_pair *pair;
	char name[256];
	const char *got;
	va_list ap;
	size_t i;

	va_start(ap, fmt);
	vsnprintf(name, sizeof(name), fmt, ap);
	va_end(ap);
	pair = must_pair(p, name, rank);
	assert_int_equal(pair->count, calls);
	for (i = pair->offset; i < pair->offset + pair->count; i++) {
		got = parent_region(p, rank, &p->events[i]);
		if (parent)
			assert_string_equal(got, parent);
		else
			assert_null(got);
	}
	return calls;
}

static uint64_t mpi_calls_on(const struct sb_profile *p, uint32_t rank)
{
	uint64_t n = 0;
	size_t i;

	for (i = 0; i < p->n_pairs; i++)
		if (p->pairs[i].rank == rank && !strncmp(p->regions[p->pairs[i].region].name, "mpi:", 4))
			n += p->pairs[i].count;
	return n;
}

/* Rank r's calls in tests/apps/mpi_calls.c: every one, and nothing else. */
static void check_rank(const struct sb_profile *p, uint32_t rank)
{
	int next = (int)(rank + 1) % RANKS, prev = (int)(rank + RANKS - 1) % RANKS;
	const char *p2p = "kind=point-to-point", *coll = "kind=collective", *nb = "nonblocking";
	uint64_t n = 0;

	n += expect(p, rank, 3, "exchange",
		    "mpi:send %s bytes=800 peer=%d root=-1 tag=7 comm=-1", p2p, next);
	n += expect(p, rank, 3, "exchange",
		    "mpi:recv %s bytes=800 peer=%d root=-1 tag=7 comm=-1", p2p, prev);
	n += expect(p, rank, 1, "shift",
		    "mpi:sendrecv %s bytes=40 peer=%d root=-1 tag=3 comm=-1", p2p, next);
	n += expect(p, rank, 2, "reduce",
		    "mpi:allreduce %s bytes=8 peer=-1 root=-1 tag=-1 comm=-1", coll);
	n += expect(p, rank, 1, "reduce",
		    "mpi:reduce %s bytes=16 peer=-1 root=2 tag=-1 comm=-1", coll);
	n += expect(p, rank, 1, "reduce",
		    "mpi:gather %s bytes=8 peer=-1 root=1 tag=-1 comm=-1", coll);
	n += expect(p, rank, 1, nb, "mpi:isend %s bytes=200 peer=%d root=-1 tag=11 comm=-1",
		    p2p, next);
	n += expect(p, rank, 1, nb, "mpi:irecv %s bytes=200 peer=%d root=-1 tag=11 comm=-1",
		    p2p, prev);
	/* Waits name the call that started their request (Open MPI's are pointers). */
	n += expect(p, rank, 1, nb,
		    "mpi:wait kind=wait bytes=200 peer=%d root=-1 tag=11 comm=-1 request=isend", next);
	n += expect(p, rank, 1, nb,
		    "mpi:wait kind=wait bytes=200 peer=%d root=-1 tag=11 comm=-1 request=irecv", prev);
	n += expect(p, rank, 1, nb, "mpi:isend %s bytes=8 peer=%d root=-1 tag=12 comm=-1",
		    p2p, next);
	n += expect(p, rank, 1, nb, "mpi:isend %s bytes=8 peer=%d root=-1 tag=12 comm=-1",
		    p2p, prev);
	n += expect(p, rank, 1, nb, "mpi:irecv %s bytes=8 peer=%d root=-1 tag=12 comm=-1",
		    p2p, prev);
	n += expect(p, rank, 1, nb, "mpi:irecv %s bytes=8 peer=%d root=-1 tag=12 comm=-1",
		    p2p, next);
	n += expect(p, rank, 1, nb,
		    "mpi:waitall kind=wait bytes=16 peer=-1 root=-1 tag=12 comm=-1 request=irecv");
	n += expect(p, rank, 1, nb,
		    "mpi:waitall kind=wait bytes=16 peer=-1 root=-1 tag=12 comm=-1 request=isend");
	n += expect(p, rank, 1, NULL, "mpi:barrier %s bytes=0 peer=-1 root=-1 tag=-1 comm=-1", coll);
	n += expect(p, rank, 1, NULL, "mpi:init %s bytes=0 peer=-1 root=-1 tag=-1 comm=-1", coll);
	n += expect(p, rank, 1, NULL, "mpi:finalize %s bytes=0 peer=-1 root=-1 tag=-1 comm=-1",
		    coll);
	assert_int_equal(n, MPI_CALLS_PER_RANK);
	/* Counted once each (MPI_X and PMPI_X), none missed, no polling call by default. */
	assert_int_equal(mpi_calls_on(p, rank), MPI_CALLS_PER_RANK);
}

static void test_every_call_is_a_region(void **state)
{
	const struct sb_region *send = NULL;
	struct sb_profile p;
	char out[300];
	uint32_t rank;
	size_t i;

	(void)state;
	require_bpf();
	record_job(tmp_file("calls.h5", out, sizeof(out)), "4", "ompi_calls");
	load_profile(out, &p);
	assert_int_equal(sb_profile_rank_count(&p), RANKS);
	for (rank = 0; rank < RANKS; rank++)
		check_rank(&p, rank);
	for (i = 0; i < p.n_regions && !send; i++) {
		if (!strcmp(p.regions[i].name,
			    "mpi:send kind=point-to-point bytes=800 peer=1 root=-1 tag=7 comm=-1"))
			send = &p.regions[i];
	}
	assert_non_null(send);
	assert_string_equal(send->tags,
			    "[\"mpi\",\"mpi.kind:point-to-point\",\"mpi.operation:send\","
			    "\"mpi.bytes:800\",\"mpi.peer:1\",\"mpi.root:-1\",\"mpi.tag:7\","
			    "\"mpi.communicator:-1\"]");
	assert_int_equal(meta_int(&p, "lost_events"), 0);
	assert_int_equal(meta_int(&p, "mpi_calls_open_at_start"), 0);
	sb_profile_free(&p);
}

/*
 * Sizes are read from the datatype object a handle points to: a derived type
 * (3 doubles: 24 bytes) and a pair type (MPI_DOUBLE_INT: 12) count as
 * MPI_Type_size says, and an in-place allgather counts its receive side.
 */
static void test_datatype_sizes_from_objects(void **state)
{
	const char *coll = "kind=collective", *p2p = "kind=point-to-point";
	struct sb_profile p;
	char out[300];

	(void)state;
	require_bpf();
	record_job(tmp_file("types.h5", out, sizeof(out)), "2", "ompi_types");
	load_profile(out, &p);
	assert_int_equal(sb_profile_rank_count(&p), 2);
	expect(&p, 0, 1, NULL, "mpi:send %s bytes=48 peer=1 root=-1 tag=21 comm=-1", p2p);
	expect(&p, 0, 1, NULL, "mpi:send %s bytes=60 peer=1 root=-1 tag=22 comm=-1", p2p);
	expect(&p, 1, 1, NULL, "mpi:recv %s bytes=48 peer=0 root=-1 tag=21 comm=-1", p2p);
	expect(&p, 1, 1, NULL, "mpi:recv %s bytes=60 peer=0 root=-1 tag=22 comm=-1", p2p);
	expect(&p, 0, 1, NULL, "mpi:allgather %s bytes=8 peer=-1 root=-1 tag=-1 comm=-1", coll);
	expect(&p, 1, 1, NULL, "mpi:allgather %s bytes=8 peer=-1 root=-1 tag=-1 comm=-1", coll);
	sb_profile_free(&p);
}

/* Whether the recorder's stderr says it traces. */
static bool says_ready(const char *path)
{
	char buf[65536];
	size_t n = 0;
	FILE *f = fopen(path, "r");

	if (f) {
		n = fread(buf, 1, sizeof(buf) - 1, f);
		fclose(f);
	}
	buf[n] = 0;
	return strstr(buf, "scope-bpf: recording system-wide") != NULL;
}

/* Wait for pid at most IDLE_MS; killed and failed past that. */
static int wait_bounded(pid_t pid, const char *what)
{
	int waited, st;

	for (waited = 0; waited < IDLE_MS; waited += 20) {
		if (waitpid(pid, &st, WNOHANG) == pid)
			return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
		sleep_ms(20);
	}
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	fail_msg("%s did not end in %d s", what, IDLE_MS / 1000);
	return -1;
}

/* record -a --exe ompi_calls --until-idle, then the job: its 4 ranks, no launcher. */
static void test_job_recorded_from_outside(void **state)
{
	char out[300], err[300], jerr[300], app[512], path[512];
	char *rec[] = { (char *)scope_bin(), "record", "-a", "--until-idle", "-o", out, "--exe",
			(char *)app_path("ompi_calls", app, sizeof(app)), NULL };
	char *job[32] = { "/usr/bin/env" };
	struct sb_profile p;
	pid_t recorder;
	uint32_t rank;
	int waited;
	size_t i;

	(void)state;
	require_bpf();
	add_job(job, 1, "4", "ompi_calls", path);
	tmp_file("syswide.h5", out, sizeof(out));
	recorder = spawn(rec, tmp_file("recorder.txt", err, sizeof(err)), NULL);
	assert_true(recorder > 0);
	for (waited = 0; !says_ready(err); waited += 20) {
		if (waited > READY_MS || waitpid(recorder, NULL, WNOHANG) == recorder)
			fail_msg("the recorder did not start (%s)", err);
		sleep_ms(20);
	}
	assert_int_equal(wait_bounded(spawn(job, tmp_file("job.txt", jerr, sizeof(jerr)), NULL),
				      "the job"), 0);
	assert_int_equal(wait_bounded(recorder, "the recorder"), 0);
	load_profile(out, &p);
	assert_int_equal(p.n_processes, RANKS);
	for (i = 0; i < p.n_processes; i++)
		assert_null(strstr(p.processes[i].command, OMPIEXEC));
	assert_int_equal(meta_int(&p, "mpi_size"), RANKS);
	for (rank = 0; rank < RANKS; rank++) {
		check_rank(&p, rank);
		assert_int_equal(must_pair(&p, "exchange", rank)->count, 3);
	}
	sb_profile_free(&p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ranks_are_mpi_ranks),
		cmocka_unit_test(test_every_call_is_a_region),
		cmocka_unit_test(test_datatype_sizes_from_objects),
		cmocka_unit_test(test_job_recorded_from_outside),
	};

	return cmocka_run_group_tests(tests, setup_tmp, teardown_tmp);
}
