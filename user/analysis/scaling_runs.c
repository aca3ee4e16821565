/* Scaling studies: which runs make one study, in what order, and what each run's n is. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/scaling_impl.h"

void sb_scaling_program(const struct sb_profile *p, char *buf, size_t size)
{
	const struct sb_meta *m = sb_profile_meta(p, "command");
	const char *cmd = NULL, *base;
	size_t i, len;

	for (i = 0; i < p->n_processes && !cmd; i++)
		if (p->processes[i].rank == 0 && p->processes[i].command &&
		    p->processes[i].command[0])
			cmd = p->processes[i].command;
	/* Under a launcher the command is mpiexec's: only a one-rank run's names the program. */
	if (!cmd && m && !m->is_int && m->s && sb_profile_rank_count(p) <= 1)
		cmd = m->s;
	if (!cmd)
		cmd = "";
	len = strcspn(cmd, " ");
	for (base = cmd + len; base > cmd && base[-1] != '/'; base--)
		;
	len -= (size_t)(base - cmd);
	if (len >= size)
		len = size - 1;
	memcpy(buf, base, len);
	buf[len] = '\0';
}

/* Threads of a one-rank run: OMP_NUM_THREADS when it was set, else the threads seen. */
static uint32_t thread_count(const struct sb_profile *p)
{
	const struct sb_meta *m = sb_profile_meta(p, "omp_num_threads");
	uint32_t n = 0;
	size_t i;

	if (m && m->is_int && m->i > 0 && m->i <= UINT32_MAX)
		return (uint32_t)m->i;
	for (i = 0; i < p->n_threads; i++)
		n += p->threads[i].rank == 0;
	return n ? n : 1;
}

static int cmp_runs(const void *pa, const void *pb)
{
	const struct sb_scaling_run *a = pa, *b = pb;

	return (a->n > b->n) - (a->n < b->n);
}

/* Refuse a study that compares different programs. */
static int same_program(const struct sb_scaling_input *in, size_t n, struct sb_error *err)
{
	char first[256] = "", prog[256];
	const char *first_path = NULL;
	size_t i;

	for (i = 0; i < n; i++) {
		sb_scaling_program(in[i].p, prog, sizeof(prog));
		if (!prog[0])
			continue;
		if (!first_path) {
			memcpy(first, prog, sizeof(first));
			first_path = in[i].path;
		} else if (strcmp(prog, first)) {
			return sb_fail_at(err, EINVAL, in[i].path, "a run of '%s', not of '%s' as %s",
					  prog, first, first_path);
		}
	}
	return 0;
}

/* Runs in ascending n; two runs of one n are refused, naming both. */
static int distinct_counts(struct sb_scaling *s, struct sb_error *err)
{
	size_t i;

	qsort(s->runs, s->n_runs, sizeof(*s->runs), cmp_runs);
	for (i = 1; i < s->n_runs; i++)
		if (s->runs[i].n == s->runs[i - 1].n)
			return sb_fail_at(err, EINVAL, s->runs[i].path,
					  "%u %s, as %s has: give one run per count",
					  s->runs[i].n, sb_scaling_unit(s, s->runs[i].n),
					  s->runs[i - 1].path);
	return 0;
}

int sb_scaling_runs(struct sb_scaling *s, const struct sb_scaling_input *in, size_t n,
		    struct sb_error *err)
{
	size_t i;

	if (n < 2)
		return sb_fail_at(err, EINVAL, n ? in[0].path : "scaling",
				  "a study needs two runs or more, at different counts");
	if (same_program(in, n, err))
		return -EINVAL;
	s->runs = calloc(n, sizeof(*s->runs));
	if (!s->runs)
		return sb_fail(err, ENOMEM, "scaling: out of memory");
	s->n_runs = n;
	s->by_threads = true;
	for (i = 0; i < n; i++) {
		s->runs[i].path = in[i].path;
		s->runs[i].p = in[i].p;
		s->runs[i].ranks = sb_profile_rank_count(in[i].p);
		if (!s->runs[i].ranks)
			s->runs[i].ranks = 1;
		s->by_threads &= s->runs[i].ranks == 1;
	}
	for (i = 0; i < n; i++)
		s->runs[i].n = s->by_threads ? thread_count(in[i].p) : s->runs[i].ranks;
	return distinct_counts(s, err);
}

const char *sb_scaling_unit(const struct sb_scaling *s, uint32_t n)
{
	if (s->by_threads)
		return n == 1 ? "thread" : "threads";
	return n == 1 ? "rank" : "ranks";
}
