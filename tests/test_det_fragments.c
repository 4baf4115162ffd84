/* det_fragments.c's rules, fed packets built in C (tests/harness.h): UDP
 * datagrams larger than the MTU sent as IPv4 fragments, and a datagram
 * one of whose fragments never comes. */
#include <criterion/criterion.h>
#include <math.h>

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
