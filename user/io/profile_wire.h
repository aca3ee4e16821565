/* The model as bytes through a pipe, from a reader child to its parent (io/h5guard.c). */
#ifndef SB_PROFILE_WIRE_H
#define SB_PROFILE_WIRE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/model.h"

#define SB_WIRE_BUF (64u << 10)

/*
 * Writing, buffered. Both ends are this program: values go in its own byte
 * order and layout. The first failed write sticks in err; later puts do
 * nothing (the reader then sees the stream end early).
 */
struct sb_wire_out {
	int fd;
	int err;		/* 0 or the first write's -errno */
	size_t len;
	unsigned char buf[SB_WIRE_BUF];
};

void sb_wire_out_init(struct sb_wire_out *w, int fd);
void sb_wire_put(struct sb_wire_out *w, const void *v, size_t n);
void sb_wire_put_i64(struct sb_wire_out *w, int64_t v);
/* NULL goes through as NULL. */
void sb_wire_put_str(struct sb_wire_out *w, const char *s);
void sb_wire_put_profile(struct sb_wire_out *w, const struct sb_profile *p);
/* 0 when everything put reached the pipe, else -errno. */
int sb_wire_flush(struct sb_wire_out *w);

/*
 * Reading what the other end may have got wrong (its heap corrupted by a
 * library it ran): nothing is allocated or copied past what the bytes
 * that came say and a budget allows, no wait outlasts the timeout, and the
 * first failure sticks: -ETIMEDOUT, -EPIPE (the stream ended early),
 * -EPROTO (malformed, why says how), another -errno.
 */
struct sb_wire_in {
	int fd;
	int64_t timeout_ms;	/* the longest silence allowed */
	int writer;		/* the writing process, when known: its starved time is no silence */
	uint64_t budget;	/* bytes still allowed to come */
	int err;
	char why[160];		/* for -EPROTO */
	size_t pos, len;
	unsigned char buf[SB_WIRE_BUF];
};

void sb_wire_in_init(struct sb_wire_in *r, int fd, int64_t timeout_ms, uint64_t budget);
/*
 * The process that writes the pipe: time it waits for a CPU (a loaded
 * machine) does not count as silence, up to SB_WIRE_STARVED_MAX timeouts
 * of wall time in all; time it runs or sleeps does.
 */
void sb_wire_in_writer(struct sb_wire_in *r, int pid);
#define SB_WIRE_STARVED_MAX 20
int sb_wire_get(struct sb_wire_in *r, void *v, size_t n);
int sb_wire_get_i64(struct sb_wire_in *r, int64_t *v);
/* A string of at most max bytes: NULL when NULL was put and nullable, else -EPROTO. */
int sb_wire_get_str(struct sb_wire_in *r, char **s, size_t max, bool nullable);
/* -EPROTO with why; returns it. */
int sb_wire_malformed(struct sb_wire_in *r, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/*
 * A profile as sb_wire_put_profile() put it, into p (initialized here; freed
 * here on failure). Beyond the bytes, the tables must refer to each other as
 * a reader leaves them (index rows, samples, CUDA activity): later code
 * indexes with what they hold. 0 or r->err.
 */
int sb_wire_get_profile(struct sb_wire_in *r, struct sb_profile *p);

#endif
