/* det_queue.c's rule, fed packets built in C (tests/harness.h): a bulk
 * upload whose window is larger than the path needs, so the excess waits
 * in the bottleneck's queue and the RTT grows while the rate stays flat.
 * Captured at the sender (the client). */
#include <criterion/criterion.h>
#include <math.h>

#include "harness.h"

#define SEGS 1500 /* the engine times one segment per round trip: 25 samples at 60 ms */
#define SEG 1000
#define BASE 0.010 /* round trip without queue */
#define SERIAL 0.001 /* 1000 bytes at the 1 MB/s bottleneck */

/* The client keeps `window` segments in flight; the bottleneck right after
 * it sends one segment per ms; each ACK comes back BASE after the segment
 * left the bottleneck, and releases the next segment. */
static pd_report *upload(int window)
{
	static double sent[SEGS], acked[SEGS];
	double leave = 0;
	for (int i = 0; i < SEGS; i++) {
		sent[i] = i < window ? 0.00001 * i : acked[i - window];
		leave = (sent[i] > leave ? sent[i] : leave) + SERIAL;
		acked[i] = leave + BASE;
	}
	pd_harness *h = pd_harness_new("queue");
	pd_harness_at(h, 1.0);
	pd_hflow c = pd_harness_connect(h, "10.0.0.1:40000", "10.0.0.2:5001", BASE);
	double t0 = pd_harness_now(h) + 0.001;
	int s = 0, a = 0;
	while (a < SEGS) {
		/* segment s >= window leaves when ACK s - window arrives, after it */
		if (s < SEGS && (s < window ? sent[s] <= acked[a] : s - window < a)) {
			pd_harness_at(h, t0 + sent[s]);
			pd_harness_data(h, &c, PD_CLIENT, SEG);
			s++;
		} else {
			pd_harness_at(h, t0 + acked[a]);
			pd_hseg k = pd_harness_seg(h, &c, PD_SERVER, PD_TCP_ACK, 0);
			k.ack = 1001 + (uint32_t)(SEG * (a + 1));
			pd_harness_send(h, &c, PD_SERVER, &k);
			a++;
		}
	}
	return pd_harness_finish(h);
}

/* RTT under load >= QD_GROWTH (3) x the base, >= 20 ms of queueing, >= 8
 * segments queued, the rate flat; a warning from 5 x or 100 ms. 60
 * segments in flight at 1 per ms: a 60 ms round trip. */
Test(det_queue, a_deep_queue_at_a_flat_rate)
{
	pd_report *r = upload(60);
	const pd_finding *f = pd_harness_finding(r, "queueing-delay", 0);
	cr_assert_not_null(f);
	cr_expect_eq(f->severity, PD_SEV_WARNING);
	double base = pd_harness_metric(f, "base_rtt_ms"), load = pd_harness_metric(f, "rtt_under_load_ms");
	cr_expect(fabs(base - 10) < 0.5, "base %f ms", base);
	cr_expect(fabs(load - 60) < 1, "under load %f ms", load);
	double rate = pd_harness_metric(f, "rate_second_half");
	cr_expect(fabs(rate - 1e6) < 0.05e6, "bottleneck rate %f B/s", rate);
	const pd_flow_ref *fl = &g_array_index(f->flows, pd_flow_ref, 0);
	cr_expect_eq(fl->server_port, 5001);
	cr_expect_str_eq(f->settings[0], "qdisc limit");
	pd_report_free(r);
}

/* 4 x the base RTT and 30 ms of queueing: only a note. */
Test(det_queue, a_shallow_queue_is_a_note)
{
	pd_report *r = upload(40);
	const pd_finding *f = pd_harness_finding(r, "queueing-delay", 0);
	cr_assert_not_null(f);
	cr_expect_eq(f->severity, PD_SEV_INFO);
	double g = pd_harness_metric(f, "rtt_growth");
	cr_expect(g > 3.8 && g < 4.2, "growth %f", g);
	pd_report_free(r);
}

/* The window the path needs (bandwidth x delay: 11 segments): no queue. */
Test(det_queue, a_window_that_fits_the_path)
{
	pd_report *r = upload(11);
	cr_expect_eq(pd_harness_count(r, "queueing-delay"), 0);
	pd_report_free(r);
}
