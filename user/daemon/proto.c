/* scope-bpfd's messages: see proto.h. Nothing here trusts a byte it received. */
#include <errno.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "daemon/proto.h"

static void header(struct sb_bpfd_msg *m, enum sb_bpfd_kind kind, size_t length, int32_t arg)
{
	m->h = (struct sb_bpfd_header){ .magic = SB_BPFD_MAGIC, .version = SB_BPFD_VERSION,
					.kind = (uint16_t)kind, .length = (uint32_t)length,
					.arg = arg };
}

int sb_bpfd_encode_record(struct sb_bpfd_msg *m, int argc, char *const *argv)
{
	size_t off = 0, len;
	int i;

	if (argc < 0 || argc > SB_BPFD_MAX_ARGS)
		return -E2BIG;
	for (i = 0; i < argc; i++) {
		len = strlen(argv[i]) + 1;
		if (len > sizeof(m->payload) - off)
			return -E2BIG;
		memcpy(m->payload + off, argv[i], len);
		off += len;
	}
	header(m, SB_BPFD_RECORD, off, argc);
	return (int)(sizeof(m->h) + off);
}

size_t sb_bpfd_encode_result(struct sb_bpfd_msg *m, int status, const char *text)
{
	size_t len = strnlen(text, SB_BPFD_MAX_TEXT - 1);

	memcpy(m->payload, text, len);
	m->payload[len] = 0;
	header(m, SB_BPFD_RESULT, len + 1, status);
	return sizeof(m->h) + len + 1;
}

size_t sb_bpfd_encode_stop(struct sb_bpfd_msg *m)
{
	header(m, SB_BPFD_STOP, 0, 0);
	return sizeof(m->h);
}

int sb_bpfd_check(const struct sb_bpfd_msg *m, size_t n, struct sb_error *err)
{
	if (n < sizeof(m->h))
		return sb_fail(err, EPROTO, "message of %zu bytes: shorter than a header", n);
	if (m->h.magic != SB_BPFD_MAGIC)
		return sb_fail(err, EPROTO, "not a scope-bpf message (magic %#x)", m->h.magic);
	if (m->h.version != SB_BPFD_VERSION)
		return sb_fail(err, EPROTO, "protocol version %u, this side speaks %u: the client "
			       "and scope-bpfd come from different releases", m->h.version,
			       SB_BPFD_VERSION);
	if (m->h.kind < SB_BPFD_RECORD || m->h.kind > SB_BPFD_RESULT)
		return sb_fail(err, EPROTO, "unknown message kind %u", m->h.kind);
	if (m->h.length != n - sizeof(m->h))
		return sb_fail(err, EPROTO, "message says %u bytes follow, %zu came", m->h.length,
			       n - sizeof(m->h));
	if (m->h.kind == SB_BPFD_RESULT && (!m->h.length || m->h.length > SB_BPFD_MAX_TEXT ||
					    m->payload[m->h.length - 1]))
		return sb_fail(err, EPROTO, "result without a terminated message");
	return 0;
}

int sb_bpfd_decode_record(struct sb_bpfd_msg *m, char **argv, struct sb_error *err)
{
	size_t off = 0, len;
	int argc = m->h.arg, i;

	if (m->h.kind != SB_BPFD_RECORD)
		return sb_fail(err, EPROTO, "expected a record request, got kind %u", m->h.kind);
	if (argc < 1 || argc > SB_BPFD_MAX_ARGS)
		return sb_fail(err, EPROTO, "%d arguments: not between 1 and %d", argc,
			       SB_BPFD_MAX_ARGS);
	for (i = 0; i < argc; i++) {
		if (off >= m->h.length)
			return sb_fail(err, EPROTO, "%d arguments announced, %d sent", argc, i);
		len = strnlen(m->payload + off, m->h.length - off);
		if (off + len == m->h.length)
			return sb_fail(err, EPROTO, "argument %d is not terminated", i);
		argv[i] = m->payload + off;
		off += len + 1;
	}
	if (off != m->h.length)
		return sb_fail(err, EPROTO, "%zu bytes after the last argument", m->h.length - off);
	argv[argc] = NULL;
	return argc;
}

const char *sb_bpfd_result_text(struct sb_bpfd_msg *m)
{
	return m->payload;
}

int sb_bpfd_send(int sock, const struct sb_bpfd_msg *m, size_t len, const int *fds, int n)
{
	union {
		char buf[CMSG_SPACE(SB_BPFD_MAX_FDS * sizeof(int))];
		struct cmsghdr align;
	} ctl;
	struct iovec iov = { .iov_base = (void *)m, .iov_len = len };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1 };
	struct cmsghdr *c;
	ssize_t sent;

	if (n < 0 || n > SB_BPFD_MAX_FDS)
		return -EINVAL;
	if (n) {
		memset(&ctl, 0, sizeof(ctl));
		msg.msg_control = ctl.buf;
		msg.msg_controllen = CMSG_SPACE(n * sizeof(int));
		c = CMSG_FIRSTHDR(&msg);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(n * sizeof(int));
		memcpy(CMSG_DATA(c), fds, n * sizeof(int));
	}
	do
		sent = sendmsg(sock, &msg, MSG_NOSIGNAL);
	while (sent < 0 && errno == EINTR);
	if (sent < 0)
		return -errno;
	return (size_t)sent == len ? 0 : -EMSGSIZE;
}

void sb_bpfd_close_fds(int *fds, int n)
{
	int i;

	for (i = 0; i < n; i++)
		if (fds[i] >= 0)
			close(fds[i]);
}

/* Every descriptor in every SCM_RIGHTS part, up to SB_BPFD_MAX_FDS; -EMSGSIZE past it. */
static int take_fds(struct msghdr *msg, int *fds, int *n_fds)
{
	struct cmsghdr *c;
	int extra = 0, k, got, fd;

	for (c = CMSG_FIRSTHDR(msg); c; c = CMSG_NXTHDR(msg, c)) {
		if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS)
			continue;
		got = (int)((c->cmsg_len - CMSG_LEN(0)) / sizeof(int));
		for (k = 0; k < got; k++) {
			memcpy(&fd, CMSG_DATA(c) + k * sizeof(int), sizeof(int));
			if (*n_fds < SB_BPFD_MAX_FDS) {
				fds[(*n_fds)++] = fd;
			} else {
				close(fd);
				extra = 1;
			}
		}
	}
	return extra ? -EMSGSIZE : 0;
}

int sb_bpfd_recv(int sock, struct sb_bpfd_msg *m, int *fds, int *n_fds)
{
	union {
		char buf[CMSG_SPACE(SB_BPFD_MAX_FDS * sizeof(int))];
		struct cmsghdr align;
	} ctl;
	struct iovec iov = { .iov_base = m, .iov_len = sizeof(*m) };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = ctl.buf,
			      .msg_controllen = sizeof(ctl.buf) };
	ssize_t n;
	int ret;

	*n_fds = 0;
	do
		n = recvmsg(sock, &msg, MSG_CMSG_CLOEXEC);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return -errno;
	ret = take_fds(&msg, fds, n_fds);
	if (!ret && (msg.msg_flags & (MSG_TRUNC | MSG_CTRUNC)))
		ret = -EMSGSIZE;
	if (ret) {
		sb_bpfd_close_fds(fds, *n_fds);
		*n_fds = 0;
		return ret;
	}
	return (int)n;
}
