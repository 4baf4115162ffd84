/* Parked flows (analyzer/flowtable.h): packing blocks against a template
 * (pack.c), the record pool (recpool.c), and the flow table keeping a
 * parked flow's place until something needs it. */
#include <criterion/criterion.h>
#include <glib.h>
#include <stdint.h>
#include <string.h>
#include "analyzer/flowtable.h"
#include "analyzer/pack.h"
#include "analyzer/recpool.h"
#include "analyzer/sanitizers.h"
#include "testutil.h"

/* ---------------------------------------------------------------- pack */

static void fill_random(GRand *r, uint8_t *b, size_t len)
{
	for (size_t i = 0; i < len; i++)
		b[i] = (uint8_t)g_rand_int(r);
}

/* A block that differs from tmpl in `changes` places, each a run of 1 to
 * max_run bytes (some beyond 255 and after gaps beyond 255 when the block
 * is long enough). */
static void mutate(GRand *r, const uint8_t *tmpl, uint8_t *b, size_t len, int changes, size_t max_run)
{
	memcpy(b, tmpl, len);
	for (int c = 0; c < changes; c++) {
		size_t at = (size_t)g_rand_int_range(r, 0, (gint32)len);
		size_t n = 1 + (size_t)g_rand_int_range(r, 0, (gint32)max_run);
		for (size_t i = at; i < at + n && i < len; i++)
			b[i] = (uint8_t)(tmpl[i] + 1 + g_rand_int_range(r, 0, 255)); /* never equal */
	}
}

static void round_trip(const uint8_t *tmpl, const uint8_t *b, size_t len, const char *what)
{
	uint8_t *packed = g_malloc(pd_pack_bound(len));
	uint8_t *out = g_malloc(len);
	size_t n = pd_pack(b, tmpl, len, packed);
	cr_assert_leq(n + 16, pd_pack_bound(len), "%s: %zu packed bytes for %zu", what, n, len);
	/* 16 bytes a step where AVX2 would take 64: the same bytes */
	uint8_t *packed16 = g_malloc(pd_pack_bound(len));
	pd_pack_allow_avx2(false);
	size_t n16 = pd_pack(b, tmpl, len, packed16);
	pd_pack_allow_avx2(true);
	cr_assert(n16 == n && memcmp(packed16, packed, n) == 0, "%s (len %zu): the two ways of comparing differ",
		  what, len);
	g_free(packed16);
	cr_assert_eq(pd_unpack(packed, n, tmpl, len, out), 0, "%s (len %zu): unpack refused", what, len);
	cr_assert(memcmp(out, b, len) == 0, "%s (len %zu): block differs after the round trip", what, len);
	g_free(packed);
	g_free(out);
}

Test(park, pack_round_trips)
{
	GRand *r = g_rand_new_with_seed(7);
	const size_t lens[] = {1, 2, 3, 15, 16, 17, 63, 64, 65, 300, 1024, 1248, 4000, PD_PACK_MAX_LEN};
	for (size_t k = 0; k < G_N_ELEMENTS(lens); k++) {
		size_t len = lens[k];
		uint8_t *tmpl = g_malloc(len), *b = g_malloc(len);
		fill_random(r, tmpl, len);
		round_trip(tmpl, tmpl, len, "identical");
		fill_random(r, b, len);
		round_trip(tmpl, b, len, "unrelated");
		memset(tmpl, 0, len);
		round_trip(tmpl, b, len, "zero template");
		for (int i = 0; i < 200; i++) {
			mutate(r, tmpl, b, len, g_rand_int_range(r, 1, 40), i % 2 ? 4 : 600);
			round_trip(tmpl, b, len, "mutated");
		}
		/* the first and the last byte alone */
		memcpy(b, tmpl, len);
		b[0] ^= 1;
		b[len - 1] ^= 0x80;
		round_trip(tmpl, b, len, "ends");
		g_free(tmpl);
		g_free(b);
	}
	g_rand_free(r);
}

Test(park, pack_is_small_for_few_changes)
{
	/* what parking is for: a 1 KiB block with a few changed fields */
	uint8_t tmpl[1024] = {0}, b[1024];
	memcpy(b, tmpl, sizeof(b));
	memset(b + 8, 0xaa, 4); /* an id */
	memset(b + 300, 0x55, 8); /* a time */
	b[700] = 1; /* a flag */
	uint8_t packed[2048];
	size_t n = pd_pack(b, tmpl, sizeof(b), packed);
	/* three runs; the last two after gaps of 288 and 392 bytes, which take
	 * the 3-byte form of the skip */
	cr_assert_eq(n, (2 + 4) + (4 + 8) + (4 + 1), "three runs: %zu bytes", n);
}

Test(park, unpack_refuses_damaged_bytes)
{
	uint8_t tmpl[256], b[256], out[256];
	for (size_t i = 0; i < sizeof(tmpl); i++)
		tmpl[i] = (uint8_t)i;
	memcpy(b, tmpl, sizeof(b));
	b[10] = 0;
	b[200] = 0;
	uint8_t packed[512];
	size_t n = pd_pack(b, tmpl, sizeof(b), packed);
	cr_assert_gt(n, 4);
	/* cut anywhere inside a run, or a run that ends past the block */
	for (size_t cut = 1; cut < n; cut++) {
		int rc = pd_unpack(packed, cut, tmpl, sizeof(tmpl), out);
		if (rc == 0)
			continue; /* the cut fell between runs: a shorter valid list */
		cr_assert(memcmp(out, tmpl, sizeof(tmpl)) == 0, "a refused unpack leaves the template");
	}
	uint8_t bad[] = {250, 10, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10}; /* 250 + 10 > 256 */
	cr_assert_eq(pd_unpack(bad, sizeof(bad), tmpl, sizeof(tmpl), out), -1);
	uint8_t zero_len[] = {3, 0};
	cr_assert_eq(pd_unpack(zero_len, sizeof(zero_len), tmpl, sizeof(tmpl), out), -1);
	uint8_t short_lit[] = {0, 5, 1, 2};
	cr_assert_eq(pd_unpack(short_lit, sizeof(short_lit), tmpl, sizeof(tmpl), out), -1);
}

/* ------------------------------------------------------------- recpool */

Test(park, recpool_records_stay_apart_and_are_reused)
{
	pd_recpool p;
	pd_recpool_init(&p);
	enum { N = 5000 };
	uint8_t *rec[N];
	size_t size[N];
	GRand *r = g_rand_new_with_seed(3);
	for (int i = 0; i < N; i++) {
		size[i] = 1 + (size_t)g_rand_int_range(r, 0, 2000); /* some past the classes */
		rec[i] = pd_recpool_alloc(&p, size[i]);
		cr_assert_eq((uintptr_t)rec[i] % 16, 0, "records are 16-byte aligned");
		memset(rec[i], (uint8_t)i, size[i]);
	}
	for (int i = 0; i < N; i++)
		for (size_t k = 0; k < size[i]; k += 97)
			cr_assert_eq(rec[i][k], (uint8_t)i, "record %d was overwritten", i);
	/* a freed record of a class comes back for the next of that class */
	pd_recpool_free(&p, rec[10], size[10]);
	uint8_t *again = pd_recpool_alloc(&p, size[10]);
	if (size[10] <= PD_RECPOOL_STEP * PD_RECPOOL_CLASSES && !PD_SANITIZED)
		cr_expect_eq(again, rec[10]);
	rec[10] = again;
	for (int i = 0; i < N; i++)
		pd_recpool_free(&p, rec[i], size[i]);
	pd_recpool_destroy(&p);
	g_rand_free(r);
}

/* ----------------------------------------------------------- flowtable */

#define EXTRA 256

typedef struct unparks {
	int n;
	pd_flow *last;
	uint32_t last_tag;
} unparks;

static void on_unpark(void *ctx, pd_flow *f, uint32_t tag)
{
	unparks *u = ctx;
	u->n++;
	u->last = f;
	u->last_tag = tag;
}

static pd_addr v4(uint32_t a)
{
	pd_addr x;
	memset(&x, 0, sizeof(x));
	x.family = 4;
	x.bytes[0] = (uint8_t)(a >> 24);
	x.bytes[1] = (uint8_t)(a >> 16);
	x.bytes[2] = (uint8_t)(a >> 8);
	x.bytes[3] = (uint8_t)a;
	return x;
}

/* Flow i: 10.0.x.y:(1000 + i) -> 192.0.2.1:80, last active at frame
 * 100 + i, detector bytes a pattern of i. */
static pd_flow *add_flow(pd_flowtable *t, uint32_t i)
{
	pd_addr c = v4(0x0a000000u + i), s = v4(0xc0000201u);
	pd_flow *f = pd_flowtable_insert(t, 6, &c, (uint16_t)(1000 + i), &s, 80);
	f->last_frame = 100 + i;
	f->last_ts = (pd_time)(100 + i) * 1000;
	f->half[0].pkts = i;
	for (size_t k = 0; k < EXTRA; k += 7)
		f->det_state[k] = (uint8_t)(i + k);
	return f;
}

static void check_flow(const pd_flow *f, uint32_t i)
{
	cr_assert_eq(f->id, i, "flow %u came back as id %" G_GUINT64_FORMAT, i, f->id);
	cr_assert_eq(f->last_frame, 100 + i);
	cr_assert_eq(f->half[0].pkts, i);
	for (size_t k = 0; k < EXTRA; k += 7)
		cr_assert_eq(f->det_state[k], (uint8_t)(i + k), "flow %u: detector byte %zu", i, k);
}

static pd_flow *find(pd_flowtable *t, uint32_t i, int *dir)
{
	pd_addr c = v4(0x0a000000u + i), s = v4(0xc0000201u);
	/* the server's direction: the lookup must match either way */
	return pd_flowtable_lookup(t, 6, &s, 80, &c, (uint16_t)(1000 + i), dir);
}

Test(park, flowtable_keeps_parked_flows_in_place)
{
	enum { N = 3000 };
	pd_flowtable *t = pd_flowtable_new(EXTRA);
	unparks u = {0, NULL, 0};
	pd_flowtable_set_unpark_hook(t, on_unpark, &u);
	for (uint32_t i = 0; i < N; i++)
		add_flow(t, i);
	/* offered oldest first: park the even ones, pass over the odd ones */
	int offered = 0;
	pd_flow *f;
	while ((f = pd_flowtable_to_offer(t, 0))) {
		cr_assert_eq(f->id, (uint64_t)offered, "offered out of order");
		pd_flowtable_offer(t, f, f->id % 2 == 0, (uint32_t)f->id * 3);
		offered++;
	}
	cr_assert_eq(offered, N);
	cr_assert_eq(pd_flowtable_count_offered_in(t, 0), N);
	cr_assert_eq(pd_flowtable_count_parked_in(t, 0), N / 2);
	cr_assert_eq(pd_flowtable_count(t), N, "parked flows are still live flows");
	uint64_t bytes = 0;
	cr_assert_eq(pd_flowtable_parks(t, &bytes), N / 2);
	uint64_t blocks = (uint64_t)(N / 2) * (sizeof(pd_flow) + EXTRA);
	cr_assert_lt(bytes, blocks / 3, "records take %" G_GUINT64_FORMAT " bytes", bytes);
	cr_assert_eq(u.n, 0, "nothing unparked yet");

	/* the head is parked: its age without unparking it */
	pd_flow_age age;
	cr_assert(pd_flowtable_head_in(t, 0, &age));
	cr_assert_null(age.flow);
	cr_assert_eq(age.last_frame, 100);
	cr_assert_eq(u.n, 0);

	/* a lookup unparks, tells the owner, and gives the same flow back */
	int dir = -1;
	f = find(t, 1000, &dir);
	cr_assert_not_null(f);
	cr_assert_eq(dir, PD_SERVER);
	cr_assert_eq(u.n, 1);
	cr_assert_eq(u.last, f);
	cr_assert_eq(u.last_tag, 3000, "the tag it was parked with");
	check_flow(f, 1000);
	cr_assert_eq(pd_flowtable_count_parked_in(t, 0), N / 2 - 1);
	cr_assert_eq(pd_flowtable_count_offered_in(t, 0), N - 1, "active again: to be offered again");
	/* a passed-over flow is found as it was */
	f = find(t, 1001, &dir);
	check_flow(f, 1001);
	cr_assert_eq(u.n, 1);
	cr_assert_eq(pd_flowtable_count_offered_in(t, 0), N - 2);
	pd_flow *next = pd_flowtable_to_offer(t, 0);
	cr_assert(next && next->id == 1000, "the only flows not offered are the two active again, oldest first");

	/* the lookups made 1000 and 1001 the most recent: all others leave
	 * oldest first, parked or not */
	pd_flowtable_touch(t, find(t, 1000, &dir), 0);
	uint32_t expect = 0;
	while ((f = pd_flowtable_oldest(t))) {
		uint32_t want = expect < 1000 ? expect : expect < N - 2 ? expect + 2 : 1001 - (expect - (N - 2));
		check_flow(f, want);
		pd_flowtable_remove(t, f);
		pd_flowtable_release(t, f);
		expect++;
	}
	cr_assert_eq(expect, N);
	cr_assert_eq(pd_flowtable_count_parked_in(t, 0), 0);
	cr_assert_eq(pd_flowtable_count_offered_in(t, 0), 0);
	cr_assert_eq(u.n, N / 2, "every parked flow was unparked once");
	pd_flowtable_free(t);
}

Test(park, offer_starts_over_for_a_flow_active_again)
{
	pd_flowtable *t = pd_flowtable_new(EXTRA);
	for (uint32_t i = 0; i < 3; i++)
		add_flow(t, i);
	pd_flow *f;
	while ((f = pd_flowtable_to_offer(t, 0)))
		pd_flowtable_offer(t, f, false, 0);
	/* flow 1 is active again (to the tail): offered anew, the others not */
	int dir;
	f = find(t, 1, &dir);
	pd_flowtable_touch(t, f, 0);
	f = pd_flowtable_to_offer(t, 0);
	cr_assert_not_null(f);
	cr_assert_eq(f->id, 1);
	pd_flowtable_offer(t, f, true, 0);
	cr_assert_null(pd_flowtable_to_offer(t, 0));
	/* moved to another queue by its packet: offered there */
	f = find(t, 1, &dir);
	pd_flowtable_touch(t, f, 2);
	cr_assert_null(pd_flowtable_to_offer(t, 0));
	f = pd_flowtable_to_offer(t, 2);
	cr_assert_not_null(f);
	cr_assert_eq(f->id, 1);
	while ((f = pd_flowtable_oldest(t))) {
		pd_flowtable_remove(t, f);
		pd_flowtable_release(t, f);
	}
	pd_flowtable_free(t);
}
