/*
 * Test app: a stand-in for ittnotify's static part (what TBB and oneAPI
 * libraries compile in), recorded by tests/integration/test_annotations.c:
 * at the first task it loads the collector named by INTEL_LIBITTNOTIFY64 and,
 * as the static part does for a collector exporting __itt_api_init, passes it
 * its descriptor and API table to fill; domains and string handles are the
 * static part's own, enabled (flags 1). No Intel header: the layouts are
 * ITT's published ABI, version 3.
 *
 * A tracer must see, on the main thread:
 *  - "outer" (a marker) once, holding TASKS "compute" tasks of domain "tbb",
 *    tagged itt.domain:tbb;
 *  - "parse" once at top level, holding one "compute";
 *  - "guard" (a marker) once, complete, around a task_end with no task open.
 * It exits 3 when the collector cannot be loaded, fills nothing, or leaves
 * an entry it does not serve at its init stub (LLVM's libomp, which carries
 * the static part, fails an assertion on such a table).
 * "itt_tasks bench N": N task pairs and N marker pairs, and the nanoseconds a
 * pair each took, on stdout (docs/ANNOTATIONS.md, cost).
 */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "busy.h"
#include "pair_cost.h"
#include "scope_bpf.h"

#define TASKS 3
#define GROUP_STRUCTURE (1 << 12)
#define GROUP_ALL (-1)

struct domain {
	volatile int flags;
	const char *name;
	void *name_wide;
	int extra1;
	void *extra2;
	struct domain *next;
};

struct string_handle {
	const char *str;
	void *str_wide;
	int extra1;
	void *extra2;
	struct string_handle *next;
};

struct id {
	unsigned long long d1, d2, d3;
};

struct api_info {
	const char *name;
	void **func_ptr;
	void *init_func;
	void *null_func;
	int group;
};

struct global {
	unsigned char magic[8];
	unsigned long version_major, version_minor, version_build;
	volatile long api_initialized, mutex_initialized, atomic_counter;
	pthread_mutex_t mutex;
	void *lib;
	void *error_handler;
	const char **dll_path_ptr;
	struct api_info *api_list_ptr;
	struct global *next;
};

typedef void (*task_begin_fn)(const struct domain *, struct id, struct id, struct string_handle *);
typedef void (*task_end_fn)(const struct domain *);

/*
 * The static part's pointers start at init stubs; a collector must leave each
 * at its own function or at null_func: the static implementation of domain
 * creation, NULL (skipped by callers) for frames it does not serve.
 */
static void frame_begin_init(void)
{
}

static void task_init(void)
{
}

static void *domain_create_static(const char *name)
{
	(void)name;
	return NULL;
}

static void *task_begin_ptr = (void *)task_init, *task_end_ptr = (void *)task_init;
static void *frame_begin_ptr = (void *)frame_begin_init;
static void *domain_create_ptr = (void *)domain_create_static;

static struct api_info api_list[] = {
	{ "__itt_domain_create", &domain_create_ptr, (void *)domain_create_static,
	  (void *)domain_create_static, GROUP_STRUCTURE },
	{ "__itt_frame_begin_v3", &frame_begin_ptr, (void *)frame_begin_init, NULL, 1 << 9 },
	{ "__itt_task_begin", &task_begin_ptr, (void *)task_init, NULL, GROUP_STRUCTURE },
	{ "__itt_task_end", &task_end_ptr, (void *)task_init, NULL, GROUP_STRUCTURE },
	{ NULL, NULL, NULL, NULL, 0 },
};

static struct global global = {
	.magic = { 0xED, 0xAB, 0xAB, 0xEC, 0x0D, 0xEE, 0xDA, 0x30 },
	.version_major = 3,
	.mutex = PTHREAD_MUTEX_INITIALIZER,
	.api_list_ptr = api_list,
};

static struct domain tbb = { .flags = 1, .name = "tbb" };
static struct string_handle compute = { .str = "compute" }, parse = { .str = "parse" };
static const struct id null_id;

static int load(void)
{
	const char *path = getenv("INTEL_LIBITTNOTIFY64");
	void (*api_init)(struct global *, int);
	void *sym;

	global.lib = path ? dlopen(path, RTLD_LAZY) : NULL;
	sym = global.lib ? dlsym(global.lib, "__itt_api_init") : NULL;
	if (!sym) {
		fprintf(stderr, "itt_tasks: no collector with __itt_api_init in %s\n",
			path ? path : "(INTEL_LIBITTNOTIFY64 unset)");
		return -1;
	}
	*(void **)&api_init = sym;
	api_init(&global, GROUP_ALL);
	global.api_initialized = 1;
	if (!task_begin_ptr || task_begin_ptr == (void *)task_init || !task_end_ptr ||
	    task_end_ptr == (void *)task_init || frame_begin_ptr ||
	    domain_create_ptr != (void *)domain_create_static) {
		fprintf(stderr, "itt_tasks: the collector left the API table wrong\n");
		return -1;
	}
	return 0;
}

/* As ittnotify.h's macros call: only for an enabled domain, only through a filled pointer. */
static void task_begin(const struct domain *d, struct string_handle *name)
{
	if (d->flags && task_begin_ptr)
		((task_begin_fn)task_begin_ptr)(d, null_id, null_id, name);
}

static void task_end(const struct domain *d)
{
	if (d->flags && task_end_ptr)
		((task_end_fn)task_end_ptr)(d);
}

static void bench(long n)
{
	uint64_t t0 = now_ns();
	long i;

	for (i = 0; i < n; i++) {
		task_begin(&tbb, &compute);
		task_end(&tbb);
	}
	print_pair_cost("itt", now_ns() - t0, n);
}

int main(int argc, char **argv)
{
	int i;

	if (load())
		return 3;
	if (argc == 3 && !strcmp(argv[1], "bench")) {
		bench(atol(argv[2]));
		return 0;
	}
	SCOPE_BPF_REGION("outer") {
		for (i = 0; i < TASKS; i++) {
			task_begin(&tbb, &compute);
			busy_ns(20000);
			task_end(&tbb);
		}
	}
	task_begin(&tbb, &parse);
	task_begin(&tbb, &compute);
	busy_ns(20000);
	task_end(&tbb);
	task_end(&tbb);
	SCOPE_BPF_REGION("guard")
		task_end(&tbb);
	return 0;
}
