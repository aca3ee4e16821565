/*
 * Integration: record tests/apps/cuda_host.c, launched (with libcudart, and
 * with the runtime linked in) and with -p, and check
 * every CUDA runtime call it makes is one region call, named per
 * docs/CUDA.md's grammar (kernel, grid, block, stream, bytes, copy kind),
 * nested in the user region around it. Built only where the CUDA toolkit is
 * (tests/apps/apps.mk); no GPU needed: the calls fail, the probes see them.
 */
#include "harness.h"

#define CUDA_CALLS 15		/* every call the app makes, tests/apps/cuda_host.c */
#define GPU_LINE "GPU execution times need `scope-bpf record --cuda -- CMD` at launch"

/* Whether the app has its markers: without, every call is at top level. */
static bool marked = true;

/* The calls of the region named exactly name, all nested in parent (NULL: top level). */
static void expect(const struct sb_profile *p, const char *name, uint64_t calls,
		   const char *parent)
{
	const struct sb_pair *pair = must_pair(p, name, 0);
	const char *got;
	size_t i;

	assert_int_equal(pair->count, calls);
	for (i = pair->offset; i < pair->offset + pair->count; i++) {
		got = parent_region(p, 0, &p->events[i]);
		if (parent && marked)
			assert_string_equal(got, parent);
		else
			assert_null(got);
	}
}

static const struct sb_region *region(const struct sb_profile *p, const char *name)
{
	size_t i;

	for (i = 0; i < p->n_regions; i++) {
		if (!strcmp(p->regions[i].name, name))
			return &p->regions[i];
	}
	fail_msg("no region '%s'", name);
	return NULL;
}

static void check_calls(const struct sb_profile *p)
{
	const char *launch = "cuda:launch kernel=_Z6scalePfi grid=64x1x1 block=256x1x1 stream=0";
	const struct sb_pair *upload;
	uint64_t calls = 0, children = 0;
	size_t i;

	expect(p, "cuda:malloc bytes=1048576", 1, "alloc");
	expect(p, "cuda:memcpy bytes=4096 kind=host-to-device", 3, "upload");
	expect(p, "cuda:memset bytes=2048", 1, "upload");
	expect(p, launch, 2, "compute");
	expect(p, "cuda:launch kernel=_Z4fillPffi grid=8x4x2 block=32x8x1 stream=1", 1, "compute");
	expect(p, "cuda:memset_async bytes=256 stream=1", 1, "compute");
	expect(p, "cuda:memcpy_async bytes=1024 kind=device-to-host stream=1", 1, "download");
	expect(p, "cuda:stream_synchronize stream=1", 1, "download");
	expect(p, "cuda:memcpy bytes=4096 kind=device-to-host", 1, "download");
	expect(p, "cuda:device_synchronize", 1, "finish");
	expect(p, "cuda:event_synchronize", 1, "finish");
	expect(p, "cuda:free", 1, NULL);
	assert_string_equal(region(p, launch)->tags,
			    "[\"cuda\",\"cuda.operation:launch\",\"cuda.kernel:_Z6scalePfi\","
			    "\"cuda.grid:64x1x1\",\"cuda.block:256x1x1\",\"cuda.stream:0\"]");
	assert_string_equal(region(p, "cuda:memcpy bytes=4096 kind=host-to-device")->tags,
			    "[\"cuda\",\"cuda.operation:memcpy\",\"cuda.bytes:4096\","
			    "\"cuda.copy_kind:host-to-device\"]");
	/* Exactly the calls made: none counted twice (the _ptsz forms, calls inside calls). */
	for (i = 0; i < p->n_pairs; i++) {
		if (!strncmp(p->regions[p->pairs[i].region].name, "cuda:", 5))
			calls += p->pairs[i].count;
	}
	assert_int_equal(calls, CUDA_CALLS);
	assert_int_equal(meta_int(p, "lost_events"), 0);
	if (!marked)
		return;
	/* The user region's own time is what its CUDA calls left. */
	upload = must_pair(p, "upload", 0);
	for (i = 0; i < p->n_pairs; i++) {
		if (!strncmp(p->regions[p->pairs[i].region].name, "cuda:mem", 8) &&
		    !strcmp(parent_region(p, 0, &p->events[p->pairs[i].offset]), "upload"))
			children += (uint64_t)p->pairs[i].stats.total;
	}
	assert_int_equal(upload->exclusive_total, upload->stats.total - (int64_t)children);
}

static void test_launched_calls_are_regions(void **state)
{
	struct sb_profile p;
	char out[300];

	(void)state;
	require_bpf();
	assert_int_equal(record_app(tmp_file("launched.h5", out, sizeof(out)), "cuda_host", NULL),
			 0);
	load_profile(out, &p);
	check_calls(&p);
	sb_profile_free(&p);
}

/* A program with the runtime linked in (nvcc's default): its own functions are probed. */
static void test_linked_in_runtime_calls_are_regions(void **state)
{
	struct sb_profile p;
	char out[300];

	(void)state;
	require_bpf();
	assert_int_equal(record_app(tmp_file("static.h5", out, sizeof(out)), "cuda_host_static",
				    NULL), 0);
	load_profile(out, &p);
	check_calls(&p);
	sb_profile_free(&p);
}

static int count_lines_with(const char *path, const char *text)
{
	char line[1024];
	FILE *f = fopen(path, "r");
	int n = 0;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		n += strstr(line, text) != NULL;
	fclose(f);
	return n;
}

/* record -p of app, already running with libcudart mapped: the same regions, and one line. */
static void record_attached(const char *app_name)
{
	char app[512], go[300], out[300], err[400], err_name[64], pidstr[16], line[64];
	char *app_argv[] = { (char *)app_path(app_name, app, sizeof(app)),
			     (char *)tmp_file("go", go, sizeof(go)), NULL };
	char *rec_argv[] = { (char *)scope_bin(), "record", "-p", pidstr, "-o",
			     (char *)tmp_file("attached.h5", out, sizeof(out)), NULL };
	char text[4096];
	struct sb_profile p;
	pid_t pid, rec;
	int fd = -1, status;
	FILE *f;

	/* Each test its own file: a line left by another would be found at once. */
	snprintf(err_name, sizeof(err_name), "%s.err", app_name);
	tmp_file(err_name, err, sizeof(err));
	unlink(go);
	pid = spawn(app_argv, NULL, &fd);
	f = fdopen(fd, "r");
	assert_non_null(f);
	assert_non_null(fgets(line, sizeof(line), f));
	assert_string_equal(line, "ready\n");
	fclose(f);
	snprintf(pidstr, sizeof(pidstr), "%d", (int)pid);
	rec = spawn(rec_argv, err, NULL);
	if (!wait_for_text(err, GPU_LINE)) {
		kill(pid, SIGKILL);
		kill(rec, SIGTERM);
		fail_msg("record -p never said that GPU times need --cuda");
	}
	/* Recording begins once every source has looked at the process, right after the line. */
	sleep_ms(1000);
	fclose(fopen(go, "w"));
	assert_int_equal(wait_status(pid), 0);
	status = wait_status(rec);
	if (status)
		fail_msg("record -p exited with %d: %s", status, file_text(err, text, sizeof(text)));
	assert_int_equal(count_lines_with(err, GPU_LINE), 1);
	load_profile(out, &p);
	check_calls(&p);
	sb_profile_free(&p);
}

static void test_attached_calls_are_regions(void **state)
{
	(void)state;
	require_bpf();
	record_attached("cuda_host");
}

/* Most CUDA programs have no markers: record -p records their CUDA calls all the same. */
static void test_attached_program_without_markers(void **state)
{
	(void)state;
	require_bpf();
	marked = false;
	record_attached("cuda_host_unmarked");
	marked = true;
}

static void test_no_cuda_host_records_only_user_regions(void **state)
{
	char out[300], err[4096];
	struct sb_profile p;
	size_t i;

	(void)state;
	require_bpf();
	{
		char app[512], *argv[] = { (char *)scope_bin(), "record", "-o",
					   (char *)tmp_file("no_cuda.h5", out, sizeof(out)),
					   "--no-cuda-host", "--",
					   (char *)app_path("cuda_host", app, sizeof(app)), NULL };

		assert_int_equal(run(argv), 0);
	}
	read_stderr(err, sizeof(err));
	assert_null(strstr(err, GPU_LINE));
	load_profile(out, &p);
	for (i = 0; i < p.n_regions; i++)
		assert_true(strncmp(p.regions[i].name, "cuda:", 5) != 0);
	assert_int_equal(must_pair(&p, "upload", 0)->count, 1);
	assert_int_equal(must_pair(&p, "upload", 0)->exclusive_total,
			 must_pair(&p, "upload", 0)->stats.total);
	sb_profile_free(&p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_launched_calls_are_regions),
		cmocka_unit_test(test_linked_in_runtime_calls_are_regions),
		cmocka_unit_test(test_attached_calls_are_regions),
		cmocka_unit_test(test_attached_program_without_markers),
		cmocka_unit_test(test_no_cuda_host_records_only_user_regions),
	};

	return cmocka_run_group_tests_name("cuda_host", tests, setup_tmp, teardown_tmp);
}
