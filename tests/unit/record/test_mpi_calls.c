/*
 * MPI call tracing, the parts that need no kernel: datatype sizes from MPICH's
 * handles, region names and tags per scope-profiler's grammar, and the
 * library look-up (one probe per address) on the installed MPICH.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "record/sources/mpi_calls.h"
#include "record/sources/mpi_lib.h"
#include "record/sources/mpi_names.h"
#include "record/sources/mpi_uprobe_multi.h"

#if defined(__aarch64__)
#define LIBDIR "/usr/lib/aarch64-linux-gnu"
#else
#define LIBDIR "/usr/lib/x86_64-linux-gnu"
#endif

/* Handles from MPICH 4's mpi.h, written out so the test needs no MPI headers. */
static void test_mpich_datatype_sizes(void **state)
{
	(void)state;
	assert_int_equal(sb_mpich_type_size(0x4c000101), 1);	/* MPI_CHAR */
	assert_int_equal(sb_mpich_type_size(0x4c00010d), 1);	/* MPI_BYTE */
	assert_int_equal(sb_mpich_type_size(0x4c000405), 4);	/* MPI_INT */
	assert_int_equal(sb_mpich_type_size(0x4c00080b), 8);	/* MPI_DOUBLE */
	assert_int_equal(sb_mpich_type_size(0x4c000816), 8);	/* MPI_2INT */
	assert_int_equal(sb_mpich_type_size(0x8c000001), -1);	/* MPI_DOUBLE_INT: not builtin */
	assert_int_equal(sb_mpich_type_size(0x0c000000), -1);	/* MPI_DATATYPE_NULL */
	assert_int_equal(sb_mpich_type_size(0x8c000004), -1);	/* a derived (direct) type */
	assert_int_equal(sb_mpich_type_size(0x44000000), -1);	/* MPI_COMM_WORLD: not a type */
}

static void test_send_name_and_tags(void **state)
{
	struct sb_mpi_event e = { .type = SB_EV_MPI, .op = SB_MPI_SEND, .bytes = 800, .peer = 1,
				  .root = -1, .tag = 7, .comm = 0 };
	char name[SB_NAME_MAX], tags[SB_MPI_TAGS_MAX];

	(void)state;
	assert_int_equal(sb_mpi_format(&e, name, sizeof(name), tags, sizeof(tags)), 0);
	assert_string_equal(name, "mpi:send kind=point-to-point bytes=800 peer=1 root=-1 tag=7 comm=0");
	assert_string_equal(tags, "mpi,mpi.kind:point-to-point,mpi.operation:send,mpi.bytes:800,"
				  "mpi.peer:1,mpi.root:-1,mpi.tag:7,mpi.communicator:0");
}

static void test_collectives_and_init_are_collective(void **state)
{
	struct sb_mpi_event e = { .type = SB_EV_MPI, .op = SB_MPI_REDUCE, .bytes = 16, .peer = -1,
				  .root = 2, .tag = -1, .comm = 0x44000000 };
	char name[SB_NAME_MAX], tags[SB_MPI_TAGS_MAX];

	(void)state;
	assert_int_equal(sb_mpi_format(&e, name, sizeof(name), tags, sizeof(tags)), 0);
	assert_string_equal(name,
			    "mpi:reduce kind=collective bytes=16 peer=-1 root=2 tag=-1 comm=1140850688");
	e.op = SB_MPI_INIT_THREAD;
	e.bytes = 0;
	e.root = -1;
	assert_int_equal(sb_mpi_format(&e, name, sizeof(name), tags, sizeof(tags)), 0);
	assert_string_equal(name,
			    "mpi:init_thread kind=collective bytes=0 peer=-1 root=-1 tag=-1 comm=1140850688");
	assert_non_null(strstr(tags, "mpi.operation:init_thread"));
}

/* request= on waits whose start was seen; never on other operations. */
static void test_wait_names_its_request(void **state)
{
	struct sb_mpi_event e = { .type = SB_EV_MPI, .op = SB_MPI_WAIT, .bytes = 800, .peer = 1,
				  .root = -1, .tag = 7, .comm = 0, .request = SB_MPI_ISEND };
	char name[SB_NAME_MAX], tags[SB_MPI_TAGS_MAX];

	(void)state;
	assert_int_equal(sb_mpi_format(&e, name, sizeof(name), tags, sizeof(tags)), 0);
	assert_string_equal(name,
			    "mpi:wait kind=wait bytes=800 peer=1 root=-1 tag=7 comm=0 request=isend");
	assert_string_equal(tags, "mpi,mpi.kind:wait,mpi.operation:wait,mpi.bytes:800,mpi.peer:1,"
				  "mpi.root:-1,mpi.tag:7,mpi.communicator:0,mpi.request:isend");
	e.request = -1;
	e.bytes = -1;
	e.peer = -1;
	e.tag = -1;
	e.comm = -1;
	assert_int_equal(sb_mpi_format(&e, name, sizeof(name), tags, sizeof(tags)), 0);
	assert_string_equal(name, "mpi:wait kind=wait bytes=-1 peer=-1 root=-1 tag=-1 comm=-1");
	e.op = SB_MPI_ISEND;
	e.request = SB_MPI_IRECV;
	assert_int_equal(sb_mpi_format(&e, name, sizeof(name), tags, sizeof(tags)), 0);
	assert_null(strstr(name, "request="));
	assert_null(strstr(tags, "mpi.request"));
}

/* The grammar's three kinds only: one-sided and file calls by who takes part. */
static void test_one_sided_and_file_kinds(void **state)
{
	static const struct {
		unsigned int op;
		const char *name, *kind;
	} want[] = {
		{ SB_MPI_PUT, "put", "point-to-point" },
		{ SB_MPI_WIN_FENCE, "win_fence", "collective" },
		{ SB_MPI_WIN_CREATE, "win_create", "collective" },
		{ SB_MPI_WIN_LOCK_ALL, "win_lock_all", "point-to-point" },
		{ SB_MPI_FILE_WRITE_AT, "file_write_at", "point-to-point" },
		{ SB_MPI_FILE_READ_AT_ALL, "file_read_at_all", "collective" },
		{ SB_MPI_IBCAST, "ibcast", "collective" },
		{ SB_MPI_ALLTOALLV, "alltoallv", "collective" },
		{ SB_MPI_WAITSOME, "waitsome", "wait" },
		{ SB_MPI_ISSEND, "issend", "point-to-point" },
	};
	struct sb_mpi_event e = { .type = SB_EV_MPI, .bytes = 8, .peer = 1, .root = -1, .tag = -1,
				  .comm = -1, .request = SB_MPI_IBCAST };
	char name[SB_NAME_MAX], tags[SB_MPI_TAGS_MAX], expect[SB_NAME_MAX];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		e.op = want[i].op;
		assert_string_equal(sb_mpi_op_name(e.op), want[i].name);
		assert_string_equal(sb_mpi_kind(e.op), want[i].kind);
		assert_int_equal(sb_mpi_format(&e, name, sizeof(name), tags, sizeof(tags)), 0);
		snprintf(expect, sizeof(expect),
			 "mpi:%s kind=%s bytes=8 peer=1 root=-1 tag=-1 comm=-1%s", want[i].name,
			 want[i].kind, strcmp(want[i].kind, "wait") ? "" : " request=ibcast");
		assert_string_equal(name, expect);
	}
}

static void test_bad_operation_and_small_buffers(void **state)
{
	struct sb_mpi_event e = { .type = SB_EV_MPI, .op = SB_MPI_N_OPS };
	char name[SB_NAME_MAX], tags[SB_MPI_TAGS_MAX], tiny[16];

	(void)state;
	assert_int_equal(sb_mpi_format(&e, name, sizeof(name), tags, sizeof(tags)), -EINVAL);
	e.op = SB_MPI_ALLTOALL;
	assert_int_equal(sb_mpi_format(&e, tiny, sizeof(tiny), tags, sizeof(tags)), -ENOSPC);
	assert_int_equal(sb_mpi_format(&e, name, sizeof(name), tiny, sizeof(tiny)), -ENOSPC);
}

/* Every operation has a distinct function and name: the table is complete. */
static void test_every_operation_is_named(void **state)
{
	unsigned int i, j;

	(void)state;
	for (i = 0; i < SB_MPI_N_OPS; i++) {
		assert_non_null(sb_mpi_function(i));
		assert_non_null(sb_mpi_op_name(i));
		for (j = 0; j < i; j++)
			assert_string_not_equal(sb_mpi_function(i), sb_mpi_function(j));
	}
	assert_null(sb_mpi_function(SB_MPI_N_OPS));
}

/* Only a launcher's recording probes the installed libraries at start. */
static void test_launchers(void **state)
{
	char *mpiexec[] = { "/usr/bin/mpiexec", "-n", "4", "./app", NULL };
	char *srun[] = { "srun", "./app", NULL };
	char *app[] = { "./mpiexec-like", NULL };
	char *shell[] = { "sh", "-c", "mpiexec -n 2 ./app", NULL };
	char *none[] = { NULL };

	(void)state;
	assert_true(sb_mpi_launcher(mpiexec));
	assert_true(sb_mpi_launcher(srun));
	assert_false(sb_mpi_launcher(app));
	assert_false(sb_mpi_launcher(shell));
	assert_false(sb_mpi_launcher(none));
	assert_false(sb_mpi_launcher(NULL));
}

static void test_library_names(void **state)
{
	(void)state;
	assert_true(sb_mpi_lib_name("/usr/lib/x86_64-linux-gnu/libmpich.so.12.2.0"));
	assert_true(sb_mpi_lib_name("/opt/openmpi/lib/libmpi.so.40"));
	assert_false(sb_mpi_lib_name("/usr/lib/libm.so.6"));
	assert_false(sb_mpi_lib_name("/usr/lib/libmpi_stub.a"));
}

/* The installed MPICH: every operation found once, MPI_X probed where PMPI_X is the same code. */
static void test_mpich_library_one_probe_per_address(void **state)
{
	const char *path = getenv("SB_TEST_LIBMPICH");
	struct sb_mpi_lib lib;
	unsigned int i, j;

	(void)state;
	if (!path)
		path = LIBDIR "/libmpich.so.12";
	if (access(path, R_OK))
		skip();
	assert_int_equal(sb_mpi_lib_read(path, &lib), 1);
	assert_int_equal(lib.abi, SB_MPI_ABI_MPICH);
	assert_true(sb_mpi_lib_sizes_known(&lib));
	assert_int_equal(lib.n_probes, SB_MPI_N_OPS);
	for (i = 0; i < SB_MPI_N_OPS; i++) {
		assert_true(lib.offset[i] != 0);
		for (j = 0; j < i; j++)
			assert_true(lib.offset[i] != lib.offset[j]);
	}
}

/*
 * The installed Open MPI (Debian's, tools/install-deps.sh): pointer handles,
 * its datatype objects' size field found where its predefined types say.
 */
static void test_ompi_library_sizes_found(void **state)
{
	const char *path = getenv("SB_TEST_LIBMPI");
	const char *ci = getenv("CI");
	struct sb_mpi_lib lib;

	(void)state;
	if (!path)
		path = LIBDIR "/libmpi.so.40";
	if (access(path, R_OK)) {
		if (ci && !strcmp(ci, "true"))
			fail_msg("%s: Open MPI is not installed (tools/install-deps.sh)", path);
		skip();
	}
	assert_int_equal(sb_mpi_lib_read(path, &lib), 1);
	assert_int_equal(lib.abi, SB_MPI_ABI_OMPI | 24 << SB_MPI_ABI_TYPE_SIZE_SHIFT);
	assert_true(sb_mpi_lib_sizes_known(&lib));
	assert_true(lib.offset[SB_MPI_SEND] != 0);
	assert_true(lib.offset[SB_MPI_WAITALL] != 0);
}

static void test_non_mpi_file_is_not_a_library(void **state)
{
	struct sb_mpi_lib lib;

	(void)state;
	assert_int_equal(sb_mpi_lib_read("/proc/self/exe", &lib), 0);
	assert_int_equal(lib.n_probes, 0);
	assert_int_equal(sb_mpi_lib_read("/nonexistent/libmpich.so", &lib), -ENOENT);
}

/* A uprobe multi link names what it could not do (where the kernel and privileges allow one). */
static void test_uprobe_multi_link_errors(void **state)
{
	uint64_t offset = 0x1000, cookie = 0;

	(void)state;
	if (!sb_uprobe_multi_supported())
		skip();
	/* No program: refused before the file is looked at. */
	assert_int_equal(sb_uprobe_multi_link(-1, "/nonexistent/libmpich.so", &offset, &cookie, 1,
					      false), -EBADF);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_mpich_datatype_sizes),
		cmocka_unit_test(test_send_name_and_tags),
		cmocka_unit_test(test_collectives_and_init_are_collective),
		cmocka_unit_test(test_wait_names_its_request),
		cmocka_unit_test(test_one_sided_and_file_kinds),
		cmocka_unit_test(test_bad_operation_and_small_buffers),
		cmocka_unit_test(test_every_operation_is_named),
		cmocka_unit_test(test_library_names),
		cmocka_unit_test(test_launchers),
		cmocka_unit_test(test_mpich_library_one_probe_per_address),
		cmocka_unit_test(test_ompi_library_sizes_found),
		cmocka_unit_test(test_non_mpi_file_is_not_a_library),
		cmocka_unit_test(test_uprobe_multi_link_errors),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
