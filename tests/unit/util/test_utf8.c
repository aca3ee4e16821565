/* Unit tests of UTF-8 checks, tag lists and the hash map. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "util/hashmap.h"
#include "util/utf8.h"

static void test_utf8_validation(void **state)
{
	(void)state;
	assert_true(sb_utf8_valid("solve"));
	assert_true(sb_utf8_valid("L\xc3\xb6sung \xe2\x86\x92 \xf0\x9f\x94\xa5"));
	assert_false(sb_utf8_valid("\xff"));
	assert_false(sb_utf8_valid("\xc0\xaf"));	/* overlong '/' */
	assert_false(sb_utf8_valid("\xed\xa0\x80"));	/* surrogate */
	assert_false(sb_utf8_valid("\xe2\x86"));	/* truncated */
	/* Control characters are valid UTF-8 (a JSON "\t" decodes to one), not printable. */
	assert_true(sb_utf8_valid("tab\there"));
	assert_false(sb_utf8_printable("tab\there"));
	assert_false(sb_utf8_printable("del\x7f"));
	assert_true(sb_utf8_printable("L\xc3\xb6sung"));
	assert_false(sb_utf8_printable("\xff"));
}

/* Readers keep a name with a bad byte: each invalid byte becomes U+FFFD, the rest stays. */
static void test_utf8_repaired(void **state)
{
	char *s;

	(void)state;
	s = sb_utf8_repaired("a\xff\xc3\xb6\xe2\x86z");
	assert_non_null(s);
	assert_string_equal(s, "a\xef\xbf\xbd\xc3\xb6\xef\xbf\xbd\xef\xbf\xbdz");
	assert_true(sb_utf8_valid(s));
	free(s);
	s = sb_utf8_repaired("tab\there");
	assert_non_null(s);
	assert_string_equal(s, "tab\there");
	free(s);
}

static void test_utf8_sanitize(void **state)
{
	char s[] = "ok\xff\xc3\xb6\x01\xe2\x86";

	(void)state;
	sb_utf8_sanitize(s);
	assert_string_equal(s, "ok?\xc3\xb6???");
	assert_true(sb_utf8_valid(s));
}

static void test_tags_to_json(void **state)
{
	const char *cases[][2] = {
		{ "", "[]" },
		{ "io", "[\"io\"]" },
		{ " io , mpi,, ", "[\"io\",\"mpi\"]" },
		{ "a\"b,c\\d", "[\"a\\\"b\",\"c\\\\d\"]" },
		{ ",,,", "[]" },
		{ "x\xff", "[\"x?\"]" },
	};
	size_t i;
	char *j;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		j = sb_tags_to_json(cases[i][0]);
		assert_non_null(j);
		assert_string_equal(j, cases[i][1]);
		free(j);
	}
	j = sb_tags_to_json(NULL);
	assert_string_equal(j, "[]");
	free(j);
}

static void test_hashmap_put_get_grow(void **state)
{
	struct sb_hashmap m;
	uint64_t i, *v;

	(void)state;
	sb_hashmap_init(&m);
	assert_null(sb_hashmap_get(&m, 1, 2));
	for (i = 0; i < 10000; i++)
		assert_int_equal(sb_hashmap_put(&m, i, i * 7, i + 1), 0);
	assert_int_equal(m.len, 10000);
	for (i = 0; i < 10000; i++) {
		v = sb_hashmap_get(&m, i, i * 7);
		assert_non_null(v);
		assert_int_equal(*v, i + 1);
	}
	assert_null(sb_hashmap_get(&m, 5, 36));
	assert_int_equal(sb_hashmap_put(&m, 5, 35, 99), 0);
	assert_int_equal(*sb_hashmap_get(&m, 5, 35), 99);
	assert_int_equal(m.len, 10000);
	sb_hashmap_free(&m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_utf8_validation),
		cmocka_unit_test(test_utf8_repaired),
		cmocka_unit_test(test_utf8_sanitize),
		cmocka_unit_test(test_tags_to_json),
		cmocka_unit_test(test_hashmap_put_get_grow),
	};

	return cmocka_run_group_tests_name("text", tests, NULL, NULL);
}
