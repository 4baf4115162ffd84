/* What a pd_ctx is: the engine's side of the detector contract (the engine
 * and the finding store include this; detectors do not). */
#ifndef PD_CTX_H
#define PD_CTX_H

#include "heuristics/detector.h"
#include "heuristics/store.h"

struct pd_ctx {
	/* the findings: set only while a capture-wide hook runs */
	pd_store *store;
	const pd_detector *det; /* whose hook runs: its emits list is checked */
	pd_time now, start;
	uint32_t snaplen;
	const pd_capture_facts *facts; /* on_end only */
	void *payload; /* the hook's flow: the detector's payload block, or NULL */
};

#endif
