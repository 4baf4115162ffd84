/* The finding store: owns every finding while the capture is read and
 * hands them to the report at the end. It is used from the capture-wide
 * hooks only, which run one at a time in capture order, so what it holds
 * never depends on how the engine spread the work over threads. */
#ifndef PD_STORE_H
#define PD_STORE_H

#include <glib.h>

#include "report/model.h"

typedef struct pd_store pd_store;

pd_store *pd_store_new(void);
void pd_store_free(pd_store *s);

/* Every finding, merged (PD_AGGREGATE_MIN_FLOWS) and in no particular
 * order; the store is empty afterwards. The caller owns the array (its
 * elements free with pd_finding_free). */
GPtrArray *pd_store_take(pd_store *s);

/* Aggregation threshold: an id found on more flows than this becomes one
 * capture-wide finding listing them. */
#define PD_AGGREGATE_MIN_FLOWS 5

/* Per-flow findings kept per id; further flows fold straight into one
 * capture-wide finding, so a flood cannot grow the findings without bound. */
#define PD_MAX_FLOW_FINDINGS 256

/* Fills ref from a flow's identity: endpoints, label, Community ID. */
struct pd_flow_key;
void pd_flow_ref_from_key(pd_flow_ref *ref, const struct pd_flow_key *k);

#endif
