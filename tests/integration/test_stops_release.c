/*
 * Releasing held processes when a SIGSTOP was sent but not yet acted on. On a
 * busy machine a process held at its exec may not have run since the stop
 * was sent when its recorder ends: a release that resumed only processes
 * already stopped forgot it, and it stopped later for good. Here the stop is
 * kept pending by a vfork: the parent waits for its child in a sleep that
 * SIGSTOP does not interrupt.
 */
#include <bpf/bpf.h>
#include <sys/syscall.h>

#include "harness.h"
#include "record/guardian.h"
#include "record/launch.h"
#include "region.h"

/* A process that sits in vfork() for ms milliseconds, then exits 0. */
static pid_t vforker(int ms)
{
	pid_t pid = fork(), child;

	assert_true(pid >= 0);
	if (pid)
		return pid;
	child = vfork();
	if (child == 0) {
		usleep((useconds_t)ms * 1000);
		_exit(0);
	}
	_exit(child > 0 ? 0 : 1);
}

static int stops_map(pid_t pid)
{
	struct sb_stop st = { .time = 1, .seq = 1 };
	__u32 key = (__u32)pid;
	int fd = bpf_map_create(BPF_MAP_TYPE_HASH, "stops", sizeof(key), sizeof(st), 16, NULL);

	assert_true(fd >= 0);
	assert_int_equal(bpf_map_update_elem(fd, &key, &st, BPF_ANY), 0);
	return fd;
}

static void test_a_stop_still_to_come_is_undone(void **state)
{
	pid_t pid;
	int fd, i;
	char st = 0;

	(void)state;
	require_bpf();
	pid = vforker(600);
	sleep_ms(100);
	assert_int_equal(kill(pid, SIGSTOP), 0);
	sleep_ms(50);
	/* Sent, not acted on: the process is still in its vfork wait. */
	assert_int_not_equal(sb_process_state(pid), 'T');
	fd = stops_map(pid);
	if (sb_stops_release(fd, 0) != 1) {
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
		fail_msg("process %d with a stop still to come was not resumed", (int)pid);
	}
	close(fd);
	/* Its vfork child is done by now: it must have gone on, not stopped. */
	for (i = 0; i < 40 && (st = sb_process_state(pid)) != 'T' && st != 'Z'; i++)
		sleep_ms(50);
	if (st == 'T') {
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
		fail_msg("process %d stopped after its stop was released", (int)pid);
	}
	assert_int_equal(wait_status(pid), 0);
}

/* A process nobody stopped is left alone (and not counted). */
static void test_a_running_process_is_not_resumed(void **state)
{
	pid_t pid;
	int fd;

	(void)state;
	require_bpf();
	pid = vforker(200);
	fd = stops_map(pid);
	assert_int_equal(sb_stops_release(fd, 0), 0);
	close(fd);
	assert_int_equal(wait_status(pid), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_a_stop_still_to_come_is_undone),
		cmocka_unit_test(test_a_running_process_is_not_resumed),
	};

	return cmocka_run_group_tests_name("stops_release", tests, setup_tmp, teardown_tmp);
}
