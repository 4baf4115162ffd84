/* analyzer/flowtable.c's two counters the worker trusts to skip a shard at
 * a tick or a look for idle flows (pd_flowtable_heads, _candidates), and
 * the engine's own cross-check of those skips (PD_CHECK) on a flow whose
 * timeout shortens while it is the only flow of its queue. */
#include <criterion/criterion.h>
#include <glib.h>

#include "analyzer/engine.h"
#include "analyzer/flowtable.h"
#include "analyzer/router.h"
#include "dissect/addr.h"
#include "harness.h"

static const pd_addr host1 = {.family = 4, .bytes = {10, 0, 0, 1}}, host2 = {.family = 4, .bytes = {10, 0, 0, 2}};

static pd_flow_slot *add(pd_flowtable *t, uint16_t port)
{
	pd_addr a = host1, b = host2;
	uint64_t h = pd_flow_hash(6, &a, port, &b, 80);
	return pd_flowtable_insert(t, g_new0(pd_flow_slot, 1), h, port, 6, &a, port, &b, 80);
}

static void drop(pd_flowtable *t, pd_flow_slot *s)
{
	pd_flowtable_remove(t, s);
	g_free(s);
}

Test(flowtable, heads_move_when_a_head_changes_or_is_alone_and_touched)
{
	pd_flowtable *t = pd_flowtable_new();
	uint64_t h0 = pd_flowtable_heads(t);
	pd_flow_slot *a = add(t, 1);
	cr_assert_neq(pd_flowtable_heads(t), h0, "a flow in an empty queue is its head");
	uint64_t h1 = pd_flowtable_heads(t);
	pd_flow_slot *b = add(t, 2);
	pd_flowtable_touch(t, b, 0);
	cr_assert_eq(pd_flowtable_heads(t), h1, "a flow behind the head came and had a packet");
	pd_flowtable_touch(t, a, 0);
	cr_assert_neq(pd_flowtable_heads(t), h1, "the head moved behind b");
	cr_assert_eq(pd_flowtable_head(t, 0), b);

	/* b moves to queue 2, where it is alone: each packet it has may
	 * change its timeout, so each moves the counter */
	pd_flowtable_touch(t, b, 2);
	uint64_t h2 = pd_flowtable_heads(t);
	pd_flowtable_touch(t, b, 2);
	cr_assert_neq(pd_flowtable_heads(t), h2, "the only flow of its queue had a packet");
	uint64_t h3 = pd_flowtable_heads(t);
	pd_flow_slot *c = add(t, 3); /* queue 0, behind a */
	cr_assert_eq(pd_flowtable_heads(t), h3);
	drop(t, c);
	cr_assert_eq(pd_flowtable_heads(t), h3, "a flow that was no head left");
	drop(t, a);
	cr_assert_neq(pd_flowtable_heads(t), h3, "a head left");
	drop(t, b);
	pd_flowtable_free(t);
}

Test(flowtable, candidates_move_when_the_first_unpacked_flow_changes)
{
	pd_flowtable *t = pd_flowtable_new();
	pd_flow_slot *a = add(t, 1), *b = add(t, 2), *c = add(t, 3);
	cr_assert_eq(pd_flowtable_pack_next(t, 0), a);
	uint64_t k0 = pd_flowtable_candidates(t);
	pd_flowtable_pack_mark(t, a);
	cr_assert_eq(pd_flowtable_candidates(t), k0, "marking is the looker's own step");
	cr_assert_eq(pd_flowtable_pack_next(t, 0), b);
	pd_flowtable_touch(t, c, 0);
	cr_assert_eq(pd_flowtable_candidates(t), k0, "a flow behind the first unpacked one had a packet");
	pd_flowtable_touch(t, b, 0); /* b, the first unpacked flow, had a packet: c comes first */
	cr_assert_neq(pd_flowtable_candidates(t), k0);
	cr_assert_eq(pd_flowtable_pack_next(t, 0), c);
	pd_flowtable_pack_mark(t, c);
	pd_flowtable_pack_mark(t, b);
	cr_assert_null(pd_flowtable_pack_next(t, 0));
	uint64_t k1 = pd_flowtable_candidates(t);
	pd_flow_slot *d = add(t, 4);
	cr_assert_neq(pd_flowtable_candidates(t), k1, "a queue with every flow packed got a new one");
	cr_assert_eq(pd_flowtable_pack_next(t, 0), d);
	drop(t, a);
	drop(t, b);
	drop(t, c);
	drop(t, d);
	pd_flowtable_free(t);
}

/* A client 10.0.0.1:PORT (to 10.0.0.2:80) whose connection lands in
 * another shard than `shard`: its packets make the ticks there. */
static void client_elsewhere(uint32_t shard, char *out, size_t n)
{
	uint16_t port = 40001;
	while (pd_shard_of(pd_flow_hash(6, &host1, port, &host2, 80), PD_MAX_SHARDS) == shard)
		port++;
	g_snprintf(out, n, "10.0.0.1:%u", port);
}

/* A closed connection whose last ACK comes late: both FINs at 1 s, the ACK
 * of the second at 3.5 s. From 1 s it lingers 130 s (a FIN not yet
 * acknowledged is retried for minutes); from 3.5 s only 10 s. It is the
 * only flow of its shard, so its ACK moves no head. Another connection, in
 * another shard, makes the ticks with a packet every second; under
 * PD_CHECK each tick also looks at the shards it would skip, and stops the
 * run if one of them had a flow to end or to pack. */
Test(flowtable, a_late_last_ack_shortens_the_linger_of_the_only_closed_flow)
{
	g_setenv("PD_CHECK", "1", TRUE);
	pd_harness *h = pd_harness_new(NULL);
	char other[32];
	client_elsewhere(pd_shard_of(pd_flow_hash(6, &host1, 40000, &host2, 80), PD_MAX_SHARDS), other, sizeof other);
	pd_hflow c = pd_harness_connect(h, "10.0.0.1:40000", "10.0.0.2:80", 0.002);
	pd_hflow d = pd_harness_connect(h, other, "10.0.0.2:80", 0.002);
	pd_harness_at(h, 0.5);
	pd_harness_data(h, &c, PD_CLIENT, 100);
	pd_harness_ack(h, &c, PD_SERVER);
	pd_harness_at(h, 1.0);
	pd_harness_fin(h, &c, PD_CLIENT);
	pd_harness_later(h, 0.002);
	pd_harness_fin(h, &c, PD_SERVER); /* acknowledges the client's FIN */
	for (int i = 2; i <= 40; i++) {
		if (i == 4) {
			pd_harness_at(h, 3.5);
			pd_harness_ack(h, &c, PD_CLIENT);
		}
		pd_harness_at(h, i);
		pd_harness_data(h, &d, PD_CLIENT, 10);
		pd_harness_later(h, 0.002);
		pd_harness_ack(h, &d, PD_SERVER);
	}
	pd_report *r = pd_harness_finish(h);
	cr_assert_not_null(r);
	pd_report_free(r);
	g_unsetenv("PD_CHECK");
}

/* Fragments of a protocol without ports go to a pseudo-flow at once,
 * which takes each fragment's time as it is. One stamped earlier than the
 * one before (merged captures, a hostile file) moves its idle time back
 * without moving any head or first unpacked flow: at 10.9 s the flow is new
 * (idle from 11.15 s); a fragment stamped 0.5 s makes it idle already at
 * the tick of 11.01 s, which must pack it. */
Test(flowtable, a_fragment_stamped_earlier_moves_its_pseudo_flow_back)
{
	g_setenv("PD_CHECK", "1", TRUE);
	pd_harness *h = pd_harness_new(NULL);
	char other[32];
	client_elsewhere(pd_shard_of(pd_flow_hash(50, &host1, 0, &host2, 0), PD_MAX_SHARDS), other, sizeof other);
	pd_hflow d = pd_harness_connect(h, other, "10.0.0.2:80", 0.002);
	pd_harness_at(h, 10.0);
	pd_harness_data(h, &d, PD_CLIENT, 10);
	pd_harness_at(h, 10.9);
	pd_harness_ip_fragment(h, "10.0.0.1:0", "10.0.0.2:0", 50, 7, 0, 200, true); /* ESP */
	pd_harness_at(h, 0.5);
	pd_harness_ip_fragment(h, "10.0.0.1:0", "10.0.0.2:0", 50, 7, 200, 200, false);
	for (int i = 0; i < 5; i++) {
		pd_harness_at(h, 11.01 + i);
		pd_harness_data(h, &d, PD_CLIENT, 10);
	}
	pd_report *r = pd_harness_finish(h);
	cr_assert_not_null(r);
	pd_report_free(r);
	g_unsetenv("PD_CHECK");
}
