/* Flow id -> pointer, for a lane's parked flows (analyzer/run.c): open
 * addressing with the id and the pointer side by side, so a lookup costs
 * one cache line where a GHashTable keyed by a pointer to the id cost
 * four (its hash, key and value arrays, and the key itself). */
#ifndef PD_IDMAP_H
#define PD_IDMAP_H

#include <stddef.h>
#include <stdint.h>

typedef struct pd_idmap_slot {
	uint64_t id_plus1; /* 0: empty */
	void *value;
} pd_idmap_slot;

typedef struct pd_idmap {
	pd_idmap_slot *slots;
	size_t mask, count;
} pd_idmap;

void pd_idmap_init(pd_idmap *m);
void pd_idmap_free(pd_idmap *m);
/* Adds id (not in the map) -> value (not NULL). */
void pd_idmap_put(pd_idmap *m, uint64_t id, void *value);
/* Removes id and returns its value, or NULL when it is not there. */
void *pd_idmap_take(pd_idmap *m, uint64_t id);
size_t pd_idmap_count(const pd_idmap *m);

#endif
