/* See pack.h. The packed form is a list of runs, each:
 *
 *   skip   1 byte, or 255 then 2 bytes little-endian: bytes equal to the
 *          template since the end of the previous run
 *   n      1 byte, 1..255: bytes that follow
 *   bytes  n bytes of the block
 *
 * Runs of the block that differ from the template are found from a bitmap
 * of differing bytes, made 16 bytes at a time (a flood parks and unparks
 * every one of its flows); gaps of fewer than 3 equal bytes stay inside a
 * run, where they cost less than a new run's header. */
#include "pack.h"

#include <glib.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif
#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define PD_PACK_AVX2 1
#endif

#define PACK_MIN_GAP 3
#define MIN_SIZE(a, b) ((a) < (b) ? (a) : (b))

size_t pd_pack_bound(size_t len)
{
	/* worst case: one differing byte in every PACK_MIN_GAP + 1, each its
	 * own run (2-byte header); plus a 4-byte header per 255-byte stretch;
	 * plus the 16 bytes a run's copy may write past its end */
	return len + len / 2 + 4 * (len / 255 + 2) + 16;
}

/* Copies n (1..255) bytes without a call: most runs are a few bytes
 * (a counter's low bytes, a time's), where memcpy's call costs more than
 * the copy. Two overlapping moves cover 4..8 and 8..16 bytes. */
static inline void copy_small(uint8_t *dst, const uint8_t *src, size_t n)
{
	if (n >= 8 && n <= 16) {
		uint64_t a, b;
		memcpy(&a, src, 8);
		memcpy(&b, src + n - 8, 8);
		memcpy(dst, &a, 8);
		memcpy(dst + n - 8, &b, 8);
	} else if (n >= 4 && n < 8) {
		uint32_t a, b;
		memcpy(&a, src, 4);
		memcpy(&b, src + n - 4, 4);
		memcpy(dst, &a, 4);
		memcpy(dst + n - 4, &b, 4);
	} else if (n < 4) {
		dst[0] = src[0];
		if (n > 1)
			dst[1] = src[1];
		if (n > 2)
			dst[2] = src[2];
	} else {
		memcpy(dst, src, n);
	}
}

#ifdef PD_PACK_AVX2
/* Where the CPU has AVX2 (built for any x86-64, chosen at run time): 64
 * bytes a step: a quarter less time per block than 16 at a time. */
static bool use_avx2 = true;

void pd_pack_allow_avx2(bool allow)
{
	use_avx2 = allow;
}

__attribute__((target("avx2"))) static size_t diff_bits_avx2(const uint8_t *src, const uint8_t *tmpl,
							      size_t len, uint64_t *bits)
{
	size_t i = 0;
	for (; i + 64 <= len; i += 64) {
		__m256i a = _mm256_loadu_si256((const __m256i *)(const void *)(src + i));
		__m256i b = _mm256_loadu_si256((const __m256i *)(const void *)(tmpl + i));
		__m256i c = _mm256_loadu_si256((const __m256i *)(const void *)(src + i + 32));
		__m256i d = _mm256_loadu_si256((const __m256i *)(const void *)(tmpl + i + 32));
		uint32_t lo = (uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(a, b));
		uint32_t hi = (uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(c, d));
		bits[i / 64] = ~((uint64_t)hi << 32 | lo);
	}
	return i;
}
#else
void pd_pack_allow_avx2(bool allow)
{
	(void)allow;
}
#endif

/* One bit per byte of the block, set where src and tmpl differ. */
static void diff_bits(const uint8_t *src, const uint8_t *tmpl, size_t len, uint64_t *bits)
{
	size_t words = (len + 63) / 64, i = 0;
	memset(bits, 0, words * sizeof(uint64_t));
#ifdef PD_PACK_AVX2
	if (use_avx2 && __builtin_cpu_supports("avx2"))
		i = diff_bits_avx2(src, tmpl, len, bits);
#endif
#ifdef __SSE2__
	for (; i + 16 <= len; i += 16) {
		__m128i a = _mm_loadu_si128((const __m128i *)(const void *)(src + i));
		__m128i b = _mm_loadu_si128((const __m128i *)(const void *)(tmpl + i));
		bits[i / 64] |= (uint64_t)(uint16_t)~_mm_movemask_epi8(_mm_cmpeq_epi8(a, b)) << (i % 64);
	}
#endif
	for (; i < len; i++)
		bits[i / 64] |= (uint64_t)(src[i] != tmpl[i]) << (i % 64);
}

/* Copies n bytes from a block of which at least 16 remain at src, or
 * exactly n when fewer do. dst has 16 bytes of slack. */
static inline void copy_run(uint8_t *dst, const uint8_t *src, size_t n, size_t src_left)
{
	size_t k = 0;
	for (; k < n && src_left - k >= 16; k += 16)
		memcpy(dst + k, src + k, 16);
	if (k < n)
		memcpy(dst + k, src + k, n - k);
}

/* Writes one run's header and bytes; returns the bytes written. */
static size_t emit_run(uint8_t *dst, const uint8_t *src, size_t start, size_t end, size_t prev_end,
		       size_t len)
{
	size_t out = 0;
	for (size_t i = start; i < end;) {
		size_t n = end - i < 255 ? end - i : 255;
		size_t skip = i - prev_end;
		if (skip < 255) {
			dst[out++] = (uint8_t)skip;
		} else {
			dst[out++] = 255;
			dst[out++] = (uint8_t)(skip & 0xff);
			dst[out++] = (uint8_t)(skip >> 8);
		}
		dst[out++] = (uint8_t)n;
		copy_run(dst + out, src + i, n, len - i);
		out += n;
		i += n;
		prev_end = i;
	}
	return out;
}

size_t pd_pack(const uint8_t *src, const uint8_t *tmpl, size_t len, uint8_t *dst)
{
	uint64_t bits[PD_PACK_MAX_LEN / 64 + 1];
	uint16_t edges[PD_PACK_MAX_LEN + 2];
	if (len > PD_PACK_MAX_LEN)
		g_error("pcapdoc: a block of %zu bytes to pack, more than %d", len, PD_PACK_MAX_LEN);
	size_t words = (len + 63) / 64;
	diff_bits(src, tmpl, len, bits);
	/* The edges of the runs: bit i of edge is set where bit i differs
	 * from bit i - 1, so edges alternate start, end (a run that reaches
	 * the block's end ends at len, in the word past the last). */
	size_t n_edges = 0;
	uint64_t carry = 0;
	for (size_t w = 0; w <= words; w++) {
		uint64_t b = w < words ? bits[w] : 0;
		uint64_t edge = b ^ (b << 1 | carry);
		carry = b >> 63;
		for (; edge; edge &= edge - 1)
			edges[n_edges++] = (uint16_t)(w * 64 + (size_t)__builtin_ctzll(edge));
	}
	size_t out = 0, prev_end = 0;
	for (size_t e = 0; e + 1 < n_edges; e += 2) {
		size_t start = edges[e], end = edges[e + 1];
		while (e + 3 < n_edges && edges[e + 2] - end < PACK_MIN_GAP) {
			end = edges[e + 3];
			e += 2;
		}
		size_t n = end - start, skip = start - prev_end;
		if (n <= 16 && skip < 255 && len - start >= 16) { /* nearly every run */
			dst[out] = (uint8_t)skip;
			dst[out + 1] = (uint8_t)n;
			memcpy(dst + out + 2, src + start, 16);
			out += 2 + n;
		} else {
			out += emit_run(dst + out, src, start, end, prev_end, len);
		}
		prev_end = end;
	}
	return out;
}

int pd_unpack(const uint8_t *packed, size_t packed_len, const uint8_t *tmpl, size_t len, uint8_t *dst)
{
	memcpy(dst, tmpl, len);
	size_t in = 0, pos = 0;
	while (in < packed_len) {
		size_t skip = packed[in++];
		if (skip == 255) {
			if (packed_len - in < 2)
				goto bad;
			skip = (size_t)packed[in] | (size_t)packed[in + 1] << 8;
			in += 2;
		}
		if (in >= packed_len)
			goto bad;
		size_t n = packed[in++];
		if (n == 0 || skip > len - pos || n > len - pos - skip || n > packed_len - in)
			goto bad;
		pos += skip;
		copy_small(dst + pos, packed + in, n);
		pos += n;
		in += n;
	}
	return 0;
bad:
	memcpy(dst, tmpl, len);
	return -1;
}

void pd_packer_init(pd_packer *p, size_t len)
{
	memset(p, 0, sizeof(*p));
	p->len = len;
}

void pd_packer_free(pd_packer *p)
{
	g_free(p->tmpl);
	g_free(p->scratch);
	memset(p, 0, sizeof(*p));
}

size_t pd_packer_pack(pd_packer *p, const uint8_t *block)
{
	if (!p->scratch) { /* the first block: the template (0 bytes: none) */
		p->tmpl = p->len ? g_memdup2(block, p->len) : NULL;
		p->scratch = g_malloc(pd_pack_bound(p->len));
	}
	return p->len ? pd_pack(block, p->tmpl, p->len, p->scratch) : 0;
}

int pd_packer_unpack(const pd_packer *p, const uint8_t *packed, size_t packed_len, uint8_t *dst)
{
	if (!p->len)
		return packed_len ? -1 : 0;
	if (!p->tmpl) {
		memset(dst, 0, p->len);
		return -1;
	}
	return pd_unpack(packed, packed_len, p->tmpl, p->len, dst);
}
