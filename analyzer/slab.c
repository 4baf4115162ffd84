/* See slab.h. */
#include "slab.h"
#include "sanitizers.h"

#include <glib.h>
#include <string.h>
#include <sys/mman.h>

/* Under AddressSanitizer every block is a malloc of its own, so a flow used
 * after it ended is still caught (ASan cannot see inside a chunk). */
#define PD_SLAB_PER_BLOCK PD_SANITIZED

void pd_slab_init(pd_slab *s, size_t size)
{
	memset(s, 0, sizeof(*s));
	s->block = (size + 63) & ~(size_t)63;
	if (s->block > PD_SLAB_CHUNK)
		g_error("pcapdoc: slab block of %zu bytes is larger than a chunk", size);
}

/* A 2 MiB-aligned chunk (a huge page can back it only then). */
static pd_slab_chunk chunk_new(void)
{
	pd_slab_chunk c = {NULL, false};
	size_t sz = PD_SLAB_CHUNK;
	uint8_t *m = mmap(NULL, 2 * sz, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (m == MAP_FAILED) {
		c.mem = g_malloc(sz);
		return c;
	}
	uintptr_t start = (uintptr_t)m, a = (start + sz - 1) & ~(uintptr_t)(sz - 1);
	if (a > start)
		munmap(m, a - start);
	if (start + 2 * sz > a + sz)
		munmap((void *)(a + sz), start + 2 * sz - (a + sz));
	(void)madvise((void *)a, sz, MADV_HUGEPAGE); /* a hint: 4 KiB pages work too */
	c.mem = (uint8_t *)a;
	c.mapped = true;
	return c;
}

static void chunk_free(const pd_slab_chunk *c)
{
	if (c->mapped)
		munmap(c->mem, PD_SLAB_CHUNK);
	else
		g_free(c->mem);
}

bool pd_slab_prefault(pd_slab *s)
{
	/* one caller per chunk the owner took: the one that clears `hungry` */
	if (PD_SLAB_PER_BLOCK || __atomic_load_n(&s->ready, __ATOMIC_ACQUIRE) ||
	    !__atomic_exchange_n(&s->hungry, 0, __ATOMIC_ACQ_REL))
		return false;
	pd_slab_chunk *c = g_new(pd_slab_chunk, 1);
	*c = chunk_new();
	/* one write per page; a huge page comes in whole at its first */
	for (size_t off = 0; off < PD_SLAB_CHUNK; off += 4096)
		((volatile uint8_t *)c->mem)[off] = 0;
	pd_slab_chunk *none = NULL;
	if (!__atomic_compare_exchange_n(&s->ready, &none, c, false, __ATOMIC_RELEASE, __ATOMIC_RELAXED)) {
		chunk_free(c); /* another thread was quicker */
		g_free(c);
	}
	return true;
}

void *pd_slab_alloc(pd_slab *s)
{
	if (PD_SLAB_PER_BLOCK)
		return g_malloc(s->block);
	if (s->free) {
		void *p = s->free;
		s->free = *(void **)p;
		return p;
	}
	if (s->left < s->block) {
		s->chunks = g_renew(pd_slab_chunk, s->chunks, s->n_chunks + 1);
		pd_slab_chunk *c = __atomic_exchange_n(&s->ready, NULL, __ATOMIC_ACQUIRE);
		if (c) {
			s->chunks[s->n_chunks] = *c;
			g_free(c);
		} else {
			s->chunks[s->n_chunks] = chunk_new();
		}
		__atomic_store_n(&s->hungry, 1, __ATOMIC_RELEASE);
		s->cur = s->chunks[s->n_chunks].mem;
		s->left = PD_SLAB_CHUNK;
		s->n_chunks++;
	}
	void *p = s->cur;
	s->cur += s->block;
	s->left -= s->block;
	return p;
}

void pd_slab_free(pd_slab *s, void *p)
{
	if (!p)
		return;
	if (PD_SLAB_PER_BLOCK) {
		g_free(p);
		return;
	}
	*(void **)p = s->free;
	s->free = p;
}

void pd_slab_destroy(pd_slab *s)
{
	for (size_t i = 0; i < s->n_chunks; i++)
		chunk_free(&s->chunks[i]);
	if (s->ready) {
		chunk_free(s->ready);
		g_free(s->ready);
	}
	g_free(s->chunks);
	memset(s, 0, sizeof(*s));
}
