/* Fixed-size blocks for flows and their lane blocks, carved from 2 MiB
 * chunks that ask the kernel for transparent huge pages. Those blocks are
 * touched at random, one or two per packet, and with 4 KiB pages most such
 * touches missed the TLB as well as the cache. Freed blocks are kept for
 * reuse, so memory follows the peak of live flows; the chunks go back when
 * the slab is destroyed. Not thread-safe: one owner, except that another
 * thread may get the next chunk ready (pd_slab_prefault). */
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
	/* pd_slab_prefault, from another thread (atomic): a chunk whose pages
	 * are already there, and whether the owner took a chunk since */
	pd_slab_chunk *ready;
	int hungry;
} pd_slab;

#define PD_SLAB_CHUNK (2u << 20)

/* Blocks of at least `size` bytes (at most PD_SLAB_CHUNK), 64-byte aligned. */
void pd_slab_init(pd_slab *s, size_t size);
/* A block, not zeroed. */
void *pd_slab_alloc(pd_slab *s);
void pd_slab_free(pd_slab *s, void *p);
/* The one call another thread may make, at any time between init and
 * destroy: when the owner has taken a new chunk since the last such call
 * made one, maps the next chunk and faults its pages in, so that the owner
 * does not stop for them when it needs it (the kernel zeroes every new
 * page, a huge page at once: most of the cost of a slab's growth). Returns
 * whether it did. */
bool pd_slab_prefault(pd_slab *s);
/* Starts loading len bytes at p into the cache, for writing: a block that
 * has not been touched for a while, needed soon. */
static inline void pd_prefetch_block(const void *p, size_t len)
{
	for (size_t off = 0; off < len; off += 64)
		__builtin_prefetch((const char *)p + off, 1);
}

/* Gives every chunk back; blocks still out become invalid (give them back
 * first with pd_slab_free: under AddressSanitizer each block is a malloc of
 * its own, see slab.c). */
void pd_slab_destroy(pd_slab *s);

#endif
