/* det_window.c's rules, fed packets built in C (tests/harness.h): a
 * receiver that advertises a zero window while the sender has data, the
 * sender's window probes, the window reopening; which receive buffer held
 * a window that never grew (the SYN's window scale); a send buffer seen
 * from a router half-way along the path. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

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

/* ------------------------------------------------ which receive buffer */

/* SYN, SYN-ACK, ACK between 10.0.0.1:40000 and 10.0.0.2:5001, seen `srv`
 * s after the SYN (SYN-ACK) and `cli` s after that (the handshake ACK):
 * next to the client srv is the RTT and cli nearly 0, half-way each is
 * half of it. The client's SYN offers window scale cws (the server's 7);
 * its handshake ACK advertises the raw window ack_win. */
static pd_hflow handshake(pd_harness *h, int8_t cws, double srv, double cli, uint32_t ack_win)
{
	pd_hflow c;
	memset(&c, 0, sizeof(c));
	snprintf(c.client, sizeof(c.client), "10.0.0.1:40000");
	snprintf(c.server, sizeof(c.server), "10.0.0.2:5001");
	c.next[PD_CLIENT] = 1000;
	c.next[PD_SERVER] = 900000;
	c.tsval[PD_CLIENT] = 5000;
	c.tsval[PD_SERVER] = 700000;
	c.ts = true;
	c.rtt = srv + cli;
	pd_hseg s = pd_harness_seg(h, &c, PD_CLIENT, PD_TCP_SYN, 0);
	s.ack = 0;
	s.tsecr = 0;
	s.win = 64240;
	s.mss = 1460;
	s.wscale = cws;
	s.sack_ok = true;
	pd_harness_send(h, &c, PD_CLIENT, &s);
	pd_harness_later(h, srv);
	s = pd_harness_seg(h, &c, PD_SERVER, PD_TCP_SYN | PD_TCP_ACK, 0);
	s.win = 65160;
	s.mss = 1460;
	s.wscale = 7;
	s.sack_ok = true;
	pd_harness_send(h, &c, PD_SERVER, &s);
	pd_harness_later(h, cli);
	s = pd_harness_seg(h, &c, PD_CLIENT, PD_TCP_ACK, 0);
	s.win = ack_win;
	pd_harness_send(h, &c, PD_CLIENT, &s);
	return c;
}

/* The client's ACK of the server's data up to `ack`, window raw_win. */
static void client_ack(pd_harness *h, pd_hflow *c, uint32_t ack, uint32_t raw_win)
{
	pd_hseg a = pd_harness_seg(h, c, PD_CLIENT, PD_TCP_ACK, 0);
	a.ack = ack;
	a.win = raw_win;
	pd_harness_send(h, c, PD_CLIENT, &a);
}

/* Captured at the client (receiver) of an 80 ms path: the server sends 55
 * segments (79640 bytes) per round trip for 20 round trips, the client
 * ACKs every other one at once with the raw window raw_win (<< cws), after
 * a handshake ACK of raw_first: a window that never grew. */
static pd_report *capped(int8_t cws, uint32_t raw_win, uint32_t raw_first)
{
	pd_harness *h = pd_harness_new("window");
	pd_harness_at(h, 1.0);
	pd_hflow c = handshake(h, cws, 0.080, 0.0001, raw_first);
	pd_harness_later(h, 0.0005);
	for (int r = 0; r < 20; r++) {
		double t0 = pd_harness_now(h);
		for (int k = 0; k < 55; k++) {
			pd_harness_data(h, &c, PD_SERVER, 1448);
			pd_harness_later(h, 0.00005);
			if (k % 2 || k == 54)
				client_ack(h, &c, c.next[PD_SERVER], raw_win);
		}
		pd_harness_at(h, t0 + 0.080);
	}
	pd_harness_fin(h, &c, PD_SERVER);
	pd_harness_later(h, 0.0001);
	pd_harness_fin(h, &c, PD_CLIENT);
	return pd_harness_finish(h);
}

/* A window stuck at 80512 under SYN window scale 7: a buffer locked before
 * the handshake would have given scale 1 (at most 2), so autotuning stopped
 * at net.ipv4.tcp_rmem's maximum, not SO_RCVBUF. */
Test(det_window, a_small_window_under_a_large_scale_is_tcp_rmem)
{
	pd_report *r = capped(7, 629, 502); /* 629 << 7 = 80512 */
	const pd_finding *f = pd_harness_finding(r, "window-limited", 0);
	cr_assert_not_null(f);
	cr_expect_eq(f->severity, PD_SEV_WARNING);
	cr_expect_eq(pd_harness_metric(f, "max_window"), 80512);
	cr_expect_str_eq(f->settings[0], "net.ipv4.tcp_rmem");
	cr_expect(strstr(f->detail, "window scale 7") != NULL, "%s", f->detail);
	const pd_finding *x = pd_harness_finding(r, "receive-window-fixed", 0);
	cr_assert_not_null(x);
	cr_expect_str_eq(x->settings[0], "net.ipv4.tcp_rmem");
	pd_report_free(r);
}

/* The same window under scale 1 (SO_RCVBUF 65536 before connect() gives
 * that) and under scale 2, the most a locked buffer of this window can
 * give: the fixed buffer, as before. */
Test(det_window, a_small_window_under_a_small_scale_is_so_rcvbuf)
{
	int8_t scales[] = {1, 2};
	uint32_t raw[] = {40256, 20128}, first[] = {32128, 16064};
	for (int i = 0; i < 2; i++) {
		pd_report *r = capped(scales[i], raw[i], first[i]);
		const pd_finding *f = pd_harness_finding(r, "window-limited", 0);
		cr_assert_not_null(f, "scale %d", scales[i]);
		cr_expect_eq(pd_harness_metric(f, "max_window"), 80512);
		cr_expect_str_eq(f->settings[0], "SO_RCVBUF", "scale %d", scales[i]);
		pd_report_free(r);
	}
}

/* ------------------------------------------------ send buffer, from a router */

/* Captured half-way along a 40 ms path (20 ms on each side): the server
 * sends `rounds` blocks of 29 + grow x round segments back to back; the
 * client's ACK of every other segment passes here 20 ms after it (the
 * last, odd segment of a block waits for the next block's ACKs); the next
 * block passes here 20 ms (the server's side) + `pause` after the last
 * ACK. The client's window is 1216 << 7 = 155648. */
static pd_report *router_blocks(int rounds, int grow, double pause)
{
	pd_harness *h = pd_harness_new("window");
	pd_harness_at(h, 1.0);
	pd_hflow c = handshake(h, 7, 0.020, 0.020, 502);
	pd_harness_later(h, 0.0005);
	for (int r = 0; r < rounds; r++) {
		int n = 29 + grow * r;
		double t0 = pd_harness_now(h);
		uint32_t base = c.next[PD_SERVER];
		for (int k = 0; k < n; k++) {
			pd_harness_at(h, t0 + k * 0.0001);
			pd_harness_data(h, &c, PD_SERVER, 1448);
		}
		double last = t0;
		for (int k = 1; k < n; k += 2) {
			last = t0 + k * 0.0001 + 0.020;
			pd_harness_at(h, last);
			client_ack(h, &c, base + (uint32_t)(k + 1) * 1448, 1216);
		}
		pd_harness_at(h, last + 0.020 + pause);
	}
	client_ack(h, &c, c.next[PD_SERVER], 1216);
	pd_harness_fin(h, &c, PD_SERVER);
	pd_harness_later(h, 0.020);
	pd_harness_fin(h, &c, PD_CLIENT);
	return pd_harness_finish(h);
}

/* Blocks of 41992 bytes, one whole handshake RTT apart, each passing here
 * one sender-side time (20 ms) after the ACK of the previous one, the
 * window almost 4x larger, nothing lost: the sender's buffer. */
Test(det_window, a_send_buffer_seen_from_a_router)
{
	pd_report *r = router_blocks(30, 0, 0);
	const pd_finding *f = pd_harness_finding(r, "sender-limited", 0);
	cr_assert_not_null(f);
	cr_expect_eq(f->severity, PD_SEV_WARNING);
	cr_expect_str_eq(f->settings[0], "SO_SNDBUF");
	cr_expect_str_eq(f->settings[1], "net.ipv4.tcp_wmem");
	cr_expect_eq(pd_harness_metric(f, "pinned_flight"), 29 * 1448);
	cr_expect_geq(pd_harness_metric(f, "pinned_rounds"), 25);
	cr_expect(fabs(pd_harness_metric(f, "sender_side_rtt_ms") - 20) < 0.1, "%f",
		  pd_harness_metric(f, "sender_side_rtt_ms"));
	cr_expect(fabs(pd_harness_metric(f, "rtt_ms") - 40) < 0.1, "the handshake's whole RTT: %f",
		  pd_harness_metric(f, "rtt_ms"));
	cr_expect_eq(pd_harness_count(r, "window-limited"), 0);
	pd_report_free(r);
}

/* A congestion window growing by two segments a round trip: no two blocks
 * of one size, no send buffer. */
Test(det_window, a_growing_flight_seen_from_a_router_is_not_a_send_buffer)
{
	pd_report *r = router_blocks(30, 2, 0);
	cr_expect_eq(pd_harness_count(r, "sender-limited"), 0);
	pd_report_free(r);
}

/* The same blocks sent 40 ms after the ACK reached the sender: it waited
 * for something else (its application), not for buffer space. */
Test(det_window, blocks_that_wait_past_the_ack_are_not_a_send_buffer)
{
	pd_report *r = router_blocks(30, 0, 0.040);
	cr_expect_eq(pd_harness_count(r, "sender-limited"), 0);
	pd_report_free(r);
}
