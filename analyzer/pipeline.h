/* Two-thread input pipeline: a reader thread reads each frame, copies it
 * into a ring slot and dissects it there; the calling thread receives the
 * frames in capture order and does the stateful rest (flows, nDPI,
 * detectors). Because the analysis sees the same frames in the same order,
 * the report is byte for byte the one a single thread gives. */
#ifndef PD_PIPELINE_H
#define PD_PIPELINE_H

#include <stdatomic.h>

#include "dissect/dissect.h"
#include "reader.h"

typedef void (*pd_pipeline_sink)(void *ctx, const pd_frame *fr, const pd_packet *pkt, pd_dissect_status st);

/* Reads r to its end. sink runs on the calling thread; bytes_read (may be
 * NULL) follows the reader's position for progress display. Returns the
 * number of frames delivered. If the thread cannot start, reads inline. */
uint64_t pd_pipeline_drain(pd_reader *r, pd_pipeline_sink sink, void *ctx, _Atomic uint64_t *bytes_read);

#define PD_PIPELINE_SLOTS 2048
#define PD_PIPELINE_BATCH 256

#endif
