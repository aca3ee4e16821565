/* Tags of annotation regions, made from names the application chose (annot/tags.c). */
#ifndef SB_ANNOT_TAGS_H
#define SB_ANNOT_TAGS_H

#include <stddef.h>

/*
 * Append ",KEY:VALUE" to the tags in out (len bytes), commas in value made
 * ';' (tags are comma-separated); a tag that does not fit is left out whole.
 */
void annot_add_tag(char *out, size_t len, const char *key, const char *value);

#endif
