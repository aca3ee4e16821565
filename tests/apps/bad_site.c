/* Test app: markers whose descriptor a tracer must refuse, beside a valid one. */

/*
 * A tracer must see region "good" called 3 times, and 5 calls it cannot
 * record: each begins and ends at a descriptor with a wrong magic number.
 * Each of those calls counts once as an invalid site (not once per marker).
 */
#include "scope_bpf.h"

#define BAD_CALLS 5
#define GOOD_CALLS 3

/* A descriptor as SCOPE_BPF_REGION would make it, but for the magic. */
static struct scope_bpf_site bad = {
	SCOPE_BPF_SITE_MAGIC ^ 1, SCOPE_BPF_SITE_VERSION, 0, __LINE__, 0, "bad", __FILE__, 0
};

int main(void)
{
	int i;

	for (i = 0; i < BAD_CALLS; i++) {
		scope_bpf_impl_begin(&bad);
		scope_bpf_impl_end(&bad);
	}
	for (i = 0; i < GOOD_CALLS; i++)
		SCOPE_BPF_REGION("good") {
		}
	return 0;
}
