/* Unit tests of scope-bpfd's policy file and what it permits (user/daemon/policy.c, permit.c). */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "daemon/permit.h"
#include "daemon/policy.h"

/* Parse text as the file "policy"; err holds the message. */
static int parse(const char *text, struct sb_policy *p, struct sb_error *err)
{
	FILE *f = fmemopen((void *)text, strlen(text), "r");
	int ret;

	assert_non_null(f);
	sb_policy_defaults(p);
	memset(err, 0, sizeof(*err));
	ret = sb_policy_parse(p, f, "policy", err);
	fclose(f);
	return ret;
}

static void test_defaults_grant_nothing(void **state)
{
	struct sb_policy p;
	struct sb_error err;
	gid_t root = 0;

	(void)state;
	assert_int_equal(parse("# nothing\n\n   \n", &p, &err), 0);
	assert_int_equal(p.max_recordings, 4);
	assert_int_equal(p.max_buffer, 1ull << 30);
	assert_true(p.max_duration == 0);
	assert_false(sb_policy_grants(&p, SB_GRANT_SYSTEM_WIDE, &root, 1));
	assert_false(sb_policy_grants(&p, SB_GRANT_KERNEL_STACKS, &root, 1));
}

static void test_every_setting_is_read(void **state)
{
	struct sb_policy p;
	struct sb_error err;
	gid_t root = 0, other = 4242;

	(void)state;
	assert_int_equal(parse("max-recordings 2   # per user\n"
			       "max-buffer 256M\n"
			       "\tmax-duration 3600\n"
			       "allow-system-wide root\n"
			       "allow-kernel-stacks root\n", &p, &err), 0);
	assert_int_equal(p.max_recordings, 2);
	assert_int_equal(p.max_buffer, 256ull << 20);
	assert_true(p.max_duration == 3600);
	assert_true(sb_policy_grants(&p, SB_GRANT_SYSTEM_WIDE, &root, 1));
	assert_true(sb_policy_grants(&p, SB_GRANT_KERNEL_STACKS, &root, 1));
	assert_false(sb_policy_grants(&p, SB_GRANT_SYSTEM_WIDE, &other, 1));
}

/* Each bad line is an error naming the file, the line and the cause. */
static void test_bad_lines_are_errors_with_file_and_line(void **state)
{
	static const struct {
		const char *text;
		const char *said;
	} cases[] = {
		{ "max-recordings 2\nmax-recording 3\n", "policy:2: unknown setting 'max-recording'" },
		{ "max-recordings\n", "policy:1: max-recordings: takes one value, none given" },
		{ "max-recordings 2 3\n", "policy:1: max-recordings: takes one value, more given" },
		{ "max-recordings 0\n", "policy:1: max-recordings: '0' is not a number from 1 to" },
		{ "max-recordings 2x\n", "policy:1: max-recordings: '2x' is not a number" },
		{ "max-recordings 1\nmax-recordings 2\n", "policy:2: max-recordings: given twice" },
		{ "max-buffer 12Q\n", "policy:1: max-buffer: '12Q' is not a size" },
		{ "max-buffer 1K\n", "policy:1: max-buffer: '1K' is not a size" },
		{ "max-buffer -5G\n", "policy:1: max-buffer: '-5G' is not a size" },
		{ "max-duration -1\n", "policy:1: max-duration: '-1' is not a number of seconds" },
		{ "max-duration nan\n", "policy:1: max-duration: 'nan' is not a number of seconds" },
		{ "\n\nallow-system-wide no-such-group-here\n",
		  "policy:3: allow-system-wide: no such group 'no-such-group-here'" },
		{ "allow-kernel-stacks\n", "policy:1: allow-kernel-stacks: takes one value" },
	};
	struct sb_policy p;
	struct sb_error err;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		assert_int_equal(parse(cases[i].text, &p, &err), -EINVAL);
		if (strncmp(err.msg, cases[i].said, strlen(cases[i].said)))
			fail_msg("case %zu: said '%s', expected '%s'", i, err.msg, cases[i].said);
	}
}

static void test_a_long_line_is_an_error(void **state)
{
	char text[2048];
	struct sb_policy p;
	struct sb_error err;

	(void)state;
	memset(text, 'x', sizeof(text) - 2);
	text[sizeof(text) - 2] = '\n';
	text[sizeof(text) - 1] = 0;
	assert_int_equal(parse(text, &p, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "policy:1: line longer than 1024 bytes"));
}

/* A file others may write, or that is missing, is refused or gives the defaults. */
static void test_load_checks_the_file(void **state)
{
	char dir[] = "/tmp/sb_policy.XXXXXX", path[64];
	struct sb_policy p;
	struct sb_error err = { { 0 } };
	FILE *f;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/policy", dir);
	assert_int_equal(sb_policy_load(&p, path, &err), 0);
	assert_int_equal(p.max_recordings, 4);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs("max-recordings 7\n", f);
	fclose(f);
	assert_int_equal(chmod(path, 0644), 0);
	assert_int_equal(sb_policy_load(&p, path, &err), geteuid() == 0 ? 0 : -EPERM);
	if (geteuid() == 0)
		assert_int_equal(p.max_recordings, 7);
	assert_int_equal(chmod(path, 0666), 0);
	assert_int_equal(sb_policy_load(&p, path, &err), -EPERM);
	assert_non_null(strstr(err.msg, "writable by root only"));
	unlink(path);
	rmdir(dir);
}

static struct sb_peer user_peer(void)
{
	struct sb_peer peer = { .pid = 1, .uid = 4242, .gid = 4242, .n_groups = 1 };

	peer.groups[0] = 4242;
	return peer;
}

static void test_permit_refuses_what_is_not_granted(void **state)
{
	struct sb_peer peer = user_peer(), root = { .uid = 0 };
	char *cmd[] = { "app", NULL };
	struct record_opts o = { .all = true };
	struct sb_policy p;
	struct sb_error err = { { 0 } };

	(void)state;
	sb_policy_defaults(&p);
	assert_int_equal(sb_permit(&p, &peer, &o, &err), -EPERM);
	assert_non_null(strstr(err.msg, "-a (every process of the machine): not allowed"));
	assert_int_equal(sb_permit(&p, &root, &o, &err), 0);
	o = (struct record_opts){ .pid = 5, .sample_hz = 99, .kernel_stacks = true };
	assert_int_equal(sb_permit(&p, &peer, &o, &err), -EPERM);
	assert_non_null(strstr(err.msg, "--kernel-stacks: not allowed"));
	/* Granted to one of the peer's groups: allowed. */
	p.groups[SB_GRANT_KERNEL_STACKS][p.n_groups[SB_GRANT_KERNEL_STACKS]++] = 4242;
	assert_int_equal(sb_permit(&p, &peer, &o, &err), 0);
	o = (struct record_opts){ .pid = 5, .user = "root" };
	assert_int_equal(sb_permit(&p, &peer, &o, &err), -EPERM);
	assert_non_null(strstr(err.msg, "--user: through scope-bpfd the command runs as you"));
	/* What only the user's own command loads (the CUPTI and PMPI libraries): allowed. */
	o = (struct record_opts){ .cmd = cmd, .cuda = true, .mpi_path = SB_MPI_PATH_PMPI };
	assert_int_equal(sb_permit(&p, &peer, &o, &err), 0);
}

static void test_permit_applies_the_limits(void **state)
{
	struct sb_peer peer = user_peer();
	struct record_opts o = { .pid = 5 };
	struct sb_policy p;
	struct sb_error err = { { 0 } };

	(void)state;
	sb_policy_defaults(&p);
	p.max_duration = 60;
	assert_int_equal(sb_permit(&p, &peer, &o, &err), 0);
	assert_true(o.duration == 60);
	assert_int_equal(o.buffer_bytes, 1ull << 30);
	o = (struct record_opts){ .pid = 5, .duration = 61 };
	assert_int_equal(sb_permit(&p, &peer, &o, &err), -EPERM);
	assert_non_null(strstr(err.msg, "max-duration"));
	o = (struct record_opts){ .pid = 5, .buffer_bytes = 2ull << 30 };
	assert_int_equal(sb_permit(&p, &peer, &o, &err), -EPERM);
	assert_non_null(strstr(err.msg, "max-buffer"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_defaults_grant_nothing),
		cmocka_unit_test(test_every_setting_is_read),
		cmocka_unit_test(test_bad_lines_are_errors_with_file_and_line),
		cmocka_unit_test(test_a_long_line_is_an_error),
		cmocka_unit_test(test_load_checks_the_file),
		cmocka_unit_test(test_permit_refuses_what_is_not_granted),
		cmocka_unit_test(test_permit_applies_the_limits),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
