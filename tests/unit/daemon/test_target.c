/* Unit tests of scope-bpfd's target checks (user/daemon/target.c) on processes of this test. */
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "daemon/target.h"

static int pidfd_of(pid_t pid)
{
	int fd = (int)syscall(SYS_pidfd_open, pid, 0);

	assert_true(fd >= 0);
	return fd;
}

static void test_pidfd_names_its_process_and_nothing_else_does(void **state)
{
	int fd = pidfd_of(getpid()), p[2];

	(void)state;
	assert_int_equal(sb_pidfd_pid(fd), getpid());
	assert_int_equal(pipe(p), 0);
	assert_int_equal(sb_pidfd_pid(p[0]), -1);
	close(p[0]);
	close(p[1]);
	close(fd);
}

static void test_own_process_passes_and_other_uids_do_not(void **state)
{
	struct sb_error err = { { 0 } };
	uid_t me = getuid();
	int fd = pidfd_of(getpid());

	(void)state;
	assert_int_equal(sb_target_check(fd, getpid(), me, false, &err), 0);
	assert_true(sb_target_owned(getpid(), me));
	assert_int_equal(sb_target_check(fd, getpid(), me + 1, false, &err), -EPERM);
	assert_non_null(strstr(err.msg, "not as you"));
	assert_false(sb_target_owned(getpid(), me + 1));
	/* A command must come held under no_new_privs: this process is not. */
	if (!prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0)) {
		assert_int_equal(sb_target_check(fd, getpid(), me, true, &err), -EPERM);
		assert_non_null(strstr(err.msg, "no_new_privs"));
	}
	close(fd);
}

/*
 * A child that made itself undumpable, as a setuid program is, is refused
 * (run as root, the child first becomes nobody: root owns every /proc folder).
 */
static void test_undumpable_process_is_refused(void **state)
{
	uid_t uid = geteuid() ? geteuid() : 65534;
	struct sb_error err = { { 0 } };
	int go[2], fd, ret, alive;
	pid_t pid;
	char c;

	(void)state;
	assert_int_equal(pipe(go), 0);
	pid = fork();
	if (pid == 0) {
		close(go[0]);
		if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) || setresgid(uid, uid, uid) ||
		    setresuid(uid, uid, uid) || prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) ||
		    write(go[1], "x", 1) != 1)
			_exit(1);
		pause();
		_exit(0);
	}
	close(go[1]);
	assert_int_equal(read(go[0], &c, 1), 1);
	close(go[0]);
	fd = pidfd_of(pid);
	ret = sb_target_check(fd, pid, uid, false, &err);
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	assert_int_equal(ret, -EPERM);
	assert_non_null(strstr(err.msg, "not dumpable"));
	/* Gone: its pidfd says so, whatever has its pid now. */
	alive = sb_pidfd_pid(fd);
	ret = sb_target_check(fd, pid, uid, false, &err);
	close(fd);
	assert_int_equal(alive, -1);
	assert_int_equal(ret, -ESRCH);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pidfd_names_its_process_and_nothing_else_does),
		cmocka_unit_test(test_own_process_passes_and_other_uids_do_not),
		cmocka_unit_test(test_undumpable_process_is_refused),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
