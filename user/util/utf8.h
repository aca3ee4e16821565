/* Text from untrusted sources made safe: UTF-8 validation and tag lists as JSON. */
#ifndef SB_TEXT_H
#define SB_TEXT_H

#include <stdbool.h>
#include <stddef.h>

/*
 * Bytes in the valid UTF-8 sequence at s, else 0: no overlong forms, no
 * surrogates, nothing past U+10FFFF. Never reads past a NUL.
 */
size_t sb_utf8_seq(const unsigned char *s);
/* True when s is valid UTF-8 without control characters. */
bool sb_utf8_valid(const char *s);
/* Replace every byte that is not valid UTF-8, and every control character, by '?'. */
void sb_utf8_sanitize(char *s);
/* "io, mpi" -> ["io","mpi"] (trimmed, empty items dropped); returns a malloc'd string or NULL. */
char *sb_tags_to_json(const char *csv);

#endif
