/* Unit tests of scope-bpfd's messages (user/daemon/proto.c): what a hostile peer sends, refused. */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cmocka.h>

#include "daemon/proto.h"

static struct sb_bpfd_msg m;

static void test_a_record_request_round_trips(void **state)
{
	char *argv[] = { "record", "-o", "x.h5", "--", "app", "", NULL };
	char *got[SB_BPFD_MAX_ARGS + 1];
	struct sb_error err = { { 0 } };
	int len, i;

	(void)state;
	len = sb_bpfd_encode_record(&m, 6, argv);
	assert_true(len > 0);
	assert_int_equal(sb_bpfd_check(&m, (size_t)len, &err), 0);
	assert_int_equal(sb_bpfd_decode_record(&m, got, &err), 6);
	for (i = 0; i < 6; i++)
		assert_string_equal(got[i], argv[i]);
	assert_null(got[6]);
}

static void test_bad_messages_are_refused(void **state)
{
	char *argv[] = { "record", "-p", "1", NULL };
	char *got[SB_BPFD_MAX_ARGS + 1];
	struct sb_error err = { { 0 } };
	int len;

	(void)state;
	assert_int_equal(sb_bpfd_check(&m, 3, &err), -EPROTO);
	len = sb_bpfd_encode_record(&m, 3, argv);
	m.h.magic ^= 1;
	assert_int_equal(sb_bpfd_check(&m, (size_t)len, &err), -EPROTO);
	assert_non_null(strstr(err.msg, "not a scope-bpf message"));
	len = sb_bpfd_encode_record(&m, 3, argv);
	m.h.version = 2;
	assert_int_equal(sb_bpfd_check(&m, (size_t)len, &err), -EPROTO);
	assert_non_null(strstr(err.msg, "protocol version 2"));
	len = sb_bpfd_encode_record(&m, 3, argv);
	m.h.length = 0xffffffffu;
	assert_int_equal(sb_bpfd_check(&m, (size_t)len, &err), -EPROTO);
	/* More arguments announced than sent, an unterminated one, bytes after the last. */
	len = sb_bpfd_encode_record(&m, 3, argv);
	m.h.arg = 4;
	assert_int_equal(sb_bpfd_decode_record(&m, got, &err), -EPROTO);
	m.h.arg = 100000;
	assert_int_equal(sb_bpfd_decode_record(&m, got, &err), -EPROTO);
	len = sb_bpfd_encode_record(&m, 3, argv);
	m.payload[m.h.length - 1] = 'x';
	assert_int_equal(sb_bpfd_decode_record(&m, got, &err), -EPROTO);
	assert_non_null(strstr(err.msg, "not terminated"));
	len = sb_bpfd_encode_record(&m, 3, argv);
	m.h.arg = 2;
	assert_int_equal(sb_bpfd_decode_record(&m, got, &err), -EPROTO);
	assert_non_null(strstr(err.msg, "after the last argument"));
}

static void test_too_long_a_command_line_is_not_encoded(void **state)
{
	static char big[SB_BPFD_MAX_MSG];
	char *argv[] = { "record", big, NULL };

	(void)state;
	memset(big, 'a', sizeof(big) - 1);
	assert_int_equal(sb_bpfd_encode_record(&m, 2, argv), -E2BIG);
}

/* Over a socket pair: descriptors arrive; too many, or too big a message, none is kept. */
static void test_descriptors_travel_and_excess_is_refused(void **state)
{
	int sv[2], fds[SB_BPFD_MAX_FDS], many[SB_BPFD_MAX_FDS + 1], n_fds, i, n;
	int two[2] = { STDIN_FILENO, STDERR_FILENO };
	static char big[SB_BPFD_MAX_MSG + 100];
	size_t len;

	(void)state;
	assert_int_equal(socketpair(AF_UNIX, SOCK_SEQPACKET, 0, sv), 0);
	len = sb_bpfd_encode_result(&m, 3, "said");
	assert_int_equal(sb_bpfd_send(sv[0], &m, len, two, 2), 0);
	n = sb_bpfd_recv(sv[1], &m, fds, &n_fds);
	assert_int_equal(n, (int)len);
	assert_int_equal(n_fds, 2);
	assert_true(fcntl(fds[0], F_GETFD) & FD_CLOEXEC);
	sb_bpfd_close_fds(fds, n_fds);
	for (i = 0; i <= SB_BPFD_MAX_FDS; i++)
		many[i] = STDERR_FILENO;
	assert_int_equal(sb_bpfd_send(sv[0], &m, len, many, SB_BPFD_MAX_FDS + 1), -EINVAL);
	assert_int_equal(send(sv[0], big, sizeof(big), 0), (ssize_t)sizeof(big));
	assert_int_equal(sb_bpfd_recv(sv[1], &m, fds, &n_fds), -EMSGSIZE);
	assert_int_equal(n_fds, 0);
	close(sv[0]);
	assert_int_equal(sb_bpfd_recv(sv[1], &m, fds, &n_fds), 0);
	close(sv[1]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_a_record_request_round_trips),
		cmocka_unit_test(test_bad_messages_are_refused),
		cmocka_unit_test(test_too_long_a_command_line_is_not_encoded),
		cmocka_unit_test(test_descriptors_travel_and_excess_is_refused),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
