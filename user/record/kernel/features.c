/* The kernel's features, probed by test loads (features.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "features.skel.h"
#include "record/kernel/features.h"
#include "record/sources/mpi_uprobe_multi.h"

#ifndef PIDFD_THREAD
#define PIDFD_THREAD O_EXCL
#endif

static const struct {
	const char *name;
	const char *fallback;
} features[SB_KF_COUNT] = {
	[SB_KF_SLEEPABLE] = { "sleepable", "marker programs not sleepable: sites they cannot "
			      "read are named by the recorder" },
	[SB_KF_UPROBE_MULTI] = { "uprobe_multi", "library calls (MPI, CUDA) probed one uprobe "
				 "per function" },
	[SB_KF_TASK_STORAGE] = { "task_storage", "the scheduler hook looks every task up in "
				 "the process table" },
	[SB_KF_TASK_BTF] = { "task_btf", "marker programs take tid and tgid from "
			     "bpf_get_current_pid_tgid" },
	[SB_KF_PIDFD_THREAD] = { "pidfd_thread", "running threads are marked at their first "
				 "event, not at attach" },
	[SB_KF_TASK_STACK] = { "task_stack", "uprobe programs may run on per-CPU stacks: each makes "
			       "a tail call it never takes, so that it keeps its task's stack; marker "
			       "programs not sleepable" },
	[SB_KF_ATOMIC_FETCH] = { "atomic_fetch", "calls numbered by a per-CPU count, marker "
				 "programs not sleepable" },
	[SB_KF_ATTACH_COOKIE] = { "attach_cookie", "markers trap (no fast path) and only "
				  "objects built with this header's markers are recorded; OpenMP and "
				  "MPI probes are told apart by address; CUDA calls are not recorded" },
};

const char *sb_kfeature_name(enum sb_kfeature f)
{
	return f < SB_KF_COUNT ? features[f].name : "?";
}

const char *sb_kfeature_fallback(enum sb_kfeature f)
{
	return f < SB_KF_COUNT ? features[f].fallback : "?";
}

static int feature_by_name(const char *name, size_t len)
{
	int f;

	for (f = 0; f < SB_KF_COUNT; f++)
		if (strlen(features[f].name) == len && !strncmp(features[f].name, name, len))
			return f;
	return -1;
}

int sb_kfeatures_parse_off(struct sb_kfeatures *k, const char *list, struct sb_error *err)
{
	const char *p = list, *end;
	size_t len;
	int f;

	while (p && *p) {
		end = strchr(p, ',');
		len = end ? (size_t)(end - p) : strlen(p);
		if (len == 3 && !strncmp(p, "all", 3)) {
			for (f = 0; f < SB_KF_FIRST_COSTLY; f++)
				k->forced_off[f] = true;
		} else if (len) {
			f = feature_by_name(p, len);
			if (f < 0)
				return sb_fail(err, EINVAL, "%s: unknown kernel feature '%.*s' (known: "
					       "sleepable, uprobe_multi, task_storage, task_btf, "
					       "pidfd_thread, task_stack, all of these, atomic_fetch, "
					       "attach_cookie)", SB_KERNEL_OFF_ENV, (int)len, p);
			k->forced_off[f] = true;
		}
		p = end ? end + 1 : NULL;
	}
	return 0;
}

/* Load the probe program named prog, sleepable or not: 0, or -errno. */
static int try_load(const char *prog, bool sleepable)
{
	struct features_bpf *skel = features_bpf__open();
	struct bpf_program *p;
	int ret;

	if (!skel)
		return -errno;
	p = bpf_object__find_program_by_name(skel->obj, prog);
	ret = p ? bpf_program__set_autoload(p, true) : -ENOENT;
	if (!ret)
		ret = bpf_program__set_flags(p, sleepable ? BPF_F_SLEEPABLE : 0);
	if (!ret)
		ret = features_bpf__load(skel);
	features_bpf__destroy(skel);
	return ret;
}

static bool probe_task_storage(void)
{
	return libbpf_probe_bpf_map_type(BPF_MAP_TYPE_TASK_STORAGE, NULL) == 1 &&
	       libbpf_probe_bpf_helper(BPF_PROG_TYPE_KPROBE, BPF_FUNC_task_storage_get, NULL) == 1;
}

static bool probe_pidfd_thread(void)
{
	int fd = (int)syscall(SYS_pidfd_open, (pid_t)syscall(SYS_gettid), PIDFD_THREAD);

	if (fd < 0)
		return false;
	close(fd);
	return true;
}

/*
 * Whether the kernel may run a uprobe program on a per-CPU private stack
 * (6.14's x86-64 JIT): its programs then carry struct bpf_prog_aux's
 * priv_stack_ptr. Without kernel BTF nothing records anyway.
 */
static bool probe_task_stack(void)
{
	struct btf *btf = btf__load_vmlinux_btf();
	const struct btf_member *m;
	const struct btf_type *t;
	bool priv = false;
	int id, i;

	if (!btf)
		return true;
	id = btf__find_by_name_kind(btf, "bpf_prog_aux", BTF_KIND_STRUCT);
	t = id > 0 ? btf__type_by_id(btf, id) : NULL;
	for (i = 0, m = t ? btf_members(t) : NULL; t && i < btf_vlen(t); i++, m++)
		if (!strcmp(btf__name_by_offset(btf, m->name_off), "priv_stack_ptr"))
			priv = true;
	btf__free(btf);
	return !priv;
}

/* Whether struct sname has member; with type, whether the member's type name begins so. */
static bool btf_member_is(const struct btf *btf, const char *sname, const char *member,
			  const char *type)
{
	int id = btf__find_by_name_kind(btf, sname, BTF_KIND_STRUCT);
	const struct btf_type *t = id > 0 ? btf__type_by_id(btf, id) : NULL;
	const struct btf_member *m;
	const char *name;
	int i;

	for (i = 0, m = t ? btf_members(t) : NULL; t && i < btf_vlen(t); i++, m++) {
		if (strcmp(btf__name_by_offset(btf, m->name_off), member))
			continue;
		if (!type)
			return true;
		name = btf__name_by_offset(btf, btf__type_by_id(btf, m->type)->name_off);
		return name && !strncmp(name, type, strlen(type));
	}
	return false;
}

/*
 * Whether task storage may be created under the run queue's lock (in the
 * scheduler hook): where the kernel takes it from BPF's own allocator
 * (struct bpf_local_storage_map's bpf_ma, 6.5 on) or allocates without locks
 * (kmalloc_nolock, with the buckets' resilient spinlocks, 7.x). Before, it
 * came from the slab, which may wake kswapd: that run queue's lock again.
 */
static bool probe_storage_anywhere(void)
{
	struct btf *btf = btf__load_vmlinux_btf();
	bool any;

	if (!btf)
		return false;
	any = btf_member_is(btf, "bpf_local_storage_map", "bpf_ma", NULL) ||
	      btf_member_is(btf, "bpf_local_storage_map_bucket", "lock", "rqspinlock");
	btf__free(btf);
	return any;
}

static bool probe(enum sb_kfeature f)
{
	switch (f) {
	case SB_KF_SLEEPABLE:
		return !try_load("sleepable_uprobe", true);
	case SB_KF_UPROBE_MULTI:
		return sb_uprobe_multi_supported();
	case SB_KF_TASK_STORAGE:
		return probe_task_storage();
	case SB_KF_TASK_BTF:
		return libbpf_probe_bpf_helper(BPF_PROG_TYPE_KPROBE, BPF_FUNC_get_current_task_btf,
					       NULL) == 1;
	case SB_KF_PIDFD_THREAD:
		return probe_pidfd_thread();
	case SB_KF_TASK_STACK:
		return probe_task_stack();
	case SB_KF_ATTACH_COOKIE:
		return libbpf_probe_bpf_helper(BPF_PROG_TYPE_KPROBE, BPF_FUNC_get_attach_cookie,
					       NULL) == 1;
	default:
		return false;
	}
}

int sb_kfeatures_probe(struct sb_kfeatures *k, struct sb_error *err)
{
	struct utsname u;
	int f, ret;

	ret = sb_kfeatures_parse_off(k, getenv(SB_KERNEL_OFF_ENV), err);
	if (ret)
		return ret;
	if (!uname(&u))
		snprintf(k->release, sizeof(k->release), "%s", u.release);
	/* The first test load: one refused for want of rights says so before anything else. */
	ret = try_load("atomic_fetch", false);
	if (ret == -EPERM || ret == -EACCES)
		return ret;
	for (f = 0; f < SB_KF_COUNT; f++)
		k->has[f] = !k->forced_off[f] &&
			    (f == SB_KF_ATOMIC_FETCH ? !ret : probe(f));
	k->storage_anywhere = k->has[SB_KF_TASK_STORAGE] && probe_storage_anywhere();
	return 0;
}
