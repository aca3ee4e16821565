/* Event chunks compressed on worker threads, written whole (h5chunks.h). */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "io/h5chunks.h"

/* HDF5's deflate filter at the level create_event_column asks for. */
#define DEFLATE_LEVEL 1
/* Beyond this many threads the writer, not deflate, sets the pace. */
#define MAX_THREADS 8
/* Constant chunks a worker remembers: a column of one value, one of another. */
#define SAME_KEPT 4

/* A chunk of one value in every row, as deflate stored it. */
struct same_chunk {
	int64_t value;
	void *packed;		/* NULL: this place is free */
	size_t len;
};

struct worker {
	struct sb_h5_chunker *c;
	z_stream z;
	bool z_ready;
	uint8_t *shuffled;
	struct same_chunk same[SAME_KEPT];
	unsigned next_same;	/* the place the next one takes */
	pthread_t thread;
	bool started;
};

struct sb_h5_chunker {
	struct sb_h5_chunk_job *jobs;
	size_t max_jobs, chunk_rows, packed_cap;
	struct worker *workers;		/* [0] is the caller's own */
	unsigned n_workers;
	pthread_mutex_t lock;
	pthread_cond_t work, done;
	uint64_t round;			/* bumped by each run: workers wait for a new one */
	unsigned parked;		/* workers that reached their first wait */
	size_t n_jobs, next, finished;
	bool stop;
};

/* Swap the bytes that mask selects in a with those mask << shift selects in b's place. */
#define SWAP_BLOCKS(a, b, shift, mask)                                  \
	do {                                                            \
		uint64_t t_ = (((a) >> (shift)) ^ (b)) & (mask);        \
		(a) ^= t_ << (shift);                                   \
		(b) ^= t_;                                              \
	} while (0)

/*
 * Eight values as an 8 x 8 matrix of bytes (row k: value k), transposed in
 * registers: x[b] then holds byte b of each value. A byte store per byte
 * cost more than deflate's hashing of it.
 */
static void transpose8(uint64_t x[8])
{
	int k;

	for (k = 0; k < 4; k++)
		SWAP_BLOCKS(x[k], x[k + 4], 32, 0x00000000ffffffffull);
	for (k = 0; k < 8; k += (k & 1) ? 3 : 1)
		SWAP_BLOCKS(x[k], x[k + 2], 16, 0x0000ffff0000ffffull);
	for (k = 0; k < 8; k += 2)
		SWAP_BLOCKS(x[k], x[k + 1], 8, 0x00ff00ff00ff00ffull);
}

void sb_h5_shuffle8(const int64_t *in, size_t n, uint8_t *out)
{
	uint64_t x[8];
	size_t i;
	unsigned b;

	for (i = 0; i + 8 <= n; i += 8) {
		memcpy(x, in + i, sizeof(x));
		transpose8(x);
		for (b = 0; b < 8; b++)
			memcpy(out + b * n + i, &x[b], sizeof(x[b]));
	}
	for (; i < n; i++)
		for (b = 0; b < 8; b++)
			out[b * n + i] = (uint8_t)((uint64_t)in[i] >> (8 * b));
}

unsigned sb_h5_chunk_threads(size_t jobs)
{
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	size_t n = cpus > 0 ? (size_t)cpus : 1;

	if (n > jobs)
		n = jobs;
	if (n > MAX_THREADS)
		n = MAX_THREADS;
	return n ? (unsigned)n : 1;
}

/* Whether all n values are v[0]. */
static bool one_value(const int64_t *v, size_t n)
{
	int64_t diff = 0;
	size_t i;

	for (i = 1; i < n; i++)
		diff |= v[i] ^ v[0];
	return !diff;
}

/*
 * The stored chunk of value in every row, if this worker deflated one
 * before. Deflate gives the same bytes for the same input, and columns that
 * hold one value over millions of rows are common (one thread's ids, parents
 * of top-level calls, no off-CPU time): each chunk of them cost as much
 * deflating as a column of times.
 */
static struct same_chunk *same_known(struct worker *w, int64_t value)
{
	unsigned i;

	for (i = 0; i < SAME_KEPT; i++)
		if (w->same[i].packed && w->same[i].value == value)
			return &w->same[i];
	return NULL;
}

/* Remember the job's constant chunk; without memory it is simply deflated again next time. */
static void same_keep(struct worker *w, const struct sb_h5_chunk_job *job)
{
	struct same_chunk *k = &w->same[w->next_same];
	void *copy = malloc(job->packed_len);

	if (!copy)
		return;
	memcpy(copy, job->packed, job->packed_len);
	free(k->packed);
	*k = (struct same_chunk){ .value = job->values[0], .packed = copy,
				  .len = job->packed_len };
	w->next_same = (w->next_same + 1) % SAME_KEPT;
}

/* Shuffle, then a zlib stream as compress2() makes it, which HDF5's deflate filter stores. */
static void pack(struct worker *w, struct sb_h5_chunk_job *job)
{
	size_t bytes = w->c->chunk_rows * sizeof(int64_t);
	bool same = false;
	struct same_chunk *known;
	z_stream *z = &w->z;

	memset(job->values + job->n, 0, (w->c->chunk_rows - job->n) * sizeof(int64_t));
	if (one_value(job->values, w->c->chunk_rows)) {
		known = same_known(w, job->values[0]);
		if (known) {
			memcpy(job->packed, known->packed, known->len);
			job->packed_len = known->len;
			job->err = 0;
			return;
		}
		same = true;
	}
	sb_h5_shuffle8(job->values, w->c->chunk_rows, w->shuffled);
	if (deflateReset(z) != Z_OK) {
		job->err = -EIO;
		return;
	}
	z->next_in = w->shuffled;
	z->avail_in = (uInt)bytes;
	z->next_out = job->packed;
	z->avail_out = (uInt)w->c->packed_cap;
	job->err = deflate(z, Z_FINISH) == Z_STREAM_END ? 0 : -EIO;
	job->packed_len = z->total_out;
	if (same && !job->err)
		same_keep(w, job);
}

/* Take jobs of the current round until none is left; the lock is held on entry and exit. */
static void take_jobs(struct worker *w)
{
	struct sb_h5_chunker *c = w->c;
	size_t i;

	while (c->next < c->n_jobs) {
		i = c->next++;
		pthread_mutex_unlock(&c->lock);
		pack(w, &c->jobs[i]);
		pthread_mutex_lock(&c->lock);
		if (++c->finished == c->n_jobs)
			pthread_cond_signal(&c->done);
	}
}

static void *work(void *arg)
{
	struct worker *w = arg;
	struct sb_h5_chunker *c = w->c;
	uint64_t seen = 0;

	pthread_mutex_lock(&c->lock);
	if (++c->parked == c->n_workers - 1)
		pthread_cond_signal(&c->done);
	while (!c->stop) {
		if (c->round == seen) {
			pthread_cond_wait(&c->work, &c->lock);
			continue;
		}
		seen = c->round;
		take_jobs(w);
	}
	pthread_mutex_unlock(&c->lock);
	return NULL;
}

static int init_worker(struct sb_h5_chunker *c, struct worker *w)
{
	w->c = c;
	w->shuffled = malloc(c->chunk_rows * sizeof(int64_t));
	w->z_ready = deflateInit(&w->z, DEFLATE_LEVEL) == Z_OK;
	return w->shuffled && w->z_ready ? 0 : -ENOMEM;
}

/*
 * Workers block every signal: the recorder's handlers run on its own threads.
 * They are parked before the chunker is handed out: a write forks readers of
 * its inputs (h5guard.c), and a child forked while a thread is still starting
 * inherits whatever lock it held then (ASan's allocator: the child hung in
 * its first malloc, one merge in thirty).
 */
static void start_workers(struct sb_h5_chunker *c)
{
	sigset_t all, old;
	unsigned i, started = 0;

	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	for (i = 1; i < c->n_workers; i++) {
		c->workers[i].started =
			!pthread_create(&c->workers[i].thread, NULL, work, &c->workers[i]);
		started += c->workers[i].started;
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	pthread_mutex_lock(&c->lock);
	/* A worker that failed to start never parks: count it as parked. */
	c->parked += c->n_workers - 1 - started;
	while (c->parked < c->n_workers - 1)
		pthread_cond_wait(&c->done, &c->lock);
	pthread_mutex_unlock(&c->lock);
}

static int alloc_jobs(struct sb_h5_chunker *c)
{
	size_t i;

	c->jobs = calloc(c->max_jobs, sizeof(*c->jobs));
	if (!c->jobs)
		return -ENOMEM;
	for (i = 0; i < c->max_jobs; i++) {
		c->jobs[i].values = malloc(c->chunk_rows * sizeof(int64_t));
		c->jobs[i].packed = malloc(c->packed_cap);
		if (!c->jobs[i].values || !c->jobs[i].packed)
			return -ENOMEM;
	}
	return 0;
}

struct sb_h5_chunker *sb_h5_chunker_new(size_t max_jobs, size_t chunk_rows, unsigned threads)
{
	struct sb_h5_chunker *c = calloc(1, sizeof(*c));
	unsigned i;
	int ret;

	if (!c)
		return NULL;
	c->max_jobs = max_jobs;
	c->chunk_rows = chunk_rows ? chunk_rows : 1;
	c->packed_cap = compressBound((uLong)(c->chunk_rows * sizeof(int64_t)));
	c->n_workers = threads ? threads : 1;
	c->workers = calloc(c->n_workers, sizeof(*c->workers));
	pthread_mutex_init(&c->lock, NULL);
	pthread_cond_init(&c->work, NULL);
	pthread_cond_init(&c->done, NULL);
	ret = c->workers ? alloc_jobs(c) : -ENOMEM;
	for (i = 0; i < c->n_workers && !ret; i++)
		ret = init_worker(c, &c->workers[i]);
	if (ret) {
		sb_h5_chunker_free(c);
		return NULL;
	}
	start_workers(c);
	return c;
}

void sb_h5_chunker_free(struct sb_h5_chunker *c)
{
	unsigned i, k;
	size_t j;

	if (!c)
		return;
	pthread_mutex_lock(&c->lock);
	c->stop = true;
	pthread_cond_broadcast(&c->work);
	pthread_mutex_unlock(&c->lock);
	for (i = 0; c->workers && i < c->n_workers; i++) {
		if (c->workers[i].started)
			pthread_join(c->workers[i].thread, NULL);
		if (c->workers[i].z_ready)
			deflateEnd(&c->workers[i].z);
		free(c->workers[i].shuffled);
		for (k = 0; k < SAME_KEPT; k++)
			free(c->workers[i].same[k].packed);
	}
	for (j = 0; c->jobs && j < c->max_jobs; j++) {
		free(c->jobs[j].values);
		free(c->jobs[j].packed);
	}
	free(c->jobs);
	free(c->workers);
	pthread_cond_destroy(&c->work);
	pthread_cond_destroy(&c->done);
	pthread_mutex_destroy(&c->lock);
	free(c);
}

struct sb_h5_chunk_job *sb_h5_chunker_job(struct sb_h5_chunker *c, size_t i)
{
	return i < c->max_jobs ? &c->jobs[i] : NULL;
}

int sb_h5_chunker_run(struct sb_h5_chunker *c, size_t n_jobs)
{
	size_t i;

	if (n_jobs > c->max_jobs)
		return -EINVAL;
	pthread_mutex_lock(&c->lock);
	c->n_jobs = n_jobs;
	c->next = 0;
	c->finished = 0;
	c->round++;
	pthread_cond_broadcast(&c->work);
	take_jobs(&c->workers[0]);
	while (c->finished < c->n_jobs)
		pthread_cond_wait(&c->done, &c->lock);
	pthread_mutex_unlock(&c->lock);
	for (i = 0; i < n_jobs; i++)
		if (c->jobs[i].err)
			return c->jobs[i].err;
	return 0;
}

int sb_h5_chunk_write(hid_t d, uint64_t first, const struct sb_h5_chunk_job *job)
{
	hsize_t offset = first;

	return H5Dwrite_chunk(d, H5P_DEFAULT, 0, &offset, job->packed_len, job->packed) < 0 ?
		       -EIO : 0;
}
