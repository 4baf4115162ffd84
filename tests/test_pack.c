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

static size_t nonzero_words(const uint8_t *b, size_t n)
{
	size_t k = 0;
	for (size_t i = 0; i < n; i += 4) {
		uint32_t v;
		memcpy(&v, b + i, 4);
		k += v != 0;
	}
	return k;
}

Test(pack, round_trip_at_every_density_and_size)
{
	GRand *r = g_rand_new_with_seed(7);
	size_t sizes[] = {4, 16, 48, 64, 252, 256, 260, 688, 1120, 3792, 4100, 4784};
	for (size_t si = 0; si < G_N_ELEMENTS(sizes); si++) {
		size_t n = sizes[si];
		uint8_t *src = g_malloc(n), *dst = g_malloc(n), *out = g_malloc(pd_pack_bound(n));
		for (int pct = 0; pct <= 100; pct += 5)
			for (int rep = 0; rep < 20; rep++) {
				fill(src, n, r, pct);
				size_t len = pd_pack_into(src, n, out);
				size_t expect = (n / 4 + 7) / 8 + 4 * nonzero_words(src, n);
				cr_assert_eq(len, expect, "n %zu, %d %%: %zu bytes, not %zu", n, pct, len, expect);
				cr_assert_leq(len, pd_pack_bound(n));
				memset(dst, 0xa5, n);
				cr_assert_eq(pd_unpack_from(out, dst, n), len, "n %zu, %d %%: unpacking reads what packing wrote", n, pct);
				cr_assert(memcmp(src, dst, n) == 0, "n %zu, %d %%: the bytes did not come back", n, pct);
			}
		g_free(src);
		g_free(dst);
		g_free(out);
	}
	g_rand_free(r);
}

/* The worker packs a flow's eager blocks and then its payload blocks into
 * one buffer: the second unpacks from where the first ended. */
Test(pack, two_blocks_one_after_the_other)
{
	GRand *r = g_rand_new_with_seed(11);
	uint8_t a[688], b[3792], out[4800], a2[688], b2[3792];
	cr_assert_geq(sizeof out, pd_pack_bound(sizeof a) + pd_pack_bound(sizeof b));
	for (int rep = 0; rep < 200; rep++) {
		fill(a, sizeof a, r, rep % 100);
		fill(b, sizeof b, r, (rep * 7) % 100);
		size_t la = pd_pack_into(a, sizeof a, out);
		size_t lb = pd_pack_into(b, sizeof b, out + la);
		size_t ua = pd_unpack_from(out, a2, sizeof a2);
		cr_assert_eq(ua, la);
		cr_assert_eq(pd_unpack_from(out + ua, b2, sizeof b2), lb);
		cr_assert(memcmp(a, a2, sizeof a) == 0 && memcmp(b, b2, sizeof b) == 0, "round %d", rep);
	}
	g_rand_free(r);
}

Test(pack, an_all_zero_block_is_its_bitmap)
{
	uint8_t src[3792] = {0}, out[4000], dst[3792];
	cr_assert_geq(sizeof out, pd_pack_bound(sizeof src));
	size_t len = pd_pack_into(src, sizeof src, out);
	cr_assert_eq(len, (3792 / 4 + 7) / 8);
	memset(dst, 1, sizeof dst);
	cr_assert_eq(pd_unpack_from(out, dst, sizeof dst), len);
	cr_assert_eq(nonzero_words(dst, sizeof dst), 0);
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
