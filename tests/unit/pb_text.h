/*
 * Protobuf files read back the way a user would check them: `protoc
 * --decode` against our .proto (proto/), its text output parsed into a
 * tree the tests walk. Independent of the code that wrote the file.
 */
#ifndef SB_TEST_PB_TEXT_H
#define SB_TEST_PB_TEXT_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <zlib.h>

/* A field: a message (val NULL, kids its fields in order) or a value as protoc prints it. */
struct pbt {
	char *key;
	char *val;
	struct pbt *kids;
	size_t n;
};

static inline struct pbt *pbt_add(struct pbt *m, const char *key, size_t len)
{
	struct pbt *k;

	m->kids = realloc(m->kids, (m->n + 1) * sizeof(*m->kids));
	assert_non_null(m->kids);
	k = &m->kids[m->n++];
	*k = (struct pbt){ .key = strndup(key, len) };
	assert_non_null(k->key);
	return k;
}

/* A quoted protoc string, its C escapes (octal for bytes past ASCII) undone. */
static inline char *pbt_unquote(const char *s)
{
	char *out = malloc(strlen(s) + 1), *o = out;

	assert_non_null(out);
	for (s++; *s && *s != '"'; s++) {
		if (*s != '\\') {
			*o++ = *s;
			continue;
		}
		s++;
		if (*s >= '0' && *s <= '7') {
			*o++ = (char)strtol((char[4]){ s[0], s[1], s[2], 0 }, NULL, 8);
			s += 2;
		} else {
			*o++ = *s == 'n' ? '\n' : *s == 't' ? '\t' : *s;
		}
	}
	*o = '\0';
	return out;
}

/* The fields of one message from *text to its closing brace (or the end). */
static inline void pbt_parse_into(struct pbt *m, char **text)
{
	char *line, *end, *colon;
	struct pbt *k;

	while (**text) {
		line = *text;
		end = strchrnul(line, '\n');
		*text = *end ? end + 1 : end;
		*end = '\0';
		while (*line == ' ')
			line++;
		if (!*line)
			continue;
		if (!strcmp(line, "}"))
			return;
		if (end > line + 2 && !strcmp(end - 2, " {")) {
			k = pbt_add(m, line, (size_t)(end - 2 - line));
			pbt_parse_into(k, text);
			continue;
		}
		colon = strstr(line, ": ");
		if (!colon)
			fail_msg("protoc output line '%s' is not 'key: value'", line);
		k = pbt_add(m, line, (size_t)(colon - line));
		k->val = colon[2] == '"' ? pbt_unquote(colon + 2) : strdup(colon + 2);
	}
}

static inline void pbt_free(struct pbt *m)
{
	size_t i;

	for (i = 0; i < m->n; i++)
		pbt_free(&m->kids[i]);
	free(m->kids);
	free(m->key);
	free(m->val);
}

/* Decode file bin as message type of proto/<proto> with protoc; fails the test unless it can. */
static inline void pbt_decode(struct pbt *root, const char *type, const char *proto,
			      const char *bin)
{
	char cmd[1536], *text = NULL, *at;
	size_t cap = 0, len = 0, got;
	FILE *f;
	int st;

	snprintf(cmd, sizeof(cmd), "protoc --proto_path=proto --decode=%s proto/%s < '%s'", type,
		 proto, bin);
	f = popen(cmd, "r");
	assert_non_null(f);
	for (;;) {
		if (len + 65536 > cap) {
			cap = cap ? cap * 2 : 1 << 20;
			text = realloc(text, cap);
			assert_non_null(text);
		}
		got = fread(text + len, 1, cap - len - 1, f);
		if (!got)
			break;
		len += got;
	}
	text[len] = '\0';
	st = pclose(f);
	if (st)
		fail_msg("%s: exit status %d", cmd, st);
	*root = (struct pbt){ 0 };
	at = text;
	pbt_parse_into(root, &at);
	free(text);
}

/* The first field key of m; NULL when m has none. */
static inline const struct pbt *pbt_get(const struct pbt *m, const char *key)
{
	size_t i;

	for (i = 0; m && i < m->n; i++)
		if (!strcmp(m->kids[i].key, key))
			return &m->kids[i];
	return NULL;
}

static inline int64_t pbt_int(const struct pbt *m, const char *key, int64_t missing)
{
	const struct pbt *v = pbt_get(m, key);

	if (!v)
		return missing;
	assert_non_null(v->val);
	return strtoll(v->val, NULL, 10);
}

static inline const char *pbt_str(const struct pbt *m, const char *key)
{
	const struct pbt *v = pbt_get(m, key);

	return v && v->val ? v->val : NULL;
}

/* The i-th field key of m (its position among those fields), NULL past the last. */
static inline const struct pbt *pbt_nth(const struct pbt *m, const char *key, size_t i)
{
	size_t k;

	for (k = 0; k < m->n; k++)
		if (!strcmp(m->kids[k].key, key) && !i--)
			return &m->kids[k];
	return NULL;
}

/* The entry of list key whose id is id; fails the test when none is. */
static inline const struct pbt *pbt_by_id(const struct pbt *m, const char *key, int64_t id)
{
	const struct pbt *e;
	size_t i;

	for (i = 0; (e = pbt_nth(m, key, i)); i++)
		if (pbt_int(e, "id", 0) == id)
			return e;
	fail_msg("%s id %lld does not resolve", key, (long long)id);
	return NULL;
}

/* Gunzip file gz into file raw with zlib, as pprof reads its files. */
static inline void pbt_gunzip(const char *gz, const char *raw)
{
	char buf[4096];
	gzFile in = gzopen(gz, "rb");
	FILE *out = fopen(raw, "w");
	int n;

	assert_non_null(in);
	assert_non_null(out);
	while ((n = gzread(in, buf, sizeof(buf))) > 0)
		assert_int_equal(fwrite(buf, 1, (size_t)n, out), (size_t)n);
	assert_int_equal(n, 0);
	assert_int_equal(gzclose(in), Z_OK);
	assert_int_equal(fclose(out), 0);
}

/* ---- pprof's Profile ---- */

static inline const char *pprof_string(const struct pbt *prof, int64_t i)
{
	const struct pbt *s = pbt_nth(prof, "string_table", (size_t)i);

	if (!s)
		fail_msg("string index %lld is past the table", (long long)i);
	return s->val;
}

/* The function name of location id; its function and mapping must resolve. */
static inline const char *pprof_location_name(const struct pbt *prof, int64_t id)
{
	const struct pbt *loc = pbt_by_id(prof, "location", id), *line = pbt_get(loc, "line");
	const struct pbt *fn = pbt_by_id(prof, "function", pbt_int(line, "function_id", 0));

	if (pbt_int(loc, "mapping_id", 0))
		pbt_by_id(prof, "mapping", pbt_int(loc, "mapping_id", 0));
	return pprof_string(prof, pbt_int(fn, "name", 0));
}

#endif
