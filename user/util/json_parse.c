/* Strict JSON (RFC 8259) pull parsing, bounded in depth and string size: the text is not trusted. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/json_parse.h"
#include "util/utf8.h"

void sb_json_init(struct sb_json *j, const char *text, size_t len)
{
	memset(j, 0, sizeof(*j));
	j->text = text;
	j->len = len;
}

void sb_json_free(struct sb_json *j)
{
	free(j->str);
	j->str = NULL;
	j->str_len = j->str_cap = 0;
}

static int fail(struct sb_json *j, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Record a cause at the current offset; the first one wins. Returns -EINVAL. */
static int fail(struct sb_json *j, const char *fmt, ...)
{
	char cause[128];
	va_list ap;

	if (j->why[0])
		return -EINVAL;
	va_start(ap, fmt);
	vsnprintf(cause, sizeof(cause), fmt, ap);
	va_end(ap);
	snprintf(j->why, sizeof(j->why), "invalid JSON at byte %zu: %s", j->pos, cause);
	return -EINVAL;
}

static void skip_ws(struct sb_json *j)
{
	while (j->pos < j->len) {
		switch (j->text[j->pos]) {
		case ' ':
		case '\t':
		case '\n':
		case '\r':
			j->pos++;
			continue;
		}
		return;
	}
}

/* The next byte, or -1 at the end of the text. */
static int cur(const struct sb_json *j)
{
	return j->pos < j->len ? (unsigned char)j->text[j->pos] : -1;
}

enum sb_json_kind sb_json_peek(struct sb_json *j)
{
	skip_ws(j);
	switch (cur(j)) {
	case '{':
		return SB_JSON_OBJECT;
	case '[':
		return SB_JSON_ARRAY;
	case '"':
		return SB_JSON_STRING;
	case '-':
	case '0' ... '9':
		return SB_JSON_NUMBER;
	case 't':
		return SB_JSON_TRUE;
	case 'f':
		return SB_JSON_FALSE;
	case 'n':
		return SB_JSON_NULL;
	}
	return SB_JSON_BAD;
}

int sb_json_enter(struct sb_json *j, enum sb_json_kind kind)
{
	enum sb_json_kind k = sb_json_peek(j);

	if (k != kind || (k != SB_JSON_OBJECT && k != SB_JSON_ARRAY))
		return fail(j, "expected %s", kind == SB_JSON_OBJECT ? "an object" :
				    kind == SB_JSON_ARRAY ? "an array" : "a container");
	/* Recursive descent, ours and the caller's, must stay shallow whatever the text. */
	if (j->depth >= SB_JSON_MAX_DEPTH)
		return fail(j, "nested deeper than %d levels", SB_JSON_MAX_DEPTH);
	j->depth++;
	j->has_items &= ~(1ull << (j->depth - 1));
	j->pos++;
	return 0;
}

/*
 * Before the next element of the container at the current depth: 1 when one
 * follows (its separator consumed), 0 when the container closed (close is its
 * closing byte).
 */
static int next_element(struct sb_json *j, char close)
{
	uint64_t bit;

	if (!j->depth)
		return fail(j, "not inside an object or array");
	bit = 1ull << (j->depth - 1);
	skip_ws(j);
	if (cur(j) == close) {
		j->pos++;
		j->depth--;
		return 0;
	}
	if (j->has_items & bit) {
		if (cur(j) != ',')
			return fail(j, "expected ',' or '%c'", close);
		j->pos++;
		skip_ws(j);
	}
	j->has_items |= bit;
	return 1;
}

int sb_json_item(struct sb_json *j)
{
	int r = next_element(j, ']');

	/* "[1,]" is not JSON: a separator promises an element. */
	if (r > 0 && cur(j) == ']')
		return fail(j, "expected a value after ','");
	return r;
}

int sb_json_member(struct sb_json *j, const char **key)
{
	int r = next_element(j, '}');

	if (r <= 0)
		return r;
	if (cur(j) != '"')
		return fail(j, "expected a member name");
	r = sb_json_string(j, key);
	if (r)
		return r;
	skip_ws(j);
	if (cur(j) != ':')
		return fail(j, "expected ':' after a member name");
	j->pos++;
	return 1;
}

/* ---- strings ---- */

static int put_byte(struct sb_json *j, unsigned char c)
{
	size_t cap;
	char *s;

	/* Room for SB_JSON_MAX_STRING bytes and the NUL, never more. */
	if (j->str_len == j->str_cap) {
		if (j->str_cap > SB_JSON_MAX_STRING)
			return fail(j, "string longer than %u bytes", SB_JSON_MAX_STRING);
		cap = j->str_cap ? j->str_cap * 2 : 64;
		if (cap > SB_JSON_MAX_STRING + 1)
			cap = SB_JSON_MAX_STRING + 1;
		s = realloc(j->str, cap);
		if (!s)
			return -ENOMEM;
		j->str = s;
		j->str_cap = cap;
	}
	j->str[j->str_len++] = (char)c;
	return 0;
}

static int put_code_point(struct sb_json *j, uint32_t cp)
{
	unsigned char b[4];
	int n, i, r = 0;

	if (cp < 0x80) {
		b[0] = (unsigned char)cp;
		n = 1;
	} else if (cp < 0x800) {
		b[0] = (unsigned char)(0xc0 | cp >> 6);
		b[1] = (unsigned char)(0x80 | (cp & 0x3f));
		n = 2;
	} else if (cp < 0x10000) {
		b[0] = (unsigned char)(0xe0 | cp >> 12);
		b[1] = (unsigned char)(0x80 | (cp >> 6 & 0x3f));
		b[2] = (unsigned char)(0x80 | (cp & 0x3f));
		n = 3;
	} else {
		b[0] = (unsigned char)(0xf0 | cp >> 18);
		b[1] = (unsigned char)(0x80 | (cp >> 12 & 0x3f));
		b[2] = (unsigned char)(0x80 | (cp >> 6 & 0x3f));
		b[3] = (unsigned char)(0x80 | (cp & 0x3f));
		n = 4;
	}
	for (i = 0; i < n && !r; i++)
		r = put_byte(j, b[i]);
	return r;
}

/* Four hex digits after "\u"; pos is at the 'u'. */
static int hex4(struct sb_json *j, uint32_t *v)
{
	int i, c;

	if (j->len - j->pos < 5)
		return fail(j, "truncated \\u escape");
	*v = 0;
	for (i = 1; i <= 4; i++) {
		c = (unsigned char)j->text[j->pos + i];
		if (c >= '0' && c <= '9')
			c -= '0';
		else if (c >= 'a' && c <= 'f')
			c -= 'a' - 10;
		else if (c >= 'A' && c <= 'F')
			c -= 'A' - 10;
		else
			return fail(j, "bad \\u escape");
		*v = *v << 4 | (uint32_t)c;
	}
	j->pos += 5;
	return 0;
}

/* "\uXXXX", with "\uD8xx\uDCxx" surrogate pairs joined; pos is at the 'u'. */
static int unicode_escape(struct sb_json *j)
{
	uint32_t hi, lo;
	int r;

	r = hex4(j, &hi);
	if (r)
		return r;
	/* A NUL would cut every C string made from this one short. */
	if (!hi)
		return fail(j, "\\u0000 in a string");
	if (hi >= 0xdc00 && hi <= 0xdfff)
		return fail(j, "unpaired low surrogate \\u%04x", hi);
	if (hi < 0xd800 || hi > 0xdbff)
		return put_code_point(j, hi);
	if (j->len - j->pos < 2 || j->text[j->pos] != '\\' || j->text[j->pos + 1] != 'u')
		return fail(j, "unpaired high surrogate \\u%04x", hi);
	j->pos++;
	r = hex4(j, &lo);
	if (r)
		return r;
	if (lo < 0xdc00 || lo > 0xdfff)
		return fail(j, "high surrogate \\u%04x not followed by a low one", hi);
	return put_code_point(j, 0x10000 + ((hi - 0xd800) << 10) + (lo - 0xdc00));
}

static int escape(struct sb_json *j)
{
	static const char from[] = "\"\\/bfnrt", to[] = "\"\\/\b\f\n\r\t";
	const char *e;
	int c;

	j->pos++;
	c = cur(j);
	if (c == 'u')
		return unicode_escape(j);
	e = c > 0 ? strchr(from, c) : NULL;
	if (!e)
		return fail(j, "bad escape in a string");
	j->pos++;
	return put_byte(j, (unsigned char)to[e - from]);
}

int sb_json_string(struct sb_json *j, const char **s)
{
	size_t start;
	int c, r = 0;

	if (sb_json_peek(j) != SB_JSON_STRING)
		return fail(j, "expected a string");
	start = j->pos++;
	j->str_len = 0;
	while (!r) {
		c = cur(j);
		if (c < 0) {
			j->pos = start;
			return fail(j, "unterminated string");
		}
		if (c == '"')
			break;
		if (c < 0x20)
			return fail(j, "control character in a string");
		if (c == '\\') {
			r = escape(j);
			continue;
		}
		r = put_byte(j, (unsigned char)c);
		j->pos++;
	}
	if (r)
		return r;
	r = put_byte(j, 0);
	if (r)
		return r;
	j->str_len--;
	/*
	 * Escapes always produce whole sequences, so checking the decoded
	 * string checks the raw bytes between them.
	 */
	if (!sb_utf8_valid(j->str)) {
		j->pos = start;
		return fail(j, "string is not valid UTF-8");
	}
	j->pos++;
	*s = j->str;
	return 0;
}

/* ---- numbers and literals ---- */

static bool is_digit(int c)
{
	return c >= '0' && c <= '9';
}

/* Digits while they last; false when there was none. */
static bool digits(struct sb_json *j)
{
	size_t start = j->pos;

	while (is_digit(cur(j)))
		j->pos++;
	return j->pos > start;
}

int sb_json_number(struct sb_json *j, int64_t *v, bool *integer)
{
	uint64_t acc = 0, limit;
	bool neg, overflow = false;
	size_t start, i;

	if (sb_json_peek(j) != SB_JSON_NUMBER)
		return fail(j, "expected a number");
	start = j->pos;
	neg = cur(j) == '-';
	j->pos += neg;
	if (cur(j) == '0')
		j->pos++;
	else if (!digits(j))
		return fail(j, "bad number");
	for (i = start + neg; i < j->pos; i++) {
		if (acc > (UINT64_MAX - 9) / 10)
			overflow = true;
		acc = acc * 10 + (uint64_t)(j->text[i] - '0');
	}
	*integer = true;
	if (cur(j) == '.') {
		j->pos++;
		if (!digits(j))
			return fail(j, "bad number");
		*integer = false;
	}
	if (cur(j) == 'e' || cur(j) == 'E') {
		j->pos++;
		if (cur(j) == '+' || cur(j) == '-')
			j->pos++;
		if (!digits(j))
			return fail(j, "bad number");
		*integer = false;
	}
	if (!*integer)
		return 0;
	limit = neg ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX;
	if (overflow || acc > limit) {
		j->pos = start;
		return fail(j, "integer out of the int64 range");
	}
	*v = neg ? (int64_t)(0 - acc) : (int64_t)acc;
	return 0;
}

static int literal(struct sb_json *j, const char *word)
{
	size_t n = strlen(word);

	if (j->len - j->pos < n || memcmp(j->text + j->pos, word, n))
		return fail(j, "bad literal (expected %s)", word);
	j->pos += n;
	return 0;
}

static int skip_container(struct sb_json *j, enum sb_json_kind kind)
{
	const char *key;
	int r;

	r = sb_json_enter(j, kind);
	while (!r) {
		r = kind == SB_JSON_OBJECT ? sb_json_member(j, &key) : sb_json_item(j);
		if (r <= 0)
			return r;
		r = sb_json_skip(j);
	}
	return r;
}

int sb_json_skip(struct sb_json *j)
{
	const char *s;
	int64_t v;
	bool integer;

	switch (sb_json_peek(j)) {
	case SB_JSON_OBJECT:
	case SB_JSON_ARRAY:
		return skip_container(j, sb_json_peek(j));
	case SB_JSON_STRING:
		return sb_json_string(j, &s);
	case SB_JSON_NUMBER:
		return sb_json_number(j, &v, &integer);
	case SB_JSON_TRUE:
		return literal(j, "true");
	case SB_JSON_FALSE:
		return literal(j, "false");
	case SB_JSON_NULL:
		return literal(j, "null");
	case SB_JSON_BAD:
		break;
	}
	return fail(j, cur(j) < 0 ? "unexpected end of the text" : "expected a value");
}

int sb_json_end(struct sb_json *j)
{
	skip_ws(j);
	if (j->pos < j->len)
		return fail(j, "unexpected data after the end of the document");
	return 0;
}
