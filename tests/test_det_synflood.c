/* det_synflood.c's rule, fed packets built in C (tests/harness.h): many
 * half-open connections (a SYN and nothing else from the client) to one
 * server endpoint, from many sources, many in one second. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "harness.h"

#define SERVER "10.0.0.2:80"

/* n SYNs, the i-th from source i % sources (10.1.x.y, port 40000 + i),
 * spaced `gap` seconds; the server answers each with a SYN-ACK and the
 * client never completes the handshake. */
static void syns(pd_harness *h, int n, int sources, double gap)
{
	for (int i = 0; i < n; i++) {
		char cli[32];
		int s = i % sources;
		snprintf(cli, sizeof(cli), "10.1.%d.%d:%d", s / 250, 1 + s % 250, 40000 + i);
		pd_hseg syn = {.flags = PD_TCP_SYN, .seq = 1000u + (uint32_t)i, .win = 64240, .mss = 1460,
			       .wscale = 7, .sack_ok = true, .df = true};
		pd_harness_tcp(h, cli, SERVER, &syn);
		pd_hseg sa = {.flags = PD_TCP_SYN | PD_TCP_ACK, .seq = 900000, .ack = syn.seq + 1, .win = 65160,
			      .mss = 1460, .wscale = 7, .sack_ok = true, .df = true};
		pd_harness_tcp(h, SERVER, cli, &sa);
		pd_harness_later(h, gap);
	}
}

static pd_report *run(int n, int sources, double gap)
{
	pd_harness *h = pd_harness_new("synflood");
	pd_harness_at(h, 1.0);
	syns(h, n, sources, gap);
	return pd_harness_finish(h);
}

/* SF_MIN_HALF_OPEN 200, SF_MIN_RATE 100 in the busiest second,
 * SF_MIN_SOURCES 100; the sketch is read at the 200th half-open
 * connection and every 64 after. */
Test(det_synflood, half_open_from_many_sources_is_a_flood)
{
	pd_report *r = run(256, 256, 0.003);
	const pd_finding *f = pd_harness_finding(r, "syn-flood", 0);
	cr_assert_not_null(f, "256 half-open from 256 sources in 0.8 s");
	cr_expect_eq(f->severity, PD_SEV_ERROR);
	cr_expect_eq(pd_harness_metric(f, "half_open"), 256);
	cr_expect_eq(pd_harness_metric(f, "syns"), 256);
	cr_expect_eq(pd_harness_metric(f, "synacks_seen"), 256);
	cr_expect_eq(pd_harness_metric(f, "busiest_second_syns"), 256);
	double src = pd_harness_metric(f, "sources_estimated");
	cr_expect(src > 240 && src < 272, "sources %f (HLL, ~3 %%)", src);
	cr_expect_eq(pd_harness_metric(f, "syncookie_synacks"), 0, "the SYN-ACKs kept WS and SACK");
	cr_assert_geq(f->flows->len, 1);
	const pd_flow_ref *fl = &g_array_index(f->flows, pd_flow_ref, 0);
	cr_expect_eq(fl->server_port, 80);
	cr_expect_str_eq(f->settings[0], "net.ipv4.tcp_syncookies");
	pd_report_free(r);
}

Test(det_synflood, one_short_of_the_verdict_is_no_flood)
{
	pd_report *r = run(199, 199, 0.003);
	cr_expect_eq(pd_harness_count(r, "syn-flood"), 0, "199 half-open: under the threshold");
	pd_report_free(r);
	r = run(200, 200, 0.003);
	cr_expect_eq(pd_harness_count(r, "syn-flood"), 1, "200 half-open: the threshold");
	pd_report_free(r);
}

Test(det_synflood, a_slow_trickle_is_no_flood)
{
	pd_report *r = run(256, 256, 0.011); /* ~91 in any second */
	cr_expect_eq(pd_harness_count(r, "syn-flood"), 0);
	pd_report_free(r);
}

Test(det_synflood, few_sources_are_no_flood)
{
	pd_report *r = run(256, 90, 0.003);
	cr_expect_eq(pd_harness_count(r, "syn-flood"), 0, "90 sources < SF_MIN_SOURCES");
	pd_report_free(r);
}

/* A real client's connection to the server long before the flood is no
 * part of it: the flood starts at its first half-open SYN (here
 * a connection completed at the capture's start, the flood from t=5 s). */
Test(det_synflood, the_flood_starts_at_its_first_half_open_syn)
{
	pd_harness *h = pd_harness_new("synflood");
	pd_harness_at(h, 0.0);
	pd_harness_connect(h, "10.9.9.9:50000", SERVER, 0.010);
	pd_harness_at(h, 5.0);
	syns(h, 256, 256, 0.003);
	pd_report *r = pd_harness_finish(h);
	const pd_finding *f = pd_harness_finding(r, "syn-flood", 0);
	cr_assert_not_null(f);
	cr_expect_eq(pd_harness_metric(f, "completed_handshakes"), 1);
	cr_expect(strstr(f->detail, "from t=5.0 s"), "%s", f->detail);
	pd_report_free(r);
}
