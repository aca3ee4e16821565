/*
 * sb_shift_clock: a profile rewritten as if recorded on another node, for
 * merge's tests. That node's CLOCK_MONOTONIC reads D ns more than ours: every
 * time moves by D, the CLOCK_REALTIME - CLOCK_MONOTONIC readings by -D (so
 * they still name the same real time), boot id and host name change. --skew E
 * makes those readings E ns wrong, as an NTP error would: merge's realtime
 * estimate is then E off, the times stay moved by D. --ranks keeps some ranks,
 * as a recorder that filtered them would have written (their processes, and
 * the launchers' of rank -1). Without --shift, --skew, --host or --boot-id the
 * node stays the same (same boot id: merge then shifts nothing).
 *
 *   sb_shift_clock [--shift D] [--skew E] [--ranks LIST] [--host NAME]
 *                  [--boot-id ID] IN.h5 OUT.h5
 *
 * Exit 0, or 2 with a message naming the file or option at fault.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/filter.h"
#include "analysis/merge.h"
#include "io/h5read.h"
#include "io/h5write.h"
#include "model/mpi_sync.h"

struct shift_opts {
	int64_t shift;		/* D */
	int64_t skew;		/* E */
	const char *ranks;
	const char *host;
	const char *boot_id;
	const char *in, *out;
};

static int usage(const char *why)
{
	fprintf(stderr, "sb_shift_clock: %s\nusage: sb_shift_clock [--shift NS] [--skew NS] "
		"[--ranks LIST] [--host NAME] [--boot-id ID] IN.h5 OUT.h5\n", why);
	return 2;
}

static int parse_ns(const char *opt, const char *arg, int64_t *v)
{
	char *end;

	errno = 0;
	*v = strtoll(arg, &end, 10);
	if (errno || end == arg || *end) {
		fprintf(stderr, "sb_shift_clock: %s %s: not a number of nanoseconds\n", opt, arg);
		return 2;
	}
	return 0;
}

static int parse_args(int argc, char **argv, struct shift_opts *o)
{
	static const struct option longs[] = {
		{ "shift", required_argument, NULL, 'd' }, { "skew", required_argument, NULL, 'e' },
		{ "ranks", required_argument, NULL, 'r' }, { "host", required_argument, NULL, 'h' },
		{ "boot-id", required_argument, NULL, 'b' }, { NULL, 0, NULL, 0 },
	};
	int c, ret = 0;

	while (!ret && (c = getopt_long(argc, argv, "", longs, NULL)) != -1) {
		if (c == 'd')
			ret = parse_ns("--shift", optarg, &o->shift);
		else if (c == 'e')
			ret = parse_ns("--skew", optarg, &o->skew);
		else if (c == 'r')
			o->ranks = optarg;
		else if (c == 'h')
			o->host = optarg;
		else if (c == 'b')
			o->boot_id = optarg;
		else
			return usage("unknown option");
	}
	if (ret)
		return ret;
	if (argc - optind != 2)
		return usage("needs one input and one output");
	o->in = argv[optind];
	o->out = argv[optind + 1];
	return 0;
}

/* t + d, or -ERANGE. A thread or process time of -1 (unknown) stays. */
static int move(int64_t *t, int64_t d, bool keep_unknown)
{
	if (keep_unknown && *t == -1)
		return 0;
	return __builtin_add_overflow(*t, d, t) ? -ERANGE : 0;
}

static int move_meta(struct sb_profile *p, const char *key, int64_t d)
{
	const struct sb_meta *m = sb_profile_meta(p, key);
	int64_t v;

	if (!m || !m->is_int)
		return 0;
	if (__builtin_add_overflow(m->i, d, &v))
		return -ERANGE;
	return sb_profile_set_int(p, key, v);
}

static int move_times(struct sb_profile *p, int64_t d)
{
	struct sb_stats *s;
	size_t i;
	int ret = 0;

	for (i = 0; i < p->n_events && !ret; i++)
		ret = move(&p->events[i].start, d, false) ?: move(&p->events[i].end, d, false);
	for (i = 0; i < p->n_pairs && !ret; i++) {
		s = &p->pairs[i].stats;
		if (p->pairs[i].count)
			ret = move(&s->start_minimum, d, false) ?: move(&s->end_maximum, d, false);
	}
	for (i = 0; i < p->n_threads && !ret; i++)
		ret = move(&p->threads[i].start_ns, d, true) ?: move(&p->threads[i].end_ns, d, true);
	for (i = 0; i < p->n_processes && !ret; i++)
		ret = move(&p->processes[i].start_ns, d, true) ?:
		      move(&p->processes[i].end_ns, d, true);
	return ret;
}

/* The recording's own times and clock readings, and the marks that come from the calls. */
static int move_metadata(struct sb_profile *p, const struct shift_opts *o)
{
	int64_t off;
	char *json;
	int ret;

	if (__builtin_sub_overflow(o->skew, o->shift, &off))
		return -ERANGE;
	ret = move_meta(p, "start_time_ns", o->shift) ?: move_meta(p, "finalize_time_ns", o->shift);
	if (!ret)
		ret = move_meta(p, SB_META_CLOCK_START, off) ?: move_meta(p, SB_META_CLOCK_END, off);
	if (ret || !sb_profile_meta(p, SB_META_MPI_RANK_TIMES))
		return ret;
	json = sb_mpi_rank_times_json(p);
	ret = json ? sb_profile_set_str(p, SB_META_MPI_RANK_TIMES, json) : -ENOMEM;
	free(json);
	return ret;
}

/* Another node: its host name and boot, given or made from ours. */
static int rename_node(struct sb_profile *p, const struct shift_opts *o)
{
	const struct sb_meta *m = sb_profile_meta(p, "hostname");
	char host[256], boot[128];

	snprintf(host, sizeof(host), "%s-shifted", m && !m->is_int && m->s ? m->s : "node");
	snprintf(boot, sizeof(boot), "sb_shift_clock %" PRId64, o->shift);
	return sb_profile_set_str(p, "hostname", o->host ? o->host : host) ?:
	       sb_profile_set_str(p, SB_META_BOOT_ID, o->boot_id ? o->boot_id : boot);
}

/* The processes of ranks the filter dropped go too; launchers (rank -1) stay. */
static void keep_processes(struct sb_profile *p, const struct sb_filter *f)
{
	size_t i, k = 0;

	for (i = 0; i < p->n_processes; i++) {
		if (p->processes[i].rank < 0 || sb_filter_rank(f, (uint32_t)p->processes[i].rank))
			p->processes[k++] = p->processes[i];
		else
			free(p->processes[i].command);
	}
	p->n_processes = k;
}

static void free_region(struct sb_region *r)
{
	free(r->name);
	free(r->source_file);
	free(r->source_text);
	free(r->tags);
}

/* Regions only the dropped ranks called go: a file lists no region without an index row. */
static int drop_unused_regions(struct sb_profile *p)
{
	uint32_t *id = calloc(p->n_regions + 1, sizeof(*id));
	size_t i, k = 0;

	if (!id)
		return -ENOMEM;
	for (i = 0; i < p->n_pairs; i++)
		id[p->pairs[i].region] = 1;
	for (i = 0; i < p->n_regions; i++) {
		if (!id[i]) {
			free_region(&p->regions[i]);
			continue;
		}
		id[i] = (uint32_t)k;
		p->regions[k++] = p->regions[i];
	}
	p->n_regions = k;
	for (i = 0; i < p->n_pairs; i++)
		p->pairs[i].region = id[p->pairs[i].region];
	free(id);
	return 0;
}

static int keep_ranks(struct sb_profile *p, const char *ranks, struct sb_error *err)
{
	struct sb_filter f = { 0 };
	int ret;

	ret = sb_filter_set_ranks(&f, ranks, err);
	if (!ret)
		ret = sb_filter_apply(&f, p, err);
	if (!ret)
		keep_processes(p, &f);
	sb_filter_free(&f);
	if (!ret && drop_unused_regions(p))
		return sb_fail(err, ENOMEM, "%s: out of memory", ranks);
	return ret;
}

/* The events held in memory, in file order, for the writer. */
struct held_events {
	struct sb_event_stream base;
	const struct sb_profile *p;
	size_t next;
};

static ssize_t held_read(struct sb_event_stream *s, struct sb_event *rows, int64_t *counters,
			 size_t max)
{
	struct held_events *h = (struct held_events *)s;
	size_t k = h->p->n_events - h->next < max ? h->p->n_events - h->next : max;
	size_t stride = sb_counter_stride(sb_profile_counter_slots(h->p)), i;

	memcpy(rows, h->p->events + h->next, k * sizeof(*rows));
	for (i = 0; counters && i < k * stride; i++)
		counters[i] = h->p->counters ? h->p->counters[h->next * stride + i] : -1;
	h->next += k;
	return (ssize_t)k;
}

static int rewrite(struct sb_profile *p, const struct shift_opts *o, struct sb_error *err)
{
	struct held_events h = { { held_read }, p, 0 };
	int ret = o->ranks ? keep_ranks(p, o->ranks, err) : 0;

	if (ret)
		return ret;
	ret = move_times(p, o->shift);
	if (!ret)
		ret = move_metadata(p, o);
	if (!ret && (o->shift || o->skew || o->host || o->boot_id))
		ret = rename_node(p, o);
	if (ret == -ERANGE)
		return sb_fail(err, ERANGE, "%s: a time overflows when moved by %" PRId64 " ns",
			       o->in, o->shift);
	if (ret)
		return sb_fail(err, -ret, "%s: %s", o->in, strerror(-ret));
	return sb_h5_write(o->out, p, &h.base, err);
}

int main(int argc, char **argv)
{
	struct shift_opts o = { 0 };
	struct sb_error err = { { 0 } };
	struct sb_profile p;
	int ret = parse_args(argc, argv, &o);

	if (ret)
		return ret;
	sb_profile_init(&p);
	ret = sb_h5_read(o.in, &p, &err);
	if (!ret)
		ret = rewrite(&p, &o, &err);
	if (ret)
		fprintf(stderr, "sb_shift_clock: %s\n", err.msg);
	sb_profile_free(&p);
	return ret ? 2 : 0;
}
