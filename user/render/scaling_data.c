/* `scope-bpf scaling` as JSON (every number of the study) and CSV (a line per region and run). */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>

#include "render/scaling.h"
#include "util/text_format.h"

/* A ratio with its key; NaN (cannot be told) is null. */
static void json_ratio(FILE *f, const char *key, double v)
{
	if (isnan(v))
		fprintf(f, ", \"%s\": null", key);
	else
		fprintf(f, ", \"%s\": %.6f", key, v);
}

/* Row i's region names from the top level, as a JSON list; chain has room for its depth. */
static void json_path(FILE *f, const struct sb_scaling *s, uint32_t i, uint32_t *chain)
{
	uint32_t n = 0;

	for (; i != SB_SCALING_NONE; i = s->rows[i].parent)
		chain[n++] = i;
	fputc('[', f);
	while (n-- > 0) {
		format_json_string(f, s->rows[chain[n]].name);
		if (n)
			fputs(", ", f);
	}
	fputc(']', f);
}

static void json_runs(FILE *f, const struct sb_scaling *s)
{
	const struct sb_scaling_run *r;
	size_t k;

	fputs(",\n \"runs\": [", f);
	for (k = 0; k < s->n_runs; k++) {
		r = &s->runs[k];
		fputs(k ? ",\n  {\"file\": " : "\n  {\"file\": ", f);
		format_json_string(f, r->path);
		fputs(", \"format\": ", f);
		format_json_string(f, r->p->format ? r->p->format : "");
		fprintf(f, ", \"n\": %u, \"ranks\": %u, \"time_ns\": %" PRId64, r->n, r->ranks,
			r->time);
		json_ratio(f, "speedup", r->speedup);
		json_ratio(f, "efficiency", r->efficiency);
		fputc('}', f);
	}
	fputs("\n ]", f);
}

static void json_cell(FILE *f, const struct sb_scaling *s, const struct sb_scaling_cell *c,
		      size_t k)
{
	fprintf(f, "{\"n\": %u, \"present\": %s, \"calls\": %" PRIu64 ", \"max_ns\": %" PRId64
		", \"mean_ns\": %" PRId64, s->runs[k].n, c->present ? "true" : "false", c->calls,
		c->max, c->mean);
	json_ratio(f, "speedup", c->speedup);
	json_ratio(f, "efficiency", c->efficiency);
	json_ratio(f, "imbalance", c->imbalance);
	json_ratio(f, "share", c->share);
	json_ratio(f, "mpi_share", c->mpi_share);
	json_ratio(f, "offcpu_share", c->offcpu_share);
	fputc('}', f);
}

static void json_regions(FILE *f, const struct sb_scaling *s, uint32_t *chain)
{
	const struct sb_scaling_row *r;
	size_t i, k;

	fputs(",\n \"regions\": [", f);
	for (i = 0; i < s->n_rows; i++) {
		r = &s->rows[i];
		fputs(i ? ",\n  {\"path\": " : "\n  {\"path\": ", f);
		json_path(f, s, (uint32_t)i, chain);
		fprintf(f, ", \"depth\": %u", r->depth);
		json_ratio(f, "share_growth", r->growth);
		fputs(", \"runs\": [", f);
		for (k = 0; k < s->n_runs; k++) {
			if (k)
				fputs(", ", f);
			json_cell(f, s, &r->cells[k], k);
		}
		fputs("]}", f);
	}
	fputs(s->n_rows ? "\n ]" : "]", f);
}

static void json_lost(FILE *f, const struct sb_scaling *s, uint32_t *chain)
{
	size_t i;

	fputs(",\n \"lost\": [", f);
	for (i = 0; i < s->n_lost; i++) {
		fputs(i ? ",\n  {\"path\": " : "\n  {\"path\": ", f);
		json_path(f, s, s->lost[i], chain);
		json_ratio(f, "share_growth", s->rows[s->lost[i]].growth);
		fputc('}', f);
	}
	fputs(s->n_lost ? "\n ]}\n" : "]}\n", f);
}

int sb_scaling_json(FILE *f, const struct sb_scaling *s)
{
	uint32_t *chain, depth = 1;
	char prog[256];
	size_t i;

	for (i = 0; i < s->n_rows; i++)
		if (s->rows[i].depth > depth)
			depth = s->rows[i].depth;
	chain = malloc(depth * sizeof(*chain));
	if (!chain)
		return -ENOMEM;

	sb_scaling_program(s->runs[0].p, prog, sizeof(prog));
	fprintf(f, "{\"scaling\": \"%s\", \"unit\": \"%s\", \"program\": ",
		s->weak ? "weak" : "strong", s->by_threads ? "threads" : "ranks");
	format_json_string(f, prog);
	json_runs(f, s);
	json_regions(f, s, chain);
	json_lost(f, s, chain);
	free(chain);
	return 0;
}

static void csv_ratio(FILE *f, double v)
{
	if (isnan(v))
		fputs(",", f);
	else
		fprintf(f, ",%.6f", v);
}

void sb_scaling_csv(FILE *f, const struct sb_scaling *s)
{
	const struct sb_scaling_cell *c;
	size_t i, k;

	fputs("path,depth,n,present,calls,max_ns,mean_ns,speedup,efficiency,imbalance,share,"
	      "mpi_share,offcpu_share,share_growth\n", f);
	for (i = 0; i < s->n_rows; i++) {
		for (k = 0; k < s->n_runs; k++) {
			c = &s->rows[i].cells[k];
			format_csv_field(f, s->rows[i].path);
			fprintf(f, ",%u,%u,%d,%" PRIu64 ",%" PRId64 ",%" PRId64, s->rows[i].depth,
				s->runs[k].n, c->present, c->calls, c->max, c->mean);
			csv_ratio(f, c->speedup);
			csv_ratio(f, c->efficiency);
			csv_ratio(f, c->imbalance);
			csv_ratio(f, c->share);
			csv_ratio(f, c->mpi_share);
			csv_ratio(f, c->offcpu_share);
			csv_ratio(f, s->rows[i].growth);
			fputc('\n', f);
		}
	}
}
