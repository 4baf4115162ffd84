/* det_loss.c's rules, fed packets built in C (tests/harness.h): an upload
 * captured at the sender, where segments lost after the capture point come
 * back as duplicate ACKs with SACK and are resent by fast retransmit, or,
 * at the tail, by the retransmission timer. */
#include <criterion/criterion.h>
#include <glib.h>
#include <math.h>
#include <string.h>

#include "harness.h"

#define SEG 1000
#define RTT 0.010

/* The server's ACK of `ack` (SACKing [sl, sr) when sr) RTT after `sent`. */
static void ack_at(pd_harness *h, pd_hflow *c, double at, uint32_t ack, uint32_t sl, uint32_t sr)
{
	pd_harness_at(h, at);
	pd_hseg a = pd_harness_seg(h, c, PD_SERVER, PD_TCP_ACK, 0);
	a.ack = ack;
	if (sr) {
		a.sacks = 1;
		a.sack_left[0] = sl;
		a.sack_right[0] = sr;
	}
	pd_harness_send(h, c, PD_SERVER, &a);
}

/* Ten segments sent back to back at t; when `lose`, the third is lost
 * after the capture point: the next seven draw duplicate ACKs SACKing
 * what came after it, the third of those triggers its fast retransmit,
 * and the ACK of the resend covers the round. */
static void round10(pd_harness *h, pd_hflow *c, double t, bool lose)
{
	uint32_t start = c->next[PD_CLIENT], s2 = start + 2 * SEG;
	double sent[10];
	for (int j = 0; j < 10; j++) {
		sent[j] = t + 0.0001 * j;
		pd_harness_at(h, sent[j]);
		pd_harness_data(h, c, PD_CLIENT, SEG);
	}
	for (int j = 0; j < 10; j++) {
		uint32_t end = start + SEG * (uint32_t)(j + 1);
		if (!lose || j < 2) {
			ack_at(h, c, sent[j] + RTT, end, 0, 0);
		} else if (j > 2) {
			ack_at(h, c, sent[j] + RTT, s2, s2 + SEG, end);
			if (j == 5) { /* the third duplicate ACK */
				pd_hseg r = pd_harness_seg(h, c, PD_CLIENT, PD_TCP_ACK | PD_TCP_PSH, SEG);
				r.seq = s2;
				pd_harness_send(h, c, PD_CLIENT, &r);
			}
		}
	}
	if (lose)
		ack_at(h, c, sent[5] + 2 * RTT, start + 10 * SEG, 0, 0);
}

/* Ten rounds of ten segments, a segment lost in the first `lost` rounds. */
static pd_report *upload(int lost)
{
	pd_harness *h = pd_harness_new("loss");
	pd_harness_at(h, 1.0);
	pd_hflow c = pd_harness_connect(h, "10.0.0.1:40000", "10.0.0.2:5001", RTT);
	for (int i = 0; i < 10; i++)
		round10(h, &c, 1.1 + 0.05 * i, i < lost);
	return pd_harness_finish(h);
}

/* A warning from 3 real retransmissions at >= 1 % of the data segments. */
Test(det_loss, three_fast_retransmits_in_a_hundred)
{
	pd_report *r = upload(3);
	const pd_finding *f = pd_harness_finding(r, "retransmissions", 0);
	cr_assert_not_null(f);
	cr_expect_eq(f->severity, PD_SEV_WARNING);
	cr_expect_eq(pd_harness_metric(f, "retransmitted_segments"), 3);
	cr_expect_eq(pd_harness_metric(f, "fast_retransmissions"), 3);
	cr_expect_eq(pd_harness_metric(f, "rto_retransmissions"), 0);
	cr_expect_eq(pd_harness_metric(f, "spurious"), 0);
	cr_expect_eq(pd_harness_metric(f, "data_segments"), 103, "resends included");
	const pd_flow_ref *fl = &g_array_index(f->flows, pd_flow_ref, 0);
	cr_expect_eq(fl->server_port, 5001);
	cr_expect_eq(pd_harness_count(r, "rto-timeouts"), 0);
	pd_report_free(r);
}

Test(det_loss, two_are_a_note)
{
	pd_report *r = upload(2);
	const pd_finding *f = pd_harness_finding(r, "retransmissions", 0);
	cr_assert_not_null(f);
	cr_expect_eq(f->severity, PD_SEV_INFO);
	cr_expect_eq(pd_harness_metric(f, "fast_retransmissions"), 2);
	pd_report_free(r);
}

Test(det_loss, no_loss_no_finding)
{
	pd_report *r = upload(0);
	cr_expect_eq(pd_harness_count(r, "retransmissions"), 0);
	cr_expect_eq(pd_harness_count(r, "rto-timeouts"), 0);
	pd_report_free(r);
}

/* The last segment of a burst lost twice: nothing comes back to trigger a
 * fast retransmit; the timer resends it after 200 ms, then 400 ms
 * (backoff), and the second resend is ACKed. */
Test(det_loss, a_lost_tail_waits_for_the_timer)
{
	pd_harness *h = pd_harness_new("loss");
	pd_harness_at(h, 1.0);
	pd_hflow c = pd_harness_connect(h, "10.0.0.1:40000", "10.0.0.2:5001", RTT);
	round10(h, &c, 1.1, false);
	pd_harness_at(h, 1.2);
	uint32_t seq = c.next[PD_CLIENT];
	pd_harness_data(h, &c, PD_CLIENT, SEG);
	uint64_t resend = 0;
	for (double at = 1.4; at < 1.9; at += at - 1.2 + 0.2) { /* 1.4, 1.8 */
		pd_harness_at(h, at);
		pd_hseg r = pd_harness_seg(h, &c, PD_CLIENT, PD_TCP_ACK | PD_TCP_PSH, SEG);
		r.seq = seq;
		uint64_t fr = pd_harness_send(h, &c, PD_CLIENT, &r);
		if (!resend)
			resend = fr;
	}
	ack_at(h, &c, 1.8 + RTT, seq + SEG, 0, 0);
	pd_report *rep = pd_harness_finish(h);
	const pd_finding *f = pd_harness_finding(rep, "rto-timeouts", 0);
	cr_assert_not_null(f);
	/* the peer answered in the end: the lost segment is the problem, the
	 * two timeouts what recovering it cost (its evidence) */
	cr_expect_str_eq(f->explained_by, "retransmissions");
	const pd_finding *x = pd_harness_finding(rep, "retransmissions", 0);
	cr_assert_not_null(x);
	cr_expect_eq(x->severity, PD_SEV_WARNING, "two real timeouts");
	cr_expect_eq(pd_harness_metric(f, "rto_count"), 2);
	cr_expect(fabs(pd_harness_metric(f, "rto_min_ms") - 200) < 1e-6);
	cr_expect(fabs(pd_harness_metric(f, "rto_max_ms") - 400) < 1e-6);
	cr_expect(fabs(pd_harness_metric(f, "backoff_factor") - 2) < 1e-6);
	cr_expect_eq(f->first.frame, resend);
	pd_report_free(rep);
}

/* The handshake of pd_harness_connect, the server's SYN-ACK without
 * SACK-permitted: SACK off on the connection. */
static pd_hflow connect_nosack(pd_harness *h)
{
	pd_hflow c;
	memset(&c, 0, sizeof(c));
	g_strlcpy(c.client, "10.0.0.1:40000", sizeof(c.client));
	g_strlcpy(c.server, "10.0.0.2:5001", sizeof(c.server));
	c.next[PD_CLIENT] = 1000;
	c.next[PD_SERVER] = 900000;
	c.tsval[PD_CLIENT] = 5000;
	c.tsval[PD_SERVER] = 700000;
	c.ts = true;
	c.rtt = RTT;
	pd_hseg s = pd_harness_seg(h, &c, PD_CLIENT, PD_TCP_SYN, 0);
	s.ack = 0;
	s.tsecr = 0;
	s.win = 64240;
	s.mss = 1460;
	s.sack_ok = true;
	pd_harness_send(h, &c, PD_CLIENT, &s);
	pd_harness_later(h, RTT);
	s = pd_harness_seg(h, &c, PD_SERVER, PD_TCP_SYN | PD_TCP_ACK, 0);
	s.win = 65160;
	s.mss = 1460;
	pd_harness_send(h, &c, PD_SERVER, &s);
	pd_harness_later(h, 0.0001);
	pd_harness_ack(h, &c, PD_CLIENT);
	return c;
}

/* A message stream with SACK off, 200 bytes every 100 ms, ACKed one by
 * one: twice a message is lost after the capture point and the next
 * `later` messages each draw a duplicate ACK; the lost one is resent (with
 * what followed it) 230 ms after it was first sent, or 2 ms after the
 * third duplicate ACK when `later` is 3. */
static pd_report *nosack_stream(int later)
{
	pd_harness *h = pd_harness_new("loss");
	pd_harness_at(h, 1.0);
	pd_hflow c = connect_nosack(h);
	double t = 1.1;
	for (int i = 0; i < 2; i++) {
		for (int k = 0; k < 3; k++, t += 0.1) {
			pd_harness_at(h, t);
			pd_harness_data(h, &c, PD_CLIENT, 200);
			ack_at(h, &c, t + RTT, c.next[PD_CLIENT], 0, 0);
		}
		uint32_t lost = c.next[PD_CLIENT];
		double lost_at = t;
		pd_harness_at(h, t);
		pd_harness_data(h, &c, PD_CLIENT, 200);
		for (int k = 0; k < later; k++) {
			t += later == 3 ? 0.03 : 0.1;
			pd_harness_at(h, t);
			pd_harness_data(h, &c, PD_CLIENT, 200);
			ack_at(h, &c, t + RTT, lost, 0, 0);
		}
		double at = later == 3 ? t + RTT + 0.002 : lost_at + 0.23;
		pd_harness_at(h, at);
		pd_hseg r = pd_harness_seg(h, &c, PD_CLIENT, PD_TCP_ACK | PD_TCP_PSH, c.next[PD_CLIENT] - lost);
		r.seq = lost;
		pd_harness_send(h, &c, PD_CLIENT, &r);
		ack_at(h, &c, at + RTT, c.next[PD_CLIENT], 0, 0);
		t = at + 0.1;
	}
	return pd_harness_finish(h);
}

/* Two duplicate ACKs are too few for a fast retransmit without SACK, and
 * there is no loss probe without SACK: the resends are the timer's, 230 ms
 * after the lost segment went out, although new data left 30 ms before. */
Test(det_loss, sack_off_fewer_than_three_dupacks_is_the_timer)
{
	pd_report *r = nosack_stream(2);
	const pd_finding *f = pd_harness_finding(r, "rto-timeouts", 0);
	cr_assert_not_null(f);
	cr_expect_str_eq(f->explained_by, "retransmissions");
	cr_expect_eq(pd_harness_metric(f, "rto_count"), 2);
	cr_expect(fabs(pd_harness_metric(f, "rto_min_ms") - 230) < 1e-3, "%f", pd_harness_metric(f, "rto_min_ms"));
	const pd_finding *x = pd_harness_finding(r, "retransmissions", 0);
	cr_assert_not_null(x);
	cr_expect_eq(x->severity, PD_SEV_WARNING);
	cr_expect_eq(pd_harness_metric(x, "fast_retransmissions"), 0);
	cr_expect_eq(pd_harness_metric(x, "rto_retransmissions"), 2);
	pd_report_free(r);
}

/* The near miss: three duplicate ACKs, the resend right after the third:
 * Reno's fast retransmit, no timeout. */
Test(det_loss, sack_off_three_dupacks_is_fast_retransmit)
{
	pd_report *r = nosack_stream(3);
	cr_expect_eq(pd_harness_count(r, "rto-timeouts"), 0);
	const pd_finding *x = pd_harness_finding(r, "retransmissions", 0);
	cr_assert_not_null(x);
	cr_expect_eq(pd_harness_metric(x, "fast_retransmissions"), 2);
	pd_report_free(r);
}

/* Ten segments from the client, IPv4 IDs id0, id0 + 1, ...; the third is
 * held on the path: the next seven arrive first and draw SACKs, the third
 * of those triggers its resend (ID id0 + 10), whose ACK covers the round;
 * then the held first copy arrives with ID `late_id` (gap segments later
 * when `gap`, a new segment each) and the receiver reports it by D-SACK. */
static void round_late(pd_harness *h, pd_hflow *c, double t, uint16_t id0, uint16_t late_id, int gap)
{
	uint32_t start = c->next[PD_CLIENT], s2 = start + 2 * SEG;
	for (int j = 0; j < 10; j++) {
		pd_harness_at(h, t + 0.0001 * j);
		pd_hseg d = pd_harness_seg(h, c, PD_CLIENT, PD_TCP_ACK | PD_TCP_PSH, SEG);
		d.seq = start + SEG * (uint32_t)j;
		d.ipid = (uint16_t)(id0 + j);
		if (j != 2)
			pd_harness_send(h, c, PD_CLIENT, &d);
	}
	c->next[PD_CLIENT] = start + 10 * SEG;
	for (int j = 0; j < 10; j++) {
		uint32_t end = start + SEG * (uint32_t)(j + 1);
		double at = t + 0.0001 * j + RTT;
		if (j < 2) {
			ack_at(h, c, at, end, 0, 0);
		} else if (j > 2) {
			ack_at(h, c, at, s2, s2 + SEG, end);
			if (j == 5) {
				pd_hseg r = pd_harness_seg(h, c, PD_CLIENT, PD_TCP_ACK | PD_TCP_PSH, SEG);
				r.seq = s2;
				r.ipid = (uint16_t)(id0 + 10);
				pd_harness_send(h, c, PD_CLIENT, &r);
			}
		}
	}
	double t1 = t + 0.0005 + 2 * RTT;
	ack_at(h, c, t1, start + 10 * SEG, 0, 0);
	for (int k = 0; k < gap; k++) {
		pd_harness_at(h, t1 + 0.0001 * (k + 1));
		pd_hseg d = pd_harness_seg(h, c, PD_CLIENT, PD_TCP_ACK | PD_TCP_PSH, SEG);
		d.ipid = (uint16_t)(id0 + 11 + k);
		pd_harness_send(h, c, PD_CLIENT, &d);
	}
	pd_harness_at(h, t1 + 0.002);
	pd_hseg o = pd_harness_seg(h, c, PD_CLIENT, PD_TCP_ACK | PD_TCP_PSH, SEG);
	o.seq = s2;
	o.ipid = late_id;
	pd_harness_send(h, c, PD_CLIENT, &o);
	uint32_t acked = c->next[PD_CLIENT];
	if (gap)
		ack_at(h, c, t1 + 0.002 + RTT - 0.0005, acked, 0, 0);
	ack_at(h, c, t1 + 0.002 + RTT, acked, s2, s2 + SEG); /* D-SACK */
}

/* Three rounds; late(i) is the ID the held copy of round i carries. */
static pd_report *upload_late(uint16_t (*late)(uint16_t id0), int gap)
{
	pd_harness *h = pd_harness_new("loss");
	pd_harness_at(h, 1.0);
	pd_hflow c = pd_harness_connect(h, "10.0.0.1:40000", "10.0.0.2:5001", RTT);
	uint16_t id = 0xffd0; /* the third round's IDs wrap past 65535 */
	for (int i = 0; i < 3; i++) {
		round_late(h, &c, 1.1 + 0.1 * i, id, late(id), gap);
		id = (uint16_t)(id + 11 + gap);
	}
	return pd_harness_finish(h);
}

static uint16_t first_copy(uint16_t id0)
{
	return (uint16_t)(id0 + 2);
}

static uint16_t resend_id(uint16_t id0)
{
	return (uint16_t)(id0 + 10);
}

static uint16_t newer_id(uint16_t id0)
{
	return (uint16_t)(id0 + 20);
}

/* The held copies carry lower IDs than their resends: first copies sent
 * before them and overtaken on the path, not more resends. What was resent
 * was resent spuriously (D-SACK) and nothing was lost: no retransmission
 * finding, and no original "never seen" (no local drop). */
Test(det_loss, a_first_copy_behind_its_resend_is_reordering)
{
	pd_report *r = upload_late(first_copy, 0);
	cr_expect_eq(pd_harness_count(r, "retransmissions"), 0);
	cr_expect_eq(pd_harness_count(r, "local-drop"), 0);
	const pd_finding *f = pd_harness_finding(r, "spurious-retransmissions", 0);
	cr_assert_not_null(f);
	cr_expect_eq(pd_harness_metric(f, "spurious"), 3);
	pd_report_free(r);
}

/* Near misses: the held copy has the resend's ID (the same datagram
 * captured again, here 10 segments later), or a higher one (sent after
 * it: a second resend). Both stay retransmissions. */
Test(det_loss, the_same_or_a_higher_id_is_no_first_copy)
{
	pd_report *r = upload_late(resend_id, 10);
	const pd_finding *f = pd_harness_finding(r, "retransmissions", 0);
	cr_assert_not_null(f);
	cr_expect_eq(pd_harness_metric(f, "retransmitted_segments"), 6);
	cr_expect_eq(pd_harness_metric(f, "reordered"), 0);
	pd_report_free(r);
	r = upload_late(newer_id, 0);
	f = pd_harness_finding(r, "retransmissions", 0);
	cr_assert_not_null(f);
	cr_expect_eq(pd_harness_metric(f, "retransmitted_segments"), 6);
	cr_expect_eq(pd_harness_metric(f, "reordered"), 0);
	pd_report_free(r);
}

/* The tail of a burst held on the path: its resend (a loss probe, 3 RTT
 * later) is the first copy the capture sees, then the held first copy
 * (lower ID) and the D-SACK for it, three times. The resend was the
 * retransmission, spurious; the late copy is no probe or timeout. */
Test(det_loss, a_late_tail_behind_its_probe_is_reordering)
{
	pd_harness *h = pd_harness_new("loss");
	pd_harness_at(h, 1.0);
	pd_hflow c = pd_harness_connect(h, "10.0.0.1:40000", "10.0.0.2:5001", RTT);
	uint16_t id = 500;
	for (int i = 0; i < 3; i++) {
		double t = 1.1 + 0.5 * i;
		uint32_t start = c.next[PD_CLIENT], tail = start + 9 * SEG;
		for (int j = 0; j < 9; j++) {
			pd_harness_at(h, t + 0.0001 * j);
			pd_hseg d = pd_harness_seg(h, &c, PD_CLIENT, PD_TCP_ACK | PD_TCP_PSH, SEG);
			d.ipid = id++;
			pd_harness_send(h, &c, PD_CLIENT, &d);
			ack_at(h, &c, t + 0.0001 * j + RTT, start + SEG * (uint32_t)(j + 1), 0, 0);
		}
		uint16_t held = id++;
		pd_harness_at(h, t + 0.0009 + 3 * RTT);
		pd_hseg p = pd_harness_seg(h, &c, PD_CLIENT, PD_TCP_ACK | PD_TCP_PSH, SEG);
		p.seq = tail;
		p.ipid = id++;
		pd_harness_send(h, &c, PD_CLIENT, &p);
		ack_at(h, &c, t + 0.0009 + 4 * RTT, tail + SEG, 0, 0);
		pd_harness_at(h, t + 0.0019 + 4 * RTT);
		pd_hseg o = pd_harness_seg(h, &c, PD_CLIENT, PD_TCP_ACK | PD_TCP_PSH, SEG);
		o.seq = tail;
		o.ipid = held;
		pd_harness_send(h, &c, PD_CLIENT, &o);
		ack_at(h, &c, t + 0.0019 + 5 * RTT, tail + SEG, tail, tail + SEG);
	}
	pd_report *r = pd_harness_finish(h);
	cr_expect_eq(pd_harness_count(r, "retransmissions"), 0);
	cr_expect_eq(pd_harness_count(r, "tail-loss"), 0);
	cr_expect_eq(pd_harness_count(r, "rto-timeouts"), 0);
	const pd_finding *f = pd_harness_finding(r, "spurious-retransmissions", 0);
	cr_assert_not_null(f);
	cr_expect_eq(pd_harness_metric(f, "spurious"), 3);
	cr_expect(strstr(f->detail, "3 of 10.0.0.1:40000's 3 retransmissions") != NULL, "%s", f->detail);
	pd_report_free(r);
}

/* Near miss in time: a host whose IPv4 IDs come from one counter for all
 * its traffic can go round between two timer resends seconds apart, so the
 * second carries a lower ID than the first. A first copy overtaken by its
 * resend comes soon after it (2 RTT, at least 50 ms); this is the timer
 * again. */
Test(det_loss, a_lower_id_long_after_is_the_timer_again)
{
	pd_harness *h = pd_harness_new("loss");
	pd_harness_at(h, 1.0);
	pd_hflow c = pd_harness_connect(h, "10.0.0.1:40000", "10.0.0.2:5001", RTT);
	for (int i = 0; i < 3; i++) /* enough segments to see the IDs count up */
		round10(h, &c, 1.1 + 0.03 * i, false);
	pd_harness_at(h, 1.2);
	uint32_t seq = c.next[PD_CLIENT];
	pd_harness_data(h, &c, PD_CLIENT, SEG);
	uint16_t ids[] = {64000, 63900};
	double at[] = {1.4, 1.8};
	for (int i = 0; i < 2; i++) {
		pd_harness_at(h, at[i]);
		pd_hseg r = pd_harness_seg(h, &c, PD_CLIENT, PD_TCP_ACK | PD_TCP_PSH, SEG);
		r.seq = seq;
		r.ipid = ids[i];
		pd_harness_send(h, &c, PD_CLIENT, &r);
	}
	ack_at(h, &c, 1.8 + RTT, seq + SEG, 0, 0);
	pd_report *rep = pd_harness_finish(h);
	const pd_finding *f = pd_harness_finding(rep, "rto-timeouts", 0);
	cr_assert_not_null(f);
	cr_expect_eq(pd_harness_metric(f, "rto_count"), 2);
	pd_report_free(rep);
}
