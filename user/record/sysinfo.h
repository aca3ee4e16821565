/* Describing the machine and the traced process in a profile's metadata. */
#ifndef SB_SYSINFO_H
#define SB_SYSINFO_H

#include <sys/types.h>

#include "model/model.h"

/* hostname, uname, platform, chip, cores, kernel, source, version, timestamp (now). */
int sb_sysinfo_host(struct sb_profile *p);
/* user, working_directory, command, omp_num_threads and SLURM_* of a traced process. */
int sb_sysinfo_process(struct sb_profile *p, pid_t pid, const char *command);

#endif
