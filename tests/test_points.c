/* Two capture points of the same connections (analyzer/points.c, issue 36)
 * on kernel captures (testdata/points/, gen.sh): the client's and the
 * server's eth0 of client -- router -- server, one run each, with drops
 * planted between the points each way, a NAT, MSS clamping, a queue,
 * reordering, a drop beyond a router's point, and a healthy control;
 * the pair in either order, one clock 2 hours off, the same file twice,
 * a rotation and two unrelated files. The counts per direction are the
 * ones testdata/points/facts.py gets from tshark field dumps (README.md). */
#include <criterion/criterion.h>
#include <glib.h>
#include <glib/gstdio.h>
#include <string.h>

#include "report/model.h"
#include "schema_check.c"
#include "testutil.h"

static cJSON *pair(const char *a, const char *b, const char *extra)
{
	char *pa = pd_test_src(a), *pb = pd_test_src(b);
	const char *argv[8];
	int n = 0;
	argv[n++] = "--format";
	argv[n++] = "json";
	argv[n++] = "--threads";
	argv[n++] = "1";
	char *forced = NULL;
	if (extra && !strcmp(extra, "--points")) {
		forced = g_strdup_printf("%s,%s", pa, pb);
		argv[n++] = "--points";
		argv[n++] = forced;
	} else {
		argv[n++] = pa;
		argv[n++] = pb;
	}
	argv[n] = NULL;
	char *out = NULL, *err = NULL;
	int st = pd_test_run(&out, &err, argv);
	cr_assert(st == 0 || st == 1, "pcapdoc %s %s: exit %d: %s", a, b, st, err ? err : "");
	cJSON *doc = cJSON_Parse(out);
	cr_assert_not_null(doc, "not JSON");
	/* valid against the schema, points object and all */
	char *sp = pd_test_src("docs/report.schema.json"), *text = NULL;
	cr_assert(g_file_get_contents(sp, &text, NULL, NULL));
	cJSON *schema = cJSON_Parse(text);
	GString *errs = g_string_new("");
	cr_assert(pd_schema_validate(schema, doc, errs), "schema: %s", errs->str);
	g_string_free(errs, TRUE);
	cJSON_Delete(schema);
	g_free(text);
	g_free(sp);
	g_free(out);
	g_free(err);
	g_free(forced);
	g_free(pa);
	g_free(pb);
	return doc;
}

static const cJSON *points(const cJSON *doc)
{
	const cJSON *p = cJSON_GetObjectItemCaseSensitive(doc, "points");
	cr_assert_not_null(p, "no points object");
	return p;
}

static const cJSON *dir(const cJSON *p, const char *name)
{
	return cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(p, "directions"), name);
}

/* both / only_upstream / only_downstream of one direction */
static void expect_dir(const cJSON *p, const char *name, double both, double up, double down)
{
	const cJSON *d = dir(p, name);
	cr_assert_not_null(d);
	cr_expect_eq(pd_test_num(d, "both"), both, "%s both %g, tshark %g", name, pd_test_num(d, "both"), both);
	cr_expect_eq(pd_test_num(d, "only_upstream"), up, "%s only_upstream %g, tshark %g", name,
		     pd_test_num(d, "only_upstream"), up);
	cr_expect_eq(pd_test_num(d, "only_downstream"), down, "%s only_downstream %g, tshark %g", name,
		     pd_test_num(d, "only_downstream"), down);
}

static bool any_note(const cJSON *doc, const char *needle)
{
	const cJSON *n;
	cJSON_ArrayForEach(n, cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(doc, "capture"), "notes"))
		if (cJSON_IsString(n) && strstr(n->valuestring, needle))
			return true;
	return false;
}

static bool has_setting(const cJSON *f, const char *name)
{
	const cJSON *s;
	cJSON_ArrayForEach(s, cJSON_GetObjectItemCaseSensitive(f, "settings"))
	{
		const cJSON *nm = cJSON_GetObjectItemCaseSensitive(s, "name");
		if (cJSON_IsString(nm) && strstr(nm->valuestring, name))
			return true;
	}
	return false;
}

static const char *analysed_file(const cJSON *doc)
{
	const cJSON *p = points(doc);
	int a = (int)pd_test_num(p, "analysed");
	return cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(p, "files"), a)->valuestring;
}

/* The first 8 frames the upstream file sent this way and the other never saw. */
static void expect_lost_frames(const cJSON *p, const char *way, const double frames[8])
{
	const cJSON *lf = cJSON_GetObjectItemCaseSensitive(dir(p, way), "lost_frames");
	cr_assert_eq(cJSON_GetArraySize(lf), 8);
	for (int i = 0; i < 8; i++)
		cr_expect_eq(cJSON_GetArrayItem(lf, i)->valuedouble, frames[i], "lost frame %d", i);
}

Test(points, healthy_control)
{
	cJSON *doc = pair("testdata/points/healthy/client.pcap", "testdata/points/healthy/server.pcap", NULL);
	const cJSON *p = points(doc);
	cr_expect_str_eq(pd_test_str(p, "verdict"), "two-points");
	cr_expect_eq(pd_test_num(p, "paired"), 3);
	cr_expect_eq(pd_test_num(p, "client_side"), 0);
	expect_dir(p, "client_to_server", 244, 0, 0);
	expect_dir(p, "server_to_client", 321, 0, 0);
	/* same host, one clock: the offset is 0 within the 5 ms each way */
	double off = pd_test_num(p, "clock_offset_s"), unc = pd_test_num(p, "clock_uncertainty_s");
	PD_TEST_NEAR(off, 0, 0.0005);
	PD_TEST_NEAR(unc, 0.005, 0.001);
	const cJSON *d = cJSON_GetObjectItemCaseSensitive(dir(p, "client_to_server"), "one_way_delay_ms");
	PD_TEST_NEAR(pd_test_num(d, "min"), 5.0, 0.5);
	cr_expect_eq(pd_test_count_at_least(doc, "warning"), 0, "the healthy pair has warnings");
	cr_expect(strstr(analysed_file(doc), "client.pcap"));
	cr_expect(any_note(doc, "nothing else was rewritten"));
	cr_expect(!any_note(doc, "queueing"), "the TUN's bursts are no queue");
	cr_expect_eq(pd_test_num(dir(p, "client_to_server"), "reordered"), 0);
	cr_expect_eq(pd_test_num(dir(p, "server_to_client"), "reordered"), 0);
	cJSON_Delete(doc);
}

Test(points, data_dropped_between_the_points)
{
	cJSON *doc = pair("testdata/points/drop-data/client.pcap", "testdata/points/drop-data/server.pcap", NULL);
	const cJSON *p = points(doc);
	expect_dir(p, "client_to_server", 200, 0, 0);
	expect_dir(p, "server_to_client", 322, 16, 0);
	cr_expect_eq(pd_test_num(dir(p, "server_to_client"), "lost_data"), 16);
	/* facts.py: server.pcap 35, 61, 97, 123, 156, 197, 227, 263, ... */
	static const double frames[] = {35, 61, 97, 123, 156, 197, 227, 263};
	expect_lost_frames(p, "server_to_client", frames);
	const cJSON *f = pd_test_finding(doc, "retransmissions", 0);
	cr_assert_not_null(f, "no retransmissions finding");
	cr_expect(strstr(pd_test_str(f, "detail"), "16 data segments left"), "%s", pd_test_str(f, "detail"));
	cr_expect(strstr(pd_test_str(f, "detail"), "dropped between the two capture points"));
	cr_expect_eq(pd_test_metric(f, "lost_between_points"), 16);
	cr_expect_str_eq(pd_test_setting(f, 0), "lossy path");
	cr_expect(!has_setting(f, "NIC ring"), "a path drop is not the receiver's NIC");
	cr_expect(!has_setting(f, "netdev_max_backlog"));
	cJSON_Delete(doc);
}

Test(points, synacks_dropped_between_the_points)
{
	/* the server first: the findings still come from the client's side */
	cJSON *doc = pair("testdata/points/drop-synack/server.pcap", "testdata/points/drop-synack/client.pcap", NULL);
	const cJSON *p = points(doc);
	cr_expect_eq(pd_test_num(p, "client_side"), 1);
	cr_expect(strstr(analysed_file(doc), "client.pcap"));
	expect_dir(p, "client_to_server", 176, 0, 0);
	expect_dir(p, "server_to_client", 214, 4, 0);
	cr_expect_eq(pd_test_num(dir(p, "server_to_client"), "lost_syn"), 4);
	const cJSON *f = pd_test_finding(doc, "syn-retransmit", 0);
	cr_assert_not_null(f);
	const char *det = pd_test_str(f, "detail");
	/* tshark: server.pcap frames 2, 4, 5, 7 are the SYN-ACKs of the first
	 * connection sent during the 2.5 s of the drop rule */
	cr_expect(strstr(det, "4 SYN-ACKs left the server (testdata/points/drop-synack/server.pcap") ||
			  strstr(det, "4 SYN-ACKs left the server ("),
		  "%s", det);
	cr_expect(strstr(det, "#2, #4, #5, #7) and never reached the client: dropped between the two capture points"),
		  "%s", det);
	cr_expect(!has_setting(f, "somaxconn"), "a path drop is not the listener's backlog");
	cr_expect(!has_setting(f, "listen() backlog"));
	cr_expect_str_eq(pd_test_setting(f, 0), "firewall dropping SYN/SYN-ACK");
	cJSON_Delete(doc);
	/* the verdict names the segment of the path */
	char *a = pd_test_src("testdata/points/drop-synack/client.pcap"), *b = pd_test_src("testdata/points/drop-synack/server.pcap");
	const char *argv[] = {"--color", "never", a, b, NULL};
	char *out = NULL, *err = NULL;
	pd_test_run(&out, &err, argv);
	cr_assert_not_null(out);
	const char *v = strstr(out, "Verdict"), *cap = strstr(out, "\nCapture:");
	const char *seg = strstr(out, "dropped between the two capture points; 3.057 s lost");
	cr_expect(v && cap && seg && seg > v && seg < cap, "%s", out);
	g_free(out);
	g_free(err);
	g_free(a);
	g_free(b);
}

/* client->server: the client's first 3 SYNs dropped on the router; the
 * server's file starts with the 4th, which crossed */
Test(points, syns_dropped_between_the_points)
{
	cJSON *doc = pair("testdata/points/drop-syn/client.pcap", "testdata/points/drop-syn/server.pcap", NULL);
	const cJSON *p = points(doc);
	expect_dir(p, "client_to_server", 175, 3, 0);
	expect_dir(p, "server_to_client", 214, 0, 0);
	cr_expect_eq(pd_test_num(dir(p, "client_to_server"), "lost_syn"), 3);
	const cJSON *f = pd_test_finding(doc, "syn-retransmit", 0);
	cr_assert_not_null(f);
	const char *det = pd_test_str(f, "detail");
	cr_expect(strstr(det, "3 SYNs left the client (") &&
			  strstr(det, "drop-syn/client.pcap #1, #2, #3) and never reached the server: dropped between the two capture points"),
		  "%s", det);
	cr_expect(!has_setting(f, "somaxconn"));
	cJSON_Delete(doc);
}

Test(points, nat_between_the_points)
{
	cJSON *doc = pair("testdata/points/nat/client.pcap", "testdata/points/nat/server.pcap", NULL);
	const cJSON *p = points(doc);
	cr_expect_eq(pd_test_num(p, "paired"), 3);
	cr_expect_eq(pd_test_num(p, "translated"), 3);
	expect_dir(p, "client_to_server", 84, 0, 0);
	expect_dir(p, "server_to_client", 323, 0, 0);
	const cJSON *c = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(p, "connections"), 0);
	const cJSON *cl = cJSON_GetObjectItemCaseSensitive(c, "client");
	cr_expect_str_eq(pd_test_str(cJSON_GetArrayItem(cl, 0), "ip"), "10.205.1.2");
	cr_expect_str_eq(pd_test_str(cJSON_GetArrayItem(cl, 1), "ip"), "10.205.2.1");
	double port = pd_test_num(cJSON_GetArrayItem(cl, 1), "port");
	cr_expect(port >= 40000 && port <= 49999, "port %g", port);
	cr_expect(any_note(doc, "a NAT translated 3 of 3 connections"));
	cJSON_Delete(doc);
}

Test(points, mss_clamped_between_the_points)
{
	cJSON *doc = pair("testdata/points/mss/client.pcap", "testdata/points/mss/server.pcap", NULL);
	const cJSON *p = points(doc);
	expect_dir(p, "client_to_server", 279, 0, 0);
	expect_dir(p, "server_to_client", 390, 0, 0);
	const cJSON *c = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(p, "connections"), 0);
	const cJSON *m = cJSON_GetObjectItemCaseSensitive(c, "syn_mss");
	cr_expect_eq(cJSON_GetArrayItem(m, 0)->valuedouble, 1460);
	cr_expect_eq(cJSON_GetArrayItem(m, 1)->valuedouble, 1200);
	m = cJSON_GetObjectItemCaseSensitive(c, "synack_mss");
	cr_expect_eq(cJSON_GetArrayItem(m, 0)->valuedouble, 1200);
	cr_expect_eq(cJSON_GetArrayItem(m, 1)->valuedouble, 1460);
	cr_expect(any_note(doc, "the MSS option of 3 SYNs was rewritten from 1460 to 1200"));
	cr_expect(any_note(doc, "the MSS option of 3 SYN-ACKs was rewritten from 1460 to 1200"));
	cJSON_Delete(doc);
}

/* The text report of a pair (the verdict lines carry the path segment). */
static char *text_of(const char *a, const char *b)
{
	char *pa = pd_test_src(a), *pb = pd_test_src(b);
	const char *argv[] = {"--color", "never", pa, pb, NULL};
	char *out = NULL, *err = NULL;
	pd_test_run(&out, &err, argv);
	cr_assert_not_null(out);
	g_free(err);
	g_free(pa);
	g_free(pb);
	return out;
}

/* The verdict section: from "Verdict" to "Capture:". */
static bool in_verdict(const char *out, const char *needle)
{
	const char *v = strstr(out, "Verdict"), *cap = strstr(out, "\nCapture:"), *x = strstr(out, needle);
	return v && cap && x && x > v && x < cap;
}

static const char *note_with(const cJSON *doc, const char *needle)
{
	const cJSON *n;
	cJSON_ArrayForEach(n, cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(doc, "capture"), "notes"))
		if (cJSON_IsString(n) && strstr(n->valuestring, needle))
			return n->valuestring;
	return NULL;
}

/* The client uploads; every 20th client->server data segment dropped on
 * the router (nft counter: 16). */
Test(points, upload_dropped_between_the_points)
{
	cJSON *doc = pair("testdata/points/drop-c2s/client.pcap", "testdata/points/drop-c2s/server.pcap", NULL);
	const cJSON *p = points(doc);
	expect_dir(p, "client_to_server", 343, 16, 0);
	expect_dir(p, "server_to_client", 218, 0, 0);
	cr_expect_eq(pd_test_num(dir(p, "client_to_server"), "lost_data"), 16);
	/* facts.py: client.pcap 26, 51, 89, 116, 145, 202, 232, 268, ... */
	static const double frames[] = {26, 51, 89, 116, 145, 202, 232, 268};
	expect_lost_frames(p, "client_to_server", frames);
	const cJSON *f = pd_test_finding(doc, "retransmissions", 0);
	cr_assert_not_null(f, "no retransmissions finding");
	const char *det = pd_test_str(f, "detail");
	cr_expect(strstr(det, "16 data segments left testdata/points/drop-c2s/client.pcap (#26, #51, #89,") ||
			  strstr(det, "16 data segments left "),
		  "%s", det);
	cr_expect(strstr(det, "drop-c2s/server.pcap: dropped between the two capture points, client->server"), "%s", det);
	cr_expect_eq(pd_test_metric(f, "lost_between_points"), 16);
	cr_expect_eq(pd_test_metric(f, "retransmitted_segments"), 16);
	cr_expect(!has_setting(f, "NIC ring"), "a path drop is not the receiver's NIC");
	cJSON_Delete(doc);
	char *out = text_of("testdata/points/drop-c2s/client.pcap", "testdata/points/drop-c2s/server.pcap");
	/* the line wraps inside the segment's words */
	cr_expect(in_verdict(out, "dropped between the two") && in_verdict(out, "capture points; 16 occurrences"), "%s", out);
	g_free(out);
}

/* tc tbf 10 mbit, 256 KiB deep, towards the client (tc: dropped 0): the
 * server->client delay rises within each connection, client->server not. */
Test(points, queue_between_the_points)
{
	cJSON *doc = pair("testdata/points/queue/client.pcap", "testdata/points/queue/server.pcap", NULL);
	const cJSON *p = points(doc);
	expect_dir(p, "client_to_server", 266, 0, 0);
	expect_dir(p, "server_to_client", 321, 0, 0);
	const cJSON *sc = cJSON_GetObjectItemCaseSensitive(dir(p, "server_to_client"), "one_way_delay_ms");
	const cJSON *cs = cJSON_GetObjectItemCaseSensitive(dir(p, "client_to_server"), "one_way_delay_ms");
	PD_TEST_NEAR(pd_test_num(sc, "min"), 5.1, 0.5);
	cr_expect_gt(pd_test_num(sc, "p95"), 30, "p95 %g", pd_test_num(sc, "p95"));
	cr_expect_gt(pd_test_num(sc, "last_quarter") - pd_test_num(sc, "first_quarter"), 10);
	cr_expect_lt(pd_test_num(cs, "p95"), 6, "client->server p95 %g", pd_test_num(cs, "p95"));
	const cJSON *c;
	cJSON_ArrayForEach(c, cJSON_GetObjectItemCaseSensitive(p, "connections"))
	{
		const cJSON *d = cJSON_GetObjectItemCaseSensitive(
			cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(c, "directions"), "server_to_client"),
			"one_way_delay_ms");
		cr_expect_gt(pd_test_num(d, "last_quarter"), pd_test_num(d, "first_quarter") + 20);
	}
	const char *n = note_with(doc, "server->client: 321 packets");
	cr_assert_not_null(n);
	cr_expect(strstr(n, "38.358 p95, 38.386 at most, rising from 23.790 to 34.718 ms (median of the first and last quarter) and within 3 of 3 connections (the most from 10.427 to 38.358 ms): queueing between the points"),
		  "%s", n);
	n = note_with(doc, "client->server: 266 packets");
	cr_assert_not_null(n);
	cr_expect(!strstr(n, "queueing"), "%s", n);
	cr_expect_eq(pd_test_count_at_least(doc, "warning"), 0);
	cJSON_Delete(doc);
}

/* The router's TUN holds every 10th data segment 2 ms longer (31 held):
 * facts.py counts 189 packets that overtook one (29 arrived late). */
Test(points, reordered_between_the_points)
{
	cJSON *doc = pair("testdata/points/reorder/client.pcap", "testdata/points/reorder/server.pcap", NULL);
	const cJSON *p = points(doc);
	expect_dir(p, "client_to_server", 268, 0, 0);
	expect_dir(p, "server_to_client", 323, 0, 0);
	cr_expect_eq(pd_test_num(dir(p, "server_to_client"), "reordered"), 189);
	cr_expect_eq(pd_test_num(dir(p, "client_to_server"), "reordered"), 0);
	const char *n = note_with(doc, "server->client: 323 packets");
	cr_assert_not_null(n);
	cr_expect(strstr(n, "; 189 reached ") && strstr(n, "reorder/client.pcap ahead of a packet that left ") &&
			  strstr(n, "reorder/server.pcap before them: reordered between the points"),
		  "%s", n);
	/* the resends the reordering caused say where it happened */
	const cJSON *f = pd_test_finding(doc, "spurious-retransmissions", 0);
	cr_assert_not_null(f, "no spurious-retransmissions finding");
	const char *det = pd_test_str(f, "detail");
	cr_expect(strstr(det, "no data segment was lost between the two capture points"), "%s", det);
	/* 129 of the 189: the finding's 2 connections */
	cr_expect(strstr(det, "; 129 server->client packets of these connections reached ") &&
			  strstr(det, "reorder/server.pcap before them: the path between the two capture points reorders"),
		  "%s", det);
	cr_expect(!strstr(det, "the losses were"), "%s", det);
	cJSON_Delete(doc);
}

/* The second point is the router's interface towards the server; the
 * server's own nft input drops every 20th uploaded data segment (counter
 * 16), after that point: nothing is lost between the two. */
Test(points, dropped_after_the_router_point)
{
	cJSON *doc = pair("testdata/points/router-drop/client.pcap", "testdata/points/router-drop/router.pcap", NULL);
	const cJSON *p = points(doc);
	cr_expect_str_eq(pd_test_str(p, "verdict"), "two-points");
	cr_expect_eq(pd_test_num(p, "paired"), 3);
	cr_expect_eq(pd_test_num(p, "client_side"), 0);
	expect_dir(p, "client_to_server", 359, 0, 0);
	expect_dir(p, "server_to_client", 231, 0, 0);
	/* the router forwards twice (to-c -> tun0 -> to-s): 64 -> 62 c->s; the
	 * server's packets are seen at to-s before any hop */
	const cJSON *ttl = cJSON_GetObjectItemCaseSensitive(dir(p, "server_to_client"), "ttl");
	cr_expect_eq(cJSON_GetArrayItem(ttl, 0)->valuedouble, 64);
	cr_expect_eq(cJSON_GetArrayItem(ttl, 1)->valuedouble, 62);
	cr_expect(any_note(doc, "router-drop/router.pcap near the server"));
	const cJSON *f = pd_test_finding(doc, "retransmissions", 0);
	cr_assert_not_null(f, "no retransmissions finding");
	cr_expect_eq(pd_test_metric(f, "retransmitted_segments"), 16);
	cr_expect_eq(pd_test_metric(f, "lost_between_points"), 0);
	/* not a path drop between the points: the receiving host stays a suspect */
	cr_expect(has_setting(f, "NIC ring"));
	const char *det = pd_test_str(f, "detail");
	cr_expect(strstr(det, "no data segment was lost between the two capture points (590 packets seen at both, 0 at one only): the first copies of all 16 retransmitted segments were seen at ") &&
			  strstr(det, "router-drop/client.pcap, so they crossed both points and were lost after the second one on their way, nearer the receiver"),
		  "%s", det);
	cJSON_Delete(doc);
	char *out = text_of("testdata/points/router-drop/client.pcap", "testdata/points/router-drop/router.pcap");
	cr_expect(!strstr(out, "dropped between the two capture points"), "%s", out);
	g_free(out);
}

/* Either order: the same pairing (directions by client and server, not by
 * file order) and the same findings. */
Test(points, either_order)
{
	cJSON *x = pair("testdata/points/drop-data/client.pcap", "testdata/points/drop-data/server.pcap", NULL);
	cJSON *y = pair("testdata/points/drop-data/server.pcap", "testdata/points/drop-data/client.pcap", NULL);
	char *fx = cJSON_PrintUnformatted(cJSON_GetObjectItemCaseSensitive(x, "findings"));
	char *fy = cJSON_PrintUnformatted(cJSON_GetObjectItemCaseSensitive(y, "findings"));
	cr_expect_str_eq(fx, fy);
	char *dx = cJSON_PrintUnformatted(cJSON_GetObjectItemCaseSensitive(points(x), "directions"));
	char *dy = cJSON_PrintUnformatted(cJSON_GetObjectItemCaseSensitive(points(y), "directions"));
	cr_expect_str_eq(dx, dy);
	PD_TEST_NEAR(pd_test_num(points(x), "clock_offset_s"), -pd_test_num(points(y), "clock_offset_s"), 1e-6);
	cJSON_free(fx);
	cJSON_free(fy);
	cJSON_free(dx);
	cJSON_free(dy);
	cJSON_Delete(x);
	cJSON_Delete(y);
}

/* editcap -t 7200 on the server's file: the files do not overlap in time
 * at all, and still pair, with the offset found to the microsecond. */
Test(points, clock_hours_apart)
{
	cJSON *doc = pair("testdata/points/healthy/client.pcap", "testdata/points/healthy/server-7200.pcap", NULL);
	const cJSON *p = points(doc);
	cr_expect_str_eq(pd_test_str(p, "verdict"), "two-points");
	PD_TEST_NEAR(pd_test_num(p, "clock_offset_s"), 7200, 0.0005);
	expect_dir(p, "client_to_server", 244, 0, 0);
	expect_dir(p, "server_to_client", 321, 0, 0);
	cr_expect(any_note(doc, "2.00 hours apart"));
	cJSON_Delete(doc);
	doc = pair("testdata/points/healthy/server-7200.pcap", "testdata/points/healthy/client.pcap", NULL);
	PD_TEST_NEAR(pd_test_num(points(doc), "clock_offset_s"), -7200, 0.0005);
	cr_expect_eq(pd_test_num(points(doc), "client_side"), 1);
	cJSON_Delete(doc);
}

Test(points, same_point_twice)
{
	cJSON *doc = pair("testdata/points/healthy/client.pcap", "testdata/points/healthy/client.pcap", NULL);
	cr_expect_str_eq(pd_test_str(points(doc), "verdict"), "duplicate");
	cr_expect(any_note(doc, "are the same capture point"));
	cJSON_Delete(doc);
}

/* One point split in two files: merged as today, the same findings as the
 * whole file. */
Test(points, rotation_is_merged)
{
	cJSON *doc = pair("testdata/points/healthy/client-1.pcap", "testdata/points/healthy/client-2.pcap", NULL);
	cr_expect_str_eq(pd_test_str(points(doc), "verdict"), "rotation");
	cJSON *whole = pd_test_report("testdata/points/healthy/client.pcap");
	const cJSON *c1 = cJSON_GetObjectItemCaseSensitive(doc, "capture"),
		    *c2 = cJSON_GetObjectItemCaseSensitive(whole, "capture");
	cr_expect_eq(pd_test_num(c1, "packets"), pd_test_num(c2, "packets"));
	cr_expect_eq(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(doc, "findings")),
		     cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(whole, "findings")));
	cJSON_Delete(whole);
	cJSON_Delete(doc);
}

Test(points, no_connection_in_common)
{
	cJSON *doc = pair("testdata/points/healthy/client.pcap", "testdata/points/drop-data/server.pcap", NULL);
	cr_expect_str_eq(pd_test_str(points(doc), "verdict"), "disjoint");
	cr_expect(any_note(doc, "share no connection"));
	cJSON_Delete(doc);
}

/* One file cut mid-record: a note, and what the cut hides is outside the
 * time both files cover, not lost between the points. */
Test(points, one_file_truncated)
{
	char *src = pd_test_src("testdata/points/drop-data/server.pcap"), *bytes = NULL;
	gsize len = 0;
	cr_assert(g_file_get_contents(src, &bytes, &len, NULL));
	char *tmp = g_build_filename(g_get_tmp_dir(), "pd-points-trunc.pcap", NULL);
	cr_assert(g_file_set_contents(tmp, bytes, 40000, NULL));
	char *cli = pd_test_src("testdata/points/drop-data/client.pcap");
	const char *argv[] = {"--format", "json", cli, tmp, NULL};
	char *out = NULL, *err = NULL;
	int st = pd_test_run(&out, &err, argv);
	cr_assert(st == 0 || st == 1, "exit %d", st);
	cJSON *doc = cJSON_Parse(out);
	cr_assert_not_null(doc);
	const cJSON *p = points(doc);
	cr_expect(cJSON_IsTrue(cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(p, "truncated"), 1)));
	cr_expect(any_note(doc, "is truncated: the pairing of the two points covers what was read"));
	/* the client's ACKs after the cut never reached the cut file: not lost */
	cr_expect_eq(pd_test_num(dir(p, "client_to_server"), "only_upstream"), 0);
	/* the 8 drops before the cut are still found */
	cr_expect_eq(pd_test_num(dir(p, "server_to_client"), "lost_data"), 8);
	cJSON_Delete(doc);
	g_unlink(tmp);
	g_free(tmp);
	g_free(out);
	g_free(err);
	g_free(bytes);
	g_free(cli);
	g_free(src);
}

/* --points: the first file given is the one analysed. */
Test(points, forced)
{
	cJSON *doc = pair("testdata/points/drop-data/server.pcap", "testdata/points/drop-data/client.pcap", "--points");
	const cJSON *p = points(doc);
	cr_expect(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(p, "forced")));
	cr_expect_eq(pd_test_num(p, "analysed"), 0);
	cr_expect(strstr(analysed_file(doc), "server.pcap"));
	expect_dir(p, "server_to_client", 322, 16, 0);
	cJSON_Delete(doc);
}

Test(points, usage)
{
	char *out = NULL, *err = NULL;
	const char *argv[] = {"--points", "only-one.pcap", NULL};
	cr_expect_eq(pd_test_run(&out, &err, argv), 2);
	g_free(out);
	g_free(err);
}

/* The same point twice is analysed once: the counts and findings of the
 * file alone, not every packet seen twice. */
Test(points, same_point_twice_counted_once)
{
	cJSON *doc = pair("testdata/points/drop-data/client.pcap", "testdata/points/drop-data/client.pcap", NULL);
	cJSON *alone = pd_test_report("testdata/points/drop-data/client.pcap");
	cr_expect_str_eq(pd_test_str(points(doc), "verdict"), "duplicate");
	cr_expect(any_note(doc, "is analysed, so none is counted twice"));
	const cJSON *c1 = cJSON_GetObjectItemCaseSensitive(doc, "capture"),
		    *c2 = cJSON_GetObjectItemCaseSensitive(alone, "capture");
	cr_expect_eq(pd_test_num(c1, "packets"), pd_test_num(c2, "packets"));
	char *fx = cJSON_PrintUnformatted(cJSON_GetObjectItemCaseSensitive(doc, "findings"));
	char *fy = cJSON_PrintUnformatted(cJSON_GetObjectItemCaseSensitive(alone, "findings"));
	cr_expect_str_eq(fx, fy);
	cJSON_free(fx);
	cJSON_free(fy);
	cJSON_Delete(alone);
	cJSON_Delete(doc);
}

/* drift.py on the server's file: its clock runs 200 and 2000 ppm fast. The
 * drift is found within its stated bound (the 2000 ppm one also told from
 * none), and the packets match as on the healthy pair. */
Test(points, clock_drifting)
{
	static const struct {
		const char *file;
		double ppm;
	} cases[] = {{"testdata/points/healthy/server-drift200.pcap", 200},
		     {"testdata/points/healthy/server-drift2000.pcap", 2000}};
	for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
		cJSON *doc = pair("testdata/points/healthy/client.pcap", cases[i].file, NULL);
		const cJSON *p = points(doc);
		cr_expect_str_eq(pd_test_str(p, "verdict"), "two-points");
		double drift = pd_test_num(p, "clock_drift_ppm"), unc = pd_test_num(p, "clock_drift_uncertainty_ppm");
		cr_expect(unc > 0 && fabs(drift - cases[i].ppm) <= unc, "%s: drift %g +- %g ppm, true %g", cases[i].file,
			  drift, unc, cases[i].ppm);
		if (cases[i].ppm >= 2000)
			cr_expect(fabs(drift) > unc, "2000 ppm not told from none: %g +- %g", drift, unc);
		expect_dir(p, "client_to_server", 244, 0, 0);
		expect_dir(p, "server_to_client", 321, 0, 0);
		cr_expect(any_note(doc, " ppm +- "));
		cJSON_Delete(doc);
	}
	/* the same clock: no drift within the bound */
	cJSON *doc = pair("testdata/points/healthy/client.pcap", "testdata/points/healthy/server.pcap", NULL);
	const cJSON *p = points(doc);
	cr_expect(fabs(pd_test_num(p, "clock_drift_ppm")) <= pd_test_num(p, "clock_drift_uncertainty_ppm"));
	cJSON_Delete(doc);
}

/* The nat pair with every SYN and SYN-ACK cut off (derive.sh): neither
 * file has a handshake and the 4-tuples differ, so the connections pair
 * by their first data segments. The counts are the nat pair's less the 3
 * SYNs and 3 SYN-ACKs. */
Test(points, nat_mid_stream)
{
	cJSON *doc = pair("testdata/points/nat/client-nosyn.pcap", "testdata/points/nat/server-nosyn.pcap", NULL);
	const cJSON *p = points(doc);
	cr_expect_str_eq(pd_test_str(p, "verdict"), "two-points");
	cr_expect_eq(pd_test_num(p, "paired"), 3);
	cr_expect_eq(pd_test_num(p, "translated"), 3);
	cr_expect_eq(pd_test_num(p, "client_side"), 0);
	expect_dir(p, "client_to_server", 81, 0, 0);
	expect_dir(p, "server_to_client", 320, 0, 0);
	cJSON_Delete(doc);
}
