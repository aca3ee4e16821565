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
/* True when s is valid UTF-8 (control characters are valid: JSON and HDF5 strings may hold them). */
bool sb_utf8_valid(const char *s);
/* True when s is valid UTF-8 without control characters: text safe to show on one line. */
bool sb_utf8_printable(const char *s);
/*
 * A malloc'd copy of s with each byte that is not valid UTF-8 replaced by
 * U+FFFD, so a reader keeps the rest of the text; NULL when out of memory.
 */
char *sb_utf8_repaired(const char *s);
/* Replace every byte that is not valid UTF-8, and every control character, by '?'. */
void sb_utf8_sanitize(char *s);
/* "io, mpi" -> ["io","mpi"] (trimmed, empty items dropped); returns a malloc'd string or NULL. */
char *sb_tags_to_json(const char *csv);

#endif
