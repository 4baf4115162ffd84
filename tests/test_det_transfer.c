/* det_transfer.c's rules, fed packets built in C (tests/harness.h): a
 * sender that restarts from a small window after an idle second, and
 * keep-alive probes into a silent peer. */
#include <criterion/criterion.h>
#include <math.h>

#include "harness.h"

#define RTT 0.020
#define SEG 1448 /* MSS 1460 less the timestamp option */

/* One flight of n full segments from the server back to back at the
 * current time, ACKed by the client one RTT later (at the server).
 * Returns the flight's first frame. */
static uint64_t flight(pd_harness *h, pd_hflow *c, int n)
{
	double t = pd_harness_now(h);
	uint64_t first = 0;
	for (int i = 0; i < n; i++) {
		pd_harness_at(h, t + 0.00005 * i);
		uint64_t fr = pd_harness_data(h, c, PD_SERVER, SEG);
		if (!first)
			first = fr;
	}
	pd_harness_at(h, t + RTT);
	pd_harness_ack(h, c, PD_CLIENT);
	return first;
}

/* A request answered in slow start (10, 20, 40 segments a round trip),
 * one idle second, then a second request whose answer starts with a
 * flight of `restart` segments, then twice that. *first: the restart. */
static pd_report *downloads(int restart, uint64_t *first)
{
	pd_harness *h = pd_harness_new("transfer");
	pd_harness_at(h, 1.0);
	pd_hflow c = pd_harness_connect(h, "10.0.0.1:40000", "10.0.0.2:80", RTT);
	pd_harness_data(h, &c, PD_CLIENT, 100);
	pd_harness_later(h, 0.0001);
	for (int n = 10; n <= 40; n *= 2)
		flight(h, &c, n);
	pd_harness_later(h, 1.0);
	pd_harness_data(h, &c, PD_CLIENT, 100);
	pd_harness_later(h, 0.0001);
	*first = flight(h, &c, restart);
	flight(h, &c, 2 * restart);
	return pd_harness_finish(h);
}

/* After an idle period longer than the RTO the flight restarted at <= 12
 * segments, a third or less of the 40 it had reached, with more to send. */
Test(det_transfer, slow_start_after_idle)
{
	uint64_t first = 0;
	pd_report *r = downloads(10, &first);
	const pd_finding *f = pd_harness_finding(r, "slow-start-after-idle", 0);
	cr_assert_not_null(f);
	cr_expect_eq(f->severity, PD_SEV_INFO);
	cr_expect_eq(pd_harness_metric(f, "restarts"), 1);
	cr_expect_eq(pd_harness_metric(f, "first_flight_bytes"), 10 * SEG);
	cr_expect_eq(pd_harness_metric(f, "earlier_flight_bytes"), 40 * SEG);
	double extra = pd_harness_metric(f, "extra_time");
	/* the handshake RTT: SYN to SYN-ACK and the 0.1 ms to the ACK */
	cr_expect(fabs(extra - 2 * (RTT + 0.0001)) < 1e-6, "two round trips to grow back: %f", extra);
	cr_expect_eq(f->first.frame, first);
	cr_expect_str_eq(f->settings[0], "net.ipv4.tcp_slow_start_after_idle");
	pd_report_free(r);
}

/* tcp_slow_start_after_idle=0: the window kept across the pause. */
Test(det_transfer, no_restart_when_the_window_is_kept)
{
	uint64_t first = 0;
	pd_report *r = downloads(40, &first);
	cr_expect_eq(pd_harness_count(r, "slow-start-after-idle"), 0);
	pd_report_free(r);
}

/* After 2 s of silence the client probes the server (seq SND.NXT - 1,
 * no data) every second; `answered` of the probes get an ACK. */
static pd_report *keepalive(int probes, int answered, uint64_t *first)
{
	pd_harness *h = pd_harness_new("transfer");
	pd_harness_at(h, 1.0);
	pd_hflow c = pd_harness_connect(h, "10.0.0.1:40000", "10.0.0.2:80", RTT);
	pd_harness_data(h, &c, PD_CLIENT, 100);
	pd_harness_later(h, RTT);
	pd_harness_ack(h, &c, PD_SERVER);
	double quiet = pd_harness_now(h);
	for (int i = 0; i < probes; i++) {
		pd_harness_at(h, quiet + 2.0 + i);
		pd_hseg p = pd_harness_seg(h, &c, PD_CLIENT, PD_TCP_ACK, 0);
		p.seq -= 1;
		uint64_t fr = pd_harness_send(h, &c, PD_CLIENT, &p);
		if (i == 0)
			*first = fr;
		if (i < answered) {
			pd_harness_later(h, RTT);
			pd_harness_ack(h, &c, PD_SERVER);
		}
	}
	return pd_harness_finish(h);
}

/* Two unanswered probes make a warning: the peer or the path is gone. */
Test(det_transfer, unanswered_keepalives)
{
	uint64_t first = 0;
	pd_report *r = keepalive(3, 1, &first);
	const pd_finding *f = pd_harness_finding(r, "keepalive", 0);
	cr_assert_not_null(f);
	cr_expect_eq(f->severity, PD_SEV_WARNING);
	cr_expect_eq(pd_harness_metric(f, "probes"), 3);
	cr_expect_eq(pd_harness_metric(f, "unanswered"), 2);
	cr_expect(fabs(pd_harness_metric(f, "idle_before_first") - 2.0) < 1e-6);
	cr_expect(fabs(pd_harness_metric(f, "interval") - 1.0) < 0.05);
	cr_expect_eq(f->first.frame, first);
	pd_report_free(r);
}

Test(det_transfer, answered_keepalives_are_a_note)
{
	uint64_t first = 0;
	pd_report *r = keepalive(3, 3, &first);
	const pd_finding *f = pd_harness_finding(r, "keepalive", 0);
	cr_assert_not_null(f);
	cr_expect_eq(f->severity, PD_SEV_INFO);
	cr_expect_eq(pd_harness_metric(f, "unanswered"), 0);
	pd_report_free(r);
}
