/* Golden tests for the data-transfer detectors (det_nagle, det_window,
 * det_loss, det_transfer) on the captures in testdata/captures/. Figures
 * come from each capture's README (tshark-verified facts). */
#include <criterion/criterion.h>
#include <glib.h> /* testutil.h needs GPtrArray */
#include <math.h>
#include <string.h>

#include "testutil.h"

/* ---------------------------------------------------------------- Nagle */

Test(transfer, nagle_delack)
{
	cJSON *r = pd_test_report("testdata/captures/nagle-delack/nagle-delack.pcap");
	cr_assert_eq(pd_test_count_findings(r, "nagle-delayed-ack"), 1);
	const cJSON *f = pd_test_finding(r, "nagle-delayed-ack", 0);
	cr_assert(!strcmp(pd_test_str(f, "severity"), "warning") || !strcmp(pd_test_str(f, "severity"), "error"));
	/* README: 29 stalls, gaps 43.1-43.9 ms, median 43.7 ms; released bodies 12, 17, ..., 152 */
	PD_TEST_NEAR(pd_test_metric(f, "stalls"), 29, 0);
	PD_TEST_NEAR(pd_test_num(f, "occurrences"), 29, 0);
	PD_TEST_NEAR(pd_test_metric(f, "period_ms"), 43.7, 0.5);
	PD_TEST_NEAR(pd_test_metric(f, "period_ms"), 40, 5);
	cr_assert(pd_test_metric(f, "period_min_ms") >= 43.0 && pd_test_metric(f, "period_max_ms") <= 44.0);
	PD_TEST_NEAR(pd_test_first_frame(f), 12, 0);
	cr_assert(pd_test_has_example(f, 17));
	cr_assert(pd_test_has_example(f, 22));
	/* nearly the whole 1.276 s flow waited for ACKs */
	PD_TEST_NEAR(pd_test_metric(f, "time_lost"), 29 * 0.0437, 0.05);
	cr_assert(pd_test_metric(f, "time_lost_share") > 0.9);
	PD_TEST_NEAR(pd_test_client_port(f), 59042, 0);
	cr_assert_str_eq(pd_test_setting(f, 0), "TCP_NODELAY");
	cr_assert_eq(pd_test_count_findings(r, "retransmissions"), 0);
	cJSON_Delete(r);
}

Test(transfer, nagle_nodelay_healthy)
{
	cJSON *r = pd_test_report("testdata/captures/nagle-nodelay/nagle-nodelay.pcap");
	cr_assert_eq(pd_test_count_findings(r, "nagle-delayed-ack"), 0);
	cr_assert_eq(pd_test_count_at_least(r, "warning"), 0);
	cJSON_Delete(r);
}

Test(transfer, reqresp_healthy)
{
	cJSON *r = pd_test_report("testdata/captures/reqresp-healthy/reqresp-healthy.pcap");
	cr_assert_eq(pd_test_count_findings(r, "nagle-delayed-ack"), 0);
	cr_assert_eq(pd_test_count_at_least(r, "warning"), 0);
	cJSON_Delete(r);
}

/* --------------------------------------------------------------- window */

Test(transfer, zero_window)
{
	cJSON *r = pd_test_report("testdata/captures/zero-window/zero-window.pcap");
	cr_assert_eq(pd_test_count_findings(r, "zero-window"), 1);
	const cJSON *f = pd_test_finding(r, "zero-window", 0);
	cr_assert_str_eq(pd_test_str(f, "severity"), "warning");
	/* README: first zero window frame 16; 52 window updates end 52 stalls;
	 * the two reader pauses give 1.57 s stalls with probes 156, 158, 296, 298 */
	PD_TEST_NEAR(pd_test_first_frame(f), 16, 0);
	PD_TEST_NEAR(pd_test_metric(f, "zero_window_events"), 52, 0);
	PD_TEST_NEAR(pd_test_metric(f, "longest_stall"), 1.571, 0.01);
	PD_TEST_NEAR(pd_test_metric(f, "window_probes"), 4, 0);
	PD_TEST_NEAR(pd_test_metric(f, "window_full_events"), 160, 0);
	/* 50 stalls of ~0.07-0.1 s plus two of 1.57 s */
	cr_assert(pd_test_metric(f, "zero_window_stall") > 2 * 1.57 + 50 * 0.05);
	cr_assert(pd_test_metric(f, "zero_window_stall") < 13.6);
	cr_assert(pd_test_num(f, "impact_s") > 3.0);
	cr_assert_str_eq(pd_test_setting(f, 0), "slow-reading application");
	/* the spurious tail-loss probes early on (frames 11, 20, 29, D-SACKed) are not loss */
	cr_assert_eq(pd_test_count_findings(r, "retransmissions"), 0);
	cr_assert_eq(pd_test_count_findings(r, "spurious-retransmissions"), 1);
	PD_TEST_NEAR(pd_test_metric(pd_test_finding(r, "spurious-retransmissions", 0), "spurious"), 3, 0);
	cr_assert_eq(pd_test_count_findings(r, "window-limited"), 0);
	cJSON_Delete(r);
}

Test(transfer, window_limited)
{
	cJSON *r = pd_test_report("testdata/captures/window-limited/window-limited.pcap");
	cr_assert_eq(pd_test_count_findings(r, "window-limited"), 1);
	const cJSON *f = pd_test_finding(r, "window-limited", 0);
	cr_assert_str_eq(pd_test_str(f, "severity"), "warning");
	/* README: window ~38 KiB (39096), RTT 40 ms, 7.5 Mbit/s achieved */
	PD_TEST_NEAR(pd_test_metric(f, "max_window"), 39096, 0);
	PD_TEST_NEAR(pd_test_metric(f, "rtt_ms"), 40.5, 1.5);
	PD_TEST_NEAR(pd_test_metric(f, "achieved_rate") * 8 / 1e6, 7.5, 0.5);
	PD_TEST_NEAR(pd_test_metric(f, "ceiling_rate"), 39096 / 0.0405, 60000);
	cr_assert(pd_test_metric(f, "window_limited_share") >= 0.8, "share %g", pd_test_metric(f, "window_limited_share"));
	cr_assert(pd_test_metric(f, "achieved_vs_ceiling") >= 0.9);
	PD_TEST_NEAR(pd_test_metric(f, "window_full_events"), 704, 0);
	cr_assert_str_eq(pd_test_setting(f, 0), "SO_RCVBUF");
	cr_assert_eq(pd_test_count_findings(r, "receive-window-fixed"), 1);
	cr_assert_str_eq(pd_test_setting(pd_test_finding(r, "receive-window-fixed", 0), 0), "SO_RCVBUF");
	cr_assert_eq(pd_test_count_findings(r, "window-scaling-disabled"), 0);
	cr_assert_eq(pd_test_count_findings(r, "retransmissions"), 0);
	cJSON_Delete(r);
}

Test(transfer, wscale_off)
{
	cJSON *r = pd_test_report("testdata/captures/wscale-off/wscale-off.pcap");
	cr_assert_eq(pd_test_count_findings(r, "window-scaling-disabled"), 1);
	const cJSON *f = pd_test_finding(r, "window-scaling-disabled", 0);
	cr_assert_str_eq(pd_test_str(f, "severity"), "warning");
	PD_TEST_NEAR(pd_test_metric(f, "window_cap"), 65535, 0);
	PD_TEST_NEAR(pd_test_metric(f, "max_window"), 65535, 0);
	PD_TEST_NEAR(pd_test_metric(f, "max_in_flight"), 65535, 0);
	/* README: ~12.4 Mbit/s at 40 ms */
	PD_TEST_NEAR(pd_test_metric(f, "achieved_rate") * 8 / 1e6, 12.4, 0.6);
	cr_assert(pd_test_metric(f, "window_limited_share") >= 0.8);
	PD_TEST_NEAR(pd_test_metric(f, "window_full_events"), 1055, 0);
	cr_assert_str_eq(pd_test_setting(f, 0), "net.ipv4.tcp_window_scaling");
	/* a capped window is not reported a second time as a fixed buffer */
	cr_assert_eq(pd_test_count_findings(r, "receive-window-fixed"), 0);
	cr_assert_eq(pd_test_count_findings(r, "window-limited"), 0);
	cJSON_Delete(r);
}

/* ----------------------------------------------------------------- loss */

Test(transfer, random_loss_sender)
{
	cJSON *r = pd_test_report("testdata/captures/random-loss/random-loss.pcap");
	cr_assert_eq(pd_test_count_findings(r, "retransmissions"), 1);
	const cJSON *f = pd_test_finding(r, "retransmissions", 0);
	cr_assert_str_eq(pd_test_str(f, "severity"), "warning");
	/* README: 39 of 1489 data segments retransmitted, first at frame 440, no RTO */
	PD_TEST_NEAR(pd_test_metric(f, "retransmitted_segments"), 39, 0);
	PD_TEST_NEAR(pd_test_metric(f, "data_segments"), 1489, 0);
	PD_TEST_NEAR(pd_test_metric(f, "retransmission_rate"), 39.0 / 1489, 0.001);
	PD_TEST_NEAR(pd_test_metric(f, "fast_retransmissions"), 39, 0);
	PD_TEST_NEAR(pd_test_metric(f, "rto_retransmissions"), 0, 0);
	PD_TEST_NEAR(pd_test_metric(f, "original_unseen"), 0, 0);
	PD_TEST_NEAR(pd_test_first_frame(f), 440, 0);
	PD_TEST_NEAR(pd_test_metric(f, "rtt_ms"), 20.2, 1.0);
	/* nft drops at random, no queue grows (RTT stays at the handshake's):
	 * a lossy hop, not congestion; the loss is placed after the capture */
	cr_assert_str_eq(pd_test_setting(f, 0), "lossy path");
	cr_assert(strstr(pd_test_str(f, "detail"), "lost after the capture point"));
	cr_assert_eq(pd_test_count_findings(r, "rto-timeouts"), 0);
	cr_assert_eq(pd_test_count_findings(r, "local-drop"), 0);
	cr_assert_eq(pd_test_count_findings(r, "window-limited"), 0);
	cJSON_Delete(r);
}

/* Tail drops of a shaper (tbf 3 Mbit/s, 8 KB queue), seen at the sender:
 * the RTT grew from the handshake's 10 ms to ~25 ms before the losses, so
 * they are congestion and the congestion control may come first. */
Test(transfer, shaper_drops_are_congestion)
{
	cJSON *r = pd_test_report("testdata/captures/queue-short-server/queue-short-server.pcap");
	const cJSON *f = pd_test_finding(r, "retransmissions", 0);
	cr_assert_not_null(f);
	cr_assert(strstr(pd_test_str(f, "detail"), "so these are congestion losses"), "%s", pd_test_str(f, "detail"));
	cr_assert_str_eq(pd_test_setting(f, 0), "net.ipv4.tcp_congestion_control");
	cJSON_Delete(r);
}

Test(transfer, random_loss_receiver)
{
	cJSON *r = pd_test_report("testdata/captures/random-loss/random-loss-client.pcap");
	cr_assert_eq(pd_test_count_findings(r, "retransmissions"), 1);
	const cJSON *f = pd_test_finding(r, "retransmissions", 0);
	/* same run seen at the receiver: the 39 dropped originals never arrive */
	PD_TEST_NEAR(pd_test_metric(f, "retransmitted_segments"), 39, 0);
	PD_TEST_NEAR(pd_test_metric(f, "original_unseen"), 39, 0);
	PD_TEST_NEAR(pd_test_metric(f, "reordered"), 0, 0);
	/* lost after the sender, so not a local drop on the sending host */
	cr_assert_eq(pd_test_count_findings(r, "local-drop"), 0);
	cr_assert_eq(pd_test_count_findings(r, "rto-timeouts"), 0);
	cJSON_Delete(r);
}

Test(transfer, pmtu_blackhole_rto_backoff)
{
	cJSON *r = pd_test_report("testdata/captures/pmtu-blackhole/pmtu-blackhole.pcap");
	cr_assert_eq(pd_test_count_findings(r, "rto-timeouts"), 1);
	const cJSON *f = pd_test_finding(r, "rto-timeouts", 0);
	/* the same full-size segment timed out again and again, doubling from ~200 ms */
	cr_assert(pd_test_metric(f, "rto_count") >= 3);
	PD_TEST_NEAR(pd_test_metric(f, "rto_min_ms"), 210, 20);
	PD_TEST_NEAR(pd_test_metric(f, "backoff_factor"), 2.0, 0.2);
	cr_assert(pd_test_num(f, "impact_s") > 1.0);
	cJSON_Delete(r);
}

Test(transfer, pmtu_icmp_resends_are_not_loss)
{
	cJSON *r = pd_test_report("testdata/captures/pmtu-icmp-ok/pmtu-icmp-ok.pcap");
	cr_assert_eq(pd_test_count_findings(r, "retransmissions"), 0);
	cr_assert_eq(pd_test_count_findings(r, "rto-timeouts"), 0);
	cJSON_Delete(r);
}

/* -------------------------------------------------------------- healthy */

Test(transfer, bulk_healthy)
{
	cJSON *r = pd_test_report("testdata/captures/bulk-healthy/bulk-healthy.pcap");
	cr_assert_eq(pd_test_count_at_least(r, "warning"), 0);
	cr_assert_eq(pd_test_count_findings(r, "retransmissions"), 0);
	cr_assert_eq(pd_test_count_findings(r, "window-limited"), 0);
	cr_assert_eq(pd_test_count_findings(r, "receive-window-fixed"), 0);
	cJSON_Delete(r);
}

Test(transfer, healthy_http)
{
	cJSON *r = pd_test_report("testdata/captures/healthy-http/healthy-http.pcap");
	cr_assert_eq(pd_test_count_at_least(r, "warning"), 0);
	cr_assert_eq(pd_test_count_findings(r, "nagle-delayed-ack"), 0);
	cJSON_Delete(r);
}

Test(transfer, tso_sender)
{
	const char *caps[] = {"testdata/captures/tso-sender/tso-sender.pcap",
			      "testdata/captures/tso-sender/tso-receiver.pcap"};
	for (size_t i = 0; i < 2; i++) {
		cJSON *r = pd_test_report(caps[i]);
		cr_assert_eq(pd_test_count_at_least(r, "warning"), 0, "%s", caps[i]);
		cr_assert_eq(pd_test_count_findings(r, "tiny-writes"), 0);
		cr_assert_eq(pd_test_count_findings(r, "retransmissions"), 0);
		cJSON_Delete(r);
	}
}

/* ------------------------------------------- variants (pdvB-*, data transfer) */

static bool has_setting(const cJSON *f, const char *name)
{
	const cJSON *s;
	cJSON_ArrayForEach(s, cJSON_GetObjectItemCaseSensitive(f, "settings"))
	if (!strcmp(pd_test_str(s, "name"), name))
		return true;
	return false;
}

/* Nagle seen from the ACK delayer (server, -i any / SLL2) over a 20 ms RTT:
 * the time lost is the delayed-ACK timer plus the RTT the held segment
 * waits for the ACK to travel back (README: ~1.87 s over 29 requests). */
Test(transfer_variants, nagle_server_side_sll2)
{
	cJSON *r = pd_test_report("testdata/captures/nagle-server-any/nagle-py.pcap");
	cr_assert_eq(pd_test_count_findings(r, "nagle-delayed-ack"), 1);
	const cJSON *f = pd_test_finding(r, "nagle-delayed-ack", 0);
	PD_TEST_NEAR(pd_test_metric(f, "stalls"), 29, 0);
	PD_TEST_NEAR(pd_test_metric(f, "delayed_ack_ms"), 43.1, 2);
	PD_TEST_NEAR(pd_test_metric(f, "rtt_ms"), 20.3, 1);
	PD_TEST_NEAR(pd_test_metric(f, "time_lost"), 1.87, 0.1);
	PD_TEST_NEAR(pd_test_first_frame(f), 12, 0);
	cr_assert(pd_test_has_example(f, 17));
	PD_TEST_NEAR(pd_test_client_port(f), 40488, 0);
	cr_assert(strstr(pd_test_str(f, "detail"), "captured near the server"));
	cr_assert_str_eq(pd_test_setting(f, 0), "TCP_NODELAY");
	cJSON_Delete(r);

	r = pd_test_report("testdata/captures/nagle-server-any/nagle-c.pcap");
	cr_assert_eq(pd_test_count_findings(r, "nagle-delayed-ack"), 1);
	f = pd_test_finding(r, "nagle-delayed-ack", 0);
	PD_TEST_NEAR(pd_test_metric(f, "stalls"), 24, 0);
	PD_TEST_NEAR(pd_test_metric(f, "delayed_ack_ms"), 43.1, 2);
	PD_TEST_NEAR(pd_test_metric(f, "time_lost"), 24 * (0.0431 + 0.0204), 0.1);
	PD_TEST_NEAR(pd_test_first_frame(f), 12, 0);
	cJSON_Delete(r);
}

/* TCP_NODELAY request chains are clean: in particular a chain of small
 * requests is not an initial window that "waited a round trip". */
Test(transfer_variants, nodelay_server_side_clean)
{
	const char *caps[] = {"testdata/captures/nagle-server-any/nodelay-py.pcap",
			      "testdata/captures/nagle-server-any/nodelay-c.pcap"};
	for (size_t i = 0; i < 2; i++) {
		cJSON *r = pd_test_report(caps[i]);
		cr_assert_eq(pd_test_count_findings(r, "nagle-delayed-ack"), 0, "%s", caps[i]);
		cr_assert_eq(pd_test_count_findings(r, "initial-window"), 0, "%s", caps[i]);
		cr_assert_eq(pd_test_count_at_least(r, "info") - pd_test_count_findings(r, "capture-snaplen") -
				     pd_test_count_findings(r, "capture-vantage"),
			     0, "%s", caps[i]);
		cJSON_Delete(r);
	}
}

/* A server that sleeps 40 ms before answering is not Nagle. */
Test(transfer_variants, slow_server_is_not_nagle)
{
	const char *caps[] = {"testdata/captures/reqresp-slow-server/slow-single.pcap",
			      "testdata/captures/reqresp-slow-server/slow-nodelay.pcap"};
	for (size_t i = 0; i < 2; i++) {
		cJSON *r = pd_test_report(caps[i]);
		cr_assert_eq(pd_test_count_findings(r, "nagle-delayed-ack"), 0, "%s", caps[i]);
		cr_assert_eq(pd_test_count_findings(r, "initial-window"), 0, "%s", caps[i]);
		cr_assert_eq(pd_test_count_at_least(r, "warning"), 0, "%s", caps[i]);
		cJSON_Delete(r);
	}
}

/* Zero window at the receiver, IPv6 (README: 45 episodes, 4.908 s, longest 1.490 s). */
Test(transfer_variants, zero_window_receiver_ipv6)
{
	cJSON *r = pd_test_report("testdata/captures/zero-window-recv6/zero-window-recv6.pcap");
	cr_assert_eq(pd_test_count_findings(r, "zero-window"), 1);
	const cJSON *f = pd_test_finding(r, "zero-window", 0);
	cr_assert_str_eq(pd_test_str(f, "severity"), "warning");
	PD_TEST_NEAR(pd_test_metric(f, "zero_window_events"), 45, 0);
	PD_TEST_NEAR(pd_test_metric(f, "zero_window_stall"), 4.908, 0.05);
	PD_TEST_NEAR(pd_test_metric(f, "longest_stall"), 1.490, 0.02);
	PD_TEST_NEAR(pd_test_metric(f, "window_probes"), 4, 0);
	PD_TEST_NEAR(pd_test_metric(f, "max_window"), 2880, 0);
	PD_TEST_NEAR(pd_test_first_frame(f), 12, 0);
	cr_assert(pd_test_has_example(f, 148));
	PD_TEST_NEAR(pd_test_client_port(f), 60270, 0);
	cr_assert(strstr(pd_test_str(f, "detail"), "client [fd62::1:2]:60270 advertised a zero window"));
	cr_assert_str_eq(pd_test_setting(f, 0), "slow-reading application");
	cr_assert_eq(pd_test_count_findings(r, "window-scaling-disabled"), 0);
	cJSON_Delete(r);
}

/* Window-limited at the receiver, RTT 60 ms: the RTT is the handshake's, not
 * the receiver's local data->ACK turn-around; no sender-limited verdict. */
Test(transfer_variants, window_limited_receiver_side)
{
	const char *caps[] = {"testdata/captures/window-limited-recv/window-limited-recv.pcap",
			      "testdata/captures/window-limited-recv/window-limited-sender-any.pcap"};
	for (size_t i = 0; i < 2; i++) {
		cJSON *r = pd_test_report(caps[i]);
		cr_assert_eq(pd_test_count_findings(r, "window-limited"), 1, "%s", caps[i]);
		cr_assert_eq(pd_test_count_findings(r, "sender-limited"), 0, "%s", caps[i]);
		const cJSON *f = pd_test_finding(r, "window-limited", 0);
		cr_assert_str_eq(pd_test_str(f, "severity"), "warning");
		PD_TEST_NEAR(pd_test_metric(f, "rtt_ms"), 60.5, 1.5);
		PD_TEST_NEAR(pd_test_metric(f, "max_window"), 81120, 0);
		PD_TEST_NEAR(pd_test_metric(f, "window_bytes"), 80000, 1000);
		cr_assert(pd_test_metric(f, "achieved_vs_ceiling") >= 0.8 && pd_test_metric(f, "achieved_vs_ceiling") <= 1.0);
		PD_TEST_NEAR(pd_test_metric(f, "bytes"), 1048576, 0);
		PD_TEST_NEAR(pd_test_client_port(f), 35834, 0);
		cr_assert_str_eq(pd_test_setting(f, 0), "SO_RCVBUF");
		/* ~15 RTTs without growth after the first 3: a fixed buffer */
		cr_assert_eq(pd_test_count_findings(r, "receive-window-fixed"), 1, "%s", caps[i]);
		cr_assert_str_eq(pd_test_setting(pd_test_finding(r, "receive-window-fixed", 0), 0), "SO_RCVBUF");
		cJSON_Delete(r);
	}
	cJSON *r = pd_test_report("testdata/captures/window-limited-recv/window-limited-sender-any.pcap");
	const cJSON *f = pd_test_finding(r, "window-limited", 0);
	PD_TEST_NEAR(pd_test_metric(f, "window_full_events"), 309, 0);
	PD_TEST_NEAR(pd_test_first_frame(f), 155, 0);
	cr_assert(pd_test_metric(f, "window_limited_share") >= 0.5);
	cJSON_Delete(r);
}

/* Window scaling off on the data sender only (the uploading client). */
Test(transfer_variants, wscale_off_on_sender)
{
	cJSON *r = pd_test_report("testdata/captures/wscale-off-sender/wscale-off-sender.pcap");
	cr_assert_eq(pd_test_count_findings(r, "window-scaling-disabled"), 1);
	const cJSON *f = pd_test_finding(r, "window-scaling-disabled", 0);
	cr_assert(strstr(pd_test_str(f, "detail"), "the client's SYN, sent by the data sender, had no window-scale option"));
	cr_assert(strstr(pd_test_str(f, "detail"), "server 10.62.2.2:5108 can never advertise more than 65535"));
	PD_TEST_NEAR(pd_test_metric(f, "max_window"), 65535, 0);
	PD_TEST_NEAR(pd_test_metric(f, "rtt_ms"), 40.2, 1.5); /* the data RTT, not the 52.6 ms handshake */
	cr_assert(pd_test_metric(f, "achieved_vs_ceiling") <= 1.0);
	PD_TEST_NEAR(pd_test_first_frame(f), 136, 0);
	cr_assert_str_eq(pd_test_setting(f, 0), "net.ipv4.tcp_window_scaling");
	cr_assert(!has_setting(f, "net.ipv4.tcp_syncookies"));
	cr_assert_eq(pd_test_count_findings(r, "retransmissions"), 0);
	cJSON_Delete(r);
}

/* A 300 ms outage: timeout recovery, seen from the sender and the receiver. */
Test(transfer_variants, rto_outage_sender)
{
	cJSON *r = pd_test_report("testdata/captures/rto-outage/rto-outage.pcap");
	const cJSON *f = pd_test_finding(r, "retransmissions", 0);
	cr_assert_not_null(f);
	PD_TEST_NEAR(pd_test_metric(f, "retransmitted_segments"), 75, 2);
	PD_TEST_NEAR(pd_test_metric(f, "fast_retransmissions"), 0, 0);
	f = pd_test_finding(r, "rto-timeouts", 0);
	cr_assert_not_null(f);
	/* the outage's losses are the problem; the timeout is what recovering cost */
	cr_assert_str_eq(pd_test_str(f, "explained_by"), "retransmissions");
	cr_assert_str_neq(pd_test_str(pd_test_finding(r, "retransmissions", 0), "severity"), "info");
	PD_TEST_NEAR(pd_test_metric(f, "rto_count"), 1, 0);
	PD_TEST_NEAR(pd_test_metric(f, "rto_min_ms"), 300, 5);
	PD_TEST_NEAR(pd_test_metric(f, "stall_time"), 0.485, 0.01);
	PD_TEST_NEAR(pd_test_num(f, "impact_s"), 0.485, 0.01);
	PD_TEST_NEAR(pd_test_first_frame(f), 389, 0);
	cr_assert_eq(pd_test_count_findings(r, "slow-start-after-idle"), 0);
	cJSON_Delete(r);
}

Test(transfer_variants, rto_outage_receiver)
{
	cJSON *r = pd_test_report("testdata/captures/rto-outage/rto-outage-client.pcap");
	const cJSON *f = pd_test_finding(r, "retransmissions", 0);
	cr_assert_not_null(f);
	PD_TEST_NEAR(pd_test_metric(f, "retransmitted_segments"), 73, 2);
	PD_TEST_NEAR(pd_test_metric(f, "fast_retransmissions"), 0, 0);
	cr_assert(strstr(pd_test_str(f, "detail"), "taken at the receiver and never saw the first copies"));
	f = pd_test_finding(r, "rto-timeouts", 0);
	cr_assert_not_null(f, "the timeout must be seen from the receiver too");
	/* the outage's losses are the problem; the timeout is what recovering cost */
	cr_assert_str_eq(pd_test_str(f, "explained_by"), "retransmissions");
	cr_assert_str_neq(pd_test_str(pd_test_finding(r, "retransmissions", 0), "severity"), "info");
	PD_TEST_NEAR(pd_test_metric(f, "rto_count"), 1, 0);
	PD_TEST_NEAR(pd_test_metric(f, "stall_time"), 0.506, 0.01);
	PD_TEST_NEAR(pd_test_first_frame(f), 314, 0);
	/* the silence was the outage, not an application pause */
	cr_assert_eq(pd_test_count_findings(r, "slow-start-after-idle"), 0);
	cr_assert_eq(pd_test_count_findings(r, "sender-limited"), 0);
	cJSON_Delete(r);
}

Test(transfer_variants, keepalive_answered)
{
	cJSON *r = pd_test_report("testdata/captures/keepalive-probes/keepalive-answered.pcap");
	cr_assert_eq(pd_test_count_findings(r, "keepalive"), 1);
	const cJSON *f = pd_test_finding(r, "keepalive", 0);
	cr_assert_str_eq(pd_test_str(f, "severity"), "info");
	PD_TEST_NEAR(pd_test_metric(f, "probes"), 2, 0);
	PD_TEST_NEAR(pd_test_metric(f, "unanswered"), 0, 0);
	PD_TEST_NEAR(pd_test_metric(f, "idle_before_first"), 2.0, 0.05);
	PD_TEST_NEAR(pd_test_metric(f, "interval"), 2.05, 0.05);
	/* 2 s is no default: per-socket timers; answered probes are spaced by the idle time */
	cr_assert(strstr(pd_test_str(f, "detail"), "TCP_KEEPIDLE / TCP_KEEPINTVL"));
	cr_assert(strstr(pd_test_str(f, "detail"), "spaced by the idle time"));
	PD_TEST_NEAR(pd_test_first_frame(f), 8, 0);
	cr_assert(pd_test_has_example(f, 10));
	cr_assert_eq(pd_test_count_at_least(r, "warning"), 0);
	cJSON_Delete(r);
}

Test(transfer_variants, keepalive_unanswered)
{
	cJSON *r = pd_test_report("testdata/captures/keepalive-probes/keepalive-dropped.pcap");
	cr_assert_eq(pd_test_count_findings(r, "keepalive"), 1);
	const cJSON *f = pd_test_finding(r, "keepalive", 0);
	cr_assert_str_eq(pd_test_str(f, "severity"), "warning");
	PD_TEST_NEAR(pd_test_metric(f, "probes"), 4, 0);
	PD_TEST_NEAR(pd_test_metric(f, "unanswered"), 4, 0); /* the ACK of the later request is no answer */
	PD_TEST_NEAR(pd_test_metric(f, "idle_before_first"), 2.0, 0.05);
	PD_TEST_NEAR(pd_test_metric(f, "interval"), 1.02, 0.03);
	cr_assert(pd_test_has_example(f, 11));
	cr_assert(strstr(pd_test_str(f, "detail"), "the peer answered later data"));
	cJSON_Delete(r);
}

Test(transfer_variants, slow_start_after_idle)
{
	const char *caps[] = {"testdata/captures/slow-start-idle/ssai1.pcap",
			      "testdata/captures/slow-start-idle/ssai1-client.pcap"};
	for (size_t i = 0; i < 2; i++) {
		cJSON *r = pd_test_report(caps[i]);
		cr_assert_eq(pd_test_count_findings(r, "slow-start-after-idle"), 1, "%s", caps[i]);
		const cJSON *f = pd_test_finding(r, "slow-start-after-idle", 0);
		PD_TEST_NEAR(pd_test_metric(f, "restarts"), 2, 0);
		PD_TEST_NEAR(pd_test_metric(f, "first_flight_bytes"), 14480, 1448);
		PD_TEST_NEAR(pd_test_metric(f, "extra_time"), 0.27, 0.08);
		PD_TEST_NEAR(pd_test_first_frame(f), 368, 0);
		cr_assert(pd_test_has_example(f, 712));
		cr_assert_str_eq(pd_test_setting(f, 0), "net.ipv4.tcp_slow_start_after_idle");
		cr_assert_eq(pd_test_count_at_least(r, "warning"), 0, "%s", caps[i]);
		cJSON_Delete(r);
	}
	cJSON *r = pd_test_report("testdata/captures/slow-start-idle/ssai0.pcap");
	cr_assert_eq(pd_test_count_findings(r, "slow-start-after-idle"), 0);
	cr_assert_eq(pd_test_count_at_least(r, "warning"), 0);
	cJSON_Delete(r);
}

Test(transfer_variants, bulk_ipv6_headers_only_healthy)
{
	const char *caps[] = {"testdata/captures/bulk6-healthy/bulk6-sender.pcap",
			      "testdata/captures/bulk6-healthy/bulk6-receiver.pcap"};
	for (size_t i = 0; i < 2; i++) {
		cJSON *r = pd_test_report(caps[i]);
		cr_assert_eq(pd_test_count_at_least(r, "warning"), 0, "%s", caps[i]);
		cr_assert_eq(pd_test_count_findings(r, "retransmissions"), 0, "%s", caps[i]);
		cr_assert_eq(pd_test_count_findings(r, "window-limited"), 0, "%s", caps[i]);
		cr_assert_eq(pd_test_count_findings(r, "sender-limited"), 0, "%s", caps[i]);
		cr_assert_eq(pd_test_count_findings(r, "tiny-writes"), 0, "%s", caps[i]);
		cr_assert_eq(pd_test_count_findings(r, "capture-snaplen"), 1, "%s", caps[i]);
		cJSON_Delete(r);
	}
}

/* The same seen half-way along the path: the delayed-ACK timer is the gap
 * minus the round trip to the ACK delayer, not minus the whole RTT. */
Test(transfer_variants, nagle_router_midpath)
{
	cJSON *r = pd_test_report("testdata/captures/nagle-router/nagle-router.pcap");
	cr_assert_eq(pd_test_count_findings(r, "nagle-delayed-ack"), 1);
	const cJSON *f = pd_test_finding(r, "nagle-delayed-ack", 0);
	PD_TEST_NEAR(pd_test_metric(f, "stalls"), 29, 0);
	PD_TEST_NEAR(pd_test_metric(f, "period_ms"), 53.5, 1);
	PD_TEST_NEAR(pd_test_metric(f, "delayed_ack_ms"), 43.2, 2);
	PD_TEST_NEAR(pd_test_metric(f, "time_lost"), 1.86, 0.1);
	PD_TEST_NEAR(pd_test_first_frame(f), 12, 0);
	PD_TEST_NEAR(pd_test_client_port(f), 51496, 0);
	cr_assert(strstr(pd_test_str(f, "detail"), "captured between the hosts"));
	cJSON_Delete(r);
	r = pd_test_report("testdata/captures/nagle-router/nodelay-router.pcap");
	cr_assert_eq(pd_test_count_findings(r, "nagle-delayed-ack"), 0);
	cr_assert_eq(pd_test_count_findings(r, "initial-window"), 0);
	cr_assert_eq(pd_test_count_at_least(r, "warning"), 0);
	cJSON_Delete(r);
}

/* At the receiver, a resend of a segment the capture saw arrive (and the
 * receiver never ACKed) was dropped inside the receiving host: not a tail
 * loss on the path (zero-window-recv6: frame 8 resent as frame 9). */
Test(transfer_variants, receiver_host_drop_is_not_tail_loss)
{
	cJSON *r = pd_test_report("testdata/captures/zero-window-recv6/zero-window-recv6.pcap");
	cr_assert_eq(pd_test_count_findings(r, "tail-loss"), 0);
	const cJSON *f = pd_test_finding(r, "retransmissions", 0);
	cr_assert_not_null(f);
	PD_TEST_NEAR(pd_test_metric(f, "retransmitted_segments"), 3, 0);
	PD_TEST_NEAR(pd_test_metric(f, "receiver_host_drops"), 1, 0);
	PD_TEST_NEAR(pd_test_metric(f, "tail_loss_probes"), 0, 0);
	cr_assert_str_eq(pd_test_str(f, "severity"), "info");
	cr_assert(strstr(pd_test_str(f, "detail"), "the receiving host dropped them"));
	cJSON_Delete(r);
}

/* initial-window still fires on a real small initcwnd (the request-chain
 * fix must not hide it), and not on the default 10. */
Test(transfer_variants, initial_window_small_initcwnd)
{
	cJSON *r = pd_test_report("testdata/captures/initcwnd-small/initcwnd3.pcap");
	cr_assert_eq(pd_test_count_findings(r, "initial-window"), 1);
	const cJSON *f = pd_test_finding(r, "initial-window", 0);
	PD_TEST_NEAR(pd_test_metric(f, "initial_flight_bytes"), 4344, 0);
	PD_TEST_NEAR(pd_test_metric(f, "initial_flight_segments"), 3, 0.01);
	PD_TEST_NEAR(pd_test_first_frame(f), 6, 0);
	PD_TEST_NEAR(pd_test_client_port(f), 49310, 0);
	cr_assert_str_eq(pd_test_setting(f, 0), "route initcwnd");
	cJSON_Delete(r);
	r = pd_test_report("testdata/captures/initcwnd-small/initcwnd10.pcap");
	cr_assert_eq(pd_test_count_findings(r, "initial-window"), 0);
	cr_assert_eq(pd_test_count_at_least(r, "warning"), 0);
	cJSON_Delete(r);
}

/* A 40-byte write, a pause of 1.25 RTT, then bulk data under the default
 * initcwnd (a real kernel capture): the first flight is one short segment
 * because the application paused, not because of the congestion window. */
Test(transfer_variants, initial_window_not_an_application_pause)
{
	cJSON *r = pd_test_report("testdata/captures/initcwnd-small/preamble-pause.pcap");
	cr_assert_eq(pd_test_count_findings(r, "initial-window"), 0);
	cr_assert_eq(pd_test_count_at_least(r, "warning"), 0);
	cJSON_Delete(r);
}

/* nDPI's IEC104 capture: a small segment held until the peer's ACK, but the
 * ACK comes one 198 ms round trip later, not a delayed-ACK timer later:
 * not the Nagle + delayed ACK signature. */
Test(transfer_variants, round_trip_is_not_a_delayed_ack)
{
	char *path = pd_test_shared("traces/public/nDPI/IEC104.pcap");
	if (!g_file_test(path, G_FILE_TEST_EXISTS)) {
		g_free(path);
		cr_skip_test("public captures not present");
	}
	cJSON *r = pd_test_json_abs(path, NULL);
	cr_assert_not_null(r);
	cr_expect_eq(pd_test_count_findings(r, "nagle-delayed-ack"), 0);
	cJSON_Delete(r);
	g_free(path);
}


/* suricata-verify's http-mime-truncated_input.pcap: client 1.8.31.101:49160
 * advertises a zero window 5 times (frames 398, 405, 998, 1097, 2325) and
 * reopens it within 0.2-4.5 ms each time: 6 ms of 4.5 s (0.13 %). A note,
 * not a warning. mime-stream-depth_input.pcap, from the same suite: 15 zero
 * windows, 0.554 s of stall (20 % of the transfer): still a warning. */
Test(transfer_variants, zero_window_of_milliseconds_is_a_note)
{
	cJSON *r = pd_test_public("traces/public/suricata-verify/http-mime-truncated_input.pcap");
	if (!r)
		cr_skip_test("public captures not present");
	const cJSON *f = pd_test_finding(r, "zero-window", 0);
	cr_assert_not_null(f);
	PD_TEST_NEAR(pd_test_metric(f, "zero_window_events"), 5, 0);
	cr_assert(pd_test_metric(f, "zero_window_stall") < 0.01);
	cr_assert_str_eq(pd_test_str(f, "severity"), "info");
	cJSON_Delete(r);

	r = pd_test_public("traces/public/suricata-verify/mime-stream-depth_input.pcap");
	cr_assert_not_null(r);
	f = pd_test_finding(r, "zero-window", 0);
	cr_assert_not_null(f);
	PD_TEST_NEAR(pd_test_metric(f, "zero_window_events"), 15, 0);
	PD_TEST_NEAR(pd_test_metric(f, "zero_window_stall"), 0.554, 0.001);
	cr_assert_str_eq(pd_test_str(f, "severity"), "warning");
	cJSON_Delete(r);
}

/* chrissanders' tcp_zerowindowdead.pcapng: the client's window is 0 in
 * every ACK (frames 2, 4, 6, 8), the server probes at frames 3, 5, 7 and
 * the capture ends at frame 8 with the window still 0. The stall runs to
 * the end: frame 8 is not where the window opened. */
Test(transfer_variants, zero_window_that_never_reopens)
{
	cJSON *r = pd_test_public("traces/public/chrissanders-packets/tcp_zerowindowdead.pcapng");
	if (!r)
		cr_skip_test("public captures not present");
	const cJSON *f = pd_test_finding(r, "zero-window", 0);
	cr_assert_not_null(f);
	cr_assert_str_eq(pd_test_str(f, "severity"), "warning");
	PD_TEST_NEAR(pd_test_metric(f, "longest_stall"), 23.732, 0.001);
	PD_TEST_NEAR(pd_test_metric(f, "window_probes"), 3, 0);
	cr_assert(strstr(pd_test_str(f, "detail"), "never reopened"), "%s", pd_test_str(f, "detail"));
	cr_assert_null(strstr(pd_test_str(f, "detail"), "ending at frame"));
	const cJSON *ex = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(f, "evidence"), "examples");
	const cJSON *e;
	bool still = false;
	cJSON_ArrayForEach(e, ex)
	{
		cr_assert_null(strstr(pd_test_str(e, "what"), "opened"), "frame %.0f", pd_test_num(e, "frame"));
		if (pd_test_num(e, "frame") == 8 && strstr(pd_test_str(e, "what"), "still zero"))
			still = true;
	}
	cr_assert(still);
	cJSON_Delete(r);
}

/* ------------------------------------------- pdvD: local-drop, tiny-writes */

/* local-drop: the sender's own tbf (20 Mbit, limit 6000) dropped 552
 * packets; tcpdump's tap sits after the qdisc, so on the sender's capture
 * 61 retransmissions fill gaps whose first copy never appeared. The same
 * run at the receiver is ordinary upstream loss, not local-drop. The first
 * flight (4 of the 10 initial-window packets got through the qdisc) is not
 * an initcwnd problem. */
Test(transfer_variants, local_drop_sender_qdisc)
{
	cJSON *r = pd_test_report("testdata/captures/local-drop/local-drop-sender.pcap");
	cr_assert_eq(pd_test_count_findings(r, "local-drop"), 1);
	const cJSON *f = pd_test_finding(r, "local-drop", 0);
	cr_assert_str_eq(pd_test_str(f, "severity"), "warning");
	/* README: 63 resends of data whose first copy never passed the capture
	 * point (frames 263-264 too: their IPv4 IDs are above the one of frame 254,
	 * which jumped past them, so they were sent after it) */
	PD_TEST_NEAR(pd_test_metric(f, "unseen_originals"), 63, 0);
	PD_TEST_NEAR(pd_test_first_frame(f), 131, 0);
	PD_TEST_NEAR(pd_test_client_port(f), 49992, 0);
	cr_assert_str_eq(pd_test_setting(f, 0), "qdisc limit");
	/* a full NIC ring drops after the capture tap: it would show the original */
	cr_assert(!has_setting(f, "NIC ring buffers"));
	cr_assert(has_setting(f, "net.core.default_qdisc"));
	cr_assert(has_setting(f, "net.core.netdev_max_backlog"));
	f = pd_test_finding(r, "retransmissions", 0);
	cr_assert_not_null(f);
	PD_TEST_NEAR(pd_test_metric(f, "retransmitted_segments"), 63, 0);
	PD_TEST_NEAR(pd_test_metric(f, "data_segments"), 1087, 0);
	PD_TEST_NEAR(pd_test_metric(f, "original_unseen"), 63, 0);
	PD_TEST_NEAR(pd_test_metric(f, "rto_retransmissions"), 0, 0);
	cr_assert_str_eq(pd_test_setting(f, 0), "qdisc limit");
	cr_assert_eq(pd_test_count_findings(r, "initial-window"), 0);
	cr_assert_eq(pd_test_count_at_least(r, "error"), 0);
	cJSON_Delete(r);

	r = pd_test_report("testdata/captures/local-drop/local-drop-receiver.pcap");
	cr_assert_eq(pd_test_count_findings(r, "local-drop"), 0);
	f = pd_test_finding(r, "retransmissions", 0);
	cr_assert_not_null(f);
	PD_TEST_NEAR(pd_test_metric(f, "retransmitted_segments"), 63, 0);
	PD_TEST_NEAR(pd_test_metric(f, "original_unseen"), 63, 0);
	PD_TEST_NEAR(pd_test_first_frame(f), 140, 0);
	PD_TEST_NEAR(pd_test_client_port(f), 49992, 0);
	cr_assert_str_neq(pd_test_setting(f, 0), "qdisc limit");
	/* at the receiver the cut first flight cannot be told from a small
	 * initcwnd; the finding stays info and names the other cause */
	f = pd_test_finding(r, "initial-window", 0);
	cr_assert_not_null(f);
	cr_assert_str_eq(pd_test_str(f, "severity"), "info");
	cr_assert(strstr(pd_test_str(f, "detail"), "lost data before the capture point"));
	cJSON_Delete(r);

	const char *healthy[] = {"testdata/captures/bulk-healthy/bulk-healthy.pcap",
				 "testdata/captures/bulk6-healthy/bulk6-sender.pcap",
				 "testdata/captures/bulk6-healthy/bulk6-receiver.pcap",
				 "testdata/captures/tso-sender/tso-sender.pcap"};
	for (size_t i = 0; i < sizeof(healthy) / sizeof(healthy[0]); i++) {
		r = pd_test_report(healthy[i]);
		cr_assert_eq(pd_test_count_findings(r, "local-drop"), 0, "%s", healthy[i]);
		cr_assert_eq(pd_test_count_findings(r, "retransmissions"), 0, "%s", healthy[i]);
		cJSON_Delete(r);
	}
}

/* tiny-writes: TCP_NODELAY, 5000 writes of 20 B at RTT ~0.15 ms: 479 of
 * 542 client segments are under MSS/4, back to back. At RTT 2 ms the
 * kernel coalesces after the first 10 (a full initial window of small
 * packets, not a small initcwnd); single-write requests that are each
 * answered (tiny-rpc, reqresp-healthy) have nothing to coalesce. */
Test(transfer_variants, tiny_writes_nodelay_stream)
{
	cJSON *r = pd_test_report("testdata/captures/tiny-writes/tiny-writes.pcap");
	cr_assert_eq(pd_test_count_findings(r, "tiny-writes"), 1);
	const cJSON *f = pd_test_finding(r, "tiny-writes", 0);
	cr_assert_str_eq(pd_test_str(f, "severity"), "info");
	PD_TEST_NEAR(pd_test_metric(f, "tiny_segments"), 479, 0);
	PD_TEST_NEAR(pd_test_metric(f, "data_segments"), 542, 0);
	PD_TEST_NEAR(pd_test_metric(f, "tiny_share"), 0.884, 0.001);
	PD_TEST_NEAR(pd_test_metric(f, "average_payload"), 184.5, 0.1);
	PD_TEST_NEAR(pd_test_first_frame(f), 4, 0);
	PD_TEST_NEAR(pd_test_client_port(f), 57886, 0);
	cr_assert_str_eq(pd_test_setting(f, 0), "writev coalescing");
	cr_assert(has_setting(f, "TCP_CORK"));
	cr_assert(has_setting(f, "MSG_MORE"));
	cr_assert_eq(pd_test_count_at_least(r, "warning"), 0);
	cJSON_Delete(r);

	const char *clean[] = {"testdata/captures/tiny-writes/tiny-writes-rtt2ms.pcap",
			       "testdata/captures/tiny-writes/tiny-rpc.pcap",
			       "testdata/captures/reqresp-healthy/reqresp-healthy.pcap",
			       "testdata/captures/nagle-nodelay/nagle-nodelay.pcap",
			       "testdata/captures/bulk-healthy/bulk-healthy.pcap"};
	for (size_t i = 0; i < sizeof(clean) / sizeof(clean[0]); i++) {
		r = pd_test_report(clean[i]);
		cr_assert_eq(pd_test_count_findings(r, "tiny-writes"), 0, "%s", clean[i]);
		cr_assert_eq(pd_test_count_findings(r, "initial-window"), 0, "%s", clean[i]);
		cr_assert_eq(pd_test_count_at_least(r, "warning"), 0, "%s", clean[i]);
		cJSON_Delete(r);
	}
}

/* pdvE: tcp_sack=0 on both ends, ~3% random drops, 10 ms RTT. Without SACK the
 * sender waits for the timer after a second loss in a window and then resends
 * everything after the hole (go-back-N): at the receiver those copies are
 * duplicates of data it had, which is the price of SACK off, not an early
 * timer; and a window full of data above a hole is loss, not the window. */
Test(transfer_variants, nosack_loss_go_back_n)
{
	const char *both[] = {"testdata/captures/nosack-loss/nosack-sender.pcap",
			      "testdata/captures/nosack-loss/nosack-receiver.pcap"};
	for (int i = 0; i < 2; i++) {
		cJSON *r = pd_test_report(both[i]);
		cr_assert_eq(pd_test_count_findings(r, "retransmissions"), 1, "%s", both[i]);
		const cJSON *f = pd_test_finding(r, "retransmissions", 0);
		cr_assert_str_eq(pd_test_setting(f, 0), "net.ipv4.tcp_sack", "%s", both[i]);
		cr_assert(pd_test_metric(f, "fast_retransmissions") >= 3 && pd_test_metric(f, "fast_retransmissions") <= 6, "%s fast %g",
			  both[i], pd_test_metric(f, "fast_retransmissions"));
		PD_TEST_NEAR(pd_test_metric(f, "rto_retransmissions"), 3, 0);
		cr_assert_eq(pd_test_count_findings(r, "rto-timeouts"), 1, "%s", both[i]);
		PD_TEST_NEAR(pd_test_metric(pd_test_finding(r, "rto-timeouts", 0), "rto_count"), 3, 0);
		cr_assert_eq(pd_test_count_findings(r, "window-limited"), 0, "%s", both[i]);
		cr_assert_eq(pd_test_count_findings(r, "receive-window-fixed"), 0, "%s", both[i]);
		cr_assert_eq(pd_test_count_findings(r, "local-drop"), 0, "%s", both[i]);
		if (i == 1) {
			cr_assert_eq(pd_test_count_findings(r, "spurious-retransmissions"), 1);
			const cJSON *sp = pd_test_finding(r, "spurious-retransmissions", 0);
			cr_assert_str_eq(pd_test_str(sp, "severity"), "info");
			PD_TEST_NEAR(pd_test_metric(sp, "spurious"), 243, 0);
			PD_TEST_NEAR(pd_test_metric(sp, "go_back_n_no_sack"), 243, 0);
			cr_assert_str_eq(pd_test_setting(sp, 0), "net.ipv4.tcp_sack");
			cr_assert(strstr(pd_test_str(sp, "detail"), "243 of them were resent after a retransmission timeout with SACK off"));
		}
		cJSON_Delete(r);
	}
}

/* pdvE: tcp_window_scaling=0 on both ends, RTT 30 ms, captured at the receiver. */
Test(transfer_variants, wscale_off_receiver_30ms)
{
	cJSON *r = pd_test_report("testdata/captures/wscale-off-recv30/nows-receiver.pcap");
	cr_assert_eq(pd_test_count_findings(r, "window-scaling-disabled"), 1);
	const cJSON *f = pd_test_finding(r, "window-scaling-disabled", 0);
	cr_assert_str_eq(pd_test_str(f, "severity"), "warning");
	cr_assert_str_eq(pd_test_setting(f, 0), "net.ipv4.tcp_window_scaling");
	PD_TEST_NEAR(pd_test_metric(f, "max_window"), 65535, 0);
	PD_TEST_NEAR(pd_test_metric(f, "rtt_ms"), 30.5, 0.5);
	cr_assert(pd_test_metric(f, "achieved_vs_ceiling") >= 0.8);
	cr_assert_eq(pd_test_count_findings(r, "syncookies"), 0);
	cr_assert_eq(pd_test_count_findings(r, "retransmissions"), 0);
	cr_assert(strstr(pd_test_str(f, "detail"), "captured at the receiver, whose ACKs leave at once"));
	cr_assert(strstr(pd_test_str(f, "detail"), "the client's SYN, sent by the data receiver, had no window-scale option"));
	cJSON_Delete(r);
}

/* pdvE: tcp_ecn=1 on both ends, reno, the router marks 10 data packets CE:
 * ECE (80 ACKs) and CWR (9) flags, no loss: nothing at warning or above. */
Test(transfer_variants, ecn_ce_marks_no_warning)
{
	const char *both[] = {"testdata/captures/ecn-ce/ecn-ce-sender.pcap", "testdata/captures/ecn-ce/ecn-ce-receiver.pcap"};
	for (int i = 0; i < 2; i++) {
		cJSON *r = pd_test_report(both[i]);
		cr_assert_eq(pd_test_count_at_least(r, "warning"), 0, "%s", both[i]);
		cr_assert_eq(pd_test_count_findings(r, "retransmissions"), 0, "%s", both[i]);
		cr_assert_eq(pd_test_count_findings(r, "spurious-retransmissions"), 0, "%s", both[i]);
		cr_assert_eq(pd_test_count_findings(r, "syn-retransmit"), 0, "%s", both[i]);
		cJSON_Delete(r);
	}
}

/* ------------------------------------------- issue 24: which buffer limits */

static bool names_setting(const cJSON *f, const char *name)
{
	const cJSON *s;
	cJSON_ArrayForEach(s, cJSON_GetObjectItemCaseSensitive(f, "settings"))
	if (!strcmp(pd_test_str(s, "name"), name))
		return true;
	return false;
}

/* A small send buffer (server SO_SNDBUF 16384, or its tcp_wmem max 32768;
 * sk_sndbuf 32768 either way), RTT 40 ms: 64 KiB blocks one per RTT, each
 * following the ACK of the last one at once, while the window grew to
 * 394240 (SO_SNDBUF run) or 1797120 (tcp_wmem run). READMEs: flight
 * exactly 65536 B, resumes 0.03-0.39 ms after the ACK, 12 Mbit/s. */
Test(transfer_buffers, send_buffer_pins_the_flight)
{
	const struct {
		const char *cap;
		double max_window;
		bool at_sender;
	} caps[] = {
		{"testdata/captures/sndbuf-small-server/sndbuf-small-server.pcap", 394240, true},
		{"testdata/captures/sndbuf-small-client/sndbuf-small-client.pcap", 394240, false},
		{"testdata/captures/wmem-small-server/wmem-small-server.pcap", 1797120, true},
		{"testdata/captures/wmem-small-client/wmem-small-client.pcap", 1797120, false},
	};
	for (size_t i = 0; i < G_N_ELEMENTS(caps); i++) {
		cJSON *r = pd_test_report(caps[i].cap);
		cr_assert_eq(pd_test_count_findings(r, "sender-limited"), 1, "%s", caps[i].cap);
		const cJSON *f = pd_test_finding(r, "sender-limited", 0);
		cr_assert_str_eq(pd_test_str(f, "severity"), "warning", "%s", caps[i].cap);
		cr_assert_str_eq(pd_test_setting(f, 0), "SO_SNDBUF", "%s", caps[i].cap);
		cr_assert(names_setting(f, "net.ipv4.tcp_wmem") && names_setting(f, "TCP_NOTSENT_LOWAT"), "%s",
			  caps[i].cap);
		PD_TEST_NEAR(pd_test_metric(f, "pinned_flight"), 65536, 0);
		cr_assert(pd_test_metric(f, "pinned_rounds") >= 10, "%s", caps[i].cap);
		cr_assert(pd_test_metric(f, "window_room") >= 4 * 65536, "%s", caps[i].cap);
		PD_TEST_NEAR(pd_test_metric(f, "max_window"), caps[i].max_window, 0);
		PD_TEST_NEAR(pd_test_metric(f, "prompt_resumes"), pd_test_metric(f, "resumes"), 0);
		cr_assert(pd_test_metric(f, "longest_prompt_resume_ms") <= 0.4, "%s", caps[i].cap);
		PD_TEST_NEAR(pd_test_metric(f, "rtt_ms"), 40.8, 0.3);
		PD_TEST_NEAR(pd_test_metric(f, "pinned_rate") * 8 / 1e6, 12.8, 0.3);
		cr_assert(strstr(pd_test_str(f, "detail"), caps[i].at_sender ? "of the ACK that freed space"
								       : "one RTT after the receiver's ACK"));
		cr_assert_eq(pd_test_count_findings(r, "window-limited"), 0, "%s", caps[i].cap);
		cr_assert_eq(pd_test_count_findings(r, "receive-window-fixed"), 0, "%s", caps[i].cap);
		cr_assert_eq(pd_test_count_at_least(r, "warning"), 1, "%s", caps[i].cap);
		cJSON_Delete(r);
	}
}

/* Controls: a sender that sleeps 100 ms between 16 KiB writes (it resumes
 * 59 ms after the ACK that drained its flight) and a bulk transfer still in
 * slow start, both at RTT 40 ms, and autotuning to 2.4 MB at RTT 100 ms:
 * no buffer is blamed. */
Test(transfer_buffers, application_pauses_and_slow_start_blame_no_buffer)
{
	const char *caps[] = {"testdata/captures/app-limited-server/app-limited-server.pcap",
			      "testdata/captures/app-limited-client/app-limited-client.pcap",
			      "testdata/captures/bulk-rtt40-server/bulk-rtt40-server.pcap",
			      "testdata/captures/bulk-rtt40-client/bulk-rtt40-client.pcap",
			      "testdata/captures/rmem-default-server/rmem-default-server.pcap",
			      "testdata/captures/rmem-default-client/rmem-default-client.pcap"};
	for (size_t i = 0; i < G_N_ELEMENTS(caps); i++) {
		cJSON *r = pd_test_report(caps[i]);
		cr_assert_eq(pd_test_count_findings(r, "sender-limited"), 0, "%s", caps[i]);
		cr_assert_eq(pd_test_count_findings(r, "window-limited"), 0, "%s", caps[i]);
		cr_assert_eq(pd_test_count_findings(r, "receive-window-fixed"), 0, "%s", caps[i]);
		cr_assert_eq(pd_test_count_findings(r, "queueing-delay"), 0, "%s", caps[i]);
		cr_assert_eq(pd_test_count_at_least(r, "warning"), 0, "%s", caps[i]);
		cJSON_Delete(r);
	}
}

/* tcp_rmem max 262144 on the client: autotuning grew the window to 162432
 * and stopped (RTT 100.8 ms; from 0.4 s on the flight is the window every
 * RTT): tcp_rmem first, and the window did grow, so not "fixed". */
Test(transfer_buffers, tcp_rmem_max_plateau)
{
	const char *caps[] = {"testdata/captures/rmem-small-server/rmem-small-server.pcap",
			      "testdata/captures/rmem-small-client/rmem-small-client.pcap"};
	for (size_t i = 0; i < G_N_ELEMENTS(caps); i++) {
		cJSON *r = pd_test_report(caps[i]);
		cr_assert_eq(pd_test_count_findings(r, "window-limited"), 1, "%s", caps[i]);
		const cJSON *f = pd_test_finding(r, "window-limited", 0);
		cr_assert_str_eq(pd_test_setting(f, 0), "net.ipv4.tcp_rmem", "%s", caps[i]);
		PD_TEST_NEAR(pd_test_metric(f, "max_window"), 162432, 0);
		PD_TEST_NEAR(pd_test_metric(f, "rtt_ms"), 100.8, 1);
		cr_assert(pd_test_metric(f, "window_limited_rounds") >= 6, "%s", caps[i]);
		cr_assert(strstr(pd_test_str(f, "detail"), "to 162432 bytes, then stopped"), "%s", caps[i]);
		cr_assert_eq(pd_test_count_findings(r, "receive-window-fixed"), 0, "%s", caps[i]);
		cr_assert_eq(pd_test_count_findings(r, "sender-limited"), 0, "%s", caps[i]);
		cJSON_Delete(r);
	}
}

/* SO_RCVBUF 65536 before connect (window scale 1, window 80480 all along)
 * and an SO_RCVBUF request capped by the default rmem_max 212992 (scale 2,
 * window 262140 = 65535 << 2, window-limited only from 0.6 to 1.0 s). */
Test(transfer_buffers, fixed_receive_buffers)
{
	const struct {
		const char *cap, *first;
		double window;
	} caps[] = {
		{"testdata/captures/rcvbuf-fixed-server/rcvbuf-fixed-server.pcap", "SO_RCVBUF", 80480},
		{"testdata/captures/rcvbuf-fixed-client/rcvbuf-fixed-client.pcap", "SO_RCVBUF", 80480},
		{"testdata/captures/rmemmax-cap-server/rmemmax-cap-server.pcap", "net.core.rmem_max", 262140},
		{"testdata/captures/rmemmax-cap-client/rmemmax-cap-client.pcap", "net.core.rmem_max", 262140},
	};
	for (size_t i = 0; i < G_N_ELEMENTS(caps); i++) {
		cJSON *r = pd_test_report(caps[i].cap);
		cr_assert_eq(pd_test_count_findings(r, "window-limited"), 1, "%s", caps[i].cap);
		const cJSON *f = pd_test_finding(r, "window-limited", 0);
		cr_assert_str_eq(pd_test_setting(f, 0), caps[i].first, "%s", caps[i].cap);
		PD_TEST_NEAR(pd_test_metric(f, "max_window"), caps[i].window, 0);
		PD_TEST_NEAR(pd_test_metric(f, "rtt_ms"), 100.8, 1);
		/* the plateau: one whole window per RTT, 4 of 9 RTTs in the rmem_max run */
		cr_assert(pd_test_metric(f, "window_limited_rounds") >= 4, "%s", caps[i].cap);
		cr_assert(strstr(pd_test_str(f, "detail"), "The window never grew"), "%s", caps[i].cap);
		if (pd_test_count_findings(r, "receive-window-fixed"))
			cr_assert_str_eq(pd_test_setting(pd_test_finding(r, "receive-window-fixed", 0), 0), caps[i].first);
		cr_assert_eq(pd_test_count_findings(r, "sender-limited"), 0, "%s", caps[i].cap);
		cJSON_Delete(r);
	}
}

/* Issue 19 rule 3: the capture starts after the handshake, the receiver's
 * window scale (11) is unknown: raw windows 34-375 are no verdict; what is
 * known is said instead (at the sender 259304 B in flight against a raw
 * window of 375 and less prove a shift of at least 11). */
Test(transfer_buffers, unknown_window_scale_draws_no_verdict)
{
	const struct {
		const char *cap;
		double shift;
	} caps[] = {
		{"testdata/captures/midstream-server/midstream-server.pcap", 11},
		{"testdata/captures/midstream-client/midstream-client.pcap", 1},
	};
	for (size_t i = 0; i < G_N_ELEMENTS(caps); i++) {
		cJSON *r = pd_test_report(caps[i].cap);
		cr_assert_eq(pd_test_count_findings(r, "window-limited"), 0, "%s", caps[i].cap);
		cr_assert_eq(pd_test_count_findings(r, "receive-window-fixed"), 0, "%s", caps[i].cap);
		cr_assert_eq(pd_test_count_findings(r, "window-scaling-disabled"), 0, "%s", caps[i].cap);
		cr_assert_eq(pd_test_count_findings(r, "zero-window"), 0, "%s", caps[i].cap);
		cr_assert_eq(pd_test_count_at_least(r, "warning"), 0, "%s", caps[i].cap);
		cr_assert_eq(pd_test_count_findings(r, "window-scale-unknown"), 1, "%s", caps[i].cap);
		const cJSON *f = pd_test_finding(r, "window-scale-unknown", 0);
		cr_assert_str_eq(pd_test_str(f, "severity"), "info");
		PD_TEST_NEAR(pd_test_metric(f, "raw_window_min"), 34, 0);
		PD_TEST_NEAR(pd_test_metric(f, "raw_window_max"), 375, 0);
		cr_assert(pd_test_metric(f, "min_window_shift") >= caps[i].shift, "%s", caps[i].cap);
		cr_assert(pd_test_metric(f, "min_window_shift") <= 11, "%s", caps[i].cap);
		cJSON_Delete(r);
	}
	/* the full twins, handshake included, stay healthy */
	const char *full[] = {"testdata/captures/midstream-full-server/midstream-full-server.pcap",
			      "testdata/captures/midstream-full-client/midstream-full-client.pcap"};
	for (size_t i = 0; i < G_N_ELEMENTS(full); i++) {
		cJSON *r = pd_test_report(full[i]);
		cr_assert_eq(pd_test_count_findings(r, "window-scale-unknown"), 0, "%s", full[i]);
		cr_assert_eq(pd_test_count_at_least(r, "warning"), 0, "%s", full[i]);
		cJSON_Delete(r);
	}
}

/* Zeek's 206_example_b.pcap: client 192.168.72.14:3254 advertises a zero
 * window twice (0.075 s in all, frames 166-216 and 1047), the server
 * resends 108 segments across the flow and from frame 1278 times out 12
 * times into the silent client (65 s). The brief zero windows explain none
 * of that: it is its own loss problem, and the zero window stays a note. */
Test(transfer_variants, brief_zero_window_is_not_the_cause_of_later_loss)
{
	cJSON *r = pd_test_public("traces/public/zeek/206_example_b.pcap");
	if (!r)
		cr_skip_test("public captures not present");
	const cJSON *zw = pd_test_finding(r, "zero-window", 0);
	cr_assert_not_null(zw);
	cr_assert_str_eq(pd_test_str(zw, "severity"), "info");
	cr_assert(pd_test_num(zw, "impact_s") < 0.1);
	const cJSON *rto = pd_test_finding(r, "rto-timeouts", 0);
	cr_assert_not_null(rto);
	cr_assert(cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(rto, "explained_by")));
	cr_assert_str_eq(pd_test_str(rto, "severity"), "error");
	const cJSON *rx = pd_test_finding(r, "retransmissions", 0);
	cr_assert_not_null(rx);
	cr_assert_str_eq(pd_test_str(rx, "explained_by"), "rto-timeouts");
	cJSON_Delete(r);
}

/* nDPI's ipp.pcap: the printer 10.10.10.251:631 (window at most 5840 B)
 * withholds its ACK of frame 231's 168 B; the client resends them at 232;
 * the ACK at 233 acknowledges them with window 0. The resend is the closed
 * window's evidence, and so is the window-limited transfer: one problem. */
Test(transfer_variants, small_receiver_is_one_problem)
{
	cJSON *r = pd_test_public("traces/public/nDPI/ipp.pcap");
	if (!r)
		cr_skip_test("public captures not present");
	const char *ids[] = {"retransmissions", "rto-timeouts", "window-limited"};
	for (size_t i = 0; i < G_N_ELEMENTS(ids); i++) {
		const cJSON *f = pd_test_finding(r, ids[i], 0);
		cr_assert_not_null(f, "%s", ids[i]);
		cr_assert_str_eq(pd_test_str(f, "explained_by"), "zero-window", "%s", ids[i]);
	}
	cJSON_Delete(r);
}

/* nDPI's coap_mqtt.pcap: four MQTT connections from 192.168.56.1 to
 * 192.168.56.101:17501 without handshakes in the file, one first seen
 * from the server's side (17501 -> 53524). The ephemeral port names the
 * client, so the four Nagle stalls are one problem at one server. */
Test(transfer_variants, midstream_roles_from_the_ephemeral_port)
{
	cJSON *r = pd_test_public("traces/public/nDPI/coap_mqtt.pcap");
	if (!r)
		cr_skip_test("public captures not present");
	cr_assert_eq(pd_test_count_findings(r, "nagle-delayed-ack"), 1);
	cr_assert_eq(pd_test_count_parts(r, "nagle-delayed-ack"), 4);
	cJSON_Delete(r);
}
