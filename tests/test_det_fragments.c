/* det_fragments.c's rules, fed packets built in C (tests/harness.h): UDP
 * datagrams larger than the MTU sent as IPv4 fragments, and a datagram
 * one of whose fragments never comes. */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "harness.h"

#define CLI "10.0.0.1:5000"
#define SRV "10.0.0.2:5001"

/* A datagram of len payload bytes cut at MTU 1500 (1480 bytes of UDP per
 * fragment), one fragment left out when skip >= 0; one fragment when it
 * fits. Returns the first frame. */
static uint64_t dgram(pd_harness *h, uint32_t len, uint16_t ident, int skip)
{
	uint64_t first = 0;
	if (8 + len <= 1480)
		return pd_harness_udp(h, CLI, SRV, len);
	int i = 0;
	for (uint32_t off = 0; off < 8 + len; off += 1480, i++) {
		uint32_t flen = 8 + len - off < 1480 ? 8 + len - off : 1480;
		if (i != skip) {
			uint64_t fr = pd_harness_udp_fragment(h, CLI, SRV, len, ident, off, flen);
			if (!first)
				first = fr;
		}
		pd_harness_later(h, 0.0001);
	}
	return first;
}

static pd_report *stream(int n, uint32_t len, int broken, uint64_t *broken_frame)
{
	pd_harness *h = pd_harness_new("fragments");
	pd_harness_at(h, 1.0);
	for (int i = 0; i < n; i++) {
		uint64_t fr = dgram(h, len, (uint16_t)(0x100 + i), i == broken ? 1 : -1);
		if (i == broken)
			*broken_frame = fr;
		pd_harness_later(h, 2.0); /* past FR_END_GRACE_NS at the end */
	}
	return pd_harness_finish(h);
}

/* Fragmented datagrams are a note; FR_MANY_DGRAMS 100 of them a warning. */
Test(det_fragments, a_hundred_fragmented_datagrams)
{
	pd_report *r = stream(100, 3000, -1, NULL);
	const pd_finding *f = pd_harness_finding(r, "ip-fragmentation", 0);
	cr_assert_not_null(f);
	cr_expect_eq(f->severity, PD_SEV_WARNING);
	cr_expect_eq(pd_harness_metric(f, "fragmented_datagrams"), 100);
	cr_expect_eq(pd_harness_metric(f, "fragments"), 300, "1480 + 1480 + 48 bytes each");
	cr_expect_eq(pd_harness_metric(f, "max_datagram_size"), 3028, "IP header + UDP header + 3000");
	cr_expect_eq(pd_harness_metric(f, "implied_mtu"), 1500);
	cr_expect_eq(f->first.frame, 1);
	const pd_flow_ref *fl = &g_array_index(f->flows, pd_flow_ref, 0);
	cr_expect_eq(fl->proto, 17);
	cr_expect_eq(pd_harness_count(r, "fragment-reassembly-incomplete"), 0);
	pd_report_free(r);
}

Test(det_fragments, ninety_nine_are_a_note)
{
	pd_report *r = stream(99, 3000, -1, NULL);
	const pd_finding *f = pd_harness_finding(r, "ip-fragmentation", 0);
	cr_assert_not_null(f);
	cr_expect_eq(f->severity, PD_SEV_INFO);
	pd_report_free(r);
}

Test(det_fragments, datagrams_that_fit_are_not_fragmented)
{
	pd_report *r = stream(100, 1400, -1, NULL);
	cr_expect_eq(pd_harness_count(r, "ip-fragmentation"), 0);
	pd_report_free(r);
}

/* The middle fragment of the second of three datagrams never comes: the
 * receiver loses the datagram whole. */
Test(det_fragments, a_missing_fragment_loses_the_datagram)
{
	uint64_t fr = 0;
	pd_report *r = stream(3, 3000, 1, &fr);
	const pd_finding *f = pd_harness_finding(r, "fragment-reassembly-incomplete", 0);
	cr_assert_not_null(f);
	cr_expect_eq(f->severity, PD_SEV_WARNING);
	cr_expect_eq(pd_harness_metric(f, "incomplete_datagrams"), 1);
	cr_expect_eq(pd_harness_metric(f, "fragmented_datagrams"), 3);
	cr_expect_eq(pd_harness_metric(f, "incomplete_in_capture"), 1);
	cr_expect_eq(f->first.frame, fr, "the datagram's first fragment");
	pd_report_free(r);
}

/* ---- a reply proves the request was delivered (issue 34) ---- */

/* dgram() between any two endpoints. */
static uint64_t dgram_ep(pd_harness *h, const char *src, const char *dst, uint32_t len, uint16_t ident, int skip)
{
	uint64_t first = 0;
	if (8 + len <= 1480)
		return pd_harness_udp(h, src, dst, len);
	int i = 0;
	for (uint32_t off = 0; off < 8 + len; off += 1480, i++) {
		uint32_t flen = 8 + len - off < 1480 ? 8 + len - off : 1480;
		if (i != skip) {
			uint64_t fr = pd_harness_udp_fragment(h, src, dst, len, ident, off, flen);
			if (!first)
				first = fr;
		}
		pd_harness_later(h, 0.0001);
	}
	return first;
}

#define NFS_CLI "10.0.0.1:800"
#define NFS_SRV "10.0.0.2:2049"

static const uint8_t rpc_call[12] = {0x12, 0x34, 0x56, 0x78, 0, 0, 0, 0, 0, 0, 0, 2};
static const uint8_t rpc_reply[8] = {0x12, 0x34, 0x56, 0x78, 0, 0, 0, 1};
static const uint8_t rpc_reply_other[8] = {0x12, 0x34, 0x56, 0x79, 0, 0, 0, 1};

/* An NFS WRITE (RPC call, 3000 B) whose middle fragment the capture lacks;
 * resend: the client sends the same call again, whole, 1.1 s later; then
 * the server's reply (reply, xid as given). */
static pd_report *rpc_exchange(bool resend, const uint8_t *reply, uint64_t *first)
{
	pd_harness *h = pd_harness_new("fragments");
	pd_harness_at(h, 1.0);
	pd_harness_udp_head(h, rpc_call, sizeof(rpc_call));
	*first = dgram_ep(h, NFS_CLI, NFS_SRV, 3000, 0x200, 1);
	if (resend) {
		pd_harness_later(h, 1.1);
		dgram_ep(h, NFS_CLI, NFS_SRV, 3000, 0x201, -1);
	}
	pd_harness_later(h, 0.002);
	pd_harness_udp_head(h, reply, 8);
	pd_harness_udp(h, NFS_SRV, NFS_CLI, 100);
	pd_harness_later(h, 40.0); /* past the 30 s reassembly timeout */
	pd_harness_udp_head(h, NULL, 0);
	pd_harness_udp(h, "10.0.0.3:9", "10.0.0.4:9", 10);
	return pd_harness_finish(h);
}

/* The server answered that very call (same xid, same port pair) before
 * any resend: it got the datagram whole, the capture missed a fragment. */
Test(det_fragments, an_answered_rpc_call_was_delivered)
{
	uint64_t first = 0;
	pd_report *r = rpc_exchange(false, rpc_reply, &first);
	cr_expect_eq(pd_harness_count(r, "fragment-reassembly-incomplete"), 0);
	const pd_finding *f = pd_harness_finding(r, "ip-fragmentation", 0);
	cr_assert_not_null(f);
	cr_expect_eq(pd_harness_metric(f, "fragments_missed_by_capture_answered"), 1);
	cr_expect(strstr(f->detail, "before any resend"), "%s", f->detail);
	pd_report_free(r);
}

/* The client resent the call before the answer came: the answer may be
 * the resend's, so the first datagram stays lost. */
Test(det_fragments, a_resent_rpc_call_stays_lost)
{
	uint64_t first = 0;
	pd_report *r = rpc_exchange(true, rpc_reply, &first);
	const pd_finding *f = pd_harness_finding(r, "fragment-reassembly-incomplete", 0);
	cr_assert_not_null(f);
	cr_expect_eq(f->severity, PD_SEV_WARNING);
	cr_expect_eq(pd_harness_metric(f, "incomplete_datagrams"), 1);
	cr_expect_eq(f->first.frame, first);
	pd_report_free(r);
}

/* A reply to another call proves nothing about this one. */
Test(det_fragments, a_reply_to_another_xid_proves_nothing)
{
	uint64_t first = 0;
	pd_report *r = rpc_exchange(false, rpc_reply_other, &first);
	cr_expect_eq(pd_harness_count(r, "fragment-reassembly-incomplete"), 1);
	pd_report_free(r);
}

/* DNS: a query (EDNS, 3000 B, ID 0xbeef) lacking a fragment here, then the
 * response with the same ID from port 53. */
Test(det_fragments, an_answered_dns_query_was_delivered)
{
	static const uint8_t q[4] = {0xbe, 0xef, 0x01, 0x00}, a[4] = {0xbe, 0xef, 0x81, 0x80};
	pd_harness *h = pd_harness_new("fragments");
	pd_harness_at(h, 1.0);
	pd_harness_udp_head(h, q, 4);
	dgram_ep(h, "10.0.0.1:40000", "10.0.0.2:53", 3000, 0x300, 2);
	pd_harness_later(h, 0.01);
	pd_harness_udp_head(h, a, 4);
	pd_harness_udp(h, "10.0.0.2:53", "10.0.0.1:40000", 200);
	pd_harness_later(h, 40.0);
	pd_harness_udp_head(h, NULL, 0);
	pd_harness_udp(h, "10.0.0.3:9", "10.0.0.4:9", 10);
	pd_report *r = pd_harness_finish(h);
	cr_expect_eq(pd_harness_count(r, "fragment-reassembly-incomplete"), 0);
	const pd_finding *f = pd_harness_finding(r, "ip-fragmentation", 0);
	cr_assert_not_null(f);
	cr_expect_eq(pd_harness_metric(f, "fragments_missed_by_capture_answered"), 1);
	cr_expect(strstr(f->detail, "DNS ID"), "%s", f->detail);
	pd_report_free(r);
}
