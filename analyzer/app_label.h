/* The application protocol of each flow, through nDPI. Only the first
 * packets that carry payload are fed; once nDPI names the flow (or gives
 * up) its per-flow state is released, so nDPI costs nothing on long flows.
 * One module per worker: nDPI is not shared between threads. A worker
 * starts its module at its first flow, on its own thread (modules start
 * one at a time: nDPI's start is not thread-safe). */
#ifndef PD_APP_LABEL_H
#define PD_APP_LABEL_H

#include "flowtable.h"

typedef struct pd_app_label pd_app_label;

pd_app_label *pd_app_label_new(void); /* NULL if nDPI cannot start; flows stay "Unknown" */
void pd_app_label_free(pd_app_label *n);

/* Starting nDPI costs 10-25 ms and about 5 MiB. A process that runs many
 * small analyses one after another (the fuzzer) may keep up to n released
 * modules for the next runs: pd_app_label_new then takes one back instead
 * of starting nDPI. A kept module is used by one worker at a time, as any
 * module; it keeps nDPI's caches (addresses seen by earlier runs), so a
 * label may depend on an earlier run. 0, the default: every module is
 * freed. */
void pd_app_label_keep(unsigned n);

/* nDPI states alive in one shard (*live) and the shard's cap: past it a
 * new flow is left "Unknown" (counted in *skipped). */
typedef struct pd_app_budget {
	size_t live, cap, peak; /* nDPI states: now, at most, at most at once */
	uint64_t skipped;
} pd_app_budget;

/* Feeds pkt (IP layer) for the flow if it still needs it. */
void pd_app_label_feed(pd_app_label *n, pd_flow_slot *s, const pd_packet *pkt, pd_app_budget *b);
/* Fixes the flow's label (giving up if needed) and frees nDPI's state. */
void pd_app_label_finish(pd_app_label *n, pd_flow_slot *s, pd_app_budget *b);

/* Bytes of one nDPI flow state (for --stats). */
size_t pd_app_label_state_size(void);

#define PD_APP_MAX_PKTS 24
/* nDPI states alive at once, over all shards. */
#define PD_APP_MAX_LIVE 32768

#endif
