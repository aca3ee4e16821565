/* Text helpers for reports: units chosen so a column of times reads at a glance. */
#include <inttypes.h>
#include <stdbool.h>
#include <string.h>

#include "util/text_format.h"
#include "util/utf8.h"

#define NS_PER_US 1000ULL
#define NS_PER_MS 1000000ULL
#define NS_PER_S 1000000000ULL

/*
 * Three significant digits of x in unit; -1 when x rounds to 1000 units or
 * more, so the caller moves to the next unit instead of printing "1000 us".
 * Integer rounding keeps band edges exact (9.995 us is "10.0 us", not "9.99").
 */
static int fmt_sig3(char *buf, size_t n, uint64_t x, uint64_t unit, const char *name)
{
	uint64_t v;

	v = (x * 100 + unit / 2) / unit;
	if (v < 1000)
		return snprintf(buf, n, "%" PRIu64 ".%02" PRIu64 " %s", v / 100, v % 100, name);
	v = (x * 10 + unit / 2) / unit;
	if (v < 1000)
		return snprintf(buf, n, "%" PRIu64 ".%" PRIu64 " %s", v / 10, v % 10, name);
	v = (x + unit / 2) / unit;
	if (v < 1000)
		return snprintf(buf, n, "%" PRIu64 " %s", v, name);
	return -1;
}

/* Seconds with milliseconds below a minute, then minutes and hours. */
static int fmt_long(char *buf, size_t n, uint64_t x)
{
	uint64_t ms = (x + NS_PER_MS / 2) / NS_PER_MS;
	uint64_t s;

	if (ms < 60 * 1000)
		return snprintf(buf, n, "%" PRIu64 ".%03" PRIu64 " s", ms / 1000, ms % 1000);
	s = x / NS_PER_S + (x % NS_PER_S >= NS_PER_S / 2);
	if (s < 3600)
		return snprintf(buf, n, "%" PRIu64 "m%02" PRIu64 "s", s / 60, s % 60);
	return snprintf(buf, n, "%" PRIu64 "h%02" PRIu64 "m%02" PRIu64 "s",
			s / 3600, s / 60 % 60, s % 60);
}

static int fmt_magnitude(char *buf, size_t n, uint64_t x)
{
	int len;

	if (x < NS_PER_US)
		return snprintf(buf, n, "%" PRIu64 " ns", x);
	if (x < NS_PER_MS) {
		len = fmt_sig3(buf, n, x, NS_PER_US, "us");
		if (len >= 0)
			return len;
	}
	if (x < NS_PER_S) {
		len = fmt_sig3(buf, n, x, NS_PER_MS, "ms");
		if (len >= 0)
			return len;
	}
	return fmt_long(buf, n, x);
}

int format_ns(char *buf, size_t n, int64_t ns)
{
	char mag[FORMAT_NS_MAX];

	if (ns >= 0)
		return fmt_magnitude(buf, n, (uint64_t)ns);
	/* Only inconsistent input gets here; show it rather than hide it. */
	fmt_magnitude(mag, sizeof(mag), (uint64_t)(-(ns + 1)) + 1);
	return snprintf(buf, n, "-%s", mag);
}

int format_pct(char *buf, size_t n, int64_t part, int64_t whole)
{
	if (whole <= 0)
		return snprintf(buf, n, "-");
	return snprintf(buf, n, "%.1f%%", 100.0 * (double)part / (double)whole);
}

/*
 * Names, paths and metadata come from traced processes and from files anyone
 * can write: a terminal must never receive their control characters (ESC [6n
 * makes it type into the shell; CR and LF forge table rows). One unit of text
 * is one code point shown as is, or one of these shown as a visible escape:
 * C0 and DEL as \n, \r, \t or \x1b, C1 (U+0080..U+009F, which some terminals
 * obey like ESC [) as \u009b, and a byte that is not valid UTF-8 as \xff.
 */
#define ESC_MAX 7	/* "\u009f" */

struct unit {
	size_t len;		/* bytes of the source it stands for */
	size_t width;		/* columns it takes */
	char esc[ESC_MAX + 1];	/* the escape to print; "" when the source is safe as is */
};

static void unit_at(const unsigned char *u, struct unit *x)
{
	size_t n = sb_utf8_seq(u);

	x->esc[0] = '\0';
	x->len = n ? n : 1;
	x->width = 1;
	if (n == 1 && (*u < 0x20 || *u == 0x7f)) {
		if (*u == '\n' || *u == '\r' || *u == '\t')
			snprintf(x->esc, sizeof(x->esc), "\\%c",
				 *u == '\n' ? 'n' : *u == '\r' ? 'r' : 't');
		else
			snprintf(x->esc, sizeof(x->esc), "\\x%02x", *u);
	} else if (n == 2 && u[0] == 0xc2 && u[1] < 0xa0) {
		snprintf(x->esc, sizeof(x->esc), "\\u%04x", u[1]);
	} else if (!n) {
		snprintf(x->esc, sizeof(x->esc), "\\x%02x", *u);
	}
	if (x->esc[0])
		x->width = strlen(x->esc);
}

/* Print s[0..len) a unit at a time; runs of safe text go out in one write. */
static void put_text(FILE *f, const char *s, size_t len)
{
	const unsigned char *u = (const unsigned char *)s, *end = u + len, *run = u;
	struct unit x;

	while (u < end) {
		unit_at(u, &x);
		if (x.esc[0]) {
			fwrite(run, 1, (size_t)(u - run), f);
			fputs(x.esc, f);
			run = u + x.len;
		}
		u += x.len;
	}
	fwrite(run, 1, (size_t)(end - run), f);
}

void format_text(FILE *f, const char *s)
{
	put_text(f, s, strlen(s));
}

size_t format_width(const char *s)
{
	const unsigned char *u = (const unsigned char *)s;
	struct unit x;
	size_t w = 0;

	for (; *u; u += x.len) {
		unit_at(u, &x);
		w += x.width;
	}
	return w;
}

/*
 * Head and tail in whole units: an escape that would straddle a cut is left
 * out with it, so the result may be a few columns narrower than width.
 */
void format_cut(FILE *f, const char *s, size_t width)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t w = format_width(s), head, tail, done = 0;
	struct unit x;

	if (w <= width) {
		format_text(f, s);
		return;
	}
	head = (width - 3 + 1) / 2;
	tail = width - 3 - head;
	for (unit_at(u, &x); done + x.width <= head; unit_at(u, &x)) {
		done += x.width;
		u += x.len;
	}
	put_text(f, s, (size_t)(u - (const unsigned char *)s));
	fputs("...", f);
	for (; w - done > tail; u += x.len) {
		unit_at(u, &x);
		done += x.width;
	}
	format_text(f, (const char *)u);
}

void format_right(FILE *f, const char *s, size_t width)
{
	size_t w = format_width(s);

	for (; w < width; w++)
		fputc(' ', f);
	format_text(f, s);
}

void format_left(FILE *f, const char *s, size_t width)
{
	size_t w = format_width(s);

	format_text(f, s);
	for (; w < width; w++)
		fputc(' ', f);
}

static void json_char(FILE *f, unsigned char c)
{
	switch (c) {
	case '"':
		fputs("\\\"", f);
		return;
	case '\\':
		fputs("\\\\", f);
		return;
	case '\n':
		fputs("\\n", f);
		return;
	case '\r':
		fputs("\\r", f);
		return;
	case '\t':
		fputs("\\t", f);
		return;
	case '\b':
		fputs("\\b", f);
		return;
	case '\f':
		fputs("\\f", f);
		return;
	}
	if (c < 0x20 || c == 0x7f)
		fprintf(f, "\\u%04x", c);
	else
		fputc(c, f);
}

void format_json_string(FILE *f, const char *s)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t len;

	fputc('"', f);
	while (*u) {
		len = sb_utf8_seq(u);
		if (len == 1) {
			json_char(f, *u);
		} else if (len == 2 && u[0] == 0xc2 && u[1] < 0xa0) {
			/* C1 is legal JSON raw, but a terminal showing the output may obey it. */
			fprintf(f, "\\u%04x", u[1]);
		} else if (len) {
			/* Valid UTF-8 is legal JSON as is. */
			fwrite(u, 1, len, f);
		} else {
			/* Names come from traced processes; JSON parsers must not choke. */
			fputs("\\ufffd", f);
			len = 1;
		}
		u += len;
	}
	fputc('"', f);
}

/*
 * A spreadsheet runs a cell that starts with one of these as a formula
 * (=HYPERLINK(...), +cmd|...); region names come from the profiled code.
 * A leading tab or CR would be one too, but fields show them escaped.
 */
static bool formula_start(char c)
{
	return c && strchr("=+-@", c);
}

const char *format_plural(uint64_t n, const char *one, const char *many)
{
	return n == 1 ? one : many;
}

void format_csv_field(FILE *f, const char *s)
{
	bool formula = formula_start(s[0]);
	const char *q;

	/* Leading or trailing spaces are quoted too: some readers trim unquoted fields. */
	if (!formula && !strpbrk(s, ",\"") && s[0] != ' ' &&
	    (!s[0] || s[strlen(s) - 1] != ' ')) {
		format_text(f, s);
		return;
	}
	fputc('"', f);
	/* OWASP's defence: a leading quote makes the cell text. */
	if (formula)
		fputc('\'', f);
	/* CR and LF are escaped like every control character: quotes are all there is to double. */
	for (; (q = strchr(s, '"')); s = q + 1) {
		put_text(f, s, (size_t)(q - s));
		fputs("\"\"", f);
	}
	format_text(f, s);
	fputc('"', f);
}
