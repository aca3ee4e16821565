/* Unit tests of what reading a scope-profiler JSON file costs in memory: about twice its calls' rows at the peak. */
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fixtures.h"

#include "io/profile_read.h"

#define CALLS 65	/* per region: one past a power of two, where doubling leaves most unused */
#define REGIONS 4000
/*
 * The calls are held twice while they are laid out (as listed, then in
 * order): 2 rows a call, and less than one for everything else. Holding the
 * text or doubling the lists' room as well came to 3.5.
 */
#ifdef __SANITIZE_ADDRESS__
/*
 * ASan pads every block and keeps freed ones in quarantine (4.4 rows seen):
 * a looser bound, which still catches a reader that holds the calls again.
 */
#define MAX_ROWS_A_CALL 6.0
#else
#define MAX_ROWS_A_CALL 3.0
#endif

/* regions regions of CALLS calls each, as scope-profiler writes them. */
static void write_json(const char *path, size_t regions)
{
	FILE *f = fopen(path, "w");
	size_t i, k;

	assert_non_null(f);
	fputs("{\"format\":\"scope-profiler-profile\",\"format_version\":1,"
	      "\"time_unit\":\"nanoseconds\",\"regions\":[", f);
	for (i = 0; i < regions; i++) {
		fprintf(f, "%s{\"name\":\"region_%zu\",\"rank\":0,\"start_times_ns\":[", i ? "," : "",
			i);
		for (k = 0; k < CALLS; k++)
			fprintf(f, "%s%zu", k ? "," : "", 100 * (i * CALLS + k));
		fputs("],\"end_times_ns\":[", f);
		for (k = 0; k < CALLS; k++)
			fprintf(f, "%s%zu", k ? "," : "", 100 * (i * CALLS + k) + 50);
		fputs("]}", f);
	}
	fputs("]}", f);
	assert_int_equal(fclose(f), 0);
}

/* The peak resident size, in bytes, of a child that reads path. */
static double peak_reading(const char *path)
{
	struct sb_error err = { .msg = "" };
	struct sb_profile p;
	struct rusage ru;
	int fd[2], status;
	long kib = 0;
	pid_t pid;

	assert_int_equal(pipe(fd), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (!pid) {
		close(fd[0]);
		if (sb_profile_read(path, &p, &err))
			_exit(1);
		getrusage(RUSAGE_SELF, &ru);
		kib = ru.ru_maxrss;
		_exit(write(fd[1], &kib, sizeof(kib)) == sizeof(kib) ? 0 : 1);
	}
	close(fd[1]);
	assert_int_equal(read(fd[0], &kib, sizeof(kib)), sizeof(kib));
	close(fd[0]);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status) && !WEXITSTATUS(status));
	return 1024.0 * (double)kib;
}

/*
 * What 2n regions cost more than n, so the test's own memory and the
 * allocator's start-up cancel out.
 */
static void test_calls_cost_about_two_rows_at_the_peak(void **state)
{
	const char *one = tmp_path("one.json"), *two = tmp_path("two.json");
	double per_call;

	(void)state;
	write_json(one, REGIONS);
	write_json(two, 2 * REGIONS);
	per_call = (peak_reading(two) - peak_reading(one)) / (REGIONS * CALLS);
	print_message("%.0f bytes a call at the peak (a row is %zu)\n", per_call,
		      sizeof(struct sb_event));
	if (per_call > MAX_ROWS_A_CALL * sizeof(struct sb_event))
		fail_msg("%.0f bytes a call, more than %.1f rows of %zu", per_call,
			 MAX_ROWS_A_CALL, sizeof(struct sb_event));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_calls_cost_about_two_rows_at_the_peak),
	};

	return cmocka_run_group_tests(tests, tmp_setup, tmp_teardown);
}
