/* Two capture points of the same connections (issue 36; docs/two-points.md).
 *
 * A pre-pass before the run, the engine untouched: both files' TCP headers
 * are read, connections are paired by what survives NAT (the ISN of the
 * SYN, else the SYN's TCP timestamp; without a SYN the 4-tuple, else a
 * first data segment), their packets matched by (ISN-relative seq, ack,
 * length, flags), the clocks aligned (offset and drift) from the minimum
 * one-way delay each way, and per connection and
 * direction it counts what crossed, what was lost between the points, the
 * one-way delay, reordering and what a middlebox rewrote. The run then
 * analyses one point, and pd_points_apply() turns the pairing into capture
 * notes and evidence on the findings it explains. */
#ifndef PD_POINTS_H
#define PD_POINTS_H

#include <glib.h>
#include <stdbool.h>

#include "report/model.h"

/* Pairs two files. force: --points (pair whenever a connection is shared).
 * Returns NULL when a file cannot be read or is standard input (the report
 * is then as today). */
pd_points *pd_points_pair(const char *a, const char *b, const char *filter, bool force);

/* Whether the run should read only p->files[p->analysed]: two points, or
 * the same point twice. */
bool pd_points_split(const pd_points *p);

/* Capture notes, finding evidence and settings re-ranked; the report takes
 * p (NULL: nothing). */
void pd_points_apply(pd_report *r, pd_points *p);

/* The copies of one packet (the same sequence, ACK, length and flags)
 * seen at the two points, matched: nu upstream copies at times tu and nd
 * downstream ones at td (each ascending, one clock; a downstream copy may
 * seem up to slack earlier than its upstream one). up_match[i] is the
 * downstream copy that came out of upstream copy i, down_match[j] the
 * upstream copy of downstream copy j; -1: none. Equal counts match in
 * order; with copies lost between the points, each downstream copy takes
 * the latest upstream copy that could have caused it (a first
 * transmission dropped, its retransmission arrived). */
void pd_points_match_copies(const pd_time *tu, guint nu, const pd_time *td, guint nd, pd_time slack,
			    int32_t *up_match, int32_t *down_match);

#endif
