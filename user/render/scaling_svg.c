/* The scaling page's plots as inline SVG: n on a log2 axis, one point per run. */
#include <inttypes.h>
#include <math.h>

#include "render/scaling_svg.h"
#include "util/text_format.h"

#define W 460
#define H 300
#define LEFT 64
#define RIGHT 16
#define TOP 24
#define BOTTOM 40
#define Y_TICKS 5

static const char *const colours[] = {
	"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#17becf",
};
#define N_COLOURS (sizeof(colours) / sizeof(colours[0]))

struct plot {
	FILE *f;
	double x0, x1;		/* log2 of the first and last run's n */
	double y0, y1;		/* the value range (log10 of it when logy) */
	bool logy;
};

static double px(const struct plot *p, uint32_t n)
{
	return LEFT + (log2(n) - p->x0) / (p->x1 - p->x0) * (W - LEFT - RIGHT);
}

static double py(const struct plot *p, double v)
{
	if (p->logy)
		v = log10(v);
	return H - BOTTOM - (v - p->y0) / (p->y1 - p->y0) * (H - TOP - BOTTOM);
}

static void y_label(const struct plot *p, double v, bool percent, char *buf, size_t n)
{
	if (p->logy)
		format_ns(buf, n, (int64_t)llround(pow(10, v)));
	else if (percent)
		snprintf(buf, n, "%.0f%%", 100 * v);
	else
		snprintf(buf, n, "%.3g", v);
}

/* Frame, grid, ticks and labels; a log axis gets a tick per power of ten. */
static void axes(const struct plot *p, const struct sb_scaling *s, const char *ylabel,
		 bool percent)
{
	char buf[FORMAT_NS_MAX + 1];
	double v, step, y;
	size_t k;

	step = p->logy ? 1 : (p->y1 - p->y0) / Y_TICKS;
	for (v = p->logy ? ceil(p->y0) : p->y0; v <= p->y1 + 1e-9; v += step) {
		y = H - BOTTOM - (v - p->y0) / (p->y1 - p->y0) * (H - TOP - BOTTOM);
		y_label(p, v, percent, buf, sizeof(buf));
		fprintf(p->f, "<line class=\"grid\" x1=\"%d\" x2=\"%d\" y1=\"%.1f\" y2=\"%.1f\"/>"
			"<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%s</text>\n", LEFT,
			W - RIGHT, y, y, LEFT - 4, y + 4, buf);
	}
	for (k = 0; k < s->n_runs; k++)
		fprintf(p->f, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%u</text>\n",
			px(p, s->runs[k].n), H - BOTTOM + 16, s->runs[k].n);
	fprintf(p->f, "<path class=\"axis\" d=\"M%d %d V%d H%d\" fill=\"none\"/>\n"
		"<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">%s</text>\n"
		"<text x=\"%d\" y=\"%d\">%s</text>\n", LEFT, TOP, H - BOTTOM, W - RIGHT,
		(LEFT + W - RIGHT) / 2, H - 6, s->by_threads ? "threads" : "ranks", 4, TOP - 8,
		ylabel);
}

static void open_svg(const struct plot *p, const char *id)
{
	fprintf(p->f, "<svg id=\"%s\" xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" "
		"height=\"%d\" viewBox=\"0 0 %d %d\">\n", id, W, H, W, H);
}

static double run_value(const struct sb_scaling_run *r, bool efficiency)
{
	return efficiency ? r->efficiency : r->speedup;
}

void sb_scaling_svg_runs(FILE *f, const struct sb_scaling *s, bool efficiency)
{
	struct plot p = { .f = f, .x0 = log2(s->runs[0].n), .x1 = log2(s->runs[s->n_runs - 1].n) };
	double top = efficiency ? 1 : (double)s->runs[s->n_runs - 1].n / s->runs[0].n, v;
	const char *sep = "";
	size_t k;

	for (k = 0; k < s->n_runs; k++) {
		v = run_value(&s->runs[k], efficiency);
		if (!isnan(v) && v > top)
			top = v;
	}
	p.y1 = top * 1.15;
	open_svg(&p, efficiency ? "efficiency" : "speedup");
	axes(&p, s, efficiency ? "parallel efficiency" : s->weak ? "scaled speedup" : "speedup",
	     efficiency);
	fprintf(f, "<line class=\"ideal\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>\n",
		px(&p, s->runs[0].n), py(&p, 1), px(&p, s->runs[s->n_runs - 1].n),
		py(&p, efficiency ? 1 : top));
	fputs("<polyline class=\"measured\" fill=\"none\" stroke=\"#1f77b4\" stroke-width=\"2\" "
	      "points=\"", f);
	for (k = 0; k < s->n_runs; k++) {
		v = run_value(&s->runs[k], efficiency);
		if (isnan(v))
			continue;
		fprintf(f, "%s%.1f,%.1f", sep, px(&p, s->runs[k].n), py(&p, v));
		sep = " ";
	}
	fputs("\"/>\n", f);
	for (k = 0; k < s->n_runs; k++) {
		v = run_value(&s->runs[k], efficiency);
		if (!isnan(v))
			fprintf(f, "<circle class=\"point\" cx=\"%.1f\" cy=\"%.1f\" r=\"4\" "
				"fill=\"#1f77b4\"><title>%u: %.3f</title></circle>\n",
				px(&p, s->runs[k].n), py(&p, v), s->runs[k].n, v);
	}
	fputs("</svg>\n", f);
}

/* The log10 range of the plotted times, a little wider than they are. */
static void time_range(struct plot *p, const struct sb_scaling *s, const uint32_t *rows,
		       size_t n)
{
	double lo = INFINITY, hi = -INFINITY, v;
	size_t i, k;

	for (i = 0; i < n; i++)
		for (k = 0; k < s->n_runs; k++) {
			if (!s->rows[rows[i]].cells[k].present || s->rows[rows[i]].cells[k].max <= 0)
				continue;
			v = log10((double)s->rows[rows[i]].cells[k].max);
			lo = v < lo ? v : lo;
			hi = v > hi ? v : hi;
		}
	if (lo > hi)
		lo = hi = 0;
	p->y0 = floor(lo - 0.1);
	p->y1 = ceil(hi + 0.1);
}

static void time_line(const struct plot *p, const struct sb_scaling *s, uint32_t row,
		      const char *colour)
{
	const struct sb_scaling_cell *c;
	const char *sep = "";
	size_t k;

	fprintf(p->f, "<polyline class=\"region\" fill=\"none\" stroke=\"%s\" stroke-width=\"2\" "
		"points=\"", colour);
	for (k = 0; k < s->n_runs; k++) {
		c = &s->rows[row].cells[k];
		if (!c->present || c->max <= 0)
			continue;
		fprintf(p->f, "%s%.1f,%.1f", sep, px(p, s->runs[k].n), py(p, (double)c->max));
		sep = " ";
	}
	fputs("\"><title>", p->f);
	sb_html_escape(p->f, s->rows[row].path);
	fputs("</title></polyline>\n", p->f);
}

void sb_scaling_svg_times(FILE *f, const struct sb_scaling *s, const uint32_t *rows, size_t n)
{
	struct plot p = { .f = f, .x0 = log2(s->runs[0].n),
			  .x1 = log2(s->runs[s->n_runs - 1].n), .logy = true };
	size_t i;

	time_range(&p, s, rows, n);
	fputs("<div class=\"plots\">", f);
	open_svg(&p, "times");
	axes(&p, s, "time (slowest rank)", false);
	for (i = 0; i < n; i++)
		time_line(&p, s, rows[i], colours[i % N_COLOURS]);
	fputs("</svg>\n<ul class=\"legend\">\n", f);
	for (i = 0; i < n; i++) {
		fprintf(f, "<li><span style=\"color:%s\">&#9632;</span> ", colours[i % N_COLOURS]);
		sb_html_escape(f, s->rows[rows[i]].path);
		fputs("</li>\n", f);
	}
	fputs("</ul></div>\n", f);
}
