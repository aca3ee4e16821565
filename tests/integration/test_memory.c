/* record --memory: resident size, its peak and page faults per region call (tests/apps/mem_regions.c). */
#include "harness.h"
#include "model/memory.h"

#define MIB (1024LL * 1024)
#define MEMORY_EVENTS "mem:rss-growth,mem:rss-release,mem:peak-growth,mem:faults"

static long page;

/* Slot slot of the only call of region on rank 0 (inclusive, or own when excl). */
static int64_t value_of(const struct sb_profile *p, const char *region, unsigned slot, bool excl)
{
	const struct sb_pair *q = must_pair(p, region, 0);

	assert_int_equal(q->count, 1);
	return sb_event_metric(p, &p->events[q->offset],
			       (excl ? SB_METRIC_COUNTER_EXCL : SB_METRIC_COUNTER) + slot);
}

/*
 * Resident sizes are mm's counters as /proc shows them: since 6.2 without
 * the CPUs' pending batches (up to 64 pages a CPU the process ran on).
 */
static void assert_bytes_about(int64_t v, int64_t n, const char *what)
{
	int64_t slack = 128 * page * (sysconf(_SC_NPROCESSORS_ONLN) < 4 ? 4 :
				      sysconf(_SC_NPROCESSORS_ONLN));

	if (v < n - slack || v > n + slack)
		fail_msg("%s: %lld bytes, expected %lld within %lld", what, (long long)v,
			 (long long)n, (long long)slack);
}

/* record -q --memory [-e events] -o out -- mem_regions */
static int record_memory(const char *out, const char *events)
{
	char path[512], *argv[12];
	int n = 0;

	argv[n++] = (char *)scope_bin();
	argv[n++] = "record";
	argv[n++] = "-q";
	argv[n++] = "--memory";
	if (events) {
		argv[n++] = "-e";
		argv[n++] = (char *)events;
	}
	argv[n++] = "-o";
	argv[n++] = (char *)out;
	argv[n++] = "--";
	argv[n++] = (char *)app_path("mem_regions", path, sizeof(path));
	argv[n] = NULL;
	return run(argv);
}

static void test_memory_per_call(void **state)
{
	struct sb_profile p;
	char out[300];

	(void)state;
	require_bpf();
	assert_int_equal(record_memory(tmp_file("m.h5", out, sizeof(out)), NULL), 0);
	load_profile(out, &p);
	assert_string_equal(sb_profile_meta(&p, "counter_events")->s, MEMORY_EVENTS);
	assert_int_equal(meta_int(&p, "counter_threads_uncounted"), 0);
	/* 64 MiB written and freed: the peak rose by it, the resident size did not stay. */
	assert_bytes_about(value_of(&p, "alloc64", SB_MEMORY_PEAK_GROWTH, false), 64 * MIB,
			   "alloc64: peak growth");
	assert_bytes_about(value_of(&p, "alloc64", SB_MEMORY_RSS_GROWTH, false), 0,
			   "alloc64: RSS growth");
	assert_true(value_of(&p, "alloc64", SB_MEMORY_FAULTS, false) >= 1);
	/* 32 MiB kept: resident, but below the peak alloc64 set. */
	assert_bytes_about(value_of(&p, "keep32", SB_MEMORY_RSS_GROWTH, false), 32 * MIB,
			   "keep32: RSS growth");
	assert_bytes_about(value_of(&p, "keep32", SB_MEMORY_PEAK_GROWTH, false), 0,
			   "keep32: peak growth");
	assert_int_equal(value_of(&p, "keep32", SB_MEMORY_RSS_RELEASE, false), 0);
	/* Freed: given back, nothing gained. */
	assert_bytes_about(value_of(&p, "drop32", SB_MEMORY_RSS_RELEASE, false), 32 * MIB,
			   "drop32: RSS release");
	assert_int_equal(value_of(&p, "drop32", SB_MEMORY_PEAK_GROWTH, false), 0);
	/* 4000 fresh small pages: a fault each, each resident after. */
	assert_in_range(value_of(&p, "touch", SB_MEMORY_FAULTS, false), 4000, 4010);
	assert_bytes_about(value_of(&p, "touch", SB_MEMORY_RSS_GROWTH, false), 4000 * page,
			   "touch: RSS growth");
	/* Inclusive counts the child, own leaves it out. */
	assert_in_range(value_of(&p, "outer", SB_MEMORY_FAULTS, false), 4000, 4010);
	assert_in_range(value_of(&p, "outer", SB_MEMORY_FAULTS, true), 1000, 1010);
	assert_in_range(value_of(&p, "inner", SB_MEMORY_FAULTS, false), 3000, 3010);
	assert_bytes_about(value_of(&p, "outer", SB_MEMORY_RSS_GROWTH, true), 1000 * page,
			   "outer: own RSS growth");
	assert_in_range(value_of(&p, "idle", SB_MEMORY_FAULTS, false), 0, 1);
	assert_int_equal(value_of(&p, "idle", SB_MEMORY_PEAK_GROWTH, false), 0);
	sb_profile_free(&p);
}

/* With -e: the events first, then the memory slots; the thread's faults counted both ways agree. */
static void test_memory_with_events(void **state)
{
	struct sb_profile p;
	char out[300];

	(void)state;
	require_bpf();
	assert_int_equal(record_memory(tmp_file("me.h5", out, sizeof(out)), "page-faults"), 0);
	load_profile(out, &p);
	assert_string_equal(sb_profile_meta(&p, "counter_events")->s, "page-faults," MEMORY_EVENTS);
	assert_int_equal(value_of(&p, "touch", 0, false),
			 value_of(&p, "touch", 1 + SB_MEMORY_FAULTS, false));
	assert_int_equal(value_of(&p, "outer", 0, true),
			 value_of(&p, "outer", 1 + SB_MEMORY_FAULTS, true));
	sb_profile_free(&p);
}

/* What --memory cannot do is refused before anything runs. */
static void test_memory_refusals(void **state)
{
	char out[300], path[512], msg[2048];
	char *fast[] = { (char *)scope_bin(), "record", "--memory", "--mode=fast", "-o",
			 (char *)tmp_file("f.h5", out, sizeof(out)), "--",
			 (char *)app_path("mem_regions", path, sizeof(path)), NULL };
	char *many[] = { (char *)scope_bin(), "record", "--memory", "-e",
			 "page-faults,minor-faults,major-faults,context-switches,cpu-migrations",
			 "-o", out, "--", path, NULL };

	(void)state;
	assert_int_equal(run(fast), 2);
	read_stderr(msg, sizeof(msg));
	assert_non_null(strstr(msg, "--mode=fast: counters (--memory)"));
	assert_int_equal(run(many), 2);
	read_stderr(msg, sizeof(msg));
	assert_non_null(strstr(msg, "--memory: its 4 values and -e's 5 events are more than 8"));
	assert_int_equal(access(out, F_OK), -1);
}

/* report --memory and diff --metric on a real recording, as a user runs them. */
static void test_report_and_diff(void **state)
{
	char out[300], csv[300], line[512], plain[300];
	long long depth, calls, unknown, growth, own_growth, release, own_release, peak, own_peak,
		faults;
	bool seen_alloc = false, seen_inner = false;
	FILE *f;

	(void)state;
	require_bpf();
	assert_int_equal(record_memory(tmp_file("r.h5", out, sizeof(out)), NULL), 0);
	{
		char *argv[] = { (char *)scope_bin(), "report", "--memory", "-f", "csv", "-o",
				 (char *)tmp_file("r.csv", csv, sizeof(csv)), out, NULL };

		assert_int_equal(run(argv), 0);
	}
	f = fopen(csv, "r");
	assert_non_null(f);
	assert_non_null(fgets(line, sizeof(line), f));
	assert_string_equal(line, "path,depth,calls,unknown_calls,rss_growth_bytes,"
			    "own_rss_growth_bytes,rss_release_bytes,own_rss_release_bytes,"
			    "peak_growth_bytes,own_peak_growth_bytes,page_faults,own_page_faults\n");
	/* Largest peak growth first. */
	assert_non_null(fgets(line, sizeof(line), f));
	assert_int_equal(strncmp(line, "alloc64,", 8), 0);
	do {
		if (!strncmp(line, "alloc64,", 8)) {
			assert_int_equal(sscanf(line + 8, "%lld,%lld,%lld,%lld,%lld,%lld,%lld,%lld",
						&depth, &calls, &unknown, &growth, &own_growth,
						&release, &own_release, &peak), 8);
			assert_int_equal(depth, 1);
			assert_int_equal(calls, 1);
			assert_bytes_about(peak, 64 * MIB, "report: alloc64 peak growth");
			seen_alloc = true;
		}
		/* inner's own path, below outer. */
		if (!strncmp(line, "outer;inner,", 12)) {
			assert_int_equal(sscanf(line + 12, "%lld,%lld,%lld,%lld,%lld,%lld,%lld,%lld,"
						"%lld,%lld", &depth, &calls, &unknown, &growth,
						&own_growth, &release, &own_release, &peak, &own_peak,
						&faults), 10);
			assert_int_equal(depth, 2);
			assert_in_range(faults, 3000, 3010);
			seen_inner = true;
		}
	} while (fgets(line, sizeof(line), f));
	fclose(f);
	assert_true(seen_alloc);
	assert_true(seen_inner);
	{
		char *same[] = { (char *)scope_bin(), "diff", "-m", "mem:peak-growth", "-o",
				 "/dev/null", out, out, NULL };
		char *none[] = { (char *)scope_bin(), "report", "--memory",
				 (char *)tmp_file("plain.h5", plain, sizeof(plain)), NULL };

		assert_int_equal(run(same), 0);
		assert_int_equal(record_app(plain, "mem_regions", NULL), 0);
		assert_int_equal(run(none), 2);
	}
	read_stderr(line, sizeof(line));
	assert_non_null(strstr(line, "no memory values: record with --memory"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_memory_per_call),
		cmocka_unit_test(test_memory_with_events),
		cmocka_unit_test(test_memory_refusals),
		cmocka_unit_test(test_report_and_diff),
	};

	page = sysconf(_SC_PAGESIZE);
	return cmocka_run_group_tests(tests, setup_tmp, teardown_tmp);
}
