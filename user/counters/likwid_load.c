/* Finding and reading LIKWID group files: `-g NAME` for this CPU, a path, `--list-groups`. */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "counters/likwid.h"
#include "counters/likwid_arch.h"

#define GROUP_FILE_MAX (1 << 20)

static char *read_file(const char *path, struct sb_error *err)
{
	FILE *f = fopen(path, "r");
	char *text;
	size_t n;

	if (!f) {
		sb_fail(err, errno, "%s: %s", path, strerror(errno));
		return NULL;
	}
	text = malloc(GROUP_FILE_MAX + 1);
	n = text ? fread(text, 1, GROUP_FILE_MAX + 1, f) : 0;
	fclose(f);
	if (!text || n > GROUP_FILE_MAX) {
		sb_fail(err, E2BIG, "%s: not a LIKWID group file (over 1 MiB)", path);
		free(text);
		return NULL;
	}
	text[n] = '\0';
	return text;
}

/* "FLOPS_DP" from ".../FLOPS_DP.txt" */
static char *group_name_of(const char *path)
{
	const char *base = strrchr(path, '/');
	size_t len;

	base = base ? base + 1 : path;
	len = strlen(base);
	if (len > 4 && !strcmp(base + len - 4, ".txt"))
		len -= 4;
	return strndup(base, len);
}

static int load_path(const char *path, const char *arch, struct sb_likwid_group *g,
		     struct sb_error *err)
{
	char *text = read_file(path, err);
	int ret;

	if (!text)
		return -ENOENT;
	ret = sb_likwid_group_parse_arch(text, path, arch, g, err);
	free(text);
	if (!ret)
		g->name = group_name_of(path);
	return ret;
}

static bool valid_group_name(const char *name)
{
	return *name && strlen(name) < 128 && !strchr(name, '/') && strcmp(name, ".") &&
	       strcmp(name, "..");
}

int sb_likwid_group_load_arch(const char *arch, const char *name, struct sb_likwid_group *g,
			      struct sb_error *err)
{
	char path[512];

	if (!valid_group_name(name))
		return sb_fail(err, EINVAL, "-g '%s': not a group name", name);
	snprintf(path, sizeof(path), "%s/%s/%s.txt", sb_likwid_groups_root(), arch, name);
	if (access(path, R_OK))
		return sb_fail(err, ENOENT, "-g %s: no such LIKWID group for %s (%s missing; see "
			       "record --list-groups)", name, arch, path);
	return load_path(path, arch, g, err);
}

int sb_likwid_group_load(const char *name, struct sb_likwid_group *g, struct sb_error *err)
{
	const char *arch = sb_likwid_arch_detect(err);
	char why[sizeof(err->msg)];

	/* The group asked for is the object the message names; the CPU is the cause. */
	if (!arch && err) {
		snprintf(why, sizeof(why), "%s", err->msg);
		sb_fail(err, ENOENT, "-g %s: %s", name, why);
	}
	if (!arch)
		return -ENOENT;
	if (strchr(name, '/'))
		return load_path(name, arch, g, err);
	return sb_likwid_group_load_arch(arch, name, g, err);
}

static int by_name(const struct dirent **a, const struct dirent **b)
{
	return strcmp((*a)->d_name, (*b)->d_name);
}

static bool is_group_file(const struct dirent *d)
{
	size_t len = strlen(d->d_name);

	return len > 4 && !strcmp(d->d_name + len - 4, ".txt");
}

static int only_groups(const struct dirent *d)
{
	return is_group_file(d);
}

static void list_one(FILE *f, const char *dir, const char *file)
{
	struct sb_likwid_group g;
	struct sb_error err;
	char path[1024];
	char *name;

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	name = group_name_of(file);
	if (load_path(path, strrchr(dir, '/') + 1, &g, &err)) {
		fprintf(f, "  %-18s (not usable here: %s)\n", name, err.msg);
	} else {
		fprintf(f, "  %-18s %s%s\n", name, g.description ? g.description : "",
			g.n_skipped ? " [some counters not counted per thread]" : "");
		sb_likwid_group_free(&g);
	}
	free(name);
}

int sb_likwid_list_groups(FILE *f)
{
	struct dirent **files;
	struct sb_error err;
	const char *arch = sb_likwid_arch_detect(&err);
	char dir[512];
	int n, i;

	if (!arch) {
		fprintf(f, "LIKWID groups: none (%s)\n", err.msg);
		return 0;
	}
	snprintf(dir, sizeof(dir), "%s/%s", sb_likwid_groups_root(), arch);
	n = scandir(dir, &files, only_groups, by_name);
	if (n < 0)
		return -errno;
	fprintf(f, "LIKWID groups for this CPU (%s):\n", dir);
	for (i = 0; i < n; i++) {
		list_one(f, dir, files[i]->d_name);
		free(files[i]);
	}
	free(files);
	return ferror(f) ? -EIO : 0;
}
