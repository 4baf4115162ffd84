/* The peer's stack from its SYN (dissect/peer_os.h) and what the
 * detectors make of it: the signatures on SYNs built byte by byte, the
 * "unknown" cases, then det_handshake's SYN schedule and det_nagle's
 * delayed-ACK settings for a macOS, a Windows and an unknown peer through
 * the harness, and the public captures the signatures were taken from
 * (docs/peer-os.md; skipped when ../shared is absent). */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "dissect/dissect.h"
#include "dissect/peer_os.h"
#include "harness.h"
#include "testutil.h"

/* ---------------- the classifier on dissected SYNs ---------------- */

static uint8_t F[256];
static pd_packet P;

/* Ethernet, IPv4 with this TTL, TCP with `flags` and these option bytes;
 * dissected into P. */
static void syn_frame(uint8_t ttl, uint8_t flags, const uint8_t *opts, size_t optlen)
{
	memset(F, 0, sizeof(F));
	uint8_t *e = F, *ip = F + 14, *t = F + 34;
	e[12] = 0x08;
	size_t tl = 20 + optlen, iplen = 20 + tl;
	ip[0] = 0x45;
	ip[2] = (uint8_t)(iplen >> 8), ip[3] = (uint8_t)iplen;
	ip[6] = 0x40; /* DF */
	ip[8] = ttl;
	ip[9] = 6;
	memcpy(ip + 12, (const uint8_t[]){10, 207, 0, 1}, 4);
	memcpy(ip + 16, (const uint8_t[]){10, 207, 0, 2}, 4);
	t[0] = 0x9c, t[1] = 0x40; /* 40000 */
	t[3] = 80;
	t[7] = 1;
	t[12] = (uint8_t)((tl / 4) << 4);
	t[13] = flags;
	t[14] = 0xfa, t[15] = 0xf0;
	memcpy(t + 20, opts, optlen);
	memset(&P, 0, sizeof(P));
	P.frame_no = 1;
	P.caplen = P.wirelen = (uint32_t)(14 + iplen);
	P.linktype = 1;
	cr_assert_eq(pd_dissect(&P, F), PD_DISSECT_OK);
	cr_assert_eq(P.l4, PD_L4_TCP);
}

static const char *layout(void)
{
	static char b[16];
	return pd_tcp_layout_str(P.tcp.opt_layout, b, sizeof(b));
}

#define TS 8, 10, 0, 0, 0, 1, 0, 0, 0, 0
static const uint8_t LINUX[] = {2, 4, 5, 0xb4, 4, 2, TS, 1, 3, 3, 7};
static const uint8_t WIN10[] = {2, 4, 5, 0xb4, 1, 3, 3, 8, 1, 1, 4, 2};
static const uint8_t WINXP[] = {2, 4, 5, 0x78, 1, 1, 4, 2};
static const uint8_t APPLE[] = {2, 4, 5, 0xb4, 1, 3, 3, 6, 1, 1, TS, 4, 2, 0, 0};
static const uint8_t WIN_TS_SYNACK[] = {2, 4, 5, 0xb4, 1, 3, 3, 8, 4, 2, TS};

Test(peer_os, signatures)
{
	syn_frame(64, PD_TCP_SYN, LINUX, sizeof(LINUX));
	cr_expect_str_eq(layout(), "MSTNW");
	cr_expect_eq(pd_peer_os_of_syn(&P), PD_OS_LINUX);
	syn_frame(128, PD_TCP_SYN, WIN10, sizeof(WIN10));
	cr_expect_str_eq(layout(), "MNWNNS");
	cr_expect_eq(pd_peer_os_of_syn(&P), PD_OS_WINDOWS);
	syn_frame(113, PD_TCP_SYN, WIN10, sizeof(WIN10)); /* 15 hops away */
	cr_expect_eq(pd_peer_os_of_syn(&P), PD_OS_WINDOWS);
	syn_frame(126, PD_TCP_SYN, WINXP, sizeof(WINXP));
	cr_expect_str_eq(layout(), "MNNS");
	cr_expect_eq(pd_peer_os_of_syn(&P), PD_OS_WINDOWS);
	syn_frame(64, PD_TCP_SYN, APPLE, sizeof(APPLE));
	cr_expect_str_eq(layout(), "MNWNNTSE", "the EOL ends the layout, its padding is not read");
	cr_expect_eq(pd_peer_os_of_syn(&P), PD_OS_APPLE);
	syn_frame(128, PD_TCP_SYN | PD_TCP_ACK, WIN_TS_SYNACK, sizeof(WIN_TS_SYNACK));
	cr_expect_str_eq(layout(), "MNWST");
	cr_expect_eq(pd_peer_os_of_syn(&P), PD_OS_WINDOWS);
	cr_expect_str_eq(pd_peer_os_name(PD_OS_APPLE), "macOS/iOS");
}

/* A layout with the other system's TTL, one another stack also sends, a
 * cut or unknown option, or no SYN: no system is named. */
Test(peer_os, unknown)
{
	syn_frame(128, PD_TCP_SYN, LINUX, sizeof(LINUX));
	cr_expect_eq(pd_peer_os_of_syn(&P), PD_OS_UNKNOWN, "Linux's options with TTL 128");
	syn_frame(255, PD_TCP_SYN, APPLE, sizeof(APPLE));
	cr_expect_eq(pd_peer_os_of_syn(&P), PD_OS_UNKNOWN, "Apple's options from a TTL-255 box");
	syn_frame(64, PD_TCP_SYN, WINXP, sizeof(WINXP));
	cr_expect_eq(pd_peer_os_of_syn(&P), PD_OS_UNKNOWN, "MNNS at TTL 64 is also Linux's");
	syn_frame(90, PD_TCP_SYN, WIN10, sizeof(WIN10));
	cr_expect_eq(pd_peer_os_of_syn(&P), PD_OS_UNKNOWN, "38 hops from 128, or far from 64: neither");
	syn_frame(128, PD_TCP_ACK, WIN10, sizeof(WIN10));
	cr_expect_eq(pd_peer_os_of_syn(&P), PD_OS_UNKNOWN, "not a SYN");
	const uint8_t tfo[] = {2, 4, 5, 0xb4, 4, 2, TS, 1, 3, 3, 7, 34, 2, 1, 1};
	syn_frame(64, PD_TCP_SYN, tfo, sizeof(tfo));
	cr_expect_str_eq(layout(), "MSTNW?NN");
	cr_expect_eq(pd_peer_os_of_syn(&P), PD_OS_UNKNOWN, "a fast-open cookie request is no default SYN");
	const uint8_t nops[] = {1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 2, 4, 5, 0xb4};
	syn_frame(64, PD_TCP_SYN, nops, sizeof(nops));
	cr_expect_str_eq(layout(), "NNNNNNNNNN+");
	cr_expect_eq(pd_peer_os_of_syn(&P), PD_OS_UNKNOWN);
	/* the options cut by the snap length */
	syn_frame(128, PD_TCP_SYN, WIN10, sizeof(WIN10));
	P.caplen = 14 + 20 + 20 + 6;
	pd_dissect(&P, F);
	cr_expect(P.tcp.options_truncated);
	cr_expect_eq(pd_peer_os_of_syn(&P), PD_OS_UNKNOWN);
}

Test(peer_os, initial_ttl)
{
	cr_expect_eq(pd_initial_ttl(64), 64);
	cr_expect_eq(pd_initial_ttl(33), 64);
	cr_expect_eq(pd_initial_ttl(32), 0);
	cr_expect_eq(pd_initial_ttl(97), 128);
	cr_expect_eq(pd_initial_ttl(96), 0);
	cr_expect_eq(pd_initial_ttl(240), 255);
	cr_expect_eq(pd_initial_ttl(0), 0);
}

/* Every row's layout is one a real stack writes: a NOP-padded option set
 * of at most 40 bytes; no two rows for the same TTL and layout. */
Test(peer_os, table_is_consistent)
{
	for (size_t i = 0; i < pd_os_signatures_len; i++) {
		const pd_os_signature *s = &pd_os_signatures[i];
		cr_expect(s->os != PD_OS_UNKNOWN && s->what && *s->what);
		cr_expect(s->initial_ttl == 64 || s->initial_ttl == 128 || s->initial_ttl == 255);
		size_t bytes = 0;
		for (const char *c = s->layout; *c; c++)
			bytes += *c == 'M' ? 4 : *c == 'W' ? 3 : *c == 'S' ? 2 : *c == 'T' ? 10 : 1;
		cr_expect(bytes <= 40 && strspn(s->layout, "MNWSTE") == strlen(s->layout), "%s", s->layout);
		for (size_t j = 0; j < i; j++)
			cr_expect(pd_os_signatures[j].initial_ttl != s->initial_ttl ||
					  strcmp(pd_os_signatures[j].layout, s->layout) != 0,
				  "%s twice", s->layout);
	}
}

/* ---------------- det_handshake: whose SYN schedule ---------------- */

#define CLI "10.207.0.1:40000"
#define SRV "10.207.0.2:80"

static bool has_setting(const pd_finding *f, const char *name)
{
	for (size_t i = 0; i < f->n_settings; i++)
		if (strcmp(f->settings[i], name) == 0)
			return true;
	return false;
}

/* The client's SYN (TTL ttl, options lay, NULL: the harness's own) at the
 * gaps given, in seconds; answered 10 ms after the last one when
 * `answered`, else the capture goes on `silence` s. */
static pd_report *syns(uint8_t ttl, const char *lay, const double *gaps, int ngaps, bool answered, double silence)
{
	pd_harness *h = pd_harness_new("handshake");
	double t = 1.0;
	for (int i = 0; i <= ngaps; i++) {
		pd_harness_at(h, t);
		pd_hseg s = {.flags = PD_TCP_SYN, .seq = 1000, .win = 65535, .mss = 1460, .wscale = 6, .sack_ok = true,
			     .ts = true, .tsval = 77, .ttl = ttl, .df = true, .layout = lay};
		pd_harness_tcp(h, CLI, SRV, &s);
		if (i < ngaps)
			t += gaps[i];
	}
	if (answered) {
		pd_harness_later(h, 0.010);
		pd_hseg sa = {.flags = PD_TCP_SYN | PD_TCP_ACK, .seq = 5000, .ack = 1001, .win = 65160, .mss = 1460,
			      .wscale = 7, .sack_ok = true, .df = true};
		pd_harness_tcp(h, SRV, CLI, &sa);
		pd_harness_later(h, 0.0001);
		pd_hseg a = {.flags = PD_TCP_ACK, .seq = 1001, .ack = 5001, .win = 502, .wscale = -1, .df = true};
		pd_harness_tcp(h, CLI, SRV, &a);
	} else {
		pd_harness_later(h, silence);
		pd_harness_udp(h, "10.207.0.3:5353", "10.207.0.4:5353", 10); /* the capture goes on */
	}
	return pd_harness_finish(h);
}

static const double APPLE_GAPS[] = {1, 1, 1, 1, 1, 2, 4, 8, 16, 32};

/* macOS's gaps are Linux 6.5's too: the SYN names macOS, and no Linux
 * setting is ranked for a retry that succeeded (macOS has none). */
Test(peer_os, apple_schedule_is_named_apple)
{
	pd_report *r = syns(64, "MNWNNTSE", APPLE_GAPS, 6, true, 0);
	const pd_finding *f = pd_harness_finding(r, "syn-retransmit", 0);
	cr_assert_not_null(f);
	cr_expect(strstr(f->detail, "the client is macOS or iOS"), "%s", f->detail);
	cr_expect_null(strstr(f->detail, "linear SYN timeouts (net.ipv4"), "%s", f->detail);
	cr_expect_not(has_setting(f, "net.ipv4.tcp_syn_linear_timeouts"));
	cr_expect(strstr(f->detail_zh, "macOS 或 iOS"), "%s", f->detail_zh);
	pd_report_free(r);

	/* the same gaps from a Linux SYN: Linux's linear timeouts, as before */
	r = syns(64, "MSTNW", APPLE_GAPS, 6, true, 0);
	f = pd_harness_finding(r, "syn-retransmit", 0);
	cr_assert_not_null(f);
	cr_expect(strstr(f->detail, "linear SYN timeouts (net.ipv4.tcp_syn_linear_timeouts"), "%s", f->detail);
	cr_expect(has_setting(f, "net.ipv4.tcp_syn_linear_timeouts"));
	pd_report_free(r);
}

/* Ten retries over 63 s and the capture 30 s on: macOS failed the
 * connect at keepinit, 75 s after the first SYN (its next retry was due
 * at 127 s), though the silence is shorter than the last gap. */
Test(peer_os, apple_gives_up_at_keepinit)
{
	pd_report *r = syns(64, "MNWNNTSE", APPLE_GAPS, 10, false, 30);
	const pd_finding *f = pd_harness_finding(r, "syn-unanswered", 0);
	cr_assert_not_null(f);
	cr_expect_eq(f->severity, PD_SEV_ERROR);
	cr_expect(fabs(pd_harness_metric(f, "connect_failed_after_s") - 75) < 0.01, "%f",
		  pd_harness_metric(f, "connect_failed_after_s"));
	cr_expect(strstr(f->detail, "net.inet.tcp.keepinit (75 s by default)"), "%s", f->detail);
	cr_expect_null(strstr(f->detail, "tcp_syn_retries"), "%s", f->detail);
	cr_expect(isnan(pd_harness_metric(f, "syn_retries_budget_min")));
	cr_expect(has_setting(f, "net.inet.tcp.keepinit"));
	cr_expect_not(has_setting(f, "net.ipv4.tcp_syn_retries"));
	pd_report_free(r);

	/* stopped after 5 retries: before its kernel would have */
	r = syns(64, "MNWNNTSE", APPLE_GAPS, 5, false, 60);
	f = pd_harness_finding(r, "syn-unanswered", 0);
	cr_assert_not_null(f);
	cr_expect(strstr(f->detail, "before its kernel would have"), "%s", f->detail);
	cr_expect(fabs(pd_harness_metric(f, "app_stopped_by_s") - 7) < 0.01);
	pd_report_free(r);
}

/* Windows 7's 3 s initial RTO and 2 retransmissions: connect() fails 21 s
 * after the first SYN; its netsh settings, not Linux's sysctls. */
Test(peer_os, windows_gives_up_after_max_syn_retransmissions)
{
	static const double gaps[] = {3, 6};
	pd_report *r = syns(128, "MNWNNS", gaps, 2, false, 40);
	const pd_finding *f = pd_harness_finding(r, "syn-unanswered", 0);
	cr_assert_not_null(f);
	cr_expect(fabs(pd_harness_metric(f, "connect_failed_after_s") - 21) < 0.01);
	cr_expect(strstr(f->detail, "Windows gives up at the timeout after Max SYN Retransmissions"), "%s",
		  f->detail);
	cr_expect(strstr(f->detail, "initial RTO, 3000 ms here"), "%s", f->detail);
	cr_expect(has_setting(f, "netsh int tcp maxsynretransmissions"));
	cr_expect_not(has_setting(f, "net.ipv4.tcp_syn_retries"));
	pd_report_free(r);

	/* one retransmission, then silence: fewer than any Windows default
	 * (suricata-verify's smb-filename_input.pcap) */
	r = syns(128, "MNWNNS", gaps, 1, false, 300);
	f = pd_harness_finding(r, "syn-unanswered", 0);
	cr_assert_not_null(f);
	cr_expect(strstr(f->detail, "fewer than Windows' default Max SYN Retransmissions"), "%s", f->detail);
	cr_expect(fabs(pd_harness_metric(f, "app_stopped_by_s") - 9) < 0.01);
	pd_report_free(r);

	r = syns(128, "MNWNNS", gaps, 1, true, 0);
	f = pd_harness_finding(r, "syn-retransmit", 0);
	cr_assert_not_null(f);
	cr_expect(has_setting(f, "netsh int tcp initialrto"));
	cr_expect_not(has_setting(f, "net.ipv4.tcp_syn_linear_timeouts"));
	pd_report_free(r);
}

/* The harness's own option order is no stack's: the text and the
 * settings stay Linux's, as for any client the SYN does not name. */
Test(peer_os, unknown_client_keeps_linux_reading)
{
	static const double gaps[] = {1, 2, 4, 8, 16, 32};
	pd_report *r = syns(64, NULL, gaps, 6, false, 130);
	const pd_finding *f = pd_harness_finding(r, "syn-unanswered", 0);
	cr_assert_not_null(f);
	cr_expect(strstr(f->detail, "net.ipv4.tcp_syn_retries=n"), "%s", f->detail);
	cr_expect(has_setting(f, "net.ipv4.tcp_syn_retries"));
	cr_expect_null(strstr(f->detail, "Windows"));
	cr_expect_null(strstr(f->detail, "macOS"));
	pd_report_free(r);
}

/* ---------------- det_nagle: whose delayed ACK ---------------- */

/* Ten requests written in two pieces; the server ACKs the first piece
 * after `delack` s; client and server SYNs from the stacks given. */
static pd_report *nagle(uint8_t cttl, const char *clay, uint8_t sttl, const char *slay, double delack)
{
	pd_harness *h = pd_harness_new("nagle");
	pd_hflow c = pd_harness_connect_os(h, CLI, "10.207.0.2:6379", 0.002, cttl, clay, sttl, slay);
	for (int i = 0; i < 10; i++) {
		pd_harness_data(h, &c, PD_CLIENT, 100);
		pd_harness_later(h, delack);
		pd_harness_ack(h, &c, PD_SERVER);
		pd_harness_later(h, 0.0001);
		pd_harness_data(h, &c, PD_CLIENT, 50);
		pd_harness_later(h, 0.002);
		pd_harness_data(h, &c, PD_SERVER, 300);
		pd_harness_later(h, 0.0001);
		pd_harness_ack(h, &c, PD_CLIENT);
		pd_harness_later(h, 0.1);
	}
	return pd_harness_finish(h);
}

Test(peer_os, windows_acker_ranks_tcpackfrequency)
{
	pd_report *r = nagle(64, "MSTNW", 128, "MNWNNS", 0.200);
	const pd_finding *f = pd_harness_finding(r, "nagle-delayed-ack", 0);
	cr_assert_not_null(f);
	cr_expect_str_eq(f->settings[0], "TcpAckFrequency");
	cr_expect(has_setting(f, "TCP_NODELAY") && has_setting(f, "TCP_CORK"), "a Linux holder's own fixes");
	cr_expect_not(has_setting(f, "TCP_QUICKACK"));
	cr_expect_not(has_setting(f, "route quickack"));
	cr_expect(strstr(f->detail, "The ACKing side is Windows"), "%s", f->detail);
	cr_expect_null(strstr(f->detail, "or a Linux peer whose delayed-ACK"), "%s", f->detail);
	pd_report_free(r);

	/* a short timer (suricata-verify's rfb-protocol-3.8_04: 32 ms from a
	 * Windows client) is not called Windows' 200 ms one */
	r = nagle(64, "MSTNW", 128, "MNWNNS", 0.032);
	f = pd_harness_finding(r, "nagle-delayed-ack", 0);
	cr_assert_not_null(f);
	cr_expect_str_eq(f->settings[0], "TcpAckFrequency");
	cr_expect(strstr(f->detail, "its delayed ACKs follow TcpAckFrequency"), "%s", f->detail);
	cr_expect_null(strstr(f->detail, "200 ms timer"), "%s", f->detail);
	pd_report_free(r);
}

Test(peer_os, apple_acker_ranks_delayed_ack_sysctl)
{
	pd_report *r = nagle(128, "MNWNNS", 64, "MNWNNTSE", 0.150);
	const pd_finding *f = pd_harness_finding(r, "nagle-delayed-ack", 0);
	cr_assert_not_null(f);
	cr_expect_str_eq(f->settings[0], "net.inet.tcp.delayed_ack");
	cr_expect(has_setting(f, "TCP_NODELAY"));
	cr_expect_not(has_setting(f, "TCP_CORK"), "a Windows holder has no TCP_CORK");
	cr_expect_not(has_setting(f, "MSG_MORE"));
	cr_expect_not(has_setting(f, "TCP_QUICKACK"));
	cr_expect(strstr(f->detail, "The ACKing side is macOS or iOS"), "%s", f->detail);
	pd_report_free(r);
}

Test(peer_os, linux_or_unknown_acker_as_before)
{
	const char *lays[] = {"MSTNW", NULL};
	for (int i = 0; i < 2; i++) {
		pd_report *r = nagle(64, lays[i], 64, lays[i], 0.040);
		const pd_finding *f = pd_harness_finding(r, "nagle-delayed-ack", 0);
		cr_assert_not_null(f);
		cr_expect_str_eq(f->settings[0], "TCP_NODELAY");
		cr_expect(has_setting(f, "TCP_QUICKACK") && has_setting(f, "TCP_CORK"));
		cr_expect_null(strstr(f->detail, "ACKing side is"), "%s", f->detail);
		pd_report_free(r);
	}
}

/* ---------------- public captures (../shared) ---------------- */

static cJSON *public_report(const char *rel)
{
	char *path = pd_test_shared(rel);
	if (!g_file_test(path, G_FILE_TEST_EXISTS)) {
		g_free(path);
		return NULL;
	}
	cJSON *r = pd_test_json_abs(path, NULL);
	g_free(path);
	cr_assert_not_null(r);
	return r;
}

/* chrissanders-packets' http_espn_fail.pcapng: a Mac (TTL 64, MSS, NOP,
 * WS, NOP, NOP, TS, SACK, EOL) retries toward 203.0.113.94:80 at 1, 1, 1,
 * 1, 1, 2, 4, 8, 16, 32 s (frames 25-530) and opens new connections at
 * 75.9 s, when keepinit ended the first ones. */
Test(peer_os, public_macos_client)
{
	cJSON *r = public_report("traces/public/chrissanders-packets/http_espn_fail.pcapng");
	if (!r)
		cr_skip_test("public captures not present");
	const cJSON *f = pd_test_finding(r, "syn-unanswered", 0);
	cr_assert_not_null(f);
	const char *d = pd_test_str(f, "detail");
	cr_expect(strstr(d, "macOS or iOS"), "%s", d);
	cr_expect(strstr(d, "net.inet.tcp.keepinit"), "%s", d);
	cr_expect_null(strstr(d, "linear SYN timeouts (net.ipv4"), "%s", d);
	cr_expect(fabs(pd_test_metric(f, "connect_failed_after_s") - 75) < 0.5);
	const cJSON *set = cJSON_GetObjectItem(f, "settings");
	bool keepinit = false, linux_retries = false;
	for (const cJSON *s = set ? set->child : NULL; s; s = s->next) {
		const char *n = pd_test_str(s, "name");
		keepinit |= strcmp(n, "net.inet.tcp.keepinit") == 0;
		linux_retries |= strncmp(n, "net.ipv4.tcp_syn", 16) == 0;
	}
	cr_expect(keepinit && !linux_retries);
	cJSON_Delete(r);
}
