/*
 * `export pstats`: the call tree as Python's pstats file (what cProfile and
 * scope-profiler's to_pstats write), for python -m pstats, snakeviz,
 * gprof2dot: one function per region path, its caller the path above it.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/calltree.h"
#include "analysis/calltree_mpi.h"
#include "export/export.h"
#include "export/marshal.h"
#include "util/utf8.h"

#define NS_PER_S 1e9

/* What each node is called: its region's name, its whole path when another node shares that name. */
struct names {
	char **of;		/* per node, valid UTF-8, malloc'd */
	uint32_t n;
	char file[256];		/* the program, or "scope-bpf" */
};

static int cmp_by_name(const void *pa, const void *pb, void *arg)
{
	const struct sb_calltree *t = arg;
	uint32_t a = *(const uint32_t *)pa, b = *(const uint32_t *)pb;
	int c = strcmp(sb_calltree_name(t, a), sb_calltree_name(t, b));

	return c ? c : (a > b) - (a < b);
}

/* Node i's region names from the top level joined by ';', as report's CSV names a path. */
static char *path_of(const struct sb_calltree *t, uint32_t i)
{
	size_t len = 0, at, l;
	uint32_t j;
	char *s;

	for (j = i; j; j = t->nodes[j].parent)
		len += strlen(sb_calltree_name(t, j)) + 1;
	s = malloc(len);
	if (!s)
		return NULL;
	at = len - 1;
	s[at] = '\0';
	for (j = i; j; j = t->nodes[j].parent) {
		l = strlen(sb_calltree_name(t, j));
		at -= l;
		memcpy(s + at, sb_calltree_name(t, j), l);
		if (at)
			s[--at] = ';';
	}
	return s;
}

/* Mark in dup[] the nodes whose region name another node has too. */
static int find_dups(const struct sb_calltree *t, bool *dup)
{
	uint32_t *by, i;

	by = malloc((size_t)t->n_nodes * sizeof(*by));
	if (!by)
		return -ENOMEM;
	for (i = 0; i < t->n_nodes; i++)
		by[i] = i;
	qsort_r(by + 1, t->n_nodes - 1, sizeof(*by), cmp_by_name, (void *)t);
	for (i = 2; i < t->n_nodes; i++)
		if (!strcmp(sb_calltree_name(t, by[i]), sb_calltree_name(t, by[i - 1])))
			dup[by[i]] = dup[by[i - 1]] = true;
	free(by);
	return 0;
}

static void program_name(const struct sb_profile *p, char *buf, size_t size)
{
	const char *cmd = sb_export_rank_command(p, 0), *base;
	size_t len = strcspn(cmd, " ");

	for (base = cmd + len; base > cmd && base[-1] != '/'; base--)
		;
	len -= (size_t)(base - cmd);
	if (!len || len >= size) {
		snprintf(buf, size, "scope-bpf");
		return;
	}
	memcpy(buf, base, len);
	buf[len] = '\0';
}

static void names_free(struct names *nm)
{
	uint32_t i;

	for (i = 0; nm->of && i < nm->n; i++)
		free(nm->of[i]);
	free(nm->of);
}

static int names_build(struct names *nm, const struct sb_calltree *t, const struct sb_profile *p)
{
	bool *dup = calloc(t->n_nodes, sizeof(*dup));
	uint32_t i;
	char *raw;
	int r;

	nm->n = t->n_nodes;
	nm->of = calloc(t->n_nodes, sizeof(*nm->of));
	r = dup && nm->of ? find_dups(t, dup) : -ENOMEM;
	for (i = 1; !r && i < t->n_nodes; i++) {
		raw = dup[i] ? path_of(t, i) : strdup(sb_calltree_name(t, i));
		/* marshal.load() refuses a str that is not UTF-8. */
		nm->of[i] = raw ? sb_utf8_repaired(raw) : NULL;
		free(raw);
		if (!nm->of[i])
			r = -ENOMEM;
	}
	program_name(p, nm->file, sizeof(nm->file));
	if (!sb_utf8_valid(nm->file))
		snprintf(nm->file, sizeof(nm->file), "scope-bpf");
	free(dup);
	return r;
}

/* (file, line, name): the key pstats knows a function by. */
static void key(FILE *f, const struct names *nm, uint32_t i)
{
	sb_marshal_tuple(f, 3);
	sb_marshal_str(f, nm->file);
	sb_marshal_int(f, 0);
	sb_marshal_str(f, nm->of[i]);
}

/* (primitive calls, calls, own seconds, cumulative seconds): a function's or an edge's. */
static void counts(FILE *f, const struct sb_ct_node *n)
{
	sb_marshal_int(f, (int64_t)n->calls);
	sb_marshal_int(f, (int64_t)n->calls);
	sb_marshal_float(f, (double)n->own / NS_PER_S);
	sb_marshal_float(f, (double)n->total / NS_PER_S);
}

/* One function: its key, its counts and its callers, the one path above it. */
static void function(FILE *f, const struct sb_calltree *t, const struct names *nm, uint32_t i)
{
	const struct sb_ct_node *n = &t->nodes[i];

	key(f, nm, i);
	sb_marshal_tuple(f, 5);
	counts(f, n);
	sb_marshal_dict_begin(f);
	if (n->parent) {
		key(f, nm, n->parent);
		sb_marshal_tuple(f, 4);
		counts(f, n);
	}
	sb_marshal_dict_end(f);
}

int sb_export_pstats(FILE *f, const struct sb_profile *p, struct sb_error *err)
{
	struct sb_ct_opts o = { .rank = -1, .sort = SB_CT_SORT_TOTAL };
	struct names nm = { 0 };
	struct sb_calltree t;
	uint32_t i;
	int r;

	r = sb_export_need_events(p, err);
	if (r)
		return r;
	r = sb_calltree_build(&t, p, &o, err);
	/* MPI call regions by function, as report shows them. */
	if (!r && sb_calltree_group_mpi(&t, false, SB_CT_SORT_TOTAL))
		r = sb_fail(err, ENOMEM, "out of memory");
	if (!r && names_build(&nm, &t, p))
		r = sb_fail(err, ENOMEM, "out of memory");
	if (!r) {
		sb_marshal_dict_begin(f);
		for (i = sb_calltree_next(&t, 0); i != SB_CT_NONE; i = sb_calltree_next(&t, i))
			function(f, &t, &nm, i);
		sb_marshal_dict_end(f);
	}
	names_free(&nm);
	sb_calltree_free(&t);
	return r;
}
