/* Turning sampled instruction pointers into functions, inlined calls, files and lines. */
#ifndef SB_SYMBOLIZE_H
#define SB_SYMBOLIZE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "record/maps.h"
#include "model/samples.h"

/* The most frames one address yields: inlined calls nested this deep are cut. */
#define SB_SYM_MAX_FRAMES 32

/*
 * Not thread-safe. Every string in a struct sb_frame_sym it fills is owned by the
 * symbolizer and stays valid, unchanged, until sb_sym_free: never free or modify one.
 * Strings are valid UTF-8 without control characters.
 */
struct sb_symbolizer;

struct sb_symbolizer *sb_sym_new(void);
void sb_sym_free(struct sb_symbolizer *s);

/*
 * Remember the executable mappings of tgid as they are now; call again after exec and
 * each dlopen. The latest snapshot wins, but mappings from earlier ones that it no longer
 * lists are kept behind it, so addresses from before a dlclose still resolve. Reads each
 * new file's build id and program headers now, while the process is alive. Takes a copy
 * of what it needs. Returns 0 or -errno.
 */
int sb_sym_snapshot(struct sb_symbolizer *s, uint32_t tgid, const struct sb_map *maps, size_t n);

/* A forked child starts with its parent's mappings; 0, or -ENOENT for an unknown parent. */
int sb_sym_fork(struct sb_symbolizer *s, uint32_t parent, uint32_t child);

/*
 * Symbolize a user address of tgid into out[0 .. max): innermost (inlined) frame first,
 * the last one the real function that contains them. When the chain is longer than max,
 * the innermost max - 1 frames and the real function are kept.
 *
 * is_return_address: ip came from a stack walk as a return address (every frame but the
 * leaf). The lookup then uses ip - 1, which lies in the call instruction, so a call that
 * ends a function or an inlined body is attributed to its caller; offset still reports ip.
 *
 * offset is the address in the module's ELF address space (what addr2line -e takes);
 * for an address in no known mapping, module is "[unknown]" and offset is ip. Unknown
 * names are "", unknown lines -1. Returns the number of frames (>= 1), or -EINVAL when
 * max < 1, or -ENOMEM.
 */
int sb_sym_user(struct sb_symbolizer *s, uint32_t tgid, uint64_t ip, bool is_return_address,
		struct sb_frame_sym *out, int max);

/*
 * Symbolize a kernel address from /proc/kallsyms (read on first use). module is
 * "[kernel]" or the module's "[name]", offset is ip. Kernel stack entries past the leaf
 * are return addresses: pass ip - 1 for them. Without kallsyms (not privileged) the frame
 * has function "". Returns 1, or -ENOMEM.
 */
int sb_sym_kernel(struct sb_symbolizer *s, uint64_t ip, struct sb_frame_sym *out);

#endif
