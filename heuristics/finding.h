/* How detectors report: the finding builder.
 *
 * A finding is one problem: an id from the catalogue (knowledge/catalog.c),
 * the flows it concerns, evidence frames, measured metrics, one sentence of
 * detail in English and Chinese, the settings most likely responsible, the
 * time it cost. Detectors make and change findings only through the calls
 * below, and only in on_flow_end and on_end (heuristics/detector.h), which
 * run one at a time in capture order; the run owns every finding and hands
 * them to the report. They may read a finding's public fields
 * (report/model.h) but never write them. */
#ifndef PD_FINDING_H
#define PD_FINDING_H

#include <stdbool.h>
#include <stdint.h>

#include "heuristics/flow.h"
#include "report/text.h"
#include "report/model.h"

typedef struct pd_ctx pd_ctx;

/* A flow remembered past its hooks (a detector keeps no pd_flow pointer):
 * enough to name it in a finding later, e.g. in on_end. */
typedef struct pd_flow_key {
	uint64_t id;
	uint8_t proto;
	pd_addr addr[2]; /* [PD_CLIENT], [PD_SERVER] */
	uint16_t port[2];
	const char *app; /* interned; NULL if the flow had not ended */
} pd_flow_key;

void pd_flow_key_of(pd_flow_key *k, const pd_flow *f);

/* The finding for (id, flow), made on first use; flow NULL: the
 * capture-wide finding of that id. The id must be in the detector's emits
 * list (checked at start-up) and in the catalogue. */
pd_finding *pd_finding_get(pd_ctx *ctx, const char *id, const pd_flow *flow);
pd_finding *pd_finding_get_key(pd_ctx *ctx, const char *id, const pd_flow_key *flow);
/* Names one more flow in a (capture-wide) finding; each flow counts once. */
void pd_finding_add_flow(pd_ctx *ctx, pd_finding *f, const pd_flow *flow);
void pd_finding_add_key(pd_ctx *ctx, pd_finding *f, const pd_flow_key *flow);
/* Removes a finding the detector decided against (evidence fell short). */
void pd_finding_drop(pd_ctx *ctx, pd_finding *f);

/* One occurrence, with its evidence frame and a short label. */
#define pd_finding_occurrence(f, frame, ts, en, zh, ...) \
	PD_TXT_CALL(pd_finding_occurrence_, (f, frame, ts), en, zh, ##__VA_ARGS__)
/* The finding's one measured sentence (replaces any earlier one). */
#define pd_finding_detail(f, en, zh, ...) PD_TXT_CALL(pd_finding_detail_, (f), en, zh, ##__VA_ARGS__)
/* n more occurrences whose frames are not listed (the first few were). */
void pd_finding_count(pd_finding *f, uint64_t n);
/* Adds a clause to the detail (the text carries its own leading "; "). */
#define pd_finding_append(f, en, zh, ...) PD_TXT_CALL(pd_finding_append_, (f), en, zh, ##__VA_ARGS__)

typedef enum pd_unit {
	PD_UNIT_COUNT,
	PD_UNIT_S,
	PD_UNIT_MS,
	PD_UNIT_BYTES,
	PD_UNIT_BYTES_PER_S,
	PD_UNIT_RATIO,
	PD_UNIT_TICKS,
} pd_unit;

/* How a metric combines when findings of one id on several flows become
 * one capture-wide finding: pd_agg (report/model.h): added (counts, time
 * lost, volumes) or the largest / smallest kept (levels, sizes, moments). */

/* Sets metric key (static snake_case) to value. */
void pd_finding_metric(pd_finding *f, const char *key, double value, pd_unit unit, pd_agg agg);
/* Replaces the setting ranking: KB names, most likely first, NULL-terminated. */
void pd_finding_settings(pd_finding *f, const char *first, ...) __attribute__((sentinel));
void pd_finding_set_severity(pd_finding *f, pd_severity sev);
void pd_finding_set_confidence(pd_finding *f, double confidence);
/* Seconds the problem cost the user, added to the finding's impact. */
void pd_finding_add_impact(pd_finding *f, double seconds);
/* The frames of its flow during which this problem acted (a per-flow
 * finding; the span grows to cover every call). A symptom on the same
 * flow is this finding's evidence (knowledge/causality.c) only when the
 * symptom's first and last occurrences fall inside the span: what
 * happened on the flow before or after is not this problem's doing.
 * Never set: the whole flow. On a symptom the span is its whole extent
 * (every occurrence, also those beyond the examples quoted), which is
 * then what must fall inside a cause's span. */
void pd_finding_span(pd_finding *f, uint64_t first_frame, uint64_t last_frame);
/* The detector made both findings on one flow and its evidence says which
 * is the problem: symptom is cause's evidence (knowledge/causality.c must
 * have a row cause -> symptom; rows marked declared apply only so). */
void pd_finding_explained_by(pd_finding *symptom, pd_finding *cause);

const char *pd_unit_name(pd_unit u);

/* Behind the macros above. */
void pd_finding_occurrence_(pd_finding *f, uint64_t frame, pd_time ts, const pd_text *what, ...);
void pd_finding_detail_(pd_finding *f, const pd_text *t, ...);
void pd_finding_append_(pd_finding *f, const pd_text *t, ...);

#endif
