/* A merge's clocks and metadata: every input on the first one's clock, and a record of it. */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/merge.h"
#include "model/health.h"
#include "model/mpi_sync.h"
#include "util/text_format.h"

static bool meta_int(const struct sb_profile *p, const char *key, int64_t *v)
{
	const struct sb_meta *m = sb_profile_meta(p, key);

	if (!m || !m->is_int)
		return false;
	*v = m->i;
	return true;
}

static const char *meta_str(const struct sb_profile *p, const char *key)
{
	const struct sb_meta *m = sb_profile_meta(p, key);

	return m && !m->is_int && m->s && *m->s ? m->s : NULL;
}

/* CLOCK_REALTIME - CLOCK_MONOTONIC over the recording: the mean of its two readings. */
static int clock_offset(const struct sb_merge_input *in, int64_t *off, struct sb_error *err)
{
	int64_t s, e, half;

	if (!meta_int(&in->p, SB_META_CLOCK_START, &s) || !meta_int(&in->p, SB_META_CLOCK_END, &e))
		return 1;
	/* s + (e - s) / 2 without overflow; offsets near INT64 limits are not a real clock. */
	if (__builtin_sub_overflow(e, s, &half))
		return sb_fail(err, EINVAL, "%s: clock offsets %" PRId64 " and %" PRId64
			       " are out of range", in->path, s, e);
	*off = s + half / 2;
	return 0;
}

/* Bound q's shift by the collectives ref and q both saw, then refine q->estimate by them. */
static int refine(const struct sb_merge_input *ref, struct sb_merge_input *q, bool known,
		  struct sb_error *err)
{
	struct sb_sync_call *a = NULL, *b = NULL;
	size_t na = 0, nb = 0;
	int ret;

	ret = sb_sync_calls(&ref->p, &a, &na);
	if (!ret)
		ret = sb_sync_calls(&q->p, &b, &nb);
	if (!ret)
		ret = sb_shift_bounds(a, na, b, nb, &q->bounds);
	free(a);
	free(b);
	if (ret == -ERANGE)
		return sb_fail(err, EINVAL, "%s: the times of its MPI collectives and those of %s "
			       "are too far apart to be one run's", q->path, ref->path);
	if (ret)
		return sb_fail(err, -ret, "%s: %s", q->path, strerror(-ret));
	q->contradicts = sb_shift_refine(q->estimate, known, &q->bounds, &q->shift, &q->clock);
	return 0;
}

int sb_merge_clock_shift(const struct sb_merge_input *ref, struct sb_merge_input *q,
			 struct sb_error *err)
{
	const char *b_ref = meta_str(&ref->p, SB_META_BOOT_ID);
	const char *b_q = meta_str(&q->p, SB_META_BOOT_ID);
	int64_t off_ref, off_q;
	int ret;

	q->shift = q->estimate = 0;
	q->bounds = (struct sb_shift_bounds){ INT64_MIN, INT64_MAX, 0 };
	q->contradicts = false;
	if (ref == q) {
		q->clock = "reference";
		return 0;
	}
	/* One boot of one machine has one CLOCK_MONOTONIC: nothing to correct. */
	if (b_ref && b_q && !strcmp(b_ref, b_q)) {
		q->clock = "same boot";
		return 0;
	}
	ret = clock_offset(ref, &off_ref, err);
	if (ret <= 0 && !(ret = clock_offset(q, &off_q, err)) &&
	    __builtin_sub_overflow(off_q, off_ref, &q->estimate))
		ret = sb_fail(err, EINVAL, "%s: clock offset %" PRId64 " is out of range",
			      q->path, off_q);
	if (ret < 0)
		return ret;
	return refine(ref, q, ret == 0, err);
}

/* The earliest start and latest end of all inputs, on the first one's clock. */
static int span(struct sb_profile *out, const struct sb_merge_input *in, size_t n)
{
	int64_t v, lo = INT64_MAX, hi = INT64_MIN;
	size_t i;
	int ret = 0;

	for (i = 0; i < n; i++) {
		if (meta_int(&in[i].p, "start_time_ns", &v) &&
		    !__builtin_add_overflow(v, in[i].shift, &v) && v < lo)
			lo = v;
		if (meta_int(&in[i].p, "finalize_time_ns", &v) &&
		    !__builtin_add_overflow(v, in[i].shift, &v) && v > hi)
			hi = v;
	}
	if (lo != INT64_MAX)
		ret |= sb_profile_set_int(out, "start_time_ns", lo);
	if (hi != INT64_MIN)
		ret |= sb_profile_set_int(out, "finalize_time_ns", hi);
	return ret;
}

static const char *host_of(const struct sb_merge_input *in)
{
	return meta_str(&in->p, "hostname");
}

/* Host names seen; an input without one is a node of its own. */
static int64_t count_nodes(const struct sb_merge_input *in, size_t n)
{
	const char *h;
	int64_t nodes = 0;
	size_t i, j;

	for (i = 0; i < n; i++) {
		h = host_of(&in[i]);
		for (j = 0; h && j < i; j++)
			if (host_of(&in[j]) && !strcmp(h, host_of(&in[j])))
				break;
		nodes += !h || j == i;
	}
	return nodes;
}

static int sizes(struct sb_profile *out, const struct sb_merge_input *in, size_t n)
{
	int64_t v, size = sb_profile_rank_count(out);
	size_t i, k;
	int ret = 0;

	for (i = 0; i < n; i++)
		if (meta_int(&in[i].p, "mpi_size", &v) && v > size)
			size = v;
	ret |= sb_profile_set_int(out, "mpi_size", size);
	ret |= sb_profile_set_int(out, "num_nodes", count_nodes(in, n));
	/* What any input lost, the merged profile lost. */
	for (k = 0; k < sb_health_n_keys; k++) {
		for (v = 0, i = 0; i < n; i++)
			v += sb_health_value(&in[i].p, sb_health_keys[k].key);
		if (v)
			ret |= sb_profile_set_int(out, sb_health_keys[k].key, v);
	}
	return ret;
}

/* The ranks of p as "0-3,7": from its index rows and threads. */
static void print_ranks(FILE *f, const struct sb_profile *p)
{
	uint32_t n = sb_profile_rank_count(p), r, lo;
	bool *has = calloc(n ? n : 1, sizeof(*has));
	const char *sep = "";
	size_t i;

	if (!has)
		return;
	for (i = 0; i < p->n_pairs; i++)
		has[p->pairs[i].rank] = true;
	for (i = 0; i < p->n_threads; i++)
		has[p->threads[i].rank] = true;
	for (r = 0; r < n; r++) {
		if (!has[r])
			continue;
		for (lo = r; r + 1 < n && has[r + 1]; r++)
			;
		fprintf(f, lo == r ? "%s%u" : "%s%u-%u", sep, lo, r);
		sep = ",";
	}
	free(has);
}

/* A bound of the shift, null when there is none. */
static void print_bound(FILE *f, const struct sb_shift_bounds *b, int64_t v, int64_t none)
{
	if (b->witnesses && v != none)
		fprintf(f, "%" PRId64, v);
	else
		fputs("null", f);
}

/* The clock fields of one input in merge_inputs. */
static void print_clock(FILE *f, const struct sb_merge_input *in)
{
	fputs(", \"clock\": ", f);
	format_json_string(f, in->clock);
	fprintf(f, ", \"clock_estimate_ns\": %" PRId64 ", \"clock_bounds_ns\": [", in->estimate);
	print_bound(f, &in->bounds, in->bounds.lo, INT64_MIN);
	fputs(", ", f);
	print_bound(f, &in->bounds, in->bounds.hi, INT64_MAX);
	fprintf(f, "], \"clock_witnesses\": %u, \"clock_shift_ns\": %" PRId64 "}",
		in->bounds.witnesses, in->shift);
}

/*
 * merge_inputs: [{"file", "hostname", "ranks", "clock", "clock_estimate_ns",
 * "clock_bounds_ns", "clock_witnesses", "clock_shift_ns"}, ...].
 */
static char *inputs_json(const struct sb_merge_input *in, size_t n)
{
	char *buf = NULL;
	size_t len = 0, i;
	FILE *f = open_memstream(&buf, &len);
	FILE *rf;
	char *rbuf;
	size_t rlen;

	if (!f)
		return NULL;
	fputc('[', f);
	for (i = 0; i < n; i++) {
		fputs(i ? ", {\"file\": " : "{\"file\": ", f);
		format_json_string(f, in[i].path);
		fputs(", \"hostname\": ", f);
		format_json_string(f, host_of(&in[i]) ? host_of(&in[i]) : "");
		fputs(", \"ranks\": ", f);
		rbuf = NULL;
		rf = open_memstream(&rbuf, &rlen);
		if (rf) {
			print_ranks(rf, &in[i].p);
			fclose(rf);
		}
		format_json_string(f, rbuf ? rbuf : "");
		free(rbuf);
		print_clock(f, &in[i]);
	}
	fputc(']', f);
	if (fclose(f)) {
		free(buf);
		return NULL;
	}
	return buf;
}

static int copy_meta(struct sb_profile *out, const struct sb_profile *p)
{
	const struct sb_meta *m;
	size_t i;
	int ret = 0;

	for (i = 0; i < p->n_meta; i++) {
		m = &p->meta[i];
		ret |= m->is_int ? sb_profile_set_int(out, m->key, m->i)
				 : sb_profile_set_str(out, m->key, m->s ? m->s : "");
	}
	return ret;
}

/* Every rank's MPI_Init exit and MPI_Finalize entry, from out's (moved) index rows. */
static int rank_times(struct sb_profile *out, const struct sb_merge_input *in, size_t n)
{
	char *json;
	size_t i;
	int ret;

	for (i = 0; i < n && !sb_profile_meta(&in[i].p, SB_META_MPI_RANK_TIMES); i++)
		;
	if (i == n)
		return 0;
	json = sb_mpi_rank_times_json(out);
	ret = json ? sb_profile_set_str(out, SB_META_MPI_RANK_TIMES, json) : -ENOMEM;
	free(json);
	return ret;
}

/* The inputs' one way of recording, else "mixed": only a launch rules attaching out (health.h). */
static int record_scope(struct sb_profile *out, const struct sb_merge_input *in, size_t n)
{
	const char *first = meta_str(&in[0].p, SB_META_RECORD_SCOPE), *s;
	size_t i;

	for (i = 1; i < n; i++) {
		s = meta_str(&in[i].p, SB_META_RECORD_SCOPE);
		if (!first != !s || (first && strcmp(first, s)))
			return sb_profile_set_str(out, SB_META_RECORD_SCOPE, "mixed");
	}
	return 0;
}

int sb_merge_metadata(struct sb_profile *out, const struct sb_merge_input *in, size_t n)
{
	char key[64], *json;
	size_t i;
	int ret;

	ret = copy_meta(out, &in[0].p);
	ret |= record_scope(out, in, n);
	ret |= span(out, in, n);
	ret |= sizes(out, in, n);
	ret |= rank_times(out, in, n);
	for (i = 0; i < n; i++) {
		snprintf(key, sizeof(key), "merge_clock_shift_ns_%zu", i);
		ret |= sb_profile_set_int(out, key, in[i].shift);
		snprintf(key, sizeof(key), "merge_clock_method_%zu", i);
		ret |= sb_profile_set_str(out, key, in[i].clock);
	}
	ret |= sb_profile_set_str(out, "merge_clock_method",
				  "CLOCK_REALTIME - CLOCK_MONOTONIC, mean of start and end; "
				  "0 within one boot; moved to the nearest bound that blocking "
				  "collectives on COMM_WORLD, MPI_Init and MPI_Finalize allow "
				  "(docs/MPI.md)");
	json = inputs_json(in, n);
	ret |= json ? sb_profile_set_str(out, "merge_inputs", json) : -ENOMEM;
	free(json);
	return ret ? -ENOMEM : 0;
}
