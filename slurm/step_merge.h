/* As a step's tasks end: a node's task profiles into the node's, the nodes' into the step's. */
#ifndef SB_STEP_MERGE_H
#define SB_STEP_MERGE_H

#include <stdint.h>

struct sb_step {
	const char *bin;	/* scope-bpf */
	const char *dir;	/* the step's folder */
	const char *node;	/* this node's name in the files' */
	const uint32_t *tasks;	/* this node's tasks, by global id */
	uint32_t n_tasks;
	uint32_t n_nodes;	/* the step's */
};

/*
 * A task's recording ended: the node's last task merges the node's files,
 * and the step's last node the nodes'. Runs in the task, as the job's user.
 * 0, or -1 when a merge failed (said through slurm_error).
 */
int sb_step_task_done(const struct sb_step *s);

#endif
