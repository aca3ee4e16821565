/* Open, configure, load the BPF object; a refused optional program costs its source (load.h). */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/libbpf.h>

#include "model/model.h"
#include "record/kernel/load.h"
#include "record/source.h"
#include "region.skel.h"

/* A refusal per optional source, the sleepable fallback, and the final load. */
#define MAX_ATTEMPTS (SB_KERNEL_MAX_DISABLED + 2)
#define MAX_PROGS 64

static bool log_verbose;
static struct sb_kernel_log *capturing;

/* The verifier's own words: the last line of its log that is not its statistics. */
static void take_reason(const char *log, char *reason, size_t size)
{
	const char *line = log, *next, *best = NULL;
	size_t len, best_len = 0;

	for (; *line; line = next) {
		next = strchr(line, '\n');
		len = next ? (size_t)(next - line) : strlen(line);
		next = next ? next + 1 : line + len;
		if (!len || !strncmp(line, "processed ", 10) || !strncmp(line, "verification time", 17) ||
		    !strncmp(line, "stack depth", 11) || !strncmp(line, "-- END", 6) ||
		    strstr(line, "-- BEGIN PROG LOAD LOG --"))
			continue;
		best = line;
		best_len = len;
	}
	if (best)
		snprintf(reason, size, "%.*s", (int)best_len, best);
}

/* libbpf: "prog 'NAME': BPF program load failed: ..." and the log between BEGIN and END. */
void sb_kernel_log_capture(struct sb_kernel_log *l, const char *msg)
{
	const char *p = strstr(msg, "prog '"), *q;
	size_t len;

	if (p) {
		p += 6;
		q = strchr(p, '\'');
		len = q ? (size_t)(q - p) : 0;
		if (len && len < sizeof(l->program) &&
		    (strstr(q, "load failed") || strstr(q, "BEGIN PROG LOAD LOG"))) {
			memcpy(l->program, p, len);
			l->program[len] = 0;
		}
		if (q && strstr(q, "BEGIN PROG LOAD LOG"))
			take_reason(strstr(q, "BEGIN PROG LOAD LOG"), l->reason, sizeof(l->reason));
	}
	len = strcspn(msg, "\n");
	if (len && !strstr(msg, "LOAD LOG"))
		snprintf(l->last_warning, sizeof(l->last_warning), "%.*s", (int)len, msg);
}

static int kernel_print(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	char *msg = NULL;
	va_list copy;
	int n = 0;

	if (capturing && level == LIBBPF_WARN) {
		va_copy(copy, ap);
		if (vasprintf(&msg, fmt, copy) >= 0)
			sb_kernel_log_capture(capturing, msg);
		va_end(copy);
	}
	if (log_verbose)
		n = vfprintf(stderr, fmt, ap);
	free(msg);
	return n;
}

void sb_kernel_log_init(bool verbose)
{
	log_verbose = verbose;
	libbpf_set_print(kernel_print);
}

static void set_sleepable(struct bpf_program *p, bool on)
{
	bpf_program__set_flags(p, on ? bpf_program__flags(p) | BPF_F_SLEEPABLE :
			       bpf_program__flags(p) & ~BPF_F_SLEEPABLE);
}

/*
 * What every recording loads before the sources add theirs: the plain marker
 * programs (a source may swap them for its variants), sleepable where the
 * kernel allows it, and the switches for what the kernel lacks.
 */
static void configure_kernel(struct sb_kernel *k, struct region_bpf *skel)
{
	bool storage = k->feat.has[SB_KF_TASK_STORAGE];

	bpf_program__set_autoload(skel->progs.region_begin, true);
	bpf_program__set_autoload(skel->progs.region_end, true);
	bpf_program__set_autoload(skel->progs.begin_site_reg, true);
	bpf_program__set_autoload(skel->progs.end_site_reg, true);
	skel->rodata->use_task_storage = storage;
	skel->rodata->use_task_btf = k->feat.has[SB_KF_TASK_BTF];
	bpf_map__set_autocreate(skel->maps.traced_tasks, storage);
}

/*
 * Sleepable only where every marker program that loads may be: a counting
 * variant never is, and read_user() then must not fault pages in.
 */
static void apply_sleepable(struct sb_kernel *k, struct region_bpf *skel)
{
	struct bpf_program *plain[] = { skel->progs.region_begin, skel->progs.region_end,
					skel->progs.begin_site_reg, skel->progs.end_site_reg,
					skel->progs.fast_site, skel->progs.cuda_name };
	bool on = k->feat.has[SB_KF_SLEEPABLE] && !k->sleepable_refused &&
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

/* A fresh object with the whole configuration: the replayable step. */
static int open_configured(struct sb_kernel *k, struct sb_sources *set, sb_kernel_base_fn base,
			   void *ctx, int *owner, struct sb_error *err)
{
	bool before[MAX_PROGS];
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
	if (ret)
		return sb_fail(err, -ret, "configuring the BPF programs: %s", strerror(-ret));
	apply_sleepable(k, k->skel);
	return 0;
}

static int owner_of(struct region_bpf *skel, const int *owner, const char *name,
		    struct bpf_program **prog)
{
	struct bpf_program *p;
	int i = 0;

	bpf_object__for_each_program(p, skel->obj) {
		if (!strcmp(bpf_program__name(p), name)) {
			*prog = p;
			return i < MAX_PROGS ? owner[i] : -1;
		}
		i++;
	}
	*prog = NULL;
	return -1;
}

/*
 * The load failed on l->program: give up its source, or the sleepable
 * variants, and try again (0); a program every recording needs is fatal.
 */
static int refuse(struct sb_kernel *k, struct sb_sources *set, const int *owner,
		  const struct sb_kernel_log *l, int code, struct sb_error *err)
{
	const char *why = l->reason[0] ? l->reason : strerror(code);
	struct sb_kernel_refusal *r;
	struct bpf_program *prog;
	int src;

	if (!l->program[0])
		return sb_fail(err, code, "loading the BPF programs failed: %s (%s)", strerror(code),
			       l->last_warning[0] ? l->last_warning : "rerun with -v for libbpf's log");
	src = owner_of(k->skel, owner, l->program, &prog);
	if (src < 0 && prog && (bpf_program__flags(prog) & BPF_F_SLEEPABLE)) {
		k->sleepable_refused = true;
		snprintf(k->sleepable_reason, sizeof(k->sleepable_reason), "%s: %s", l->program, why);
		return 0;
	}
	if (src < 0 || k->n_refused >= SB_KERNEL_MAX_DISABLED)
		return sb_fail(err, code, "kernel %s refused the BPF program %s, which every "
			       "recording needs: %s", k->feat.release, l->program, why);
	r = &k->refused[k->n_refused++];
	snprintf(r->source, sizeof(r->source), "%s", set->ops[src]->name);
	snprintf(r->program, sizeof(r->program), "%s", l->program);
	snprintf(r->reason, sizeof(r->reason), "%s", why);
	sb_sources_drop(set, (size_t)src);
	return 0;
}

int sb_kernel_load(struct sb_kernel *k, struct sb_sources *set, sb_kernel_base_fn base, void *ctx,
		   struct sb_error *err)
{
	int owner[MAX_PROGS], ret;
	struct sb_kernel_log l;

	ret = sb_kfeatures_probe(&k->feat, err);
	while (!ret && k->attempts < MAX_ATTEMPTS) {
		k->attempts++;
		ret = open_configured(k, set, base, ctx, owner, err);
		if (ret)
			return ret;
		memset(&l, 0, sizeof(l));
		capturing = &l;
		ret = region_bpf__load(k->skel);
		capturing = NULL;
		if (!ret || ret == -EPERM || ret == -EACCES)
			return ret;
		ret = refuse(k, set, owner, &l, -ret, err);
		region_bpf__destroy(k->skel);
		k->skel = NULL;
		set->env->skel = NULL;
	}
	return ret ? ret : sb_fail(err, ELOOP, "loading the BPF programs: gave up after %d tries",
				   k->attempts);
}

void sb_kernel_report(const struct sb_kernel *k, const char *prefix)
{
	unsigned int i;
	int f;

	for (i = 0; i < k->n_refused; i++)
		fprintf(stderr, "%s%s not recorded: kernel %s refused the program %s: %s\n", prefix,
			k->refused[i].source, k->feat.release, k->refused[i].program,
			k->refused[i].reason);
	if (k->sleepable_refused)
		fprintf(stderr, "%skernel %s refused sleepable marker programs (%s): %s\n", prefix,
			k->feat.release, k->sleepable_reason, sb_kfeature_fallback(SB_KF_SLEEPABLE));
	for (f = 0; f < SB_KF_COUNT; f++)
		if (!k->feat.has[f])
			fprintf(stderr, "%skernel %s: no %s%s: %s\n", prefix, k->feat.release,
				sb_kfeature_name(f), k->feat.forced_off[f] ? " (" SB_KERNEL_OFF_ENV ")" :
				"", sb_kfeature_fallback(f));
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
	char list[SB_KERNEL_MAX_DISABLED * 400] = "", fb[256];
	size_t used = 0;
	unsigned int i;
	int ret = 0;

	for (i = 0; i < k->n_refused; i++)
		used += (size_t)snprintf(list + used, used < sizeof(list) ? sizeof(list) - used : 0,
					 "%s%s: %s: %s", i ? "; " : "", k->refused[i].source,
					 k->refused[i].program, k->refused[i].reason);
	fallbacks(k, fb, sizeof(fb));
	ret |= sb_profile_set_str(p, "kernel_release", k->feat.release);
	ret |= sb_profile_set_str(p, "sources_disabled", list);
	ret |= sb_profile_set_str(p, "kernel_fallbacks", fb);
	return ret ? -ENOMEM : 0;
}

bool sb_kernel_incomplete(const struct sb_kernel *k)
{
	return k->n_refused > 0;
}

void sb_kernel_close(struct sb_kernel *k)
{
	region_bpf__destroy(k->skel);
	k->skel = NULL;
}
