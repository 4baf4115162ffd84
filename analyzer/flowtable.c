/* Open-addressing hash table (linear probing, power-of-two size, at most
 * half full, backward-shift deletion) whose slots hold each flow's full hash
 * next to its pointer, so probes and removals never touch other flows'
 * memory; plus intrusive activity queues (circular lists through a
 * sentinel, so a flow unlinks without knowing its queue). Both O(1) per
 * packet. Parked flows keep both places through their record's header. */
#include "flowtable.h"

#include "dissect/hash.h"
#include "pack.h"
#include "recpool.h"
#include "slab.h"

#include <glib.h>
#include <string.h>

/* Table-private bytes after every flow's block (its first cache line is the
 * flow's tuple, which a lookup compares), and at the start of every parked
 * flow's record: the queue links live here, so a record can take a flow's
 * place in its queue. */
typedef struct flow_hdr {
	uint64_t hash; /* tuple_hash, kept for removal and growth */
	struct flow_hdr *prev, *next; /* activity queue; a sentinel at each end */
	uint8_t queue;
	bool parked; /* a parked record, not a flow block */
	bool offered; /* offered for parking since it was last active */
	uint8_t pad[5];
} flow_hdr;

/* A parked flow: what expiry reads, then its block packed (pack.h). */
typedef struct parked {
	flow_hdr h;
	uint64_t last_frame;
	pd_time last_ts;
	uint32_t len;
	uint32_t tag; /* the owner's (pd_flowtable_offer) */
	uint8_t data[];
} parked;

/* A slot's ref: the flow's header, with bit 0 set for a parked record (so
 * a lookup that finds a flow reads only its block's first line). 0: empty. */
typedef struct slot {
	uint64_t hash; /* of the flow's tuple; meaningless when ref is 0 */
	uintptr_t ref;
} slot;

static uintptr_t ref_of(const flow_hdr *h)
{
	return (uintptr_t)h | (h->parked ? 1u : 0u);
}

static flow_hdr *ref_hdr(uintptr_t ref)
{
	return (flow_hdr *)(ref & ~(uintptr_t)1);
}

struct pd_flowtable {
	slot *slots;
	size_t mask;
	size_t count, peak;
	size_t extra;
	size_t hdr_off; /* where a block's header starts: after the flow and its detector state */
	uint64_t next_id;
	flow_hdr queue[PD_FLOWTABLE_QUEUES]; /* sentinels: next is the least recently active */
	size_t in_queue[PD_FLOWTABLE_QUEUES];
	/* flow blocks: a capture creates and ends flows all the time
	 * (malloc/free of 1-2 KB blocks was 5 % of the flow thread), and
	 * touches them at random (huge pages, see slab.h) */
	pd_slab blocks;
	pd_packer packer; /* parked flows' blocks */
	pd_recpool records;
	size_t n_parked[PD_FLOWTABLE_QUEUES];
	uint64_t parks, parked_bytes;
	pd_unpark_hook unpark_hook;
	void *unpark_ctx;
	/* per queue, the last flow offered for parking (pd_flowtable_offer):
	 * flows are offered oldest first, so those offered are the queue's
	 * head up to this one; NULL: none */
	flow_hdr *offered[PD_FLOWTABLE_QUEUES];
	size_t n_offered[PD_FLOWTABLE_QUEUES];
};

/* Symmetric: the same for both directions of a flow. */
static uint64_t tuple_hash(uint8_t proto, const pd_addr *a, uint16_t pa, const pd_addr *b, uint16_t pb)
{
	uint64_t ha = pd_addr_hash64(a) + pa;
	uint64_t hb = pd_addr_hash64(b) + pb;
	return pd_mix64((ha ^ hb) + (ha + hb) * 31 + proto);
}

/* The bytes of a flow's block before its header: the flow and its
 * detectors' state (what parking packs). */
static size_t body_len(const pd_flowtable *t)
{
	return sizeof(pd_flow) + t->extra;
}

static flow_hdr *hdr_of(const pd_flowtable *t, const pd_flow *f)
{
	return (flow_hdr *)((char *)f + t->hdr_off);
}

static pd_flow *flow_of(const pd_flowtable *t, const flow_hdr *h)
{
	return (pd_flow *)((char *)h - t->hdr_off);
}

static bool is_sentinel(const pd_flowtable *t, const flow_hdr *h)
{
	return h >= t->queue && h < t->queue + PD_FLOWTABLE_QUEUES;
}

pd_flowtable *pd_flowtable_new(size_t extra)
{
	pd_flowtable *t = g_new0(pd_flowtable, 1);
	t->mask = 8192 - 1;
	t->slots = g_new0(slot, t->mask + 1);
	t->extra = extra;
	t->hdr_off = (body_len(t) + 31) & ~(size_t)31; /* the header in one cache line */
	pd_slab_init(&t->blocks, t->hdr_off + sizeof(flow_hdr));
	pd_recpool_init(&t->records);
	pd_packer_init(&t->packer, body_len(t));
	for (unsigned q = 0; q < PD_FLOWTABLE_QUEUES; q++)
		t->queue[q].next = t->queue[q].prev = &t->queue[q];
	return t;
}

void pd_flowtable_free(pd_flowtable *t)
{
	if (!t)
		return;
	pd_slab_destroy(&t->blocks);
	g_free(t->slots);
	pd_packer_free(&t->packer);
	pd_recpool_destroy(&t->records);
	g_free(t);
}

void pd_flowtable_set_unpark_hook(pd_flowtable *t, pd_unpark_hook hook, void *ctx)
{
	t->unpark_hook = hook;
	t->unpark_ctx = ctx;
}

/* h leaves the offered part of its queue (it is active again, or ends). */
static void unoffer(pd_flowtable *t, flow_hdr *h)
{
	if (!h->offered)
		return;
	h->offered = false;
	t->n_offered[h->queue]--;
	if (t->offered[h->queue] == h)
		t->offered[h->queue] = is_sentinel(t, h->prev) ? NULL : h->prev;
}

static void lru_unlink(pd_flowtable *t, flow_hdr *h)
{
	unoffer(t, h);
	h->prev->next = h->next;
	h->next->prev = h->prev;
	h->prev = h->next = NULL;
}

static void lru_append(pd_flowtable *t, flow_hdr *h, unsigned q)
{
	flow_hdr *s = &t->queue[q];
	h->queue = (uint8_t)q;
	t->in_queue[q]++;
	h->prev = s->prev;
	h->next = s;
	s->prev->next = h;
	s->prev = h;
}

/* The slot that holds h (a flow's header or a parked record's). */
static size_t slot_of(const pd_flowtable *t, const flow_hdr *h)
{
	size_t i = h->hash & t->mask;
	while (ref_hdr(t->slots[i].ref) != h) {
		if (!t->slots[i].ref)
			g_error("pcapdoc: a flow is missing from the flow table");
		i = (i + 1) & t->mask;
	}
	return i;
}

/* `to` takes `from`'s place in its queue and in the hash table. */
static void take_place(pd_flowtable *t, flow_hdr *from, flow_hdr *to)
{
	to->hash = from->hash;
	to->queue = from->queue;
	to->offered = from->offered;
	to->prev = from->prev;
	to->next = from->next;
	to->prev->next = to;
	to->next->prev = to;
	if (t->offered[from->queue] == from)
		t->offered[from->queue] = to;
	t->slots[slot_of(t, from)].ref = ref_of(to);
}

static void park_flow(pd_flowtable *t, flow_hdr *h, uint32_t tag)
{
	pd_flow *f = flow_of(t, h);
	size_t n = pd_packer_pack(&t->packer, (const uint8_t *)f);
	parked *r = pd_recpool_alloc(&t->records, sizeof(parked) + n);
	r->h.parked = true;
	r->last_frame = f->last_frame;
	r->last_ts = f->last_ts;
	r->len = (uint32_t)n;
	r->tag = tag;
	memcpy(r->data, t->packer.scratch, n);
	take_place(t, h, &r->h);
	pd_slab_free(&t->blocks, f);
	t->n_parked[r->h.queue]++;
	t->parks++;
	t->parked_bytes += sizeof(parked) + n;
}

pd_flow *pd_flowtable_to_offer(pd_flowtable *t, unsigned q)
{
	flow_hdr *h = t->offered[q] ? t->offered[q]->next : t->queue[q].next;
	return is_sentinel(t, h) ? NULL : flow_of(t, h);
}

void pd_flowtable_offer(pd_flowtable *t, pd_flow *f, bool park, uint32_t tag)
{
	flow_hdr *h = hdr_of(t, f);
	const flow_hdr *first = t->offered[h->queue];
	if ((first ? first->next : t->queue[h->queue].next) != h)
		g_error("pcapdoc: flow %" G_GUINT64_FORMAT " offered out of turn", f->id);
	t->offered[h->queue] = h;
	h->offered = true;
	t->n_offered[h->queue]++;
	if (park)
		park_flow(t, h, tag);
}

static pd_flow *unpark(pd_flowtable *t, flow_hdr *rh)
{
	parked *r = (parked *)rh;
	pd_flow *f = pd_slab_alloc(&t->blocks);
	flow_hdr *h = hdr_of(t, f);
	memset(h, 0, sizeof(*h));
	if (pd_packer_unpack(&t->packer, r->data, r->len, (uint8_t *)f) != 0)
		g_error("pcapdoc: a parked flow's record is damaged");
	take_place(t, rh, h);
	t->n_parked[h->queue]--;
	uint32_t tag = r->tag;
	pd_recpool_free(&t->records, r, sizeof(parked) + r->len);
	if (t->unpark_hook)
		t->unpark_hook(t->unpark_ctx, f, tag);
	return f;
}

void pd_flowtable_touch(pd_flowtable *t, pd_flow *f, unsigned q)
{
	flow_hdr *h = hdr_of(t, f);
	if (t->queue[q].prev == h) {
		unoffer(t, h); /* active again: offer it again later */
		return;
	}
	t->in_queue[h->queue]--;
	lru_unlink(t, h);
	lru_append(t, h, q);
}

static void grow(pd_flowtable *t)
{
	size_t nmask = t->mask * 2 + 1;
	slot *ns = g_new0(slot, nmask + 1);
	for (size_t i = 0; i <= t->mask; i++) {
		if (!t->slots[i].ref)
			continue;
		size_t j = t->slots[i].hash & nmask;
		while (ns[j].ref)
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
	for (size_t i = h & t->mask; t->slots[i].ref; i = (i + 1) & t->mask) {
		if (t->slots[i].hash != h)
			continue;
		/* a parked flow with this hash is, but for a 64-bit collision,
		 * the one: unpark it to compare (the slot keeps its place) */
		uintptr_t ref = t->slots[i].ref;
		pd_flow *f = ref & 1 ? unpark(t, ref_hdr(ref)) : flow_of(t, ref_hdr(ref));
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
		pd_flowtable_touch(t, f, hdr_of(t, f)->queue);
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
	pd_flow *f = pd_slab_alloc(&t->blocks);
	memset(f, 0, t->hdr_off + sizeof(flow_hdr));
	flow_hdr *hd = hdr_of(t, f);
	pd_flow_set_identity(f, t->next_id++, proto, a, pa, b, pb);
	uint64_t h = tuple_hash(proto, a, pa, b, pb);
	hd->hash = h;
	size_t i = h & t->mask;
	while (t->slots[i].ref)
		i = (i + 1) & t->mask;
	t->slots[i].hash = h;
	t->slots[i].ref = ref_of(hd);
	lru_append(t, hd, 0);
	t->count++;
	if (t->count > t->peak)
		t->peak = t->count;
	return f;
}

void pd_flowtable_remove(pd_flowtable *t, pd_flow *f)
{
	flow_hdr *hd = hdr_of(t, f);
	size_t mask = t->mask;
	size_t i = slot_of(t, hd);
	/* Backward shift: pull later entries of the probe run into the hole
	 * unless their home slot lies cyclically in (hole, their slot]. */
	for (size_t j = i;;) {
		j = (j + 1) & mask;
		if (!t->slots[j].ref)
			break;
		size_t home = t->slots[j].hash & mask;
		bool stays = i <= j ? (i < home && home <= j) : (i < home || home <= j);
		if (stays)
			continue;
		t->slots[i] = t->slots[j];
		i = j;
	}
	t->slots[i].ref = 0;
	t->slots[i].hash = 0;
	t->in_queue[hd->queue]--;
	lru_unlink(t, hd);
	t->count--;
}

void pd_flowtable_release(pd_flowtable *t, pd_flow *f)
{
	if (!f)
		return;
	pd_slab_free(&t->blocks, f);
}

bool pd_flowtable_prefault(pd_flowtable *t)
{
	return pd_slab_prefault(&t->blocks);
}

static void prefetch_hdr(const pd_flowtable *t, const flow_hdr *h)
{
	if (is_sentinel(t, h))
		return;
	if (h->parked)
		pd_prefetch_block(h, sizeof(parked) + ((const parked *)h)->len);
	else
		pd_prefetch_block(flow_of(t, h), t->blocks.block);
}

/* For flows leaving in queue order (expiry, eviction, the end), with h
 * next to leave: its header came in at the previous call (as the one after
 * it), so whether it is parked, where its slot is and which flow follows
 * can be read without waiting. It gets its record or block now, and its
 * slot; the one after it only its header (unparking h writes to it). */
static void prefetch_leaving(const pd_flowtable *t, const flow_hdr *h)
{
	if (is_sentinel(t, h))
		return;
	prefetch_hdr(t, h);
	__builtin_prefetch(&t->slots[h->hash & t->mask], 1);
	__builtin_prefetch(h->next, 1);
}

void pd_flowtable_prefetch_next(const pd_flowtable *t, const pd_flow *f)
{
	prefetch_leaving(t, hdr_of(t, f)->next);
}

void pd_flowtable_prefetch_head(const pd_flowtable *t, unsigned q)
{
	prefetch_leaving(t, t->queue[q].next);
}

void pd_flowtable_prefetch_offer(const pd_flowtable *t, unsigned q)
{
	const flow_hdr *h = t->offered[q] ? t->offered[q]->next : t->queue[q].next;
	if (is_sentinel(t, h))
		return;
	/* its block came in at the previous call (as the one after it); the
	 * one after it is not offered yet, so not parked: a block (no need to
	 * read its header, which is not here yet) */
	__builtin_prefetch(&t->slots[h->hash & t->mask], 1);
	if (!is_sentinel(t, h->next))
		pd_prefetch_block(flow_of(t, h->next), t->blocks.block);
}

void pd_flowtable_prefetch_removal(const pd_flowtable *t, const pd_flow *f)
{
	const flow_hdr *h = hdr_of(t, f);
	__builtin_prefetch(&t->slots[h->hash & t->mask], 1);
	__builtin_prefetch(&h->prev->next, 1);
	__builtin_prefetch(&h->next->prev, 1);
}

bool pd_flowtable_head_in(const pd_flowtable *t, unsigned q, pd_flow_age *age)
{
	const flow_hdr *h = t->queue[q].next;
	if (is_sentinel(t, h))
		return false;
	if (h->parked) {
		const parked *r = (const parked *)h;
		age->last_frame = r->last_frame;
		age->last_ts = r->last_ts;
		age->flow = NULL;
	} else {
		const pd_flow *f = flow_of(t, h);
		age->last_frame = f->last_frame;
		age->last_ts = f->last_ts;
		age->flow = f;
	}
	return true;
}

pd_flow *pd_flowtable_oldest_in(pd_flowtable *t, unsigned q)
{
	flow_hdr *h = t->queue[q].next;
	if (is_sentinel(t, h))
		return NULL;
	return h->parked ? unpark(t, h) : flow_of(t, h);
}

int pd_flowtable_oldest_queue(const pd_flowtable *t, unsigned queues)
{
	int best = -1;
	uint64_t best_frame = 0;
	for (unsigned q = 0; q < PD_FLOWTABLE_QUEUES; q++) {
		pd_flow_age age;
		if ((queues >> q & 1u) && pd_flowtable_head_in(t, q, &age) &&
		    (best < 0 || age.last_frame < best_frame)) {
			best = (int)q;
			best_frame = age.last_frame;
		}
	}
	return best;
}

/* The flow the single LRU list used to have at its head. */
pd_flow *pd_flowtable_oldest(pd_flowtable *t)
{
	int q = pd_flowtable_oldest_queue(t, (1u << PD_FLOWTABLE_QUEUES) - 1);
	return q < 0 ? NULL : pd_flowtable_oldest_in(t, (unsigned)q);
}

size_t pd_flowtable_count_offered_in(const pd_flowtable *t, unsigned q)
{
	return q < PD_FLOWTABLE_QUEUES ? t->n_offered[q] : 0;
}

size_t pd_flowtable_count_parked_in(const pd_flowtable *t, unsigned q)
{
	return q < PD_FLOWTABLE_QUEUES ? t->n_parked[q] : 0;
}

uint64_t pd_flowtable_parks(const pd_flowtable *t, uint64_t *record_bytes)
{
	if (record_bytes)
		*record_bytes = t->parked_bytes;
	return t->parks;
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
