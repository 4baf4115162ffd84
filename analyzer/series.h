/* The packet series behind the HTML report's pictures.
 *
 * Renderers never re-analyse, so the series come from here: once the run
 * is finished, pd_series_collect() reads the input again with
 * capture/reader.h and dissect/ only (no flow table, nothing of run.c),
 * keeps the TCP packets of the flows the report's findings name (matched
 * by 5-tuple, a connection told from a later one on the same ports by its
 * SYN and by the findings' evidence frames), and attaches to r->series a
 * bounded sample per flow: frame, time, direction, relative seq, length,
 * ack, window, bytes in flight, flags, and marks from the findings'
 * evidence frames and a few local rules (data below the highest sequence
 * seen = retransmission; a SYN again = SYN retry; window 0; zero-window
 * probe). Every marked packet is kept; the rest are thinned by a stride
 * that doubles whenever the bound is reached, so a flow of millions of
 * packets gives at most max_points points. RTT samples and the
 * inter-segment gap histogram are taken over every packet. */
#ifndef PD_SERIES_H
#define PD_SERIES_H

#include <stdbool.h>
#include <stddef.h>

#include <glib.h>

#include "report/model.h"

#define PD_SERIES_MAX_FLOWS 8 /* flows with pictures */
#define PD_SERIES_MAX_POINTS 4000 /* points per flow (plus the evidence frames) */
#define PD_SERIES_MAX_RTT 1200 /* RTT samples per flow */

/* Fills r->series. Standard input ("-") cannot be read twice: the series
 * then say so (r->series->unavailable) and false is returned; false with
 * *err set when the files cannot be read again. max_flows and max_points
 * 0 take the defaults above. */
bool pd_series_collect(pd_report *r, const char *const *paths, size_t n, const char *filter,
		       size_t max_flows, size_t max_points, GError **err);

#endif
