/* Integration: the scope-bpf binary's own command line: help, -V, a mistyped command, hostile names. */
#include "harness.h"
#include "unit/inert_text.h"

/* argv's exit status, its standard output in out and its standard error in err. */
static int run_out(char *const argv[], char *out, size_t size, char *err, size_t err_size)
{
	size_t n = 0;
	ssize_t r;
	int fd = -1, st;
	pid_t pid;
	char path[300];

	pid = spawn(argv, tmp_file("stderr.txt", path, sizeof(path)), &fd);
	assert_true(pid > 0);
	while (n < size - 1 && (r = read(fd, out + n, size - 1 - n)) > 0)
		n += (size_t)r;
	out[n] = '\0';
	close(fd);
	st = wait_status(pid);
	read_stderr(err, err_size);
	return st;
}

static void test_help_version_and_typos(void **state)
{
	char *help_report[] = { (char *)scope_bin(), "help", "report", NULL };
	char *report_help[] = { (char *)scope_bin(), "report", "--help", NULL };
	char *help[] = { (char *)scope_bin(), "help", NULL };
	char *version[] = { (char *)scope_bin(), "-V", NULL };
	char *typo[] = { (char *)scope_bin(), "reprot", "x.h5", NULL };
	char *nothing_near[] = { (char *)scope_bin(), "frobnicate", NULL };
	char *help_typo[] = { (char *)scope_bin(), "help", "dif", NULL };
	char *option_typo[] = { (char *)scope_bin(), "--verison", NULL };
	static char a[16384], b[16384], err[4096];

	(void)state;
	/* help CMD is CMD --help, word for word. */
	assert_int_equal(run_out(help_report, a, sizeof(a), err, sizeof(err)), 0);
	assert_int_equal(run_out(report_help, b, sizeof(b), err, sizeof(err)), 0);
	assert_string_equal(a, b);
	assert_non_null(strstr(a, "usage: scope-bpf report"));
	assert_int_equal(run_out(help, a, sizeof(a), err, sizeof(err)), 0);
	assert_non_null(strstr(a, "\ncommands:\n  record "));
	assert_int_equal(run_out(version, a, sizeof(a), err, sizeof(err)), 0);
	assert_int_equal(strncmp(a, "scope-bpf ", 10), 0);
	/* A typo: what is wrong and what was meant, two lines, exit 2, nothing on stdout. */
	assert_int_equal(run_out(typo, a, sizeof(a), err, sizeof(err)), 2);
	assert_string_equal(a, "");
	assert_string_equal(err, "scope-bpf: 'reprot' is not a command\n"
				 "Did you mean 'scope-bpf report'?\n");
	assert_int_equal(run_out(nothing_near, a, sizeof(a), err, sizeof(err)), 2);
	assert_string_equal(err, "scope-bpf: 'frobnicate' is not a command\n"
				 "Try 'scope-bpf --help'.\n");
	assert_int_equal(run_out(help_typo, a, sizeof(a), err, sizeof(err)), 2);
	assert_string_equal(err, "scope-bpf: 'dif' is not a command\n"
				 "Did you mean 'scope-bpf diff'?\n");
	assert_int_equal(run_out(option_typo, a, sizeof(a), err, sizeof(err)), 2);
	assert_string_equal(err, "scope-bpf: '--verison' is not a command\n"
				 "Did you mean 'scope-bpf --version'?\n");
}

/* A profile anyone can write: names that would make a terminal type into the shell, or forge rows. */
static const char hostile_json[] =
	"{\"format\":\"scope-profiler-profile\",\"format_version\":1,"
	"\"time_unit\":\"nanoseconds\","
	"\"metadata\":{\"command\":\"run \\u001b[6n\\r\\nX\\u009b\"},"
	"\"regions\":[{\"name\":\"main\",\"rank\":0,\"start_times_ns\":[0],"
	"\"end_times_ns\":[100]},"
	"{\"name\":\"a\\u001b[6n\\rb\\nc\\u0007d\\u007fe\\u009bf\",\"rank\":0,"
	"\"source_file\":\"s\\u001b.c\",\"source_lineno\":3,\"tags\":[\"t\\u001b\"],"
	"\"start_times_ns\":[10],\"end_times_ns\":[50]}]}";
#define HOSTILE_REGION "a\\x1b[6n\\rb\\nc\\x07d\\x7fe\\u009bf"

static void test_text_outputs_show_hostile_names_inert(void **state)
{
	char path[300], *file = (char *)tmp_file("hostile.json", path, sizeof(path));
	char *report[] = { (char *)scope_bin(), "report", "--wide", file, NULL };
	char *narrow[] = { (char *)scope_bin(), "report", file, NULL };
	char *inspect[] = { (char *)scope_bin(), "inspect", file, NULL };
	char *csv[] = { (char *)scope_bin(), "export", "csv", file, "-o", "-", NULL };
	char *diff[] = { (char *)scope_bin(), "diff", "--wide", file, file, NULL };
	char *per_rank[] = { (char *)scope_bin(), "report", "--per-rank", "--wide", file, NULL };
	char *durations[] = { (char *)scope_bin(), "report", "--durations", "--wide", file, NULL };
	char *const *cmds[] = { report, narrow, inspect, csv, diff, per_rank, durations };
	static char out[65536], err[4096];
	FILE *f;
	size_t i;

	(void)state;
	f = fopen(file, "w");
	assert_non_null(f);
	fputs(hostile_json, f);
	assert_int_equal(fclose(f), 0);
	for (i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++) {
		assert_int_equal(run_out(cmds[i], out, sizeof(out), err, sizeof(err)), 0);
		expect_inert(out);
		expect_inert(err);
		assert_non_null(strstr(out, i == 1 ? "a\\x1b[6n" : HOSTILE_REGION));
	}
	/* The argv a recording keeps is shown like any other text. */
	assert_int_equal(run_out(inspect, out, sizeof(out), err, sizeof(err)), 0);
	assert_non_null(strstr(out, "  command  run \\x1b[6n\\r\\nX\\u009b\n"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_help_version_and_typos, setup_tmp,
						teardown_tmp),
		cmocka_unit_test_setup_teardown(test_text_outputs_show_hostile_names_inert,
						setup_tmp, teardown_tmp),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
