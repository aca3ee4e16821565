/* Open, configure, load the BPF object; a refused optional program costs its source (load.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/libbpf.h>

#include "model/model.h"
#include "record/kernel/load.h"
#include "record/source.h"
#include "region.skel.h"

/* One object, the groups apart, the sleepable fallback. */
#define MAX_ATTEMPTS 3
#define MAX_PROGS 64

static void set_sleepable(struct bpf_program *p, bool on)
{
	bpf_program__set_flags(p, on ? bpf_program__flags(p) | BPF_F_SLEEPABLE :
			       bpf_program__flags(p) & ~BPF_F_SLEEPABLE);
}

/*
 * What every recording loads before the sources add theirs: the plain marker
 * programs (a source may swap them for its variants), sleepable where the
 * kernel allows it, and the switches for what the kernel lacks. Where the
 * kernel may run programs on per-CPU stacks, the twins that keep their task's
 * (bpf/task_stack.bpf.h): the markers' counting variants, counters or not.
 */
static void configure_kernel(struct sb_kernel *k, struct region_bpf *skel)
{
	bool storage = k->feat.has[SB_KF_TASK_STORAGE], own = k->feat.has[SB_KF_TASK_STACK];
	bool cookies = k->feat.has[SB_KF_ATTACH_COOKIE];
	int cpus = libbpf_num_possible_cpus();

	bpf_program__set_autoload(skel->progs.region_begin, own);
	bpf_program__set_autoload(skel->progs.region_end, own);
	bpf_program__set_autoload(skel->progs.begin_site_reg, own);
	bpf_program__set_autoload(skel->progs.end_site_reg, own);
	bpf_program__set_autoload(skel->progs.region_begin_ctr, !own);
	bpf_program__set_autoload(skel->progs.region_end_ctr, !own);
	bpf_program__set_autoload(skel->progs.begin_site_reg_ctr, !own);
	bpf_program__set_autoload(skel->progs.end_site_reg_ctr, !own);
	bpf_program__set_autoload(skel->progs.fast_site, own);
	bpf_program__set_autoload(skel->progs.fast_site_ts, !own);
	skel->rodata->use_task_storage = storage;
	skel->rodata->use_task_btf = k->feat.has[SB_KF_TASK_BTF];
	skel->rodata->use_fetch_add = k->feat.has[SB_KF_ATOMIC_FETCH];
	skel->rodata->use_attach_cookie = cookies;
	skel->rodata->n_cpus = (__u32)(cpus > 0 ? cpus : 1);
	skel->rodata->test_skip = k->test_skip;
	skel->rodata->mark_at_switch = k->feat.storage_anywhere;
	bpf_map__set_autocreate(skel->maps.traced_tasks, storage);
	/* Only where library calls are known by address (bpf/call_frames.bpf.h). */
	bpf_map__set_autocreate(skel->maps.call_addrs, !cookies);
	bpf_map__set_autocreate(skel->maps.call_returns, !cookies);
}

/*
 * Sleepable only where every marker program that loads may be: a counting
 * variant never is, and read_user() then must not fault pages in; nor where
 * calls are numbered per CPU (bpf/region.bpf.c next_call_id).
 */
static void apply_sleepable(struct sb_kernel *k, struct region_bpf *skel)
{
	struct bpf_program *plain[] = { skel->progs.region_begin, skel->progs.region_end,
					skel->progs.begin_site_reg, skel->progs.end_site_reg,
					skel->progs.fast_site, skel->progs.cuda_name };
	bool on = k->feat.has[SB_KF_SLEEPABLE] && !k->sleepable_refused &&
		  k->feat.has[SB_KF_ATOMIC_FETCH] &&
		  !bpf_program__autoload(skel->progs.region_begin_ctr);
	size_t i;

	for (i = 0; i < sizeof(plain) / sizeof(plain[0]); i++)
		set_sleepable(plain[i], on);
	skel->rodata->sleepable = on;
	k->sleepable = on;
}

/* The programs a source's configure turned on are its own: owner[i] is its index or -1. */
static void note_owners(struct region_bpf *skel, const bool *before, int *owner, int source)
{
	struct bpf_program *p;
	int i = 0;

	bpf_object__for_each_program(p, skel->obj) {
		if (i < MAX_PROGS && !before[i] && bpf_program__autoload(p))
			owner[i] = source;
		i++;
	}
}

static void snapshot(struct region_bpf *skel, bool *loads)
{
	struct bpf_program *p;
	int i = 0;

	bpf_object__for_each_program(p, skel->obj)
		if (i < MAX_PROGS)
			loads[i++] = bpf_program__autoload(p);
}

static int group_of(struct sb_kernel *k, const char *source)
{
	unsigned int g;

	for (g = 0; g < k->n_groups; g++)
		if (!strcmp(k->groups[g].source, source))
			return (int)g;
	if (k->n_groups >= SB_KERNEL_MAX_GROUPS)
		return -1;
	snprintf(k->groups[k->n_groups].source, sizeof(k->groups[0].source), "%s", source);
	return (int)k->n_groups++;
}

/*
 * Note every wanted program that is not the core's with its group and its
 * settings; once the groups load apart (k->split), they no longer load with
 * the core.
 */
static int set_groups_aside(struct sb_kernel *k, struct sb_sources *set, const int *owner)
{
	struct sb_kernel_member *d;
	struct bpf_program *p;
	const char *group;
	int i = -1;

	k->n_members = 0;
	k->n_groups = 0;
	bpf_object__for_each_program(p, k->skel->obj) {
		i++;
		if (!bpf_program__autoload(p))
			continue;
		group = i < MAX_PROGS && owner[i] >= 0 ? set->ops[owner[i]]->name : NULL;
		if (!group)
			continue;
		if (k->n_members >= SB_KERNEL_MAX_MEMBERS)
			return -E2BIG;
		d = &k->members[k->n_members++];
		snprintf(d->name, sizeof(d->name), "%s", bpf_program__name(p));
		d->group = group_of(k, group);
		d->flags = bpf_program__flags(p);
		d->attach = bpf_program__expected_attach_type(p);
		if (d->group < 0)
			return -E2BIG;
		k->groups[d->group].on_demand = set->ops[owner[i]]->on_demand;
		if (k->split || k->groups[d->group].on_demand)
			bpf_program__set_autoload(p, false);
	}
	return 0;
}

void sb_kernel_test_refusal(struct region_bpf *obj)
{
	const char *name = getenv(SB_KERNEL_REFUSE_ENV);
	struct bpf_program *p = name ? bpf_object__find_program_by_name(obj->obj, name) : NULL;

	if (p && bpf_program__autoload(p))
		bpf_program__set_type(p, BPF_PROG_TYPE_SOCKET_FILTER);
}

/*
 * Kernels before 5.12 refuse a program holding an atomic fetch-and-add
 * anywhere, even in a branch never taken (they check every instruction before
 * verifying). There next_call_id (bpf/region.bpf.c) takes its per-CPU branch,
 * so its fetch-and-add, in the main body of each program that numbers calls,
 * becomes a jump to the next instruction: one instruction for one, so
 * libbpf's relocations still point where they did.
 */
void sb_kernel_drop_fetch(const struct sb_kernel *k, struct region_bpf *obj)
{
	struct bpf_program *p;
	struct bpf_insn *insns;
	size_t i, n;

	if (k->feat.has[SB_KF_ATOMIC_FETCH])
		return;
	bpf_object__for_each_program(p, obj->obj) {
		n = bpf_program__insn_cnt(p);
		if (!bpf_program__autoload(p) || !n)
			continue;
		insns = malloc(n * sizeof(*insns));
		if (!insns)
			continue;
		memcpy(insns, bpf_program__insns(p), n * sizeof(*insns));
		for (i = 0; i < n; i++)
			if (insns[i].code == (BPF_STX | BPF_ATOMIC | BPF_DW) &&
			    (insns[i].imm & BPF_FETCH))
				insns[i] = (struct bpf_insn){ .code = BPF_JMP | BPF_JA };
		bpf_program__set_insns(p, insns, n);
		free(insns);
	}
}

/* A fresh object with the whole configuration: the replayable step. */
static int open_configured(struct sb_kernel *k, struct sb_sources *set, sb_kernel_base_fn base,
			   void *ctx, struct sb_error *err)
{
	bool before[MAX_PROGS];
	int owner[MAX_PROGS];
	size_t i;
	int ret;

	k->skel = region_bpf__open();
	set->env->skel = k->skel;
	if (!k->skel)
		return sb_fail(err, errno, "cannot open the BPF object: %s", strerror(errno));
	configure_kernel(k, k->skel);
	ret = base(k->skel, ctx);
	for (i = 0; i < MAX_PROGS; i++)
		owner[i] = -1;
	for (i = 0; !ret && i < set->n; i++) {
		if (!set->ops[i]->configure)
			continue;
		snapshot(k->skel, before);
		ret = set->ops[i]->configure(set->state[i], set->env);
		note_owners(k->skel, before, owner, (int)i);
	}
	if (!ret) {
		apply_sleepable(k, k->skel);
		ret = set_groups_aside(k, set, owner);
		sb_kernel_test_refusal(k->skel);
		sb_kernel_drop_fetch(k, k->skel);
	}
	if (ret)
		return sb_fail(err, -ret, "configuring the BPF programs: %s", strerror(-ret));
	return 0;
}

/*
 * The core failed to load on l->program: without sleepable programs if that
 * one was sleepable (0: try again); a program every recording needs is fatal.
 */
static int refuse(struct sb_kernel *k, const struct sb_kernel_log *l, int code,
		  struct sb_error *err)
{
	const char *why = l->reason[0] ? l->reason : strerror(code);
	struct bpf_program *prog;

	if (!l->program[0])
		return sb_fail(err, code, "loading the BPF programs failed: %s (%s)", strerror(code),
			       l->last_warning[0] ? l->last_warning : "rerun with -v for libbpf's log");
	prog = bpf_object__find_program_by_name(k->skel->obj, l->program);
	if (prog && (bpf_program__flags(prog) & BPF_F_SLEEPABLE) && !k->sleepable_refused) {
		k->sleepable_refused = true;
		snprintf(k->sleepable_reason, sizeof(k->sleepable_reason), "%s: %s", l->program, why);
		return 0;
	}
	return sb_fail(err, code, "kernel %s refused the BPF program %s, which every recording "
		       "needs: %s", k->feat.release, l->program, why);
}

/*
 * One object refused something: where it was a group's program (or libbpf did
 * not say which), the groups load apart (0: try again), so that the refusal
 * costs its source only; else as refuse().
 */
static int split_or_refuse(struct sb_kernel *k, const struct sb_kernel_log *l, int code,
			   struct sb_error *err)
{
	if (k->split || (l->program[0] && !sb_kernel_member(k, l->program)))
		return refuse(k, l, code, err);
	if (k->verbose)
		fprintf(stderr, "scope-bpf record: kernel %s refused %s in one object; each "
			"source's programs load apart\n", k->feat.release,
			l->program[0] ? l->program : "it");
	k->split = true;
	return 0;
}

/* -v: the groups left to load when first asked for. */
static void say_waiting(const struct sb_kernel *k)
{
	char list[SB_KERNEL_MAX_GROUPS * 34] = "";
	size_t used = 0;
	unsigned int g;

	if (!k->verbose)
		return;
	for (g = 0; g < k->n_groups; g++)
		if (k->groups[g].on_demand)
			used += (size_t)snprintf(list + used, sizeof(list) - used, "%s%s",
						 used ? ", " : "", k->groups[g].source);
	if (used)
		fprintf(stderr, "scope-bpf record: the %s programs load when first asked for\n",
			list);
}

int sb_kernel_load(struct sb_kernel *k, struct sb_sources *set, sb_kernel_base_fn base, void *ctx,
		   struct sb_error *err)
{
	struct sb_kernel_log l;
	int ret;

	ret = sb_kfeatures_probe(&k->feat, err) ?:
	      sb_kernel_skips_parse(getenv(SB_KERNEL_SKIP_ENV), &k->test_skip, err);
	/* Sources that need attach cookies are refused without them: the others load apart. */
	k->split = !ret && !k->feat.has[SB_KF_ATTACH_COOKIE];
	while (!ret && k->attempts < MAX_ATTEMPTS) {
		k->attempts++;
		ret = open_configured(k, set, base, ctx, err);
		if (ret)
			return ret;
		sb_kernel_log_start(&l);
		ret = region_bpf__load(k->skel);
		sb_kernel_log_stop();
		if (!ret) {
			say_waiting(k);
			return k->split ? sb_kernel_load_groups(k, err) : 0;
		}
		if (ret == -EPERM || ret == -EACCES)
			return ret;
		ret = split_or_refuse(k, &l, -ret, err);
		region_bpf__destroy(k->skel);
		k->skel = NULL;
		set->env->skel = NULL;
	}
	return ret ? ret : sb_fail(err, ELOOP, "loading the BPF programs: gave up after %d tries",
				   k->attempts);
}

void sb_kernel_report(const struct sb_kernel *k, const char *prefix)
{
	const struct sb_kernel_group *g;
	unsigned int i;
	int f;

	for (i = 0; i < k->n_groups; i++) {
		g = &k->groups[i];
		if (g->refused)
			fprintf(stderr, "%s%s not recorded: kernel %s refused the program %s: %s\n",
				prefix, g->source, k->feat.release, g->program, g->reason);
	}
	if (k->sleepable_refused)
		fprintf(stderr, "%skernel %s refused sleepable marker programs (%s): %s\n", prefix,
			k->feat.release, k->sleepable_reason, sb_kfeature_fallback(SB_KF_SLEEPABLE));
	for (f = 0; f < SB_KF_COUNT; f++)
		if (!k->feat.has[f])
			fprintf(stderr, "%skernel %s: no %s%s: %s\n", prefix, k->feat.release,
				sb_kfeature_name(f), k->feat.forced_off[f] ? " (" SB_KERNEL_OFF_ENV ")" :
				"", sb_kfeature_fallback(f));
	if (k->skips.stood_in || k->skips.lost)
		fprintf(stderr, "%skernel %s skipped runs of hooks still running on their CPU (%s): "
			"%s\n", prefix, k->feat.release, k->skips.programs, k->skips.lost ?
			"what the others would have seen is missing (kernel_runs_lost)" :
			k->feat.storage_anywhere ? "the scheduler hook stood in for them, nothing "
			"was lost (forks_seen_late, exits_seen_late)" : "the scheduler hook stood in "
			"for them; threads it found were marked by the recorder once it read of them, "
			"so one that ended sooner may lack its off-CPU time and end");
}

/* "name; name" of what the kernel lacks or refused; "" when nothing. */
static void fallbacks(const struct sb_kernel *k, char *out, size_t size)
{
	size_t used = 0;
	int f;

	out[0] = 0;
	for (f = 0; f < SB_KF_COUNT; f++)
		if (!k->feat.has[f] || (f == SB_KF_SLEEPABLE && k->sleepable_refused))
			used += (size_t)snprintf(out + used, used < size ? size - used : 0, "%s%s",
						 used ? "; " : "", sb_kfeature_name(f));
}

int sb_kernel_metadata(const struct sb_kernel *k, struct sb_profile *p)
{
	char list[SB_KERNEL_MAX_GROUPS * 400] = "", fb[256];
	const struct sb_kernel_group *g;
	size_t used = 0;
	unsigned int i;
	int ret = 0;

	for (i = 0; i < k->n_groups; i++) {
		g = &k->groups[i];
		if (g->refused)
			used += (size_t)snprintf(list + used, used < sizeof(list) ?
						 sizeof(list) - used : 0, "%s%s: %s: %s",
						 used ? "; " : "", g->source, g->program, g->reason);
	}
	fallbacks(k, fb, sizeof(fb));
	ret |= sb_profile_set_str(p, "kernel_release", k->feat.release);
	ret |= sb_profile_set_str(p, "sources_disabled", list);
	ret |= sb_profile_set_str(p, "kernel_fallbacks", fb);
	ret |= sb_profile_set_str(p, "kernel_runs_skipped", k->skips.programs);
	ret |= sb_profile_set_int(p, "kernel_runs_lost", (int64_t)k->skips.lost);
	return ret ? -ENOMEM : 0;
}

bool sb_kernel_incomplete(const struct sb_kernel *k)
{
	unsigned int i;

	for (i = 0; i < k->n_groups; i++)
		if (k->groups[i].refused && k->groups[i].asked)
			return true;
	return k->skips.lost > 0;
}

void sb_kernel_close(struct sb_kernel *k)
{
	unsigned int i;

	for (i = 0; i < k->n_groups; i++) {
		region_bpf__destroy(k->groups[i].obj);
		k->groups[i].obj = NULL;
	}
	region_bpf__destroy(k->skel);
	k->skel = NULL;
}
