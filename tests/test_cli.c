/* The command line end to end, through the real binary: inputs (stdin,
 * gzip, several files, filters), errors and exit codes, output errors,
 * the CI options, and the README's examples (so the docs cannot drift). */
#include <criterion/criterion.h>
#include <glib.h>
#include <glib/gstdio.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <pty.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "testutil.h"

/* Runs `sh -c CMD` in the source root with $PCAPDOC set; returns the exit
 * status (-1 on a signal). */
static int sh(const char *cmd, char **out, char **err)
{
	char *root = pd_test_src("");
	const char *argv[] = {"/bin/sh", "-c", cmd, NULL};
	gchar **env = g_get_environ();
	env = g_environ_setenv(env, "PCAPDOC", g_getenv("PD_PCAPDOC"), TRUE);
	env = g_environ_unsetenv(env, "NO_COLOR");
	int status = 0;
	char *o = NULL, *e = NULL;
	gboolean ok = g_spawn_sync(root, (gchar **)argv, env, G_SPAWN_DEFAULT, NULL, NULL, &o, &e,
				   &status, NULL);
	g_strfreev(env);
	g_free(root);
	if (out)
		*out = o;
	else
		g_free(o);
	if (err)
		*err = e;
	else
		g_free(e);
	if (!ok || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

static cJSON *sh_json(const char *cmd, int *rc)
{
	char *out = NULL;
	*rc = sh(cmd, &out, NULL);
	cJSON *doc = out ? cJSON_Parse(out) : NULL;
	g_free(out);
	return doc;
}

static double num(const cJSON *o, const char *path)
{
	gchar **parts = g_strsplit(path, ".", -1);
	const cJSON *cur = o;
	for (gchar **p = parts; *p && cur; p++)
		cur = cJSON_GetObjectItemCaseSensitive(cur, *p);
	g_strfreev(parts);
	return cJSON_IsNumber(cur) ? cur->valuedouble : -1;
}

#define ETH "testdata/captures/linktypes/eth.pcap"

Test(cli, version_and_help)
{
	char *out = NULL;
	cr_assert_eq(sh("$PCAPDOC --version", &out, NULL), 0);
	cr_expect(g_str_has_prefix(out, "pcapdoc "), "%s", out);
	g_free(out);
	cr_assert_eq(sh("$PCAPDOC --help", &out, NULL), 0);
	cr_expect(strstr(out, "--fail-on") != NULL);
	g_free(out);
}

Test(cli, usage_errors_exit_2)
{
	char *err = NULL;
	cr_expect_eq(sh("$PCAPDOC", NULL, &err), 2);
	cr_expect(strstr(err, "no capture file") != NULL, "%s", err);
	g_free(err);
	cr_expect_eq(sh("$PCAPDOC --format xml " ETH, NULL, NULL), 2);
	cr_expect_eq(sh("$PCAPDOC --fail-on bad " ETH, NULL, NULL), 2);
	cr_expect_eq(sh("$PCAPDOC --lang fr " ETH, NULL, NULL), 2);
	cr_expect_eq(sh("$PCAPDOC --no-such-option " ETH, NULL, NULL), 2);
	cr_expect_eq(sh("$PCAPDOC -f 'tcp' " ETH " udp", NULL, NULL), 2);
}

Test(cli, unreadable_inputs_exit_3_naming_the_file)
{
	char *dir = g_dir_make_tmp("pdcli-XXXXXX", NULL);
	char *empty = g_build_filename(dir, "empty.pcap", NULL);
	char *text = g_build_filename(dir, "notes.pcap", NULL);
	g_file_set_contents(empty, "", 0, NULL);
	g_file_set_contents(text, "this is not a capture at all\n", -1, NULL);
	struct {
		const char *path, *expect;
	} cases[] = {
		{empty, "empty file"},
		{text, "not a pcap or pcapng capture"},
		{"/nonexistent/x.pcap", "cannot open"},
		{dir, "is a directory"},
	};
	for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
		char *cmd = g_strdup_printf("$PCAPDOC -q '%s'", cases[i].path);
		char *err = NULL;
		int rc = sh(cmd, NULL, &err);
		cr_expect_eq(rc, 3, "%s: exit %d", cases[i].path, rc);
		cr_expect(strstr(err, cases[i].path) && strstr(err, cases[i].expect), "%s: %s",
			  cases[i].path, err);
		g_free(err);
		g_free(cmd);
	}
	/* One bad file among good ones: the report covers the good one, exit 3. */
	char *cmd = g_strdup_printf("$PCAPDOC -q --format json " ETH " '%s'", empty);
	int rc;
	cJSON *doc = sh_json(cmd, &rc);
	cr_expect_eq(rc, 3);
	cr_assert_not_null(doc);
	cr_expect_eq(num(doc, "capture.packets"), 10);
	cJSON_Delete(doc);
	g_free(cmd);
	g_remove(empty);
	g_remove(text);
	g_rmdir(dir);
	g_free(empty);
	g_free(text);
	g_free(dir);
}

Test(cli, truncated_file_is_analysed_and_strict_exits_4)
{
	int rc;
	char *err = NULL;
	rc = sh("$PCAPDOC --format json testdata/captures/linktypes/truncated.pcap", NULL, &err);
	cr_expect_eq(rc, 0);
	cr_expect(strstr(err, "truncated.pcap") && strstr(err, "truncated"), "%s", err);
	g_free(err);
	cJSON *doc = sh_json("$PCAPDOC -q --format json testdata/captures/linktypes/truncated.pcap", &rc);
	cr_assert_not_null(doc);
	cr_expect_eq(num(doc, "capture.packets"), 9);
	cr_expect(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(
		cJSON_GetObjectItemCaseSensitive(doc, "capture"), "input_truncated")));
	cJSON_Delete(doc);
	cr_expect_eq(sh("$PCAPDOC -q --strict testdata/captures/linktypes/truncated.pcap", NULL, NULL), 4);
}

Test(cli, stdin_and_gzip_read_like_files)
{
	int rc;
	cJSON *a = sh_json("cat " ETH " | $PCAPDOC -q --format json -", &rc);
	cr_expect_eq(rc, 0);
	cJSON *b = sh_json("$PCAPDOC -q --format json testdata/captures/linktypes/http.pcap.gz", &rc);
	cr_expect_eq(rc, 0);
	cJSON *c = sh_json("gzip -c " ETH " | $PCAPDOC -q --format json -", &rc);
	cr_expect_eq(rc, 0);
	cr_assert(a && b && c);
	cr_expect_eq(num(a, "capture.packets"), 10);
	cr_expect_eq(num(b, "capture.packets"), 10);
	cr_expect_eq(num(c, "capture.packets"), 10);
	cJSON_Delete(a);
	cJSON_Delete(b);
	cJSON_Delete(c);
}

/* Rotated files merge by time: the second file's packets, which are later,
 * are numbered after the first's whatever the order given. */
Test(cli, several_files_merge_in_time_order)
{
	int rc;
	cJSON *doc = sh_json("$PCAPDOC -q --format json --flows testdata/captures/linktypes/ipv6.pcap "
			     ETH, &rc);
	cr_assert_not_null(doc);
	cr_expect_eq(num(doc, "capture.packets"), 20);
	cr_expect_eq(num(doc, "capture.flows.tcp"), 2);
	const cJSON *flows = cJSON_GetObjectItemCaseSensitive(doc, "flows");
	cr_assert_eq(cJSON_GetArraySize(flows), 2);
	/* eth.pcap was captured first: its flow starts at frame 1 */
	const cJSON *f0 = cJSON_GetArrayItem(flows, 0);
	cr_expect_eq(num(f0, "first_frame"), 1);
	cr_expect(strchr(cJSON_GetObjectItemCaseSensitive(
				 cJSON_GetObjectItemCaseSensitive(f0, "client"), "ip")->valuestring,
			 '.') != NULL);
	cJSON_Delete(doc);
}

/* -r FILE as tcpdump and tshark take it: repeatable, beside positional
 * files, before filter words, "-" for standard input. */
Test(cli, read_option_like_tcpdump)
{
	int rc;
	char *base = NULL, *viar = NULL;
	cr_expect_eq(sh("$PCAPDOC -q --format json testdata/captures/linktypes/ipv6.pcap " ETH, &base,
			NULL), 0);
	cr_expect_eq(sh("$PCAPDOC -q --format json -r testdata/captures/linktypes/ipv6.pcap -r " ETH,
			&viar, NULL), 0);
	cr_assert(base && viar);
	cr_expect_str_eq(viar, base, "-r A -r B reads what A B reads");
	g_free(viar);
	viar = NULL;
	cr_expect_eq(sh("$PCAPDOC -q --format json --read-file testdata/captures/linktypes/ipv6.pcap "
			ETH, &viar, NULL), 0);
	cr_expect_str_eq(viar, base, "-r beside a positional file");
	g_free(viar);
	g_free(base);

	cJSON *doc = sh_json("$PCAPDOC -q --format json -r " ETH " -r testdata/captures/linktypes/ipv6.pcap"
			     " ip6", &rc);
	cr_assert_not_null(doc);
	cr_expect_eq(rc, 0);
	cr_expect_eq(num(doc, "capture.packets"), 10, "trailing words after -r are the filter");
	cJSON_Delete(doc);
	doc = sh_json("cat " ETH " | $PCAPDOC -q --format json -r -", &rc);
	cr_assert_not_null(doc);
	cr_expect_eq(num(doc, "capture.packets"), 10, "-r - reads standard input");
	cJSON_Delete(doc);

	char *err = NULL;
	cr_expect_eq(sh("$PCAPDOC -r", NULL, &err), 2);
	cr_expect(strstr(err, "usage") != NULL, "%s", err);
	g_free(err);
	cr_expect_eq(sh("$PCAPDOC -q -r /nonexistent/x.pcap", NULL, &err), 3);
	cr_expect(strstr(err, "/nonexistent/x.pcap") != NULL, "%s", err);
	g_free(err);
}

/* A filter hides packets but keeps the original frame numbers. */
Test(cli, filter_keeps_frame_numbers)
{
	int rc;
	cJSON *doc = sh_json("$PCAPDOC -q --format json --flows "
			     "testdata/captures/syn-drop-recover/syn-drop-recover.pcap "
			     "'tcp[tcpflags] & tcp-syn != 0'", &rc);
	cr_assert_not_null(doc);
	cr_expect_eq(rc, 0);
	cr_expect_eq(num(doc, "capture.packets"), 4); /* 3 SYNs + 1 SYN-ACK */
	const cJSON *f = pd_test_finding(doc, "syn-retransmit", 0);
	cr_assert_not_null(f, "syn-retransmit expected with the filter on");
	cr_expect_eq(num(f, "evidence.first.frame"), 2);
	cJSON_Delete(doc);
	doc = sh_json("$PCAPDOC -q --format json -f 'port 9' "
		      "testdata/captures/syn-drop-recover/syn-drop-recover.pcap", &rc);
	cr_assert_not_null(doc);
	cr_expect_eq(num(doc, "capture.packets"), 0);
	cJSON_Delete(doc);
	char *err = NULL;
	cr_expect_eq(sh("$PCAPDOC -q -f 'tcp port' " ETH, NULL, &err), 3);
	cr_expect(strstr(err, "bad filter") != NULL, "%s", err);
	g_free(err);
}

Test(cli, mixed_link_types_explained)
{
	char *err = NULL;
	int rc = sh("$PCAPDOC -q testdata/captures/linktypes/mixed-linktypes.pcapng", NULL, &err);
	cr_expect_eq(rc, 3);
	cr_expect(strstr(err, "different link types") && strstr(err, "interface_id"), "%s", err);
	g_free(err);
}

Test(cli, write_errors_are_reported)
{
	char *err = NULL;
	int rc = sh("$PCAPDOC -q " ETH " > /dev/full", NULL, &err);
	cr_expect_eq(rc, 5, "exit %d", rc);
	cr_expect(strstr(err, "error writing") != NULL, "%s", err);
	g_free(err);
	err = NULL;
	rc = sh("$PCAPDOC -q -o /nonexistent-dir/r.txt " ETH, NULL, &err);
	cr_expect_eq(rc, 5);
	cr_expect(strstr(err, "/nonexistent-dir/r.txt") != NULL, "%s", err);
	g_free(err);
	/* Long flow tables are written out as they are made (over 64 KiB of
	 * rows here): a failing write there counts too. */
	static const char *const fmts[] = {"text", "markdown", "json"};
	for (size_t i = 0; i < G_N_ELEMENTS(fmts); i++) {
		char *c = g_strdup_printf("$PCAPDOC -q --format %s --flows "
					  "testdata/captures/churn-ports/churn-ports.pcap > /dev/full",
					  fmts[i]);
		err = NULL;
		rc = sh(c, NULL, &err);
		cr_expect_eq(rc, 5, "%s: exit %d", fmts[i], rc);
		cr_expect(err && strstr(err, "error writing") != NULL, "%s: %s", fmts[i], err);
		g_free(err);
		g_free(c);
	}
	/* A reader that goes away: exit 5 with a message, never a silent death
	 * by SIGPIPE or a report cut short without a word. */
	char *dir = g_dir_make_tmp("pdpipe-XXXXXX", NULL);
	char *cmd = g_strdup_printf("{ $PCAPDOC -q --flows testdata/captures/churn-ports/churn-ports.pcap "
				    "2>%s/err; echo $? >%s/rc; } | true", dir, dir);
	sh(cmd, NULL, NULL);
	char *rcs = NULL, *errs = NULL, *rcp = g_build_filename(dir, "rc", NULL),
	     *errp = g_build_filename(dir, "err", NULL);
	cr_assert(g_file_get_contents(rcp, &rcs, NULL, NULL));
	g_file_get_contents(errp, &errs, NULL, NULL);
	cr_expect_eq(atoi(rcs), 5, "closed pipe: exit %s", rcs);
	cr_expect(errs && strstr(errs, "Broken pipe"), "%s", errs ? errs : "");
	g_remove(rcp);
	g_remove(errp);
	g_rmdir(dir);
	g_free(rcs);
	g_free(errs);
	g_free(rcp);
	g_free(errp);
	g_free(cmd);
	g_free(dir);
}

Test(cli, colour_only_when_asked)
{
	char *out = NULL;
	sh("$PCAPDOC -q --color always testdata/captures/syn-drop-recover/syn-drop-recover.pcap", &out, NULL);
	cr_expect(strchr(out, '\033') != NULL);
	g_free(out);
	sh("NO_COLOR=1 $PCAPDOC -q --color always testdata/captures/syn-drop-recover/syn-drop-recover.pcap",
	   &out, NULL);
	cr_expect(strchr(out, '\033') == NULL, "NO_COLOR must win");
	g_free(out);
	sh("$PCAPDOC -q testdata/captures/syn-drop-recover/syn-drop-recover.pcap", &out, NULL);
	cr_expect(strchr(out, '\033') == NULL, "no colour on a pipe");
	g_free(out);
}

/* --fail-on, --baseline and --junit, the way a CI job uses them. */
Test(cli, ci_gate_baseline_and_junit)
{
	char *dir = g_dir_make_tmp("pdci-XXXXXX", NULL);
	char *cmd;
	const char *bad = "testdata/captures/syn-drop-recover/syn-drop-recover.pcap";
	const char *good = "testdata/captures/healthy-http/healthy-http.pcap";

	cmd = g_strdup_printf("$PCAPDOC -q --fail-on warning %s", good);
	cr_expect_eq(sh(cmd, NULL, NULL), 0, "healthy capture must pass the gate");
	g_free(cmd);
	cmd = g_strdup_printf("$PCAPDOC -q --fail-on warning %s", bad);
	cr_expect_eq(sh(cmd, NULL, NULL), 1, "a warning must fail the gate");
	g_free(cmd);
	cmd = g_strdup_printf("$PCAPDOC -q --fail-on error %s", bad);
	cr_expect_eq(sh(cmd, NULL, NULL), 0, "only warnings: the error gate passes");
	g_free(cmd);

	/* Baseline: the same findings again are known and do not fail. */
	cmd = g_strdup_printf("$PCAPDOC -q --format json -o %s/base.json %s && "
			      "$PCAPDOC -q --fail-on warning --baseline %s/base.json --junit %s/j.xml %s",
			      dir, bad, dir, dir, bad);
	cr_expect_eq(sh(cmd, NULL, NULL), 0, "baseline must suppress known findings");
	g_free(cmd);
	char *xml = NULL;
	char *xml_path = g_build_filename(dir, "j.xml", NULL);
	cr_assert(g_file_get_contents(xml_path, &xml, NULL, NULL));
	cr_expect(g_str_has_prefix(xml, "<?xml"), "%.80s", xml);
	cr_expect(strstr(xml, "<testsuite") && strstr(xml, "</testsuites>"));
	cr_expect(strstr(xml, "syn-retransmit") != NULL);
	g_free(xml);
	/* xmllint, when present, checks it is well-formed */
	cmd = g_strdup_printf("command -v xmllint >/dev/null || exit 0; xmllint --noout %s", xml_path);
	cr_expect_eq(sh(cmd, NULL, NULL), 0);
	g_free(cmd);
	/* Against a healthy baseline the same capture fails again. */
	cmd = g_strdup_printf("$PCAPDOC -q --format json -o %s/healthy.json %s && "
			      "$PCAPDOC -q --fail-on warning --baseline %s/healthy.json --junit %s/j2.xml %s",
			      dir, good, dir, dir, bad);
	cr_expect_eq(sh(cmd, NULL, NULL), 1);
	g_free(cmd);
	char *j2 = g_build_filename(dir, "j2.xml", NULL);
	cr_assert(g_file_get_contents(j2, &xml, NULL, NULL));
	cr_expect(strstr(xml, "<failure") != NULL, "new finding must fail its test case");
	g_free(xml);
	/* diff: what changed between two runs */
	char *out = NULL;
	cmd = g_strdup_printf("$PCAPDOC diff %s/healthy.json %s/base.json", dir, dir);
	cr_expect_eq(sh(cmd, &out, NULL), 1);
	cr_expect(strstr(out, "syn-retransmit") != NULL, "%s", out);
	g_free(out);
	g_free(cmd);
	cmd = g_strdup_printf("rm -rf '%s'", dir);
	sh(cmd, NULL, NULL);
	g_free(cmd);
	g_free(xml_path);
	g_free(j2);
	g_free(dir);
}

/* Every `pcapdoc ...` line in the README's sh blocks runs as written
 * (exit 0, or 1 for a --fail-on gate). */
Test(cli, readme_examples_run)
{
	char *readme_path = pd_test_src("README.md");
	char *readme = NULL;
	cr_assert(g_file_get_contents(readme_path, &readme, NULL, NULL));
	char *dir = g_dir_make_tmp("pdreadme-XXXXXX", NULL);
	gchar **lines = g_strsplit(readme, "\n", -1);
	bool in_sh = false;
	int ran = 0;
	for (gchar **l = lines; *l; l++) {
		if (g_str_has_prefix(*l, "```")) {
			in_sh = !in_sh && g_str_has_prefix(*l, "```sh");
			continue;
		}
		if (!in_sh || !g_str_has_prefix(*l, "pcapdoc "))
			continue;
		/* drop the trailing "# comment"; outputs go to a scratch dir */
		gchar *line = g_strdup(*l);
		char *hash = strstr(line, "  #");
		if (hash)
			*hash = '\0';
		gchar *cmd = g_strdup_printf("cd '%s' && cp -r \"$OLDPWD/testdata\" . && $PCAPDOC %s >/dev/null",
					     dir, line + strlen("pcapdoc "));
		int rc = sh(cmd, NULL, NULL);
		bool gate = strstr(line, "--fail-on") != NULL || g_str_has_prefix(line, "pcapdoc diff");
		cr_expect(rc == 0 || (gate && rc == 1), "README example failed (exit %d): %s", rc, line);
		ran++;
		g_free(cmd);
		g_free(line);
	}
	cr_expect_geq(ran, 5, "README lost its examples");
	g_strfreev(lines);
	g_free(readme);
	g_free(readme_path);
	char *rm = g_strdup_printf("rm -rf '%s'", dir);
	sh(rm, NULL, NULL);
	g_free(rm);
	g_free(dir);
}

/* The verdict the README shows is what pcapdoc prints for that capture. */
Test(cli, readme_verdict_is_current)
{
	char *readme_path = pd_test_src("README.md");
	char *readme = NULL;
	cr_assert(g_file_get_contents(readme_path, &readme, NULL, NULL));
	const char *cmd_line = "$ pcapdoc testdata/captures/nagle-delack/nagle-delack.pcap\n";
	char *start = strstr(readme, cmd_line);
	cr_assert_not_null(start, "README lost its verdict example");
	start += strlen(cmd_line);
	char *end = strstr(start, "```");
	cr_assert_not_null(end);
	char *shown = g_strndup(start, (gsize)(end - start));
	char *out = NULL;
	cr_assert_eq(sh("$PCAPDOC --color never testdata/captures/nagle-delack/nagle-delack.pcap", &out,
			NULL),
		     0);
	cr_expect(g_str_has_prefix(out, shown), "README shows:\n%s\npcapdoc prints:\n%.*s", shown,
		  (int)strlen(shown), out);
	cr_expect(strstr(shown, "Verdict"), "the example shows the verdict");
	g_free(out);
	g_free(shown);
	g_free(readme);
	g_free(readme_path);
}

/* The report of N workers is the report of one thread, byte for byte, for
 * N = 2, 4 and 8, on every golden capture and every public one: flows are
 * owned by shards whatever the number of workers, and the collector takes
 * ended flows in capture order. */
static void same_report_for_any_threads(const char *dir)
{
	GPtrArray *files = pd_test_list_captures(dir);
	cr_assert_gt(files->len, 10, "%s: too few captures", dir);
	for (guint i = 0; i < files->len; i++) {
		const char *f = g_ptr_array_index(files, i);
		char *a = NULL;
		const char *one[] = {"-q", "--threads", "1", "--format", "json", "--flows", f, NULL};
		int ra = pd_test_run(&a, NULL, one);
		for (int v = 0; v < 3; v++) {
			const char *n = v == 0 ? "2" : v == 1 ? "4" : "8";
			char *b = NULL;
			const char *many[] = {"-q", "--threads", n, "--format", "json", "--flows", f, NULL};
			int rb = pd_test_run(&b, NULL, many);
			cr_expect_eq(ra, rb, "%s: exit %d vs %d (%s threads)", f, ra, rb, n);
			cr_expect_str_eq(a ? a : "", b ? b : "", "%s: reports differ between 1 and %s threads", f, n);
			g_free(b);
		}
		g_free(a);
	}
	g_ptr_array_free(files, TRUE);
}

Test(cli, threads_give_the_same_report)
{
	char *root = pd_test_src("testdata/captures");
	same_report_for_any_threads(root);
	g_free(root);
}

Test(cli, threads_give_the_same_report_public)
{
	const char *shared = g_getenv("PD_SHARED");
	char *root = g_build_filename(shared ? shared : "../shared", "traces", "public", NULL);
	if (!g_file_test(root, G_FILE_TEST_IS_DIR)) {
		g_free(root);
		cr_skip_test("no public traces at PD_SHARED");
	}
	same_report_for_any_threads(root);
	g_free(root);
}

/* The benchmark's floor (PD_BENCH_FLOOR): --no-detectors reads, dissects
 * and tracks every flow as usual, and reports nothing found. */
Test(cli, no_detectors_reads_everything_and_finds_nothing)
{
	const char *f = "testdata/captures/syn-drop-giveup/syn-drop-giveup.pcap";
	cJSON *a = pd_test_json(f, (const char *const[]){"-q", NULL});
	cr_assert_not_null(a);
	cr_assert_gt(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(a, "findings")), 0,
		     "the capture has findings to leave out");
	for (int t = 1; t <= 2; t++) {
		const char *bare[] = {"-q", "--no-detectors", "--threads", t == 1 ? "1" : "2", NULL};
		cJSON *b = pd_test_json(f, bare);
		cr_assert_not_null(b);
		cr_expect_eq(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(b, "findings")), 0,
			     "threads %d: a finding without detectors", t);
		cr_expect(cJSON_Compare(cJSON_GetObjectItemCaseSensitive(a, "capture"),
					cJSON_GetObjectItemCaseSensitive(b, "capture"), true),
			  "threads %d: the capture section changed", t);
		cJSON_Delete(b);
	}
	cJSON_Delete(a);
}

/* --stats (the benchmark reads it): the peak of live flows and the bytes
 * per live flow, the same for any number of workers (flows live in shards,
 * not threads); a capture of 4 connections one after another never has
 * more than a few alive. */
Test(cli, stats_count_live_flows)
{
	long peak[2] = {0, 0};
	for (int t = 0; t < 2; t++) {
		char *err = NULL;
		char *cmd = g_strdup_printf("\"$PCAPDOC\" -q --stats --threads %d -o /dev/null "
					    "testdata/captures/nagle-delack/nagle-delack.pcap",
					    t + 1);
		cr_assert_eq(sh(cmd, NULL, &err), 0);
		const char *p = strstr(err, "peak live flows ");
		cr_assert_not_null(p, "no peak in:\n%s", err);
		peak[t] = strtol(p + strlen("peak live flows "), NULL, 10);
		cr_expect(strstr(err, " per live flow"), "no bytes per live flow in:\n%s", err);
		cr_expect(strstr(err, "detector loss "), "no per-detector sizes in:\n%s", err);
		g_free(cmd);
		g_free(err);
	}
	cr_expect(peak[0] >= 1 && peak[0] <= 4, "peak live flows %ld", peak[0]);
	cr_expect_eq(peak[0], peak[1], "peaks differ: %ld with one worker, %ld with two", peak[0], peak[1]);
}

/* A worker starts nDPI at its first flow, on its own thread: 16 workers on
 * a 5-connection capture start it at most 5 times (each took 25 ms and 5
 * MiB on the reading thread when all started up front), the labels are
 * nDPI's all the same, and --stats says where the CPU went, by thread. */
Test(cli, stats_ndpi_started_by_flows)
{
	const char *cap = "testdata/captures/healthy-http/healthy-http.pcap";
	char *want = NULL;
	char *cmd = g_strdup_printf("\"$PCAPDOC\" --format json --flows --threads 1 %s", cap);
	cr_assert_eq(sh(cmd, &want, NULL), 0);
	g_free(cmd);
	cJSON *doc = cJSON_Parse(want);
	cr_assert_not_null(doc);
	int http = 0;
	const cJSON *fl;
	cJSON_ArrayForEach(fl, cJSON_GetObjectItemCaseSensitive(doc, "flows"))
	{
		const cJSON *app = cJSON_GetObjectItemCaseSensitive(fl, "application");
		http += cJSON_IsString(app) && strcmp(app->valuestring, "HTTP") == 0;
	}
	cJSON_Delete(doc);
	cr_assert(http >= 1, "no flow labelled HTTP:\n%s", want);
	for (int t = 1; t <= 16; t *= 4) {
		char *out = NULL, *err = NULL;
		cmd = g_strdup_printf("\"$PCAPDOC\" --stats --format json --flows --threads %d %s", t, cap);
		cr_assert_eq(sh(cmd, &out, &err), 0);
		cr_expect_str_eq(out, want, "threads %d: the report changed", t);
		const char *p = strstr(err, "nDPI started by ");
		cr_assert_not_null(p, "threads %d: no nDPI line in:\n%s", t, err);
		unsigned started = 0, workers = 0;
		cr_assert_eq(sscanf(p, "nDPI started by %u of %u worker(s)", &started, &workers), 2, "%s", p);
		cr_expect_eq(workers, (unsigned)t);
		cr_expect(started >= 1 && started <= 5 && started <= workers, "threads %d: nDPI started by %u", t,
			  started);
		if (t == 1)
			cr_expect(strstr(err, "CPU: one thread "), "no CPU line in:\n%s", err);
		else
			cr_expect(strstr(err, "CPU: reading and routing ") && strstr(err, " collector "),
				  "threads %d: no CPU by thread in:\n%s", t, err);
		g_free(cmd);
		g_free(out);
		g_free(err);
	}
	g_free(want);
}

/* Runs pcapdoc on a pseudo-terminal (stdout and stderr), feeding `path` to
 * its standard input in 20 pieces over about 1.6 s; returns all it wrote. */
static char *run_on_tty(const char *path, bool quiet)
{
	gchar *data = NULL;
	gsize len = 0;
	cr_assert(g_file_get_contents(path, &data, &len, NULL));
	int in[2];
	cr_assert_eq(pipe(in), 0);
	int master = -1;
	pid_t pid = forkpty(&master, NULL, NULL, NULL);
	cr_assert(pid >= 0);
	if (pid == 0) {
		dup2(in[0], STDIN_FILENO);
		close(in[0]);
		close(in[1]);
		unsetenv("CI"); /* the progress line is off in CI */
		unsetenv("NO_COLOR");
		const char *bin = getenv("PD_PCAPDOC");
		if (quiet)
			execl(bin, bin, "-q", "--format", "json", "-o", "/dev/null", "-", (char *)NULL);
		else
			execl(bin, bin, "--format", "json", "-o", "/dev/null", "-", (char *)NULL);
		_exit(98);
	}
	close(in[0]);
	GString *got = g_string_new(NULL);
	fcntl(master, F_SETFL, O_NONBLOCK);
	char buf[4096];
	for (gsize off = 0, piece = len / 20 + 1; off < len; off += piece) {
		gsize n = MIN(piece, len - off);
		for (gsize w = 0; w < n;) {
			ssize_t k = write(in[1], data + off + w, n - w);
			cr_assert(k > 0);
			w += (gsize)k;
		}
		struct timespec ts = {0, 80 * 1000 * 1000};
		nanosleep(&ts, NULL);
		ssize_t r;
		while ((r = read(master, buf, sizeof(buf))) > 0)
			g_string_append_len(got, buf, r);
	}
	close(in[1]);
	fcntl(master, F_SETFL, 0);
	ssize_t r;
	while ((r = read(master, buf, sizeof(buf))) > 0) /* EIO once the child is gone */
		g_string_append_len(got, buf, r);
	int st = 0;
	cr_assert_eq(waitpid(pid, &st, 0), pid);
	cr_expect(WIFEXITED(st) && WEXITSTATUS(st) == 0, "pcapdoc status %d: %s", st, got->str);
	close(master);
	g_free(data);
	return g_string_free(got, FALSE);
}

/* On a terminal, stderr shows the progress (here from standard input, so
 * bytes read and packets/s, no total) and rewrites it in place; -q
 * silences it; on a pipe it never appears. */
Test(cli, progress_on_a_terminal_only, .timeout = 120)
{
	char *path = g_build_filename(g_get_tmp_dir(), "pd-progress.pcap", NULL);
	char *cmd = g_strdup_printf("'%s' '%s' 25 > /dev/null 2>&1", g_getenv("PD_GEN_CAPTURE"), path);
	cr_assert_eq(system(cmd), 0);
	char *tty = run_on_tty(path, false);
	cr_expect(strstr(tty, "pcapdoc: ") && strstr(tty, " MB, ") && strstr(tty, "packets/s"),
		  "no progress line on a terminal: %s", tty);
	cr_expect(strstr(tty, " 0 MB, ") == NULL, "progress counts the bytes read from a pipe: %s", tty);
	cr_expect(strstr(tty, "\r\033[K") != NULL, "the progress line is rewritten in place: %s", tty);
	char *quiet = run_on_tty(path, true);
	cr_expect(strstr(quiet, "packets/s") == NULL, "-q must silence the progress line: %s", quiet);
	char *err = NULL;
	const char *args[] = {"--format", "json", "-o", "/dev/null", path, NULL};
	cr_expect_eq(pd_test_run(NULL, &err, args), 0);
	cr_expect(err == NULL || strstr(err, "packets/s") == NULL, "progress on a pipe: %s", err);
	g_free(err);
	g_free(quiet);
	g_free(tty);
	g_remove(path);
	g_free(cmd);
	g_free(path);
}

/* Every long option --help shows has its own entry in the manual page, and
 * every option the manual page gives an entry is accepted by the binary: the
 * two cannot drift apart. */
Test(cli, help_and_man_page_list_the_same_options)
{
	char *help = NULL;
	cr_assert_eq(sh("\"$PCAPDOC\" --help", &help, NULL), 0);
	char *man_path = pd_test_src("docs/pcapdoc.1");
	char *man = NULL;
	cr_assert(g_file_get_contents(man_path, &man, NULL, NULL), "%s unreadable", man_path);
	/* the manual page spells a dash \-; compare on the unescaped text */
	GString *plain = g_string_new(NULL);
	for (const char *p = man; *p; p++) {
		if (p[0] == '\\' && p[1] == '-') {
			g_string_append_c(plain, '-');
			p++;
		} else {
			g_string_append_c(plain, *p);
		}
	}
	GRegex *opt = g_regex_new("(?<![\\w-])--[a-z][a-z-]+", 0, 0, NULL);
	GMatchInfo *m = NULL;
	GHashTable *seen = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
	for (g_regex_match(opt, help, 0, &m); g_match_info_matches(m); g_match_info_next(m, NULL)) {
		char *o = g_match_info_fetch(m, 0);
		/* an entry is a .B/.BR line that names the option */
		char *entry = g_strdup_printf("\n.B %s", o);
		char *entry_r = g_strdup_printf("\n.BR %s", o);
		char *entry_rs = g_strdup_printf("\", \" %s", o);
		cr_expect(strstr(plain->str, entry) || strstr(plain->str, entry_r) ||
				  strstr(plain->str, entry_rs),
			  "%s is in --help but has no entry in docs/pcapdoc.1", o);
		g_hash_table_add(seen, o);
		g_free(entry);
		g_free(entry_r);
		g_free(entry_rs);
	}
	g_match_info_free(m);
	int in_help = (int)g_hash_table_size(seen);
	cr_expect_gt(in_help, 15, "--help listed only %d options", in_help);

	/* options with an entry in the man page: .B/.BR lines starting with -- or -x, */
	GRegex *entry = g_regex_new("^\\.BR? (?:-[a-z] \", \" )?(--[a-z][a-z-]+)", G_REGEX_MULTILINE, 0, NULL);
	int in_man = 0;
	for (g_regex_match(entry, plain->str, 0, &m); g_match_info_matches(m); g_match_info_next(m, NULL)) {
		char *o = g_match_info_fetch(m, 1);
		cr_expect(strstr(help, o) != NULL, "%s has a man page entry but is not in --help", o);
		in_man++;
		g_free(o);
	}
	g_match_info_free(m);
	cr_expect_eq(in_man, in_help, "man page has %d option entries, --help %d", in_man, in_help);
	g_regex_unref(opt);
	g_regex_unref(entry);
	g_hash_table_destroy(seen);
	g_string_free(plain, TRUE);
	g_free(man);
	g_free(man_path);
	g_free(help);
}
