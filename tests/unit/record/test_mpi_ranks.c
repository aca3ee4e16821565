/*
 * MPI ranks: the launcher's environment is parsed as the untrusted bytes
 * /proc/PID/environ holds, and the rank rule numbers processes by it with
 * launchers after the ranks and conflicts settled the same way every time.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "model/model.h"
#include "record/collect.h"
#include "record/sources/mpi_ranks.h"
#include "record/sources/sources.h"

/* An environment block from a string literal with '\0' separators; its size without the final NUL. */
#define ENV(lit) lit, sizeof(lit) - 1

static int parse(const char *env, size_t n, struct sb_mpi_claim *c)
{
	*c = (struct sb_mpi_claim){ .rank = 77, .size = 77, .var = SB_MPI_N_VARS };
	return sb_mpi_env_parse(env, n, c);
}

static void test_variables_are_taken_in_order(void **state)
{
	struct sb_mpi_claim c;

	(void)state;
	assert_int_equal(parse(ENV("HOME=/\0PMI_SIZE=4\0PMI_RANK=2\0"), &c), 1);
	assert_int_equal(c.rank, 2);
	assert_int_equal(c.size, 4);
	assert_int_equal(c.var, SB_MPI_PMI);
	assert_string_equal(sb_mpi_var_name(c.var), "PMI_RANK");
	/* Open MPI's variables come before PMI's, PMI's before Slurm's. */
	assert_int_equal(parse(ENV("SLURM_PROCID=5\0PMI_RANK=1\0OMPI_COMM_WORLD_RANK=3\0"
				   "OMPI_COMM_WORLD_SIZE=8\0"), &c), 1);
	assert_int_equal(c.rank, 3);
	assert_int_equal(c.size, 8);
	assert_int_equal(c.var, SB_MPI_OMPI);
	assert_int_equal(parse(ENV("SLURM_NTASKS=16\0SLURM_PROCID=9\0"), &c), 1);
	assert_int_equal(c.rank, 9);
	assert_int_equal(c.size, 16);
	assert_int_equal(c.var, SB_MPI_SLURM);
	/* PMIx gives no size of its own: unknown, 0. */
	assert_int_equal(parse(ENV("PMIX_RANK=6\0"), &c), 1);
	assert_int_equal(c.rank, 6);
	assert_int_equal(c.size, 0);
	assert_int_equal(c.var, SB_MPI_PMIX);
	/* The first of two entries is the one getenv() would give. */
	assert_int_equal(parse(ENV("PMI_RANK=1\0PMI_RANK=2\0"), &c), 1);
	assert_int_equal(c.rank, 1);
}

static void test_hostile_environments_name_no_rank(void **state)
{
	static const char no_nul[] = { 'P', 'M', 'I', '_', 'R', 'A', 'N', 'K', '=', '7' };
	struct sb_mpi_claim c;

	(void)state;
	assert_int_equal(parse("", 0, &c), 0);
	assert_int_equal(parse(ENV("PATH=/bin\0HOME=/\0"), &c), 0);
	assert_int_equal(parse(ENV("PMI_RANK\0PMI_RANK1\0XPMI_RANK=1\0PMI_RANKS=1\0"), &c), 0);
	assert_int_equal(parse(ENV("PMI_RANK=\0"), &c), 0);
	assert_int_equal(parse(ENV("PMI_RANK=-1\0"), &c), 0);
	assert_int_equal(parse(ENV("PMI_RANK=+1\0"), &c), 0);
	assert_int_equal(parse(ENV("PMI_RANK= 1\0"), &c), 0);
	assert_int_equal(parse(ENV("PMI_RANK=1x\0"), &c), 0);
	assert_int_equal(parse(ENV("PMI_RANK=99999999999999999999999\0"), &c), 0);
	assert_int_equal(parse(ENV("PMI_RANK=4294967297\0"), &c), 0);
	assert_int_equal(parse(ENV("PMI_RANK=1048576\0"), &c), 0);	/* SB_MAX_RANK */
	/* A rank at or above its own size is a lie; nothing of that pair is believed. */
	assert_int_equal(parse(ENV("PMI_RANK=4\0PMI_SIZE=4\0"), &c), 0);
	/* Nothing was written on failure. */
	assert_int_equal(c.rank, 77);
	/* ... and the next pair is still looked at. */
	assert_int_equal(parse(ENV("PMI_RANK=9\0PMI_SIZE=4\0SLURM_PROCID=2\0"), &c), 1);
	assert_int_equal(c.var, SB_MPI_SLURM);
	assert_int_equal(c.rank, 2);
	/* A size that is no number, or 0, is unknown; the rank stands. */
	assert_int_equal(parse(ENV("PMI_RANK=3\0PMI_SIZE=lots\0"), &c), 1);
	assert_int_equal(c.size, 0);
	assert_int_equal(parse(ENV("PMI_RANK=3\0PMI_SIZE=0\0"), &c), 1);
	assert_int_equal(c.size, 0);
	assert_int_equal(parse(ENV("PMI_RANK=3\0PMI_SIZE=99999999999\0"), &c), 1);
	assert_int_equal(c.size, 0);
	/* No NUL at the end: the last entry ends with the block, never after it. */
	assert_int_equal(parse(no_nul, sizeof(no_nul), &c), 1);
	assert_int_equal(c.rank, 7);
	assert_int_equal(parse(no_nul, sizeof(no_nul) - 1, &c), 0);
}

static void claim(struct sb_mpi_ranks *s, uint32_t tgid, uint32_t rank, uint32_t size,
		  enum sb_mpi_var var)
{
	struct sb_mpi_claim c = { .rank = rank, .size = size, .var = var };

	assert_int_equal(sb_mpi_ranks_claim(s, tgid, &c), 0);
}

static void test_without_claims_the_rule_is_the_default(void **state)
{
	static const uint32_t tgids[] = { 30, 10, 20 };
	struct sb_mpi_ranks s = { 0 };
	uint32_t ranks[3], want[3];

	(void)state;
	assert_int_equal(sb_mpi_rank_rule(&s, tgids, 3, ranks), 0);
	assert_int_equal(sb_rank_by_first_call(NULL, tgids, 3, want), 0);
	assert_memory_equal(ranks, want, sizeof(ranks));
	/* A process whose exec dropped its rank counts as none. */
	claim(&s, 10, 0, 2, SB_MPI_N_VARS);
	assert_int_equal(sb_mpi_rank_rule(&s, tgids, 3, ranks), 0);
	assert_memory_equal(ranks, want, sizeof(ranks));
	sb_mpi_ranks_free(&s);
}

static void test_ranks_are_the_mpi_ranks_and_launchers_come_after(void **state)
{
	/* In order of first completed call: rank 3 first, a launcher (99) among them. */
	static const uint32_t tgids[] = { 13, 99, 12, 11, 10 };
	struct sb_mpi_ranks s = { 0 };
	uint32_t ranks[5];

	(void)state;
	claim(&s, 10, 0, 4, SB_MPI_PMI);
	claim(&s, 11, 1, 4, SB_MPI_PMI);
	claim(&s, 12, 2, 4, SB_MPI_PMI);
	claim(&s, 13, 3, 4, SB_MPI_PMI);
	assert_int_equal(sb_mpi_rank_rule(&s, tgids, 5, ranks), 0);
	assert_int_equal(ranks[0], 3);
	assert_int_equal(ranks[1], 4);
	assert_int_equal(ranks[2], 2);
	assert_int_equal(ranks[3], 1);
	assert_int_equal(ranks[4], 0);
	sb_mpi_ranks_free(&s);
}

static void test_launchers_come_after_the_world_size(void **state)
{
	/* Only ranks 1 and 5 of 8 completed calls: the launcher is 8, not 6. */
	static const uint32_t tgids[] = { 99, 15, 11 };
	struct sb_mpi_ranks s = { 0 };
	uint32_t ranks[3];

	(void)state;
	claim(&s, 11, 1, 8, SB_MPI_PMI);
	claim(&s, 15, 5, 8, SB_MPI_PMI);
	assert_int_equal(sb_mpi_rank_rule(&s, tgids, 3, ranks), 0);
	assert_int_equal(ranks[0], 8);
	assert_int_equal(ranks[1], 5);
	assert_int_equal(ranks[2], 1);
	sb_mpi_ranks_free(&s);
}

static void test_conflicts_go_to_the_first_claim_of_the_best_variable(void **state)
{
	/* 20 forked 21 (same rank 0), first call order has the child first. */
	static const uint32_t tgids[] = { 21, 30, 20, 40 };
	struct sb_mpi_ranks s = { 0 };
	uint32_t ranks[4];

	(void)state;
	claim(&s, 20, 0, 2, SB_MPI_PMI);
	claim(&s, 21, 0, 2, SB_MPI_PMI);
	claim(&s, 30, 1, 2, SB_MPI_PMI);
	/* The batch script's Slurm task id on mpiexec is no MPI rank beside PMI's. */
	claim(&s, 40, 0, 64, SB_MPI_SLURM);
	assert_int_equal(sb_mpi_rank_rule(&s, tgids, 4, ranks), 0);
	assert_int_equal(ranks[2], 0);
	assert_int_equal(ranks[1], 1);
	assert_int_equal(ranks[0], 2);
	assert_int_equal(ranks[3], 3);
	/* The same claims in another first-call order: the same winners. */
	{
		static const uint32_t again[] = { 40, 20, 21, 30 };

		assert_int_equal(sb_mpi_rank_rule(&s, again, 4, ranks), 0);
		assert_int_equal(ranks[1], 0);
		assert_int_equal(ranks[3], 1);
		assert_int_equal(ranks[0], 2);
		assert_int_equal(ranks[2], 3);
	}
	sb_mpi_ranks_free(&s);
}

/* What a process learned from MPI_Comm_rank beats its environment, and conflicts go its way. */
static void test_a_learned_rank_beats_the_environment(void **state)
{
	static const uint32_t tgids[] = { 10, 11, 12, 99 };
	struct sb_mpi_ranks s = { 0 };
	uint32_t ranks[4];

	(void)state;
	claim(&s, 10, 0, 3, SB_MPI_PMI);
	claim(&s, 11, 0, 3, SB_MPI_PMI);	/* wrong: it is rank 1 */
	claim(&s, 12, 2, 3, SB_MPI_PMI);
	assert_int_equal(sb_mpi_ranks_learned(&s, 11, 1, 3), 0);
	assert_int_equal(sb_mpi_ranks_learned(&s, 10, 0, -1), 0);
	assert_int_equal(sb_mpi_rank_rule(&s, tgids, 4, ranks), 0);
	assert_int_equal(ranks[0], 0);
	assert_int_equal(ranks[1], 1);
	assert_int_equal(ranks[2], 2);
	assert_int_equal(ranks[3], 3);
	/* A size learned beyond the claims': helpers come after it. */
	assert_int_equal(sb_mpi_ranks_learned(&s, 12, -1, 5), 0);
	assert_int_equal(s.seen[2].own_rank, -1);
	assert_int_equal(sb_mpi_rank_rule(&s, tgids, 4, ranks), 0);
	assert_int_equal(ranks[3], 5);
	sb_mpi_ranks_free(&s);
}

/* Without any environment claim (a singleton run, MPI_Init alone), the learned rank counts. */
static void test_a_learned_rank_without_environment(void **state)
{
	static const uint32_t tgids[] = { 30, 20 };
	struct sb_mpi_ranks s = { 0 };
	uint32_t ranks[2];

	(void)state;
	assert_int_equal(sb_mpi_ranks_learned(&s, 20, 0, 1), 0);
	assert_int_equal(sb_mpi_rank_rule(&s, tgids, 2, ranks), 0);
	assert_int_equal(ranks[1], 0);
	assert_int_equal(ranks[0], 1);
	sb_mpi_ranks_free(&s);
}

static void test_mpi_libraries_are_known_by_their_file_name(void **state)
{
	char name[16], version[32];

	(void)state;
	assert_int_equal(sb_mpi_library_of("/usr/lib/x86_64-linux-gnu/libmpich.so.12.2.2", name,
					   sizeof(name), version, sizeof(version)), 1);
	assert_string_equal(name, "MPICH");
	assert_string_equal(version, "12.2.2");
	assert_int_equal(sb_mpi_library_of("/opt/ompi/lib/libmpi.so.40.30.1", name, sizeof(name),
					   version, sizeof(version)), 1);
	assert_string_equal(name, "Open MPI");
	assert_string_equal(version, "40.30.1");
	assert_int_equal(sb_mpi_library_of("/opt/intel/lib/libmpi.so.12", name, sizeof(name),
					   version, sizeof(version)), 1);
	assert_string_equal(name, "libmpi");
	assert_string_equal(version, "12");
	assert_int_equal(sb_mpi_library_of("/x/libmpi.so.400", name, sizeof(name), version,
					   sizeof(version)), 1);
	assert_string_equal(name, "libmpi");
	assert_int_equal(sb_mpi_library_of("libmpich.so.12.x", name, sizeof(name), version,
					   sizeof(version)), 1);
	assert_string_equal(version, "");
	assert_int_equal(sb_mpi_library_of("/usr/lib/libmpichfort.so.12", name, sizeof(name),
					   version, sizeof(version)), 0);
	assert_int_equal(sb_mpi_library_of("/usr/lib/libmpi_mpifh.so.40", name, sizeof(name),
					   version, sizeof(version)), 0);
	assert_int_equal(sb_mpi_library_of("/usr/lib/libc.so.6", name, sizeof(name), version,
					   sizeof(version)), 0);
}

static void test_the_source_sets_the_rule_children_inherit_and_metadata(void **state)
{
	struct sb_collector coll = { 0 };
	struct sb_source_env env = { .coll = &coll };
	struct sb_proc_change fork_ch = { .what = SB_PROC_FORK, .pid = 21, .parent = 20 };
	struct sb_proc_change orphan = { .what = SB_PROC_FORK, .pid = 31, .parent = 30 };
	struct sb_mpi_ranks s = { 0 };
	struct sb_error err = { { 0 } };
	const struct sb_meta *m;

	(void)state;
	sb_profile_init(&coll.prof);
	assert_int_equal(sb_mpi_ranks_source.start(&s, &env, &err), 0);
	assert_ptr_equal(coll.rank_rule, sb_mpi_rank_rule);
	assert_ptr_equal(coll.rank_rule_ctx, &s);
	claim(&s, 20, 2, 0, SB_MPI_PMIX);
	assert_int_equal(sb_mpi_ranks_source.process(&s, &env, &fork_ch, &err), 0);
	assert_int_equal(sb_mpi_ranks_source.process(&s, &env, &orphan, &err), 0);
	assert_int_equal(s.n_seen, 2);
	assert_int_equal(s.seen[1].tgid, 21);
	assert_int_equal(s.seen[1].claim.rank, 2);
	assert_int_equal(sb_mpi_ranks_source.contribute(&s, &env), 0);
	/* No size given: the highest rank + 1. */
	m = sb_profile_meta(&coll.prof, "mpi_size");
	assert_non_null(m);
	assert_int_equal(m->i, 3);
	m = sb_profile_meta(&coll.prof, "mpi_rank_source");
	assert_non_null(m);
	assert_string_equal(m->s, "PMIX_RANK");
	assert_null(sb_profile_meta(&coll.prof, "mpi_library"));
	sb_mpi_ranks_source.free(&s);
	sb_profile_free(&coll.prof);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_variables_are_taken_in_order),
		cmocka_unit_test(test_hostile_environments_name_no_rank),
		cmocka_unit_test(test_without_claims_the_rule_is_the_default),
		cmocka_unit_test(test_ranks_are_the_mpi_ranks_and_launchers_come_after),
		cmocka_unit_test(test_launchers_come_after_the_world_size),
		cmocka_unit_test(test_conflicts_go_to_the_first_claim_of_the_best_variable),
		cmocka_unit_test(test_a_learned_rank_beats_the_environment),
		cmocka_unit_test(test_a_learned_rank_without_environment),
		cmocka_unit_test(test_mpi_libraries_are_known_by_their_file_name),
		cmocka_unit_test(test_the_source_sets_the_rule_children_inherit_and_metadata),
	};

	return cmocka_run_group_tests_name("mpi_ranks", tests, NULL, NULL);
}
