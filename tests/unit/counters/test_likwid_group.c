/*
 * Unit tests of LIKWID groups: every x86-64 group file Debian installs
 * parses or fails for its documented reason, skylake's and zen's resolve to
 * perf encodings on this CPU, metrics evaluate to hand-computed values, and
 * errors name the file and line. Needs the likwid package (install-deps).
 */
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "counters/likwid.h"
#include "counters/likwid_arch.h"
#include "counters/likwid_expr.h"

#define ROOT SB_LIKWID_GROUPS_DIR

/* The files that do not load, and why (docs/COUNTERS.md "LIKWID groups"). */
struct known_failure {
	const char *file, *why;
};

static const struct known_failure syntax_failures[] = {
	/* 8 core counters with SMT off: more than a thread can read at each boundary */
	{ "broadwell/PORT_USAGE.txt", "more than 8 counters count per thread" },
	{ "broadwellD/PORT_USAGE.txt", "more than 8 counters count per thread" },
	{ "broadwellEP/PORT_USAGE.txt", "more than 8 counters count per thread" },
	{ "haswell/PORT_USAGE.txt", "more than 8 counters count per thread" },
	{ "haswellEP/PORT_USAGE.txt", "more than 8 counters count per thread" },
	{ "ivybridge/PORT_USAGE.txt", "more than 8 counters count per thread" },
	{ "ivybridgeEP/PORT_USAGE.txt", "more than 8 counters count per thread" },
	{ "sandybridge/PORT_USAGE.txt", "more than 8 counters count per thread" },
	{ "sandybridgeEP/PORT_USAGE.txt", "more than 8 counters count per thread" },
	{ "skylake/PORT_USAGE.txt", "more than 8 counters count per thread" },
	/* only uncore (northbridge) counters */
	{ "interlagos/LINKS.txt", "no counter of the group counts per thread" },
	{ "interlagos/MEM.txt", "no counter of the group counts per thread" },
	{ "interlagos/NUMA.txt", "no counter of the group counts per thread" },
	{ "interlagos/NUMA_0_3.txt", "no counter of the group counts per thread" },
	{ "interlagos/NUMA_4_7.txt", "no counter of the group counts per thread" },
	{ "kabini/MEM.txt", "no counter of the group counts per thread" },
	{ "kabini/NUMA_0_3.txt", "no counter of the group counts per thread" },
	{ "kabini/NUMA_4_7.txt", "no counter of the group counts per thread" },
	{ "ivybridgeEP/UNCORECLOCK.txt", "more than 32 metrics" },
	/* the files' own mistakes: a formula reads a counter the EVENTSET does not list */
	{ "phi/VECTOR2.txt", "unknown counter VPU_STALL_REG" },
	{ "zen3/L2CACHE.txt", ":13: metric 'Runtime unhalted [s]': column 1: unknown counter FIXC1" },
	{ "zen3/L3CACHE.txt", ":12: metric 'CPI': column 1: unknown counter FIXC1" },
};

#define N_SYNTAX_FAILURES (sizeof(syntax_failures) / sizeof(syntax_failures[0]))

static bool x86_arch(const char *arch)
{
	return arch[0] != '.' && strncmp(arch, "arm", 3) && strncmp(arch, "power", 5) &&
	       strncmp(arch, "nvidia", 6);
}

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	char *text = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);
	int c;

	assert_non_null(f);
	while ((c = fgetc(f)) != EOF)
		fputc(c, out);
	fclose(f);
	fclose(out);
	return text;
}

static const char *expected_failure(const char *file)
{
	size_t i;

	for (i = 0; i < N_SYNTAX_FAILURES; i++)
		if (!strcmp(syntax_failures[i].file, file))
			return syntax_failures[i].why;
	return NULL;
}

/* Parse one file (arch NULL: syntax only), checking the outcome against the table. */
static void check_file(const char *arch, const char *file, bool resolve, unsigned int *n_failed)
{
	char rel[600], path[700];
	struct sb_likwid_group g;
	struct sb_error err = { "" };
	const char *why;
	char *text;
	int ret;

	snprintf(rel, sizeof(rel), "%s/%s", arch, file);
	snprintf(path, sizeof(path), "%s/%s", ROOT, rel);
	text = slurp(path);
	ret = sb_likwid_group_parse_arch(text, path, resolve ? arch : NULL, &g, &err);
	free(text);
	why = expected_failure(rel);
	if (!ret) {
		if (why)
			fail_msg("%s parses but is listed as failing (%s)", rel, why);
		assert_true(g.events.n > 0 && g.events.n <= SB_MAX_COUNTERS);
		assert_true(g.n_metrics > 0);
		if (resolve)
			assert_string_equal(g.arch, arch);
		sb_likwid_group_free(&g);
		return;
	}
	if (!why || !strstr(err.msg, why) || !strstr(err.msg, path))
		fail_msg("%s: unexpected failure: %s", rel, err.msg);
	(*n_failed)++;
}

static unsigned int check_arch(const char *arch, bool resolve, unsigned int *n_failed)
{
	char dir[512];
	struct dirent *d;
	unsigned int n = 0;
	DIR *dp;

	snprintf(dir, sizeof(dir), "%s/%s", ROOT, arch);
	dp = opendir(dir);
	assert_non_null(dp);
	while ((d = readdir(dp)))
		if (strstr(d->d_name, ".txt")) {
			check_file(arch, d->d_name, resolve, n_failed);
			n++;
		}
	closedir(dp);
	return n;
}

static void test_every_x86_group_file_parses_or_fails_for_its_documented_reason(void **state)
{
	unsigned int n_files = 0, n_failed = 0;
	struct dirent *d;
	DIR *dp = opendir(ROOT);

	(void)state;
	assert_non_null(dp);
	while ((d = readdir(dp)))
		if (x86_arch(d->d_name))
			n_files += check_arch(d->d_name, false, &n_failed);
	closedir(dp);
	printf("%u group files, %u fail for their documented reason\n", n_files, n_failed);
	assert_true(n_files >= 500);	/* Debian's likwid 5.2 ships 633 for x86 */
	assert_int_equal(n_failed, N_SYNTAX_FAILURES);
}

/*
 * skylake's and zen's groups resolve through libpfm4 with the PMU named, on
 * this CPU whatever it is: every core event has a perf encoding.
 */
static void test_skylake_and_zen_groups_resolve_to_perf_encodings(void **state)
{
	static const char *const archs[] = { "skylake", "zen", "zen2", "zen3" };
	unsigned int i, n_failed = 0, n_files = 0;

	(void)state;
	for (i = 0; i < sizeof(archs) / sizeof(archs[0]); i++)
		n_files += check_arch(archs[i], true, &n_failed);
	assert_int_equal(n_failed, 3);	/* skylake/PORT_USAGE, zen3/L2CACHE, zen3/L3CACHE */
	assert_true(n_files >= 80);
}

/* The groups people read most, on every Intel core since Sandy Bridge. */
static void test_main_intel_groups_resolve_since_sandy_bridge(void **state)
{
	static const char *const archs[] = {
		"sandybridge", "sandybridgeEP", "ivybridge", "ivybridgeEP", "haswell", "haswellEP",
		"broadwell", "broadwellD", "broadwellEP", "skylake", "skylakeX", "CLX", "ICL", "ICX",
		"TGL", "RKL",
	};
	static const char *const groups[] = {
		"FLOPS_DP", "FLOPS_SP", "L2", "L3", "MEM", "CLOCK", "BRANCH", "DATA",
	};
	unsigned int a, i, n = 0;
	char path[512];

	(void)state;
	for (a = 0; a < sizeof(archs) / sizeof(archs[0]); a++) {
		for (i = 0; i < sizeof(groups) / sizeof(groups[0]); i++) {
			struct sb_likwid_group g;
			struct sb_error err = { "" };

			snprintf(path, sizeof(path), "%s/%s/%s.txt", ROOT, archs[a], groups[i]);
			if (access(path, R_OK))
				continue;
			if (sb_likwid_group_load_arch(archs[a], groups[i], &g, &err))
				fail_msg("%s", err.msg);
			sb_likwid_group_free(&g);
			n++;
		}
	}
	assert_true(n >= 100);
}

static void load(const char *arch, const char *name, struct sb_likwid_group *g)
{
	struct sb_error err = { "" };

	if (sb_likwid_group_load_arch(arch, name, g, &err))
		fail_msg("%s/%s: %s", arch, name, err.msg);
	assert_string_equal(g->name, name);
}

/* counts[] in the group's counter order, from (counter, value) pairs. */
static void set_count(const struct sb_likwid_group *g, double *counts, const char *counter,
		      double v)
{
	unsigned int i;

	for (i = 0; i < g->events.n; i++)
		if (!strcmp(g->counter_names[i], counter)) {
			counts[i] = v;
			return;
		}
	fail_msg("%s: no counter %s", g->name, counter);
}

static double metric(const struct sb_likwid_group *g, const char *name, const double *counts)
{
	unsigned int i;

	for (i = 0; i < g->n_metrics; i++)
		if (!strcmp(g->metrics[i].name, name))
			return sb_likwid_eval(g, i, counts, 0.5, 5e-10);	/* 0.5 s at 2 GHz */
	fail_msg("%s: no metric '%s'", g->name, name);
	return 0;
}

#define EXPECT_METRIC(g, name, counts, want) \
	assert_float_equal(metric(g, name, counts), want, fabs(want) * 1e-12)

/* 1e9 instructions in 2e9 core cycles, 1e9 reference cycles: CPI 2 at 4 GHz */
static void set_fixed(const struct sb_likwid_group *g, double *counts)
{
	set_count(g, counts, "FIXC0", 1e9);
	set_count(g, counts, "FIXC1", 2e9);
	set_count(g, counts, "FIXC2", 1e9);
}

static void test_flops_dp_metrics_match_hand_computed_values(void **state)
{
	double counts[SB_MAX_COUNTERS] = { 0 };
	struct sb_likwid_group g;

	(void)state;
	load("skylake", "FLOPS_DP", &g);
	assert_string_equal(g.description, "Double Precision MFLOP/s");
	assert_int_equal(g.events.n, 6);
	assert_int_equal(g.n_metrics, 9);
	set_fixed(&g, counts);
	set_count(&g, counts, "PMC0", 1e8);	/* 128-bit packed: 2 flops each */
	set_count(&g, counts, "PMC1", 2e8);	/* scalar */
	set_count(&g, counts, "PMC2", 5e7);	/* 256-bit packed: 4 flops each */
	EXPECT_METRIC(&g, "Runtime (RDTSC) [s]", counts, 0.5);
	EXPECT_METRIC(&g, "Runtime unhalted [s]", counts, 1.0);
	EXPECT_METRIC(&g, "Clock [MHz]", counts, 4000.0);
	EXPECT_METRIC(&g, "CPI", counts, 2.0);
	/* (1e8*2 + 2e8 + 5e7*4) flops in 0.5 s */
	EXPECT_METRIC(&g, "DP [MFLOP/s]", counts, 1200.0);
	EXPECT_METRIC(&g, "AVX DP [MFLOP/s]", counts, 400.0);
	EXPECT_METRIC(&g, "Packed [MUOPS/s]", counts, 300.0);
	EXPECT_METRIC(&g, "Scalar [MUOPS/s]", counts, 400.0);
	EXPECT_METRIC(&g, "Vectorization ratio", counts, 100.0 * 1.5e8 / 3.5e8);
	sb_likwid_group_free(&g);
}

static void test_zen_flops_dp_skips_merge_and_reads_one_flops_counter(void **state)
{
	double counts[SB_MAX_COUNTERS] = { 0 };
	struct sb_likwid_group g;

	(void)state;
	load("zen", "FLOPS_DP", &g);
	assert_int_equal(g.events.n, 5);
	assert_int_equal(g.n_skipped, 1);
	assert_non_null(strstr(g.skipped[0], "PMC3 MERGE: perf pairs the counters"));
	assert_string_equal(g.events.ev[0].name, "ACTUAL_CPU_CLOCK");	/* msr/aperf/ */
	assert_int_equal(g.events.ev[0].config, 1);
	set_count(&g, counts, "FIXC1", 2e9);
	set_count(&g, counts, "FIXC2", 1e9);
	set_count(&g, counts, "PMC0", 1e9);
	set_count(&g, counts, "PMC1", 2e9);
	set_count(&g, counts, "PMC2", 3e8);
	EXPECT_METRIC(&g, "DP [MFLOP/s]", counts, 600.0);
	EXPECT_METRIC(&g, "CPI", counts, 2.0);
	EXPECT_METRIC(&g, "Clock [MHz]", counts, 4000.0);
	sb_likwid_group_free(&g);
}

static void test_l2_metrics_match_hand_computed_values(void **state)
{
	double counts[SB_MAX_COUNTERS] = { 0 };
	struct sb_likwid_group g;

	(void)state;
	load("skylake", "L2", &g);
	set_fixed(&g, counts);
	set_count(&g, counts, "PMC0", 1e7);	/* L1D_REPLACEMENT: lines loaded from L2 */
	set_count(&g, counts, "PMC1", 4e6);	/* L1D_M_EVICT */
	set_count(&g, counts, "PMC2", 1e6);	/* ICACHE_64B_IFTAG_MISS */
	EXPECT_METRIC(&g, "L2D load bandwidth [MBytes/s]", counts, 1280.0);
	EXPECT_METRIC(&g, "L2D load data volume [GBytes]", counts, 0.64);
	EXPECT_METRIC(&g, "L2D evict bandwidth [MBytes/s]", counts, 512.0);
	EXPECT_METRIC(&g, "L2 bandwidth [MBytes/s]", counts, 1920.0);
	EXPECT_METRIC(&g, "L2 data volume [GBytes]", counts, 0.96);
	sb_likwid_group_free(&g);
}

/* MEM reads the memory controllers (uncore): per thread, only its core metrics have values. */
static void test_mem_keeps_core_metrics_and_leaves_uncore_ones_without_value(void **state)
{
	static char *mboxes[] = { "MBOX0C1", "MBOX0C2" };
	const double box_counts[] = { 1e7, 5e6 };
	double counts[SB_MAX_COUNTERS] = { 0 };
	struct sb_error err = { "" };
	struct sb_likwid_group g;
	struct sb_likwid_expr *e;
	unsigned int i, n_uncounted = 0;

	(void)state;
	load("skylake", "MEM", &g);
	assert_int_equal(g.events.n, 3);
	assert_int_equal(g.n_skipped, 2);
	assert_non_null(strstr(g.skipped[0], "MBOX0C1 DRAM_READS: an uncore counter"));
	set_fixed(&g, counts);
	EXPECT_METRIC(&g, "CPI", counts, 2.0);
	EXPECT_METRIC(&g, "Clock [MHz]", counts, 4000.0);
	assert_true(isnan(metric(&g, "Memory bandwidth [MBytes/s]", counts)));
	for (i = 0; i < g.n_metrics; i++)
		n_uncounted += g.metrics[i].uncounted;
	assert_int_equal(n_uncounted, 6);
	sb_likwid_group_free(&g);
	/* the same formula where its counters are counted: (1e7 + 5e6) lines of 64 B in 0.5 s */
	e = sb_likwid_expr_compile("1.0E-06*(MBOX0C1+MBOX0C2)*64.0/time", mboxes, 2, 2, &err);
	assert_non_null(e);
	assert_float_equal(sb_likwid_expr_eval(e, box_counts, 0.5, 5e-10), 1920.0, 1e-9);
	sb_likwid_expr_free(e);
}

static void test_clock_energy_counters_are_skipped_with_a_note(void **state)
{
	double counts[SB_MAX_COUNTERS] = { 0 };
	struct sb_likwid_group g;
	char *out = NULL;
	size_t len = 0;
	FILE *f;

	(void)state;
	load("skylake", "CLOCK", &g);
	assert_int_equal(g.events.n, 3);
	assert_int_equal(g.n_skipped, 3);	/* PWR0, PWR3, UBOXFIX */
	set_fixed(&g, counts);
	EXPECT_METRIC(&g, "Clock [MHz]", counts, 4000.0);
	EXPECT_METRIC(&g, "CPI", counts, 2.0);
	EXPECT_METRIC(&g, "Runtime unhalted [s]", counts, 1.0);
	assert_true(isnan(metric(&g, "Power [W]", counts)));
	assert_true(isnan(metric(&g, "Uncore Clock [MHz]", counts)));
	f = open_memstream(&out, &len);
	sb_likwid_group_notes(&g, f);
	fclose(f);
	assert_non_null(strstr(out, "note: group CLOCK: PWR0 PWR_PKG_ENERGY: an energy (RAPL) "
				    "counter counts the whole package (not counted)\n"));
	assert_non_null(strstr(out, "note: group CLOCK: metric 'Power [W]' needs an uncounted "
				    "counter: no value\n"));
	free(out);
	sb_likwid_group_free(&g);
}

static void expect_parse_error(const char *text, const char *want)
{
	struct sb_error err = { "" };
	struct sb_likwid_group g;

	assert_int_equal(sb_likwid_group_parse_arch(text, "test/BAD.txt", "skylake", &g, &err),
			 -EINVAL);
	if (!strstr(err.msg, want))
		fail_msg("got '%s', want '%s'", err.msg, want);
}

static void test_errors_name_the_file_and_line(void **state)
{
	(void)state;
	expect_parse_error("SHORT x\n\nEVENTSET\nFIXC0 INSTR_RETIRED_ANY\n\nMETRICS\n"
			   "CPI  (FIXC0/FIXC0\n",
			   "test/BAD.txt:7: metric 'CPI': column 13: unbalanced parenthesis");
	expect_parse_error("EVENTSET\nFIXC0 INSTR_RETIRED_ANY\nMETRICS\nIPC FIXC0/FIXC1\n",
			   "test/BAD.txt:4: metric 'IPC': column 7: unknown counter FIXC1");
	expect_parse_error("EVENTSET\nFIXC0\nMETRICS\nIPC FIXC0\n",
			   "test/BAD.txt:2: expected 'COUNTER EVENT', got 'FIXC0'");
	expect_parse_error("EVENTSET\nFIXC0 INSTR_RETIRED_ANY\nMETRICS\nFIXC0\n",
			   "test/BAD.txt:4: expected 'NAME FORMULA'");
	expect_parse_error("bogus\n", "test/BAD.txt:1: 'bogus' outside EVENTSET and METRICS");
	expect_parse_error("EVENTSET\nFIXC0 INSTR_RETIRED_ANY\n", "no METRICS section");
	expect_parse_error("EVENTSET\nPMC0:MATCH0=0x1 L1D_REPLACEMENT\nMETRICS\nX PMC0\n",
			   "test/BAD.txt:2: counter option MATCH0=0x1 is not supported");
}

/* A metric line of more words than the splitter keeps is refused, not cut. */
static void test_a_metric_line_of_too_many_words_is_an_error(void **state)
{
	char text[2048] = "EVENTSET\nFIXC0 INSTR_RETIRED_ANY\nMETRICS\n";
	int i;

	(void)state;
	for (i = 0; i < 300; i++)
		strcat(text, "w ");
	strcat(text, "FIXC0\n");
	expect_parse_error(text, "test/BAD.txt:4: expected 'NAME FORMULA'");
}

static void test_unknown_event_names_the_event_and_the_pmu(void **state)
{
	(void)state;
	struct sb_error err = { "" };
	struct sb_likwid_group g;

	assert_int_equal(sb_likwid_group_parse_arch("EVENTSET\nPMC0 NO_SUCH_EVENT_X\nMETRICS\n"
						    "X PMC0\n", "test/BAD.txt", "skylake", &g,
						    &err), -ENOENT);
	assert_non_null(strstr(err.msg, "test/BAD.txt:2: NO_SUCH_EVENT_X: no libpfm4 skl event"));
}

static void test_metric_names_keep_spaces_and_formulas_may_hold_them(void **state)
{
	struct sb_error err = { "" };
	struct sb_likwid_group g;
	double counts[2] = { 3, 4 };

	(void)state;
	assert_int_equal(sb_likwid_group_parse_arch(
		"SHORT t\nEVENTSET\nFIXC0 INSTR_RETIRED_ANY\nPMC0  L1D_REPLACEMENT\nMETRICS\n"
		"Runtime (RDTSC) [s] time\n"
		"L2 to L1 load bandwidth (x) [MBytes/s]   1.0E-06*(FIXC0+     PMC0)*64.0/time\n"
		"Sum  FIXC0 + PMC0\nLONG\nFIXC9 anything here is ignored\n",
		"t.txt", "skylake", &g, &err), 0);
	assert_int_equal(g.n_metrics, 3);
	assert_string_equal(g.metrics[0].name, "Runtime (RDTSC) [s]");
	assert_string_equal(g.metrics[1].name, "L2 to L1 load bandwidth (x) [MBytes/s]");
	assert_string_equal(g.metrics[2].name, "Sum");
	assert_float_equal(sb_likwid_eval(&g, 1, counts, 0.5, 1), 7 * 64 * 2e-6, 1e-18);
	assert_float_equal(sb_likwid_eval(&g, 2, counts, 0.5, 1), 7, 0);
	sb_likwid_group_free(&g);
}

static void test_arch_is_picked_from_cpuid_as_likwid_picks_it(void **state)
{
	(void)state;
	assert_string_equal(sb_likwid_arch_of("GenuineIntel", 6, 0x4E, 3), "skylake");
	assert_string_equal(sb_likwid_arch_of("GenuineIntel", 6, 0x9E, 10), "skylake");
	assert_string_equal(sb_likwid_arch_of("GenuineIntel", 6, 0x55, 4), "skylakeX");
	assert_string_equal(sb_likwid_arch_of("GenuineIntel", 6, 0x55, 7), "CLX");
	assert_string_equal(sb_likwid_arch_of("GenuineIntel", 6, 0x3F, 2), "haswellEP");
	assert_string_equal(sb_likwid_arch_of("GenuineIntel", 6, 0x6A, 6), "ICX");
	assert_string_equal(sb_likwid_arch_of("AuthenticAMD", 0x17, 0x01, 1), "zen");
	assert_string_equal(sb_likwid_arch_of("AuthenticAMD", 0x17, 0x31, 0), "zen2");
	assert_string_equal(sb_likwid_arch_of("AuthenticAMD", 0x19, 0x01, 1), "zen3");
	assert_string_equal(sb_likwid_arch_of("AuthenticAMD", 0x19, 0x21, 0), "zen3");
	assert_string_equal(sb_likwid_arch_of("AuthenticAMD", 0x19, 0x11, 1), "zen4");
	assert_null(sb_likwid_arch_of("GenuineIntel", 6, 0xFF, 0));
	assert_null(sb_likwid_arch_of("HygonGenuine", 0x18, 0, 0));
	assert_string_equal(sb_likwid_arch_pmu("skylake"), "skl");
	assert_string_equal(sb_likwid_arch_pmu("zen3"), "amd64_fam19h_zen3");
}

static void test_this_cpu_has_a_groups_directory_and_lists_them(void **state)
{
	struct sb_error err = { "" };
	const char *arch = sb_likwid_arch_detect(&err);
	char *out = NULL, path[512];
	size_t len = 0;
	struct stat st;
	FILE *f;

	(void)state;
	if (!arch) {
		/* a CPU LIKWID does not know: the error says so */
		assert_non_null(strstr(err.msg, "LIKWID groups"));
		return;
	}
	snprintf(path, sizeof(path), "%s/%s", ROOT, arch);
	assert_int_equal(stat(path, &st), 0);
	f = open_memstream(&out, &len);
	assert_int_equal(sb_likwid_list_groups(f), 0);
	fclose(f);
	assert_non_null(strstr(out, path));
	assert_non_null(strstr(out, "  FLOPS_DP "));
	free(out);
}

static void test_group_names_are_names_not_paths(void **state)
{
	struct sb_error err = { "" };
	struct sb_likwid_group g;

	(void)state;
	assert_int_equal(sb_likwid_group_load_arch("skylake", "NO_SUCH", &g, &err), -ENOENT);
	assert_non_null(strstr(err.msg, "-g NO_SUCH: no such LIKWID group for skylake"));
	assert_int_equal(sb_likwid_group_load_arch("skylake", "..", &g, &err), -EINVAL);
}

/*
 * Programming a group needs a PMU; here (a VM without one) this is an
 * expected hardware skip, named as such, not a hidden failure.
 */
static void test_this_cpus_flops_group_events_can_be_counted(void **state)
{
	struct sb_error err = { "" };
	struct sb_likwid_group g;
	unsigned int i;

	(void)state;
	if (sb_likwid_group_load("FLOPS_DP", &g, &err)) {
		printf("expected hardware skip: %s\n", err.msg);
		skip();
	}
	for (i = 0; i < g.events.n; i++) {
		if (!sb_counter_event_check(&g.events.ev[i], &err))
			continue;
		if (!strstr(err.msg, "no hardware PMU"))
			fail_msg("%s", err.msg);
		printf("expected hardware skip: %s\n", err.msg);
		sb_likwid_group_free(&g);
		skip();
	}
	sb_likwid_group_free(&g);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_x86_group_file_parses_or_fails_for_its_documented_reason),
		cmocka_unit_test(test_skylake_and_zen_groups_resolve_to_perf_encodings),
		cmocka_unit_test(test_main_intel_groups_resolve_since_sandy_bridge),
		cmocka_unit_test(test_flops_dp_metrics_match_hand_computed_values),
		cmocka_unit_test(test_zen_flops_dp_skips_merge_and_reads_one_flops_counter),
		cmocka_unit_test(test_l2_metrics_match_hand_computed_values),
		cmocka_unit_test(test_mem_keeps_core_metrics_and_leaves_uncore_ones_without_value),
		cmocka_unit_test(test_clock_energy_counters_are_skipped_with_a_note),
		cmocka_unit_test(test_errors_name_the_file_and_line),
		cmocka_unit_test(test_a_metric_line_of_too_many_words_is_an_error),
		cmocka_unit_test(test_unknown_event_names_the_event_and_the_pmu),
		cmocka_unit_test(test_metric_names_keep_spaces_and_formulas_may_hold_them),
		cmocka_unit_test(test_arch_is_picked_from_cpuid_as_likwid_picks_it),
		cmocka_unit_test(test_this_cpu_has_a_groups_directory_and_lists_them),
		cmocka_unit_test(test_group_names_are_names_not_paths),
		cmocka_unit_test(test_this_cpus_flops_group_events_can_be_counted),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
