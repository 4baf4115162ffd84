/* Mixed "SRE ticket" captures (testdata/captures/mixed-router): keep-alive
 * HTTP from 3 clients, 30 short connections, a 5 MB download with ~1 % nft
 * drops, DNS over UDP and one client whose SYNs to port 8443 are dropped,
 * all at once through a delay box and a router. The router capture
 * (tcpdump -i any, LINUX_SLL2, every forwarded packet twice) is kept as the
 * parts of a rotated capture (tcpdump -C 1); the server capture (Ethernet)
 * gzipped. Facts verified with tshark, see the folder's README. */
#include <criterion/criterion.h>
#include <glib.h>
#include <glib/gstdio.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <zlib.h>

#include "testutil.h"

#define MX_DIR "testdata/captures/mixed-router/"

static cJSON *mx_report(const char *const *files, int n)
{
	const char *argv[16];
	int k = 0;
	argv[k++] = "--format";
	argv[k++] = "json";
	argv[k++] = "-q";
	char *abs[8];
	for (int i = 0; i < n; i++)
		argv[k++] = abs[i] = pd_test_src(files[i]);
	argv[k] = NULL;
	char *out = NULL, *err = NULL;
	int rc = pd_test_run(&out, &err, argv);
	for (int i = 0; i < n; i++)
		g_free(abs[i]);
	cr_assert(rc == 0, "pcapdoc exit %d: %s", rc, err ? err : "");
	cJSON *j = cJSON_Parse(out);
	g_free(out);
	g_free(err);
	cr_assert_not_null(j);
	return j;
}

static cJSON *mx_router(void)
{
	const char *f[] = {MX_DIR "rot.pcap.gz", MX_DIR "rot.pcap1.gz"};
	return mx_report(f, 2);
}

static double mx_num(const cJSON *o, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
	cr_assert(cJSON_IsNumber(v), "%s missing", key);
	return v->valuedouble;
}

/* The server port of a finding's idx-th flow. */
static int mx_flow_port(const cJSON *f, int idx)
{
	const cJSON *fl = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(f, "flows"), idx);
	cr_assert_not_null(fl);
	const cJSON *p = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(fl, "server"), "port");
	cr_assert(cJSON_IsNumber(p), "flow has no server port");
	return (int)p->valuedouble;
}

static uint64_t mx_first_frame(const cJSON *f)
{
	const cJSON *ev = cJSON_GetObjectItemCaseSensitive(f, "evidence");
	const cJSON *first = cJSON_GetObjectItemCaseSensitive(ev, "first");
	if (!first)
		first = cJSON_GetArrayItem(ev, 0);
	return (uint64_t)mx_num(first, "frame");
}

Test(mixed, router_rotated_parts_findings)
{
	cJSON *r = mx_router();
	const cJSON *cap = cJSON_GetObjectItemCaseSensitive(r, "capture");
	cr_expect_eq(mx_num(cap, "packets"), 13417);
	/* one warning-or-worse finding: the SYNs to 8443 */
	cr_expect_eq(pd_test_count_at_least(r, "warning"), 1);
	const cJSON *syn = pd_test_finding(r, "syn-unanswered", 0);
	cr_assert_not_null(syn);
	cr_expect_eq(mx_num(syn, "flow_count"), 1);
	cr_expect_eq(mx_flow_port(syn, 0), 8443);
	cr_expect_eq(mx_num(syn, "occurrences"), 7);
	cr_expect_eq(mx_first_frame(syn), 11230);
	cr_expect_eq(pd_test_metric(syn, "syn_retransmits"), 6);
	/* SYNs at 0,1,2,3,4,5,7 s and then silence: no tcp_syn_retries budget
	 * ends there (n=2 stops at 7 s without the 7th SYN, n=3 sends an 8th
	 * at 11 s); the application's 8 s connect timeout did */
	double by = pd_test_metric(syn, "app_stopped_by_s");
	cr_expect(by > 10.5 && by < 11.5, "app stopped by %.2f s", by);
	cr_expect(cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(syn, "metrics"),
						   "connect_failed_after_s") == NULL);
	double imp = mx_num(syn, "impact_s");
	cr_expect(imp > 7.0 && imp < 7.3, "impact %.3f", imp);

	/* the 25 nft drops, all in the download, all fast/SACK recovery; the
	 * router's second copies are neither retransmissions nor dup ACKs */
	cr_expect_eq(pd_test_count_findings(r, "retransmissions"), 1);
	const cJSON *rt = pd_test_finding(r, "retransmissions", 0);
	cr_assert_not_null(rt);
	cr_expect_eq(mx_num(rt, "flow_count"), 1);
	cr_expect_eq(mx_flow_port(rt, 0), 8080);
	cr_expect_eq(pd_test_metric(rt, "retransmitted_segments"), 25);
	cr_expect_eq(pd_test_metric(rt, "rto_retransmissions"), 0);
	cr_expect_eq(pd_test_metric(rt, "spurious"), 0);
	cr_expect_eq(pd_test_metric(rt, "original_unseen"), 0);
	cr_expect_eq(mx_first_frame(rt), 686);
	cr_expect_eq(pd_test_count_findings(r, "sender-limited"), 0);

	/* the copies: every forwarded packet except the SYN-ACKs (IP ID 0),
	 * counted once per flow: 34 TCP flows (the blocked one was never
	 * forwarded), not the same flow again past the 32 listed */
	const cJSON *dup = pd_test_finding(r, "capture-duplicates", 0);
	cr_assert_not_null(dup);
	cr_expect_eq(mx_num(dup, "flow_count"), 34);
	cr_expect_eq(pd_test_metric(dup, "duplicate_frames"), 6642);
	cJSON_Delete(r);
}

/* The rotated parts given together read as one capture: the same report
 * as the parts joined into one file (what the single tcpdump of the same
 * run wrote, up to its own microsecond timestamps). */
Test(mixed, rotated_parts_equal_joined_capture)
{
	char *dir = g_dir_make_tmp("pdmixXXXXXX", NULL);
	cr_assert_not_null(dir);
	char *joined = g_build_filename(dir, "joined.pcap", NULL);
	FILE *out = fopen(joined, "wb");
	cr_assert_not_null(out);
	const char *parts[] = {MX_DIR "rot.pcap.gz", MX_DIR "rot.pcap1.gz"};
	for (int i = 0; i < 2; i++) {
		char *p = pd_test_src(parts[i]);
		gzFile gz = gzopen(p, "rb");
		cr_assert_not_null(gz);
		char buf[65536];
		int n, skip = i ? 24 : 0; /* later parts: drop the file header */
		while ((n = gzread(gz, buf, sizeof(buf))) > 0) {
			int s = skip < n ? skip : n;
			skip -= s;
			fwrite(buf + s, 1, (size_t)(n - s), out);
		}
		gzclose(gz);
		g_free(p);
	}
	fclose(out);
	cJSON *a = mx_router();
	const char *argv[] = {"--format", "json", "-q", joined, NULL};
	char *o = NULL, *e = NULL;
	cr_assert_eq(pd_test_run(&o, &e, argv), 0);
	cJSON *b = cJSON_Parse(o);
	cr_assert_not_null(b);
	cJSON_DeleteItemFromObject(cJSON_GetObjectItemCaseSensitive(a, "capture"), "files");
	cJSON_DeleteItemFromObject(cJSON_GetObjectItemCaseSensitive(b, "capture"), "files");
	/* the parts say how they were read: one capture point, rotated */
	const cJSON *pts = cJSON_GetObjectItemCaseSensitive(a, "points");
	cr_assert_not_null(pts, "two files: the pairing's verdict");
	cr_expect_str_eq(pd_test_str(pts, "verdict"), "rotation");
	cr_expect_null(cJSON_GetObjectItemCaseSensitive(b, "points"), "one file: nothing to pair");
	cJSON_DeleteItemFromObject(a, "points");
	cr_expect(cJSON_Compare(a, b, 1), "rotated parts and joined capture differ");
	cr_expect_gt(pd_test_count_findings(a, "syn-unanswered"), 0);
	cJSON_Delete(a);
	cJSON_Delete(b);
	g_free(o);
	g_free(e);
	remove(joined);
	g_rmdir(dir);
	g_free(joined);
	g_free(dir);
}

Test(mixed, server_side_and_stdin)
{
	const char *f[] = {MX_DIR "server.pcap.gz"};
	cJSON *r = mx_report(f, 1);
	cr_expect_eq(mx_num(cJSON_GetObjectItemCaseSensitive(r, "capture"), "packets"), 6718);
	cr_expect_eq(pd_test_count_at_least(r, "warning"), 0);
	cr_expect_eq(pd_test_count_findings(r, "syn-unanswered"), 0); /* SYNs never reached it */
	cr_expect_eq(pd_test_count_findings(r, "capture-duplicates"), 0);
	const cJSON *rt = pd_test_finding(r, "retransmissions", 0);
	cr_assert_not_null(rt);
	cr_expect_eq(mx_flow_port(rt, 0), 8080);
	cr_expect_eq(pd_test_metric(rt, "retransmitted_segments"), 25);
	cr_expect_eq(mx_first_frame(rt), 344);
	/* keep-alive request/response flows wait for the next request: not
	 * "sender did not fill the window" */
	cr_expect_eq(pd_test_count_findings(r, "sender-limited"), 0);

	/* zcat server.pcap.gz | pcapdoc - */
	char *src = pd_test_src(MX_DIR "server.pcap.gz");
	char *cmd = g_strdup_printf("gzip -dc '%s' | '%s' --format json -q -", src, g_getenv("PD_PCAPDOC"));
	char *o = NULL;
	gint st = 0;
	const char *sh[] = {"/bin/sh", "-c", cmd, NULL};
	cr_assert(g_spawn_sync(NULL, (char **)sh, NULL, 0, NULL, NULL, &o, NULL, &st, NULL));
	cr_assert_eq(st, 0);
	cJSON *s = cJSON_Parse(o);
	cr_assert_not_null(s);
	cJSON_DeleteItemFromObject(cJSON_GetObjectItemCaseSensitive(r, "capture"), "files");
	cJSON_DeleteItemFromObject(cJSON_GetObjectItemCaseSensitive(s, "capture"), "files");
	cr_expect(cJSON_Compare(r, s, 1), "stdin report differs from the file's");
	cJSON_Delete(s);
	cJSON_Delete(r);
	g_free(o);
	g_free(cmd);
	g_free(src);
}
