/* Addresses: the one place that compares, hashes and prints a pd_addr. */
#ifndef PD_ADDR_H
#define PD_ADDR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "packet.h"

/* Bytes of the address that mean something: 4, 16, or 0 for none. */
static inline size_t pd_addr_len(const pd_addr *a)
{
	return a->family == 6 ? 16 : a->family == 4 ? 4 : 0;
}

bool pd_addr_equal(const pd_addr *a, const pd_addr *b);
int pd_addr_cmp(const pd_addr *a, const pd_addr *b);

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

/* The hash every table keyed on addresses uses (unused bytes of a pd_addr
 * are zero). */
static inline uint64_t pd_addr_hash64(const pd_addr *a)
{
	uint64_t lo, hi;
	memcpy(&lo, a->bytes, 8);
	memcpy(&hi, a->bytes + 8, 8);
	return pd_mix64(lo ^ pd_mix64(hi ^ a->family));
}

#define PD_ADDR_STRLEN 46
/* The printable form (inet_ntop) into buf; "-" for no address; returns buf. */
const char *pd_addr_str(const pd_addr *a, char *buf, size_t len);
/* The same, IPv6 in brackets so that "addr:port" stays readable. */
const char *pd_addr_bracketed(const pd_addr *a, char *buf, size_t len);
#define PD_ENDPOINT_STRLEN 56
/* "ip:port", "[ip6]:port". */
const char *pd_endpoint_str(const pd_addr *a, uint16_t port, char *buf, size_t len);

#endif
