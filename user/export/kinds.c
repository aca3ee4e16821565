/* The kinds `scope-bpf export` writes, one table: its usage, errors and dispatch come from it. */
#include <string.h>

#include "export/export.h"
#include "export/proto_export.h"
#include "export/samples_export.h"

static int folded_cpu(FILE *f, const struct sb_profile *p, struct sb_error *err)
{
	return sb_export_folded(f, p, SB_SAMPLE_CPU, err);
}

static int folded_offcpu(FILE *f, const struct sb_profile *p, struct sb_error *err)
{
	return sb_export_folded(f, p, SB_SAMPLE_OFFCPU, err);
}

static int flamegraph_offcpu(FILE *f, const struct sb_profile *p, struct sb_error *err)
{
	return sb_export_flamegraph_kind(f, p, SB_SAMPLE_OFFCPU, err);
}

const struct sb_export_kind sb_export_kinds[] = {
	{ "chrome-trace", ".trace.json",
	  "Trace Event JSON for ui.perfetto.dev and chrome://tracing:\n"
	  "one process per rank, one track per thread, off-CPU counters",
	  sb_export_chrome_trace, NULL, NULL, true },
	{ "speedscope", ".speedscope.json", "speedscope.app file: one timeline per (rank, thread)",
	  sb_export_speedscope, NULL, NULL, true },
	{ "json", ".json", "scope-profiler JSON v1, for scope-profiler's Python tools",
	  sb_export_json_v1, NULL, NULL, true },
	{ "csv", ".csv", "one summary row per (rank, region), one row per call", sb_export_csv,
	  NULL, NULL, true },
	{ "pstats", ".prof",
	  "Python's pstats file: region paths as functions with calls, own\n"
	  "and cumulative seconds, for python -m pstats, snakeviz, gprof2dot",
	  sb_export_pstats, NULL, NULL, false },
	{ "folded", ".folded",
	  "folded stacks of the samples, region path outermost, for\n"
	  "flamegraph.pl, inferno or speedscope",
	  folded_cpu, folded_offcpu, NULL, false },
	{ "flamegraph", ".svg",
	  "interactive SVG flame graph of the samples (a CPU / off-CPU\n"
	  "toggle when both were recorded)",
	  sb_export_flamegraph, flamegraph_offcpu, NULL, false },
	{ "perfetto", ".pftrace",
	  "Perfetto's protobuf trace for ui.perfetto.dev: chrome-trace's\n"
	  "tracks in a fifth of the size",
	  sb_export_perfetto, NULL, NULL, true },
	{ "pprof", ".pb.gz",
	  "gzipped pprof profile of the samples, region path outermost,\n"
	  "for pprof, go tool pprof, Pyroscope or speedscope",
	  sb_export_pprof, NULL, NULL, false },
	{ "perf-script", ".perf.txt",
	  "each CPU sample with its time, thread, CPU and stack, as perf\n"
	  "script prints them, for speedscope, Firefox Profiler or\n"
	  "stackcollapse-perf.pl",
	  sb_export_perf_script, NULL, NULL, false },
	{ "otf2", "-otf2",
	  "OTF2 archive for Vampir, Scalasca, Score-P's tools: a new or\n"
	  "empty directory OUT; open OUT/traces.otf2",
	  NULL, NULL, sb_export_otf2, true },
};

const size_t sb_export_n_kinds = sizeof(sb_export_kinds) / sizeof(sb_export_kinds[0]);

const struct sb_export_kind *sb_export_kind_find(const char *name)
{
	size_t i;

	for (i = 0; i < sb_export_n_kinds; i++)
		if (!strcmp(sb_export_kinds[i].name, name))
			return &sb_export_kinds[i];
	return NULL;
}
