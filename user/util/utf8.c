/* UTF-8 checks by hand: names come from traced processes and files, never trusted. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/text_format.h"
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

static bool valid(const char *s, bool controls)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t n;

	while (*p) {
		n = sb_utf8_seq(p);
		if (!n || (!controls && n == 1 && is_control(*p)))
			return false;
		p += n;
	}
	return true;
}

bool sb_utf8_valid(const char *s)
{
	return valid(s, true);
}

bool sb_utf8_printable(const char *s)
{
	return valid(s, false);
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

/* The input is sanitized first, so each tag is a plain JSON string. */
char *sb_tags_to_json(const char *csv)
{
	char *copy, *json = NULL, *tag, *save;
	bool first = true;
	size_t size, len;
	FILE *f;

	copy = strdup(csv ? csv : "");
	if (!copy)
		return NULL;
	sb_utf8_sanitize(copy);
	f = open_memstream(&json, &size);
	if (!f) {
		free(copy);
		return NULL;
	}
	fputc('[', f);
	for (tag = strtok_r(copy, ",", &save); tag; tag = strtok_r(NULL, ",", &save)) {
		tag += strspn(tag, " ");
		len = strlen(tag);
		while (len && tag[len - 1] == ' ')
			tag[--len] = 0;
		if (!len)
			continue;
		if (!first)
			fputc(',', f);
		format_json_string(f, tag);
		first = false;
	}
	fputc(']', f);
	free(copy);
	if (fclose(f)) {
		free(json);
		return NULL;
	}
	return json;
}
