/* The ring between the flow stage and the detector lanes (--threads 2+).
 *
 * One producer (the thread that reads the capture, keeps the flows and
 * runs nDPI) appends fixed-size event records; each of n lanes, on a thread
 * of its own, receives every record in the order it was appended. A record
 * is reused only once every lane has passed it. Records are handed over in
 * batches, so the lock is taken once per PD_STAGE_BATCH records. Because
 * each lane sees the same records in the same order, what it computes does
 * not depend on how the threads are scheduled. */
#ifndef PD_PIPELINE_H
#define PD_PIPELINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct pd_stage pd_stage;

/* Called on the lane's thread for each record, then once with rec == NULL
 * after the last one. */
typedef void (*pd_stage_fn)(void *lane, const void *rec);

/* Starts n lanes (ctx[i] is lane i's argument). hint (may be NULL) is
 * shown the next record before fn handles the current one, to prefetch
 * what it will need. When a thread cannot start, every record goes
 * through the lanes on the calling thread. */
pd_stage *pd_stage_start(size_t rec_size, size_t n, pd_stage_fn fn, pd_stage_fn hint, void *const *ctx);

/* Work a lane may do for the producer when it has caught up, instead of
 * going to sleep at once: called on the lane's thread, returns whether it
 * did something (then the lane looks at the ring again and may call it
 * again). */
typedef bool (*pd_stage_idle_fn)(void *arg);
/* fn NULL: no more such calls; returns once no lane is in the old one. */
void pd_stage_set_idle(pd_stage *s, pd_stage_idle_fn fn, void *arg);

/* The next record to fill; waits while the ring is full. */
void *pd_stage_next(pd_stage *s);
/* Appends the record pd_stage_next returned. */
void pd_stage_push(pd_stage *s);
/* Records appended so far. */
uint64_t pd_stage_pushed(const pd_stage *s);
/* Waits until every lane has handled the first n records; returns how
 * many every lane has handled (>= n). */
uint64_t pd_stage_wait_handled(pd_stage *s, uint64_t n);
/* Publishes the rest, lets every lane finish, joins the threads, frees. */
void pd_stage_finish(pd_stage *s);

#define PD_STAGE_RECORDS 2048
#define PD_STAGE_BATCH 64
#define PD_STAGE_MAX_LANES 16

#endif
