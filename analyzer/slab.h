/* Fixed-size blocks for flows and their lane blocks, carved from 2 MiB
 * chunks that ask the kernel for transparent huge pages. Those blocks are
 * touched at random, one or two per packet, and with 4 KiB pages most such
 * touches missed the TLB as well as the cache. Freed blocks are kept for
 * reuse, so memory follows the peak of live flows; the chunks go back when
 * the slab is destroyed. Not thread-safe: one owner. */
#ifndef PD_SLAB_H
#define PD_SLAB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct pd_slab_chunk {
	uint8_t *mem;
	bool mapped; /* mmap'd (else g_malloc'd, when mmap failed) */
} pd_slab_chunk;

typedef struct pd_slab {
	size_t block; /* bytes per block, a multiple of 64 */
	uint8_t *cur; /* carving position in the newest chunk */
	size_t left; /* bytes left there */
	void *free; /* freed blocks, linked through their first word */
	pd_slab_chunk *chunks;
	size_t n_chunks;
} pd_slab;

#define PD_SLAB_CHUNK (2u << 20)

/* Blocks of at least `size` bytes (at most PD_SLAB_CHUNK), 64-byte aligned. */
void pd_slab_init(pd_slab *s, size_t size);
/* A block, not zeroed. */
void *pd_slab_alloc(pd_slab *s);
void pd_slab_free(pd_slab *s, void *p);
/* Gives every chunk back; blocks still out become invalid (give them back
 * first with pd_slab_free: under AddressSanitizer each block is a malloc of
 * its own, see slab.c). */
void pd_slab_destroy(pd_slab *s);

#endif
