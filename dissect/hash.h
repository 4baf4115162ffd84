/* 64-bit hashing shared by the flow table and detectors' own tables. */
#ifndef PD_HASH_H
#define PD_HASH_H

#include <stdint.h>
#include <string.h>

#include "packet.h"

/* A finalizer that spreads every input bit over the result (the one from
 * MurmurHash3's 64-bit fmix, a public-domain constant pair). */
static inline uint64_t pd_mix64(uint64_t x)
{
	x ^= x >> 33;
	x *= UINT64_C(0xff51afd7ed558ccd);
	x ^= x >> 33;
	x *= UINT64_C(0xc4ceb9fe1a85ec53);
	x ^= x >> 33;
	return x;
}

static inline uint64_t pd_addr_hash64(const pd_addr *a)
{
	uint64_t lo, hi;
	memcpy(&lo, a->bytes, 8);
	memcpy(&hi, a->bytes + 8, 8);
	return pd_mix64(lo ^ pd_mix64(hi ^ a->family));
}

#endif
