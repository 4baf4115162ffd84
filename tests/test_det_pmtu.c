/* det_pmtu.c's ICMP rule, fed packets built in C (tests/harness.h): a
 * router answers the server's full-size DF segments with ICMP
 * fragmentation-needed (MTU 1400); the server comes down to the path MTU,
 * or keeps sending packets too big for it. */
#include <criterion/criterion.h>
#include <math.h>

#include "harness.h"

#define SEG 1448 /* MSS 1460 less the timestamp option: 1500-byte packets */
#define MTU 1400

/* Five full segments; the router's ICMP quotes the third; 20 ms later the
 * server sends five segments of `after` bytes (`big` of them still 1448).
 * fr[0]: the ICMP, fr[1]: the first segment sent after it. */
static pd_report *path(uint32_t after, int big, uint64_t fr[2])
{
	pd_harness *h = pd_harness_new("pmtu");
	pd_harness_at(h, 1.0);
	pd_hflow c = pd_harness_connect(h, "10.0.0.1:40000", "10.0.0.2:80", 0.010);
	pd_harness_data(h, &c, PD_CLIENT, 100);
	pd_harness_later(h, 0.010);
	uint64_t quoted = 0;
	for (int i = 0; i < 5; i++) {
		uint64_t f = pd_harness_data(h, &c, PD_SERVER, SEG);
		if (i == 2)
			quoted = f;
		pd_harness_later(h, 0.0001);
	}
	pd_harness_later(h, 0.001);
	fr[0] = pd_harness_icmp_frag_needed(h, "10.0.0.254:0", quoted, MTU);
	pd_harness_later(h, 0.020);
	for (int i = 0; i < 5; i++) {
		uint64_t f = pd_harness_data(h, &c, PD_SERVER, i < big ? SEG : after);
		if (i == 0)
			fr[1] = f;
		pd_harness_later(h, 0.0001);
	}
	pd_harness_later(h, 0.010);
	pd_harness_ack(h, &c, PD_CLIENT);
	return pd_harness_finish(h);
}

/* The sender came down to MTU 1400 (1348-byte payloads): a note. */
Test(det_pmtu, frag_needed_and_the_sender_adapts)
{
	uint64_t fr[2];
	pd_report *r = path(MTU - 52, 0, fr);
	const pd_finding *f = pd_harness_finding(r, "pmtu-frag-needed", 0);
	cr_assert_not_null(f);
	cr_expect_eq(f->severity, PD_SEV_INFO);
	cr_expect_eq(pd_harness_metric(f, "icmp_messages"), 1);
	cr_expect_eq(pd_harness_metric(f, "path_mtu"), MTU);
	cr_expect_eq(pd_harness_metric(f, "payload_before"), SEG);
	cr_expect_eq(pd_harness_metric(f, "payload_after"), MTU - 52);
	cr_expect_eq(pd_harness_metric(f, "payload_reduced_to"), MTU - 52);
	cr_expect_eq(f->first.frame, fr[0], "the ICMP");
	const pd_flow_ref *fl = &g_array_index(f->flows, pd_flow_ref, 0);
	cr_expect_eq(fl->server_port, 80);
	cr_expect_eq(pd_harness_count(r, "pmtu-not-adapted"), 0);
	pd_report_free(r);
}

/* Two or more DF packets above the MTU more than PM_GRACE_NS (10 ms)
 * after the ICMP: the ICMP did not reach the sender, or was not believed. */
Test(det_pmtu, the_sender_ignores_the_icmp)
{
	uint64_t fr[2];
	pd_report *r = path(SEG, 5, fr);
	const pd_finding *f = pd_harness_finding(r, "pmtu-not-adapted", 0);
	cr_assert_not_null(f);
	cr_expect_eq(f->severity, PD_SEV_WARNING);
	cr_expect_eq(pd_harness_metric(f, "too_big_after"), 5);
	cr_expect_eq(pd_harness_metric(f, "path_mtu"), MTU);
	cr_expect_eq(f->first.frame, fr[0], "the ICMP");
	cr_expect_eq(f->last.frame, fr[1], "the first packet still too big");
	/* and its time, 20 ms after the ICMP (it was left at 0 once) */
	cr_expect_gt(f->last.ts, f->first.ts, "the packet still too big has its capture time");
	cr_expect_str_eq(f->settings[0], "firewall dropping ICMP frag-needed");
	cr_expect_eq(pd_harness_count(r, "pmtu-frag-needed"), 0);
	pd_report_free(r);
}

/* One packet too big (the rest 1348 bytes): under the two it takes. */
Test(det_pmtu, one_big_packet_is_not_enough)
{
	uint64_t fr[2];
	pd_report *r = path(MTU - 52, 1, fr);
	cr_expect_eq(pd_harness_count(r, "pmtu-not-adapted"), 0);
	cr_expect_eq(pd_harness_count(r, "pmtu-frag-needed"), 1);
	pd_report_free(r);
}

/* suricata-verify's ssh-hassh-incomplete: after the banners the client
 * sends 1440 B (DF) and 528 B, and resends the 1440 B seven times with the
 * timer backing off (to 37.8 s); nothing at all comes back. Captured at the
 * server, the full-size copies reached the receiver: it went silent, no
 * black hole on the path; and the 4.7 s between two resends is the timer,
 * not an idle connection a middlebox forgot. Captured at the client, the
 * same packets still read as a black hole (the receiver's silence cannot
 * be told from a path that drops big packets). */
static pd_report *silent_receiver(bool at_server)
{
	pd_harness *h = pd_harness_new("pmtu,resets,loss");
	const char *c = "10.0.0.1:51840", *s = "10.0.0.2:22";
	double near = at_server ? 0.002 : 0.195, far = at_server ? 0.195 : 0.002;
	double t = 1.0;
	pd_hseg g = {.flags = PD_TCP_SYN, .seq = 0, .win = 64240, .mss = 1460, .wscale = 7, .sack_ok = true, .df = true};
	pd_harness_at(h, t);
	pd_harness_tcp(h, c, s, &g);
	t += near;
	pd_harness_at(h, t);
	g = (pd_hseg){.flags = PD_TCP_SYN | PD_TCP_ACK, .seq = 0, .ack = 1, .win = 65160, .mss = 1460, .wscale = 7,
		      .sack_ok = true, .df = true};
	pd_harness_tcp(h, s, c, &g);
	t += far;
	pd_harness_at(h, t);
	g = (pd_hseg){.flags = PD_TCP_ACK, .seq = 1, .ack = 1, .win = 502, .wscale = -1, .df = true};
	pd_harness_tcp(h, c, s, &g);
	g.flags = PD_TCP_ACK | PD_TCP_PSH;
	g.len = 41;
	pd_harness_tcp(h, c, s, &g);
	t += near;
	pd_harness_at(h, t);
	g = (pd_hseg){.flags = PD_TCP_ACK, .seq = 1, .ack = 42, .win = 502, .wscale = -1, .df = true};
	pd_harness_tcp(h, s, c, &g);
	g.flags = PD_TCP_ACK | PD_TCP_PSH;
	g.len = 39;
	pd_harness_tcp(h, s, c, &g);
	t += far;
	pd_harness_at(h, t);
	g = (pd_hseg){.flags = PD_TCP_ACK, .seq = 42, .ack = 40, .win = 502, .wscale = -1, .df = true};
	pd_harness_tcp(h, c, s, &g);
	pd_hseg big = g, small = g;
	big.len = 1440;
	small.seq = 42 + 1440;
	small.len = 528;
	pd_harness_tcp(h, c, s, &big);
	pd_harness_later(h, 0.004);
	pd_harness_tcp(h, c, s, &small);
	pd_harness_later(h, 0.396);
	pd_harness_tcp(h, c, s, &small);
	double gap = 0.59;
	for (int i = 0; i < 7; i++, gap *= 2) {
		pd_harness_later(h, gap);
		pd_harness_tcp(h, c, s, &big);
	}
	return pd_harness_finish(h);
}

Test(det_pmtu, silent_receiver_is_not_a_black_hole)
{
	pd_report *r = silent_receiver(true);
	cr_expect_eq(pd_harness_count(r, "pmtu-blackhole"), 0);
	cr_expect_eq(pd_harness_count(r, "middlebox-idle-timeout"), 0);
	cr_expect_eq(pd_harness_count(r, "rto-timeouts"), 1);
	pd_report_free(r);
	r = silent_receiver(false);
	cr_expect_eq(pd_harness_count(r, "pmtu-blackhole"), 1);
	cr_expect_eq(pd_harness_count(r, "middlebox-idle-timeout"), 0);
	pd_report_free(r);
}
