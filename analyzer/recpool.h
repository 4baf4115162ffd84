/* Records of varying size that come and go all the time (parked flows,
 * analyzer/flowtable.h): size classes 32 bytes apart, each a free list and
 * 64 KiB chunks to carve from. A flood parks and unparks a flow per SYN;
 * malloc's bins and coalescing cost more than the packing itself did.
 * Freed records are reused, never given back before the end, so memory
 * follows the peak of records alive. One owner; not thread-safe. */
#ifndef PD_RECPOOL_H
#define PD_RECPOOL_H

#include <stddef.h>
#include <stdint.h>

#define PD_RECPOOL_STEP 32
#define PD_RECPOOL_CLASSES 48 /* up to 1536 bytes; larger ones are mallocs */

typedef struct pd_recpool {
	void *free[PD_RECPOOL_CLASSES]; /* linked through their first word */
	uint8_t *cur; /* carving position in the newest chunk */
	size_t left;
	void **chunks;
	size_t n_chunks;
} pd_recpool;

void pd_recpool_init(pd_recpool *p);
/* A record of at least size bytes (16-byte aligned); give it back with the
 * same size. */
void *pd_recpool_alloc(pd_recpool *p, size_t size);
void pd_recpool_free(pd_recpool *p, void *rec, size_t size);
/* Gives every chunk back; records still out become invalid. */
void pd_recpool_destroy(pd_recpool *p);

#endif
