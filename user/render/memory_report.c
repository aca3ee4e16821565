/*
 * `report --memory`: the counter report's rows, record --memory's slots only,
 * sizes in MiB as text and in bytes in JSON and CSV.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "render/memory_report.h"
#include "util/text_format.h"

#define MIB (1024.0 * 1024.0)

unsigned sb_memory_report_slots(const struct sb_counter_report *r, int slot[SB_MEMORY_SLOTS])
{
	unsigned i, n = 0;
	int m;

	for (i = 0; i < SB_MEMORY_SLOTS; i++)
		slot[i] = -1;
	for (i = 0; i < r->n; i++) {
		m = sb_memory_slot_of(r->names[i]);
		if (m >= 0 && slot[m] < 0) {
			slot[m] = (int)i;
			n++;
		}
	}
	return n;
}

static uint64_t incl_of(const struct sb_counter_row *row, int slot)
{
	return slot >= 0 ? row->incl[slot] : 0;
}

static int by_peak_then_growth(const void *a, const void *b, void *slots)
{
	const int *sort_slot = slots;
	const struct sb_counter_row *x = *(const struct sb_counter_row *const *)a;
	const struct sb_counter_row *y = *(const struct sb_counter_row *const *)b;
	uint64_t u = incl_of(x, sort_slot[SB_MEMORY_PEAK_GROWTH]);
	uint64_t v = incl_of(y, sort_slot[SB_MEMORY_PEAK_GROWTH]);

	if (u == v) {
		u = incl_of(x, sort_slot[SB_MEMORY_RSS_GROWTH]);
		v = incl_of(y, sort_slot[SB_MEMORY_RSS_GROWTH]);
	}
	if (u != v)
		return u < v ? 1 : -1;
	return x->region < y->region ? -1 : x->region > y->region;
}

/* One value as text: MiB with one decimal for sizes, "-" when not recorded. */
static void text_value(FILE *f, unsigned m, int slot, uint64_t v)
{
	if (slot < 0)
		fprintf(f, " %12s", "-");
	else if (sb_memory_def(m)->bytes)
		fprintf(f, " %12.1f", (double)v / MIB);
	else
		fprintf(f, " %12" PRIu64, v);
}

static void render_text(FILE *f, const struct sb_counter_row *const *rows, size_t n,
			const int *slot, bool wide)
{
	uint64_t unknown = 0;
	unsigned m;
	size_t j;

	fputs("memory per region (record --memory), sizes in MiB: resident size (RSS) gained\n"
	      "and given back over the calls, how far the process's peak RSS rose, the\n"
	      "thread's page faults; children included (JSON and CSV: own values too)\n", f);
	fprintf(f, "%8s", "calls");
	for (m = 0; m < SB_MEMORY_SLOTS; m++)
		fprintf(f, " %12s", sb_memory_def(m)->label);
	fputs("  region\n", f);
	for (j = 0; j < n; j++) {
		fprintf(f, "%8" PRIu64, rows[j]->calls);
		for (m = 0; m < SB_MEMORY_SLOTS; m++)
			text_value(f, m, slot[m], incl_of(rows[j], slot[m]));
		fputs("  ", f);
		format_cut(f, rows[j]->name, wide ? SIZE_MAX : 80 - 8 - 13 * SB_MEMORY_SLOTS - 2);
		fputc('\n', f);
		unknown += rows[j]->unknown;
	}
	if (unknown)
		fprintf(f, "%" PRIu64 " %s not counted: begun before the thread was first read\n",
			unknown, format_plural(unknown, "call", "calls"));
}

static void render_json(FILE *f, const struct sb_counter_row *const *rows, size_t n,
			const int *slot, const struct report_opts *o)
{
	unsigned m;
	size_t j;

	fputs("{\"file\":", f);
	format_json_string(f, o->path ? o->path : "");
	fputs(",\"regions\":[", f);
	for (j = 0; j < n; j++) {
		fputs(j ? ",\n{\"region\":" : "\n{\"region\":", f);
		format_json_string(f, rows[j]->name);
		fprintf(f, ",\"calls\":%" PRIu64 ",\"unknown_calls\":%" PRIu64, rows[j]->calls,
			rows[j]->unknown);
		for (m = 0; m < SB_MEMORY_SLOTS; m++)
			if (slot[m] >= 0)
				fprintf(f, ",\"%s\":%" PRIu64 ",\"own_%s\":%" PRIu64,
					sb_memory_def(m)->key, rows[j]->incl[slot[m]],
					sb_memory_def(m)->key, rows[j]->excl[slot[m]]);
		fputc('}', f);
	}
	fputs("\n]}\n", f);
}

static void render_csv(FILE *f, const struct sb_counter_row *const *rows, size_t n,
		       const int *slot)
{
	unsigned m;
	size_t j;

	fputs("region,calls,unknown_calls", f);
	for (m = 0; m < SB_MEMORY_SLOTS; m++)
		fprintf(f, ",%s,own_%s", sb_memory_def(m)->key, sb_memory_def(m)->key);
	fputc('\n', f);
	for (j = 0; j < n; j++) {
		format_csv_field(f, rows[j]->name);
		fprintf(f, ",%" PRIu64 ",%" PRIu64, rows[j]->calls, rows[j]->unknown);
		for (m = 0; m < SB_MEMORY_SLOTS; m++)
			if (slot[m] >= 0)
				fprintf(f, ",%" PRIu64 ",%" PRIu64, rows[j]->incl[slot[m]],
					rows[j]->excl[slot[m]]);
			else
				fputs(",,", f);
		fputc('\n', f);
	}
}

int sb_memory_report_render(FILE *f, const struct sb_counter_report *r,
			    const struct report_opts *o)
{
	const struct sb_counter_row **rows;
	int slot[SB_MEMORY_SLOTS];
	size_t j;

	if (!sb_memory_report_slots(r, slot))
		return -EINVAL;
	rows = calloc(r->n_rows ? r->n_rows : 1, sizeof(*rows));
	if (!rows)
		return -ENOMEM;
	for (j = 0; j < r->n_rows; j++)
		rows[j] = &r->rows[j];
	qsort_r(rows, r->n_rows, sizeof(*rows), by_peak_then_growth, slot);
	if (o->format == SB_REPORT_JSON)
		render_json(f, rows, r->n_rows, slot, o);
	else if (o->format == SB_REPORT_CSV)
		render_csv(f, rows, r->n_rows, slot);
	else
		render_text(f, rows, r->n_rows, slot, o->wide);
	free(rows);
	return ferror(f) ? -EIO : 0;
}
