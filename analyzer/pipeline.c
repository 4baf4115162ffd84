/* The producer/lanes ring; see pipeline.h. */
#include "pipeline.h"

#include <glib.h>
#include <string.h>

/* What each thread writes often sits on cache lines of its own: a line
 * written by one core and read by another moves between them at every
 * write. */
typedef struct pd_lane {
	pd_stage *stage;
	void *ctx;
	GThread *thread;
	/* under lock */
	uint64_t handled; /* records this lane is done with */
	uint64_t want; /* when sleeping: until this many are published */
	bool sleeping;
} __attribute__((aligned(64))) pd_lane;

struct pd_stage {
	/* set at the start, then only read */
	uint8_t *ring;
	size_t rec_size;
	pd_stage_fn fn;
	pd_stage_fn hint;
	pd_stage_idle_fn idle; /* under lock */
	void *idle_arg;
	unsigned idle_busy; /* lanes in idle() now */
	GCond idle_off;
	size_t n;
	bool inline_lanes; /* no threads: each record goes through every lane at once */
	/* the producer's own */
	uint64_t pushed __attribute__((aligned(64))); /* records appended */
	uint64_t room_until; /* may fill up to here without asking */
	/* shared, under lock */
	GMutex lock __attribute__((aligned(64)));
	GCond have_data, have_space;
	uint64_t published; /* visible to the lanes */
	bool done;
	bool urgent; /* the producer waits: lanes take whatever is published */
	bool producer_waiting;
	uint64_t producer_want; /* until every lane has handled this many */
	pd_lane lanes[PD_STAGE_MAX_LANES];
};

/* Sleeping and waking cost a context switch each, and a woken thread is
 * often moved next to its waker: both sides wait for a good amount of
 * work or room, not for one batch. */
#define PD_STAGE_LANE_WAKE 512 /* records published past a sleeping lane */
#define PD_STAGE_ROOM_WAKE (PD_STAGE_RECORDS / 4) /* free records to wake the producer */

/* Under lock. */
static uint64_t slowest(const pd_stage *s)
{
	uint64_t m = s->lanes[0].handled;
	for (size_t i = 1; i < s->n; i++)
		if (s->lanes[i].handled < m)
			m = s->lanes[i].handled;
	return m;
}

static gpointer lane_main(gpointer data)
{
	pd_lane *l = data;
	pd_stage *s = l->stage;
	uint8_t *const ring = s->ring;
	const size_t rec_size = s->rec_size;
	const pd_stage_fn fn = s->fn;
	void *const ctx = l->ctx;
	uint64_t handled = 0;
	for (;;) {
		g_mutex_lock(&s->lock);
		l->handled = handled;
		if (s->producer_waiting && slowest(s) >= s->producer_want)
			g_cond_signal(&s->have_space);
		if (s->published == handled && !s->done && s->idle) {
			pd_stage_idle_fn idle = s->idle;
			void *arg = s->idle_arg;
			s->idle_busy++;
			g_mutex_unlock(&s->lock);
			bool did = idle(arg);
			g_mutex_lock(&s->lock);
			if (--s->idle_busy == 0)
				g_cond_broadcast(&s->idle_off);
			if (did) {
				g_mutex_unlock(&s->lock);
				continue;
			}
		}
		if (s->published == handled && !s->done) {
			l->want = handled + PD_STAGE_LANE_WAKE;
			l->sleeping = true;
			while (!s->done && s->published < l->want && !(s->urgent && s->published > handled))
				g_cond_wait(&s->have_data, &s->lock);
			l->sleeping = false;
		}
		uint64_t avail = s->published;
		bool done = s->done;
		g_mutex_unlock(&s->lock);
		if (avail == handled && done)
			break;
		/* Hand records back every batch so the producer keeps going. */
		uint64_t stop = avail;
		if (stop - handled > PD_STAGE_BATCH)
			stop = handled + PD_STAGE_BATCH;
		for (; handled < stop; handled++) {
			if (handled + 1 < stop && s->hint)
				s->hint(ctx, ring + ((handled + 1) % PD_STAGE_RECORDS) * rec_size);
			fn(ctx, ring + (handled % PD_STAGE_RECORDS) * rec_size);
		}
	}
	if (!s->inline_lanes)
		s->fn(l->ctx, NULL);
	return NULL;
}

pd_stage *pd_stage_start(size_t rec_size, size_t n, pd_stage_fn fn, pd_stage_fn hint, void *const *ctx)
{
	if (n < 1 || n > PD_STAGE_MAX_LANES)
		return NULL;
	pd_stage *s = g_new0(pd_stage, 1);
	s->rec_size = (rec_size + 63) & ~(size_t)63; /* no two records share a cache line */
	s->ring = g_malloc0(s->rec_size * PD_STAGE_RECORDS);
	s->fn = fn;
	s->hint = hint;
	s->n = n;
	s->room_until = PD_STAGE_RECORDS;
	g_mutex_init(&s->lock);
	g_cond_init(&s->have_data);
	g_cond_init(&s->have_space);
	g_cond_init(&s->idle_off);
	for (size_t i = 0; i < n; i++) {
		s->lanes[i].stage = s;
		s->lanes[i].ctx = ctx[i];
	}
	for (size_t i = 0; i < n; i++) {
		s->lanes[i].thread = g_thread_try_new("pcapdoc-lane", lane_main, &s->lanes[i], NULL);
		if (!s->lanes[i].thread) {
			/* Stop the lanes that started (they see an empty ring and
			 * stop without a last call) and run every lane inline. */
			g_mutex_lock(&s->lock);
			s->done = true;
			s->inline_lanes = true;
			g_cond_broadcast(&s->have_data);
			g_mutex_unlock(&s->lock);
			for (size_t j = 0; j < i; j++)
				g_thread_join(s->lanes[j].thread);
			s->done = false;
			break;
		}
	}
	return s;
}

void pd_stage_set_idle(pd_stage *s, pd_stage_idle_fn fn, void *arg)
{
	g_mutex_lock(&s->lock);
	s->idle = fn;
	s->idle_arg = arg;
	while (!fn && s->idle_busy)
		g_cond_wait(&s->idle_off, &s->lock);
	g_mutex_unlock(&s->lock);
}

static void publish(pd_stage *s)
{
	g_mutex_lock(&s->lock);
	s->published = s->pushed;
	bool wake = false;
	for (size_t i = 0; i < s->n; i++)
		wake |= s->lanes[i].sleeping && s->published >= s->lanes[i].want;
	if (wake)
		g_cond_broadcast(&s->have_data);
	g_mutex_unlock(&s->lock);
}

/* Under lock: publishes everything, wakes every lane and sleeps until
 * every lane has handled `want` records. */
static void producer_wait(pd_stage *s, uint64_t want)
{
	s->published = s->pushed;
	s->urgent = true;
	g_cond_broadcast(&s->have_data);
	s->producer_want = want;
	s->producer_waiting = true;
	while (slowest(s) < want)
		g_cond_wait(&s->have_space, &s->lock);
	s->producer_waiting = false;
	s->urgent = false;
}

void *pd_stage_next(pd_stage *s)
{
	if (s->inline_lanes)
		return s->ring;
	if (s->pushed == s->room_until) {
		g_mutex_lock(&s->lock);
		if (s->pushed - slowest(s) >= PD_STAGE_RECORDS)
			producer_wait(s, s->pushed - PD_STAGE_RECORDS + PD_STAGE_ROOM_WAKE);
		s->room_until = slowest(s) + PD_STAGE_RECORDS;
		g_mutex_unlock(&s->lock);
	}
	return s->ring + (s->pushed % PD_STAGE_RECORDS) * s->rec_size;
}

void pd_stage_push(pd_stage *s)
{
	if (s->inline_lanes) {
		for (size_t i = 0; i < s->n; i++)
			s->fn(s->lanes[i].ctx, s->ring);
		s->pushed++;
		return;
	}
	s->pushed++;
	if (s->pushed % PD_STAGE_BATCH == 0)
		publish(s);
}

uint64_t pd_stage_pushed(const pd_stage *s)
{
	return s->pushed;
}

uint64_t pd_stage_wait_handled(pd_stage *s, uint64_t n)
{
	if (s->inline_lanes)
		return s->pushed;
	g_mutex_lock(&s->lock);
	if (slowest(s) < n) {
		/* more than asked for, up to what is published: fewer waits */
		uint64_t want = n + PD_STAGE_ROOM_WAKE;
		producer_wait(s, want < s->pushed ? want : s->pushed);
	}
	uint64_t m = slowest(s);
	g_mutex_unlock(&s->lock);
	return m;
}

void pd_stage_finish(pd_stage *s)
{
	if (s->inline_lanes) {
		for (size_t i = 0; i < s->n; i++)
			s->fn(s->lanes[i].ctx, NULL);
	}
	g_mutex_lock(&s->lock);
	s->published = s->pushed;
	s->done = true;
	g_cond_broadcast(&s->have_data);
	g_mutex_unlock(&s->lock);
	for (size_t i = 0; i < s->n && !s->inline_lanes; i++)
		g_thread_join(s->lanes[i].thread);
	g_mutex_clear(&s->lock);
	g_cond_clear(&s->have_data);
	g_cond_clear(&s->have_space);
	g_cond_clear(&s->idle_off);
	g_free(s->ring);
	g_free(s);
}
