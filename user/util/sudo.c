/* Who ran us through sudo: the user whose files we write and whose command we launch. */
#include <errno.h>
#include <stdlib.h>
#include <unistd.h>

#include "util/sudo.h"

bool sb_parse_id(const char *s, unsigned long *v)
{
	char *end;

	if (!s || *s < '0' || *s > '9')
		return false;
	errno = 0;
	*v = strtoul(s, &end, 10);
	return !errno && !*end && *v < (unsigned long)(uid_t)-1;
}

bool sb_sudo_user(uid_t *uid, gid_t *gid)
{
	unsigned long u, g;

	if (geteuid() != 0 || !sb_parse_id(getenv("SUDO_UID"), &u) || u == 0)
		return false;
	*uid = (uid_t)u;
	*gid = sb_parse_id(getenv("SUDO_GID"), &g) ? (gid_t)g : (gid_t)-1;
	return true;
}
