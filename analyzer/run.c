/* The analysis pipeline and the finding API detectors report through. */
#include "run.h"

#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "dissect/dissect.h"
#include "flowtable.h"
#include "heuristics/detector.h"
#include "ndpi_glue.h"
#include "pack.h"
#include "pipeline.h"
#include "recpool.h"
#include "slab.h"
#include "tcp_engine.h"

/* Idle times after which a flow is finalized (capture time, not wall time). */
#define PD_CLOSED_LINGER_NS (10 * PD_NS_PER_SEC) /* both FINs ACKed, or RST */
#define PD_FIN_UNACKED_LINGER_NS (130 * PD_NS_PER_SEC) /* FIN retries back off for minutes */
#define PD_SYN_ONLY_IDLE_NS (180 * PD_NS_PER_SEC) /* SYN retries last ~127 s by default */
#define PD_TCP_IDLE_NS (900 * PD_NS_PER_SEC)
#define PD_UDP_IDLE_NS (120 * PD_NS_PER_SEC)
#define PD_EXPIRE_EVERY_NS (PD_NS_PER_SEC)

/* Half-open flows (a SYN, maybe a SYN-ACK, no completed handshake) kept at
 * once. A SYN flood from spoofed sources makes one per packet; past this
 * many the oldest is finalized early, as a server's SYN backlog drops its
 * oldest request. Legitimate handshakes finish in an RTT, so only a flood
 * reaches it. */
#define PD_MAX_HALF_OPEN 16384

/* Parking (flowtable.h): a waiting flow kept in a fifth of its size.
 * Half-open and UDP flows may be parked, unless pinned (pd_flow.pinned):
 * - one idle for PD_PARK_IDLE_NS: a DNS exchange lasts milliseconds and its
 *   flow then waits two minutes to expire; a SYN waits a second or more
 *   for its retransmission;
 * - past PD_PARK_AT flows of one such queue not yet offered for parking,
 *   the least recently active: a handshake finishes within an RTT, long
 *   before a thousand newer half-open flows come, so that parks a flood's
 *   flows (and handshakes it slows down) as the flood goes, and a busy DNS
 *   server's flows between two ticks of the idle rule.
 * PD_TEST_PARK_AT sets PD_PARK_AT and makes the idle time 0 (with 0: park
 * every flow that may be, at once), for the tests and the fuzzer;
 * PD_TEST_PARK_STATS prints how many flows were parked. */
#define PD_PARK_AT 1024
#define PD_PARK_IDLE_NS (PD_NS_PER_SEC / 2)

/* Frames kept for the lanes while they catch up (--threads 2+), and the
 * bytes for their copies: libpcap reuses its buffer at the next read (a
 * file the reader reads itself, its frames stay put and are not copied). */
#define PD_FRAME_SLOTS 2048
#define PD_FRAME_ARENA (4u << 20)

/* What the flow stage hands to the detector lanes, in capture order: the
 * calls one thread would make. The flow itself does not travel: each lane
 * keeps a mirror of it, made when the flow starts, and runs every packet of
 * the flow through the same engine code (flow_account_tcp/udp), which is
 * cheaper than copying the flow at each packet; the engine's state is a
 * function of the packets alone. PD_TEST_REPLAY_CHECK makes every event
 * also carry the flow, which the lane compares with its mirror. */
enum { EV_PACKET, EV_TCP, EV_UDP, EV_END, EV_PARK, EV_UNPARK };

typedef struct pd_event {
	uint8_t kind;
	int8_t dir; /* EV_TCP, EV_UDP: the sender */
	bool want_label; /* EV_END: the app lane reports the flow's label back */
	bool with_packet; /* EV_TCP, EV_UDP: run the packet hooks first (no EV_PACKET was sent) */
	/* EV_TCP, EV_UDP: PD_SEG_NEW_FLOW when the packet starts its flow (see
	 * mirror_start); EV_TCP: with PD_SEG_PORT_REUSE, added to the segment's
	 * flags as the flow thread adds them */
	uint32_t seg_extra;
	uint64_t flow_id; /* with PD_SEG_NEW_FLOW */
	uint32_t park_slot; /* EV_PARK, EV_UNPARK: where the lanes keep the flow's part */
	pd_time first_ts; /* start of the capture so far (pd_run_first_ts) */
	const pd_packet *pkt; /* EV_PACKET, EV_TCP, EV_UDP: in a frame slot */
	uint8_t *shadow; /* the flow's block of lane state */
} pd_event;
/* PD_TEST_REPLAY_CHECK: where the flow's copy sits in a record */
#define EV_SNAP_OFF 64

/* A flow's lane state: a header, then per lane a mirror of the flow (what
 * detectors see as the flow) and that lane's per-flow detector blocks.
 * Allocated by the flow stage when the flow starts; the last lane to see
 * the flow end frees it. */
typedef struct shadow_hdr {
	_Atomic uint32_t refs;
	uint8_t *next; /* on a free list */
	/* the flow's label, written by the flow thread before EV_END (nDPI may
	 * run there), read by the lanes after it */
	const char *app;
} shadow_hdr;
/* Lanes hand ended flows' blocks back in batches, not one free() each
 * across threads. */
#define SHADOW_RETURN_BATCH 256
#define SHADOW_HDR 64
_Static_assert(sizeof(shadow_hdr) <= SHADOW_HDR, "shadow header outgrew its room");
_Static_assert(sizeof(pd_event) <= EV_SNAP_OFF, "an event record should fit a cache line");

/* A flow's final label, for the flow thread's findings. */
typedef struct pd_flow_label {
	uint64_t flow_id;
	const char *app; /* interned */
} pd_flow_label;

typedef struct frame_slot {
	pd_frame fr;
	pd_packet pkt;
	pd_dissect_status st;
	size_t off; /* of the copy in the arena, if in_arena; len = fr.caplen */
	bool in_arena;
	uint8_t *own; /* a frame too big for the arena: its own copy */
} frame_slot;

/* The frames the lanes may still read: a FIFO of slots whose copies sit
 * one after the other in a circular arena. */
typedef struct frame_ring {
	frame_slot *slot; /* [PD_FRAME_SLOTS] */
	/* events the lanes must handle before slot i is reused; apart from the
	 * slots, which the lanes read while this thread goes on */
	uint64_t *needs;
	uint8_t *arena;
	bool stable; /* the reader's frames stay put (pd_reader_frames_stable): no copies */
	size_t held; /* stable: bytes of the frames in the ring (bounded like the arena) */
	uint64_t head, next; /* oldest unreleased frame, next frame */
	size_t wpos; /* where the next copy goes */
} frame_ring;

/* Detector indices whose hook is set and that run in this lane. */
typedef struct hook_list {
	size_t n;
	size_t *idx;
} hook_list;

struct pd_run {
	pd_run_opts opts;
	pd_report *report;
	pd_reader *reader;
	pd_flowtable *ft;
	pd_ndpi *ndpi;
	size_t *det_offset; /* per detector, into pd_flow.det_state */
	void **det_global;
	bool *det_on; /* this lane runs detector i */
	hook_list h_packet, h_tcp, h_udp, h_flow_end, h_end;
	size_t det_state_size; /* eager per-flow block, inside pd_flow */
	size_t data_state_size; /* lazy block, allocated at the first payload */
	GHashTable *findings; /* key -> pd_finding* */
	uint32_t *per_id; /* per-flow findings created, by catalogue index */
	GHashTable *flow_findings; /* flow id -> GSList of pd_finding* (not owned) */
	GHashTable *apps; /* name -> count */
	GHashTable *linktypes; /* linktype -> count */
	pd_time next_expire;
	int lt_run; /* link type of the current run of frames */
	uint64_t lt_run_count;
	pd_time last_ts;
	bool have_ts;
	uint32_t snaplen;
	bool finished;
	/* progress */
	gint64 progress_next;
	gint64 progress_start;
	uint64_t progress_k;

	/* --threads 2+: this run (the flow thread) reads, keeps the flows and
	 * makes the summary, and runs the detectors the plan gives it; the
	 * others run in lanes, each a run of its own on a thread of its own,
	 * fed through `stage` (with one lane, nDPI runs there too: app_lane).
	 * Their findings move here at the end. */
	pd_run *lane[PD_STAGE_MAX_LANES];
	size_t n_lanes; /* 0: the detectors run here */
	pd_stage *stage;
	size_t shadow_size; /* lanes: bytes of a flow's shadow block */
	size_t shadow_off; /* a lane: where its part of the block starts */
	size_t mirror_size; /* a lane: bytes of its part (mirror and detector blocks) */
	pd_slab shadow_slab; /* the flow thread: where shadow blocks come from */
	uint8_t *shadow_free; /* blocks to reuse: the flow thread's own list */
	GMutex shadow_lock; /* guards shadow_back */
	uint8_t *shadow_back; /* blocks the lanes handed back */
	pd_run *owner; /* a lane: the run it works for */
	bool app_lane; /* a lane that runs nDPI, counts labels and makes flow rows */
	bool ndpi_started; /* an app lane: its nDPI module was made (on its thread) */
	GArray *labels_out; /* an app lane: pd_flow_label of the flows the flow thread asked about */
	bool app_in_lane; /* the flow thread: lane 0 is an app lane */
	uint64_t ndpi_skipped_elsewhere; /* the app lane's count, at the end */
	uint8_t *shadow_done, *shadow_done_tail; /* a lane: blocks it will hand back */
	size_t n_done;
	bool flows_done; /* every flow finalized and on_end run */
	uint64_t lanes_handled; /* events every lane is known to be done with */
	uint64_t half_open_evicted;
	bool parking; /* the flow thread: whether flows are parked at all */
	size_t park_at; /* the flow thread: PD_PARK_AT */
	pd_time park_idle_ns; /* the flow thread: PD_PARK_IDLE_NS */
	bool park_stats; /* PD_TEST_PARK_STATS: say on stderr how many flows were parked */
	/* the flow thread: park slots free for reuse (last freed first, so
	 * the lanes' arrays stay small and warm), and the next never used */
	GArray *park_slots_free;
	uint32_t park_slots_next;
	/* a lane: its parts of parked flows' blocks, packed against the first
	 * it parked, by park slot */
	struct lane_parked **parked;
	size_t parked_cap;
	pd_packer packer;
	pd_recpool park_records; /* the packed bytes */
	const pd_packet *pkt_unsent; /* the flow thread: a packet whose EV_PACKET is not sent yet */
	bool replay_check; /* PD_TEST_REPLAY_CHECK: events carry the flow, lanes compare */
};

void pd_run_opts_default(pd_run_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->threads = 1;
	o->max_flows = 100000; /* ~3 KiB each at worst: ~300 MiB bound */
	o->max_flow_rows = 100000;
}

static void flow_unparked(void *ctx, pd_flow *f, uint32_t slot);

static size_t align16(size_t n)
{
	return (n + 15) & ~(size_t)15;
}

static void hooks_add(hook_list *h, size_t i)
{
	h->idx[h->n++] = i;
}

/* A run with the detectors det_on says: the whole analysis, the flow
 * thread's part, or (lane) a detector lane; app_lane: a lane that also
 * runs nDPI and keeps the per-flow results that need its label (the
 * application counts, the flow rows). */
static pd_run *run_new(const pd_run_opts *opts, const bool *det_on, bool lane, bool app_lane)
{
	pd_run *run = g_new0(pd_run, 1);
	run->opts = *opts;
	if (run->opts.max_flows < 16)
		run->opts.max_flows = 16;
	g_mutex_init(&run->shadow_lock);
	run->app_lane = app_lane;
	if (app_lane)
		run->labels_out = g_array_new(FALSE, FALSE, sizeof(pd_flow_label));
	if (lane) {
		run->opts.progress = false;
		if (!app_lane) {
			run->opts.want_flow_rows = false;
			run->opts.no_ndpi = true;
		}
	}
	run->report = pd_report_new();
	if (run->opts.want_flow_rows)
		run->report->flows = g_array_new(FALSE, TRUE, sizeof(pd_flow_row));
	run->det_offset = g_new0(size_t, pd_detectors_len + 1);
	run->det_global = g_new0(void *, pd_detectors_len + 1);
	run->det_on = g_new0(bool, pd_detectors_len + 1);
	hook_list *lists[] = {&run->h_packet, &run->h_tcp, &run->h_udp, &run->h_flow_end, &run->h_end};
	for (size_t l = 0; l < G_N_ELEMENTS(lists); l++)
		lists[l]->idx = g_new0(size_t, pd_detectors_len + 1);
	for (size_t i = 0; i < pd_detectors_len; i++) {
		const pd_detector *d = pd_detectors[i];
		run->det_on[i] = det_on[i] && !opts->no_detectors;
		if (!run->det_on[i])
			continue;
		size_t *total = d->state_on_data ? &run->data_state_size : &run->det_state_size;
		run->det_offset[i] = *total;
		*total += align16(d->flow_state_size);
		run->det_global[i] = g_malloc0(d->global_state_size ? d->global_state_size : 1);
		if (d->on_packet)
			hooks_add(&run->h_packet, i);
		if (d->on_tcp)
			hooks_add(&run->h_tcp, i);
		if (d->on_udp)
			hooks_add(&run->h_udp, i);
		if (d->on_flow_end)
			hooks_add(&run->h_flow_end, i);
		if (d->on_end)
			hooks_add(&run->h_end, i);
	}
	run->ft = pd_flowtable_new(run->det_state_size);
	pd_flowtable_set_unpark_hook(run->ft, flow_unparked, run);
	/* blocks pack.c cannot pack are never parked (detector state would
	 * have to grow eightfold first; the lanes' blocks: pd_run_new) */
	run->parking = !lane && sizeof(pd_flow) + run->det_state_size <= PD_PACK_MAX_LEN;
	run->park_at = PD_PARK_AT;
	run->park_idle_ns = PD_PARK_IDLE_NS;
	const char *park_at = g_getenv("PD_TEST_PARK_AT");
	if (park_at && !lane) {
		run->park_at = (size_t)strtoull(park_at, NULL, 10);
		run->park_idle_ns = 0;
	}
	run->park_stats = !lane && g_getenv("PD_TEST_PARK_STATS");
	if (lane)
		pd_recpool_init(&run->park_records);
	else
		run->park_slots_free = g_array_new(FALSE, FALSE, sizeof(uint32_t));
	/* An app lane starts nDPI (~11 ms) on its own thread, while the flow
	 * thread reads: see lane_event. */
	run->ndpi = run->opts.no_ndpi || app_lane ? NULL : pd_ndpi_new();
	run->findings = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, NULL);
	run->per_id = g_new0(uint32_t, pd_catalog_len);
	run->flow_findings = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free,
						   (GDestroyNotify)g_slist_free);
	run->apps = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
	run->linktypes = g_hash_table_new(g_direct_hash, g_direct_equal);
	for (size_t i = 0; i < pd_detectors_len; i++)
		if (run->det_on[i] && pd_detectors[i]->init)
			pd_detectors[i]->init(run, run->det_global[i]);
	return run;
}

static size_t detector_index(const char *name)
{
	for (size_t i = 0; i < pd_detectors_len; i++)
		if (strcmp(pd_detectors[i]->name, name) == 0)
			return i;
	g_error("pcapdoc: lane_with names unknown detector '%s'", name);
}

/* Base loads of the threads, in the detectors' cost unit (percent of a
 * one-thread run; perf, docs/performance.md). */
#define PD_COST_FLOWS 33 /* reading, dissection, flow table, TCP engine */
#define PD_COST_NDPI 28
#define PD_COST_MIRROR 5 /* a lane replaying each event's packet on its mirror of the flow */

/* Spreads the detectors over the flow thread (bin 0) and n lanes (bins 1
 * to n): detectors tied by lane_with form one group; a group that reads
 * nDPI's label goes where nDPI runs (lane 1 when app_in_lane, else the flow
 * thread); the rest go,
 * heaviest first, each to the least loaded bin. The plan depends only on
 * the registry and n, never on the input. Returns the busiest bin's load. */
static unsigned plan_bins(size_t n, bool app_in_lane, size_t *bin_of)
{
	size_t len = pd_detectors_len;
	size_t *root = g_new0(size_t, len + 1);
	unsigned *cost = g_new0(unsigned, len + 1);
	bool *app = g_new0(bool, len + 1);
	for (size_t i = 0; i < len; i++) {
		size_t r = i;
		for (size_t hops = 0; pd_detectors[r]->lane_with && hops < len; hops++)
			r = detector_index(pd_detectors[r]->lane_with);
		root[i] = r;
		bin_of[i] = SIZE_MAX;
	}
	for (size_t i = 0; i < len; i++) {
		cost[root[i]] += pd_detectors[i]->cost ? pd_detectors[i]->cost : 1;
		app[root[i]] |= pd_detectors[i]->needs_app;
	}
	unsigned load[PD_STAGE_MAX_LANES + 1] = {PD_COST_FLOWS + (app_in_lane ? 0 : PD_COST_NDPI)};
	for (size_t k = 1; k <= n; k++)
		load[k] = PD_COST_MIRROR + (k == 1 && app_in_lane ? PD_COST_NDPI : 0);
	/* The lanes' mirrors get the label only at the flow's end. */
	size_t app_bin = app_in_lane ? 1 : 0;
	for (size_t i = 0; i < len; i++)
		if (root[i] == i && app[i]) {
			bin_of[i] = app_bin;
			load[app_bin] += cost[i];
		}
	for (;;) {
		size_t best = len;
		for (size_t i = 0; i < len; i++)
			if (root[i] == i && bin_of[i] == SIZE_MAX && (best == len || cost[i] > cost[best]))
				best = i;
		if (best == len)
			break;
		size_t b = 0;
		for (size_t k = 1; k <= n; k++)
			if (load[k] < load[b])
				b = k;
		bin_of[best] = b;
		load[b] += cost[best];
	}
	for (size_t i = 0; i < len; i++)
		bin_of[i] = bin_of[root[i]];
	g_free(root);
	g_free(cost);
	g_free(app);
	unsigned busiest = 0;
	for (size_t k = 0; k <= n; k++)
		busiest = MAX(busiest, load[k]);
	return busiest;
}

pd_run *pd_run_new(const pd_run_opts *opts)
{
	size_t len = pd_detectors_len;
	bool *on = g_new0(bool, len + 1);
	if (opts->threads < 2) {
		for (size_t i = 0; i < len; i++)
			on[i] = true;
		pd_run *run = run_new(opts, on, false, false);
		g_free(on);
		return run;
	}
	/* One thread for the flows (and some detectors), the others for
	 * detector lanes. With one lane, nDPI (a quarter of the work) runs
	 * there, which evens the two threads out; with more, it stays with
	 * the flows, whose snapshots then carry the label to every lane. So
	 * more lanes are not always faster: of the lane counts --threads
	 * allows, the one whose busiest thread has the least work is used
	 * (today one lane: with two, nDPI's return makes the flow thread the
	 * busiest by far; measured, docs/performance.md). */
	size_t max_lanes = MIN(opts->threads - 1, PD_STAGE_MAX_LANES);
	size_t *bin_of = g_new(size_t, len + 1);
	size_t n = 1;
	unsigned best = UINT_MAX;
	for (size_t k = 1; k <= max_lanes; k++) {
		unsigned busiest = plan_bins(k, k == 1 && !opts->no_ndpi, bin_of);
		if (busiest < best) {
			best = busiest;
			n = k;
		}
	}
	const char *force = g_getenv("PD_TEST_LANES"); /* tests: the several-lane path */
	if (force && atoi(force) >= 1)
		n = MIN((size_t)atoi(force), max_lanes);
	bool app_in_lane = n == 1 && !opts->no_ndpi;
	plan_bins(n, app_in_lane, bin_of);
	pd_run_opts flow_opts = *opts;
	if (app_in_lane) {
		flow_opts.no_ndpi = true;
		flow_opts.want_flow_rows = false;
	}
	for (size_t i = 0; i < len; i++)
		on[i] = bin_of[i] == 0;
	pd_run *run = run_new(&flow_opts, on, false, false);
	run->app_in_lane = app_in_lane;
	run->replay_check = g_getenv("PD_TEST_REPLAY_CHECK") != NULL;
	run->shadow_size = SHADOW_HDR;
	size_t used = 0;
	for (size_t k = 1; k <= n; k++) {
		bool any = k == 1 && app_in_lane;
		for (size_t i = 0; i < len; i++) {
			on[i] = bin_of[i] == k;
			any |= on[i];
		}
		if (!any)
			continue; /* more threads than work */
		pd_run *lane = run_new(opts, on, true, k == 1 && app_in_lane);
		lane->shadow_off = run->shadow_size;
		lane->mirror_size = align16(offsetof(pd_flow, det_state) + lane->det_state_size);
		/* what lane_park packs: the lane's detector blocks */
		pd_packer_init(&lane->packer, lane->mirror_size - offsetof(pd_flow, det_state));
		lane->owner = run;
		lane->replay_check = run->replay_check;
		run->shadow_size += lane->mirror_size;
		run->lane[used++] = lane;
	}
	run->n_lanes = used;
	for (size_t k = 0; k < used; k++)
		run->parking &= run->lane[k]->mirror_size <= PD_PACK_MAX_LEN;
	if (used) /* before any lane runs: they may prefault it (lane_idle) */
		pd_slab_init(&run->shadow_slab, run->shadow_size);
	g_free(on);
	g_free(bin_of);
	return run;
}

/* NULL for a state_on_data detector before the flow's first payload: its
 * hooks are skipped then. */
static void *det_flow_state(pd_run *run, pd_flow *f, size_t i)
{
	if (pd_detectors[i]->state_on_data)
		return f->data_state ? f->data_state + run->det_offset[i] : NULL;
	return f->det_state + run->det_offset[i];
}

/* ---------------------------------------------------------------- flows */

static const char *row_state(const pd_flow *f)
{
	if (f->proto == 17)
		return "udp";
	if (f->rst_seen)
		return "reset";
	if (f->state == PD_FLOW_CLOSED)
		return "closed";
	if (f->syn_frame && !f->synack_frame)
		return "syn-only";
	return "open";
}

static void count_app(pd_run *run, const char *name)
{
	/* A counter per label, bumped in place: one lookup per flow, no
	 * key copy (labels are few, flows are many). */
	gsize *n = g_hash_table_lookup(run->apps, name);
	if (!n) {
		n = g_new0(gsize, 1);
		g_hash_table_insert(run->apps, g_strdup(name), n);
	}
	(*n)++;
}

/* Findings that name this flow learn its final application label. */
static void label_findings(pd_run *run, uint64_t flow_id, const char *app)
{
	GSList *list = g_hash_table_lookup(run->flow_findings, &flow_id);
	for (GSList *l = list; l; l = l->next) {
		pd_finding *fd = l->data;
		for (guint j = 0; j < fd->flows->len; j++) {
			pd_flow_ref *ref = &g_array_index(fd->flows, pd_flow_ref, j);
			if (ref->flow_id == flow_id)
				g_strlcpy(ref->app, app ? app : "Unknown", sizeof(ref->app));
		}
	}
	g_hash_table_remove(run->flow_findings, &flow_id);
}

static void flow_end_hooks(pd_run *run, pd_flow *f)
{
	for (size_t j = 0; j < run->h_flow_end.n; j++) {
		size_t i = run->h_flow_end.idx[j];
		void *fs = det_flow_state(run, f, i);
		if (fs || !pd_detectors[i]->state_on_data)
			pd_detectors[i]->on_flow_end(run, run->det_global[i], f, fs);
	}
}

static pd_event *event_next(pd_run *run, int kind, const pd_packet *pkt)
{
	pd_event *ev = pd_stage_next(run->stage);
	memset(ev, 0, sizeof(*ev));
	ev->kind = (uint8_t)kind;
	ev->first_ts = run->report->cap.first_ts;
	ev->pkt = pkt;
	return ev;
}

/* The packet hooks' event waits to ride on the packet's EV_TCP/EV_UDP (half
 * the records); anything else sent first sends it on its own, so the lanes
 * see the calls in one thread's order. */
static void flush_packet_event(pd_run *run)
{
	if (!run->pkt_unsent)
		return;
	event_next(run, EV_PACKET, run->pkt_unsent);
	run->pkt_unsent = NULL;
	pd_stage_push(run->stage);
}

/* Hands the lanes an event about flow f, to fill in and push. */
static pd_event *emit(pd_run *run, int kind, const pd_flow *f, const pd_packet *pkt)
{
	bool with_packet = pkt && run->pkt_unsent == pkt;
	if (with_packet)
		run->pkt_unsent = NULL;
	else
		flush_packet_event(run);
	pd_event *ev = event_next(run, kind, pkt);
	ev->with_packet = with_packet;
	ev->shadow = f->shadow;
	if (run->replay_check)
		memcpy((uint8_t *)ev + EV_SNAP_OFF, f, offsetof(pd_flow, det_state));
	return ev;
}

/* What a flow starts with beside the flow table's part (id, tuple); the
 * flow thread's flow and each lane's mirror (mirror_start) alike. */
static void flow_start(pd_flow *f, const pd_packet *pkt)
{
	f->first_ts = pkt->ts;
	f->first_frame = pkt->frame_no;
	if (f->proto == 6) {
		f->roles_from_syn = (pkt->tcp.flags & PD_TCP_SYN) != 0;
	} else {
		f->hs_rtt = -1;
		f->rtt_min = -1;
	}
}

/* What a TCP segment does to its flow. The flow thread runs it on the flow
 * and each lane on its mirror, so both hold the same state. */
/* What any packet does to its flow, TCP or UDP. */
static void flow_account_packet(pd_flow *f, const pd_packet *pkt)
{
	f->last_ts = pkt->ts;
	f->last_frame = pkt->frame_no;
	if (pkt->ip.is_fragment || pkt->ip.total_len > PD_UNPINNED_MAX_IP_LEN)
		f->pinned = true;
}

static void flow_account_tcp(pd_flow *f, int dir, const pd_packet *pkt, uint32_t seg_extra, pd_seg *seg)
{
	flow_account_packet(f, pkt);
	pd_tcp_engine_update(f, dir, pkt, seg);
	seg->flags |= seg_extra;
}

static void flow_account_udp(pd_flow *f, int dir, const pd_packet *pkt)
{
	flow_account_packet(f, pkt);
	f->pkts++;
	pd_tcp_half *h = &f->half[dir];
	h->seen = true;
	h->pkts++;
	h->ip_bytes += pkt->ip.total_len;
	h->payload_bytes += pkt->udp.payload_len;
	h->last_pkt_ts = pkt->ts;
}

/* What a flow's end adds to the report beside findings: its label in the
 * application counts, its row in the flow table. */
static void flow_end_summary(pd_run *run, const pd_flow *f)
{
	count_app(run, f->app);
	pd_report *r = run->report;
	if (r->flows) {
		if (r->flows->len < run->opts.max_flow_rows) {
			pd_flow_row row;
			memset(&row, 0, sizeof(row));
			pd_flow_ref_fill(&row.ref, f);
			row.first_frame = f->first_frame;
			row.last_frame = f->last_frame;
			row.first_ts = f->first_ts;
			row.last_ts = f->last_ts;
			for (int d = 0; d < 2; d++) {
				const pd_tcp_half *h = &f->half[d];
				row.pkts[d] = h->pkts;
				row.bytes[d] = h->payload_bytes;
				row.retrans += h->retrans;
				row.ooo += h->ooo;
				row.dupacks += h->dupacks;
				row.zero_win += h->zero_win;
			}
			row.hs_rtt = f->proto == 6 ? f->hs_rtt : -1;
			row.state = row_state(f);
			g_array_append_val(r->flows, row);
		} else {
			r->flows_omitted++;
		}
	}
}

static void finalize_flow(pd_run *run, pd_flow *f)
{
	pd_flowtable_prefetch_removal(run->ft, f); /* the end hooks take a while */
	if (!run->app_in_lane) /* else the app lane labels the flow */
		pd_ndpi_finish(run->ndpi, f);
	flow_end_hooks(run, f);
	if (run->stage) {
		if (!run->app_in_lane) /* else no lane needs it from here */
			((shadow_hdr *)f->shadow)->app = f->app;
		pd_event *ev = emit(run, EV_END, f, NULL);
		/* With nDPI in the app lane, this thread's findings that name the
		 * flow learn its label at the end (take_lane_findings). */
		ev->want_label = run->app_in_lane && g_hash_table_contains(run->flow_findings, &f->id);
		pd_stage_push(run->stage);
	}
	if (!run->app_in_lane) {
		label_findings(run, f->id, f->app);
		flow_end_summary(run, f);
	}
	pd_flowtable_remove(run->ft, f);
	g_free(f->data_state);
	f->data_state = NULL;
	pd_flowtable_release(run->ft, f);
}

static bool fin_acked(const pd_flow *f, int dir)
{
	const pd_tcp_half *h = &f->half[dir], *peer = &f->half[pd_peer(dir)];
	return h->fin_valid && peer->ack_valid && pd_seq_lt(h->fin_seq, peer->last_ack);
}

/* The flow table's activity queue for f: one per idle timeout below, so
 * that each queue's head is its first flow to expire. */
enum { Q_TCP, Q_UDP, Q_CLOSED, Q_SYN_ONLY, Q_HALF_OPEN };

static unsigned flow_queue(const pd_flow *f)
{
	if (f->proto == 17)
		return Q_UDP;
	if (f->state == PD_FLOW_CLOSED)
		return Q_CLOSED;
	if (f->syn_frame && !f->synack_frame && !f->half[PD_SERVER].seen)
		return Q_SYN_ONLY;
	if (f->state == PD_FLOW_SYN_SENT || f->state == PD_FLOW_SYN_RCVD)
		return Q_HALF_OPEN; /* same timeout as Q_TCP; kept apart for the cap */
	return Q_TCP;
}

/* The idle timeout of every flow of queue q but Q_CLOSED's, whose flows'
 * timeouts depend on how they closed. A parked flow's queue is all that
 * expiry knows of it (flow_parkable parks from other queues only). */
static pd_time queue_timeout(unsigned q)
{
	switch (q) {
	case Q_UDP:
		return PD_UDP_IDLE_NS;
	case Q_SYN_ONLY:
		return PD_SYN_ONLY_IDLE_NS;
	default:
		return PD_TCP_IDLE_NS; /* Q_TCP, Q_HALF_OPEN */
	}
}

static bool flow_expired(const pd_flow *f, pd_time now)
{
	pd_time idle = now - f->last_ts;
	unsigned q = flow_queue(f);
	if (q != Q_CLOSED)
		return idle > queue_timeout(q);
	if (f->rst_seen || (fin_acked(f, PD_CLIENT) && fin_acked(f, PD_SERVER)))
		return idle > PD_CLOSED_LINGER_NS;
	return idle > PD_FIN_UNACKED_LINGER_NS;
}

/* Every expired flow, least recently active first. (One LRU list for all
 * would stop at its first live flow: a single open TCP flow, 900 s timeout,
 * would keep every closed flow behind it alive, and memory would grow with
 * the capture instead of following the flows alive at once.) */
static void expire_flows(pd_run *run, pd_time now)
{
	for (;;) {
		unsigned expired = 0; /* the queues whose head has expired */
		for (unsigned q = 0; q < PD_FLOWTABLE_QUEUES; q++) {
			pd_flow_age age;
			if (pd_flowtable_head_in(run->ft, q, &age) &&
			    (age.flow ? flow_expired(age.flow, now) : now - age.last_ts > queue_timeout(q)))
				expired |= 1u << q;
		}
		int best = pd_flowtable_oldest_queue(run->ft, expired);
		if (best < 0)
			break;
		pd_flow *f = pd_flowtable_oldest_in(run->ft, (unsigned)best);
		/* the flow after it in its queue is likely next: warm it; and
		 * this one's payload detectors' block (a few KiB, cold) */
		pd_flowtable_prefetch_next(run->ft, f);
		if (f->data_state)
			pd_prefetch_block(f->data_state, run->data_state_size);
		finalize_flow(run, f);
	}
}

/* A zeroed block for a new flow's lane state, reused when one is free. */
static uint8_t *shadow_new(pd_run *run)
{
	if (!run->shadow_free) {
		g_mutex_lock(&run->shadow_lock);
		run->shadow_free = run->shadow_back;
		run->shadow_back = NULL;
		g_mutex_unlock(&run->shadow_lock);
	}
	uint8_t *b = run->shadow_free;
	if (b) {
		run->shadow_free = ((shadow_hdr *)b)->next;
		/* a lane wrote the next one last: fetch its line from the
		 * other core now, not when the next flow starts */
		__builtin_prefetch(run->shadow_free, 1);
	} else {
		b = pd_slab_alloc(&run->shadow_slab);
	}
	memset(b, 0, SHADOW_HDR); /* each lane clears its own part (mirror_start) */
	return b;
}

static void shadow_list_free(pd_slab *slab, uint8_t *b)
{
	while (b) {
		uint8_t *next = ((shadow_hdr *)b)->next;
		pd_slab_free(slab, b);
		b = next;
	}
}

/* A lane is the last to be done with block b. */
static void shadow_done(pd_run *lane, uint8_t *b)
{
	((shadow_hdr *)b)->next = lane->shadow_done;
	if (!lane->shadow_done)
		lane->shadow_done_tail = b;
	lane->shadow_done = b;
	if (++lane->n_done < SHADOW_RETURN_BATCH)
		return;
	pd_run *run = lane->owner;
	g_mutex_lock(&run->shadow_lock);
	((shadow_hdr *)lane->shadow_done_tail)->next = run->shadow_back;
	run->shadow_back = lane->shadow_done;
	g_mutex_unlock(&run->shadow_lock);
	lane->shadow_done = lane->shadow_done_tail = NULL;
	lane->n_done = 0;
}

static pd_flow *new_flow(pd_run *run, uint8_t proto, const pd_addr *ca, uint16_t cp, const pd_addr *sa,
			 uint16_t sp, const pd_packet *pkt)
{
	if (pd_flowtable_count(run->ft) >= run->opts.max_flows) {
		pd_flow *victim = pd_flowtable_oldest(run->ft);
		if (victim) {
			finalize_flow(run, victim);
			run->report->cap.flows_evicted++;
		}
	}
	if (pd_flowtable_count_in(run->ft, Q_SYN_ONLY) + pd_flowtable_count_in(run->ft, Q_HALF_OPEN) >=
	    PD_MAX_HALF_OPEN) {
		int q = pd_flowtable_oldest_queue(run->ft, 1u << Q_SYN_ONLY | 1u << Q_HALF_OPEN);
		finalize_flow(run, pd_flowtable_oldest_in(run->ft, (unsigned)q));
		run->half_open_evicted++;
		/* a flood keeps evicting: warm the next victims now */
		pd_flowtable_prefetch_head(run->ft, Q_SYN_ONLY);
		pd_flowtable_prefetch_head(run->ft, Q_HALF_OPEN);
	}
	pd_flow *f = pd_flowtable_insert(run->ft, proto, ca, cp, sa, sp);
	if (run->stage) {
		f->shadow = shadow_new(run);
		atomic_init(&((shadow_hdr *)f->shadow)->refs, (uint32_t)run->n_lanes);
	}
	flow_start(f, pkt);
	if (proto == 6)
		run->report->cap.tcp_flows++;
	else
		run->report->cap.udp_flows++;
	return f;
}

static void tcp_hooks(pd_run *run, pd_flow *f, const pd_packet *pkt, const pd_seg *seg)
{
	if (!f->data_state && run->data_state_size && pkt->tcp.payload_len > 0)
		f->data_state = g_malloc0(run->data_state_size);
	for (size_t j = 0; j < run->h_tcp.n; j++) {
		size_t i = run->h_tcp.idx[j];
		void *fs = det_flow_state(run, f, i);
		if (fs || !pd_detectors[i]->state_on_data)
			pd_detectors[i]->on_tcp(run, run->det_global[i], f, fs, pkt, seg);
	}
}

static void udp_hooks(pd_run *run, pd_flow *f, const pd_packet *pkt, int dir)
{
	for (size_t j = 0; j < run->h_udp.n; j++) {
		size_t i = run->h_udp.idx[j];
		void *fs = det_flow_state(run, f, i);
		if (fs || !pd_detectors[i]->state_on_data)
			pd_detectors[i]->on_udp(run, run->det_global[i], f, fs, pkt, dir);
	}
}

static void packet_hooks(pd_run *run, const pd_packet *pkt)
{
	for (size_t j = 0; j < run->h_packet.n; j++) {
		size_t i = run->h_packet.idx[j];
		pd_detectors[i]->on_packet(run, run->det_global[i], pkt);
	}
}

/* The queues whose flows wait, and may be parked (see PD_PARK_AT). */
#define PD_PARK_QUEUES (1u << Q_SYN_ONLY | 1u << Q_HALF_OPEN | 1u << Q_UDP)

static bool queue_parks(unsigned q)
{
	return PD_PARK_QUEUES >> q & 1u;
}

/* Whether f may be parked: in a queue whose flows wait, and no detector
 * keeps its address (detector.h). Its lazy blocks and nDPI state are left
 * as they are (a flow rarely has them then). */
static bool flow_parkable(const pd_flow *f)
{
	return queue_parks(flow_queue(f)) && !f->pinned;
}

/* Parks f, its lane state too: each lane packs its part of the block and
 * hands the block back as at a flow's end (EV_PARK). */
static void park_flow(pd_run *run, pd_flow *f)
{
	uint32_t slot = 0;
	if (run->stage) {
		GArray *free_slots = run->park_slots_free;
		if (free_slots->len) {
			slot = g_array_index(free_slots, uint32_t, free_slots->len - 1);
			g_array_set_size(free_slots, free_slots->len - 1);
		} else {
			slot = run->park_slots_next++;
		}
		pd_event *ev = emit(run, EV_PARK, f, NULL);
		ev->park_slot = slot;
		pd_stage_push(run->stage);
		f->shadow = NULL;
	}
	pd_flowtable_offer(run->ft, f, true, slot);
}

/* Offers f, the next flow of queue q to offer, for parking. */
static void park_offer(pd_run *run, pd_flow *f, unsigned q)
{
	if (flow_parkable(f))
		park_flow(run, f);
	else
		pd_flowtable_offer(run->ft, f, false, 0);
	/* the next ones went quiet a while ago: their blocks have left the
	 * cache, and packing reads all of one */
	pd_flowtable_prefetch_offer(run->ft, q);
}

/* After a packet of a flow now in queue q: past PD_PARK_AT flows of q not
 * yet offered, the oldest. A flood adds one flow per packet; two steps
 * keep up with it and catch up after passing over a flow. */
static void park_crowded(pd_run *run, unsigned q)
{
	if (!run->parking || !queue_parks(q))
		return;
	for (int k = 0; k < 2; k++) {
		if (pd_flowtable_count_in(run->ft, q) - pd_flowtable_count_offered_in(run->ft, q) <= run->park_at)
			return;
		pd_flow *f = pd_flowtable_to_offer(run->ft, q);
		if (!f)
			return;
		park_offer(run, f, q);
	}
}

/* With the expiry, every flow idle for PD_PARK_IDLE_NS in a queue whose
 * flows may be parked, least recently active first. */
static void park_idle(pd_run *run, pd_time now)
{
	if (!run->parking)
		return;
	for (unsigned q = 0; q < PD_FLOWTABLE_QUEUES; q++) {
		pd_flow *f;
		while (queue_parks(q) && (f = pd_flowtable_to_offer(run->ft, q)) &&
		       now - f->last_ts >= run->park_idle_ns)
			park_offer(run, f, q);
	}
}

/* The flow table unparked f: with lanes, a new block for its lane state,
 * which each lane unpacks its part into (EV_UNPARK) before the event that
 * made this thread need the flow. */
static void flow_unparked(void *ctx, pd_flow *f, uint32_t slot)
{
	pd_run *run = ctx;
	if (!run->stage)
		return;
	f->shadow = shadow_new(run);
	atomic_init(&((shadow_hdr *)f->shadow)->refs, (uint32_t)run->n_lanes);
	/* the mirrors but for the lanes' own fields, which lane_unpark puts
	 * back (no lane reads the block before the event) */
	for (size_t k = 0; k < run->n_lanes; k++)
		memcpy(f->shadow + run->lane[k]->shadow_off, f, offsetof(pd_flow, det_state));
	pd_event *ev = emit(run, EV_UNPARK, f, NULL);
	ev->park_slot = slot;
	pd_stage_push(run->stage);
	/* free for a later park: its EV_PARK comes after this event */
	g_array_append_val(run->park_slots_free, slot);
}

static void handle_tcp(pd_run *run, const pd_packet *pkt)
{
	const pd_ip *ip = &pkt->ip;
	const pd_tcp *t = &pkt->tcp;
	int dir = PD_CLIENT;
	uint32_t seg_extra = 0;
	pd_flow *f = pd_flowtable_lookup(run->ft, 6, &ip->src, t->sport, &ip->dst, t->dport, &dir);
	if (f && pd_tcp_starts_new_connection(f, dir, pkt)) {
		finalize_flow(run, f);
		f = NULL;
		seg_extra |= PD_SEG_PORT_REUSE;
	}
	if (!f) {
		if (pd_tcp_sender_is_client(pkt)) {
			f = new_flow(run, 6, &ip->src, t->sport, &ip->dst, t->dport, pkt);
			dir = PD_CLIENT;
		} else {
			f = new_flow(run, 6, &ip->dst, t->dport, &ip->src, t->sport, pkt);
			dir = PD_SERVER;
		}
		seg_extra |= PD_SEG_NEW_FLOW;
	}
	pd_seg seg;
	flow_account_tcp(f, dir, pkt, seg_extra, &seg);
	unsigned q = flow_queue(f);
	pd_flowtable_touch(run->ft, f, q);
	pd_ndpi_feed(run->ndpi, f, pkt);
	if (run->stage) {
		pd_event *ev = emit(run, EV_TCP, f, pkt);
		ev->dir = (int8_t)dir;
		ev->seg_extra = seg_extra;
		ev->flow_id = f->id;
		pd_stage_push(run->stage);
	}
	tcp_hooks(run, f, pkt, &seg);
	park_crowded(run, q);
}

static void handle_udp(pd_run *run, const pd_packet *pkt)
{
	const pd_ip *ip = &pkt->ip;
	const pd_udp *u = &pkt->udp;
	int dir = PD_CLIENT;
	pd_flow *f = pd_flowtable_lookup(run->ft, 17, &ip->src, u->sport, &ip->dst, u->dport, &dir);
	bool started = !f;
	if (!f) {
		bool s_wk = u->sport && u->sport < 1024, d_wk = u->dport && u->dport < 1024;
		if (s_wk && !d_wk) {
			f = new_flow(run, 17, &ip->dst, u->dport, &ip->src, u->sport, pkt);
			dir = PD_SERVER;
		} else {
			f = new_flow(run, 17, &ip->src, u->sport, &ip->dst, u->dport, pkt);
			dir = PD_CLIENT;
		}
	}
	flow_account_udp(f, dir, pkt);
	pd_flowtable_touch(run->ft, f, Q_UDP);
	pd_ndpi_feed(run->ndpi, f, pkt);
	if (run->stage) {
		pd_event *ev = emit(run, EV_UDP, f, pkt);
		ev->dir = (int8_t)dir;
		ev->seg_extra = started ? PD_SEG_NEW_FLOW : 0;
		ev->flow_id = f->id;
		pd_stage_push(run->stage);
	}
	udp_hooks(run, f, pkt, dir);
	park_crowded(run, Q_UDP);
}

static void flush_linktype_run(pd_run *run)
{
	if (!run->lt_run_count)
		return;
	gpointer key = GINT_TO_POINTER(run->lt_run + 1);
	gsize n = GPOINTER_TO_SIZE(g_hash_table_lookup(run->linktypes, key));
	g_hash_table_insert(run->linktypes, key, GSIZE_TO_POINTER(n + run->lt_run_count));
	run->lt_run_count = 0;
}

static void count_linktype(pd_run *run, int lt)
{
	/* Captures rarely mix link types: count runs of the same one and only
	 * touch the table when it changes. */
	if (run->lt_run_count && lt == run->lt_run) {
		run->lt_run_count++;
		return;
	}
	flush_linktype_run(run);
	run->lt_run = lt;
	run->lt_run_count = 1;
}

/* The frame's packet view (pkt borrows fr->data): stateless. */
static pd_dissect_status frame_dissect(const pd_frame *fr, pd_packet *pkt)
{
	pkt->frame_no = fr->frame_no;
	pkt->ts = fr->ts;
	pkt->caplen = fr->caplen;
	pkt->wirelen = fr->wirelen;
	pkt->linktype = fr->linktype;
	pkt->file_index = fr->file_index;
	return pd_dissect(pkt, fr->data);
}

/* Everything after dissection, for one frame, in capture order. */
static void run_frame_events(pd_run *run, const pd_frame *fr, const pd_packet *pkt, pd_dissect_status st)
{
	pd_capture_summary *cap = &run->report->cap;

	cap->packets++;
	cap->wire_bytes += fr->wirelen;
	cap->captured_bytes += fr->caplen;
	if (fr->caplen < fr->wirelen)
		cap->snap_truncated++;
	if (!run->have_ts || fr->ts < cap->first_ts)
		cap->first_ts = fr->ts;
	if (!run->have_ts || fr->ts > cap->last_ts)
		cap->last_ts = fr->ts;
	if (!run->have_ts) {
		run->next_expire = fr->ts + PD_EXPIRE_EVERY_NS;
		run->have_ts = true;
	}
	count_linktype(run, fr->linktype);

	switch (st) {
	case PD_DISSECT_UNSUPPORTED_LINK:
		cap->unsupported_link++;
		return;
	case PD_DISSECT_NOT_IP:
		cap->not_ip++;
		return;
	case PD_DISSECT_TRUNCATED:
		cap->ip_truncated++;
		return;
	case PD_DISSECT_MALFORMED:
		if (pkt->malformed < PD_MAL__COUNT)
			cap->malformed[pkt->malformed]++;
		if (!pkt->is_ip)
			return;
		break;
	case PD_DISSECT_OK:
		break;
	}
	if (!pkt->is_ip)
		return;
	if (pkt->ip.version == 4)
		cap->ipv4++;
	else
		cap->ipv6++;
	if (pkt->ip.is_fragment)
		cap->fragments++;

	if (fr->ts > run->next_expire) {
		expire_flows(run, fr->ts);
		park_idle(run, fr->ts);
		run->next_expire = fr->ts + PD_EXPIRE_EVERY_NS;
	}

	if (run->stage)
		run->pkt_unsent = pkt; /* sent with the packet's flow event, or below */
	packet_hooks(run, pkt);

	/* A malformed transport header is counted above and goes no further.
	 * An IP total length beyond the frame was clipped to the frame by the
	 * dissector and is analysed, as Wireshark does. */
	if (pkt->malformed != PD_MAL_NONE && pkt->malformed != PD_MAL_IP_TOTLEN) {
		if (pkt->l4 == PD_L4_TCP)
			cap->tcp++;
		else if (pkt->l4 == PD_L4_UDP)
			cap->udp++;
		return;
	}
	switch (pkt->l4) {
	case PD_L4_TCP:
		cap->tcp++;
		handle_tcp(run, pkt);
		break;
	case PD_L4_UDP:
		cap->udp++;
		handle_udp(run, pkt);
		break;
	case PD_L4_ICMP:
	case PD_L4_ICMP6:
		cap->icmp++;
		break;
	default:
		cap->other_l4++;
		break;
	}
}

static void run_frame(pd_run *run, const pd_frame *fr, const pd_packet *pkt, pd_dissect_status st)
{
	run_frame_events(run, fr, pkt, st);
	if (run->stage)
		flush_packet_event(run);
}

static void progress_update(pd_run *run, bool final)
{
	gint64 now = g_get_monotonic_time();
	if (!final && now < run->progress_next)
		return;
	run->progress_next = now + 250000;
	uint64_t done = pd_reader_bytes_read(run->reader);
	uint64_t total = pd_reader_total_bytes(run->reader);
	double secs = (double)(now - run->progress_start) / 1e6;
	double pps = secs > 0 ? (double)run->report->cap.packets / secs : 0;
	if (final) {
		fprintf(stderr, "\r\033[K");
		return;
	}
	if (total > 0 && done <= total && done > 0) {
		double eta = secs * (double)(total - done) / (double)done;
		fprintf(stderr, "\r\033[Kpcapdoc: %.0f of %.0f MB (%.0f%%), %.0f packets/s, ETA %.0f s",
			(double)done / 1e6, (double)total / 1e6, 100.0 * (double)done / (double)total, pps, eta);
	} else {
		fprintf(stderr, "\r\033[Kpcapdoc: %.0f MB, %.0f packets/s", (double)done / 1e6, pps);
	}
	fflush(stderr);
}

static void pipeline_sink(void *ctx, const pd_frame *fr, const pd_packet *pkt, pd_dissect_status st)
{
	pd_run *run = ctx;
	run_frame(run, fr, pkt, st);
	if (run->opts.progress && (++run->progress_k & 0xfff) == 0) /* a clock read per 4096 frames */
		progress_update(run, false);
}

/* A lane's mirror of an event's flow. */
static pd_flow *lane_flow(const pd_run *lane, const pd_event *ev)
{
	return (pd_flow *)(ev->shadow + lane->shadow_off);
}

/* A flow's first packet: the lane makes its mirror (and clears its
 * detector blocks) as the flow table and new_flow made the flow, here
 * rather than on the flow thread, whose cache would otherwise hand the
 * lines over. */
static pd_flow *mirror_start(pd_run *lane, const pd_event *ev)
{
	pd_flow *m = lane_flow(lane, ev);
	memset(m, 0, lane->mirror_size);
	const pd_packet *pkt = ev->pkt;
	bool tcp = pkt->l4 == PD_L4_TCP;
	uint16_t sp = tcp ? pkt->tcp.sport : pkt->udp.sport, dp = tcp ? pkt->tcp.dport : pkt->udp.dport;
	if (ev->dir == PD_CLIENT)
		pd_flow_set_identity(m, ev->flow_id, tcp ? 6 : 17, &pkt->ip.src, sp, &pkt->ip.dst, dp);
	else
		pd_flow_set_identity(m, ev->flow_id, tcp ? 6 : 17, &pkt->ip.dst, dp, &pkt->ip.src, sp);
	m->shadow = ev->shadow;
	flow_start(m, pkt);
	return m;
}

/* What of a mirror is the lane's own, not the flow thread's: its lazy
 * blocks and nDPI's state (the app lane's), the label (before the flow's
 * end). The rest of the mirror equals the flow thread's flow. */
typedef struct mirror_own {
	uint8_t *data_state;
	void *ndpi;
	const char *app;
	uint16_t ndpi_pkts;
	bool ndpi_done;
} mirror_own;

static mirror_own mirror_own_get(const pd_flow *m)
{
	mirror_own o = {m->data_state, m->ndpi, m->app, m->ndpi_pkts, m->ndpi_done};
	return o;
}

static void mirror_own_set(pd_flow *m, const mirror_own *o)
{
	m->data_state = o->data_state;
	m->ndpi = o->ndpi;
	m->app = o->app;
	m->ndpi_pkts = o->ndpi_pkts;
	m->ndpi_done = o->ndpi_done;
}

/* PD_TEST_REPLAY_CHECK: the mirror must equal the flow thread's flow but
 * for what is the lane's own (mirror_own) and the block it is in. */
static void replay_check(const pd_run *lane, const pd_event *ev, const pd_flow *m)
{
	size_t len = offsetof(pd_flow, det_state);
	pd_flow *want = g_malloc(len);
	memcpy(want, (const uint8_t *)ev + EV_SNAP_OFF, len);
	const char *app = want->app;
	mirror_own own = mirror_own_get(m);
	mirror_own_set(want, &own);
	want->shadow = m->shadow;
	if (!lane->app_lane && ev->kind == EV_END)
		want->app = app;
	if (memcmp(want, m, len) != 0) {
		size_t off = 0;
		while (off < len && ((const uint8_t *)want)[off] == ((const uint8_t *)m)[off])
			off++;
		g_error("replay check: flow %" G_GUINT64_FORMAT " differs from its mirror at byte %zu "
			"(event %d, frame %" G_GUINT64_FORMAT ")",
			want->id, off, ev->kind, ev->pkt ? ev->pkt->frame_no : 0);
	}
	g_free(want);
}

static void lane_end(pd_run *lane)
{
	lane->flows_done = true;
	for (size_t j = 0; j < lane->h_end.n; j++) {
		size_t i = lane->h_end.idx[j];
		pd_detectors[i]->on_end(lane, lane->det_global[i]);
	}
}

/* The next event's mirror is in no cache yet: ask for it while the
 * current event is handled. */
static void lane_prefetch(void *ctx, const void *rec)
{
	const pd_run *lane = ctx;
	const pd_event *ev = rec;
	if (ev->kind == EV_PACKET)
		return;
	pd_prefetch_block(lane_flow(lane, ev), offsetof(pd_flow, det_state));
}

/* The lane is done with a flow's block of lane state (its end, or parked). */
static void shadow_release(pd_run *lane, uint8_t *b)
{
	shadow_hdr *h = (shadow_hdr *)b;
	if (atomic_fetch_sub(&h->refs, 1) == 1)
		shadow_done(lane, b);
}

/* A lane's part of a parked flow: the mirror's own fields and the lane's
 * detector blocks, packed. The rest of the mirror is the flow thread's
 * flow, which it copies back at EV_UNPARK (flow_unparked). */
typedef struct lane_parked {
	mirror_own own;
	uint32_t len;
	uint8_t data[];
} lane_parked;

static void lane_park(pd_run *lane, uint32_t slot, const pd_flow *m)
{
	size_t n = pd_packer_pack(&lane->packer, m->det_state);
	lane_parked *p = pd_recpool_alloc(&lane->park_records, sizeof(*p) + n);
	p->own = mirror_own_get(m);
	p->len = (uint32_t)n;
	memcpy(p->data, lane->packer.scratch, n);
	if (slot >= lane->parked_cap) {
		size_t cap = MAX(lane->parked_cap * 2, (size_t)slot + 1024);
		lane->parked = g_renew(lane_parked *, lane->parked, cap);
		memset(lane->parked + lane->parked_cap, 0, (cap - lane->parked_cap) * sizeof(lane_parked *));
		lane->parked_cap = cap;
	}
	lane->parked[slot] = p;
}

static void lane_unpark(pd_run *lane, uint32_t slot, pd_flow *m)
{
	lane_parked *p = slot < lane->parked_cap ? lane->parked[slot] : NULL;
	if (!p || pd_packer_unpack(&lane->packer, p->data, p->len, m->det_state) != 0)
		g_error("pcapdoc: lane lost parked flow %" G_GUINT64_FORMAT, m->id);
	lane->parked[slot] = NULL;
	mirror_own_set(m, &p->own);
	pd_recpool_free(&lane->park_records, p, sizeof(*p) + p->len);
}

/* A lane's thread: the detector calls one thread would have made. */
static void lane_event(void *ctx, const void *rec)
{
	pd_run *lane = ctx;
	if (lane->app_lane && !lane->ndpi_started) {
		lane->ndpi_started = true;
		lane->ndpi = pd_ndpi_new();
	}
	if (!rec) {
		lane_end(lane);
		return;
	}
	const pd_event *ev = rec;
	if (lane->report->cap.first_ts != ev->first_ts)
		lane->report->cap.first_ts = ev->first_ts; /* rarely: no write per event */
	switch (ev->kind) {
	case EV_PACKET:
		packet_hooks(lane, ev->pkt);
		break;
	case EV_TCP:
	case EV_UDP: {
		/* handle_tcp/handle_udp's order, on the mirror */
		pd_flow *m = ev->seg_extra & PD_SEG_NEW_FLOW ? mirror_start(lane, ev) : lane_flow(lane, ev);
		if (ev->with_packet)
			packet_hooks(lane, ev->pkt);
		pd_seg seg;
		if (ev->kind == EV_TCP)
			flow_account_tcp(m, ev->dir, ev->pkt, ev->seg_extra, &seg);
		else
			flow_account_udp(m, ev->dir, ev->pkt);
		if (lane->replay_check)
			replay_check(lane, ev, m);
		if (lane->app_lane)
			pd_ndpi_feed(lane->ndpi, m, ev->pkt);
		if (ev->kind == EV_TCP)
			tcp_hooks(lane, m, ev->pkt, &seg);
		else
			udp_hooks(lane, m, ev->pkt, ev->dir);
		break;
	}
	case EV_END: {
		pd_flow *m = lane_flow(lane, ev);
		if (lane->app_lane)
			pd_ndpi_finish(lane->ndpi, m);
		else
			m->app = ((const shadow_hdr *)ev->shadow)->app;
		if (lane->replay_check)
			replay_check(lane, ev, m);
		flow_end_hooks(lane, m);
		label_findings(lane, m->id, m->app);
		if (lane->app_lane) {
			flow_end_summary(lane, m);
			if (ev->want_label) {
				pd_flow_label l = {.flow_id = m->id};
				l.app = m->app;
				g_array_append_val(lane->labels_out, l);
			}
		}
		g_free(m->data_state);
		m->data_state = NULL;
		shadow_release(lane, ev->shadow);
		break;
	}
	case EV_PARK: {
		pd_flow *m = lane_flow(lane, ev);
		if (lane->replay_check)
			replay_check(lane, ev, m);
		lane_park(lane, ev->park_slot, m);
		shadow_release(lane, ev->shadow);
		break;
	}
	case EV_UNPARK: {
		pd_flow *m = lane_flow(lane, ev);
		lane_unpark(lane, ev->park_slot, m);
		m->shadow = ev->shadow;
		if (lane->replay_check)
			replay_check(lane, ev, m);
		break;
	}
	}
}

/* Every flow ends, oldest first (so flows end in the order they went
 * quiet), then the end-of-capture passes. */
static void finish_flows(pd_run *run)
{
	if (run->flows_done)
		return;
	run->flows_done = true;
	pd_flow *f;
	while ((f = pd_flowtable_oldest(run->ft))) {
		pd_flowtable_prefetch_next(run->ft, f); /* likely the next to go */
		finalize_flow(run, f);
	}
	if (run->stage) {
		pd_stage_finish(run->stage); /* lanes run on_end and stop */
		run->stage = NULL;
	} else {
		for (size_t k = 0; k < run->n_lanes; k++)
			lane_end(run->lane[k]); /* nothing was read */
	}
	for (size_t j = 0; j < run->h_end.n; j++) {
		size_t i = run->h_end.idx[j];
		pd_detectors[i]->on_end(run, run->det_global[i]);
	}
}

/* Waits until the lanes are done with the oldest frame, then frees it. */
static void release_oldest(pd_run *run, frame_ring *r)
{
	frame_slot *s = &r->slot[r->head % PD_FRAME_SLOTS];
	uint64_t needs = r->needs[r->head % PD_FRAME_SLOTS];
	if (needs > run->lanes_handled)
		run->lanes_handled = pd_stage_wait_handled(run->stage, needs);
	g_free(s->own);
	s->own = NULL;
	if (r->stable) {
		r->held -= s->fr.caplen;
		pd_reader_frame_done(run->reader, &s->fr);
	}
	r->head++;
}

/* Where a copy of len bytes can go without touching a frame the lanes may
 * still read; releases the oldest frames until there is room. */
static uint8_t *arena_place(pd_run *run, frame_ring *r, frame_slot *s, size_t len)
{
	for (;;) {
		uint64_t t = r->head;
		while (t < r->next && !r->slot[t % PD_FRAME_SLOTS].in_arena)
			t++;
		if (t == r->next) {
			r->wpos = 0; /* nothing in the arena */
			break;
		}
		size_t tail = r->slot[t % PD_FRAME_SLOTS].off;
		if (tail < r->wpos) { /* in use: [tail, wpos) */
			if (r->wpos + len <= PD_FRAME_ARENA)
				break;
			if (len <= tail) {
				r->wpos = 0;
				break;
			}
		} else if (r->wpos + len <= tail) { /* in use: [tail, end) and [0, wpos) */
			break;
		}
		release_oldest(run, r);
	}
	s->off = r->wpos;
	s->in_arena = true;
	r->wpos += len;
	return r->arena + s->off;
}

/* The next frame's slot, with a copy of its bytes, dissected. */
static frame_slot *ring_put(pd_run *run, frame_ring *r, const pd_frame *fr)
{
	if (r->next - r->head >= PD_FRAME_SLOTS)
		release_oldest(run, r);
	frame_slot *s = &r->slot[r->next % PD_FRAME_SLOTS];
	s->fr = *fr;
	s->own = NULL;
	s->in_arena = false;
	if (!r->stable) {
		uint8_t *copy = NULL;
		if (fr->caplen > PD_FRAME_ARENA / 4)
			copy = s->own = g_malloc(fr->caplen);
		else if (fr->caplen)
			copy = arena_place(run, r, s, fr->caplen);
		if (copy)
			memcpy(copy, fr->data, fr->caplen);
		s->fr.data = copy;
	}
	s->st = frame_dissect(&s->fr, &s->pkt);
	r->next++;
	if (r->stable) {
		/* held frames keep the reader's buffers busy: as many bytes as the arena */
		r->held += fr->caplen;
		while (r->held > PD_FRAME_ARENA && r->next - r->head > 1)
			release_oldest(run, r);
	}
	return s;
}

/* A lane with nothing to do does the flow thread's slow chores: reading
 * the next piece of the file, and getting new memory for flows ready
 * (first touches of pages are costly, and come in bursts as flows pile
 * up, e.g. under a SYN flood). */
static bool lane_idle(void *owner)
{
	pd_run *run = owner;
	return pd_reader_read_ahead(run->reader) || pd_flowtable_prefault(run->ft) ||
	       pd_slab_prefault(&run->shadow_slab);
}

/* --threads 2+: frames stay in the ring until every lane has handled the
 * events that point into them. */
static void read_with_lanes(pd_run *run)
{
	frame_ring r = {.slot = g_new0(frame_slot, PD_FRAME_SLOTS),
			.needs = g_new0(uint64_t, PD_FRAME_SLOTS),
			.stable = pd_reader_frames_stable(run->reader)};
	if (!r.stable) {
		r.arena = g_malloc(PD_FRAME_ARENA);
	} else {
		pd_reader_hold_frames(run->reader);
		/* Reading is a fifth of this thread's work, and the lanes have
		 * moments with nothing to do: they read ahead then (lane_idle). */
		pd_reader_allow_read_ahead(run->reader);
	}
	pd_stage_set_idle(run->stage, lane_idle, run);
	pd_frame fr;
	while (pd_reader_next(run->reader, &fr)) {
		frame_slot *s = ring_put(run, &r, &fr);
		pipeline_sink(run, &s->fr, &s->pkt, s->st);
		r.needs[(r.next - 1) % PD_FRAME_SLOTS] = pd_stage_pushed(run->stage);
	}
	pd_stage_set_idle(run->stage, NULL, NULL); /* the reader closes soon */
	/* The lanes may still read these frames: wait for them. */
	while (r.head < r.next)
		release_oldest(run, &r);
	g_free(r.slot);
	g_free(r.needs);
	g_free(r.arena);
}

pd_run_status pd_run_files(pd_run *run, const char *const *paths, size_t n)
{
	pd_capture_summary *cap = &run->report->cap;
	for (size_t i = 0; i < n; i++)
		g_ptr_array_add(cap->files, g_strdup(paths[i]));
	GError *err = NULL;
	run->reader = pd_reader_open(paths, n, run->opts.filter, &err);
	if (!run->reader) {
		g_ptr_array_add(cap->errors, g_strdup(err ? err->message : "cannot read input"));
		g_clear_error(&err);
		return PD_RUN_NONE_READ;
	}
	run->snaplen = pd_reader_snaplen(run->reader);
	cap->snaplen = run->snaplen;
	run->progress_start = g_get_monotonic_time();
	run->progress_next = run->progress_start + 500000;
	if (run->n_lanes) {
		void *ctx[PD_STAGE_MAX_LANES];
		for (size_t k = 0; k < run->n_lanes; k++) {
			run->lane[k]->snaplen = run->snaplen;
			ctx[k] = run->lane[k];
		}
		size_t rec = run->replay_check ? EV_SNAP_OFF + offsetof(pd_flow, det_state) : sizeof(pd_event);
		run->stage = pd_stage_start(rec, run->n_lanes, lane_event, lane_prefetch, ctx);
	}
	if (run->stage) {
		read_with_lanes(run);
	} else {
		pd_frame fr;
		pd_packet pkt;
		while (pd_reader_next(run->reader, &fr)) {
			pd_dissect_status dst = frame_dissect(&fr, &pkt);
			pipeline_sink(run, &fr, &pkt, dst);
		}
	}
	if (run->opts.progress)
		progress_update(run, true);

	const GPtrArray *errs = pd_reader_errors(run->reader);
	for (guint i = 0; i < errs->len; i++)
		g_ptr_array_add(cap->errors, g_strdup(g_ptr_array_index(errs, i)));
	cap->input_truncated = pd_reader_truncated(run->reader);
	pd_run_status st = PD_RUN_OK;
	if (pd_reader_any_failed(run->reader))
		st = PD_RUN_SOME_FAILED;
	else if (cap->input_truncated)
		st = PD_RUN_TRUNCATED;
	if (cap->input_truncated)
		g_ptr_array_add(cap->notes,
				g_strdup_printf("input ends mid-record after frame %" G_GUINT64_FORMAT
						": the findings cover what was read",
						pd_reader_frames_seen(run->reader)));
	pd_reader_close(run->reader);
	run->reader = NULL;
	return st;
}

/* --------------------------------------------------------- finding API */

static uint64_t finding_key(const pd_finding_def *def, const pd_flow *flow)
{
	uint64_t idx = (uint64_t)(def - pd_catalog) + 1;
	return (idx << 44) | (flow ? (flow->id + 1) & ((UINT64_C(1) << 44) - 1) : 0);
}

void pd_flow_ref_fill(pd_flow_ref *ref, const pd_flow *f)
{
	memset(ref, 0, sizeof(*ref));
	ref->flow_id = f->id;
	ref->proto = f->proto;
	ref->client = f->addr[PD_CLIENT];
	ref->server = f->addr[PD_SERVER];
	ref->client_port = f->port[PD_CLIENT];
	ref->server_port = f->port[PD_SERVER];
	g_strlcpy(ref->app, f->app ? f->app : "Unknown", sizeof(ref->app));

	/* Community ID v1: SHA-1 over seed, ordered endpoints, proto, ports. */
	const pd_addr *a = &f->addr[0], *b = &f->addr[1];
	uint16_t pa = f->port[0], pb = f->port[1];
	size_t alen = a->family == 6 ? 16 : 4;
	int c = memcmp(a->bytes, b->bytes, alen);
	if (c > 0 || (c == 0 && pa > pb)) {
		const pd_addr *ta = a;
		a = b;
		b = ta;
		uint16_t tp = pa;
		pa = pb;
		pb = tp;
	}
	uint8_t buf[2 + 16 + 16 + 2 + 4];
	size_t n = 0;
	buf[n++] = 0;
	buf[n++] = 0; /* seed 0 */
	memcpy(buf + n, a->bytes, alen);
	n += alen;
	memcpy(buf + n, b->bytes, alen);
	n += alen;
	buf[n++] = f->proto;
	buf[n++] = 0;
	buf[n++] = (uint8_t)(pa >> 8);
	buf[n++] = (uint8_t)pa;
	buf[n++] = (uint8_t)(pb >> 8);
	buf[n++] = (uint8_t)pb;
	GChecksum *ck = g_checksum_new(G_CHECKSUM_SHA1);
	g_checksum_update(ck, buf, n);
	uint8_t digest[20];
	gsize dlen = sizeof(digest);
	g_checksum_get_digest(ck, digest, &dlen);
	g_checksum_free(ck);
	gchar *b64 = g_base64_encode(digest, dlen);
	g_snprintf(ref->community_id, sizeof(ref->community_id), "1:%s", b64);
	g_free(b64);
}

static pd_finding *new_finding(const pd_finding_def *def, bool capture_wide);

pd_finding *pd_finding_get(pd_run *run, const char *id, const pd_flow *flow)
{
	const pd_finding_def *def = pd_catalog_find(id);
	if (!def)
		g_error("pcapdoc: detector used unknown finding id '%s'", id);
	uint64_t key = finding_key(def, flow);
	pd_finding *f = g_hash_table_lookup(run->findings, &key);
	if (f)
		return f;
	size_t idx = (size_t)(def - pd_catalog);
	if (flow && run->per_id[idx] >= PD_MAX_FLOW_FINDINGS) {
		/* Past the cap: the flow joins the id's spill finding, whose
		 * metrics accumulate (see pd_finding_metric). */
		uint64_t skey = finding_key(def, NULL) | ((UINT64_C(1) << 44) - 1);
		f = g_hash_table_lookup(run->findings, &skey);
		if (!f) {
			f = new_finding(def, true);
			f->spill = true;
			g_hash_table_insert(run->findings, g_memdup2(&skey, sizeof(skey)), f);
		}
		pd_finding_add_flow(run, f, flow);
		return f;
	}
	if (flow)
		run->per_id[idx]++;
	f = new_finding(def, flow == NULL);
	g_hash_table_insert(run->findings, g_memdup2(&key, sizeof(key)), f);
	if (flow)
		pd_finding_add_flow(run, f, flow);
	return f;
}

static pd_finding *new_finding(const pd_finding_def *def, bool capture_wide)
{
	pd_finding *f = g_new0(pd_finding, 1);
	f->def = def;
	f->severity = def->severity;
	f->confidence = 0.5;
	f->capture_wide = capture_wide;
	f->flows = g_array_new(FALSE, TRUE, sizeof(pd_flow_ref));
	f->examples = g_array_new(FALSE, TRUE, sizeof(pd_evidence));
	f->metrics = g_array_new(FALSE, TRUE, sizeof(pd_metric));
	for (size_t i = 0; i < PD_DEF_MAX_SETTINGS && def->settings[i]; i++)
		f->settings[f->n_settings++] = def->settings[i];
	return f;
}

/* Marks flow id as counted in f's bit set; returns whether it was already. */
static bool counted_mark(pd_finding *f, uint64_t id)
{
	uint64_t byte = id / 8;
	if (byte >= f->counted_len) {
		size_t n = f->counted_len ? f->counted_len : 4096;
		while (n <= byte)
			n *= 2;
		f->counted = g_realloc(f->counted, n);
		memset(f->counted + f->counted_len, 0, n - f->counted_len);
		f->counted_len = n;
	}
	uint8_t bit = (uint8_t)(1u << (id % 8));
	bool was = f->counted[byte] & bit;
	f->counted[byte] |= bit;
	return was;
}

void pd_finding_add_flow(pd_run *run, pd_finding *f, const pd_flow *flow)
{
	if (f->last_flow == flow->id + 1)
		return;
	if (f->counted) {
		if (counted_mark(f, flow->id))
			return;
	} else {
		for (guint i = 0; i < f->flows->len; i++)
			if (g_array_index(f->flows, pd_flow_ref, i).flow_id == flow->id)
				return;
	}
	f->last_flow = flow->id + 1;
	f->flow_count++;
	if (f->flows->len >= PD_FINDING_MAX_FLOWS) {
		/* past the listed flows: count each once, however often a
		 * detector reports it */
		if (!f->counted) {
			for (guint i = 0; i < f->flows->len; i++)
				counted_mark(f, g_array_index(f->flows, pd_flow_ref, i).flow_id);
			counted_mark(f, flow->id);
		}
		return;
	}
	pd_flow_ref ref;
	pd_flow_ref_fill(&ref, flow);
	g_array_append_val(f->flows, ref);
	uint64_t key = flow->id;
	gpointer old_key = NULL, old_list = NULL;
	if (g_hash_table_steal_extended(run->flow_findings, &key, &old_key, &old_list))
		g_hash_table_insert(run->flow_findings, old_key, g_slist_prepend(old_list, f));
	else
		g_hash_table_insert(run->flow_findings, g_memdup2(&key, sizeof(key)), g_slist_prepend(NULL, f));
}

void pd_finding_occurrence_at(pd_finding *f, uint64_t frame, pd_time ts, const char *what)
{
	pd_evidence ev;
	memset(&ev, 0, sizeof(ev));
	ev.frame = frame;
	ev.ts = ts;
	g_strlcpy(ev.what, what ? what : "", sizeof(ev.what));
	f->occurrences++;
	if (!f->first.frame || frame < f->first.frame)
		f->first = ev;
	if (frame >= f->last.frame)
		f->last = ev;
	if (f->examples->len < PD_FINDING_MAX_EXAMPLES)
		g_array_append_val(f->examples, ev);
}

void pd_finding_occurrence(pd_finding *f, const pd_packet *pkt, const char *what)
{
	pd_finding_occurrence_at(f, pkt->frame_no, pkt->ts, what);
}

/* How a metric combines over flows. Counts, seconds and byte volumes add
 * up (zero_window_events, window_probes, back_to_back_tiny); levels keep
 * the largest: every unit but count, s and bytes; a key with a qualifier
 * or a size word in it (max_window, longest_stall, first_flight_bytes,
 * ports_needed_per_60s, path_mtu, payload_after), or ending in "window"
 * (clients_in_window); a moment in a flow's life (app_stopped_by_s). By
 * words, not substrings: "window" once made zero_window_events a level. */
static bool metric_adds(const char *key, const char *unit)
{
	static const char *const levels[] = {
		"max",	   "min",     "mean",  "median", "average", "p50",  "p99",	"longest",
		"largest", "busiest", "first", "initial", "earlier", "per",  "since",	"size",
		"mss",	   "mtu",     "snaplen", "rtt",   "period",  "rate", "ratio",	"share",
		"interval", "span",   "cap",   "payload"};
	if (!unit || (strcmp(unit, "count") && strcmp(unit, "s") && strcmp(unit, "bytes")))
		return false;
	if (!strcmp(key, "window_bytes")) /* the average window while sending */
		return false;
	bool moment = false;
	const char *last = key;
	for (const char *w = key; *w;) {
		size_t len = strcspn(w, "_");
		for (size_t i = 0; i < G_N_ELEMENTS(levels); i++)
			if (strlen(levels[i]) == len && !strncmp(w, levels[i], len))
				return false;
		moment |= (len == 2 && !strncmp(w, "by", 2)) || (len == 5 && !strncmp(w, "after", 5));
		last = w;
		w += len;
		if (*w == '_')
			w++;
	}
	return strcmp(last, "window") != 0 && !(moment && !strcmp(last, "s"));
}

static double metric_merge(const char *key, const char *unit, double a, double b)
{
	return metric_adds(key, unit) ? a + b : (b > a ? b : a);
}

void pd_finding_metric(pd_finding *f, const char *key, double value, const char *unit)
{
	if (value != value || value > 1e300 || value < -1e300)
		value = 0; /* NaN or inf never reaches a report */
	for (guint i = 0; i < f->metrics->len; i++) {
		pd_metric *m = &g_array_index(f->metrics, pd_metric, i);
		if (strcmp(m->key, key) == 0) {
			if (f->spill)
				m->value = metric_merge(key, unit, m->value, value);
			else
				m->value = value;
			m->unit = unit;
			return;
		}
	}
	pd_metric m = {.key = key, .value = value, .unit = unit};
	g_array_append_val(f->metrics, m);
}

void pd_finding_detail(pd_finding *f, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	g_free(f->detail);
	f->detail = g_strdup_vprintf(fmt, ap);
	va_end(ap);
}

void pd_finding_settings(pd_finding *f, const char *first, ...)
{
	va_list ap;
	va_start(ap, first);
	f->n_settings = 0;
	for (const char *s = first; s && f->n_settings < PD_FINDING_MAX_SETTINGS; s = va_arg(ap, const char *))
		f->settings[f->n_settings++] = s;
	va_end(ap);
}

void pd_finding_drop(pd_run *run, pd_finding *f)
{
	if (f->spill)
		return; /* shared by many flows: keep it */
	GHashTableIter it;
	gpointer k, v;
	g_hash_table_iter_init(&it, run->findings);
	while (g_hash_table_iter_next(&it, &k, &v)) {
		if (v == f) {
			g_hash_table_iter_remove(&it);
			break;
		}
	}
	/* Unlink from flow lists. */
	g_hash_table_iter_init(&it, run->flow_findings);
	while (g_hash_table_iter_next(&it, &k, &v)) {
		GSList *l = v;
		if (g_slist_find(l, f)) {
			g_hash_table_iter_steal(&it);
			l = g_slist_remove(l, f);
			if (l)
				g_hash_table_insert(run->flow_findings, k, l);
			else
				g_free(k);
			g_hash_table_iter_init(&it, run->flow_findings);
		}
	}
	pd_finding_free(f);
}

uint32_t pd_run_snaplen(const pd_run *run)
{
	return run->snaplen;
}

pd_time pd_run_first_ts(const pd_run *run)
{
	return run->report->cap.first_ts;
}

/* ------------------------------------------------------------ the end */

static uint64_t first_flow_id(const pd_finding *f)
{
	return f->flows && f->flows->len ? g_array_index(f->flows, pd_flow_ref, 0).flow_id : UINT64_MAX;
}

/* First frame, then a total order, so the result never depends on the
 * order findings were made in (lanes hand theirs over at the end). */
static int cmp_ptr_finding_first(gconstpointer a, gconstpointer b)
{
	const pd_finding *x = *(pd_finding *const *)a, *y = *(pd_finding *const *)b;
	if (x->first.frame != y->first.frame)
		return x->first.frame < y->first.frame ? -1 : 1;
	if (x->def != y->def)
		return x->def < y->def ? -1 : 1;
	if (x->spill != y->spill)
		return x->spill ? 1 : -1;
	uint64_t fx = first_flow_id(x), fy = first_flow_id(y);
	return fx < fy ? -1 : fx > fy;
}

/* Moves a lane's findings here, and an app lane's labels and flow rows. */
static void take_lane_findings(pd_run *run, pd_run *lane)
{
	GHashTableIter it;
	gpointer k, v;
	g_hash_table_iter_init(&it, lane->findings);
	while (g_hash_table_iter_next(&it, &k, &v)) {
		pd_finding *f = v;
		if (g_hash_table_contains(run->findings, k))
			g_error("pcapdoc: detectors in two lanes reported finding '%s' for the same flow; "
				"tie them with lane_with",
				f->def->id);
		g_hash_table_iter_steal(&it);
		g_hash_table_insert(run->findings, k, f);
	}
	if (lane->app_lane) {
		for (guint i = 0; i < lane->labels_out->len; i++) {
			const pd_flow_label *l = &g_array_index(lane->labels_out, pd_flow_label, i);
			label_findings(run, l->flow_id, l->app);
		}
		GHashTable *apps = run->apps;
		run->apps = lane->apps;
		lane->apps = apps;
		pd_report *r = run->report, *lr = lane->report;
		if (lr->flows) {
			if (r->flows)
				g_array_free(r->flows, TRUE);
			r->flows = lr->flows;
			lr->flows = NULL;
			r->flows_omitted = lr->flows_omitted;
		}
		run->ndpi_skipped_elsewhere = pd_ndpi_skipped(lane->ndpi);
	}
}


/* Many flows with the same id become one capture-wide finding. */
static void aggregate(pd_run *run, GPtrArray *all)
{
	pd_report *r = run->report;
	for (size_t d = 0; d < pd_catalog_len; d++) {
		const pd_finding_def *def = &pd_catalog[d];
		GPtrArray *same = g_ptr_array_new();
		for (guint i = 0; i < all->len; i++) {
			pd_finding *f = g_ptr_array_index(all, i);
			if (f && f->def == def && (!f->capture_wide || f->spill))
				g_ptr_array_add(same, f);
		}
		if (same->len > PD_AGGREGATE_MIN_FLOWS) {
			g_ptr_array_sort(same, cmp_ptr_finding_first);
			pd_finding *agg = g_new0(pd_finding, 1);
			agg->def = def;
			agg->capture_wide = true;
			agg->flows = g_array_new(FALSE, TRUE, sizeof(pd_flow_ref));
			agg->examples = g_array_new(FALSE, TRUE, sizeof(pd_evidence));
			agg->metrics = g_array_new(FALSE, TRUE, sizeof(pd_metric));
			pd_finding *worst = NULL;
			for (guint i = 0; i < same->len; i++) {
				pd_finding *f = g_ptr_array_index(same, i);
				if (!worst || f->impact_s > worst->impact_s ||
				    (f->impact_s == worst->impact_s && f->severity > worst->severity))
					worst = f;
				agg->flow_count += f->flow_count;
				for (guint j = 0; j < f->flows->len && agg->flows->len < PD_FINDING_MAX_FLOWS; j++)
					g_array_append_val(agg->flows, g_array_index(f->flows, pd_flow_ref, j));
				agg->occurrences += f->occurrences;
				agg->impact_s += f->impact_s;
				if (f->severity > agg->severity)
					agg->severity = f->severity;
				if (f->confidence > agg->confidence)
					agg->confidence = f->confidence;
				if (!agg->first.frame || f->first.frame < agg->first.frame)
					agg->first = f->first;
				if (f->last.frame >= agg->last.frame)
					agg->last = f->last;
				if (agg->examples->len < PD_FINDING_MAX_EXAMPLES)
					g_array_append_val(agg->examples, f->first);
				for (guint j = 0; j < f->metrics->len; j++) {
					pd_metric m = g_array_index(f->metrics, pd_metric, j);
					bool found = false;
					for (guint k = 0; k < agg->metrics->len; k++) {
						pd_metric *am = &g_array_index(agg->metrics, pd_metric, k);
						if (strcmp(am->key, m.key) == 0) {
							am->value = metric_merge(m.key, m.unit, am->value, m.value);
							found = true;
							break;
						}
					}
					if (!found)
						g_array_append_val(agg->metrics, m);
				}
			}
			if (worst) { /* always set: same has more than one entry */
				memcpy(agg->settings, worst->settings, sizeof(agg->settings));
				agg->n_settings = worst->n_settings;
			}
			agg->detail = g_strdup_printf("%" G_GUINT64_FORMAT " flows; worst: %s", agg->flow_count,
						      worst && worst->detail ? worst->detail : def->title_en);
			pd_finding_metric(agg, "flows", (double)agg->flow_count, "count");
			for (guint i = 0; i < all->len; i++) {
				pd_finding *f = g_ptr_array_index(all, i);
				if (f && f->def == def && (!f->capture_wide || f->spill)) {
					pd_finding_free(f);
					g_ptr_array_index(all, i) = NULL;
				}
			}
			g_ptr_array_add(r->findings, agg);
		}
		g_ptr_array_free(same, TRUE);
	}
	for (guint i = 0; i < all->len; i++) {
		pd_finding *f = g_ptr_array_index(all, i);
		if (f)
			g_ptr_array_add(r->findings, f);
	}
}

static gint cmp_app(gconstpointer a, gconstpointer b)
{
	const pd_app_count *x = a, *y = b;
	if (x->flows != y->flows)
		return x->flows > y->flows ? -1 : 1;
	return strcmp(x->name, y->name);
}

static gint cmp_lt(gconstpointer a, gconstpointer b)
{
	const pd_linktype_count *x = a, *y = b;
	return x->linktype - y->linktype;
}

static gint cmp_row(gconstpointer a, gconstpointer b)
{
	const pd_flow_row *x = a, *y = b;
	return x->ref.flow_id < y->ref.flow_id ? -1 : x->ref.flow_id > y->ref.flow_id;
}

pd_report *pd_run_finish(pd_run *run)
{
	g_assert(!run->finished);
	run->finished = true;
	finish_flows(run);
	for (size_t k = 0; k < run->n_lanes; k++)
		take_lane_findings(run, run->lane[k]);

	pd_report *r = run->report;
	pd_capture_summary *cap = &r->cap;
	if (cap->flows_evicted)
		g_ptr_array_add(cap->notes,
				g_strdup_printf("flow table cap of %zu live flows reached: %" G_GUINT64_FORMAT
						" least recently active flows were finalized early (--max-flows)",
						run->opts.max_flows, cap->flows_evicted));
	if (run->park_stats) {
		uint64_t bytes = 0, parks = pd_flowtable_parks(run->ft, &bytes);
		fprintf(stderr, "pcapdoc: parked %" G_GUINT64_FORMAT " flows (%" G_GUINT64_FORMAT
				" bytes of records)\n", parks, bytes);
	}
	if (run->half_open_evicted)
		g_ptr_array_add(cap->notes,
				g_strdup_printf("more than %d half-open TCP flows at once (a SYN flood?): %" G_GUINT64_FORMAT
						" of them were finalized early, oldest first; a SYN repeated after that "
						"counts as a new flow",
						PD_MAX_HALF_OPEN, run->half_open_evicted));
	if (cap->unsupported_link)
		g_ptr_array_add(cap->notes,
				g_strdup_printf("%" G_GUINT64_FORMAT " frames have a link type pcapdoc does not decode "
						"(see link types): counted, not analysed",
						cap->unsupported_link));
	if (cap->not_ip)
		g_ptr_array_add(cap->notes,
				g_strdup_printf("%" G_GUINT64_FORMAT " frames carry no IP (ARP, LLDP, ...): counted, "
						"not analysed",
						cap->not_ip));
	uint64_t ndpi_skipped = pd_ndpi_skipped(run->ndpi) + run->ndpi_skipped_elsewhere;
	if (ndpi_skipped)
		g_ptr_array_add(cap->notes,
				g_strdup_printf("%" G_GUINT64_FORMAT " flows were not given an application label: "
						"more than %d flows awaited nDPI at once",
						ndpi_skipped, PD_NDPI_MAX_LIVE));
	if (cap->packets == 0 && cap->errors->len == 0)
		g_ptr_array_add(cap->notes, g_strdup("the capture contains no packets"));

	GHashTableIter it;
	gpointer k, v;
	g_hash_table_iter_init(&it, run->apps);
	while (g_hash_table_iter_next(&it, &k, &v)) {
		pd_app_count ac;
		memset(&ac, 0, sizeof(ac));
		g_strlcpy(ac.name, k, sizeof(ac.name));
		ac.flows = *(gsize *)v;
		g_array_append_val(cap->apps, ac);
	}
	g_array_sort(cap->apps, cmp_app);
	flush_linktype_run(run);
	g_hash_table_iter_init(&it, run->linktypes);
	while (g_hash_table_iter_next(&it, &k, &v)) {
		pd_linktype_count lc = {.linktype = GPOINTER_TO_INT(k) - 1, .packets = GPOINTER_TO_SIZE(v)};
		g_array_append_val(cap->linktypes, lc);
	}
	g_array_sort(cap->linktypes, cmp_lt);
	if (r->flows)
		g_array_sort(r->flows, cmp_row);

	GPtrArray *all = g_ptr_array_new();
	g_hash_table_iter_init(&it, run->findings);
	while (g_hash_table_iter_next(&it, &k, &v))
		g_ptr_array_add(all, v);
	g_hash_table_remove_all(run->findings); /* frees keys only */
	g_ptr_array_sort(all, cmp_ptr_finding_first);
	aggregate(run, all);
	g_ptr_array_free(all, TRUE);
	pd_report_sort(r);

	run->report = NULL;
	return r;
}

void pd_run_free(pd_run *run)
{
	if (!run)
		return;
	if (!run->finished) {
		pd_report *r = pd_run_finish(run);
		pd_report_free(r);
	}
	pd_reader_close(run->reader);
	for (size_t k = 0; k < run->n_lanes; k++) {
		pd_run *lane = run->lane[k];
		lane->finished = true;
		if (lane->labels_out)
			g_array_free(lane->labels_out, TRUE);
		shadow_list_free(&run->shadow_slab, lane->shadow_done);
		lane->shadow_done = NULL;
		pd_report_free(lane->report);
		lane->report = NULL;
		pd_run_free(lane);
	}
	for (size_t i = 0; i < pd_detectors_len; i++) {
		if (run->det_on[i] && pd_detectors[i]->fini)
			pd_detectors[i]->fini(run->det_global[i]);
		g_free(run->det_global[i]);
	}
	g_free(run->det_global);
	g_free(run->det_on);
	g_free(run->h_packet.idx);
	g_free(run->h_tcp.idx);
	g_free(run->h_udp.idx);
	g_free(run->h_flow_end.idx);
	g_free(run->h_end.idx);
	shadow_list_free(&run->shadow_slab, run->shadow_free);
	shadow_list_free(&run->shadow_slab, run->shadow_back);
	pd_slab_destroy(&run->shadow_slab);
	g_mutex_clear(&run->shadow_lock);

	g_free(run->det_offset);
	pd_flowtable_free(run->ft);
	g_free(run->parked);
	if (run->park_slots_free)
		g_array_free(run->park_slots_free, TRUE);
	pd_recpool_destroy(&run->park_records);
	pd_packer_free(&run->packer);
	pd_ndpi_free(run->ndpi);
	g_hash_table_destroy(run->findings);
	g_free(run->per_id);
	g_hash_table_destroy(run->flow_findings);
	g_hash_table_destroy(run->apps);
	g_hash_table_destroy(run->linktypes);
	g_free(run);
}
