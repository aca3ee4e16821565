// Header test in C++: every marker plus exceptions, templates and members, checked like marker_c.c.
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif

// Built the same three ways as marker_c.c (program, -DHC_LIBRARY, -DHC_DRIVER).
#ifdef HC_DRIVER
int hc_main();

int main()
{
	return hc_main();
}
#else

// No <string> or <stdexcept>: they would double this file's build time in header-check.
#include <cstddef>
#include <cstdio>
#include <cstring>

#include "selftrace.h"

static_assert(sizeof(scope_bpf_site) == 40, "descriptor size");
static_assert(alignof(scope_bpf_site) == 8, "descriptor alignment");
static_assert(offsetof(scope_bpf_site, line) == 8, "line offset");
static_assert(offsetof(scope_bpf_site, name) == 16, "name offset");
static_assert(offsetof(scope_bpf_site, file) == 24, "file offset");
static_assert(offsetof(scope_bpf_site, tags) == 32, "tags offset");

static const char file_name[] = "marker_cxx.cc";
static volatile int work;	// bodies bump it, so none is optimized away

static void basic()
{
	SCOPE_BPF_REGION("basic") {
		work++;
	}
}

static void nested()
{
	SCOPE_BPF_REGION("outer") {
		for (int i = 0; i < 2; i++)
			SCOPE_BPF_REGION("inner") {
				work++;
			}
	}
}

// break leaves the region, not the loop around it: three iterations, two full bodies.
static bool break_in_region()
{
	int iterations = 0, bodies = 0;

	for (int i = 0; i < 3; i++) {
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

struct thrown {
	int code;
};

// An exception unwinds both regions; the destructors end them.
static bool throw_in_region()
{
	try {
		SCOPE_BPF_REGION_TAGGED("tagged", "io,mpi") {
			SCOPE_BPF_REGION("throws") {
				throw thrown{ 7 };
			}
		}
	} catch (const thrown &t) {
		return t.code == 7;
	}
	return false;
}

// Templates and inline members live in COMDAT groups: their notes must follow them.
template <typename T> static T twice(T x)
{
	SCOPE_BPF_FUNCTION();
	return x + x;
}

struct widget {
	int run()
	{
		SCOPE_BPF_FUNCTION();
		return twice(21);
	}
};

static int fib(int n)
{
	SCOPE_BPF_FUNCTION();
	if (n < 2)
		return n;
	int a = fib(n - 1);
	int b = fib(n - 2);
	return a + b;
}

static void lambda_region()
{
	auto f = [] {
		SCOPE_BPF_REGION("in_lambda") {
			work++;
		}
	};
	f();
}

static void manual()
{
	SCOPE_BPF_BEGIN("manual");
	work++;
	SCOPE_BPF_END("manual");
	SCOPE_BPF_BEGIN_TAGGED("manual_tagged", "gpu");
	work++;
	SCOPE_BPF_END("manual_tagged");
}

// Runs every case once; false when the control flow around the markers was wrong.
static bool run_cases()
{
	bool ok = true;

	basic();
	nested();
	ok &= break_in_region();
	ok &= return_in_region(1) == 1;
	ok &= throw_in_region();
	ok &= widget().run() == 42;
	ok &= fib(4) == 3;
	lambda_region();
	manual();
	return ok;
}

static void expect_fib(char *buf, int n)
{
	std::strcat(buf, " B:fib");
	if (n >= 2) {
		expect_fib(buf, n - 1);
		expect_fib(buf, n - 2);
	}
	std::strcat(buf, " E:fib");
}

// The sequence run_cases() must produce; only "B:" or only "E:" entries if asked.
static void expected(char *out, bool begins, bool ends)
{
	char all[2048] = "B:basic E:basic"
			 " B:outer B:inner E:inner B:inner E:inner E:outer"
			 " B:loop E:loop B:loop E:loop B:loop E:loop"
			 " B:r1 B:r2 E:r2 E:r1"
			 " B:tagged B:throws E:throws E:tagged"
			 " B:run B:twice E:twice E:run";
	char *save = nullptr;

	expect_fib(all, 4);
	std::strcat(all, " B:in_lambda E:in_lambda B:manual E:manual B:manual_tagged E:manual_tagged");
	out[0] = 0;
	for (char *tok = strtok_r(all, " ", &save); tok; tok = strtok_r(nullptr, " ", &save)) {
		if ((tok[0] == 'B' && !begins) || (tok[0] == 'E' && !ends))
			continue;
		if (out[0])
			std::strcat(out, " ");
		std::strcat(out, tok);
	}
}

// Scoped regions pass one descriptor to both probes; explicit pairs two, with one name.
static bool sites_consistent()
{
	const scope_bpf_site *open[64];
	int depth = 0;
	bool tags_ok = false;

	for (int i = 0; i < st_nevents; i++) {
		const scope_bpf_site *s = st_events[i].site;

		if (!st_events[i].is_end) {
			if (!std::strcmp(s->name, "tagged"))
				tags_ok = s->tags && !std::strcmp(s->tags, "io,mpi");
			if (depth == 64)
				return false;
			open[depth++] = s;
			continue;
		}
		if (!depth || std::strcmp(open[--depth]->name, s->name))
			return false;
		bool manual = !std::strncmp(s->name, "manual", 6);
		if (manual ? open[depth] == s : open[depth] != s)
			return false;
	}
	return !depth && tags_ok;
}

static bool traced_pass(const char *what, int begins, int ends)
{
	char got[4096], want[4096] = "";

	st_nevents = 0;
	st_semaphores(begins, ends);
	if (!run_cases()) {
		std::fprintf(stderr, "%s: wrong control flow\n", what);
		return false;
	}
	st_semaphores(0, 0);
	st_log(got, sizeof(got), file_name);
	if (SCOPE_BPF_ENABLED)
		expected(want, begins, ends);
	if (std::strcmp(got, want)) {
		std::fprintf(stderr, "%s:\n  got:  %s\n  want: %s\n", what, got, want);
		return false;
	}
	if (begins && ends && SCOPE_BPF_ENABLED && !sites_consistent()) {
		std::fprintf(stderr, "%s: begin/end descriptors do not pair up\n", what);
		return false;
	}
	return true;
}

#ifdef HC_LIBRARY
int hc_main();
int hc_main()
#else
int main()
#endif
{
	if (!run_cases()) {
		std::fprintf(stderr, "untraced: wrong control flow\n");
		return 1;
	}
	int ret = st_install();
	if (ret == ST_SKIP)
		return ST_SKIP;
	if (ret)
		return 1;
	if (!st_nprobes != !SCOPE_BPF_ENABLED) {
		std::fprintf(stderr, "found %d probes\n", st_nprobes);
		return 1;
	}
	if (!traced_pass("semaphores off", 0, 0) || !traced_pass("traced", 1, 1) ||
	    !traced_pass("begin only", 1, 0) || !traced_pass("end only", 0, 1))
		return 1;
	return 0;
}

#endif // HC_DRIVER
