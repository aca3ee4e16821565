/*
 * The timed CPU samples as `perf script` prints them, so that what reads its
 * output (speedscope, Firefox Profiler, FlameGraph's stackcollapse-perf.pl)
 * reads ours: a header line per sample, its frames innermost first, then the
 * region path as the outermost frames.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>

#include "analysis/samples_report.h"
#include "export/export.h"
#include "export/samples_export.h"

struct ps {
	FILE *f;
	const struct sb_profile *p;
	struct sb_fnames names;
	struct sb_xthreads threads;
	const char *event;
};

/* Samples in time order across ranks, as perf script shows a recording; then by rank, file order. */
static int cmp_time(const void *a, const void *b, void *ctx)
{
	const struct sb_timed_sample *v = ctx;
	size_t i = *(const size_t *)a, j = *(const size_t *)b;

	if (v[i].time != v[j].time)
		return v[i].time < v[j].time ? -1 : 1;
	if (v[i].rank != v[j].rank)
		return v[i].rank < v[j].rank ? -1 : 1;
	return (i > j) - (i < j);
}

/* The line structure is the format: no control character may break it. */
static void put_text(FILE *f, const char *s)
{
	const unsigned char *u;

	for (u = (const unsigned char *)s; *u; u++)
		fputc(*u < 0x20 || *u == 0x7f ? ' ' : *u, f);
}

/* The pid of the process of rank, -1 when the profile does not say. */
static int64_t rank_pid(const struct sb_profile *p, uint32_t rank)
{
	size_t i;

	for (i = 0; i < p->n_processes; i++)
		if (p->processes[i].rank == (int64_t)rank && p->processes[i].pid > 0)
			return p->processes[i].pid;
	return -1;
}

/* "solve 4242/4243 [002] 12.000000250: cycles:", perf script's fields with pid and --ns. */
static void put_header(struct ps *x, const struct sb_timed_sample *t)
{
	const struct sb_xthread *th = sb_xthreads_find(&x->threads, t->rank, t->thread);
	int64_t pid = rank_pid(x->p, t->rank), tid = th && th->tid > 0 ? th->tid : 0;
	int64_t sec = t->time / 1000000000, ns = t->time % 1000000000;

	if (ns < 0) {
		sec--;
		ns += 1000000000;
	}
	put_text(x->f, th && th->name[0] ? th->name : "[unknown]");
	if (pid > 0)
		fprintf(x->f, " %" PRId64 "/%" PRId64, pid, tid);
	else
		fprintf(x->f, " %" PRId64, tid);
	fprintf(x->f, " [%03u] %" PRId64 ".%09" PRId64 ": %s:\n", t->cpu, sec, ns, x->event);
}

/* Stack id's frames, innermost first; the markers' own frames fold into their caller. */
static void put_stack(struct ps *x, int64_t id)
{
	const struct sb_samples *s = &x->p->samples;
	const struct sb_frame_sym *fr;
	uint32_t fn;
	size_t i;

	if (id < 0)
		return;
	for (i = 0; i < s->stacks[id].depth; i++) {
		fr = &s->frames[s->stack_frames[s->stacks[id].first + i]];
		fn = x->names.of_frame[fr - s->frames];
		if (x->names.helper[fn])
			continue;
		fprintf(x->f, "\t%16" PRIx64 " ", fr->offset);
		put_text(x->f, x->names.names[fn]);
		fputs(" (", x->f);
		/* perf's name of the kernel, which readers of its output know. */
		put_text(x->f, sb_frame_is_kernel(fr) ? "[kernel.kallsyms]" :
			 fr->module[0] ? fr->module : "[unknown]");
		fputs(")\n", x->f);
	}
}

/* The region path, innermost first, as frames of the pseudo-module "[region]". */
static void put_path(struct ps *x, int64_t path)
{
	const struct sb_samples *s = &x->p->samples;
	int64_t q;

	for (q = path; q >= 0; q = s->paths[q].parent) {
		fprintf(x->f, "\t%16x ", 0);
		put_text(x->f, s->paths[q].name);
		fputs(" ([region])\n", x->f);
	}
}

static int put_samples(struct ps *x)
{
	const struct sb_samples *s = &x->p->samples;
	const struct sb_timed_sample *t;
	size_t *order, i;

	order = malloc(s->n_timeline * sizeof(*order));
	if (!order)
		return -ENOMEM;
	for (i = 0; i < s->n_timeline; i++)
		order[i] = i;
	qsort_r(order, s->n_timeline, sizeof(*order), cmp_time, s->timeline);
	for (i = 0; i < s->n_timeline; i++) {
		t = &s->timeline[order[i]];
		put_header(x, t);
		put_stack(x, t->kstack);
		put_stack(x, t->ustack);
		put_path(x, t->path);
		fputc('\n', x->f);
	}
	free(order);
	return 0;
}

int sb_export_perf_script(FILE *f, const struct sb_profile *p, struct sb_error *err)
{
	const struct sb_meta *ev = sb_profile_meta(p, "sample_event");
	struct ps x = { .f = f, .p = p };
	int r;

	if (!p->samples.n_timeline) {
		r = sb_samples_require(p, 1u << SB_SAMPLE_CPU, err);
		return r ? r : sb_fail(err, EINVAL, "the profile keeps its CPU samples summed per "
				       "stack, without the time of each: folded, flamegraph, "
				       "speedscope and pprof show them");
	}
	x.event = ev && !ev->is_int && ev->s && ev->s[0] ? ev->s : "cpu-clock";
	r = sb_fnames_build(&x.names, &p->samples);
	if (!r && sb_xthreads_build(&x.threads, p))
		r = -ENOMEM;
	if (!r)
		r = put_samples(&x);
	sb_xthreads_free(&x.threads);
	sb_fnames_free(&x.names);
	if (r)
		return sb_fail(err, -r, "out of memory");
	return ferror(f) ? sb_fail(err, EIO, "write error") : 0;
}
