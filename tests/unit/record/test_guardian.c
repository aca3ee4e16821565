/* The guardian's reading of a process's pending signals: whether a stop is still to come. */
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "record/guardian.h"

#define STATUS(sig, shd) \
	"Name:\tcount\nState:\tR (running)\nSigQ:\t0/95044\nSigPnd:\t" sig "\nShdPnd:\t" shd \
	"\nSigBlk:\t0000000000000000\n"

static void test_a_sent_stop_is_pending(void **state)
{
	(void)state;
	/* bpf_send_signal sends SIGSTOP (19) to the whole process: the shared set, bit 18. */
	assert_true(sb_status_stop_pending(STATUS("0000000000000000", "0000000000040000")));
	assert_true(sb_status_stop_pending(STATUS("0000000000040000", "0000000000000000")));
	assert_true(sb_status_stop_pending(STATUS("0000000000000000", "0000000000040101")));
}

static void test_other_signals_are_not_a_stop(void **state)
{
	(void)state;
	assert_false(sb_status_stop_pending(STATUS("0000000000000000", "0000000000000000")));
	/* SIGTSTP (20) and SIGCONT (18) are not SIGSTOP. */
	assert_false(sb_status_stop_pending(STATUS("0000000000080000", "0000000000020000")));
	/* SigBlk is not pending. */
	assert_false(sb_status_stop_pending("Name:\tx\nSigBlk:\t0000000000040000\n"));
	assert_false(sb_status_stop_pending(""));
	assert_false(sb_status_stop_pending("Name:\tx\nSigPnd:\tzz\n"));
}

/* This very process, read from /proc: nothing pending. */
static void test_own_status_has_no_stop(void **state)
{
	char path[64], buf[4096];
	size_t n;
	FILE *f;

	(void)state;
	snprintf(path, sizeof(path), "/proc/%d/status", (int)getpid());
	f = fopen(path, "r");
	assert_non_null(f);
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = 0;
	assert_non_null(strstr(buf, "\nShdPnd:"));
	assert_false(sb_status_stop_pending(buf));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_a_sent_stop_is_pending),
		cmocka_unit_test(test_other_signals_are_not_a_stop),
		cmocka_unit_test(test_own_status_has_no_stop),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
