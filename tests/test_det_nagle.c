/* det_nagle.c's rules, fed packets built in C (tests/harness.h). The
 * golden captures nagle-delack, nagle-nodelay, nagle-router and
 * nagle-server-any (tests/test_transfer.c, test_golden.c) show the same on
 * the kernel's own packets. */
#include <criterion/criterion.h>
#include <math.h>

#include "harness.h"

/* A request written in two pieces: the second waits (Nagle) for the ACK of
 * the first, which the server delays by `delack` seconds. */
static void request(pd_harness *h, pd_hflow *c, double delack, double rtt)
{
	pd_harness_data(h, c, PD_CLIENT, 100);
	pd_harness_later(h, delack);
	pd_harness_ack(h, c, PD_SERVER);
	pd_harness_later(h, 0.0001); /* next to the client: released at once */
	pd_harness_data(h, c, PD_CLIENT, 50);
	pd_harness_later(h, rtt);
	pd_harness_data(h, c, PD_SERVER, 300);
	pd_harness_later(h, 0.0001);
	pd_harness_ack(h, c, PD_CLIENT);
	pd_harness_later(h, 0.1);
}

Test(det_nagle, stalls_at_the_delayed_ack_timer)
{
	pd_harness *h = pd_harness_new("nagle");
	pd_hflow c = pd_harness_connect(h, "10.0.0.1:40000", "10.0.0.2:6379", 0.002);
	for (int i = 0; i < 10; i++)
		request(h, &c, 0.040, 0.002);
	pd_report *r = pd_harness_finish(h);
	const pd_finding *f = pd_harness_finding(r, "nagle-delayed-ack", 0);
	cr_assert_not_null(f, "ten 40 ms stalls must be found");
	cr_expect_eq(pd_harness_metric(f, "stalls"), 10);
	cr_expect(fabs(pd_harness_metric(f, "period_ms") - 40) < 1, "period %f", pd_harness_metric(f, "period_ms"));
	cr_expect(f->impact_s > 0.35 && f->impact_s < 0.5, "time lost %f", f->impact_s);
	cr_expect_str_eq(f->settings[0], "TCP_NODELAY");
	pd_report_free(r);
}

Test(det_nagle, prompt_acks_are_not_stalls)
{
	pd_harness *h = pd_harness_new("nagle");
	pd_hflow c = pd_harness_connect(h, "10.0.0.1:40000", "10.0.0.2:6379", 0.002);
	for (int i = 0; i < 10; i++)
		request(h, &c, 0.002, 0.002); /* the ACK one RTT later: no timer */
	pd_report *r = pd_harness_finish(h);
	cr_expect_eq(pd_harness_count(r, "nagle-delayed-ack"), 0);
	pd_report_free(r);
}

Test(det_nagle, two_stalls_are_no_cluster)
{
	pd_harness *h = pd_harness_new("nagle");
	pd_hflow c = pd_harness_connect(h, "10.0.0.1:40000", "10.0.0.2:6379", 0.002);
	request(h, &c, 0.040, 0.002);
	request(h, &c, 0.040, 0.002);
	for (int i = 0; i < 8; i++)
		request(h, &c, 0.002, 0.002);
	pd_report *r = pd_harness_finish(h);
	cr_expect_eq(pd_harness_count(r, "nagle-delayed-ack"), 0, "at least three in a clear cluster");
	pd_report_free(r);
}
