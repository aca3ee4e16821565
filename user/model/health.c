/* The recorder's loss counters explained: every call or sample a recording could not keep is shown with its cause. */
#include <inttypes.h>
#include <stdarg.h>
#include <string.h>
#include <linux/types.h>

#include "model/health.h"
#include "region.h"
#include "util/text_format.h"

#define STR(x) #x
#define XSTR(x) STR(x)

/* The recorder's sources write these (record/sources/regions.c, stacks.c, mpi_calls.c, counters.c, cuda.c); files from other tools have none. */
const struct sb_health_key sb_health_keys[] = {
	{ "lost_events", "events were lost", "lost",
	  "calls came faster than the recorder read them, or their records were invalid; "
	  "their regions are undercounted (which transport lost them: the lines below)" },
	{ "lost_events_kernel_ring", "of them in the kernel's ring buffer", "in the kernel's ring",
	  "the BPF ring buffer of the kernel-path probes (OpenMP, MPI, CUDA host calls, "
	  "markers without the fast path) was full: the recorder got too little CPU, or the "
	  "probes fired faster than one CPU reads them; --no-omp or --no-mpi drop those "
	  "probes, markers built with this release's header skip the ring" },
	{ "lost_events_fast_path", "of them in the fast path", "in the fast path",
	  "the fast path's shared-memory rings were full and its queue had no room left: "
	  "the recorder got too little CPU or memory for the marker rate; a larger --buffer "
	  "lets records wait longer" },
	{ "open_calls_dropped", "open calls were dropped", "open calls dropped",
	  "calls still open when their thread exited or exec'd, when recording stopped, "
	  "or unwound by an end marker of another region have no end time" },
	{ "depth_overflow_calls", "calls were too deep to record", "too deep",
	  "calls nested deeper than " XSTR(SB_MAX_DEPTH) " regions (runaway recursion?) "
	  "were counted, not recorded" },
	{ "unmatched_region_ends", "region ends had no start", "unmatched ends",
	  "regions already open when recording attached to their process (record -p, -a), "
	  "begins that were lost (see the other warnings), or an end marker that does not "
	  "match its begin in the code" },
	{ "calls_open_at_start", "calls were open when recording attached",
	  "open at start",
	  "they began before recording attached to their process (record -p, -a), or their "
	  "begins were lost, so only their ends were seen and they are not in the tree" },
	{ "invalid_sites", "calls came from invalid probe sites", "bad sites",
	  "a probe's site descriptor could not be read or was malformed (a binary "
	  "changed on disk?); those calls were not recorded" },
	{ "unresolved_sites", "probe sites could not be named", "unnamed sites",
	  "neither the kernel nor the recorder could read a site's descriptor (the process "
	  "unmapped it?); its calls were not recorded" },
	{ "probes_not_attached", "objects' marker probes could not be attached", "not attached",
	  "the kernel refused their uprobes (probe_attach_failure says why: most kernels let only "
	  "root or CAP_SYS_ADMIN create one); the calls of those objects are missing" },
	{ "source_attach_failures", "probe sets a source could not attach",
	  "probe sets not attached",
	  "an OpenMP, MPI, CUDA or marker source could not probe a process or a library it "
	  "maps (source_attach_failure names the first and why); that source's calls there "
	  "are missing" },
	{ "offcpu_intervals_lost", "off-CPU intervals were lost", "off-CPU lost",
	  "the ring buffer was half full and calls came first: the off-CPU time of those "
	  "intervals is in no call's off-CPU share (the calls themselves are kept)" },
	{ "fast_kernel_calls_guessed", "OpenMP, MPI or CUDA calls were nested by a guess",
	  "nested by guess",
	  "their begin came late or was lost, their kernel parent was unknown, or too many waited: "
	  "each hangs under the call open at its start, and marker calls made inside it may sit "
	  "beside it (its own time then counts theirs)" },
	{ "calls_over_max_size", "calls were made after the file reached --max-size",
	  "over --max-size",
	  "they were counted, not kept: the file and its statistics hold the calls that "
	  "completed before (record --aggregate keeps a long run in a size of its own)" },
	{ "kernel_ring_stalls", "times the kernel's ring stood at a record never finished",
	  "ring stalls",
	  "a BPF program reserved a record and did not finish it for 2 s (a kernel fault): the "
	  "records behind it waited, and processes held for an attach were let go, so calls of "
	  "objects attached late may be missing (docs/KERNELS.md)" },
	{ "unseen_children_events",
	  "marker calls or fast-path memories came from children no hook saw begin",
	  "unseen children",
	  "a child of a traced process that neither the fork hook nor the scheduler hook saw "
	  "begin is not traced: its calls are missing (docs/KERNELS.md, hooks the kernel skips)" },
	{ "kernel_runs_lost", "runs of the kernel side's hooks were skipped by the kernel",
	  "hook runs skipped",
	  "a hook still running on its CPU (preempted: kernels that run tracepoint programs "
	  "with migration disabled only) is not run when its event fires there again; "
	  "kernel_runs_skipped names the hooks: an exec then was not held for its new image's "
	  "probes, so calls of a process that exec'd may be missing (docs/KERNELS.md)" },
	{ "threads_dropped", "events of new threads were dropped", "thread table full",
	  "the thread table was full; the calls of those threads are missing" },
	{ "lost_samples", "samples were lost", "samples lost",
	  "the sample maps were full; sampled shares are undercounted" },
	{ "lost_stacks", "stacks were lost", "stacks lost",
	  "the stack table was full; those samples are counted without their stack" },
	{ "lost_timed_samples", "timed samples were lost", "timed samples lost",
	  "the sample ring was full (the recorder fell behind), or the timeline held the "
	  "most samples a recording keeps (docs/SAMPLING.md); they are summed per stack "
	  "but missing from the timeline (export perf-script, Perfetto, the HTML ticks)" },
	{ "mpi_calls_open_at_start", "MPI calls were open when recording attached",
	  "MPI open at start",
	  "they began before recording attached to their process (record -p, -a), or their "
	  "thread had no slot, so only their returns were seen and they are not in the tree" },
	{ "counter_threads_uncounted", "threads got no counters", "uncounted threads",
	  "more than " XSTR(SB_CTR_MAX_THREADS) " threads were counted at once, or their events "
	  "could not be opened; their calls' counts are unknown" },
	{ "fast_records_dropped", "fast-path records were dropped", "fast dropped",
	  "a thread's ring in shared memory was full, or still held them when recording ended "
	  "(the recorder fell behind: its queue full, see record --buffer, memory short, or "
	  "more busy writers than CPUs); their regions are undercounted, "
	  "fast_records_dropped_by_process says whose" },
	{ "fast_records_invalid", "fast-path records were invalid", "fast invalid",
	  "records the recorder could not use: a ring lapped or rewritten by the process, a "
	  "site never named, or time running backwards; their calls were not recorded" },
	{ "fast_counts_cut", "processes counted more fast-path losses than they could have had",
	  "fast counts cut",
	  "a process's own count of dropped records (or its ring's head) said more than its "
	  "threads could have written: it wrote its shared memory? Its counts were cut to that "
	  "most, so they are bounds, not counts" },
	{ "fast_memories_refused", "processes' fast-path memory could not be read",
	  "fast refused",
	  "the recorder could not take or check a process's shared memory (it exited before "
	  "the recorder, stopped or starved, could take it; or no ptrace right); that "
	  "process's marker records are missing: record --mode=kernel" },
	{ "cuda_records_lost", "CUDA activity records were lost", "CUDA lost",
	  "the ring buffer had no room for a burst of CUPTI's records (or they were malformed); "
	  "GPU times of their regions are undercounted" },
	{ "cuda_records_dropped", "CUDA activity records were dropped by CUPTI", "CUDA dropped",
	  "CUPTI ran out of buffer space and said how many it dropped; GPU times of their regions "
	  "are undercounted" },
	{ "cuda_activities_unranked", "CUDA activities had no rank", "CUDA unranked",
	  "their process made no region call, so they are not in the file; mark a region around "
	  "the CUDA work (docs/CUDA.md)" },
};

const size_t sb_health_n_keys = sizeof(sb_health_keys) / sizeof(sb_health_keys[0]);

/* What the keys that name attaching as a cause say of a recording that launched its command. */
static const struct {
	const char *key;
	const char *label;
	const char *hint;
} launched_words[] = {
	{ "unmatched_region_ends", "region ends had no start",
	  "begins that were lost (see the other warnings), or an end marker that does not "
	  "match its begin in the code: the recording started with the command, so none of "
	  "its regions was open before" },
	{ "calls_open_at_start", "calls ended without a start",
	  "their begins were lost or never marked (see unmatched_region_ends), so only their "
	  "ends were seen and they are not in the tree" },
	{ "mpi_calls_open_at_start", "MPI calls returned without their entry",
	  "their thread had no slot when they began, so only their returns were seen and "
	  "they are not in the tree" },
};

int64_t sb_health_value(const struct sb_profile *p, const char *key)
{
	const struct sb_meta *m = sb_profile_meta(p, key);

	return m && m->is_int ? m->i : 0;
}

/* Only a recording that says it launched its command rules attaching out. */
static bool launched(const struct sb_profile *p)
{
	const struct sb_meta *m = sb_profile_meta(p, SB_META_RECORD_SCOPE);

	return m && !m->is_int && m->s && !strcmp(m->s, SB_RECORD_SCOPE_COMMAND);
}

/* k's words for a launched recording; -1 when its own hold for every recording. */
static int launched_index(const struct sb_profile *p, const struct sb_health_key *k)
{
	size_t i;

	if (!launched(p))
		return -1;
	for (i = 0; i < sizeof(launched_words) / sizeof(launched_words[0]); i++)
		if (!strcmp(k->key, launched_words[i].key))
			return (int)i;
	return -1;
}

const char *sb_health_label(const struct sb_profile *p, const struct sb_health_key *k)
{
	int i = launched_index(p, k);

	return i < 0 ? k->label : launched_words[i].label;
}

const char *sb_health_hint(const struct sb_profile *p, const struct sb_health_key *k)
{
	int i = launched_index(p, k);

	return i < 0 ? k->hint : launched_words[i].hint;
}

/* A warning with string key's text, when it has one: 1 when printed. */
static size_t print_text(FILE *f, const struct sb_profile *p, const char *indent,
			 const char *key, const char *label)
{
	const struct sb_meta *m = sb_profile_meta(p, key);

	if (!m || m->is_int || !m->s || !*m->s)
		return 0;
	fprintf(f, "%swarning: %s (%s): ", indent, label, key);
	format_text(f, m->s);
	fputc('\n', f);
	return 1;
}

size_t sb_health_print(FILE *f, const struct sb_profile *p, const char *indent)
{
	const struct sb_health_key *k;
	const struct sb_meta *open;
	size_t i, n = 0;
	int64_t v;

	for (i = 0; i < sb_health_n_keys; i++) {
		k = &sb_health_keys[i];
		v = sb_health_value(p, k->key);
		if (!v)
			continue;
		fprintf(f, "%swarning: %" PRId64 " %s (%s): %s\n", indent, v,
			sb_health_label(p, k), k->key, sb_health_hint(p, k));
		n++;
	}
	n += print_text(f, p, indent, "sources_disabled", "data sources the kernel refused");
	n += print_text(f, p, indent, "source_attach_failure",
			"the first source that could not attach");
	open = sb_profile_meta(p, "regions_open_at_start");
	if (open && !open->is_int && open->s && *open->s) {
		fprintf(f, "%s         %s: ", indent,
			launched(p) ? "regions of those calls" : "regions open at start");
		format_text(f, open->s);
		fputc('\n', f);
	}
	return n;
}

/* Append to buf like snprintf at buf + *at, keeping *at the length the whole text needs. */
static void append(char *buf, size_t len, size_t *at, const char *fmt, ...)
{
	va_list ap;
	int r;

	va_start(ap, fmt);
	r = vsnprintf(*at < len ? buf + *at : NULL, *at < len ? len - *at : 0, fmt, ap);
	va_end(ap);
	if (r > 0)
		*at += (size_t)r;
}

size_t sb_health_summary(const struct sb_profile *p, char *buf, size_t len)
{
	const struct sb_health_key *k;
	size_t i, at = 0;
	int64_t v;

	if (len)
		buf[0] = '\0';
	append(buf, len, &at, "%" PRId64 " lost", sb_health_value(p, "lost_events"));
	for (i = 0; i < sb_health_n_keys; i++) {
		k = &sb_health_keys[i];
		v = sb_health_value(p, k->key);
		if (v && strcmp(k->key, "lost_events"))
			append(buf, len, &at, ", %" PRId64 " %s", v, k->brief);
	}
	return at;
}
