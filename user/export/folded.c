/* Folded stacks ("a;b;c 42"), the input of flamegraph.pl, inferno and speedscope, with region paths as the outermost frames. */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "export/samples_export.h"
#include "analysis/samples_report.h"

struct line {
	char *text;
	uint64_t weight;
};

/* The format has no escapes: a ";" would split a frame, a newline a line. */
static void put_name(FILE *f, const char *s)
{
	const unsigned char *u;

	for (u = (const unsigned char *)s; *u; u++) {
		if (*u == ';')
			fputc(':', f);
		else if (*u < 0x20 || *u == 0x7f)
			fputc(' ', f);
		else
			fputc(*u, f);
	}
}

/* Node i's frames from the root down, joined by ";"; malloc'd. */
static char *node_text(const struct sb_stack_tree *t, uint32_t i, uint32_t *chain)
{
	char buf[32], *text = NULL;
	size_t len = 0, d, n = 0;
	FILE *m;

	for (; i != 0; i = t->nodes[i].parent)
		chain[n++] = i;
	m = open_memstream(&text, &len);
	if (!m)
		return NULL;
	for (d = n; d > 0; d--) {
		if (d < n)
			fputc(';', m);
		put_name(m, sb_stack_tree_label(t, chain[d - 1], buf, sizeof(buf)));
		if (t->nodes[chain[d - 1]].kind == SB_TN_KERNEL)
			fputs("_[k]", m);
	}
	if (fclose(m)) {
		free(text);
		return NULL;
	}
	return text;
}

/* What stopped at node i: its weight less its children's. */
static uint64_t self_weight(const struct sb_stack_tree *t, uint32_t i)
{
	uint64_t w = t->nodes[i].weight;
	uint32_t c;

	for (c = t->nodes[i].first_child; c != SB_TREE_NONE; c = t->nodes[c].next_sibling)
		w -= t->nodes[c].weight;
	return w;
}

static int cmp_line(const void *a, const void *b)
{
	return strcmp(((const struct line *)a)->text, ((const struct line *)b)->text);
}

static int collect(const struct sb_stack_tree *t, struct line *v, size_t *n)
{
	uint32_t *chain, i;
	uint64_t w;

	chain = malloc(((size_t)t->max_depth + 1) * sizeof(*chain));
	if (!chain)
		return -ENOMEM;
	*n = 0;
	for (i = 1; i < t->n_nodes; i++) {
		w = self_weight(t, i);
		if (!w)
			continue;
		v[*n].text = node_text(t, i, chain);
		if (!v[*n].text) {
			free(chain);
			return -ENOMEM;
		}
		v[(*n)++].weight = w;
	}
	free(chain);
	return 0;
}

/* Different frames can print alike (a region and a function of one name): one line each. */
static void print_merged(FILE *f, struct line *v, size_t n)
{
	uint64_t w;
	size_t i, j;

	qsort(v, n, sizeof(*v), cmp_line);
	for (i = 0; i < n; i = j) {
		w = 0;
		for (j = i; j < n && !strcmp(v[j].text, v[i].text); j++)
			w += v[j].weight;
		fprintf(f, "%s %" PRIu64 "\n", v[i].text, w);
	}
}

int sb_export_folded(FILE *f, const struct sb_profile *p, enum sb_sample_kind kind,
		     struct sb_error *err)
{
	struct sb_stack_tree t;
	struct line *v;
	size_t n = 0, i;
	int r;

	/* An empty file would read as "nothing ran": say what is missing instead. */
	r = sb_samples_require(p, 1u << kind, err);
	if (r)
		return r;
	r = sb_stack_tree_build(&t, p, kind, sb_profile_rank_count(p) > 1);
	if (r)
		return sb_fail(err, r, "out of memory");
	v = calloc(t.n_nodes, sizeof(*v));
	r = v ? collect(&t, v, &n) : -ENOMEM;
	if (!r)
		print_merged(f, v, n);
	for (i = 0; v && i < t.n_nodes; i++)
		free(v[i].text);
	free(v);
	sb_stack_tree_free(&t);
	if (r)
		return sb_fail(err, r, "out of memory");
	return ferror(f) ? sb_fail(err, EIO, "write error") : 0;
}
