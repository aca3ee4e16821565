/* Names and tags of NVTX ranges, made from what the application passed (nvtx/names.c). */
#ifndef SB_NVTX_NAMES_H
#define SB_NVTX_NAMES_H

#include <stddef.h>
#include <stdint.h>
#include <wchar.h>

#define NVTX_NAME_BYTES 128	/* SCOPE_BPF_NAME_MAX and its NUL */
#define NVTX_TAGS_BYTES 128	/* what the recorder keeps of a site's tags */

/*
 * The UTF-8 of a wide (UTF-32) string in out, cut at a character boundary to
 * fit; a code point that is not one (a surrogate, past U+10FFFF) becomes
 * U+FFFD. out is "" for NULL.
 */
void nvtx_utf8(const wchar_t *w, char *out, size_t len);

/*
 * The tags of a range: "nvtx", then "nvtx.domain:DOMAIN" for a domain (NULL:
 * the default one) and "nvtx.category:CATEGORY" for a category (NULL: none);
 * a tag that does not fit in len is left out. Commas in a name become ';'
 * (tags are comma-separated).
 */
void nvtx_tags(const char *domain, const char *category, char *out, size_t len);

#endif
