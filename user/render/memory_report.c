/*
 * `report --memory`: per call path (record --memory's values summed on each
 * path's node) or, --flat, per region (the counter report's rows, its mem:
 * slots only); sizes in MiB as text, in bytes in JSON and CSV.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "render/memory_report.h"
#include "render/report_views.h"
#include "util/text_format.h"

#define MIB (1024.0 * 1024.0)
#define TEXT_COLUMNS 80
#define VALUE_WIDTH 12

/* One row as every format shows it: a region, or a call path of depth names. */
struct mem_row {
	const char **path;	/* depth names, outermost first; the last is the row's own */
	uint32_t depth;
	uint64_t calls, unknown;
	uint64_t incl[SB_MEMORY_SLOTS], excl[SB_MEMORY_SLOTS];
};

struct mem_table {
	struct mem_row *rows;
	size_t n;
	bool has[SB_MEMORY_SLOTS];	/* recorded */
	bool paths;			/* rows are call paths (CSV and JSON: path, depth) */
	const char **names;		/* every row's path, back to back */
};

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

/* One value as text: MiB with one decimal for sizes, "-" when not recorded. */
static void text_value(FILE *f, const struct mem_table *t, unsigned k, uint64_t v)
{
	if (!t->has[k])
		fprintf(f, " %*s", VALUE_WIDTH, "-");
	else if (sb_memory_def(k)->bytes)
		fprintf(f, " %*.1f", VALUE_WIDTH, (double)v / MIB);
	else
		fprintf(f, " %*" PRIu64, VALUE_WIDTH, v);
}

static void render_text(FILE *f, const struct mem_table *t, bool wide)
{
	size_t j, room = TEXT_COLUMNS - 8 - (VALUE_WIDTH + 1) * SB_MEMORY_SLOTS - 2, indent;
	uint64_t unknown = 0;
	unsigned k;

	fprintf(f, "memory per %s (record --memory), sizes in MiB: resident size (RSS)\n"
		"gained and given back over the calls, how far the process's peak RSS rose,\n"
		"the thread's page faults; children included (JSON and CSV: own values too)\n",
		t->paths ? "call path" : "region");
	fprintf(f, "%8s", "calls");
	for (k = 0; k < SB_MEMORY_SLOTS; k++)
		fprintf(f, " %*s", VALUE_WIDTH, sb_memory_def(k)->label);
	fputs("  region\n", f);
	for (j = 0; j < t->n; j++) {
		fprintf(f, "%8" PRIu64, t->rows[j].calls);
		for (k = 0; k < SB_MEMORY_SLOTS; k++)
			text_value(f, t, k, t->rows[j].incl[k]);
		indent = 2 * (t->rows[j].depth - 1);
		fprintf(f, "  %*s", (int)indent, "");
		format_cut(f, t->rows[j].path[t->rows[j].depth - 1],
			   wide ? SIZE_MAX : indent + 16 < room ? room - indent : 16);
		fputc('\n', f);
		unknown += t->rows[j].unknown;
	}
	if (unknown)
		fprintf(f, "%" PRIu64 " %s not counted: begun before the thread was first read\n",
			unknown, format_plural(unknown, "call", "calls"));
}

static void render_json(FILE *f, const struct mem_table *t, const struct report_opts *o)
{
	const struct mem_row *row;
	unsigned k;
	uint32_t d;
	size_t j;

	fputs("{\"file\":", f);
	format_json_string(f, o->path ? o->path : "");
	fputs(",\"regions\":[", f);
	for (j = 0; j < t->n; j++) {
		row = &t->rows[j];
		fputs(j ? ",\n{" : "\n{", f);
		if (t->paths) {
			fputs("\"path\":[", f);
			for (d = 0; d < row->depth; d++) {
				fputs(d ? "," : "", f);
				format_json_string(f, row->path[d]);
			}
			fprintf(f, "],\"depth\":%" PRIu32, row->depth);
		} else {
			fputs("\"region\":", f);
			format_json_string(f, row->path[0]);
		}
		fprintf(f, ",\"calls\":%" PRIu64 ",\"unknown_calls\":%" PRIu64, row->calls,
			row->unknown);
		for (k = 0; k < SB_MEMORY_SLOTS; k++)
			if (t->has[k])
				fprintf(f, ",\"%s\":%" PRIu64 ",\"own_%s\":%" PRIu64,
					sb_memory_def(k)->key, row->incl[k], sb_memory_def(k)->key,
					row->excl[k]);
		fputc('}', f);
	}
	fputs("\n]}\n", f);
}

/* A call path as one CSV field, names joined by ';' as the call tree's CSV writes it. */
static int csv_path(FILE *f, const struct mem_row *row)
{
	size_t len = 0, at = 0;
	uint32_t d;
	char *s;

	for (d = 0; d < row->depth; d++)
		len += strlen(row->path[d]) + 1;
	s = malloc(len);
	if (!s)
		return -ENOMEM;
	for (d = 0; d < row->depth; d++)
		at += (size_t)sprintf(s + at, "%s%s", d ? ";" : "", row->path[d]);
	format_csv_field(f, s);
	free(s);
	return 0;
}

static int render_csv(FILE *f, const struct mem_table *t)
{
	const struct mem_row *row;
	unsigned k;
	size_t j;

	fputs(t->paths ? "path,depth,calls,unknown_calls" : "region,calls,unknown_calls", f);
	for (k = 0; k < SB_MEMORY_SLOTS; k++)
		fprintf(f, ",%s,own_%s", sb_memory_def(k)->key, sb_memory_def(k)->key);
	fputc('\n', f);
	for (j = 0; j < t->n; j++) {
		row = &t->rows[j];
		if (!t->paths)
			format_csv_field(f, row->path[0]);
		else if (csv_path(f, row))
			return -ENOMEM;
		else
			fprintf(f, ",%" PRIu32, row->depth);
		fprintf(f, ",%" PRIu64 ",%" PRIu64, row->calls, row->unknown);
		for (k = 0; k < SB_MEMORY_SLOTS; k++)
			if (t->has[k])
				fprintf(f, ",%" PRIu64 ",%" PRIu64, row->incl[k], row->excl[k]);
			else
				fputs(",,", f);
		fputc('\n', f);
	}
	return 0;
}

static int render(FILE *f, const struct mem_table *t, const struct report_opts *o)
{
	if (o->format == SB_REPORT_CSV && render_csv(f, t))
		return -ENOMEM;
	if (o->format == SB_REPORT_JSON)
		render_json(f, t, o);
	else if (o->format == SB_REPORT_TEXT)
		render_text(f, t, o->wide);
	return ferror(f) ? -EIO : 0;
}

static int by_peak_then_growth(const void *a, const void *b)
{
	const struct mem_row *x = a, *y = b;

	if (x->incl[SB_MEMORY_PEAK_GROWTH] != y->incl[SB_MEMORY_PEAK_GROWTH])
		return x->incl[SB_MEMORY_PEAK_GROWTH] < y->incl[SB_MEMORY_PEAK_GROWTH] ? 1 : -1;
	if (x->incl[SB_MEMORY_RSS_GROWTH] != y->incl[SB_MEMORY_RSS_GROWTH])
		return x->incl[SB_MEMORY_RSS_GROWTH] < y->incl[SB_MEMORY_RSS_GROWTH] ? 1 : -1;
	return strcmp(x->path[0], y->path[0]);
}

int sb_memory_report_render(FILE *f, const struct sb_counter_report *r,
			    const struct report_opts *o)
{
	struct mem_table t = { .n = r->n_rows };
	int slot[SB_MEMORY_SLOTS], ret;
	unsigned k;
	size_t j;

	if (!sb_memory_report_slots(r, slot))
		return -EINVAL;
	t.rows = calloc(t.n ? t.n : 1, sizeof(*t.rows));
	t.names = calloc(t.n ? t.n : 1, sizeof(*t.names));
	if (!t.rows || !t.names) {
		free(t.rows);
		free(t.names);
		return -ENOMEM;
	}
	for (k = 0; k < SB_MEMORY_SLOTS; k++)
		t.has[k] = slot[k] >= 0;
	for (j = 0; j < t.n; j++) {
		t.names[j] = r->rows[j].name;
		t.rows[j] = (struct mem_row){ .path = &t.names[j], .depth = 1,
					      .calls = r->rows[j].calls,
					      .unknown = r->rows[j].unknown };
		for (k = 0; k < SB_MEMORY_SLOTS; k++) {
			t.rows[j].incl[k] = slot[k] >= 0 ? r->rows[j].incl[slot[k]] : 0;
			t.rows[j].excl[k] = slot[k] >= 0 ? r->rows[j].excl[slot[k]] : 0;
		}
	}
	qsort(t.rows, t.n, sizeof(*t.rows), by_peak_then_growth);
	ret = render(f, &t, o);
	free(t.rows);
	free(t.names);
	return ret;
}

int sb_memory_paths_render(FILE *f, const struct sb_profile *p, const struct sb_mem_paths *m,
			   const struct report_opts *o)
{
	struct mem_table t = { .paths = true };
	size_t names = 0, at = 0;
	struct mem_row *row;
	uint32_t i, a, d;
	unsigned k;
	int ret;

	for (i = sb_mem_paths_next(m, 0); i != SB_MEM_NONE; i = sb_mem_paths_next(m, i)) {
		t.n++;
		names += m->nodes[i].depth;
	}
	t.rows = calloc(t.n ? t.n : 1, sizeof(*t.rows));
	t.names = calloc(names ? names : 1, sizeof(*t.names));
	if (!t.rows || !t.names) {
		free(t.rows);
		free(t.names);
		return -ENOMEM;
	}
	for (k = 0; k < SB_MEMORY_SLOTS; k++)
		t.has[k] = m->slot[k] >= 0;
	row = t.rows;
	for (i = sb_mem_paths_next(m, 0); i != SB_MEM_NONE; i = sb_mem_paths_next(m, i), row++) {
		*row = (struct mem_row){ .path = &t.names[at], .depth = m->nodes[i].depth,
					 .calls = m->nodes[i].calls, .unknown = m->nodes[i].unknown };
		memcpy(row->incl, m->nodes[i].incl, sizeof(row->incl));
		memcpy(row->excl, m->nodes[i].excl, sizeof(row->excl));
		for (a = i, d = row->depth; d-- > 0; a = m->nodes[a].parent)
			t.names[at + d] = p->regions[m->nodes[a].region].name;
		at += row->depth;
	}
	ret = render(f, &t, o);
	free(t.rows);
	free(t.names);
	return ret;
}

/* ---- the view: --memory ---- */

/* Per call path, or --flat the counter report's rows: one of the two is built. */
struct memory_view {
	struct sb_mem_paths paths;
	struct sb_counter_report flat;
};

static int memory_require(const struct sb_profile *p, const struct report_opts *o,
			  struct sb_error *err)
{
	int slot[SB_MEMORY_SLOTS];

	(void)o;
	if (sb_memory_slots(p, slot))
		return 0;
	return sb_fail(err, EINVAL, "the profile has no memory values: record with --memory");
}

static void memory_release(void *state)
{
	struct memory_view *m = state;

	if (!m)
		return;
	sb_mem_paths_free(&m->paths);
	sb_counter_report_free(&m->flat);
	free(m);
}

static int memory_build(void **state, const struct sb_profile *p, const struct report_opts *o,
			struct sb_error *err)
{
	struct memory_view *m = calloc(1, sizeof(*m));
	int r;

	if (!m)
		return -ENOMEM;
	r = o->flat ? sb_counter_report_build(&m->flat, p, o->rank, o->mpi_detail, err) :
		      sb_mem_paths_build(&m->paths, p, o->rank, err);
	if (r) {
		memory_release(m);
		return r;
	}
	*state = m;
	return 0;
}

static int memory_render(FILE *f, const struct sb_profile *p, const void *state,
			 const struct report_opts *o)
{
	const struct memory_view *m = state;

	return o->flat ? sb_memory_report_render(f, &m->flat, o) :
			 sb_memory_paths_render(f, p, &m->paths, o);
}

const struct sb_report_view sb_memory_report_view = {
	.option = "memory",
	.help = "      --memory        the memory recorded with record --memory instead: per\n"
		"                      call path (--flat: per region) the calls' resident\n"
		"                      size gained and given back (MiB), the peak's growth\n"
		"                      and the page faults (docs/COUNTERS.md)\n",
	.html_note = "",
	.require = memory_require,
	.build = memory_build,
	.render = memory_render,
	.release = memory_release,
};
