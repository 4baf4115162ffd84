/* The engine's parts and how they meet (analyzer/ only; see docs/hacking.md
 * for the picture).
 *
 *   reader -> summary + router -> worker(s) -> collector
 *
 * - The run (run.c) reads frames, counts them (summary.c), routes each to
 *   the shard of its flow (router.c) and decides when flows may time out
 *   (a tick each second of capture time).
 * - The capture's flows are split into a fixed number of shards by flow
 *   hash; a worker owns some shards outright and does everything per flow
 *   there: flow table, TCP engine, application label, detectors' flow hooks
 *   (worker.c). A shard's caps and tables depend only on the packets routed
 *   to it, never on how many workers there are.
 * - Each flow that ends leaves its worker with a key (its place in the
 *   capture) and goes to the collector (collector.c), which takes ended
 *   flows from all workers in key order, runs the detectors' end hooks and
 *   owns the findings. So findings never depend on threads either. */
#ifndef PD_ENGINE_H
#define PD_ENGINE_H

#include <glib.h>

#include "app_label.h"
#include "flowtable.h"
#include "pack.h"
#include "heuristics/ctx.h"
#include "heuristics/detector.h"
#include "report/model.h"
#include "router.h"

/* Idle times after which a flow is finalized (capture time, not wall time). */
#define PD_CLOSED_LINGER_NS (10 * PD_NS_PER_SEC) /* both FINs ACKed, or RST */
#define PD_FIN_UNACKED_LINGER_NS (130 * PD_NS_PER_SEC) /* FIN retries back off for minutes */
#define PD_SYN_ONLY_IDLE_NS (180 * PD_NS_PER_SEC) /* SYN retries last ~131 s by default */
#define PD_TCP_IDLE_NS (900 * PD_NS_PER_SEC)
#define PD_UDP_IDLE_NS (120 * PD_NS_PER_SEC)
#define PD_TICK_NS (PD_NS_PER_SEC)
/* Keep-alive connections wait seconds to minutes between requests; a
 * quarter second of silence packs a flow (worker.c: looked for at ticks
 * and every quarter second of a worker's packets). Each pack and unpack
 * reads and writes a cold block: docs/performance.md has what that costs. */
#define PD_PACK_IDLE_NS (PD_NS_PER_SEC / 4)

/* Shards: at most this many (a power of two), fewer for a small
 * --max-flows so that every shard keeps a useful share of the cap. */
#define PD_MAX_SHARDS 256
/* Half-open flows (a SYN, maybe a SYN-ACK, no completed handshake) kept at
 * once, over all shards. A SYN flood from spoofed sources makes one per
 * packet; past a shard's share the shard's oldest is finalized early, as a
 * server's SYN backlog drops its oldest request. */
#define PD_MAX_HALF_OPEN 16384

/* Which detectors have which hook, and where their blocks are. Read-only
 * once the run starts; shared by the workers and the collector. */
typedef struct pd_engine_cfg {
	uint32_t n_shards;
	size_t max_flows_per_shard;
	size_t max_half_open_per_shard;
	size_t app_live_per_shard;
	bool no_app_label;
	size_t n_det;
	const pd_detector **det; /* the detectors that run (all of pd_detectors, or some) */
	size_t *det_offset; /* into the slot's det_state, or data_state when lazy */
	size_t *payload_offset; /* a detector's payload_state_size block, in data_state */
	size_t det_size; /* the flow's halves and the eager blocks (flowtable.h) */
	size_t data_size; /* from_payload blocks, at the first payload */
	/* capture facts the hooks may read (set before the first packet) */
	pd_time start;
	uint32_t snaplen;
	/* PD_CHECK=1 in the environment (tests, fuzzing): after every packet
	 * the worker checks the shard it touched (every flow reachable from
	 * its table by its tuple, in the shard its hash routes to, in the
	 * activity queue its state says, the table's and queues' counts),
	 * after ticks and at the end every shard and the worker's counts,
	 * and the collector that ended flows come in capture order; the
	 * first violation aborts. Off: one branch per packet. */
	bool check;
	/* a flow silent this long (capture time) has its from_payload blocks
	 * packed (pack.h) until its next packet or its end; 0: never */
	pd_time pack_idle;
	/* which words of the eager and the payload blocks repeat which: the
	 * one part that changes after the start, learned once by worker 0
	 * from the first blocks it packs (pack.h), then fixed */
	pd_pack_layout *det_layout, *data_layout;
} pd_engine_cfg;

/* only: comma-separated detector names to run (NULL: all) */
void pd_engine_cfg_init(pd_engine_cfg *cfg, size_t max_flows, bool no_detectors, bool no_app_label,
			const char *only);
void pd_engine_cfg_clear(pd_engine_cfg *cfg);
/* The detector's block of a flow; NULL for a from_payload detector before
 * the flow's first payload. */
static inline void *pd_det_block(const pd_engine_cfg *cfg, pd_flow_slot *s, size_t i)
{
	if (cfg->det[i]->from_payload)
		return s->data_state ? s->data_state + cfg->det_offset[i] : NULL;
	return s->det_state ? s->det_state + cfg->det_offset[i] : NULL;
}
/* The detector's payload block (payload_state_size) of a flow, or NULL. */
static inline void *pd_det_payload(const pd_engine_cfg *cfg, pd_flow_slot *s, size_t i)
{
	return cfg->det[i]->payload_state_size && s->data_state ? s->data_state + cfg->payload_offset[i] : NULL;
}

/* ---------------------------------------------------------------- worker */

typedef struct pd_worker pd_worker;

/* Owns the shards s with s % n_workers == index. */
pd_worker *pd_worker_new(const pd_engine_cfg *cfg, uint32_t index, uint32_t n_workers);
void pd_worker_free(pd_worker *w);
/* A packet routed to one of its shards; pos: the frame being read when it
 * is delivered (its own frame number, but for held fragments); seq: the
 * delivery's number in the whole capture (flows it ends are ordered by
 * it). */
void pd_worker_packet(pd_worker *w, uint64_t pos, uint64_t seq, const pd_packet *pkt, const pd_route *rt,
		      bool dup);
/* Capture time now (reached at frame pos): flows idle past their timeout end. */
void pd_worker_tick(pd_worker *w, uint64_t pos, pd_time now);
/* The capture is over: every flow ends. */
void pd_worker_end(pd_worker *w, pd_time now);
/* The flows that ended since the last call, in capture order (a list
 * through end_next); the caller owns them. */
pd_flow_slot *pd_worker_take_ended(pd_worker *w);

/* The worker of an ended flow's slot, among n. */
uint32_t pd_slot_worker(const pd_engine_cfg *cfg, const pd_flow_slot *s, uint32_t n_workers);
/* Any thread: an ended flow's slot, which the collector is done with, goes
 * back to the worker it came from (pd_slot_worker), blocks and all, for a
 * new flow: a slot and its blocks are made and given back by one thread,
 * so malloc never frees across threads on the way. */
void pd_worker_recycle(pd_worker *w, pd_flow_slot *s);

/* What a worker counted that the report shows; added up over workers. */
typedef struct pd_worker_stats {
	uint64_t flows_evicted, half_open_evicted, app_skipped;
	uint64_t app_peak; /* nDPI states at once: the sum of the shards' peaks */
	uint32_t app_modules; /* workers that started nDPI (at their first flow) */
	uint64_t evicted_frame; /* the first flow evicted by the cap: the frame that made room */
	pd_time evicted_ts;
	uint64_t live, peak_live; /* flows in its tables */
	uint64_t peak_bytes; /* flow blocks and tables at their peak */
	uint64_t packed; /* idle flows' blocks packed */
	uint64_t packed_bytes; /* their packed lengths, summed */
	uint64_t hooks_called, hooks_skipped; /* on_tcp calls made, and left out by on_tcp_for */
	/* ICMP errors that quote no flow the engine has (ended, never seen) */
	uint64_t icmp_unmatched, icmp_unmatched_frag_needed;
	uint32_t icmp_unmatched_min_mtu;
	uint64_t icmp_unmatched_frame;
	pd_time icmp_unmatched_ts;
} pd_worker_stats;
void pd_worker_stats_add(const pd_worker *w, pd_worker_stats *sum);
/* --stats' memory sampler, from any thread: the worker's bytes of live
 * flows (what peak_bytes counts) as of its last pd_worker_take_ended. */
uint64_t pd_worker_flow_bytes(const pd_worker *w);
/* What a slot holds now: itself, its blocks, its packed bytes. */
size_t pd_slot_held_bytes(const pd_engine_cfg *cfg, const pd_flow_slot *s);

/* ------------------------------------------------------------- collector */

typedef struct pd_collector pd_collector;

pd_collector *pd_collector_new(const pd_engine_cfg *cfg, bool want_flow_rows, size_t max_flow_rows);
void pd_collector_free(pd_collector *c);
/* true: the detectors' global blocks of a finished run are kept (one set)
 * and zeroed for the next run, instead of freed and allocated again (a
 * process that runs many small analyses one after another: the fuzzer). */
void pd_collector_keep_blocks(bool keep);
/* Takes an ended flow (in capture order): end hooks, counts, row. The slot
 * goes back to its worker afterwards (pd_worker_recycle). The next flow of
 * its list (end_next), most often the one taken next, is brought into the
 * cache meanwhile: an ended flow's memory was last touched on another
 * core, long ago. */
void pd_collector_flow(pd_collector *c, pd_flow_slot *s);
/* on_end of every detector, then the findings and what the collector
 * counted go into r (flow ids renumbered 0, 1, 2... by first frame). */
void pd_collector_finish(pd_collector *c, pd_report *r, const pd_capture_facts *facts, pd_time last_ts);

#endif
