/* Unit tests of `export pstats`: the marshal bytes, and the file as Python's pstats reads it. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "export/export.h"
#include "export/marshal.h"
#include "fixtures.h"

/* What fn writes into a memory stream, its length in *len. */
#define CAPTURE(buf, len, call)						\
	do {								\
		FILE *f_ = open_memstream(&(buf), &(len));		\
		assert_non_null(f_);					\
		call;							\
		fclose(f_);						\
	} while (0)

static void expect_bytes(const char *buf, size_t len, const char *want, size_t want_len)
{
	assert_int_equal(len, want_len);
	assert_memory_equal(buf, want, want_len);
}

static void test_marshal_ints_floats_strings(void **state)
{
	char *buf = NULL;
	size_t len = 0;

	(void)state;
	CAPTURE(buf, len, sb_marshal_int(f_, -2));
	expect_bytes(buf, len, "i\xfe\xff\xff\xff", 5);
	free(buf);
	/* 2^40: three 15-bit digits, 0, 0, 1 << 10, least significant first. */
	CAPTURE(buf, len, sb_marshal_int(f_, 1LL << 40));
	expect_bytes(buf, len, "l\x03\x00\x00\x00\x00\x00\x00\x00\x00\x04", 11);
	free(buf);
	/* A negative long: the digit count carries the sign. */
	CAPTURE(buf, len, sb_marshal_int(f_, -(1LL << 40)));
	expect_bytes(buf, len, "l\xfd\xff\xff\xff\x00\x00\x00\x00\x00\x04", 11);
	free(buf);
	CAPTURE(buf, len, sb_marshal_float(f_, 1.5));
	expect_bytes(buf, len, "g\x00\x00\x00\x00\x00\x00\xf8\x3f", 9);
	free(buf);
	CAPTURE(buf, len, sb_marshal_str(f_, "h\xc3\xa9"));
	expect_bytes(buf, len, "u\x03\x00\x00\x00h\xc3\xa9", 8);
	free(buf);
	CAPTURE(buf, len, (sb_marshal_dict_begin(f_), sb_marshal_tuple(f_, 2),
			   sb_marshal_dict_end(f_)));
	expect_bytes(buf, len, "{(\x02\x00\x00\x00" "0", 7);
	free(buf);
}

/*
 * main [0, 1000] holds a [100, 400] and b [500, 900]; c runs once in a and
 * twice in b: two paths of one name.
 */
static void build_tree(struct sb_profile *p)
{
	static const struct fx_call calls[] = {
		{ "main", 0, 1000, 1, -1, 0 },
		{ "a", 100, 400, 2, 1, 0 },
		{ "b", 500, 900, 4, 1, 0 },
		{ "c", 150, 250, 3, 2, 0 },
		{ "c", 600, 700, 5, 4, 0 },
		{ "c", 710, 760, 6, 4, 0 },
	};

	fx_call_tree(p, calls, sizeof(calls) / sizeof(calls[0]),
		     SB_COL_THREAD | SB_COL_CALL_ID | SB_COL_PARENT_ID);
}

static void test_kind_is_registered(void **state)
{
	const struct sb_export_kind *k = sb_export_kind_find("pstats");

	(void)state;
	assert_non_null(k);
	assert_string_equal(k->suffix, ".prof");
	assert_ptr_equal(k->write, sb_export_pstats);
}

/* The file starts as a dict whose first key is main's: (file, 0, name). */
static void test_writer_keys_and_counts(void **state)
{
	struct sb_error err = { .msg = "" };
	struct sb_profile p;
	char *buf = NULL;
	size_t len = 0;
	int r = 0;

	(void)state;
	build_tree(&p);
	CAPTURE(buf, len, r = sb_export_pstats(f_, &p, &err));
	assert_int_equal(r, 0);
	/* No command in the profile: the file is "scope-bpf". */
	expect_bytes(buf, 40, "{(\x03\x00\x00\x00u\x09\x00\x00\x00scope-bpfi\x00\x00\x00\x00"
			      "u\x04\x00\x00\x00main(\x05\x00\x00\x00i", 40);
	assert_int_equal(buf[len - 1], '0');
	free(buf);
	sb_profile_free(&p);
}

/* Whether python3 is there; under CI=true a missing python3 fails instead of skipping. */
static bool have_python(void)
{
	if (!system("command -v python3 >/dev/null 2>&1"))
		return true;
	if (getenv("CI") && !strcmp(getenv("CI"), "true"))
		fail_msg("python3 not found and CI=true forbids skipping");
	fprintf(stderr, "skipping: python3 not found\n");
	return false;
}

static const char script[] =
	"import pstats, sys\n"
	"s = pstats.Stats(sys.argv[1])\n"
	"print('total', s.total_calls, round(s.total_tt * 1e9))\n"
	"for (f, l, n), (cc, nc, tt, ct, callers) in sorted(s.stats.items()):\n"
	"    up = ','.join(k[2] for k in sorted(callers))\n"
	"    print(f, l, n, nc, round(tt * 1e9), round(ct * 1e9), up or '-')\n";

/* pstats.Stats reads the file, and says what report says: calls, own and total per path. */
static void test_python_pstats_reads_what_report_shows(void **state)
{
	char cmd[1024], *out;
	struct sb_error err = { .msg = "" };
	struct sb_profile p;
	FILE *f;

	(void)state;
	if (!have_python())
		skip();
	build_tree(&p);
	f = fopen(tmp_path("t.prof"), "wb");
	assert_non_null(f);
	assert_int_equal(sb_export_pstats(f, &p, &err), 0);
	assert_int_equal(fclose(f), 0);
	f = fopen(tmp_path("check.py"), "w");
	assert_non_null(f);
	fputs(script, f);
	fclose(f);
	snprintf(cmd, sizeof(cmd), "python3 %s %s > %s", tmp_path("check.py"),
		 tmp_path("t.prof"), tmp_path("out.txt"));
	assert_int_equal(system(cmd), 0);
	out = slurp(tmp_path("out.txt"));
	/* Own times add up to main's 1000 ns; six calls. */
	expect_has(out, "total 6 1000\n");
	expect_has(out, "scope-bpf 0 main 1 300 1000 -\n");
	expect_has(out, "scope-bpf 0 a 1 200 300 main\n");
	expect_has(out, "scope-bpf 0 b 1 250 400 main\n");
	/* c on two paths: each by its whole path, its caller the path above it. */
	expect_has(out, "scope-bpf 0 main;a;c 1 100 100 a\n");
	expect_has(out, "scope-bpf 0 main;b;c 2 150 150 b\n");
	free(out);
	sb_profile_free(&p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_marshal_ints_floats_strings),
		cmocka_unit_test(test_kind_is_registered),
		cmocka_unit_test(test_writer_keys_and_counts),
		cmocka_unit_test(test_python_pstats_reads_what_report_shows),
	};

	return cmocka_run_group_tests(tests, tmp_setup, tmp_teardown);
}
