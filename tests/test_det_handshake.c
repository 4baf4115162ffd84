/* det_handshake.c's rules for SYN retransmissions, fed packets built in C
 * (tests/harness.h): a SYN resent by the client's backoff timer (1 s, 2 s,
 * ...) until a SYN-ACK comes, or until the client gives up. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

#define CLI "10.0.0.1:40000"
#define SRV "10.0.0.2:80"

/* The client's SYN at t=1 and its retransmissions 1, 2, 4 ... s apart,
 * `syns` in all; the last one is answered 10 ms later when `answered`
 * (then the client ACKs), else the capture goes on `silence` s. fr[i]:
 * the frames of the SYNs, then of the SYN-ACK. */
static pd_report *connect_syns(int syns, bool answered, double silence, uint64_t fr[9])
{
	pd_harness *h = pd_harness_new("handshake");
	double t = 1.0, gap = 1.0;
	for (int i = 0; i < syns; i++) {
		pd_harness_at(h, t);
		pd_hseg s = {.flags = PD_TCP_SYN, .seq = 1000, .win = 64240, .mss = 1460, .wscale = 7, .sack_ok = true,
			     .df = true};
		fr[i] = pd_harness_tcp(h, CLI, SRV, &s);
		if (i + 1 < syns)
			t += gap, gap *= 2;
	}
	if (answered) {
		pd_harness_later(h, 0.010);
		pd_hseg sa = {.flags = PD_TCP_SYN | PD_TCP_ACK, .seq = 5000, .ack = 1001, .win = 65160, .mss = 1460,
			      .wscale = 7, .sack_ok = true, .df = true};
		fr[syns] = pd_harness_tcp(h, SRV, CLI, &sa);
		pd_harness_later(h, 0.0001);
		pd_hseg a = {.flags = PD_TCP_ACK, .seq = 1001, .ack = 5001, .win = 502, .wscale = -1, .df = true};
		pd_harness_tcp(h, CLI, SRV, &a);
	} else {
		pd_harness_later(h, silence);
		pd_harness_udp(h, "10.0.0.3:5353", "10.0.0.4:5353", 10); /* the capture goes on */
	}
	return pd_harness_finish(h);
}

/* Two retransmissions (1 s, then 2 s backoff) before the SYN-ACK: the
 * connection paid 3 s. */
Test(det_handshake, syn_retransmitted_twice_then_answered)
{
	uint64_t fr[9];
	pd_report *r = connect_syns(3, true, 0, fr);
	const pd_finding *f = pd_harness_finding(r, "syn-retransmit", 0);
	cr_assert_not_null(f);
	cr_expect_eq(f->severity, PD_SEV_WARNING);
	cr_expect_eq(pd_harness_metric(f, "syn_retransmits"), 2);
	cr_expect(fabs(pd_harness_metric(f, "connect_delay_s") - 3.0) < 1e-6, "delay %f",
		  pd_harness_metric(f, "connect_delay_s"));
	cr_expect(fabs(pd_harness_metric(f, "first_syn_to_synack_ms") - 3010) < 1e-6);
	cr_expect_eq(f->first.frame, fr[1], "SYN retransmission #1");
	cr_expect_eq(f->last.frame, fr[3], "the SYN-ACK");
	const pd_flow_ref *fl = &g_array_index(f->flows, pd_flow_ref, 0);
	cr_expect_eq(fl->client_port, 40000);
	cr_expect_eq(pd_harness_count(r, "syn-unanswered"), 0);
	pd_report_free(r);
}

Test(det_handshake, a_first_syn_answered_is_fine)
{
	uint64_t fr[9];
	pd_report *r = connect_syns(1, true, 0, fr);
	cr_expect_eq(pd_harness_count(r, "syn-retransmit"), 0);
	cr_expect_eq(pd_harness_count(r, "syn-unanswered"), 0);
	pd_report_free(r);
}

/* Seven SYNs (tcp_syn_retries 6: 1+2+4+8+16+32 s) and no answer, then
 * silence longer than twice the last gap: the client gave up. */
Test(det_handshake, syn_never_answered)
{
	uint64_t fr[9];
	pd_report *r = connect_syns(7, false, 130.0, fr);
	const pd_finding *f = pd_harness_finding(r, "syn-unanswered", 0);
	cr_assert_not_null(f);
	cr_expect_eq(f->severity, PD_SEV_ERROR);
	cr_expect_eq(pd_harness_metric(f, "syn_retransmits"), 6);
	cr_expect_eq(pd_harness_metric(f, "time_trying_s"), 63, "first to last SYN");
	/* the timeout after the last SYN: 64 s more */
	cr_expect_eq(pd_harness_metric(f, "connect_failed_after_s"), 127);
	cr_expect(fabs(f->impact_s - 127) < 1e-6, "impact %f", f->impact_s);
	cr_expect_eq(f->first.frame, fr[0]);
	cr_expect_eq(pd_harness_count(r, "syn-retransmit"), 0);
	pd_report_free(r);
}

/* The same SYNs with 60 s of silence after the last (under twice the last
 * 32 s gap): still trying when the capture ends, a warning. */
Test(det_handshake, still_trying_when_the_capture_ends)
{
	uint64_t fr[9];
	pd_report *r = connect_syns(7, false, 60.0, fr);
	const pd_finding *f = pd_harness_finding(r, "syn-unanswered", 0);
	cr_assert_not_null(f);
	cr_expect_eq(f->severity, PD_SEV_WARNING);
	cr_expect_eq(pd_harness_metric(f, "silence_after_last_syn_ms"), 60000);
	pd_report_free(r);
}

/* ------------------------------------------------ accept-queue overflow */

/* Packets of one or two connections, made as a list of events and fed in
 * time order (two connections interleave). Sequence numbers are relative:
 * the client's ISN is 1000, the server's 5000. */
typedef struct aq_ev {
	double t;
	int order;
	const char *src, *dst;
	pd_hseg s;
	uint64_t *frame;
} aq_ev;

typedef struct aq_list {
	aq_ev e[128];
	int n;
} aq_list;

#define AQ_CISN 1000u
#define AQ_SISN 5000u
#define AQ_RTT 0.020

static pd_hseg *aq_add(aq_list *l, double t, const char *cli, const char *srv, int dir, uint8_t flags, uint32_t rel_seq,
		       uint32_t rel_ack, uint32_t len, uint64_t *frame)
{
	cr_assert_lt(l->n, 128);
	aq_ev *e = &l->e[l->n];
	memset(e, 0, sizeof(*e));
	e->t = t;
	e->order = l->n++;
	e->src = dir == PD_CLIENT ? cli : srv;
	e->dst = dir == PD_CLIENT ? srv : cli;
	e->frame = frame;
	pd_hseg *s = &e->s;
	s->flags = flags;
	s->seq = (dir == PD_CLIENT ? AQ_CISN : AQ_SISN) + rel_seq;
	s->ack = flags & PD_TCP_ACK ? (dir == PD_CLIENT ? AQ_SISN : AQ_CISN) + rel_ack : 0;
	s->win = flags & PD_TCP_SYN ? 64240 : 502;
	s->len = len;
	s->wscale = -1;
	s->df = true;
	if (flags & PD_TCP_SYN) {
		s->mss = 1460;
		s->wscale = 7;
		s->sack_ok = true;
	}
	return s;
}

static int aq_cmp(const void *a, const void *b)
{
	const aq_ev *x = a, *y = b;
	if (x->t != y->t)
		return x->t < y->t ? -1 : 1;
	return x->order - y->order;
}

static void aq_feed(pd_harness *h, aq_list *l)
{
	qsort(l->e, (size_t)l->n, sizeof(l->e[0]), aq_cmp);
	for (int i = 0; i < l->n; i++) {
		pd_harness_at(h, l->e[i].t);
		uint64_t fr = pd_harness_tcp(h, l->e[i].src, l->e[i].dst, &l->e[i].s);
		if (l->e[i].frame)
			*l->e[i].frame = fr;
	}
}

/* One connection captured at the client (20 ms round trip): SYN at 1.0
 * s, SYN-ACK, the client's ACK and its 100-byte request; the server says
 * nothing on it until `answer` s after the ACK, except the SYN-ACK re-sends
 * asked for. */
typedef struct aq_case {
	bool late_ack; /* the client ACKs the SYN-ACK only at 2.5 s */
	bool syn_retry; /* with late_ack: a client SYN retransmission just before the ACK */
	double resend_after; /* first SYN-ACK re-send, s after the ACK (0: none) */
	int resends;
	bool quiet; /* no request */
	int retx; /* request retransmissions before the answer (0.25 s, doubling) */
	double answer; /* s after the ACK; 0: one RTT after the last copy */
	bool dsack; /* the answer reports a duplicate with a D-SACK */
	bool ts; /* timestamps; the answer echoes the first copy's TSval when echo_first */
	bool echo_first;
	/* frames, filled in */
	uint64_t ack, c0, resend, answer_frame;
} aq_case;

static void aq_ts(pd_hseg *s, uint32_t tsval, uint32_t tsecr)
{
	s->ts = true;
	s->tsval = tsval;
	s->tsecr = tsecr;
}

/* Client TS clock: 1 kHz from 10000; server's from 500000. */
static uint32_t aq_ctsv(double t)
{
	return 10000u + (uint32_t)llround(t * 1000);
}
static uint32_t aq_stsv(double t)
{
	return 500000u + (uint32_t)llround(t * 1000);
}

static void aq_build(aq_list *l, aq_case *c, const char *cli, const char *srv, double t0)
{
	pd_hseg *s = aq_add(l, t0, cli, srv, PD_CLIENT, PD_TCP_SYN, 0, 0, 0, NULL);
	if (c->ts)
		aq_ts(s, aq_ctsv(t0), 0);
	double synack = t0 + AQ_RTT, ack = synack + 0.0001;
	s = aq_add(l, synack, cli, srv, PD_SERVER, PD_TCP_SYN | PD_TCP_ACK, 0, 1, 0, NULL);
	if (c->ts)
		aq_ts(s, aq_stsv(synack), aq_ctsv(t0));
	double first_resend = 0;
	if (c->late_ack) {
		/* the client did not take that SYN-ACK at once (as in
		 * tls_with_huge_ch.pcapng): it ACKs it only at 2.5 s, right after
		 * retrying its SYN when syn_retry (the harness needs no real
		 * backoff) */
		double retry = t0 + 1.5;
		if (c->syn_retry) {
			s = aq_add(l, retry, cli, srv, PD_CLIENT, PD_TCP_SYN, 0, 0, 0, NULL);
			if (c->ts)
				aq_ts(s, aq_ctsv(retry), 0);
		}
		ack = retry + 0.0005;
	}
	if (c->resend_after > 0)
		first_resend = ack + c->resend_after;
	s = aq_add(l, ack, cli, srv, PD_CLIENT, PD_TCP_ACK, 1, 1, 0, &c->ack);
	if (c->ts)
		aq_ts(s, aq_ctsv(ack), aq_stsv(synack));
	double last_copy = ack + 0.0001;
	uint32_t last_tsv = aq_ctsv(last_copy);
	if (!c->quiet) {
		s = aq_add(l, last_copy, cli, srv, PD_CLIENT, PD_TCP_ACK | PD_TCP_PSH, 1, 1, 100, &c->c0);
		if (c->ts)
			aq_ts(s, last_tsv, aq_stsv(synack));
		double gap = 0.25;
		for (int i = 0; i < c->retx; i++) {
			last_copy += gap;
			gap *= 2;
			last_tsv = aq_ctsv(last_copy);
			s = aq_add(l, last_copy, cli, srv, PD_CLIENT, PD_TCP_ACK | PD_TCP_PSH, 1, 1, 100, NULL);
			if (c->ts)
				aq_ts(s, last_tsv, aq_stsv(synack));
		}
	}
	double resend = first_resend, rgap = 2.0;
	for (int i = 0; first_resend > 0 && i < (c->resends ? c->resends : 1); i++) {
		s = aq_add(l, resend, cli, srv, PD_SERVER, PD_TCP_SYN | PD_TCP_ACK, 0, 1, 0, i ? NULL : &c->resend);
		if (c->ts)
			aq_ts(s, aq_stsv(resend), aq_ctsv(t0));
		/* the client answers it with a duplicate ACK */
		s = aq_add(l, resend + 0.0001, cli, srv, PD_CLIENT, PD_TCP_ACK, c->quiet ? 1 : 101, 1, 0, NULL);
		if (c->ts)
			aq_ts(s, aq_ctsv(resend + 0.0001), aq_stsv(synack));
		resend += rgap;
		rgap *= 2;
	}
	double at = c->answer > 0 ? ack + c->answer : last_copy + AQ_RTT;
	s = aq_add(l, at, cli, srv, PD_SERVER, PD_TCP_ACK | (c->quiet ? PD_TCP_PSH : 0), 1, c->quiet ? 1 : 101,
		   c->quiet ? 200 : 0, &c->answer_frame);
	if (c->ts)
		aq_ts(s, aq_stsv(at), c->echo_first ? aq_ctsv(ack + 0.0001) : last_tsv);
	if (c->dsack) {
		s->sacks = 1;
		s->sack_left[0] = AQ_CISN + 1;
		s->sack_right[0] = AQ_CISN + 101;
	}
	/* the answer, and the close */
	at += 0.001;
	if (!c->quiet)
		aq_add(l, at, cli, srv, PD_SERVER, PD_TCP_ACK | PD_TCP_PSH, 1, 101, 200, NULL);
	uint32_t cs = c->quiet ? 1 : 101;
	aq_add(l, at + 0.0001, cli, srv, PD_CLIENT, PD_TCP_ACK, cs, 201, 0, NULL);
	aq_add(l, at + 0.0002, cli, srv, PD_CLIENT, PD_TCP_ACK | PD_TCP_FIN, cs, 201, 0, NULL);
	aq_add(l, at + AQ_RTT, cli, srv, PD_SERVER, PD_TCP_ACK | PD_TCP_FIN, 201, cs + 1, 0, NULL);
	aq_add(l, at + AQ_RTT + 0.0001, cli, srv, PD_CLIENT, PD_TCP_ACK, cs + 1, 202, 0, NULL);
}

static pd_report *aq_run(aq_case *c, const char *detectors)
{
	pd_harness *h = pd_harness_new(detectors ? detectors : "handshake");
	aq_list l = {0};
	aq_build(&l, c, CLI, SRV, 1.0);
	aq_feed(h, &l);
	return pd_harness_finish(h);
}

/* The SYN-ACK timer re-sends 1 s after the ACK while the request goes
 * unanswered through 3 retransmissions: the listener kept the half-open
 * connection after the ACK reached it. */
Test(det_handshake, aq_synack_timer_after_the_ack)
{
	aq_case c = {.resend_after = 1.0, .retx = 3};
	pd_report *r = aq_run(&c, NULL);
	const pd_finding *f = pd_harness_finding(r, "accept-queue-overflow", 0);
	cr_assert_not_null(f);
	cr_expect_eq(f->severity, PD_SEV_ERROR);
	cr_expect_eq(pd_harness_metric(f, "synack_retransmits_after_ack"), 1);
	cr_expect_eq(pd_harness_metric(f, "client_data_retransmits"), 3);
	cr_expect_eq(f->first.frame, c.ack);
	cr_expect_eq(f->last.frame, c.resend);
	cr_expect_str_eq(f->settings[0], "net.core.somaxconn");
	pd_report_free(r);
}

/* Rule (a): the SYN-ACK after the ACK comes one round trip after a SYN
 * retransmission of the client: the request socket answered that SYN at
 * once (tcp_check_req), which says nothing about the ACK. Without the
 * SYN retry the same re-send is the timer's. */
Test(det_handshake, aq_synack_answering_a_syn_retry_is_no_overflow)
{
	aq_case c = {.late_ack = true, .syn_retry = true, .resend_after = 0.0195, .retx = 1};
	pd_report *r = aq_run(&c, NULL);
	cr_expect_eq(pd_harness_count(r, "accept-queue-overflow"), 0);
	pd_report_free(r);
	aq_case twin = {.late_ack = true, .resend_after = 0.0195, .retx = 1};
	r = aq_run(&twin, NULL);
	cr_expect_eq(pd_harness_count(r, "accept-queue-overflow"), 1, "the near miss");
	pd_report_free(r);
}

/* A SYN-ACK captured at the client less than a round trip after the ACK
 * left the server before the ACK could reach it. */
Test(det_handshake, aq_synack_crossing_the_ack_is_no_overflow)
{
	aq_case c = {.late_ack = true, .resend_after = 0.010, .retx = 2};
	pd_report *r = aq_run(&c, NULL);
	cr_expect_eq(pd_harness_count(r, "accept-queue-overflow"), 0);
	pd_report_free(r);
	aq_case twin = {.late_ack = true, .resend_after = 0.030, .retx = 2};
	r = aq_run(&twin, NULL);
	cr_expect_eq(pd_harness_count(r, "accept-queue-overflow"), 1, "the near miss");
	pd_report_free(r);
}

/* Rule (c): the server's answer acknowledges the first copy of the
 * request (none resent before it; or, with timestamps, echoing the first
 * copy's TSval only), or reports a duplicate with a D-SACK: an
 * established socket had the request, the listener did not drop it. */
Test(det_handshake, aq_first_copy_taken_is_no_overflow)
{
	aq_case c = {.resend_after = 1.0, .answer = 1.2};
	pd_report *r = aq_run(&c, NULL);
	cr_expect_eq(pd_harness_count(r, "accept-queue-overflow"), 0, "first copy acknowledged");
	pd_report_free(r);

	aq_case d = {.resend_after = 1.0, .retx = 1, .dsack = true};
	r = aq_run(&d, NULL);
	cr_expect_eq(pd_harness_count(r, "accept-queue-overflow"), 0, "D-SACK");
	pd_report_free(r);

	aq_case e = {.resend_after = 1.0, .retx = 1, .ts = true, .echo_first = true, .answer = 1.1};
	r = aq_run(&e, NULL);
	cr_expect_eq(pd_harness_count(r, "accept-queue-overflow"), 0, "TSecr of the first copy");
	pd_report_free(r);

	/* near miss: the answer echoes the retransmission, no D-SACK */
	aq_case twin = {.resend_after = 1.0, .retx = 1, .ts = true, .answer = 1.1};
	r = aq_run(&twin, NULL);
	cr_expect_eq(pd_harness_count(r, "accept-queue-overflow"), 1, "the near miss");
	pd_report_free(r);
}

/* A client that sends nothing: one SYN-ACK re-send is also what a
 * TCP_DEFER_ACCEPT listener does (it re-sends once and takes the ACK that
 * answers it); two, each answered, are the accept queue's. */
Test(det_handshake, aq_quiet_client_needs_two_resends)
{
	aq_case c = {.quiet = true, .resend_after = 1.0, .resends = 1, .answer = 1.1};
	pd_report *r = aq_run(&c, NULL);
	cr_expect_eq(pd_harness_count(r, "accept-queue-overflow"), 0);
	pd_report_free(r);
	aq_case twin = {.quiet = true, .resend_after = 1.0, .resends = 2, .answer = 3.1};
	r = aq_run(&twin, NULL);
	const pd_finding *f = pd_harness_finding(r, "accept-queue-overflow", 0);
	cr_assert_not_null(f, "the near miss");
	cr_expect_eq(pd_harness_metric(f, "synack_retransmits_after_ack"), 2);
	cr_expect_not_null(strstr(f->detail, "TCP_DEFER_ACCEPT"), "%s", f->detail);
	pd_report_free(r);
}

/* Rule (b), client view, no SYN-ACK re-send: two connections from one
 * client to one listener; ours (port 40000) stalls through three request
 * retransmissions while the server answers the other one. When the
 * other's handshake ACK comes 0.4 ms after ours and its request is ACKed
 * on its first copy, the queue had room right after our ACK: no overflow
 * (the stall is the path's). When the other came first, it may be what
 * filled the queue. */
static pd_report *aq_siblings(double sibling_offset)
{
	pd_harness *h = pd_harness_new("handshake");
	aq_list l = {0};
	aq_case ours = {.retx = 3};
	aq_build(&l, &ours, CLI, SRV, 1.0);
	aq_case other = {0};
	aq_build(&l, &other, "10.0.0.1:40002", SRV, 1.0 + sibling_offset);
	aq_feed(h, &l);
	return pd_harness_finish(h);
}

Test(det_handshake, aq_sibling_taken_right_after_is_no_overflow)
{
	pd_report *r = aq_siblings(0.0004);
	cr_expect_eq(pd_harness_count(r, "accept-queue-overflow"), 0);
	pd_report_free(r);
	r = aq_siblings(-0.0004);
	cr_expect_eq(pd_harness_count(r, "accept-queue-overflow"), 1, "the near miss: the other came first");
	pd_report_free(r);
	/* the same rule for a listener that re-sends its SYN-ACK */
	pd_harness *h = pd_harness_new("handshake");
	aq_list l = {0};
	aq_case ours = {.resend_after = 1.0, .retx = 3};
	aq_build(&l, &ours, CLI, SRV, 1.0);
	aq_case other = {0};
	aq_build(&l, &other, "10.0.0.3:40002", SRV, 1.0004);
	aq_feed(h, &l);
	r = pd_harness_finish(h);
	cr_expect_eq(pd_harness_count(r, "accept-queue-overflow"), 0, "SYN-ACK re-sent, sibling taken");
	pd_report_free(r);
}

/* The missed case: captured at the server, the handshake ACK and the
 * request arrive, the server stays silent, and the first retransmission
 * gets in before the SYN-ACK timer (1 s) fires. The packets reached the
 * host: not path loss. At the client the same stall is one lost segment. */
static pd_report *aq_server_view(bool at_server)
{
	pd_harness *h = pd_harness_new("handshake");
	aq_list l = {0};
	/* at the server: its answers leave 0.1 ms after what they answer, the
	 * client's packets come a round trip after the server's */
	double near = at_server ? 0.0001 : AQ_RTT, far = at_server ? AQ_RTT : 0.0001;
	double t = 1.0;
	aq_add(&l, t, CLI, SRV, PD_CLIENT, PD_TCP_SYN, 0, 0, 0, NULL);
	t += near;
	aq_add(&l, t, CLI, SRV, PD_SERVER, PD_TCP_SYN | PD_TCP_ACK, 0, 1, 0, NULL);
	t += far;
	aq_add(&l, t, CLI, SRV, PD_CLIENT, PD_TCP_ACK, 1, 1, 0, NULL);
	aq_add(&l, t + 0.0001, CLI, SRV, PD_CLIENT, PD_TCP_ACK | PD_TCP_PSH, 1, 1, 100, NULL);
	t += 0.25;
	aq_add(&l, t, CLI, SRV, PD_CLIENT, PD_TCP_ACK | PD_TCP_PSH, 1, 1, 100, NULL);
	t += near;
	aq_add(&l, t, CLI, SRV, PD_SERVER, PD_TCP_ACK, 1, 101, 0, NULL);
	aq_add(&l, t + 0.3, CLI, SRV, PD_SERVER, PD_TCP_ACK | PD_TCP_PSH, 1, 101, 200, NULL);
	t += 0.3 + far;
	aq_add(&l, t, CLI, SRV, PD_CLIENT, PD_TCP_ACK | PD_TCP_FIN, 101, 201, 0, NULL);
	t += near;
	aq_add(&l, t, CLI, SRV, PD_SERVER, PD_TCP_ACK | PD_TCP_FIN, 201, 102, 0, NULL);
	aq_add(&l, t + far, CLI, SRV, PD_CLIENT, PD_TCP_ACK, 102, 202, 0, NULL);
	aq_feed(h, &l);
	return pd_harness_finish(h);
}

Test(det_handshake, aq_at_the_server_without_synack_resend)
{
	pd_report *r = aq_server_view(true);
	const pd_finding *f = pd_harness_finding(r, "accept-queue-overflow", 0);
	cr_assert_not_null(f);
	cr_expect_eq(f->severity, PD_SEV_WARNING);
	cr_expect_eq(pd_harness_metric(f, "client_data_retransmits"), 1);
	cr_expect_not_null(strstr(f->detail, "taken at the server"), "%s", f->detail);
	pd_report_free(r);
	r = aq_server_view(false);
	cr_expect_eq(pd_harness_count(r, "accept-queue-overflow"), 0, "the near miss: at the client");
	pd_report_free(r);
}

/* tcp_abort_on_overflow: a bare RST carrying the SYN-ACK's sequence + 1
 * right after a proper handshake ACK. Not when the client's "ACK" had the
 * SYN's own sequence number and a FIN, or the client had sent a FIN: any
 * stack may reset those. */
static pd_report *aq_abort(int variant)
{
	pd_harness *h = pd_harness_new("handshake");
	aq_list l = {0};
	double t = 1.0;
	aq_add(&l, t, CLI, SRV, PD_CLIENT, PD_TCP_SYN, 0, 0, 0, NULL);
	if (variant == 2)
		aq_add(&l, t + 0.010, CLI, SRV, PD_CLIENT, PD_TCP_FIN, 0, 0, 0, NULL);
	t += AQ_RTT;
	aq_add(&l, t, CLI, SRV, PD_SERVER, PD_TCP_SYN | PD_TCP_ACK, 0, 1, 0, NULL);
	t += 0.0001;
	if (variant == 1)
		aq_add(&l, t, CLI, SRV, PD_CLIENT, PD_TCP_ACK | PD_TCP_FIN, 0, 1, 0, NULL);
	else
		aq_add(&l, t, CLI, SRV, PD_CLIENT, PD_TCP_ACK, 1, 1, 0, NULL);
	t += AQ_RTT;
	aq_add(&l, t, CLI, SRV, PD_SERVER, PD_TCP_RST, 1, 0, 0, NULL);
	aq_feed(h, &l);
	return pd_harness_finish(h);
}

Test(det_handshake, aq_abort_rst_needs_a_proper_ack)
{
	pd_report *r = aq_abort(0);
	const pd_finding *f = pd_harness_finding(r, "accept-queue-overflow", 0);
	cr_assert_not_null(f);
	cr_expect(pd_harness_metric(f, "rst_after_ack_ms") < 25);
	pd_report_free(r);
	r = aq_abort(1);
	cr_expect_eq(pd_harness_count(r, "accept-queue-overflow"), 0, "ACK with the SYN's sequence and a FIN");
	pd_report_free(r);
	r = aq_abort(2);
	cr_expect_eq(pd_harness_count(r, "accept-queue-overflow"), 0, "the client's FIN came first");
	pd_report_free(r);
}
