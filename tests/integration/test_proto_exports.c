/* Integration: a real recording with samples, exported as Perfetto and pprof files, decoded by protoc. */
#include "harness.h"
#include "unit/pb_text.h"

static int export_kind(const char *kind, const char *profile, const char *out)
{
	char *argv[] = { (char *)scope_bin(), "export", (char *)kind, (char *)profile, "-o",
			 (char *)out, NULL };

	return run(argv);
}

/* Every call is a begin and an end; every name is interned on its sequence before use. */
static void check_trace(const struct sb_profile *p, const char *path)
{
	const struct pbt *pk, *ev;
	uint64_t begins = 0, ends = 0;
	struct pbt trace;
	size_t i;

	pbt_decode(&trace, "perfetto.protos.Trace", "perfetto_trace.proto", path);
	for (i = 0; i < trace.n; i++) {
		pk = &trace.kids[i];
		ev = pbt_get(pk, "track_event");
		if (!ev)
			continue;
		if (!strcmp(pbt_str(ev, "type"), "TYPE_SLICE_BEGIN"))
			begins++;
		else if (!strcmp(pbt_str(ev, "type"), "TYPE_SLICE_END"))
			ends++;
	}
	assert_int_equal(begins, p->n_events);
	assert_int_equal(ends, p->n_events);
	pbt_free(&trace);
}

/* The values add up to the profile's samples; hot_a's samples read "A > ... > hot_a". */
static void check_profile(const struct sb_profile *p, const char *gz, const char *raw)
{
	const struct pbt *sm, *ids;
	uint64_t want[2] = { 0, 0 }, got[2] = { 0, 0 }, hot_a = 0;
	struct pbt prof;
	size_t i, n;

	for (i = 0; i < p->samples.n_samples; i++) {
		want[0] += p->samples.samples[i].kind == SB_SAMPLE_CPU ? p->samples.samples[i].count : 0;
		want[1] += p->samples.samples[i].kind == SB_SAMPLE_OFFCPU ? p->samples.samples[i].ns : 0;
	}
	assert_true(want[0] > 0 && want[1] > 0);	/* both kinds: two values a sample */
	pbt_gunzip(gz, raw);
	pbt_decode(&prof, "perftools.profiles.Profile", "profile.proto", raw);
	assert_string_equal(pbt_nth(&prof, "string_table", 0)->val, "");
	for (i = 0; (sm = pbt_nth(&prof, "sample", i)); i++) {
		got[0] += (uint64_t)strtoll(pbt_nth(sm, "value", 0)->val, NULL, 10);
		got[1] += (uint64_t)strtoll(pbt_nth(sm, "value", 1)->val, NULL, 10);
		for (n = 0; (ids = pbt_nth(sm, "location_id", n)); n++)
			pprof_location_name(&prof, strtoll(ids->val, NULL, 10));
		ids = pbt_nth(sm, "location_id", n - 1);
		if (!strcmp(pprof_location_name(&prof, strtoll(ids->val, NULL, 10)), "A") &&
		    strstr(pprof_location_name(&prof, strtoll(pbt_nth(sm, "location_id", 0)->val,
							      NULL, 10)), "hot_a"))
			hot_a += (uint64_t)strtoll(pbt_nth(sm, "value", 0)->val, NULL, 10);
	}
	assert_int_equal(got[0], want[0]);
	assert_int_equal(got[1], want[1]);
	/* ~300 ms at 999 Hz in A, nearly all of it in hot_a (test_sampling.c). */
	assert_true(hot_a >= 100);
	pbt_free(&prof);
}

static void test_recording_exports_decode_and_add_up(void **state)
{
	char h5[300], trace[300], gz[300], raw[300], path[512];
	char *argv[] = { (char *)scope_bin(), "record", "-q", "--sample=999", "--offcpu-stacks",
			 "-o", (char *)tmp_file("p.h5", h5, sizeof(h5)), "--", NULL, "300", NULL };
	struct sb_profile p;

	(void)state;
	require_bpf();
	argv[8] = (char *)app_path("hotspots", path, sizeof(path));
	assert_int_equal(run(argv), 0);
	load_profile(h5, &p);
	assert_true(p.samples.n_samples > 0);
	assert_int_equal(export_kind("perfetto", h5, tmp_file("p.pftrace", trace, sizeof(trace))), 0);
	check_trace(&p, trace);
	assert_int_equal(export_kind("pprof", h5, tmp_file("p.pb.gz", gz, sizeof(gz))), 0);
	check_profile(&p, gz, tmp_file("p.pb", raw, sizeof(raw)));
	sb_profile_free(&p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_recording_exports_decode_and_add_up),
	};

	return cmocka_run_group_tests_name("proto exports", tests, setup_tmp, teardown_tmp);
}
