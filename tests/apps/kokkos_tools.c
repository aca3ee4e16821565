/*
 * Test app: a stand-in for Kokkos, calling a Kokkos Tools library as Kokkos
 * does (recorded by tests/integration/test_annotations.c): the library named
 * first in KOKKOS_TOOLS_LIBS (';'-separated) is dlopen'ed, each kokkosp_*
 * function found with dlsym, kernel and fence ids kept from begin to end.
 *
 * A tracer must see, on the main thread:
 *  - "setup" (a profiling region) once, holding INITS "init_x" (parallel_for);
 *  - "iterate" ITERS times, each holding "dot" (parallel_reduce), "prefix"
 *    (parallel_scan), "Kokkos::fence: step" (fence) and one deep copy,
 *    "Kokkos::deep_copy y <- x", tagged kokkos.bytes:8000;
 *  - "marked" (a marker) once, holding "inside_marker" (a region) once;
 *  - "guard" (a marker) once, complete, around a pop with no region open.
 * It exits 3 when the variable or a function is missing.
 * "kokkos_tools bench N": N parallel_for begin/end pairs and N marker pairs,
 * and the nanoseconds a pair each took, on stdout (docs/ANNOTATIONS.md, cost).
 */
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "busy.h"
#include "pair_cost.h"
#include "scope_bpf.h"

#define INITS 3
#define ITERS 4

struct space {
	char name[64];
};

struct device_info {
	size_t device_id;
};

static void (*init_library)(int, uint64_t, uint32_t, struct device_info *);
static void (*finalize_library)(void);
static void (*begin_for)(const char *, uint32_t, uint64_t *);
static void (*end_for)(uint64_t);
static void (*begin_reduce)(const char *, uint32_t, uint64_t *);
static void (*end_reduce)(uint64_t);
static void (*begin_scan)(const char *, uint32_t, uint64_t *);
static void (*end_scan)(uint64_t);
static void (*begin_fence)(const char *, uint32_t, uint64_t *);
static void (*end_fence)(uint64_t);
static void (*push_region)(const char *);
static void (*pop_region)(void);
static void (*begin_deep_copy)(struct space, const char *, const void *, struct space,
			       const char *, const void *, uint64_t);
static void (*end_deep_copy)(void);

/* Each function Kokkos looks up by name, and where it keeps it. */
static const struct hook {
	const char *name;
	void *fn;
} hooks[] = {
	{ "kokkosp_init_library", &init_library },
	{ "kokkosp_finalize_library", &finalize_library },
	{ "kokkosp_begin_parallel_for", &begin_for },
	{ "kokkosp_end_parallel_for", &end_for },
	{ "kokkosp_begin_parallel_reduce", &begin_reduce },
	{ "kokkosp_end_parallel_reduce", &end_reduce },
	{ "kokkosp_begin_parallel_scan", &begin_scan },
	{ "kokkosp_end_parallel_scan", &end_scan },
	{ "kokkosp_begin_fence", &begin_fence },
	{ "kokkosp_end_fence", &end_fence },
	{ "kokkosp_push_profile_region", &push_region },
	{ "kokkosp_pop_profile_region", &pop_region },
	{ "kokkosp_begin_deep_copy", &begin_deep_copy },
	{ "kokkosp_end_deep_copy", &end_deep_copy },
};

static int load(void)
{
	const char *libs = getenv("KOKKOS_TOOLS_LIBS");
	char first[4096];
	void *lib, *sym;
	size_t i;

	if (!libs || !*libs)
		return -1;
	snprintf(first, sizeof(first), "%.*s", (int)strcspn(libs, ";"), libs);
	lib = dlopen(first, RTLD_NOW | RTLD_GLOBAL);
	if (!lib) {
		fprintf(stderr, "kokkos_tools: %s\n", dlerror());
		return -1;
	}
	for (i = 0; i < sizeof(hooks) / sizeof(hooks[0]); i++) {
		sym = dlsym(lib, hooks[i].name);
		if (!sym) {
			fprintf(stderr, "kokkos_tools: %s: no %s\n", first, hooks[i].name);
			return -1;
		}
		memcpy(hooks[i].fn, &sym, sizeof(sym));
	}
	return 0;
}

static void kernel(void (*begin)(const char *, uint32_t, uint64_t *), void (*end)(uint64_t),
		   const char *name)
{
	uint64_t id = 0;

	begin(name, 0, &id);
	busy_ns(20000);
	end(id);
}

static void iterate(void)
{
	struct space host = { "Host" };
	static double x[1000], y[1000];

	push_region("iterate");
	kernel(begin_reduce, end_reduce, "dot");
	kernel(begin_scan, end_scan, "prefix");
	kernel(begin_fence, end_fence, "Kokkos::fence: step");
	begin_deep_copy(host, "y", y, host, "x", x, sizeof(x));
	memcpy(y, x, sizeof(x));
	busy_ns(20000);
	end_deep_copy();
	pop_region();
}

static void bench(long n)
{
	uint64_t t0 = now_ns(), id;
	long i;

	for (i = 0; i < n; i++) {
		begin_for("bench_kernel", 0, &id);
		end_for(id);
	}
	print_pair_cost("kokkos", now_ns() - t0, n);
}

int main(int argc, char **argv)
{
	struct device_info dev = { 0 };
	int i;

	if (load())
		return 3;
	init_library(0, 20211015, 1, &dev);
	if (argc == 3 && !strcmp(argv[1], "bench")) {
		bench(atol(argv[2]));
		finalize_library();
		return 0;
	}
	push_region("setup");
	for (i = 0; i < INITS; i++)
		kernel(begin_for, end_for, "init_x");
	pop_region();
	for (i = 0; i < ITERS; i++)
		iterate();
	SCOPE_BPF_REGION("marked") {
		push_region("inside_marker");
		busy_ns(20000);
		pop_region();
	}
	SCOPE_BPF_REGION("guard")
		pop_region();
	finalize_library();
	return 0;
}
