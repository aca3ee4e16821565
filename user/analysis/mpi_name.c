/* MPI call region names: parsed into the function called and its arguments. */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/mpi_name.h"
#include "model/mpi_sync.h"

#define PREFIX "mpi:"

/* Copy the token at s (up to a space or the end) into out; -EINVAL when empty or too long. */
static int word(const char *s, size_t len, char *out)
{
	if (!len || len >= SB_MPI_OP_MAX)
		return -EINVAL;
	memcpy(out, s, len);
	out[len] = 0;
	return 0;
}

static int number(const char *s, size_t len, int64_t *v)
{
	char buf[32], *end;

	if (word(s, len, buf))
		return -EINVAL;
	errno = 0;
	*v = strtoll(buf, &end, 10);
	return errno || *end ? -EINVAL : 0;
}

enum { K_KIND, K_BYTES, K_PEER, K_ROOT, K_TAG, K_COMM, N_REQUIRED };

/* Take one key=value token of length len; unknown keys are skipped. */
static int key_value(const char *s, size_t len, struct sb_mpi_call *c, unsigned *seen)
{
	static const char *const keys[] = { "kind", "bytes", "peer", "root", "tag", "comm" };
	int64_t *nums[] = { NULL, &c->bytes, &c->peer, &c->root, &c->tag, &c->comm };
	const char *eq = memchr(s, '=', len);
	size_t k, klen;

	if (!eq)
		return -EINVAL;
	klen = (size_t)(eq - s);
	len -= klen + 1;
	if (klen == 7 && !memcmp(s, "request", 7))
		return word(eq + 1, len, c->request);
	for (k = 0; k < N_REQUIRED; k++) {
		if (strlen(keys[k]) != klen || memcmp(s, keys[k], klen))
			continue;
		*seen |= 1u << k;
		return k == K_KIND ? word(eq + 1, len, c->kind) : number(eq + 1, len, nums[k]);
	}
	return 0;
}

int sb_mpi_parse(const char *name, struct sb_mpi_call *c)
{
	const char *s = name, *sp;
	unsigned seen = 0;
	size_t len;

	*c = (struct sb_mpi_call){ .bytes = -1, .peer = -1, .root = -1, .tag = -1, .comm = -1 };
	if (strncmp(s, PREFIX, strlen(PREFIX)))
		return -EINVAL;
	s += strlen(PREFIX);
	sp = strchrnul(s, ' ');
	if (word(s, (size_t)(sp - s), c->op))
		return -EINVAL;
	while (*sp) {
		s = sp + 1;
		sp = strchrnul(s, ' ');
		len = (size_t)(sp - s);
		if (len && key_value(s, len, c, &seen))
			return -EINVAL;
	}
	return seen == (1u << N_REQUIRED) - 1 ? 0 : -EINVAL;
}

bool sb_mpi_is_send(const struct sb_mpi_call *c)
{
	static const char *const sends[] = { "send", "isend", "ssend", "issend", "bsend",
					     "ibsend", "rsend", "irsend" };
	size_t i;

	if (strcmp(c->kind, "point-to-point"))
		return false;
	for (i = 0; i < sizeof(sends) / sizeof(sends[0]); i++)
		if (!strcmp(c->op, sends[i]))
			return true;
	return false;
}

void sb_mpi_call_function(const struct sb_mpi_call *c, char out[SB_MPI_FN_MAX])
{
	snprintf(out, SB_MPI_FN_MAX, PREFIX "%s", c->op);
}

void sb_mpi_call_mpi_name(const struct sb_mpi_call *c, char out[SB_MPI_FN_MAX])
{
	snprintf(out, SB_MPI_FN_MAX, "MPI_%s", c->op);
	out[4] = (char)toupper((unsigned char)out[4]);
}

/* " key=v" at out + *at, unless v is -1: unknown, any, none. */
static void detail(char *out, size_t *at, const char *key, int64_t v)
{
	/* Other negative values mean something: MPICH's own communicators' handles are. */
	if (v == -1)
		return;
	*at += (size_t)snprintf(out + *at, SB_MPI_DETAIL_MAX - *at, " %s=%" PRId64, key, v);
}

void sb_mpi_call_details(const struct sb_mpi_call *c, char out[SB_MPI_DETAIL_MAX])
{
	size_t at = 0;

	out[0] = 0;
	detail(out, &at, "peer", c->peer);
	detail(out, &at, "bytes", c->bytes);
	detail(out, &at, "tag", c->tag);
	detail(out, &at, "root", c->root);
	detail(out, &at, "comm", c->comm == SB_MPI_COMM_WORLD ? -1 : c->comm);
	if (c->request[0])
		snprintf(out + at, SB_MPI_DETAIL_MAX - at, " request=%s", c->request);
	if (!out[0])
		snprintf(out, SB_MPI_DETAIL_MAX, " (no arguments known)");
	memmove(out, out + 1, strlen(out));
}
