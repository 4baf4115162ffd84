/* A bounded table of fixed-size values keyed by bytes: what a detector
 * keeps across flows (per server endpoint, per address pair, per 4-tuple).
 * Past max entries the least recently used one gives way, unless the
 * detector's `keep` says to spare it (then the next least recently used
 * goes, up to a few; after that the oldest goes anyway). Memory stays
 * bounded whatever the capture holds, and iteration is in order of first
 * use, so what a detector derives from a table is deterministic. */
#ifndef PD_KEYTABLE_H
#define PD_KEYTABLE_H

#include <stdbool.h>
#include <stddef.h>

typedef struct pd_keytable pd_keytable;

/* keep may be NULL; on_evict (may be NULL) sees a value before it goes
 * (to free what it owns, or to forget it in the detector's own state:
 * arg is passed along). Values start zeroed. */
pd_keytable *pd_keytable_new(size_t key_size, size_t value_size, size_t max_entries,
			     bool (*keep)(const void *value), void (*on_evict)(void *value, void *arg),
			     void *arg);
void pd_keytable_free(pd_keytable *t);

/* The value for key, made (zeroed) when absent; *made says which. Marks it
 * the most recently used. */
void *pd_keytable_get(pd_keytable *t, const void *key, bool *made);
/* The value for key, or NULL; does not change the order of use. */
void *pd_keytable_find(const pd_keytable *t, const void *key);
size_t pd_keytable_count(const pd_keytable *t);

/* Calls fn on every value, oldest first use first. */
void pd_keytable_foreach(const pd_keytable *t, void (*fn)(void *value, void *arg), void *arg);

#endif
