/* Two real recordings into one profile: record -o %h/%p, the clock readings, scope-bpf merge. */
#include <sys/utsname.h>

#include <hdf5.h>

#include "harness.h"
#include "io/h5write.h"

#define SHIFT 5000000000LL	/* the second node's clock, 5 s behind the first's */

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
		cmocka_unit_test(test_conflicting_ranks_are_refused),
	};

	return cmocka_run_group_tests(tests, setup_tmp, teardown_tmp);
}
