/* Header test in C: every marker, run untraced, then self-traced with the begin/end log checked. */
#define _GNU_SOURCE

/*
 * Built three ways by tools/header-check.sh: a program (default), a shared
 * library holding the markers (-DHC_LIBRARY) and the program that runs it
 * (-DHC_DRIVER). With -DSCOPE_BPF_DISABLE no probe may exist or fire.
 */
#ifdef HC_DRIVER
int hc_main(void);

int main(void)
{
	return hc_main();
}
#else

#include "selftrace.h"

#if defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L
#include <stddef.h>
_Static_assert(sizeof(struct scope_bpf_site) == 40, "descriptor size");
_Static_assert(_Alignof(struct scope_bpf_site) == 8, "descriptor alignment");
_Static_assert(offsetof(struct scope_bpf_site, line) == 8, "line offset");
_Static_assert(offsetof(struct scope_bpf_site, name) == 16, "name offset");
_Static_assert(offsetof(struct scope_bpf_site, file) == 24, "file offset");
_Static_assert(offsetof(struct scope_bpf_site, tags) == 32, "tags offset");
#endif

#define FILE_NAME "marker_c.c"

static volatile int work;	/* bodies bump it, so none is optimized away */
static const char *tags_seen;	/* tags of the last "tagged" begin the tracer saw */

static void basic(void)
{
	SCOPE_BPF_REGION("basic") {
		work++;
	}
}

static void nested(void)
{
	int i;

	SCOPE_BPF_REGION("outer") {
		for (i = 0; i < 2; i++)
			SCOPE_BPF_REGION("inner") {
				work++;
			}
	}
}

/* break leaves the region, not the loop around it: three iterations, two full bodies. */
static int break_in_region(void)
{
	int i, iterations = 0, bodies = 0;

	for (i = 0; i < 3; i++) {
		iterations++;
		SCOPE_BPF_REGION("loop") {
			if (i == 1)
				break;
			bodies++;
		}
	}
	return iterations == 3 && bodies == 2;
}

static int return_in_region(int x)
{
	SCOPE_BPF_REGION("r1") {
		SCOPE_BPF_REGION("r2") {
			if (x)
				return 1;
			work++;
		}
	}
	return 0;
}

static void tagged(void)
{
	SCOPE_BPF_REGION_TAGGED("tagged", "io,mpi") {
		work++;
	}
}

static void function_region(void)
{
	SCOPE_BPF_FUNCTION();
	SCOPE_BPF_REGION("inside") {
		work++;
	}
}

static int fib(int n)
{
	int a, b;

	SCOPE_BPF_FUNCTION();
	if (n < 2)
		return n;
	a = fib(n - 1);
	b = fib(n - 2);
	return a + b;
}

/* An explicit pair split over two functions, as a region that fits no block. */
static void manual_open(void)
{
	SCOPE_BPF_BEGIN("manual");
	work++;
}

static void manual_close(void)
{
	work++;
	SCOPE_BPF_END("manual");
}

static void manual_tagged(void)
{
	SCOPE_BPF_BEGIN_TAGGED("manual_tagged", "gpu");
	work++;
	SCOPE_BPF_END("manual_tagged");
}

/* Runs every case once; 0 when the control flow around the markers was right. */
static int run_cases(void)
{
	int ok = 1;

	basic();
	nested();
	ok &= break_in_region();
	ok &= return_in_region(1) == 1;
	tagged();
	function_region();
	ok &= fib(4) == 3;
	manual_open();
	manual_close();
	manual_tagged();
	return ok ? 0 : -1;
}

static size_t expect_fib(char *buf, size_t used, int n)
{
	used += (size_t)sprintf(buf + used, " B:fib");
	if (n >= 2) {
		used = expect_fib(buf, used, n - 1);
		used = expect_fib(buf, used, n - 2);
	}
	return used + (size_t)sprintf(buf + used, " E:fib");
}

/* The sequence run_cases() must produce; only "B:" or only "E:" entries if asked. */
static void expected(char *buf, int begins, int ends)
{
	char all[2048], *tok, *save = NULL;
	size_t used;

	used = (size_t)sprintf(all, "B:basic E:basic"
			       " B:outer B:inner E:inner B:inner E:inner E:outer"
			       " B:loop E:loop B:loop E:loop B:loop E:loop"
			       " B:r1 B:r2 E:r2 E:r1"
			       " B:tagged E:tagged"
			       " B:function_region B:inside E:inside E:function_region");
	used = expect_fib(all, used, 4);
	sprintf(all + used, " B:manual E:manual B:manual_tagged E:manual_tagged");
	buf[0] = 0;
	for (tok = strtok_r(all, " ", &save); tok; tok = strtok_r(NULL, " ", &save)) {
		if ((tok[0] == 'B' && !begins) || (tok[0] == 'E' && !ends))
			continue;
		if (buf[0])
			strcat(buf, " ");
		strcat(buf, tok);
	}
}

/* Scoped regions pass one descriptor to both probes; explicit pairs two, with one name. */
static int sites_consistent(void)
{
	const struct scope_bpf_site *open[64];
	int i, depth = 0;

	for (i = 0; i < st_nevents; i++) {
		const struct scope_bpf_site *s = st_events[i].site;

		if (!strcmp(s->name, "tagged") && !st_events[i].is_end)
			tags_seen = s->tags;
		if (!st_events[i].is_end) {
			if (depth == 64)
				return 0;
			open[depth++] = s;
			continue;
		}
		if (!depth || strcmp(open[--depth]->name, s->name))
			return 0;
		if (!strncmp(s->name, "manual", 6) ? open[depth] == s : open[depth] != s)
			return 0;
	}
	return !depth && tags_seen && !strcmp(tags_seen, "io,mpi");
}

/* One traced pass: semaphores as given, then the log must match. */
static int traced_pass(const char *what, int begins, int ends)
{
	char got[4096], want[4096];

	st_nevents = 0;
	st_semaphores(begins, ends);
	if (run_cases()) {
		fprintf(stderr, "%s: wrong control flow\n", what);
		return -1;
	}
	st_semaphores(0, 0);
	st_log(got, sizeof(got), FILE_NAME);
	if (SCOPE_BPF_ENABLED)
		expected(want, begins, ends);
	else
		want[0] = 0;
	if (strcmp(got, want)) {
		fprintf(stderr, "%s:\n  got:  %s\n  want: %s\n", what, got, want);
		return -1;
	}
	if (begins && ends && SCOPE_BPF_ENABLED && !sites_consistent()) {
		fprintf(stderr, "%s: begin/end descriptors do not pair up\n", what);
		return -1;
	}
	return 0;
}

#ifdef HC_LIBRARY
int hc_main(void);
int hc_main(void)
#else
int main(void)
#endif
{
	int ret;

	if (run_cases()) {
		fprintf(stderr, "untraced: wrong control flow\n");
		return 1;
	}
	ret = st_install();
	if (ret == ST_SKIP)
		return ST_SKIP;
	if (ret)
		return 1;
	if (!st_nprobes != !SCOPE_BPF_ENABLED) {
		fprintf(stderr, "found %d probes\n", st_nprobes);
		return 1;
	}
	if (traced_pass("semaphores off", 0, 0) || traced_pass("traced", 1, 1) ||
	    traced_pass("begin only", 1, 0) || traced_pass("end only", 0, 1))
		return 1;
	return 0;
}

#endif /* HC_DRIVER */
