/* Text helpers for reports: human time units, percentages, JSON strings, CSV fields. */
#ifndef SB_FORMAT_H
#define SB_FORMAT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Longest string format_ns() writes, without the NUL ("-9223372036854775808 ns" is shorter). */
#define FORMAT_NS_MAX 32

/*
 * Duration as a short human string with three significant digits below one
 * second ("812 ns", "12.3 us", "4.56 ms"), milliseconds in seconds ("1.234 s"),
 * then "2m03s" and "1h02m03s". Returns the length written, like snprintf.
 */
int format_ns(char *buf, size_t n, int64_t ns);

/* one when n is 1, else many: "1 thread", "0 threads", "2 processes". */
const char *format_plural(uint64_t n, const char *one, const char *many);

/* part/whole in percent with one decimal ("12.3%"); "-" when whole <= 0. */
int format_pct(char *buf, size_t n, int64_t part, int64_t whole);

/*
 * Print s for a terminal: valid UTF-8 as is, every control character as a
 * visible escape: \n, \r, \t, \x1b for the rest of C0 and DEL, \u009b for C1
 * (U+0080..U+009F), \xff for a byte that is not valid UTF-8. A backslash
 * stays one. Every text output prints names, paths and metadata through this
 * (or the helpers below, which escape the same way).
 */
void format_text(FILE *f, const char *s);

/* Display width of s as format_text() prints it: a column per code point or escape character. */
size_t format_width(const char *s);

/* Print s (escaped) right-aligned in width columns; never truncates. */
void format_right(FILE *f, const char *s, size_t width);

/* Print s (escaped) left-aligned in width columns, spaces after it; never truncates. */
void format_left(FILE *f, const char *s, size_t width);

/*
 * Print s (escaped) in at most width columns: whole when it fits, else its
 * head and tail around "...", since both ends tell names apart (a namespace, a
 * suffix). width is at least 5.
 */
void format_cut(FILE *f, const char *s, size_t width);

/* Print s as a JSON string with its quotes; invalid UTF-8 becomes U+FFFD, C1 \u0080..\u009f. */
void format_json_string(FILE *f, const char *s);

/*
 * Print s (escaped) as one CSV field (RFC 4180): quoted only when it must be.
 * A field starting with =, +, -, @ is quoted and prefixed with ' so a
 * spreadsheet shows it as text instead of running it as a formula.
 */
void format_csv_field(FILE *f, const char *s);

#endif
