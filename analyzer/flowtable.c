/* Open-addressing hash table (linear probing, power-of-two size, at most
 * half full, backward-shift deletion) whose slots hold each flow's full hash
 * next to its pointer, so probes and removals never touch other flows'
 * memory; plus intrusive activity queues (circular lists through a
 * sentinel, so a flow unlinks without knowing its queue). Both O(1) per
 * packet. */
#include "flowtable.h"

#include "dissect/hash.h"
#include "slab.h"

#include <glib.h>
#include <string.h>

typedef struct slot {
	uint64_t hash; /* of the flow's tuple; meaningless when f is NULL */
	pd_flow *f; /* NULL: empty */
} slot;

struct pd_flowtable {
	slot *slots;
	size_t mask;
	size_t count, peak;
	size_t extra;
	uint64_t next_id;
	/* sentinels: lru_next is the least recently active, lru_prev the most */
	pd_flow *queue; /* [PD_FLOWTABLE_QUEUES] */
	size_t in_queue[PD_FLOWTABLE_QUEUES];
	/* flow blocks: a capture creates and ends flows all the time
	 * (malloc/free of 1-2 KB blocks was 5 % of the flow thread), and
	 * touches them at random (huge pages, see slab.h) */
	pd_slab blocks;
};

/* Symmetric: the same for both directions of a flow. */
static uint64_t tuple_hash(uint8_t proto, const pd_addr *a, uint16_t pa, const pd_addr *b, uint16_t pb)
{
	uint64_t ha = pd_addr_hash64(a) + pa;
	uint64_t hb = pd_addr_hash64(b) + pb;
	return pd_mix64((ha ^ hb) + (ha + hb) * 31 + proto);
}

/* Table-private bytes in front of every flow (16 keep det_state aligned). */
typedef struct flow_hdr {
	uint64_t hash; /* tuple_hash, kept for removal and growth */
	uint8_t queue;
	uint8_t pad[7];
} flow_hdr;

pd_flowtable *pd_flowtable_new(size_t extra)
{
	pd_flowtable *t = g_new0(pd_flowtable, 1);
	t->mask = 8192 - 1;
	t->slots = g_new0(slot, t->mask + 1);
	t->extra = extra;
	pd_slab_init(&t->blocks, sizeof(flow_hdr) + sizeof(pd_flow) + t->extra);
	t->queue = g_new0(pd_flow, PD_FLOWTABLE_QUEUES);
	for (unsigned q = 0; q < PD_FLOWTABLE_QUEUES; q++)
		t->queue[q].lru_next = t->queue[q].lru_prev = &t->queue[q];
	return t;
}

void pd_flowtable_free(pd_flowtable *t)
{
	if (!t)
		return;
	pd_slab_destroy(&t->blocks);
	g_free(t->slots);
	g_free(t->queue);
	g_free(t);
}

static void lru_unlink(pd_flow *f)
{
	f->lru_prev->lru_next = f->lru_next;
	f->lru_next->lru_prev = f->lru_prev;
	f->lru_prev = f->lru_next = NULL;
}


static flow_hdr *hdr_of(pd_flow *f)
{
	return (flow_hdr *)((char *)f - sizeof(flow_hdr));
}

static void lru_append(pd_flowtable *t, pd_flow *f, unsigned q)
{
	pd_flow *s = &t->queue[q];
	hdr_of(f)->queue = (uint8_t)q;
	t->in_queue[q]++;
	f->lru_prev = s->lru_prev;
	f->lru_next = s;
	s->lru_prev->lru_next = f;
	s->lru_prev = f;
}

void pd_flowtable_touch(pd_flowtable *t, pd_flow *f, unsigned q)
{
	pd_flow *s = &t->queue[q];
	if (s->lru_prev == f)
		return;
	t->in_queue[hdr_of(f)->queue]--;
	lru_unlink(f);
	lru_append(t, f, q);
}

static void grow(pd_flowtable *t)
{
	size_t nmask = t->mask * 2 + 1;
	slot *ns = g_new0(slot, nmask + 1);
	for (size_t i = 0; i <= t->mask; i++) {
		if (!t->slots[i].f)
			continue;
		size_t j = t->slots[i].hash & nmask;
		while (ns[j].f)
			j = (j + 1) & nmask;
		ns[j] = t->slots[i];
	}
	g_free(t->slots);
	t->slots = ns;
	t->mask = nmask;
}

static bool addr_eq(const pd_addr *a, const pd_addr *b)
{
	return a->family == b->family && memcmp(a->bytes, b->bytes, 16) == 0;
}

pd_flow *pd_flowtable_lookup(pd_flowtable *t, uint8_t proto, const pd_addr *a, uint16_t pa,
			     const pd_addr *b, uint16_t pb, int *dir)
{
	uint64_t h = tuple_hash(proto, a, pa, b, pb);
	for (size_t i = h & t->mask; t->slots[i].f; i = (i + 1) & t->mask) {
		if (t->slots[i].hash != h)
			continue;
		pd_flow *f = t->slots[i].f;
		if (f->proto != proto)
			continue;
		int d;
		if (f->port[0] == pa && f->port[1] == pb && addr_eq(&f->addr[0], a) && addr_eq(&f->addr[1], b))
			d = PD_CLIENT;
		else if (f->port[0] == pb && f->port[1] == pa && addr_eq(&f->addr[0], b) &&
			 addr_eq(&f->addr[1], a))
			d = PD_SERVER;
		else
			continue;
		*dir = d;
		pd_flowtable_touch(t, f, hdr_of(f)->queue);
		return f;
	}
	return NULL;
}

void pd_flow_set_identity(pd_flow *f, uint64_t id, uint8_t proto, const pd_addr *a, uint16_t pa,
			  const pd_addr *b, uint16_t pb)
{
	f->id = id;
	f->proto = proto;
	f->addr[0] = *a;
	f->addr[1] = *b;
	f->port[0] = pa;
	f->port[1] = pb;
}

pd_flow *pd_flowtable_insert(pd_flowtable *t, uint8_t proto, const pd_addr *a, uint16_t pa,
			     const pd_addr *b, uint16_t pb)
{
	if ((t->count + 1) * 2 > t->mask + 1)
		grow(t);
	void *block = pd_slab_alloc(&t->blocks);
	memset(block, 0, sizeof(flow_hdr) + sizeof(pd_flow) + t->extra);
	pd_flow *f = (pd_flow *)((char *)block + sizeof(flow_hdr));
	pd_flow_set_identity(f, t->next_id++, proto, a, pa, b, pb);
	uint64_t h = tuple_hash(proto, a, pa, b, pb);
	hdr_of(f)->hash = h;
	size_t i = h & t->mask;
	while (t->slots[i].f)
		i = (i + 1) & t->mask;
	t->slots[i].hash = h;
	t->slots[i].f = f;
	lru_append(t, f, 0);
	t->count++;
	if (t->count > t->peak)
		t->peak = t->count;
	return f;
}

void pd_flowtable_remove(pd_flowtable *t, pd_flow *f)
{
	size_t mask = t->mask;
	size_t i = hdr_of(f)->hash & mask;
	while (t->slots[i].f != f) {
		if (!t->slots[i].f)
			g_error("pcapdoc: flow %" G_GUINT64_FORMAT " not in the flow table", f->id);
		i = (i + 1) & mask;
	}
	/* Backward shift: pull later entries of the probe run into the hole
	 * unless their home slot lies cyclically in (hole, their slot]. */
	for (size_t j = i;;) {
		j = (j + 1) & mask;
		if (!t->slots[j].f)
			break;
		size_t home = t->slots[j].hash & mask;
		bool stays = i <= j ? (i < home && home <= j) : (i < home || home <= j);
		if (stays)
			continue;
		t->slots[i] = t->slots[j];
		i = j;
	}
	t->slots[i].f = NULL;
	t->slots[i].hash = 0;
	t->in_queue[hdr_of(f)->queue]--;
	lru_unlink(f);
	t->count--;
}

void pd_flowtable_release(pd_flowtable *t, pd_flow *f)
{
	if (!f)
		return;
	pd_slab_free(&t->blocks, hdr_of(f));
}

bool pd_flowtable_prefault(pd_flowtable *t)
{
	return pd_slab_prefault(&t->blocks);
}

void pd_flowtable_prefetch(const pd_flowtable *t, const pd_flow *f)
{
	if (!f || (f >= t->queue && f < t->queue + PD_FLOWTABLE_QUEUES))
		return; /* none, or a queue's sentinel */
	pd_prefetch_block((const char *)f - sizeof(flow_hdr), t->blocks.block);
}

void pd_flowtable_prefetch_removal(const pd_flowtable *t, const pd_flow *f)
{
	const flow_hdr *h = (const flow_hdr *)((const char *)f - sizeof(flow_hdr));
	__builtin_prefetch(&t->slots[h->hash & t->mask], 1);
	__builtin_prefetch(&f->lru_prev->lru_next, 1);
	__builtin_prefetch(&f->lru_next->lru_prev, 1);
}

pd_flow *pd_flowtable_oldest_in(pd_flowtable *t, unsigned q)
{
	pd_flow *s = &t->queue[q];
	return s->lru_next != s ? s->lru_next : NULL;
}

/* Touches happen in frame order, so the smallest last_frame among the
 * queue heads is the flow the single LRU list used to have at its head. */
pd_flow *pd_flowtable_oldest(pd_flowtable *t)
{
	pd_flow *best = NULL;
	for (unsigned q = 0; q < PD_FLOWTABLE_QUEUES; q++) {
		pd_flow *f = pd_flowtable_oldest_in(t, q);
		if (f && (!best || f->last_frame < best->last_frame))
			best = f;
	}
	return best;
}

size_t pd_flowtable_count(const pd_flowtable *t)
{
	return t->count;
}

size_t pd_flowtable_count_in(const pd_flowtable *t, unsigned q)
{
	return q < PD_FLOWTABLE_QUEUES ? t->in_queue[q] : 0;
}

size_t pd_flowtable_peak(const pd_flowtable *t)
{
	return t->peak;
}
