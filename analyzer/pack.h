/* Packing of idle flows' detector blocks: a block is mostly zeros (about
 * three quarters of its bytes on a front end's keep-alive flows), so a
 * flow that has been silent for a while keeps only the non-zero 32-bit
 * words of its blocks and a bitmap of where they were. The bytes come
 * back exactly, so no detector knows or cares. */
#ifndef PD_PACK_H
#define PD_PACK_H

#include <stddef.h>
#include <stdint.h>

/* The most bytes pd_pack_into writes for a block of n bytes. */
size_t pd_pack_bound(size_t n);
/* Packs n bytes (a multiple of 4) into out (pd_pack_bound(n) bytes) and
 * returns the packed length. */
size_t pd_pack_into(const uint8_t *src, size_t n, uint8_t *out);
/* Restores into dst the n bytes packed at packed; returns the packed
 * length it read, so blocks packed one after another unpack in turn. */
size_t pd_unpack_from(const uint8_t *packed, uint8_t *dst, size_t n);

#endif
