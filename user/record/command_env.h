/*
 * What a launched command's environment gets from record: the CUPTI library
 * (--cuda), the annotation libraries (--annotations) and the PMPI library
 * (--mpi=pmpi). Set in the process that forks the command: the recorder for
 * a command it launches, scope-bpf's client of scope-bpfd for its own.
 */
#ifndef SB_COMMAND_ENV_H
#define SB_COMMAND_ENV_H

#include "cmd/record_opts.h"
#include "util/error.h"

/*
 * Set them in this process's environment, which a command forked after it
 * inherits; o->mpi_pmpi says whether the PMPI library is in it. 0, or
 * -errno with err saying which option failed and why (record's exit 2).
 */
int sb_command_env_setup(struct record_opts *o, struct sb_error *err);

#endif
