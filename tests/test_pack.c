/* analyzer/pack.c: idle flows' blocks packed to their non-zero words and
 * back. The engine trusts the round trip to give every detector its exact
 * bytes, so it is checked on blocks of every density and shape. */
#include <criterion/criterion.h>
#include <glib.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analyzer/pack.h"
#include "testutil.h"

static void fill(uint8_t *b, size_t n, GRand *r, int nonzero_pct)
{
	memset(b, 0, n);
	for (size_t i = 0; i < n; i += 4)
		if (g_rand_int_range(r, 0, 100) < nonzero_pct) {
			uint32_t v = g_rand_int(r);
			/* single non-zero bytes at each place of the word too */
			if (g_rand_boolean(r))
				v &= 0xffu << (8 * g_rand_int_range(r, 0, 4));
			if (!v)
				v = 1;
			memcpy(b + i, &v, 4);
		}
}

static uint32_t word(const uint8_t *b, size_t i)
{
	uint32_t v;
	memcpy(&v, b + 4 * i, 4);
	return v;
}

static void set_word(uint8_t *b, size_t i, uint32_t v)
{
	memcpy(b + 4 * i, &v, 4);
}

static size_t nonzero_words(const uint8_t *b, size_t n)
{
	size_t k = 0;
	for (size_t i = 0; i < n / 4; i++)
		k += word(b, i) != 0;
	return k;
}

/* Repeats as detectors make them: word 3 copies word 1, word 9 copies
 * word 3 (a chain), and in the second half of the block each word 4k + 2
 * copies word 4k; each copy made with probability pct %. */
static void plant_repeats(uint8_t *b, size_t n, GRand *r, int pct)
{
	size_t words = n / 4;
	if (words > 9 && g_rand_int_range(r, 0, 100) < pct) {
		set_word(b, 3, word(b, 1));
		set_word(b, 9, word(b, 3));
	}
	for (size_t i = words / 2 + 2; i < words; i += 4)
		if (g_rand_int_range(r, 0, 100) < pct)
			set_word(b, i, word(b, i - 2));
}

/* A layout that has learned from PD_PACK_LEARN blocks with those repeats. */
static pd_pack_layout *learned_layout(size_t n, GRand *r)
{
	pd_pack_layout *l = pd_pack_layout_new(n);
	uint8_t *b = g_malloc(n);
	for (int i = 0; i < PD_PACK_LEARN; i++) {
		cr_assert_eq(pd_pack_layout_pairs(l), 0, "not published before it has seen enough");
		fill(b, n, r, 60);
		plant_repeats(b, n, r, 80);
		pd_pack_layout_learn(l, b);
	}
	g_free(b);
	return l;
}

static void round_trip(const pd_pack_layout *l, const uint8_t *src, size_t n, const char *what)
{
	uint8_t *dst = g_malloc(n), *out = g_malloc(pd_pack_bound(l));
	size_t len = pd_pack_into(l, src, out);
	cr_assert_leq(len, pd_pack_bound(l), "%s", what);
	memset(dst, 0xa5, n);
	cr_assert_eq(pd_unpack_from(l, out, dst), len, "%s: unpacking reads what packing wrote", what);
	cr_assert(memcmp(src, dst, n) == 0, "%s: the bytes did not come back", what);
	g_free(dst);
	g_free(out);
}

Test(pack, round_trip_at_every_density_and_size)
{
	GRand *r = g_rand_new_with_seed(7);
	size_t sizes[] = {4, 16, 48, 64, 252, 256, 260, 688, 1120, 3792, 4100, 4784};
	for (size_t si = 0; si < G_N_ELEMENTS(sizes); si++) {
		size_t n = sizes[si];
		pd_pack_layout *fresh = pd_pack_layout_new(n), *learned = learned_layout(n, r);
		uint8_t *src = g_malloc(n);
		for (int pct = 0; pct <= 100; pct += 5)
			for (int rep = 0; rep < 20; rep++) {
				fill(src, n, r, pct);
				plant_repeats(src, n, r, rep * 5);
				char *what = g_strdup_printf("n %zu, %d %%, round %d", n, pct, rep);
				round_trip(fresh, src, n, what);
				round_trip(learned, src, n, what);
				g_free(what);
			}
		g_free(src);
		pd_pack_layout_free(fresh);
		pd_pack_layout_free(learned);
	}
	g_rand_free(r);
}

/* Before its layout has learned, a block keeps its non-zero words and a
 * bitmap; after, the words that repeat their pair's earlier word are one
 * bit each. */
Test(pack, repeats_left_out_once_learned)
{
	GRand *r = g_rand_new_with_seed(5);
	const size_t n = 4784, words = n / 4, map = (words + 7) / 8;
	pd_pack_layout *fresh = pd_pack_layout_new(n), *l = learned_layout(n, r);
	size_t pairs = pd_pack_layout_pairs(l);
	/* the planted pairs: 3 <- 1, 9 <- 3 and one per 4 words of the second half */
	size_t planted = 2 + (words - (words / 2 + 2) + 3) / 4;
	cr_assert_geq(pairs, planted, "the planted pairs are learned: %zu of %zu", pairs, planted);
	cr_assert_leq(pairs, planted + 8, "random blocks add few: %zu", pairs);
	uint8_t *src = g_malloc(n), *out = g_malloc(pd_pack_bound(l));
	fill(src, n, r, 60);
	plant_repeats(src, n, r, 100);
	size_t nz = nonzero_words(src, n), repeats = (word(src, 3) != 0) + (word(src, 9) != 0);
	for (size_t i = words / 2 + 2; i < words; i += 4)
		repeats += word(src, i) != 0;
	cr_assert_eq(pd_pack_into(fresh, src, out), 1 + map + 4 * nz, "unlearned: the flag, the bitmap, the words");
	size_t len = pd_pack_into(l, src, out);
	cr_assert_leq(len, 1 + (pairs + 7) / 8 + map + 4 * (nz - repeats), "learned: %zu bytes", len);
	cr_assert_geq(repeats, 50, "the block has repeats to leave out: %zu", repeats);
	g_free(src);
	g_free(out);
	pd_pack_layout_free(fresh);
	pd_pack_layout_free(l);
	g_rand_free(r);
}

/* A flow packed before the layout was published unpacks after it. */
Test(pack, packed_before_learning_unpacks_after)
{
	GRand *r = g_rand_new_with_seed(13);
	const size_t n = 1120;
	pd_pack_layout *l = pd_pack_layout_new(n);
	uint8_t src[1120], dst[1120], learn[1120], out[4 * 1120];
	cr_assert_geq(sizeof out, pd_pack_bound(l));
	fill(src, n, r, 50);
	plant_repeats(src, n, r, 100);
	size_t len = pd_pack_into(l, src, out);
	for (int i = 0; i < PD_PACK_LEARN; i++) {
		fill(learn, n, r, 60);
		plant_repeats(learn, n, r, 90);
		pd_pack_layout_learn(l, learn);
	}
	cr_assert_gt(pd_pack_layout_pairs(l), 0);
	pd_pack_layout_learn(l, learn); /* past learning: nothing changes */
	memset(dst, 0x5a, n);
	cr_assert_eq(pd_unpack_from(l, out, dst), len);
	cr_assert(memcmp(src, dst, n) == 0);
	pd_pack_layout_free(l);
	g_rand_free(r);
}

/* A block too big for 16-bit word numbers never learns, and packs as an
 * unlearned one. */
Test(pack, a_huge_block_keeps_every_word)
{
	GRand *r = g_rand_new_with_seed(17);
	const size_t n = 4 * 16400;
	pd_pack_layout *l = pd_pack_layout_new(n);
	uint8_t *src = g_malloc(n);
	for (int i = 0; i <= PD_PACK_LEARN; i++) {
		fill(src, n, r, 40);
		plant_repeats(src, n, r, 100);
		pd_pack_layout_learn(l, src);
	}
	cr_assert_eq(pd_pack_layout_pairs(l), 0);
	round_trip(l, src, n, "huge");
	g_free(src);
	pd_pack_layout_free(l);
	g_rand_free(r);
}

/* The worker packs a flow's eager blocks and then its payload blocks into
 * one buffer: the second unpacks from where the first ended. */
Test(pack, two_blocks_one_after_the_other)
{
	GRand *r = g_rand_new_with_seed(11);
	pd_pack_layout *la = learned_layout(688, r), *lb = learned_layout(3792, r);
	uint8_t a[688], b[3792], out[9000], a2[688], b2[3792];
	cr_assert_geq(sizeof out, pd_pack_bound(la) + pd_pack_bound(lb));
	for (int rep = 0; rep < 200; rep++) {
		fill(a, sizeof a, r, rep % 100);
		fill(b, sizeof b, r, (rep * 7) % 100);
		plant_repeats(a, sizeof a, r, rep % 100);
		plant_repeats(b, sizeof b, r, (rep * 3) % 100);
		size_t na = pd_pack_into(la, a, out);
		size_t nb = pd_pack_into(lb, b, out + na);
		size_t ua = pd_unpack_from(la, out, a2);
		cr_assert_eq(ua, na);
		cr_assert_eq(pd_unpack_from(lb, out + ua, b2), nb);
		cr_assert(memcmp(a, a2, sizeof a) == 0 && memcmp(b, b2, sizeof b) == 0, "round %d", rep);
	}
	pd_pack_layout_free(la);
	pd_pack_layout_free(lb);
	g_rand_free(r);
}

Test(pack, an_all_zero_block_is_its_flags_and_bitmap)
{
	GRand *r = g_rand_new_with_seed(3);
	pd_pack_layout *l = learned_layout(3792, r);
	uint8_t src[3792] = {0}, out[9000], dst[3792];
	cr_assert_geq(sizeof out, pd_pack_bound(l));
	size_t len = pd_pack_into(l, src, out);
	cr_assert_eq(len, 1 + (pd_pack_layout_pairs(l) + 7) / 8 + (3792 / 4 + 7) / 8);
	memset(dst, 1, sizeof dst);
	cr_assert_eq(pd_unpack_from(l, out, dst), len);
	cr_assert_eq(nonzero_words(dst, sizeof dst), 0);
	pd_pack_layout_free(l);
	g_rand_free(r);
}

/* The engine packs idle flows and unpacks them at their next packet or
 * their end: on a front end's capture (keep-alive connections silent for
 * seconds, idle timeouts, retransmissions, slow start after idle) the
 * report is the same byte for byte with packing off, at 1 and 2 threads.
 * The packed runs are under PD_CHECK, which also checks that what a
 * packed flow keeps aside for its expiry is what its packed halves say. */
static char *report_of(const char *cap, const char *threads, bool pack, char **err)
{
	const char *argv[] = {"--format", "json", "--stats", "--threads", threads, pack ? cap : "--no-pack",
			      pack ? NULL : cap, NULL};
	char *out = NULL;
	int rc = pd_test_run(&out, err, argv);
	cr_assert(rc == 0 || rc == 1, "pcapdoc exit %d: %s", rc, *err ? *err : "");
	return out;
}

Test(pack, idle_flows_packed_and_the_report_unchanged, .timeout = 600)
{
	const char *gen = g_getenv("PD_GEN_CAPTURE");
	cr_assert_not_null(gen, "PD_GEN_CAPTURE is set by meson");
	char *dir = g_dir_make_tmp("pd-pack-XXXXXX", NULL);
	char *cap = g_build_filename(dir, "fe60.pcap", NULL);
	char *cmd = g_strdup_printf("'%s' --frontend 3000 '%s' 60 > /dev/null 2>&1", gen, cap);
	int st = system(cmd);
	cr_assert_eq(st, 0, "%s", cmd);

	char *err = NULL, *plain_err = NULL;
	char *plain = report_of(cap, "1", false, &plain_err);
	cr_assert(strstr(plain_err, "packed 0 times"), "--no-pack packs nothing: %s", plain_err);
	cJSON *r = cJSON_Parse(plain);
	cr_assert_not_null(r);
	cr_assert_geq(pd_test_count_findings(r, "middlebox-idle-timeout"), 1, "idle flows' findings are there to keep");
	cr_assert_geq(pd_test_count_findings(r, "slow-start-after-idle"), 1);
	cJSON_Delete(r);
	const char *threads[] = {"1", "2"};
	g_setenv("PD_CHECK", "1", TRUE);
	for (size_t i = 0; i < G_N_ELEMENTS(threads); i++) {
		char *packed = report_of(cap, threads[i], true, &err);
		const char *n = strstr(err, "payload blocks packed ");
		cr_assert_not_null(n, "%s", err);
		long times = strtol(n + strlen("payload blocks packed "), NULL, 10);
		cr_assert_gt(times, 1000, "threads %s: packed %ld times", threads[i], times);
		/* past the first blocks, packing leaves repeats out */
		const char *pairs = strstr(err, "repeats looked for: ");
		cr_assert_not_null(pairs, "%s", err);
		cr_assert_gt(strtol(pairs + strlen("repeats looked for: "), NULL, 10), 10, "%s", err);
		cr_assert_str_eq(packed, plain, "threads %s: packing changed the report", threads[i]);
		g_free(packed);
		g_free(err);
		err = NULL;
	}
	g_unsetenv("PD_CHECK");
	g_free(plain);
	g_free(plain_err);
	unlink(cap);
	rmdir(dir);
	g_free(cmd);
	g_free(cap);
	g_free(dir);
}
