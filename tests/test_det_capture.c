/* det_capture.c's notes about the capture itself, fed packets built in C
 * (tests/harness.h): data the receiver ACKed that the capture lacks, and
 * where the capture was taken, from the two legs of the handshake. */
#include <criterion/criterion.h>
#include <math.h>

#include "harness.h"

#define CLI "10.0.0.1:40000"
#define SRV "10.0.0.2:80"

/* The server sends three 1000-byte segments; the capture misses the
 * second; if `resent`, the server sends it again after 0.2 s (lost on the
 * network, not by the capture); the client's ACK covers all three.
 * *third: the segment after the hole. */
static pd_report *hole(bool resent, uint64_t *third)
{
	pd_harness *h = pd_harness_new("capture");
	pd_harness_at(h, 1.0);
	pd_hflow c = pd_harness_connect(h, CLI, SRV, 0.010);
	pd_harness_data(h, &c, PD_CLIENT, 100);
	pd_harness_later(h, 0.010);
	pd_harness_data(h, &c, PD_SERVER, 1000);
	pd_hseg missed = pd_harness_seg(h, &c, PD_SERVER, PD_TCP_ACK | PD_TCP_PSH, 1000);
	c.next[PD_SERVER] += 1000; /* sent, not captured */
	*third = pd_harness_data(h, &c, PD_SERVER, 1000);
	if (resent) {
		pd_harness_later(h, 0.2);
		pd_harness_tcp(h, SRV, CLI, &missed);
	}
	pd_harness_later(h, 0.010);
	pd_harness_ack(h, &c, PD_CLIENT);
	pd_harness_later(h, 0.1);
	pd_harness_fin(h, &c, PD_CLIENT);
	pd_harness_fin(h, &c, PD_SERVER);
	pd_harness_ack(h, &c, PD_CLIENT);
	return pd_harness_finish(h);
}

/* A hole in the sender's data that the peer's ACK covers and no copy
 * fills: the capture dropped it. */
Test(det_capture, acked_data_missing_is_a_capture_drop)
{
	uint64_t third;
	pd_report *r = hole(false, &third);
	const pd_finding *f = pd_harness_finding(r, "capture-drops", 0);
	cr_assert_not_null(f);
	cr_expect_eq(f->severity, PD_SEV_INFO);
	cr_expect_eq(pd_harness_metric(f, "missing_segments"), 1);
	cr_expect_eq(pd_harness_metric(f, "missing_bytes"), 1000);
	cr_expect_eq(f->first.frame, third, "the segment after the hole");
	const pd_flow_ref *fl = &g_array_index(f->flows, pd_flow_ref, 0);
	cr_expect_eq(fl->server_port, 80);
	pd_report_free(r);
}

Test(det_capture, a_resent_segment_was_lost_on_the_network)
{
	uint64_t third;
	pd_report *r = hole(true, &third);
	cr_expect_eq(pd_harness_count(r, "capture-drops"), 0);
	pd_report_free(r);
}

/* A handshake whose SYN-ACK comes a s after the SYN and whose ACK b s
 * after the SYN-ACK. */
static pd_report *handshake(double a, double b)
{
	pd_harness *h = pd_harness_new("capture");
	pd_harness_at(h, 1.0);
	pd_hseg s = {.flags = PD_TCP_SYN, .seq = 1000, .win = 64240, .mss = 1460, .wscale = 7, .sack_ok = true};
	pd_harness_tcp(h, CLI, SRV, &s);
	pd_harness_later(h, a);
	pd_hseg sa = {.flags = PD_TCP_SYN | PD_TCP_ACK, .seq = 5000, .ack = 1001, .win = 65160, .mss = 1460,
		      .wscale = 7, .sack_ok = true};
	pd_harness_tcp(h, SRV, CLI, &sa);
	pd_harness_later(h, b);
	pd_hseg ack = {.flags = PD_TCP_ACK, .seq = 1001, .ack = 5001, .win = 502, .wscale = -1};
	pd_harness_tcp(h, CLI, SRV, &ack);
	return pd_harness_finish(h);
}

/* One leg CP_NEAR_RATIO (4) times the other and at least 0.1 ms: the
 * capture is next to the side whose leg is short. */
Test(det_capture, a_long_first_leg_is_near_the_client)
{
	pd_report *r = handshake(0.020, 0.0002);
	const pd_finding *f = pd_harness_finding(r, "capture-vantage", 0);
	cr_assert_not_null(f);
	cr_expect_eq(f->severity, PD_SEV_INFO);
	cr_expect_eq(pd_harness_metric(f, "flows_near_client"), 1);
	cr_expect(fabs(pd_harness_metric(f, "syn_to_synack") - 20) < 1e-6);
	cr_expect(fabs(pd_harness_metric(f, "synack_to_ack") - 0.2) < 1e-6);
	cr_expect_eq(f->first.frame, 2, "the SYN-ACK");
	pd_report_free(r);
}

/* Legs under 4:1, both at least 1 ms: in between. */
Test(det_capture, even_legs_are_in_between)
{
	pd_report *r = handshake(0.010, 0.003);
	const pd_finding *f = pd_harness_finding(r, "capture-vantage", 0);
	cr_assert_not_null(f);
	cr_expect_eq(pd_harness_metric(f, "flows_near_client"), 0);
	cr_expect_eq(pd_harness_metric(f, "flows_in_between"), 1);
	pd_report_free(r);
}
