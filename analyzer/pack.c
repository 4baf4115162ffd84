/* Idle packing; see pack.h. Layout of a packed block:
 *   one byte: 1 if the layout's pairs were used, 0 if not;
 *   if used, one bit per pair (bit k%8 of byte k/8): word later[k] held
 *     the same non-zero value as word earlier[k], and is left out below;
 *   a bitmap with one bit per 32-bit word (1: non-zero and not left out;
 *     bit j of byte k is word 8k + j), then those words in order.
 *
 * The bitmap and words work 64 words at a time: a mask of the group's
 * words to keep, then one step per set bit (count trailing zeros), so a
 * pack or unpack costs about one step per kept word instead of a test
 * and a branch per word, which mispredicted on every mixed group. Pairs
 * are compared four at a time, with no branch per pair (whether a word
 * repeats is a coin toss to a predictor); unpacking copies once per
 * repeat. */
#include "analyzer/pack.h"

#include <assert.h>
#include <glib.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

/* Pairs only for blocks of at most this many words: word indexes are
 * 16-bit and the left-out mask sits on the stack. */
#define MAX_WORDS 16384

struct pd_pack_layout {
	size_t n, words;
	/* the pairs, sorted by later (so a chain of repeats restores in
	 * order); set once by the learning thread, then ready */
	size_t n_pairs;
	uint16_t *later, *earlier;
	atomic_bool ready;
	/* learning: per word, over the first half of the blocks, the majority
	 * vote (Boyer-Moore) of which earlier word first held its value; over
	 * the second half, how often it held that word's value */
	unsigned seen;
	uint16_t *candidate, *votes, *hits;
	uint64_t *sorted; /* a block's non-zero words as value << 16 | index */
};

pd_pack_layout *pd_pack_layout_new(size_t n)
{
	assert(n % 4 == 0);
	pd_pack_layout *l = g_new0(pd_pack_layout, 1);
	l->n = n;
	l->words = n / 4;
	atomic_init(&l->ready, false);
	l->candidate = g_new0(uint16_t, l->words + 1);
	l->votes = g_new0(uint16_t, l->words + 1);
	l->hits = g_new0(uint16_t, l->words + 1);
	l->sorted = g_new0(uint64_t, l->words + 1);
	return l;
}

void pd_pack_layout_free(pd_pack_layout *l)
{
	if (!l)
		return;
	g_free(l->later);
	g_free(l->earlier);
	g_free(l->candidate);
	g_free(l->votes);
	g_free(l->hits);
	g_free(l->sorted);
	g_free(l);
}

static uint32_t word_at(const uint8_t *b, size_t i)
{
	uint32_t w;
	memcpy(&w, b + 4 * i, 4);
	return w;
}

static int by_value_then_index(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return (x > y) - (x < y);
}

static void publish(pd_pack_layout *l)
{
	l->later = g_new(uint16_t, l->words + 1);
	l->earlier = g_new(uint16_t, l->words + 1);
	/* a pair pays from one repeat in 16 blocks: 4 bytes saved against a
	 * bit and a compare each time */
	for (size_t i = 0; i < l->words; i++)
		if (l->votes[i] && l->hits[i] >= PD_PACK_LEARN / 2 / 16) {
			l->later[l->n_pairs] = (uint16_t)i;
			l->earlier[l->n_pairs++] = l->candidate[i];
		}
	g_clear_pointer(&l->candidate, g_free);
	g_clear_pointer(&l->votes, g_free);
	g_clear_pointer(&l->hits, g_free);
	g_clear_pointer(&l->sorted, g_free);
	/* the pairs before the flag: a thread that sees it sees them */
	atomic_store_explicit(&l->ready, true, memory_order_release);
}

void pd_pack_layout_learn(pd_pack_layout *l, const uint8_t *block)
{
	if (l->seen >= PD_PACK_LEARN || l->words > MAX_WORDS)
		return;
	if (l->seen >= PD_PACK_LEARN / 2) {
		for (size_t i = 0; i < l->words; i++) {
			uint32_t w = word_at(block, i);
			l->hits[i] += l->votes[i] && w && w == word_at(block, l->candidate[i]);
		}
		if (++l->seen == PD_PACK_LEARN)
			publish(l);
		return;
	}
	size_t k = 0;
	for (size_t i = 0; i < l->words; i++) {
		uint32_t w = word_at(block, i);
		if (w)
			l->sorted[k++] = (uint64_t)w << 16 | i;
	}
	qsort(l->sorted, k, sizeof(*l->sorted), by_value_then_index);
	for (size_t a = 0; a < k;) {
		size_t b = a + 1;
		uint16_t first = (uint16_t)(l->sorted[a] & 0xffff);
		for (; b < k && l->sorted[b] >> 16 == l->sorted[a] >> 16; b++) {
			size_t i = l->sorted[b] & 0xffff;
			if (l->candidate[i] == first && l->votes[i])
				l->votes[i]++;
			else if (!l->votes[i]) {
				l->candidate[i] = first;
				l->votes[i] = 1;
			} else
				l->votes[i]--;
		}
		a = b;
	}
	l->seen++;
}

size_t pd_pack_layout_pairs(const pd_pack_layout *l)
{
	return atomic_load_explicit(&l->ready, memory_order_acquire) ? l->n_pairs : 0;
}

size_t pd_pack_bound(const pd_pack_layout *l)
{
	/* the flag, at most a pair per word, the bitmap, every word */
	return 1 + (l->words + 7) / 8 + (l->words + 7) / 8 + l->n;
}

/* How many of n things, from the k-th on, its group of 64 holds. */
static size_t in_group(size_t n, size_t k)
{
	return n - k < 64 ? n - k : 64;
}

/* Bits 0 to k - 1 of m as (k + 7) / 8 bytes, bit j in byte j / 8 (the
 * bitmaps' and the pair bits' order), and back. */
static void put_bits(uint8_t *to, uint64_t m, size_t k)
{
	for (size_t b = 0; b < (k + 7) / 8; b++)
		to[b] = (uint8_t)(m >> (8 * b));
}

static uint64_t get_bits(const uint8_t *from, size_t k)
{
	uint64_t m = 0;
	for (size_t b = 0; b < (k + 7) / 8; b++)
		m |= (uint64_t)from[b] << (8 * b);
	return m;
}

/* Bit j set: word j of the k words at src is non-zero. */
static uint64_t nonzero_mask(const uint8_t *src, size_t k)
{
	uint64_t m = 0;
	size_t j = 0;
#if defined(__SSE2__)
	const __m128i zero = _mm_setzero_si128();
	for (; j + 4 <= k; j += 4) {
		__m128i v = _mm_loadu_si128((const __m128i *)(const void *)(src + 4 * j));
		unsigned zeros = (unsigned)_mm_movemask_ps(_mm_castsi128_ps(_mm_cmpeq_epi32(v, zero)));
		m |= (uint64_t)(~zeros & 0xfu) << j;
	}
#endif
	for (; j < k; j++)
		m |= (uint64_t)(word_at(src, j) != 0) << j;
	return m;
}

/* Bit p set: a[p] is not zero and equals b[p], for the first k (at most
 * 64, a and b readable up to k rounded up to 4, zero past k in a). */
static uint64_t same_mask(const uint32_t *a, const uint32_t *b, size_t k)
{
	uint64_t m = 0;
	size_t p = 0;
#if defined(__SSE2__)
	const __m128i zero = _mm_setzero_si128();
	for (; p < k; p += 4) {
		__m128i va = _mm_loadu_si128((const __m128i *)(const void *)(a + p));
		__m128i vb = _mm_loadu_si128((const __m128i *)(const void *)(b + p));
		__m128i same = _mm_andnot_si128(_mm_cmpeq_epi32(va, zero), _mm_cmpeq_epi32(va, vb));
		m |= (uint64_t)(unsigned)_mm_movemask_ps(_mm_castsi128_ps(same)) << p;
	}
#endif
	for (; p < k; p++)
		m |= (uint64_t)((a[p] != 0) & (a[p] == b[p])) << p;
	return m;
}

/* The pair bits at out; sets in left_out the words they leave out. The
 * pairs' words are gathered 64 pairs at a time and compared four at a
 * time: one compare and branch per pair cost twice as much. */
static size_t pack_pairs(const pd_pack_layout *l, const uint8_t *src, uint8_t *out, uint64_t *left_out)
{
	uint32_t later[64 + 3], earlier[64 + 3];
	for (size_t k = 0; k < l->n_pairs; k += 64) {
		size_t n = in_group(l->n_pairs, k);
		for (size_t p = 0; p < n; p++) {
			later[p] = word_at(src, l->later[k + p]);
			earlier[p] = word_at(src, l->earlier[k + p]);
		}
		for (size_t p = n; p < n + 3; p++)
			later[p] = earlier[p] = 0; /* never the same: zero */
		uint64_t bits = same_mask(later, earlier, n);
		put_bits(out + k / 8, bits, n);
		for (uint64_t m = bits; m; m &= m - 1) {
			size_t i = l->later[k + (size_t)__builtin_ctzll(m)];
			left_out[i / 64] |= 1ull << (i % 64);
		}
	}
	return (l->n_pairs + 7) / 8;
}

/* The words of group i (64 words from word i, k of them) that m keeps:
 * their bitmap bytes at map + i / 8, the words at p. */
static uint8_t *keep_words(const uint8_t *src, size_t i, size_t k, uint64_t m, uint8_t *map, uint8_t *p)
{
	const uint8_t *s = src + 4 * i;
	put_bits(map + i / 8, m, k);
	while (m) {
		memcpy(p, s + 4 * (size_t)__builtin_ctzll(m), 4);
		p += 4;
		m &= m - 1;
	}
	return p;
}

size_t pd_pack_into(const pd_pack_layout *l, const uint8_t *src, uint8_t *out)
{
	size_t words = l->words, map = (words + 7) / 8;
	/* ready only for a layout that learned: at most MAX_WORDS words */
	bool pairs = atomic_load_explicit(&l->ready, memory_order_acquire);
	uint8_t *o = out;
	*o++ = pairs;
	if (!pairs) {
		uint8_t *p = o + map;
		for (size_t i = 0; i < words; i += 64) {
			size_t k = in_group(words, i);
			p = keep_words(src, i, k, nonzero_mask(src + 4 * i, k), o, p);
		}
		return (size_t)(p - out);
	}
	/* the non-zero words first, in order: that read brings the idle
	 * flow's cold block in at the pace the hardware prefetcher streams
	 * it, and the pairs then read it out of order from the cache */
	uint64_t keep[MAX_WORDS / 64], left_out[MAX_WORDS / 64];
	size_t groups = (words + 63) / 64;
	for (size_t g = 0; g < groups; g++)
		keep[g] = nonzero_mask(src + 4 * 64 * g, in_group(words, 64 * g));
	memset(left_out, 0, 8 * groups);
	o += pack_pairs(l, src, o, left_out);
	uint8_t *p = o + map;
	for (size_t g = 0; g < groups; g++)
		p = keep_words(src, 64 * g, in_group(words, 64 * g), keep[g] & ~left_out[g], o, p);
	return (size_t)(p - out);
}

size_t pd_unpack_from(const pd_pack_layout *l, const uint8_t *packed, uint8_t *dst)
{
	size_t words = l->words, map = (words + 7) / 8;
	const uint8_t *o = packed + 1, *pair_bits = o;
	bool pairs = packed[0];
	/* a block packed with the pairs was packed after they were ready */
	if (pairs && !atomic_load_explicit(&l->ready, memory_order_acquire))
		abort();
	if (pairs)
		o += (l->n_pairs + 7) / 8;
	const uint8_t *p = o + map;
	memset(dst, 0, 4 * words);
	for (size_t i = 0; i < words; i += 64) {
		uint64_t m = get_bits(o + i / 8, in_group(words, i));
		uint8_t *d = dst + 4 * i;
		while (m) {
			memcpy(d + 4 * (size_t)__builtin_ctzll(m), p, 4);
			p += 4;
			m &= m - 1;
		}
	}
	/* the left-out words, in the pairs' order so that a chain of repeats
	 * comes back in turn */
	for (size_t k = 0; pairs && k < l->n_pairs; k += 64) {
		uint64_t m = get_bits(pair_bits + k / 8, in_group(l->n_pairs, k));
		while (m) {
			size_t pr = k + (size_t)__builtin_ctzll(m);
			memcpy(dst + 4 * (size_t)l->later[pr], dst + 4 * (size_t)l->earlier[pr], 4);
			m &= m - 1;
		}
	}
	return (size_t)(p - packed);
}
