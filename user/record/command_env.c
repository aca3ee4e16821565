/* The launched command's libraries, for the recorder and scope-bpfd's client alike. */
#include "record/annot_env.h"
#include "record/command_env.h"
#include "record/cuda_env.h"
#include "record/mpi_env.h"

int sb_command_env_setup(struct record_opts *o, struct sb_error *err)
{
	int ret = o->cuda ? sb_cuda_env_setup(err) : 0;

	if (!ret)
		ret = sb_annot_env_setup(o->annotations, o->annotations_given, err);
	if (!ret)
		ret = sb_mpi_env_setup(o, err);
	return ret;
}
