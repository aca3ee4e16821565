/* JSON input keeps threads, ids, GPU and off-CPU times (plain or gzip); broken parent chains fail. */
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <zlib.h>

#include "fixtures.h"

#include "analysis/calltree.h"
#include "cmd/commands.h"
#include "export/export.h"
#include "io/profile_read.h"

#define MS 1000000ll

/* ---- a profile with threads: main on thread 0, workers beside it ---- */

static const struct sb_event *event_of(const struct sb_profile *p, const struct sb_pair *q,
				       int64_t call_id)
{
	uint64_t k;

	for (k = 0; k < q->count; k++)
		if (p->events[q->offset + k].call_id == call_id)
			return &p->events[q->offset + k];
	return NULL;
}

/*
 * Rank 0: "main" on thread 0 around "setup", then `workers` threads each
 * running "work" with "inner" inside, from 10 to 90 ms: running at once, so
 * main nesting them by time alone would have a negative own time. Rank 1:
 * one "main". Every optional column.
 */
static void threaded(struct sb_profile *p, int workers)
{
	struct sb_thread th = { .end_ns = -1, .cpu_ns = 5 * MS };
	char name[32];
	int64_t id = 0;
	struct sb_event e;
	int w;

	sb_profile_init(p);
	p->format = strdup("synthetic");
	p->columns = SB_COL_THREAD | SB_COL_CALL_ID | SB_COL_PARENT_ID | SB_COL_GPU | SB_COL_OFFCPU;
	assert_int_equal(sb_profile_add_region(p, "main", "app.c", 3, "[]"), 0);
	assert_int_equal(sb_profile_add_region(p, "setup", "", -1, "[]"), 1);
	assert_int_equal(sb_profile_add_region(p, "work", "", -1, "[\"omp\"]"), 2);
	assert_int_equal(sb_profile_add_region(p, "inner", "", -1, "[]"), 3);
	e = (struct sb_event){ 0, 100 * MS, 0, id++, -1, { -1, 7 * MS } };
	fx_add_call(p, 0, 0, &e);
	e = (struct sb_event){ 1 * MS, 9 * MS, 0, id++, 0, { 2 * MS, 0 } };
	fx_add_call(p, 1, 0, &e);
	for (w = 1; w <= workers; w++) {
		e = (struct sb_event){ 10 * MS + w, 90 * MS, w, id++, -1, { -1, w * 1000 } };
		fx_add_call(p, 2, 0, &e);
	}
	for (w = 1; w <= workers; w++) {
		e = (struct sb_event){ 20 * MS, 80 * MS - w, w, id++, 2 + w - 1, { -1, 0 } };
		fx_add_call(p, 3, 0, &e);
	}
	e = (struct sb_event){ 0, 50 * MS, 0, 0, -1, { -1, 0 } };
	fx_add_call(p, 0, 1, &e);
	for (w = 0; w <= workers; w++) {
		snprintf(name, sizeof(name), w ? "worker-%d" : "app", w);
		th.rank = 0;
		th.index = w;
		th.tid = 1000 + w;
		th.start_ns = w * MS;
		th.name = name;
		assert_true(sb_profile_add_thread(p, &th) >= 0);
	}
	th = (struct sb_thread){ .rank = 1, .index = 0, .tid = 2000, .end_ns = 60 * MS,
				 .cpu_ns = -1, .name = "rank1" };
	assert_true(sb_profile_add_thread(p, &th) >= 0);
}

static void threaded9(struct sb_profile *p)
{
	threaded(p, 8);
}

/* p as our export json writes it, to path. */
static void export_json(const struct sb_profile *p, const char *path)
{
	struct sb_error err = { .msg = "" };
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	if (sb_export_json_v1(f, p, &err))
		fail_msg("%s", err.msg);
	assert_int_equal(fclose(f), 0);
}

static void gzip_file(const char *from, const char *to)
{
	char *text = slurp(from);
	gzFile z = gzopen(to, "wb");

	assert_non_null(z);
	assert_int_equal(gzwrite(z, text, (unsigned)strlen(text)), (int)strlen(text));
	assert_int_equal(gzclose(z), Z_OK);
	free(text);
}

static void read_ok(const char *path, struct sb_profile *p)
{
	struct sb_error err = { .msg = "" };

	if (sb_profile_read(path, p, &err))
		fail_msg("%s", err.msg);
}

static const struct sb_pair *pair_named(const struct sb_profile *p, const char *name,
					uint32_t rank)
{
	size_t i;

	for (i = 0; i < p->n_pairs; i++)
		if (p->pairs[i].rank == rank && !strcmp(p->regions[p->pairs[i].region].name, name))
			return &p->pairs[i];
	fail_msg("no region '%s' on rank %u", name, rank);
	return NULL;
}

static const struct sb_thread *thread_of(const struct sb_profile *p, uint32_t rank,
					 int64_t index)
{
	size_t i;

	for (i = 0; i < p->n_threads; i++)
		if (p->threads[i].rank == rank && p->threads[i].index == index)
			return &p->threads[i];
	fail_msg("no thread %lld on rank %u", (long long)index, rank);
	return NULL;
}

/* b holds every thread row and every call of a, with every column. */
static void expect_same_calls(const struct sb_profile *a, const struct sb_profile *b)
{
	const struct sb_thread *x, *y;
	const struct sb_event *e, *f;
	const struct sb_pair *q, *r;
	size_t i;
	uint64_t k;

	assert_int_equal(b->columns, a->columns);
	assert_int_equal(b->n_events, a->n_events);
	assert_int_equal(b->n_threads, a->n_threads);
	for (i = 0; i < a->n_threads; i++) {
		x = &a->threads[i];
		y = thread_of(b, x->rank, x->index);
		assert_int_equal(y->tid, x->tid);
		assert_string_equal(y->name, x->name);
		assert_int_equal(y->start_ns, x->start_ns);
		assert_int_equal(y->end_ns, x->end_ns);
		assert_int_equal(y->cpu_ns, x->cpu_ns);
	}
	for (i = 0; i < a->n_pairs; i++) {
		q = &a->pairs[i];
		r = pair_named(b, a->regions[q->region].name, q->rank);
		assert_int_equal(r->count, q->count);
		for (k = 0; k < q->count; k++) {
			e = &a->events[q->offset + k];
			f = event_of(b, r, e->call_id);
			assert_non_null(f);
			assert_memory_equal(f, e, sizeof(*e));
		}
	}
}

static void test_export_json_read_back_keeps_threads_ids_and_offcpu(void **state)
{
	const char *h5 = tmp_path("threads.h5"), *json = tmp_path("threads.json");
	struct sb_profile orig, back;

	(void)state;
	fx_write_built(h5, threaded9);
	read_ok(h5, &orig);
	export_json(&orig, json);
	read_ok(json, &back);
	expect_same_calls(&orig, &back);
	sb_profile_free(&back);
	/* scope-profiler writes .json.gz: the same, found by its magic whatever its name. */
	gzip_file(json, tmp_path("threads.json.gz"));
	read_ok(tmp_path("threads.json.gz"), &back);
	expect_same_calls(&orig, &back);
	sb_profile_free(&back);
	gzip_file(json, tmp_path("no-name"));
	read_ok(tmp_path("no-name"), &back);
	expect_same_calls(&orig, &back);
	sb_profile_free(&back);
	sb_profile_free(&orig);
}

/* Nine threads at once: main holds only its own thread's calls, so own >= 0 and %rec <= 100. */
static void test_nine_threads_from_json_nest_per_thread(void **state)
{
	const char *h5 = tmp_path("nine.h5"), *json = tmp_path("nine.json");
	struct sb_ct_opts o = { .rank = 0, .sort = SB_CT_SORT_NAME };
	struct sb_error err = { .msg = "" };
	struct sb_profile orig, p;
	struct sb_calltree t;
	uint32_t i;

	(void)state;
	fx_write_built(h5, threaded9);
	read_ok(h5, &orig);
	export_json(&orig, json);
	sb_profile_free(&orig);
	read_ok(json, &p);
	assert_int_equal(sb_calltree_build(&t, &p, &o, &err), 0);
	for (i = 1; i < t.n_nodes; i++) {
		if (t.nodes[i].own < 0)
			fail_msg("'%s': own time %lld", sb_calltree_name(&t, i),
				 (long long)t.nodes[i].own);
		if (t.nodes[i].region == 0) {
			assert_int_equal(t.nodes[i].total, 100 * MS);
			assert_int_equal(t.nodes[i].own, 92 * MS);
			assert_true(t.nodes[i].total <= t.max_end - t.min_start);
		}
		/* Workers' calls are top level on their threads, not inside main. */
		if (t.nodes[i].region == 2)
			assert_int_equal(t.nodes[i].depth, 1);
	}
	sb_calltree_free(&t);
	sb_profile_free(&p);
}

/* ---- broken parent chains and threads ---- */

static void expect_json(const char *body, const char *cause)
{
	const char *path = tmp_path("bad.json");
	struct sb_error err = { .msg = "" };
	struct sb_profile p;
	FILE *f;

	f = fopen(path, "w");
	assert_non_null(f);
	fprintf(f, "{\"format\":\"scope-profiler-profile\",\"format_version\":1,%s}", body);
	assert_int_equal(fclose(f), 0);
	if (sb_profile_read(path, &p, &err) != -EINVAL)
		fail_msg("%s: read, expected '%s'", body, cause);
	assert_msg(&err, path, cause);
	assert_null(p.events);
}

/* One region "r" on rank 0 with these per-call lists. */
#define REGION(starts, ends, threads, ids, parents)                                        \
	"{\"name\":\"r\",\"rank\":0,\"start_times_ns\":" starts ",\"end_times_ns\":" ends   \
	",\"thread_ids\":" threads ",\"call_ids\":" ids ",\"parent_ids\":" parents "}"

static void test_broken_parent_chains_are_refused(void **state)
{
	(void)state;
	expect_json("\"regions\":[" REGION("[0,10]", "[100,20]", "[0,0]", "[0,1]", "[-1,1]") "]",
		    "call id 1 of 'r' on rank 0 is its own parent");
	/* Two calls of one instant, each the other's parent: inside each other, still a cycle. */
	expect_json("\"regions\":[" REGION("[5,5]", "[9,9]", "[0,0]", "[0,1]", "[1,0]") "]",
		    "its parent chain is a cycle");
	expect_json("\"regions\":[" REGION("[0,10]", "[100,20]", "[0,1]", "[0,1]", "[-1,0]") "]",
		    "call id 1 of 'r' on rank 0 on thread 1 has its parent call id 0 of 'r' on rank 0 on thread 0");
	expect_json("\"regions\":[" REGION("[0,10]", "[100,120]", "[0,0]", "[0,1]", "[-1,0]") "]",
		    "call id 1 of 'r' on rank 0 [10, 120] is not inside its parent call id 0 of 'r' on rank 0 [0, 100]");
	expect_json("\"regions\":[" REGION("[0,10,20]", "[100,80,90]", "[0,0,0]", "[0,1,2]",
					   "[-1,0,0]") "]",
		    "call id 0 of 'r' on rank 0: the calls inside it overlap (together 140 ns, it lasts 100 ns)");
	expect_json("\"regions\":[" REGION("[0,10]", "[100,20]", "[0,0]", "[3,3]", "[-1,-1]") "]",
		    "call id 3 of 'r' on rank 0: the call id appears twice on its rank");
	expect_json("\"regions\":[" REGION("[0,10]", "[100,20]", "[0,0]", "[0]", "[-1,-1]") "]",
		    "regions[0] ('r'): 2 start times but 1 call_ids");
}

static void test_threads_must_match_the_thread_table(void **state)
{
	(void)state;
	expect_json("\"regions\":[" REGION("[0]", "[1]", "[2]", "[0]", "[-1]") "],"
		    "\"threads\":{\"0\":[{\"index\":0},{\"index\":1}]}",
		    "call id 0 of 'r' on rank 0: thread id 2 out of range (the rank has 2 thread rows)");
	expect_json("\"regions\":[" REGION("[0]", "[1]", "[0]", "[0]", "[-1]") "],"
		    "\"threads\":{\"0\":[{\"index\":0},{\"index\":0}]}",
		    "rank 0 has duplicate or missing thread indexes");
	expect_json("\"regions\":[],\"threads\":{\"01\":[]}", "threads: \"01\" is not a rank");
	expect_json("\"regions\":[],\"threads\":{\"0\":[{\"name\":\"x\"}]}",
		    "threads[\"0\"][0] has no index");
	/* A file either has a column for every call or for none. */
	expect_json("\"regions\":[" REGION("[0]", "[1]", "[0]", "[0]", "[-1]") ","
		    "{\"name\":\"s\",\"rank\":0,\"start_times_ns\":[2],\"end_times_ns\":[3]}]",
		    "region 's' on rank 0: its optional columns");
}

static void test_gzip_cut_or_corrupt_is_refused(void **state)
{
	const char *json = tmp_path("ok.json"), *gz = tmp_path("ok.json.gz");
	const char *cut = tmp_path("cut.json.gz");
	struct sb_error err = { .msg = "" };
	struct sb_profile p;
	unsigned char *b;
	struct stat st;
	FILE *f;

	(void)state;
	fx_write_built(tmp_path("small.h5"), threaded9);
	read_ok(tmp_path("small.h5"), &p);
	export_json(&p, json);
	sb_profile_free(&p);
	gzip_file(json, gz);
	assert_int_equal(stat(gz, &st), 0);
	b = (unsigned char *)slurp(gz);
	f = fopen(cut, "wb");
	assert_non_null(f);
	assert_int_equal(fwrite(b, 1, (size_t)st.st_size - 12, f), (size_t)st.st_size - 12);
	fclose(f);
	free(b);
	assert_int_equal(sb_profile_read(cut, &p, &err), -EINVAL);
	assert_msg(&err, cut, "truncated or corrupt gzip data");
}

/* report and export say a broken chain is bad input: exit 2. */
static void test_commands_exit_2_on_a_broken_chain(void **state)
{
	const char *path = tmp_path("cycle.json");
	char *report[] = { "report", (char *)path, NULL };
	char *export[] = { "export", "chrome", "-o", tmp_path("out.trace"), (char *)path, NULL };
	int status;
	pid_t pid;
	FILE *f;

	(void)state;
	f = fopen(path, "w");
	assert_non_null(f);
	fputs("{\"format\":\"scope-profiler-profile\",\"format_version\":1,\"regions\":["
	      REGION("[5,5]", "[9,9]", "[0,0]", "[0,1]", "[1,0]") "]}", f);
	fclose(f);
	pid = fork();
	assert_true(pid >= 0);
	if (!pid) {
		if (!freopen("/dev/null", "w", stderr))
			_exit(100);
		optind = 1;
		if (cmd_report(2, report) != 2)
			_exit(1);
		optind = 1;
		_exit(cmd_export(5, export));
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_export_json_read_back_keeps_threads_ids_and_offcpu),
		cmocka_unit_test(test_nine_threads_from_json_nest_per_thread),
		cmocka_unit_test(test_broken_parent_chains_are_refused),
		cmocka_unit_test(test_threads_must_match_the_thread_table),
		cmocka_unit_test(test_gzip_cut_or_corrupt_is_refused),
		cmocka_unit_test(test_commands_exit_2_on_a_broken_chain),
	};

	return cmocka_run_group_tests(tests, tmp_setup, tmp_teardown);
}
