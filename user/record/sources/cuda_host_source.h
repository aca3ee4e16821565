/* CUDA runtime calls timed on the host: what the recorder asks of the source. */
#ifndef SB_CUDA_HOST_SOURCE_H
#define SB_CUDA_HOST_SOURCE_H

#include "record/source.h"

/* Files with a CUDA runtime probed so far: something to record in a process without markers. */
int sb_cuda_host_runtimes(const struct sb_sources *set);

#endif
