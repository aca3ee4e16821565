/* CPU sample aggregates follow their samples to the region path their time gives (samples.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "model/samples.h"

static int key_cmp(const void *a, const void *b)
{
	const struct sb_sample *x = a, *y = b;

	if (x->kind != y->kind)
		return x->kind < y->kind ? -1 : 1;
	if (x->rank != y->rank)
		return x->rank < y->rank ? -1 : 1;
	if (x->thread != y->thread)
		return x->thread < y->thread ? -1 : 1;
	if (x->path != y->path)
		return x->path < y->path ? -1 : 1;
	if (x->ustack != y->ustack)
		return x->ustack < y->ustack ? -1 : 1;
	return (x->kstack > y->kstack) - (x->kstack < y->kstack);
}

static struct sb_sample key_of(const struct sb_sample_move *m, int64_t path)
{
	return (struct sb_sample){ .kind = SB_SAMPLE_CPU, .rank = m->rank, .thread = m->thread,
				   .path = path, .ustack = m->ustack, .kstack = m->kstack };
}

/* Equal keys summed into one; empty CPU aggregates left out. Returns those kept. */
static size_t fold(struct sb_sample *v, size_t n)
{
	size_t i = 0, j, kept = 0;

	while (i < n) {
		v[kept] = v[i];
		for (j = i + 1; j < n && !key_cmp(&v[j], &v[i]); j++) {
			v[kept].count += v[j].count;
			v[kept].ns += v[j].ns;
		}
		if (v[kept].count || v[kept].kind != SB_SAMPLE_CPU)
			kept++;
		i = j;
	}
	return kept;
}

int sb_samples_move_cpu(struct sb_samples *s, const struct sb_sample_move *m, size_t n,
			uint64_t *refused)
{
	size_t have = s->n_samples, k, i;
	struct sb_sample key, *v, *at;

	if (!n)
		return 0;
	v = malloc((have + n) * sizeof(*v));
	if (!v)
		return -ENOMEM;
	if (have)
		memcpy(v, s->samples, have * sizeof(*v));
	/*
	 * Summed first: rows the kernel kept apart can be one row here (two
	 * region paths it had not named both read as -1), and a search that
	 * found only one of them would refuse a move its twin has the count for.
	 */
	qsort(v, have, sizeof(*v), key_cmp);
	have = fold(v, have);
	k = have;
	for (i = 0; i < n; i++) {
		key = key_of(&m[i], m[i].from);
		at = bsearch(&key, v, have, sizeof(*v), key_cmp);
		if (!at || !at->count) {
			(*refused)++;
			continue;
		}
		at->count--;
		/* Added after the sorted ones, summed with its like by fold(). */
		v[k] = key_of(&m[i], m[i].to);
		v[k++].count = 1;
	}
	qsort(v, k, sizeof(*v), key_cmp);
	free(s->samples);
	s->samples = v;
	s->n_samples = fold(v, k);
	return 0;
}
