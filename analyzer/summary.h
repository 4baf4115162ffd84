/* What the capture itself is like, counted on every frame in capture order
 * as it is read: packets and bytes, link types, protocols, malformed and
 * truncated frames, and the capture facts detectors read at the end
 * (timestamps going backwards, snap length, packets captured twice). */
#ifndef PD_SUMMARY_H
#define PD_SUMMARY_H

#include <glib.h>

#include "capture/reader.h"
#include "dissect/dissect.h"
#include "heuristics/detector.h"
#include "report/model.h"

typedef struct pd_summary pd_summary;

pd_summary *pd_summary_new(pd_capture_summary *cap, pd_capture_facts *facts);
void pd_summary_free(pd_summary *s);

/* Counts one frame. Returns whether it is the same packet as one captured
 * within the last 10 ms (1 ms without an IP ID): a duplicate. */
bool pd_summary_frame(pd_summary *s, const pd_frame *fr, const pd_packet *pkt, pd_dissect_status st);

/* The link-type counts into cap (at the end). */
void pd_summary_finish(pd_summary *s);

#endif
