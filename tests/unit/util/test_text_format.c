/* Unit tests of the report text helpers: time units at their edges, alignment, JSON, CSV. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "util/text_format.h"

static void expect_ns(int64_t ns, const char *want)
{
	char buf[FORMAT_NS_MAX];
	int len;

	len = format_ns(buf, sizeof(buf), ns);
	assert_string_equal(buf, want);
	assert_int_equal(len, strlen(want));
}

/* Capture what fn writes to a FILE as a string the caller frees. */
static char *capture(void (*fn)(FILE *, const char *), const char *arg)
{
	char *out = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);

	assert_non_null(f);
	fn(f, arg);
	assert_int_equal(fclose(f), 0);
	return out;
}

static void expect_json(const char *in, const char *want)
{
	char *out = capture(format_json_string, in);

	assert_string_equal(out, want);
	free(out);
}

static void expect_csv(const char *in, const char *want)
{
	char *out = capture(format_csv_field, in);

	assert_string_equal(out, want);
	free(out);
}

static void test_ns_below_a_microsecond_are_whole_nanoseconds(void **state)
{
	(void)state;
	expect_ns(0, "0 ns");
	expect_ns(1, "1 ns");
	expect_ns(812, "812 ns");
	expect_ns(999, "999 ns");
}

static void test_ns_three_significant_digits_up_to_a_second(void **state)
{
	(void)state;
	expect_ns(1000, "1.00 us");
	expect_ns(1005, "1.01 us");
	expect_ns(12345, "12.3 us");
	expect_ns(123456, "123 us");
	expect_ns(1500000, "1.50 ms");
	expect_ns(4560000, "4.56 ms");
	expect_ns(45600000, "45.6 ms");
	expect_ns(456000000, "456 ms");
}

static void test_ns_rounding_moves_to_the_next_band_not_to_four_digits(void **state)
{
	(void)state;
	expect_ns(9994, "9.99 us");
	expect_ns(9995, "10.0 us");
	expect_ns(99949, "99.9 us");
	expect_ns(99950, "100 us");
	expect_ns(999499, "999 us");
	expect_ns(999500, "1.00 ms");
	expect_ns(999499999, "999 ms");
	expect_ns(999500000, "1.000 s");
}

static void test_ns_seconds_minutes_and_hours(void **state)
{
	(void)state;
	expect_ns(1234000000, "1.234 s");
	expect_ns(59000000000, "59.000 s");
	expect_ns(59999499999, "59.999 s");
	expect_ns(59999500000, "1m00s");
	expect_ns(60000000000, "1m00s");
	expect_ns(123000000000, "2m03s");
	expect_ns(3599000000000, "59m59s");
	expect_ns(3600000000000, "1h00m00s");
	expect_ns(3723000000000, "1h02m03s");
	expect_ns(100 * 3600000000000LL, "100h00m00s");
	expect_ns(INT64_MAX, "2562047h47m17s");
}

static void test_ns_negative_keeps_its_sign(void **state)
{
	(void)state;
	expect_ns(-1500, "-1.50 us");
	expect_ns(-999, "-999 ns");
	expect_ns(INT64_MIN, "-2562047h47m17s");
}

static void test_ns_short_buffer_truncates_safely(void **state)
{
	char buf[4];
	int len;

	(void)state;
	len = format_ns(buf, sizeof(buf), 12345);
	assert_int_equal(len, strlen("12.3 us"));
	assert_string_equal(buf, "12.");
}

static void test_pct_one_decimal_and_unknown_whole(void **state)
{
	char buf[16];

	(void)state;
	format_pct(buf, sizeof(buf), 1, 3);
	assert_string_equal(buf, "33.3%");
	format_pct(buf, sizeof(buf), 3, 2);
	assert_string_equal(buf, "150.0%");
	format_pct(buf, sizeof(buf), 0, 10);
	assert_string_equal(buf, "0.0%");
	format_pct(buf, sizeof(buf), 5, 0);
	assert_string_equal(buf, "-");
	format_pct(buf, sizeof(buf), 5, -1);
	assert_string_equal(buf, "-");
}

static void right_9(FILE *f, const char *s)
{
	format_right(f, s, 9);
}

static void test_right_alignment_counts_code_points_not_bytes(void **state)
{
	char *out;

	(void)state;
	assert_int_equal(format_width(""), 0);
	assert_int_equal(format_width("12.3 us"), 7);
	assert_int_equal(format_width("├─ é"), 4);
	assert_int_equal(format_width("a\xff" "b"), 6);	/* shown as a\xffb */
	out = capture(right_9, "12.3 us");
	assert_string_equal(out, "  12.3 us");
	free(out);
	out = capture(right_9, "1.234 s");
	assert_int_equal(strlen(out), 9);
	free(out);
	out = capture(right_9, "└─ é");
	assert_string_equal(out, "     └─ é");
	free(out);
	/* Wider than the column: printed whole, never cut. */
	out = capture(right_9, "100h00m00s");
	assert_string_equal(out, "100h00m00s");
	free(out);
}

static void test_json_escapes_quotes_backslashes_and_controls(void **state)
{
	(void)state;
	expect_json("", "\"\"");
	expect_json("plain", "\"plain\"");
	expect_json("a\"b\\c", "\"a\\\"b\\\\c\"");
	expect_json("\n\t\r\b\f", "\"\\n\\t\\r\\b\\f\"");
	expect_json("\x01\x1f\x7f", "\"\\u0001\\u001f\\u007f\"");
	expect_json("a/b", "\"a/b\"");
}

static void test_json_passes_utf8_and_replaces_invalid_bytes(void **state)
{
	(void)state;
	expect_json("caf\xc3\xa9", "\"caf\xc3\xa9\"");
	expect_json("\xe6\x97\xa5\xe6\x9c\xac", "\"\xe6\x97\xa5\xe6\x9c\xac\"");
	expect_json("\xf0\x9f\x98\x80", "\"\xf0\x9f\x98\x80\"");
	expect_json("a\xff" "b", "\"a\\ufffdb\"");
	/* Overlong "/", a lone continuation, a truncated sequence, a surrogate. */
	expect_json("\xc0\xaf", "\"\\ufffd\\ufffd\"");
	expect_json("\x80", "\"\\ufffd\"");
	expect_json("\xe2\x82", "\"\\ufffd\\ufffd\"");
	expect_json("\xed\xa0\x80", "\"\\ufffd\\ufffd\\ufffd\"");
	expect_json("\xf4\x90\x80\x80", "\"\\ufffd\\ufffd\\ufffd\\ufffd\"");
}

static void expect_text(const char *in, const char *want)
{
	char *out = capture(format_text, in);

	assert_string_equal(out, want);
	assert_int_equal(format_width(in), format_width(want));
	free(out);
}

/* Hostile names as a profile may hold them: each must reach a terminal inert. */
static void test_text_escapes_every_control_character(void **state)
{
	(void)state;
	expect_text("plain", "plain");
	expect_text("a\x1b[6nb", "a\\x1b[6nb");
	expect_text("row\rforged\nrow", "row\\rforged\\nrow");
	expect_text("tab\tbel\x07" "del\x7f", "tab\\tbel\\x07del\\x7f");
	expect_text("\x01\x1f", "\\x01\\x1f");
	/* C1 as UTF-8 (U+009B is CSI), and the same byte alone, which is not UTF-8. */
	expect_text("a\xc2\x9b" "6n", "a\\u009b6n");
	expect_text("\xc2\x80\xc2\x9f", "\\u0080\\u009f");
	expect_text("a\x9b" "6n", "a\\x9b6n");
	expect_text("\xff\xc0\xaf\xe2\x82", "\\xff\\xc0\\xaf\\xe2\\x82");
	/* A backslash is text: the escapes need not round-trip, only be seen. */
	expect_text("a\\x1b", "a\\x1b");
}

static void test_text_keeps_valid_utf8_beyond_c1(void **state)
{
	(void)state;
	expect_text("caf\xc3\xa9", "caf\xc3\xa9");
	expect_text("\xe6\xbc\xa2\xe5\xad\x97", "\xe6\xbc\xa2\xe5\xad\x97");
	expect_text("\xc2\xa0nbsp", "\xc2\xa0nbsp");
	expect_text("\xf0\x9f\x98\x80", "\xf0\x9f\x98\x80");
	assert_int_equal(format_width("caf\xc3\xa9"), 4);
	assert_int_equal(format_width("\x1b"), 4);
	assert_int_equal(format_width("\xc2\x9b"), 6);
}

static void cut_12(FILE *f, const char *s)
{
	format_cut(f, s, 12);
}

static void test_cut_and_right_escape_and_count_the_escapes(void **state)
{
	char *out;

	(void)state;
	out = capture(right_9, "a\x1b");
	assert_string_equal(out, "    a\\x1b");
	free(out);
	out = capture(cut_12, "ab\n");
	assert_string_equal(out, "ab\\n");
	free(out);
	/* 4 + 3 + 4 columns: the escape that would straddle the head's end is left out. */
	out = capture(cut_12, "abcd\x1b" "efghijklmnopq\r");
	assert_string_equal(out, "abcd...pq\\r");
	free(out);
	out = capture(cut_12, "\x1b\x1b\x1b\x1b\x1b");
	assert_false(strchr(out, '\x1b'));
	assert_true(format_width(out) <= 12);
	free(out);
}

static void test_json_escapes_c1_so_a_terminal_shows_it(void **state)
{
	(void)state;
	expect_json("a\xc2\x9b" "6n", "\"a\\u009b6n\"");
	expect_json("\xc2\x85", "\"\\u0085\"");
	expect_json("\xc2\xa0", "\"\xc2\xa0\"");
}

static void test_csv_escapes_controls_and_stays_one_field(void **state)
{
	(void)state;
	expect_csv("a\x1b[6n", "a\\x1b[6n");
	expect_csv("x,\ny", "\"x,\\ny\"");
	expect_csv("q\"\r\"", "\"q\"\"\\r\"\"\"");
	expect_csv("=\x07", "\"'=\\x07\"");
	expect_csv("\xc2\x9b\x9b", "\\u009b\\x9b");
	expect_csv("caf\xc3\xa9,\x7f", "\"caf\xc3\xa9,\\x7f\"");
}

static void test_plural_is_one_word_for_one_only(void **state)
{
	(void)state;
	assert_string_equal(format_plural(0, "thread", "threads"), "threads");
	assert_string_equal(format_plural(1, "thread", "threads"), "thread");
	assert_string_equal(format_plural(2, "process", "processes"), "processes");
	assert_string_equal(format_plural(UINT64_MAX, "rank", "ranks"), "ranks");
}

static void test_csv_quotes_only_when_needed(void **state)
{
	(void)state;
	expect_csv("", "");
	expect_csv("solve", "solve");
	expect_csv("main;solve", "main;solve");
	expect_csv("a,b", "\"a,b\"");
	expect_csv("say \"hi\"", "\"say \"\"hi\"\"\"");
	expect_csv("two\nlines", "two\\nlines");
	expect_csv("cr\r", "cr\\r");
	expect_csv(" lead", "\" lead\"");
	expect_csv("trail ", "\"trail \"");
	expect_csv("in side", "in side");
}

static void test_csv_names_that_spreadsheets_would_run_are_text(void **state)
{
	(void)state;
	expect_csv("=HYPERLINK(\"http://x\")", "\"'=HYPERLINK(\"\"http://x\"\")\"");
	expect_csv("+cmd|' /C calc'!A0", "\"'+cmd|' /C calc'!A0\"");
	expect_csv("-2+3", "\"'-2+3\"");
	expect_csv("@SUM(A1)", "\"'@SUM(A1)\"");
	/* A leading tab or CR is escaped: the field starts with a backslash. */
	expect_csv("\t=1", "\\t=1");
	expect_csv("\r=1", "\\r=1");
	/* Only the first character counts. */
	expect_csv("a=b", "a=b");
	expect_csv("x-y", "x-y");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ns_below_a_microsecond_are_whole_nanoseconds),
		cmocka_unit_test(test_ns_three_significant_digits_up_to_a_second),
		cmocka_unit_test(test_ns_rounding_moves_to_the_next_band_not_to_four_digits),
		cmocka_unit_test(test_ns_seconds_minutes_and_hours),
		cmocka_unit_test(test_ns_negative_keeps_its_sign),
		cmocka_unit_test(test_ns_short_buffer_truncates_safely),
		cmocka_unit_test(test_pct_one_decimal_and_unknown_whole),
		cmocka_unit_test(test_right_alignment_counts_code_points_not_bytes),
		cmocka_unit_test(test_json_escapes_quotes_backslashes_and_controls),
		cmocka_unit_test(test_json_passes_utf8_and_replaces_invalid_bytes),
		cmocka_unit_test(test_text_escapes_every_control_character),
		cmocka_unit_test(test_text_keeps_valid_utf8_beyond_c1),
		cmocka_unit_test(test_cut_and_right_escape_and_count_the_escapes),
		cmocka_unit_test(test_json_escapes_c1_so_a_terminal_shows_it),
		cmocka_unit_test(test_csv_escapes_controls_and_stays_one_field),
		cmocka_unit_test(test_plural_is_one_word_for_one_only),
		cmocka_unit_test(test_csv_quotes_only_when_needed),
		cmocka_unit_test(test_csv_names_that_spreadsheets_would_run_are_text),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
