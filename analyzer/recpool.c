/* See recpool.h. */
#include "recpool.h"
#include "sanitizers.h"

#include <glib.h>
#include <string.h>

#define RECPOOL_CHUNK (64u << 10)

/* Under AddressSanitizer every record is a malloc of its own (as slab.c
 * does), so a record used after it was freed is still caught. */
#define RECPOOL_PER_RECORD PD_SANITIZED

void pd_recpool_init(pd_recpool *p)
{
	memset(p, 0, sizeof(*p));
}

/* The class for size bytes, or -1: too large for one. */
static int class_of(size_t size)
{
	size_t c = (size + PD_RECPOOL_STEP - 1) / PD_RECPOOL_STEP;
	return c == 0 ? 0 : c <= PD_RECPOOL_CLASSES ? (int)c - 1 : -1;
}

void *pd_recpool_alloc(pd_recpool *p, size_t size)
{
	int c = class_of(size);
	if (RECPOOL_PER_RECORD || c < 0)
		return g_malloc(size ? size : 1);
	if (p->free[c]) {
		void *r = p->free[c];
		p->free[c] = *(void **)r;
		return r;
	}
	size_t bytes = (size_t)(c + 1) * PD_RECPOOL_STEP;
	if (p->left < bytes) {
		/* the rest of the old chunk (less than one record) is lost */
		p->chunks = g_renew(void *, p->chunks, p->n_chunks + 1);
		p->chunks[p->n_chunks++] = p->cur = g_malloc(RECPOOL_CHUNK);
		p->left = RECPOOL_CHUNK;
	}
	void *r = p->cur;
	p->cur += bytes;
	p->left -= bytes;
	return r;
}

void pd_recpool_free(pd_recpool *p, void *rec, size_t size)
{
	if (!rec)
		return;
	int c = class_of(size);
	if (RECPOOL_PER_RECORD || c < 0) {
		g_free(rec);
		return;
	}
	*(void **)rec = p->free[c];
	p->free[c] = rec;
}

void pd_recpool_destroy(pd_recpool *p)
{
	for (size_t i = 0; i < p->n_chunks; i++)
		g_free(p->chunks[i]);
	g_free(p->chunks);
	memset(p, 0, sizeof(*p));
}
