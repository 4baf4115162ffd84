/* det_cork.c's rules, fed packets built in C (tests/harness.h). The golden
 * captures cork-client, cork-server (TCP_CORK left on) and slowapp-client,
 * slowapp-server (a slow application, no cork) show the same on the
 * kernel's own packets. Captured next to the client: a reply arrives one
 * round trip plus the server's hold after the request. */
#include <criterion/criterion.h>
#include <math.h>

#include "harness.h"

#define RTT 0.020

/* One request and its reply of `size` bytes, the reply's tail held `hold`
 * seconds at the server (the full-sized part, if any, leaves at once). */
static void exchange(pd_harness *h, pd_hflow *c, uint32_t size, double hold)
{
	pd_harness_data(h, c, PD_CLIENT, 100);
	uint32_t full = size / 1448 * 1448, tail = size - full;
	if (full) {
		pd_harness_later(h, RTT);
		for (uint32_t n = 0; n < full; n += 1448)
			pd_harness_data(h, c, PD_SERVER, 1448);
		pd_harness_later(h, 0.0001);
		pd_harness_ack(h, c, PD_CLIENT);
	}
	pd_harness_later(h, RTT + hold);
	pd_harness_data(h, c, PD_SERVER, tail ? tail : 1448);
	pd_harness_later(h, 0.0001);
	pd_harness_ack(h, c, PD_CLIENT);
	pd_harness_later(h, 0.050);
}

static pd_report *run_os(const uint32_t *sizes, const double *holds, int n, uint8_t server_ttl,
			 const char *server_layout)
{
	pd_harness *h = pd_harness_new("cork,nagle");
	pd_hflow c = server_layout ? pd_harness_connect_os(h, "10.0.0.1:40000", "10.0.0.2:8080", RTT, 64, NULL,
							   server_ttl, server_layout)
				   : pd_harness_connect(h, "10.0.0.1:40000", "10.0.0.2:8080", RTT);
	pd_harness_later(h, 0.001);
	for (int i = 0; i < n; i++)
		exchange(h, &c, sizes[i % 6], holds[i]);
	return pd_harness_finish(h);
}

static pd_report *run(const uint32_t *sizes, const double *holds, int n)
{
	return run_os(sizes, holds, n, 0, NULL);
}

static const uint32_t SIZES[6] = {300, 900, 3000, 150, 1300, 5000};

Test(det_cork, replies_held_at_the_probe_timer)
{
	double holds[12];
	for (int i = 0; i < 12; i++)
		holds[i] = 0.218 + 0.002 * (i % 4); /* 218-224 ms: RTO on a 20 ms path */
	pd_report *r = run(SIZES, holds, 12);
	const pd_finding *f = pd_harness_finding(r, "cork-timer-delay", 0);
	cr_assert_not_null(f, "twelve replies held ~220 ms must be found");
	cr_expect_eq(pd_harness_metric(f, "held_responses"), 12);
	cr_expect_eq(pd_harness_metric(f, "split_responses"), 4, "3000 and 5000 B replies: full part first");
	cr_expect(fabs(pd_harness_metric(f, "hold_ms") - 221) < 3, "hold %f", pd_harness_metric(f, "hold_ms"));
	cr_expect(f->impact_s > 2.5 && f->impact_s < 2.8, "time lost %f", f->impact_s);
	cr_expect_str_eq(f->settings[0], "TCP_CORK");
	cr_expect_eq(pd_harness_count(r, "nagle-delayed-ack"), 0);
	pd_report_free(r);
}

Test(det_cork, think_time_that_varies_is_no_timer)
{
	/* 250-350 ms, as the slowapp captures */
	static const double holds[12] = {0.282, 0.265, 0.315, 0.257, 0.304, 0.287,
					 0.256, 0.301, 0.254, 0.293, 0.333, 0.345};
	pd_report *r = run(SIZES, holds, 12);
	cr_expect_eq(pd_harness_count(r, "cork-timer-delay"), 0);
	cr_expect_eq(pd_harness_count(r, "nagle-delayed-ack"), 0);
	pd_report_free(r);
}

Test(det_cork, four_held_replies_are_too_few)
{
	double holds[4] = {0.220, 0.221, 0.219, 0.222};
	pd_report *r = run(SIZES, holds, 4);
	cr_expect_eq(pd_harness_count(r, "cork-timer-delay"), 0, "at least five");
	pd_report_free(r);
}

Test(det_cork, a_fixed_wait_below_the_timer_floor_is_not_a_cork)
{
	double holds[10];
	for (int i = 0; i < 10; i++)
		holds[i] = 0.160; /* tight, but the probe timer is never under 200 ms */
	pd_report *r = run(SIZES, holds, 10);
	cr_expect_eq(pd_harness_count(r, "cork-timer-delay"), 0);
	pd_report_free(r);
}

Test(det_cork, a_fixed_half_second_is_no_cork_on_a_short_path)
{
	double holds[10];
	for (int i = 0; i < 10; i++)
		holds[i] = 0.500;
	pd_report *r = run(SIZES, holds, 10);
	cr_expect_eq(pd_harness_count(r, "cork-timer-delay"), 0, "above 200 ms + a few RTTs");
	pd_report_free(r);
}

Test(det_cork, prompt_replies_are_not_held)
{
	double holds[10] = {0};
	pd_report *r = run(SIZES, holds, 10);
	cr_expect_eq(pd_harness_count(r, "cork-timer-delay"), 0);
	pd_report_free(r);
}

Test(det_cork, a_tail_with_data_in_flight_is_not_held_by_cork)
{
	/* the tail leaves 220 ms after the full part, with that part still
	 * unacknowledged: not a corked socket with nothing in flight */
	pd_harness *h = pd_harness_new("cork");
	pd_hflow c = pd_harness_connect(h, "10.0.0.1:40000", "10.0.0.2:8080", RTT);
	for (int i = 0; i < 10; i++) {
		pd_harness_data(h, &c, PD_CLIENT, 100);
		pd_harness_later(h, RTT);
		pd_harness_data(h, &c, PD_SERVER, 1448);
		pd_harness_later(h, 0.220);
		pd_harness_data(h, &c, PD_SERVER, 200);
		pd_harness_later(h, 0.0001);
		pd_harness_ack(h, &c, PD_CLIENT);
		pd_harness_later(h, 0.050);
	}
	pd_report *r = pd_harness_finish(h);
	cr_expect_eq(pd_harness_count(r, "cork-timer-delay"), 0);
	pd_report_free(r);
}

/* The same holds from a server whose SYN-ACK is Windows' (TTL 128, MSS,
 * NOP, window scale, NOP, NOP, SACK): Windows has no TCP_CORK, so no
 * cork finding (Zeek's krb/kerberos_tso.pcapng, a Windows SMB server). */
Test(det_cork, no_cork_on_a_windows_sender)
{
	double holds[12];
	for (int i = 0; i < 12; i++)
		holds[i] = 0.218 + 0.002 * (i % 4);
	pd_report *r = run_os(SIZES, holds, 12, 128, "MNWNNS");
	cr_expect_eq(pd_harness_count(r, "cork-timer-delay"), 0);
	pd_report_free(r);
}
