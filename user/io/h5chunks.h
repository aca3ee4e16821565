/*
 * The event columns' chunks, shuffled and deflated on worker threads and
 * written whole with H5Dwrite_chunk: what HDF5's own shuffle and deflate
 * filters would store, bit for bit the format any HDF5 reader decodes, but
 * compressed on every CPU instead of one. libhdf5 (serial) runs its filter
 * pipeline on the calling thread; deflate was most of record's end.
 */
#ifndef SB_IO_H5CHUNKS_H
#define SB_IO_H5CHUNKS_H

#include <hdf5.h>
#include <stddef.h>
#include <stdint.h>

/* One column's chunk: rows to compress in, the chunk as stored out. */
struct sb_h5_chunk_job {
	int64_t *values;	/* chunk_rows values; rows past n are zeroed (the fill value) */
	size_t n;		/* rows of the column in this chunk */
	void *packed;		/* the shuffled then deflated chunk */
	size_t packed_len;
	int err;		/* 0, or -ENOMEM / -EIO from zlib */
};

struct sb_h5_chunker;

/*
 * Up to max_jobs columns of chunk_rows rows each, compressed by at most
 * threads threads (the caller's included; 1: no thread is started). NULL
 * when memory is short.
 */
struct sb_h5_chunker *sb_h5_chunker_new(size_t max_jobs, size_t chunk_rows, unsigned threads);
void sb_h5_chunker_free(struct sb_h5_chunker *c);

/* Job i's buffers: fill values[0, n) and set n before sb_h5_chunker_run. */
struct sb_h5_chunk_job *sb_h5_chunker_job(struct sb_h5_chunker *c, size_t i);

/* Compress jobs [0, n_jobs) and return once all are done; 0 or the first job's error. */
int sb_h5_chunker_run(struct sb_h5_chunker *c, size_t n_jobs);

/* The chunk that starts at row first of dataset d, as job stored it. */
int sb_h5_chunk_write(hid_t d, uint64_t first, const struct sb_h5_chunk_job *job);

/* Shuffle n 8-byte values (HDF5's shuffle filter: byte k of each value together). */
void sb_h5_shuffle8(const int64_t *in, size_t n, uint8_t *out);

/* A useful number of compressing threads for jobs columns: the CPUs online, at most jobs. */
unsigned sb_h5_chunk_threads(size_t jobs);

#endif
