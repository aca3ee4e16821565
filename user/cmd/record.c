/* scope-bpf record: the command line; the recording itself is record/recorder.c. */
#include <stdio.h>

#include "cmd/cli.h"
#include "cmd/commands.h"
#include "cmd/record_opts.h"
#include "counters/events.h"
#include "counters/likwid.h"
#include "record/daemon_client.h"
#include "record/recorder.h"

int cmd_record(int argc, char **argv)
{
	struct sb_error err = { { 0 } };
	struct record_opts o;
	int ret;

	if (record_parse_args(argc, argv, &o, &err)) {
		record_opts_free(&o);
		/* The usage text would bury the one line that says what is wrong. */
		return sb_usage_error("record", err.msg);
	}
	if (o.help) {
		record_opts_free(&o);
		record_usage(stdout);
		return 0;
	}
	if (o.list_events)
		ret = sb_counter_list_events(stdout) ? 1 : 0;
	else if (o.list_groups)
		ret = sb_likwid_list_groups(stdout) ? 1 : 0;
	else if ((ret = sb_client_record(argc, argv, &o)) == SB_CLIENT_LOCAL)
		ret = sb_record(&o);
	record_opts_free(&o);
	return ret;
}
