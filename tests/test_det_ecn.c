/* det_ecn.c's rules, fed packets built in C (tests/harness.h): an
 * ECN-setup SYN dropped on the path and retried without ECN; congestion
 * signalled with CE marks, ECE echoes and CWR. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>

#include "harness.h"

#define SRV "10.0.0.2:443"
#define ECN_SETUP (PD_TCP_ECE | PD_TCP_CWR)

static uint64_t send(pd_harness *h, const char *src, const char *dst, uint8_t flags, uint32_t seq, uint32_t ack,
		     uint32_t len, uint8_t tos)
{
	pd_hseg s = {.flags = flags, .seq = seq, .ack = ack, .win = 502, .len = len, .wscale = -1, .df = true,
		     .tos = tos};
	if (flags & PD_TCP_SYN)
		s.win = 64240, s.mss = 1460, s.wscale = 7, s.sack_ok = true;
	return pd_harness_tcp(h, src, dst, &s);
}

/* A SYN from cli asking for ECN; if `dropped`, nothing answers it and the
 * client retries 1 s later without ECE+CWR; the SYN-ACK carries ECE only
 * when it answers the ECN SYN. fr[]: the frames. */
static void connect_ecn(pd_harness *h, const char *cli, bool dropped, uint64_t fr[3])
{
	fr[0] = send(h, cli, SRV, PD_TCP_SYN | ECN_SETUP, 1000, 0, 0, 0);
	if (dropped) {
		pd_harness_later(h, 1.0);
		fr[1] = send(h, cli, SRV, PD_TCP_SYN, 1000, 0, 0, 0);
	}
	pd_harness_later(h, 0.010);
	fr[2] = send(h, SRV, cli, PD_TCP_SYN | PD_TCP_ACK | (dropped ? 0 : PD_TCP_ECE), 900000, 1001, 0, 0);
	pd_harness_later(h, 0.0001);
	send(h, cli, SRV, PD_TCP_ACK, 1001, 900001, 0, 0);
}

/* The ECN-setup SYN unanswered, the plain retry answered without ECE. */
Test(det_ecn, ecn_syn_dropped_and_retried_plain)
{
	pd_harness *h = pd_harness_new("ecn");
	pd_harness_at(h, 1.0);
	uint64_t fr[3];
	connect_ecn(h, "10.0.0.1:40000", true, fr);
	pd_report *r = pd_harness_finish(h);
	const pd_finding *f = pd_harness_finding(r, "ecn-syn-dropped", 0);
	cr_assert_not_null(f);
	cr_expect_eq(f->severity, PD_SEV_WARNING);
	cr_expect(fabs(pd_harness_metric(f, "connect_delay") - 1.0) < 1e-6, "delay %f",
		  pd_harness_metric(f, "connect_delay"));
	cr_expect_eq(pd_harness_metric(f, "ecn_syns_lost"), 1);
	cr_expect_eq(f->first.frame, fr[0]);
	cr_expect_eq(f->last.frame, fr[2], "the SYN-ACK to the plain retry");
	const pd_flow_ref *fl = &g_array_index(f->flows, pd_flow_ref, 0);
	cr_expect_eq(fl->client_port, 40000);
	cr_expect_eq(fl->server_port, 443);
	cr_expect_str_eq(f->settings[0], "net.ipv4.tcp_ecn");
	pd_report_free(r);
}

/* The same server answered another ECN-setup SYN with ECE: the lost one
 * was more likely lost by chance. */
Test(det_ecn, a_server_that_answers_ecn_clears_it)
{
	pd_harness *h = pd_harness_new("ecn");
	pd_harness_at(h, 1.0);
	uint64_t fr[3];
	connect_ecn(h, "10.0.0.1:40000", true, fr);
	pd_harness_later(h, 0.5);
	connect_ecn(h, "10.0.0.3:40001", false, fr);
	pd_report *r = pd_harness_finish(h);
	cr_expect_eq(pd_harness_count(r, "ecn-syn-dropped"), 0);
	pd_report_free(r);
}

/* ECN negotiated; the server sends ten ECT(0) segments of which `ce` are
 * marked CE on the way; the client echoes each mark with ECE until the
 * server's next segment carries CWR. */
static pd_report *marks(int ce, uint64_t *first_ce)
{
	pd_harness *h = pd_harness_new("ecn");
	const char *cli = "10.0.0.1:40000";
	uint64_t fr[3];
	pd_harness_at(h, 1.0);
	connect_ecn(h, cli, false, fr);
	uint32_t sseq = 900001;
	bool echo = false, cwr = false;
	*first_ce = 0;
	for (int i = 0; i < 10; i++) {
		pd_harness_later(h, 0.005);
		bool mark = i >= 3 && i < 3 + ce;
		uint64_t f = send(h, SRV, cli, PD_TCP_ACK | PD_TCP_PSH | (cwr ? PD_TCP_CWR : 0), sseq, 1001, 1000,
				  mark ? 3 : 2);
		if (mark && !*first_ce)
			*first_ce = f;
		cwr = false;
		sseq += 1000;
		echo = echo || mark;
		pd_harness_later(h, 0.005);
		send(h, cli, SRV, PD_TCP_ACK | (echo ? PD_TCP_ECE : 0), 1001, sseq, 0, 0);
		if (echo && !mark)
			echo = false, cwr = true; /* the sender reduced its window */
	}
	return pd_harness_finish(h);
}

Test(det_ecn, ce_marks_echoed_and_answered)
{
	uint64_t first_ce;
	pd_report *r = marks(2, &first_ce);
	const pd_finding *f = pd_harness_finding(r, "ecn-congestion-marks", 0);
	cr_assert_not_null(f);
	cr_expect_eq(f->severity, PD_SEV_INFO);
	cr_expect_eq(pd_harness_metric(f, "ce_packets"), 2);
	cr_expect_eq(pd_harness_metric(f, "data_packets"), 10);
	cr_expect_eq(pd_harness_metric(f, "ece_acks"), 3, "two marks and one more echo until CWR arrives");
	cr_expect_eq(pd_harness_metric(f, "cwr"), 1);
	cr_expect_eq(pd_harness_metric(f, "retransmitted_segments"), 0);
	cr_expect_eq(f->first.frame, first_ce);
	pd_report_free(r);
}

Test(det_ecn, ecn_capable_without_marks_is_quiet)
{
	uint64_t first_ce;
	pd_report *r = marks(0, &first_ce);
	cr_expect_eq(pd_harness_count(r, "ecn-congestion-marks"), 0);
	pd_report_free(r);
}
