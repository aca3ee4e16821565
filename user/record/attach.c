/*
 * Attaching region probes. Uprobes are attached by file for all processes (pid -1)
 * and the BPF side filters by traced tgid: that way a fork, or a process that maps
 * the object later, is covered without a race. Other processes that run the same
 * instrumented object pay the trap while recording but are never recorded.
 */
#include <errno.h>
#include <inttypes.h>
#include <libgen.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/libbpf.h>

#include "record/attach.h"
#include "record/guardian.h"
#include "record/kernel/load.h"
#include "record/probes.h"
#include "region.skel.h"

/* What registering one uprobe took at worst on a loaded machine here. */
#define UPROBE_REGISTER_MAX_NS 1000000000ULL

void sb_attach_init(struct sb_attach *a, struct sb_kernel *k, struct sb_guardian *g,
		    bool verbose)
{
	memset(a, 0, sizeof(*a));
	a->kernel = k;
	a->skel = k->skel;
	a->guardian = g;
	a->verbose = verbose;
	sb_hashmap_init(&a->files);
}

/*
 * The probe of the object at path, to the program called prog (loaded now if
 * need be), kept in held.
 */
static int attach_usdt(struct sb_attach *a, struct sb_detach *held, const char *prog_name,
		       const char *path, const char *probe, struct sb_error *err)
{
	struct bpf_program *prog = sb_kernel_prog(a->kernel, prog_name, err);
	struct bpf_link *link;
	int ret;

	if (!prog)
		return -EPERM;
	ret = sb_detach_mark(held);
	if (ret)
		return sb_fail(err, ret, "%s: cannot list open files: %s", path, strerror(-ret));
	link = bpf_program__attach_usdt(prog, -1, path, SB_PROVIDER, probe, NULL);
	if (!link)
		return sb_fail(err, errno, "%s: cannot attach probe %s:%s: %s", path,
			       SB_PROVIDER, probe, sb_strerror(errno));
	ret = sb_detach_keep(held, link);
	return ret ? sb_fail(err, ret, "%s: %s", path, strerror(-ret)) : 0;
}

/*
 * Without attach cookies libbpf attaches a position-independent object's USDT
 * probes to one process only (it tells probes apart by their address, which
 * each process maps elsewhere). Plain uprobes at the notes' sites, with their
 * semaphores, reach every process; the programs that take the site from its
 * register (the current header's markers) need nothing else from the note.
 */
static int attach_sites(struct sb_attach *a, const char *prog_name, const char *path,
			const char *probe, struct sb_error *err)
{
	struct bpf_program *prog = sb_kernel_prog(a->kernel, prog_name, err);
	int all = sb_count_named_probes(path, SB_PROVIDER, probe), n, i, ret = 0;
	struct sb_probe_site *sites;
	struct bpf_link *link;

	if (!prog)
		return -EPERM;
	if (!SB_SITE_ARG || sb_count_probes_with_args(path, SB_PROVIDER, probe, SB_SITE_ARG) != all)
		return sb_fail(err, EOPNOTSUPP, "%s: its %s probes do not all keep the site in %s "
			       "(an older header or another compiler): kernel %s has no BPF attach "
			       "cookies (Linux 5.15), without which only this header's markers "
			       "are attached", path, probe, SB_SITE_ARG ? SB_SITE_ARG : "a register",
			       a->kernel->feat.release);
	sites = calloc((size_t)all, sizeof(*sites));
	if (!sites)
		return -ENOMEM;
	n = sb_probe_sites(path, SB_PROVIDER, probe, SB_SITE_ARG, sites, all);
	if (n != all)
		ret = sb_fail(err, n < 0 ? -n : EINVAL, "%s: %d of its %d %s probes lie outside "
			      "the file's loaded bytes", path, all - (n < 0 ? 0 : n), all, probe);
	for (i = 0; !ret && i < n; i++) {
		LIBBPF_OPTS(bpf_uprobe_opts, opts, .ref_ctr_offset = sites[i].ref_ctr_offset);

		ret = sb_detach_mark(&a->held);
		if (ret) {
			sb_fail(err, ret, "%s: cannot list open files: %s", path, strerror(-ret));
			break;
		}
		link = bpf_program__attach_uprobe_opts(prog, -1, path, sites[i].offset, &opts);
		if (!link)
			ret = sb_fail(err, errno, "%s: cannot attach probe %s:%s at 0x%llx: %s", path,
				      SB_PROVIDER, probe, (unsigned long long)sites[i].offset,
				      sb_strerror(errno));
		else if ((ret = sb_detach_keep(&a->held, link)))
			sb_fail(err, ret, "%s: %s", path, strerror(-ret));
	}
	free(sites);
	return ret;
}

/*
 * The program (its name) for one marker probe of an object: the one that reads the site
 * from its register when every such note of the object says it is there (the
 * current header's markers), else the one that fetches it where each note says.
 */
static const char *marker_program(struct sb_attach *a, const char *path, const char *probe)
{
	bool begin = !strcmp(probe, "region_begin");
	int all = sb_count_named_probes(path, SB_PROVIDER, probe);
	/* The counting variants, where the recording counts (record -e/-g). */
	bool ctr = sb_kernel_wants(a->kernel, "region_begin_ctr");

	if (SB_SITE_ARG && all > 0 &&
	    sb_count_probes_with_args(path, SB_PROVIDER, probe, SB_SITE_ARG) == all) {
		if (begin)
			return ctr ? "begin_site_reg_ctr" : "begin_site_reg";
		return ctr ? "end_site_reg_ctr" : "end_site_reg";
	}
	if (a->verbose)
		fprintf(stderr, "scope-bpf: %s: %s sites not all in %s: fetched as each note says\n",
			path, probe, SB_SITE_ARG ? SB_SITE_ARG : "a register");
	if (begin)
		return ctr ? "region_begin_ctr" : "region_begin";
	return ctr ? "region_end_ctr" : "region_end";
}

/* A marker probe of an object to its program, through libbpf's USDT support or not. */
static int attach_marker(struct sb_attach *a, const char *path, const char *probe,
			 struct sb_error *err)
{
	const char *prog = marker_program(a, path, probe);

	if (sb_kernel_usdt_by_uprobe(a->kernel))
		return attach_sites(a, prog, path, probe, err);
	return attach_usdt(a, &a->held, prog, path, probe, err);
}

/* The loader calls _dl_debug_state whenever the link map changes (startup, dlopen). */
static int attach_loader(struct sb_attach *a, const char *path)
{
	LIBBPF_OPTS(bpf_uprobe_opts, opts, .func_name = "_dl_debug_state");
	struct bpf_link *link;
	int ret;

	ret = sb_detach_mark(&a->held);
	if (ret)
		return ret;
	link = bpf_program__attach_uprobe_opts(a->skel->progs.on_dl_state, -1, path, 0, &opts);
	if (!link) {
		/* Not fatal: libraries loaded later are attached late, not missed entirely. */
		if (a->verbose)
			fprintf(stderr, "scope-bpf: %s: no _dl_debug_state hook: %s\n", path,
				strerror(errno));
		return 0;
	}
	return sb_detach_keep(&a->held, link);
}

static bool is_loader(const char *path)
{
	char copy[4096], *base;

	snprintf(copy, sizeof(copy), "%s", path);
	base = basename(copy);
	return !strncmp(base, "ld-", 3) && strstr(base, ".so");
}

/*
 * Probes found and not attached while their process lives on: their calls
 * are missing, said at the end (not only with -v). A process or file gone
 * meanwhile lost nothing.
 */
static void note_failure(struct sb_attach *a, pid_t pid, int ret, const struct sb_error *err)
{
	if (ret == -ENOMEM || ret == -ENOENT || ret == -ESRCH || (kill(pid, 0) && errno == ESRCH))
		return;
	if (!a->failed_files++)
		snprintf(a->failure, sizeof(a->failure), "%s", err->msg);
}

static int attach_object(struct sb_attach *a, pid_t pid, const char *mapped, struct sb_error *err)
{
	char path[4200];
	int n, ret;

	/* Through the process's root, so objects in other mount namespaces resolve. */
	snprintf(path, sizeof(path), "/proc/%d/root%s", (int)pid, mapped);
	if (is_loader(mapped))
		return attach_loader(a, path);
	n = sb_count_probes(path);
	if (n <= 0)
		return 0;
	/* Each uprobe can take long to register: the held process must wait, not go. */
	sb_guardian_busy(a->skel, (uint64_t)n * UPROBE_REGISTER_MAX_NS + 1000000000ULL);
	/* A unit that only includes the header has no probe; others may have only the fast ones. */
	ret = 0;
	if (sb_count_named_probes(path, SB_PROVIDER, "region_begin") > 0) {
		ret = attach_marker(a, path, "region_begin", err);
		if (!ret)
			ret = attach_marker(a, path, "region_end", err);
	}
	/*
	 * The region probes stay as the fast path's fallback: a marker fires its
	 * probe only when its thread has no ring (no slot, no memory).
	 */
	if (!ret && a->fast && sb_count_named_probes(path, SB_PROVIDER, "fast_ready") > 0) {
		ret = attach_usdt(a, &a->fast_held, "fast_ready", path, "fast_ready", err);
		if (!ret)
			ret = attach_usdt(a, &a->fast_held,
					  sb_kernel_wants(a->kernel, "fast_site_ts") ?
					  "fast_site_ts" : "fast_site", path, "fast_site", err);
		/* Older headers' writers never wake the drainer: it then never sleeps long. */
		if (!ret && sb_count_named_probes(path, SB_PROVIDER, "fast_wake") > 0)
			ret = attach_usdt(a, &a->fast_held, "fast_wake", path, "fast_wake", err);
		else if (!ret)
			a->fast_unwaking++;
		if (!ret)
			a->fast_files++;
	}
	if (ret)
		note_failure(a, pid, ret, err);
	sb_guardian_heartbeat(a->skel);
	if (ret)
		return ret;
	if (a->verbose)
		fprintf(stderr, "scope-bpf: attached %d probes in %s (pid %d)\n", n, mapped, (int)pid);
	a->probe_files++;
	a->probes += n;
	return 1;
}

int sb_attach_process(struct sb_attach *a, pid_t pid, struct sb_error *err)
{
	unsigned int major, minor;
	char maps[64], line[4400];
	int found = 0, ret = 0, path_at;
	unsigned long inode;
	FILE *f;

	snprintf(maps, sizeof(maps), "/proc/%d/maps", (int)pid);
	f = fopen(maps, "re");
	if (!f)
		return sb_fail(err, errno, "process %d: cannot read its mappings: %s", (int)pid,
			       strerror(errno));
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = 0;
		path_at = 0;
		if (sscanf(line, "%*x-%*x %*s %*x %x:%x %lu %n", &major, &minor, &inode, &path_at) < 3 ||
		    !path_at || !inode || line[path_at] != '/' || strstr(line + path_at, " (deleted)"))
			continue;
		if (sb_hashmap_get(&a->files, ((uint64_t)major << 32) | minor, inode))
			continue;
		ret = sb_hashmap_put(&a->files, ((uint64_t)major << 32) | minor, inode, 1);
		if (!ret)
			ret = attach_object(a, pid, line + path_at, err);
		if (ret < 0)
			break;
		found += ret;
	}
	fclose(f);
	return ret < 0 ? ret : found;
}

void sb_attach_free(struct sb_attach *a)
{
	/*
	 * The fast-path probes first, under the release lock: while one is
	 * registered its semaphore sends a process's markers to shared memory,
	 * so a recording started next in kernel mode got none of them unless it
	 * waited for them to go (record/detach.h).
	 */
	sb_detach_release_fast(&a->fast_held, a->guardian);
	sb_detach_release(&a->held, a->guardian);
	sb_hashmap_free(&a->files);
}
