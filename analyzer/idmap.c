/* See idmap.h. Linear probing, power-of-two size, at most half full,
 * backward-shift deletion (no tombstones), as the flow table does. */
#include "idmap.h"

#include "dissect/hash.h"

#include <glib.h>

#define IDMAP_MIN 1024

void pd_idmap_init(pd_idmap *m)
{
	m->mask = IDMAP_MIN - 1;
	m->count = 0;
	m->slots = g_new0(pd_idmap_slot, m->mask + 1);
}

void pd_idmap_free(pd_idmap *m)
{
	g_free(m->slots);
	m->slots = NULL;
	m->mask = m->count = 0;
}

static size_t home(const pd_idmap *m, uint64_t id_plus1)
{
	return (size_t)pd_mix64(id_plus1) & m->mask;
}

static void grow(pd_idmap *m)
{
	pd_idmap_slot *old = m->slots;
	size_t n = m->mask + 1;
	m->mask = n * 2 - 1;
	m->slots = g_new0(pd_idmap_slot, n * 2);
	for (size_t i = 0; i < n; i++) {
		if (!old[i].id_plus1)
			continue;
		size_t j = home(m, old[i].id_plus1);
		while (m->slots[j].id_plus1)
			j = (j + 1) & m->mask;
		m->slots[j] = old[i];
	}
	g_free(old);
}

void pd_idmap_put(pd_idmap *m, uint64_t id, void *value)
{
	if ((m->count + 1) * 2 > m->mask + 1)
		grow(m);
	uint64_t key = id + 1;
	size_t i = home(m, key);
	while (m->slots[i].id_plus1)
		i = (i + 1) & m->mask;
	m->slots[i].id_plus1 = key;
	m->slots[i].value = value;
	m->count++;
}

void *pd_idmap_take(pd_idmap *m, uint64_t id)
{
	uint64_t key = id + 1;
	size_t i = home(m, key);
	while (m->slots[i].id_plus1 != key) {
		if (!m->slots[i].id_plus1)
			return NULL;
		i = (i + 1) & m->mask;
	}
	void *value = m->slots[i].value;
	/* backward shift: pull later entries of the probe run into the hole
	 * unless their home lies cyclically in (hole, their slot] */
	for (size_t j = i;;) {
		j = (j + 1) & m->mask;
		if (!m->slots[j].id_plus1)
			break;
		size_t h = home(m, m->slots[j].id_plus1);
		if (i <= j ? (i < h && h <= j) : (i < h || h <= j))
			continue;
		m->slots[i] = m->slots[j];
		i = j;
	}
	m->slots[i].id_plus1 = 0;
	m->slots[i].value = NULL;
	m->count--;
	return value;
}

size_t pd_idmap_count(const pd_idmap *m)
{
	return m->count;
}
