/* Idle packing; see pack.h. Layout: a bitmap with one bit per 32-bit word
 * of the block (1: non-zero; bit j of byte k is word 8k + j), then the
 * non-zero words in order.
 *
 * Both ways work 64 words at a time: a mask of the group's non-zero words,
 * then one step per set bit (count trailing zeros). A pack or unpack then
 * costs about one step per non-zero word (a third of an idle flow's words)
 * instead of a test and a branch per word, which mispredicted on every
 * mixed group. */
#include "analyzer/pack.h"

#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

size_t pd_pack_bound(size_t n)
{
	return (n / 4 + 7) / 8 + n;
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
	for (; j < k; j++) {
		uint32_t w;
		memcpy(&w, src + 4 * j, 4);
		m |= (uint64_t)(w != 0) << j;
	}
	return m;
}

size_t pd_pack_into(const uint8_t *src, size_t n, uint8_t *out)
{
	size_t words = n / 4, map = (words + 7) / 8;
	uint8_t *p = out + map;
	for (size_t i = 0; i < words; i += 64) {
		size_t k = words - i < 64 ? words - i : 64;
		const uint8_t *s = src + 4 * i;
		uint64_t m = nonzero_mask(s, k);
		for (size_t b = 0; b < (k + 7) / 8; b++)
			out[i / 8 + b] = (uint8_t)(m >> (8 * b));
		while (m) {
			memcpy(p, s + 4 * (size_t)__builtin_ctzll(m), 4);
			p += 4;
			m &= m - 1;
		}
	}
	return (size_t)(p - out);
}

size_t pd_unpack_from(const uint8_t *packed, uint8_t *dst, size_t n)
{
	size_t words = n / 4, map = (words + 7) / 8;
	const uint8_t *p = packed + map;
	memset(dst, 0, 4 * words);
	for (size_t i = 0; i < words; i += 64) {
		size_t bytes = map - i / 8 < 8 ? map - i / 8 : 8;
		uint64_t m = 0;
		for (size_t b = 0; b < bytes; b++)
			m |= (uint64_t)packed[i / 8 + b] << (8 * b);
		uint8_t *d = dst + 4 * i;
		while (m) {
			memcpy(d + 4 * (size_t)__builtin_ctzll(m), p, 4);
			p += 4;
			m &= m - 1;
		}
	}
	return (size_t)(p - packed);
}
