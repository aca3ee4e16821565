/* `report --samples`: the hottest functions per region path as text, JSON or CSV. */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "model/health.h"
#include "render/report_views.h"
#include "render/samples_report.h"
#include "util/text_format.h"

#define CELL 40

static const struct sb_meta *meta_of(const struct sb_profile *p, const char *key, bool is_int)
{
	const struct sb_meta *m = sb_profile_meta(p, key);

	return m && m->is_int == is_int && (is_int || m->s) ? m : NULL;
}

static void weight_cell(char *buf, enum sb_sample_kind kind, uint64_t w)
{
	if (kind == SB_SAMPLE_OFFCPU)
		format_ns(buf, CELL, w > INT64_MAX ? INT64_MAX : (int64_t)w);
	else
		snprintf(buf, CELL, "%" PRIu64, w);
}

static double pct(uint64_t part, uint64_t whole)
{
	return whole ? 100.0 * (double)part / (double)whole : 0.0;
}

/* Checked once per report: the warning is about the file, whichever kind is shown. */
static bool stacks_cut(const struct sb_profile *p, double *share, enum sb_sample_kind *kind)
{
	uint64_t n, cut;
	bool r = sb_samples_truncated(p, SB_SAMPLE_CPU, &n, &cut);

	*kind = SB_SAMPLE_CPU;
	if (!n) {
		r = sb_samples_truncated(p, SB_SAMPLE_OFFCPU, &n, &cut);
		*kind = SB_SAMPLE_OFFCPU;
	}
	*share = pct(cut, n);
	return r;
}

static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash && slash[1] ? slash + 1 : path;
}

static void text_cut_module(FILE *f, const struct sb_cut_where *w)
{
	fprintf(f, "; %.0f%% of those end in ", pct(w->in_module, w->truncated));
	format_text(f, base_name(w->module));
	if (*w->function) {
		fputs(" (", f);
		format_text(f, w->function);
		fputc(')', f);
	}
	fputs(": code there keeps no frame pointer (see docs/SAMPLING.md)\n", f);
}

/*
 * Where the stacks break, not a build flag the user may well have used: the
 * walk usually stops in code that keeps no frame pointer, most often a system
 * library (libgomp, an MPI library), or at the kernel's depth limit.
 */
static void text_cut_warning(FILE *f, const struct sb_profile *p)
{
	enum sb_sample_kind kind;
	struct sb_cut_where w;
	double share;

	if (!stacks_cut(p, &share, &kind))
		return;
	fprintf(f, "warning: stacks look truncated: %.0f%% of the user stacks do not start at "
		"main or a thread start", share);
	if (sb_samples_cut_where(p, kind, &w)) {
		fputs("\n", f);
		return;
	}
	if (w.too_deep * 2 > w.truncated)
		fprintf(f, "; most are %d frames deep, the kernel's limit\n", SB_STACK_LIMIT);
	else if (w.module)
		text_cut_module(f, &w);
	else
		fputs("; they have no user frame at all\n", f);
}

static const char *kind_name(enum sb_sample_kind kind)
{
	return kind == SB_SAMPLE_OFFCPU ? "off-CPU" : "CPU";
}

static void text_header(FILE *f, const struct sb_profile *p, const struct sb_sample_stats *st,
			const struct report_opts *o)
{
	const struct sb_meta *hz = meta_of(p, "sample_frequency_hz", true);
	const struct sb_meta *ev = meta_of(p, "sample_event", false);
	const struct sb_meta *minb = meta_of(p, "offcpu_min_block_ns", true);
	char buf[CELL];

	sb_report_file_line(f, p, o);
	weight_cell(buf, st->kind, st->weight);
	if (st->kind == SB_SAMPLE_OFFCPU) {
		fprintf(f, "samples   off-CPU, %s blocked", buf);
		if (minb) {
			format_ns(buf, sizeof(buf), minb->i);
			fprintf(f, " (blocks of %s and more)", buf);
		}
	} else {
		fprintf(f, "samples   CPU, %s %s", buf,
			format_plural(st->weight, "sample", "samples"));
		if (hz)
			fprintf(f, " at %" PRId64 " Hz", hz->i);
		if (ev) {
			fputs(" (", f);
			format_text(f, ev->s);
			fputc(')', f);
		}
	}
	if (o->rank >= 0)
		fprintf(f, ", rank %" PRId64, o->rank);
	fprintf(f, "; top %u %s per region path\n", o->top,
		format_plural(o->top, "function", "functions"));
	text_cut_warning(f, p);
	sb_health_print(f, p, "");
	fputc('\n', f);
}

static char *path_label(const struct sb_samples *s, int64_t path, const char *outside)
{
	size_t depth = sb_region_path_names(s, path, NULL, 0), len = 1, i;
	const char **v;
	char *out;

	if (!depth)
		return strdup(outside);
	v = calloc(depth, sizeof(*v));
	if (!v)
		return NULL;
	sb_region_path_names(s, path, v, depth);
	for (i = 0; i < depth; i++)
		len += strlen(v[i]) + 1;
	out = malloc(len);
	if (out) {
		*out = '\0';
		for (i = 0; i < depth; i++) {
			if (i)
				strcat(out, ";");
			strcat(out, v[i]);
		}
	}
	free(v);
	return out;
}

static size_t shown(const struct sb_path_stat *ps, unsigned top)
{
	return ps->n_fns < top ? ps->n_fns : top;
}

enum { W_SELFP, W_TOTALP, W_SELF, W_TOTAL, N_W };

static const char *const titles[N_W] = { "self%", "total%", "self", "total" };

static void row_cells(char c[N_W][CELL], const struct sb_sample_stats *st,
		      const struct sb_path_stat *ps, const struct sb_fn_stat *fs)
{
	snprintf(c[W_SELFP], CELL, "%.1f%%", pct(fs->self, ps->weight));
	snprintf(c[W_TOTALP], CELL, "%.1f%%", pct(fs->total, ps->weight));
	weight_cell(c[W_SELF], st->kind, fs->self);
	weight_cell(c[W_TOTAL], st->kind, fs->total);
}

static void text_rows(FILE *f, const struct sb_sample_stats *st, const struct sb_path_stat *ps,
		      unsigned top, const size_t *width)
{
	char c[N_W][CELL];
	size_t i, k;

	fputs("  ", f);
	for (k = 0; k < N_W; k++) {
		format_right(f, titles[k], width[k]);
		fputs("  ", f);
	}
	fputs("function\n", f);
	for (i = 0; i < shown(ps, top); i++) {
		row_cells(c, st, ps, &ps->fns[i]);
		fputs("  ", f);
		for (k = 0; k < N_W; k++) {
			format_right(f, c[k], width[k]);
			fputs("  ", f);
		}
		format_text(f, st->names.names[ps->fns[i].fn]);
		fputs(st->names.kernel[ps->fns[i].fn] ? " [k]\n" : "\n", f);
	}
}

static int render_text(FILE *f, const struct sb_profile *p, const struct sb_sample_stats *st,
		       const struct report_opts *o)
{
	char c[N_W][CELL], w[CELL];
	size_t width[N_W], i, j, k;
	const struct sb_path_stat *ps;
	char *label;

	text_header(f, p, st, o);
	if (!st->n_paths) {
		fprintf(f, "no %s samples in this profile\n", kind_name(st->kind));
		return 0;
	}
	/* One width per column over every block, so all blocks line up. */
	for (k = 0; k < N_W; k++)
		width[k] = strlen(titles[k]);
	for (i = 0; i < st->n_paths; i++) {
		for (j = 0; j < shown(&st->paths[i], o->top); j++) {
			row_cells(c, st, &st->paths[i], &st->paths[i].fns[j]);
			for (k = 0; k < N_W; k++)
				if (format_width(c[k]) > width[k])
					width[k] = format_width(c[k]);
		}
	}
	for (i = 0; i < st->n_paths; i++) {
		ps = &st->paths[i];
		label = path_label(&p->samples, ps->path, "(outside regions)");
		if (!label)
			return -ENOMEM;
		weight_cell(w, st->kind, ps->weight);
		fputs(i ? "\n" : "", f);
		format_text(f, label);
		fprintf(f, "  %s%s (%.1f%%)\n", w,
			st->kind == SB_SAMPLE_CPU ? format_plural(ps->weight, " sample", " samples") : "",
			pct(ps->weight, st->weight));
		free(label);
		text_rows(f, st, ps, o->top, width);
	}
	return 0;
}

/* Where truncated stacks end: "truncated_end_module" and "_function", null when not known. */
static void json_cut_where(FILE *f, const struct sb_profile *p, bool cut, enum sb_sample_kind kind)
{
	struct sb_cut_where w;

	if (!cut || sb_samples_cut_where(p, kind, &w) || !w.module ||
	    w.too_deep * 2 > w.truncated) {
		fputs(", \"truncated_end_module\": null, \"truncated_end_function\": null", f);
		return;
	}
	fputs(", \"truncated_end_module\": ", f);
	format_json_string(f, w.module);
	fputs(", \"truncated_end_function\": ", f);
	format_json_string(f, w.function);
}

static void json_header(FILE *f, const struct sb_profile *p, const struct sb_sample_stats *st,
			const struct report_opts *o)
{
	const struct sb_meta *hz = meta_of(p, "sample_frequency_hz", true);
	const struct sb_meta *ev = meta_of(p, "sample_event", false);
	enum sb_sample_kind kind;
	double share;
	bool cut = stacks_cut(p, &share, &kind);

	fputs("{\"header\": {\"file\": ", f);
	format_json_string(f, o->path ? o->path : "");
	fputs(", \"format\": ", f);
	format_json_string(f, p->format ? p->format : "");
	fprintf(f, ", \"kind\": \"%s\", \"unit\": \"%s\"",
		st->kind == SB_SAMPLE_OFFCPU ? "offcpu" : "cpu",
		st->kind == SB_SAMPLE_OFFCPU ? "ns" : "samples");
	if (o->rank >= 0)
		fprintf(f, ", \"rank\": %" PRId64, o->rank);
	else
		fputs(", \"rank\": null", f);
	fprintf(f, ", \"total\": %" PRIu64 ", \"top\": %u", st->weight, o->top);
	if (hz)
		fprintf(f, ", \"sample_frequency_hz\": %" PRId64, hz->i);
	else
		fputs(", \"sample_frequency_hz\": null", f);
	fputs(", \"sample_event\": ", f);
	if (ev)
		format_json_string(f, ev->s);
	else
		fputs("null", f);
	fprintf(f, ", \"truncated_stacks\": %s, \"truncated_percent\": %.1f",
		cut ? "true" : "false", share);
	json_cut_where(f, p, cut, kind);
	fputs("},\n", f);
}

static int json_path(FILE *f, const struct sb_profile *p, const struct sb_sample_stats *st,
		     const struct sb_path_stat *ps, unsigned top)
{
	size_t depth = sb_region_path_names(&p->samples, ps->path, NULL, 0), i;
	const struct sb_fn_stat *fs;
	const char **names;

	names = calloc(depth ? depth : 1, sizeof(*names));
	if (!names)
		return -ENOMEM;
	sb_region_path_names(&p->samples, ps->path, names, depth);
	fputs(depth ? "{\"path\": [" : "{\"path\": null", f);
	for (i = 0; i < depth; i++) {
		if (i)
			fputs(", ", f);
		format_json_string(f, names[i]);
	}
	free(names);
	fprintf(f, "%s, \"total\": %" PRIu64 ", \"percent\": %.1f, \"functions\": [",
		depth ? "]" : "", ps->weight, pct(ps->weight, st->weight));
	for (i = 0; i < shown(ps, top); i++) {
		fs = &ps->fns[i];
		fputs(i ? ",\n   {\"function\": " : "\n   {\"function\": ", f);
		format_json_string(f, st->names.names[fs->fn]);
		fprintf(f, ", \"kernel\": %s, \"self\": %" PRIu64 ", \"total\": %" PRIu64
			", \"self_percent\": %.1f, \"total_percent\": %.1f}",
			st->names.kernel[fs->fn] ? "true" : "false", fs->self, fs->total,
			pct(fs->self, ps->weight), pct(fs->total, ps->weight));
	}
	fputs(i ? "\n  ]}" : "]}", f);
	return 0;
}

static int render_json(FILE *f, const struct sb_profile *p, const struct sb_sample_stats *st,
		       const struct report_opts *o)
{
	size_t i;
	int r = 0;

	json_header(f, p, st, o);
	fputs(" \"paths\": [", f);
	for (i = 0; i < st->n_paths && !r; i++) {
		fputs(i ? ",\n  " : "\n  ", f);
		r = json_path(f, p, st, &st->paths[i], o->top);
	}
	fputs(st->n_paths ? "\n ]}\n" : "]}\n", f);
	return r;
}

static int render_csv(FILE *f, const struct sb_profile *p, const struct sb_sample_stats *st,
		      const struct report_opts *o)
{
	const struct sb_path_stat *ps;
	const struct sb_fn_stat *fs;
	size_t i, j;
	char *label;

	fputs("path,path_total,function,kernel,self,total,self_percent,total_percent\n", f);
	for (i = 0; i < st->n_paths; i++) {
		ps = &st->paths[i];
		/* Outside every region: an empty path. */
		label = path_label(&p->samples, ps->path, "");
		if (!label)
			return -ENOMEM;
		for (j = 0; j < shown(ps, o->top); j++) {
			fs = &ps->fns[j];
			format_csv_field(f, label);
			fprintf(f, ",%" PRIu64 ",", ps->weight);
			format_csv_field(f, st->names.names[fs->fn]);
			fprintf(f, ",%d,%" PRIu64 ",%" PRIu64 ",%.1f,%.1f\n",
				st->names.kernel[fs->fn], fs->self, fs->total,
				pct(fs->self, ps->weight), pct(fs->total, ps->weight));
		}
		free(label);
	}
	return 0;
}

int sb_samples_report_render(FILE *f, const struct sb_profile *p, const struct report_opts *o)
{
	struct sb_sample_stats st;
	int r;

	r = sb_sample_stats_build(&st, p, o->sample_kind, o->rank);
	if (r)
		return r;
	if (o->format == SB_REPORT_JSON)
		r = render_json(f, p, &st, o);
	else if (o->format == SB_REPORT_CSV)
		r = render_csv(f, p, &st, o);
	else
		r = render_text(f, p, &st, o);
	sb_sample_stats_free(&st);
	if (!r && ferror(f))
		r = -EIO;
	return r;
}

/* ---- the view: --samples[=KIND] ---- */

static int samples_option(const char *arg, struct report_opts *o, struct sb_error *err)
{
	/* A bare --samples keeps the kind an earlier --offcpu chose. */
	if (!arg)
		return 0;
	if (!strcmp(arg, "cpu"))
		o->sample_kind = SB_SAMPLE_CPU;
	else if (!strcmp(arg, "offcpu"))
		o->sample_kind = SB_SAMPLE_OFFCPU;
	else
		return sb_fail(err, EINVAL, "--samples: '%s' is not one of cpu, offcpu", arg);
	return 0;
}

static int samples_require(const struct sb_profile *p, const struct report_opts *o,
			   struct sb_error *err)
{
	return sb_samples_require(p, 1u << o->sample_kind, err);
}

static int samples_render(FILE *f, const struct sb_profile *p, const void *state,
			  const struct report_opts *o)
{
	(void)state;
	return sb_samples_report_render(f, p, o);
}

/* --offcpu, --top and --no-demangle are the command's own: the tree and the page read them too. */
const struct sb_report_view sb_samples_report_view = {
	.kind = &sb_samples_kind,
	.option = "samples",
	.has_arg = optional_argument,
	.parse = samples_option,
	.help = "      --samples[=KIND]\n"
		"                      hottest functions per region path from the sampled\n"
		"                      stacks instead; KIND is cpu (default) or offcpu\n"
		"      --offcpu        the same as --samples=offcpu (time blocked, not samples)\n"
		"      --top N         functions shown per region path (default 10)\n"
		"      --no-demangle   keep C++ and Rust function names mangled (--samples,\n"
		"                      --html)\n",
	.html_note = "",
	.require = samples_require,
	.render = samples_render,
};
