/* Per-part byte counters; see memacct.h. */
#include "heuristics/memacct.h"

#include <glib.h>
#include <malloc.h>
#include <stdbool.h>

/* One thread's counters. A thread takes a free set at its first count and
 * gives it back when it exits; the next thread adds to it, so the sums
 * stay right and the sets are as many as threads ever alive at once. */
typedef struct mem_counters {
	int64_t n[PD_MEM_PARTS];
	struct mem_counters *next;
	bool taken; /* under registry_lock */
} mem_counters;

static GMutex registry_lock;
static mem_counters *registry; /* every set made; they live as long as the process */
static __thread mem_counters *mine;

static void give_back(gpointer p)
{
	mem_counters *c = p;
	g_mutex_lock(&registry_lock);
	c->taken = false;
	g_mutex_unlock(&registry_lock);
}

static GPrivate thread_exit = G_PRIVATE_INIT(give_back);

static mem_counters *take_counters(void)
{
	g_mutex_lock(&registry_lock);
	mem_counters *c = registry;
	while (c && c->taken)
		c = c->next;
	if (!c) {
		c = g_new0(mem_counters, 1);
		c->next = registry;
		__atomic_store_n(&registry, c, __ATOMIC_RELEASE);
	}
	c->taken = true;
	g_mutex_unlock(&registry_lock);
	g_private_set(&thread_exit, c);
	mine = c;
	return c;
}

void pd_mem_count(pd_mem_part part, int64_t bytes)
{
	mem_counters *c = mine;
	if (G_UNLIKELY(!c))
		c = take_counters();
	/* only this thread stores it: a relaxed store is a plain one, and
	 * readers on other threads see a whole value */
	__atomic_store_n(&c->n[part], c->n[part] + bytes, __ATOMIC_RELAXED);
}

void pd_mem_totals(int64_t out[PD_MEM_PARTS])
{
	for (int i = 0; i < PD_MEM_PARTS; i++)
		out[i] = 0;
	/* sets are only ever pushed at the head: the list from it is stable */
	for (mem_counters *c = __atomic_load_n(&registry, __ATOMIC_ACQUIRE); c; c = c->next)
		for (int i = 0; i < PD_MEM_PARTS; i++)
			out[i] += __atomic_load_n(&c->n[i], __ATOMIC_RELAXED);
}

size_t pd_mem_size(void *p)
{
	return p ? malloc_usable_size(p) : 0; /* g_malloc is malloc since GLib 2.46 */
}

void *pd_mem_new0(pd_mem_part part, size_t size)
{
	void *p = g_malloc0(size);
	pd_mem_count(part, (int64_t)pd_mem_size(p));
	return p;
}

void pd_mem_free(pd_mem_part part, void *p)
{
	if (!p)
		return;
	pd_mem_count(part, -(int64_t)pd_mem_size(p));
	g_free(p);
}
