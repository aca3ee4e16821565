/* The kernel's skipped runs of our hooks: read, weighed, and a test switch that makes some. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "record/kernel/load.h"
#include "record/kernel/skips.h"
#include "region.h"
#include "region.skel.h"

/* The hooks the scheduler hook stands in for, and their test switch. */
static const struct {
	const char *name;
	uint32_t bit;
} stood_in_for[] = {
	{ "on_fork", SB_SKIP_FORK },
	{ "on_exit", SB_SKIP_EXIT },
};

#define N_STOOD_IN (sizeof(stood_in_for) / sizeof(stood_in_for[0]))

static int stood_in_index(const char *name, size_t len)
{
	size_t i;

	for (i = 0; i < N_STOOD_IN; i++)
		if (strlen(stood_in_for[i].name) == len && !strncmp(stood_in_for[i].name, name, len))
			return (int)i;
	return -1;
}

void sb_kernel_skips_add(struct sb_kernel_skips *s, const char *name, uint64_t misses)
{
	size_t used = strlen(s->programs);

	if (!misses)
		return;
	if (stood_in_index(name, strlen(name)) >= 0)
		s->stood_in += misses;
	else
		s->lost += misses;
	if (used < sizeof(s->programs))
		snprintf(s->programs + used, sizeof(s->programs) - used, "%s%s %llu",
			 used ? ", " : "", name, (unsigned long long)misses);
}

static void read_object(struct sb_kernel_skips *s, struct bpf_object *obj)
{
	struct bpf_prog_info info;
	struct bpf_program *p;
	__u32 len;
	int fd;

	bpf_object__for_each_program(p, obj) {
		fd = bpf_program__fd(p);
		if (fd < 0)
			continue;
		memset(&info, 0, sizeof(info));
		len = sizeof(info);
		/* A kernel before 5.12 has no such count: it reads 0, which its hooks never skip. */
		if (!bpf_obj_get_info_by_fd(fd, &info, &len))
			sb_kernel_skips_add(s, bpf_program__name(p), info.recursion_misses);
	}
}

void sb_kernel_skips_read(struct sb_kernel *k)
{
	unsigned int i;

	memset(&k->skips, 0, sizeof(k->skips));
	if (k->skel)
		read_object(&k->skips, k->skel->obj);
	for (i = 0; i < k->n_groups; i++)
		if (k->groups[i].obj)
			read_object(&k->skips, k->groups[i].obj->obj);
}

int sb_kernel_skips_parse(const char *list, uint32_t *bits, struct sb_error *err)
{
	const char *p = list, *end;
	size_t len;
	int i;

	*bits = 0;
	while (p && *p) {
		end = strchr(p, ',');
		len = end ? (size_t)(end - p) : strlen(p);
		if (len) {
			i = stood_in_index(p, len);
			if (i < 0)
				return sb_fail(err, EINVAL, "%s: unknown hook '%.*s' (known: on_fork, "
					       "on_exit)", SB_KERNEL_SKIP_ENV, (int)len, p);
			*bits |= stood_in_for[i].bit;
		}
		p = end ? end + 1 : NULL;
	}
	return 0;
}
