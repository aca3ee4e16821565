/* Two sample tables equal field by field: a round trip (HDF5, the reader's pipe) loses nothing. */
#ifndef SB_TEST_SAME_SAMPLES_H
#define SB_TEST_SAME_SAMPLES_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "model/samples.h"

static inline void assert_same_samples(const struct sb_samples *a, const struct sb_samples *b)
{
	size_t i;

	assert_int_equal(b->n_frames, a->n_frames);
	for (i = 0; i < a->n_frames; i++) {
		assert_string_equal(b->frames[i].function, a->frames[i].function);
		assert_string_equal(b->frames[i].file, a->frames[i].file);
		assert_string_equal(b->frames[i].module, a->frames[i].module);
		assert_int_equal(b->frames[i].line, a->frames[i].line);
		assert_int_equal(b->frames[i].offset, a->frames[i].offset);
		assert_int_equal(b->frames[i].inlined, a->frames[i].inlined);
	}
	assert_int_equal(b->n_stack_frames, a->n_stack_frames);
	assert_memory_equal(b->stack_frames, a->stack_frames,
			    a->n_stack_frames * sizeof(*a->stack_frames));
	assert_int_equal(b->n_stacks, a->n_stacks);
	for (i = 0; i < a->n_stacks; i++) {
		assert_int_equal(b->stacks[i].first, a->stacks[i].first);
		assert_int_equal(b->stacks[i].depth, a->stacks[i].depth);
	}
	assert_int_equal(b->n_paths, a->n_paths);
	for (i = 0; i < a->n_paths; i++) {
		assert_int_equal(b->paths[i].parent, a->paths[i].parent);
		assert_string_equal(b->paths[i].name, a->paths[i].name);
	}
	assert_int_equal(b->n_samples, a->n_samples);
	for (i = 0; i < a->n_samples; i++)
		assert_memory_equal(&b->samples[i], &a->samples[i], sizeof(a->samples[i]));
	assert_int_equal(b->n_timeline, a->n_timeline);
	for (i = 0; i < a->n_timeline; i++)
		assert_memory_equal(&b->timeline[i], &a->timeline[i], sizeof(a->timeline[i]));
}

#endif
