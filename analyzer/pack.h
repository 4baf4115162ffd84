/* Packing of idle flows' detector blocks: a block is mostly zeros (about
 * three quarters of its bytes on a front end's keep-alive flows), so a
 * flow that has been silent for a while keeps only the non-zero 32-bit
 * words of its from_payload blocks and a bitmap of where they were. The
 * bytes come back exactly, so no detector knows or cares. */
#ifndef PD_PACK_H
#define PD_PACK_H

#include <stddef.h>
#include <stdint.h>

/* The scratch bytes pd_pack_block needs for a block of n bytes. */
size_t pd_pack_bound(size_t n);
/* Packs n bytes (a multiple of 4) into a new allocation (g_free it) and
 * sets *len to its size; NULL when packing would not save anything.
 * tmp: pd_pack_bound(n) bytes of scratch. */
uint8_t *pd_pack_block(const uint8_t *src, size_t n, uint8_t *tmp, uint32_t *len);
/* Restores the n bytes pd_pack_block(src, n) packed into dst. */
void pd_unpack_block(const uint8_t *packed, uint8_t *dst, size_t n);

#endif
