/* Test app: two plugins loaded one after the other at the same address. */

/*
 * "dlplugins DIR": loads DIR/libplugin_a.so, calls its region "plugin_a" 3
 * times, unloads it, loads DIR/libplugin_b.so (built from the same source, so
 * its descriptors sit at the same offsets) and calls its region "plugin_b" 5
 * times. Both are the same size, so B lands where A was; the app checks that
 * and exits 3 if not, since then it would not test the reuse. A tracer must
 * name each call after the plugin that made it: 3 "plugin_a", 5 "plugin_b".
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <link.h>
#include <stdio.h>

#define A_CALLS 3
#define B_CALLS 5

/* Loads DIR/NAME, runs plugin_run calls times, unloads it; its base address, or 0. */
static ElfW(Addr) run_plugin(const char *dir, const char *name, int calls)
{
	struct link_map *map;
	void (*run)(void);
	ElfW(Addr) base;
	char path[4096];
	void *h;
	int i;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		fprintf(stderr, "dlplugins: %s\n", dlerror());
		return 0;
	}
	*(void **)&run = dlsym(h, "plugin_run");
	if (!run || dlinfo(h, RTLD_DI_LINKMAP, &map)) {
		fprintf(stderr, "dlplugins: %s: no plugin_run\n", path);
		dlclose(h);
		return 0;
	}
	for (i = 0; i < calls; i++)
		run();
	base = map->l_addr;
	dlclose(h);
	return base;
}

int main(int argc, char **argv)
{
	ElfW(Addr) a, b;

	if (argc != 2) {
		fprintf(stderr, "usage: dlplugins DIR\n");
		return 2;
	}
	a = run_plugin(argv[1], "libplugin_a.so", A_CALLS);
	b = a ? run_plugin(argv[1], "libplugin_b.so", B_CALLS) : 0;
	if (!a || !b)
		return 1;
	if (a != b) {
		fprintf(stderr, "dlplugins: B loaded at %#lx, A was at %#lx\n",
			(unsigned long)b, (unsigned long)a);
		return 3;
	}
	return 0;
}
