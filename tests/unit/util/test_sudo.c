/*
 * Who ran us through sudo: SUDO_UID and SUDO_GID read strictly, and a thread
 * that acts as that user for its file accesses gets exactly their rights,
 * alone, and root's back after.
 */
#include <fcntl.h>
#include <pthread.h>
#include <sys/fsuid.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fixtures.h"

#include "util/sudo.h"

/* A user without an account: the kernel checks numbers only. */
#define UID 12345
#define GID 23456

static void test_ids_are_read_as_sudo_writes_them(void **state)
{
	struct sb_error err = { .msg = "" };
	uid_t uid = 0;
	gid_t gid = 0;

	(void)state;
	if (geteuid() != 0)
		skip();
	clear_sudo();
	assert_int_equal(sb_sudo_user(&uid, &gid, &err), 0);
	set_sudo("12345", "23456");
	assert_int_equal(sb_sudo_user(&uid, &gid, &err), 1);
	assert_int_equal(uid, UID);
	assert_int_equal(gid, GID);
	unsetenv("SUDO_GID");
	assert_int_equal(sb_sudo_user(&uid, &gid, &err), 1);
	assert_int_equal(gid, (gid_t)-1);
	/* sudo run by root: nothing to change. */
	set_sudo("0", "0");
	assert_int_equal(sb_sudo_user(&uid, &gid, &err), 0);
	clear_sudo();
}

/* A value that names no one is an error that quotes it, never "not under sudo". */
static void test_bad_ids_are_refused_by_name(void **state)
{
	static const char *const bad[] = { "abc", "-1", "", " 12", "12 ", "4294967295",
					   "99999999999999999999" };
	struct sb_error err = { .msg = "" };
	char want[64];
	uid_t uid;
	gid_t gid;

	(void)state;
	if (geteuid() != 0)
		skip();
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		set_sudo(bad[i], "23456");
		assert_int_equal(sb_sudo_user(&uid, &gid, &err), -EINVAL);
		snprintf(want, sizeof(want), "SUDO_UID='%s': not a user id", bad[i]);
		expect_has(err.msg, want);
		set_sudo("12345", bad[i]);
		assert_int_equal(sb_sudo_user(&uid, &gid, &err), -EINVAL);
		snprintf(want, sizeof(want), "SUDO_GID='%s': not a group id", bad[i]);
		expect_has(err.msg, want);
	}
	clear_sudo();
}

/* Create path; the errno of a failure, 0 on success. */
static int create(const char *path)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0600);

	if (fd < 0)
		return errno;
	close(fd);
	return 0;
}

static int go[2];	/* the other thread waits on it: made before, it acts once told */

static void *create_in_thread(void *path)
{
	char c;

	if (read(go[0], &c, 1) != 1)
		return (void *)-1L;
	return (void *)(long)create(path);
}

static void assert_owner(const char *path, uid_t uid, gid_t gid)
{
	struct stat st;

	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_uid, uid);
	assert_int_equal(st.st_gid, gid);
}

/*
 * While acting for the user, a root-only folder refuses this thread and a
 * folder of theirs takes files that are theirs; a thread that already ran is
 * still root meanwhile (one started meanwhile would copy the user's rights);
 * after, this thread is root again, groups and all.
 */
static void test_thread_acts_as_the_user_and_comes_back(void **state)
{
	struct sb_error err = { .msg = "" };
	gid_t before[64], during[64], after[64];
	int n_before, n_during, n_after;
	struct sb_sudo_fs as;
	pthread_t t;
	void *ret;

	(void)state;
	if (geteuid() != 0)
		skip();
	assert_int_equal(chmod(tmp_dir, 0755), 0);
	assert_int_equal(mkdir(tmp_path("root"), 0755), 0);
	assert_int_equal(mkdir(tmp_path("user"), 0755), 0);
	assert_int_equal(chown(tmp_path("user"), UID, GID), 0);
	n_before = getgroups(64, before);
	assert_int_equal(pipe(go), 0);
	assert_int_equal(pthread_create(&t, NULL, create_in_thread, tmp_path("root/other")), 0);
	set_sudo("12345", "23456");
	assert_int_equal(sb_sudo_fs_enter(&as, &err), 0);
	assert_int_equal(create(tmp_path("root/mine")), EACCES);
	assert_int_equal(create(tmp_path("user/mine")), 0);
	n_during = getgroups(64, during);
	assert_int_equal(write(go[1], "x", 1), 1);
	assert_int_equal(pthread_join(t, &ret), 0);
	sb_sudo_fs_leave(&as);
	close(go[0]);
	close(go[1]);
	clear_sudo();
	n_after = getgroups(64, after);
	assert_int_equal((long)ret, 0);
	assert_owner(tmp_path("root/other"), 0, 0);
	assert_owner(tmp_path("user/mine"), UID, GID);
	/* No account: the only group is SUDO_GID. */
	assert_int_equal(n_during, 1);
	assert_int_equal(during[0], GID);
	assert_int_equal(create(tmp_path("root/back")), 0);
	assert_owner(tmp_path("root/back"), 0, 0);
	assert_int_equal(setfsuid((uid_t)-1), 0);
	assert_int_equal(n_after, n_before);
	assert_memory_equal(after, before, (size_t)n_before * sizeof(gid_t));
}

/* Not under sudo, entering changes nothing and leaving restores nothing. */
static void test_without_sudo_nothing_changes(void **state)
{
	struct sb_error err = { .msg = "" };
	struct sb_sudo_fs as;
	uid_t uid;

	(void)state;
	clear_sudo();
	assert_int_equal(sb_sudo_fs_enter(&as, &err), 0);
	assert_false(as.active);
	assert_int_equal(setfsuid((uid_t)-1), geteuid());
	sb_sudo_fs_leave(&as);
	assert_int_equal(sb_sudo_fs_uid(&uid, &err), 0);
	assert_int_equal(uid, geteuid());
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ids_are_read_as_sudo_writes_them),
		cmocka_unit_test(test_bad_ids_are_refused_by_name),
		cmocka_unit_test(test_thread_acts_as_the_user_and_comes_back),
		cmocka_unit_test(test_without_sudo_nothing_changes),
	};

	return cmocka_run_group_tests_name("sudo", tests, tmp_setup, tmp_teardown);
}
