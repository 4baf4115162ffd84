/* Bounded keyed tables; see keytable.h. */
#include "heuristics/keytable.h"

#include <glib.h>
#include <string.h>

#include "dissect/addr.h"

#define KT_SPARE_TRIES 8 /* entries looked at past ones to keep */

typedef struct kt_entry {
	struct kt_entry *lru_prev, *lru_next; /* least recently used first */
	struct kt_entry *age_prev, *age_next; /* oldest first use first */
	uint8_t data[]; /* key, then value (aligned) */
} kt_entry;

struct pd_keytable {
	size_t key_size, key_room, value_size, max;
	bool (*keep)(const void *value);
	void (*on_evict)(void *value);
	GHashTable *map; /* key bytes -> kt_entry */
	kt_entry *lru_head, *lru_tail, *age_head, *age_tail;
};

/* The map's key: the key bytes and the table that says their length. */
typedef struct kt_key {
	const pd_keytable *t;
	const uint8_t *bytes;
} kt_key;

static guint kt_hash(gconstpointer p)
{
	const kt_key *k = p;
	uint64_t h = 0x9e3779b97f4a7c15ull ^ k->t->key_size;
	size_t i = 0;
	for (; i + 8 <= k->t->key_size; i += 8) {
		uint64_t v;
		memcpy(&v, k->bytes + i, 8);
		h = pd_mix64(h ^ v);
	}
	uint64_t tail = 0;
	memcpy(&tail, k->bytes + i, k->t->key_size - i);
	return (guint)pd_mix64(h ^ tail);
}

static gboolean kt_eq(gconstpointer a, gconstpointer b)
{
	const kt_key *x = a, *y = b;
	return memcmp(x->bytes, y->bytes, x->t->key_size) == 0;
}

pd_keytable *pd_keytable_new(size_t key_size, size_t value_size, size_t max_entries,
			     bool (*keep)(const void *value), void (*on_evict)(void *value))
{
	pd_keytable *t = g_new0(pd_keytable, 1);
	t->key_size = key_size;
	t->key_room = (key_size + 15) & ~(size_t)15;
	t->value_size = value_size;
	t->max = max_entries ? max_entries : 1;
	t->keep = keep;
	t->on_evict = on_evict;
	t->map = g_hash_table_new_full(kt_hash, kt_eq, g_free, NULL);
	return t;
}

static void *value_of(const pd_keytable *t, kt_entry *e)
{
	return e->data + t->key_room;
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

static void remove_entry(pd_keytable *t, kt_entry *e)
{
	if (t->on_evict)
		t->on_evict(value_of(t, e));
	lru_unlink(t, e);
	if (e->age_prev)
		e->age_prev->age_next = e->age_next;
	else
		t->age_head = e->age_next;
	if (e->age_next)
		e->age_next->age_prev = e->age_prev;
	else
		t->age_tail = e->age_prev;
	kt_key k = {t, e->data};
	g_hash_table_remove(t->map, &k);
	g_free(e);
}

void pd_keytable_free(pd_keytable *t)
{
	if (!t)
		return;
	while (t->age_head)
		remove_entry(t, t->age_head);
	g_hash_table_destroy(t->map);
	g_free(t);
}

void *pd_keytable_find(const pd_keytable *t, const void *key)
{
	kt_key k = {t, key};
	kt_entry *e = g_hash_table_lookup(t->map, &k);
	return e ? value_of(t, e) : NULL;
}

void *pd_keytable_get(pd_keytable *t, const void *key, bool *made)
{
	kt_key k = {t, key};
	kt_entry *e = g_hash_table_lookup(t->map, &k);
	if (made)
		*made = e == NULL;
	if (e) {
		lru_unlink(t, e);
		lru_append(t, e);
		return value_of(t, e);
	}
	if (g_hash_table_size(t->map) >= t->max) {
		kt_entry *victim = t->lru_head, *v = victim;
		for (int i = 0; t->keep && v && i < KT_SPARE_TRIES; i++, v = v->lru_next)
			if (!t->keep(value_of(t, v))) {
				victim = v;
				break;
			}
		remove_entry(t, victim);
	}
	e = g_malloc0(sizeof(kt_entry) + t->key_room + t->value_size);
	memcpy(e->data, key, t->key_size);
	kt_key *mk = g_new(kt_key, 1);
	mk->t = t;
	mk->bytes = e->data;
	g_hash_table_insert(t->map, mk, e);
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
	return g_hash_table_size(t->map);
}

void pd_keytable_foreach(const pd_keytable *t, void (*fn)(void *value, void *arg), void *arg)
{
	for (kt_entry *e = t->age_head; e; e = e->age_next)
		fn(value_of(t, e), arg);
}
