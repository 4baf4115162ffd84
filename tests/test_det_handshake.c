/* det_handshake.c's rules for SYN retransmissions, fed packets built in C
 * (tests/harness.h): a SYN resent by the client's backoff timer (1 s, 2 s,
 * ...) until a SYN-ACK comes, or until the client gives up. */
#include <criterion/criterion.h>
#include <math.h>

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
