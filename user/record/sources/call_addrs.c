/* Attach cookies by address, where the kernel has none (call_addrs.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <bpf/bpf.h>

#include "record/maps.h"
#include "record/sources/call_addrs.h"
#include "region.h"

#define NOT_PROBED (1ULL << 63)

void sb_call_addrs_init(struct sb_call_addrs *ca, int map_fd)
{
	memset(ca, 0, sizeof(*ca));
	ca->map_fd = map_fd;
	sb_hashmap_init(&ca->ids);
}

int sb_call_addrs_file(struct sb_call_addrs *ca, const char *path, const uint64_t *offset,
		       const uint64_t *cookie, uint32_t n)
{
	struct sb_call_file *files, *f;
	struct stat st;

	if (ca->map_fd < 0 || !n)
		return 0;
	if (stat(path, &st))
		return -errno;
	files = realloc(ca->files, (ca->n_files + 1) * sizeof(*files));
	if (!files)
		return -ENOMEM;
	ca->files = files;
	f = &files[ca->n_files];
	f->offset = malloc(n * sizeof(*f->offset));
	f->cookie = malloc(n * sizeof(*f->cookie));
	if (!f->offset || !f->cookie) {
		free(f->offset);
		free(f->cookie);
		return -ENOMEM;
	}
	memcpy(f->offset, offset, n * sizeof(*offset));
	memcpy(f->cookie, cookie, n * sizeof(*cookie));
	f->n = n;
	ca->n_files++;
	return sb_hashmap_put(&ca->ids, st.st_dev, st.st_ino, ca->n_files);
}

/*
 * The probed file a mapping of pid is, or -1. The maps may name a file by
 * another device and inode than stat does (a 9p root: the kernel matrix's
 * guests), so a mapping not known by the maps' identity is looked up by
 * stat's, once per new probed file.
 */
static long file_of(struct sb_call_addrs *ca, pid_t pid, const struct sb_map *m)
{
	uint64_t *v = sb_hashmap_get(&ca->ids, m->dev, m->inode);
	char path[4200];
	struct stat st;
	long idx = -1;

	if (v && !(*v & NOT_PROBED))
		return (long)*v - 1;
	if (v && (*v & ~NOT_PROBED) == ca->n_files)
		return -1;
	snprintf(path, sizeof(path), "/proc/%d/root%s", (int)pid, m->path);
	if (!stat(path, &st)) {
		v = sb_hashmap_get(&ca->ids, st.st_dev, st.st_ino);
		if (v && !(*v & NOT_PROBED))
			idx = (long)*v - 1;
	}
	if (sb_hashmap_put(&ca->ids, m->dev, m->inode,
			   idx >= 0 ? (uint64_t)idx + 1 : NOT_PROBED | ca->n_files))
		return -1;	/* looked up again next time */
	return idx;
}

static int by_addr(const void *a, const void *b)
{
	const struct sb_call_entry *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

int sb_call_addrs_of(struct sb_call_addrs *ca, pid_t pid, const struct sb_map *maps, size_t n,
		     struct sb_call_entry **out, size_t *n_out)
{
	struct sb_call_entry *e = NULL, *grown;
	const struct sb_call_file *f;
	size_t used = 0, cap = 0, i;
	uint32_t j;
	long idx;

	for (i = 0; i < n; i++) {
		if (!maps[i].exec || maps[i].path[0] != '/')
			continue;
		idx = file_of(ca, pid, &maps[i]);
		if (idx < 0)
			continue;
		f = &ca->files[idx];
		for (j = 0; j < f->n; j++) {
			if (f->offset[j] < maps[i].pgoff ||
			    f->offset[j] - maps[i].pgoff >= maps[i].end - maps[i].start)
				continue;
			if (used == cap) {
				cap = cap ? cap * 2 : 64;
				grown = realloc(e, cap * sizeof(*e));
				if (!grown) {
					free(e);
					return -ENOMEM;
				}
				e = grown;
			}
			e[used].addr = maps[i].start + f->offset[j] - maps[i].pgoff;
			e[used++].cookie = f->cookie[j];
		}
	}
	if (used)
		qsort(e, used, sizeof(*e), by_addr);
	*out = e;
	*n_out = used;
	return 0;
}

static struct sb_call_proc *proc_of(struct sb_call_addrs *ca, pid_t pid)
{
	size_t i;

	for (i = 0; i < ca->n_procs; i++)
		if (ca->procs[i].pid == pid)
			return &ca->procs[i];
	return NULL;
}

static void delete_addr(struct sb_call_addrs *ca, pid_t pid, uint64_t addr)
{
	struct sb_call_addr_key key = { .tgid = (__u32)pid, .addr = addr };

	bpf_map_delete_elem(ca->map_fd, &key);
}

/*
 * Put entries e[0..n) of pid in the map; the number put (all, or those
 * before the map was full) in *put.
 */
static int put_entries(struct sb_call_addrs *ca, pid_t pid, const struct sb_call_entry *e,
		       size_t n, size_t *put)
{
	struct sb_call_addr_key key = { .tgid = (__u32)pid };
	size_t i;

	for (i = 0; i < n; i++) {
		key.addr = e[i].addr;
		if (bpf_map_update_elem(ca->map_fd, &key, &e[i].cookie, BPF_ANY)) {
			*put = i;
			return -errno;
		}
	}
	*put = n;
	return 0;
}

/*
 * pid's entries become e[0..n) (sorted): the new ones are put before the old
 * ones that are gone (an image before exec, an unloaded object) are deleted,
 * so a running thread finds its functions all along.
 */
static int replace(struct sb_call_addrs *ca, pid_t pid, const struct sb_call_entry *e, size_t n)
{
	struct sb_call_proc *p = proc_of(ca, pid), *procs;
	uint64_t *addr = n ? malloc(n * sizeof(*addr)) : NULL;
	size_t put, i, j;
	int ret;

	if (n && !addr)
		return -ENOMEM;
	if (!p && n) {
		procs = realloc(ca->procs, (ca->n_procs + 1) * sizeof(*procs));
		if (!procs) {
			free(addr);
			return -ENOMEM;
		}
		ca->procs = procs;
		p = &procs[ca->n_procs++];
		*p = (struct sb_call_proc){ .pid = pid };
	}
	if (!p)
		return 0;
	ret = put_entries(ca, pid, e, n, &put);
	for (i = 0; i < put; i++)
		addr[i] = e[i].addr;
	for (i = 0, j = 0; i < p->n; i++) {
		while (j < put && addr[j] < p->addr[i])
			j++;
		if (j == put || addr[j] != p->addr[i])
			delete_addr(ca, pid, p->addr[i]);
	}
	free(p->addr);
	p->addr = addr;
	p->n = put;
	return ret;
}

int sb_call_addrs_process(struct sb_call_addrs *ca, pid_t pid)
{
	struct sb_call_entry *e;
	struct sb_map *maps;
	size_t n, n_e;
	int ret;

	if (ca->map_fd < 0 || !ca->n_files)
		return 0;
	ret = sb_maps_read(pid, &maps, &n);
	if (ret)
		return ret == -ENOENT || ret == -ESRCH ? 0 : ret;	/* gone: nothing to keep */
	ret = sb_call_addrs_of(ca, pid, maps, n, &e, &n_e);
	sb_maps_free(maps, n);
	if (ret)
		return ret;
	ret = replace(ca, pid, e, n_e);
	free(e);
	return ret;
}

static void drop(struct sb_call_addrs *ca, pid_t pid)
{
	struct sb_call_proc *p = proc_of(ca, pid);
	size_t i;

	if (!p)
		return;
	for (i = 0; i < p->n; i++)
		delete_addr(ca, pid, p->addr[i]);
	free(p->addr);
	*p = ca->procs[--ca->n_procs];
}

void sb_call_addrs_record(struct sb_call_addrs *ca, const void *data, size_t size)
{
	struct sb_proc_event e;
	uint32_t type;

	if (!ca->n_procs || size < sizeof(e))
		return;
	memcpy(&type, data, sizeof(type));
	if (type != SB_EV_PROC_EXIT)
		return;
	memcpy(&e, data, sizeof(e));
	drop(ca, (pid_t)e.tgid);
}

void sb_call_addrs_free(struct sb_call_addrs *ca)
{
	size_t i;

	for (i = 0; i < ca->n_files; i++) {
		free(ca->files[i].offset);
		free(ca->files[i].cookie);
	}
	for (i = 0; i < ca->n_procs; i++)
		free(ca->procs[i].addr);
	free(ca->files);
	free(ca->procs);
	sb_hashmap_free(&ca->ids);
	memset(ca, 0, sizeof(*ca));
	ca->map_fd = -1;
}
