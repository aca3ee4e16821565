/* `report --gpu`: GPU work by kernel, copy kind and memset, then host time per CUDA API call. */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "render/gpu_report.h"
#include "render/report_views.h"
#include "util/demangle.h"
#include "util/text_format.h"

char *sb_gpu_display_name(const char *name)
{
	char *d = sb_demangle(name);

	return d ? d : strdup(name);
}

/* CUpti_ActivityMemcpyKind, as the recorder stores it (cupti_activity.h). */
static const char *const copy_kinds[] = {
	"unknown", "HtoD", "DtoH", "HtoA", "AtoH", "AtoA", "AtoD", "DtoA", "DtoD", "HtoH", "PtoP",
};

static const char *kind_name(int32_t kind)
{
	return kind == SB_CUDA_ACT_KERNEL ? "kernel" : kind == SB_CUDA_ACT_MEMCPY ? "memcpy" :
	       "memset";
}

/* ---- building ---- */

/* One piece of GPU work, keyed for grouping. */
struct item {
	int32_t kind;
	int64_t key;		/* kernel: name id or -1; memcpy: copy kind; memset: -1 */
	uint32_t region;
	int64_t ns;
	int64_t bytes;
};

static int cmp_item(const void *a, const void *b)
{
	const struct item *x = a, *y = b;

	if (x->kind != y->kind)
		return x->kind < y->kind ? -1 : 1;
	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	return x->region < y->region ? -1 : x->region > y->region;
}

static bool same_row(const struct item *a, const struct item *b)
{
	return a->kind == b->kind && a->key == b->key;
}

static void fill_item(struct item *it, const struct sb_profile *p, const struct sb_cuda_activity *a)
{
	const struct sb_cuda_data *d = &p->cuda;

	*it = (struct item){ .kind = a->kind, .key = -1, .region = SB_GPU_NO_REGION,
			     .ns = a->end > a->start ? a->end - a->start : 0, .bytes = a->bytes };
	if (a->kind == SB_CUDA_ACT_KERNEL && a->name >= 0 && (uint64_t)a->name < d->n_names)
		it->key = a->name;
	else if (a->kind == SB_CUDA_ACT_MEMCPY && a->copy_kind >= 0 &&
		 (size_t)a->copy_kind < sizeof(copy_kinds) / sizeof(copy_kinds[0]))
		it->key = a->copy_kind;
	if (a->pair >= 0 && (uint64_t)a->pair < p->n_pairs && p->pairs[a->pair].rank == a->rank)
		it->region = p->pairs[a->pair].region;
}

/* The GPU work of the wanted ranks as items; host calls counted on the way. */
static struct item *collect(struct sb_gpu_report *r, const struct sb_profile *p, int64_t rank,
			    size_t *n)
{
	const struct sb_cuda_activity *a;
	struct item *it;
	size_t i;

	*n = 0;
	it = malloc((p->cuda.n_acts ? p->cuda.n_acts : 1) * sizeof(*it));
	if (!it)
		return NULL;
	for (i = 0; i < p->cuda.n_acts; i++) {
		a = &p->cuda.acts[i];
		if (rank >= 0 && (int64_t)a->rank != rank)
			continue;
		if (sb_cuda_on_gpu(a->kind)) {
			fill_item(&it[(*n)++], p, a);
			continue;
		}
		r->host_calls++;
		if (a->kind == SB_CUDA_ACT_SYNC) {
			r->syncs++;
			r->sync_total += a->end > a->start ? a->end - a->start : 0;
		}
	}
	return it;
}

static int row_name(struct sb_gpu_row *row, const struct sb_profile *p, const struct item *it)
{
	if (it->kind == SB_CUDA_ACT_KERNEL && it->key >= 0) {
		row->mangled = p->cuda.names[it->key];
		row->name = sb_gpu_display_name(row->mangled ? row->mangled : "");
	} else if (it->kind == SB_CUDA_ACT_KERNEL) {
		row->name = strdup("(unnamed kernel)");
	} else if (it->kind == SB_CUDA_ACT_MEMCPY) {
		row->name = strdup(copy_kinds[it->key >= 0 ? it->key : 0]);
	} else {
		row->name = strdup("memset");
	}
	return row->name ? 0 : -ENOMEM;
}

static void add_item(struct sb_gpu_row *row, const struct item *it)
{
	struct sb_gpu_launcher *l = &row->launchers[row->n_launchers - 1];

	row->calls++;
	row->total += it->ns;
	if (it->ns < row->min)
		row->min = it->ns;
	if (it->ns > row->max)
		row->max = it->ns;
	if (row->bytes >= 0 && it->bytes > 0)
		row->bytes += it->bytes;
	l->calls++;
	l->ns += it->ns;
}

/* The distinct regions of the row starting at sorted item i. */
static size_t launchers(const struct item *it, size_t i, size_t n)
{
	size_t j, k = 1;

	for (j = i + 1; j < n && same_row(&it[i], &it[j]); j++)
		k += it[j].region != it[j - 1].region;
	return k;
}

/* Rows and their launchers from the sorted items: a row per (kind, key), a launcher per region. */
static int group(struct sb_gpu_report *r, const struct sb_profile *p, const struct item *it,
		 size_t n)
{
	struct sb_gpu_row *row = NULL;
	size_t i, rows = 0;

	for (i = 0; i < n; i++)
		rows += !i || !same_row(&it[i - 1], &it[i]);
	r->rows = calloc(rows ? rows : 1, sizeof(*r->rows));
	if (!r->rows)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		if (!i || !same_row(&it[i - 1], &it[i])) {
			row = &r->rows[r->n_rows++];
			*row = (struct sb_gpu_row){ .kind = it[i].kind, .min = INT64_MAX,
						    .bytes = it[i].kind == SB_CUDA_ACT_KERNEL ? -1 : 0 };
			row->launchers = malloc(launchers(it, i, n) * sizeof(*row->launchers));
			if (!row->launchers || row_name(row, p, &it[i]))
				return -ENOMEM;
		}
		if (!row->n_launchers || row->launchers[row->n_launchers - 1].region != it[i].region)
			row->launchers[row->n_launchers++] =
				(struct sb_gpu_launcher){ .region = it[i].region };
		add_item(row, &it[i]);
		r->gpu_work++;
		r->gpu_total += it[i].ns;
	}
	return 0;
}

static int cmp_launcher(const void *a, const void *b)
{
	const struct sb_gpu_launcher *x = a, *y = b;

	if (x->ns != y->ns)
		return x->ns > y->ns ? -1 : 1;
	return x->region < y->region ? -1 : x->region > y->region;
}

static int cmp_row(const void *a, const void *b)
{
	const struct sb_gpu_row *x = a, *y = b;

	if (x->total != y->total)
		return x->total > y->total ? -1 : 1;
	if (x->kind != y->kind)
		return x->kind < y->kind ? -1 : 1;
	return strcmp(x->name, y->name);
}

int sb_gpu_report_build(struct sb_gpu_report *r, const struct sb_profile *p, int64_t rank,
			struct sb_error *err)
{
	struct item *it;
	size_t n, i;
	int ret;

	memset(r, 0, sizeof(*r));
	it = collect(r, p, rank, &n);
	if (!it)
		return sb_fail(err, ENOMEM, "GPU report: out of memory");
	qsort(it, n, sizeof(*it), cmp_item);
	ret = group(r, p, it, n);
	free(it);
	if (!ret)
		ret = sb_cuda_api_sum_build(&r->api, p, rank);
	if (ret) {
		sb_gpu_report_free(r);
		return sb_fail(err, ENOMEM, "GPU report: out of memory");
	}
	for (i = 0; i < r->n_rows; i++)
		qsort(r->rows[i].launchers, r->rows[i].n_launchers,
		      sizeof(*r->rows[i].launchers), cmp_launcher);
	qsort(r->rows, r->n_rows, sizeof(*r->rows), cmp_row);
	return 0;
}

void sb_gpu_report_free(struct sb_gpu_report *r)
{
	size_t i;

	for (i = 0; i < r->n_rows; i++) {
		free(r->rows[i].name);
		free(r->rows[i].launchers);
	}
	free(r->rows);
	sb_cuda_api_sum_free(&r->api);
	memset(r, 0, sizeof(*r));
}

/* ---- rendering ---- */

static const char *region_name(const struct sb_profile *p, uint32_t region)
{
	return region == SB_GPU_NO_REGION ? "(outside every region)" : p->regions[region].name;
}

static int64_t row_avg(const struct sb_gpu_row *row)
{
	return row->calls ? row->total / (int64_t)row->calls : 0;
}

/* What the text fits in without --wide: a terminal's default width. */
#define TEXT_COLUMNS 80
/* Columns before the name: kind, calls, total, avg, (min, max,) bytes. */
#define ROW_LEFT 54
/* Where a name of its own line starts. */
#define NAME_LEFT 7
/* "       launched in:", and where its continuation lines start. */
#define LAUNCH_LEFT 19
/* A launching region's name keeps at most this much of a line without --wide. */
#define LAUNCHER_MAX 40

/*
 * One table row; without --wide no min and max, and a name too long for the
 * room left on its own line below, under the launching regions' indent.
 */
static void text_cells(FILE *f, const struct sb_gpu_row *row, bool wide)
{
	char t[4][FORMAT_NS_MAX + 1], bytes[32];

	format_ns(t[0], sizeof(t[0]), row->total);
	format_ns(t[1], sizeof(t[1]), row_avg(row));
	format_ns(t[2], sizeof(t[2]), row->min);
	format_ns(t[3], sizeof(t[3]), row->max);
	if (row->bytes >= 0)
		snprintf(bytes, sizeof(bytes), "%" PRId64, row->bytes);
	else
		strcpy(bytes, "-");
	fprintf(f, "%-6s %8" PRIu64 " %10s %10s ", kind_name(row->kind), row->calls, t[0], t[1]);
	if (wide)
		fprintf(f, "%10s %10s ", t[2], t[3]);
	fprintf(f, "%14s", bytes);
	if (!wide && format_width(row->name) > TEXT_COLUMNS - ROW_LEFT) {
		fprintf(f, "\n%*s", NAME_LEFT, "");
		format_cut(f, row->name, TEXT_COLUMNS - NAME_LEFT);
	} else {
		fputs("  ", f);
		format_text(f, row->name);
	}
	fputc('\n', f);
}

/* The regions that launched row's work; without --wide, wrapped at 80 columns. */
static void text_launchers(FILE *f, const struct sb_profile *p, const struct sb_gpu_row *row,
			   bool wide)
{
	char t[FORMAT_NS_MAX + 1], item[LAUNCHER_MAX + 3 * FORMAT_NS_MAX];
	size_t i, col = LAUNCH_LEFT, len;
	FILE *m;

	fputs("       launched in:", f);
	for (i = 0; i < row->n_launchers; i++) {
		format_ns(t, sizeof(t), row->launchers[i].ns);
		m = fmemopen(item, sizeof(item), "w");
		if (!m)
			return;
		format_cut(m, region_name(p, row->launchers[i].region),
			   wide ? SIZE_MAX : LAUNCHER_MAX);
		fprintf(m, " %s (%" PRIu64 ")", t, row->launchers[i].calls);
		len = (size_t)ftell(m);
		fclose(m);
		item[len < sizeof(item) ? len : sizeof(item) - 1] = '\0';
		if (i)
			fputc(',', f);
		if (!wide && i && col + 2 + format_width(item) > TEXT_COLUMNS) {
			fprintf(f, "\n%*s", LAUNCH_LEFT, "");
			col = LAUNCH_LEFT;
		}
		/* Escaped already, but the buffer may have cut a sequence in two. */
		fputc(' ', f);
		format_text(f, item);
		col += 2 + format_width(item);
	}
	fputc('\n', f);
}

static void text_row(FILE *f, const struct sb_profile *p, const struct sb_gpu_row *row,
		     bool wide)
{
	text_cells(f, row, wide);
	text_launchers(f, p, row, wide);
}

/* Host time in each CUDA API function, as nsys stats' cuda_api_sum; --wide adds min to stddev. */
static void text_api(FILE *f, const struct sb_cuda_api_sum *s, bool wide)
{
	char t[6][FORMAT_NS_MAX + 1], pct[16];
	const struct sb_cuda_api_row *r;
	size_t i;

	if (!s->n_rows)
		return;
	fputs("\nCUDA API calls by function: the host time in each, share of all of it\n", f);
	fprintf(f, "%6s %10s %8s %10s %10s ", "time%", "total", "calls", "avg", "median");
	if (wide)
		fprintf(f, "%10s %10s %10s ", "min", "max", "stddev");
	fputs(" name\n", f);
	for (i = 0; i < s->n_rows; i++) {
		r = &s->rows[i];
		format_pct(pct, sizeof(pct), r->total, s->total);
		format_ns(t[0], sizeof(t[0]), r->total);
		format_ns(t[1], sizeof(t[1]), r->avg);
		format_ns(t[2], sizeof(t[2]), r->median);
		format_ns(t[3], sizeof(t[3]), r->min);
		format_ns(t[4], sizeof(t[4]), r->max);
		format_ns(t[5], sizeof(t[5]), r->stddev);
		fprintf(f, "%6s %10s %8" PRIu64 " %10s %10s ", pct, t[0], r->calls, t[1], t[2]);
		if (wide)
			fprintf(f, "%10s %10s %10s ", t[3], t[4], t[5]);
		fputc(' ', f);
		format_text(f, r->name);
		fputc('\n', f);
	}
}

static void render_text(FILE *f, const struct sb_profile *p, const struct sb_gpu_report *r,
			const struct report_opts *o)
{
	char t[FORMAT_NS_MAX + 1], s[FORMAT_NS_MAX + 1];
	size_t i;

	sb_report_file_line(f, p, o);
	format_ns(t, sizeof(t), r->gpu_total);
	format_ns(s, sizeof(s), r->sync_total);
	fprintf(f, "GPU       %" PRIu64 " %s on the GPU, %s;%s%" PRIu64 " CUDA API %s, %" PRIu64
		" %s (%s waited)\n\n", r->gpu_work,
		format_plural(r->gpu_work, "activity", "activities"), t,
		o->wide ? " " : "\n          ", r->host_calls,
		format_plural(r->host_calls, "call", "calls"), r->syncs,
		format_plural(r->syncs, "synchronization", "synchronizations"), s);
	if (!r->gpu_work) {
		fputs(r->host_calls ? "no GPU work recorded: GPU execution times need record --cuda "
				      "at launch\n" :
				      "no CUDA activity in this profile (record it with record --cuda)\n",
		      f);
	} else {
		fputs("GPU time of kernels, copies and memsets by name; under each, the regions "
		      "that\nlaunched it: GPU time (launches)\n", f);
		fprintf(f, "%-6s %8s %10s %10s ", "kind", "calls", "total", "avg");
		if (o->wide)
			fprintf(f, "%10s %10s ", "min", "max");
		fprintf(f, "%14s  %s\n", "bytes", "name");
		for (i = 0; i < r->n_rows; i++)
			text_row(f, p, &r->rows[i], o->wide);
	}
	text_api(f, &r->api, o->wide);
}

static void json_row(FILE *f, const struct sb_profile *p, const struct sb_gpu_row *row)
{
	size_t i;

	fprintf(f, "{\"kind\": \"%s\", \"name\": ", kind_name(row->kind));
	format_json_string(f, row->name);
	fputs(", \"mangled\": ", f);
	if (row->mangled)
		format_json_string(f, row->mangled);
	else
		fputs("null", f);
	fprintf(f, ", \"calls\": %" PRIu64 ", \"total_ns\": %" PRId64 ", \"avg_ns\": %" PRId64
		", \"min_ns\": %" PRId64 ", \"max_ns\": %" PRId64, row->calls, row->total,
		row_avg(row), row->min, row->max);
	if (row->bytes >= 0)
		fprintf(f, ", \"bytes\": %" PRId64, row->bytes);
	else
		fputs(", \"bytes\": null", f);
	fputs(", \"regions\": [", f);
	for (i = 0; i < row->n_launchers; i++) {
		fputs(i ? ", {\"region\": " : "{\"region\": ", f);
		if (row->launchers[i].region == SB_GPU_NO_REGION)
			fputs("null", f);
		else
			format_json_string(f, p->regions[row->launchers[i].region].name);
		fprintf(f, ", \"calls\": %" PRIu64 ", \"gpu_ns\": %" PRId64 "}",
			row->launchers[i].calls, row->launchers[i].ns);
	}
	fputs("]}", f);
}

static void json_api(FILE *f, const struct sb_cuda_api_sum *s)
{
	const struct sb_cuda_api_row *r;
	size_t i;

	fprintf(f, ",\n \"api_total_ns\": %" PRId64 ", \"api\": [", s->total);
	for (i = 0; i < s->n_rows; i++) {
		r = &s->rows[i];
		fputs(i ? ",\n  {\"name\": " : "\n  {\"name\": ", f);
		format_json_string(f, r->name);
		fprintf(f, ", \"api\": \"%s\", \"calls\": %" PRIu64 ", \"total_ns\": %" PRId64
			", \"share\": %.4f, \"avg_ns\": %" PRId64 ", \"median_ns\": %" PRId64
			", \"min_ns\": %" PRId64 ", \"max_ns\": %" PRId64 ", \"stddev_ns\": %" PRId64 "}",
			r->kind == SB_CUDA_ACT_RUNTIME ? "runtime" : "driver", r->calls, r->total,
			s->total > 0 ? (double)r->total / (double)s->total : 0.0, r->avg, r->median,
			r->min, r->max, r->stddev);
	}
	fputs(s->n_rows ? "\n ]" : "]", f);
}

static void render_json(FILE *f, const struct sb_profile *p, const struct sb_gpu_report *r,
			const struct report_opts *o)
{
	size_t i;

	fputs("{\"file\": ", f);
	format_json_string(f, o->path ? o->path : "");
	fprintf(f, ", \"gpu_activities\": %" PRIu64 ", \"gpu_total_ns\": %" PRId64
		", \"cuda_api_calls\": %" PRIu64 ", \"synchronizations\": %" PRIu64
		", \"synchronization_ns\": %" PRId64, r->gpu_work, r->gpu_total, r->host_calls,
		r->syncs, r->sync_total);
	json_api(f, &r->api);
	fputs(",\n \"rows\": [", f);
	for (i = 0; i < r->n_rows; i++) {
		fputs(i ? ",\n  " : "\n  ", f);
		json_row(f, p, &r->rows[i]);
	}
	fputs(r->n_rows ? "\n ]}\n" : "]}\n", f);
}

/* One line per row and launching region: the row's own fields repeat on each. */
static void render_csv(FILE *f, const struct sb_profile *p, const struct sb_gpu_report *r)
{
	const struct sb_gpu_row *row;
	size_t i, k;

	fputs("kind,name,calls,total_ns,avg_ns,min_ns,max_ns,bytes,region,region_calls,"
	      "region_gpu_ns\n", f);
	for (i = 0; i < r->n_rows; i++) {
		row = &r->rows[i];
		for (k = 0; k < row->n_launchers; k++) {
			fprintf(f, "%s,", kind_name(row->kind));
			format_csv_field(f, row->name);
			fprintf(f, ",%" PRIu64 ",%" PRId64 ",%" PRId64 ",%" PRId64 ",%" PRId64 ",",
				row->calls, row->total, row_avg(row), row->min, row->max);
			if (row->bytes >= 0)
				fprintf(f, "%" PRId64, row->bytes);
			fputc(',', f);
			if (row->launchers[k].region != SB_GPU_NO_REGION)
				format_csv_field(f, region_name(p, row->launchers[k].region));
			fprintf(f, ",%" PRIu64 ",%" PRId64 "\n", row->launchers[k].calls,
				row->launchers[k].ns);
		}
	}
}

int sb_gpu_report_render(FILE *f, const struct sb_profile *p, const struct sb_gpu_report *r,
			 const struct report_opts *o)
{
	if (o->format == SB_REPORT_JSON)
		render_json(f, p, r, o);
	else if (o->format == SB_REPORT_CSV)
		render_csv(f, p, r);
	else
		render_text(f, p, r, o);
	return ferror(f) ? -EIO : 0;
}

/* ---- the view: --gpu ---- */

static int gpu_require(const struct sb_profile *p, const struct report_opts *o,
		       struct sb_error *err)
{
	(void)o;
	if (p->cuda.n_acts)
		return 0;
	return sb_fail(err, EINVAL, "the profile has no CUDA activity: record with --cuda");
}

static int gpu_build(void **state, const struct sb_profile *p, const struct report_opts *o,
		     struct sb_error *err)
{
	struct sb_gpu_report *g = malloc(sizeof(*g));
	int r;

	if (!g)
		return sb_fail(err, ENOMEM, "GPU report: out of memory");
	r = sb_gpu_report_build(g, p, o->rank, err);
	if (r) {
		free(g);
		return r;
	}
	*state = g;
	return 0;
}

static int gpu_render(FILE *f, const struct sb_profile *p, const void *state,
		      const struct report_opts *o)
{
	return sb_gpu_report_render(f, p, state, o);
}

static void gpu_release(void *state)
{
	if (!state)
		return;
	sb_gpu_report_free(state);
	free(state);
}

/* It needs the activity, the index rows and the threads, never a call: they stay on disk. */
const struct sb_report_view sb_gpu_report_view = {
	.kind = &sb_cuda_kind,
	.option = "gpu",
	.help = "      --gpu           the GPU work recorded with record --cuda instead: per\n"
		"                      kernel (demangled), copy direction and memset its\n"
		"                      calls, total, avg, min and max GPU time, and the\n"
		"                      regions that launched it (docs/CUDA.md)\n",
	.html_note = "",
	.per_call = true,
	.lean = true,
	.require = gpu_require,
	.build = gpu_build,
	.render = gpu_render,
	.release = gpu_release,
};
