/* A worker: the shards it owns and everything that happens per flow there
 * (see engine.h). Single-threaded code: a worker runs on one thread, and
 * nothing else touches its shards. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dissect/addr.h"
#include "engine.h"
#include "heuristics/memacct.h"
#include "pack.h"
#include "tcp_engine.h"

/* The activity queue of a flow: one per idle timeout, so that each queue's
 * head is its first flow to expire. */
enum { Q_TCP, Q_UDP, Q_CLOSED, Q_SYN_ONLY, Q_HALF_OPEN };

typedef struct shard {
	pd_flowtable *ft;
	pd_app_budget app;
	/* PD_CHECK: the table's changes and the flows' bytes at the last
	 * check. A packet's shard is checked after it; a tick only needs
	 * the shards whose table changed since. */
	uint64_t checked_changes;
	size_t checked_bytes;
	bool checked;
	/* The table's counters (pd_flowtable_candidates, _heads) when the
	 * worker last looked for flows to pack and to end: while they stay,
	 * the worker's pack_due and expire_due for the shard hold. */
	uint64_t pack_candidates, expire_heads;
} shard;

struct pd_worker {
	const pd_engine_cfg *cfg;
	uint32_t index, n_workers;
	shard **shards; /* [n_shards]; NULL where another worker owns it */
	/* nDPI, started by the worker's first flow (on its own thread: a
	 * module takes about 25 ms and 5 MiB to start, and a worker that never
	 * sees a TCP or UDP flow does not pay them); app_started: tried once */
	pd_app_label *app;
	bool app_started;
	pd_ctx ctx; /* the flow hooks': no store */
	pd_flow_slot *ended, *ended_tail;
	uint64_t pos, seq; /* the current delivery: where in the capture, its number */
	uint64_t k; /* ends it caused so far */
	pd_worker_stats st;
	uint64_t live_bytes;
	uint64_t live_bytes_seen; /* live_bytes at the last take_ended, for --stats' sampler (atomic) */
	pd_time next_pack; /* capture time of the next look for idle flows */
	/* Per shard, [n_shards]: the capture time before which it has no
	 * flow to pack (the first unpacked flows' last times + pack_idle,
	 * earliest) and up to which none to end (the heads' expiry times,
	 * earliest); INT64_MIN: look; INT64_MAX: not this worker's. Looking
	 * at 256 shards' queues every quarter second mostly found nothing,
	 * after reading two cold lines per shard; these stay in cache. */
	pd_time *pack_due, *expire_due;
	uint8_t *pack_tmp; /* pd_pack_bound(det_size) + pd_pack_bound(data_size) */
	uint8_t *check_det; /* PD_CHECK: a packed flow's eager block, unpacked */
	/* blocks given back by packing, for the next flow or unpacking (malloc
	 * would split them for the smaller packed copies, and the heap would
	 * grow instead of shrink); each block's first bytes: the next one */
	void *free_det, *free_data;
	/* slots of ended flows given back (pd_worker_recycle): pushed by the
	 * collector's thread, taken all at once by this one into spare */
	pd_flow_slot *returned;
	pd_flow_slot *spare;
};

static void check_failed(const pd_worker *w, const pd_flow_slot *s, const char *what);
static void check_shard(pd_worker *w, uint32_t si);
static void check_worker(pd_worker *w);

/* ------------------------------------------------------------- config */

static bool picked(const char *only, const char *name)
{
	if (!only)
		return true;
	char **names = g_strsplit(only, ",", -1);
	bool found = false;
	for (char **n = names; *n && !found; n++)
		found = !strcmp(g_strstrip(*n), name);
	g_strfreev(names);
	return found;
}

void pd_engine_cfg_init(pd_engine_cfg *cfg, size_t max_flows, bool no_detectors, bool no_app_label,
			const char *only)
{
	memset(cfg, 0, sizeof(*cfg));
	/* every shard keeps at least 64 of the flow cap */
	uint32_t n = PD_MAX_SHARDS;
	while (n > 1 && max_flows / n < 64)
		n /= 2;
	cfg->n_shards = n;
	cfg->max_flows_per_shard = max_flows / n ? max_flows / n : 1;
	cfg->max_half_open_per_shard = PD_MAX_HALF_OPEN / n;
	cfg->app_live_per_shard = PD_APP_MAX_LIVE / n;
	cfg->no_app_label = no_app_label;
	cfg->det = g_new0(const pd_detector *, pd_detectors_len + 1);
	for (size_t i = 0; i < pd_detectors_len && !no_detectors; i++)
		if (picked(only, pd_detectors[i]->name))
			cfg->det[cfg->n_det++] = pd_detectors[i];
	const char *check = g_getenv("PD_CHECK");
	cfg->check = check && *check && strcmp(check, "0") != 0;
	cfg->det_offset = g_new0(size_t, pd_detectors_len + 1);
	cfg->payload_offset = g_new0(size_t, pd_detectors_len + 1);
	cfg->det_size = PD_FLOW_HALVES_SIZE; /* every flow has them */
	for (size_t i = 0; i < cfg->n_det; i++) {
		const pd_detector *d = cfg->det[i];
		size_t *total = d->from_payload ? &cfg->data_size : &cfg->det_size;
		cfg->det_offset[i] = *total;
		*total += (d->flow_state_size + 15) & ~(size_t)15;
		cfg->payload_offset[i] = cfg->data_size;
		cfg->data_size += (d->payload_state_size + 15) & ~(size_t)15;
	}
	cfg->det_layout = pd_pack_layout_new(cfg->det_size);
	cfg->data_layout = pd_pack_layout_new(cfg->data_size);
}

void pd_engine_cfg_clear(pd_engine_cfg *cfg)
{
	g_free(cfg->det_offset);
	cfg->det_offset = NULL;
	g_free(cfg->payload_offset);
	cfg->payload_offset = NULL;
	g_free(cfg->det);
	cfg->det = NULL;
	g_clear_pointer(&cfg->det_layout, pd_pack_layout_free);
	g_clear_pointer(&cfg->data_layout, pd_pack_layout_free);
}

/* --------------------------------------------------------------- life */

pd_worker *pd_worker_new(const pd_engine_cfg *cfg, uint32_t index, uint32_t n_workers)
{
	pd_worker *w = g_new0(pd_worker, 1);
	w->cfg = cfg;
	w->index = index;
	w->n_workers = n_workers;
	w->shards = g_new0(shard *, cfg->n_shards);
	w->pack_due = g_new(pd_time, cfg->n_shards);
	w->expire_due = g_new(pd_time, cfg->n_shards);
	for (uint32_t s = 0; s < cfg->n_shards; s++) {
		w->pack_due[s] = w->expire_due[s] = s % n_workers == index ? INT64_MIN : INT64_MAX;
		if (s % n_workers != index)
			continue;
		shard *sh = g_new0(shard, 1);
		sh->ft = pd_flowtable_new();
		sh->app.cap = cfg->app_live_per_shard;
		w->shards[s] = sh;
	}
	w->ctx.start = cfg->start;
	w->ctx.snaplen = cfg->snaplen;
	return w;
}

/* The worker's nDPI module, started on first use (NULL: off, or it could
 * not start). */
static pd_app_label *worker_app(pd_worker *w)
{
	if (!w->app_started) {
		w->app_started = true;
		w->app = w->cfg->no_app_label ? NULL : pd_app_label_new();
	}
	return w->app;
}

void pd_worker_free(pd_worker *w)
{
	if (!w)
		return;
	for (uint32_t s = 0; s < w->cfg->n_shards; s++) {
		shard *sh = w->shards[s];
		if (!sh)
			continue;
		pd_flow_slot *f;
		while ((f = pd_flowtable_oldest(sh->ft))) {
			pd_flowtable_remove(sh->ft, f);
			pd_app_label_finish(w->app, f, &sh->app);
			pd_flow_slot_free(f);
		}
		pd_flowtable_free(sh->ft);
		g_free(sh);
	}
	pd_flow_slot *lists_of_slots[] = {w->ended, w->spare, w->returned};
	for (size_t i = 0; i < G_N_ELEMENTS(lists_of_slots); i++)
		for (pd_flow_slot *f = lists_of_slots[i]; f;) {
			pd_flow_slot *next = f->end_next;
			pd_flow_slot_free(f);
			f = next;
		}
	g_free(w->shards);
	g_free(w->pack_due);
	g_free(w->expire_due);
	pd_app_label_free(w->app);
	void *lists[] = {w->free_det, w->free_data};
	for (size_t i = 0; i < G_N_ELEMENTS(lists); i++)
		for (void *b = lists[i], *next; b; b = next) {
			memcpy(&next, b, sizeof next);
			g_free(b);
		}
	g_free(w->pack_tmp);
	g_free(w->check_det);
	g_free(w);
}

static size_t slot_bytes(const pd_worker *w, const pd_flow_slot *s)
{
	if (s->packed)
		return sizeof(*s) + s->packed_len;
	/* unpacked, a flow always has its eager block (the halves) */
	return sizeof(*s) + w->cfg->det_size + (s->data_state ? w->cfg->data_size : 0);
}

/* ---------------------------------------------------------- accounting */

size_t pd_slot_held_bytes(const pd_engine_cfg *cfg, const pd_flow_slot *s)
{
	return sizeof(*s) + (s->det_state ? cfg->det_size : 0) + (s->data_state ? cfg->data_size : 0) +
	       (s->packed ? s->packed_len : 0);
}

uint64_t pd_worker_flow_bytes(const pd_worker *w)
{
	return __atomic_load_n(&w->live_bytes_seen, __ATOMIC_RELAXED);
}

/* ------------------------------------------------------------- packing */

static bool fin_acked(const pd_tcp_half *half, int dir)
{
	const pd_tcp_half *h = &half[dir], *peer = &half[pd_peer(dir)];
	return h->fin_valid && peer->ack_valid && pd_seq_lt(h->fin_seq, peer->last_ack);
}

static bool both_fins_acked(const pd_tcp_half *half)
{
	return fin_acked(half, PD_CLIENT) && fin_acked(half, PD_SERVER);
}

/* What expiry reads of a flow's halves, which a packed flow keeps aside
 * (pack_flow). */
static bool server_seen(const pd_flow_slot *s)
{
	return s->flow.half ? s->flow.half[PD_SERVER].seen : s->packed_server_seen;
}

static bool fins_acked(const pd_flow_slot *s)
{
	return s->flow.half ? both_fins_acked(s->flow.half) : s->packed_fins_acked;
}

static uint8_t *take_block(void **list, size_t size)
{
	void *b = *list;
	if (!b)
		return g_malloc(size);
	memcpy(list, b, sizeof(void *));
	pd_mem_count(PD_MEM_FLOWS_IDLE, -(int64_t)size);
	return b;
}

static void give_block(void **list, void *b, size_t size)
{
	if (!b)
		return;
	pd_mem_count(PD_MEM_FLOWS_IDLE, (int64_t)size);
	memcpy(b, list, sizeof(void *));
	*list = b;
}

uint32_t pd_slot_worker(const pd_engine_cfg *cfg, const pd_flow_slot *s, uint32_t n_workers)
{
	return pd_shard_of(s->hash, cfg->n_shards) % n_workers;
}

void pd_worker_recycle(pd_worker *w, pd_flow_slot *s)
{
	pd_flow_slot *head = __atomic_load_n(&w->returned, __ATOMIC_RELAXED);
	do
		s->end_next = head;
	while (!__atomic_compare_exchange_n(&w->returned, &head, s, true, __ATOMIC_RELEASE, __ATOMIC_RELAXED));
}

/* A zeroed slot for a new flow: an ended flow's, its blocks back in the
 * free lists, or a new one. */
static pd_flow_slot *new_slot(pd_worker *w)
{
	if (!w->spare)
		w->spare = __atomic_exchange_n(&w->returned, NULL, __ATOMIC_ACQUIRE);
	pd_flow_slot *s = w->spare;
	if (!s)
		return g_malloc0(sizeof(pd_flow_slot));
	w->spare = s->end_next;
	pd_mem_count(PD_MEM_FLOWS_IDLE, -(int64_t)sizeof(*s)); /* its blocks stay idle, in the lists */
	give_block(&w->free_det, s->det_state, w->cfg->det_size);
	give_block(&w->free_data, s->data_state, w->cfg->data_size);
	memset(s, 0, sizeof(*s)); /* the collector freed its packed bytes */
	return s;
}

/* A flow's halves and eager blocks, zeroed. */
static uint8_t *new_det_block(pd_worker *w)
{
	uint8_t *b = take_block(&w->free_det, w->cfg->det_size);
	memset(b, 0, w->cfg->det_size);
	return b;
}

static void pack_flow(pd_worker *w, shard *sh, pd_flow_slot *s)
{
	const pd_engine_cfg *cfg = w->cfg;
	if (s->packed)
		return;
	if (!w->pack_tmp)
		w->pack_tmp = g_malloc(pd_pack_bound(cfg->det_layout) + pd_pack_bound(cfg->data_layout));
	size_t before = slot_bytes(w, s);
	if (w->index == 0) { /* the one thread the layouts learn from */
		pd_pack_layout_learn(cfg->det_layout, s->det_state);
		if (s->data_state)
			pd_pack_layout_learn(cfg->data_layout, s->data_state);
	}
	/* an unpacked live flow always has its eager block (the halves) */
	size_t len = pd_pack_into(cfg->det_layout, s->det_state, w->pack_tmp);
	if (s->data_state)
		len += pd_pack_into(cfg->data_layout, s->data_state, w->pack_tmp + len);
	if (sizeof(*s) + len + 64 > before)
		return; /* not worth an allocation and the copy back */
	s->packed_server_seen = server_seen(s);
	s->packed_fins_acked = fins_acked(s);
	s->packed = g_memdup2(w->pack_tmp, len);
	s->packed_len = (uint32_t)len;
	s->packed_data = s->data_state != NULL;
	give_block(&w->free_det, s->det_state, cfg->det_size);
	give_block(&w->free_data, s->data_state, cfg->data_size);
	pd_flow_slot_set_blocks(s, NULL, NULL);
	w->live_bytes -= before - slot_bytes(w, s);
	w->st.packed++;
	w->st.packed_bytes += len;
	sh->checked = false; /* its bytes changed */
}

static void unpack_flow(pd_worker *w, pd_flow_slot *s)
{
	const pd_engine_cfg *cfg = w->cfg;
	if (!s->packed)
		return;
	size_t before = slot_bytes(w, s);
	uint8_t *det = take_block(&w->free_det, cfg->det_size); /* never 0: the halves */
	uint8_t *data = s->packed_data ? take_block(&w->free_data, cfg->data_size) : NULL;
	pd_flow_slot_unpack(s, cfg->det_layout, det, cfg->data_layout, data);
	pd_flow_slot_set_blocks(s, det, data);
	g_free(s->packed);
	s->packed = NULL;
	s->packed_len = 0;
	w->live_bytes += slot_bytes(w, s) - before;
}

/* A head or a first unpacked flow of shard i moved since the worker last
 * looked (pd_flowtable_heads, _candidates): its next looks come at once. */
static void look_again_if_moved(pd_worker *w, const shard *sh, uint32_t i)
{
	if (sh->pack_candidates != pd_flowtable_candidates(sh->ft))
		w->pack_due[i] = INT64_MIN;
	if (sh->expire_heads != pd_flowtable_heads(sh->ft))
		w->expire_due[i] = INT64_MIN;
}

/* The flows of each queue that went silent since the last tick, oldest
 * first: each is looked at once per silence. */
static void pack_idle(pd_worker *w, uint32_t i, pd_time now)
{
	shard *sh = w->shards[i];
	bool skip = now < w->pack_due[i];
	if (!sh || (skip && !w->cfg->check))
		return;
	pd_time due = INT64_MAX;
	for (unsigned q = 0; q < PD_FLOWTABLE_QUEUES; q++)
		for (pd_flow_slot *s = pd_flowtable_pack_next(sh->ft, q); s; s = pd_flowtable_pack_next(sh->ft, q)) {
			if (now - s->flow.last_ts < w->cfg->pack_idle) {
				due = MIN(due, s->flow.last_ts + w->cfg->pack_idle);
				break;
			}
			if (skip)
				check_failed(w, s, "a shard skipped as having no idle flow to pack has one");
			pack_flow(w, sh, s);
			pd_flowtable_pack_mark(sh->ft, s);
		}
	if (skip)
		return; /* PD_CHECK looked: keep what a run without it knows */
	sh->pack_candidates = pd_flowtable_candidates(sh->ft);
	w->pack_due[i] = due;
}

static void pack_all(pd_worker *w, pd_time now)
{
	if (!w->cfg->pack_idle)
		return;
	for (uint32_t i = 0; i < w->cfg->n_shards; i++)
		pack_idle(w, i, now);
	w->next_pack = now + w->cfg->pack_idle;
}

/* ----------------------------------------------------------- flow ends */

static unsigned flow_queue(const pd_flow_slot *s)
{
	const pd_flow *f = &s->flow;
	if (f->proto != 6 || f->pseudo)
		return Q_UDP;
	if (f->state == PD_FLOW_CLOSED)
		return Q_CLOSED;
	if (f->syn_frame && !f->synack_frame && !server_seen(s))
		return Q_SYN_ONLY;
	if (f->state == PD_FLOW_SYN_SENT || f->state == PD_FLOW_SYN_RCVD)
		return Q_HALF_OPEN; /* same timeout as Q_TCP; kept apart for the cap */
	return Q_TCP;
}

static pd_time flow_timeout(const pd_flow_slot *s)
{
	const pd_flow *f = &s->flow;
	switch (flow_queue(s)) {
	case Q_UDP:
		return PD_UDP_IDLE_NS;
	case Q_SYN_ONLY:
		return PD_SYN_ONLY_IDLE_NS;
	case Q_CLOSED:
		if (f->rst_seen || fins_acked(s))
			return PD_CLOSED_LINGER_NS;
		return PD_FIN_UNACKED_LINGER_NS;
	default:
		return PD_TCP_IDLE_NS;
	}
}

/* Expired at now: idle for longer than its timeout; after
 * last_ts + flow_timeout. */
static bool flow_expired(const pd_flow_slot *s, pd_time now)
{
	return now - s->flow.last_ts > flow_timeout(s);
}

/* The flow leaves its shard: its label is fixed, its key set, and it
 * waits in the ended list for the collector. */
static void end_flow(pd_worker *w, shard *sh, pd_flow_slot *s, uint64_t pos, uint64_t sub, pd_time now,
		     pd_flow_end why)
{
	s->flow.end_reason = (uint8_t)why;
	pd_flowtable_remove(sh->ft, s);
	pd_app_label_finish(worker_app(w), s, &sh->app);
	w->live_bytes -= slot_bytes(w, s);
	pd_mem_count(PD_MEM_FLOWS_IDLE, (int64_t)pd_slot_held_bytes(w->cfg, s));
	w->st.live--;
	s->end_pos = pos;
	s->end_sub = sub;
	s->end_now = now;
	s->end_next = NULL;
	if (w->cfg->check && w->ended_tail && !pd_ended_before(w->ended_tail, s))
		check_failed(w, s, "a flow ended out of capture order (its key is not after the previous end's)");
	if (w->ended_tail)
		w->ended_tail->end_next = s;
	else
		w->ended = s;
	w->ended_tail = s;
}

/* An end caused by the packet being delivered: after the tick's at pos
 * (their sub keys are last frames, below 2^63), in delivery order. */
static void end_now(pd_worker *w, shard *sh, pd_flow_slot *s, pd_time now, pd_flow_end why)
{
	end_flow(w, sh, s, w->pos, UINT64_C(1) << 63 | w->seq << 2 | (w->k++ & 3), now, why);
}

static int cmp_last_frame(const void *a, const void *b)
{
	const pd_flow_slot *x = *(pd_flow_slot *const *)a, *y = *(pd_flow_slot *const *)b;
	return x->flow.last_frame < y->flow.last_frame ? -1 : x->flow.last_frame > y->flow.last_frame;
}

/* Ends every flow of the list, least recently active first. */
static void end_sorted(pd_worker *w, GPtrArray *gone, uint64_t pos, pd_time now, pd_flow_end why)
{
	g_ptr_array_sort(gone, cmp_last_frame);
	for (guint i = 0; i < gone->len; i++) {
		pd_flow_slot *s = g_ptr_array_index(gone, i);
		uint32_t sh = pd_shard_of(s->hash, w->cfg->n_shards);
		end_flow(w, w->shards[sh], s, pos, s->flow.last_frame, now, why);
	}
}

void pd_worker_tick(pd_worker *w, uint64_t pos, pd_time now)
{
	GPtrArray *gone = NULL;
	for (uint32_t i = 0; i < w->cfg->n_shards; i++) {
		bool skip = now <= w->expire_due[i];
		if (skip && !w->cfg->check)
			continue;
		shard *sh = w->shards[i];
		if (!sh)
			continue;
		/* Each queue in order of last activity; a head that has not
		 * expired stops its queue (closed flows' linger differs by how
		 * they closed: one that waits for its FIN's ACK holds back those
		 * behind it, as it always did). */
		pd_time due = INT64_MAX;
		for (unsigned q = 0; q < PD_FLOWTABLE_QUEUES; q++)
			for (pd_flow_slot *s = pd_flowtable_head(sh->ft, q); s; s = pd_flowtable_next(sh->ft, s)) {
				if (!flow_expired(s, now)) {
					due = MIN(due, s->flow.last_ts + flow_timeout(s));
					break;
				}
				if (skip)
					check_failed(w, s, "a shard skipped as having no expired flow has one");
				if (!gone)
					gone = g_ptr_array_new();
				g_ptr_array_add(gone, s);
			}
		if (skip)
			continue; /* PD_CHECK looked: keep what a run without it knows */
		sh->expire_heads = pd_flowtable_heads(sh->ft);
		w->expire_due[i] = due;
	}
	if (gone) {
		end_sorted(w, gone, pos, now, PD_END_TIMEOUT);
		/* Each queue's new head is where its walk above stopped: the
		 * shard's expire_due holds. Its first unpacked flows may have
		 * gone. */
		for (guint k = 0; k < gone->len; k++) {
			const pd_flow_slot *s = g_ptr_array_index(gone, k);
			uint32_t i = pd_shard_of(s->hash, w->cfg->n_shards);
			shard *sh = w->shards[i];
			sh->expire_heads = pd_flowtable_heads(sh->ft);
			look_again_if_moved(w, sh, i);
		}
		g_ptr_array_free(gone, TRUE);
	}
	pack_all(w, now);
	if (w->cfg->check)
		check_worker(w);
}

void pd_worker_end(pd_worker *w, pd_time now)
{
	GPtrArray *gone = g_ptr_array_new();
	for (uint32_t i = 0; i < w->cfg->n_shards; i++) {
		shard *sh = w->shards[i];
		if (!sh)
			continue;
		for (unsigned q = 0; q < PD_FLOWTABLE_QUEUES; q++)
			for (pd_flow_slot *s = pd_flowtable_head(sh->ft, q); s; s = pd_flowtable_next(sh->ft, s))
				g_ptr_array_add(gone, s);
	}
	end_sorted(w, gone, UINT64_MAX, now, PD_END_CAPTURE);
	g_ptr_array_free(gone, TRUE);
	if (w->cfg->check) {
		check_worker(w);
		if (w->st.live)
			check_failed(w, NULL, "flows are left in the tables after the end");
	}
}

pd_flow_slot *pd_worker_take_ended(pd_worker *w)
{
	pd_flow_slot *s = w->ended;
	w->ended = w->ended_tail = NULL;
	__atomic_store_n(&w->live_bytes_seen, w->live_bytes, __ATOMIC_RELAXED);
	return s;
}

/* ------------------------------------------------------------ new flows */

static pd_flow_slot *new_flow(pd_worker *w, shard *sh, const pd_route *rt, uint8_t proto, const pd_addr *ca,
			      uint16_t cp, const pd_addr *sa, uint16_t sp, const pd_packet *pkt)
{
	const pd_engine_cfg *cfg = w->cfg;
	if (pd_flowtable_count(sh->ft) >= cfg->max_flows_per_shard) {
		pd_flow_slot *victim = pd_flowtable_oldest(sh->ft);
		if (victim) {
			end_now(w, sh, victim, pkt->ts, PD_END_EVICTED);
			if (!w->st.flows_evicted || pkt->frame_no < w->st.evicted_frame) {
				w->st.evicted_frame = pkt->frame_no;
				w->st.evicted_ts = pkt->ts;
			}
			w->st.flows_evicted++;
		}
	}
	if (proto == 6 &&
	    pd_flowtable_count_in(sh->ft, Q_SYN_ONLY) + pd_flowtable_count_in(sh->ft, Q_HALF_OPEN) >=
		    cfg->max_half_open_per_shard) {
		pd_flow_slot *a = pd_flowtable_head(sh->ft, Q_SYN_ONLY), *b = pd_flowtable_head(sh->ft, Q_HALF_OPEN);
		pd_flow_slot *victim = !a ? b : !b ? a : a->flow.last_frame < b->flow.last_frame ? a : b;
		if (victim) {
			end_now(w, sh, victim, pkt->ts, PD_END_EVICTED);
			w->st.half_open_evicted++;
		}
	}
	pd_flow_slot *s = pd_flowtable_insert(sh->ft, new_slot(w), rt->hash, pkt->frame_no, proto, ca, cp, sa, sp);
	pd_flow_slot_set_blocks(s, new_det_block(w), NULL);
	pd_flow *f = &s->flow;
	f->first_ts = pkt->ts;
	f->first_frame = pkt->frame_no;
	if (proto == 6 && !rt->pseudo) {
		f->roles_from_syn = (pkt->tcp.flags & PD_TCP_SYN) != 0;
	} else {
		f->hs_rtt = -1;
		f->rtt_min = -1;
	}
	f->pseudo = rt->pseudo;
	w->live_bytes += slot_bytes(w, s);
	w->st.live++;
	if (w->st.live > w->st.peak_live)
		w->st.peak_live = w->st.live;
	return s;
}

/* Within a flow, time never goes back: a packet stamped before the flow's
 * last one (clocks of merged captures, per-CPU capture buffers, a hostile
 * file) is taken at the flow's last time. Gaps between a flow's packets
 * are then never negative, and any sum of them stays within the capture's
 * span. The capture summary still counts every step back. */
static const pd_packet *flow_time(const pd_flow_slot *s, const pd_packet *pkt, pd_packet *later)
{
	if (pkt->ts >= s->flow.last_ts)
		return pkt;
	*later = *pkt;
	later->ts = s->flow.last_ts;
	return later;
}

/* The one place a flow's last time is set. It only grows for TCP and UDP
 * (flow_time); a pseudo-flow takes each fragment's time as it is, and when
 * it moves back so do the flow's idle and expiry times, which the table's
 * counters do not see (as its queue's first unpacked flow and its tail):
 * the shard is looked at again. */
static void account_packet(pd_worker *w, uint32_t si, pd_flow *f, const pd_packet *pkt)
{
	if (pkt->ts < f->last_ts)
		w->pack_due[si] = w->expire_due[si] = INT64_MIN;
	f->last_ts = pkt->ts;
	f->last_frame = pkt->frame_no;
}

/* ------------------------------------------------------------ the hooks */

static void set_ctx(pd_worker *w, pd_flow_slot *s, size_t i, pd_time now)
{
	w->ctx.det = w->cfg->det[i];
	w->ctx.now = now;
	w->ctx.payload = pd_det_payload(w->cfg, s, i);
}

static void tcp_hooks(pd_worker *w, pd_flow_slot *s, const pd_packet *pkt, const pd_seg *seg)
{
	const pd_engine_cfg *cfg = w->cfg;
	if (!s->data_state && cfg->data_size && pkt->tcp.payload_len > 0) {
		s->data_state = take_block(&w->free_data, cfg->data_size);
		memset(s->data_state, 0, cfg->data_size);
		w->live_bytes += cfg->data_size;
	}
	uint8_t fl = pkt->tcp.flags;
	uint32_t kind = (fl & PD_TCP_SYN ? PD_ON_SYN : 0) | (fl & (PD_TCP_FIN | PD_TCP_RST) ? PD_ON_FIN_RST : 0);
	if (pkt->tcp.payload_len > 0)
		kind |= seg->flags & PD_SEG_NEW_DATA ? PD_ON_NEW_DATA : PD_ON_OTHER_DATA;
	if (!kind)
		kind = PD_ON_ACK;
	for (size_t i = 0; i < cfg->n_det; i++) {
		const pd_detector *d = cfg->det[i];
		if (!d->on_tcp)
			continue;
		if (d->on_tcp_for && !(d->on_tcp_for & kind)) {
			w->st.hooks_skipped++;
			continue;
		}
		void *fs = pd_det_block(cfg, s, i);
		if (!fs)
			continue;
		set_ctx(w, s, i, pkt->ts);
		d->on_tcp(&w->ctx, &s->flow, fs, pkt, seg);
		w->st.hooks_called++;
	}
}

static void udp_hooks(pd_worker *w, pd_flow_slot *s, const pd_packet *pkt, const pd_seg *seg)
{
	const pd_engine_cfg *cfg = w->cfg;
	for (size_t i = 0; i < cfg->n_det; i++) {
		const pd_detector *d = cfg->det[i];
		void *fs;
		if (!d->on_udp || !(fs = pd_det_block(cfg, s, i)))
			continue;
		set_ctx(w, s, i, pkt->ts);
		d->on_udp(&w->ctx, &s->flow, fs, pkt, seg);
	}
}

static void fragment_hooks(pd_worker *w, pd_flow_slot *s, const pd_packet *pkt, int dir)
{
	pd_packet later;
	pkt = flow_time(s, pkt, &later);
	const pd_engine_cfg *cfg = w->cfg;
	for (size_t i = 0; i < cfg->n_det; i++) {
		const pd_detector *d = cfg->det[i];
		void *fs;
		if (!d->on_fragment || !(fs = pd_det_block(cfg, s, i)))
			continue;
		set_ctx(w, s, i, pkt->ts);
		d->on_fragment(&w->ctx, &s->flow, fs, pkt, dir);
	}
}

static void icmp_hooks(pd_worker *w, pd_flow_slot *s, const pd_packet *pkt, int dir)
{
	pd_packet later;
	pkt = flow_time(s, pkt, &later);
	const pd_engine_cfg *cfg = w->cfg;
	for (size_t i = 0; i < cfg->n_det; i++) {
		const pd_detector *d = cfg->det[i];
		void *fs;
		if (!d->on_icmp_error || !(fs = pd_det_block(cfg, s, i)))
			continue;
		set_ctx(w, s, i, pkt->ts);
		d->on_icmp_error(&w->ctx, &s->flow, fs, pkt, dir);
	}
}

/* ------------------------------------------------------------- packets */

/* The live flow of a packet's tuple, unpacked (the engine and the hooks
 * read its halves), or NULL. */
static pd_flow_slot *find_flow(pd_worker *w, pd_flowtable *ft, uint64_t hash, uint8_t proto, const pd_addr *a,
			       uint16_t pa, const pd_addr *b, uint16_t pb, int *dir)
{
	pd_flow_slot *s = pd_flowtable_lookup(ft, hash, proto, a, pa, b, pb, dir);
	if (s)
		unpack_flow(w, s);
	return s;
}

static void handle_tcp(pd_worker *w, shard *sh, const pd_packet *pkt, const pd_route *rt, bool dup)
{
	const pd_ip *ip = &pkt->ip;
	const pd_tcp *t = &pkt->tcp;
	int dir = PD_CLIENT;
	uint32_t extra = dup ? PD_SEG_CAPTURE_DUP : 0;
	pd_flow_slot *s = find_flow(w, sh->ft, rt->hash, 6, &ip->src, t->sport, &ip->dst, t->dport, &dir);
	if (s && s->flow.pseudo) {
		/* fragments' pseudo-flow on this tuple (handle_fragment) */
		end_now(w, sh, s, pkt->ts, PD_END_REUSED);
		s = NULL;
	}
	if (s && pd_tcp_starts_new_connection(&s->flow, dir, pkt)) {
		end_now(w, sh, s, pkt->ts, PD_END_REUSED);
		s = NULL;
		extra |= PD_SEG_PORT_REUSE;
	}
	if (!s) {
		if (pd_tcp_sender_is_client(pkt)) {
			s = new_flow(w, sh, rt, 6, &ip->src, t->sport, &ip->dst, t->dport, pkt);
			dir = PD_CLIENT;
		} else {
			s = new_flow(w, sh, rt, 6, &ip->dst, t->dport, &ip->src, t->sport, pkt);
			dir = PD_SERVER;
		}
		extra |= PD_SEG_NEW_FLOW;
	}
	pd_seg seg;
	pd_packet later;
	pkt = flow_time(s, pkt, &later);
	account_packet(w, rt->shard, &s->flow, pkt);
	pd_tcp_engine_update(&s->flow, dir, pkt, &seg);
	seg.flags |= extra;
	pd_flowtable_touch(sh->ft, s, flow_queue(s));
	pd_app_label_feed(worker_app(w), s, pkt, &sh->app);
	tcp_hooks(w, s, pkt, &seg);
}

static void handle_udp(pd_worker *w, shard *sh, const pd_packet *pkt, const pd_route *rt, bool dup)
{
	const pd_ip *ip = &pkt->ip;
	const pd_udp *u = &pkt->udp;
	int dir = PD_CLIENT;
	pd_seg seg;
	memset(&seg, 0, sizeof(seg));
	pd_flow_slot *s = find_flow(w, sh->ft, rt->hash, 17, &ip->src, u->sport, &ip->dst, u->dport, &dir);
	if (s && s->flow.pseudo) {
		end_now(w, sh, s, pkt->ts, PD_END_REUSED);
		s = NULL;
	}
	if (!s) {
		bool s_wk = u->sport && u->sport < 1024, d_wk = u->dport && u->dport < 1024;
		if (s_wk && !d_wk) {
			s = new_flow(w, sh, rt, 17, &ip->dst, u->dport, &ip->src, u->sport, pkt);
			dir = PD_SERVER;
		} else {
			s = new_flow(w, sh, rt, 17, &ip->src, u->sport, &ip->dst, u->dport, pkt);
			dir = PD_CLIENT;
		}
		seg.flags |= PD_SEG_NEW_FLOW;
	}
	pd_flow *f = &s->flow;
	pd_packet later;
	pkt = flow_time(s, pkt, &later);
	account_packet(w, rt->shard, f, pkt);
	f->pkts++;
	pd_tcp_half *h = pd_flow_half_mut(f, dir);
	h->seen = true;
	h->pkts++;
	h->ip_bytes += pkt->ip.total_len;
	h->payload_bytes += pkt->udp.payload_len;
	h->last_pkt_ts = pkt->ts;
	seg.dir = dir;
	if (dup)
		seg.flags |= PD_SEG_CAPTURE_DUP;
	pd_flowtable_touch(sh->ft, s, Q_UDP);
	pd_app_label_feed(worker_app(w), s, pkt, &sh->app);
	udp_hooks(w, s, pkt, &seg);
}

/* A fragment without a flow to go to: the pseudo-flow of rt's tuple
 * (sender as client), made on first use. */
static void handle_pseudo(pd_worker *w, shard *sh, const pd_packet *pkt, const pd_route *rt)
{
	int dir = PD_CLIENT;
	pd_flow_slot *s = find_flow(w, sh->ft, rt->hash, rt->proto, &rt->a, rt->pa, &rt->b, rt->pb, &dir);
	if (s && !s->flow.pseudo) {
		/* a real flow on the tuple (TCP or UDP ports 0): the fragment is
		 * its, as for a datagram whose first fragment came; the flow stays
		 * in the queue of its own state */
		fragment_hooks(w, s, pkt, dir);
		return;
	}
	if (!s)
		s = new_flow(w, sh, rt, rt->proto, &rt->a, rt->pa, &rt->b, rt->pb, pkt);
	pd_flow *f = &s->flow;
	account_packet(w, rt->shard, f, pkt);
	f->pkts++;
	pd_tcp_half *h = pd_flow_half_mut(f, dir);
	h->seen = true;
	h->pkts++;
	h->ip_bytes += pkt->ip.total_len;
	h->last_pkt_ts = pkt->ts;
	pd_flowtable_touch(sh->ft, s, Q_UDP);
	fragment_hooks(w, s, pkt, dir);
}

static void handle_fragment(pd_worker *w, shard *sh, const pd_packet *pkt, const pd_route *rt)
{
	if (rt->pseudo) {
		handle_pseudo(w, sh, pkt, rt);
		return;
	}
	int dir = PD_CLIENT;
	pd_flow_slot *s = find_flow(w, sh->ft, rt->hash, rt->proto, &rt->a, rt->pa, &rt->b, rt->pb, &dir);
	if (!s || s->flow.pseudo) {
		/* Its flow ended since the first fragment: a pseudo-flow with
		 * the flow's tuple takes it (and the datagram's other late
		 * fragments, counted as its packets), here in the flow's shard
		 * (the pseudo-flow of the addresses alone may be another
		 * worker's). */
		pd_route pseudo = *rt;
		pseudo.pseudo = true;
		handle_pseudo(w, sh, pkt, &pseudo);
		return;
	}
	fragment_hooks(w, s, pkt, dir);
}

static void handle_icmp_error(pd_worker *w, shard *sh, const pd_packet *pkt, const pd_route *rt)
{
	int dir = PD_CLIENT;
	pd_flow_slot *s = find_flow(w, sh->ft, rt->hash, rt->proto, &rt->a, rt->pa, &rt->b, rt->pb, &dir);
	if (s) {
		icmp_hooks(w, s, pkt, dir);
		return;
	}
	pd_worker_stats *st = &w->st;
	if (!st->icmp_unmatched || pkt->frame_no < st->icmp_unmatched_frame) {
		st->icmp_unmatched_frame = pkt->frame_no;
		st->icmp_unmatched_ts = pkt->ts;
	}
	st->icmp_unmatched++;
	if (pkt->icmp.is_frag_needed) {
		st->icmp_unmatched_frag_needed++;
		uint32_t mtu = pkt->icmp.mtu;
		if (mtu && (!st->icmp_unmatched_min_mtu || mtu < st->icmp_unmatched_min_mtu))
			st->icmp_unmatched_min_mtu = mtu;
	}
}

void pd_worker_packet(pd_worker *w, uint64_t pos, uint64_t seq, const pd_packet *pkt, const pd_route *rt,
		      bool dup)
{
	w->pos = pos;
	w->seq = seq;
	w->k = 0;
	shard *sh = w->shards[rt->shard];
	if (!sh)
		g_error("pcapdoc: a packet was routed to a shard its worker does not own");
	switch (rt->kind) {
	case PD_ROUTE_TCP:
		handle_tcp(w, sh, pkt, rt, dup);
		break;
	case PD_ROUTE_UDP:
		handle_udp(w, sh, pkt, rt, dup);
		break;
	case PD_ROUTE_FRAGMENT:
		handle_fragment(w, sh, pkt, rt);
		break;
	case PD_ROUTE_ICMP_ERROR:
		handle_icmp_error(w, sh, pkt, rt);
		break;
	default:
		break;
	}
	look_again_if_moved(w, sh, rt->shard);
	/* Between ticks too, by this worker's own packets: a flow silent for
	 * pack_idle is packed within about twice that, not at the next tick
	 * (packing is memory only; no report sees it). */
	if (w->cfg->pack_idle && pkt->ts >= w->next_pack)
		pack_all(w, pkt->ts);
	if (w->live_bytes > w->st.peak_bytes)
		w->st.peak_bytes = w->live_bytes;
	if (w->cfg->check)
		check_shard(w, rt->shard);
}

void pd_worker_stats_add(const pd_worker *w, pd_worker_stats *sum)
{
	const pd_worker_stats *st = &w->st;
	if (st->flows_evicted && (!sum->flows_evicted || st->evicted_frame < sum->evicted_frame)) {
		sum->evicted_frame = st->evicted_frame;
		sum->evicted_ts = st->evicted_ts;
	}
	sum->flows_evicted += st->flows_evicted;
	sum->half_open_evicted += st->half_open_evicted;
	sum->live += st->live;
	sum->peak_live += st->peak_live;
	sum->peak_bytes += st->peak_bytes;
	sum->packed += st->packed;
	sum->packed_bytes += st->packed_bytes;
	sum->hooks_called += st->hooks_called;
	sum->hooks_skipped += st->hooks_skipped;
	sum->app_modules += w->app != NULL;
	for (uint32_t i = 0; i < w->cfg->n_shards; i++)
		if (w->shards[i]) {
			sum->app_skipped += w->shards[i]->app.skipped;
			sum->app_peak += w->shards[i]->app.peak;
		}
	if (st->icmp_unmatched &&
	    (!sum->icmp_unmatched || st->icmp_unmatched_frame < sum->icmp_unmatched_frame)) {
		sum->icmp_unmatched_frame = st->icmp_unmatched_frame;
		sum->icmp_unmatched_ts = st->icmp_unmatched_ts;
	}
	sum->icmp_unmatched += st->icmp_unmatched;
	sum->icmp_unmatched_frag_needed += st->icmp_unmatched_frag_needed;
	if (st->icmp_unmatched_min_mtu &&
	    (!sum->icmp_unmatched_min_mtu || st->icmp_unmatched_min_mtu < sum->icmp_unmatched_min_mtu))
		sum->icmp_unmatched_min_mtu = st->icmp_unmatched_min_mtu;
}

/* ------------------------------------------------------------ PD_CHECK */

static void check_failed(const pd_worker *w, const pd_flow_slot *s, const char *what)
{
	fprintf(stderr,
		"pcapdoc: engine invariant broken (PD_CHECK), worker %u of %u, delivery %" G_GUINT64_FORMAT
		" at frame %" G_GUINT64_FORMAT ": %s\n",
		w->index, w->n_workers, w->seq, w->pos, what);
	if (s) {
		char a[PD_ADDR_STRLEN], b[PD_ADDR_STRLEN];
		const pd_flow *f = &s->flow;
		pd_addr_str(&f->addr[PD_CLIENT], a, sizeof(a));
		pd_addr_str(&f->addr[PD_SERVER], b, sizeof(b));
		fprintf(stderr,
			"pcapdoc:   the flow: proto %u %s:%u -> %s:%u%s, frames %" G_GUINT64_FORMAT "-%" G_GUINT64_FORMAT
			", queue %u, shard by hash %u\n",
			f->proto, a, f->port[PD_CLIENT], b, f->port[PD_SERVER],
			f->pseudo ? " (pseudo)" : "", f->first_frame, f->last_frame, s->queue,
			(unsigned)pd_shard_of(s->hash, w->cfg->n_shards));
	}
	abort();
}

/* What expiry keeps aside of a packed flow's halves is what they say. */
static void check_packed(pd_worker *w, const pd_flow_slot *s)
{
	if (!w->check_det)
		w->check_det = g_malloc(w->cfg->det_size);
	pd_unpack_from(w->cfg->det_layout, s->packed, w->check_det);
	const pd_tcp_half *half = (const pd_tcp_half *)(void *)w->check_det;
	if (half[PD_SERVER].seen != s->packed_server_seen || both_fins_acked(half) != s->packed_fins_acked)
		check_failed(w, s, "a packed flow's facts kept for its expiry are not its halves'");
}

/* Every flow of shard si: in the table's structure, reachable by its own
 * tuple (so no other flow of that tuple comes before it), hashed to this
 * shard, in the queue its state says; and the shard's nDPI budget. */
static void check_shard(pd_worker *w, uint32_t si)
{
	shard *sh = si < w->cfg->n_shards ? w->shards[si] : NULL;
	if (!sh || si % w->n_workers != w->index)
		check_failed(w, NULL, "a shard is handled by a worker that does not own it");
	const char *bad = pd_flowtable_check(sh->ft);
	if (bad)
		check_failed(w, NULL, bad);
	size_t ndpi = 0, bytes = 0;
	for (unsigned q = 0; q < PD_FLOWTABLE_QUEUES; q++)
		for (pd_flow_slot *s = pd_flowtable_head(sh->ft, q); s; s = pd_flowtable_next(sh->ft, s)) {
			const pd_flow *f = &s->flow;
			bytes += slot_bytes(w, s);
			if (s->hash != pd_flow_hash(f->proto, &f->addr[0], f->port[0], &f->addr[1], f->port[1]))
				check_failed(w, s, "a flow's hash is not its tuple's");
			if (pd_shard_of(s->hash, w->cfg->n_shards) != si)
				check_failed(w, s, "a flow is in another shard than its hash routes to");
			int dir = -1;
			pd_flow_slot *found = pd_flowtable_lookup(sh->ft, s->hash, f->proto, &f->addr[0], f->port[0],
								   &f->addr[1], f->port[1], &dir);
			if (found != s || dir != PD_CLIENT)
				check_failed(w, s, "a flow is not the one its tuple finds (two flows of one tuple)");
			if (flow_queue(s) != q)
				check_failed(w, s, "a flow is not in the activity queue of its state (its expiry is wrong)");
			if (s->packed)
				check_packed(w, s);
			if (s->end_next)
				check_failed(w, s, "a live flow is in a list of ended flows");
			ndpi += s->ndpi != NULL;
		}
	if (ndpi != sh->app.live)
		check_failed(w, NULL, "the shard's count of nDPI states differs from its flows'");
	sh->checked = true;
	sh->checked_changes = pd_flowtable_changes(sh->ft);
	sh->checked_bytes = bytes;
}

/* Every shard, the worker's ownership of them and its counts. */
static void check_worker(pd_worker *w)
{
	uint64_t live = 0, bytes = 0;
	for (uint32_t i = 0; i < w->cfg->n_shards; i++) {
		if ((w->shards[i] != NULL) != (i % w->n_workers == w->index))
			check_failed(w, NULL, "the worker's shards are not the ones it owns");
		shard *sh = w->shards[i];
		if (!sh)
			continue;
		if (!sh->checked || sh->checked_changes != pd_flowtable_changes(sh->ft))
			check_shard(w, i);
		live += pd_flowtable_count(sh->ft);
		bytes += sh->checked_bytes;
	}
	if (live != w->st.live)
		check_failed(w, NULL, "the worker's count of live flows differs from its tables'");
	if (bytes != w->live_bytes)
		check_failed(w, NULL, "the worker's bytes of live flows differ from its flows'");
	for (const pd_flow_slot *s = w->ended; s; s = s->end_next)
		if (s->link.prev || s->link.next)
			check_failed(w, s, "an ended flow is still linked in an activity queue");
}
