/*
 * Groups of programs loaded after the core (load.h): a source's programs, or
 * the markers that fetch their site, each group in a sibling object whose
 * maps are the core's, so that the kernel refusing one costs that group only.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <bpf/libbpf.h>

#include "record/guardian.h"
#include "record/kernel/load.h"
#include "region.skel.h"

/*
 * libbpf's USDT support keeps its attach specs per object, numbered by that
 * object: shared, two objects would hand out the same spec ids.
 */
static bool own_map(const char *name)
{
	return !strcmp(name, "__bpf_usdt_specs") || !strcmp(name, "__bpf_usdt_ip_to_spec_id");
}

/* Every map of obj is the core's, .rodata and .bss included: one recording, one state. */
static int share_maps(struct region_bpf *core, struct region_bpf *obj)
{
	struct bpf_map *m, *from;
	int ret;

	bpf_object__for_each_map(m, obj->obj) {
		if (own_map(bpf_map__name(m)))
			continue;
		from = bpf_object__find_map_by_name(core->obj, bpf_map__name(m));
		if (!from || bpf_map__fd(from) < 0) {
			/* Not created in the core (traced_tasks without task storage): not here either. */
			bpf_map__set_autocreate(m, false);
			continue;
		}
		ret = bpf_map__reuse_fd(m, bpf_map__fd(from));
		if (ret)
			return ret;
	}
	return 0;
}

const struct sb_kernel_member *sb_kernel_member(const struct sb_kernel *k, const char *name)
{
	unsigned int i;

	for (i = 0; i < k->n_members; i++)
		if (!strcmp(k->members[i].name, name))
			return &k->members[i];
	return NULL;
}

/* Only group g's programs, set as they were in the core's configuration. */
static int choose_programs(const struct sb_kernel *k, struct region_bpf *obj, int g)
{
	const struct sb_kernel_member *d;
	struct bpf_program *p;
	unsigned int i;

	bpf_object__for_each_program(p, obj->obj)
		bpf_program__set_autoload(p, false);
	for (i = 0; i < k->n_members; i++) {
		d = &k->members[i];
		if (d->group != g)
			continue;
		p = bpf_object__find_program_by_name(obj->obj, d->name);
		if (!p || bpf_program__set_autoload(p, true) || bpf_program__set_flags(p, d->flags) ||
		    bpf_program__set_expected_attach_type(p, d->attach))
			return -EINVAL;
	}
	return 0;
}

/* The kernel refused group g: kept for the summary, the metadata and the exit status. */
static void refused(struct sb_kernel *k, int g, const struct sb_kernel_log *l, int code)
{
	struct sb_kernel_group *gr = &k->groups[g];

	gr->refused = true;
	snprintf(gr->program, sizeof(gr->program), "%s", l->program[0] ? l->program : "?");
	snprintf(gr->reason, sizeof(gr->reason), "%s", l->reason[0] ? l->reason :
		 l->last_warning[0] ? l->last_warning : strerror(code));
}

/*
 * Programs that ask the kernel which probe fired (bpf_get_attach_cookie, or
 * libbpf's USDT arguments in a shared library, which need it to attach to
 * every process): CUDA host calls and the CUDA library's records. (OpenMP's
 * and MPI's know their probes by address without cookies: call_frames.bpf.h.)
 */
static const char *const cookie_programs[] = {
	"cuda_host_enter", "cuda_host_exit",
	"cuda_batch", "cuda_name",
};

/* The first program of group g that needs attach cookies, or NULL. */
static const char *needs_cookies(const struct sb_kernel *k, int g)
{
	unsigned int i, j;

	for (i = 0; i < k->n_members; i++) {
		if (k->members[i].group != g)
			continue;
		for (j = 0; j < sizeof(cookie_programs) / sizeof(cookie_programs[0]); j++)
			if (!strcmp(k->members[i].name, cookie_programs[j]))
				return k->members[i].name;
	}
	return NULL;
}

/* Whether group g needs attach cookies this kernel lacks: then refused, and said so. */
static bool lacks_cookies(struct sb_kernel *k, int g)
{
	struct sb_kernel_log l = { .reason = "" };
	const char *p = needs_cookies(k, g);

	if (!p || k->feat.has[SB_KF_ATTACH_COOKIE])
		return false;
	snprintf(l.program, sizeof(l.program), "%s", p);
	snprintf(l.reason, sizeof(l.reason), "it needs BPF attach cookies (Linux 5.15) to tell "
		 "which probe fired");
	refused(k, g, &l, EOPNOTSUPP);
	return true;
}

/* 0 when group g loaded or was refused (kept); -errno with err when no object opens. */
static int load_group(struct sb_kernel *k, int g, struct sb_error *err)
{
	struct region_bpf *obj;
	struct sb_kernel_log l = { .reason = "" };
	int ret;

	if (lacks_cookies(k, g))
		return 0;
	obj = region_bpf__open();
	if (!obj)
		return sb_fail(err, errno, "cannot open the BPF object: %s", strerror(errno));
	sb_kernel_log_start(&l);
	ret = choose_programs(k, obj, g);
	if (!ret)
		ret = share_maps(k->skel, obj);
	sb_kernel_test_refusal(obj);
	sb_kernel_drop_fetch(k, obj);
	if (!ret)
		ret = region_bpf__load(obj);
	sb_kernel_log_stop();
	if (ret) {
		region_bpf__destroy(obj);
		refused(k, g, &l, -ret);
		return 0;
	}
	k->groups[g].obj = obj;
	return 0;
}

int sb_kernel_load_groups(struct sb_kernel *k, struct sb_error *err)
{
	unsigned int g;
	int ret;

	sb_kernel_log_details(false);
	/* One that waits to be asked is refused now if it never could load here. */
	for (g = 0, ret = 0; g < k->n_groups && !ret; g++)
		if (!k->groups[g].on_demand)
			ret = load_group(k, (int)g, err);
		else
			lacks_cookies(k, (int)g);
	sb_kernel_log_details(true);
	return ret;
}

/*
 * Group g, loaded if it waits for its first ask; 0 or -errno with err
 * (refusals are kept). Verifying takes tens of milliseconds natively and
 * seconds where the CPU is emulated: a lease for it, as for an attachment.
 */
static int ready_group(struct sb_kernel *k, int g, struct sb_error *err)
{
	struct sb_kernel_group *gr = &k->groups[g];
	int ret;

	if (!gr->on_demand || gr->obj || gr->refused)
		return 0;
	if (k->verbose)
		fprintf(stderr, "scope-bpf record: loading the %s programs, first asked for now\n",
			gr->source);
	sb_guardian_busy(k->skel, 5000000000ULL);
	sb_kernel_log_details(false);
	ret = load_group(k, g, err);
	sb_kernel_log_details(true);
	sb_guardian_heartbeat(k->skel);
	return ret;
}

struct bpf_program *sb_kernel_prog(struct sb_kernel *k, const char *name, struct sb_error *err)
{
	const struct sb_kernel_member *d = sb_kernel_member(k, name);
	struct sb_kernel_group *g;
	struct bpf_program *p;

	if (!d) {
		p = bpf_object__find_program_by_name(k->skel->obj, name);
		if (p && bpf_program__fd(p) >= 0)
			return p;
		sb_fail(err, ENOENT, "the BPF program %s is not loaded in this recording", name);
		return NULL;
	}
	if (!k->split && !k->groups[d->group].on_demand)
		return bpf_object__find_program_by_name(k->skel->obj, name);
	if (ready_group(k, d->group, err))
		return NULL;
	g = &k->groups[d->group];
	if (!g->obj) {
		g->asked = true;
		sb_fail(err, EPERM, "%s not recorded: kernel %s refused the program %s", g->source,
			k->feat.release, g->program);
		return NULL;
	}
	return bpf_object__find_program_by_name(g->obj->obj, name);
}

bool sb_kernel_wants(const struct sb_kernel *k, const char *name)
{
	struct bpf_program *p = bpf_object__find_program_by_name(k->skel->obj, name);

	return sb_kernel_member(k, name) || (p && bpf_program__autoload(p));
}

bool sb_kernel_fast_ok(const struct sb_kernel *k)
{
	return k->feat.has[SB_KF_ATTACH_COOKIE] && k->feat.has[SB_KF_ATOMIC_FETCH];
}

bool sb_kernel_usdt_by_uprobe(const struct sb_kernel *k)
{
	return !k->feat.has[SB_KF_ATTACH_COOKIE];
}

bool sb_kernel_uprobe_multi(const struct sb_kernel *k)
{
	return k->feat.has[SB_KF_UPROBE_MULTI];
}
