/* Application protocol per flow through nDPI. Only the first packets that
 * carry payload are fed; then the flow's guess is fixed and nDPI's per-flow
 * state is released, so nDPI costs nothing on long flows. */
#ifndef PD_NDPI_GLUE_H
#define PD_NDPI_GLUE_H

#include "flow.h"

typedef struct pd_ndpi pd_ndpi;

pd_ndpi *pd_ndpi_new(void); /* NULL if nDPI cannot start; flows stay "Unknown" */
void pd_ndpi_free(pd_ndpi *n);

/* Feeds pkt (IP layer) for flow f if it still needs it. */
void pd_ndpi_feed(pd_ndpi *n, pd_flow *f, const pd_packet *pkt);
/* Fixes the flow's label (giving up if needed) and frees nDPI's state. */
void pd_ndpi_finish(pd_ndpi *n, pd_flow *f);

#define PD_NDPI_MAX_PKTS 24
/* nDPI states alive at once; flows beyond it stay "Unknown". */
#define PD_NDPI_MAX_LIVE 32768

uint64_t pd_ndpi_skipped(const pd_ndpi *n);

#endif
