/* Idle packing; see pack.h. Layout: a bitmap with one bit per 32-bit word
 * of the block (1: non-zero), then the non-zero words in order. */
#include "analyzer/pack.h"

#include <string.h>

size_t pd_pack_bound(size_t n)
{
	return (n / 4 + 7) / 8 + n;
}

static void put_word(uint8_t *map, size_t i, uint8_t **p, const uint8_t *word)
{
	map[i / 8] |= (uint8_t)(1u << (i % 8));
	memcpy(*p, word, 4);
	*p += 4;
}

size_t pd_pack_into(const uint8_t *src, size_t n, uint8_t *out)
{
	size_t words = n / 4, map = (words + 7) / 8;
	memset(out, 0, map);
	uint8_t *p = out + map;
	size_t i = 0;
	for (; i + 2 <= words; i += 2) {
		uint64_t v;
		memcpy(&v, src + 4 * i, 8);
		if (!v)
			continue; /* most of a block: two zero words at once */
		if ((uint32_t)v)
			put_word(out, i, &p, src + 4 * i);
		if (v >> 32)
			put_word(out, i + 1, &p, src + 4 * i + 4);
	}
	if (i < words) {
		uint32_t v;
		memcpy(&v, src + 4 * i, 4);
		if (v)
			put_word(out, i, &p, src + 4 * i);
	}
	return (size_t)(p - out);
}

size_t pd_unpack_from(const uint8_t *packed, uint8_t *dst, size_t n)
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
	return (size_t)(p - packed);
}
