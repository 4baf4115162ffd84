/* det_churn.c's rules, fed packets built in C (tests/harness.h): many
 * short connections from one client to one server port, and 4-tuples
 * reused while the previous connection on them is in TIME_WAIT. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>

#include "harness.h"

#define SERVER "10.0.0.2:80"

/* One request/response on a new connection from port `port`, closed by
 * the client first (the client holds TIME_WAIT). */
static void exchange(pd_harness *h, uint16_t port, uint32_t isn)
{
	char cli[32];
	snprintf(cli, sizeof(cli), "10.0.0.1:%u", port);
	pd_hflow c = pd_harness_connect_isn(h, cli, SERVER, 0.001, isn, 900000 + isn);
	pd_harness_data(h, &c, PD_CLIENT, 100);
	pd_harness_later(h, 0.001);
	pd_harness_data(h, &c, PD_SERVER, 300);
	pd_harness_later(h, 0.0001);
	pd_harness_fin(h, &c, PD_CLIENT);
	pd_harness_later(h, 0.001);
	pd_harness_fin(h, &c, PD_SERVER);
	pd_harness_later(h, 0.0001);
	pd_harness_ack(h, &c, PD_CLIENT);
}

/* n connections from ports 40000.., one every `gap` seconds. */
static pd_report *churn(int n, double gap)
{
	pd_harness *h = pd_harness_new("churn");
	pd_harness_at(h, 1.0);
	for (int i = 0; i < n; i++) {
		exchange(h, (uint16_t)(40000 + i), 1000u + 7919u * (uint32_t)i);
		pd_harness_at(h, 1.0 + gap * (i + 1));
	}
	return pd_harness_finish(h);
}

/* CH_MIN_CONNS 50 short ones (<= 1 turn, <= 4 client segments), at least
 * CH_MIN_PEAK 10 in a second; a warning from 50 in one second. */
Test(det_churn, fifty_short_connections_in_a_second)
{
	pd_report *r = churn(50, 0.019);
	const pd_finding *f = pd_harness_finding(r, "connection-churn", 0);
	cr_assert_not_null(f);
	cr_expect_eq(f->severity, PD_SEV_WARNING);
	cr_expect_eq(pd_harness_metric(f, "connections"), 50);
	cr_expect_eq(pd_harness_metric(f, "busiest_second_connections"), 50);
	cr_expect_eq(pd_harness_metric(f, "short_share"), 1.0);
	cr_expect_eq(pd_harness_metric(f, "distinct_client_ports"), 50);
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

Test(det_churn, twenty_a_second_is_only_a_note)
{
	pd_report *r = churn(50, 0.05); /* 20 in the busiest second: < 50 */
	const pd_finding *f = pd_harness_finding(r, "connection-churn", 0);
	cr_assert_not_null(f);
	cr_expect_eq(f->severity, PD_SEV_INFO);
	cr_expect_eq(pd_harness_metric(f, "busiest_second_connections"), 20);
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
