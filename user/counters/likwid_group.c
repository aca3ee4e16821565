/*
 * LIKWID group files: SHORT, EVENTSET (`COUNTER[:OPTION] EVENT`), METRICS
 * (`NAME FORMULA`, the name free text) and LONG. Counters a thread's perf
 * event can count (FIXC*, PMC*, APERF/MPERF/PPERF) are resolved and
 * programmed; uncore, energy and temperature counters count a whole socket
 * or package, so they are skipped with a note and their metrics are NaN.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "counters/likwid.h"
#include "counters/likwid_arch.h"
#include "counters/likwid_expr.h"
#include "counters/likwid_names.h"

#define GROUP_MAX_EVENTSET (SB_MAX_COUNTERS + SB_LIKWID_MAX_SKIPPED)
#define GROUP_MAX_LINE 4096

enum section { SEC_NONE, SEC_EVENTSET, SEC_METRICS, SEC_LONG };

struct eventset_line {
	char counter[64], event[SB_EVENT_NAME_MAX];
	unsigned int line;
};

struct parser {
	const char *origin, *arch;
	struct sb_likwid_group *g;
	struct sb_error *err;
	struct eventset_line set[GROUP_MAX_EVENTSET];
	unsigned int n_set;
	char *names[GROUP_MAX_EVENTSET];	/* counted first, then skipped: the formulas' names */
	unsigned int n_names;
	unsigned int line;
};

/* The parser's line is bad: "origin:line: cause". */
#define fail_line(p, code, ...) sb_fail_line((p)->err, code, (p)->origin, (p)->line, __VA_ARGS__)

static char *trim(char *s)
{
	char *end = s + strlen(s);

	while (isspace((unsigned char)*s))
		s++;
	while (end > s && isspace((unsigned char)end[-1]))
		*--end = '\0';
	return s;
}

static int eventset_line(struct parser *p, char *s)
{
	struct eventset_line *e;
	char extra;

	if (p->n_set == GROUP_MAX_EVENTSET)
		return fail_line(p, E2BIG, "more than %d counters in the EVENTSET", GROUP_MAX_EVENTSET);
	e = &p->set[p->n_set];
	if (sscanf(s, "%63s %95s %c", e->counter, e->event, &extra) != 2)
		return fail_line(p, EINVAL, "expected 'COUNTER EVENT', got '%s'", s);
	e->line = p->line;
	p->n_set++;
	return 0;
}

/* Why counter cannot be counted for one thread, or NULL when it can. */
static const char *uncountable(const char *counter)
{
	size_t base = strcspn(counter, ":");

	if ((!strncmp(counter, "FIXC", 4) || !strncmp(counter, "PMC", 3)) && base > 3 &&
	    isdigit((unsigned char)counter[base - 1]))
		return NULL;
	if (base == 5 && (!strncmp(counter, "APERF", 5) || !strncmp(counter, "MPERF", 5) ||
			  !strncmp(counter, "PPERF", 5)))
		return NULL;
	if (!strncmp(counter, "PWR", 3))
		return "an energy (RAPL) counter counts the whole package";
	if (!strncmp(counter, "TMP", 3))
		return "a temperature sensor, not an event count";
	if (!strncmp(counter, "TMA", 3))
		return "a top-down metric register, read only with perf's slots group";
	return "an uncore counter counts the whole socket, not one thread";
}

static int note_skip(struct parser *p, const struct eventset_line *e, const char *why)
{
	struct sb_likwid_group *g = p->g;

	if (g->n_skipped == SB_LIKWID_MAX_SKIPPED)
		return fail_line(p, E2BIG, "more than %d skipped counters", SB_LIKWID_MAX_SKIPPED);
	if (asprintf(&g->skipped[g->n_skipped], "%s %s: %s", e->counter, e->event, why) < 0)
		return -ENOMEM;
	g->n_skipped++;
	return 0;
}

static int count_event(struct parser *p, const struct eventset_line *e)
{
	struct sb_likwid_group *g = p->g;
	struct sb_counter_event ev;
	struct sb_error why;
	int ret;

	memset(&ev, 0, sizeof(ev));
	if (p->arch) {
		ret = sb_likwid_event_resolve(p->arch, e->counter, e->event, &ev, &why);
		if (ret)
			return fail_line(p, -ret, "%s", why.msg);
	} else {
		const char *opts = strchr(e->counter, ':');

		snprintf(ev.name, sizeof(ev.name), "%s%s", e->event, opts ? opts : "");
	}
	if (g->events.n == SB_MAX_COUNTERS)
		return fail_line(p, E2BIG, "more than %d counters count per thread (each is read at "
				 "every region boundary)", SB_MAX_COUNTERS);
	ret = sb_counter_set_add(&g->events, &ev, &why);
	if (ret)
		return fail_line(p, -ret, "%s", why.msg);
	g->counter_names[g->events.n - 1] = strdup(e->counter);
	return g->counter_names[g->events.n - 1] ? 0 : -ENOMEM;
}

/* Resolve the counted counters, note the others; the formulas' names in that order. */
static int program_eventset(struct parser *p)
{
	unsigned int i, pass, line = p->line;
	const char *why, *spelling;
	int ret = 0;

	for (pass = 0; pass < 2 && !ret; pass++) {
		for (i = 0; i < p->n_set && !ret; i++) {
			struct eventset_line *e = &p->set[i];

			p->line = e->line;
			why = uncountable(e->counter);
			spelling = p->arch ? sb_likwid_name_map(p->arch, e->event) : NULL;
			if (!why && spelling && !*spelling)
				why = "perf pairs the counters for large-increment events itself";
			if ((pass == 0) != !why)
				continue;
			ret = why ? note_skip(p, e, why) : count_event(p, e);
			p->names[p->n_names++] = e->counter;
		}
	}
	p->line = line;
	return ret;
}

static bool ends_operator(const char *tok, size_t len)
{
	return len && strchr("+-*/(", tok[len - 1]);
}

/* The formula starts at the last word, or earlier while words join by an operator. */
static char *split_metric(char *s)
{
	char *words[256], *q = s;
	size_t lens[256];
	int n = 0, k;

	for (;;) {
		while (isspace((unsigned char)*q))
			q++;
		if (!*q)
			break;
		if (n == 256)
			return NULL;
		words[n] = q;
		while (*q && !isspace((unsigned char)*q))
			q++;
		lens[n] = (size_t)(q - words[n]);
		n++;
	}
	if (n < 2)
		return NULL;
	k = n - 1;
	while (k > 1 && (ends_operator(words[k - 1], lens[k - 1]) || strchr("+-*/)", words[k][0])))
		k--;
	words[k][-1] = '\0';
	return words[k];
}

static int metric_line(struct parser *p, char *s)
{
	struct sb_likwid_group *g = p->g;
	struct sb_likwid_metric *m;
	char *formula = split_metric(s);
	struct sb_error why;

	if (!formula)
		return fail_line(p, EINVAL, "expected 'NAME FORMULA', got '%s'", s);
	if (g->n_metrics == SB_LIKWID_MAX_METRICS)
		return fail_line(p, E2BIG, "more than %d metrics", SB_LIKWID_MAX_METRICS);
	m = &g->metrics[g->n_metrics];
	m->expr = sb_likwid_expr_compile(formula, p->names, p->n_names, g->events.n, &why);
	if (!m->expr)
		return fail_line(p, EINVAL, "metric '%s': %s", trim(s), why.msg);
	m->uncounted = sb_likwid_expr_uncounted(m->expr);
	m->name = strdup(trim(s));
	g->n_metrics++;
	return m->name ? 0 : -ENOMEM;
}

static int header_line(struct parser *p, char *s, enum section *sec)
{
	if (!strcmp(s, "EVENTSET")) {
		*sec = SEC_EVENTSET;
	} else if (!strcmp(s, "METRICS")) {
		if (!p->n_set)
			return fail_line(p, EINVAL, "METRICS before an EVENTSET");
		*sec = SEC_METRICS;
		return program_eventset(p);
	} else if (!strcmp(s, "LONG")) {
		*sec = SEC_LONG;
	} else if (!strncmp(s, "SHORT", 5) && (!s[5] || isspace((unsigned char)s[5]))) {
		free(p->g->description);
		p->g->description = strdup(trim(s + 5));
	} else if (!strcmp(s, "REQUIRE_NOHT")) {
		/* LIKWID counts per core and needs SMT off; a thread's perf events do not */
	} else {
		return 1;
	}
	return 0;
}

static int parse_line(struct parser *p, char *raw, enum section *sec)
{
	char *s = trim(raw);
	int ret;

	if (*sec == SEC_LONG || !*s || *s == '#')
		return 0;
	ret = header_line(p, s, sec);
	if (ret <= 0)
		return ret;
	if (*sec == SEC_EVENTSET)
		return eventset_line(p, s);
	if (*sec == SEC_METRICS)
		return metric_line(p, s);
	return fail_line(p, EINVAL, "'%s' outside EVENTSET and METRICS", s);
}

static int parse_text(struct parser *p, const char *text)
{
	enum section sec = SEC_NONE;
	const char *line = text, *nl;
	char buf[GROUP_MAX_LINE];
	int ret = 0;

	for (p->line = 1; *line && !ret; p->line++, line = nl ? nl + 1 : line + strlen(line)) {
		size_t len;

		nl = strchr(line, '\n');
		len = nl ? (size_t)(nl - line) : strlen(line);
		if (len >= sizeof(buf))
			return fail_line(p, EINVAL, "line longer than %d characters", GROUP_MAX_LINE - 1);
		memcpy(buf, line, len);
		buf[len] = '\0';
		ret = parse_line(p, buf, &sec);
	}
	if (!ret && sec != SEC_LONG && sec != SEC_METRICS)
		ret = fail_line(p, EINVAL, "no %s section", sec == SEC_EVENTSET ? "METRICS" :
			       "EVENTSET");
	if (!ret && !p->g->events.n)
		ret = sb_fail(p->err, EINVAL, "%s: no counter of the group counts per thread "
			      "(all are uncore or energy counters)", p->origin);
	return ret;
}

int sb_likwid_group_parse_arch(const char *text, const char *origin, const char *arch,
			       struct sb_likwid_group *g, struct sb_error *err)
{
	struct parser *p = calloc(1, sizeof(*p));
	int ret;

	memset(g, 0, sizeof(*g));
	if (!p)
		return sb_fail(err, ENOMEM, "%s: out of memory", origin);
	p->origin = origin;
	p->arch = arch;
	p->g = g;
	p->err = err;
	ret = parse_text(p, text);
	free(p);
	if (!ret && arch)
		g->arch = strdup(arch);
	if (ret)
		sb_likwid_group_free(g);
	return ret;
}

int sb_likwid_group_parse(const char *text, const char *name, struct sb_likwid_group *g,
			  struct sb_error *err)
{
	const char *arch = sb_likwid_arch_detect(err);
	int ret;

	if (!arch)
		return -ENOENT;
	ret = sb_likwid_group_parse_arch(text, name, arch, g, err);
	if (!ret)
		g->name = strdup(name);
	return ret;
}

void sb_likwid_group_free(struct sb_likwid_group *g)
{
	unsigned int i;

	for (i = 0; i < SB_MAX_COUNTERS; i++)
		free(g->counter_names[i]);
	for (i = 0; i < g->n_metrics; i++) {
		free(g->metrics[i].name);
		sb_likwid_expr_free(g->metrics[i].expr);
	}
	for (i = 0; i < g->n_skipped; i++)
		free(g->skipped[i]);
	free(g->name);
	free(g->arch);
	free(g->description);
	memset(g, 0, sizeof(*g));
}

double sb_likwid_eval(const struct sb_likwid_group *g, unsigned int metric, const double *counts,
		      double time_s, double inverse_clock)
{
	if (metric >= g->n_metrics)
		return __builtin_nan("");
	return sb_likwid_expr_eval(g->metrics[metric].expr, counts, time_s, inverse_clock);
}

void sb_likwid_group_notes(const struct sb_likwid_group *g, FILE *f)
{
	unsigned int i;

	for (i = 0; i < g->n_skipped; i++)
		fprintf(f, "note: group %s: %s (not counted)\n", g->name ? g->name : "?",
			g->skipped[i]);
	for (i = 0; i < g->n_metrics; i++)
		if (g->metrics[i].uncounted)
			fprintf(f, "note: group %s: metric '%s' needs an uncounted counter: no value\n",
				g->name ? g->name : "?", g->metrics[i].name);
}
