/* The header alone (scope_bpf::header): "header_only" twice, no library. */
#include <scope_bpf.h>

int main(void)
{
	int i;

	for (i = 0; i < 2; i++)
		SCOPE_BPF_REGION("header_only") {
		}
	return 0;
}
