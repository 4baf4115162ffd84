/* Idle packing; see pack.h. Layout: a bitmap with one bit per 32-bit word
 * of the block (1: non-zero), then the non-zero words in order. */
#include "analyzer/pack.h"

#include <glib.h>
#include <string.h>

size_t pd_pack_bound(size_t n)
{
	return (n / 4 + 7) / 8 + n;
}

uint8_t *pd_pack_block(const uint8_t *src, size_t n, uint8_t *tmp, uint32_t *len)
{
	size_t words = n / 4, map = (words + 7) / 8;
	/* An idle flow's block is out of the caches: ask for all of its
	 * lines at once rather than one miss after another. */
	for (size_t i = 0; i < n; i += 64)
		__builtin_prefetch(src + i, 0, 0);
	memset(tmp, 0, map); /* one pass into tmp, then one copy */
	uint8_t *p = tmp + map;
	for (size_t i = 0; i + 2 <= words; i += 2) {
		uint64_t v;
		memcpy(&v, src + 4 * i, 8);
		if (!v)
			continue; /* most of a block: two zero words at once */
		if ((uint32_t)v) {
			tmp[i / 8] |= (uint8_t)(1u << (i % 8));
			memcpy(p, src + 4 * i, 4);
			p += 4;
		}
		if (v >> 32) {
			tmp[(i + 1) / 8] |= (uint8_t)(1u << ((i + 1) % 8));
			memcpy(p, src + 4 * i + 4, 4);
			p += 4;
		}
	}
	if (words % 2) {
		uint32_t v;
		memcpy(&v, src + 4 * (words - 1), 4);
		if (v) {
			tmp[(words - 1) / 8] |= (uint8_t)(1u << ((words - 1) % 8));
			memcpy(p, &v, 4);
			p += 4;
		}
	}
	size_t size = (size_t)(p - tmp);
	if (size + 64 > n) /* not worth an allocation and the copy back */
		return NULL;
	*len = (uint32_t)size;
	return g_memdup2(tmp, size);
}

void pd_unpack_block(const uint8_t *packed, uint8_t *dst, size_t n)
{
	size_t words = n / 4, map = (words + 7) / 8;
	const uint8_t *p = packed + map;
	/* one pass over dst, each word written once */
	for (size_t i = 0; i < words; i += 8) {
		uint8_t bits = packed[i / 8];
		size_t k = words - i < 8 ? words - i : 8;
		if (!bits) {
			memset(dst + 4 * i, 0, 4 * k);
			continue;
		}
		for (size_t j = 0; j < k; j++) {
			uint32_t v = 0;
			if (bits & (1u << j)) {
				memcpy(&v, p, 4);
				p += 4;
			}
			memcpy(dst + 4 * (i + j), &v, 4);
		}
	}
}
