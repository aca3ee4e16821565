/*
 * Who the recorded command runs as: under sudo the user who ran it, not root;
 * --as-root keeps root; --user NAME picks anyone. The profile is the sudo user's.
 */
#include <pwd.h>
#include <sys/stat.h>

#include "harness.h"

static struct passwd nobody;

static int setup(void **state)
{
	struct passwd *pw = getpwnam("nobody");

	if (setup_tmp(state))
		return -1;
	if (pw) {
		nobody = *pw;
		nobody.pw_dir = strdup(pw->pw_dir);
	}
	return 0;
}

static int teardown(void **state)
{
	free(nobody.pw_dir);
	unsetenv("SUDO_UID");
	unsetenv("SUDO_GID");
	return teardown_tmp(state);
}

/* record -q -o OUT [opt] -- sh -c 'id -u; echo $HOME': its stdout in buf, the status returned. */
static int record_id(const char *opt, const char *opt_arg, char *buf, size_t size)
{
	char out[300], err[300];
	char *argv[12];
	int n = 0, fd = -1, st;
	ssize_t r;
	size_t len = 0;
	pid_t pid;

	argv[n++] = (char *)scope_bin();
	argv[n++] = "record";
	argv[n++] = "-q";
	argv[n++] = "-o";
	argv[n++] = (char *)tmp_file("id.h5", out, sizeof(out));
	if (opt)
		argv[n++] = (char *)opt;
	if (opt_arg)
		argv[n++] = (char *)opt_arg;
	argv[n++] = "--";
	argv[n++] = "/bin/sh";
	argv[n++] = "-c";
	argv[n++] = "id -u; echo $HOME $USER $LOGNAME";
	argv[n] = NULL;
	pid = spawn(argv, tmp_file("stderr.txt", err, sizeof(err)), &fd);
	assert_true(pid > 0);
	while (len < size - 1 && (r = read(fd, buf + len, size - 1 - len)) != 0) {
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			break;
		len += (size_t)r;
	}
	buf[len] = 0;
	close(fd);
	st = wait_status(pid);
	return st;
}

static void expect_user(const char *got, uid_t uid, const char *home, const char *name)
{
	char want[600];

	snprintf(want, sizeof(want), "%u\n%s %s %s\n", (unsigned)uid, home, name, name);
	assert_string_equal(got, want);
}

static void test_user_option_runs_the_command_as_that_user(void **state)
{
	char got[600];

	(void)state;
	require_bpf();
	if (!nobody.pw_name)
		skip();
	assert_int_equal(record_id("--user", "nobody", got, sizeof(got)), 0);
	expect_user(got, nobody.pw_uid, nobody.pw_dir, "nobody");
}

static void test_sudo_runs_the_command_as_the_sudo_user(void **state)
{
	char got[600], uid[32], gid[32], out[300];
	struct stat st;

	(void)state;
	require_bpf();
	if (!nobody.pw_name)
		skip();
	snprintf(uid, sizeof(uid), "%u", (unsigned)nobody.pw_uid);
	snprintf(gid, sizeof(gid), "%u", (unsigned)nobody.pw_gid);
	/* The profile is written with their rights: into a folder of theirs. */
	assert_int_equal(chown(tmp_dir, nobody.pw_uid, nobody.pw_gid), 0);
	setenv("SUDO_UID", uid, 1);
	setenv("SUDO_GID", gid, 1);
	assert_int_equal(record_id(NULL, NULL, got, sizeof(got)), 0);
	expect_user(got, nobody.pw_uid, nobody.pw_dir, "nobody");
	/* The profile is theirs too. */
	assert_int_equal(stat(tmp_file("id.h5", out, sizeof(out)), &st), 0);
	assert_int_equal(st.st_uid, nobody.pw_uid);
	assert_int_equal(st.st_gid, nobody.pw_gid);
	/* --as-root: root, as asked. */
	assert_int_equal(record_id("--as-root", NULL, got, sizeof(got)), 0);
	assert_int_equal(strncmp(got, "0\n", 2), 0);
	unsetenv("SUDO_UID");
	unsetenv("SUDO_GID");
}

/* Another user's command is traced as well as root's: every call is there. */
static void test_command_of_another_user_is_traced(void **state)
{
	char out[300], app[512];
	char *argv[] = { (char *)scope_bin(), "record", "-q", "-o",
			 (char *)tmp_file("count.h5", out, sizeof(out)), "--user", "nobody", "--",
			 (char *)app_path("count", app, sizeof(app)), "1000", NULL };
	struct sb_profile p;

	(void)state;
	require_bpf();
	if (!nobody.pw_name)
		skip();
	assert_int_equal(run(argv), 0);
	load_profile(out, &p);
	assert_int_equal(must_pair(&p, "tick", 0)->count, 1000);
	assert_int_equal(must_pair(&p, "outer", 0)->count, 1);
	sb_profile_free(&p);
}

static void test_unknown_user_is_a_usage_error(void **state)
{
	char got[600], err[1024];

	(void)state;
	require_bpf();
	assert_int_equal(record_id("--user", "no-such-user-sb", got, sizeof(got)), 2);
	assert_string_equal(got, "");
	read_stderr(err, sizeof(err));
	assert_non_null(strstr(err, "--user no-such-user-sb: no such user"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_user_option_runs_the_command_as_that_user),
		cmocka_unit_test(test_sudo_runs_the_command_as_the_sudo_user),
		cmocka_unit_test(test_command_of_another_user_is_traced),
		cmocka_unit_test(test_unknown_user_is_a_usage_error),
	};

	return cmocka_run_group_tests_name("runas", tests, setup, teardown);
}
