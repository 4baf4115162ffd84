/* --format html end to end: pcapdoc writes the page for golden captures,
 * a real headless browser (Debian's chromium) loads it without a console
 * message, every picture each finding needs is in the rendered DOM, the
 * marked frame numbers are the ones Wireshark (tshark) flags, and a
 * screenshot of each page is left in the build directory to look at
 * (html-screenshots/). Skips cleanly when chromium is not installed
 * (scripts/setup.sh installs it with PD_WITH_TEST_TOOLS=1). */
#include <criterion/criterion.h>
#include <glib.h>
#include <glib/gstdio.h>
#include <string.h>
#include <sys/wait.h>

#include "testutil.h"

static char *chromium(void)
{
	char *p = g_find_program_in_path("chromium");
	return p ? p : g_find_program_in_path("chromium-browser");
}

/* Runs argv; stdout/stderr returned; exit status or -1. */
static int run(const char *const *argv, char **out, char **err)
{
	int status = 0;
	gboolean ok = g_spawn_sync(NULL, (gchar **)argv, NULL, G_SPAWN_SEARCH_PATH, NULL, NULL, out, err,
				   &status, NULL);
	if (!ok || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

/* chromium headless with one extra argument (--dump-dom or --screenshot=)
 * on a page; stdout (the DOM) returned, console messages fail the test. */
static char *browse(const char *browser, const char *page, const char *what)
{
	char *profile = g_dir_make_tmp("pdchrome-XXXXXX", NULL);
	char *udd = g_strdup_printf("--user-data-dir=%s", profile);
	char *url = g_strdup_printf("file://%s", page);
	const char *argv[] = {"timeout", "120", browser, "--headless", "--no-sandbox", "--disable-gpu",
			      "--no-first-run", "--disable-background-networking",
			      "--disable-component-update", "--disable-sync", "--hide-scrollbars",
			      "--enable-logging=stderr", "--v=0", "--window-size=1000,2600", udd, what,
			      url, NULL};
	char *out = NULL, *err = NULL;
	int rc = run(argv, &out, &err);
	cr_expect_eq(rc, 0, "chromium exit %d on %s: %s", rc, page, err);
	/* a console message is a script error, a CSP refusal or a failed load */
	for (char *p = err ? strstr(err, ":CONSOLE") : NULL; p; p = strstr(p + 1, ":CONSOLE")) {
		char *nl = strchr(p, '\n');
		cr_expect(false, "console message on %s: %.*s", page, nl ? (int)(nl - p) : 200, p);
	}
	char *rm = g_strdup_printf("rm -rf '%s'", profile);
	if (system(rm) != 0)
		cr_log_warn("could not remove %s", profile);
	g_free(rm);
	g_free(err);
	g_free(url);
	g_free(udd);
	g_free(profile);
	return out;
}

/* Every <svg>...</svg> of the page is well-formed XML (GMarkup). */
static void expect_svgs_well_formed(const char *html, const char *name)
{
	int n = 0;
	for (const char *p = strstr(html, "<svg"); p; p = strstr(p + 4, "<svg")) {
		const char *e = strstr(p, "</svg>");
		cr_assert_not_null(e, "%s: unterminated svg", name);
		GMarkupParser parser = {0};
		GMarkupParseContext *ctx = g_markup_parse_context_new(&parser, 0, NULL, NULL);
		GError *err = NULL;
		gboolean ok = g_markup_parse_context_parse(ctx, p, e + 6 - p, &err) &&
			      g_markup_parse_context_end_parse(ctx, &err);
		cr_expect(ok, "%s: svg %d not well-formed: %s", name, n, err ? err->message : "");
		g_clear_error(&err);
		g_markup_parse_context_free(ctx);
		n++;
	}
	cr_expect_gt(n, 0, "%s: no picture at all", name);
}

/* Frames a tshark display filter matches, as a set; NULL without tshark. */
static GHashTable *tshark_frames(const char *pcap, const char *filter)
{
	char *tshark = g_find_program_in_path("tshark");
	if (!tshark)
		return NULL;
	const char *argv[] = {tshark, "-n", "-r", pcap, "-Y", filter, "-T", "fields", "-e",
			      "frame.number", NULL};
	char *out = NULL;
	int rc = run(argv, &out, NULL);
	g_free(tshark);
	cr_assert_eq(rc, 0, "tshark failed on %s", pcap);
	GHashTable *set = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
	gchar **lines = g_strsplit(out, "\n", -1);
	for (gchar **l = lines; *l; l++)
		if (**l)
			g_hash_table_add(set, g_strdup(g_strstrip(*l)));
	g_strfreev(lines);
	g_free(out);
	return set;
}

/* data-frame values of the marks of one kind in the DOM. */
static GPtrArray *marked_frames(const char *dom, const char *mark)
{
	GPtrArray *a = g_ptr_array_new_with_free_func(g_free);
	GRegex *re = g_regex_new("data-frame=\"(\\d+)\" data-mark=\"([a-z]+)\"", 0, 0, NULL);
	GMatchInfo *mi = NULL;
	g_regex_match(re, dom, 0, &mi);
	while (g_match_info_matches(mi)) {
		char *kind = g_match_info_fetch(mi, 2);
		if (strcmp(kind, mark) == 0)
			g_ptr_array_add(a, g_match_info_fetch(mi, 1));
		g_free(kind);
		g_match_info_next(mi, NULL);
	}
	g_match_info_free(mi);
	g_regex_unref(re);
	return a;
}

/* Each article's data-needs charts exist, for each of its data-flows. */
static int expect_pictures(const char *dom, const char *name)
{
	int checked = 0;
	GRegex *re = g_regex_new("data-finding=\"([a-z0-9-]+)\" data-flows=\"([0-9 ]+)\" "
				 "data-needs=\"([a-z ]+)\"",
				 0, 0, NULL);
	GMatchInfo *mi = NULL;
	g_regex_match(re, dom, 0, &mi);
	while (g_match_info_matches(mi)) {
		char *id = g_match_info_fetch(mi, 1);
		char *flow_list = g_match_info_fetch(mi, 2);
		char *need_list = g_match_info_fetch(mi, 3);
		gchar **flows = g_strsplit(flow_list, " ", -1);
		gchar **needs = g_strsplit(need_list, " ", -1);
		g_free(flow_list);
		g_free(need_list);
		for (gchar **f = flows; *f; f++)
			for (gchar **k = needs; *k; k++) {
				char *want = g_strdup_printf("data-chart=\"%s\" data-flow=\"%s\"", *k, *f);
				cr_expect(strstr(dom, want), "%s: finding %s lacks its %s picture of flow %s",
					  name, id, *k, *f);
				g_free(want);
				checked++;
			}
		g_strfreev(flows);
		g_strfreev(needs);
		g_free(id);
		g_match_info_next(mi, NULL);
	}
	g_match_info_free(mi);
	g_regex_unref(re);
	return checked;
}

Test(html, golden_captures_in_a_headless_browser, .timeout = 600)
{
	char *browser = chromium();
	if (!browser)
		cr_skip_test("chromium is not installed (PD_WITH_TEST_TOOLS=1 scripts/setup.sh installs it)");
	const char *caps[] = {"zero-window", "nagle-delack", "random-loss", "syn-drop-recover"};
	char *shots = g_build_filename(g_getenv("PD_BUILD_ROOT") ? g_getenv("PD_BUILD_ROOT") : ".",
				       "html-screenshots", NULL);
	g_mkdir_with_parents(shots, 0755);
	for (size_t k = 0; k < G_N_ELEMENTS(caps); k++) {
		char *rel = g_strdup_printf("testdata/captures/%s/%s.pcap", caps[k], caps[k]);
		char *pcap = pd_test_src(rel);
		char *page = g_strdup_printf("%s/%s.html", shots, caps[k]);
		const char *argv[] = {"-q", "--format", "html", "-o", page, pcap, NULL};
		char *out = NULL, *err = NULL;
		cr_assert_eq(pd_test_run(&out, &err, argv), 0, "%s: %s", caps[k], err);
		g_free(out);
		g_free(err);
		char *html = NULL;
		gsize len = 0;
		cr_assert(g_file_get_contents(page, &html, &len, NULL));
		cr_log_info("%s: %zu bytes of HTML", caps[k], (size_t)len);
		cr_expect_lt(len, 400000, "%s: %zu bytes", caps[k], (size_t)len);
		/* self-contained: nothing fetched, nothing run */
		cr_expect_null(strstr(html, "<script"), "%s: a script", caps[k]);
		cr_expect_null(strstr(html, " src="), "%s: an external resource", caps[k]);
		cr_expect_null(strstr(html, "href=\"http"), "%s: a link out", caps[k]);
		cr_expect_null(strstr(html, "@import"), "%s: an import", caps[k]);
		cr_expect(strstr(html, "default-src 'none'"), "%s: no CSP", caps[k]);
		expect_svgs_well_formed(html, caps[k]);

		char *dom = browse(browser, page, "--dump-dom");
		cr_assert(dom && strstr(dom, "</html>"), "%s: no DOM", caps[k]);
		cr_expect(strstr(dom, "id=\"verdict\""), "%s: no verdict", caps[k]);
		cr_expect_gt(expect_pictures(dom, caps[k]), 0, "%s: no finding asked for pictures",
			     caps[k]);

		char *shot_arg = g_strdup_printf("--screenshot=%s/%s.png", shots, caps[k]);
		char *shot = g_strdup_printf("%s/%s.png", shots, caps[k]);
		g_unlink(shot);
		g_free(browse(browser, page, shot_arg));
		GStatBuf st;
		cr_expect(g_stat(shot, &st) == 0 && st.st_size > 20000, "%s: no screenshot", shot);

		/* the marks, and their frame numbers against Wireshark's */
		if (strcmp(caps[k], "random-loss") == 0) {
			GPtrArray *rt = marked_frames(dom, "rt");
			cr_expect_geq(rt->len, 10, "retransmissions marked: %u", rt->len);
			/* captured at the sender, tshark calls most of these out-of-order
			 * (they follow new data within its threshold; README there): any of
			 * its "not new data" flags agrees that the frame is a resend */
			GHashTable *ws = tshark_frames(pcap, "tcp.analysis.retransmission || "
							     "tcp.analysis.fast_retransmission || "
							     "tcp.analysis.out_of_order || "
							     "tcp.analysis.spurious_retransmission");
			for (guint i = 0; ws && i < rt->len; i++)
				cr_expect(g_hash_table_contains(ws, rt->pdata[i]),
					  "frame %s marked as a retransmission; tshark disagrees",
					  (char *)rt->pdata[i]);
			if (ws)
				g_hash_table_destroy(ws);
			g_ptr_array_unref(rt);
			cr_expect(strstr(dom, "data-chart=\"rtt\""));
		} else if (strcmp(caps[k], "zero-window") == 0) {
			GPtrArray *zw = marked_frames(dom, "zw");
			cr_expect_geq(zw->len, 10, "zero windows marked: %u", zw->len);
			GHashTable *ws = tshark_frames(pcap, "tcp.analysis.zero_window");
			for (guint i = 0; ws && i < zw->len; i++)
				cr_expect(g_hash_table_contains(ws, zw->pdata[i]),
					  "frame %s marked as a zero window; tshark disagrees",
					  (char *)zw->pdata[i]);
			if (ws)
				g_hash_table_destroy(ws);
			g_ptr_array_unref(zw);
			cr_expect(strstr(dom, "data-chart=\"inflight\""));
		} else if (strcmp(caps[k], "syn-drop-recover") == 0) {
			/* frames 2 and 3 are the SYN retries (README), numbered in the picture */
			cr_expect(strstr(dom, "data-frame=\"2\" data-mark=\"syn\""), "SYN retry #2");
			cr_expect(strstr(dom, "data-frame=\"3\" data-mark=\"syn\""), "SYN retry #3");
			cr_expect(strstr(dom, ">#2</text>") && strstr(dom, ">#3</text>"),
				  "frame numbers written in the picture");
		} else if (strcmp(caps[k], "nagle-delack") == 0) {
			cr_expect(strstr(dom, "data-chart=\"gaps\""));
			/* the shaded period is the detector's delayed-ACK timer, ~44 ms */
			cr_expect(strstr(dom, "data-period-ms=\"43.7\""), "period band");
		}
		g_free(dom);
		g_free(shot_arg);
		g_free(shot);
		g_free(html);
		g_free(page);
		g_free(pcap);
		g_free(rel);
	}
	g_free(shots);
	g_free(browser);
}

/* Standard input cannot be read again for the pictures: the page says so
 * and still has the verdict and the findings; Chinese labels in zh. */
Test(html, stdin_says_why_there_are_no_pictures_and_zh, .timeout = 120)
{
	char *pcap = pd_test_src("testdata/captures/nagle-delack/nagle-delack.pcap");
	char *cmd = g_strdup_printf("cat '%s' | '%s' -q --format html -", pcap, g_getenv("PD_PCAPDOC"));
	const char *argv[] = {"/bin/sh", "-c", cmd, NULL};
	char *out = NULL;
	cr_assert_eq(run(argv, &out, NULL), 0);
	cr_expect(strstr(out, "standard input"), "no word on standard input");
	cr_expect(strstr(out, "id=\"verdict\""));
	cr_expect_null(strstr(out, "<svg"), "pictures from nowhere");
	g_free(out);
	g_free(cmd);
	const char *zh[] = {"-q", "--format", "html", "--lang", "zh", pcap, NULL};
	char *err = NULL;
	cr_assert_eq(pd_test_run(&out, &err, zh), 0);
	cr_expect(strstr(out, "<html lang=\"zh-CN\">"));
	cr_expect(strstr(out, "时间-序列号图"), "Chinese picture titles");
	cr_expect(strstr(out, "结论"));
	g_free(out);
	g_free(err);
	g_free(pcap);
}

/* The syn marks of one time-sequence graph at one capture point: their
 * data-t in page order (the SYN, then the SYN-ACK). */
static GArray *syn_times(const char *fig, size_t len, const char *point)
{
	GArray *t = g_array_new(FALSE, FALSE, sizeof(double));
	GRegex *re = g_regex_new("data-mark=\"syn\" data-point=\"([^\"]+)\" data-t=\"([0-9.]+)\"", 0, 0,
				 NULL);
	GMatchInfo *mi = NULL;
	g_regex_match_full(re, fig, (gssize)len, 0, 0, &mi, NULL);
	while (g_match_info_matches(mi)) {
		char *p = g_match_info_fetch(mi, 1), *v = g_match_info_fetch(mi, 2);
		if (strcmp(p, point) == 0) {
			double d = g_ascii_strtod(v, NULL);
			g_array_append_val(t, d);
		}
		g_free(p);
		g_free(v);
		g_match_info_next(mi, NULL);
	}
	g_match_info_free(mi);
	g_regex_unref(re);
	return t;
}

/* Two capture points of the same connections (testdata/points/drop-data:
 * every 20th data segment server->client dropped on the router): each
 * flow's time-sequence graph draws both files on one time axis, the
 * handshake one one-way delay apart, and a cross on every segment that
 * left server.pcap and never reached client.pcap. */
Test(html, two_capture_points_on_one_time_axis, .timeout = 300)
{
	char *client = pd_test_src("testdata/points/drop-data/client.pcap");
	char *server = pd_test_src("testdata/points/drop-data/server.pcap");
	const char *argv[] = {"-q", "--format", "html", client, server, NULL};
	char *html = NULL, *err = NULL;
	cr_assert_eq(pd_test_run(&html, &err, argv), 0, "%s", err);
	g_free(err);
	expect_svgs_well_formed(html, "drop-data");

	/* the other point's lines are drawn, and each file has its legend row */
	cr_expect(strstr(html, "<path class=\"l-data o\" data-point=\"server.pcap\" d=\"M"),
		  "server.pcap's data ticks");
	cr_expect(strstr(html, "<path class=\"l-ack o\" data-point=\"server.pcap\" d=\"M"),
		  "server.pcap's ACK steps");
	cr_expect(strstr(html, "<path class=\"l-data\" data-point=\"client.pcap\" d=\"M"),
		  "client.pcap's data ticks");
	cr_expect(strstr(html, ">client.pcap: clock moved +0.000000 s<"), "client.pcap's legend row");
	cr_expect(strstr(html, ">server.pcap: clock moved "), "server.pcap's legend row");

	/* after alignment the SYN reaches server.pcap and the SYN-ACK
	 * client.pcap one one-way delay later: 5 ms of TUN, at most 21 ms
	 * (README: the delays) */
	int figures = 0;
	for (const char *f = strstr(html, "data-chart=\"tseq\""); f;
	     f = strstr(f + 1, "data-chart=\"tseq\"")) {
		const char *e = strstr(f, "</figure>");
		cr_assert_not_null(e);
		GArray *at_client = syn_times(f, (size_t)(e - f), "client.pcap");
		GArray *at_server = syn_times(f, (size_t)(e - f), "server.pcap");
		cr_assert_eq(at_client->len, 2, "figure %d: %u syn marks at client.pcap", figures,
			     at_client->len);
		cr_assert_eq(at_server->len, 2, "figure %d: %u syn marks at server.pcap", figures,
			     at_server->len);
		double syn = g_array_index(at_server, double, 0) - g_array_index(at_client, double, 0);
		double synack = g_array_index(at_client, double, 1) - g_array_index(at_server, double, 1);
		cr_expect(syn >= 0 && syn <= 0.025, "figure %d: the SYN %.6f s apart", figures, syn);
		cr_expect(synack >= 0 && synack <= 0.025, "figure %d: the SYN-ACK %.6f s apart", figures,
			  synack);
		/* the axis starts at the earlier first packet: the client's SYN */
		cr_expect_eq(g_array_index(at_client, double, 0), 0.0, "figure %d: time zero", figures);
		g_array_unref(at_client);
		g_array_unref(at_server);
		figures++;
	}
	cr_expect_eq(figures, 3, "one time-sequence graph per connection: %d", figures);

	/* the crosses: the 16 segments facts.py finds never reached
	 * client.pcap (testdata/points/README.md), each once, all server.pcap's */
	static const char *const lost[] = {"35",  "61",  "97",  "123", "156", "197", "227", "263",
					   "290", "319", "367", "403", "436", "463", "487", "517"};
	GHashTable *want = g_hash_table_new(g_str_hash, g_str_equal);
	for (size_t i = 0; i < G_N_ELEMENTS(lost); i++)
		g_hash_table_add(want, (gpointer)lost[i]);
	GHashTable *seen = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
	GRegex *re = g_regex_new("<path class=\"x( o)?\" data-frame=\"(\\d+)\" data-mark=\"one\" "
				 "data-point=\"([^\"]+)\" data-t=\"[0-9.]+\"",
				 0, 0, NULL);
	GMatchInfo *mi = NULL;
	g_regex_match(re, html, 0, &mi);
	int crosses = 0;
	while (g_match_info_matches(mi)) {
		char *frame = g_match_info_fetch(mi, 2), *point = g_match_info_fetch(mi, 3);
		cr_expect_str_eq(point, "server.pcap", "cross on frame %s of %s", frame, point);
		cr_expect(g_hash_table_contains(want, frame), "cross on frame %s, never lost", frame);
		cr_expect_not(g_hash_table_contains(seen, frame), "two crosses on frame %s", frame);
		g_hash_table_add(seen, frame);
		g_free(point);
		crosses++;
		g_match_info_next(mi, NULL);
	}
	g_match_info_free(mi);
	g_regex_unref(re);
	cr_expect_eq(crosses, (int)G_N_ELEMENTS(lost), "%d crosses", crosses);
	cr_expect_eq(crosses, (int)g_hash_table_size(seen), "all crosses' frames");
	cr_expect_eq(g_hash_table_size(seen), g_hash_table_size(want), "every lost segment crossed");
	g_hash_table_destroy(seen);
	g_hash_table_destroy(want);

	/* the page in a browser, and a screenshot to look at */
	char *browser = chromium();
	if (browser) {
		char *shots = g_build_filename(g_getenv("PD_BUILD_ROOT") ? g_getenv("PD_BUILD_ROOT") : ".",
					       "html-screenshots", NULL);
		g_mkdir_with_parents(shots, 0755);
		char *page = g_strdup_printf("%s/points-drop-data.html", shots);
		cr_assert(g_file_set_contents(page, html, -1, NULL));
		char *dom = browse(browser, page, "--dump-dom");
		cr_expect(dom && strstr(dom, "data-mark=\"one\""), "crosses in the DOM");
		g_free(dom);
		char *shot = g_strdup_printf("%s/points-drop-data.png", shots);
		char *shot_arg = g_strdup_printf("--screenshot=%s", shot);
		g_unlink(shot);
		g_free(browse(browser, page, shot_arg));
		GStatBuf st;
		cr_expect(g_stat(shot, &st) == 0 && st.st_size > 20000, "%s: no screenshot", shot);
		g_free(shot_arg);
		g_free(shot);
		g_free(page);
		g_free(shots);
		g_free(browser);
	}
	g_free(html);

	/* one file: nothing of the second point */
	const char *one[] = {"-q", "--format", "html", client, NULL};
	cr_assert_eq(pd_test_run(&html, &err, one), 0, "%s", err);
	cr_expect(strstr(html, "data-chart=\"tseq\""), "one file still has its picture");
	cr_expect_null(strstr(html, "data-point="), "a data-point attribute with one file");
	cr_expect_null(strstr(html, "data-mark=\"one\""), "a cross with one file");
	g_free(html);
	g_free(err);
	g_free(client);
	g_free(server);
}
