/* The index rules of FORMAT.md, which every reader's result and every written file obey. */
#include <errno.h>
#include <stdlib.h>

#include "model/index_rules.h"
#include "util/error.h"

struct span {
	uint64_t key;
	uint64_t count;
	size_t row;
};

static int cmp_span(const void *a, const void *b)
{
	const struct span *x = a, *y = b;

	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	return x->row < y->row ? -1 : x->row > y->row;
}

static int check_rows(const struct sb_profile *p, bool *seen, char *why, size_t len)
{
	const struct sb_pair *q;
	size_t i;

	for (i = 0; i < p->n_pairs; i++) {
		q = &p->pairs[i];
		if (q->region >= p->n_regions)
			return sb_bad(why, len,
				      "index row %zu: region id %u out of range (%zu names)", i,
				      q->region, p->n_regions);
		if (q->rank >= SB_MAX_RANK)
			return sb_bad(why, len, "index row %zu: rank %u out of range", i, q->rank);
		if (!q->count)
			return sb_bad(why, len, "index row %zu has no events", i);
		/* An aggregate's rows count calls that were summed, not stored. */
		if (p->agg.on && (q->offset || p->n_events))
			return sb_bad(why, len, "index row %zu: an aggregate has no events", i);
		if (!p->agg.on && (q->offset > p->n_events || q->count > p->n_events - q->offset))
			return sb_bad(why, len,
				      "index row %zu: events %llu+%llu past the end of /events (%zu rows)",
				      i, (unsigned long long)q->offset,
				      (unsigned long long)q->count, p->n_events);
		seen[q->region] = true;
	}
	return 0;
}

/* Sorted by offset, neighbours must not overlap; no overlap + in range + full sum = exact cover. */
static int check_spans(const struct sb_profile *p, struct span *s, char *why, size_t len)
{
	uint64_t covered = 0;
	size_t i;

	for (i = 0; i < p->n_pairs; i++)
		s[i] = (struct span){ p->pairs[i].offset, p->pairs[i].count, i };
	qsort(s, p->n_pairs, sizeof(*s), cmp_span);
	for (i = 0; i < p->n_pairs; i++) {
		if (i && s[i].key < s[i - 1].key + s[i - 1].count)
			return sb_bad(why, len, "index rows %zu and %zu overlap", s[i - 1].row,
				      s[i].row);
		covered += s[i].count;
	}
	if (covered != p->n_events)
		return sb_bad(why, len, "index covers %llu of %zu events",
			      (unsigned long long)covered, p->n_events);
	return 0;
}

static int check_unique(const struct sb_profile *p, struct span *s, char *why, size_t len)
{
	const struct sb_pair *q;
	size_t i;

	for (i = 0; i < p->n_pairs; i++) {
		q = &p->pairs[i];
		s[i] = (struct span){ (uint64_t)q->rank << 32 | q->region, 0, i };
	}
	qsort(s, p->n_pairs, sizeof(*s), cmp_span);
	for (i = 1; i < p->n_pairs; i++) {
		if (s[i].key != s[i - 1].key)
			continue;
		q = &p->pairs[s[i].row];
		return sb_bad(why, len, "index rows %zu and %zu are both rank %u, region '%s'",
			      s[i - 1].row, s[i].row, q->rank, p->regions[q->region].name);
	}
	return 0;
}

int sb_profile_check_index(const struct sb_profile *p, char *why, size_t len)
{
	struct span *s;
	bool *seen;
	size_t i;
	int ret;

	s = malloc((p->n_pairs ? p->n_pairs : 1) * sizeof(*s));
	seen = calloc(p->n_regions ? p->n_regions : 1, sizeof(*seen));
	if (!s || !seen) {
		sb_bad(why, len, "out of memory");
		ret = -ENOMEM;
		goto out;
	}
	ret = check_rows(p, seen, why, len);
	if (ret)
		goto out;
	ret = p->agg.on ? 0 : check_spans(p, s, why, len);
	if (ret)
		goto out;
	ret = check_unique(p, s, why, len);
	if (ret)
		goto out;
	for (i = 0; i < p->n_regions; i++) {
		if (!seen[i]) {
			ret = sb_bad(why, len, "region '%s' has no index row", p->regions[i].name);
			goto out;
		}
	}
out:
	free(s);
	free(seen);
	return ret;
}
