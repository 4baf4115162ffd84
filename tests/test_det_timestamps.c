/* det_timestamps.c's rules, fed packets built in C (tests/harness.h): a
 * SYN on a 4-tuple still in the server's TIME_WAIT, answered by an ACK for
 * the old connection; PAWS when its TSval is older than the old one's. */
#include <criterion/criterion.h>
#include <math.h>

#include "harness.h"

#define CLI "10.0.0.1:40000"
#define SRV "10.0.0.2:80"
#define OLD_LAST_TSVAL 6100u /* the client's clock (5000 + ms) at t=1.1 */
#define OLD_CLIENT_NEXT 1102u /* ISN 1000, 100 bytes, FIN */

/* One exchange at t=1, closed by the server first (it holds TIME_WAIT);
 * the client's last TSval is OLD_LAST_TSVAL. */
static void old_connection(pd_harness *h)
{
	pd_harness_at(h, 1.0);
	pd_hflow c = pd_harness_connect_isn(h, CLI, SRV, 0.001, 1000, 900000);
	pd_harness_data(h, &c, PD_CLIENT, 100);
	pd_harness_later(h, 0.001);
	pd_harness_data(h, &c, PD_SERVER, 300);
	pd_harness_fin(h, &c, PD_SERVER);
	pd_harness_at(h, 1.1);
	pd_harness_fin(h, &c, PD_CLIENT);
	pd_harness_later(h, 0.001);
	pd_harness_ack(h, &c, PD_SERVER);
}

static uint64_t syn(pd_harness *h, uint32_t isn, uint32_t tsval)
{
	pd_hseg s = {.flags = PD_TCP_SYN, .seq = isn, .win = 64240, .mss = 1460, .wscale = 7, .sack_ok = true,
		     .ts = true, .tsval = tsval, .df = true};
	return pd_harness_tcp(h, CLI, SRV, &s);
}

/* At t=3 a new SYN (ISN 50000) with TSval `tsval`; the server answers
 * with an ACK for the old connection (challenge) or a SYN-ACK; after a
 * challenge the client resets it and its SYN, retried 1 s later, gets
 * through. `*syn_fr`, `*ack_fr`: the first SYN and its answer. */
static pd_report *reuse(uint32_t tsval, bool challenge, uint64_t *syn_fr, uint64_t *ack_fr)
{
	pd_harness *h = pd_harness_new("timestamps");
	old_connection(h);
	pd_harness_at(h, 3.0);
	*syn_fr = syn(h, 50000, tsval);
	pd_harness_later(h, 0.001);
	pd_hseg a = {.flags = PD_TCP_ACK, .seq = 900302, .win = 502, .df = true, .ts = true, .tsval = 702999};
	if (challenge) {
		a.ack = OLD_CLIENT_NEXT, a.tsecr = OLD_LAST_TSVAL;
		*ack_fr = pd_harness_tcp(h, SRV, CLI, &a);
		pd_harness_later(h, 0.0001);
		pd_hseg rst = {.flags = PD_TCP_RST, .seq = OLD_CLIENT_NEXT, .df = true};
		pd_harness_tcp(h, CLI, SRV, &rst);
		pd_harness_at(h, 4.0);
		syn(h, 50000, tsval + 1000);
		pd_harness_later(h, 0.001);
	}
	pd_hseg sa = {.flags = PD_TCP_SYN | PD_TCP_ACK, .seq = 777000, .ack = 50001, .win = 65160, .mss = 1460,
		      .wscale = 7, .sack_ok = true, .ts = true, .tsval = 703000, .tsecr = tsval, .df = true};
	uint64_t fr = pd_harness_tcp(h, SRV, CLI, &sa);
	if (!challenge)
		*ack_fr = fr;
	return pd_harness_finish(h);
}

/* A challenge ACK to a SYN whose TSval is older than the last one the
 * previous connection on the 4-tuple carried: PAWS in TIME_WAIT. */
Test(det_timestamps, older_tsval_in_time_wait_is_paws)
{
	uint64_t s, a;
	pd_report *r = reuse(OLD_LAST_TSVAL - 1000, true, &s, &a);
	const pd_finding *f = pd_harness_finding(r, "paws-rejected-syn", 0);
	cr_assert_not_null(f);
	cr_expect_eq(f->severity, PD_SEV_ERROR);
	cr_expect_eq(pd_harness_metric(f, "tsval_behind"), 1000);
	cr_expect_eq(pd_harness_metric(f, "previous_tsval"), OLD_LAST_TSVAL);
	double since = pd_harness_metric(f, "since_previous_end_s");
	cr_expect(since > 1.89 && since < 1.91, "since %f", since);
	cr_expect(fabs(pd_harness_metric(f, "retry_after_s") - 1.0) < 1e-6, "retry %f",
		  pd_harness_metric(f, "retry_after_s"));
	cr_expect_eq(f->first.frame, s, "the SYN first");
	cr_assert_geq(f->examples->len, 2);
	cr_expect_eq(g_array_index(f->examples, pd_evidence, 1).frame, a, "then the old connection's ACK");
	const pd_flow_ref *fl = &g_array_index(f->flows, pd_flow_ref, 0);
	cr_expect_eq(fl->client_port, 40000);
	cr_expect_eq(pd_harness_count(r, "syn-rejected-existing-state"), 0);
	pd_report_free(r);
}

/* The same challenge to a newer TSval: PAWS passes it, other state
 * (a sequence check) rejected it. */
Test(det_timestamps, newer_tsval_is_not_paws)
{
	uint64_t s, a;
	pd_report *r = reuse(OLD_LAST_TSVAL + 1000, true, &s, &a);
	cr_expect_eq(pd_harness_count(r, "paws-rejected-syn"), 0);
	const pd_finding *f = pd_harness_finding(r, "syn-rejected-existing-state", 0);
	cr_assert_not_null(f);
	cr_expect_eq(f->severity, PD_SEV_WARNING);
	cr_expect_eq(f->first.frame, s);
	pd_report_free(r);
}

/* The cause removed: the server answers the reused 4-tuple's SYN with a
 * SYN-ACK. */
Test(det_timestamps, answered_reuse_is_fine)
{
	uint64_t s, a;
	pd_report *r = reuse(OLD_LAST_TSVAL - 1000, false, &s, &a);
	cr_expect_eq(pd_harness_count(r, "paws-rejected-syn"), 0);
	cr_expect_eq(pd_harness_count(r, "syn-rejected-existing-state"), 0);
	pd_report_free(r);
}
