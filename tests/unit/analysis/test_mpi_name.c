/* Unit tests of MPI call region names: the grammar, the function called, its arguments. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "analysis/mpi_name.h"

static void test_names_parse_with_the_grammar(void **state)
{
	struct sb_mpi_call c;

	(void)state;
	assert_int_equal(sb_mpi_parse("mpi:isend kind=point-to-point bytes=800 peer=1 root=-1 "
				      "tag=7 comm=1140850688", &c), 0);
	assert_string_equal(c.op, "isend");
	assert_string_equal(c.kind, "point-to-point");
	assert_int_equal(c.bytes, 800);
	assert_int_equal(c.peer, 1);
	assert_int_equal(c.root, -1);
	assert_int_equal(c.tag, 7);
	assert_int_equal(c.comm, 1140850688);
	assert_string_equal(c.request, "");
	assert_true(sb_mpi_is_send(&c));
	assert_int_equal(sb_mpi_parse("mpi:wait kind=wait bytes=800 peer=1 root=-1 tag=7 comm=0 "
				      "request=isend", &c), 0);
	assert_string_equal(c.request, "isend");
	assert_false(sb_mpi_is_send(&c));
	/* Keys the grammar does not know are skipped, in any place. */
	assert_int_equal(sb_mpi_parse("mpi:alltoall kind=collective future=1 bytes=64 peer=-1 "
				      "root=-1 tag=-1 comm=0", &c), 0);
	assert_int_equal(c.bytes, 64);
	assert_false(sb_mpi_is_send(&c));
}

static void test_other_names_are_not_mpi_calls(void **state)
{
	static const char *bad[] = {
		"solve", "MPI:send kind=point-to-point bytes=1 peer=1 root=-1 tag=0 comm=0",
		" mpi:send kind=point-to-point bytes=1 peer=1 root=-1 tag=0 comm=0",
		"mpi: kind=point-to-point bytes=1 peer=1 root=-1 tag=0 comm=0", "mpi:",
		"mpi:send kind=point-to-point bytes=1 peer=1 root=-1 tag=0",
		"mpi:send kind=point-to-point bytes=x peer=1 root=-1 tag=0 comm=0",
		"mpi:send kind=point-to-point bytes=1 peer=1 root=-1 tag=0 comm=0 junk",
		"mpi:send kind=point-to-point bytes= peer=1 root=-1 tag=0 comm=0",
	};
	struct sb_mpi_call c;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		if (sb_mpi_parse(bad[i], &c) != -EINVAL)
			fail_msg("'%s' parsed as an MPI call", bad[i]);
}

/* The function as the views group it, and as MPI (and Score-P, Vampir) spell it. */
static void test_function_of_a_name(void **state)
{
	static const struct {
		const char *name, *row, *mpi;
	} cases[] = {
		{ "mpi:recv kind=point-to-point bytes=800 peer=1 root=-1 tag=7 comm=1140850688",
		  "mpi:recv", "MPI_Recv" },
		{ "mpi:reduce_scatter_block kind=collective bytes=64 peer=-1 root=-1 tag=-1 comm=0",
		  "mpi:reduce_scatter_block", "MPI_Reduce_scatter_block" },
		{ "mpi:file_write_at_all kind=collective bytes=8 peer=-1 root=-1 tag=-1 comm=-1",
		  "mpi:file_write_at_all", "MPI_File_write_at_all" },
		{ "mpi:waitall kind=wait bytes=16 peer=-1 root=-1 tag=-1 comm=-1 request=isend",
		  "mpi:waitall", "MPI_Waitall" },
	};
	char row[SB_MPI_FN_MAX], mpi[SB_MPI_FN_MAX];
	struct sb_mpi_call c;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		assert_int_equal(sb_mpi_parse(cases[i].name, &c), 0);
		sb_mpi_call_function(&c, row);
		sb_mpi_call_mpi_name(&c, mpi);
		assert_string_equal(row, cases[i].row);
		assert_string_equal(mpi, cases[i].mpi);
	}
}

/* What tells a function's regions apart: peer, bytes, tag first; nothing unknown or implied. */
static void test_details_say_what_differs(void **state)
{
	static const struct {
		const char *name, *details;
	} cases[] = {
		{ "mpi:recv kind=point-to-point bytes=800 peer=1 root=-1 tag=7 comm=1140850688",
		  "peer=1 bytes=800 tag=7" },
		/* MPI_ANY_SOURCE and MPI_ANY_TAG are -1: left out, as unknown bytes are. */
		{ "mpi:recv kind=point-to-point bytes=-1 peer=-1 root=-1 tag=-1 comm=1140850688",
		  "(no arguments known)" },
		{ "mpi:bcast kind=collective bytes=4096 peer=-1 root=0 tag=-1 comm=1140850688",
		  "bytes=4096 root=0" },
		/* Another communicator than MPI_COMM_WORLD is worth saying (MPICH's are < 0). */
		{ "mpi:allreduce kind=collective bytes=8 peer=-1 root=-1 tag=-1 comm=-2080374784",
		  "bytes=8 comm=-2080374784" },
		{ "mpi:allreduce kind=collective bytes=8 peer=-1 root=-1 tag=-1 comm=-1",
		  "bytes=8" },
		{ "mpi:wait kind=wait bytes=800 peer=3 root=-1 tag=7 comm=1140850688 request=irecv",
		  "peer=3 bytes=800 tag=7 request=irecv" },
		{ "mpi:barrier kind=collective bytes=0 peer=-1 root=-1 tag=-1 comm=1140850688",
		  "bytes=0" },
		{ "mpi:send kind=point-to-point bytes=9223372036854775807 peer=2147483647 "
		  "root=2147483647 tag=2147483647 comm=9223372036854775807 "
		  "request=abcdefghijklmnopqrstuvwxyz01234",
		  "peer=2147483647 bytes=9223372036854775807 tag=2147483647 root=2147483647 "
		  "comm=9223372036854775807 request=abcdefghijklmnopqrstuvwxyz01234" },
		/* The longest there is: every value at its widest fits whole. */
		{ "mpi:send kind=point-to-point bytes=-9223372036854775808 "
		  "peer=-9223372036854775808 root=-9223372036854775808 tag=-9223372036854775808 "
		  "comm=-9223372036854775808 request=abcdefghijklmnopqrstuvwxyz01234",
		  "peer=-9223372036854775808 bytes=-9223372036854775808 tag=-9223372036854775808 "
		  "root=-9223372036854775808 comm=-9223372036854775808 "
		  "request=abcdefghijklmnopqrstuvwxyz01234" },
	};
	char d[SB_MPI_DETAIL_MAX];
	struct sb_mpi_call c;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		assert_int_equal(sb_mpi_parse(cases[i].name, &c), 0);
		sb_mpi_call_details(&c, d);
		assert_string_equal(d, cases[i].details);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_names_parse_with_the_grammar),
		cmocka_unit_test(test_other_names_are_not_mpi_calls),
		cmocka_unit_test(test_function_of_a_name),
		cmocka_unit_test(test_details_say_what_differs),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
