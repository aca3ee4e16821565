/*
 * Unit tests of sb_pi_mutex_init: while a real-time thread waits for the
 * mutex, the ordinary thread holding it runs at the waiter's priority. The
 * kernel shows a thread's priority of the moment in field 18 of
 * /proc/self/task/TID/stat: 20 at nice 0, -2 at SCHED_FIFO 1.
 */
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>

#include <cmocka.h>

#include "util/pi_mutex.h"

#define FIFO_1_PRIO (-2)

struct waiter {
	pthread_mutex_t *m;
	pid_t tid;		/* set by the waiter before it waits */
};

/* Field n (from 3, after the name in parentheses) of the thread's stat line; NULL if unread. */
static const char *stat_field(pid_t tid, int n, char *buf, size_t size)
{
	char path[64], *p;
	FILE *f;
	int i;

	snprintf(path, sizeof(path), "/proc/self/task/%d/stat", (int)tid);
	f = fopen(path, "re");
	if (!f)
		return NULL;
	p = fgets(buf, (int)size, f) ? strrchr(buf, ')') : NULL;
	fclose(f);
	for (i = 2; p && i < n; i++) {
		p = strchr(p, ' ');
		if (p)
			p++;
	}
	return p;
}

static int task_prio(pid_t tid)
{
	char buf[1024];
	const char *p = stat_field(tid, 18, buf, sizeof(buf));
	int prio;

	return p && sscanf(p, "%d", &prio) == 1 ? prio : INT_MIN;
}

static bool task_sleeping(pid_t tid)
{
	char buf[1024];
	const char *p = stat_field(tid, 3, buf, sizeof(buf));

	return p && *p == 'S';
}

static void *wait_for_lock(void *arg)
{
	struct waiter *w = arg;

	__atomic_store_n(&w->tid, (pid_t)syscall(SYS_gettid), __ATOMIC_RELEASE);
	pthread_mutex_lock(w->m);
	pthread_mutex_unlock(w->m);
	return NULL;
}

static bool in_ci(void)
{
	const char *ci = getenv("CI");

	return ci && !strcmp(ci, "true");
}

/*
 * This thread holds m while a SCHED_FIFO 1 thread waits for it: its priority
 * once the waiter sleeps in the kernel. Skips where real-time threads are not
 * allowed (fails under CI, which runs as root).
 */
static int holder_prio_while_waited(pthread_mutex_t *m)
{
	struct sched_param sp = { .sched_priority = 1 };
	struct waiter w = { .m = m, .tid = 0 };
	pid_t self = (pid_t)syscall(SYS_gettid), tid;
	pthread_attr_t attr;
	pthread_t t;
	int ret, prio, i;

	assert_int_equal(pthread_attr_init(&attr), 0);
	assert_int_equal(pthread_attr_setinheritsched(&attr, PTHREAD_EXPLICIT_SCHED), 0);
	assert_int_equal(pthread_attr_setschedpolicy(&attr, SCHED_FIFO), 0);
	assert_int_equal(pthread_attr_setschedparam(&attr, &sp), 0);
	pthread_mutex_lock(m);
	ret = pthread_create(&t, &attr, wait_for_lock, &w);
	pthread_attr_destroy(&attr);
	if (ret) {
		pthread_mutex_unlock(m);
		if (in_ci())
			fail_msg("a SCHED_FIFO thread: %s (CI runs as root)", strerror(ret));
		skip();
	}
	/* Its tid first, then its sleep in the futex: the priority is lent from there on. */
	for (i = 0; i < 5000; i++) {
		tid = __atomic_load_n(&w.tid, __ATOMIC_ACQUIRE);
		if (tid && task_sleeping(tid))
			break;
		usleep(1000);
	}
	prio = task_prio(self);
	pthread_mutex_unlock(m);
	assert_int_equal(pthread_join(t, NULL), 0);
	assert_true(i < 5000);
	return prio;
}

static void test_a_waiting_real_time_thread_lends_its_priority(void **state)
{
	pthread_mutex_t m;

	(void)state;
	assert_int_equal(sb_pi_mutex_init(&m), 0);
	assert_int_equal(holder_prio_while_waited(&m), FIFO_1_PRIO);
	pthread_mutex_destroy(&m);
}

/* What the helper changes: with a plain mutex the holder keeps its own priority. */
static void test_a_plain_mutex_lends_nothing(void **state)
{
	pid_t self = (pid_t)syscall(SYS_gettid);
	pthread_mutex_t m;
	int own;

	(void)state;
	own = task_prio(self);
	assert_int_not_equal(own, INT_MIN);
	assert_int_equal(pthread_mutex_init(&m, NULL), 0);
	assert_int_equal(holder_prio_while_waited(&m), own);
	pthread_mutex_destroy(&m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_a_waiting_real_time_thread_lends_its_priority),
		cmocka_unit_test(test_a_plain_mutex_lends_nothing),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
