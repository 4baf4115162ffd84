/* heuristics/keytable.c: the bounded keyed table the detectors keep across
 * flows. Checked against a plain model (GHashTable + a list in order of
 * use) over many random operations, and on the rules one by one. */
#include <criterion/criterion.h>
#include <glib.h>
#include <stdint.h>
#include <string.h>

#include "heuristics/keytable.h"

typedef struct key {
	uint32_t a, b, c; /* 12 bytes: a tail after one 8-byte word */
} key;

static int evicted;
static void count_evict(void *v, void *arg)
{
	(void)v;
	(*(int *)arg)++; /* &evicted: the argument given to pd_keytable_new */
}

static bool keep_odd(const void *v)
{
	return (*(const uint32_t *)v) & 1;
}

Test(keytable, least_recently_used_gives_way)
{
	evicted = 0;
	pd_keytable *t = pd_keytable_new(sizeof(key), sizeof(uint32_t), 3, NULL, count_evict, &evicted);
	for (uint32_t i = 0; i < 3; i++) {
		bool made = false;
		key k = {i, 0, 0};
		*(uint32_t *)pd_keytable_get(t, &k, &made) = i + 100;
		cr_expect(made);
	}
	key k0 = {0, 0, 0}, k1 = {1, 0, 0}, k3 = {3, 0, 0};
	bool made = true;
	cr_expect_eq(*(uint32_t *)pd_keytable_get(t, &k0, &made), 100);
	cr_expect_not(made, "found, not made");
	cr_expect_not_null(pd_keytable_find(t, &k1)); /* find does not count as a use */
	pd_keytable_get(t, &k3, NULL);		      /* full: 1 is the least recently used */
	cr_expect_eq(evicted, 1);
	cr_expect_null(pd_keytable_find(t, &k1));
	cr_expect_not_null(pd_keytable_find(t, &k0));
	cr_expect_eq(*(uint32_t *)pd_keytable_find(t, &k3), 0, "a new value starts zeroed, even reused");
	cr_expect_eq(pd_keytable_count(t), 3);
	pd_keytable_free(t);
	cr_expect_eq(evicted, 4, "free hands every value to on_evict");
}

Test(keytable, keep_spares_an_entry)
{
	pd_keytable *t = pd_keytable_new(sizeof(key), sizeof(uint32_t), 2, keep_odd, NULL, NULL);
	key a = {1, 2, 3}, b = {4, 5, 6}, c = {7, 8, 9};
	*(uint32_t *)pd_keytable_get(t, &a, NULL) = 1; /* odd: kept */
	*(uint32_t *)pd_keytable_get(t, &b, NULL) = 2;
	pd_keytable_get(t, &c, NULL);
	cr_expect_not_null(pd_keytable_find(t, &a), "kept although least recently used");
	cr_expect_null(pd_keytable_find(t, &b));
	pd_keytable_free(t);
}

static void collect(void *v, void *arg)
{
	g_array_append_val((GArray *)arg, *(uint32_t *)v);
}

/* Random gets and finds over a small key space, against a model: the same
 * values, the same count, the same order of first use. */
Test(keytable, matches_a_model)
{
	enum { MAX = 64, KEYS = 200, OPS = 200000 };
	pd_keytable *t = pd_keytable_new(sizeof(key), sizeof(uint32_t), MAX, NULL, NULL, NULL);
	GHashTable *model = g_hash_table_new(g_direct_hash, g_direct_equal); /* id -> value */
	GQueue lru = G_QUEUE_INIT, age = G_QUEUE_INIT;			   /* ids, oldest first */
	GRand *r = g_rand_new_with_seed(7);
	for (int op = 0; op < OPS; op++) {
		uint32_t id = (uint32_t)g_rand_int_range(r, 1, KEYS + 1);
		key k = {id, id * 2654435761u, ~id};
		gpointer mv;
		bool in = g_hash_table_lookup_extended(model, GUINT_TO_POINTER(id), NULL, &mv);
		if (g_rand_boolean(r)) {
			uint32_t *v = pd_keytable_find(t, &k);
			cr_assert_eq(v != NULL, in, "op %d: find %u", op, id);
			if (v)
				cr_assert_eq(*v, GPOINTER_TO_UINT(mv));
			continue;
		}
		bool made = false;
		uint32_t *v = pd_keytable_get(t, &k, &made);
		cr_assert_eq(made, !in, "op %d: get %u", op, id);
		if (in) {
			cr_assert_eq(*v, GPOINTER_TO_UINT(mv));
			g_queue_remove(&lru, GUINT_TO_POINTER(id));
		} else {
			if (g_hash_table_size(model) >= MAX) {
				gpointer old = g_queue_pop_head(&lru);
				g_hash_table_remove(model, old);
				g_queue_remove(&age, old);
			}
			g_queue_push_tail(&age, GUINT_TO_POINTER(id));
		}
		g_queue_push_tail(&lru, GUINT_TO_POINTER(id));
		*v = (uint32_t)op;
		g_hash_table_insert(model, GUINT_TO_POINTER(id), GUINT_TO_POINTER((guint)op));
		cr_assert_eq(pd_keytable_count(t), g_hash_table_size(model));
	}
	GArray *order = g_array_new(FALSE, FALSE, sizeof(uint32_t));
	pd_keytable_foreach(t, collect, order);
	cr_assert_eq(order->len, g_queue_get_length(&age));
	guint i = 0;
	for (GList *l = age.head; l; l = l->next, i++)
		cr_expect_eq(g_array_index(order, uint32_t, i),
			     GPOINTER_TO_UINT(g_hash_table_lookup(model, l->data)), "first-use order at %u", i);
	g_array_free(order, TRUE);
	g_queue_clear(&lru);
	g_queue_clear(&age);
	g_rand_free(r);
	g_hash_table_destroy(model);
	pd_keytable_free(t);
}
