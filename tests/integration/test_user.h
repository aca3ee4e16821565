/* A user of the test's own, made with useradd and removed at its end: who runs things without root. */
#ifndef SB_TEST_USER_H
#define SB_TEST_USER_H

#include <pwd.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/types.h>
#include <unistd.h>

static struct {
	char name[32];
	uid_t uid;
	gid_t gid;
	bool made;
} user;

/* A system user with a group of its own and no home, named prefix + this test's pid. */
static inline int make_user(const char *prefix)
{
	char cmd[200];
	struct passwd *pw;

	snprintf(user.name, sizeof(user.name), "%s%d", prefix, (int)(getpid() % 100000));
	snprintf(cmd, sizeof(cmd), "useradd -r -M -U -s /usr/sbin/nologin %s", user.name);
	if (system(cmd))
		return -1;
	user.made = true;
	pw = getpwnam(user.name);
	if (!pw)
		return -1;
	user.uid = pw->pw_uid;
	user.gid = pw->pw_gid;
	return 0;
}

static inline void remove_user(void)
{
	char cmd[200];

	if (!user.made)
		return;
	snprintf(cmd, sizeof(cmd), "userdel %s", user.name);
	if (system(cmd))
		fprintf(stderr, "userdel %s failed\n", user.name);
}

#endif
