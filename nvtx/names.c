/* Names and tags of NVTX ranges (names.h): pure functions, unit-tested. */
#include <stdio.h>
#include <string.h>

#include "names.h"
#include "tags.h"

static size_t utf8_len(uint32_t c)
{
	return c < 0x80 ? 1 : c < 0x800 ? 2 : c < 0x10000 ? 3 : 4;
}

static void put_utf8(uint32_t c, char *out)
{
	unsigned char *o = (unsigned char *)out;
	size_t n = utf8_len(c), i;

	if (n == 1) {
		o[0] = (unsigned char)c;
		return;
	}
	for (i = n - 1; i > 0; i--, c >>= 6)
		o[i] = (unsigned char)(0x80 | (c & 0x3f));
	o[0] = (unsigned char)((0xf00u >> n) | c);
}

void nvtx_utf8(const wchar_t *w, char *out, size_t len)
{
	size_t at = 0, n;
	uint32_t c;

	if (!len)
		return;
	for (; w && *w; w++) {
		c = (uint32_t)*w;
		if ((c >= 0xd800 && c < 0xe000) || c > 0x10ffff)
			c = 0xfffd;
		n = utf8_len(c);
		if (at + n >= len)
			break;
		put_utf8(c, out + at);
		at += n;
	}
	out[at] = 0;
}

void nvtx_tags(const char *domain, const char *category, char *out, size_t len)
{
	snprintf(out, len, "nvtx");
	if (domain && *domain)
		annot_add_tag(out, len, "nvtx.domain", domain);
	if (category && *category)
		annot_add_tag(out, len, "nvtx.category", category);
}
