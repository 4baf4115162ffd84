/* det_paws_estab.c's rule, fed packets built in C (tests/harness.h): data
 * in an established connection answered by duplicate ACKs that echo an
 * older TSecr and no SACK: the receiver's PAWS check dropped it. */
#include <criterion/criterion.h>
#include <glib.h>
#include <math.h>
#include <string.h>

#include "harness.h"

#define CLI "10.0.0.1:40000"
#define SRV "10.0.0.2:80"
/* The client's data at t=1.1 (TSval 5000 + 1100 ms), the server's ACK. */
#define GOOD_TSVAL 6100u

/* 100 bytes at seq 1101 (the server's ACK) from the client at time t. */
static uint64_t copy(pd_harness *h, double t, uint32_t tsval)
{
	pd_harness_at(h, t);
	pd_hseg s = {.flags = PD_TCP_ACK | PD_TCP_PSH, .seq = 1101, .ack = 900001, .win = 502, .len = 100,
		     .wscale = -1, .df = true, .ts = true, .tsval = tsval, .tsecr = 701090};
	return pd_harness_tcp(h, CLI, SRV, &s);
}

/* The server's answer 10 ms later: the ACK of `ack`, echoing tsecr. */
static uint64_t answer(pd_harness *h, uint32_t ack, uint32_t tsecr)
{
	pd_harness_later(h, 0.010);
	pd_hseg s = {.flags = PD_TCP_ACK, .seq = 900001, .ack = ack, .win = 502, .wscale = -1, .df = true, .ts = true,
		     .tsval = 700000 + (uint32_t)llround(pd_harness_now(h) * 1000), .tsecr = tsecr};
	return pd_harness_tcp(h, SRV, CLI, &s);
}

/* A good exchange, then copies of the next segment at t = 1.2, 1.4, 1.6
 * ...: `rejected` of them carry the TSval `tsval(i)` and draw a duplicate
 * ACK that echoes `echo(i)`; the next copy, with a current TSval, is
 * taken. */
typedef uint32_t (*tsfn)(int i);

/* The handshake of pd_harness_connect, the server's SYN-ACK without
 * SACK-permitted (net.ipv4.tcp_sack=0 on the server): SACK off. */
static pd_hflow connect_nosack(pd_harness *h)
{
	pd_hflow c;
	memset(&c, 0, sizeof(c));
	g_strlcpy(c.client, CLI, sizeof(c.client));
	g_strlcpy(c.server, SRV, sizeof(c.server));
	c.next[PD_CLIENT] = 1000;
	c.next[PD_SERVER] = 900000;
	c.tsval[PD_CLIENT] = 5000;
	c.tsval[PD_SERVER] = 700000;
	c.ts = true;
	c.rtt = 0.010;
	pd_hseg s = pd_harness_seg(h, &c, PD_CLIENT, PD_TCP_SYN, 0);
	s.ack = 0;
	s.tsecr = 0;
	s.win = 64240;
	s.mss = 1460;
	s.sack_ok = true;
	pd_harness_send(h, &c, PD_CLIENT, &s);
	pd_harness_later(h, c.rtt);
	s = pd_harness_seg(h, &c, PD_SERVER, PD_TCP_SYN | PD_TCP_ACK, 0);
	s.win = 65160;
	s.mss = 1460;
	pd_harness_send(h, &c, PD_SERVER, &s);
	pd_harness_later(h, 0.0001);
	pd_harness_ack(h, &c, PD_CLIENT);
	return c;
}

static pd_report *run_sack(bool sack, int rejected, tsfn tsval, tsfn echo, uint64_t *first_data, uint64_t *first_ack)
{
	pd_harness *h = pd_harness_new("paws-estab");
	pd_harness_at(h, 1.0);
	pd_hflow c = sack ? pd_harness_connect(h, CLI, SRV, 0.010) : connect_nosack(h);
	pd_harness_at(h, 1.1);
	pd_harness_data(h, &c, PD_CLIENT, 100);
	answer(h, 1101, GOOD_TSVAL);
	for (int i = 0; i < rejected; i++) {
		uint64_t d = copy(h, 1.2 + 0.2 * i, tsval(i));
		uint64_t a = answer(h, 1101, echo(i));
		if (i == 0)
			*first_data = d, *first_ack = a;
	}
	double t = 1.2 + 0.2 * rejected;
	copy(h, t, 5000 + (uint32_t)llround(t * 1000));
	answer(h, 1201, 5000 + (uint32_t)llround(t * 1000));
	return pd_harness_finish(h);
}

static pd_report *run(int rejected, tsfn tsval, tsfn echo, uint64_t *first_data, uint64_t *first_ack)
{
	return run_sack(true, rejected, tsval, echo, first_data, first_ack);
}

/* 5000 ticks behind the sender's own clock (5000 + ms) */
static uint32_t stepped_back(int i)
{
	return 1200 + 200 * (uint32_t)i;
}

static uint32_t good(int i)
{
	(void)i;
	return GOOD_TSVAL;
}

static uint32_t current(int i)
{
	return 6200 + 200 * (uint32_t)i;
}

/* PW_MIN_REJECTS 2: two copies at the receiver's ACK, each answered by a
 * duplicate ACK without SACK whose TSecr is not the copy's TSval. */
Test(det_paws_estab, two_copies_dropped_by_paws)
{
	uint64_t d = 0, a = 0;
	pd_report *r = run(2, stepped_back, good, &d, &a);
	const pd_finding *f = pd_harness_finding(r, "paws-rejected-data", 0);
	cr_assert_not_null(f);
	cr_expect_eq(f->severity, PD_SEV_ERROR);
	cr_expect_eq(pd_harness_metric(f, "rejected_segments"), 2);
	cr_expect_eq(pd_harness_metric(f, "echoed_tsecr"), GOOD_TSVAL);
	cr_expect_eq(pd_harness_metric(f, "first_rejected_tsval"), 1200);
	cr_expect_eq(pd_harness_metric(f, "tsval_step_back"), GOOD_TSVAL - 1200);
	double lost = pd_harness_metric(f, "time_lost");
	cr_expect(fabs(lost - 0.21) < 1e-6, "time lost %f: first copy to the last rejection", lost);
	cr_expect_eq(f->first.frame, d);
	cr_assert_geq(f->examples->len, 2);
	cr_expect_eq(g_array_index(f->examples, pd_evidence, 1).frame, a);
	const pd_flow_ref *fl = &g_array_index(f->flows, pd_flow_ref, 0);
	cr_expect_eq(fl->client_port, 40000);
	pd_report_free(r);
}

Test(det_paws_estab, one_rejection_is_not_enough)
{
	uint64_t d = 0, a = 0;
	pd_report *r = run(1, stepped_back, good, &d, &a);
	cr_expect_eq(pd_harness_count(r, "paws-rejected-data"), 0);
	pd_report_free(r);
}

/* The receiver echoes each copy's own TSval: it took the timestamp and
 * dropped the data for another reason (no buffer), not PAWS. */
Test(det_paws_estab, an_echo_of_the_copy_is_not_paws)
{
	uint64_t d = 0, a = 0;
	pd_report *r = run(3, current, current, &d, &a);
	cr_expect_eq(pd_harness_count(r, "paws-rejected-data"), 0);
	pd_report_free(r);
}

/* SACK off, seen at the sender: copies of the only segment in flight, each
 * answered by a duplicate ACK that echoes an older TSecr (a middlebox made
 * the TSval older on the way). Nothing else was sent that could have drawn
 * those ACKs: the copies were rejected. */
Test(det_paws_estab, sack_off_copies_alone_are_rejected)
{
	uint64_t d = 0, a = 0;
	pd_report *r = run_sack(false, 3, current, good, &d, &a);
	const pd_finding *f = pd_harness_finding(r, "paws-rejected-data", 0);
	cr_assert_not_null(f);
	cr_expect_eq(pd_harness_metric(f, "rejected_segments"), 3);
	cr_expect_eq(f->first.frame, d);
	pd_report_free(r);
}

/* SACK off, two losses after the capture point: the segment at the
 * receiver's ACK (its latest, at the edge) is lost, the next one arrives
 * out of order and draws a duplicate ACK without SACK whose TSecr is the
 * last in-order TSval, older than the lost segment's; the timer's resend
 * is taken. The duplicate ACK was the later segment's: not PAWS. */
static pd_report *lost_then_later(bool echo_newer)
{
	pd_harness *h = pd_harness_new("paws-estab");
	pd_harness_at(h, 1.0);
	pd_hflow c = connect_nosack(h);
	for (int i = 0; i < 2; i++) {
		double t0 = 1.1 + 0.5 * i;
		pd_harness_at(h, t0);
		pd_hseg in_order = pd_harness_seg(h, &c, PD_CLIENT, PD_TCP_ACK | PD_TCP_PSH, 100);
		pd_harness_send(h, &c, PD_CLIENT, &in_order);
		answer(h, c.next[PD_CLIENT], in_order.tsval);
		pd_harness_at(h, t0 + 0.1);
		uint32_t lost = c.next[PD_CLIENT];
		pd_hseg l = pd_harness_seg(h, &c, PD_CLIENT, PD_TCP_ACK | PD_TCP_PSH, 100);
		pd_harness_send(h, &c, PD_CLIENT, &l);
		pd_harness_at(h, t0 + 0.2);
		pd_harness_data(h, &c, PD_CLIENT, 100); /* the later segment */
		/* its duplicate ACK: the last in-order TSval, or one newer than
		 * the lost segment's (what only PAWS explains) */
		answer(h, lost, echo_newer ? l.tsval + 50 : in_order.tsval);
		pd_harness_at(h, t0 + 0.33);
		pd_hseg re = pd_harness_seg(h, &c, PD_CLIENT, PD_TCP_ACK | PD_TCP_PSH, 200);
		re.seq = lost;
		pd_harness_send(h, &c, PD_CLIENT, &re);
		answer(h, c.next[PD_CLIENT], re.tsval);
	}
	return pd_harness_finish(h);
}

Test(det_paws_estab, a_later_segment_drew_the_duplicate_ack)
{
	pd_report *r = lost_then_later(false);
	cr_expect_eq(pd_harness_count(r, "paws-rejected-data"), 0);
	pd_report_free(r);
}

/* The same packets, but the duplicate ACKs echo a TSecr newer than the
 * segment at the edge carries: the receiver holds a later timestamp than
 * that segment's, whichever segment drew the ACK: PAWS. */
Test(det_paws_estab, an_echo_newer_than_the_segment_is_paws)
{
	pd_report *r = lost_then_later(true);
	const pd_finding *f = pd_harness_finding(r, "paws-rejected-data", 0);
	cr_assert_not_null(f);
	cr_expect_eq(pd_harness_metric(f, "rejected_segments"), 2);
	cr_expect(strstr(f->detail, "is newer than the TSval") != NULL, "%s", f->detail);
	pd_report_free(r);
}
