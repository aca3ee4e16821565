/*
 * The recorder's part of the PMPI path: which library a command gets
 * (record/mpi_env.c), and the tags a region the library named gets back
 * (record/sources/mpi_tags.c).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "record/mpi_env.h"
#include "record/sources/mpi_names.h"

/* A region the library names gets the tags the uprobe path gives the same call. */
static void test_library_regions_get_full_tags(void **state)
{
	struct sb_mpi_event e = { .type = SB_EV_MPI, .op = SB_MPI_WAIT, .bytes = 800, .peer = 1,
				  .root = -1, .tag = 7, .comm = 0x44000000,
				  .request = SB_MPI_ISEND };
	char name[SB_NAME_MAX], want[SB_MPI_TAGS_MAX], out[SB_MPI_TAGS_MAX];

	(void)state;
	assert_int_equal(sb_mpi_format(&e, name, sizeof(name), want, sizeof(want)), 0);
	assert_string_equal(sb_mpi_region_tags(name, "mpi", out, sizeof(out)), want);
	assert_non_null(strstr(want, "mpi.request:isend"));
	e.op = SB_MPI_ALLREDUCE;
	e.request = -1;
	assert_int_equal(sb_mpi_format(&e, name, sizeof(name), want, sizeof(want)), 0);
	assert_string_equal(sb_mpi_region_tags(name, "mpi", out, sizeof(out)), want);
}

/* Anything else keeps its tags: other tags, names off the grammar, too small a buffer. */
static void test_other_regions_keep_their_tags(void **state)
{
	const char *send = "mpi:send kind=point-to-point bytes=8 peer=1 root=-1 tag=0 comm=0";
	char out[SB_MPI_TAGS_MAX];

	(void)state;
	assert_string_equal(sb_mpi_region_tags(send, "io", out, sizeof(out)), "io");
	assert_null(sb_mpi_region_tags(send, NULL, out, sizeof(out)));
	assert_string_equal(sb_mpi_region_tags("solve", "mpi", out, sizeof(out)), "mpi");
	assert_string_equal(sb_mpi_region_tags("mpi:frobnicate kind=wait bytes=0 peer=-1 root=-1 "
					       "tag=-1 comm=-1", "mpi", out, sizeof(out)), "mpi");
	/* Not as the formatter writes it (a space too many): not the library's. */
	assert_string_equal(sb_mpi_region_tags("mpi:send kind=point-to-point  bytes=8 peer=1 "
					       "root=-1 tag=0 comm=0", "mpi", out, sizeof(out)),
			    "mpi");
	assert_string_equal(sb_mpi_region_tags(send, "mpi", out, 16), "mpi");
}

/* The launcher says which MPI where no word is a program linked with one. */
static void test_command_abi_from_launcher(void **state)
{
	char *mpich[] = { "mpiexec.mpich", "-n", "2", "./not-there", NULL };
	char *ompi[] = { "mpiexec.openmpi", "-n", "2", "hostname", NULL };
	char *plain[] = { "sh", "-c", "true", NULL };

	(void)state;
	if (access("/usr/bin/mpiexec.mpich", X_OK) || access("/usr/bin/mpiexec.openmpi", X_OK))
		fail_msg("Debian's mpich and openmpi-bin are needed (tools/install-deps.sh)");
	assert_int_equal(sb_mpi_command_abi(mpich), SB_MPI_MPICH);
	assert_int_equal(sb_mpi_command_abi(ompi), SB_MPI_OPENMPI);
	assert_int_equal(sb_mpi_command_abi(plain), SB_MPI_UNKNOWN);
	assert_int_equal(sb_mpi_command_abi(NULL), SB_MPI_UNKNOWN);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_library_regions_get_full_tags),
		cmocka_unit_test(test_other_regions_keep_their_tags),
		cmocka_unit_test(test_command_abi_from_launcher),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
