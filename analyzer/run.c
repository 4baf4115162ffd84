/* One analysis run: the loop and the order of calls (see engine.h for the
 * parts). With one thread everything happens here, frame by frame. With N
 * workers, this thread reads, counts and routes; the workers, each on a
 * thread of its own, own their shards; and this thread also collects the
 * flows that ended, epoch by epoch, in capture order. */
#include "run.h"

#include <stdio.h>
#include <string.h>

#include "dissect/dissect.h"
#include "engine.h"
#include "summary.h"

/* Frames per epoch: the unit in which frames go to the workers and ended
 * flows come back. Epochs in flight bound the memory the threads hold. */
#define EPOCH_FRAMES 2048
#define EPOCH_BYTES (2u << 20)
#define EPOCHS_IN_FLIGHT 4

enum { MSG_PACKET, MSG_TICK, MSG_END };

/* One message to a worker, followed by the frame's bytes for a packet. */
typedef struct msg {
	uint8_t kind;
	bool dup;
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
	uint64_t seq; /* packets delivered so far */
	GQueue spare; /* batches to reuse */
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

static batch *batch_get(pd_run *run)
{
	batch *b = g_queue_pop_head(&run->spare);
	if (!b) {
		b = g_new0(batch, 1);
		b->cap = 16 << 10; /* grows with the epoch: a small capture sends little */
		b->buf = g_malloc(b->cap);
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
		b->buf = g_realloc(b->buf, b->cap);
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
	g_free(b->buf);
	g_free(b);
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
	pd_engine_cfg_init(&run->cfg, run->opts.max_flows, run->opts.no_detectors, run->opts.no_ndpi);
	run->summary = pd_summary_new(&run->report->cap, &run->facts);
	run->router = pd_router_new(run->cfg.n_shards);
	run->n_workers = run->opts.threads ? run->opts.threads : 1;
	run->n_workers = run->n_workers > 1 ? run->n_workers : 1;
	if (run->n_workers > run->cfg.n_shards)
		run->n_workers = run->cfg.n_shards;
	g_queue_init(&run->spare);
	return run;
}

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
	pd_collector_free(run->collector);
	pd_router_free(run->router);
	pd_summary_free(run->summary);
	pd_engine_cfg_clear(&run->cfg);
	pd_report_free(run->report);
	g_free(run);
}

/* ------------------------------------------------------------ collecting */

static void collect_list(pd_run *run, pd_flow_slot *s)
{
	while (s) {
		pd_flow_slot *next = s->end_next;
		pd_collector_flow(run->collector, s);
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
		pd_collector_flow(run->collector, s);
	}
	for (uint32_t i = 0; i < n; i++)
		g_queue_push_tail(&run->spare, bs[i]);
	run->epochs_done++;
}

static void send_epoch(pd_run *run)
{
	for (uint32_t i = 0; i < run->n_workers; i++) {
		worker_thread *t = &run->wt[i];
		g_async_queue_push(t->in, t->cur);
		t->cur = NULL;
	}
	run->epochs_sent++;
	run->epoch_frames = 0;
	run->epoch_bytes = 0;
	while (run->epochs_sent - run->epochs_done >= EPOCHS_IN_FLIGHT)
		collect_epoch(run);
	for (uint32_t i = 0; i < run->n_workers; i++)
		run->wt[i].cur = batch_get(run);
}

/* ------------------------------------------------------------- delivery */

static uint32_t worker_of(const pd_run *run, const pd_route *rt)
{
	return rt->shard % run->n_workers;
}

static void deliver_packet(pd_run *run, uint64_t pos, const pd_packet *pkt, const uint8_t *data,
			   const pd_route *rt, bool dup)
{
	uint32_t wi = worker_of(run, rt);
	uint64_t seq = run->seq++;
	if (!run->wt) {
		pd_worker_packet(run->workers[wi], pos, seq, pkt, rt, dup);
		collect_list(run, pd_worker_take_ended(run->workers[wi]));
		return;
	}
	batch *b = run->wt[wi].cur;
	msg *m = batch_add(b, pkt->caplen);
	m->kind = MSG_PACKET;
	m->dup = dup;
	m->pos = pos;
	m->seq = seq;
	m->route = *rt;
	m->orig = data;
	m->pkt = *pkt;
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
		deliver_packet(run, pos, &x->pkt, x->data, &x->route, false);
	pd_held_free(h);
}

/* ---------------------------------------------------------------- frames */

static pd_dissect_status frame_dissect(const pd_frame *fr, pd_packet *pkt)
{
	pkt->frame_no = fr->frame_no;
	pkt->ts = fr->ts;
	pkt->caplen = fr->caplen;
	pkt->wirelen = fr->wirelen;
	pkt->linktype = fr->linktype;
	pkt->file_index = fr->file_index;
	return pd_dissect(pkt, fr->data);
}

static void run_frame(pd_run *run, const pd_frame *fr)
{
	pd_packet pkt;
	pd_dissect_status st = frame_dissect(fr, &pkt);
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
		deliver_packet(run, pos, &pkt, fr->data, &rt, dup);
		deliver_held(run, pos); /* a first fragment frees its datagram's others */
	}
	if (run->wt && (++run->epoch_frames >= EPOCH_FRAMES || run->epoch_bytes >= EPOCH_BYTES))
		send_epoch(run);
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
	pd_run_status st = PD_RUN_OK;
	if (pd_reader_any_failed(run->reader))
		st = PD_RUN_SOME_FAILED;
	else if (cap->input_truncated)
		st = PD_RUN_TRUNCATED;
	if (cap->input_truncated)
		g_ptr_array_add(cap->notes,
				g_strdup_printf("input ends mid-record after frame %" G_GUINT64_FORMAT
						": the findings cover what was read",
						pd_reader_frames_seen(run->reader)));
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
	while (run->epochs_done < run->epochs_sent)
		collect_epoch(run);
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

static void add_notes(pd_run *run, const pd_worker_stats *st)
{
	pd_capture_summary *cap = &run->report->cap;
	cap->flows_evicted = st->flows_evicted;
	if (st->half_open_evicted)
		g_ptr_array_add(cap->notes,
				g_strdup_printf("more than %d half-open TCP flows at once (a SYN flood?): %" G_GUINT64_FORMAT
						" of them were finalized early, oldest first; a SYN repeated after that "
						"counts as a new flow",
						PD_MAX_HALF_OPEN, st->half_open_evicted));
	if (cap->unsupported_link)
		g_ptr_array_add(cap->notes,
				g_strdup_printf("%" G_GUINT64_FORMAT " frames have a link type pcapdoc does not decode "
						"(see link types): counted, not analysed",
						cap->unsupported_link));
	if (cap->not_ip)
		g_ptr_array_add(cap->notes,
				g_strdup_printf("%" G_GUINT64_FORMAT " frames carry no IP (ARP, LLDP, ...): counted, "
						"not analysed",
						cap->not_ip));
	if (st->app_skipped)
		g_ptr_array_add(cap->notes,
				g_strdup_printf("%" G_GUINT64_FORMAT " flows were not given an application label: "
						"more than %d flows awaited nDPI at once",
						st->app_skipped, PD_APP_MAX_LIVE));
	if (cap->packets == 0 && cap->errors->len == 0)
		g_ptr_array_add(cap->notes, g_strdup("the capture contains no packets"));
}

pd_report *pd_run_finish(pd_run *run)
{
	g_assert(!run->finished);
	run->finished = true;
	if (!run->started)
		start_engine(run, 0);
	stop_workers(run);
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
	if (run->opts.stats)
		fprintf(stderr,
			"pcapdoc: %u worker(s), %u shards; peak live flows %" G_GUINT64_FORMAT
			" (sum of the workers' peaks), their blocks and tables %" G_GUINT64_FORMAT " bytes\n",
			run->n_workers, run->cfg.n_shards, st.peak_live, st.peak_bytes);
	pd_report *r = run->report;
	run->report = NULL;
	return r;
}
