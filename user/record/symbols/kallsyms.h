/* Kernel symbols from /proc/kallsyms: read once, text symbols sorted by address. */
#ifndef SB_KALLSYMS_H
#define SB_KALLSYMS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct sb_ksym {
	uint64_t addr;
	uint32_t name;		/* offset in names */
	uint32_t module;	/* offset in names: "[kernel]" or "[module]" */
	uint8_t rank;		/* preference among aliases at one address */
};

struct sb_kallsyms {
	struct sb_ksym *syms;
	size_t n;
	char *names;		/* NUL-separated, sanitized UTF-8 */
	bool loaded;
};

/*
 * Read /proc/kallsyms once; symbols without a module get kernel_name. Unreadable,
 * or all addresses zero (not privileged): loads nothing, and every lookup misses.
 * 0 or -ENOMEM.
 */
int sb_kallsyms_load(struct sb_kallsyms *k, const char *kernel_name);
/* The last text symbol at or below ip, or NULL. */
const struct sb_ksym *sb_kallsyms_find(const struct sb_kallsyms *k, uint64_t ip);
void sb_kallsyms_free(struct sb_kallsyms *k);

#endif
