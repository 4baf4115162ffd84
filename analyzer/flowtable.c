/* Open-addressing hash table (linear probing, power-of-two size, at most
 * half full, backward-shift deletion) whose slots hold each flow's full
 * hash next to its pointer, so probes and removals never touch other flows'
 * memory; plus intrusive activity queues (circular lists through a
 * sentinel, so a flow unlinks without knowing its queue). Both O(1) per
 * packet. */
#include "flowtable.h"

#include <glib.h>
#include <string.h>

#include "dissect/addr.h"
#include "heuristics/memacct.h"
#include "pack.h"

typedef struct entry {
	uint64_t hash;
	pd_flow_slot *slot; /* NULL: empty */
} entry;

struct pd_flowtable {
	entry *entries;
	size_t mask;
	size_t count;
	pd_flow_link queue[PD_FLOWTABLE_QUEUES]; /* sentinels: next is the least recently active */
	size_t in_queue[PD_FLOWTABLE_QUEUES];
	uint64_t changes; /* structural changes so far: lets checks skip an unchanged table */
	uint64_t heads; /* see pd_flowtable_heads */
	uint64_t candidates; /* see pd_flowtable_candidates */
	pd_flow_link *packed_upto[PD_FLOWTABLE_QUEUES]; /* the last of the packed prefix; NULL: none */
};

uint64_t pd_flow_hash(uint8_t proto, const pd_addr *a, uint16_t pa, const pd_addr *b, uint16_t pb)
{
	uint64_t ha = pd_addr_hash64(a) + pa;
	uint64_t hb = pd_addr_hash64(b) + pb;
	return pd_mix64((ha ^ hb) + (ha + hb) * 31 + proto);
}

static bool is_sentinel(const pd_flowtable *t, const pd_flow_link *l)
{
	return l >= t->queue && l < t->queue + PD_FLOWTABLE_QUEUES;
}

static pd_flow_slot *slot_of_link(const pd_flow_link *l)
{
	return (pd_flow_slot *)((char *)l - offsetof(pd_flow_slot, link));
}

pd_flowtable *pd_flowtable_new(void)
{
	pd_flowtable *t = pd_mem_new0(PD_MEM_FLOW_INDEX, sizeof(pd_flowtable));
	t->mask = 64 - 1; /* grows: a shard may hold a handful of flows or a flood */
	t->entries = pd_mem_new0(PD_MEM_FLOW_INDEX, (t->mask + 1) * sizeof(entry));
	for (unsigned q = 0; q < PD_FLOWTABLE_QUEUES; q++)
		t->queue[q].next = t->queue[q].prev = &t->queue[q];
	return t;
}

void pd_flowtable_free(pd_flowtable *t)
{
	if (!t)
		return;
	pd_mem_free(PD_MEM_FLOW_INDEX, t->entries);
	pd_mem_free(PD_MEM_FLOW_INDEX, t);
}

/* Whether l, in queue q or its sentinel, comes right after the packed
 * prefix: the first unpacked flow, or the sentinel when there is none.
 * From l's own link, not the last packed flow's (cold). */
static bool after_packed(const pd_flowtable *t, unsigned q, const pd_flow_link *l)
{
	const pd_flow_link *before = t->packed_upto[q] ? t->packed_upto[q] : &t->queue[q];
	return l->prev == before;
}

static void queue_unlink(pd_flowtable *t, pd_flow_slot *s)
{
	t->changes++;
	if (t->queue[s->queue].next == &s->link)
		t->heads++;
	if (after_packed(t, s->queue, &s->link))
		t->candidates++;
	if (t->packed_upto[s->queue] == &s->link)
		t->packed_upto[s->queue] = is_sentinel(t, s->link.prev) ? NULL : s->link.prev;
	t->in_queue[s->queue]--;
	s->link.prev->next = s->link.next;
	s->link.next->prev = s->link.prev;
	s->link.prev = s->link.next = NULL;
}

static void queue_append(pd_flowtable *t, pd_flow_slot *s, unsigned q)
{
	t->changes++;
	pd_flow_link *head = &t->queue[q];
	if (head->next == head)
		t->heads++;
	if (after_packed(t, q, head))
		t->candidates++;
	s->queue = (uint8_t)q;
	t->in_queue[q]++;
	s->link.prev = head->prev;
	s->link.next = head;
	head->prev->next = &s->link;
	head->prev = &s->link;
}

void pd_flowtable_touch(pd_flowtable *t, pd_flow_slot *s, unsigned q)
{
	if (t->queue[q].prev == &s->link) {
		if (t->queue[q].next == &s->link)
			t->heads++; /* the only flow of its queue: its state changed */
		return;
	}
	queue_unlink(t, s);
	queue_append(t, s, q);
}

static void grow(pd_flowtable *t)
{
	size_t nmask = t->mask * 2 + 1;
	entry *ne = pd_mem_new0(PD_MEM_FLOW_INDEX, (nmask + 1) * sizeof(entry));
	for (size_t i = 0; i <= t->mask; i++) {
		if (!t->entries[i].slot)
			continue;
		size_t j = t->entries[i].hash & nmask;
		while (ne[j].slot)
			j = (j + 1) & nmask;
		ne[j] = t->entries[i];
	}
	pd_mem_free(PD_MEM_FLOW_INDEX, t->entries);
	t->entries = ne;
	t->mask = nmask;
}

pd_flow_slot *pd_flowtable_lookup(pd_flowtable *t, uint64_t h, uint8_t proto, const pd_addr *a, uint16_t pa,
				  const pd_addr *b, uint16_t pb, int *dir)
{
	for (size_t i = h & t->mask; t->entries[i].slot; i = (i + 1) & t->mask) {
		if (t->entries[i].hash != h)
			continue;
		pd_flow_slot *s = t->entries[i].slot;
		const pd_flow *f = &s->flow;
		if (f->proto != proto)
			continue;
		if (f->port[0] == pa && f->port[1] == pb && pd_addr_equal(&f->addr[0], a) &&
		    pd_addr_equal(&f->addr[1], b))
			*dir = PD_CLIENT;
		else if (f->port[0] == pb && f->port[1] == pa && pd_addr_equal(&f->addr[0], b) &&
			 pd_addr_equal(&f->addr[1], a))
			*dir = PD_SERVER;
		else
			continue;
		return s;
	}
	return NULL;
}

pd_flow_slot *pd_flowtable_insert(pd_flowtable *t, pd_flow_slot *s, uint64_t h, uint64_t id, uint8_t proto, const pd_addr *a,
				  uint16_t pa, const pd_addr *b, uint16_t pb)
{
	if ((t->count + 1) * 2 > t->mask + 1)
		grow(t);
	s->hash = h;
	pd_flow *f = &s->flow;
	f->id = id;
	f->proto = proto;
	f->addr[PD_CLIENT] = *a;
	f->addr[PD_SERVER] = *b;
	f->port[PD_CLIENT] = pa;
	f->port[PD_SERVER] = pb;
	size_t i = h & t->mask;
	while (t->entries[i].slot)
		i = (i + 1) & t->mask;
	t->entries[i].hash = h;
	t->entries[i].slot = s;
	queue_append(t, s, 0);
	t->count++;
	return s;
}

void pd_flowtable_remove(pd_flowtable *t, pd_flow_slot *s)
{
	size_t mask = t->mask;
	size_t i = s->hash & mask;
	while (t->entries[i].slot != s) {
		if (!t->entries[i].slot)
			g_error("pcapdoc: a flow is missing from its flow table");
		i = (i + 1) & mask;
	}
	/* Backward shift: pull later entries of the probe run into the hole
	 * unless their home slot lies cyclically in (hole, their slot]. */
	for (size_t j = i;;) {
		j = (j + 1) & mask;
		if (!t->entries[j].slot)
			break;
		size_t home = t->entries[j].hash & mask;
		bool stays = i <= j ? (i < home && home <= j) : (i < home || home <= j);
		if (stays)
			continue;
		t->entries[i] = t->entries[j];
		i = j;
	}
	t->entries[i].slot = NULL;
	t->entries[i].hash = 0;
	queue_unlink(t, s);
	t->count--;
}

void pd_flow_slot_free(pd_flow_slot *s)
{
	if (!s)
		return;
	g_free(s->det_state);
	g_free(s->data_state);
	g_free(s->packed);
	g_free(s);
}

void pd_flow_slot_unpack(const pd_flow_slot *s, const pd_pack_layout *det_layout, uint8_t *det,
			 const pd_pack_layout *data_layout, uint8_t *data)
{
	/* as the worker packs: the eager block, then the payload blocks */
	size_t used = pd_unpack_from(det_layout, s->packed, det);
	if (s->packed_data)
		pd_unpack_from(data_layout, s->packed + used, data);
}

pd_flow_slot *pd_flowtable_head(const pd_flowtable *t, unsigned q)
{
	pd_flow_link *l = t->queue[q].next;
	return is_sentinel(t, l) ? NULL : slot_of_link(l);
}

pd_flow_slot *pd_flowtable_next(const pd_flowtable *t, const pd_flow_slot *s)
{
	return is_sentinel(t, s->link.next) ? NULL : slot_of_link(s->link.next);
}

pd_flow_slot *pd_flowtable_oldest(const pd_flowtable *t)
{
	pd_flow_slot *best = NULL;
	for (unsigned q = 0; q < PD_FLOWTABLE_QUEUES; q++) {
		pd_flow_slot *s = pd_flowtable_head(t, q);
		if (s && (!best || s->flow.last_frame < best->flow.last_frame))
			best = s;
	}
	return best;
}

pd_flow_slot *pd_flowtable_pack_next(const pd_flowtable *t, unsigned q)
{
	const pd_flow_link *l = t->packed_upto[q] ? t->packed_upto[q]->next : t->queue[q].next;
	return is_sentinel(t, l) ? NULL : slot_of_link(l);
}

void pd_flowtable_pack_mark(pd_flowtable *t, pd_flow_slot *s)
{
	t->packed_upto[s->queue] = &s->link;
}

uint64_t pd_flowtable_changes(const pd_flowtable *t)
{
	return t->changes;
}

uint64_t pd_flowtable_heads(const pd_flowtable *t)
{
	return t->heads;
}

uint64_t pd_flowtable_candidates(const pd_flowtable *t)
{
	return t->candidates;
}

size_t pd_flowtable_count(const pd_flowtable *t)
{
	return t->count;
}

size_t pd_flowtable_count_in(const pd_flowtable *t, unsigned q)
{
	return t->in_queue[q];
}

size_t pd_flowtable_bytes(const pd_flowtable *t)
{
	return sizeof(*t) + (t->mask + 1) * sizeof(entry);
}

/* ------------------------------------------------------------ PD_CHECK */

/* The entry that holds s, probing from its hash's home; none: mask + 1. */
static size_t entry_of(const pd_flowtable *t, const pd_flow_slot *s)
{
	for (size_t i = s->hash & t->mask, n = 0; n <= t->mask; i = (i + 1) & t->mask, n++) {
		if (t->entries[i].slot == s)
			return i;
		if (!t->entries[i].slot)
			break;
	}
	return t->mask + 1;
}

const char *pd_flowtable_check(const pd_flowtable *t)
{
	size_t used = 0;
	for (size_t i = 0; i <= t->mask; i++) {
		const entry *e = &t->entries[i];
		if (!e->slot)
			continue;
		used++;
		if (e->hash != e->slot->hash)
			return "an entry's hash differs from its flow's";
		if (entry_of(t, e->slot) != i)
			return "a flow is not reachable from its hash's home entry (a hole in its probe run)";
	}
	if (used != t->count)
		return "the table's count differs from its entries";
	size_t queued = 0;
	for (unsigned q = 0; q < PD_FLOWTABLE_QUEUES; q++) {
		size_t n = 0;
		const pd_flow_link *head = &t->queue[q];
		for (const pd_flow_link *l = head->next; l != head; l = l->next) {
			if (++n > t->count)
				return "an activity queue holds more flows than the table (a loop)";
			if (!l->next || l->next->prev != l || l->prev->next != l)
				return "an activity queue's links are broken";
			if (is_sentinel(t, l))
				return "an activity queue runs into another queue's sentinel";
			const pd_flow_slot *s = slot_of_link(l);
			if (s->queue != q)
				return "a flow is in another activity queue than it says";
			if (entry_of(t, s) > t->mask)
				return "a flow in an activity queue is missing from the table";
		}
		if (n != t->in_queue[q])
			return "an activity queue's count differs from its length";
		queued += n;
	}
	if (queued != t->count)
		return "the activity queues hold another number of flows than the table";
	return NULL;
}
