/* The detector interface.
 *
 * A detector is one file in heuristics/ that defines one `const pd_detector`
 * and adds one line to registry.c. The engine calls its hooks as the capture
 * streams by; the detector keeps per-flow state in a zeroed block of
 * flow_state_size bytes (freed with the flow; release anything it owns in
 * on_flow_end) and global state in a zeroed block of global_state_size
 * bytes (see state_on_data). It reports only through the pd_finding_* calls below; it never
 * prints, and it never changes the flow.
 *
 * A flow's address and its block's are stable only while the detector's
 * hook runs: a half-open or UDP flow may be parked between its packets (packed
 * away and later rebuilt elsewhere, analyzer/flowtable.h). A detector that
 * keeps a pointer to a flow or to its block beyond the hook may do so only
 * for a pinned flow (flow->pinned: it had an IP fragment, or a packet over
 * PD_UNPINNED_MAX_IP_LEN bytes), as pmtu and fragments do. */
#ifndef PD_DETECTOR_H
#define PD_DETECTOR_H

#include <stdarg.h>

#include "analyzer/flow.h"
#include "report/model.h"

typedef struct pd_run pd_run;

typedef struct pd_detector {
	const char *name; /* short, used in JUnit test names and docs */
	size_t flow_state_size;
	size_t global_state_size;
	/* Data-transfer detectors set this: their per-flow state is allocated
	 * only when the flow carries its first TCP payload, and their hooks
	 * see the flow from that segment on. Scans, floods and failed
	 * handshakes then cost them nothing. */
	bool state_on_data;

	/* How detectors are spread over threads (--threads, analyzer/run.c):
	 * each detector lane runs a share of them, chosen by these fields. */
	unsigned cost; /* percent of a one-thread run's time (perf; docs/performance.md) */
	bool needs_app; /* reads flow->app (nDPI's label): runs where nDPI runs */
	const char *lane_with; /* reports a finding id that detector (by name) also reports */

	void (*init)(pd_run *run, void *g);
	/* every frame that carried IP (fragments, ICMP, anything), before flows */
	void (*on_packet)(pd_run *run, void *g, const pd_packet *pkt);
	/* every TCP segment after the engine updated the flow; seg says what it was */
	void (*on_tcp)(pd_run *run, void *g, pd_flow *flow, void *fs, const pd_packet *pkt,
		       const pd_seg *seg);
	void (*on_udp)(pd_run *run, void *g, pd_flow *flow, void *fs, const pd_packet *pkt, int dir);
	/* the flow is finished (closed, idle, evicted or end of capture) */
	void (*on_flow_end)(pd_run *run, void *g, pd_flow *flow, void *fs);
	/* end of the capture, after every flow ended */
	void (*on_end)(pd_run *run, void *g);
	void (*fini)(void *g); /* release what g owns */
} pd_detector;

/* registry.c */
extern const pd_detector *const pd_detectors[];
extern const size_t pd_detectors_len;

/* ---- the finding API (implemented by the run) ---- */

/* The finding for (id, flow), created on first use; flow may be NULL for a
 * capture-wide finding. id must exist in the catalogue (aborts otherwise:
 * a programming error). */
pd_finding *pd_finding_get(pd_run *run, const char *id, const pd_flow *flow);

/* Records one occurrence with its evidence packet (first/last/examples). */
void pd_finding_occurrence(pd_finding *f, const pd_packet *pkt, const char *what);
void pd_finding_occurrence_at(pd_finding *f, uint64_t frame, pd_time ts, const char *what);
/* Adds a flow to a capture-wide finding. */
void pd_finding_add_flow(pd_run *run, pd_finding *f, const pd_flow *flow);
void pd_finding_metric(pd_finding *f, const char *key, double value, const char *unit);
void pd_finding_detail(pd_finding *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Replaces the setting ranking (KB names, NULL-terminated). */
void pd_finding_settings(pd_finding *f, const char *first, ...) __attribute__((sentinel));
/* Removes a finding a detector decided against (e.g. evidence fell short). */
void pd_finding_drop(pd_run *run, pd_finding *f);

/* Context detectors may read. */
uint32_t pd_run_snaplen(const pd_run *run);
pd_time pd_run_first_ts(const pd_run *run);
void pd_flow_ref_fill(pd_flow_ref *ref, const pd_flow *flow);

#endif
