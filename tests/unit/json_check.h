/* A strict JSON parser (RFC 8259) for the unit tests, building a small tree to check values. */
#ifndef SB_TEST_JSON_CHECK_H
#define SB_TEST_JSON_CHECK_H

#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>


enum jt { J_NULL, J_BOOL, J_NUM, J_STR, J_ARR, J_OBJ };

struct jv {
	enum jt t;
	bool b;
	double num;
	char *raw;		/* a number's text, to check its precision */
	char *str;
	struct jv *items;	/* array elements or object values */
	char **keys;		/* object keys, parallel to items */
	size_t n;
};

struct jp {
	const char *s;
	int depth;
};

static inline bool jp_value(struct jp *j, struct jv *v);

static inline void jv_free(struct jv *v)
{
	size_t i;

	for (i = 0; i < v->n; i++) {
		jv_free(&v->items[i]);
		if (v->keys)
			free(v->keys[i]);
	}
	free(v->items);
	free(v->keys);
	free(v->raw);
	free(v->str);
	memset(v, 0, sizeof(*v));
}

static inline void jp_ws(struct jp *j)
{
	while (*j->s == ' ' || *j->s == '\n' || *j->s == '\t' || *j->s == '\r')
		j->s++;
}

static inline int jp_hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if ((c | 0x20) >= 'a' && (c | 0x20) <= 'f')
		return (c | 0x20) - 'a' + 10;
	return -1;
}

/* Length of the valid UTF-8 sequence at s, 0 when invalid. */
static inline size_t jp_utf8_len(const unsigned char *s)
{
	size_t n, i;
	uint32_t cp;

	if (s[0] < 0x80)
		return 1;
	if ((s[0] & 0xe0) == 0xc0)
		n = 2, cp = s[0] & 0x1f;
	else if ((s[0] & 0xf0) == 0xe0)
		n = 3, cp = s[0] & 0x0f;
	else if ((s[0] & 0xf8) == 0xf0)
		n = 4, cp = s[0] & 0x07;
	else
		return 0;
	for (i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	if ((n == 2 && cp < 0x80) || (n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000) ||
	    cp > 0x10ffff || (cp >= 0xd800 && cp < 0xe000))
		return 0;
	return n;
}

static inline bool jp_string(struct jp *j, char **out)
{
	char *buf = malloc(strlen(j->s) + 1), *o = buf;
	int h[4], k;
	size_t len;

	if (*j->s++ != '"')
		goto bad;
	while (*j->s != '"') {
		if ((unsigned char)*j->s < 0x20)
			goto bad;
		if (*j->s != '\\') {
			len = jp_utf8_len((const unsigned char *)j->s);
			if (!len)
				goto bad;
			memcpy(o, j->s, len);
			o += len;
			j->s += len;
			continue;
		}
		j->s++;
		if (*j->s == 'u') {
			for (k = 0; k < 4; k++)
				if ((h[k] = jp_hexval(j->s[1 + k])) < 0)
					goto bad;
			/* The exporters only escape control characters: ASCII is enough here. */
			*o++ = (char)(h[2] << 4 | h[3]);
			j->s += 5;
			continue;
		}
		if (!*j->s || !strchr("\"\\/bfnrt", *j->s))
			goto bad;
		*o++ = *j->s == 'n' ? '\n' : *j->s == 't' ? '\t' : *j->s == 'r' ? '\r' :
		       *j->s == 'b' ? '\b' : *j->s == 'f' ? '\f' : *j->s;
		j->s++;
	}
	j->s++;
	*o = '\0';
	*out = buf;
	return true;
bad:
	free(buf);
	return false;
}

static inline bool jp_digits(struct jp *j)
{
	const char *start = j->s;

	while (*j->s >= '0' && *j->s <= '9')
		j->s++;
	return j->s > start;
}

static inline bool jp_number(struct jp *j, struct jv *v)
{
	const char *start = j->s;

	if (*j->s == '-')
		j->s++;
	if (*j->s == '0')
		j->s++;
	else if (!(*j->s >= '1' && *j->s <= '9') || !jp_digits(j))
		return false;
	if (*j->s == '.') {
		j->s++;
		if (!jp_digits(j))
			return false;
	}
	if (*j->s == 'e' || *j->s == 'E') {
		j->s++;
		if (*j->s == '+' || *j->s == '-')
			j->s++;
		if (!jp_digits(j))
			return false;
	}
	v->t = J_NUM;
	v->raw = strndup(start, (size_t)(j->s - start));
	v->num = strtod(v->raw, NULL);
	return true;
}

static inline bool jp_items(struct jp *j, struct jv *v, char close)
{
	struct jv item;
	char *key = NULL;

	j->s++;
	jp_ws(j);
	if (*j->s == close) {
		j->s++;
		return true;
	}
	for (;;) {
		jp_ws(j);
		if (close == '}') {
			if (!jp_string(j, &key))
				return false;
			jp_ws(j);
			if (*j->s++ != ':') {
				free(key);
				return false;
			}
		}
		memset(&item, 0, sizeof(item));
		if (!jp_value(j, &item)) {
			free(key);
			jv_free(&item);
			return false;
		}
		v->items = realloc(v->items, (v->n + 1) * sizeof(*v->items));
		if (close == '}')
			v->keys = realloc(v->keys, (v->n + 1) * sizeof(*v->keys));
		v->items[v->n] = item;
		if (close == '}')
			v->keys[v->n] = key;
		v->n++;
		jp_ws(j);
		if (*j->s == close) {
			j->s++;
			return true;
		}
		if (*j->s++ != ',')
			return false;
	}
}

static inline bool jp_value(struct jp *j, struct jv *v)
{
	bool ok;

	jp_ws(j);
	if (++j->depth > 64)
		return false;
	if (*j->s == '{') {
		v->t = J_OBJ;
		ok = jp_items(j, v, '}');
	} else if (*j->s == '[') {
		v->t = J_ARR;
		ok = jp_items(j, v, ']');
	} else if (*j->s == '"') {
		v->t = J_STR;
		ok = jp_string(j, &v->str);
	} else if (!strncmp(j->s, "null", 4)) {
		ok = (j->s += 4, true);
	} else if (!strncmp(j->s, "true", 4) || !strncmp(j->s, "false", 5)) {
		v->t = J_BOOL;
		v->b = *j->s == 't';
		j->s += v->b ? 4 : 5;
		ok = true;
	} else {
		ok = jp_number(j, v);
	}
	j->depth--;
	return ok;
}

/* Parse text as exactly one JSON value; fails the test when it is not. */
static inline void json_parse(const char *text, struct jv *v)
{
	struct jp j = { .s = text };

	memset(v, 0, sizeof(*v));
	if (!jp_value(&j, v))
		fail_msg("invalid JSON near byte %zu: %.60s", (size_t)(j.s - text), j.s);
	jp_ws(&j);
	if (*j.s)
		fail_msg("text after the JSON value at byte %zu", (size_t)(j.s - text));
}

/* Whether text is exactly one JSON value, white space around it aside. */
static inline bool json_valid(const char *text)
{
	struct jp j = { .s = text };
	struct jv v = { 0 };
	bool ok = jp_value(&j, &v);

	jv_free(&v);
	jp_ws(&j);
	return ok && !*j.s;
}

/* Member key of object o; NULL when o is no object or lacks it. */
static inline const struct jv *jget(const struct jv *o, const char *key)
{
	size_t i;

	if (!o || o->t != J_OBJ)
		return NULL;
	for (i = 0; i < o->n; i++)
		if (!strcmp(o->keys[i], key))
			return &o->items[i];
	return NULL;
}

/* Member key of o, which must be there with type t. */
static inline const struct jv *jneed(const struct jv *o, const char *key, enum jt t)
{
	const struct jv *v = jget(o, key);

	if (!v)
		fail_msg("missing member \"%s\"", key);
	if (v->t != t)
		fail_msg("member \"%s\" has type %d, not %d", key, v->t, t);
	return v;
}

static inline const char *jstr(const struct jv *o, const char *key)
{
	return jneed(o, key, J_STR)->str;
}

/* An integer member, written without fraction or exponent. */
static inline int64_t jint(const struct jv *o, const char *key)
{
	const struct jv *v = jneed(o, key, J_NUM);

	if (strpbrk(v->raw, ".eE"))
		fail_msg("member \"%s\" = %s is not an integer", key, v->raw);
	return strtoll(v->raw, NULL, 10);
}

#endif
