/*
 * An ITT collector library (Intel's Instrumentation and Tracing Technology,
 * docs/ANNOTATIONS.md): ittnotify's static part, compiled into programs and
 * libraries that use ITT (TBB, oneAPI), loads the library named by
 * INTEL_LIBITTNOTIFY64 at the first ITT call and, since it exports
 * __itt_api_init, hands it its table of API entry points to fill. This one
 * fills __itt_task_begin and __itt_task_end: each task becomes a scope_bpf
 * region named by its string handle, tagged with its domain; a task ends the
 * innermost open task of its domain on the thread (annot/annot.h). Domains
 * and string handles stay the static part's own.
 *
 * No ittnotify.h is needed (Debian packages none): the few structures below
 * are ITT's published ABI (ittnotify.h, ittnotify_config.h of Intel's ittapi,
 * version 3), declared here by their documented layout. The table is used
 * only when it carries ITT's magic and major version 3.
 */
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "annot.h"
#include "tags.h"

#define EXPORT __attribute__((visibility("default")))
#define UNNAMED "(unnamed itt task)"

static const unsigned char itt_magic[8] = { 0xED, 0xAB, 0xAB, 0xEC, 0x0D, 0xEE, 0xDA, 0x30 };

struct itt_domain {
	volatile int flags;		/* 0: disabled, the static part calls nothing */
	const char *name;
	void *name_wide;
	int extra1;
	void *extra2;
	struct itt_domain *next;
};

struct itt_string_handle {
	const char *str;
	void *str_wide;
	int extra1;
	void *extra2;
	struct itt_string_handle *next;
};

struct itt_id {
	unsigned long long d1, d2, d3;
};

/* One entry of the static part's API table: the name, and the pointer its calls go through. */
struct itt_api_info {
	const char *name;
	void **func_ptr;
	void *init_func;
	void *null_func;
	int group;
};

/* The static part's descriptor, as far as a collector reads it. */
struct itt_global {
	unsigned char magic[8];
	unsigned long version_major;
	unsigned long version_minor;
	unsigned long version_build;
	volatile long api_initialized;
	volatile long mutex_initialized;
	volatile long atomic_counter;
	pthread_mutex_t mutex;
	void *lib;
	void *error_handler;
	const char **dll_path_ptr;
	struct itt_api_info *api_list_ptr;
};

/*
 * "itt,itt.domain:NAME", made while traced only, and once per run of tasks of
 * one domain on a thread, not per task: a known name's lookup ignores them.
 */
static const char *tags(const struct itt_domain *d)
{
	static __thread const struct itt_domain *made_for;
	static __thread char made[128];

	if (made_for == d && made[0])
		return made;
	snprintf(made, sizeof(made), "itt");
	if (d && d->name && *d->name)
		annot_add_tag(made, sizeof(made), "itt.domain", d->name);
	made_for = d;
	return made;
}

static void task_begin(const struct itt_domain *d, struct itt_id task, struct itt_id parent,
		       struct itt_string_handle *name)
{
	const char *t = NULL, *n = NULL;

	(void)task;
	(void)parent;
	if (annot_traced()) {
		n = name && name->str && *name->str ? name->str : UNNAMED;
		t = tags(d);
	}
	annot_begin(n, t, (uint64_t)(uintptr_t)d, 0);
}

static void task_end(const struct itt_domain *d)
{
	annot_end_key((uint64_t)(uintptr_t)d);
}

struct entry {
	const char *name;
	void *fn;
};

static const struct entry entries[] = {
	{ "__itt_task_begin", (void *)task_begin },
	{ "__itt_task_end", (void *)task_end },
};

/*
 * Point each entry at this library's function, or at what the static part
 * would use without a collector (null_func: its own implementation for
 * domains and string handles, else NULL, which its callers skip), as its own
 * loader does for the entries a collector lacks: an entry left at its init
 * stub looks implemented, and LLVM's libomp, which carries the static part,
 * then takes paths no collector serves and fails an assertion.
 */
static void fill(struct itt_api_info *api)
{
	size_t i;

	for (i = 0; i < sizeof(entries) / sizeof(entries[0]); i++) {
		if (!strcmp(api->name, entries[i].name)) {
			*api->func_ptr = entries[i].fn;
			return;
		}
	}
	*api->func_ptr = api->null_func;
}

EXPORT void __itt_api_init(struct itt_global *g, int groups)
{
	struct itt_api_info *api;

	(void)groups;
	if (!g || memcmp(g->magic, itt_magic, sizeof(itt_magic)) || g->version_major != 3)
		return;
	for (api = g->api_list_ptr; api && api->name; api++)
		if (api->func_ptr)
			fill(api);
}
