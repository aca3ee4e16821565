/* Unit tests of `scope-bpf record` option parsing. */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cmd/record_opts.h"
#include "record/annot_env.h"

#define ARGC(a) ((int)(sizeof(a) / sizeof((a)[0])) - 1)

static void test_command_after_double_dash(void **state)
{
	char *argv[] = { "record", "-o", "x.h5", "-d", "2.5", "-q", "--", "./app", "-v", "3", NULL };
	struct sb_error err = { { 0 } };
	struct record_opts o;

	(void)state;
	assert_int_equal(record_parse_args(ARGC(argv), argv, &o, &err), 0);
	assert_string_equal(o.output, "x.h5");
	assert_true(o.duration > 2.49 && o.duration < 2.51);
	assert_true(o.quiet);
	assert_false(o.verbose);
	assert_string_equal(o.cmd[0], "./app");
	/* The command's own options are not ours. */
	assert_string_equal(o.cmd[1], "-v");
	assert_null(o.cmd[3]);
}

static void test_command_without_double_dash_and_defaults(void **state)
{
	char *argv[] = { "record", "./app", "-p", "1", NULL };
	struct sb_error err = { { 0 } };
	struct record_opts o;

	(void)state;
	assert_int_equal(record_parse_args(ARGC(argv), argv, &o, &err), 0);
	assert_string_equal(o.output, "scope-bpf.h5");
	assert_int_equal(o.pid, 0);
	assert_string_equal(o.cmd[1], "-p");
}

static void test_pid_long_options(void **state)
{
	char *argv[] = { "record", "--pid", "4242", "--duration", "10", "--verbose", NULL };
	struct sb_error err = { { 0 } };
	struct record_opts o;

	(void)state;
	assert_int_equal(record_parse_args(ARGC(argv), argv, &o, &err), 0);
	assert_int_equal(o.pid, 4242);
	assert_null(o.cmd);
	assert_true(o.verbose);
}

static void expect_error(char **argv, int argc, const char *msg)
{
	struct sb_error err = { { 0 } };
	struct record_opts o;

	assert_int_equal(record_parse_args(argc, argv, &o, &err), -EINVAL);
	record_opts_free(&o);
	if (!strstr(err.msg, msg))
		fail_msg("error '%s' does not say '%s'", err.msg, msg);
}

static void test_bad_input(void **state)
{
	char *bad_pid[] = { "record", "-p", "12x", NULL };
	char *neg_pid[] = { "record", "-p", "-5", NULL };
	char *bad_dur[] = { "record", "-d", "soon", "--", "ls", NULL };
	char *zero_dur[] = { "record", "-d", "0", "--", "ls", NULL };
	char *both[] = { "record", "-p", "3", "--", "ls", NULL };
	char *none[] = { "record", "-q", NULL };
	char *unknown[] = { "record", "--frobnicate", "--", "ls", NULL };
	char *missing[] = { "record", "-o", NULL };
	char *empty[] = { "record", "-o", "", "--", "ls", NULL };

	(void)state;
	expect_error(bad_pid, ARGC(bad_pid), "-p 12x: not a process id");
	expect_error(neg_pid, ARGC(neg_pid), "not a process id");
	expect_error(bad_dur, ARGC(bad_dur), "-d soon");
	expect_error(zero_dur, ARGC(zero_dur), "positive");
	expect_error(both, ARGC(both), "not both");
	expect_error(none, ARGC(none), "nothing to record");
	expect_error(unknown, ARGC(unknown), "--frobnicate: unknown option");
	expect_error(missing, ARGC(missing), "needs a value");
	expect_error(empty, ARGC(empty), "empty file name");
}

static void test_sampling_options(void **state)
{
	char *dflt[] = { "record", "--sample", "--offcpu-stacks", "--", "./app", NULL };
	char *hz[] = { "record", "--sample=999", "--kernel-stacks", "--offcpu-min-us", "50", "-p", "9", NULL };
	char *bad_hz[] = { "record", "--sample=0", "-p", "9", NULL };
	char *kernel_alone[] = { "record", "--kernel-stacks", "-p", "9", NULL };
	char *bad_min[] = { "record", "--offcpu-min-us", "-3", "-p", "9", NULL };
	struct sb_error err = { { 0 } };
	struct record_opts o;

	(void)state;
	assert_int_equal(record_parse_args(ARGC(dflt), dflt, &o, &err), 0);
	assert_int_equal(o.sample_hz, 99);
	assert_true(o.offcpu_stacks);
	assert_false(o.kernel_stacks);
	assert_int_equal(o.offcpu_min_ns, 0);
	assert_int_equal(record_parse_args(ARGC(hz), hz, &o, &err), 0);
	assert_int_equal(o.sample_hz, 999);
	assert_true(o.kernel_stacks);
	assert_int_equal(o.offcpu_min_ns, 50000);
	expect_error(bad_hz, ARGC(bad_hz), "--sample=0: not a frequency");
	expect_error(kernel_alone, ARGC(kernel_alone), "needs --sample");
	expect_error(bad_min, ARGC(bad_min), "--offcpu-min-us -3");
}

static void test_identity_options(void **state)
{
	char *user[] = { "record", "--user", "nobody", "--", "id", "-u", NULL };
	char *root[] = { "record", "--as-root", "--", "id", NULL };
	char *plain[] = { "record", "--", "id", NULL };
	char *both[] = { "record", "--user", "nobody", "--as-root", "--", "id", NULL };
	char *with_pid[] = { "record", "--user", "nobody", "-p", "9", NULL };
	char *root_pid[] = { "record", "--as-root", "-p", "9", NULL };
	char *empty[] = { "record", "--user", "", "--", "id", NULL };
	char *missing[] = { "record", "--", "id", "--user", NULL };
	struct sb_error err = { { 0 } };
	struct record_opts o;

	(void)state;
	assert_int_equal(record_parse_args(ARGC(user), user, &o, &err), 0);
	assert_string_equal(o.user, "nobody");
	assert_false(o.as_root);
	assert_string_equal(o.cmd[0], "id");
	assert_int_equal(record_parse_args(ARGC(root), root, &o, &err), 0);
	assert_null(o.user);
	assert_true(o.as_root);
	assert_int_equal(record_parse_args(ARGC(plain), plain, &o, &err), 0);
	assert_null(o.user);
	assert_false(o.as_root);
	expect_error(both, ARGC(both), "either --user NAME or --as-root");
	expect_error(with_pid, ARGC(with_pid), "--user: only for a command");
	expect_error(root_pid, ARGC(root_pid), "--as-root: only for a command");
	expect_error(empty, ARGC(empty), "--user: empty user name");
	/* After the command, --user is the command's own argument. */
	assert_int_equal(record_parse_args(ARGC(missing), missing, &o, &err), 0);
	assert_null(o.user);
	assert_string_equal(o.cmd[1], "--user");
}

/* --help tells who the command runs as. */
static void test_usage_names_the_identity_options(void **state)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	(void)state;
	assert_non_null(f);
	record_usage(f);
	fclose(f);
	assert_non_null(strstr(text, "--user NAME"));
	assert_non_null(strstr(text, "--as-root"));
	assert_non_null(strstr(text, "Under sudo the command runs as the user who ran sudo"));
	free(text);
}

static void test_mpi_options(void **state)
{
	char *all[] = { "record", "--mpi=all", "./app", NULL };
	char *plain[] = { "record", "--mpi", "./app", NULL };
	char *off[] = { "record", "--no-mpi", "./app", NULL };
	char *bad[] = { "record", "--mpi=some", "./app", NULL };
	char *both[] = { "record", "--mpi", "--no-mpi", "./app", NULL };
	struct sb_error err = { { 0 } };
	struct record_opts o;

	(void)state;
	assert_int_equal(record_parse_args(ARGC(all), all, &o, &err), 0);
	assert_true(o.mpi_all);
	assert_false(o.no_mpi);
	assert_int_equal(record_parse_args(ARGC(plain), plain, &o, &err), 0);
	assert_false(o.mpi_all);
	assert_false(o.no_mpi);
	assert_int_equal(record_parse_args(ARGC(off), off, &o, &err), 0);
	assert_true(o.no_mpi);
	assert_int_equal(record_parse_args(ARGC(bad), bad, &o, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "--mpi=some"));
	assert_int_equal(record_parse_args(ARGC(both), both, &o, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "--no-mpi"));
}

/* --mpi=uprobes|pmpi: the path; pmpi only for a command; $SCOPE_BPF_MPI the default path. */
static void test_mpi_paths(void **state)
{
	char *plain[] = { "record", "--mpi", "./app", NULL };
	char *pmpi[] = { "record", "--mpi=all,pmpi", "./app", NULL };
	char *uprobes[] = { "record", "--mpi=uprobes", "./app", NULL };
	char *attach[] = { "record", "--mpi=pmpi", "-p", "1", NULL };
	char *attach_env[] = { "record", "-p", "1", NULL };
	char *bad[] = { "record", "--mpi=pmpi,kernel", "./app", NULL };
	struct sb_error err = { { 0 } };
	struct record_opts o;

	(void)state;
	unsetenv("SCOPE_BPF_MPI");
	assert_int_equal(record_parse_args(ARGC(plain), plain, &o, &err), 0);
	assert_int_equal(o.mpi_path, SB_MPI_PATH_AUTO);
	assert_int_equal(record_parse_args(ARGC(pmpi), pmpi, &o, &err), 0);
	assert_int_equal(o.mpi_path, SB_MPI_PATH_PMPI);
	assert_true(o.mpi_all);
	assert_int_equal(record_parse_args(ARGC(uprobes), uprobes, &o, &err), 0);
	assert_int_equal(o.mpi_path, SB_MPI_PATH_UPROBES);
	assert_int_equal(record_parse_args(ARGC(attach), attach, &o, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "--mpi=pmpi: only for a command"));
	assert_int_equal(record_parse_args(ARGC(bad), bad, &o, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "'kernel' is not all, uprobes or pmpi"));
	setenv("SCOPE_BPF_MPI", "uprobes", 1);
	assert_int_equal(record_parse_args(ARGC(plain), plain, &o, &err), 0);
	assert_int_equal(o.mpi_path, SB_MPI_PATH_UPROBES);
	assert_int_equal(record_parse_args(ARGC(pmpi), pmpi, &o, &err), 0);
	assert_int_equal(o.mpi_path, SB_MPI_PATH_PMPI);
	setenv("SCOPE_BPF_MPI", "pmpi", 1);
	assert_int_equal(record_parse_args(ARGC(attach_env), attach_env, &o, &err), 0);
	assert_int_equal(o.mpi_path, SB_MPI_PATH_AUTO);
	setenv("SCOPE_BPF_MPI", "all", 1);
	assert_int_equal(record_parse_args(ARGC(plain), plain, &o, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "SCOPE_BPF_MPI=all: 'all' is not uprobes or pmpi"));
	unsetenv("SCOPE_BPF_MPI");
}

static void test_system_wide(void **state)
{
	char *argv[] = { "record", "-a", "--exe", "/bin/sh", "--comm", "app", "--ranks", "3,0-1",
			 "--until-idle", "-o", "prof.%h.%r.h5", NULL };
	char *plain[] = { "record", "--all", "-d", "5", NULL };
	struct sb_error err = { { 0 } };
	struct record_opts o;

	(void)state;
	assert_int_equal(record_parse_args(ARGC(argv), argv, &o, &err), 0);
	assert_true(o.all);
	assert_true(o.until_idle);
	assert_string_equal(o.exe, "/bin/sh");
	assert_string_equal(o.comm, "app");
	assert_string_equal(o.ranks_arg, "3,0-1");
	/* The list is parsed as report's --ranks: sorted, no repeats. */
	assert_int_equal(o.n_ranks, 3);
	assert_int_equal(o.ranks[0], 0);
	assert_int_equal(o.ranks[1], 1);
	assert_int_equal(o.ranks[2], 3);
	assert_null(o.cmd);
	assert_int_equal(o.pid, 0);
	record_opts_free(&o);
	assert_null(o.ranks);

	assert_int_equal(record_parse_args(ARGC(plain), plain, &o, &err), 0);
	assert_true(o.all);
	assert_false(o.until_idle);
	assert_null(o.exe);
	assert_null(o.ranks);
	record_opts_free(&o);
}

static void test_system_wide_bad_input(void **state)
{
	char *with_pid[] = { "record", "-a", "-p", "1", NULL };
	char *pid_first[] = { "record", "-p", "1", "-a", NULL };
	char *with_cmd[] = { "record", "-a", "--", "./app", NULL };
	char *bad_ranks[] = { "record", "-a", "--ranks", "x", NULL };
	char *backwards[] = { "record", "-a", "--ranks", "3-1", NULL };
	char *no_exe[] = { "record", "-a", "--exe", "/nonexistent/app", NULL };
	char *dir_exe[] = { "record", "-a", "--exe", "/", NULL };
	char *long_comm[] = { "record", "-a", "--comm", "a_name_longer_than_15", NULL };
	char *empty_comm[] = { "record", "-a", "--comm", "", NULL };
	char *no_all[] = { "record", "--until-idle", "-p", "1", NULL };
	char *ranks_no_all[] = { "record", "--ranks", "0", "--", "./app", NULL };
	char *user[] = { "record", "-a", "--user", "nobody", NULL };
	char *rank_name[] = { "record", "-a", "-o", "p.%r.h5", NULL };
	char *literal[] = { "record", "-a", "-o", "p.%%r.h5", NULL };
	struct sb_error err = { { 0 } };
	struct record_opts o;

	(void)state;
	expect_error(with_pid, ARGC(with_pid), "give either -a or -p PID, not both");
	expect_error(pid_first, ARGC(pid_first), "give either -a or -p PID, not both");
	expect_error(with_cmd, ARGC(with_cmd), "give no command (./app)");
	expect_error(bad_ranks, ARGC(bad_ranks), "--ranks: 'x' is not a rank list like 0-3,7");
	expect_error(backwards, ARGC(backwards), "runs backwards");
	expect_error(no_exe, ARGC(no_exe), "--exe /nonexistent/app: No such file or directory");
	expect_error(dir_exe, ARGC(dir_exe), "--exe /: not a regular file");
	expect_error(long_comm, ARGC(long_comm), "at most 15 bytes");
	expect_error(empty_comm, ARGC(empty_comm), "--comm: empty process name");
	expect_error(no_all, ARGC(no_all), "--until-idle: only with -a");
	expect_error(ranks_no_all, ARGC(ranks_no_all), "--ranks: only with -a");
	expect_error(user, ARGC(user), "--user: only for a command, not with -a");
	expect_error(rank_name, ARGC(rank_name), "%r under -a names the ranks of --ranks");
	/* %%r is a literal %r, not the rank. */
	assert_int_equal(record_parse_args(ARGC(literal), literal, &o, &err), 0);
	record_opts_free(&o);
}

static void test_usage_names_system_wide(void **state)
{
	char buf[8192] = { 0 };
	FILE *f = fmemopen(buf, sizeof(buf) - 1, "w");

	(void)state;
	assert_non_null(f);
	record_usage(f);
	fclose(f);
	assert_non_null(strstr(buf, "-a, --all"));
	assert_non_null(strstr(buf, "--exe PATH"));
	assert_non_null(strstr(buf, "--comm NAME"));
	assert_non_null(strstr(buf, "--ranks LIST"));
	assert_non_null(strstr(buf, "--until-idle"));
}

/* The switch option turns one source off (the bool at field) and no other; on by default. */
static void check_off_switch(const char *option, size_t field)
{
	char *off[] = { "record", (char *)option, "./app", NULL };
	char *plain[] = { "record", "./app", NULL };
	struct sb_error err = { { 0 } };
	struct record_opts o;
	char *text = NULL;
	size_t len = 0;
	int switched;
	FILE *f;

	assert_int_equal(record_parse_args(ARGC(off), off, &o, &err), 0);
	assert_true(*(bool *)((char *)&o + field));
	switched = o.no_mpi + o.no_omp + o.no_cuda_host;
	assert_int_equal(switched, 1);
	assert_int_equal(record_parse_args(ARGC(plain), plain, &o, &err), 0);
	assert_false(*(bool *)((char *)&o + field));
	f = open_memstream(&text, &len);
	assert_non_null(f);
	record_usage(f);
	fclose(f);
	assert_non_null(strstr(text, option));
	free(text);
}

static void test_no_omp(void **state)
{
	(void)state;
	check_off_switch("--no-omp", offsetof(struct record_opts, no_omp));
}

static void test_no_cuda_host(void **state)
{
	(void)state;
	check_off_switch("--no-cuda-host", offsetof(struct record_opts, no_cuda_host));
}

/* --cuda needs a command (CUPTI is loaded at its start): -p and -a are refused with the reason. */
static void test_cuda_needs_a_command(void **state)
{
	char *cmd[] = { "record", "--cuda", "--", "./app", NULL };
	char *pid[] = { "record", "--cuda", "-p", "1", NULL };
	char *all[] = { "record", "--cuda", "-a", NULL };
	struct sb_error err = { { 0 } };
	struct record_opts o;

	(void)state;
	assert_int_equal(record_parse_args(ARGC(cmd), cmd, &o, &err), 0);
	assert_true(o.cuda);
	assert_int_equal(record_parse_args(ARGC(pid), pid, &o, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "--cuda: only for a command"));
	assert_non_null(strstr(err.msg, "host"));
	err.msg[0] = 0;
	assert_int_equal(record_parse_args(ARGC(all), all, &o, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "--cuda"));
}

/* --annotations: all by default for a command, none for -p; a choice needs a command. */
static void test_annotations(void **state)
{
	char *cmd[] = { "record", "--", "./app", NULL };
	char *pid[] = { "record", "-p", "1", NULL };
	char *some[] = { "record", "--annotations=kokkos,itt", "--", "./app", NULL };
	char *none[] = { "record", "--annotations", "none", "--", "./app", NULL };
	char *pid_some[] = { "record", "--annotations=nvtx", "-p", "1", NULL };
	char *pid_none[] = { "record", "--annotations=none", "-p", "1", NULL };
	char *bad[] = { "record", "--annotations=nvtx,tbb", "--", "./app", NULL };
	struct sb_error err = { { 0 } };
	struct record_opts o;

	(void)state;
	assert_int_equal(record_parse_args(ARGC(cmd), cmd, &o, &err), 0);
	assert_int_equal(o.annotations, SB_ANNOT_ALL);
	assert_false(o.annotations_given);
	assert_int_equal(record_parse_args(ARGC(pid), pid, &o, &err), 0);
	assert_int_equal(o.annotations, 0);
	assert_int_equal(record_parse_args(ARGC(some), some, &o, &err), 0);
	assert_int_equal(o.annotations, SB_ANNOT_KOKKOS | SB_ANNOT_ITT);
	assert_true(o.annotations_given);
	assert_int_equal(record_parse_args(ARGC(none), none, &o, &err), 0);
	assert_int_equal(o.annotations, 0);
	assert_int_equal(record_parse_args(ARGC(pid_none), pid_none, &o, &err), 0);
	assert_int_equal(record_parse_args(ARGC(pid_some), pid_some, &o, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "--annotations: only for a command"));
	assert_int_equal(record_parse_args(ARGC(bad), bad, &o, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "'tbb'"));
}

static void test_help(void **state)
{
	char *argv[] = { "record", "--help", NULL };
	struct sb_error err = { { 0 } };
	struct record_opts o;

	(void)state;
	assert_int_equal(record_parse_args(ARGC(argv), argv, &o, &err), 0);
	assert_true(o.help);
}

/* The lists need no command: they record nothing. */
static void test_list_events_and_groups_need_no_command(void **state)
{
	char *events[] = { "record", "--list-events", NULL };
	char *groups[] = { "record", "-q", "--list-groups", NULL };
	struct sb_error err = { { 0 } };
	struct record_opts o;

	(void)state;
	assert_int_equal(record_parse_args(ARGC(events), events, &o, &err), 0);
	assert_true(o.list_events);
	assert_false(o.list_groups);
	assert_int_equal(record_parse_args(ARGC(groups), groups, &o, &err), 0);
	assert_true(o.list_groups);
	assert_false(o.list_events);
}

static void test_buffer_sizes(void **state)
{
	char *dflt[] = { "record", "--", "./app", NULL };
	char *mib[] = { "record", "--buffer", "512M", "--", "./app", NULL };
	char *gib[] = { "record", "--buffer=2G", "-p", "9", NULL };
	char *plain[] = { "record", "--buffer", "1048576", "-p", "9", NULL };
	char *tib[] = { "record", "--buffer", "1T", "-p", "9", NULL };
	char *small[] = { "record", "--buffer", "1023K", "-p", "9", NULL };
	char *big[] = { "record", "--buffer", "1025G", "-p", "9", NULL };
	char *huge[] = { "record", "--buffer", "99999999999999999999", "-p", "9", NULL };
	char *unit[] = { "record", "--buffer", "2GB", "-p", "9", NULL };
	char *word[] = { "record", "--buffer", "lots", "-p", "9", NULL };
	char *neg[] = { "record", "--buffer", "-2G", "-p", "9", NULL };
	char *empty[] = { "record", "--buffer", "", "-p", "9", NULL };
	struct sb_error err = { { 0 } };
	struct record_opts o;

	(void)state;
	assert_int_equal(record_parse_args(ARGC(dflt), dflt, &o, &err), 0);
	assert_true(o.buffer_bytes == 0);
	assert_int_equal(record_parse_args(ARGC(mib), mib, &o, &err), 0);
	assert_true(o.buffer_bytes == 512ull << 20);
	assert_int_equal(record_parse_args(ARGC(gib), gib, &o, &err), 0);
	assert_true(o.buffer_bytes == 2ull << 30);
	assert_int_equal(record_parse_args(ARGC(plain), plain, &o, &err), 0);
	assert_true(o.buffer_bytes == 1ull << 20);
	assert_int_equal(record_parse_args(ARGC(tib), tib, &o, &err), 0);
	assert_true(o.buffer_bytes == 1ull << 40);
	expect_error(small, ARGC(small), "--buffer 1023K: not between 1M and 1T");
	expect_error(big, ARGC(big), "--buffer 1025G: not between 1M and 1T");
	expect_error(huge, ARGC(huge), "--buffer 99999999999999999999: not a size");
	expect_error(unit, ARGC(unit), "--buffer 2GB: not a size");
	expect_error(word, ARGC(word), "--buffer lots: not a size");
	expect_error(neg, ARGC(neg), "--buffer -2G: not a size");
	expect_error(empty, ARGC(empty), "--buffer : not a size");
}

/* --max-size: a size from 1 MiB to 1 PiB, every call kept without it, never with --aggregate. */
static void test_max_size(void **state)
{
	char *dflt[] = { "record", "--", "./app", NULL };
	char *gib[] = { "record", "--max-size", "10G", "--", "./app", NULL };
	char *small[] = { "record", "--max-size", "1023K", "-p", "9", NULL };
	char *word[] = { "record", "--max-size=lots", "-p", "9", NULL };
	char *agg[] = { "record", "--max-size", "1G", "--aggregate", "-p", "9", NULL };
	struct sb_error err = { { 0 } };
	struct record_opts o;

	(void)state;
	assert_int_equal(record_parse_args(ARGC(dflt), dflt, &o, &err), 0);
	assert_true(o.max_size == 0);
	assert_int_equal(record_parse_args(ARGC(gib), gib, &o, &err), 0);
	assert_true(o.max_size == 10ull << 30);
	expect_error(small, ARGC(small), "--max-size 1023K: not between 1M and 1024T");
	expect_error(word, ARGC(word), "--max-size lots: not a size");
	expect_error(agg, ARGC(agg), "--max-size: not with --aggregate");
}

/* --aggregate alone sums the whole recording; =WINDOW takes a unit, 1 us to 1 day. */
static void test_aggregate_windows(void **state)
{
	char *whole[] = { "record", "--aggregate", "--", "./app", NULL };
	char *sec[] = { "record", "--aggregate=1s", "--", "./app", NULL };
	char *ms[] = { "record", "--aggregate=2.5ms", "-p", "9", NULL };
	char *min[] = { "record", "--aggregate=10min", "-p", "9", NULL };
	char *bare[] = { "record", "--aggregate=100", "-p", "9", NULL };
	char *tiny[] = { "record", "--aggregate=500ns", "-p", "9", NULL };
	char *week[] = { "record", "--aggregate=10080min", "-p", "9", NULL };
	char *word[] = { "record", "--aggregate=often", "-p", "9", NULL };
	struct sb_error err = { { 0 } };
	struct record_opts o;

	(void)state;
	assert_int_equal(record_parse_args(ARGC(whole), whole, &o, &err), 0);
	assert_true(o.aggregate && o.aggregate_window_ns == 0);
	assert_int_equal(record_parse_args(ARGC(sec), sec, &o, &err), 0);
	assert_true(o.aggregate && o.aggregate_window_ns == 1000000000);
	assert_int_equal(record_parse_args(ARGC(ms), ms, &o, &err), 0);
	assert_true(o.aggregate_window_ns == 2500000);
	assert_int_equal(record_parse_args(ARGC(min), min, &o, &err), 0);
	assert_true(o.aggregate_window_ns == 600000000000);
	expect_error(bare, ARGC(bare), "--aggregate=100: not a window between 1us and 1 day");
	expect_error(tiny, ARGC(tiny), "--aggregate=500ns: not a window");
	expect_error(week, ARGC(week), "--aggregate=10080min: not a window");
	expect_error(word, ARGC(word), "--aggregate=often: not a window");
}

/*
 * --rotate=INTERVAL numbers the files by -o's %n, in the file name; never with
 * what one file must hold whole (standard output, samples, CUDA, aggregates).
 */
static void test_rotate(void **state)
{
	char *ok[] = { "record", "--rotate=10s", "--rotate-keep=3", "-o", "out/run.%n.h5",
		       "--", "./app", NULL };
	char *plain[] = { "record", "--", "./app", NULL };
	char *no_n[] = { "record", "--rotate=1s", "-o", "run.h5", "-p", "9", NULL };
	char *literal[] = { "record", "--rotate=1s", "-o", "run.%%n.h5", "-p", "9", NULL };
	char *in_dir[] = { "record", "--rotate=1s", "-o", "d%n/run.h5", "-p", "9", NULL };
	char *std[] = { "record", "--rotate=1s", "-o", "-", "-p", "9", NULL };
	char *agg[] = { "record", "--rotate=1s", "-o", "r%n.h5", "--aggregate", "-p", "9", NULL };
	char *smp[] = { "record", "--rotate=1s", "-o", "r%n.h5", "--sample", "-p", "9", NULL };
	char *keep0[] = { "record", "--rotate=1s", "--rotate-keep=0", "-o", "r%n.h5", "-p", "9",
			  NULL };
	char *keep_only[] = { "record", "--rotate-keep=2", "-p", "9", NULL };
	char *unit[] = { "record", "--rotate=5", "-o", "r%n.h5", "-p", "9", NULL };
	char *size[] = { "record", "--rotate-size=2G", "--rotate-keep=4", "-o", "r%n.h5", "-p",
			 "9", NULL };
	char *size_no_n[] = { "record", "--rotate-size=2G", "-o", "r.h5", "-p", "9", NULL };
	char *size_small[] = { "record", "--rotate-size=64K", "-o", "r%n.h5", "-p", "9", NULL };
	struct sb_error err = { { 0 } };
	struct record_opts o;

	(void)state;
	assert_int_equal(record_parse_args(ARGC(ok), ok, &o, &err), 0);
	assert_true(o.rotate_ns == 10000000000 && o.rotate_keep == 3);
	assert_int_equal(record_parse_args(ARGC(plain), plain, &o, &err), 0);
	assert_true(o.rotate_ns == 0 && o.rotate_keep == 0);
	expect_error(no_n, ARGC(no_n), "--rotate: -o run.h5 has no %n in its file name");
	expect_error(literal, ARGC(literal), "has no %n");
	expect_error(in_dir, ARGC(in_dir), "has no %n in its file name");
	expect_error(std, ARGC(std), "--rotate: not with -o -");
	expect_error(agg, ARGC(agg), "--rotate: not with --aggregate");
	expect_error(smp, ARGC(smp), "--rotate: not with --sample");
	expect_error(keep0, ARGC(keep0), "--rotate-keep=0: not a number of files");
	expect_error(keep_only, ARGC(keep_only), "--rotate-keep: only with --rotate or --rotate-size");
	expect_error(unit, ARGC(unit), "--rotate=5: not an interval between 1us and 1 day");
	assert_int_equal(record_parse_args(ARGC(size), size, &o, &err), 0);
	assert_true(o.rotate_ns == 0 && o.rotate_size == 2ull << 30 && o.rotate_keep == 4);
	expect_error(size_no_n, ARGC(size_no_n), "--rotate-size: -o r.h5 has no %n");
	expect_error(size_small, ARGC(size_small), "--rotate-size 64K: not between 1M");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_command_after_double_dash),
		cmocka_unit_test(test_command_without_double_dash_and_defaults),
		cmocka_unit_test(test_pid_long_options),
		cmocka_unit_test(test_bad_input),
		cmocka_unit_test(test_buffer_sizes),
		cmocka_unit_test(test_max_size),
		cmocka_unit_test(test_rotate),
		cmocka_unit_test(test_aggregate_windows),
		cmocka_unit_test(test_sampling_options),
		cmocka_unit_test(test_help),
		cmocka_unit_test(test_list_events_and_groups_need_no_command),
		cmocka_unit_test(test_mpi_options),
		cmocka_unit_test(test_mpi_paths),
		cmocka_unit_test(test_system_wide),
		cmocka_unit_test(test_system_wide_bad_input),
		cmocka_unit_test(test_usage_names_system_wide),
		cmocka_unit_test(test_no_omp),
		cmocka_unit_test(test_no_cuda_host),
		cmocka_unit_test(test_cuda_needs_a_command),
		cmocka_unit_test(test_annotations),
		cmocka_unit_test(test_identity_options),
		cmocka_unit_test(test_usage_names_the_identity_options),
	};

	return cmocka_run_group_tests_name("record_opts", tests, NULL, NULL);
}
