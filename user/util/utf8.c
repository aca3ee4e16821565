/* UTF-8 checks by hand: names come from traced processes and files, never trusted. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "util/utf8.h"

size_t sb_utf8_seq(const unsigned char *s)
{
	uint32_t cp;
	size_t n, i;

	if (s[0] < 0x80)
		return 1;
	if (s[0] < 0xc2)
		return 0;
	if (s[0] < 0xe0) {
		n = 2;
		cp = s[0] & 0x1f;
	} else if (s[0] < 0xf0) {
		n = 3;
		cp = s[0] & 0x0f;
	} else if (s[0] < 0xf5) {
		n = 4;
		cp = s[0] & 0x07;
	} else {
		return 0;
	}
	/* A NUL fails the continuation test, so this never reads past the end. */
	for (i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	/* Leads from 0xc2 rule out 2-byte overlongs; the rest are caught here. */
	if ((n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000) || cp > 0x10ffff ||
	    (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return n;
}

static bool is_control(unsigned char c)
{
	return c < 0x20 || c == 0x7f;
}

bool sb_utf8_valid(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t n;

	while (*p) {
		n = sb_utf8_seq(p);
		if (!n)
			return false;
		p += n;
	}
	return true;
}

bool sb_utf8_printable(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t n;

	while (*p) {
		n = sb_utf8_seq(p);
		if (!n || (n == 1 && is_control(*p)))
			return false;
		p += n;
	}
	return true;
}

char *sb_utf8_repaired(const char *s)
{
	static const char repl[] = "\xef\xbf\xbd";	/* U+FFFD */
	const unsigned char *u;
	size_t len = 0, n;
	char *out, *o;

	for (u = (const unsigned char *)s; *u; u += n ? n : 1) {
		n = sb_utf8_seq(u);
		len += n ? n : 3;
	}
	out = malloc(len + 1);
	if (!out)
		return NULL;
	o = out;
	for (u = (const unsigned char *)s; *u; u += n ? n : 1) {
		n = sb_utf8_seq(u);
		memcpy(o, n ? (const char *)u : repl, n ? n : 3);
		o += n ? n : 3;
	}
	*o = '\0';
	return out;
}

void sb_utf8_sanitize(char *s)
{
	unsigned char *p = (unsigned char *)s;
	size_t n;

	while (*p) {
		n = sb_utf8_seq(p);
		if (!n || (n == 1 && is_control(*p))) {
			*p++ = '?';
			continue;
		}
		p += n;
	}
}

/* Append one tag, JSON-escaped; the input is sanitized, so only quotes and backslashes. */
static char *append_tag(char *out, const char *tag, size_t len, bool first)
{
	size_t i;

	if (!first)
		*out++ = ',';
	*out++ = '"';
	for (i = 0; i < len; i++) {
		if (tag[i] == '"' || tag[i] == '\\')
			*out++ = '\\';
		*out++ = tag[i];
	}
	*out++ = '"';
	return out;
}

char *sb_tags_to_json(const char *csv)
{
	char *copy, *json, *out;
	const char *p, *end;
	bool first = true;
	size_t len;

	copy = strdup(csv ? csv : "");
	if (!copy)
		return NULL;
	sb_utf8_sanitize(copy);
	json = malloc(strlen(copy) * 3 + 3);
	if (!json) {
		free(copy);
		return NULL;
	}
	out = json;
	*out++ = '[';
	for (p = copy; *p; p = *end ? end + 1 : end) {
		end = strchr(p, ',');
		if (!end)
			end = p + strlen(p);
		while (p < end && *p == ' ')
			p++;
		len = (size_t)(end - p);
		while (len && p[len - 1] == ' ')
			len--;
		if (!len)
			continue;
		out = append_tag(out, p, len, first);
		first = false;
	}
	*out++ = ']';
	*out = 0;
	free(copy);
	return json;
}
