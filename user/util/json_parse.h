/* A strict, bounded pull parser for JSON text, driven by the caller's own recursive descent. */
#ifndef SB_JSON_H
#define SB_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define SB_JSON_MAX_DEPTH 64		/* nesting of arrays and objects */
#define SB_JSON_MAX_STRING (1u << 20)	/* bytes of one decoded string */

enum sb_json_kind {
	SB_JSON_BAD,		/* no value starts here (or the text has ended) */
	SB_JSON_OBJECT,
	SB_JSON_ARRAY,
	SB_JSON_STRING,
	SB_JSON_NUMBER,
	SB_JSON_TRUE,
	SB_JSON_FALSE,
	SB_JSON_NULL,
};

/*
 * Nothing is built: the caller asks for what it expects next (an object's
 * next member, an integer, ...) and gets -EINVAL with the cause in why when
 * the text says otherwise. Strings are decoded into one buffer that the next
 * string overwrites.
 */
struct sb_json {
	const char *text;
	size_t len;
	size_t pos;
	unsigned depth;
	uint64_t has_items;	/* bit d-1: the container at depth d has had an element */
	char *str;		/* the last string read: valid UTF-8, one NUL at the end */
	size_t str_len;
	size_t str_cap;
	char why[192];		/* the first error, with its byte offset */
};

void sb_json_init(struct sb_json *j, const char *text, size_t len);
void sb_json_free(struct sb_json *j);

/* The kind of the next value, after any whitespace; consumes nothing else. */
enum sb_json_kind sb_json_peek(struct sb_json *j);
/* Step into the object or array (kind) that comes next. */
int sb_json_enter(struct sb_json *j, enum sb_json_kind kind);
/*
 * Inside an object: 1 and the next member's name in *key (valid until the
 * next string is read), the ':' consumed; 0 when the object ended (and was
 * left); <0 on error.
 */
int sb_json_member(struct sb_json *j, const char **key);
/* Inside an array: 1 when an element follows, 0 when the array ended (and was left). */
int sb_json_item(struct sb_json *j);

int sb_json_string(struct sb_json *j, const char **s);
/*
 * Any number: *integer says whether it has no fraction or exponent; then *v
 * holds it (an integer outside int64 is an error).
 */
int sb_json_number(struct sb_json *j, int64_t *v, bool *integer);
/* Step over the next value, whatever it is. */
int sb_json_skip(struct sb_json *j);
/* Only whitespace may follow the value just read. */
int sb_json_end(struct sb_json *j);

#endif
