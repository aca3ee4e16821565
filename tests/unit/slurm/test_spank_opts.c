/* srun --scope-bpf=OPTIONS: the folder, record's options, and the names of a step's files. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "spank_opts.h"

static void parses_dir_and_record_options(void **state)
{
	struct sb_spank_opts o;
	char err[128];

	(void)state;
	assert_int_equal(sb_spank_opts_parse("  --sample=199 dir=/scratch/p\t-e page-faults ", &o,
					     err, sizeof(err)), 0);
	assert_string_equal(o.dir, "/scratch/p");
	assert_int_equal(o.n_words, 3);
	assert_string_equal(o.words[0], "--sample=199");
	assert_string_equal(o.words[1], "-e");
	assert_string_equal(o.words[2], "page-faults");
	sb_spank_opts_free(&o);
	assert_int_equal(sb_spank_opts_parse(NULL, &o, err, sizeof(err)), 0);
	assert_null(o.dir);
	assert_int_equal(o.n_words, 0);
	sb_spank_opts_free(&o);
}

static void refuses_what_would_change_the_command(void **state)
{
	char err[128], many[400] = "";
	struct sb_spank_opts o;
	int i;

	(void)state;
	assert_int_equal(sb_spank_opts_parse("-v -- /bin/sh", &o, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "'--' is not an option of record"));
	assert_int_equal(sb_spank_opts_parse("dir=", &o, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "dir= names no folder"));
	for (i = 0; i <= SB_SPANK_MAX_WORDS; i++)
		strcat(many, "-v ");
	assert_int_equal(sb_spank_opts_parse(many, &o, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "more than 64 options"));
}

static void step_dir_default_relative_absolute(void **state)
{
	struct sb_spank_opts o;
	char err[128], base[64], dir[64];

	(void)state;
	assert_int_equal(sb_spank_opts_parse("", &o, err, sizeof(err)), 0);
	assert_int_equal(sb_spank_step_dir(&o, "/home/u/run", 42, 3, base, dir, sizeof(dir)), 0);
	assert_string_equal(base, "/home/u/run");
	assert_string_equal(dir, "/home/u/run/scope-bpf.42.3");
	o.dir = "p";
	assert_int_equal(sb_spank_step_dir(&o, "/home/u/run", 42, 3, base, dir, sizeof(dir)), 0);
	assert_string_equal(base, "/home/u/run/p");
	assert_string_equal(dir, "/home/u/run/p/scope-bpf.42.3");
	o.dir = "/scratch/p";
	assert_int_equal(sb_spank_step_dir(&o, "/home/u/run", 42, 3, base, dir, sizeof(dir)), 0);
	assert_string_equal(dir, "/scratch/p/scope-bpf.42.3");
	/* the base fits, the step's folder does not */
	assert_int_equal(sb_spank_step_dir(&o, "/home/u/run", 42, 3, base, dir, 12), -1);
	assert_int_equal(sb_spank_step_dir(&o, "/home/u/run", 42, 3, base, dir, 5), -1);
	sb_spank_opts_free(&o);
}

/* Ours come last: a user's -o cannot move the file that the node's merge looks for. */
static void record_argv_puts_output_last(void **state)
{
	char *cmd[] = { "./app", "-n", "3" }, err[128], **a;
	struct sb_spank_opts o;
	int i;
	const char *want[] = { "/b/scope-bpf", "record", "-q", "--daemon", "-o", "mine.h5",
			       "--sample", "-o", "/d/prof.n1.t7.h5", "--", "./app", "-n", "3" };

	(void)state;
	assert_int_equal(sb_spank_opts_parse("-o mine.h5 --sample", &o, err, sizeof(err)), 0);
	a = sb_spank_record_argv("/b/scope-bpf", &o, "/d/prof.n1.t7.h5", true, 3, cmd);
	assert_non_null(a);
	for (i = 0; i < 13; i++)
		assert_string_equal(a[i], want[i]);
	assert_null(a[13]);
	free(a);
	/* root records directly: no --daemon, and no options of the user's */
	sb_spank_opts_free(&o);
	assert_int_equal(sb_spank_opts_parse(NULL, &o, err, sizeof(err)), 0);
	a = sb_spank_record_argv("/b/scope-bpf", &o, "/d/f.h5", false, 1, cmd);
	assert_non_null(a);
	assert_string_equal(a[3], "-o");
	assert_string_equal(a[6], "./app");
	assert_null(a[7]);
	free(a);
	sb_spank_opts_free(&o);
}

static void task_file_names_and_node_names(void **state)
{
	char path[64];

	(void)state;
	assert_int_equal(sb_spank_task_file("/d", "n1", 7, path, sizeof(path)), 0);
	assert_string_equal(path, "/d/prof.n1.t7.h5");
	assert_int_equal(sb_spank_task_file("/d", "n1", 7, path, 10), -1);
	assert_false(sb_spank_node_ok(""));
	assert_false(sb_spank_node_ok("a/b"));
	assert_false(sb_spank_node_ok(".."));
	assert_true(sb_spank_node_ok("cn-001"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(parses_dir_and_record_options),
		cmocka_unit_test(refuses_what_would_change_the_command),
		cmocka_unit_test(step_dir_default_relative_absolute),
		cmocka_unit_test(record_argv_puts_output_last),
		cmocka_unit_test(task_file_names_and_node_names),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
