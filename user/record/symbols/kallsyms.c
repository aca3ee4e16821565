/* Kernel symbolization from /proc/kallsyms: a sorted table of text symbols, searched by address. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/array.h"
#include "record/symbols/kallsyms.h"
#include "util/utf8.h"

struct loader {
	struct sb_kallsyms *k;
	size_t cap_syms;
	size_t len_names;
	size_t cap_names;
	char last_module[128];	/* kallsyms lists each module's symbols together */
	uint32_t last_module_at;
};

/* Text symbols only; global before weak before local, so the best alias sorts first. */
static int ksym_rank(char type)
{
	switch (type) {
	case 'T':
		return 0;
	case 'W':
		return 1;
	case 't':
		return 2;
	case 'w':
		return 3;
	default:
		return -1;
	}
}

static int ksym_cmp(const void *a, const void *b)
{
	const struct sb_ksym *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return x->rank - y->rank;
}

/* Append a string to the names; its offset, or -ENOMEM. */
static int64_t add_name(struct loader *l, const char *name)
{
	size_t len = strlen(name) + 1, at = l->len_names;

	if (at + len > UINT32_MAX || sb_array_reserve((void **)&l->k->names, &l->cap_names, at + len, 1))
		return -ENOMEM;
	memcpy(l->k->names + at, name, len);
	sb_utf8_sanitize(l->k->names + at);
	l->len_names += len;
	return (int64_t)at;
}

static int64_t module_name(struct loader *l, const char *name)
{
	int64_t at;

	if (l->len_names && !strcmp(l->last_module, name))
		return l->last_module_at;
	at = add_name(l, name);
	if (at < 0)
		return at;
	snprintf(l->last_module, sizeof(l->last_module), "%s", name);
	l->last_module_at = (uint32_t)at;
	return at;
}

/* Parse "addr type name [module]"; 1 for a text symbol at a real address, 0 to skip. */
static int add_line(struct loader *l, char *line, const char *kernel_name)
{
	char *end, *name, *module;
	int64_t name_at, module_at;
	struct sb_ksym s = { 0 };
	int rank;

	line[strcspn(line, "\n")] = 0;
	s.addr = strtoull(line, &end, 16);
	if (end == line || *end != ' ' || !s.addr)
		return 0;
	rank = ksym_rank(end[1]);
	if (rank < 0 || end[2] != ' ')
		return 0;
	s.rank = (uint8_t)rank;
	name = end + 3;
	module = strchr(name, '\t');
	if (module)
		*module++ = 0;
	module_at = module_name(l, module && *module == '[' ? module : kernel_name);
	name_at = add_name(l, name);
	if (module_at < 0 || name_at < 0 ||
	    sb_array_reserve((void **)&l->k->syms, &l->cap_syms, l->k->n + 1, sizeof(s)))
		return -ENOMEM;
	s.name = (uint32_t)name_at;
	s.module = (uint32_t)module_at;
	l->k->syms[l->k->n++] = s;
	return 0;
}

int sb_kallsyms_load(struct sb_kallsyms *k, const char *kernel_name)
{
	struct loader l = { .k = k };
	char *line = NULL;
	size_t size = 0, i, kept;
	int ret = 0;
	FILE *f;

	k->loaded = true;
	f = fopen("/proc/kallsyms", "re");
	if (!f)
		return 0;
	while (!ret && getline(&line, &size, f) > 0)
		ret = add_line(&l, line, kernel_name);
	free(line);
	fclose(f);
	if (ret)
		return ret;
	qsort(k->syms, k->n, sizeof(*k->syms), ksym_cmp);
	/* Aliases share an address: the preferred one sorted first, keep only it. */
	for (i = kept = 0; i < k->n; i++)
		if (!kept || k->syms[kept - 1].addr != k->syms[i].addr)
			k->syms[kept++] = k->syms[i];
	k->n = kept;
	return 0;
}

const struct sb_ksym *sb_kallsyms_find(const struct sb_kallsyms *k, uint64_t ip)
{
	size_t lo = 0, hi = k->n, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (k->syms[mid].addr <= ip)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo ? &k->syms[lo - 1] : NULL;
}

void sb_kallsyms_free(struct sb_kallsyms *k)
{
	free(k->syms);
	free(k->names);
	memset(k, 0, sizeof(*k));
}
