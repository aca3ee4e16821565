/* Unit tests of what memory cgroups allow: /proc/self/cgroup parsing, limits over a tree. */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "util/cgroup_mem.h"

#define MiB (1ull << 20)
#define GiB (1ull << 30)

static void test_path_v1_memory_line_wins(void **state)
{
	/* A hybrid machine: the v1 memory controller holds the limits, not the v2 line. */
	const char *text = "9:name=systemd:/\n4:memory:/process_api/ad42\n3:cpuset:/\n0::/\n";
	char path[64];
	bool v2 = true;

	(void)state;
	assert_int_equal(sb_cgroup_mem_path(text, path, sizeof(path), &v2), 0);
	assert_false(v2);
	assert_string_equal(path, "/process_api/ad42");
}

static void test_path_v1_shared_hierarchy(void **state)
{
	const char *text = "5:cpu,memory,pids:/slurm/uid_1000/job_7\n";
	char path[64];
	bool v2 = true;

	(void)state;
	assert_int_equal(sb_cgroup_mem_path(text, path, sizeof(path), &v2), 0);
	assert_false(v2);
	assert_string_equal(path, "/slurm/uid_1000/job_7");
}

static void test_path_v2_only(void **state)
{
	const char *text = "0::/system.slice/slurmstepd.scope/job_42/step_0/user/task_0\n";
	char path[128];
	bool v2 = false;

	(void)state;
	assert_int_equal(sb_cgroup_mem_path(text, path, sizeof(path), &v2), 0);
	assert_true(v2);
	assert_string_equal(path, "/system.slice/slurmstepd.scope/job_42/step_0/user/task_0");
}

static void test_path_refused(void **state)
{
	const char *bad[] = {
		"",
		"4:memoryx:/a\n",			/* not the memory controller, no v2 line */
		"0::relative\n",
		"0::/a/../../etc\n",
		"0::/a/..\n",
		"4:memory:/" "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\n",
	};
	char path[64];
	bool v2;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_int_equal(sb_cgroup_mem_path(bad[i], path, sizeof(path), &v2), -ENOENT);
}

static void put(const char *dir, const char *name, const char *text)
{
	char file[PATH_MAX];
	FILE *f;

	snprintf(file, sizeof(file), "%s/%s", dir, name);
	f = fopen(file, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

struct tree {
	char root[64], a[96], b[128];
};

static void make_tree(struct tree *t)
{
	strcpy(t->root, "/tmp/sb-cgroup-XXXXXX");
	assert_non_null(mkdtemp(t->root));
	snprintf(t->a, sizeof(t->a), "%s/a", t->root);
	snprintf(t->b, sizeof(t->b), "%s/a/b", t->root);
	assert_int_equal(mkdir(t->a, 0700), 0);
	assert_int_equal(mkdir(t->b, 0700), 0);
}

static void remove_tree(struct tree *t)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf %s", t->root);
	assert_int_equal(system(cmd), 0);
}

static void test_v2_least_headroom_over_ancestors(void **state)
{
	struct sb_cgroup_mem m;
	struct tree t;
	char num[96];

	(void)state;
	make_tree(&t);
	/* b: 1 GiB, 600 MiB used of which 100 MiB is page cache it would drop first. */
	snprintf(num, sizeof(num), "%llu\n", GiB);
	put(t.b, "memory.max", num);
	snprintf(num, sizeof(num), "%llu\n", 600 * MiB);
	put(t.b, "memory.current", num);
	snprintf(num, sizeof(num), "anon 1\ninactive_file %llu\nactive_file 5\n", 100 * MiB);
	put(t.b, "memory.stat", num);
	put(t.a, "memory.max", "max\n");
	put(t.a, "memory.current", "12345\n");
	sb_cgroup_mem_at(t.root, "/a/b", true, &m);
	assert_true(m.limit == GiB);
	assert_true(m.headroom == GiB - 500 * MiB);
	/* a parent nearly full leaves less room than the child's own limit. */
	snprintf(num, sizeof(num), "%llu\n", 2 * GiB);
	put(t.a, "memory.max", num);
	snprintf(num, sizeof(num), "%llu\n", 2 * GiB - 100 * MiB);
	put(t.a, "memory.current", num);
	sb_cgroup_mem_at(t.root, "/a/b", true, &m);
	assert_true(m.limit == GiB);
	assert_true(m.headroom == 100 * MiB);
	remove_tree(&t);
}

static void test_v1_unlimited_and_missing_limit_nothing(void **state)
{
	struct sb_cgroup_mem m;
	struct tree t;

	(void)state;
	make_tree(&t);
	/* v1's "no limit", and a level without files, as on this kind of machine. */
	put(t.b, "memory.limit_in_bytes", "9223372036854771712\n");
	put(t.b, "memory.usage_in_bytes", "3516727296\n");
	sb_cgroup_mem_at(t.root, "/a/b", false, &m);
	assert_true(m.limit == UINT64_MAX);
	assert_true(m.headroom == UINT64_MAX);
	/* A v1 limit, usage over it (possible in v1), and garbage in a file. */
	put(t.a, "memory.limit_in_bytes", "1073741824\n");
	put(t.a, "memory.usage_in_bytes", "2147483648\n");
	put(t.a, "memory.stat", "total_inactive_file 0\n");
	put(t.b, "memory.limit_in_bytes", "lots\n");
	sb_cgroup_mem_at(t.root, "/a/b", false, &m);
	assert_true(m.limit == GiB);
	assert_true(m.headroom == 0);
	remove_tree(&t);
}

static void test_this_process(void **state)
{
	struct sb_cgroup_mem m;

	(void)state;
	/* Whatever the machine: a headroom never above its limit. */
	if (!sb_cgroup_mem_read(&m))
		assert_true(m.headroom <= m.limit);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_path_v1_memory_line_wins),
		cmocka_unit_test(test_path_v1_shared_hierarchy),
		cmocka_unit_test(test_path_v2_only),
		cmocka_unit_test(test_path_refused),
		cmocka_unit_test(test_v2_least_headroom_over_ancestors),
		cmocka_unit_test(test_v1_unlimited_and_missing_limit_nothing),
		cmocka_unit_test(test_this_process),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
