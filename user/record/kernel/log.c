/* What libbpf says while the kernel layer loads: kept for the verdict, shown with -v (load.h). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/libbpf.h>

#include "record/kernel/load.h"

static bool log_verbose;
static bool log_details = true;	/* libbpf's debug messages too, with -v */
static struct sb_kernel_log *capturing;	/* the load in progress, or NULL */

/* The verifier's own words: the last line of its log that is not its statistics. */
static void take_reason(const char *log, char *reason, size_t size)
{
	const char *line = log, *next, *best = NULL;
	size_t len, best_len = 0;

	for (; *line; line = next) {
		next = strchr(line, '\n');
		len = next ? (size_t)(next - line) : strlen(line);
		next = next ? next + 1 : line + len;
		if (!len || !strncmp(line, "processed ", 10) || !strncmp(line, "verification time", 17) ||
		    !strncmp(line, "stack depth", 11) || !strncmp(line, "-- END", 6) ||
		    strstr(line, "-- BEGIN PROG LOAD LOG --"))
			continue;
		best = line;
		best_len = len;
	}
	if (best)
		snprintf(reason, size, "%.*s", (int)best_len, best);
}

/* libbpf: "prog 'NAME': BPF program load failed: ..." and the log between BEGIN and END. */
void sb_kernel_log_capture(struct sb_kernel_log *l, const char *msg)
{
	const char *p = strstr(msg, "prog '"), *q;
	size_t len;

	if (p) {
		p += 6;
		q = strchr(p, '\'');
		len = q ? (size_t)(q - p) : 0;
		if (len && len < sizeof(l->program) &&
		    (strstr(q, "load failed") || strstr(q, "BEGIN PROG LOAD LOG"))) {
			memcpy(l->program, p, len);
			l->program[len] = 0;
		}
		if (q && strstr(q, "BEGIN PROG LOAD LOG"))
			take_reason(strstr(q, "BEGIN PROG LOAD LOG"), l->reason, sizeof(l->reason));
	}
	len = strcspn(msg, "\n");
	if (len && !strstr(msg, "LOAD LOG"))
		snprintf(l->last_warning, sizeof(l->last_warning), "%.*s", (int)len, msg);
}

static int kernel_print(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	char *msg = NULL;
	va_list copy;
	int n = 0;

	if (capturing && level == LIBBPF_WARN) {
		va_copy(copy, ap);
		if (vasprintf(&msg, fmt, copy) >= 0)
			sb_kernel_log_capture(capturing, msg);
		va_end(copy);
	}
	if (log_verbose && (log_details || level != LIBBPF_DEBUG))
		n = vfprintf(stderr, fmt, ap);
	free(msg);
	return n;
}

void sb_kernel_log_init(bool verbose)
{
	log_verbose = verbose;
	libbpf_set_print(kernel_print);
}

void sb_kernel_log_details(bool on)
{
	log_details = on;
}

void sb_kernel_log_start(struct sb_kernel_log *l)
{
	memset(l, 0, sizeof(*l));
	capturing = l;
}

void sb_kernel_log_stop(void)
{
	capturing = NULL;
}
