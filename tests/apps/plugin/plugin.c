/* A plugin for dlplugins: built twice, as libplugin_a.so and libplugin_b.so, with another region name. */
#include "scope_bpf.h"

#ifndef PLUGIN_REGION
#error "build with -DPLUGIN_REGION='\"name\"'"
#endif

void plugin_run(void);

void plugin_run(void)
{
	SCOPE_BPF_REGION(PLUGIN_REGION) {
		__asm__ __volatile__("" ::: "memory");
	}
}
