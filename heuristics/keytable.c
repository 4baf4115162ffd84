/* Bounded keyed tables; see keytable.h. */
#include "heuristics/keytable.h"

#include <glib.h>
#include <string.h>

#include "dissect/addr.h"
#include "heuristics/memacct.h"

#define KT_SPARE_TRIES 8 /* entries looked at past ones to keep */

typedef struct kt_entry {
	struct kt_entry *lru_prev, *lru_next; /* least recently used first */
	struct kt_entry *age_prev, *age_next; /* oldest first use first */
	uint64_t hash;
	uint8_t data[]; /* key, then value (aligned) */
} kt_entry;

/* The index: open addressing, linear probing, at most half full, each
 * slot the entry's full hash beside its pointer (probes compare hashes
 * before touching an entry); backward-shift deletion, so no tombstones. */
typedef struct kt_slot {
	uint64_t hash;
	kt_entry *e; /* NULL: empty */
} kt_slot;

struct pd_keytable {
	size_t key_size, key_room, value_size, max, count;
	bool (*keep)(const void *value);
	void (*on_evict)(void *value, void *arg);
	void *evict_arg;
	kt_slot *slots;
	size_t mask;
	kt_entry *lru_head, *lru_tail, *age_head, *age_tail;
};

static uint64_t kt_hash(const pd_keytable *t, const uint8_t *key)
{
	uint64_t h = 0x9e3779b97f4a7c15ull ^ t->key_size;
	size_t i = 0;
	for (; i + 8 <= t->key_size; i += 8) {
		uint64_t v;
		memcpy(&v, key + i, 8);
		h = (h ^ v) * 0xff51afd7ed558ccdull;
		h ^= h >> 32;
	}
	uint64_t tail = 0;
	memcpy(&tail, key + i, t->key_size - i);
	return pd_mix64(h ^ tail);
}

pd_keytable *pd_keytable_new(size_t key_size, size_t value_size, size_t max_entries,
			     bool (*keep)(const void *value), void (*on_evict)(void *value, void *arg),
			     void *arg)
{
	pd_keytable *t = g_new0(pd_keytable, 1);
	t->key_size = key_size;
	t->key_room = (key_size + 15) & ~(size_t)15;
	t->value_size = value_size;
	t->max = max_entries ? max_entries : 1;
	t->keep = keep;
	t->on_evict = on_evict;
	t->evict_arg = arg;
	t->mask = 16 - 1; /* grows with the entries, up to twice max */
	t->slots = pd_mem_new0(PD_MEM_KEYTABLES, (t->mask + 1) * sizeof(kt_slot));
	return t;
}

static void *value_of(const pd_keytable *t, kt_entry *e)
{
	return e->data + t->key_room;
}

static size_t index_find(const pd_keytable *t, uint64_t h, const void *key)
{
	size_t i = h & t->mask;
	for (; t->slots[i].e; i = (i + 1) & t->mask)
		if (t->slots[i].hash == h && memcmp(t->slots[i].e->data, key, t->key_size) == 0)
			return i;
	return i; /* the empty slot that ends the probe */
}

static void index_grow(pd_keytable *t)
{
	size_t nmask = t->mask * 2 + 1;
	kt_slot *ns = pd_mem_new0(PD_MEM_KEYTABLES, (nmask + 1) * sizeof(kt_slot));
	for (size_t i = 0; i <= t->mask; i++) {
		if (!t->slots[i].e)
			continue;
		size_t j = t->slots[i].hash & nmask;
		while (ns[j].e)
			j = (j + 1) & nmask;
		ns[j] = t->slots[i];
	}
	pd_mem_free(PD_MEM_KEYTABLES, t->slots);
	t->slots = ns;
	t->mask = nmask;
}

static void index_remove(pd_keytable *t, size_t i)
{
	t->slots[i].e = NULL;
	/* shift back the entries whose probe passed through i */
	for (size_t j = (i + 1) & t->mask; t->slots[j].e; j = (j + 1) & t->mask) {
		size_t home = t->slots[j].hash & t->mask;
		bool between = i <= j ? (home > i && home <= j) : (home > i || home <= j);
		if (between)
			continue;
		t->slots[i] = t->slots[j];
		t->slots[j].e = NULL;
		i = j;
	}
	t->count--;
}

static void lru_unlink(pd_keytable *t, kt_entry *e)
{
	if (e->lru_prev)
		e->lru_prev->lru_next = e->lru_next;
	else
		t->lru_head = e->lru_next;
	if (e->lru_next)
		e->lru_next->lru_prev = e->lru_prev;
	else
		t->lru_tail = e->lru_prev;
	e->lru_prev = e->lru_next = NULL;
}

static void lru_append(pd_keytable *t, kt_entry *e)
{
	e->lru_prev = t->lru_tail;
	e->lru_next = NULL;
	if (t->lru_tail)
		t->lru_tail->lru_next = e;
	else
		t->lru_head = e;
	t->lru_tail = e;
}

/* Unlinks e from the index and both lists; the caller frees or reuses it. */
static void detach(pd_keytable *t, kt_entry *e)
{
	if (t->on_evict)
		t->on_evict(value_of(t, e), t->evict_arg);
	lru_unlink(t, e);
	if (e->age_prev)
		e->age_prev->age_next = e->age_next;
	else
		t->age_head = e->age_next;
	if (e->age_next)
		e->age_next->age_prev = e->age_prev;
	else
		t->age_tail = e->age_prev;
	index_remove(t, index_find(t, e->hash, e->data));
}

void pd_keytable_free(pd_keytable *t)
{
	if (!t)
		return;
	for (kt_entry *e = t->age_head, *next; e; e = next) {
		next = e->age_next;
		if (t->on_evict)
			t->on_evict(value_of(t, e), t->evict_arg);
		pd_mem_free(PD_MEM_KEYTABLES, e);
	}
	pd_mem_free(PD_MEM_KEYTABLES, t->slots);
	g_free(t);
}

void *pd_keytable_find(const pd_keytable *t, const void *key)
{
	kt_entry *e = t->slots[index_find(t, kt_hash(t, key), key)].e;
	return e ? value_of(t, e) : NULL;
}

void *pd_keytable_get(pd_keytable *t, const void *key, bool *made)
{
	uint64_t h = kt_hash(t, key);
	size_t i = index_find(t, h, key);
	kt_entry *e = t->slots[i].e;
	if (made)
		*made = e == NULL;
	if (e) {
		if (t->lru_tail != e) {
			lru_unlink(t, e);
			lru_append(t, e);
		}
		return value_of(t, e);
	}
	if (t->count >= t->max) {
		kt_entry *victim = t->lru_head, *v = victim;
		for (int k = 0; t->keep && v && k < KT_SPARE_TRIES; k++, v = v->lru_next)
			if (!t->keep(value_of(t, v))) {
				victim = v;
				break;
			}
		detach(t, victim);
		e = victim; /* a full table reuses the entry it evicts */
		memset(e, 0, sizeof(kt_entry) + t->key_room + t->value_size);
		i = index_find(t, h, key); /* the removal may have moved the slot */
	} else {
		if ((t->count + 1) * 2 > t->mask + 1) {
			index_grow(t);
			i = index_find(t, h, key);
		}
		e = pd_mem_new0(PD_MEM_KEYTABLES, sizeof(kt_entry) + t->key_room + t->value_size);
	}
	e->hash = h;
	memcpy(e->data, key, t->key_size);
	t->slots[i].hash = h;
	t->slots[i].e = e;
	t->count++;
	lru_append(t, e);
	e->age_prev = t->age_tail;
	if (t->age_tail)
		t->age_tail->age_next = e;
	else
		t->age_head = e;
	t->age_tail = e;
	return value_of(t, e);
}

size_t pd_keytable_count(const pd_keytable *t)
{
	return t->count;
}

void pd_keytable_foreach(const pd_keytable *t, void (*fn)(void *value, void *arg), void *arg)
{
	for (kt_entry *e = t->age_head; e; e = e->age_next)
		fn(value_of(t, e), arg);
}
