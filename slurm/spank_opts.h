/* What srun --scope-bpf=OPTIONS asks for, and the names of the files of a step. */
#ifndef SB_SPANK_OPTS_H
#define SB_SPANK_OPTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define SB_SPANK_MAX_WORDS 64

struct sb_spank_opts {
	const char *dir;			/* dir=PATH, or NULL for the default */
	char *words[SB_SPANK_MAX_WORDS];	/* record's own options, as typed */
	int n_words;
	char *buf;				/* the copy of OPTIONS the pointers point into */
};

/* Splits OPTIONS at blanks; NULL or "" is no options. -1 with err set on a bad one. */
int sb_spank_opts_parse(const char *arg, struct sb_spank_opts *o, char *err, size_t err_size);
void sb_spank_opts_free(struct sb_spank_opts *o);

/*
 * The folder the step's folders go in (base: dir as given when absolute,
 * under submit_dir when relative, else submit_dir) and the step's own,
 * base/scope-bpf.JOB.STEP: steps of one job, in turn or at once, never mix
 * their files. -1 when they do not fit.
 */
int sb_spank_step_dir(const struct sb_spank_opts *o, const char *submit_dir, uint32_t job,
		      uint32_t step, char *base, char *dir, size_t size);

/* A node name that can be part of a file name: not empty, no '/', not starting with '.'. */
int sb_spank_node_ok(const char *node);

/*
 * record's arguments for one task: bin record -q [--daemon] WORDS -o FILE --
 * ARGV; ours come last so that a user's -o cannot move the file the merges
 * look for. --daemon for a user without root: without scope-bpfd, record
 * says that it is not there. NULL when out of memory; free() the array only.
 */
char **sb_spank_record_argv(const char *bin, const struct sb_spank_opts *o, const char *file,
			    bool daemon, int argc, char **argv);

/* DIR/prof.NODE.tTASK.h5, a task's file that its node's merge takes in. */
int sb_spank_task_file(const char *dir, const char *node, uint32_t task, char *buf, size_t size);

#endif
