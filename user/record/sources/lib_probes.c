/* Entry and return uprobes on a library's functions (lib_probes.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <bpf/libbpf.h>

#include "record/guardian.h"
#include "record/kernel/load.h"
#include "record/maps.h"
#include "record/sources/lib_probes.h"
#include "record/sources/mpi_uprobe_multi.h"
#include "region.skel.h"

int sb_lib_probes_configure(struct sb_lib_probes *lp, struct region_bpf *skel,
			    const struct sb_kernel *k, const char *enter_name, const char *exit_name)
{
	struct bpf_program *enter = bpf_object__find_program_by_name(skel->obj, enter_name);
	struct bpf_program *exit = bpf_object__find_program_by_name(skel->obj, exit_name);

	lp->enter = enter_name;
	lp->exit = exit_name;
	if (!enter || !exit || bpf_program__set_autoload(enter, true) ||
	    bpf_program__set_autoload(exit, true))
		return -EINVAL;
	lp->multi = sb_kernel_uprobe_multi(k);
	/* libbpf refuses a cookie the kernel cannot take: the programs then look the address up. */
	lp->cookies = k->feat.has[SB_KF_ATTACH_COOKIE];
	if (lp->multi &&
	    (bpf_program__set_expected_attach_type(enter, SB_TRACE_UPROBE_MULTI) ||
	     bpf_program__set_expected_attach_type(exit, SB_TRACE_UPROBE_MULTI)))
		return -EINVAL;
	return 0;
}

void sb_lib_probes_start(struct sb_lib_probes *lp)
{
	sb_hashmap_init(&lp->files);
	lp->started = true;
}

int sb_lib_probes_new_file(struct sb_lib_probes *lp, uint64_t dev, uint64_t inode)
{
	if (sb_hashmap_get(&lp->files, dev, inode))
		return 0;
	return sb_hashmap_put(&lp->files, dev, inode, 1) ?: 1;
}

int sb_lib_probes_file(const char *path, const char *name, sb_lib_found_fn found, void *ctx,
		       struct sb_error *err)
{
	char fd_path[64];
	int fd, ret;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return sb_fail(err, errno, "%s: cannot open: %s", path, strerror(errno));
	snprintf(fd_path, sizeof(fd_path), "/proc/self/fd/%d", fd);
	ret = found(ctx, fd_path, name, err);
	close(fd);
	return ret;
}

int sb_lib_probes_scan(struct sb_lib_probes *lp, pid_t pid, bool (*match)(const char *path),
		       sb_lib_found_fn found, void *ctx, struct sb_error *err)
{
	char path[4200];
	struct sb_map *maps;
	size_t n, i;
	int ret;

	ret = sb_maps_read(pid, &maps, &n);
	if (ret)
		return sb_fail(err, ret, "process %d: cannot read its mappings: %s", (int)pid,
			       strerror(-ret));
	for (i = 0; i < n && ret >= 0; i++) {
		if (!maps[i].exec || !match(maps[i].path))
			continue;
		ret = sb_lib_probes_new_file(lp, maps[i].dev, maps[i].inode);
		if (ret <= 0)
			continue;
		snprintf(path, sizeof(path), "/proc/%d/root%s", (int)pid, maps[i].path);
		ret = sb_lib_probes_file(path, maps[i].path, found, ctx, err);
	}
	sb_maps_free(maps, n);
	return ret < 0 ? ret : 0;
}

/* The file to probe: path opens it (a /proc/self/fd path), name is what messages call it. */
struct target {
	const char *path;
	const char *name;
};

static int attach_one(struct sb_lib_probes *lp, struct region_bpf *skel, struct bpf_program *prog,
		      const struct target *t, const struct sb_lib_funcs *f, uint32_t i,
		      bool retprobe, struct sb_error *err)
{
	LIBBPF_OPTS(bpf_uprobe_opts, opts, .bpf_cookie = lp->cookies ? f->cookie[i] : 0,
		    .retprobe = retprobe);
	struct bpf_link *link;
	int ret = sb_detach_mark(&lp->held);

	if (ret)
		return sb_fail(err, ret, "%s: cannot list open files: %s", t->name, strerror(-ret));
	sb_guardian_busy(skel, 1000000000ULL);
	link = bpf_program__attach_uprobe_opts(prog, -1, t->path, (size_t)f->offset[i], &opts);
	if (!link)
		return sb_fail(err, errno, "%s: cannot attach to %s: %s", t->name, f->name[i],
			       sb_strerror(errno));
	ret = sb_detach_keep(&lp->held, link);
	return ret ? sb_fail(err, ret, "%s: %s", t->name, strerror(-ret)) : 0;
}

/* One link for all of the functions, entries or returns; the fd is let go with the rest. */
static int attach_multi(struct sb_lib_probes *lp, struct region_bpf *skel,
			struct bpf_program *prog, const struct target *t,
			const struct sb_lib_funcs *f, bool retprobe, struct sb_error *err)
{
	int fd, ret = sb_detach_mark(&lp->held);

	if (ret)
		return sb_fail(err, ret, "%s: cannot list open files: %s", t->name, strerror(-ret));
	sb_guardian_busy(skel, 1000000000ULL);
	fd = sb_uprobe_multi_link(bpf_program__fd(prog), t->path, f->offset, f->cookie, f->n,
				  retprobe);
	if (fd < 0)
		return sb_fail(err, -fd, "%s: cannot attach to %u function%s: %s", t->name, f->n,
			       f->n == 1 ? "" : "s", sb_strerror(-fd));
	ret = sb_detach_keep_fd(&lp->held, fd);
	return ret ? sb_fail(err, ret, "%s: %s", t->name, strerror(-ret)) : 0;
}

int sb_lib_probes_attach(struct sb_lib_probes *lp, struct sb_kernel *k, const char *path,
			 const char *name, const struct sb_lib_funcs *f, struct sb_error *err)
{
	const struct target t = { .path = path, .name = name };
	struct region_bpf *skel = k->skel;
	struct bpf_program *enter, *exit;
	uint32_t i;
	int ret = 0;

	if (!f->n)
		return 0;
	/* Loaded with the first library that needs them; NULL: the kernel refused them. */
	enter = sb_kernel_prog(k, lp->enter, err);
	exit = enter ? sb_kernel_prog(k, lp->exit, err) : NULL;
	if (!exit)
		return -EPERM;
	/* The returns first: an entry whose return is not probed would leave its frame open. */
	if (lp->multi)
		return attach_multi(lp, skel, exit, &t, f, true, err) ?:
		       attach_multi(lp, skel, enter, &t, f, false, err);
	for (i = 0; i < f->n && !ret; i++) {
		ret = attach_one(lp, skel, exit, &t, f, i, true, err);
		if (!ret)
			ret = attach_one(lp, skel, enter, &t, f, i, false, err);
	}
	return ret;
}

void sb_lib_probes_release(struct sb_lib_probes *lp, struct sb_guardian *g)
{
	sb_detach_release(&lp->held, g);
}

void sb_lib_probes_free(struct sb_lib_probes *lp)
{
	sb_detach_release(&lp->held, NULL);
	if (lp->started)
		sb_hashmap_free(&lp->files);
}
