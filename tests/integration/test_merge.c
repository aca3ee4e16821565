/* Two real recordings into one profile: record -o %h/%p, the clock readings, scope-bpf merge. */
#include <sys/utsname.h>

#include <hdf5.h>

#include "harness.h"
#include "io/h5write.h"

#define SHIFT 5000000000LL	/* the second node's clock, 5 s behind the first's */
#define NODE_D 3000000000000LL	/* sb_shift_clock's node: its clock reads 3000 s more */
#define NTP_E (20 * MS)		/* that node's realtime offset, this far wrong */
#define SYNC_TOL (4 * MS)	/* a barrier's exits after its last entry, on a loaded machine */

/*
 * Replace attribute key of /metadata in the HDF5 file at path with v of type t.
 * Through the group: HDF5 1.10 cannot write an attribute opened by path name.
 */
static void set_meta(const char *path, const char *key, hid_t t, const void *v)
{
	hid_t f = H5Fopen(path, H5F_ACC_RDWR, H5P_DEFAULT), g, a, s;

	assert_true(f >= 0);
	g = H5Gopen2(f, "metadata", H5P_DEFAULT);
	assert_true(g >= 0);
	assert_true(H5Adelete(g, key) >= 0);
	s = H5Screate(H5S_SCALAR);
	a = H5Acreate2(g, key, t, s, H5P_DEFAULT, H5P_DEFAULT);
	assert_true(a >= 0);
	assert_true(H5Awrite(a, t, v) >= 0);
	H5Aclose(a);
	H5Sclose(s);
	H5Gclose(g);
	H5Fclose(f);
}

static void set_meta_int(const char *path, const char *key, int64_t v)
{
	set_meta(path, key, H5T_NATIVE_INT64, &v);
}

static void set_meta_str(const char *path, const char *key, const char *v)
{
	hid_t t = sb_h5_str_type();

	set_meta(path, key, t, &v);
	H5Tclose(t);
}

/* Every value of the integer dataset name that is from becomes to: a rank renumbered. */
static void renumber(hid_t f, const char *name, int64_t from, int64_t to)
{
	hid_t d = H5Dopen2(f, name, H5P_DEFAULT), s;
	hssize_t n, i;
	int64_t *v;

	assert_true(d >= 0);
	s = H5Dget_space(d);
	n = H5Sget_simple_extent_npoints(s);
	v = calloc((size_t)n + 1, sizeof(*v));
	assert_non_null(v);
	assert_true(H5Dread(d, H5T_NATIVE_INT64, H5S_ALL, H5S_ALL, H5P_DEFAULT, v) >= 0);
	for (i = 0; i < n; i++)
		v[i] = v[i] == from ? to : v[i];
	assert_true(H5Dwrite(d, H5T_NATIVE_INT64, H5S_ALL, H5S_ALL, H5P_DEFAULT, v) >= 0);
	free(v);
	H5Sclose(s);
	H5Dclose(d);
}

/* The profile at path as if recorded as rank 1 on another node, SHIFT behind ref's clock. */
static void make_other_node(const char *path, const char *ref)
{
	struct sb_profile p;
	hid_t f;

	load_profile(ref, &p);
	f = H5Fopen(path, H5F_ACC_RDWR, H5P_DEFAULT);
	assert_true(f >= 0);
	renumber(f, "rank_region_index/ranks", 0, 1);
	renumber(f, "thread_table/ranks", 0, 1);
	renumber(f, "scope_bpf/processes/rank", 0, 1);
	H5Fclose(f);
	set_meta_str(path, "boot_id", "another-boot");
	set_meta_str(path, "hostname", "node2");
	set_meta_int(path, "clock_realtime_minus_monotonic_start_ns",
		     meta_int(&p, "clock_realtime_minus_monotonic_start_ns") + SHIFT);
	set_meta_int(path, "clock_realtime_minus_monotonic_end_ns",
		     meta_int(&p, "clock_realtime_minus_monotonic_end_ns") + SHIFT);
	sb_profile_free(&p);
}

static int merge(const char *a, const char *b, const char *out)
{
	char *argv[] = { (char *)scope_bin(), "merge", (char *)a, (char *)b, "-o", (char *)out,
			 NULL };

	return run(argv);
}

/* record -o rec.%h.%p.%r.%%.h5: short host name, recorder's pid, the launcher's rank. */
static void test_output_name_is_expanded(void **state)
{
	char tmpl[300], want[400], err[300], app[300];
	char *argv[] = { (char *)scope_bin(), "record", "-q", "-o", tmpl, "--",
			 (char *)app_path("nested", app, sizeof(app)), NULL };
	struct utsname u;
	pid_t pid;

	(void)state;
	require_bpf();
	assert_int_equal(uname(&u), 0);
	u.nodename[strcspn(u.nodename, ".")] = 0;
	tmp_file("rec.%h.%p.%r.%%.h5", tmpl, sizeof(tmpl));
	/* What mpiexec (Hydra) tells rank 3; the recorder and its command both see it. */
	assert_int_equal(setenv("PMI_RANK", "3", 1), 0);
	pid = spawn(argv, tmp_file("stderr.txt", err, sizeof(err)), NULL);
	unsetenv("PMI_RANK");
	assert_true(pid > 0);
	assert_int_equal(wait_status(pid), 0);
	snprintf(want, sizeof(want), "%s/rec.%s.%d.3.%%.h5", tmp_dir, u.nodename, (int)pid);
	if (access(want, F_OK))
		fail_msg("%s was not written", want);
}

/* The clock readings merge needs: real time - monotonic, at start and end, and the boot. */
static void test_recording_reads_the_clocks(void **state)
{
	char out[300];
	struct sb_profile p;
	struct timespec rt;
	int64_t s, e, now;

	(void)state;
	require_bpf();
	assert_int_equal(record_app(tmp_file("clock.h5", out, sizeof(out)), "nested", NULL), 0);
	clock_gettime(CLOCK_REALTIME, &rt);
	now = rt.tv_sec * 1000000000LL + rt.tv_nsec;
	load_profile(out, &p);
	s = meta_int(&p, "clock_realtime_minus_monotonic_start_ns");
	e = meta_int(&p, "clock_realtime_minus_monotonic_end_ns");
	/* One clock pair read twice: the same within NTP's slew, and it gives today's time. */
	assert_true(llabs(e - s) < 10 * MS);
	assert_true(llabs(meta_int(&p, "finalize_time_ns") + e - now) < 60000 * MS);
	assert_non_null(sb_profile_meta(&p, "boot_id"));
	sb_profile_free(&p);
}

/* Two runs, ranks 0 and 1 of two nodes: one profile, node 2's calls moved by its clock. */
static void test_two_recordings_merge(void **state)
{
	char a[300], b[300], m[300];
	struct sb_profile pa, pb, pm;
	const struct sb_pair *q, *r;
	size_t i, k;

	(void)state;
	require_bpf();
	assert_int_equal(record_app(tmp_file("a.h5", a, sizeof(a)), "nested", NULL), 0);
	assert_int_equal(record_app(tmp_file("b.h5", b, sizeof(b)), "threads", NULL), 0);
	make_other_node(b, a);
	assert_int_equal(merge(a, b, tmp_file("m.h5", m, sizeof(m))), 0);
	load_profile(a, &pa);
	load_profile(b, &pb);
	load_profile(m, &pm);
	assert_int_equal(pm.n_events, pa.n_events + pb.n_events);
	assert_int_equal(pm.n_threads, pa.n_threads + pb.n_threads);
	assert_int_equal(pm.n_processes, pa.n_processes + pb.n_processes);
	assert_int_equal(meta_int(&pm, "num_nodes"), 2);
	assert_int_equal(meta_int(&pm, "mpi_size"), 2);
	assert_int_equal(meta_int(&pm, "merge_clock_shift_ns_1"), SHIFT);
	for (i = 0; i < pb.n_pairs; i++) {
		q = &pb.pairs[i];
		r = must_pair(&pm, pb.regions[q->region].name, 1);
		assert_int_equal(r->count, q->count);
		for (k = 0; k < q->count; k++) {
			assert_int_equal(pm.events[r->offset + k].start,
					 pb.events[q->offset + k].start + SHIFT);
			assert_int_equal(pm.events[r->offset + k].call_id,
					 pb.events[q->offset + k].call_id);
		}
	}
	for (i = 0; i < pa.n_pairs; i++)
		assert_int_equal(must_pair(&pm, pa.regions[pa.pairs[i].region].name, 0)->count,
				 pa.pairs[i].count);
	sb_profile_free(&pa);
	sb_profile_free(&pb);
	sb_profile_free(&pm);
}

/* record -- mpiexec -n 4 mpi_ranks: rank 0 comes to the barrier 30 ms after the others. */
static void record_mpi_ranks(const char *out)
{
	char app[300];
	char *argv[] = { (char *)scope_bin(), "record", "-q", "-o", (char *)out, "--",
			 (char *)mpiexec_mpich(), "-n", "4",
			 (char *)app_path("mpi_ranks", app, sizeof(app)), NULL };

	assert_int_equal(run(argv), 0);
}

/* sb_shift_clock --ranks RANKS --shift D --skew E IN OUT: as recorded on another node. */
static void shift_clock(const char *in, const char *out, const char *ranks, int64_t d, int64_t e)
{
	char tool[300], ds[32], es[32];
	char *argv[] = { (char *)tool_path("sb_shift_clock", tool, sizeof(tool)), "--ranks",
			 (char *)ranks, "--shift", ds, "--skew", es, (char *)in, (char *)out, NULL };

	snprintf(ds, sizeof(ds), "%lld", (long long)d);
	snprintf(es, sizeof(es), "%lld", (long long)e);
	assert_int_equal(run(argv), 0);
}

/* The MPI region of rank that starts with op ("mpi:barrier "). */
static const struct sb_pair *mpi_pair(const struct sb_profile *p, const char *op, uint32_t rank)
{
	size_t i;

	for (i = 0; i < p->n_pairs; i++)
		if (p->pairs[i].rank == rank && !strncmp(p->regions[p->pairs[i].region].name, op,
							  strlen(op)))
			return &p->pairs[i];
	fail_msg("rank %u has no %s call", rank, op);
	return NULL;
}

static const char *meta_text(const struct sb_profile *p, const char *key)
{
	const struct sb_meta *m = sb_profile_meta(p, key);

	if (!m || m->is_int || !m->s)
		fail_msg("no text metadata %s", key);
	return m->s;
}

/* Each rank's MPI_Init exit and MPI_Finalize entry, as its calls say, in the metadata. */
static void test_recording_marks_mpi_init_and_finalize(void **state)
{
	const struct sb_pair *init, *fin;
	char out[300], want[200];
	struct sb_profile p;
	uint32_t r;

	(void)state;
	require_bpf();
	record_mpi_ranks(tmp_file("marks.h5", out, sizeof(out)));
	load_profile(out, &p);
	for (r = 0; r < 4; r++) {
		init = mpi_pair(&p, "mpi:init", r);
		fin = mpi_pair(&p, "mpi:finalize ", r);
		assert_true(init->stats.start_minimum + init->stats.first < fin->stats.start_minimum);
		snprintf(want, sizeof(want),
			 "{\"rank\": %u, \"init_exit_ns\": %lld, \"finalize_entry_ns\": %lld}", r,
			 (long long)(init->stats.start_minimum + init->stats.first),
			 (long long)fin->stats.start_minimum);
		if (!strstr(meta_text(&p, "mpi_rank_times"), want))
			fail_msg("missing %s in %s", want, meta_text(&p, "mpi_rank_times"));
	}
	sb_profile_free(&p);
}

/*
 * One run split as two nodes would have recorded it: ranks 1-3 here, rank 0
 * on a node whose clock reads NODE_D more. Merged, every call is back where
 * it was, to the nanosecond, and the collectives agreed with the offsets.
 */
static void test_shifted_node_merges_back_exactly(void **state)
{
	char run_h5[300], a[300], b[300], m[300];
	struct sb_profile pr, pm;
	const struct sb_pair *q, *t;
	size_t i, k;

	(void)state;
	require_bpf();
	record_mpi_ranks(tmp_file("run.h5", run_h5, sizeof(run_h5)));
	shift_clock(run_h5, tmp_file("a.h5", a, sizeof(a)), "1-3", 0, 0);
	shift_clock(run_h5, tmp_file("b.h5", b, sizeof(b)), "0", NODE_D, 0);
	assert_int_equal(merge(a, b, tmp_file("m.h5", m, sizeof(m))), 0);
	load_profile(run_h5, &pr);
	load_profile(m, &pm);
	assert_int_equal(meta_int(&pm, "merge_clock_shift_ns_1"), -NODE_D);
	assert_string_equal(meta_text(&pm, "merge_clock_method_1"),
			    "realtime offsets, within the collective bounds");
	assert_int_equal(pm.n_events, pr.n_events);
	assert_string_equal(meta_text(&pm, "mpi_rank_times"), meta_text(&pr, "mpi_rank_times"));
	for (i = 0; i < pr.n_pairs; i++) {
		q = &pr.pairs[i];
		t = must_pair(&pm, pr.regions[q->region].name, q->rank);
		assert_int_equal(t->count, q->count);
		for (k = 0; k < q->count; k++) {
			assert_int_equal(pm.events[t->offset + k].start, pr.events[q->offset + k].start);
			assert_int_equal(pm.events[t->offset + k].end, pr.events[q->offset + k].end);
		}
	}
	sb_profile_free(&pr);
	sb_profile_free(&pm);
}

/* The clock_estimate_ns of input i in merge_inputs. */
static int64_t estimate_of(const struct sb_profile *p, int i)
{
	const char *at = meta_text(p, "merge_inputs");

	for (; i >= 0 && at; i--)
		at = strstr(at + 1, "\"clock_estimate_ns\": ");
	assert_non_null(at);
	return strtoll(at + strlen("\"clock_estimate_ns\": "), NULL, 10);
}

/*
 * The same, with rank 0's node's realtime offset NTP_E wrong: the offsets
 * alone would put its calls NTP_E late; rank 0 came to the barrier last, so
 * the others cannot have left it before it came, and its barrier exit lands
 * within SYNC_TOL of where it was.
 */
static void test_wrong_realtime_offset_is_refined_by_collectives(void **state)
{
	char run_h5[300], a[300], b[300], m[300];
	struct sb_profile pr, pm;
	int64_t was, now;

	(void)state;
	require_bpf();
	record_mpi_ranks(tmp_file("ntp.h5", run_h5, sizeof(run_h5)));
	shift_clock(run_h5, tmp_file("ntp_a.h5", a, sizeof(a)), "1-3", 0, 0);
	shift_clock(run_h5, tmp_file("ntp_b.h5", b, sizeof(b)), "0", NODE_D, NTP_E);
	assert_int_equal(merge(a, b, tmp_file("ntp_m.h5", m, sizeof(m))), 0);
	load_profile(run_h5, &pr);
	load_profile(m, &pm);
	/* Unrefined, every call of rank 0 would be NTP_E off. */
	assert_int_equal(estimate_of(&pm, 1), -NODE_D + NTP_E);
	assert_non_null(strstr(meta_text(&pm, "merge_clock_method_1"), "upper collective bound"));
	was = mpi_pair(&pr, "mpi:barrier ", 0)->stats.end_maximum;
	now = mpi_pair(&pm, "mpi:barrier ", 0)->stats.end_maximum;
	if (llabs(now - was) > SYNC_TOL)
		fail_msg("rank 0 left the barrier %lld ns from where it did", (long long)(now - was));
	assert_int_equal(now - was, meta_int(&pm, "merge_clock_shift_ns_1") + NODE_D);
	sb_profile_free(&pr);
	sb_profile_free(&pm);
}

/* Two runs that are both rank 0: refused, naming both files, nothing written. */
static void test_conflicting_ranks_are_refused(void **state)
{
	char a[300], b[300], m[300], err[1024];

	(void)state;
	require_bpf();
	assert_int_equal(record_app(tmp_file("c0.h5", a, sizeof(a)), "nested", NULL), 0);
	assert_int_equal(record_app(tmp_file("c1.h5", b, sizeof(b)), "nested", NULL), 0);
	assert_int_equal(merge(a, b, tmp_file("cm.h5", m, sizeof(m))), 2);
	read_stderr(err, sizeof(err));
	assert_non_null(strstr(err, a));
	assert_non_null(strstr(err, b));
	assert_non_null(strstr(err, "rank 0"));
	assert_int_equal(access(m, F_OK), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_output_name_is_expanded),
		cmocka_unit_test(test_recording_reads_the_clocks),
		cmocka_unit_test(test_two_recordings_merge),
		cmocka_unit_test(test_recording_marks_mpi_init_and_finalize),
		cmocka_unit_test(test_shifted_node_merges_back_exactly),
		cmocka_unit_test(test_wrong_realtime_offset_is_refined_by_collectives),
		cmocka_unit_test(test_conflicting_ranks_are_refused),
	};

	return cmocka_run_group_tests(tests, setup_tmp, teardown_tmp);
}
