/* Integration: `report --html` pages load in headless Chromium without errors and show the profile. */
#include <sys/stat.h>

#include "harness.h"
#include "io/h5write.h"
#include "render/html.h"
#include "unit/array_stream.h"
#include "unit/cuda_acts.h"
#include "unit/json_check.h"
#include "unit/scaling_fixture.h"
#include "render/scaling.h"

/* Chromium itself can stall on a broken machine; the test must not. */
#define CHROMIUM_TIMEOUT "60"

static bool executable_in_path(const char *name, char *buf, size_t size)
{
	const char *path = env_or("PATH", "/usr/bin:/bin");
	const char *at = path, *end;

	while (*at) {
		end = strchr(at, ':');
		if (!end)
			end = at + strlen(at);
		snprintf(buf, size, "%.*s/%s", (int)(end - at), at, name);
		if (end > at && !access(buf, X_OK))
			return true;
		at = *end ? end + 1 : end;
	}
	return false;
}

/* $CHROMIUM, else chromium from PATH; under CI a skip would hide a broken page, so it fails. */
static const char *require_chromium(char *buf, size_t size)
{
	const char *env = getenv("CHROMIUM");

	/* Callers use buf: $CHROMIUM is copied there too. */
	if (env && *env) {
		snprintf(buf, size, "%s", env);
		return buf;
	}
	if (executable_in_path("chromium", buf, size))
		return buf;
	if (!strcmp(env_or("CI", ""), "true"))
		fail_msg("chromium is not installed (tools/install-deps.sh installs it) and CI=true forbids skipping");
	fprintf(stderr, "skipping: chromium not found (apt-get install chromium)\n");
	skip();
	return NULL;
}

static char *slurp(const char *path)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = fopen(path, "r");

	if (!f)
		fail_msg("%s: %s", path, strerror(errno));
	if (getdelim(&text, &len, '\0', f) < 0) {
		free(text);
		text = strdup("");
	}
	fclose(f);
	assert_non_null(text);
	return text;
}

/* Headless Chromium on file://page with a fresh profile dir; mode is "--dump-dom" or "--screenshot=PNG". */
static int chromium(const char *bin, const char *page, const char *mode, const char *out,
		    const char *err)
{
	static int runs;
	char user_dir[400], url[600], name[32];
	char *argv[] = {
		"timeout", CHROMIUM_TIMEOUT, (char *)bin, "--headless", "--no-sandbox",
		"--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--hide-scrollbars", "--window-size=1400,1000", user_dir, "--enable-logging=stderr",
		"--v=0", (char *)mode, url, NULL,
	};
	pid_t pid;
	int fd;

	snprintf(name, sizeof(name), "chromium-%d", runs++);
	snprintf(user_dir, sizeof(user_dir), "--user-data-dir=%s/%s", tmp_dir, name);
	snprintf(url, sizeof(url), "file://%s", page);
	pid = fork();
	if (pid == 0) {
		fd = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (fd >= 0)
			dup2(fd, STDOUT_FILENO);
		fd = open(err, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (fd >= 0)
			dup2(fd, STDERR_FILENO);
		execvp(argv[0], argv);
		_exit(127);
	}
	return wait_status(pid);
}

static void expect_has(const char *text, const char *needle, const char *what)
{
	if (!strstr(text, needle))
		fail_msg("%s lacks \"%s\"", what, needle);
}

/* Load the page; it must say it rendered, hold no errors, and Chromium's console must be quiet. */
static char *load_page(const char *bin, const char *page)
{
	char dom_path[300], err_path[300];
	char *dom, *log;

	tmp_file("dom.html", dom_path, sizeof(dom_path));
	tmp_file("chromium.txt", err_path, sizeof(err_path));
	assert_int_equal(chromium(bin, page, "--dump-dom", dom_path, err_path), 0);
	dom = slurp(dom_path);
	log = slurp(err_path);
	if (strstr(log, "Uncaught") || strstr(log, ":CONSOLE"))
		fail_msg("the page logged to the console:\n%s", log);
	free(log);
	if (strstr(dom, "class=\"error-msg\""))
		fail_msg("the page reported errors:\n%s", strstr(dom, "class=\"error-msg\""));
	expect_has(dom, "<body data-ready=\"ok\">", "the DOM");
	expect_has(dom, "<div id=\"errors\"></div>", "the DOM");
	return dom;
}

/* The element with this id has attr (name="value") among its attributes. */
static void expect_attr(const char *dom, const char *id, const char *attr)
{
	char needle[100], *tag;
	const char *at, *start, *end;

	snprintf(needle, sizeof(needle), "id=\"%s\"", id);
	at = strstr(dom, needle);
	if (!at)
		fail_msg("no element #%s in the DOM", id);
	for (start = at; start > dom && *start != '<'; start--)
		;
	end = strchr(at, '>');
	assert_non_null(end);
	tag = strndup(start, (size_t)(end - start + 1));
	assert_non_null(tag);
	if (!strstr(tag, attr))
		fail_msg("#%s lacks %s: %s", id, attr, tag);
	free(tag);
}

/* A region name as the summary table's row shows it: after the fold arrow and color swatch. */
static void expect_row(const char *dom, const char *text)
{
	char needle[300];

	snprintf(needle, sizeof(needle), "</span>%s</td>", text);
	expect_has(dom, needle, "the summary table");
}

#define EVIL "<img src=x onerror=alert(1)></script>"
#define EVIL_DOM "&lt;img src=x onerror=alert(1)&gt;&lt;/script&gt;"

/* main { solve { EVIL } } on two threads of rank 0, grouped by region as the index wants. */
static const struct {
	const char *region;
	int64_t thread, start, end, id, parent, offcpu;
} calls[] = {
	{ "main", 0, 0, 1000000, 1, -1, 100000 },
	{ "main", 1, 100000, 900000, 2, -1, 0 },
	{ "solve", 0, 100000, 600000, 3, 1, 50000 },
	{ "solve", 1, 200000, 800000, 5, 2, 0 },
	{ "solve", 0, 650000, 950000, 4, 1, 0 },
	{ EVIL, 0, 150000, 400000, 6, 3, 20000 },
	{ EVIL, 1, 300000, 500000, 7, 5, 0 },
};

/*
 * Every call counted by a LIKWID group of the test's own (SCOPE_BPF_LIKWID_GROUPS)
 * with a FLOP rate and a memory bandwidth, so the page draws its roofline.
 */
static void count_flops(struct sb_profile *p)
{
	static const char group[] = "EVENTSET\nPMC0 FP_ARITH_INST_RETIRED_SCALAR_DOUBLE\n"
		"PMC1 L1D_REPLACEMENT\n\nMETRICS\nDP [MFLOP/s] 1.0E-06*PMC0/time\n"
		"Memory bandwidth [MBytes/s] 1.0E-06*PMC1*64.0/time\n";
	char dir[300], path[400];
	unsigned k;
	size_t i;
	FILE *f;

	tmp_file("groups", dir, sizeof(dir));
	assert_int_equal(setenv("SCOPE_BPF_LIKWID_GROUPS", dir, 1), 0);
	strcat(dir, "/skylake");
	assert_int_equal(mkdir(tmp_file("groups", path, sizeof(path)), 0755), 0);
	assert_int_equal(mkdir(dir, 0755), 0);
	snprintf(path, sizeof(path), "%s/ROOF.txt", dir);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(group, f);
	assert_int_equal(fclose(f), 0);
	for (k = 0; k < 2; k++)
		p->columns |= SB_COL_METRIC(SB_METRIC_COUNTER + k) |
			      SB_COL_METRIC(SB_METRIC_COUNTER_EXCL + k);
	assert_int_equal(sb_profile_alloc_counters(p), 0);
	for (i = 0; i < p->n_events; i++)
		for (k = 0; k < 2; k++) {
			sb_event_set_metric(p, i, SB_METRIC_COUNTER + k, k ? 100000 : 1000000);
			sb_event_set_metric(p, i, SB_METRIC_COUNTER_EXCL + k, k ? 100000 : 1000000);
		}
	assert_int_equal(sb_profile_set_str(p, "counter_events",
					    "FP_ARITH_INST_RETIRED_SCALAR_DOUBLE,L1D_REPLACEMENT"), 0);
	assert_int_equal(sb_profile_set_str(p, "counter_group", "ROOF"), 0);
	assert_int_equal(sb_profile_set_str(p, "counter_group_arch", "skylake"), 0);
	assert_int_equal(sb_profile_set_str(p, "counter_group_counters", "PMC0,PMC1"), 0);
}

/* The calls above, two threads of rank 0, no counters. */
static void build_profile(struct sb_profile *p)
{
	size_t n = sizeof(calls) / sizeof(calls[0]), i;
	struct sb_thread th = { .rank = 0, .end_ns = -1, .cpu_ns = -1, .name = "worker" };
	struct sb_pair *pr;
	ssize_t r;

	sb_profile_init(p);
	p->columns = SB_COL_THREAD | SB_COL_CALL_ID | SB_COL_PARENT_ID | SB_COL_OFFCPU;
	p->events = calloc(8, sizeof(*p->events));
	p->pairs = calloc(8, sizeof(*p->pairs));
	assert_true(p->events && p->pairs);
	for (i = 0; i < n; i++) {
		r = sb_profile_find_region(p, calls[i].region);
		if (r < 0) {
			r = sb_profile_add_region(p, calls[i].region, "", -1, "[]");
			pr = &p->pairs[p->n_pairs++];
			*pr = (struct sb_pair){ .region = (uint32_t)r, .offset = p->n_events,
						.exclusive_total = -1 };
			sb_stats_init(&pr->stats);
		}
		pr = &p->pairs[r];
		pr->count++;
		sb_stats_add(&pr->stats, calls[i].start, calls[i].end, -1);
		p->events[p->n_events++] = (struct sb_event){
			.start = calls[i].start, .end = calls[i].end, .thread = calls[i].thread,
			.call_id = calls[i].id, .parent_id = calls[i].parent,
			.metric = { [SB_METRIC_GPU] = -1, [SB_METRIC_OFFCPU] = calls[i].offcpu },
		};
	}
	for (i = 0; i < 2; i++) {
		th.index = (int64_t)i;
		th.tid = 100 + (int64_t)i;
		assert_true(sb_profile_add_thread(p, &th) >= 0);
	}
	assert_int_equal(sb_profile_set_int(p, "start_time_ns", 0), 0);
	assert_int_equal(sb_profile_set_int(p, "finalize_time_ns", 1000000), 0);
}

static void write_profile(const char *path)
{
	struct sb_error err = { .msg = "" };
	struct sb_array_stream s;
	struct sb_profile p;

	build_profile(&p);
	count_flops(&p);
	sb_array_stream_init(&s, &p);
	if (sb_h5_write(path, &p, &s.base, &err))
		fail_msg("writing %s: %s", path, err.msg);
	sb_profile_free(&p);
}

static void report_html(const char *h5, const char *html)
{
	char *argv[] = { (char *)scope_bin(), "report", "--html", (char *)html, "--peak-gflops",
			 "50", "--peak-gbs", "20", (char *)h5, NULL };
	char err[2048];
	int st = run(argv);

	if (st) {
		read_stderr(err, sizeof(err));
		fail_msg("report --html exited %d: %s", st, err);
	}
}

static void test_page_renders_without_errors_and_escapes_names(void **state)
{
	char bin[300], h5[300], html[300];
	char *dom;

	(void)state;
	require_chromium(bin, sizeof(bin));
	write_profile(tmp_file("synthetic.h5", h5, sizeof(h5)));
	report_html(h5, tmp_file("synthetic.html", html, sizeof(html)));
	dom = load_page(bin, html);
	expect_row(dom, "main");
	expect_row(dom, "solve");
	/* The hostile name is text in the table, never markup. */
	expect_row(dom, EVIL_DOM);
	/* An element would serialize with quoted attributes; the data script holds the raw name. */
	assert_null(strstr(dom, "<img src=\"x\""));
	expect_has(dom, "<section id=\"samples\" hidden=\"\">", "the DOM");
	expect_has(dom, "Off-CPU</th>", "the summary table");
	/* The canvases drew every call (7) and every call path under "all calls" (1 + 3). */
	expect_attr(dom, "timeline-canvas", "data-drawn=\"7\"");
	expect_attr(dom, "flame-canvas", "data-drawn=\"4\"");
	/* The roofline drew a point per region (the group's FLOP rate and bandwidth). */
	expect_attr(dom, "roofline-chart", "data-drawn=\"3\"");
	/* One rank: no heat map. Over the run: the durations, then each counter. */
	expect_has(dom, "<section id=\"ranks\" hidden=\"\">", "the DOM");
	expect_has(dom, "<option value=\"1\">FP_ARITH_INST_RETIRED_SCALAR_DOUBLE</option>",
		   "the plots' choice");
	expect_has(dom, "<option value=\"2\">L1D_REPLACEMENT</option>", "the plots' choice");
	free(dom);
}

/* The page of p, written by the library: the HDF5 side of CUDA activity is not needed here. */
static void write_page(const struct sb_profile *p, const char *path)
{
	struct sb_html_opts o = { .title = "gpu", .rank = -1 };
	struct sb_ct_opts co = { .rank = -1, .sort = SB_CT_SORT_TOTAL };
	struct sb_error err = { .msg = "" };
	struct sb_calltree t;
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	assert_int_equal(sb_calltree_build(&t, p, &co, &err), 0);
	if (sb_report_html(f, p, &t, &o, &err))
		fail_msg("HTML report: %s", err.msg);
	assert_int_equal(fclose(f), 0);
	sb_calltree_free(&t);
}

/* solve's first call launched 250 us of GPU work, its others none: record --cuda's GPU column. */
static void add_gpu_times(struct sb_profile *p)
{
	struct sb_pair *solve = &p->pairs[1];
	size_t i;

	p->columns |= SB_COL_GPU;
	for (i = 0; i < solve->count; i++)
		p->events[solve->offset + i].metric[SB_METRIC_GPU] = i ? 0 : 250000;
	solve->stats.gpu_count = solve->count;
	solve->stats.gpu_total = 250000;
}

static void test_gpu_lanes_render(void **state)
{
	char bin[300], html[300];
	struct sb_profile p;
	char *dom;

	(void)state;
	require_chromium(bin, sizeof(bin));
	build_profile(&p);
	cu_add_activity(&p);
	add_gpu_times(&p);
	write_page(&p, tmp_file("gpu.html", html, sizeof(html)));
	sb_profile_free(&p);
	dom = load_page(bin, html);
	/* Every call (7) and every kernel, copy and memset (4), each on its lane. */
	expect_attr(dom, "timeline-canvas", "data-drawn=\"11\"");
	expect_has(dom, "memcpy</span>", "the timeline's legend");
	/* Each kernel with its colour, as the lanes draw them, as copies and memsets are. */
	expect_has(dom, "square(float*, int)</span>", "the timeline's legend");
	expect_has(dom, "plain_kernel</span>", "the timeline's legend");
	/* The text report's GPU columns: solve's 250 us of its 1.40 ms, 17.9%. */
	expect_has(dom, "GPU time</th>", "the summary table");
	expect_has(dom, "GPU share</th>", "the summary table");
	expect_has(dom, "<td><span>250 \u00b5s</span></td><td><span>17.9%</span></td></tr>",
		   "the summary table");
	free(dom);
}

/*
 * Drives the page as a user would, after it rendered: keys on the focused canvases, the search
 * box, and a pointer that stays put while the view moves. Each step writes "name=value" into
 * #probe, which the DOM dump then holds.
 */
static const char probe_script[] =
	"<script>\n"
	"(function () {\n"
	"var out = [], tl = document.getElementById('timeline-canvas');\n"
	"var fl = document.getElementById('flame-canvas'), tip = document.getElementById('tip');\n"
	"function say(k, v) { out.push(k + '=' + v); }\n"
	"function key(c, k) { c.focus(); c.dispatchEvent(new KeyboardEvent('keydown', { key: k, bubbles: true, cancelable: true })); }\n"
	"function move(c, x, y) { c.dispatchEvent(new MouseEvent('mousemove', { clientX: x, clientY: y, bubbles: true })); }\n"
	"function shown() { return tip.style.display === 'block' ? tip.firstChild.textContent : 'none'; }\n"
	"var range = function () { return document.getElementById('tl-range').textContent; };\n"
	"say('focusable', tl.tabIndex + ',' + fl.tabIndex);\n"
	"var all = range();\n"
	"key(tl, '+');\n"
	"say('zoomed', range() !== all && /500 \\u00b5s shown/.test(range()));\n"
	"var half = range();\n"
	"key(tl, 'ArrowRight');\n"
	"say('panned', range() !== half && /500 \\u00b5s shown/.test(range()));\n"
	"key(tl, 'ArrowLeft');\n"
	"say('back', range() === half);\n"
	/* View [250, 750] us: 620 us is in the gap between the two solve calls of thread 0. */
	"var r = tl.getBoundingClientRect(), k = (r.width - 188) / 500000, x = r.left + 180 + 370000 * k;\n"
	"var y, gap = -1, y0;\n"
	"for (y = r.top + 25; y < r.top + 200 && gap < 0; y += 2) {\n"
	"	move(tl, x, y);\n"
	"	if (shown() === 'main') y0 = y;\n"
	"	else if (y0 && shown() === 'none') gap = y;\n"
	"}\n"
	"say('gap', gap > 0 ? shown() : 'not found');\n"
	/* Shift+wheel pans 120 us back: solve [100, 600] us comes under the pointer that stayed. */
	"tl.dispatchEvent(new WheelEvent('wheel', { deltaX: -120000 * k, deltaY: 0, clientX: x, clientY: gap, bubbles: true, cancelable: true }));\n"
	"say('after-pan', shown());\n"
	"key(tl, 'Escape');\n"
	"say('reset', range() === all);\n"
	"key(fl, 'ArrowDown');\n"
	"say('selected', fl.getAttribute('data-selected') + ',' + shown());\n"
	"key(fl, 'ArrowDown');\n"
	"key(fl, 'Enter');\n"
	"say('flame-in', document.getElementById('fl-focus').textContent);\n"
	"key(fl, 'Escape');\n"
	"key(fl, 'Escape');\n"
	"say('flame-out', '[' + document.getElementById('fl-focus').textContent + ']');\n"
	"var box = document.getElementById('search');\n"
	"box.value = 'SOL';\n"
	"box.dispatchEvent(new Event('input', { bubbles: true }));\n"
	"say('count', document.getElementById('search-count').textContent);\n"
	"say('rows', document.querySelectorAll('#summary-body tr.match').length);\n"
	"say('timeline-matched', tl.getAttribute('data-matched'));\n"
	"say('flame-matched', fl.getAttribute('data-matched'));\n"
	"box.value = '';\n"
	"box.dispatchEvent(new Event('input', { bubbles: true }));\n"
	"say('cleared', document.querySelectorAll('#summary-body tr.match').length + ',' + tl.getAttribute('data-matched'));\n"
	"var pre = document.createElement('pre');\n"
	"pre.id = 'probe';\n"
	"pre.textContent = '\\n' + out.join('\\n') + '\\n';\n"
	"document.body.appendChild(pre);\n"
	"})();\n"
	"</script>\n";

/* The page at html with script run after its own, written to probe. */
static void add_probe(const char *html, const char *probe, const char *script)
{
	char *page = NULL, *end;
	size_t len = 0;
	FILE *f = fopen(html, "r");

	assert_non_null(f);
	assert_true(getdelim(&page, &len, '\0', f) > 0);
	fclose(f);
	end = strstr(page, "</body>");
	assert_non_null(end);
	f = fopen(probe, "w");
	assert_non_null(f);
	fprintf(f, "%.*s%s%s", (int)(end - page), page, script, end);
	assert_int_equal(fclose(f), 0);
	free(page);
}

/* CPU samples of main (tid 100) and worker (101), each with its time: ticks under their calls. */
static void add_timed_samples(struct sb_profile *p)
{
	static const uint32_t ids[] = { 0, 1 };
	static const struct sb_stack stack = { 0, 2 };
	static const struct sb_sample rows[] = {
		{ SB_SAMPLE_CPU, 0, 0, 0, 0, -1, 1, 0 }, { SB_SAMPLE_CPU, 0, 0, 1, 0, -1, 1, 0 },
		{ SB_SAMPLE_CPU, 0, 1, 1, 0, -1, 1, 0 },
	};
	static const struct sb_timed_sample timed[] = {
		{ 50000, 0, 1, 0, 0, 0, -1 }, { 120000, 0, 2, 0, 1, 0, -1 },
		{ 300000, 0, 3, 1, 1, 0, -1 },
	};
	struct sb_samples *s = &p->samples;

	s->frames = calloc(2, sizeof(*s->frames));
	s->paths = calloc(2, sizeof(*s->paths));
	s->stack_frames = malloc(sizeof(ids));
	s->stacks = malloc(sizeof(stack));
	s->samples = malloc(sizeof(rows));
	s->timeline = malloc(sizeof(timed));
	assert_true(s->frames && s->paths && s->stack_frames && s->stacks && s->samples &&
		    s->timeline);
	s->frames[0] = (struct sb_frame_sym){ strdup("compute"), strdup(""), -1, strdup("/app"),
					      0x10, false };
	s->frames[1] = (struct sb_frame_sym){ strdup("main"), strdup(""), -1, strdup("/app"),
					      0x20, false };
	s->paths[0] = (struct sb_region_path){ -1, strdup("main") };
	s->paths[1] = (struct sb_region_path){ 0, strdup("solve") };
	memcpy(s->stack_frames, ids, sizeof(ids));
	memcpy(s->stacks, &stack, sizeof(stack));
	memcpy(s->samples, rows, sizeof(rows));
	memcpy(s->timeline, timed, sizeof(timed));
	s->n_frames = s->n_paths = s->n_stack_frames = 2;
	s->n_stacks = 1;
	s->n_samples = s->n_timeline = 3;
}

/* Hovers down worker's lane at 300 us, where its sample is, and says what the tip names. */
static const char tick_script[] =
	"<script>\n"
	"(function () {\n"
	"var tl = document.getElementById('timeline-canvas'), tip = document.getElementById('tip');\n"
	"var r = tl.getBoundingClientRect(), x = r.left + 180 + 300000 * (r.width - 188) / 1000000;\n"
	"var found = 'none', y;\n"
	"for (y = r.top + 25; y < r.bottom && found === 'none'; y++) {\n"
	"	tl.dispatchEvent(new MouseEvent('mousemove', { clientX: x, clientY: y, bubbles: true }));\n"
	"	if (tip.style.display === 'block' && /^CPU sample/.test(tip.firstChild.textContent))\n"
	"		found = tip.textContent;\n"
	"}\n"
	"var pre = document.createElement('pre');\n"
	"pre.id = 'probe';\n"
	"pre.textContent = '\\ntick=' + found + '\\n';\n"
	"document.body.appendChild(pre);\n"
	"})();\n"
	"</script>\n";

static void test_sample_ticks_render_with_their_tips(void **state)
{
	char bin[300], html[300], probe[300];
	struct sb_profile p;
	char *dom;

	(void)state;
	require_chromium(bin, sizeof(bin));
	build_profile(&p);
	add_timed_samples(&p);
	write_page(&p, tmp_file("ticks.html", html, sizeof(html)));
	sb_profile_free(&p);
	add_probe(html, tmp_file("ticks-probe.html", probe, sizeof(probe)), tick_script);
	dom = load_page(bin, probe);
	/* Every call (7) as before, and the three samples as ticks under them. */
	expect_attr(dom, "timeline-canvas", "data-drawn=\"7\"");
	expect_attr(dom, "timeline-canvas", "data-ticks=\"3\"");
	expect_has(dom, "are its CPU samples.", "the timeline's note");
	/* The tip of worker's sample: its function, region path, time, CPU and thread. */
	expect_has(dom, "\ntick=CPU sample: compute", "the probe");
	expect_has(dom, "main \u203a solve", "the tick's tip");
	expect_has(dom, "300 \u00b5s after the first call", "the tick's tip");
	expect_has(dom, "worker (101)", "the tick's tip");
	free(dom);
}

static void test_keys_search_and_tooltips_that_follow_the_view(void **state)
{
	char bin[300], h5[300], html[300], probe[300];
	char *dom;

	(void)state;
	require_chromium(bin, sizeof(bin));
	write_profile(tmp_file("keys.h5", h5, sizeof(h5)));
	report_html(h5, tmp_file("keys.html", html, sizeof(html)));
	add_probe(html, tmp_file("probe.html", probe, sizeof(probe)), probe_script);
	dom = load_page(bin, probe);
	expect_has(dom, "\nfocusable=0,0\n", "the probe");
	/* + zooms in at the centre, arrows pan a tenth of the view and back. */
	expect_has(dom, "\nzoomed=true\npanned=true\nback=true\n", "the probe");
	/* The pointer rests on nothing; the view pans under it onto solve: the tip follows. */
	expect_has(dom, "\ngap=none\nafter-pan=solve\n", "the probe");
	expect_has(dom, "\nreset=true\n", "the probe");
	/* Down from "all calls" selects main, shows its tip; Enter zooms into main's callee. */
	expect_has(dom, "\nselected=main,main\n", "the probe");
	expect_has(dom, "\nflame-in=zoomed into main \u203a solve\n", "the probe");
	expect_has(dom, "\nflame-out=[]\n", "the probe");
	/* Case aside, "SOL" is in solve alone: its row, its 3 calls, its one call path. */
	expect_has(dom, "\ncount=1 region matches\nrows=1\ntimeline-matched=3\nflame-matched=1\n",
		   "the probe");
	expect_has(dom, "\ncleared=0,0\n", "the probe");
	free(dom);
}

/* A heat code's step: ITERS x (stencil, boundary) back to back, stencil 99% of the time. */
#define ITERS 10000
#define STENCIL_NS 747000	/* 7.47 s in all */
#define BOUNDARY_NS 9300	/* 93 ms in all */
#define PERIOD_NS (STENCIL_NS + BOUNDARY_NS)

/* n calls of a new region on thread 0, dur long, one every PERIOD_NS from start, in step. */
static void add_calls(struct sb_profile *p, const char *name, int64_t start, int64_t dur,
		      size_t n)
{
	ssize_t r = sb_profile_add_region(p, name, "", -1, "[]");
	struct sb_pair *pr = &p->pairs[p->n_pairs++];
	struct sb_event *e;
	size_t k;

	assert_true(r >= 0);
	*pr = (struct sb_pair){ .region = (uint32_t)r, .offset = p->n_events, .count = n,
				.exclusive_total = -1 };
	sb_stats_init(&pr->stats);
	for (k = 0; k < n; k++) {
		e = &p->events[p->n_events++];
		sb_event_blank(e);
		e->start = start + (int64_t)k * PERIOD_NS;
		e->end = e->start + dur;
		e->thread = 0;
		e->call_id = (int64_t)p->n_events;
		e->parent_id = r ? 1 : -1;
		sb_stats_add(&pr->stats, e->start, e->end, -1);
	}
}

static void build_overview_profile(struct sb_profile *p)
{
	struct sb_thread th = { .rank = 0, .end_ns = -1, .cpu_ns = -1, .name = "heat", .tid = 7 };

	sb_profile_init(p);
	p->columns = SB_COL_THREAD | SB_COL_CALL_ID | SB_COL_PARENT_ID;
	p->events = calloc(2 * ITERS + 1, sizeof(*p->events));
	p->pairs = calloc(3, sizeof(*p->pairs));
	assert_true(p->events && p->pairs);
	add_calls(p, "step", 0, (int64_t)ITERS * PERIOD_NS, 1);
	add_calls(p, "stencil", 0, STENCIL_NS, ITERS);
	add_calls(p, "boundary", STENCIL_NS, BOUNDARY_NS, ITERS);
	assert_true(sb_profile_add_thread(p, &th) >= 0);
}

/*
 * Reads the timeline's pixels: per pixel column of the plot, whether more of its
 * pixels are nearest stencil's color or boundary's (the legend's swatches), shown
 * whole and then zoomed in 12 halvings at the centre (two or three steps wide).
 * "name=S B N": S columns are mostly stencil's, B boundary's, of the plot's N.
 */
static const char pixel_script[] =
	"<script>\n"
	"(function () {\n"
	"var out = [], tl = document.getElementById('timeline-canvas');\n"
	"function swatch(name) {\n"
	"	var items = document.querySelectorAll('#tl-legend > span');\n"
	"	for (var i = 0; i < items.length; i++)\n"
	"		if (items[i].textContent === name)\n"
	"			return getComputedStyle(items[i].firstChild).backgroundColor.match(/\\d+/g).map(Number);\n"
	"	throw new Error('no legend entry ' + name);\n"
	"}\n"
	/* Stencil, boundary, then what else the plot holds: step, background, grid, text. */
	"var rgb = ['stencil', 'boundary', 'step'].map(swatch).concat([[255, 255, 255], [31, 35, 40], [101, 109, 118]]);\n"
	"function nearest(d, at) {\n"
	"	var best = 0, bd = Infinity;\n"
	"	rgb.forEach(function (c, i) {\n"
	"		var dist = Math.pow(d[at] - c[0], 2) + Math.pow(d[at + 1] - c[1], 2) + Math.pow(d[at + 2] - c[2], 2);\n"
	"		if (dist < bd) { bd = dist; best = i; }\n"
	"	});\n"
	"	return best;\n"
	"}\n"
	"function columns() {\n"
	/* A copy per read: reading the page's own canvas twice makes Chromium warn on the console. */
	"	var copy = document.createElement('canvas'), g;\n"
	"	copy.width = tl.width;\n"
	"	copy.height = tl.height;\n"
	"	g = copy.getContext('2d');\n"
	"	g.drawImage(tl, 0, 0);\n"
	"	var d = g.getImageData(0, 0, tl.width, tl.height).data;\n"
	"	var ratio = tl.width / tl.getBoundingClientRect().width, n = [0, 0, 0], x, y;\n"
	"	for (x = Math.ceil(181 * ratio); x < tl.width - 9 * ratio; x++) {\n"
	"		var c = [0, 0, 0, 0, 0, 0];\n"
	"		n[2]++;\n"
	"		for (y = 0; y < tl.height; y++)\n"
	"			c[nearest(d, (y * tl.width + x) * 4)]++;\n"
	"		if (c[0] || c[1])\n"
	"			n[c[0] >= c[1] ? 0 : 1]++;\n"
	"	}\n"
	"	return n.join(' ');\n"
	"}\n"
	"function key(k) { tl.focus(); tl.dispatchEvent(new KeyboardEvent('keydown', { key: k, bubbles: true, cancelable: true })); }\n"
	"out.push('whole=' + columns());\n"
	"for (var i = 0; i < 12; i++)\n"
	"	key('+');\n"
	"out.push('zoomed=' + columns());\n"
	"var pre = document.createElement('pre');\n"
	"pre.id = 'probe';\n"
	"pre.textContent = '\\n' + out.join('\\n') + '\\n';\n"
	"document.body.appendChild(pre);\n"
	"})();\n"
	"</script>\n";

/* The probe's "name=S B N" line: c[0] stencil's columns, c[1] boundary's, c[2] all. */
static void probe_columns(const char *dom, const char *name, int c[3])
{
	char needle[40];
	const char *at;

	snprintf(needle, sizeof(needle), "\n%s=", name);
	at = strstr(dom, needle);
	if (!at || sscanf(at + strlen(needle), "%d %d %d", &c[0], &c[1], &c[2]) != 3)
		fail_msg("the probe lacks %s", needle + 1);
	fprintf(stderr, "  %s: of %d pixel columns, %d stencil's, %d boundary's\n", name, c[2],
		c[0], c[1]);
}

/*
 * Shown whole, a pixel column spans some 8 steps, 99% stencil: each must be stencil's,
 * whichever call starts first in it. Zoomed in, calls are wide and drawn as they are:
 * boundary gets its share of the columns (1.2% of the time).
 */
static void test_overview_pixels_show_what_covers_their_time(void **state)
{
	char bin[300], html[300], probe[300];
	struct sb_profile p;
	int c[3];
	char *dom;

	(void)state;
	require_chromium(bin, sizeof(bin));
	build_overview_profile(&p);
	write_page(&p, tmp_file("overview.html", html, sizeof(html)));
	sb_profile_free(&p);
	add_probe(html, tmp_file("pixels.html", probe, sizeof(probe)), pixel_script);
	dom = load_page(bin, probe);
	probe_columns(dom, "whole", c);
	assert_true(c[2] > 500);
	assert_int_equal(c[0], c[2]);
	probe_columns(dom, "zoomed", c);
	/* All but the light marks where a bar ends. */
	assert_true(c[0] + c[1] >= c[2] - 8);
	assert_in_range(c[1] * 1000 / c[2], 6, 25);
	free(dom);
}

/* Ranks 0-3 each call exchange { send to the next rank, allreduce }: a send region per peer. */
static void build_mpi_profile(struct sb_profile *p)
{
	struct sb_thread th = { .end_ns = -1, .cpu_ns = -1, .name = "app" };
	char send[120];
	const char *names[3] = { "exchange", send,
				 "mpi:allreduce kind=collective bytes=8 peer=-1 root=-1 tag=-1 "
				 "comm=1140850688" };
	static const int64_t at[3][3] = { { 0, 1000, -1 }, { 10, 20, 1 }, { 500, 540, 1 } };
	struct sb_pair *pr;
	uint32_t rank, k;
	ssize_t r;

	sb_profile_init(p);
	p->columns = SB_COL_THREAD | SB_COL_CALL_ID | SB_COL_PARENT_ID;
	p->events = calloc(12, sizeof(*p->events));
	p->pairs = calloc(12, sizeof(*p->pairs));
	assert_true(p->events && p->pairs);
	for (rank = 0; rank < 4; rank++) {
		snprintf(send, sizeof(send), "mpi:send kind=point-to-point bytes=800 peer=%u "
			 "root=-1 tag=7 comm=1140850688", (rank + 1) % 4);
		for (k = 0; k < 3; k++) {
			r = sb_profile_find_region(p, names[k]);
			if (r < 0)
				r = sb_profile_add_region(p, names[k], "", -1, "[]");
			assert_true(r >= 0);
			pr = &p->pairs[p->n_pairs++];
			*pr = (struct sb_pair){ .region = (uint32_t)r, .rank = rank,
						.offset = p->n_events, .count = 1,
						.exclusive_total = -1 };
			sb_stats_init(&pr->stats);
			sb_stats_add(&pr->stats, at[k][0], at[k][1], -1);
			p->events[p->n_events++] = (struct sb_event){
				.start = at[k][0], .end = at[k][1], .thread = 0, .call_id = k + 1,
				.parent_id = at[k][2], .metric = { [SB_METRIC_GPU] = -1,
								   [SB_METRIC_OFFCPU] = -1 },
			};
		}
		th.rank = rank;
		th.tid = 100 + rank;
		assert_true(sb_profile_add_thread(p, &th) >= 0);
	}
	assert_int_equal(sb_profile_set_int(p, "mpi_size", 4), 0);
}

/* The legend lists a colour per MPI function, not per call region (one per peer and tag). */
static void test_mpi_legend_names_functions(void **state)
{
	struct sb_error err = { .msg = "" };
	char bin[300], h5[300], html[300];
	struct sb_array_stream s;
	const char *legend, *end;
	struct sb_profile p;
	char *dom, *items, *row;

	(void)state;
	require_chromium(bin, sizeof(bin));
	build_mpi_profile(&p);
	sb_array_stream_init(&s, &p);
	if (sb_h5_write(tmp_file("mpi.h5", h5, sizeof(h5)), &p, &s.base, &err))
		fail_msg("writing %s: %s", h5, err.msg);
	sb_profile_free(&p);
	report_html(h5, tmp_file("mpi.html", html, sizeof(html)));
	dom = load_page(bin, html);
	legend = strstr(dom, "id=\"tl-legend\"");
	assert_non_null(legend);
	end = strstr(legend, "</div>");
	assert_non_null(end);
	items = strndup(legend, (size_t)(end - legend));
	assert_non_null(items);
	/* exchange, mpi:send (4 regions), mpi:allreduce: three colours, named by function. */
	expect_has(items, "></span>mpi:send</span>", "the timeline's legend");
	expect_has(items, "></span>mpi:allreduce</span>", "the timeline's legend");
	assert_null(strstr(items, "peer="));
	assert_null(strstr(strstr(items, "mpi:send") + 1, "mpi:send"));
	/*
	 * The table: one mpi:send row below exchange, its regions folded below it.
	 * Folded, it shows their own time (4 x 10 ns), the last column; the tree
	 * gives the row none, for the regions below it hold it.
	 */
	expect_row(dom, "mpi:send");
	row = strstr(dom, "</span>mpi:send</td>");
	end = strstr(row, "</tr>");
	assert_non_null(end);
	row = strndup(row, (size_t)(end - row + 5));
	assert_non_null(row);
	expect_has(row, "<td><span>40 ns</span></td></tr>", "mpi:send's row");
	free(row);
	free(items);
	free(dom);
}

static void test_recorded_nested_app_renders(void **state)
{
	const char *regions[] = { "a", "b", "c", "fib", "manual", "tagged" };
	char bin[300], h5[300], html[300];
	size_t i;
	char *dom;

	(void)state;
	require_chromium(bin, sizeof(bin));
	require_bpf();
	assert_int_equal(record_app(tmp_file("nested.h5", h5, sizeof(h5)), "nested", NULL), 0);
	report_html(h5, tmp_file("nested.html", html, sizeof(html)));
	dom = load_page(bin, html);
	for (i = 0; i < sizeof(regions) / sizeof(regions[0]); i++)
		expect_row(dom, regions[i]);
	expect_has(dom, "nested.h5", "the page's title");
	free(dom);
}

/* `report ARGS... -o tmp/NAME H5`'s output (caller frees). */
static char *report_out(const char *h5, const char *name, const char *a, const char *b,
			const char *c)
{
	char out[300];
	char *argv[] = { (char *)scope_bin(), "report", "-o", (char *)tmp_file(name, out, sizeof(out)),
			 (char *)h5, (char *)a, (char *)b, (char *)c, NULL };

	assert_int_equal(run(argv), 0);
	return slurp(out);
}

/* The line of text that ends with "  NAME" (a region's row of a text report); caller frees. */
static char *text_row(const char *text, const char *name)
{
	char needle[100];
	const char *at, *start;

	snprintf(needle, sizeof(needle), "  %s\n", name);
	at = strstr(text, needle);
	if (!at)
		fail_msg("no row %s in:\n%s", name, text);
	for (start = at; start > text && start[-1] != '\n'; start--)
		;
	return strndup(start, (size_t)(at - start));
}

/* Cell k (0: the name) of the row of table id whose name cell reads name, as text; caller frees. */
static char *dom_cell(const char *dom, const char *id, const char *name, int k)
{
	char needle[200];
	const char *at, *end;

	snprintf(needle, sizeof(needle), "id=\"%s\"", id);
	at = strstr(dom, needle);
	assert_non_null(at);
	snprintf(needle, sizeof(needle), "</span>%s</td>", name);
	at = strstr(at, needle);
	if (!at)
		fail_msg("no row %s in #%s", name, id);
	while (k--) {
		at = strstr(at + 1, "<td");
		assert_non_null(at);
	}
	at = strchr(at, '>');
	end = strstr(at, "</td>");
	assert_non_null(end);
	return strndup(at + 1, (size_t)(end - at - 1));
}

/* n with a comma every three digits, as the page's fmtInt writes it. */
static void commas(char *buf, size_t size, int64_t n)
{
	char digits[32];
	size_t len, i, o = 0;

	len = (size_t)snprintf(digits, sizeof(digits), "%lld", (long long)n);
	for (i = 0; i < len && o + 2 < size; i++) {
		if (i && (len - i) % 3 == 0)
			buf[o++] = ',';
		buf[o++] = digits[i];
	}
	buf[o] = '\0';
}

/* Chooses context-switches as the plots' value, as a user would. */
static const char series_probe[] =
	"<script>\n"
	"(function () {\n"
	"var sel = document.getElementById('series-value'), i;\n"
	"for (i = 0; i < sel.options.length; i++) if (sel.options[i].text === 'context-switches') sel.value = String(i);\n"
	"sel.dispatchEvent(new Event('change'));\n"
	"})();\n"
	"</script>\n";

/*
 * mpi_scaling's serial_io (rank 0 only) in the heat map: rank 0's cell as
 * report --per-rank prints it, rank 1's empty, its nanoseconds in the tip.
 */
static void check_serial_io_cells(const char *dom, const char *h5)
{
	char ns[40], want[80];
	char *text, *row, *cell;
	const struct jv *regions;
	struct jv v;
	size_t i;

	text = report_out(h5, "ranks.txt", "--per-rank", NULL, NULL);
	row = text_row(text, "serial_io");
	fprintf(stderr, "report --per-rank: %s\n", row);
	cell = dom_cell(dom, "ranks-table", "serial_io", 3);
	assert_int_equal(strlen(row), 38);
	assert_non_null(strstr(row, "2.000"));
	row[28] = '\0';
	assert_string_equal(cell, row + 19 + strspn(row + 19, " "));
	free(row);
	free(text);
	row = dom_cell(dom, "ranks-table", "serial_io", 1);
	assert_string_equal(row, "2.000");
	free(row);
	row = dom_cell(dom, "ranks-table", "serial_io", 4);
	assert_string_equal(row, "\u2013");
	free(row);
	text = report_out(h5, "ranks.json", "--per-rank", "-f", "json");
	json_parse(text, &v);
	regions = jneed(&v, "regions", J_ARR);
	for (i = 0; i < regions->n && strcmp(jstr(&regions->items[i], "region"), "serial_io"); i++)
		;
	assert_true(i < regions->n);
	commas(ns, sizeof(ns), (int64_t)jneed(&regions->items[i], "time_ns", J_ARR)->items[0].num);
	snprintf(want, sizeof(want), "serial_io on rank 0: %s (%s ns) in 8 calls", cell, ns);
	expect_has(dom, want, "the heat map's tips");
	free(cell);
	jv_free(&v);
	free(text);
}

/*
 * tests/apps/mpi_scaling at two ranks recorded with option opt (and its
 * value val, or NULL) into tmp/H5_NAME, its page written to tmp/HTML_NAME
 * and loaded: the DOM (caller frees), with the heat map and the series shown.
 */
static char *scaling_page(const char *bin, const char *h5_name, const char *html_name,
			  const char *opt, const char *val, char h5[300], char html[300])
{
	char app[512], *argv[16];
	char *dom;
	int n = 0;

	tmp_file(h5_name, h5, 300);
	argv[n++] = (char *)scope_bin();
	argv[n++] = "record";
	argv[n++] = "-q";
	argv[n++] = (char *)opt;
	if (val)
		argv[n++] = (char *)val;
	argv[n++] = "-o";
	argv[n++] = h5;
	argv[n++] = "--";
	argv[n++] = (char *)mpiexec_mpich();
	argv[n++] = "-n";
	argv[n++] = "2";
	argv[n++] = (char *)app_path("mpi_scaling", app, sizeof(app));
	argv[n] = NULL;
	assert_int_equal(run(argv), 0);
	report_html(h5, tmp_file(html_name, html, 300));
	dom = load_page(bin, html);
	expect_has(dom, "<section id=\"ranks\">", "the DOM");
	expect_has(dom, "<section id=\"series\">", "the DOM");
	return dom;
}

/*
 * tests/apps/mpi_scaling at two ranks, counting context switches: serial_io
 * runs 8 x 5 ms on rank 0 only. The heat map's cells, the series' calls and
 * the counter plots show what report --per-rank, --durations and --counters print.
 */
static void test_rank_heat_map_and_series_show_what_report_prints(void **state)
{
	char bin[300], h5[300], html[300], probe[300], ns[40];
	char *text, *row, *cell, *dom;
	unsigned long calls, count;

	(void)state;
	require_chromium(bin, sizeof(bin));
	require_bpf();
	dom = scaling_page(bin, "ranks.h5", "ranks.html", "-e", "context-switches", h5, html);
	check_serial_io_cells(dom, h5);

	/* Each of serial_io's 8 calls is a point, as --durations counts them. */
	text = report_out(h5, "durations.txt", "--durations", NULL, NULL);
	row = strstr(text, "\nserial_io ");
	assert_non_null(row);
	assert_int_equal(sscanf(row, " serial_io %lu", &calls), 1);
	assert_int_equal(calls, 8);
	free(text);
	cell = dom_cell(dom, "series-table", "serial_io", 1);
	assert_string_equal(cell, "8");
	free(cell);
	cell = dom_cell(dom, "series-table", "serial_io", 3);
	expect_has(cell, "data-drawn=\"8\"", "serial_io's plot");
	free(cell);
	free(dom);

	/* Counted: the plots of context-switches, serial_io's total as report --counters says. */
	text = report_out(h5, "counters.txt", "--counters", NULL, NULL);
	row = text_row(text, "serial_io");
	fprintf(stderr, "report --counters: %s\n", row);
	assert_int_equal(sscanf(row, "%lu %*u %lu", &calls, &count), 2);
	assert_int_equal(calls, 8);
	add_probe(html, tmp_file("ranks-probe.html", probe, sizeof(probe)), series_probe);
	dom = load_page(bin, probe);
	cell = dom_cell(dom, "series-table", "serial_io", 2);
	commas(ns, sizeof(ns), (int64_t)count);
	assert_string_equal(cell, ns);
	free(cell);
	expect_has(dom, "context-switches per call", "the plots' heading");
	cell = dom_cell(dom, "series-table", "serial_io", 3);
	expect_has(cell, "data-drawn=\"8\"", "serial_io's context-switches plot");
	free(cell);
	free(row);
	free(text);
	free(dom);
}

/* Cell k of serial_io's row of table id must read want. */
static void expect_cell(const char *dom, const char *id, int k, const char *want)
{
	char *cell = dom_cell(dom, id, "serial_io", k);

	if (strcmp(cell, want))
		fail_msg("#%s: serial_io's cell %d reads \"%s\", report prints \"%s\"", id, k, cell,
			 want);
	free(cell);
}

/*
 * record --aggregate=50ms of mpi_scaling at two ranks: the page says it has
 * no timeline and why, its tree, heat map, durations and series over the
 * recorded windows show what report, --per-rank and --durations print.
 */
static void test_aggregate_page_shows_what_report_prints(void **state)
{
	char bin[300], h5[300], html[300], want[400], v[10][16];
	const struct jv *regions;
	unsigned long calls;
	char *text, *row, *dom;
	struct jv j;
	size_t i;
	int k;

	(void)state;
	require_chromium(bin, sizeof(bin));
	require_bpf();
	dom = scaling_page(bin, "agg.h5", "agg.html", "--aggregate=50ms", NULL, h5, html);
	expect_has(dom, "This file is an aggregate (record --aggregate)", "the page's note");
	expect_has(dom, "so there is no timeline.", "the timeline's note");
	expect_row(dom, "serial_io");
	check_serial_io_cells(dom, h5);

	/* Durations: calls, min, median, p90, p99 and max as report --durations prints them. */
	text = report_out(h5, "agg-durations.txt", "--durations", NULL, NULL);
	row = strstr(text, "\nserial_io ");
	assert_non_null(row);
	assert_int_equal(sscanf(row, " serial_io %lu %15s %15s %15s %15s %15s %15s %15s %15s %15s "
				"%15s", &calls, v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7],
				v[8], v[9]), 11);
	assert_int_equal(calls, 8);
	expect_cell(dom, "dur-table", 1, "8");
	for (k = 0; k < 5; k++) {
		snprintf(want, sizeof(want), "%s %s", v[2 * k], v[2 * k + 1]);
		expect_cell(dom, "dur-table", k + 2, want);
	}
	free(text);

	/* Over the run: a band per recorded window with serial_io's calls, as --durations has them. */
	text = report_out(h5, "agg-durations.json", "--durations", "-f", "json");
	json_parse(text, &j);
	regions = jneed(&j, "regions", J_ARR);
	for (i = 0; i < regions->n && strcmp(jstr(&regions->items[i], "region"), "serial_io"); i++)
		;
	assert_true(i < regions->n);
	snprintf(want, sizeof(want), "data-drawn=\"%zu\"",
		 jneed(&regions->items[i], "windows", J_ARR)->n);
	assert_true(jneed(&regions->items[i], "windows", J_ARR)->n >= 2);
	expect_cell(dom, "series-table", 1, "8");
	row = dom_cell(dom, "series-table", "serial_io", 3);
	expect_has(row, want, "serial_io's plot");
	free(row);
	jv_free(&j);
	free(text);
	free(dom);
}

/* `scaling --html`: plain HTML and SVG, a point per run on both plots, a line per region. */
static void test_scaling_page_renders(void **state)
{
	static const uint32_t ranks[] = { 1, 2, 4 };
	struct sb_scaling_input in[3];
	struct sb_error err = { .msg = "" };
	struct sb_profile p[3];
	struct sb_scaling s;
	char bin[300], html[300], *dom, *at;
	size_t i, points = 0;
	FILE *f;

	(void)state;
	require_chromium(bin, sizeof(bin));
	for (i = 0; i < 3; i++) {
		sc_even(&p[i], ranks[i], 800 * MS, 10 * MS * ranks[i]);
		in[i] = (struct sb_scaling_input){ .path = "<run>.h5", .p = &p[i] };
	}
	/* The three runs share a path: only the page's escaping is checked by it. */
	if (sb_scaling_build(&s, in, 3, false, &err))
		fail_msg("%s", err.msg);
	f = fopen(tmp_file("scaling.html", html, sizeof(html)), "w");
	assert_non_null(f);
	assert_int_equal(sb_scaling_html(f, &s), 0);
	assert_int_equal(fclose(f), 0);
	dom = load_page(bin, html);
	expect_has(dom, "<svg id=\"speedup\"", "the DOM");
	expect_has(dom, "<svg id=\"times\"", "the DOM");
	expect_has(dom, "&lt;run&gt;.h5", "the runs table");
	for (at = dom; (at = strstr(at, "class=\"point\"")); at++)
		points++;
	assert_int_equal(points, 2 * 3);
	free(dom);
	sb_scaling_free(&s);
	for (i = 0; i < 3; i++)
		sb_profile_free(&p[i]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_page_renders_without_errors_and_escapes_names,
						setup_tmp, teardown_tmp),
		cmocka_unit_test_setup_teardown(test_gpu_lanes_render, setup_tmp, teardown_tmp),
		cmocka_unit_test_setup_teardown(test_sample_ticks_render_with_their_tips, setup_tmp,
						teardown_tmp),
		cmocka_unit_test_setup_teardown(test_keys_search_and_tooltips_that_follow_the_view,
						setup_tmp, teardown_tmp),
		cmocka_unit_test_setup_teardown(test_overview_pixels_show_what_covers_their_time,
						setup_tmp, teardown_tmp),
		cmocka_unit_test_setup_teardown(test_mpi_legend_names_functions, setup_tmp,
						teardown_tmp),
		cmocka_unit_test_setup_teardown(test_recorded_nested_app_renders, setup_tmp,
						teardown_tmp),
		cmocka_unit_test_setup_teardown(test_scaling_page_renders, setup_tmp, teardown_tmp),
		cmocka_unit_test_setup_teardown(test_aggregate_page_shows_what_report_prints, setup_tmp,
						teardown_tmp),
		cmocka_unit_test_setup_teardown(test_rank_heat_map_and_series_show_what_report_prints,
						setup_tmp, teardown_tmp),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
