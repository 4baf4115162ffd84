/* det_window.c's zero-window rule, fed packets built in C
 * (tests/harness.h): a receiver that advertises a zero window while the
 * sender has data, the sender's window probes, the window reopening. */
#include <criterion/criterion.h>
#include <math.h>

#include "harness.h"

/* The server sends 4 x 1000 bytes; the client ACKs them all with a window
 * of `win` (raw, x 2^7); while it is zero the server probes (seq SND.UNA-1,
 * no data) at +0.2 s and +0.6 s, each answered with the same zero window;
 * `reopen` s after the first small window the client opens it again and
 * the server sends on. fr[0]: the first small window, fr[1]: the reopening. */
static pd_report *stall(uint32_t win, double reopen, uint64_t fr[2])
{
	pd_harness *h = pd_harness_new("window");
	pd_harness_at(h, 1.0);
	pd_hflow c = pd_harness_connect(h, "10.0.0.1:40000", "10.0.0.2:80", 0.010);
	pd_harness_data(h, &c, PD_CLIENT, 100);
	pd_harness_later(h, 0.010);
	for (int i = 0; i < 4; i++)
		pd_harness_data(h, &c, PD_SERVER, 1000);
	pd_harness_later(h, 0.005);
	pd_hseg a = pd_harness_seg(h, &c, PD_CLIENT, PD_TCP_ACK, 0);
	a.win = win;
	fr[0] = pd_harness_send(h, &c, PD_CLIENT, &a);
	double t0 = pd_harness_now(h);
	for (double probe = 0.2; win == 0 && probe < reopen; probe *= 3) {
		pd_harness_at(h, t0 + probe);
		pd_hseg p = pd_harness_seg(h, &c, PD_SERVER, PD_TCP_ACK, 0);
		p.seq -= 1;
		pd_harness_send(h, &c, PD_SERVER, &p);
		pd_harness_later(h, 0.005);
		a = pd_harness_seg(h, &c, PD_CLIENT, PD_TCP_ACK, 0);
		a.win = 0;
		pd_harness_send(h, &c, PD_CLIENT, &a);
	}
	pd_harness_at(h, t0 + reopen);
	fr[1] = pd_harness_ack(h, &c, PD_CLIENT); /* window 502 again */
	pd_harness_later(h, 0.005);
	for (int i = 0; i < 4; i++)
		pd_harness_data(h, &c, PD_SERVER, 1000);
	pd_harness_later(h, 0.005);
	pd_harness_ack(h, &c, PD_CLIENT);
	return pd_harness_finish(h);
}

/* A zero window while the sender has data: a warning from a 0.1 s stall
 * or three zero windows. */
Test(det_window, zero_window_stalls_the_sender)
{
	uint64_t fr[2];
	pd_report *r = stall(0, 0.5, fr);
	const pd_finding *f = pd_harness_finding(r, "zero-window", 0);
	cr_assert_not_null(f);
	cr_expect_eq(f->severity, PD_SEV_WARNING);
	cr_expect_eq(pd_harness_metric(f, "zero_window_events"), 1);
	cr_expect_eq(pd_harness_metric(f, "window_probes"), 1, "the probe at +0.2 s (the next would be +0.6 s)");
	cr_expect(fabs(pd_harness_metric(f, "longest_stall") - 0.5) < 1e-6, "stall %f",
		  pd_harness_metric(f, "longest_stall"));
	cr_expect(fabs(f->impact_s - 0.5) < 1e-6);
	cr_expect_eq(f->first.frame, fr[0], "the zero window");
	cr_expect_eq(f->last.frame, fr[1], "the window opening again");
	const pd_flow_ref *fl = &g_array_index(f->flows, pd_flow_ref, 0);
	cr_expect_eq(fl->server_port, 80);
	cr_expect_str_eq(f->settings[0], "slow-reading application");
	pd_report_free(r);
}

/* One short zero window (under 0.1 s) is only a note. */
Test(det_window, a_brief_zero_window_is_a_note)
{
	uint64_t fr[2];
	pd_report *r = stall(0, 0.05, fr);
	const pd_finding *f = pd_harness_finding(r, "zero-window", 0);
	cr_assert_not_null(f);
	cr_expect_eq(f->severity, PD_SEV_INFO);
	cr_expect(fabs(pd_harness_metric(f, "zero_window_stall") - 0.05) < 1e-6);
	pd_report_free(r);
}

/* The window shrinks to 128 bytes for the same 0.5 s but never to zero. */
Test(det_window, a_small_window_is_not_zero)
{
	uint64_t fr[2];
	pd_report *r = stall(1, 0.5, fr);
	cr_expect_eq(pd_harness_count(r, "zero-window"), 0);
	pd_report_free(r);
}
