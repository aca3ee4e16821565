/*
 * Output files as root: under sudo nothing is written that the user who ran
 * sudo could not write, a SUDO_UID that names no one is refused, a link
 * another user planted is never followed, and an -o that cannot work is
 * refused before the command runs.
 */
#include <dirent.h>
#include <pwd.h>
#include <sys/stat.h>

#include "harness.h"

#define VICTIM_TEXT "root's own file\n"

static struct passwd nobody;
static char profile[300];	/* one recording, the input of report, inspect and diff */
static char marks[300];

static int setup(void **state)
{
	struct passwd *pw = getpwnam("nobody");

	if (setup_tmp(state))
		return -1;
	/* Folders below it are the subjects: the sudo user must be able to reach them. */
	if (chmod(tmp_dir, 0755))
		return -1;
	/* Where a command run as the sudo user leaves a mark that it ran. */
	if (mkdir(tmp_file("marks", marks, sizeof(marks)), 0777) || chmod(marks, 01777))
		return -1;
	if (pw)
		nobody = *pw;
	tmp_file("count.h5", profile, sizeof(profile));
	return 0;
}

static int teardown(void **state)
{
	unsetenv("SUDO_UID");
	unsetenv("SUDO_GID");
	return teardown_tmp(state);
}

/* These tests act as root for another user: root, and a user to act for. */
static void require_root_and_nobody(void)
{
	require_bpf();
	if (!nobody.pw_name)
		skip();
}

static void write_text(const char *path, const char *text, mode_t mode)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	assert_true(fputs(text, f) >= 0);
	assert_int_equal(fclose(f), 0);
	assert_int_equal(chmod(path, mode), 0);
}

static void expect_text(const char *path, const char *text)
{
	char buf[256];

	assert_string_equal(file_text(path, buf, sizeof(buf)), text);
}

static void expect_stderr_has(const char *text)
{
	char err[4096];

	read_stderr(err, sizeof(err));
	if (!strstr(err, text))
		fail_msg("stderr lacks \"%s\": %s", text, err);
}

static bool exists(const char *path)
{
	struct stat st;

	return !lstat(path, &st);
}

/* Names in the folder at path, . and .. left out. */
static int entries(const char *path)
{
	DIR *dp = opendir(path);
	struct dirent *e;
	int n = 0;

	assert_non_null(dp);
	while ((e = readdir(dp)))
		n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
	closedir(dp);
	return n;
}

static const char *make_profile(void)
{
	if (!exists(profile))
		assert_int_equal(record_app(profile, "count", "10", NULL), 0);
	return profile;
}

/* What the messages call the sudo user. */
static const char *as_nobody(char *buf, size_t size)
{
	snprintf(buf, size, "as user %u (SUDO_UID)", (unsigned)nobody.pw_uid);
	return buf;
}

static void act_as_nobody(void)
{
	char uid[32], gid[32];

	snprintf(uid, sizeof(uid), "%u", (unsigned)nobody.pw_uid);
	snprintf(gid, sizeof(gid), "%u", (unsigned)nobody.pw_gid);
	setenv("SUDO_UID", uid, 1);
	setenv("SUDO_GID", gid, 1);
}

/*
 * A root-owned file in a root 0755 folder, the kind /etc/profile.d holds:
 * `sudo scope-bpf` must not let its user replace it with a file they own.
 */
static void test_sudo_user_cannot_replace_a_root_file(void **state)
{
	char dir[300], victim[300], ran[300], touch[320], who[64], want[512];
	char *record[] = { (char *)scope_bin(), "record", "-q", "-o", victim, "--", "/bin/sh",
			   "-c", touch, NULL };
	char *report[] = { (char *)scope_bin(), "report", profile, "-o", victim, NULL };
	char *merge[] = { (char *)scope_bin(), "merge", "-o", victim, profile, NULL };
	char *export[] = { (char *)scope_bin(), "export", "json", profile, "-o", victim, NULL };
	char *const *runs[] = { report, merge, export };
	struct stat st;

	(void)state;
	require_root_and_nobody();
	make_profile();
	tmp_file("rootdir", dir, sizeof(dir));
	tmp_file("rootdir/file.sh", victim, sizeof(victim));
	tmp_file("marks/ran", ran, sizeof(ran));
	snprintf(touch, sizeof(touch), "touch %s", ran);
	assert_int_equal(mkdir(dir, 0755), 0);
	write_text(victim, VICTIM_TEXT, 0644);
	act_as_nobody();
	/* Refused before the command starts: it never ran. */
	snprintf(want, sizeof(want), "cannot create files in %s %s: Permission denied", dir,
		 as_nobody(who, sizeof(who)));
	assert_int_equal(run(record), SB_EXIT_USAGE);
	expect_stderr_has(want);
	assert_false(exists(ran));
	for (size_t i = 0; i < sizeof(runs) / sizeof(runs[0]); i++) {
		assert_int_not_equal(run(runs[i]), 0);
		expect_stderr_has(want);
	}
	unsetenv("SUDO_UID");
	unsetenv("SUDO_GID");
	expect_text(victim, VICTIM_TEXT);
	assert_int_equal(stat(victim, &st), 0);
	assert_int_equal(st.st_uid, 0);
	/* Nothing of ours was left beside it either. */
	assert_int_equal(entries(dir), 1);
}

/* Where the user may write, their profile is made as theirs, temporary file and all. */
static void test_sudo_user_writes_into_their_own_folder(void **state)
{
	char dir[300], out[300], text[300];
	char *report[] = { (char *)scope_bin(), "report", profile, "-o", text, NULL };
	struct stat st;

	(void)state;
	require_root_and_nobody();
	tmp_file("userdir", dir, sizeof(dir));
	tmp_file("userdir/p.h5", out, sizeof(out));
	tmp_file("userdir/report.txt", text, sizeof(text));
	assert_int_equal(mkdir(dir, 0755), 0);
	assert_int_equal(chown(dir, nobody.pw_uid, nobody.pw_gid), 0);
	make_profile();
	act_as_nobody();
	assert_int_equal(record_app(out, "count", "10", NULL), 0);
	assert_int_equal(run(report), 0);
	unsetenv("SUDO_UID");
	unsetenv("SUDO_GID");
	assert_int_equal(stat(out, &st), 0);
	assert_int_equal(st.st_uid, nobody.pw_uid);
	assert_int_equal(st.st_gid, nobody.pw_gid);
	assert_int_equal(stat(text, &st), 0);
	assert_int_equal(st.st_uid, nobody.pw_uid);
}

/* A SUDO_UID that names no one would leave every file root's: refused by every command. */
static void test_bad_sudo_uid_is_refused(void **state)
{
	static const char *const bad[] = { "abc", "-1", "" };
	char out[300], ran[300], touch[320], want[64];
	char *record[] = { (char *)scope_bin(), "record", "-q", "-o", out, "--", "/bin/sh", "-c",
			   touch, NULL };
	char *report[] = { (char *)scope_bin(), "report", profile, "-o", out, NULL };

	(void)state;
	require_bpf();
	tmp_file("bad.h5", out, sizeof(out));
	tmp_file("marks/ran-bad", ran, sizeof(ran));
	snprintf(touch, sizeof(touch), "touch %s", ran);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		setenv("SUDO_UID", bad[i], 1);
		snprintf(want, sizeof(want), "SUDO_UID='%s': not a user id", bad[i]);
		assert_int_equal(run(record), SB_EXIT_USAGE);
		expect_stderr_has(want);
		assert_int_equal(run(report), SB_EXIT_USAGE);
		expect_stderr_has(want);
	}
	unsetenv("SUDO_UID");
	assert_false(exists(ran));
	assert_false(exists(out));
}

/*
 * Another user's link in a sticky world-writable folder (theirs, so the
 * kernel's protected_symlinks would not stop root either) pointing at root's
 * file: report, inspect and diff replace the link, and root's file stays.
 */
static void test_planted_link_is_not_followed(void **state)
{
	char dir[300], link[300], victim[300];
	char *report[] = { (char *)scope_bin(), "report", profile, "-o", link, NULL };
	char *inspect[] = { (char *)scope_bin(), "inspect", profile, "-o", link, NULL };
	char *diff[] = { (char *)scope_bin(), "diff", profile, profile, "-o", link, NULL };
	char *const *runs[] = { report, inspect, diff };
	struct stat st;

	(void)state;
	require_root_and_nobody();
	make_profile();
	tmp_file("sticky", dir, sizeof(dir));
	tmp_file("sticky/out.txt", link, sizeof(link));
	tmp_file("victim", victim, sizeof(victim));
	write_text(victim, VICTIM_TEXT, 0600);
	assert_int_equal(mkdir(dir, 0777), 0);
	assert_int_equal(chmod(dir, 01777), 0);
	assert_int_equal(chown(dir, nobody.pw_uid, nobody.pw_gid), 0);
	for (size_t i = 0; i < sizeof(runs) / sizeof(runs[0]); i++) {
		unlink(link);
		assert_int_equal(symlink(victim, link), 0);
		assert_int_equal(lchown(link, nobody.pw_uid, nobody.pw_gid), 0);
		assert_int_equal(run(runs[i]), 0);
		expect_text(victim, VICTIM_TEXT);
		assert_int_equal(lstat(link, &st), 0);
		assert_true(S_ISREG(st.st_mode));
		assert_true(st.st_size > 0);
	}
}

/* -o below a regular file: refused before the command runs, not after it ran for hours. */
static void test_output_below_a_file_is_refused_at_start(void **state)
{
	char file[300], out[300], ran[300], touch[320];
	char *record[] = { (char *)scope_bin(), "record", "-q", "-o", out, "--", "/bin/sh", "-c",
			   touch, NULL };

	(void)state;
	require_bpf();
	tmp_file("plain", file, sizeof(file));
	/* Executable, so that no permission check stands in for the missing folder. */
	write_text(file, "not a folder\n", 0755);
	tmp_file("plain/out.h5", out, sizeof(out));
	tmp_file("marks/ran-below", ran, sizeof(ran));
	snprintf(touch, sizeof(touch), "touch %s", ran);
	assert_int_equal(run(record), SB_EXIT_USAGE);
	expect_stderr_has("plain is not a directory");
	assert_false(exists(ran));
	expect_text(file, "not a folder\n");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sudo_user_cannot_replace_a_root_file),
		cmocka_unit_test(test_sudo_user_writes_into_their_own_folder),
		cmocka_unit_test(test_bad_sudo_uid_is_refused),
		cmocka_unit_test(test_planted_link_is_not_followed),
		cmocka_unit_test(test_output_below_a_file_is_refused_at_start),
	};

	return cmocka_run_group_tests_name("output_safety", tests, setup, teardown);
}
