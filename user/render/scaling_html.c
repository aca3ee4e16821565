/*
 * `scope-bpf scaling --html`: one page of plain HTML and inline SVG, drawn
 * here, so it needs no script, no data to load and nothing from the network.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>

#include "render/scaling.h"
#include "render/scaling_svg.h"
#include "util/text_format.h"
#include "util/version.h"

/* Regions on the time plot: the longest in the first run that has them. */
#define TIME_LINES 8

static const char *const style =
	"body{font:14px system-ui,sans-serif;margin:1.5em;color:#222}"
	"h1{font-size:1.3em}h2{font-size:1.1em;margin-top:1.6em}"
	"table{border-collapse:collapse}td,th{padding:2px 8px;text-align:right}"
	"th{border-bottom:1px solid #888}td.name,th.name{text-align:left;white-space:pre}"
	"tr:nth-child(even){background:#f4f4f4}.plots{display:flex;flex-wrap:wrap;gap:1em}"
	"svg{background:#fff;border:1px solid #ddd}svg text{font-size:11px}"
	".ideal{stroke:#999;stroke-dasharray:5 4;fill:none}.axis{stroke:#444}"
	".grid{stroke:#eee}.legend{font-size:12px}";

void sb_html_escape(FILE *f, const char *s)
{
	for (; *s; s++) {
		if (*s == '&')
			fputs("&amp;", f);
		else if (*s == '<')
			fputs("&lt;", f);
		else if (*s == '>')
			fputs("&gt;", f);
		else if (*s == '"')
			fputs("&quot;", f);
		else if (*s == '\'')
			fputs("&#39;", f);
		else
			fputc(*s, f);
	}
}

static void ratio_td(FILE *f, double v, bool percent)
{
	if (isnan(v))
		fputs("<td>-</td>", f);
	else if (percent)
		fprintf(f, "<td>%.1f%%</td>", 100 * v);
	else
		fprintf(f, "<td>%.2f</td>", v);
}

static void time_td(FILE *f, int64_t ns, bool present)
{
	char buf[FORMAT_NS_MAX + 1];

	if (!present) {
		fputs("<td>-</td>", f);
		return;
	}
	format_ns(buf, sizeof(buf), ns);
	fprintf(f, "<td>%s</td>", buf);
}

static void runs_table(FILE *f, const struct sb_scaling *s)
{
	size_t k;

	fprintf(f, "<table id=\"runs\"><tr><th>%s</th><th>time</th><th>speedup</th>"
		"<th>efficiency</th><th class=\"name\">file</th></tr>\n",
		s->by_threads ? "threads" : "ranks");
	for (k = 0; k < s->n_runs; k++) {
		fprintf(f, "<tr><td>%u</td>", s->runs[k].n);
		time_td(f, s->runs[k].time, true);
		ratio_td(f, s->runs[k].speedup, false);
		ratio_td(f, s->runs[k].efficiency, true);
		fputs("<td class=\"name\">", f);
		sb_html_escape(f, s->runs[k].path);
		fputs("</td></tr>\n", f);
	}
	fputs("</table>\n", f);
}

static void head_row(FILE *f, const struct sb_scaling *s, const char *const *titles, size_t n)
{
	size_t k, t;

	fputs("<tr>", f);
	for (t = 0; t < n; t++)
		for (k = 0; k < s->n_runs; k++)
			fprintf(f, "<th>%s@%u</th>", titles[t], s->runs[k].n);
	fputs("<th class=\"name\">region</th></tr>\n", f);
}

static void name_td(FILE *f, const struct sb_scaling_row *r, bool indent)
{
	fprintf(f, "<td class=\"name\">%*s", indent ? (int)(2 * (r->depth - 1)) : 0, "");
	sb_html_escape(f, indent ? r->name : r->path);
	fputs("</td></tr>\n", f);
}

static void regions_table(FILE *f, const struct sb_scaling *s)
{
	static const char *const titles[] = { "time", "speedup", "eff" };
	const struct sb_scaling_row *r;
	size_t i, k;

	fputs("<table id=\"regions\">", f);
	head_row(f, s, titles, 3);
	for (i = 0; i < s->n_rows; i++) {
		r = &s->rows[i];
		fputs("<tr class=\"region\">", f);
		for (k = 0; k < s->n_runs; k++)
			time_td(f, r->cells[k].max, r->cells[k].present);
		for (k = 0; k < s->n_runs; k++)
			ratio_td(f, r->cells[k].speedup, false);
		for (k = 0; k < s->n_runs; k++)
			ratio_td(f, r->cells[k].efficiency, true);
		name_td(f, r, true);
	}
	fputs("</table>\n", f);
}

static void lost_table(FILE *f, const struct sb_scaling *s)
{
	static const char *const titles[] = { "share", "imbal", "MPI", "offcpu" };
	const struct sb_scaling_row *r;
	size_t i, k;

	if (!s->n_lost) {
		fputs("<p>No region's share of the run grew.</p>\n", f);
		return;
	}
	fputs("<table id=\"lost\">", f);
	head_row(f, s, titles, 4);
	for (i = 0; i < s->n_lost; i++) {
		r = &s->rows[s->lost[i]];
		fputs("<tr class=\"lost\">", f);
		for (k = 0; k < s->n_runs; k++)
			ratio_td(f, r->cells[k].share, true);
		for (k = 0; k < s->n_runs; k++)
			ratio_td(f, r->cells[k].imbalance, false);
		for (k = 0; k < s->n_runs; k++)
			ratio_td(f, r->cells[k].mpi_share, true);
		for (k = 0; k < s->n_runs; k++)
			ratio_td(f, r->cells[k].offcpu_share, true);
		name_td(f, r, false);
	}
	fputs("</table>\n", f);
}

static int cmp_first_time(const void *pa, const void *pb, void *arg)
{
	const struct sb_scaling *s = arg;
	const struct sb_scaling_cell *a = &s->rows[*(const uint32_t *)pa].cells[0];
	const struct sb_scaling_cell *b = &s->rows[*(const uint32_t *)pb].cells[0];
	int64_t ta = a->present ? a->max : -1, tb = b->present ? b->max : -1;

	return (ta < tb) - (ta > tb);
}

/* The regions the time plot draws: the longest in the first run. */
static size_t time_rows(const struct sb_scaling *s, uint32_t **rows)
{
	size_t i;

	*rows = malloc((s->n_rows ? s->n_rows : 1) * sizeof(**rows));
	if (!*rows)
		return 0;
	for (i = 0; i < s->n_rows; i++)
		(*rows)[i] = (uint32_t)i;
	qsort_r(*rows, s->n_rows, sizeof(**rows), cmp_first_time, (void *)s);
	return s->n_rows < TIME_LINES ? s->n_rows : TIME_LINES;
}

static void page_head(FILE *f, const struct sb_scaling *s)
{
	char prog[256];

	sb_scaling_program(s->runs[0].p, prog, sizeof(prog));
	fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n<title>", f);
	fputs("scaling: ", f);
	sb_html_escape(f, prog[0] ? prog : s->runs[0].path);
	fprintf(f, "</title>\n<style>%s</style></head>\n<body>\n<div id=\"errors\"></div>\n",
		style);
	fprintf(f, "<h1>%s scaling by %s: ", s->weak ? "Weak" : "Strong",
		s->by_threads ? "threads" : "ranks");
	sb_html_escape(f, prog[0] ? prog : "(program unknown)");
	fprintf(f, "</h1>\n<p>%zu runs, against %u %s. The time of a run or a region is its "
		"slowest rank's; %s</p>\n", s->n_runs, s->runs[0].n,
		sb_scaling_unit(s, s->runs[0].n),
		s->weak ? "ideal is the same time at every count (weak scaling)."
			: "ideal is the time falling as 1/n (strong scaling).");
}

int sb_scaling_html(FILE *f, const struct sb_scaling *s)
{
	uint32_t *rows;
	size_t n;

	n = time_rows(s, &rows);
	if (!rows)
		return -ENOMEM;
	page_head(f, s);
	runs_table(f, s);
	fputs("<h2>Speedup and efficiency</h2>\n<div class=\"plots\">\n", f);
	sb_scaling_svg_runs(f, s, false);
	sb_scaling_svg_runs(f, s, true);
	fputs("</div>\n<h2>Time per region and run</h2>\n", f);
	sb_scaling_svg_times(f, s, rows, n);
	regions_table(f, s);
	fputs("<h2>Where efficiency is lost</h2>\n<p>Regions whose share of the run grew from "
	      "the first run to the last, most first; imbal is the slowest rank's time over the "
	      "mean, MPI and offcpu the shares of the region's time.</p>\n", f);
	lost_table(f, s);
	/* The one script: it tells a browser test that the page was parsed to the end. */
	fprintf(f, "<script>document.body.dataset.ready = 'ok';</script>\n"
		"<p><small>scope-bpf %s</small></p>\n</body></html>\n", SCOPE_BPF_VERSION);
	free(rows);
	return ferror(f) ? -EIO : 0;
}
