/*
 * scope-bpfd's wire format, shared by the daemon and `scope-bpf record`: one
 * request and one result per connection, each a single SOCK_SEQPACKET message
 * of bounded size, descriptors alongside (SCM_RIGHTS).
 */
#ifndef SB_DAEMON_PROTO_H
#define SB_DAEMON_PROTO_H

#include <stddef.h>
#include <stdint.h>

#include "util/error.h"

#define SB_BPFD_SOCKET "/run/scope-bpf.sock"
#define SB_BPFD_MAGIC 0x53425044u	/* "SBPD" */
#define SB_BPFD_VERSION 1
#define SB_BPFD_MAX_MSG 65536		/* a message beyond this is refused whole */
#define SB_BPFD_MAX_ARGS 1024
#define SB_BPFD_MAX_TEXT 1024		/* a result's message */

enum sb_bpfd_kind {
	SB_BPFD_RECORD = 1,	/* client -> daemon: record's arguments */
	SB_BPFD_STOP = 2,	/* client -> daemon: end the recording now (Ctrl-C, SIGTERM) */
	SB_BPFD_RESULT = 3,	/* daemon -> client: exit status and what to say */
};

/* The descriptors a RECORD request carries, in this order. */
enum sb_bpfd_fd {
	SB_BPFD_FD_STDERR,	/* where the recorder's messages go: the client's stderr */
	SB_BPFD_FD_OUTPUT,	/* the profile: a file the client opened for writing */
	SB_BPFD_FD_PIDFD,	/* -- CMD: the client's child, held before its exec */
	SB_BPFD_FD_GO,		/* -- CMD: its go pipe (launch.h); its exec's error stays the client's */
	SB_BPFD_MAX_FDS,
};
#define SB_BPFD_PID_FDS 2	/* -p: stderr and output */

struct sb_bpfd_header {
	uint32_t magic;
	uint16_t version;
	uint16_t kind;
	uint32_t length;	/* payload bytes after the header */
	int32_t arg;		/* RECORD: argument count; RESULT: exit status */
};

/* A message: its header, then up to SB_BPFD_MAX_MSG bytes in all. */
struct sb_bpfd_msg {
	struct sb_bpfd_header h;
	char payload[SB_BPFD_MAX_MSG - sizeof(struct sb_bpfd_header)];
};

/* A RECORD of argv[0..argc) (NUL-terminated strings). Its size, or -E2BIG. */
int sb_bpfd_encode_record(struct sb_bpfd_msg *m, int argc, char *const *argv);
/* A RESULT: the exit status and a message (may be empty, cut at SB_BPFD_MAX_TEXT). */
size_t sb_bpfd_encode_result(struct sb_bpfd_msg *m, int status, const char *text);
/* A STOP. Its size. */
size_t sb_bpfd_encode_stop(struct sb_bpfd_msg *m);

/*
 * Check a received message of n bytes: magic, version, kind, length. 0, or
 * -EPROTO with err saying what is wrong.
 */
int sb_bpfd_check(const struct sb_bpfd_msg *m, size_t n, struct sb_error *err);
/*
 * A checked RECORD's arguments into argv (SB_BPFD_MAX_ARGS + 1 slots,
 * NULL-terminated; pointing into m). Returns argc, or -EPROTO with err set.
 */
int sb_bpfd_decode_record(struct sb_bpfd_msg *m, char **argv, struct sb_error *err);
/* A checked RESULT's message, NUL-terminated in m. */
const char *sb_bpfd_result_text(struct sb_bpfd_msg *m);

/*
 * Send len bytes of m with n descriptors. 0 or -errno. A peer that is gone
 * gives -EPIPE, never SIGPIPE.
 */
int sb_bpfd_send(int sock, const struct sb_bpfd_msg *m, size_t len, const int *fds, int n);
/*
 * Receive one message into m and up to SB_BPFD_MAX_FDS descriptors (close-on-exec).
 * Returns its size (0: the peer closed), or -EMSGSIZE when it or its descriptors
 * did not fit (none is kept), or -errno. *n_fds is set.
 */
int sb_bpfd_recv(int sock, struct sb_bpfd_msg *m, int *fds, int *n_fds);
void sb_bpfd_close_fds(int *fds, int n);

#endif
