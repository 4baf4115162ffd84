/* Golden tests for congestion on the path without loss: queueing delay
 * (det_queue) and ECN (det_ecn), on the issue-24 captures. Figures come
 * from each capture's README (tshark-verified facts). */
#include <criterion/criterion.h>
#include <glib.h> /* testutil.h needs GPtrArray */
#include <math.h>
#include <string.h>

#include "testutil.h"

/* ---------------------------------------------------------------- queueing delay */

/* tbf 3 Mbit/s with a 400 KB queue, base RTT 10 ms: the RTT climbs to
 * 200-310 ms (per 0.5 s: 110 ... 299 ms) while 3 Mbit/s arrive in every
 * bucket and nothing is lost. At the sender from data -> ACK, at the
 * receiver from the timestamp echo. */
Test(queueing, deep_queue_at_sender_and_receiver)
{
	const struct {
		const char *cap;
		double base_ms, mbit;
	} caps[] = {
		{"testdata/captures/queue-deep-server/queue-deep-server.pcap", 10.39, 3.0},
		{"testdata/captures/queue-deep-client/queue-deep-client.pcap", 10.66, 2.87},
	};
	for (size_t i = 0; i < G_N_ELEMENTS(caps); i++) {
		cJSON *r = pd_test_report(caps[i].cap);
		cr_assert_eq(pd_test_count_findings(r, "queueing-delay"), 1, "%s", caps[i].cap);
		const cJSON *f = pd_test_finding(r, "queueing-delay", 0);
		cr_assert_str_eq(pd_test_str(f, "severity"), "warning");
		cr_assert_str_eq(pd_test_setting(f, 0), "qdisc limit");
		cr_assert_str_eq(pd_test_setting(f, 1), "shaper queue size");
		cr_assert_str_eq(pd_test_setting(f, 2), "qdisc choice");
		PD_TEST_NEAR(pd_test_metric(f, "base_rtt_ms"), caps[i].base_ms, 0.1);
		/* the second half of the transfer: 206-299 ms per 0.5 s bucket */
		double load = pd_test_metric(f, "rtt_under_load_ms");
		cr_assert(load >= 206 && load <= 300, "RTT under load %g", load);
		cr_assert(pd_test_metric(f, "rtt_first_half_ms") < load);
		cr_assert(pd_test_metric(f, "rtt_max_ms") <= 311);
		cr_assert(pd_test_metric(f, "rtt_growth") >= 19);
		PD_TEST_NEAR(pd_test_metric(f, "rate_first_half") * 8 / 1e6, caps[i].mbit, 0.2);
		PD_TEST_NEAR(pd_test_metric(f, "rate_second_half") * 8 / 1e6, caps[i].mbit, 0.2);
		PD_TEST_NEAR(pd_test_metric(f, "retransmitted_segments"), 0, 0);
		/* ~100 KB sat in the queue (README: 111496 in flight, 3.75 KB would do) */
		cr_assert(pd_test_metric(f, "queued_bytes") >= 60000 && pd_test_metric(f, "queued_bytes") <= 120000);
		cr_assert_eq(pd_test_count_findings(r, "window-limited"), 0, "%s", caps[i].cap);
		cr_assert_eq(pd_test_count_findings(r, "sender-limited"), 0, "%s", caps[i].cap);
		cr_assert_eq(pd_test_count_findings(r, "retransmissions"), 0, "%s", caps[i].cap);
		cJSON_Delete(r);
	}
	/* the receiver's view names the timestamp echo */
	cJSON *r = pd_test_report("testdata/captures/queue-deep-client/queue-deep-client.pcap");
	cr_assert(strstr(pd_test_str(pd_test_finding(r, "queueing-delay", 0), "detail"), "TCP timestamp echo"));
	cJSON_Delete(r);
}

/* The same shaper with an 8 KB queue: RTT ~24 ms (base 10 ms), loss is the
 * congestion signal: no queueing delay. */
Test(queueing, short_queue_is_not_bufferbloat)
{
	const char *caps[] = {"testdata/captures/queue-short-server/queue-short-server.pcap",
			      "testdata/captures/queue-short-client/queue-short-client.pcap"};
	for (size_t i = 0; i < G_N_ELEMENTS(caps); i++) {
		cJSON *r = pd_test_report(caps[i]);
		cr_assert_eq(pd_test_count_findings(r, "queueing-delay"), 0, "%s", caps[i]);
		cr_assert_eq(pd_test_count_findings(r, "window-limited"), 0, "%s", caps[i]);
		cr_assert_eq(pd_test_count_findings(r, "sender-limited"), 0, "%s", caps[i]);
		cr_assert_eq(pd_test_count_findings(r, "retransmissions"), 1, "%s", caps[i]);
		cJSON_Delete(r);
	}
}

/* A receiver that reads 4 KiB per 100 ms: its delayed ACKs stretch the RTT
 * from 0.05 ms to 44 ms, yet only a packet or two waits anywhere. */
Test(queueing, slow_reader_is_not_a_queue)
{
	cJSON *r = pd_test_report("testdata/captures/tunnel-plain-zerowin/tunnel-plain-zerowin.pcap");
	cr_assert_eq(pd_test_count_findings(r, "queueing-delay"), 0);
	cr_assert_eq(pd_test_count_findings(r, "zero-window"), 1);
	cJSON_Delete(r);
}

/* ---------------------------------------------------------------- ECN */

/* The router drops SYNs with ECE+CWR: SYN 1 unanswered, SYN 2 (same ISN,
 * no ECE/CWR) at 1.0182 s answered 10.6 ms later by SYN-ACK 3 without ECE. */
Test(ecn, ecn_setup_syn_dropped)
{
	const char *caps[] = {"testdata/captures/ecn-syn-drop-client/ecn-syn-drop-client.pcap",
			      "testdata/captures/ecn-syn-drop-router/ecn-syn-drop-router.pcap"};
	for (size_t i = 0; i < G_N_ELEMENTS(caps); i++) {
		cJSON *r = pd_test_report(caps[i]);
		cr_assert_eq(pd_test_count_findings(r, "ecn-syn-dropped"), 1, "%s", caps[i]);
		const cJSON *f = pd_test_finding(r, "ecn-syn-dropped", 0);
		cr_assert_str_eq(pd_test_str(f, "severity"), "warning");
		cr_assert_str_eq(pd_test_setting(f, 0), "net.ipv4.tcp_ecn");
		cr_assert_str_eq(pd_test_setting(f, 1), "net.ipv4.tcp_ecn_fallback");
		PD_TEST_NEAR(pd_test_metric(f, "connect_delay"), 1.0182, 0.001);
		PD_TEST_NEAR(pd_test_metric(f, "ecn_syns_lost"), 1, 0);
		PD_TEST_NEAR(cJSON_GetObjectItemCaseSensitive(f, "impact_s")->valuedouble, 1.0182, 0.001);
		cr_assert(pd_test_has_example(f, 1) && pd_test_has_example(f, 2) && pd_test_has_example(f, 3), "%s", caps[i]);
		/* the SYN retry is the drop's cost, not a problem of its own */
		if (pd_test_count_findings(r, "syn-retransmit")) {
			const cJSON *by = cJSON_GetObjectItemCaseSensitive(pd_test_finding(r, "syn-retransmit", 0),
									  "explained_by");
			cr_assert(cJSON_IsString(by) && !strcmp(by->valuestring, "ecn-syn-dropped"), "%s", caps[i]);
		}
		cr_assert_eq(pd_test_count_at_least(r, "warning"), 1, "%s", caps[i]);
		cr_assert_eq(pd_test_count_findings(r, "ecn-congestion-marks"), 0, "%s", caps[i]);
		cJSON_Delete(r);
	}
}

/* Control: ECN negotiated (SYN ECE+CWR, SYN-ACK ECE), data ECT(0), no mark. */
Test(ecn, ecn_negotiated_is_healthy)
{
	const char *caps[] = {"testdata/captures/ecn-syn-ok-client/ecn-syn-ok-client.pcap",
			      "testdata/captures/ecn-syn-ok-router/ecn-syn-ok-router.pcap"};
	for (size_t i = 0; i < G_N_ELEMENTS(caps); i++) {
		cJSON *r = pd_test_report(caps[i]);
		cr_assert_eq(pd_test_count_findings(r, "ecn-syn-dropped"), 0, "%s", caps[i]);
		cr_assert_eq(pd_test_count_findings(r, "ecn-congestion-marks"), 0, "%s", caps[i]);
		cr_assert_eq(pd_test_count_findings(r, "syn-retransmit"), 0, "%s", caps[i]);
		cr_assert_eq(pd_test_count_at_least(r, "warning"), 0, "%s", caps[i]);
		cJSON_Delete(r);
	}
}

/* The router marks 6 of 725 data packets CE (frames 250, 473, 478, 622,
 * 723, 760 after it); the client echoes ECE on 183 ACKs (from frame 251
 * there, 308 at the server); the server sends CWR twice (490 and 831 at
 * the router, 410 and 736 at the server). Nothing is resent. */
Test(ecn, ce_marks_are_a_congestion_signal_not_loss)
{
	const struct {
		const char *cap;
		double ce, ece_frame, cwr_frame;
	} caps[] = {
		{"testdata/captures/ecn-ce-marks-router/ecn-ce-marks-router.pcap", 6, 251, 490},
		{"testdata/captures/ecn-ce-marks-server/ecn-ce-marks-server.pcap", 0, 308, 410},
	};
	for (size_t i = 0; i < G_N_ELEMENTS(caps); i++) {
		cJSON *r = pd_test_report(caps[i].cap);
		cr_assert_eq(pd_test_count_findings(r, "ecn-congestion-marks"), 1, "%s", caps[i].cap);
		const cJSON *f = pd_test_finding(r, "ecn-congestion-marks", 0);
		cr_assert_str_eq(pd_test_str(f, "severity"), "info");
		PD_TEST_NEAR(pd_test_metric(f, "ce_packets"), caps[i].ce, 0);
		PD_TEST_NEAR(pd_test_metric(f, "ece_acks"), 183, 0);
		PD_TEST_NEAR(pd_test_metric(f, "cwr"), 2, 0);
		PD_TEST_NEAR(pd_test_metric(f, "data_packets"), 725, 0);
		PD_TEST_NEAR(pd_test_metric(f, "retransmitted_segments"), 0, 0);
		cr_assert(pd_test_has_example(f, caps[i].ece_frame) && pd_test_has_example(f, caps[i].cwr_frame), "%s", caps[i].cap);
		if (caps[i].ce)
			cr_assert(pd_test_has_example(f, 250) && pd_test_has_example(f, 760));
		cr_assert_eq(pd_test_count_findings(r, "retransmissions"), 0, "%s", caps[i].cap);
		cr_assert_eq(pd_test_count_at_least(r, "warning"), 0, "%s", caps[i].cap);
		cJSON_Delete(r);
	}
}
