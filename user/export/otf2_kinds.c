/* Each kind of data's part of the OTF2 archive (export/otf2_impl.h): one line a kind. */
#ifdef SB_HAVE_OTF2
#include "export/otf2_impl.h"

/* In the archive's order: their locations, groups, nodes and regions follow the calls'. */
const struct sb_otf2_kind *const sb_otf2_kinds[] = {
	&sb_otf2_cuda_kind,
};

const size_t sb_otf2_n_kinds = sizeof(sb_otf2_kinds) / sizeof(sb_otf2_kinds[0]);
#endif
