/* Golden tests for det_fragments, det_pmtu and det_capture on the
 * captures in testdata/captures/ (made with the real kernel in network
 * namespaces; figures checked with tshark). */
#include <criterion/criterion.h>
#include <glib.h>
#include <math.h>
#include <string.h>

#include "testutil.h"

static const cJSON *get(const cJSON *o, const char *key)
{
	return cJSON_GetObjectItemCaseSensitive(o, key);
}

/* The finding with this id whose first flow has this client port. */
static const cJSON *by_port(const cJSON *r, const char *id, int port)
{
	int n = pd_test_count_findings(r, id);
	for (int i = 0; i < n; i++) {
		const cJSON *f = pd_test_finding(r, id, i);
		if ((int)pd_test_client_port(f) == port)
			return f;
	}
	cr_assert_fail("no %s finding for client port %d", id, port);
	return NULL;
}

static int count_prefix(const cJSON *r, const char *prefix)
{
	int n = 0;
	const cJSON *f;
	cJSON_ArrayForEach(f, get(r, "findings"))
	{
		const cJSON *id = get(f, "id");
		if (cJSON_IsString(id) && strncmp(id->valuestring, prefix, strlen(prefix)) == 0)
			n++;
	}
	return n;
}

static int count_pmtu_frag(const cJSON *r)
{
	return count_prefix(r, "pmtu-") + count_prefix(r, "ip-fragmentation") +
	       count_prefix(r, "fragment-reassembly") + count_prefix(r, "mss-exceeds");
}

/* ---------------------------------------------------------------- PMTU */

Test(pmtu, icmp_frag_needed_adapted)
{
	cJSON *r = pd_test_report("testdata/captures/pmtu-icmp-ok/pmtu-icmp-ok.pcap");
	cr_assert_eq(pd_test_count_findings(r, "pmtu-frag-needed"), 1);
	cr_assert_eq(pd_test_count_findings(r, "pmtu-not-adapted"), 0);
	cr_assert_eq(pd_test_count_findings(r, "pmtu-blackhole"), 0);
	const cJSON *f = pd_test_finding(r, "pmtu-frag-needed", 0);
	cr_assert_eq(pd_test_client_port(f), 46312);
	cr_assert_eq(pd_test_first_frame(f), 9); /* first ICMP 3/4 */
	cr_assert_eq(pd_test_metric(f, "path_mtu"), 1400);
	cr_assert_eq(pd_test_metric(f, "icmp_messages"), 10);
	cr_assert_eq(pd_test_metric(f, "payload_before"), 1448);
	cr_assert_eq(pd_test_metric(f, "payload_reduced_to"), 1348); /* 1400 - 20 - 32 */
	cr_assert_eq(pd_test_metric(f, "payload_after"), 1348);
	cr_assert(pd_test_metric(f, "adapt_time") < 1.0, "adapted within a millisecond");
	cr_assert_str_eq(pd_test_setting(f, 0), "MSS clamping");
	/* MSS 1460 announced, 1400 carried: clamp to 1360 (info: PMTUD coped). */
	const cJSON *m = pd_test_finding(r, "mss-exceeds-path", 0);
	cr_assert_not_null(m);
	cr_assert_eq(pd_test_metric(m, "announced_mss"), 1460);
	cr_assert_eq(pd_test_metric(m, "clamp_mss_to"), 1360);
	cr_assert_eq(pd_test_count_at_least(r, "warning"), 0, "PMTUD working is not a warning");
	cJSON_Delete(r);
}

Test(pmtu, icmp6_packet_too_big_adapted)
{
	cJSON *r = pd_test_report("testdata/captures/pmtu6-icmp-ok/pmtu6-icmp-ok.pcap");
	cr_assert_eq(pd_test_count_findings(r, "pmtu-frag-needed"), 1);
	const cJSON *f = pd_test_finding(r, "pmtu-frag-needed", 0);
	cr_assert_eq(pd_test_metric(f, "path_mtu"), 1400);
	cr_assert_eq(pd_test_metric(f, "payload_before"), 1428); /* 1500 - 40 - 32 */
	cr_assert_eq(pd_test_metric(f, "payload_reduced_to"), 1328);
	cr_assert_eq(pd_test_count_findings(r, "pmtu-not-adapted"), 0);
	cr_assert_eq(pd_test_count_findings(r, "pmtu-blackhole"), 0);
	cJSON_Delete(r);
}

Test(pmtu, blackhole_unrecovered)
{
	cJSON *r = pd_test_report("testdata/captures/pmtu-blackhole/pmtu-blackhole.pcap");
	cr_assert_eq(pd_test_count_findings(r, "pmtu-blackhole"), 1);
	cr_assert_eq(pd_test_count_findings(r, "pmtu-frag-needed"), 0);
	const cJSON *f = pd_test_finding(r, "pmtu-blackhole", 0);
	cr_assert_str_eq(get(f, "severity")->valuestring, "error");
	cr_assert_eq(pd_test_client_port(f), 45076);
	cr_assert_eq(pd_test_first_frame(f), 4); /* the segment that never got through */
	cr_assert(pd_test_has_example(f, 15), "first timeout retransmission");
	cr_assert_eq(pd_test_metric(f, "segment_size"), 1448);
	cr_assert_eq(pd_test_metric(f, "retransmissions"), 6); /* frames 15-20 */
	cr_assert(fabs(pd_test_metric(f, "stall") - 21.0) < 0.1, "stall %f", pd_test_metric(f, "stall"));
	cr_assert(fabs(pd_test_num(f, "impact_s") - 21.0) < 0.1);
	cr_assert_str_eq(pd_test_setting(f, 0), "net.ipv4.tcp_mtu_probing");
	cJSON_Delete(r);
}

Test(pmtu, blackhole_recovered_by_probing)
{
	cJSON *r = pd_test_report("testdata/captures/pmtu-blackhole-probing/pmtu-blackhole-probing.pcap");
	cr_assert_eq(pd_test_count_findings(r, "pmtu-blackhole"), 1);
	const cJSON *f = pd_test_finding(r, "pmtu-blackhole", 0);
	cr_assert_eq(pd_test_metric(f, "segment_size"), 1448);
	cr_assert_eq(pd_test_metric(f, "retransmissions"), 4); /* frames 15-18 */
	cr_assert_eq(pd_test_metric(f, "recovered_size"), 1024); /* tcp_base_mss */
	cr_assert(pd_test_has_example(f, 19), "the 1024-byte retransmission");
	cr_assert(fabs(pd_test_metric(f, "time_to_recover") - 6.67) < 0.05, "recover %f", pd_test_metric(f, "time_to_recover"));
	cr_assert_eq(pd_test_metric(f, "settled_size"), 1347);
	/* Probing already on: the cause left is the filtered ICMP. */
	cr_assert_str_eq(pd_test_setting(f, 0), "firewall dropping ICMP frag-needed");
	const cJSON *m = pd_test_finding(r, "mss-exceeds-path", 0);
	cr_assert_not_null(m);
	cr_assert_eq(pd_test_metric(m, "announced_mss"), 1460);
	cr_assert_eq(pd_test_metric(m, "path_mtu"), 1399); /* largest packet that got through */
	cr_assert_str_eq(pd_test_setting(m, 0), "MSS clamping");
	cJSON_Delete(r);
}

/* --------------------------------------------------------- fragments */

Test(fragments, udp_complete)
{
	cJSON *r = pd_test_report("testdata/captures/udp-frag/udp-frag.pcap");
	cr_assert_eq(pd_test_count_findings(r, "ip-fragmentation"), 2); /* IPv4 flow, IPv6 flow */
	cr_assert_eq(pd_test_count_findings(r, "fragment-reassembly-incomplete"), 0);
	const cJSON *f4 = pd_test_finding(r, "ip-fragmentation", 0);
	const cJSON *f6 = pd_test_finding(r, "ip-fragmentation", 1);
	if (pd_test_first_frame(f4) > pd_test_first_frame(f6)) {
		const cJSON *t = f4;
		f4 = f6;
		f6 = t;
	}
	cr_assert_eq(pd_test_first_frame(f4), 1);
	cr_assert_eq(pd_test_metric(f4, "fragmented_datagrams"), 10);
	cr_assert_eq(pd_test_metric(f4, "fragments"), 30);
	cr_assert_eq(pd_test_metric(f4, "max_datagram_size"), 3028); /* 20 + 8 + 3000 */
	cr_assert_eq(pd_test_metric(f4, "implied_mtu"), 1500);
	cr_assert_str_eq(pd_test_setting(f4, 0), "application datagram size");
	cr_assert_eq(pd_test_first_frame(f6), 31);
	cr_assert_eq(pd_test_metric(f6, "fragments"), 30);
	cr_assert_eq(pd_test_metric(f6, "max_datagram_size"), 3048); /* 40 + 8 + 3000 */
	cr_assert_eq(pd_test_metric(f6, "implied_mtu"), 1496); /* 40 + 8 + 1448 */
	cr_assert_str_eq(pd_test_setting(f6, 0), "application datagram size");
	cr_assert_eq(pd_test_count_at_least(r, "warning"), 0);
	cJSON_Delete(r);
}

/* suricata-verify's frag-ip-tcp.pcap: one IPv6 TCP datagram (::1 port 12345
 * to 8080, 1060 B) in 3 fragments (offsets 0, 464, 928; 512, 512 and 140 B).
 * The IPv4 sysctl net.ipv4.ip_no_pmtu_disc cannot explain IPv6 fragments;
 * zeek's fragmented-syn.pcap (IPv4, 2 fragments of a 60 B SYN) keeps it. */
Test(fragments, ipv6_tcp_not_blamed_on_an_ipv4_sysctl)
{
	char *path = pd_test_shared("traces/public/suricata-verify/frag-ip-tcp.pcap");
	if (!g_file_test(path, G_FILE_TEST_EXISTS)) {
		g_free(path);
		cr_skip_test("public captures not present");
	}
	cJSON *r = pd_test_json_abs(path, NULL);
	g_free(path);
	cr_assert_not_null(r);
	const cJSON *f = pd_test_finding(r, "ip-fragmentation", 0);
	cr_assert_not_null(f);
	cr_assert_eq(pd_test_metric(f, "fragments"), 3);
	cr_assert_eq(pd_test_metric(f, "max_datagram_size"), 1060);
	cr_assert_str_eq(pd_test_setting(f, 0), "interface MTU");
	const cJSON *s;
	cJSON_ArrayForEach(s, get(f, "settings"))
	cr_assert_str_neq(cJSON_GetObjectItemCaseSensitive(s, "name")->valuestring, "net.ipv4.ip_no_pmtu_disc");
	cJSON_Delete(r);

	path = pd_test_shared("traces/public/zeek/fragmented-syn.pcap");
	r = pd_test_json_abs(path, NULL);
	g_free(path);
	cr_assert_not_null(r);
	f = pd_test_finding(r, "ip-fragmentation", 0);
	cr_assert_not_null(f);
	cr_assert_eq(pd_test_metric(f, "max_datagram_size"), 60);
	cr_assert_str_eq(pd_test_setting(f, 0), "net.ipv4.ip_no_pmtu_disc");
	cJSON_Delete(r);
}

static void check_incomplete(const cJSON *r, bool receiver_side)
{
	cr_assert_eq(pd_test_count_findings(r, "fragment-reassembly-incomplete"), 2);
	for (int i = 0; i < 2; i++) {
		const cJSON *f = pd_test_finding(r, "fragment-reassembly-incomplete", i);
		cr_assert_str_eq(get(f, "severity")->valuestring, "warning");
		cr_assert_eq(pd_test_metric(f, "incomplete_datagrams"), 4); /* datagrams 1, 4, 7, 10 */
		cr_assert_eq(pd_test_metric(f, "fragmented_datagrams"), 10);
		cr_assert_eq(pd_test_metric(f, "receiver_reassembly_timeouts"), 4);
		cr_assert_eq(pd_test_metric(f, "incomplete_in_capture"), receiver_side ? 4 : 0);
		cr_assert_str_eq(pd_test_setting(f, 0), "firewall dropping fragments");
	}
}

Test(fragments, loss_sender_side)
{
	/* Every fragment passes the sender's capture; the receiver's ICMP time
	 * exceeded (code 1) tells which datagrams it gave up on. */
	cJSON *r = pd_test_report("testdata/captures/udp-frag-loss/udp-frag-loss.pcap");
	check_incomplete(r, false);
	const cJSON *f = by_port(r, "fragment-reassembly-incomplete", 37521);
	cr_assert_eq(pd_test_first_frame(f), 64);
	cJSON_Delete(r);
}

Test(fragments, loss_receiver_side)
{
	cJSON *r = pd_test_report("testdata/captures/udp-frag-loss/udp-frag-loss-receiver.pcap");
	check_incomplete(r, true);
	const cJSON *f = by_port(r, "fragment-reassembly-incomplete", 37521);
	cr_assert_eq(pd_test_first_frame(f), 1); /* datagram 1: its middle fragment never arrived */
	cr_assert(pd_test_has_example(f, 9));
	const cJSON *g = pd_test_finding(r, "ip-fragmentation", 0);
	cr_assert_not_null(g);
	cr_assert_eq(pd_test_metric(g, "fragments"), 26); /* 30 sent, 4 dropped by r1 */
	cJSON_Delete(r);
}

/* ----------------------------------------------------------- capture */

Test(capture, tso_sender_is_not_pmtu)
{
	cJSON *r = pd_test_report("testdata/captures/tso-sender/tso-sender.pcap");
	cr_assert_eq(pd_test_count_findings(r, "capture-offload-tso"), 1);
	const cJSON *f = pd_test_finding(r, "capture-offload-tso", 0);
	cr_assert_eq(pd_test_first_frame(f), 4);
	cr_assert_eq(pd_test_metric(f, "super_segments"), 22);
	cr_assert_eq(pd_test_metric(f, "largest_segment"), 65160);
	cr_assert_str_eq(pd_test_setting(f, 0), "NIC offloads");
	cr_assert_eq(count_pmtu_frag(r), 0, "super-segments are not a PMTU or fragmentation problem");
	cr_assert_eq(pd_test_count_at_least(r, "warning"), 0);
	cJSON_Delete(r);
}

Test(capture, healthy_nothing_at_warning)
{
	const char *caps[] = {
		"testdata/captures/bulk-healthy/bulk-healthy.pcap",
		"testdata/captures/healthy-http/healthy-http.pcap",
		"testdata/captures/reqresp-healthy/reqresp-healthy.pcap",
	};
	for (size_t i = 0; i < sizeof(caps) / sizeof(caps[0]); i++) {
		cJSON *r = pd_test_report(caps[i]);
		cr_assert_eq(pd_test_count_at_least(r, "warning"), 0, "%s", caps[i]);
		cr_assert_eq(count_pmtu_frag(r), 0, "%s", caps[i]);
		cr_assert_eq(pd_test_count_findings(r, "capture-drops"), 0, "%s", caps[i]);
		cr_assert_eq(pd_test_count_findings(r, "capture-duplicates"), 0, "%s", caps[i]);
		cr_assert_eq(pd_test_count_findings(r, "capture-one-direction"), 0, "%s", caps[i]);
		cJSON_Delete(r);
	}
}

Test(capture, vantage_server_side)
{
	/* bulk-healthy: captured on the server, 20 ms RTT through the delay router. */
	cJSON *r = pd_test_report("testdata/captures/bulk-healthy/bulk-healthy.pcap");
	const cJSON *f = pd_test_finding(r, "capture-vantage", 0);
	cr_assert_not_null(f);
	cr_assert_str_eq(get(f, "severity")->valuestring, "info");
	cr_assert_eq(pd_test_metric(f, "flows_near_server"), 1);
	cr_assert_eq(pd_test_metric(f, "flows_near_client"), 0);
	cr_assert(pd_test_metric(f, "synack_to_ack") > 15.0, "the RTT sits on the far leg");
	cr_assert(pd_test_metric(f, "syn_to_synack") < 1.0);
	cJSON_Delete(r);
}

Test(capture, headers_only_snaplen)
{
	cJSON *r = pd_test_report("testdata/captures/linktypes/headers-only.pcap");
	cr_assert_eq(pd_test_count_findings(r, "capture-snaplen"), 1);
	const cJSON *f = pd_test_finding(r, "capture-snaplen", 0);
	cr_assert_eq(pd_test_metric(f, "snaplen"), 96);
	cr_assert(pd_test_metric(f, "truncated_frames") > 0);
	/* The analysis still sees full-size segments from the headers. */
	cr_assert_eq(pd_test_metric(f, "max_tcp_payload_from_headers"), 1448);
	cr_assert(pd_test_metric(f, "max_tcp_payload_captured") < 96);
	cr_assert_str_eq(pd_test_setting(f, 0), "capture snaplen");
	cr_assert_eq(pd_test_count_at_least(r, "warning"), 0);
	cJSON_Delete(r);
}

Test(capture, no_false_duplicates_on_synack_retries)
{
	/* Server SYN-ACKs 50 us apart with IP ID 0 are real re-sends. */
	cJSON *r = pd_test_report("testdata/captures/synack-drop/synack-drop.pcap");
	cr_assert_eq(pd_test_count_findings(r, "capture-duplicates"), 0);
	cJSON_Delete(r);
}

/* ------------------------------------------- validation variants (pdvC) */

static const char *detail(const cJSON *f)
{
	const cJSON *d = get(f, "detail");
	cr_assert(cJSON_IsString(d), "finding has no detail");
	return d->valuestring;
}

Test(variants, pmtu_receiver_side_infers_path_mtu)
{
	/* Receiver view: no ICMP there, but every bulk segment is capped at
	 * 1280 B although both SYNs said MSS 1460. */
	cJSON *r = pd_test_report("testdata/captures/pmtu-client-view/pmtu4-1280-client.pcap");
	cr_assert_eq(pd_test_count_findings(r, "mss-exceeds-path"), 1);
	const cJSON *m = pd_test_finding(r, "mss-exceeds-path", 0);
	cr_assert_eq(pd_test_metric(m, "path_mtu"), 1280);
	cr_assert_eq(pd_test_metric(m, "announced_mss"), 1460);
	cr_assert_eq(pd_test_metric(m, "clamp_mss_to"), 1240);
	cr_assert_eq(pd_test_metric(m, "max_payload_through"), 1228);
	cr_assert_str_eq(pd_test_setting(m, 0), "MSS clamping");
	cr_assert_eq(pd_test_count_findings(r, "pmtu-blackhole"), 0);
	cr_assert_eq(pd_test_count_at_least(r, "warning"), 0);
	cJSON_Delete(r);

	r = pd_test_report("testdata/captures/pmtu-client-view/pmtu6-1300-client.pcap");
	m = pd_test_finding(r, "mss-exceeds-path", 0);
	cr_assert_not_null(m);
	cr_assert_eq(pd_test_metric(m, "path_mtu"), 1300);
	cr_assert_eq(pd_test_metric(m, "announced_mss"), 1440);
	cr_assert_eq(pd_test_metric(m, "clamp_mss_to"), 1240); /* 1300 - 60 */
	cr_assert_eq(pd_test_count_at_least(r, "warning"), 0);
	cJSON_Delete(r);
}

Test(variants, pmtu_router_any_capture)
{
	/* tcpdump -i any on the router that sends the ICMP: SLL2, each packet
	 * twice. The resends are PMTU discovery, the ACK copies no dup ACKs. */
	static const char *const files[] = {"testdata/captures/pmtu-client-view/pmtu4-1280-router.pcap",
					    "testdata/captures/pmtu-client-view/pmtu6-1300-router.pcap"};
	static const double mtu[] = {1280, 1300}, before[] = {1448, 1428};
	for (int i = 0; i < 2; i++) {
		cJSON *r = pd_test_report(files[i]);
		cr_assert_eq(pd_test_count_findings(r, "pmtu-frag-needed"), 1, "%s", files[i]);
		const cJSON *f = pd_test_finding(r, "pmtu-frag-needed", 0);
		cr_assert_eq(pd_test_first_frame(f), 8);
		cr_assert_eq(pd_test_metric(f, "path_mtu"), mtu[i]);
		cr_assert_eq(pd_test_metric(f, "icmp_messages"), 10);
		cr_assert_eq(pd_test_metric(f, "payload_before"), before[i]);
		cr_assert_eq(pd_test_metric(f, "payload_after"), 1228);
		cr_assert_eq(pd_test_count_findings(r, "retransmissions"), 0, "%s: PMTU resends are not loss", files[i]);
		cr_assert_eq(pd_test_count_findings(r, "capture-duplicates"), 1);
		const cJSON *m = pd_test_finding(r, "mss-exceeds-path", 0);
		cr_assert_not_null(m);
		cr_assert_eq(pd_test_metric(m, "max_payload_through"), 1228, "capture copies are no retransmissions (Karn)");
		cr_assert_eq(pd_test_count_at_least(r, "warning"), 0, "%s", files[i]);
		cJSON_Delete(r);
	}
}

Test(variants, blackhole_1450_sender_hint)
{
	cJSON *r = pd_test_report("testdata/captures/pmtu-blackhole-1450/bh1450-probing1-server.pcap");
	const cJSON *f = pd_test_finding(r, "pmtu-blackhole", 0);
	cr_assert_not_null(f);
	cr_assert_eq(pd_test_metric(f, "recovered_size"), 1024);
	cr_assert_eq(pd_test_metric(f, "path_mtu_min"), 1447);
	cr_assert_eq(pd_test_metric(f, "path_mtu_max"), 1499);
	cr_assert_not_null(strstr(detail(f), "1450 (VXLAN over IPv4"), "tunnel hint: %s", detail(f));
	cJSON_Delete(r);
}

Test(variants, blackhole_1450_receiver_side)
{
	/* Never recovered: 12 s of silence, then the server's ACK reveals
	 * 17376 B that never arrived; only 200 B had ever come through. */
	cJSON *r = pd_test_report("testdata/captures/pmtu-blackhole-1450/bh1450-probing0-client.pcap");
	cr_assert_eq(pd_test_count_findings(r, "pmtu-blackhole"), 1);
	const cJSON *f = pd_test_finding(r, "pmtu-blackhole", 0);
	cr_assert_eq(pd_test_first_frame(f), 9);
	cr_assert_eq(pd_test_metric(f, "missing_bytes"), 17376);
	cr_assert_eq(pd_test_metric(f, "max_payload_before"), 200);
	cr_assert(pd_test_metric(f, "stall") > 12.0);
	cr_assert_str_eq(pd_test_setting(f, 0), "net.ipv4.tcp_mtu_probing");
	cJSON_Delete(r);

	/* Recovered by MTU probing: data resumes at 1024 B after 6.5 s. */
	r = pd_test_report("testdata/captures/pmtu-blackhole-1450/bh1450-probing1-client.pcap");
	cr_assert_eq(pd_test_count_findings(r, "pmtu-blackhole"), 1);
	f = pd_test_finding(r, "pmtu-blackhole", 0);
	cr_assert_eq(pd_test_metric(f, "recovered_size"), 1024);
	cr_assert_eq(pd_test_metric(f, "max_payload_through"), 1395);
	cr_assert_eq(pd_test_metric(f, "missing_bytes"), 16352);
	cr_assert(pd_test_metric(f, "stall") > 6.4 && pd_test_metric(f, "stall") < 6.6);
	cJSON_Delete(r);
}

Test(variants, mss_clamping_is_healthy)
{
	static const char *const files[] = {"testdata/captures/mss-clamp-ok/mss-clamp-server.pcap",
					    "testdata/captures/mss-clamp-ok/mss-clamp-client.pcap"};
	for (int i = 0; i < 2; i++) {
		cJSON *r = pd_test_report(files[i]);
		cr_assert_eq(count_pmtu_frag(r), 0, "%s", files[i]);
		cr_assert_eq(pd_test_count_findings(r, "retransmissions"), 0);
		cr_assert_eq(pd_test_count_at_least(r, "warning"), 0, "%s", files[i]);
		cJSON_Delete(r);
	}
}

Test(variants, dns_like_fragmented_answers)
{
	cJSON *r = pd_test_report("testdata/captures/udp-bigresp/udp-bigresp-client.pcap");
	cr_assert_eq(pd_test_count_findings(r, "ip-fragmentation"), 2);
	cr_assert_eq(pd_test_count_findings(r, "fragment-reassembly-incomplete"), 0);
	const cJSON *f = pd_test_finding(r, "ip-fragmentation", 0);
	cr_assert_eq(pd_test_metric(f, "fragmented_datagrams"), 10);
	cr_assert_eq(pd_test_metric(f, "fragments"), 30);
	cr_assert_str_eq(pd_test_setting(f, 0), "application datagram size");
	cr_assert_eq(pd_test_count_at_least(r, "warning"), 0);
	cJSON_Delete(r);

	static const char *const loss[] = {"testdata/captures/udp-bigresp/udp-bigresp-lastfrag-loss-client.pcap",
					   "testdata/captures/udp-bigresp/udp-bigresp-lastfrag-loss-server.pcap"};
	for (int i = 0; i < 2; i++) {
		r = pd_test_report(loss[i]);
		cr_assert_eq(pd_test_count_findings(r, "fragment-reassembly-incomplete"), 2, "%s", loss[i]);
		double inc = 0, all = 0, to = 0;
		for (int k = 0; k < 2; k++) {
			f = pd_test_finding(r, "fragment-reassembly-incomplete", k);
			inc += pd_test_metric(f, "incomplete_datagrams");
			all += pd_test_metric(f, "fragmented_datagrams");
			to += pd_test_metric(f, "receiver_reassembly_timeouts");
		}
		cr_assert_eq(inc, 10);
		cr_assert_eq(all, 28); /* 15 IPv4 + 13 IPv6 answers incl. retries */
		cr_assert_eq(to, 10);
		cJSON_Delete(r);
	}
}

Test(variants, capture_artifacts)
{
	cJSON *r = pd_test_report("testdata/captures/capture-artifacts/tso-any-sll2.pcap");
	const cJSON *f = pd_test_finding(r, "capture-offload-tso", 0);
	cr_assert_not_null(f);
	cr_assert_eq(pd_test_metric(f, "super_segments"), 11);
	cr_assert_eq(pd_test_metric(f, "largest_segment"), 65160);
	cr_assert_eq(count_pmtu_frag(r), 0);
	cr_assert_eq(pd_test_count_at_least(r, "warning"), 0);
	cJSON_Delete(r);

	r = pd_test_report("testdata/captures/capture-artifacts/dup-bridge-any.pcap");
	cr_assert_eq(pd_test_count_findings(r, "capture-duplicates"), 1);
	cr_assert_eq(pd_test_count_findings(r, "retransmissions"), 0);
	cr_assert_eq(pd_test_count_at_least(r, "warning"), 0);
	cJSON_Delete(r);

	r = pd_test_report("testdata/captures/capture-artifacts/one-direction.pcap");
	cr_assert_eq(pd_test_count_findings(r, "capture-one-direction"), 1);
	cr_assert_eq(pd_test_count_at_least(r, "warning"), 0);
	cJSON_Delete(r);

	/* 12 deleted frames in 3 runs: each hole counted once, although the
	 * receiver's ACKs reveal the third one before the data above it. */
	r = pd_test_report("testdata/captures/capture-artifacts/drops.pcap");
	cr_assert_eq(pd_test_count_findings(r, "capture-drops"), 1);
	f = pd_test_finding(r, "capture-drops", 0);
	cr_assert_eq(pd_test_metric(f, "missing_segments"), 3);
	cr_assert_eq(pd_test_metric(f, "missing_bytes"), 17376);
	cr_assert_eq(pd_test_count_findings(r, "retransmissions"), 0);
	cr_assert_eq(pd_test_count_findings(r, "pmtu-blackhole"), 0);
	cr_assert_eq(pd_test_count_at_least(r, "warning"), 0);
	cJSON_Delete(r);
}

/* With tcpdump -i any the link header says which way each packet went:
 * the vantage point is known, not guessed from timing (which the client's
 * own tbf queue skews in aq-abort6-any). */
static void expect_vantage(const char *cap, const char *metric_key)
{
	cJSON *r = pd_test_json(cap, NULL);
	cr_assert_not_null(r, "%s", cap);
	const cJSON *f = pd_test_finding(r, "capture-vantage", 0);
	cr_assert_not_null(f, "%s: no capture-vantage", cap);
	const cJSON *m = cJSON_GetObjectItemCaseSensitive(f, "metrics");
	const cJSON *by_link = cJSON_GetObjectItemCaseSensitive(m, "flows_by_link_header");
	const cJSON *want = cJSON_GetObjectItemCaseSensitive(m, metric_key);
	cr_assert(by_link && want, "%s: metrics missing", cap);
	double n = cJSON_GetObjectItemCaseSensitive(want, "value")->valuedouble;
	cr_expect_gt(n, 0, "%s: %s = %.0f", cap, metric_key, n);
	cr_expect_eq(cJSON_GetObjectItemCaseSensitive(by_link, "value")->valuedouble, n, "%s", cap);
	cJSON_Delete(r);
}

Test(variants, vantage_from_cooked_header)
{
	expect_vantage("testdata/captures/aq-abort6-any/aq-abort6-any.pcap", "flows_near_client");
	expect_vantage("testdata/captures/pmtu-client-view/pmtu4-1280-router.pcap", "flows_in_between");
	expect_vantage("testdata/captures/capture-artifacts/tso-any-sll2.pcap", "flows_near_server");
}

/* pdvE: interface MTU 1280 at both ends, IPv6: the MSS (1220) already fits the
 * path, so no PMTU or fragmentation finding and nothing at warning or above. */
Test(pmtu, mtu1280_v6_both_ends_no_finding)
{
	cJSON *r = pd_test_report("testdata/captures/mtu1280-v6/mtu1280-v6-client.pcap");
	cr_assert_eq(count_prefix(r, "pmtu"), 0);
	cr_assert_eq(pd_test_count_findings(r, "mss-exceeds-path"), 0);
	cr_assert_eq(pd_test_count_findings(r, "ip-fragmentation"), 0);
	cr_assert_eq(pd_test_count_findings(r, "retransmissions"), 0);
	cr_assert_eq(pd_test_count_at_least(r, "warning"), 0);
	const cJSON *c = cJSON_GetObjectItemCaseSensitive(r, "capture");
	cr_assert_not_null(c);
	cJSON_Delete(r);
}
