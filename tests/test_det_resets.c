/* det_resets.c's rules for a RST from the connection's own socket, fed
 * packets built in C (tests/harness.h): close() with data the application
 * never read (the window grows in the RST), an abortive close (it does
 * not), and an orderly close; and a side that closed with a FIN and then
 * reset the data that reached its closed socket (reset-after-close), with
 * its near misses (a keepalive long after, crossing closes). */
#include <criterion/criterion.h>
#include <math.h>

#include "harness.h"

/* The client sends three 1000-byte segments; the server ACKs each with a
 * window falling 502, 480, 460 (x 128: nobody reads) and then ends the
 * connection: by a RST|ACK of its socket (ACK, timestamps, its IP ID
 * sequence) with raw window `rst_win` and TTL `ttl` (0: 64, the server's),
 * or, when rst_win < 0, by a FIN. */
static pd_report *server_close(int rst_win, uint8_t ttl, uint64_t *rst)
{
	pd_harness *h = pd_harness_new("resets");
	pd_harness_at(h, 1.0);
	pd_hflow c = pd_harness_connect(h, "10.0.0.1:40000", "10.0.0.2:80", 0.010);
	static const uint32_t wins[] = {502, 480, 460};
	for (int i = 0; i < 3; i++) {
		pd_harness_later(h, 0.001);
		pd_harness_data(h, &c, PD_CLIENT, 1000);
		pd_harness_later(h, 0.010);
		pd_hseg a = pd_harness_seg(h, &c, PD_SERVER, PD_TCP_ACK, 0);
		a.win = wins[i];
		pd_harness_send(h, &c, PD_SERVER, &a);
	}
	pd_harness_later(h, 0.5);
	if (rst_win < 0) {
		pd_harness_fin(h, &c, PD_SERVER);
		pd_harness_later(h, 0.010);
		pd_harness_fin(h, &c, PD_CLIENT);
		pd_harness_later(h, 0.010);
		pd_harness_ack(h, &c, PD_SERVER);
	} else {
		pd_hseg r = pd_harness_seg(h, &c, PD_SERVER, PD_TCP_RST | PD_TCP_ACK, 0);
		r.win = (uint32_t)rst_win;
		r.ttl = ttl;
		*rst = pd_harness_send(h, &c, PD_SERVER, &r);
	}
	return pd_harness_finish(h);
}

/* From the socket, with a window at least RS_WIN_FREED_MIN (1024) bytes
 * above its previous ACK's: close() freed unread data. */
Test(det_resets, rst_that_frees_unread_data)
{
	uint64_t rst = 0;
	pd_report *r = server_close(502, 0, &rst);
	const pd_finding *f = pd_harness_finding(r, "reset-unread-data", 0);
	cr_assert_not_null(f);
	cr_expect_eq(f->severity, PD_SEV_WARNING);
	cr_expect_eq(pd_harness_metric(f, "rst_frame"), (double)rst);
	cr_expect_eq(pd_harness_metric(f, "rst_from_server"), 1);
	cr_expect_eq(pd_harness_metric(f, "window_before_bytes"), 460 * 128);
	cr_expect_eq(pd_harness_metric(f, "window_in_rst_bytes"), 502 * 128);
	cr_expect_eq(pd_harness_metric(f, "peer_unacked_bytes"), 0);
	cr_expect_eq(f->first.frame, rst);
	const pd_flow_ref *fl = &g_array_index(f->flows, pd_flow_ref, 0);
	cr_expect_eq(fl->client_port, 40000);
	cr_expect_str_eq(f->settings[0], "application: close() with unread data");
	cr_expect_eq(pd_harness_count(r, "reset-abort"), 0);
	pd_report_free(r);
}

/* 896 bytes more (7 x 128): under 1024, nothing unread was freed: an
 * abortive close (SO_LINGER {1, 0}); a note, the client sent nothing
 * unacknowledged. */
Test(det_resets, a_window_grown_too_little_is_an_abort)
{
	uint64_t rst = 0;
	pd_report *r = server_close(467, 0, &rst);
	cr_expect_eq(pd_harness_count(r, "reset-unread-data"), 0);
	const pd_finding *f = pd_harness_finding(r, "reset-abort", 0);
	cr_assert_not_null(f);
	cr_expect_eq(f->severity, PD_SEV_INFO);
	cr_expect_eq(pd_harness_metric(f, "window_in_rst_bytes"), 467 * 128);
	pd_report_free(r);
}

Test(det_resets, an_orderly_close_is_fine)
{
	uint64_t rst = 0;
	pd_report *r = server_close(-1, 0, &rst);
	cr_expect_eq(r->findings->len, 0, "no finding at all");
	pd_report_free(r);
}

/* The same RST with a TTL the server never uses: a device on the path
 * forged it. */
Test(det_resets, a_foreign_ttl_is_injected)
{
	uint64_t rst = 0;
	pd_report *r = server_close(502, 50, &rst);
	cr_expect_eq(pd_harness_count(r, "reset-unread-data"), 0);
	const pd_finding *f = pd_harness_finding(r, "reset-injected", 0);
	cr_assert_not_null(f);
	cr_expect_eq(f->severity, PD_SEV_WARNING);
	cr_expect_eq(f->first.frame, rst);
	pd_report_free(r);
}

/* The server closes (7 bytes, then FIN) while the client keeps sending:
 * `after` client segments of 500 bytes (0: a keepalive probe instead)
 * reach the closed socket, and the server's kernel answers the first with
 * a bare RST (no ACK flag, no options, window 0). */
static pd_report *close_then_reset_len(int after, uint32_t len, uint64_t *fin, uint64_t *rst);

static pd_report *close_then_reset(int after, uint64_t *fin, uint64_t *rst)
{
	return close_then_reset_len(after, 500, fin, rst);
}

static pd_report *close_then_reset_len(int after, uint32_t len, uint64_t *fin, uint64_t *rst)
{
	pd_harness *h = pd_harness_new("resets");
	pd_harness_at(h, 1.0);
	pd_hflow c = pd_harness_connect(h, "10.0.0.1:40000", "10.0.0.2:443", 0.010);
	for (int i = 0; i < 3; i++) {
		pd_harness_later(h, 0.020);
		pd_harness_data(h, &c, PD_CLIENT, 500);
		pd_harness_later(h, 0.0001);
		pd_harness_ack(h, &c, PD_SERVER);
	}
	pd_harness_later(h, 0.005);
	pd_harness_data(h, &c, PD_SERVER, 7);
	*fin = pd_harness_fin(h, &c, PD_SERVER);
	pd_harness_later(h, 0.010);
	if (after) {
		for (int i = 0; i < after; i++)
			pd_harness_data(h, &c, PD_CLIENT, len);
	} else {
		pd_harness_ack(h, &c, PD_CLIENT);
		pd_harness_later(h, 30);
		pd_hseg k = pd_harness_seg(h, &c, PD_CLIENT, PD_TCP_ACK, 0);
		k.seq -= 1; /* a keepalive probe */
		pd_harness_send(h, &c, PD_CLIENT, &k);
	}
	pd_harness_later(h, 0.0001);
	pd_hseg r = pd_harness_seg(h, &c, PD_SERVER, PD_TCP_RST, 0);
	r.ack = 0;
	r.win = 0;
	r.ts = false;
	*rst = pd_harness_send(h, &c, PD_SERVER, &r);
	return pd_harness_finish(h);
}

Test(det_resets, data_reset_after_the_close)
{
	uint64_t fin = 0, rst = 0;
	pd_report *r = close_then_reset(2, &fin, &rst);
	const pd_finding *f = pd_harness_finding(r, "reset-after-close", 0);
	cr_assert_not_null(f, "a FIN, then a RST to the data that followed it");
	cr_expect_eq(f->severity, PD_SEV_WARNING);
	cr_expect_eq(pd_harness_metric(f, "fin_frame"), (double)fin);
	cr_expect_eq(pd_harness_metric(f, "rst_frame"), (double)rst);
	cr_expect_eq(pd_harness_metric(f, "peer_bytes_lost"), 1000);
	cr_expect_eq(pd_harness_metric(f, "peer_segments_after_fin"), 2);
	cr_expect_str_eq(f->settings[0], "application: close() while the peer still sends");
	cr_expect_eq(pd_harness_count(r, "reset-abort"), 0);
	cr_expect_eq(pd_harness_count(r, "reset-unread-data"), 0);
	cr_expect_eq(pd_harness_count(r, "reset-stale-connection"), 0);
	pd_report_free(r);
}

/* A keepalive long after the server's FIN draws the RST: nothing the
 * client sent was lost (the half-closed socket timed out). */
Test(det_resets, a_keepalive_reset_after_the_close_lost_nothing)
{
	uint64_t fin = 0, rst = 0;
	pd_report *r = close_then_reset(0, &fin, &rst);
	cr_expect_eq(pd_harness_count(r, "reset-after-close"), 0);
	pd_report_free(r);
}

/* Both close at once: the server's last short record and FIN cross the
 * client's FIN, and the client's kernel resets them: a note. */
Test(det_resets, crossing_closes_lose_only_a_last_record)
{
	pd_harness *h = pd_harness_new("resets");
	pd_harness_at(h, 1.0);
	pd_hflow c = pd_harness_connect(h, "10.0.0.1:40000", "10.0.0.2:443", 0.010);
	pd_harness_later(h, 0.010);
	pd_harness_data(h, &c, PD_CLIENT, 300);
	pd_harness_later(h, 0.010);
	pd_harness_data(h, &c, PD_SERVER, 1000);
	pd_harness_later(h, 0.0001);
	pd_harness_ack(h, &c, PD_CLIENT);
	pd_harness_later(h, 0.010);
	pd_harness_data(h, &c, PD_SERVER, 24);
	pd_harness_fin(h, &c, PD_SERVER);
	/* the client's FIN, sent before those arrived: it acknowledges none */
	pd_hseg cf = pd_harness_seg(h, &c, PD_CLIENT, PD_TCP_FIN | PD_TCP_ACK, 0);
	cf.ack -= 25;
	pd_harness_send(h, &c, PD_CLIENT, &cf);
	pd_harness_later(h, 0.001);
	pd_hseg r = pd_harness_seg(h, &c, PD_CLIENT, PD_TCP_RST, 0);
	r.ack = 0;
	r.win = 0;
	r.ts = false;
	pd_harness_send(h, &c, PD_CLIENT, &r);
	pd_report *rep = pd_harness_finish(h);
	const pd_finding *f = pd_harness_finding(rep, "reset-after-close", 0);
	cr_assert_not_null(f);
	cr_expect_eq(f->severity, PD_SEV_INFO);
	cr_expect_eq(pd_harness_metric(f, "peer_bytes_lost"), 24);
	cr_expect_eq(pd_harness_metric(f, "rst_from_server"), 0);
	pd_report_free(rep);
}

/* One short last record after the FIN (24 B: a TLS 1.3 close_notify),
 * nothing after it: the peer's goodbye, a note (suricata-verify's
 * tls13-draft19 and websocket-ping); 200 B is data it meant to deliver. */
Test(det_resets, one_short_last_record_is_a_note)
{
	uint64_t fin = 0, rst = 0;
	pd_report *r = close_then_reset_len(1, 24, &fin, &rst);
	const pd_finding *f = pd_harness_finding(r, "reset-after-close", 0);
	cr_assert_not_null(f);
	cr_expect_eq(f->severity, PD_SEV_INFO);
	pd_report_free(r);
	r = close_then_reset_len(1, 200, &fin, &rst);
	f = pd_harness_finding(r, "reset-after-close", 0);
	cr_assert_not_null(f);
	cr_expect_eq(f->severity, PD_SEV_WARNING);
	pd_report_free(r);
	r = close_then_reset_len(2, 24, &fin, &rst);
	f = pd_harness_finding(r, "reset-after-close", 0);
	cr_assert_not_null(f);
	cr_expect_eq(f->severity, PD_SEV_WARNING, "two records after the close: it was still sending");
	pd_report_free(r);
}
