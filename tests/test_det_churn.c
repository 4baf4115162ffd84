/* det_churn.c's rules, fed packets built in C (tests/harness.h): many
 * short connections from one client to one server port (a warning only
 * where they cost: ports reused, SYNs failing, handshakes a large share),
 * and 4-tuples reused while the previous connection on them is in
 * TIME_WAIT. The golden captures churn-short-lan-* and churn-short-rtt40-*
 * show the first on the kernel's own packets. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "harness.h"

#define SERVER "10.0.0.2:80"

/* One request/response on a new connection from port `port` over a path
 * of round trip `rtt`, the server answering after `think` seconds, closed
 * by the client first (the client holds TIME_WAIT). */
static void exchange_rtt(pd_harness *h, uint16_t port, uint32_t isn, double rtt, double think)
{
	char cli[32];
	snprintf(cli, sizeof(cli), "10.0.0.1:%u", port);
	pd_hflow c = pd_harness_connect_isn(h, cli, SERVER, rtt, isn, 900000 + isn);
	pd_harness_data(h, &c, PD_CLIENT, 100);
	pd_harness_later(h, rtt + think);
	pd_harness_data(h, &c, PD_SERVER, 300);
	pd_harness_later(h, 0.0001);
	pd_harness_fin(h, &c, PD_CLIENT);
	pd_harness_later(h, rtt);
	pd_harness_fin(h, &c, PD_SERVER);
	pd_harness_later(h, 0.0001);
	pd_harness_ack(h, &c, PD_CLIENT);
}

static void exchange(pd_harness *h, uint16_t port, uint32_t isn)
{
	exchange_rtt(h, port, isn, 0.001, 0);
}

/* A SYN nobody answers, sent twice (the client retried), from port `port`. */
static void unanswered(pd_harness *h, uint16_t port)
{
	char cli[32];
	snprintf(cli, sizeof(cli), "10.0.0.1:%u", port);
	pd_hseg syn = {.flags = PD_TCP_SYN, .seq = 31337u * port, .win = 64240, .mss = 1460, .wscale = 7,
		       .sack_ok = true, .df = true};
	pd_harness_tcp(h, cli, SERVER, &syn);
	pd_harness_later(h, 0.0001);
	pd_harness_tcp(h, cli, SERVER, &syn);
}

typedef struct churn_plan {
	int n;
	double gap, rtt, think;
	int failing; /* connection attempts among them that get no SYN-ACK */
	int reused; /* the last ones come back on the first ones' ports */
} churn_plan;

static pd_report *churn_run(const churn_plan *p)
{
	pd_harness *h = pd_harness_new("churn");
	pd_harness_at(h, 1.0);
	for (int i = 0; i < p->n; i++) {
		int port = i >= p->n - p->reused ? i - (p->n - p->reused) : i;
		if (i < p->failing)
			unanswered(h, (uint16_t)(30000 + i));
		else
			exchange_rtt(h, (uint16_t)(40000 + port), 1000u + 7919u * (uint32_t)i, p->rtt, p->think);
		pd_harness_at(h, 1.0 + p->gap * (i + 1));
	}
	return pd_harness_finish(h);
}

/* n connections from ports 40000.., one every `gap` seconds, on a LAN. */
static pd_report *churn(int n, double gap)
{
	churn_plan p = {.n = n, .gap = gap, .rtt = 0.0001};
	return churn_run(&p);
}

/* CH_MIN_CONNS 50 short ones set up (<= 1 turn, <= 4 client segments), at
 * least CH_MIN_PEAK 10 in a second. On a LAN, with no port reused and no
 * SYN failing, they cost nothing measurable: a note, however fast. */
Test(det_churn, fifty_short_connections_in_a_second)
{
	pd_report *r = churn(50, 0.019);
	const pd_finding *f = pd_harness_finding(r, "connection-churn", 0);
	cr_assert_not_null(f);
	cr_expect_eq(f->severity, PD_SEV_INFO);
	cr_expect_eq(pd_harness_metric(f, "connections"), 50);
	cr_expect_eq(pd_harness_metric(f, "established"), 50);
	cr_expect_eq(pd_harness_metric(f, "busiest_second_connections"), 50);
	cr_expect_eq(pd_harness_metric(f, "short_share"), 1.0);
	cr_expect_eq(pd_harness_metric(f, "distinct_client_ports"), 50);
	cr_expect(pd_harness_metric(f, "handshake_time_s") < 50 * 0.001, "a LAN's handshakes");
	cr_expect(strstr(f->detail, "cost nothing measurable"), "%s", f->detail);
	cr_expect_eq(f->first.frame, 1, "the first SYN opens it");
	const pd_flow_ref *fl = &g_array_index(f->flows, pd_flow_ref, 0);
	cr_expect_eq(fl->server_port, 80);
	cr_expect_str_eq(f->settings[0], "connection pooling / keep-alive");
	pd_report_free(r);
}

Test(det_churn, forty_nine_are_not_churn)
{
	pd_report *r = churn(49, 0.019);
	cr_expect_eq(pd_harness_count(r, "connection-churn"), 0);
	pd_report_free(r);
}

/* SYNs nobody answered carried no request: no churn, however many. */
Test(det_churn, unanswered_syns_are_no_churn)
{
	churn_plan p = {.n = 200, .gap = 0.001, .failing = 200};
	pd_report *r = churn_run(&p);
	cr_expect_eq(pd_harness_count(r, "connection-churn"), 0);
	pd_report_free(r);
}

/* 20 ms of round trip per handshake, the answer one round trip after the
 * request: the handshakes are half of each exchange. */
Test(det_churn, handshakes_half_the_exchange_are_a_warning)
{
	churn_plan p = {.n = 50, .gap = 0.019, .rtt = 0.020};
	pd_report *r = churn_run(&p);
	const pd_finding *f = pd_harness_finding(r, "connection-churn", 0);
	cr_assert_not_null(f);
	cr_expect_eq(f->severity, PD_SEV_WARNING);
	double share = pd_harness_metric(f, "handshake_share");
	cr_expect(share > 0.45 && share < 0.55, "share %f", share);
	double hs = pd_harness_metric(f, "handshake_time_s");
	cr_expect(hs > 50 * 0.0199 && hs < 50 * 0.0202, "handshakes %f s", hs);
	cr_expect(f->impact_s > 0.99 && f->impact_s < 1.02, "time lost %f", f->impact_s);
	cr_expect(strstr(f->detail, "one more round trip per request"), "%s", f->detail);
	pd_report_free(r);
}

/* The same round trip, but the server thinks 200 ms per answer: the
 * handshake is a tenth of the exchange. */
Test(det_churn, a_slow_answer_makes_the_handshake_a_small_share)
{
	churn_plan p = {.n = 50, .gap = 0.019, .rtt = 0.020, .think = 0.2};
	pd_report *r = churn_run(&p);
	const pd_finding *f = pd_harness_finding(r, "connection-churn", 0);
	cr_assert_not_null(f);
	cr_expect_eq(f->severity, PD_SEV_INFO);
	cr_expect(pd_harness_metric(f, "handshake_share") < 0.15, "share %f", pd_harness_metric(f, "handshake_share"));
	pd_report_free(r);
}

/* A large share of a LAN's fraction of a millisecond is still no cost. */
Test(det_churn, a_large_share_of_nothing_is_no_cost)
{
	churn_plan p = {.n = 50, .gap = 0.019, .rtt = 0.0004};
	pd_report *r = churn_run(&p);
	const pd_finding *f = pd_harness_finding(r, "connection-churn", 0);
	cr_assert_not_null(f);
	cr_expect(pd_harness_metric(f, "handshake_share") > 0.25, "share %f", pd_harness_metric(f, "handshake_share"));
	cr_expect_eq(f->severity, PD_SEV_INFO);
	pd_report_free(r);
}

/* SYNs that failed among the short connections: CH_MIN_SYN_FAILS 3. */
Test(det_churn, failing_syns_are_a_warning)
{
	churn_plan p = {.n = 60, .gap = 0.015, .rtt = 0.0001, .failing = 3};
	pd_report *r = churn_run(&p);
	const pd_finding *f = pd_harness_finding(r, "connection-churn", 0);
	cr_assert_not_null(f);
	cr_expect_eq(f->severity, PD_SEV_WARNING);
	cr_expect_eq(pd_harness_metric(f, "syns_failed"), 3);
	cr_expect(strstr(f->detail, "3 connection attempt(s) got no SYN-ACK"), "%s", f->detail);
	pd_report_free(r);
	p.failing = 2;
	r = churn_run(&p);
	f = pd_harness_finding(r, "connection-churn", 0);
	cr_assert_not_null(f);
	cr_expect_eq(f->severity, PD_SEV_INFO, "two of 60: under the bar");
	pd_report_free(r);
}

/* Ports that came back while the previous connection on them could be in
 * TIME_WAIT: a cost, even on a LAN. */
Test(det_churn, ports_reused_make_churn_a_warning)
{
	churn_plan p = {.n = 60, .gap = 0.015, .rtt = 0.0001, .reused = 2};
	pd_report *r = churn_run(&p);
	const pd_finding *f = pd_harness_finding(r, "connection-churn", 0);
	cr_assert_not_null(f);
	cr_expect_eq(f->severity, PD_SEV_WARNING);
	cr_expect_eq(pd_harness_metric(f, "reused_4tuples"), 2);
	pd_report_free(r);
}

/* Eight ports used twice; the second round `later` seconds after the
 * first closed. Within 60 s (TCP_TIMEWAIT_LEN) the client reuses its own
 * ports in TIME_WAIT; five reuses make a warning. */
static pd_report *reuse(double later)
{
	pd_harness *h = pd_harness_new("churn");
	pd_harness_at(h, 1.0);
	for (int round = 0; round < 2; round++) {
		for (int i = 0; i < 8; i++) {
			exchange(h, (uint16_t)(40000 + i), 1000u + 7919u * (uint32_t)(i + 8 * round));
			pd_harness_later(h, 0.1);
		}
		pd_harness_later(h, later);
	}
	return pd_harness_finish(h);
}

Test(det_churn, ports_reused_in_time_wait)
{
	pd_report *r = reuse(10);
	const pd_finding *f = pd_harness_finding(r, "port-reuse-timewait", 0);
	cr_assert_not_null(f);
	cr_expect_eq(f->severity, PD_SEV_WARNING);
	cr_expect_eq(pd_harness_metric(f, "reused_4tuples"), 8);
	cr_expect_eq(pd_harness_metric(f, "timewait_on_client"), 8);
	cr_expect_eq(pd_harness_metric(f, "failed_reuses"), 0);
	double gap = pd_harness_metric(f, "min_gap_after_close_s");
	cr_expect(gap > 10.7 && gap < 10.9, "gap %f (10 s + the round, 8 x 0.1 s)", gap);
	/* eight ports cycled, each reused: the range itself is that small */
	const pd_finding *p = pd_harness_finding(r, "ephemeral-port-pressure", 0);
	cr_assert_not_null(p);
	cr_expect_eq(pd_harness_metric(p, "port_span"), 8);
	pd_report_free(r);
}

Test(det_churn, reuse_after_time_wait_is_fine)
{
	pd_report *r = reuse(61);
	cr_expect_eq(pd_harness_count(r, "port-reuse-timewait"), 0);
	cr_expect_eq(pd_harness_count(r, "ephemeral-port-pressure"), 0);
	pd_report_free(r);
}
