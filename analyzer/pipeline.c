/* Two-thread input pipeline; see pipeline.h.
 *
 * libpcap's buffer is reused by the next read, so each frame is copied
 * once into its slot (slot buffers grow to the largest frame seen and are
 * reused: no allocation per packet). Both sides hand slots over in batches
 * so the lock is taken once per PD_PIPELINE_BATCH frames, not per frame. */
#include "pipeline.h"

#include "run.h"

#include <glib.h>
#include <string.h>

typedef struct pd_slot {
	pd_frame fr;
	pd_packet pkt;
	pd_dissect_status st;
	uint8_t *buf;
	size_t cap;
} pd_slot;

typedef struct pd_pipe {
	pd_reader *reader;
	pd_slot slots[PD_PIPELINE_SLOTS];
	GMutex lock;
	GCond have_data, have_space;
	uint64_t produced; /* published by the reader thread (under lock) */
	uint64_t consumed; /* released by the analysis thread (under lock) */
	bool done;
	_Atomic uint64_t *bytes_read;
} pd_pipe;

static void fill_slot(pd_slot *s, const pd_frame *fr)
{
	if (fr->caplen > s->cap) {
		size_t cap = s->cap ? s->cap : 2048;
		while (cap < fr->caplen)
			cap *= 2;
		s->buf = g_realloc(s->buf, cap);
		s->cap = cap;
	}
	s->fr = *fr;
	if (fr->caplen)
		memcpy(s->buf, fr->data, fr->caplen);
	s->fr.data = s->buf;
	s->st = pd_run_dissect(&s->fr, &s->pkt);
}

static gpointer reader_main(gpointer data)
{
	pd_pipe *p = data;
	uint64_t produced = 0, room_until = 0;
	pd_frame fr;
	while (pd_reader_next(p->reader, &fr)) {
		if (produced == room_until) {
			/* Wait for free slots; publish what is ready first so the
			 * analysis thread is never waiting on a full ring. */
			g_mutex_lock(&p->lock);
			p->produced = produced;
			g_cond_signal(&p->have_data);
			while (produced - p->consumed >= PD_PIPELINE_SLOTS)
				g_cond_wait(&p->have_space, &p->lock);
			room_until = p->consumed + PD_PIPELINE_SLOTS;
			g_mutex_unlock(&p->lock);
		}
		fill_slot(&p->slots[produced % PD_PIPELINE_SLOTS], &fr);
		produced++;
		if (produced % PD_PIPELINE_BATCH == 0) {
			if (p->bytes_read)
				atomic_store_explicit(p->bytes_read, pd_reader_bytes_read(p->reader),
						      memory_order_relaxed);
			g_mutex_lock(&p->lock);
			p->produced = produced;
			g_cond_signal(&p->have_data);
			g_mutex_unlock(&p->lock);
		}
	}
	g_mutex_lock(&p->lock);
	p->produced = produced;
	p->done = true;
	g_cond_signal(&p->have_data);
	g_mutex_unlock(&p->lock);
	return NULL;
}

uint64_t pd_pipeline_drain(pd_reader *r, pd_pipeline_sink sink, void *ctx, _Atomic uint64_t *bytes_read)
{
	pd_pipe *p = g_new0(pd_pipe, 1);
	p->reader = r;
	p->bytes_read = bytes_read;
	g_mutex_init(&p->lock);
	g_cond_init(&p->have_data);
	g_cond_init(&p->have_space);
	uint64_t delivered = 0;
	GError *err = NULL;
	GThread *th = g_thread_try_new("pcapdoc-reader", reader_main, p, &err);
	if (!th) {
		/* No thread: the same work inline, in the same order. */
		g_clear_error(&err);
		pd_frame fr;
		while (pd_reader_next(r, &fr)) {
			pd_slot *s = &p->slots[0];
			fill_slot(s, &fr);
			sink(ctx, &s->fr, &s->pkt, s->st);
			delivered++;
		}
	} else {
		uint64_t consumed = 0;
		for (;;) {
			g_mutex_lock(&p->lock);
			p->consumed = consumed;
			g_cond_signal(&p->have_space);
			while (p->produced == consumed && !p->done)
				g_cond_wait(&p->have_data, &p->lock);
			uint64_t avail = p->produced;
			bool done = p->done;
			g_mutex_unlock(&p->lock);
			if (avail == consumed && done)
				break;
			/* Release slots every batch so the reader keeps going. */
			uint64_t stop = avail;
			if (stop - consumed > PD_PIPELINE_BATCH)
				stop = consumed + PD_PIPELINE_BATCH;
			for (; consumed < stop; consumed++) {
				pd_slot *s = &p->slots[consumed % PD_PIPELINE_SLOTS];
				sink(ctx, &s->fr, &s->pkt, s->st);
			}
		}
		g_thread_join(th);
		delivered = consumed;
	}
	for (size_t i = 0; i < PD_PIPELINE_SLOTS; i++)
		g_free(p->slots[i].buf);
	g_mutex_clear(&p->lock);
	g_cond_clear(&p->have_data);
	g_cond_clear(&p->have_space);
	g_free(p);
	return delivered;
}
