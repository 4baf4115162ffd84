/* The producer/lanes ring; see pipeline.h. */
#include "pipeline.h"

#include <glib.h>
#include <string.h>

typedef struct pd_lane {
	pd_stage *stage;
	void *ctx;
	uint64_t handled; /* records this lane is done with (under lock) */
	GThread *thread;
} pd_lane;

struct pd_stage {
	uint8_t *ring;
	size_t rec_size;
	pd_stage_fn fn;
	GMutex lock;
	GCond have_data, have_space;
	uint64_t pushed; /* producer's count (producer thread only) */
	uint64_t published; /* visible to the lanes (under lock) */
	uint64_t room_until; /* producer may fill up to here without asking */
	bool done;
	bool inline_lanes; /* no threads: each record goes through every lane at once */
	size_t n;
	pd_lane lanes[PD_STAGE_MAX_LANES];
};

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
	uint64_t handled = 0;
	for (;;) {
		g_mutex_lock(&s->lock);
		l->handled = handled;
		g_cond_signal(&s->have_space);
		while (s->published == handled && !s->done)
			g_cond_wait(&s->have_data, &s->lock);
		uint64_t avail = s->published;
		bool done = s->done;
		g_mutex_unlock(&s->lock);
		if (avail == handled && done)
			break;
		/* Hand records back every batch so the producer keeps going. */
		uint64_t stop = avail;
		if (stop - handled > PD_STAGE_BATCH)
			stop = handled + PD_STAGE_BATCH;
		for (; handled < stop; handled++)
			s->fn(l->ctx, s->ring + (handled % PD_STAGE_RECORDS) * s->rec_size);
	}
	if (!s->inline_lanes)
		s->fn(l->ctx, NULL);
	return NULL;
}

pd_stage *pd_stage_start(size_t rec_size, size_t n, pd_stage_fn fn, void *const *ctx)
{
	if (n < 1 || n > PD_STAGE_MAX_LANES)
		return NULL;
	pd_stage *s = g_new0(pd_stage, 1);
	s->rec_size = (rec_size + 63) & ~(size_t)63; /* no two records share a cache line */
	s->ring = g_malloc0(s->rec_size * PD_STAGE_RECORDS);
	s->fn = fn;
	s->n = n;
	s->room_until = PD_STAGE_RECORDS;
	g_mutex_init(&s->lock);
	g_cond_init(&s->have_data);
	g_cond_init(&s->have_space);
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

static void publish(pd_stage *s)
{
	g_mutex_lock(&s->lock);
	s->published = s->pushed;
	g_cond_broadcast(&s->have_data);
	g_mutex_unlock(&s->lock);
}

void *pd_stage_next(pd_stage *s)
{
	if (s->inline_lanes)
		return s->ring;
	if (s->pushed == s->room_until) {
		/* Publish first: a lane may be waiting for exactly these. */
		g_mutex_lock(&s->lock);
		s->published = s->pushed;
		g_cond_broadcast(&s->have_data);
		while (s->pushed - slowest(s) >= PD_STAGE_RECORDS)
			g_cond_wait(&s->have_space, &s->lock);
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
		s->published = s->pushed;
		g_cond_broadcast(&s->have_data);
		while (slowest(s) < n)
			g_cond_wait(&s->have_space, &s->lock);
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
	g_free(s->ring);
	g_free(s);
}
