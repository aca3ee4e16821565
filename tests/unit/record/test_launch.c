/*
 * Launching a command: it runs only on the recorder's explicit go, never once
 * the recorder is gone, and under sudo as the user who asked, not as root.
 */
#include <poll.h>
#include <pwd.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fixtures.h"

#include "record/launch.h"
#include "record/runas.h"

static bool exists(const char *path)
{
	struct stat st;

	return !stat(path, &st);
}

/* Wait up to ms for pid; its wait status, or -1 (then it is killed and reaped). */
static int wait_ms(pid_t pid, int ms)
{
	int st;

	for (int i = 0; i < ms; i += 10) {
		if (waitpid(pid, &st, WNOHANG) == pid)
			return st;
		usleep(10000);
	}
	kill(pid, SIGKILL);
	waitpid(pid, &st, 0);
	return -1;
}

static void test_go_runs_the_command(void **state)
{
	char *cmd[] = { "touch", tmp_path("ran"), NULL };
	struct sb_error err = { .msg = "" };
	struct sb_child child;
	int st;

	(void)state;
	assert_int_equal(sb_launch_prepare(&child, cmd, NULL, &err), 0);
	assert_int_equal(sb_launch_go(&child), 0);
	st = wait_ms(child.pid, 5000);
	assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	assert_true(exists(cmd[1]));
}

/* The recorder died before its go (here: the go pipe closed without the byte). */
static void test_eof_on_the_go_pipe_runs_nothing(void **state)
{
	char *cmd[] = { "touch", tmp_path("eof-marker"), NULL };
	struct sb_error err = { .msg = "" };
	struct sb_child child;
	int st;

	(void)state;
	assert_int_equal(sb_launch_prepare(&child, cmd, NULL, &err), 0);
	close(child.go_fd);
	close(child.err_fd);
	st = wait_ms(child.pid, 5000);
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 126);
	assert_false(exists(cmd[1]));
}

static void test_missing_command_is_reported(void **state)
{
	char *cmd[] = { "/nonexistent/scope-bpf-cmd", NULL };
	struct sb_error err = { .msg = "" };
	struct sb_child child;
	int st;

	(void)state;
	assert_int_equal(sb_launch_prepare(&child, cmd, NULL, &err), 0);
	assert_int_equal(sb_launch_go(&child), -ENOENT);
	st = wait_ms(child.pid, 5000);
	assert_int_equal(WEXITSTATUS(st), 127);
}

/* A child that died before the go must not take the recorder with it (SIGPIPE). */
static void test_go_to_a_dead_child_is_an_error(void **state)
{
	char *cmd[] = { "true", NULL };
	struct sb_error err = { .msg = "" };
	struct sb_child child;

	(void)state;
	assert_int_equal(sb_launch_prepare(&child, cmd, NULL, &err), 0);
	kill(child.pid, SIGKILL);
	waitpid(child.pid, NULL, 0);
	assert_int_equal(sb_launch_go(&child), -EPIPE);
}

/*
 * A recorder SIGKILLed while the child waits, with the go pipe still held open
 * elsewhere (so no EOF comes): the child dies with it and the command never runs.
 */
static void test_child_dies_with_its_recorder(void **state)
{
	char *cmd[] = { "touch", tmp_path("orphan-marker"), NULL };
	struct sb_error err = { .msg = "" };
	struct sb_child child;
	pid_t recorder, pids[2];
	int info[2], st;

	(void)state;
	/* Orphans come to us, so the child's end can be seen. */
	assert_int_equal(prctl(PR_SET_CHILD_SUBREAPER, 1), 0);
	assert_int_equal(pipe(info), 0);
	recorder = fork();
	if (!recorder) {
		if (sb_launch_prepare(&child, cmd, NULL, &err))
			_exit(1);
		pids[0] = child.pid;
		/* A holder of the go pipe that outlives the recorder. */
		pids[1] = fork();
		if (!pids[1]) {
			pause();
			_exit(0);
		}
		if (write(info[1], pids, sizeof(pids)) != sizeof(pids))
			_exit(1);
		pause();
		_exit(0);
	}
	assert_int_equal(read(info[0], pids, sizeof(pids)), sizeof(pids));
	/* The child is waiting for its go by now, or soon: give it the time. */
	usleep(100000);
	kill(recorder, SIGKILL);
	waitpid(recorder, NULL, 0);
	st = wait_ms(pids[0], 5000);
	kill(pids[1], SIGKILL);
	waitpid(pids[1], NULL, 0);
	assert_true(st != -1);
	assert_true(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL);
	assert_false(exists(cmd[1]));
	close(info[0]);
	close(info[1]);
}

static const char *env_of(const struct sb_runas *r, const char *name)
{
	size_t len = strlen(name);

	for (char **e = r->env; *e; e++)
		if (!strncmp(*e, name, len) && (*e)[len] == '=')
			return *e + len + 1;
	return NULL;
}

static void test_identity_is_resolved(void **state)
{
	struct sb_error err = { .msg = "" };
	struct passwd *pw;
	struct sb_runas r;
	uid_t nobody;
	gid_t nogroup;

	(void)state;
	if (geteuid() != 0)
		skip();
	pw = getpwnam("nobody");
	if (!pw)
		skip();
	nobody = pw->pw_uid;
	nogroup = pw->pw_gid;
	clear_sudo();
	/* Root, not under sudo: as we are. */
	assert_int_equal(sb_runas_resolve(&r, NULL, false, &err), 0);
	assert_false(r.change);
	sb_runas_free(&r);
	assert_int_equal(sb_runas_resolve(&r, "nobody", false, &err), 0);
	assert_true(r.change);
	assert_int_equal(r.uid, nobody);
	assert_int_equal(r.gid, nogroup);
	assert_true(r.n_groups >= 1);
	assert_string_equal(env_of(&r, "USER"), "nobody");
	assert_string_equal(env_of(&r, "LOGNAME"), "nobody");
	assert_string_equal(env_of(&r, "HOME"), getpwnam("nobody")->pw_dir);
	/* Other variables pass through. */
	assert_non_null(env_of(&r, "PATH"));
	sb_runas_free(&r);
	/* Under sudo: the sudo user and gid, unless --as-root. */
	set_sudo("65534", "4242");
	assert_int_equal(sb_runas_resolve(&r, NULL, false, &err), 0);
	assert_true(r.change);
	assert_int_equal(r.uid, 65534);
	assert_int_equal(r.gid, 4242);
	sb_runas_free(&r);
	assert_int_equal(sb_runas_resolve(&r, NULL, true, &err), 0);
	assert_false(r.change);
	sb_runas_free(&r);
	/* No SUDO_GID: the user's own group. */
	unsetenv("SUDO_GID");
	assert_int_equal(sb_runas_resolve(&r, NULL, false, &err), 0);
	assert_int_equal(r.gid, getpwuid(65534) ? getpwuid(65534)->pw_gid : 0);
	sb_runas_free(&r);
	/* sudo run by root is root. */
	set_sudo("0", "0");
	assert_int_equal(sb_runas_resolve(&r, NULL, false, &err), 0);
	assert_false(r.change);
	sb_runas_free(&r);
	clear_sudo();
}

static void test_unknown_users_are_errors(void **state)
{
	struct sb_error err = { .msg = "" };
	struct sb_runas r;

	(void)state;
	if (geteuid() != 0)
		skip();
	assert_int_equal(sb_runas_resolve(&r, "no-such-user-sb", false, &err), -EINVAL);
	expect_has(err.msg, "--user no-such-user-sb: no such user");
	/* A sudo uid with no account: refuse rather than run as root or as a stranger. */
	set_sudo("3999999", "3999999");
	assert_int_equal(sb_runas_resolve(&r, NULL, false, &err), -EINVAL);
	expect_has(err.msg, "SUDO_UID=3999999: no such user");
	clear_sudo();
}

/* Only root may pick another user: anyone else is told so (a child that gave root up asks). */
static void test_user_option_needs_root(void **state)
{
	struct sb_error err = { .msg = "" };
	struct sb_runas r;
	pid_t pid;
	int st;

	(void)state;
	pid = fork();
	if (!pid) {
		if (geteuid() == 0 && setuid(65534))
			_exit(3);
		st = sb_runas_resolve(&r, "nobody", false, &err);
		_exit(st == -EPERM && strstr(err.msg, "only root can run a command as another user")
		      ? 0 : 1);
	}
	assert_true(pid > 0);
	st = wait_ms(pid, 5000);
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 0);
}

/* The launched command sees the user's uid, gid, groups, HOME, USER and LOGNAME. */
static void test_command_runs_as_the_user(void **state)
{
	char *cmd[] = { "sh", "-c", "echo $(id -u) $(id -g) $(id -G) $HOME $USER $LOGNAME >&7",
			NULL };
	struct sb_error err = { .msg = "" };
	char got[256] = "", want[256];
	struct sb_child child;
	struct passwd *pw;
	struct sb_runas r;
	int out[2], st;
	ssize_t n;

	(void)state;
	if (geteuid() != 0 || !(pw = getpwnam("nobody")))
		skip();
	set_sudo("65534", "4242");
	assert_int_equal(sb_runas_resolve(&r, NULL, false, &err), 0);
	clear_sudo();
	snprintf(want, sizeof(want), "65534 4242 4242 %s %s %s\n", pw->pw_dir, pw->pw_name,
		 pw->pw_name);
	assert_int_equal(pipe(out), 0);
	assert_int_equal(dup2(out[1], 7), 7);
	assert_int_equal(sb_launch_prepare(&child, cmd, &r, &err), 0);
	sb_runas_free(&r);
	close(7);
	close(out[1]);
	assert_int_equal(sb_launch_go(&child), 0);
	n = read(out[0], got, sizeof(got) - 1);
	close(out[0]);
	st = wait_ms(child.pid, 5000);
	assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	assert_true(n > 0);
	assert_string_equal(got, want);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_go_runs_the_command),
		cmocka_unit_test(test_eof_on_the_go_pipe_runs_nothing),
		cmocka_unit_test(test_missing_command_is_reported),
		cmocka_unit_test(test_go_to_a_dead_child_is_an_error),
		cmocka_unit_test(test_child_dies_with_its_recorder),
		cmocka_unit_test(test_identity_is_resolved),
		cmocka_unit_test(test_unknown_users_are_errors),
		cmocka_unit_test(test_user_option_needs_root),
		cmocka_unit_test(test_command_runs_as_the_user),
	};

	return cmocka_run_group_tests_name("launch", tests, tmp_setup, tmp_teardown);
}
