/* det_synflood.c's rule, fed packets built in C (tests/harness.h): many
 * half-open connections (a SYN and nothing else from the client) to one
 * server endpoint, from many sources, many in one second. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "dissect/addr.h"
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

/* A SYN queue that fills with tcp_syncookies=0: the first `answered`
 * spoofed SYNs get SYN-ACKs (retransmitted 1 s later when `held`: the
 * server kept a request for each), the next `silent` ones nothing at all;
 * three real clients (10.9.0.1-3) retry their SYNs meanwhile, two connect
 * at last. `cookies`: the answers are cookies instead (WS and SACK
 * stripped, never retransmitted) and every SYN is answered. */
typedef struct queue_plan {
	int answered, silent;
	bool held, cookies, silent_first;
} queue_plan;

static void spoofed(pd_harness *h, int i, bool answer, bool cookie)
{
	char cli[32];
	snprintf(cli, sizeof(cli), "10.1.%d.%d:%d", i / 250, 1 + i % 250, 40000 + i);
	pd_hseg syn = {.flags = PD_TCP_SYN, .seq = 1000u + (uint32_t)i, .win = 64240, .mss = 1460, .wscale = 7,
		       .sack_ok = true, .df = true};
	pd_harness_tcp(h, cli, SERVER, &syn);
	if (!answer)
		return;
	pd_hseg sa = {.flags = PD_TCP_SYN | PD_TCP_ACK, .seq = 900000, .ack = syn.seq + 1, .win = 65160, .mss = 1460,
		      .wscale = cookie ? -1 : 7, .sack_ok = !cookie, .df = true};
	pd_harness_tcp(h, SERVER, cli, &sa);
}

static void synack_again(pd_harness *h, int i)
{
	char cli[32];
	snprintf(cli, sizeof(cli), "10.1.%d.%d:%d", i / 250, 1 + i % 250, 40000 + i);
	pd_hseg sa = {.flags = PD_TCP_SYN | PD_TCP_ACK, .seq = 900000, .ack = 1001u + (uint32_t)i, .win = 65160,
		      .mss = 1460, .wscale = 7, .sack_ok = true, .df = true};
	pd_harness_tcp(h, SERVER, cli, &sa);
}

static void real_syn(pd_harness *h, int k)
{
	char cli[32];
	snprintf(cli, sizeof(cli), "10.9.0.%d:50000", 1 + k);
	pd_hseg syn = {.flags = PD_TCP_SYN, .seq = 5000u * (uint32_t)(k + 1), .win = 64240, .mss = 1460, .wscale = 7,
		       .sack_ok = true, .ts = true, .tsval = 100, .df = true};
	pd_harness_tcp(h, cli, SERVER, &syn);
}

static pd_report *queue_run(const queue_plan *p, const char *detectors)
{
	pd_harness *h = pd_harness_new(detectors);
	pd_harness_at(h, 1.0);
	int i = 0;
	if (p->silent_first)
		for (int k = 0; k < p->silent; k++, i++, pd_harness_later(h, 0.003))
			spoofed(h, i, false, false);
	int first_answered = i;
	for (int k = 0; k < p->answered; k++, i++, pd_harness_later(h, 0.003))
		spoofed(h, i, true, false);
	if (!p->silent_first)
		for (int k = 0; k < p->silent; k++, i++, pd_harness_later(h, 0.003))
			spoofed(h, i, p->cookies, p->cookies);
	pd_harness_at(h, 2.0);
	for (int k = 0; k < 3; k++)
		real_syn(h, k);
	if (p->held) {
		pd_harness_at(h, 2.2);
		for (int k = 0; k < p->answered; k++)
			synack_again(h, first_answered + k);
	}
	for (int round = 1; round <= 3; round++) {
		pd_harness_at(h, 2.0 + round);
		for (int k = 0; k < 3; k++)
			real_syn(h, k);
	}
	pd_harness_at(h, 6.0);
	for (int k = 0; k < 2; k++) {
		char cli[32];
		snprintf(cli, sizeof(cli), "10.9.0.%d:50000", 1 + k);
		real_syn(h, k);
		pd_hseg sa = {.flags = PD_TCP_SYN | PD_TCP_ACK, .seq = 800000, .ack = 5000u * (uint32_t)(k + 1) + 1,
			      .win = 65160, .mss = 1460, .wscale = 7, .sack_ok = true, .ts = true, .tsval = 9,
			      .tsecr = 100, .df = true};
		pd_harness_tcp(h, SERVER, cli, &sa);
		pd_hseg ack = {.flags = PD_TCP_ACK, .seq = sa.ack, .ack = 800001, .win = 502, .ts = true, .tsval = 101,
			       .tsecr = 9, .df = true};
		pd_harness_tcp(h, cli, SERVER, &ack);
		ack.flags = PD_TCP_ACK | PD_TCP_PSH;
		ack.len = 40;
		pd_harness_tcp(h, cli, SERVER, &ack);
	}
	return pd_harness_finish(h);
}

static const queue_plan dropping = {.answered = 64, .silent = 300, .held = true};

Test(det_synflood, a_full_queue_without_cookies_drops_the_rest)
{
	pd_report *r = queue_run(&dropping, "synflood");
	const pd_finding *f = pd_harness_finding(r, "syn-flood", 0);
	cr_assert_not_null(f);
	cr_expect_eq(pd_harness_metric(f, "half_open_answered"), 64);
	cr_expect_eq(pd_harness_metric(f, "half_open_synack_retransmitted"), 64);
	cr_expect_eq(pd_harness_metric(f, "half_open_unanswered"), 301, "300 spoofed, and the client that gave up");
	cr_expect_eq(pd_harness_metric(f, "clients_retrying"), 3);
	cr_expect(strstr(f->detail, "the SYN queue was full"), "%s", f->detail);
	cr_expect(strstr(f->detail, "3 connection(s) from 3 client address(es)"), "%s", f->detail);
	cr_expect_str_eq(f->settings[0], "net.ipv4.tcp_syncookies");
	cr_expect_str_eq(f->settings[1], "net.ipv4.tcp_max_syn_backlog");
	/* the real clients are named first */
	cr_assert_geq(f->flows->len, 3);
	for (int k = 0; k < 3; k++) {
		char want[16];
		snprintf(want, sizeof(want), "10.9.0.%d", 1 + k);
		const pd_flow_ref *fl = &g_array_index(f->flows, pd_flow_ref, k);
		char got[64];
		pd_addr_bracketed(&fl->client, got, sizeof(got));
		cr_expect_str_eq(got, want);
	}
	pd_report_free(r);
}

Test(det_synflood, it_explains_the_real_clients_retries)
{
	pd_report *r = queue_run(&dropping, "synflood,handshake");
	cr_assert_not_null(pd_harness_finding(r, "syn-flood", 0));
	int n = 0;
	for (guint i = 0; i < r->findings->len; i++) {
		const pd_finding *f = g_ptr_array_index(r->findings, i);
		if (strcmp(f->def->id, "syn-unanswered") && strcmp(f->def->id, "syn-retransmit"))
			continue;
		cr_expect_str_eq(f->explained_by, "syn-flood", "%s", f->def->id);
		n += (int)f->flow_count; /* two retries to one server are one finding */
	}
	cr_expect_eq(n, 3, "two syn-retransmit, one syn-unanswered");
	pd_report_free(r);
}

/* Answered SYNs whose SYN-ACK never came again may be cookies (to SYNs
 * with timestamps they keep their options): no claim of drops. */
Test(det_synflood, no_synack_retransmission_no_claim)
{
	queue_plan p = dropping;
	p.held = false;
	pd_report *r = queue_run(&p, "synflood");
	const pd_finding *f = pd_harness_finding(r, "syn-flood", 0);
	cr_assert_not_null(f);
	cr_expect(!strstr(f->detail, "the SYN queue was full"), "%s", f->detail);
	cr_expect_str_eq(f->settings[1], "listen() backlog");
	pd_report_free(r);
}

/* Unanswered SYNs before any answered one: the answers did not stop, they
 * had not begun (a capture that missed them, a server that came up late). */
Test(det_synflood, silence_before_the_answers_is_no_full_queue)
{
	queue_plan p = dropping;
	p.silent_first = true;
	pd_report *r = queue_run(&p, "synflood");
	const pd_finding *f = pd_harness_finding(r, "syn-flood", 0);
	cr_assert_not_null(f);
	cr_expect(!strstr(f->detail, "the SYN queue was full"), "%s", f->detail);
	pd_report_free(r);
}

/* Cookies answered the rest: the existing cookie path. */
Test(det_synflood, cookies_answer_the_rest)
{
	queue_plan p = dropping;
	p.cookies = true;
	pd_report *r = queue_run(&p, "synflood");
	const pd_finding *f = pd_harness_finding(r, "syn-flood", 0);
	cr_assert_not_null(f);
	cr_expect_eq(pd_harness_metric(f, "syncookie_synacks"), 300);
	cr_expect(!strstr(f->detail, "the SYN queue was full"), "%s", f->detail);
	cr_expect(strstr(f->detail, "(SYN cookies)"), "%s", f->detail);
	pd_report_free(r);
}
