/* Integration: the scope-bpf binary's own command line: help, -V, and a mistyped command. */
#include "harness.h"

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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_help_version_and_typos, setup_tmp,
						teardown_tmp),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
