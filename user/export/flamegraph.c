/* A self-contained interactive SVG flame graph of the sampled stacks, region paths drawn as the outermost frames. */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "util/text_format.h"
#include "util/utf8.h"
#include "export/samples_export.h"
#include "analysis/samples_report.h"

#define WIDTH 1200
#define PAD 10			/* left and right margin */
#define FRAME_H 16
#define TOP 84			/* title, subtitle, legend and buttons */
#define BOTTOM 30		/* the details line */
#define CHAR_W 7.2		/* 12px monospace: 0.6 em a character */
#define MIN_W 0.1		/* narrower frames are left out; zooming cannot show them anyway */

struct rgb {
	int r, g, b;
};

/* ---- XML text ---- */

/* Bytes of the valid UTF-8 sequence at s, else 0 (no overlongs, surrogates, or U+FFFE/F). */
static size_t utf8_len(const unsigned char *s)
{
	size_t n = sb_utf8_seq(s);

	/* U+FFFE and U+FFFF (EF BF BE, EF BF BF) are not characters in XML. */
	if (n == 3 && s[0] == 0xef && s[1] == 0xbf && (s[2] & 0xfe) == 0xbe)
		return 0;
	return n;
}

/*
 * At most max characters of s as XML text (max 0: all), with ".." when cut.
 * XML 1.0 allows neither most control characters nor invalid UTF-8: those
 * become spaces and U+FFFD, so one odd symbol cannot make the file unreadable.
 */
static void put_xml(FILE *f, const char *s, size_t max)
{
	const unsigned char *u = (const unsigned char *)s, *p;
	size_t chars = 0, n, keep;

	for (p = u; *p; p += n ? n : 1, chars++)
		n = utf8_len(p);
	keep = max && chars > max ? max - 2 : chars;
	for (; *u && keep; u += n ? n : 1, keep--) {
		n = utf8_len(u);
		if (!n)
			fputs("\xef\xbf\xbd", f);
		else if (*u == '&')
			fputs("&amp;", f);
		else if (*u == '<')
			fputs("&lt;", f);
		else if (*u == '>')
			fputs("&gt;", f);
		else if (*u == '"')
			fputs("&quot;", f);
		else if (*u < 0x20 || *u == 0x7f)
			fputc(' ', f);
		else
			fwrite(u, 1, n, f);
	}
	if (max && chars > max)
		fputs("..", f);
}

/* ---- colours ---- */

/* Three numbers in [0, 1) from a name, so a function keeps its colour everywhere. */
static void name_hash(const char *s, double v[3])
{
	uint64_t h = 0xcbf29ce484222325ull;
	int i;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 0x100000001b3ull;
	for (i = 0; i < 3; i++) {
		v[i] = (double)(h & 0xffff) / 65536.0;
		h >>= 16;
	}
}

static struct rgb mix(const double v[3], int r0, int rs, int g0, int gs, int b0, int bs)
{
	return (struct rgb){ r0 + (int)(rs * v[0]), g0 + (int)(gs * v[1]), b0 + (int)(bs * v[2]) };
}

static struct rgb colour(enum sb_tree_kind k, enum sb_sample_kind kind, const char *name)
{
	bool off = kind == SB_SAMPLE_OFFCPU;
	double v[3];

	name_hash(name, v);
	switch (k) {
	case SB_TN_REGION:
		return mix(v, 150, 40, 110, 40, 215, 35);	/* purple */
	case SB_TN_USER:
		if (off)
			return mix(v, 70, 50, 130, 60, 220, 35);	/* cold blue */
		return (struct rgb){ 205 + (int)(50 * v[2]), (int)(230 * v[0]),
				     (int)(55 * v[1]) };	/* hot: red to yellow */
	case SB_TN_INLINED:
		return mix(v, 60, 60, 190, 50, 190, 50);	/* aqua */
	case SB_TN_KERNEL:
		if (off)
			return mix(v, 150, 25, 165, 25, 195, 20);	/* steel */
		return mix(v, 200, 30, 165, 25, 120, 30);	/* tan */
	case SB_TN_RANK:
		return mix(v, 175, 20, 175, 20, 185, 20);
	default:
		return (struct rgb){ 200, 200, 205 };
	}
}

/* ---- one graph ---- */

struct graph {
	enum sb_sample_kind kind;
	struct sb_stack_tree t;
	uint64_t *x;		/* node -> weight left of it, in the full graph */
};

static int graph_build(struct graph *g, const struct sb_profile *p, enum sb_sample_kind kind)
{
	const struct sb_tree_node *n;
	uint64_t at;
	uint32_t c;
	size_t i;
	int r;

	g->kind = kind;
	r = sb_stack_tree_build(&g->t, p, kind, sb_profile_rank_count(p) > 1);
	if (r)
		return r;
	g->x = calloc(g->t.n_nodes, sizeof(*g->x));
	if (!g->x) {
		sb_stack_tree_free(&g->t);
		return -ENOMEM;
	}
	/* A child is always made after its parent: one pass in index order places them all. */
	for (i = 0; i < g->t.n_nodes; i++) {
		n = &g->t.nodes[i];
		at = g->x[i];
		for (c = n->first_child; c != SB_TREE_NONE; c = g->t.nodes[c].next_sibling) {
			g->x[c] = at;
			at += g->t.nodes[c].weight;
		}
	}
	return 0;
}

static void graph_free(struct graph *g)
{
	sb_stack_tree_free(&g->t);
	free(g->x);
}

static void weight_text(char *buf, size_t n, enum sb_sample_kind kind, uint64_t w)
{
	if (kind == SB_SAMPLE_OFFCPU)
		format_ns(buf, n, w > INT64_MAX ? INT64_MAX : (int64_t)w);
	else
		snprintf(buf, n, "%" PRIu64 " %s", w, format_plural(w, "sample", "samples"));
}

static void put_frame(FILE *f, const struct graph *g, uint32_t i, int height)
{
	const struct sb_tree_node *n = &g->t.nodes[i];
	double scale = (double)(WIDTH - 2 * PAD) / (double)g->t.nodes[0].weight;
	double x = PAD + (double)g->x[i] * scale, w = (double)n->weight * scale;
	double y = height - BOTTOM - (double)(n->depth + 1) * FRAME_H;
	char buf[32], wt[FORMAT_NS_MAX + 16];
	const char *name = sb_stack_tree_label(&g->t, i, buf, sizeof(buf));
	struct rgb c = colour(n->kind, g->kind, name);
	long fit = (long)((w - 6) / CHAR_W);

	weight_text(wt, sizeof(wt), g->kind, n->weight);
	fprintf(f, "<g class=\"f\" data-x=\"%" PRIu64 "\" data-w=\"%" PRIu64 "\" data-d=\"%u\"><title>",
		g->x[i], n->weight, n->depth);
	put_xml(f, name, 0);
	fprintf(f, "&#10;%s, %.2f%%</title><rect x=\"%.1f\" y=\"%.0f\" width=\"%.1f\" height=\"%d\" "
		"fill=\"rgb(%d,%d,%d)\"/><text x=\"%.1f\" y=\"%.0f\">", wt,
		100.0 * (double)n->weight / (double)g->t.nodes[0].weight, x, y, w, FRAME_H - 1,
		c.r, c.g, c.b, x + 3, y + FRAME_H - 4);
	if (fit >= 3)
		put_xml(f, name, (size_t)fit);
	fputs("</text></g>\n", f);
}

static void put_swatch(FILE *f, int x, struct rgb c, const char *label)
{
	fprintf(f, "<rect x=\"%d\" y=\"52\" width=\"12\" height=\"12\" fill=\"rgb(%d,%d,%d)\"/>"
		"<text class=\"legend\" x=\"%d\" y=\"62\">%s</text>\n", x, c.r, c.g, c.b, x + 16,
		label);
}

/* What each colour means; the sample colours drawn for a typical name. */
static void put_legend(FILE *f, enum sb_sample_kind kind)
{
	static const double mid[3] = { 0.5, 0.5, 0.5 };
	bool off = kind == SB_SAMPLE_OFFCPU;
	struct rgb user = off ? mix(mid, 70, 50, 130, 60, 220, 35) :
			  (struct rgb){ 230, 115, 27 };

	put_swatch(f, WIDTH - 560, mix(mid, 150, 40, 110, 40, 215, 35), "region path");
	put_swatch(f, WIDTH - 440, user, "user code");
	put_swatch(f, WIDTH - 330, mix(mid, 60, 60, 190, 50, 190, 50), "inlined");
	put_swatch(f, WIDTH - 240, off ? mix(mid, 150, 25, 165, 25, 195, 20) :
			mix(mid, 200, 30, 165, 25, 120, 30), "kernel");
}

static void put_subtitle(FILE *f, const struct sb_profile *p, const struct graph *g)
{
	const struct sb_meta *hz = sb_profile_meta(p, "sample_frequency_hz");
	const struct sb_meta *ev = sb_profile_meta(p, "sample_event");
	const struct sb_meta *cmd = sb_profile_meta(p, "command");
	char wt[FORMAT_NS_MAX + 16];

	weight_text(wt, sizeof(wt), g->kind, g->t.nodes[0].weight);
	fprintf(f, "<text class=\"sub\" x=\"%d\" y=\"42\" text-anchor=\"middle\">%s: %s%s",
		WIDTH / 2, g->kind == SB_SAMPLE_OFFCPU ? "off-CPU" : "CPU", wt,
		g->kind == SB_SAMPLE_OFFCPU ? " blocked" : "");
	if (g->kind == SB_SAMPLE_CPU && hz && hz->is_int)
		fprintf(f, " at %" PRId64 " Hz", hz->i);
	if (g->kind == SB_SAMPLE_CPU && ev && !ev->is_int && ev->s) {
		fputs(" (", f);
		put_xml(f, ev->s, 0);
		fputc(')', f);
	}
	if (cmd && !cmd->is_int && cmd->s && *cmd->s) {
		fputs(" \xe2\x80\x94 ", f);
		put_xml(f, cmd->s, 80);
	}
	fputs("</text>\n", f);
}

static void put_graph(FILE *f, const struct sb_profile *p, const struct graph *g, int height,
		      bool shown)
{
	double scale = (double)(WIDTH - 2 * PAD) / (double)g->t.nodes[0].weight;
	uint32_t i;

	fprintf(f, "<g class=\"graph\" id=\"%s\" data-total=\"%" PRIu64 "\" data-unit=\"%s\"%s>\n",
		g->kind == SB_SAMPLE_OFFCPU ? "offcpu" : "cpu", g->t.nodes[0].weight,
		g->kind == SB_SAMPLE_OFFCPU ? "ns" : "samples", shown ? "" : " display=\"none\"");
	put_subtitle(f, p, g);
	put_legend(f, g->kind);
	for (i = 0; i < g->t.n_nodes; i++)
		if ((double)g->t.nodes[i].weight * scale >= MIN_W)
			put_frame(f, g, i, height);
	fputs("</g>\n", f);
}

/* ---- the document ---- */

static const char style[] =
	"<style type=\"text/css\"><![CDATA[\n"
	"text { font-family: monospace; font-size: 12px; fill: #000; }\n"
	"#title { font-size: 17px; font-family: sans-serif; }\n"
	".sub, .legend { font-family: sans-serif; fill: #444; }\n"
	".btn { font-family: sans-serif; fill: #1d4f91; cursor: pointer; }\n"
	".btn:hover { text-decoration: underline; }\n"
	".btn.off { fill: #aaa; cursor: default; text-decoration: none; }\n"
	".f { cursor: pointer; }\n"
	".f rect { stroke: #fff; stroke-width: 0.5; }\n"
	".f:hover rect { stroke: #000; stroke-width: 1; }\n"
	".f.anc rect { fill-opacity: 0.45; }\n"
	".f.hit rect { fill: rgb(225,60,225); }\n"
	"#details, #matched { font-family: sans-serif; fill: #222; }\n"
	"]]></style>\n";

/* Our own few lines of script: zoom, search, hover details and the CPU / off-CPU toggle. */
static const char script[] =
	"<script type=\"text/ecmascript\"><![CDATA[\n"
	"'use strict';\n"
	"var svg, graphs = [], cur = 0, W = 0, PAD = 10, CW = 7.2, zoomed = null, re = null;\n"
	"function $(id) { return document.getElementById(id); }\n"
	"function init() {\n"
	"  svg = document.documentElement;\n"
	"  W = +svg.getAttribute('width');\n"
	"  var gs = svg.querySelectorAll('g.graph');\n"
	"  for (var i = 0; i < gs.length; i++) graphs.push(gs[i]);\n"
	"  if (graphs.length > 1) $('toggle').removeAttribute('display');\n"
	"  svg.addEventListener('click', onClick);\n"
	"  svg.addEventListener('mouseover', onOver);\n"
	"  svg.addEventListener('mouseout', onOut);\n"
	"  document.addEventListener('keydown', function (e) {\n"
	"    if ((e.ctrlKey || e.metaKey) && e.key === 'f') { e.preventDefault(); search(); }\n"
	"    if (e.key === 'Escape') { unzoom(); clearSearch(); }\n"
	"  });\n"
	"  show(0);\n"
	"}\n"
	"function frames() { return graphs[cur].querySelectorAll('g.f'); }\n"
	"function frameOf(n) {\n"
	"  for (; n && n !== svg; n = n.parentNode)\n"
	"    if (n.classList && n.classList.contains('f')) return n;\n"
	"  return null;\n"
	"}\n"
	"function num(g, k) { return +g.getAttribute('data-' + k); }\n"
	"function title(g) { return g.querySelector('title').textContent; }\n"
	"function nameOf(g) { var t = title(g), i = t.indexOf('\\n'); return i < 0 ? t : t.slice(0, i); }\n"
	"function onOver(e) {\n"
	"  var g = frameOf(e.target);\n"
	"  if (g) $('details').textContent = title(g).replace('\\n', '  \\u2014  ');\n"
	"}\n"
	"function onOut(e) { if (frameOf(e.target)) $('details').textContent = ' '; }\n"
	"function onClick(e) {\n"
	"  var t = e.target, g;\n"
	"  if (t.id === 'reset') return unzoom();\n"
	"  if (t.id === 'search') return re ? clearSearch() : search();\n"
	"  if (t.id === 'toggle') return show(1 - cur);\n"
	"  g = frameOf(t);\n"
	"  if (g) zoom(g);\n"
	"}\n"
	"function fit(t, name, w) {\n"
	"  var n = Math.floor((w - 6) / CW);\n"
	"  t.textContent = n < 3 ? '' : name.length <= n ? name : name.slice(0, n - 2) + '..';\n"
	"}\n"
	"function place(g, x, w) {\n"
	"  var r = g.querySelector('rect'), t = g.querySelector('text');\n"
	"  g.removeAttribute('display');\n"
	"  r.setAttribute('x', x.toFixed(1));\n"
	"  r.setAttribute('width', w.toFixed(1));\n"
	"  t.setAttribute('x', (x + 3).toFixed(1));\n"
	"  fit(t, nameOf(g), w);\n"
	"}\n"
	"function zoom(z) {\n"
	"  var zx = num(z, 'x'), zw = num(z, 'w'), zd = num(z, 'd');\n"
	"  var s = (W - 2 * PAD) / zw, fs = frames();\n"
	"  for (var i = 0; i < fs.length; i++) {\n"
	"    var g = fs[i], x = num(g, 'x'), w = num(g, 'w'), d = num(g, 'd');\n"
	"    g.classList.remove('anc');\n"
	"    if (d < zd && x <= zx && x + w >= zx + zw) {\n"
	"      place(g, PAD, W - 2 * PAD);\n"
	"      g.classList.add('anc');\n"
	"    } else if (d >= zd && x >= zx && x + w <= zx + zw) {\n"
	"      place(g, PAD + (x - zx) * s, w * s);\n"
	"    } else {\n"
	"      g.setAttribute('display', 'none');\n"
	"    }\n"
	"  }\n"
	"  zoomed = z;\n"
	"  $('reset').classList.remove('off');\n"
	"}\n"
	"function unzoom() {\n"
	"  var total = num(graphs[cur], 'total'), s = (W - 2 * PAD) / total, fs = frames();\n"
	"  for (var i = 0; i < fs.length; i++) {\n"
	"    fs[i].classList.remove('anc');\n"
	"    place(fs[i], PAD + num(fs[i], 'x') * s, num(fs[i], 'w') * s);\n"
	"  }\n"
	"  zoomed = null;\n"
	"  $('reset').classList.add('off');\n"
	"}\n"
	"function search() {\n"
	"  var term = prompt('Search frames (regular expression):', '');\n"
	"  if (!term) return;\n"
	"  try { re = new RegExp(term); } catch (err) { alert('Not a regular expression: ' + term); return; }\n"
	"  var fs = frames(), hits = [], sum = 0, end = -1;\n"
	"  for (var i = 0; i < fs.length; i++) {\n"
	"    if (!re.test(nameOf(fs[i]))) continue;\n"
	"    fs[i].classList.add('hit');\n"
	"    hits.push([num(fs[i], 'x'), num(fs[i], 'w')]);\n"
	"  }\n"
	"  /* A match inside a match is already counted: add only the outermost ones. */\n"
	"  hits.sort(function (a, b) { return a[0] - b[0] || b[1] - a[1]; });\n"
	"  for (var k = 0; k < hits.length; k++)\n"
	"    if (hits[k][0] >= end) { sum += hits[k][1]; end = hits[k][0] + hits[k][1]; }\n"
	"  $('matched').textContent = 'Matched: ' +\n"
	"    (100 * sum / num(graphs[cur], 'total')).toFixed(1) + '%';\n"
	"  $('search').textContent = 'Clear search';\n"
	"}\n"
	"function clearSearch() {\n"
	"  var fs = svg.querySelectorAll('g.f.hit');\n"
	"  for (var i = 0; i < fs.length; i++) fs[i].classList.remove('hit');\n"
	"  re = null;\n"
	"  $('matched').textContent = ' ';\n"
	"  $('search').textContent = 'Search';\n"
	"}\n"
	"function show(k) {\n"
	"  if (k >= graphs.length) return;\n"
	"  clearSearch();\n"
	"  for (var i = 0; i < graphs.length; i++)\n"
	"    if (i === k) graphs[i].removeAttribute('display');\n"
	"    else graphs[i].setAttribute('display', 'none');\n"
	"  cur = k;\n"
	"  unzoom();\n"
	"  if (graphs.length > 1)\n"
	"    $('toggle').textContent = graphs[1 - k].id === 'offcpu' ? 'Show off-CPU' : 'Show CPU';\n"
	"}\n"
	"]]></script>\n";

static void put_document(FILE *f, const struct sb_profile *p, const struct graph *g, size_t n)
{
	uint32_t depth = 0;
	int height;
	size_t i;

	for (i = 0; i < n; i++)
		if (g[i].t.max_depth > depth)
			depth = g[i].t.max_depth;
	height = TOP + (int)(depth + 1) * FRAME_H + BOTTOM;
	fputs("<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"no\"?>\n", f);
	fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"%d\" "
		"height=\"%d\" viewBox=\"0 0 %d %d\" onload=\"init()\">\n", WIDTH, height, WIDTH,
		height);
	fputs(style, f);
	fputs(script, f);
	fprintf(f, "<rect x=\"0\" y=\"0\" width=\"%d\" height=\"%d\" fill=\"#fafafa\"/>\n", WIDTH,
		height);
	fprintf(f, "<text id=\"title\" x=\"%d\" y=\"24\" text-anchor=\"middle\">"
		"scope-bpf flame graph</text>\n", WIDTH / 2);
	fprintf(f, "<text id=\"reset\" class=\"btn off\" x=\"%d\" y=\"62\">Reset zoom</text>\n", PAD);
	fprintf(f, "<text id=\"search\" class=\"btn\" x=\"%d\" y=\"62\">Search</text>\n", PAD + 100);
	fprintf(f, "<text id=\"toggle\" class=\"btn\" x=\"%d\" y=\"62\" text-anchor=\"end\" "
		"display=\"none\">Show off-CPU</text>\n", WIDTH - PAD);
	fprintf(f, "<text id=\"details\" x=\"%d\" y=\"%d\"> </text>\n", PAD, height - 10);
	fprintf(f, "<text id=\"matched\" x=\"%d\" y=\"%d\" text-anchor=\"end\"> </text>\n",
		WIDTH - PAD, height - 10);
	for (i = 0; i < n; i++)
		put_graph(f, p, &g[i], height, i == 0);
	fputs("</svg>\n", f);
}

/* kinds: bit 1 << kind for each graph wanted, drawn in kind order (CPU first). */
static int flamegraph(FILE *f, const struct sb_profile *p, unsigned kinds, struct sb_error *err)
{
	struct graph g[2];
	size_t n = 0, i;
	int k, r = 0;

	r = sb_samples_require(p, kinds, err);
	if (r)
		return r;
	for (k = SB_SAMPLE_CPU; k <= SB_SAMPLE_OFFCPU && !r; k++) {
		if (!(kinds & 1u << k) || !sb_samples_have(p, k))
			continue;
		r = graph_build(&g[n], p, k);
		n += !r;
	}
	if (r)
		r = sb_fail(err, r, "out of memory");
	else
		put_document(f, p, g, n);
	for (i = 0; i < n; i++)
		graph_free(&g[i]);
	if (!r && ferror(f))
		r = sb_fail(err, EIO, "write error");
	return r;
}

int sb_export_flamegraph(FILE *f, const struct sb_profile *p, struct sb_error *err)
{
	return flamegraph(f, p, 1u << SB_SAMPLE_CPU | 1u << SB_SAMPLE_OFFCPU, err);
}

int sb_export_flamegraph_kind(FILE *f, const struct sb_profile *p, enum sb_sample_kind kind,
			      struct sb_error *err)
{
	return flamegraph(f, p, 1u << kind, err);
}
