/* The --host stage of a run (host_stage.c): host snapshots judge the
 * findings' ranked settings once detection is over. */
#ifndef PD_HOST_STAGE_H
#define PD_HOST_STAGE_H

#include <stddef.h>

#include "report/model.h"

/* Loads each snapshot (DIR or .tar.gz), notes in r->cap why one was not
 * used, annotates and re-ranks r's findings' settings, adds the info
 * finding for counters nothing explains. Never fails. */
void pd_host_stage(pd_report *r, const char *const *paths, size_t n);

#endif
