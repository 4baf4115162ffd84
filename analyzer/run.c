/* One analysis run: the loop and the order of calls (see engine.h for the
 * parts). With one thread everything happens here, frame by frame. With N
 * workers, this thread reads, counts and routes; the workers, each on a
 * thread of its own, own their shards; and a collector thread takes the
 * flows that ended, epoch by epoch, in capture order. */
#include "run.h"

#include <malloc.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "dissect/dissect.h"
#include "engine.h"
#include "heuristics/memacct.h"
#include "summary.h"
#include "host_stage.h"

/* Frames per epoch: the unit in which frames go to the workers and ended
 * flows come back. Epochs in flight bound the memory the threads hold. */
#define EPOCH_FRAMES 2048
#define EPOCH_BYTES (2u << 20)
#define EPOCHS_IN_FLIGHT 4

enum { MSG_PACKET, MSG_TICK, MSG_END };

/* --stats: what the process holds, by part, at one moment. */
typedef struct mem_sample {
	uint64_t rss, rss_file; /* resident, and of it file-backed (code, libraries) */
	uint64_t heap_used, heap_free; /* mallinfo2: in use, in free chunks */
	uint64_t flows; /* the workers' live flows, as they count them */
	uint64_t pieces, pieces_allocated; /* the reader's pieces: resident, as allocated */
	int64_t part[PD_MEM_PARTS];
} mem_sample;

/* One message to a worker, followed by the frame's bytes for a packet. */
typedef struct msg {
	uint8_t kind;
	bool dup;
	bool in_place; /* the packet points into the reader's buffer, not a copy */
	uint32_t datalen; /* bytes after the header (8-aligned) */
	uint64_t pos, seq;
	pd_time now;
	pd_route route;
	/* points where the frame was read; the worker moves its pointers to
	 * the copy that follows (the batch may move as it grows) */
	const uint8_t *orig;
	pd_packet pkt;
} msg;

/* An epoch's messages for one worker, and what it sends back. */
typedef struct batch {
	uint8_t *buf;
	size_t len, cap;
	pd_flow_slot *ended; /* the flows that ended, in capture order */
} batch;

typedef struct worker_thread {
	pd_worker *w;
	GThread *thread;
	GAsyncQueue *in, *out; /* batches; NULL batch in `in`: stop */
	batch *cur; /* the batch the run is filling */
	double cpu_s; /* the thread's CPU time, once it stopped (--stats) */
} worker_thread;

struct pd_run {
	pd_run_opts opts;
	pd_engine_cfg cfg;
	pd_report *report;
	pd_capture_facts facts;
	pd_summary *summary;
	pd_router *router;
	pd_collector *collector;
	pd_reader *reader;
	uint32_t n_workers;
	pd_worker **workers;
	worker_thread *wt; /* n_workers >= 2 */
	bool started;
	bool finished;
	bool have_ts;
	pd_time next_tick, last_ts;
	uint64_t epoch_frames;
	size_t epoch_bytes;
	uint64_t epochs_sent, epochs_done;
	/* Frames left in the reader's buffers (one plain pcap file, workers):
	 * a batch points into them instead of copying each frame, and the
	 * reader reuses a buffer once every epoch with frames in it is
	 * collected. last_frame: each epoch in flight's last frame read. */
	bool frames_in_place;
	pd_frame last_frame[EPOCHS_IN_FLIGHT];
	pd_frame epoch_last; /* the epoch being filled */
	uint64_t seq; /* packets delivered so far */
	GQueue spare; /* batches to reuse */
	/* With workers, ended flows are collected on a thread of their own,
	 * epoch after epoch in order: one token per epoch sent goes into
	 * collect_q (STOP_TOKEN ends it), one per epoch collected comes back
	 * in done_q, and its batches in spare_q. */
	GThread *collector_thread;
	GAsyncQueue *collect_q, *done_q, *spare_q;
	/* CPU time of the reading thread up to the workers' stop (set-up,
	 * reading, counting, routing; with one thread, everything but the end
	 * passes) and of the collector (--stats) */
	double reader_cpu_s, collector_cpu_s;
	/* The reader the collector reads ahead in between epochs (plain pcap
	 * files): the pread copies leave the reading thread. NULL once the
	 * reader closes; under ahead_lock. */
	GMutex ahead_lock;
	pd_reader *ahead;
	/* --stats' memory: at the start of the run, and the last sample taken
	 * when peak RSS had grown by 1/32 since the one before (by the collector's
	 * thread with workers, this one without) */
	mem_sample mem_start, mem_peak;
	uint64_t mem_next_rss;
	uint64_t mem_frames;
	/* progress */
	gint64 progress_next, progress_start;
	uint64_t progress_k;
};

void pd_run_opts_default(pd_run_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->threads = 1;
	o->max_flows = 100000;
	o->max_flow_rows = 100000;
}

/* -------------------------------------------------------------- batches */

#define EPOCH_TOKEN GINT_TO_POINTER(1)
#define STOP_TOKEN GINT_TO_POINTER(2)

static batch *batch_get(pd_run *run)
{
	batch *b = run->spare_q ? g_async_queue_try_pop(run->spare_q) : g_queue_pop_head(&run->spare);
	if (!b) {
		b = g_new0(batch, 1);
		b->cap = 16 << 10; /* grows with the epoch: a small capture sends little */
		b->buf = g_malloc(b->cap);
		pd_mem_count(PD_MEM_EPOCHS, (int64_t)pd_mem_size(b->buf));
	}
	b->len = 0;
	b->ended = NULL;
	return b;
}

static msg *batch_add(batch *b, size_t datalen)
{
	size_t need = sizeof(msg) + ((datalen + 7) & ~(size_t)7);
	if (b->len + need > b->cap) {
		while (b->len + need > b->cap)
			b->cap *= 2;
		pd_mem_count(PD_MEM_EPOCHS, -(int64_t)pd_mem_size(b->buf));
		b->buf = g_realloc(b->buf, b->cap);
		pd_mem_count(PD_MEM_EPOCHS, (int64_t)pd_mem_size(b->buf));
	}
	msg *m = (msg *)(b->buf + b->len);
	memset(m, 0, offsetof(msg, orig));
	m->datalen = (uint32_t)((datalen + 7) & ~(size_t)7);
	b->len += need;
	return m;
}

static void batch_free(batch *b)
{
	if (!b)
		return;
	pd_mem_count(PD_MEM_EPOCHS, -(int64_t)pd_mem_size(b->buf));
	g_free(b->buf);
	g_free(b);
}

/* The calling thread's CPU time so far, in seconds. */
static double thread_cpu_s(void)
{
	struct timespec ts;
	if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) != 0)
		return 0;
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* ----------------------------------------------------- memory (--stats) */

static uint64_t peak_rss(void)
{
	struct rusage ru;
	return getrusage(RUSAGE_SELF, &ru) == 0 ? (uint64_t)ru.ru_maxrss * 1024 : 0;
}

static void mem_take(const pd_run *run, const pd_reader *reader, mem_sample *m)
{
	memset(m, 0, sizeof(*m));
	unsigned long pages = 0, resident = 0, file = 0;
	FILE *f = fopen("/proc/self/statm", "r");
	if (f) {
		if (fscanf(f, "%lu %lu %lu", &pages, &resident, &file) != 3)
			resident = file = 0;
		fclose(f);
	}
	uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE);
	m->rss = resident * page;
	m->rss_file = file * page;
	struct mallinfo2 mi = mallinfo2();
	/* chunks malloc mapped on their own (the reader's pieces, big tables)
	 * are in use too, though not in uordblks */
	m->heap_used = mi.uordblks + mi.hblkhd;
	/* less the main heap's top: pages past its last chunk, mostly never
	 * touched (the other heaps grow their tops a page at a time) */
	m->heap_free = mi.fordblks > mi.keepcost ? mi.fordblks - mi.keepcost : 0;
	for (uint32_t i = 0; run->workers && i < run->n_workers; i++)
		m->flows += pd_worker_flow_bytes(run->workers[i]);
	m->pieces = pd_reader_piece_bytes(reader, &m->pieces_allocated);
	pd_mem_totals(m->part);
}

/* A sample when peak RSS grew by 1/32 since the last, while frames are
 * read: the last one taken is within that of the peak unless the end of
 * the capture (every live flow ending at once) grows it further. Each
 * costs about 0.2 ms (mallinfo2 walks malloc's free lists): 1/64 took 1.5 %
 * of fe10k's CPU. */
static void mem_sample_if_grown(pd_run *run, const pd_reader *reader)
{
	if (!run->opts.stats)
		return;
	uint64_t rss = peak_rss();
	if (rss < run->mem_next_rss)
		return;
	run->mem_next_rss = rss + rss / 32;
	mem_take(run, reader, &run->mem_peak);
}

/* The worker's thread: each batch's messages in order, then the flows that
 * ended go back with it. */
static gpointer worker_main(gpointer arg)
{
	worker_thread *t = arg;
	for (;;) {
		batch *b = g_async_queue_pop(t->in);
		if (b == (batch *)t) /* the stop sign */
			break;
		for (size_t off = 0; off < b->len;) {
			msg *m = (msg *)(b->buf + off);
			switch (m->kind) {
			case MSG_PACKET:
				if (!m->in_place)
					pd_packet_rebase(&m->pkt, m->orig, (const uint8_t *)(m + 1));
				pd_worker_packet(t->w, m->pos, m->seq, &m->pkt, &m->route, m->dup);
				break;
			case MSG_TICK:
				pd_worker_tick(t->w, m->pos, m->now);
				break;
			case MSG_END:
				pd_worker_end(t->w, m->now);
				break;
			}
			off += sizeof(msg) + m->datalen;
		}
		b->ended = pd_worker_take_ended(t->w);
		g_async_queue_push(t->out, b);
	}
	t->cpu_s = thread_cpu_s();
	return NULL;
}

/* ------------------------------------------------------------------ life */

pd_run *pd_run_new(const pd_run_opts *opts)
{
	static gsize checked;
	if (g_once_init_enter(&checked)) {
		pd_detectors_check();
		g_once_init_leave(&checked, 1);
	}
	pd_run *run = g_new0(pd_run, 1);
	run->opts = *opts;
	if (run->opts.max_flows < 16)
		run->opts.max_flows = 16;
	run->report = pd_report_new();
	pd_engine_cfg_init(&run->cfg, run->opts.max_flows, run->opts.no_detectors, run->opts.no_ndpi,
			   run->opts.detectors);
	run->cfg.pack_idle = run->opts.no_pack ? 0 : PD_PACK_IDLE_NS;
	run->summary = pd_summary_new(&run->report->cap, &run->facts);
	run->router = pd_router_new(run->cfg.n_shards);
	run->n_workers = run->opts.threads ? run->opts.threads : 1;
	run->n_workers = run->n_workers > 1 ? run->n_workers : 1;
	if (run->n_workers > run->cfg.n_shards)
		run->n_workers = run->cfg.n_shards;
	g_queue_init(&run->spare);
	g_mutex_init(&run->ahead_lock);
	if (run->opts.stats) {
		mem_take(run, NULL, &run->mem_start);
		run->mem_next_rss = peak_rss();
	}
	return run;
}

static gpointer collector_main(gpointer arg);

/* Workers and collector start at the first frame: the capture's start and
 * snap length are facts their hooks may read. */
static void start_engine(pd_run *run, pd_time start)
{
	run->started = true;
	run->cfg.start = start;
	run->cfg.snaplen = run->report->cap.snaplen;
	run->collector = pd_collector_new(&run->cfg, run->opts.want_flow_rows, run->opts.max_flow_rows);
	run->workers = g_new0(pd_worker *, run->n_workers);
	for (uint32_t i = 0; i < run->n_workers; i++)
		run->workers[i] = pd_worker_new(&run->cfg, i, run->n_workers);
	if (run->n_workers < 2)
		return;
	run->wt = g_new0(worker_thread, run->n_workers);
	run->collect_q = g_async_queue_new();
	run->done_q = g_async_queue_new();
	run->spare_q = g_async_queue_new();
	for (uint32_t i = 0; i < run->n_workers; i++) {
		worker_thread *t = &run->wt[i];
		t->w = run->workers[i];
		t->in = g_async_queue_new();
		t->out = g_async_queue_new();
		t->cur = batch_get(run);
		char name[32];
		snprintf(name, sizeof(name), "pd-worker-%u", i);
		t->thread = g_thread_new(name, worker_main, t);
	}
	run->collector_thread = g_thread_new("pd-collector", collector_main, run);
}

void pd_run_free(pd_run *run)
{
	if (!run)
		return;
	if (!run->finished) {
		pd_report *r = pd_run_finish(run);
		pd_report_free(r);
	}
	pd_reader_close(run->reader);
	if (run->workers)
		for (uint32_t i = 0; i < run->n_workers; i++)
			pd_worker_free(run->workers[i]);
	g_free(run->workers);
	g_free(run->wt);
	batch *b;
	while ((b = g_queue_pop_head(&run->spare)))
		batch_free(b);
	if (run->spare_q) {
		while ((b = g_async_queue_try_pop(run->spare_q)))
			batch_free(b);
		g_async_queue_unref(run->spare_q);
		g_async_queue_unref(run->collect_q);
		g_async_queue_unref(run->done_q);
	}
	pd_collector_free(run->collector);
	pd_router_free(run->router);
	pd_summary_free(run->summary);
	pd_engine_cfg_clear(&run->cfg);
	pd_report_free(run->report);
	g_mutex_clear(&run->ahead_lock);
	g_free(run);
}

/* ------------------------------------------------------------ collecting */

/* The collector takes an ended flow; then its slot goes back to its worker. */
static void collect_one(pd_run *run, pd_flow_slot *s)
{
	size_t held = pd_slot_held_bytes(&run->cfg, s); /* it frees the packed bytes */
	pd_collector_flow(run->collector, s);
	pd_mem_count(PD_MEM_FLOWS_IDLE, (int64_t)pd_slot_held_bytes(&run->cfg, s) - (int64_t)held);
	pd_worker_recycle(run->workers[pd_slot_worker(&run->cfg, s, run->n_workers)], s);
}

static void collect_list(pd_run *run, pd_flow_slot *s)
{
	while (s) {
		pd_flow_slot *next = s->end_next;
		collect_one(run, s);
		s = next;
	}
}

/* The oldest epoch in flight: waits for every worker's batch of it, then
 * hands their ended flows to the collector merged in capture order. */
static void collect_epoch(pd_run *run)
{
	uint32_t n = run->n_workers;
	batch **bs = g_newa(batch *, n);
	for (uint32_t i = 0; i < n; i++)
		bs[i] = g_async_queue_pop(run->wt[i].out);
	for (;;) {
		uint32_t best = n;
		for (uint32_t i = 0; i < n; i++)
			if (bs[i]->ended && (best == n || pd_ended_before(bs[i]->ended, bs[best]->ended)))
				best = i;
		if (best == n)
			break;
		pd_flow_slot *s = bs[best]->ended;
		bs[best]->ended = s->end_next;
		collect_one(run, s);
	}
	for (uint32_t i = 0; i < n; i++)
		g_async_queue_push(run->spare_q, bs[i]);
}

/* The collector's thread: the epochs in the order they were sent. */
static gpointer collector_main(gpointer arg)
{
	pd_run *run = arg;
	for (;;) {
		gpointer token = g_async_queue_pop(run->collect_q);
		if (token == STOP_TOKEN)
			break;
		collect_epoch(run);
		g_async_queue_push(run->done_q, token);
		g_mutex_lock(&run->ahead_lock);
		if (run->ahead) /* while reading: the reader stays open while it is ahead */
			mem_sample_if_grown(run, run->ahead);
		/* two pieces (512 KiB) of an epoch's 2 MiB at most: the
		 * reading thread reads the rest itself and parses it while it is
		 * still in its cache (reading all of it ahead was no faster) */
		for (int k = 0; run->ahead && k < 2 && pd_reader_read_ahead(run->ahead); k++)
			;
		g_mutex_unlock(&run->ahead_lock);
	}
	run->collector_cpu_s = thread_cpu_s();
	return NULL;
}

/* Waits until the collector has taken one more epoch. */
static void wait_collected(pd_run *run)
{
	g_async_queue_pop(run->done_q);
	if (run->frames_in_place) {
		const pd_frame *fr = &run->last_frame[run->epochs_done % EPOCHS_IN_FLIGHT];
		if (fr->data)
			pd_reader_frame_done(run->reader, fr);
	}
	run->epochs_done++;
}

static void send_epoch(pd_run *run)
{
	for (uint32_t i = 0; i < run->n_workers; i++) {
		worker_thread *t = &run->wt[i];
		g_async_queue_push(t->in, t->cur);
		t->cur = NULL;
	}
	run->last_frame[run->epochs_sent % EPOCHS_IN_FLIGHT] = run->epoch_last;
	run->epoch_last.data = NULL;
	run->epochs_sent++;
	g_async_queue_push(run->collect_q, EPOCH_TOKEN);
	run->epoch_frames = 0;
	run->epoch_bytes = 0;
	while (run->epochs_sent - run->epochs_done >= EPOCHS_IN_FLIGHT)
		wait_collected(run);
	for (uint32_t i = 0; i < run->n_workers; i++)
		run->wt[i].cur = batch_get(run);
}

/* ------------------------------------------------------------- delivery */

static uint32_t worker_of(const pd_run *run, const pd_route *rt)
{
	return rt->shard % run->n_workers;
}

/* in_place: data is the frame as read (not a held fragment's copy) */
static void deliver_packet(pd_run *run, uint64_t pos, const pd_packet *pkt, const uint8_t *data,
			   const pd_route *rt, bool dup, bool in_place)
{
	uint32_t wi = worker_of(run, rt);
	uint64_t seq = run->seq++;
	if (!run->wt) {
		pd_worker_packet(run->workers[wi], pos, seq, pkt, rt, dup);
		collect_list(run, pd_worker_take_ended(run->workers[wi]));
		return;
	}
	batch *b = run->wt[wi].cur;
	in_place = in_place && run->frames_in_place;
	msg *m = batch_add(b, in_place ? 0 : pkt->caplen);
	m->kind = MSG_PACKET;
	m->dup = dup;
	m->in_place = in_place;
	m->pos = pos;
	m->seq = seq;
	m->route = *rt;
	m->orig = data;
	m->pkt = *pkt;
	if (!in_place)
		memcpy(m + 1, data, pkt->caplen);
	run->epoch_bytes += sizeof(msg) + pkt->caplen;
}

static void deliver_all(pd_run *run, int kind, uint64_t pos, pd_time now)
{
	if (!run->wt) { /* one worker, this thread */
		if (kind == MSG_TICK)
			pd_worker_tick(run->workers[0], pos, now);
		else
			pd_worker_end(run->workers[0], now);
		collect_list(run, pd_worker_take_ended(run->workers[0]));
		return;
	}
	for (uint32_t i = 0; i < run->n_workers; i++) {
		msg *m = batch_add(run->wt[i].cur, 0);
		m->kind = (uint8_t)kind;
		m->pos = pos;
		m->now = now;
	}
}

static void deliver_held(pd_run *run, uint64_t pos)
{
	pd_held *h = pd_router_take(run->router);
	for (pd_held *x = h; x; x = x->next)
		deliver_packet(run, pos, &x->pkt, x->data, &x->route, false, false);
	pd_held_free(h);
}

/* ---------------------------------------------------------------- frames */

static void run_frame(pd_run *run, const pd_frame *fr)
{
	pd_packet pkt;
	pd_dissect_status st = pd_frame_dissect(fr, &pkt);
	if (!run->started)
		start_engine(run, fr->ts);
	bool dup = pd_summary_frame(run->summary, fr, &pkt, st);
	run->last_ts = run->report->cap.last_ts;
	if (!pkt.is_ip)
		return;
	uint64_t pos = fr->frame_no;
	if (!run->have_ts) {
		run->next_tick = fr->ts + PD_TICK_NS;
		run->have_ts = true;
	} else if (fr->ts > run->next_tick) {
		deliver_all(run, MSG_TICK, pos, fr->ts);
		pd_router_expire(run->router, fr->ts);
		deliver_held(run, pos);
		run->next_tick = fr->ts + PD_TICK_NS;
	}
	pd_route rt;
	if (pd_router_route(run->router, &pkt, fr->data, &rt) == PD_ROUTED) {
		deliver_packet(run, pos, &pkt, fr->data, &rt, dup, true);
		deliver_held(run, pos); /* a first fragment frees its datagram's others */
	}
	if (run->frames_in_place)
		run->epoch_last = *fr;
	if (run->wt && (++run->epoch_frames >= EPOCH_FRAMES || run->epoch_bytes >= EPOCH_BYTES))
		send_epoch(run);
	else if (!run->wt && (++run->mem_frames & (EPOCH_FRAMES - 1)) == 0)
		mem_sample_if_grown(run, run->reader);
}

void pd_run_frame(pd_run *run, uint32_t snaplen, const pd_frame *fr)
{
	if (!run->started)
		run->report->cap.snaplen = snaplen;
	run_frame(run, fr);
}

static void progress_update(pd_run *run, bool final)
{
	gint64 now = g_get_monotonic_time();
	if (!final && now < run->progress_next)
		return;
	run->progress_next = now + 250000;
	if (final) {
		fprintf(stderr, "\r\033[K");
		return;
	}
	uint64_t done = pd_reader_bytes_read(run->reader);
	uint64_t total = pd_reader_total_bytes(run->reader);
	double secs = (double)(now - run->progress_start) / 1e6;
	double pps = secs > 0 ? (double)run->report->cap.packets / secs : 0;
	if (total > 0 && done <= total && done > 0) {
		double eta = secs * (double)(total - done) / (double)done;
		fprintf(stderr, "\r\033[Kpcapdoc: %.0f of %.0f MB (%.0f%%), %.0f packets/s, ETA %.0f s",
			(double)done / 1e6, (double)total / 1e6, 100.0 * (double)done / (double)total, pps, eta);
	} else {
		fprintf(stderr, "\r\033[Kpcapdoc: %.0f MB, %.0f packets/s", (double)done / 1e6, pps);
	}
	fflush(stderr);
}

pd_run_status pd_run_files(pd_run *run, const char *const *paths, size_t n)
{
	pd_capture_summary *cap = &run->report->cap;
	for (size_t i = 0; i < n; i++)
		g_ptr_array_add(cap->files, g_strdup(paths[i]));
	GError *err = NULL;
	run->reader = pd_reader_open(paths, n, run->opts.filter, &err);
	if (!run->reader) {
		g_ptr_array_add(cap->errors, g_strdup(err ? err->message : "cannot read input"));
		g_clear_error(&err);
		return PD_RUN_NONE_READ;
	}
	cap->snaplen = pd_reader_snaplen(run->reader);
	if (run->n_workers > 1 && n == 1 && pd_reader_frames_stable(run->reader)) {
		pd_reader_hold_frames(run->reader);
		run->frames_in_place = true;
	}
	if (run->n_workers > 1 && pd_reader_frames_stable(run->reader)) {
		pd_reader_allow_read_ahead(run->reader);
		g_mutex_lock(&run->ahead_lock);
		run->ahead = run->reader;
		g_mutex_unlock(&run->ahead_lock);
	}
	run->progress_start = g_get_monotonic_time();
	run->progress_next = run->progress_start + 500000;
	pd_frame fr;
	while (pd_reader_next(run->reader, &fr)) {
		run_frame(run, &fr);
		if (run->opts.progress && (++run->progress_k & 0xfff) == 0)
			progress_update(run, false);
	}
	if (run->opts.progress)
		progress_update(run, true);

	const GPtrArray *errs = pd_reader_errors(run->reader);
	for (guint i = 0; i < errs->len; i++)
		g_ptr_array_add(cap->errors, g_strdup(g_ptr_array_index(errs, i)));
	cap->input_truncated = pd_reader_truncated(run->reader);
	if (run->frames_in_place && run->wt) {
		/* the workers finish with the reader's buffers before it goes */
		send_epoch(run);
		while (run->epochs_done < run->epochs_sent)
			wait_collected(run);
	}
	run->frames_in_place = false;
	g_mutex_lock(&run->ahead_lock);
	run->ahead = NULL;
	/* and once more at the end of the reading: a capture shorter than a
	 * sample's stride (an empty one, the benchmark's base) has one then */
	mem_sample_if_grown(run, run->reader);
	g_mutex_unlock(&run->ahead_lock);
	pd_run_status st = PD_RUN_OK;
	if (pd_reader_any_failed(run->reader))
		st = PD_RUN_SOME_FAILED;
	else if (cap->input_truncated)
		st = PD_RUN_TRUNCATED;
	if (cap->input_truncated)
		pd_capture_note(cap,
				"input ends mid-record after frame %" G_GUINT64_FORMAT
				": the findings cover what was read",
				"输入在第 %" G_GUINT64_FORMAT " 帧之后的一条记录中途结束：诊断只涵盖已读到的部分",
				pd_reader_frames_seen(run->reader));
	pd_reader_close(run->reader);
	run->reader = NULL;
	return st;
}

/* ------------------------------------------------------------------ end */

static void stop_workers(pd_run *run)
{
	if (!run->started)
		return;
	/* fragments still held: their datagrams never completed */
	pd_router_flush(run->router);
	deliver_held(run, UINT64_MAX - 1);
	deliver_all(run, MSG_END, UINT64_MAX, run->last_ts);
	if (!run->wt)
		return;
	send_epoch(run);
	g_async_queue_push(run->collect_q, STOP_TOKEN);
	g_thread_join(run->collector_thread);
	run->collector_thread = NULL;
	while (run->epochs_done < run->epochs_sent)
		wait_collected(run);
	for (uint32_t i = 0; i < run->n_workers; i++) {
		worker_thread *t = &run->wt[i];
		g_async_queue_push(t->in, t); /* stop */
		g_thread_join(t->thread);
		g_async_queue_unref(t->in);
		g_async_queue_unref(t->out);
		batch_free(t->cur);
		t->cur = NULL;
	}
}

/* A note built piece by piece in both languages. */
typedef struct note2 {
	GString *en, *zh;
} note2;

static note2 note2_new(void)
{
	return (note2){g_string_new(NULL), g_string_new(NULL)};
}

/* "37 %", "0.4 %": the share of the capture's packets. */
static void append_share(note2 *b, uint64_t n, uint64_t of)
{
	double pct = of ? 100.0 * (double)n / (double)of : 0.0;
	char s[32];
	if (pct >= 1.0 || pct == 0.0)
		g_snprintf(s, sizeof s, "%.0f %%", pct);
	else if (pct >= 0.1)
		g_snprintf(s, sizeof s, "%.1f %%", pct);
	else
		g_snprintf(s, sizeof s, "< 0.1 %%");
	g_string_append(b->en, s);
	g_string_append(b->zh, s);
}

static void both(note2 *b, const char *en, const char *zh)
{
	g_string_append(b->en, en);
	g_string_append(b->zh, zh);
}

static char *note_decapsulated(const pd_coverage *cv, uint64_t packets, char **zh)
{
	note2 b = note2_new();
	g_string_append_printf(b.en, "%" G_GUINT64_FORMAT " packets (", cv->decap);
	g_string_append_printf(b.zh, "%" G_GUINT64_FORMAT " 个包（", cv->decap);
	append_share(&b, cv->decap, packets);
	both(&b, ") were taken out of tunnels and analysed as the packets inside:",
	     "）从隧道中取出，按内层包分析：");
	bool first = true;
	for (int k = 1; k < PD_TUN__COUNT; k++) {
		if (!cv->decap_kind[k])
			continue;
		char a[PD_ADDR_STRLEN], z[PD_ADDR_STRLEN];
		pd_addr_str(&cv->decap_src[k], a, sizeof a);
		pd_addr_str(&cv->decap_dst[k], z, sizeof z);
		g_string_append_printf(b.en, "%s%" G_GUINT64_FORMAT " from %s (outer %s <-> %s%s)",
				       first ? " " : ", ", cv->decap_kind[k], pd_tunnel_name((pd_tunnel)k), a, z,
				       cv->decap_more_pairs[k] ? " and others" : "");
		g_string_append_printf(b.zh, "%s%" G_GUINT64_FORMAT " 个来自 %s（外层 %s <-> %s%s）",
				       first ? "" : "，", cv->decap_kind[k], pd_tunnel_name((pd_tunnel)k), a, z,
				       cv->decap_more_pairs[k] ? " 等" : "");
		first = false;
	}
	*zh = g_string_free(b.zh, FALSE);
	return g_string_free(b.en, FALSE);
}

static const char *ip_proto_name(unsigned p)
{
	switch (p) {
	case 0: return "IPv6 hop-by-hop";
	case 2: return "IGMP";
	case 4: return "IP-in-IP";
	case 6: return "TCP";
	case 17: return "UDP";
	case 33: return "DCCP";
	case 41: return "IPv6-in-IP";
	case 46: return "RSVP";
	case 47: return "GRE";
	case 50: return "ESP (IPsec)";
	case 51: return "AH (IPsec)";
	case 59: return "IPv6 no next header";
	case 88: return "EIGRP";
	case 89: return "OSPF";
	case 97: return "EtherIP";
	case 103: return "PIM";
	case 112: return "VRRP";
	case 115: return "L2TPv3";
	case 132: return "SCTP";
	case 136: return "UDP-Lite";
	default: return NULL;
	}
}

static const char *gre_payload_name(uint16_t type)
{
	switch (type) {
	case 0x880B: return "PPP";
	case 0x8847: case 0x8848: return "MPLS";
	case 0x883E: return "WCCP";
	case 0x894F: return "NSH";
	case 0x6559: return "Frame Relay";
	default: return NULL;
	}
}

static void append_unopened(note2 *b, const pd_coverage_tunnel *t)
{
	const char *kind = pd_tunnel_name((pd_tunnel)t->kind);
	g_string_append_printf(b->en, "%" G_GUINT64_FORMAT " ", t->packets);
	g_string_append_printf(b->zh, "%" G_GUINT64_FORMAT " 个", t->packets);
	switch (t->why) {
	case PD_TSTOP_CUT:
		g_string_append_printf(b->en, "%s with the inner packet cut by the snaplen", kind);
		g_string_append_printf(b->zh, "内层包被 snaplen 截断的 %s 包", kind);
		break;
	case PD_TSTOP_BROKEN:
		g_string_append_printf(b->en, "%s with a tunnel or inner header that lies", kind);
		g_string_append_printf(b->zh, "隧道头或内层头不自洽的 %s 包", kind);
		break;
	case PD_TSTOP_FRAGMENT:
		g_string_append_printf(b->en, "%s fragments (not reassembled, so not opened)", kind);
		g_string_append_printf(b->zh, "%s 分片（未重组，因此未打开）", kind);
		break;
	case PD_TSTOP_DEPTH:
		g_string_append_printf(b->en, "%s nested more than %d tunnels deep", kind, PD_MAX_TUNNEL_DEPTH);
		g_string_append_printf(b->zh, "嵌套超过 %d 层隧道的 %s 包", PD_MAX_TUNNEL_DEPTH, kind);
		break;
	default:
		if (t->kind == PD_TUN_ARUBA) {
			g_string_append_printf(b->en, "%s with protected (encrypted) 802.11 frames", kind);
			g_string_append_printf(b->zh, "承载受保护（加密）802.11 帧的 %s 包", kind);
		} else if (t->kind == PD_TUN_PPTP) {
			g_string_append(b->en, kind);
			g_string_append_printf(b->zh, "%s 包", kind);
		} else if (t->kind == PD_TUN_GRE) {
			const char *n = gre_payload_name(t->type);
			g_string_append_printf(b->en, "GRE carrying protocol 0x%04x%s%s%s", t->type,
					       n ? " (" : "", n ? n : "", n ? ")" : "");
			g_string_append_printf(b->zh, "承载协议 0x%04x%s%s%s 的 GRE 包", t->type,
					       n ? "（" : "", n ? n : "", n ? "）" : "");
		} else {
			g_string_append_printf(b->en, "%s of a version or frame type pcapdoc does not open",
					       kind);
			g_string_append_printf(b->zh, "版本或帧类型 pcapdoc 不能打开的 %s 包", kind);
		}
		break;
	}
}

/* What was read but not analysed, with its share, so that a report with
 * no findings never stands for packets pcapdoc did not look into. */
static char *note_unread(const pd_coverage *cv, uint64_t packets, char **zh)
{
	note2 b = note2_new();
	g_string_append_printf(b.en, "%" G_GUINT64_FORMAT " of %" G_GUINT64_FORMAT " packets (", cv->unread,
			       packets);
	g_string_append_printf(b.zh, "%" G_GUINT64_FORMAT " 个包（共 %" G_GUINT64_FORMAT " 个，", cv->unread,
			       packets);
	append_share(&b, cv->unread, packets);
	both(&b, ") were counted, not analysed:", "）只计数、未分析：");
	bool first = true;
#define SEP() (both(&b, first ? " " : ", ", first ? "" : "，"), first = false)
	for (unsigned p = 0; p < 256; p++) {
		if (!cv->proto[p])
			continue;
		SEP();
		const char *n = ip_proto_name(p);
		if (n) {
			g_string_append_printf(b.en, "%" G_GUINT64_FORMAT " %s", cv->proto[p], n);
			g_string_append_printf(b.zh, "%" G_GUINT64_FORMAT " 个 %s 包", cv->proto[p], n);
		} else {
			g_string_append_printf(b.en, "%" G_GUINT64_FORMAT " IP protocol %u", cv->proto[p], p);
			g_string_append_printf(b.zh, "%" G_GUINT64_FORMAT " 个 IP 协议 %u 的包", cv->proto[p], p);
		}
	}
	for (uint8_t i = 0; i < cv->n_tunnels; i++) {
		SEP();
		append_unopened(&b, &cv->tunnels[i]);
	}
	if (cv->tunnels_other) {
		SEP();
		g_string_append_printf(b.en, "%" G_GUINT64_FORMAT " in other tunnels not opened", cv->tunnels_other);
		g_string_append_printf(b.zh, "%" G_GUINT64_FORMAT " 个在其他未打开的隧道中", cv->tunnels_other);
	}
	const struct {
		uint64_t n;
		const char *en, *zh;
	} rest[] = {
		{cv->not_ip, "without IP (ARP, LLDP, ...)", "不含 IP（ARP、LLDP 等）"},
		{cv->no_link, "with a link type pcapdoc does not decode (see link types)",
		 "链路类型 pcapdoc 不能解码（见链路类型）"},
		{cv->ip_cut, "with the IP header cut by the snaplen", "IP 头被 snaplen 截断"},
		{cv->l4_cut, "with the TCP, UDP or ICMP header cut by the snaplen", "TCP、UDP 或 ICMP 头被 snaplen 截断"},
		{cv->malformed, "with headers that lie (see malformed)", "头部不自洽（见 malformed）"},
	};
	for (size_t i = 0; i < G_N_ELEMENTS(rest); i++) {
		if (!rest[i].n)
			continue;
		SEP();
		g_string_append_printf(b.en, "%" G_GUINT64_FORMAT " %s", rest[i].n, rest[i].en);
		g_string_append_printf(b.zh, "%" G_GUINT64_FORMAT " 个%s", rest[i].n, rest[i].zh);
	}
#undef SEP
	*zh = g_string_free(b.zh, FALSE);
	return g_string_free(b.en, FALSE);
}

static char *note_udp_encap(const pd_coverage *cv, uint64_t packets, char **zh)
{
	note2 b = note2_new();
	g_string_append_printf(b.en, "%" G_GUINT64_FORMAT " packets (", cv->udp_encap_packets);
	g_string_append_printf(b.zh, "%" G_GUINT64_FORMAT " 个包（", cv->udp_encap_packets);
	append_share(&b, cv->udp_encap_packets, packets);
	both(&b,
	     ") use UDP ports of tunnels or VPNs pcapdoc does not open, so they were analysed "
	     "as UDP only and what they carry was not read:",
	     "）使用 pcapdoc 不能打开的隧道或 VPN 的 UDP 端口，只按 UDP 分析，其承载的内容未读取：");
	bool first = true;
	for (int i = 0; i < PD_UDP_ENCAPS; i++) {
		if (!cv->udp_encap[i])
			continue;
		g_string_append_printf(b.en, "%s%" G_GUINT64_FORMAT " %s (port %u)", first ? " " : ", ",
				       cv->udp_encap[i], pd_udp_encaps[i].name, pd_udp_encaps[i].port);
		g_string_append_printf(b.zh, "%s%" G_GUINT64_FORMAT " 个 %s（端口 %u）", first ? "" : "，",
				       cv->udp_encap[i], pd_udp_encaps[i].name, pd_udp_encaps[i].port);
		first = false;
	}
	*zh = g_string_free(b.zh, FALSE);
	return g_string_free(b.en, FALSE);
}

/* Where the CPU went, by thread: with workers, the reading and collecting
 * threads are the serial parts, so their times say what more workers (and
 * cores) can still gain. */
static void print_cpu(const pd_run *run)
{
	if (!run->wt) {
		fprintf(stderr, "pcapdoc: stats: CPU: one thread %.2f s (all but the end-of-capture passes)\n",
			run->reader_cpu_s);
		return;
	}
	GString *w = g_string_new(NULL);
	double sum = 0;
	for (uint32_t i = 0; i < run->n_workers; i++) {
		g_string_append_printf(w, "%s%.2f", i ? " + " : "", run->wt[i].cpu_s);
		sum += run->wt[i].cpu_s;
	}
	double serial = MAX(run->reader_cpu_s, run->collector_cpu_s);
	fprintf(stderr,
		"pcapdoc: stats: CPU: reading and routing %.2f s, workers %s s, collector %.2f s; with cores and "
		"workers enough, a run takes at least %.2f s (the busier serial thread), the workers' %.2f s spread over them\n",
		run->reader_cpu_s, w->str, run->collector_cpu_s, serial, sum);
	g_string_free(w, TRUE);
}

/* Where peak RSS went, by part, at the last sample (within 1/32 of the
 * peak): each part what the process held for it then, as malloc or the
 * kernel count it, so the total is what a user sees in top or time -v. */
static void print_memory(const pd_run *run, const pd_worker_stats *st)
{
	const mem_sample *s = &run->mem_start, *p = &run->mem_peak;
	int64_t d[PD_MEM_PARTS];
	for (int i = 0; i < PD_MEM_PARTS; i++)
		d[i] = p->part[i] - s->part[i];
	int64_t in_parts = (int64_t)p->flows + (int64_t)p->pieces_allocated;
	for (int i = 0; i < PD_MEM_PARTS; i++)
		in_parts += d[i];
	const struct {
		int64_t bytes;
		const char *what;
	} part[] = {
		{(int64_t)s->rss, "RSS at the start of the run (program, libraries, start-up heap)"},
		{(int64_t)p->rss_file - (int64_t)s->rss_file, "code and mapped files paged in since"},
		{(int64_t)p->flows, "live flows: slots, halves and blocks, packed copies (what the engine counts)"},
		{d[PD_MEM_FLOWS_IDLE], "ended flows not yet collected, slots and blocks kept for reuse"},
		{d[PD_MEM_FLOW_INDEX], "flow tables' index"},
		{d[PD_MEM_DETECTORS], "detectors' per-flow side allocations"},
		{d[PD_MEM_KEYTABLES], "detectors' keyed tables (across flows, bounded)"},
		{d[PD_MEM_NDPI], "nDPI: modules and flow states"},
		{(int64_t)p->pieces, "reader's pieces of the file (frames in place until their epoch is done)"},
		{d[PD_MEM_EPOCHS], "epochs in flight: messages to the workers"},
		{(int64_t)p->heap_used - (int64_t)s->heap_used - in_parts,
		 "heap in use beside these (findings, collector, malloc's chunk headers)"},
		{(int64_t)p->heap_free - (int64_t)s->heap_free, "heap free but held by malloc"},
	};
	/* Every counted part but the engine's flows and idle blocks is malloc's
	 * usable size, so a heap that grew by less than half of them is not
	 * the one that serves them (a sanitizer's allocator, which mallinfo2
	 * does not see): then the two heap lines and the totals mean nothing. */
	bool heap_seen = (int64_t)p->heap_used - (int64_t)s->heap_used >= in_parts / 2;
	size_t n_parts = G_N_ELEMENTS(part) - (heap_seen ? 0 : 2);
	int64_t total = 0;
	for (size_t i = 0; i < n_parts; i++) {
		fprintf(stderr, "pcapdoc: stats: memory: %12" G_GINT64_FORMAT " bytes %s\n", part[i].bytes, part[i].what);
		total += part[i].bytes;
	}
	uint64_t peak = peak_rss();
	if (!heap_seen) {
		fprintf(stderr,
			"pcapdoc: stats: memory: peak RSS %" G_GUINT64_FORMAT " bytes, not accounted: mallinfo2 does not see "
			"the allocations counted above (another allocator serves them, a sanitizer's say), so the "
			"heap's rest is unknown\n",
			peak);
		return;
	}
	fprintf(stderr, "pcapdoc: stats: memory: accounted %" G_GINT64_FORMAT " bytes of peak RSS %" G_GUINT64_FORMAT
		" bytes (%.1f %%)\n", total, peak, peak ? 100.0 * (double)total / (double)peak : 0.0);
	int64_t grown = (int64_t)peak - (int64_t)s->rss, counted = total - (int64_t)s->rss;
	fprintf(stderr,
		"pcapdoc: stats: memory: beyond the start's RSS, accounted %" G_GINT64_FORMAT " bytes of %" G_GINT64_FORMAT
		" (%.1f %%), %.0f bytes of RSS per live flow\n",
		counted, grown, grown > 0 ? 100.0 * (double)counted / (double)grown : 0.0,
		st->peak_live ? (double)grown / (double)st->peak_live : 0.0);
}

/* --stats: what the engine kept, for the benchmark and for sizing a run:
 * flows at their peak and the bytes the engine itself accounts for them
 * (flow, its halves and eager blocks, payload blocks, tables), the nDPI states
 * alive at once, and each detector's per-flow block. */
static void print_stats(const pd_run *run, const pd_worker_stats *st)
{
	const pd_engine_cfg *cfg = &run->cfg;
	size_t ndpi = run->opts.no_ndpi ? 0 : pd_app_label_state_size();
	fprintf(stderr, "pcapdoc: stats: %u worker(s), %u shards\n", run->n_workers, cfg->n_shards);
	fprintf(stderr, "pcapdoc: stats: peak live flows %" G_GUINT64_FORMAT " (sum of the workers' peaks)\n",
		st->peak_live);
	fprintf(stderr,
		"pcapdoc: stats: flow blocks and tables at the peak %" G_GUINT64_FORMAT " bytes, %.0f per live flow\n",
		st->peak_bytes, st->peak_live ? (double)st->peak_bytes / (double)st->peak_live : 0.0);
	fprintf(stderr,
		"pcapdoc: stats: idle flows' payload blocks packed %" G_GUINT64_FORMAT " times, %.0f bytes each "
		"(repeats looked for: %zu word pairs in the eager blocks, %zu in the payload blocks)\n",
		st->packed, st->packed ? (double)st->packed_bytes / (double)st->packed : 0.0,
		pd_pack_layout_pairs(cfg->det_layout), pd_pack_layout_pairs(cfg->data_layout));
	fprintf(stderr,
		"pcapdoc: stats: per flow: engine %zu bytes, eager blocks %zu (its TCP halves %zu, detectors %zu), "
		"payload blocks %zu (from the first payload)\n",
		sizeof(pd_flow_slot), cfg->det_size, (size_t)PD_FLOW_HALVES_SIZE, cfg->det_size - PD_FLOW_HALVES_SIZE,
		cfg->data_size);
	fprintf(stderr,
		"pcapdoc: stats: nDPI states at once %" G_GUINT64_FORMAT " (sum of the shards' peaks) x %zu bytes = %.1f MiB; "
		"%" G_GUINT64_FORMAT " flows not labelled (budget); nDPI started by %u of %u worker(s)\n",
		st->app_peak, ndpi, (double)st->app_peak * (double)ndpi / 1048576.0, st->app_skipped, st->app_modules,
		run->n_workers);
	uint64_t segs = run->report->cap.tcp;
	fprintf(stderr,
		"pcapdoc: stats: detector on_tcp calls %" G_GUINT64_FORMAT " (%.2f per TCP segment), %" G_GUINT64_FORMAT
		" left out by their on_tcp_for\n",
		st->hooks_called, segs ? (double)st->hooks_called / (double)segs : 0.0, st->hooks_skipped);
	for (size_t i = 0; i < cfg->n_det; i++) {
		const pd_detector *d = cfg->det[i];
		if (d->payload_state_size)
			fprintf(stderr, "pcapdoc: stats: detector %-12s %5zu bytes per flow, %zu more from the first payload\n",
				d->name, d->flow_state_size, d->payload_state_size);
		else if (d->flow_state_size)
			fprintf(stderr, "pcapdoc: stats: detector %-12s %5zu bytes per flow%s\n", d->name,
				d->flow_state_size, d->from_payload ? " (from the first payload)" : "");
	}
	print_memory(run, st);
	print_cpu(run);
}

static void add_notes(pd_run *run, const pd_worker_stats *st)
{
	pd_capture_summary *cap = &run->report->cap;
	cap->flows_evicted = st->flows_evicted;
	if (st->half_open_evicted)
		pd_capture_note(cap,
				"more than %d half-open TCP flows at once (a SYN flood?): %" G_GUINT64_FORMAT
				" of them were finalized early, oldest first; a SYN repeated after that counts as a "
				"new flow",
				"同时存在的半开 TCP 流超过 %d 条（SYN 洪泛？）：其中 %" G_GUINT64_FORMAT
				" 条被提前结束，最早的先结束；此后再出现的重复 SYN 算作一条新流",
				PD_MAX_HALF_OPEN, st->half_open_evicted);
	const pd_coverage *cv = pd_summary_coverage(run->summary);
	char *zh = NULL;
	if (cv->decap) {
		char *en = note_decapsulated(cv, cap->packets, &zh);
		pd_capture_note_take(cap, en, zh);
	}
	if (cv->unread) {
		char *en = note_unread(cv, cap->packets, &zh);
		pd_capture_note_take(cap, en, zh);
	}
	if (cv->udp_encap_packets) {
		char *en = note_udp_encap(cv, cap->packets, &zh);
		pd_capture_note_take(cap, en, zh);
	}
	if (st->app_skipped)
		pd_capture_note(cap,
				"%" G_GUINT64_FORMAT " flows were not given an application label: "
				"more than %d flows awaited nDPI at once",
				"%" G_GUINT64_FORMAT " 条流没有应用标签：同时等待 nDPI 识别的流超过了 %d 条",
				st->app_skipped, PD_APP_MAX_LIVE);
	if (cap->packets == 0 && cap->errors->len == 0)
		pd_capture_note(cap, "the capture contains no packets", "抓包中没有任何报文");
}

pd_report *pd_run_finish(pd_run *run)
{
	g_assert(!run->finished);
	run->finished = true;
	if (!run->started)
		start_engine(run, 0);
	/* the reading is over and the capture's end has not yet ended every
	 * flow: a last sample if it grew (an empty capture's engine starts only now) */
	g_mutex_lock(&run->ahead_lock);
	mem_sample_if_grown(run, NULL);
	g_mutex_unlock(&run->ahead_lock);
	stop_workers(run);
	run->reader_cpu_s = thread_cpu_s(); /* with workers, it only waited since its last epoch */
	pd_worker_stats st;
	memset(&st, 0, sizeof(st));
	for (uint32_t i = 0; i < run->n_workers; i++)
		pd_worker_stats_add(run->workers[i], &st);
	pd_capture_facts *fa = &run->facts;
	fa->icmp_unmatched = st.icmp_unmatched;
	fa->icmp_unmatched_frag_needed = st.icmp_unmatched_frag_needed;
	fa->icmp_unmatched_min_mtu = st.icmp_unmatched_min_mtu;
	fa->icmp_unmatched_frame = st.icmp_unmatched_frame;
	fa->icmp_unmatched_ts = st.icmp_unmatched_ts;
	fa->flows_evicted = st.flows_evicted;
	fa->evicted_frame = st.evicted_frame;
	fa->evicted_ts = st.evicted_ts;
	fa->max_flows = run->opts.max_flows;
	fa->max_flows_per_shard = run->cfg.max_flows_per_shard;
	fa->shards = run->cfg.n_shards;
	pd_summary_finish(run->summary);
	add_notes(run, &st);
	pd_collector_finish(run->collector, run->report, fa, run->last_ts);
	pd_host_stage(run->report, run->opts.hosts, run->opts.n_hosts);
	if (run->opts.stats)
		print_stats(run, &st);
	pd_report *r = run->report;
	run->report = NULL;
	return r;
}
