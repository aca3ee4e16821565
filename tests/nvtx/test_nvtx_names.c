/* Unit tests of NVTX range names and tags (nvtx/names.c): wide names as UTF-8, tags that fit. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>

#include <cmocka.h>

#include "names.h"

static void test_wide_to_utf8(void **state)
{
	char out[NVTX_NAME_BYTES];

	(void)state;
	nvtx_utf8(L"solve", out, sizeof(out));
	assert_string_equal(out, "solve");
	nvtx_utf8(L"h\u00e9 \u20ac \U0001F600", out, sizeof(out));
	assert_string_equal(out, "h\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80");
	nvtx_utf8(NULL, out, sizeof(out));
	assert_string_equal(out, "");
}

static void test_invalid_code_points_replaced(void **state)
{
	const wchar_t bad[] = { 'a', 0xd800, 0x110000, 0 };
	char out[16];

	(void)state;
	nvtx_utf8(bad, out, sizeof(out));
	assert_string_equal(out, "a\xef\xbf\xbd\xef\xbf\xbd");
}

/* Cut where the next character would not fit, never inside one. */
static void test_cut_at_a_character(void **state)
{
	char out[5];

	(void)state;
	nvtx_utf8(L"ab\u20ac", out, sizeof(out));
	assert_string_equal(out, "ab");
	nvtx_utf8(L"abcdef", out, sizeof(out));
	assert_string_equal(out, "abcd");
}

static void test_tags(void **state)
{
	char out[NVTX_TAGS_BYTES], small[24];

	(void)state;
	nvtx_tags(NULL, NULL, out, sizeof(out));
	assert_string_equal(out, "nvtx");
	nvtx_tags("solver", "io", out, sizeof(out));
	assert_string_equal(out, "nvtx,nvtx.domain:solver,nvtx.category:io");
	nvtx_tags("a,b", NULL, out, sizeof(out));
	assert_string_equal(out, "nvtx,nvtx.domain:a;b");
	/* The domain fits, the category would not: it is left out whole. */
	nvtx_tags("x", "a long category", small, sizeof(small));
	assert_string_equal(small, "nvtx,nvtx.domain:x");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_wide_to_utf8),
		cmocka_unit_test(test_invalid_code_points_replaced),
		cmocka_unit_test(test_cut_at_a_character),
		cmocka_unit_test(test_tags),
	};

	return cmocka_run_group_tests_name("nvtx_names", tests, NULL, NULL);
}
