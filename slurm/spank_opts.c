/*
 * The plugin's pure part: srun --scope-bpf=OPTIONS split into the step's
 * folder and record's own options, and the names of a step's files. No Slurm
 * header here, so that the unit tests need no Slurm.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "spank_opts.h"

static int word(struct sb_spank_opts *o, char *w, char *err, size_t err_size)
{
	if (!strncmp(w, "dir=", 4)) {
		if (!w[4]) {
			snprintf(err, err_size, "--scope-bpf: dir= names no folder");
			return -1;
		}
		o->dir = w + 4;
		return 0;
	}
	/* "--" would end record's options: what follows would become the command. */
	if (!strcmp(w, "--")) {
		snprintf(err, err_size, "--scope-bpf: '--' is not an option of record");
		return -1;
	}
	if (o->n_words == SB_SPANK_MAX_WORDS) {
		snprintf(err, err_size, "--scope-bpf: more than %d options", SB_SPANK_MAX_WORDS);
		return -1;
	}
	o->words[o->n_words++] = w;
	return 0;
}

int sb_spank_opts_parse(const char *arg, struct sb_spank_opts *o, char *err, size_t err_size)
{
	char *w, *save = NULL;

	memset(o, 0, sizeof(*o));
	o->buf = strdup(arg ? arg : "");
	if (!o->buf) {
		snprintf(err, err_size, "--scope-bpf: %s", strerror(ENOMEM));
		return -1;
	}
	for (w = strtok_r(o->buf, " \t\n", &save); w; w = strtok_r(NULL, " \t\n", &save)) {
		if (word(o, w, err, err_size)) {
			sb_spank_opts_free(o);
			return -1;
		}
	}
	return 0;
}

void sb_spank_opts_free(struct sb_spank_opts *o)
{
	free(o->buf);
	memset(o, 0, sizeof(*o));
}

int sb_spank_step_dir(const struct sb_spank_opts *o, const char *submit_dir, uint32_t job,
		      uint32_t step, char *base, char *dir, size_t size)
{
	int n;

	if (o->dir && o->dir[0] == '/')
		n = snprintf(base, size, "%s", o->dir);
	else if (o->dir)
		n = snprintf(base, size, "%s/%s", submit_dir, o->dir);
	else
		n = snprintf(base, size, "%s", submit_dir);
	if (n < 0 || (size_t)n >= size)
		return -1;
	n = snprintf(dir, size, "%s/scope-bpf.%" PRIu32 ".%" PRIu32, base, job, step);
	return n < 0 || (size_t)n >= size ? -1 : 0;
}

int sb_spank_node_ok(const char *node)
{
	return node && node[0] && node[0] != '.' && !strchr(node, '/');
}

char **sb_spank_record_argv(const char *bin, const struct sb_spank_opts *o, const char *file,
			    bool daemon, int argc, char **argv)
{
	char **a = calloc((size_t)o->n_words + argc + 8, sizeof(*a));
	int i, n = 0;

	if (!a)
		return NULL;
	a[n++] = (char *)bin;
	a[n++] = "record";
	a[n++] = "-q";
	if (daemon)
		a[n++] = "--daemon";
	for (i = 0; i < o->n_words; i++)
		a[n++] = o->words[i];
	a[n++] = "-o";
	a[n++] = (char *)file;
	a[n++] = "--";
	for (i = 0; i < argc; i++)
		a[n++] = argv[i];
	return a;
}

int sb_spank_task_file(const char *dir, const char *node, uint32_t task, char *buf, size_t size)
{
	int n = snprintf(buf, size, "%s/prof.%s.t%" PRIu32 ".h5", dir, node, task);

	return n < 0 || (size_t)n >= size ? -1 : 0;
}
