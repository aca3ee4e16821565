/*
 * Unit tests of the OTF2 export: small profiles written as archives and read
 * back with otf2-print (Debian otf2-tools), counted per location and in order.
 */
#include <errno.h>
#include <fcntl.h>
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

#include "cmd/commands.h"
#include "cuda_acts.h"
#include "export/export.h"
#include "fixtures.h"

#define ARGC(a) ((int)(sizeof(a) / sizeof((a)[0])))
#define SEND "mpi:send kind=point-to-point bytes=800 peer=1 root=-1 tag=7 comm=1140850688"
#define RECV "mpi:recv kind=point-to-point bytes=800 peer=0 root=-1 tag=7 comm=1140850688"
#define BCAST "mpi:bcast kind=collective bytes=64 peer=-1 root=0 tag=-1 comm=1140850688"
/* Another communicator: its ranks are not COMM_WORLD's, so no message event. */
#define SEND_SUB "mpi:send kind=point-to-point bytes=8 peer=1 root=-1 tag=3 comm=1140850689"
/* A non-blocking pair: the receive is written at the wait that completed it. */
#define ISEND "mpi:isend kind=point-to-point bytes=16 peer=1 root=-1 tag=9 comm=1140850688"
#define WAIT "mpi:wait kind=wait bytes=16 peer=0 root=-1 tag=9 comm=1140850688 request=irecv"
/* From MPI_ANY_SOURCE: which send it matched is unknown, so no message event. */
#define RECV_ANY "mpi:recv kind=point-to-point bytes=8 peer=-1 root=-1 tag=-1 comm=1140850688"

enum { MAIN, SOLVE, WORKER, R_SEND, R_RECV, R_BCAST, R_SEND_SUB, R_ISEND, R_WAIT, R_RECV_ANY,
       N_REGIONS };

static const char *const names[N_REGIONS] = { "main", "solve", "worker", SEND, RECV, BCAST,
					      SEND_SUB, ISEND, WAIT, RECV_ANY };

struct call {
	unsigned region, rank;
	int64_t thread, start, end;
};

/*
 * Two ranks of two threads, region by region and by start as the index wants
 * them. Thread 0: main > solve > (send | recv), solve > bcast; thread 1:
 * worker > solve. Rank 1 runs 5 ns later.
 */
static const struct call calls[] = {
	{ MAIN, 0, 0, 100, 1000 },   { MAIN, 1, 0, 105, 1005 },
	{ SOLVE, 0, 0, 200, 500 },   { SOLVE, 0, 1, 160, 400 },  { SOLVE, 0, 0, 600, 900 },
	{ SOLVE, 1, 0, 205, 505 },   { SOLVE, 1, 1, 165, 405 },  { SOLVE, 1, 0, 605, 905 },
	{ WORKER, 0, 1, 150, 950 },  { WORKER, 1, 1, 155, 955 },
	{ R_SEND, 0, 0, 300, 350 },  { R_RECV, 1, 0, 305, 405 },
	{ R_BCAST, 0, 0, 700, 800 }, { R_BCAST, 1, 0, 705, 805 },
	{ R_SEND_SUB, 0, 0, 360, 370 }, { R_ISEND, 0, 0, 380, 390 },
	{ R_WAIT, 1, 0, 420, 430 },      { R_RECV_ANY, 1, 0, 440, 450 },
};
#define N_CALLS (sizeof(calls) / sizeof(calls[0]))

static int cmp_call(const void *a, const void *b)
{
	const struct call *x = a, *y = b;

	if (x->region != y->region)
		return x->region < y->region ? -1 : 1;
	if (x->rank != y->rank)
		return x->rank < y->rank ? -1 : 1;
	return (x->start > y->start) - (x->start < y->start);
}

/* Off-CPU time and one counter ("instructions") per call, with the counter value of a call. */
static int64_t insns(const struct call *c)
{
	return (c->end - c->start) * 2;
}

static void build(struct sb_profile *p, bool metrics)
{
	struct call sorted[N_CALLS];
	struct sb_event e;
	size_t i, k;
	int64_t t;

	memcpy(sorted, calls, sizeof(calls));
	qsort(sorted, N_CALLS, sizeof(*sorted), cmp_call);
	sb_profile_init(p);
	p->format = strdup("synthetic");
	p->columns = SB_COL_THREAD;
	if (metrics)
		p->columns |= SB_COL_OFFCPU | SB_COL_METRIC(SB_METRIC_COUNTER) |
			      SB_COL_METRIC(SB_METRIC_COUNTER_EXCL);
	for (i = 0; i < N_REGIONS; i++)
		assert_int_equal(sb_profile_add_region(p, names[i], i < 3 ? "app.c" : "",
						       i < 3 ? 10 * (int64_t)(i + 1) : -1, "[]"),
				 i);
	for (i = 0; i < N_CALLS; i++) {
		sb_event_blank(&e);
		e.start = sorted[i].start;
		e.end = sorted[i].end;
		e.thread = sorted[i].thread;
		e.metric[SB_METRIC_OFFCPU] = metrics ? (e.end - e.start) / 10 : -1;
		fx_add_call(p, sorted[i].region, sorted[i].rank, &e);
	}
	for (t = 0; t < 4; t++) {
		struct sb_thread th = { .rank = (uint32_t)(t / 2), .index = t % 2, .tid = 100 + t,
					.end_ns = -1, .cpu_ns = -1, .name = "app" };

		assert_true(sb_profile_add_thread(p, &th) >= 0);
	}
	assert_int_equal(sb_profile_set_int(p, "mpi_size", 2), 0);
	if (!metrics)
		return;
	assert_int_equal(sb_profile_set_str(p, "counter_events", "instructions"), 0);
	assert_int_equal(sb_profile_alloc_counters(p), 0);
	for (k = 0; k < N_CALLS; k++)
		sb_event_set_metric(p, k, SB_METRIC_COUNTER, insns(&sorted[k]));
}

/* Export p into a new directory under the scratch one; the exporter's result. */
static int export_to(const char *name, const struct sb_profile *p, struct sb_error *err)
{
	char *dir = tmp_path(name);

	assert_int_equal(mkdir(dir, 0700), 0);
	return sb_export_otf2(dir, p, err);
}

#ifndef SB_HAVE_OTF2
/* Built without libotf2 (no tests/install-deps.sh): the export says so, and nothing else runs. */
static void test_built_without_otf2_says_so(void **state)
{
	struct sb_error err = { .msg = "" };
	struct sb_profile p;

	(void)state;
	build(&p, false);
	assert_int_equal(export_to("none", &p, &err), -ENOTSUP);
	expect_has(err.msg, "built without OTF2");
	sb_profile_free(&p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_built_without_otf2_says_so),
	};

	return cmocka_run_group_tests(tests, tmp_setup, tmp_teardown);
}
#else
/* What otf2-print (with args) says of the archive in directory name, warnings as errors. */
static char *print(const char *name, const char *args)
{
	char cmd[1024], *out = NULL;
	size_t len = 0, n;
	char buf[4096];
	FILE *f;
	int status;

	snprintf(cmd, sizeof(cmd), "otf2-print --warnings-as-errors %s '%s/traces.otf2' 2>&1",
		 args, tmp_path(name));
	f = popen(cmd, "r");
	assert_non_null(f);
	while ((n = fread(buf, 1, sizeof(buf), f)) > 0) {
		out = realloc(out, len + n + 1);
		assert_non_null(out);
		memcpy(out + len, buf, n);
		len += n;
	}
	status = pclose(f);
	if (!out)
		out = calloc(1, 1);
	out[len] = 0;
	if (status != 0) {
		fprintf(stderr, "%s", out);
		fail_msg("otf2-print failed (status %d): %s", status, cmd);
	}
	return out;
}

/* Lines of out that start with the event name ev, on location loc (-1: any). */
static size_t count(const char *out, const char *ev, long loc)
{
	size_t n = 0, len = strlen(ev);
	const char *s;
	char *end;

	for (s = out; s && *s; s = strchr(s, '\n'), s = s ? s + 1 : NULL) {
		if (strncmp(s, ev, len) || s[len] != ' ')
			continue;
		if (loc < 0 || strtol(s + len, &end, 10) == loc)
			n++;
	}
	return n;
}

static void test_enter_leave_per_location_and_nesting(void **state)
{
	struct sb_error err = { .msg = "" };
	char stack[8][32], *out, *s, *q;
	size_t depth, i;
	struct sb_profile p;
	long loc;

	(void)state;
	build(&p, false);
	assert_int_equal(export_to("nest", &p, &err), 0);
	out = print("nest", "");
	/* Locations 0-3: rank 0 thread 0, rank 0 thread 1, rank 1 thread 0, rank 1 thread 1. */
	assert_int_equal(count(out, "ENTER", 0), 7);
	assert_int_equal(count(out, "LEAVE", 0), 7);
	assert_int_equal(count(out, "ENTER", 1), 2);
	assert_int_equal(count(out, "LEAVE", 1), 2);
	assert_int_equal(count(out, "ENTER", 2), 7);
	assert_int_equal(count(out, "ENTER", 3), 2);
	assert_int_equal(count(out, "ENTER", -1), N_CALLS);
	assert_int_equal(count(out, "LEAVE", -1), N_CALLS);
	/* Per location, every leave closes the innermost open region. */
	for (loc = 0; loc < 4; loc++) {
		depth = 0;
		for (s = out; s && *s; s = strchr(s, '\n'), s = s ? s + 1 : NULL) {
			bool in = !strncmp(s, "ENTER ", 6), lv = !strncmp(s, "LEAVE ", 6);

			if ((!in && !lv) || strtol(s + 6, NULL, 10) != loc)
				continue;
			q = strstr(s, "Region: \"");
			assert_non_null(q);
			q += 9;
			i = strcspn(q, "\"");
			if (in) {
				assert_true(depth < 8);
				snprintf(stack[depth++], sizeof(stack[0]), "%.*s", (int)i, q);
			} else {
				assert_true(depth > 0);
				if (strncmp(stack[--depth], q, i) || stack[depth][i])
					fail_msg("location %ld leaves %.*s inside %s", loc, (int)i,
						 q, stack[depth]);
			}
		}
		assert_int_equal(depth, 0);
	}
	free(out);
	sb_profile_free(&p);
}

static void test_definitions_regions_locations_clock(void **state)
{
	struct sb_error err = { .msg = "" };
	struct sb_profile p;
	char *out;

	(void)state;
	build(&p, false);
	assert_int_equal(export_to("defs", &p, &err), 0);
	out = print("defs", "-G");
	expect_has(out, "Name: \"solve\" <");
	expect_has(out, "Name: \"worker\" <");
	/* MPI calls: one region per operation, named as MPI names the function. */
	expect_has(out, "Name: \"MPI_Send\" <");
	expect_has(out, "Name: \"MPI_Bcast\" <");
	assert_null(strstr(out, "kind=point-to-point"));
	expect_has(out, "\"app.c\"");
	expect_has(out, "File: \"app.c\" <10>, Begin: 20");
	expect_has(out, "Name: \"rank 1\" <");
	expect_has(out, "Name: \"thread 1 app (tid 103)\" <");
	expect_has(out, "Name: \"MPI_COMM_WORLD\" <");
	/* Clock: ns, from the earliest call (100) to the latest end (1005). */
	expect_has(out, "Ticks per Seconds: 1000000000");
	expect_has(out, "Global Offset: 100");
	expect_has(out, "Length: 905");
	free(out);
	sb_profile_free(&p);
}

static void test_mpi_messages_and_collectives(void **state)
{
	struct sb_error err = { .msg = "" };
	struct sb_profile p;
	char *out;

	(void)state;
	build(&p, false);
	assert_int_equal(export_to("mpi", &p, &err), 0);
	out = print("mpi", "");
	/* The sends on COMM_WORLD, not the one on another communicator. */
	assert_int_equal(count(out, "MPI_SEND", -1), 2);
	assert_int_equal(count(out, "MPI_SEND", 0), 2);
	expect_has(out, "Receiver: 1");
	expect_has(out, "Tag: 7, Length: 800");
	expect_has(out, "Tag: 9, Length: 16");
	/* MPI_Recv and the wait of the MPI_Irecv, at their leaves; not the MPI_ANY_SOURCE one. */
	assert_int_equal(count(out, "MPI_RECV", -1), 2);
	assert_int_equal(count(out, "MPI_RECV", 2), 2);
	expect_has(out, "MPI_RECV                                       2                  405  "
		   "Sender: 0");
	expect_has(out, "MPI_RECV                                       2                  430  "
		   "Sender: 0");
	assert_int_equal(count(out, "MPI_COLLECTIVE_BEGIN", 0), 1);
	assert_int_equal(count(out, "MPI_COLLECTIVE_END", 0), 1);
	assert_int_equal(count(out, "MPI_COLLECTIVE_END", 2), 1);
	/* Rank 0 is the root: it sends the 64 bytes, rank 1 receives them. */
	expect_has(out, "Operation: BCAST, Communicator: \"MPI_COMM_WORLD\" <0>, Root: 0 "
		   "(\"thread 0 app (tid 100)\" <0>), Sent: 64, Received: 0");
	expect_has(out, "Sent: 0, Received: 64");
	free(out);
	sb_profile_free(&p);
}

/* The value of metric name on location loc at time t; fails when there is none. */
static long long metric_at(const char *out, long loc, long long t, const char *name)
{
	const char *s, *v;
	long l;
	long long at;

	for (s = out; s && *s; s = strchr(s, '\n'), s = s ? s + 1 : NULL) {
		if (sscanf(s, "METRIC %ld %lld", &l, &at) != 2 || l != loc || at != t)
			continue;
		v = strstr(s, name);
		if (v && v < strchrnul(s, '\n') && (v = strstr(v, "UINT64; ")))
			return strtoll(v + 8, NULL, 10);
	}
	fail_msg("no metric %s on location %ld at %lld", name, loc, t);
	return -1;
}

static void test_counters_and_offcpu_as_metrics(void **state)
{
	struct sb_error err = { .msg = "" };
	struct sb_profile p;
	char *out, *g;

	(void)state;
	build(&p, true);
	assert_int_equal(export_to("metrics", &p, &err), 0);
	g = print("metrics", "-G");
	expect_has(g, "Name: \"instructions\" <");
	expect_has(g, "Name: \"off-CPU time\" <");
	free(g);
	out = print("metrics", "");
	/* Both classes at every enter and leave. */
	assert_int_equal(count(out, "METRIC", -1), 4 * N_CALLS);
	/*
	 * Accumulated per thread: leave minus enter is the call's own value.
	 * Thread 1 of rank 0: worker [150, 950] > solve [160, 400], 2
	 * instructions a ns and a tenth off-CPU.
	 */
	assert_int_equal(metric_at(out, 1, 160, "\"instructions\""), 0);
	assert_int_equal(metric_at(out, 1, 400, "\"instructions\""), 480);
	assert_int_equal(metric_at(out, 1, 950, "\"instructions\""), 1600);
	assert_int_equal(metric_at(out, 1, 400, "\"off-CPU time\""), 24);
	assert_int_equal(metric_at(out, 1, 950, "\"off-CPU time\""), 80);
	/* Thread 0 of rank 0: main's leave carries all its calls: 900 ns x 2. */
	assert_int_equal(metric_at(out, 0, 1000, "\"instructions\""), 1800);
	free(out);
	sb_profile_free(&p);
}

static void test_calls_that_do_not_nest_are_left_out(void **state)
{
	struct sb_error err = { .msg = "" };
	struct sb_profile p;
	char *out;

	(void)state;
	build(&p, false);
	/* Rank 0's second solve now ends after main: it overlaps main without nesting. */
	for (size_t i = 0; i < p.n_pairs; i++)
		if (p.pairs[i].region == SOLVE && p.pairs[i].rank == 0)
			p.events[p.pairs[i].offset + 2].end = 1200;
	assert_int_equal(export_to("overlap", &p, &err), 1);
	out = print("overlap", "");
	assert_int_equal(count(out, "ENTER", -1), N_CALLS - 1);
	assert_int_equal(count(out, "LEAVE", -1), N_CALLS - 1);
	free(out);
	sb_profile_free(&p);
}

/*
 * GPU work as Score-P writes CUDA: cu_add_activity's kernels, copy and memset
 * on a location per (rank, device, stream) after the threads, in an
 * accelerator location group per (rank, device) that the rank's process
 * created, as regions of paradigm CUDA. Rank 0: GPU 0 streams 7 and 9, GPU 1
 * stream 7; rank 1: GPU 0 stream 7: locations 4 to 7.
 */
static void test_gpu_work_on_a_location_per_stream(void **state)
{
	struct sb_error err = { .msg = "" };
	struct sb_profile p;
	char *out, *g;

	(void)state;
	build(&p, false);
	cu_add_activity(&p);
	/* Out of the file's order, before every call: it moves the clock's offset. */
	p.cuda.acts[4].start = 40;
	p.cuda.acts[4].end = 90;
	assert_int_equal(export_to("gpu", &p, &err), 0);
	g = print("gpu", "-G");
	expect_has(g, "Name: \"GPU 0\" <");
	expect_has(g, "Name: \"GPU 1\" <");
	expect_has(g, "System Tree Node: \"accelerator::GPU 1\" <2>, Domain: ACCELERATOR_DEVICE");
	expect_has(g, "Name: \"rank 0 GPU 1\" <8>, Type: ACCELERATOR, Parent: "
		   "\"accelerator::GPU 1\" <2>, Creator: \"rank 0\" <0>");
	expect_has(g, "Name: \"GPU 0 stream 9\" <15>, Type: ACCELERATOR_STREAM, # Events: 2, "
		   "Group: \"rank 0 GPU 0\" <2>");
	expect_has(g, "Name: \"GPU 0 stream 7\" <17>, Type: ACCELERATOR_STREAM, # Events: 2, "
		   "Group: \"rank 1 GPU 0\" <4>");
	/* Demangled, the mangled name canonical; copies by direction; all CUDA. */
	expect_has(g, "Name: \"square(float*, int)\" <28> (Aka. \"_Z6squarePfi\" <29>)");
	expect_has(g, "Name: \"plain_kernel\" <");
	expect_has(g, "Role: FUNCTION, Paradigm: CUDA");
	expect_has(g, "Name: \"memcpy HtoD\" <32> (Aka. \"memcpy HtoD\" <32>), Descr.: \"\" <18>, "
		   "Role: DATA_TRANSFER, Paradigm: CUDA");
	expect_has(g, "Name: \"memset\" <");
	expect_has(g, "Global Offset: 40");
	free(g);
	out = print("gpu", "");
	/* The threads' calls as before. */
	assert_int_equal(count(out, "ENTER", 0), 7);
	assert_int_equal(count(out, "ENTER", 2), 7);
	for (long loc = 4; loc < 8; loc++) {
		assert_int_equal(count(out, "ENTER", loc), 1);
		assert_int_equal(count(out, "LEAVE", loc), 1);
	}
	expect_has(out, "ENTER                                          4                  260  "
		   "Region: \"square(float*, int)\"");
	expect_has(out, "LEAVE                                          7                  800  "
		   "Region: \"plain_kernel\"");
	/* A copy's and a memset's size. */
	expect_has(out, "(\"bytes\" <0>; UINT64; 4194304)");
	expect_has(out, "(\"bytes\" <0>; UINT64; 512)");
	free(out);
	sb_profile_free(&p);
}

/* A stream runs one thing at a time: work that overlaps its stream's is left out and counted. */
static void test_gpu_work_that_overlaps_its_stream_is_left_out(void **state)
{
	struct sb_error err = { .msg = "" };
	struct sb_cuda_activity *v;
	struct sb_profile p;
	char *out;

	(void)state;
	build(&p, false);
	cu_add_activity(&p);
	v = realloc(p.cuda.acts, 9 * sizeof(*v));
	assert_non_null(v);
	/* Another kernel on rank 0's GPU 0 stream 7, inside the one there [260, 400]. */
	v[8] = v[1];
	v[8].start = 300;
	v[8].end = 350;
	p.cuda.acts = v;
	p.cuda.n_acts = 9;
	assert_int_equal(export_to("gpu-overlap", &p, &err), 1);
	out = print("gpu-overlap", "");
	assert_int_equal(count(out, "ENTER", 4), 1);
	assert_int_equal(count(out, "LEAVE", 4), 1);
	free(out);
	sb_profile_free(&p);
}

/*
 * Nothing at all is refused (OTF2 readers need a location); calls without a
 * thread column are one location per rank.
 */
static void test_empty_and_threadless_profiles(void **state)
{
	static const struct fx_call tree[] = {
		{ "main", 10, 100, 1, -1, 0 }, { "inner", 20, 30, 2, 1, 0 },
	};
	struct sb_error err = { .msg = "" };
	struct sb_profile p;
	char *out;

	(void)state;
	sb_profile_init(&p);
	p.events = calloc(1, sizeof(*p.events));
	assert_int_equal(export_to("nothing", &p, &err), -EINVAL);
	expect_has(err.msg, "no thread and no call");
	sb_profile_free(&p);
	fx_call_tree(&p, tree, 2, SB_COL_CALL_ID | SB_COL_PARENT_ID);
	assert_int_equal(export_to("threadless", &p, &err), 0);
	out = print("threadless", "");
	assert_int_equal(count(out, "ENTER", 0), 2);
	assert_int_equal(count(out, "LEAVE", 0), 2);
	assert_null(strstr(out, "METRIC"));
	free(out);
	sb_profile_free(&p);
}

static void test_bad_input_names_the_cause(void **state)
{
	struct sb_error err = { .msg = "" };
	struct sb_profile p;
	struct sb_event *ev;

	(void)state;
	build(&p, false);
	ev = p.events;
	p.events = NULL;
	assert_int_equal(export_to("noevents", &p, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "not loaded"));
	p.events = ev;
	p.events[0].start = -5;
	assert_int_equal(export_to("negative", &p, &err), -EINVAL);
	expect_has(err.msg, "-5 ns");
	sb_profile_free(&p);
}

/* ---- the command ---- */

/* Run cmd_export with its stderr and stdout in out; returns its status. */
static int run(int argc, char **argv, char *out, size_t len)
{
	int saved_err = dup(2), saved_out = dup(1), fd, r;
	ssize_t n;

	fflush(stderr);
	fflush(stdout);
	fd = open(tmp_path("output.txt"), O_RDWR | O_CREAT | O_TRUNC, 0600);
	assert_true(fd >= 0);
	dup2(fd, 2);
	dup2(fd, 1);
	r = cmd_export(argc, argv);
	fflush(stderr);
	fflush(stdout);
	dup2(saved_err, 2);
	dup2(saved_out, 1);
	close(saved_err);
	close(saved_out);
	n = pread(fd, out, len - 1, 0);
	out[n > 0 ? n : 0] = 0;
	close(fd);
	return r;
}

static void expect_status(int argc, char **argv, int status, const char *needle)
{
	char out[2048];
	int r = run(argc, argv, out, sizeof(out));

	if (r != status)
		fail_msg("exit %d, not %d: %s", r, status, out);
	if (needle && !strstr(out, needle))
		fail_msg("output '%s' does not mention '%s'", out, needle);
}

static void write_profile(struct sb_profile *p)
{
	build(p, false);
}

static void test_command_writes_a_new_or_empty_directory_only(void **state)
{
	char h5[512], def[512], empty[512], full[512], file[512];
	char *plain[] = { "export", "otf2", h5 };
	char *into_empty[] = { "export", "otf2", h5, "-o", empty };
	char *into_full[] = { "export", "otf2", h5, "-o", full };
	char *onto_file[] = { "export", "otf2", h5, "-o", file };
	char *to_stdout[] = { "export", "otf2", h5, "-o", "-" };
	char *out;
	FILE *f;

	(void)state;
	snprintf(h5, sizeof(h5), "%s", tmp_path("cli.h5"));
	snprintf(def, sizeof(def), "%s", tmp_path("cli-otf2"));
	snprintf(empty, sizeof(empty), "%s", tmp_path("empty"));
	snprintf(full, sizeof(full), "%s", tmp_path("full"));
	snprintf(file, sizeof(file), "%s", tmp_path("afile"));
	fx_write_built(h5, write_profile);
	expect_status(ARGC(plain), plain, 0, def);
	out = print("cli-otf2", "");
	assert_int_equal(count(out, "ENTER", -1), N_CALLS);
	free(out);
	assert_int_equal(mkdir(empty, 0700), 0);
	expect_status(ARGC(into_empty), into_empty, 0, empty);
	assert_int_equal(access(tmp_path("empty/traces.otf2"), R_OK), 0);
	/* An archive already there is never mixed with a new one. */
	expect_status(ARGC(plain), plain, 2, "cli-otf2: the directory is not empty");
	assert_int_equal(mkdir(full, 0700), 0);
	f = fopen(tmp_path("full/keep"), "w");
	assert_non_null(f);
	fclose(f);
	expect_status(ARGC(into_full), into_full, 2, "is not empty");
	assert_int_equal(access(tmp_path("full/keep"), F_OK), 0);
	assert_int_equal(access(tmp_path("full/traces.otf2"), F_OK), -1);
	f = fopen(file, "w");
	assert_non_null(f);
	fclose(f);
	expect_status(ARGC(onto_file), onto_file, 2, "is not a directory");
	expect_status(ARGC(to_stdout), to_stdout, 2, "otf2 writes a directory");
	/* Nothing half-written left behind. */
	assert_int_equal(count_tmp_files(), 0);
}

static void test_command_bad_profile_exit_2_naming_it(void **state)
{
	char *junk = tmp_path("junk.h5");
	char *argv[] = { "export", "otf2", junk, "-o", tmp_path("junk-out") };
	FILE *f = fopen(junk, "w");

	(void)state;
	assert_non_null(f);
	fputs("not a profile\n", f);
	fclose(f);
	expect_status(ARGC(argv), argv, 2, junk);
	assert_int_equal(access(tmp_path("junk-out"), F_OK), -1);
	assert_int_equal(count_tmp_files(), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_enter_leave_per_location_and_nesting),
		cmocka_unit_test(test_definitions_regions_locations_clock),
		cmocka_unit_test(test_mpi_messages_and_collectives),
		cmocka_unit_test(test_counters_and_offcpu_as_metrics),
		cmocka_unit_test(test_calls_that_do_not_nest_are_left_out),
		cmocka_unit_test(test_gpu_work_on_a_location_per_stream),
		cmocka_unit_test(test_gpu_work_that_overlaps_its_stream_is_left_out),
		cmocka_unit_test(test_empty_and_threadless_profiles),
		cmocka_unit_test(test_bad_input_names_the_cause),
		cmocka_unit_test(test_command_writes_a_new_or_empty_directory_only),
		cmocka_unit_test(test_command_bad_profile_exit_2_naming_it),
	};

	return cmocka_run_group_tests(tests, tmp_setup, tmp_teardown);
}
#endif
