/* Issue 19 (rules 1, 2, 5, 6, 7, 9) and advice audit row 23: the loss,
 * PMTU, capture and fragment detectors on the regression captures made for
 * them. Figures come from each capture's README (tshark-checked facts). */
#include <criterion/criterion.h>
#include <glib.h> /* testutil.h needs GPtrArray */
#include <math.h>
#include <string.h>

#include "testutil.h"

static bool has_metric(const cJSON *f, const char *key)
{
	return cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(f, "metrics"), key) != NULL;
}

static const char *loss_ids[] = {"retransmissions", "rto-timeouts", "local-drop", "tail-loss",
				 "spurious-retransmissions"};

static void no_loss(const cJSON *r, const char *what)
{
	for (size_t i = 0; i < sizeof(loss_ids) / sizeof(loss_ids[0]); i++)
		cr_expect_eq(pd_test_count_findings(r, loss_ids[i]), 0, "%s: %s reported", what, loss_ids[i]);
}

/* ------------------------------------------------------ rule 1: reordering */

Test(loss, reordering_is_not_loss)
{
	/* README: 7 times one segment overtakes the 12 before it (IPv4 IDs of the
	 * 12 below the overtaker's), twice right after ~1 s of silence; every
	 * byte crosses once. Seen at the receiver and next to the sender. */
	const char *caps[] = {"testdata/captures/reorder-client/reorder-client.pcap",
			      "testdata/captures/reorder-router/reorder-router.pcap",
			      "testdata/captures/reorder-healthy-client/reorder-healthy-client.pcap",
			      "testdata/captures/reorder-healthy-router/reorder-healthy-router.pcap"};
	for (size_t i = 0; i < sizeof(caps) / sizeof(caps[0]); i++) {
		cJSON *r = pd_test_report(caps[i]);
		no_loss(r, caps[i]);
		cJSON_Delete(r);
	}
}

Test(loss, first_copy_behind_its_resend_is_reordering)
{
	/* reorder-late README: 4 segments held 70 ms on a 40 ms path; the
	 * sender resends each (4 fast retransmits, all reported back by
	 * D-SACK) and 3 first copies arrive after their resend with lower IPv4
	 * IDs. Seen at the receiver and at a router after the hold. */
	const char *caps[] = {"testdata/captures/reorder-late-client/reorder-late-client.pcap",
			      "testdata/captures/reorder-late-router/reorder-late-router.pcap"};
	for (size_t i = 0; i < 2; i++) {
		cJSON *r = pd_test_report(caps[i]);
		for (size_t k = 0; k < 4; k++)
			cr_expect_eq(pd_test_count_findings(r, loss_ids[k]), 0, "%s: %s reported", caps[i], loss_ids[k]);
		const cJSON *f = pd_test_finding(r, "spurious-retransmissions", 0);
		cr_assert_not_null(f, "%s", caps[i]);
		PD_TEST_NEAR(pd_test_metric(f, "spurious"), 4, 0);
		PD_TEST_NEAR(pd_test_metric(f, "dsack"), 4, 0);
		cr_expect(strstr(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(f, "detail")),
				 "4 of 10.202.149.2:5191's 4 retransmissions") != NULL,
			  "%s", caps[i]);
		cJSON_Delete(r);
	}
}

Test(loss, sack_off_loss_with_old_tsecr_is_a_timeout)
{
	/* lost-nosack-stream README: two messages lost after the capture
	 * point with SACK off, each resent 228 ms after it went out and after
	 * 2 duplicate ACKs (the kernel counts 2 timeouts, no fast retransmit);
	 * the duplicate ACKs echo an older TSecr, which is not PAWS. */
	const char *caps[] = {"testdata/captures/lost-nosack-stream-client/lost-nosack-stream-client.pcap",
			      "testdata/captures/lost-nosack-stream-server/lost-nosack-stream-server.pcap"};
	for (size_t i = 0; i < 2; i++) {
		cJSON *r = pd_test_report(caps[i]);
		cr_expect_eq(pd_test_count_findings(r, "paws-rejected-data"), 0, "%s", caps[i]);
		const cJSON *f = pd_test_finding(r, "rto-timeouts", 0);
		cr_assert_not_null(f, "%s", caps[i]);
		/* the loss is the problem, the timeouts what recovering cost */
		cr_expect_str_eq(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(f, "explained_by")),
				 "retransmissions");
		PD_TEST_NEAR(pd_test_metric(f, "rto_count"), 2, 0);
		PD_TEST_NEAR(pd_test_first_frame(f), 27, 0);
		f = pd_test_finding(r, "retransmissions", 0);
		cr_assert_not_null(f);
		cr_expect_str_eq(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(f, "severity")), "warning");
		PD_TEST_NEAR(pd_test_metric(f, "fast_retransmissions"), 0, 0);
		cJSON_Delete(r);
	}
}

Test(loss, receiver_loss_is_still_loss)
{
	/* the same hole-filling logic on real loss: 39 originals never reached
	 * the receiver, their resends carry IPv4 IDs above the segment that
	 * opened each hole (random-loss README) */
	cJSON *r = pd_test_report("testdata/captures/random-loss/random-loss-client.pcap");
	const cJSON *f = pd_test_finding(r, "retransmissions", 0);
	cr_assert_not_null(f);
	PD_TEST_NEAR(pd_test_metric(f, "retransmitted_segments"), 39, 0);
	PD_TEST_NEAR(pd_test_metric(f, "original_unseen"), 39, 0);
	PD_TEST_NEAR(pd_test_metric(f, "reordered"), 0, 0);
	cJSON_Delete(r);
}

/* ------------------------------------------------- rule 2: reply after idle */

Test(loss, reply_after_idle_is_not_a_timeout)
{
	/* README: the reply's first segment (frame 43) comes one RTT after the
	 * request at the next new byte after 4 s idle; the 6 segments it jumps
	 * over follow 23-117 us later with lower IPv4 IDs. Server side: the
	 * 16000-B request after 4 s idle, filled by full-size segments. */
	cJSON *r = pd_test_report("testdata/captures/idle-reply-client/idle-reply-client.pcap");
	no_loss(r, "idle-reply-client");
	cJSON_Delete(r);
	r = pd_test_report("testdata/captures/idle-reply-server/idle-reply-server.pcap");
	no_loss(r, "idle-reply-server");
	cr_assert_eq(pd_test_count_findings(r, "pmtu-blackhole"), 0);
	cJSON_Delete(r);
}

Test(loss, timeout_seen_from_the_receiver_still_counts)
{
	/* rto-outage README: 505.6 ms of silence, frame 314 is the timer's
	 * resend, frame 316 (+20 ms, one RTT: F-RTO) jumps, resends fill */
	cJSON *r = pd_test_report("testdata/captures/rto-outage/rto-outage-client.pcap");
	const cJSON *f = pd_test_finding(r, "rto-timeouts", 0);
	cr_assert_not_null(f);
	PD_TEST_NEAR(pd_test_metric(f, "rto_count"), 1, 0);
	PD_TEST_NEAR(pd_test_first_frame(f), 314, 0);
	cJSON_Delete(r);
}

/* --------------------------------------------- rule 5: PMTU black hole */

Test(loss, small_mss_sender_loss_is_not_a_black_hole)
{
	/* README: server MSS 1200 (1188-B segments always), client MSS 1460;
	 * 22 of 510 data segments resent by SACK recovery at their usual size */
	cJSON *r = pd_test_report("testdata/captures/pmtu-false-loss/pmtu-false-loss.pcap");
	cr_assert_eq(pd_test_count_findings(r, "pmtu-blackhole"), 0);
	const cJSON *f = pd_test_finding(r, "retransmissions", 0);
	cr_assert_not_null(f);
	cr_assert_str_eq(pd_test_str(f, "severity"), "warning");
	PD_TEST_NEAR(pd_test_metric(f, "retransmitted_segments"), 22, 0);
	PD_TEST_NEAR(pd_test_metric(f, "data_segments"), 510, 0);
	PD_TEST_NEAR(pd_test_metric(f, "fast_retransmissions"), 22, 0);
	cr_assert_eq(pd_test_count_findings(r, "rto-timeouts"), 0);
	cJSON_Delete(r);

	/* the sender's view: 24 of 534 resent, all by SACK recovery */
	r = pd_test_report("testdata/captures/pmtu-false-loss-sender/pmtu-false-loss-sender.pcap");
	cr_assert_eq(pd_test_count_findings(r, "pmtu-blackhole"), 0);
	f = pd_test_finding(r, "retransmissions", 0);
	cr_assert_not_null(f);
	PD_TEST_NEAR(pd_test_metric(f, "retransmitted_segments"), 24, 0);
	PD_TEST_NEAR(pd_test_metric(f, "data_segments"), 534, 0);
	PD_TEST_NEAR(pd_test_metric(f, "fast_retransmissions"), 24, 0);
	cJSON_Delete(r);

	r = pd_test_report("testdata/captures/pmtu-false-ok/pmtu-false-ok.pcap");
	cr_assert_eq(pd_test_count_at_least(r, "warning"), 0);
	cJSON_Delete(r);
}

/* --------------------------------------------- rule 6: spurious timeouts */

Test(loss, spurious_timeout_is_not_lost_data)
{
	/* README: frame 325 resends seq 156385 464.2 ms after the last ACK; the
	 * held ACKs arrive 57.1 ms later (frame 326, 0.7 RTT); D-SACK frame 479 */
	cJSON *r = pd_test_report("testdata/captures/spurious-rto-server/spurious-rto-server.pcap");
	const cJSON *f = pd_test_finding(r, "rto-timeouts", 0);
	cr_assert_not_null(f);
	cr_assert_str_eq(pd_test_str(f, "severity"), "info");
	PD_TEST_NEAR(pd_test_metric(f, "rto_count"), 1, 0);
	PD_TEST_NEAR(pd_test_metric(f, "spurious_timeouts"), 1, 0);
	PD_TEST_NEAR(pd_test_metric(f, "stall_time"), 0.464, 0.002);
	PD_TEST_NEAR(pd_test_first_frame(f), 325, 0);
	f = pd_test_finding(r, "spurious-retransmissions", 0);
	cr_assert_not_null(f);
	cr_assert(pd_test_has_example(f, 326));
	cr_assert(pd_test_has_example(f, 479));
	cr_assert_eq(pd_test_count_findings(r, "retransmissions"), 0);
	cr_assert_eq(pd_test_count_findings(r, "tail-loss"), 0);
	cJSON_Delete(r);

	/* the receiver's side: the resend (frame 433) and its D-SACK (434) */
	r = pd_test_report("testdata/captures/spurious-rto-client/spurious-rto-client.pcap");
	f = pd_test_finding(r, "spurious-retransmissions", 0);
	cr_assert_not_null(f);
	cr_assert(pd_test_has_example(f, 434));
	cr_assert_eq(pd_test_count_findings(r, "retransmissions"), 0);
	cr_assert_eq(pd_test_count_at_least(r, "warning"), 0);
	cJSON_Delete(r);
}

Test(loss, timeout_answered_by_a_slow_receiver_is_not_spurious)
{
	/* at a receiver-side capture the ACK follows the resend at once (zeek's
	 * reassembly.pcap among the public traces, a server slow to answer the
	 * SYN); that must not make it spurious. rto-outage seen at the
	 * receiver: 1 real timeout, warning. */
	cJSON *r = pd_test_report("testdata/captures/rto-outage/rto-outage-client.pcap");
	const cJSON *f = pd_test_finding(r, "rto-timeouts", 0);
	cr_assert_not_null(f);
	cr_assert(!has_metric(f, "spurious_timeouts"));
	/* the timeout was real: it counts as a problem, its own or as the
	 * evidence of the loss it recovered */
	const cJSON *by = cJSON_GetObjectItemCaseSensitive(f, "explained_by");
	const cJSON *p = cJSON_IsString(by) ? pd_test_finding(r, by->valuestring, 0) : f;
	cr_assert_not_null(p);
	cr_assert_str_neq(pd_test_str(p, "severity"), "info");
	cJSON_Delete(r);
}

/* chrissanders' inconsistent_printer.pcapng: 172.16.0.8:3527 sends its last
 * 1092 bytes (seq 118261) at frame 120; the printer (172.16.0.253:9100)
 * never answers again; the same segment goes out at frame 121 (5502.6 ms
 * later) and 122 (5600.1 ms later). The handshake RTT is 0.2 ms: a tail-loss
 * probe waits about 2 RTT (+ 200 ms at most), never 5.5 s, so both resends
 * are the timer's, though the second did not back off. */
Test(loss, resend_seconds_after_on_a_fast_path_is_no_probe)
{
	char *path = pd_test_shared("traces/public/chrissanders-packets/inconsistent_printer.pcapng");
	if (!g_file_test(path, G_FILE_TEST_EXISTS)) {
		g_free(path);
		cr_skip_test("public captures not present");
	}
	cJSON *r = pd_test_json_abs(path, NULL);
	g_free(path);
	cr_assert_not_null(r);
	const cJSON *f = pd_test_finding(r, "rto-timeouts", 0);
	cr_assert_not_null(f);
	cr_assert_str_eq(pd_test_str(f, "severity"), "warning");
	PD_TEST_NEAR(pd_test_metric(f, "rto_count"), 2, 0);
	PD_TEST_NEAR(pd_test_metric(f, "rto_min_ms"), 5502.6, 0.5);
	PD_TEST_NEAR(pd_test_metric(f, "rto_max_ms"), 5600.1, 0.5);
	PD_TEST_NEAR(pd_test_metric(f, "stall_time"), 11.103, 0.002);
	cr_assert(pd_test_has_example(f, 121));
	cr_assert(pd_test_has_example(f, 122));
	cr_assert_null(strstr(pd_test_str(f, "detail"), "backing off"));
	f = pd_test_finding(r, "retransmissions", 0);
	cr_assert_not_null(f);
	PD_TEST_NEAR(pd_test_metric(f, "rto_retransmissions"), 2, 0);
	PD_TEST_NEAR(pd_test_metric(f, "tail_loss_probes"), 0, 0);
	cJSON_Delete(r);
}

/* nDPI's KakaoTalk_chat.pcap, captured at the client: 10.24.82.188:35503
 * sends 184 bytes at frame 44 (t 5.463013), a pure ACK at frame 47
 * (6.146576), and resends the 184 bytes at frame 72 (8.476440). The timer
 * ran 3013.4 ms from the data; the ACK did not restart it (2329.9 ms). */
Test(loss, pure_ack_does_not_restart_the_timer)
{
	char *path = pd_test_shared("traces/public/nDPI/KakaoTalk_chat.pcap");
	if (!g_file_test(path, G_FILE_TEST_EXISTS)) {
		g_free(path);
		cr_skip_test("public captures not present");
	}
	cJSON *r = pd_test_json_abs(path, NULL);
	g_free(path);
	cr_assert_not_null(r);
	const cJSON *f = NULL;
	for (int i = 0; i < pd_test_count_findings(r, "rto-timeouts"); i++)
		if (pd_test_has_example(pd_test_finding(r, "rto-timeouts", i), 72))
			f = pd_test_finding(r, "rto-timeouts", i);
	cr_assert_not_null(f);
	PD_TEST_NEAR(pd_test_metric(f, "rto_count"), 1, 0);
	PD_TEST_NEAR(pd_test_metric(f, "rto_min_ms"), 3013.4, 0.5);
	cJSON_Delete(r);
}

/* ------------------------------------------ rule 9: backoff, RTT unknown */

Test(loss, backoff_in_a_one_way_capture)
{
	/* README: seq 147697 resent 6 times (frames 217-222) after 236.0 ...
	 * 7684.0 ms, doubling; no frame from the server; nothing else sent
	 * after t 0.244306: no progress for 15.08 s; the handshake ACK answers
	 * a SYN-ACK the file lacks. */
	cJSON *r = pd_test_report("testdata/captures/rto-backoff-oneway/rto-backoff-oneway.pcap");
	const cJSON *f = pd_test_finding(r, "rto-timeouts", 0);
	cr_assert_not_null(f);
	cr_assert_str_eq(pd_test_str(f, "severity"), "warning");
	PD_TEST_NEAR(pd_test_metric(f, "rto_count"), 6, 0);
	PD_TEST_NEAR(pd_test_metric(f, "rto_min_ms"), 236.0, 0.5);
	PD_TEST_NEAR(pd_test_metric(f, "rto_max_ms"), 7684.0, 0.5);
	PD_TEST_NEAR(pd_test_metric(f, "rto_backoffs"), 5, 0);
	PD_TEST_NEAR(pd_test_metric(f, "backoff_factor"), 2.0, 0.1);
	PD_TEST_NEAR(pd_test_metric(f, "stall_time"), 15.084, 0.005);
	PD_TEST_NEAR(pd_test_first_frame(f), 217, 0);
	cr_assert_str_eq(pd_test_setting(f, 0), "net.ipv4.tcp_retries2");
	f = pd_test_finding(r, "retransmissions", 0);
	cr_assert_not_null(f);
	PD_TEST_NEAR(pd_test_metric(f, "rto_retransmissions"), 6, 0);
	PD_TEST_NEAR(pd_test_metric(f, "tail_loss_probes"), 0, 0);
	cr_assert(!has_metric(f, "rtt_ms"), "no RTT can be measured here");
	cr_assert(strstr(pd_test_str(f, "detail"), "RTT unknown"));
	cr_assert_null(strstr(pd_test_str(f, "detail"), "RTT 0.00"));
	/* SACK was offered in the SYN; the SYN-ACK is missing: unknown, not off */
	cr_assert_str_neq(pd_test_setting(f, 0), "net.ipv4.tcp_sack");
	cr_assert_eq(pd_test_count_findings(r, "capture-one-direction"), 1);
	cJSON_Delete(r);
}

Test(loss, backoff_in_a_two_way_capture)
{
	/* README: the same 6 resends (frames 304-309); the server's last ACK is
	 * frame 292 at t 0.176501: no progress until 15.328301 (15.152 s) */
	cJSON *r = pd_test_report("testdata/captures/rto-backoff-twoway/rto-backoff-twoway.pcap");
	const cJSON *f = pd_test_finding(r, "rto-timeouts", 0);
	cr_assert_not_null(f);
	PD_TEST_NEAR(pd_test_metric(f, "rto_count"), 6, 0);
	PD_TEST_NEAR(pd_test_metric(f, "stall_time"), 15.152, 0.002);
	PD_TEST_NEAR(pd_test_first_frame(f), 304, 0);
	cr_assert_str_eq(pd_test_setting(f, 0), "net.ipv4.tcp_retries2");
	cJSON_Delete(r);
}

Test(loss, probe_then_backoff_on_the_last_segment)
{
	/* README: request 7 (frame 15, t 0.820795) resent 7 times, frames 16-22:
	 * gaps 233.3 (the one tail-loss probe), then 236.5 ... 7679.9 ms (6 timer
	 * retransmissions, doubling); no progress for 15.39 s from the original
	 * send; ss: retrans 1/7, backoff 6. */
	cJSON *r = pd_test_report("testdata/captures/rto-backoff-tail-oneway/rto-backoff-tail-oneway.pcap");
	const cJSON *f = pd_test_finding(r, "rto-timeouts", 0);
	cr_assert_not_null(f);
	PD_TEST_NEAR(pd_test_metric(f, "rto_count"), 6, 0);
	PD_TEST_NEAR(pd_test_metric(f, "rto_min_ms"), 236.5, 0.5);
	PD_TEST_NEAR(pd_test_metric(f, "rto_max_ms"), 7679.9, 0.5);
	PD_TEST_NEAR(pd_test_metric(f, "stall_time"), 15.389, 0.002);
	PD_TEST_NEAR(pd_test_first_frame(f), 17, 0);
	cr_assert_str_eq(pd_test_setting(f, 0), "net.ipv4.tcp_retries2");
	f = pd_test_finding(r, "retransmissions", 0);
	cr_assert_not_null(f);
	PD_TEST_NEAR(pd_test_metric(f, "retransmitted_segments"), 7, 0);
	PD_TEST_NEAR(pd_test_metric(f, "rto_retransmissions"), 6, 0);
	PD_TEST_NEAR(pd_test_metric(f, "tail_loss_probes"), 1, 0);
	cr_assert(strstr(pd_test_str(f, "detail"), "RTT unknown"));
	f = pd_test_finding(r, "tail-loss", 0);
	cr_assert_not_null(f);
	PD_TEST_NEAR(pd_test_first_frame(f), 16, 0);
	cr_assert_eq(pd_test_count_findings(r, "capture-one-direction"), 1);
	cJSON_Delete(r);

	/* both directions: the stall is from the original send (0.820769), not
	 * from the server's last packet (0.720360) */
	r = pd_test_report("testdata/captures/rto-backoff-tail-twoway/rto-backoff-tail-twoway.pcap");
	f = pd_test_finding(r, "rto-timeouts", 0);
	cr_assert_not_null(f);
	PD_TEST_NEAR(pd_test_metric(f, "rto_count"), 6, 0);
	PD_TEST_NEAR(pd_test_metric(f, "stall_time"), 15.389, 0.002);
	PD_TEST_NEAR(pd_test_first_frame(f), 25, 0);
	cr_assert_str_eq(pd_test_setting(f, 0), "net.ipv4.tcp_retries2");
	cJSON_Delete(r);
}

/* ------------------------------------- audit row 23: lowered RTO floor */

Test(loss, backoff_from_a_lowered_floor)
{
	/* README: route rto_min 20ms; seq 147697 resent 8 times (frames 282-289)
	 * after 36.0, 68.0, 132.0, 268.0, 544.0, 1056.0, 2272.0, 4352.0 ms; no
	 * progress from frame 248 (t 0.053176) to frame 289 (t 8.804877) */
	cJSON *r = pd_test_report("testdata/captures/rto-min-lowered/rto-min-lowered.pcap");
	const cJSON *f = pd_test_finding(r, "rto-timeouts", 0);
	cr_assert_not_null(f);
	PD_TEST_NEAR(pd_test_metric(f, "rto_count"), 8, 0);
	PD_TEST_NEAR(pd_test_metric(f, "rto_min_ms"), 36.0, 0.5);
	PD_TEST_NEAR(pd_test_metric(f, "rto_max_ms"), 4352.0, 0.5);
	PD_TEST_NEAR(pd_test_metric(f, "rto_backoffs"), 7, 0);
	PD_TEST_NEAR(pd_test_metric(f, "stall_time"), 8.752, 0.002);
	PD_TEST_NEAR(pd_test_first_frame(f), 282, 0);
	cr_assert(strstr(pd_test_str(f, "detail"), "floor was lowered"));
	cr_assert(!has_metric(f, "assumed_default_rto_floor"));
	cr_assert_str_eq(pd_test_setting(f, 0), "net.ipv4.tcp_retries2");
	f = pd_test_finding(r, "retransmissions", 0);
	cr_assert_not_null(f);
	PD_TEST_NEAR(pd_test_metric(f, "rto_retransmissions"), 8, 0);
	cJSON_Delete(r);
}

Test(loss, the_default_floor_is_said_when_it_decided)
{
	/* rto-outage (sender): one silent timeout of a non-last segment
	 * (SND.UNA while new data had gone out): a probe never resends it, so
	 * the floor did not decide. tail-twoway: a backed-off repeat decided. */
	cJSON *r = pd_test_report("testdata/captures/rto-outage/rto-outage.pcap");
	const cJSON *f = pd_test_finding(r, "rto-timeouts", 0);
	cr_assert_not_null(f);
	cr_assert(!has_metric(f, "assumed_default_rto_floor"));
	cJSON_Delete(r);
	r = pd_test_report("testdata/captures/rto-backoff-tail-twoway/rto-backoff-tail-twoway.pcap");
	f = pd_test_finding(r, "rto-timeouts", 0);
	cr_assert(!has_metric(f, "assumed_default_rto_floor"));
	cJSON_Delete(r);
	/* accept-queue-full: 3 timeouts of the client's request (the last
	 * segment), doubling from 446 ms: decided by the capture too */
	r = pd_test_report("testdata/captures/accept-queue-full/accept-queue-full.pcap");
	f = pd_test_finding(r, "rto-timeouts", 0);
	cr_assert_not_null(f);
	cr_assert(!has_metric(f, "assumed_default_rto_floor"));
	cJSON_Delete(r);
}

/* ------------------------------------------ rule 7: fragments missed */

Test(loss, tcp_fragments_the_capture_missed)
{
	/* README: 3 fragment frames deleted; the client ACKs every segment at
	 * once (frames 17, 31, 60 cover the damaged ones); no resend */
	cJSON *r = pd_test_report("testdata/captures/frag-capdrop-tcp/frag-capdrop-tcp.pcap");
	cr_assert_eq(pd_test_count_findings(r, "fragment-reassembly-incomplete"), 0);
	const cJSON *f = pd_test_finding(r, "capture-drops", 0);
	cr_assert_not_null(f);
	PD_TEST_NEAR(pd_test_metric(f, "missing_segments"), 3, 0);
	PD_TEST_NEAR(pd_test_metric(f, "missing_in_ip_fragments"), 3, 0);
	/* 504 + 504 B of segments 5 and 10 (second fragments), all 1448 B of
	 * segment 20 from this flow's view (its TCP-header fragment is gone) */
	PD_TEST_NEAR(pd_test_metric(f, "missing_bytes"), 2456, 0);
	PD_TEST_NEAR(pd_test_first_frame(f), 17, 0);
	cr_assert_str_eq(pd_test_setting(f, 0), "capture buffer");
	cr_assert_eq(pd_test_count_at_least(r, "warning"), 0);
	bool missed = false;
	for (int i = 0; i < pd_test_count_findings(r, "ip-fragmentation"); i++) {
		const cJSON *g = pd_test_finding(r, "ip-fragmentation", i);
		if (has_metric(g, "fragments_missed_by_capture")) {
			PD_TEST_NEAR(pd_test_metric(g, "fragments_missed_by_capture"), 2, 0);
			missed = true;
		}
	}
	cr_assert(missed);
	cJSON_Delete(r);

	r = pd_test_report("testdata/captures/frag-capdrop-tcp-full/frag-capdrop-tcp-full.pcap");
	cr_assert_eq(pd_test_count_findings(r, "capture-drops"), 0);
	cr_assert_eq(pd_test_count_findings(r, "fragment-reassembly-incomplete"), 0);
	cr_assert_eq(pd_test_count_at_least(r, "warning"), 0);
	cJSON_Delete(r);
}

Test(loss, udp_fragments_missed_in_step)
{
	/* README: answers 3, 8, 13 lack a fragment (first fragments frames 10,
	 * 29, 48); the next request followed each 200.25-200.37 ms after the
	 * last fragment, as after the 17 complete answers (200.25-217.34 ms) */
	cJSON *r = pd_test_report("testdata/captures/frag-capdrop-udp/frag-capdrop-udp.pcap");
	cr_assert_eq(pd_test_count_at_least(r, "warning"), 0);
	const cJSON *f = pd_test_finding(r, "fragment-reassembly-incomplete", 0);
	cr_assert_not_null(f);
	cr_assert_str_eq(pd_test_str(f, "severity"), "info");
	PD_TEST_NEAR(pd_test_metric(f, "incomplete_answered_in_step"), 3, 0);
	PD_TEST_NEAR(pd_test_metric(f, "incomplete_datagrams"), 0, 0);
	cr_assert(pd_test_has_example(f, 10) && pd_test_has_example(f, 29) && pd_test_has_example(f, 48));
	cr_assert_str_eq(pd_test_setting(f, 0), "capture buffer");
	cJSON_Delete(r);

	r = pd_test_report("testdata/captures/frag-capdrop-udp-full/frag-capdrop-udp-full.pcap");
	cr_assert_eq(pd_test_count_findings(r, "fragment-reassembly-incomplete"), 0);
	cJSON_Delete(r);
	/* a one-way stream has no pace to keep: real fragment loss stays a
	 * warning (udp-frag-loss-receiver, see test_pmtu) */
	r = pd_test_report("testdata/captures/udp-frag-loss/udp-frag-loss-receiver.pcap");
	f = pd_test_finding(r, "fragment-reassembly-incomplete", 0);
	cr_assert_not_null(f);
	cr_assert_str_eq(pd_test_str(f, "severity"), "warning");
	cJSON_Delete(r);
}

/* -------------------------------------------------- Chinese details */

Test(loss, chinese_details_are_chinese)
{
	/* every detail sentence of these findings exists in Chinese: no English
	 * clause leaks into the Chinese detail */
	cJSON *r = pd_test_report("testdata/captures/rto-backoff-tail-oneway/rto-backoff-tail-oneway.pcap");
	const char *ids[] = {"rto-timeouts", "retransmissions", "tail-loss", "capture-one-direction"};
	const char *english[] = {"waited", "backing off", "unknown", "resent", "the ", "capture"};
	for (size_t i = 0; i < sizeof(ids) / sizeof(ids[0]); i++) {
		const cJSON *f = pd_test_finding(r, ids[i], 0);
		cr_assert_not_null(f, "%s", ids[i]);
		const char *d = pd_test_str(f, "detail_zh");
		for (size_t j = 0; j < sizeof(english) / sizeof(english[0]); j++)
			cr_expect_null(strstr(d, english[j]), "%s: '%s' in %s", ids[i], english[j], d);
	}
	const cJSON *f = pd_test_finding(r, "retransmissions", 0);
	cr_assert(strstr(pd_test_str(f, "detail_zh"), "RTT 未知"));
	cJSON_Delete(r);
}
