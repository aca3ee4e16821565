/* --ranks, --include, --exclude: one parser and one filter for every command listing regions. */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/filter.h"

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return (x > y) - (x < y);
}

/* A rank at *s: decimal digits only, below SB_MAX_RANK; advances *s. */
static int parse_one(const char **s, uint32_t *rank)
{
	uint64_t v = 0;

	if (!isdigit((unsigned char)**s))
		return -EINVAL;
	for (; isdigit((unsigned char)**s); (*s)++) {
		v = v * 10 + (uint64_t)(**s - '0');
		if (v >= SB_MAX_RANK)
			return -ERANGE;
	}
	*rank = (uint32_t)v;
	return 0;
}

/* Add lo..hi to the array; -ENOMEM. */
static int add_range(uint32_t **r, size_t *n, size_t *cap, uint32_t lo, uint32_t hi)
{
	uint64_t need = *n + (uint64_t)(hi - lo) + 1;
	uint32_t *g;

	if (need > *cap) {
		*cap = need * 2;
		g = realloc(*r, *cap * sizeof(**r));
		if (!g)
			return -ENOMEM;
		*r = g;
	}
	for (uint64_t v = lo; v <= hi; v++)
		(*r)[(*n)++] = (uint32_t)v;
	return 0;
}

/* Sort and drop repeats. */
static void sort_unique(uint32_t *r, size_t *n)
{
	size_t i, k = 0;

	qsort(r, *n, sizeof(*r), cmp_u32);
	for (i = 0; i < *n; i++)
		if (!k || r[k - 1] != r[i])
			r[k++] = r[i];
	*n = k;
}

int sb_rank_list_parse(const char *s, uint32_t **ranks, size_t *n, struct sb_error *err)
{
	const char *p = s;
	uint32_t *r = NULL, lo, hi;
	size_t cnt = 0, cap = 0;
	int e;

	for (;;) {
		e = parse_one(&p, &lo);
		hi = lo;
		if (!e && *p == '-') {
			p++;
			e = parse_one(&p, &hi);
			if (!e && hi < lo) {
				free(r);
				return sb_fail(err, EINVAL, "'%s': the range %u-%u runs backwards",
					       s, lo, hi);
			}
		}
		if (e == -ERANGE) {
			free(r);
			return sb_fail(err, EINVAL, "'%s': ranks go up to %u", s, SB_MAX_RANK - 1);
		}
		if (e || (*p && *p != ',')) {
			free(r);
			return sb_fail(err, EINVAL, "'%s' is not a rank list like 0-3,7", s);
		}
		if (add_range(&r, &cnt, &cap, lo, hi)) {
			free(r);
			return sb_fail(err, ENOMEM, "'%s': out of memory", s);
		}
		if (!*p++)
			break;
	}
	sort_unique(r, &cnt);
	*ranks = r;
	*n = cnt;
	return 0;
}

int sb_filter_set_ranks(struct sb_filter *f, const char *arg, struct sb_error *err)
{
	struct sb_error why = { .msg = "" };
	uint32_t *r;
	size_t n;
	int e;

	if (f->ranks)
		return sb_fail(err, EINVAL, "--ranks: given twice; list every rank in one");
	e = sb_rank_list_parse(arg, &r, &n, &why);
	if (e)
		return sb_fail(err, -e, "--ranks: %s", why.msg);
	f->ranks = r;
	f->n_ranks = n;
	f->ranks_arg = arg;
	return 0;
}

/* Compile regex for option opt into re; -EINVAL with regerror()'s words. */
static int set_regex(regex_t *re, bool *has, const char *opt, const char *regex,
		     struct sb_error *err)
{
	char why[256];
	int e;

	if (*has)
		return sb_fail(err, EINVAL, "%s: given twice; join the patterns with |", opt);
	e = regcomp(re, regex, REG_EXTENDED | REG_NOSUB);
	if (e) {
		regerror(e, re, why, sizeof(why));
		regfree(re);
		return sb_fail(err, EINVAL, "%s: '%s' is not an extended regular expression: %s",
			       opt, regex, why);
	}
	*has = true;
	return 0;
}

int sb_filter_set_include(struct sb_filter *f, const char *regex, struct sb_error *err)
{
	return set_regex(&f->include, &f->has_include, "--include", regex, err);
}

int sb_filter_set_exclude(struct sb_filter *f, const char *regex, struct sb_error *err)
{
	return set_regex(&f->exclude, &f->has_exclude, "--exclude", regex, err);
}

bool sb_filter_active(const struct sb_filter *f)
{
	return f && (f->ranks || f->has_include || f->has_exclude);
}

bool sb_filter_rank(const struct sb_filter *f, uint32_t rank)
{
	return !f || !f->ranks || bsearch(&rank, f->ranks, f->n_ranks, sizeof(rank), cmp_u32);
}

bool sb_filter_region(const struct sb_filter *f, const char *name)
{
	if (!f)
		return true;
	if (f->has_include && regexec(&f->include, name, 0, NULL, 0))
		return false;
	return !(f->has_exclude && !regexec(&f->exclude, name, 0, NULL, 0));
}

/* The listed ranks must exist: a typo would otherwise print an empty report. */
static int check_ranks(const struct sb_filter *f, const struct sb_profile *p,
		       struct sb_error *err)
{
	uint32_t have = sb_profile_rank_count(p);

	if (!f->ranks || f->ranks[f->n_ranks - 1] < have)
		return 0;
	return sb_fail(err, EINVAL, "--ranks %s: rank %u is not in the profile, which has %u rank%s",
		       f->ranks_arg ? f->ranks_arg : "", f->ranks[f->n_ranks - 1], have,
		       have == 1 ? "" : "s");
}

/*
 * Move the kept pairs' events to the front, in order; drops parent ids when a
 * region went. to[i] is index row i's new number, -1 when it went.
 */
static void keep_pairs(const struct sb_filter *f, struct sb_profile *p, int64_t *to)
{
	size_t stride = sb_counter_stride(sb_profile_counter_slots(p));
	bool region_gone = false;
	size_t i, k = 0, e = 0;

	for (i = 0; i < p->n_pairs; i++) {
		struct sb_pair pr = p->pairs[i];

		to[i] = -1;
		if (!sb_filter_rank(f, pr.rank))
			continue;
		if (!sb_filter_region(f, p->regions[pr.region].name)) {
			region_gone = true;
			continue;
		}
		to[i] = (int64_t)k;
		if (p->events && pr.count)
			memmove(&p->events[e], &p->events[pr.offset], pr.count * sizeof(*p->events));
		if (p->counters && pr.count)
			memmove(&p->counters[e * stride], &p->counters[pr.offset * stride],
				pr.count * stride * sizeof(*p->counters));
		pr.offset = e;
		e += pr.count;
		p->pairs[k++] = pr;
	}
	p->n_pairs = k;
	if (p->events)
		p->n_events = e;
	/* A kept call's parent may be gone: the times say which kept call holds it. */
	if (region_gone && (p->columns & SB_COL_PARENT_ID)) {
		p->columns &= ~(unsigned)SB_COL_PARENT_ID;
		for (i = 0; p->events && i < p->n_events; i++)
			p->events[i].parent_id = -1;
	}
}

static void free_region(struct sb_region *r)
{
	free(r->name);
	free(r->source_file);
	free(r->source_text);
	free(r->tags);
}

/* Drop the filtered-out regions from the table, so no command lists them; -ENOMEM. */
static int keep_regions(const struct sb_filter *f, struct sb_profile *p)
{
	uint32_t *to;
	size_t i, k = 0;

	if (!f->has_include && !f->has_exclude)
		return 0;
	to = malloc((p->n_regions ? p->n_regions : 1) * sizeof(*to));
	if (!to)
		return -ENOMEM;
	for (i = 0; i < p->n_regions; i++) {
		if (!sb_filter_region(f, p->regions[i].name)) {
			free_region(&p->regions[i]);
			continue;
		}
		to[i] = (uint32_t)k;
		p->regions[k++] = p->regions[i];
	}
	p->n_regions = k;
	/* keep_pairs() ran first: every pair left is of a kept region. */
	for (i = 0; i < p->n_pairs; i++)
		p->pairs[i].region = to[p->pairs[i].region];
	free(to);
	return 0;
}

static void keep_threads(const struct sb_filter *f, struct sb_profile *p)
{
	size_t i, k = 0;

	for (i = 0; i < p->n_threads; i++) {
		if (sb_filter_rank(f, p->threads[i].rank))
			p->threads[k++] = p->threads[i];
		else
			free(p->threads[i].name);
	}
	p->n_threads = k;
}

int sb_filter_apply(const struct sb_filter *f, struct sb_profile *p, struct sb_error *err)
{
	size_t n_pairs = p->n_pairs;
	int64_t *to;
	int r;

	if (!sb_filter_active(f))
		return 0;
	r = check_ranks(f, p, err);
	if (r)
		return r;
	to = malloc((n_pairs ? n_pairs : 1) * sizeof(*to));
	if (!to)
		return sb_fail(err, ENOMEM, "filtering the index rows: out of memory");
	keep_pairs(f, p, to);
	r = sb_filter_kinds(f, p, to, n_pairs, err);
	free(to);
	if (r)
		return r;
	keep_threads(f, p);
	r = keep_regions(f, p);
	if (r)
		return sb_fail(err, -r, "filtering the regions: %s", strerror(-r));
	return 0;
}

void sb_filter_free(struct sb_filter *f)
{
	free(f->ranks);
	if (f->has_include)
		regfree(&f->include);
	if (f->has_exclude)
		regfree(&f->exclude);
	*f = (struct sb_filter){ 0 };
}
