/* The analysis pipeline and the finding API detectors report through. */
#include "run.h"

#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "dissect/dissect.h"
#include "flowtable.h"
#include "heuristics/detector.h"
#include "ndpi_glue.h"
#include "pipeline.h"
#include "tcp_engine.h"

/* Idle times after which a flow is finalized (capture time, not wall time). */
#define PD_CLOSED_LINGER_NS (10 * PD_NS_PER_SEC) /* both FINs ACKed, or RST */
#define PD_FIN_UNACKED_LINGER_NS (130 * PD_NS_PER_SEC) /* FIN retries back off for minutes */
#define PD_SYN_ONLY_IDLE_NS (180 * PD_NS_PER_SEC) /* SYN retries last ~127 s by default */
#define PD_TCP_IDLE_NS (900 * PD_NS_PER_SEC)
#define PD_UDP_IDLE_NS (120 * PD_NS_PER_SEC)
#define PD_EXPIRE_EVERY_NS (PD_NS_PER_SEC)

struct pd_run {
	pd_run_opts opts;
	pd_report *report;
	pd_reader *reader;
	pd_flowtable *ft;
	pd_ndpi *ndpi;
	size_t *det_offset; /* per detector, into pd_flow.det_state */
	void **det_global;
	size_t det_state_size; /* eager per-flow block, inside pd_flow */
	size_t data_state_size; /* lazy block, allocated at the first payload */
	GHashTable *findings; /* key -> pd_finding* */
	uint32_t *per_id; /* per-flow findings created, by catalogue index */
	GHashTable *flow_findings; /* flow id -> GSList of pd_finding* (not owned) */
	GHashTable *apps; /* name -> count */
	GHashTable *linktypes; /* linktype -> count */
	pd_time next_expire;
	int lt_run; /* link type of the current run of frames */
	uint64_t lt_run_count;
	pd_time last_ts;
	bool have_ts;
	uint32_t snaplen;
	bool finished;
	/* progress */
	gint64 progress_next;
	gint64 progress_start;
	uint64_t progress_k;
	_Atomic uint64_t bytes_read; /* threaded reading: the reader's position */
};

void pd_run_opts_default(pd_run_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->threads = 1;
	o->max_flows = 100000; /* ~3 KiB each at worst: ~300 MiB bound */
	o->max_flow_rows = 100000;
}

static size_t align16(size_t n)
{
	return (n + 15) & ~(size_t)15;
}

pd_run *pd_run_new(const pd_run_opts *opts)
{
	pd_run *run = g_new0(pd_run, 1);
	run->opts = *opts;
	if (run->opts.max_flows < 16)
		run->opts.max_flows = 16;
	run->report = pd_report_new();
	if (opts->want_flow_rows)
		run->report->flows = g_array_new(FALSE, TRUE, sizeof(pd_flow_row));
	run->det_offset = g_new0(size_t, pd_detectors_len + 1);
	run->det_global = g_new0(void *, pd_detectors_len + 1);
	for (size_t i = 0; i < pd_detectors_len; i++) {
		const pd_detector *d = pd_detectors[i];
		size_t *total = d->state_on_data ? &run->data_state_size : &run->det_state_size;
		run->det_offset[i] = *total;
		*total += align16(d->flow_state_size);
		run->det_global[i] = g_malloc0(d->global_state_size ? d->global_state_size : 1);
	}
	run->ft = pd_flowtable_new(run->det_state_size);
	run->ndpi = opts->no_ndpi ? NULL : pd_ndpi_new();
	run->findings = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, NULL);
	run->per_id = g_new0(uint32_t, pd_catalog_len);
	run->flow_findings = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free,
						   (GDestroyNotify)g_slist_free);
	run->apps = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
	run->linktypes = g_hash_table_new(g_direct_hash, g_direct_equal);
	for (size_t i = 0; i < pd_detectors_len; i++)
		if (pd_detectors[i]->init)
			pd_detectors[i]->init(run, run->det_global[i]);
	return run;
}

/* NULL for a state_on_data detector before the flow's first payload: its
 * hooks are skipped then. */
static void *det_flow_state(pd_run *run, pd_flow *f, size_t i)
{
	if (pd_detectors[i]->state_on_data)
		return f->data_state ? f->data_state + run->det_offset[i] : NULL;
	return f->det_state + run->det_offset[i];
}

/* ---------------------------------------------------------------- flows */

static const char *row_state(const pd_flow *f)
{
	if (f->proto == 17)
		return "udp";
	if (f->rst_seen)
		return "reset";
	if (f->state == PD_FLOW_CLOSED)
		return "closed";
	if (f->syn_frame && !f->synack_frame)
		return "syn-only";
	return "open";
}

static void count_app(pd_run *run, const char *name)
{
	gpointer v = NULL;
	if (g_hash_table_lookup_extended(run->apps, name, NULL, &v))
		g_hash_table_insert(run->apps, g_strdup(name), GSIZE_TO_POINTER(GPOINTER_TO_SIZE(v) + 1));
	else
		g_hash_table_insert(run->apps, g_strdup(name), GSIZE_TO_POINTER(1));
}

static void finalize_flow(pd_run *run, pd_flow *f)
{
	pd_ndpi_finish(run->ndpi, f);
	for (size_t i = 0; i < pd_detectors_len; i++) {
		void *fs = det_flow_state(run, f, i);
		if (pd_detectors[i]->on_flow_end && (fs || !pd_detectors[i]->state_on_data))
			pd_detectors[i]->on_flow_end(run, run->det_global[i], f, fs);
	}
	count_app(run, f->app);

	/* Findings that name this flow learn its final application label. */
	uint64_t key = f->id;
	GSList *list = g_hash_table_lookup(run->flow_findings, &key);
	for (GSList *l = list; l; l = l->next) {
		pd_finding *fd = l->data;
		for (guint j = 0; j < fd->flows->len; j++) {
			pd_flow_ref *ref = &g_array_index(fd->flows, pd_flow_ref, j);
			if (ref->flow_id == f->id)
				g_strlcpy(ref->app, f->app, sizeof(ref->app));
		}
	}
	g_hash_table_remove(run->flow_findings, &key);

	pd_report *r = run->report;
	if (r->flows) {
		if (r->flows->len < run->opts.max_flow_rows) {
			pd_flow_row row;
			memset(&row, 0, sizeof(row));
			pd_flow_ref_fill(&row.ref, f);
			row.first_frame = f->first_frame;
			row.last_frame = f->last_frame;
			row.first_ts = f->first_ts;
			row.last_ts = f->last_ts;
			for (int d = 0; d < 2; d++) {
				const pd_tcp_half *h = &f->half[d];
				row.pkts[d] = h->pkts;
				row.bytes[d] = h->payload_bytes;
				row.retrans += h->retrans;
				row.ooo += h->ooo;
				row.dupacks += h->dupacks;
				row.zero_win += h->zero_win;
			}
			row.hs_rtt = f->proto == 6 ? f->hs_rtt : -1;
			row.state = row_state(f);
			g_array_append_val(r->flows, row);
		} else {
			r->flows_omitted++;
		}
	}
	pd_flowtable_remove(run->ft, f);
	pd_flow_free(f);
}

static bool fin_acked(const pd_flow *f, int dir)
{
	const pd_tcp_half *h = &f->half[dir], *peer = &f->half[pd_peer(dir)];
	return h->fin_valid && peer->ack_valid && pd_seq_lt(h->fin_seq, peer->last_ack);
}

static bool flow_expired(const pd_flow *f, pd_time now)
{
	pd_time idle = now - f->last_ts;
	if (f->proto == 17)
		return idle > PD_UDP_IDLE_NS;
	if (f->state == PD_FLOW_CLOSED) {
		if (f->rst_seen || (fin_acked(f, PD_CLIENT) && fin_acked(f, PD_SERVER)))
			return idle > PD_CLOSED_LINGER_NS;
		return idle > PD_FIN_UNACKED_LINGER_NS;
	}
	if (f->syn_frame && !f->synack_frame && !f->half[PD_SERVER].seen)
		return idle > PD_SYN_ONLY_IDLE_NS;
	return idle > PD_TCP_IDLE_NS;
}

/* The flow table's activity queue for f: one per idle timeout above, so
 * that each queue's head is its first flow to expire. */
enum { Q_TCP, Q_UDP, Q_CLOSED, Q_SYN_ONLY };

static unsigned flow_queue(const pd_flow *f)
{
	if (f->proto == 17)
		return Q_UDP;
	if (f->state == PD_FLOW_CLOSED)
		return Q_CLOSED;
	if (f->syn_frame && !f->synack_frame && !f->half[PD_SERVER].seen)
		return Q_SYN_ONLY;
	return Q_TCP;
}

/* Every expired flow, least recently active first. (One LRU list for all
 * would stop at its first live flow: a single open TCP flow, 900 s timeout,
 * would keep every closed flow behind it alive, and memory would grow with
 * the capture instead of following the flows alive at once.) */
static void expire_flows(pd_run *run, pd_time now)
{
	for (;;) {
		pd_flow *best = NULL;
		for (unsigned q = 0; q < PD_FLOWTABLE_QUEUES; q++) {
			pd_flow *f = pd_flowtable_oldest_in(run->ft, q);
			if (f && flow_expired(f, now) && (!best || f->last_frame < best->last_frame))
				best = f;
		}
		if (!best)
			break;
		finalize_flow(run, best);
	}
}

static pd_flow *new_flow(pd_run *run, uint8_t proto, const pd_addr *ca, uint16_t cp, const pd_addr *sa,
			 uint16_t sp, const pd_packet *pkt)
{
	if (pd_flowtable_count(run->ft) >= run->opts.max_flows) {
		pd_flow *victim = pd_flowtable_oldest(run->ft);
		if (victim) {
			finalize_flow(run, victim);
			run->report->cap.flows_evicted++;
		}
	}
	pd_flow *f = pd_flowtable_insert(run->ft, proto, ca, cp, sa, sp);
	f->first_ts = pkt->ts;
	f->first_frame = pkt->frame_no;
	if (proto == 6)
		run->report->cap.tcp_flows++;
	else
		run->report->cap.udp_flows++;
	return f;
}

static void handle_tcp(pd_run *run, const pd_packet *pkt)
{
	const pd_ip *ip = &pkt->ip;
	const pd_tcp *t = &pkt->tcp;
	int dir = PD_CLIENT;
	uint32_t seg_extra = 0;
	pd_flow *f = pd_flowtable_lookup(run->ft, 6, &ip->src, t->sport, &ip->dst, t->dport, &dir);
	if (f && pd_tcp_starts_new_connection(f, dir, pkt)) {
		finalize_flow(run, f);
		f = NULL;
		seg_extra |= PD_SEG_PORT_REUSE;
	}
	if (!f) {
		if (pd_tcp_sender_is_client(pkt)) {
			f = new_flow(run, 6, &ip->src, t->sport, &ip->dst, t->dport, pkt);
			dir = PD_CLIENT;
		} else {
			f = new_flow(run, 6, &ip->dst, t->dport, &ip->src, t->sport, pkt);
			dir = PD_SERVER;
		}
		f->roles_from_syn = (t->flags & PD_TCP_SYN) != 0;
		seg_extra |= PD_SEG_NEW_FLOW;
	}
	f->last_ts = pkt->ts;
	f->last_frame = pkt->frame_no;
	pd_seg seg;
	pd_tcp_engine_update(f, dir, pkt, &seg);
	seg.flags |= seg_extra;
	pd_flowtable_touch(run->ft, f, flow_queue(f));
	pd_ndpi_feed(run->ndpi, f, pkt);
	if (!f->data_state && run->data_state_size && t->payload_len > 0)
		f->data_state = g_malloc0(run->data_state_size);
	for (size_t i = 0; i < pd_detectors_len; i++) {
		void *fs = det_flow_state(run, f, i);
		if (pd_detectors[i]->on_tcp && (fs || !pd_detectors[i]->state_on_data))
			pd_detectors[i]->on_tcp(run, run->det_global[i], f, fs, pkt, &seg);
	}
}

static void handle_udp(pd_run *run, const pd_packet *pkt)
{
	const pd_ip *ip = &pkt->ip;
	const pd_udp *u = &pkt->udp;
	int dir = PD_CLIENT;
	pd_flow *f = pd_flowtable_lookup(run->ft, 17, &ip->src, u->sport, &ip->dst, u->dport, &dir);
	if (!f) {
		bool s_wk = u->sport && u->sport < 1024, d_wk = u->dport && u->dport < 1024;
		if (s_wk && !d_wk) {
			f = new_flow(run, 17, &ip->dst, u->dport, &ip->src, u->sport, pkt);
			dir = PD_SERVER;
		} else {
			f = new_flow(run, 17, &ip->src, u->sport, &ip->dst, u->dport, pkt);
			dir = PD_CLIENT;
		}
		f->hs_rtt = -1;
		f->rtt_min = -1;
	}
	f->last_ts = pkt->ts;
	f->last_frame = pkt->frame_no;
	f->pkts++;
	pd_tcp_half *h = &f->half[dir];
	h->seen = true;
	h->pkts++;
	h->ip_bytes += ip->total_len;
	h->payload_bytes += u->payload_len;
	h->last_pkt_ts = pkt->ts;
	pd_flowtable_touch(run->ft, f, Q_UDP);
	pd_ndpi_feed(run->ndpi, f, pkt);
	for (size_t i = 0; i < pd_detectors_len; i++) {
		void *fs = det_flow_state(run, f, i);
		if (pd_detectors[i]->on_udp && (fs || !pd_detectors[i]->state_on_data))
			pd_detectors[i]->on_udp(run, run->det_global[i], f, fs, pkt, dir);
	}
}

static void flush_linktype_run(pd_run *run)
{
	if (!run->lt_run_count)
		return;
	gpointer key = GINT_TO_POINTER(run->lt_run + 1);
	gsize n = GPOINTER_TO_SIZE(g_hash_table_lookup(run->linktypes, key));
	g_hash_table_insert(run->linktypes, key, GSIZE_TO_POINTER(n + run->lt_run_count));
	run->lt_run_count = 0;
}

static void count_linktype(pd_run *run, int lt)
{
	/* Captures rarely mix link types: count runs of the same one and only
	 * touch the table when it changes. */
	if (run->lt_run_count && lt == run->lt_run) {
		run->lt_run_count++;
		return;
	}
	flush_linktype_run(run);
	run->lt_run = lt;
	run->lt_run_count = 1;
}

pd_dissect_status pd_run_dissect(const pd_frame *fr, pd_packet *pkt)
{
	pkt->frame_no = fr->frame_no;
	pkt->ts = fr->ts;
	pkt->caplen = fr->caplen;
	pkt->wirelen = fr->wirelen;
	pkt->linktype = fr->linktype;
	pkt->file_index = fr->file_index;
	return pd_dissect(pkt, fr->data);
}

void pd_run_dissected(pd_run *run, const pd_frame *fr, const pd_packet *pkt, pd_dissect_status st)
{
	pd_capture_summary *cap = &run->report->cap;

	cap->packets++;
	cap->wire_bytes += fr->wirelen;
	cap->captured_bytes += fr->caplen;
	if (fr->caplen < fr->wirelen)
		cap->snap_truncated++;
	if (!run->have_ts || fr->ts < cap->first_ts)
		cap->first_ts = fr->ts;
	if (!run->have_ts || fr->ts > cap->last_ts)
		cap->last_ts = fr->ts;
	if (!run->have_ts) {
		run->next_expire = fr->ts + PD_EXPIRE_EVERY_NS;
		run->have_ts = true;
	}
	count_linktype(run, fr->linktype);

	switch (st) {
	case PD_DISSECT_UNSUPPORTED_LINK:
		cap->unsupported_link++;
		return;
	case PD_DISSECT_NOT_IP:
		cap->not_ip++;
		return;
	case PD_DISSECT_TRUNCATED:
		cap->ip_truncated++;
		return;
	case PD_DISSECT_MALFORMED:
		if (pkt->malformed < PD_MAL__COUNT)
			cap->malformed[pkt->malformed]++;
		if (!pkt->is_ip)
			return;
		break;
	case PD_DISSECT_OK:
		break;
	}
	if (!pkt->is_ip)
		return;
	if (pkt->ip.version == 4)
		cap->ipv4++;
	else
		cap->ipv6++;
	if (pkt->ip.is_fragment)
		cap->fragments++;

	if (fr->ts > run->next_expire) {
		expire_flows(run, fr->ts);
		run->next_expire = fr->ts + PD_EXPIRE_EVERY_NS;
	}

	for (size_t i = 0; i < pd_detectors_len; i++)
		if (pd_detectors[i]->on_packet)
			pd_detectors[i]->on_packet(run, run->det_global[i], pkt);

	/* A malformed transport header is counted above and goes no further.
	 * An IP total length beyond the frame was clipped to the frame by the
	 * dissector and is analysed, as Wireshark does. */
	if (pkt->malformed != PD_MAL_NONE && pkt->malformed != PD_MAL_IP_TOTLEN) {
		if (pkt->l4 == PD_L4_TCP)
			cap->tcp++;
		else if (pkt->l4 == PD_L4_UDP)
			cap->udp++;
		return;
	}
	switch (pkt->l4) {
	case PD_L4_TCP:
		cap->tcp++;
		handle_tcp(run, pkt);
		break;
	case PD_L4_UDP:
		cap->udp++;
		handle_udp(run, pkt);
		break;
	case PD_L4_ICMP:
	case PD_L4_ICMP6:
		cap->icmp++;
		break;
	default:
		cap->other_l4++;
		break;
	}
}

static void progress_update(pd_run *run, bool final)
{
	gint64 now = g_get_monotonic_time();
	if (!final && now < run->progress_next)
		return;
	run->progress_next = now + 250000;
	uint64_t done = run->opts.threads > 1 ? atomic_load(&run->bytes_read) : pd_reader_bytes_read(run->reader);
	uint64_t total = pd_reader_total_bytes(run->reader);
	double secs = (double)(now - run->progress_start) / 1e6;
	double pps = secs > 0 ? (double)run->report->cap.packets / secs : 0;
	if (final) {
		fprintf(stderr, "\r\033[K");
		return;
	}
	if (total > 0 && done <= total && done > 0) {
		double eta = secs * (double)(total - done) / (double)done;
		fprintf(stderr, "\r\033[Kpcapdoc: %.0f of %.0f MB (%.0f%%), %.0f packets/s, ETA %.0f s",
			(double)done / 1e6, (double)total / 1e6, 100.0 * (double)done / (double)total, pps, eta);
	} else {
		fprintf(stderr, "\r\033[Kpcapdoc: %.0f MB, %.0f packets/s", (double)done / 1e6, pps);
	}
	fflush(stderr);
}

static void pipeline_sink(void *ctx, const pd_frame *fr, const pd_packet *pkt, pd_dissect_status st)
{
	pd_run *run = ctx;
	pd_run_dissected(run, fr, pkt, st);
	if (run->opts.progress && (++run->progress_k & 0xffff) == 0)
		progress_update(run, false);
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
	run->snaplen = pd_reader_snaplen(run->reader);
	cap->snaplen = run->snaplen;
	run->progress_start = g_get_monotonic_time();
	run->progress_next = run->progress_start + 500000;
	if (run->opts.threads > 1) {
		pd_pipeline_drain(run->reader, pipeline_sink, run, &run->bytes_read);
	} else {
		pd_frame fr;
		pd_packet pkt;
		while (pd_reader_next(run->reader, &fr)) {
			pd_dissect_status dst = pd_run_dissect(&fr, &pkt);
			pipeline_sink(run, &fr, &pkt, dst);
		}
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

/* --------------------------------------------------------- finding API */

static uint64_t finding_key(const pd_finding_def *def, const pd_flow *flow)
{
	uint64_t idx = (uint64_t)(def - pd_catalog) + 1;
	return (idx << 44) | (flow ? (flow->id + 1) & ((UINT64_C(1) << 44) - 1) : 0);
}

void pd_flow_ref_fill(pd_flow_ref *ref, const pd_flow *f)
{
	memset(ref, 0, sizeof(*ref));
	ref->flow_id = f->id;
	ref->proto = f->proto;
	ref->client = f->addr[PD_CLIENT];
	ref->server = f->addr[PD_SERVER];
	ref->client_port = f->port[PD_CLIENT];
	ref->server_port = f->port[PD_SERVER];
	g_strlcpy(ref->app, f->app[0] ? f->app : "Unknown", sizeof(ref->app));

	/* Community ID v1: SHA-1 over seed, ordered endpoints, proto, ports. */
	const pd_addr *a = &f->addr[0], *b = &f->addr[1];
	uint16_t pa = f->port[0], pb = f->port[1];
	size_t alen = a->family == 6 ? 16 : 4;
	int c = memcmp(a->bytes, b->bytes, alen);
	if (c > 0 || (c == 0 && pa > pb)) {
		const pd_addr *ta = a;
		a = b;
		b = ta;
		uint16_t tp = pa;
		pa = pb;
		pb = tp;
	}
	uint8_t buf[2 + 16 + 16 + 2 + 4];
	size_t n = 0;
	buf[n++] = 0;
	buf[n++] = 0; /* seed 0 */
	memcpy(buf + n, a->bytes, alen);
	n += alen;
	memcpy(buf + n, b->bytes, alen);
	n += alen;
	buf[n++] = f->proto;
	buf[n++] = 0;
	buf[n++] = (uint8_t)(pa >> 8);
	buf[n++] = (uint8_t)pa;
	buf[n++] = (uint8_t)(pb >> 8);
	buf[n++] = (uint8_t)pb;
	GChecksum *ck = g_checksum_new(G_CHECKSUM_SHA1);
	g_checksum_update(ck, buf, n);
	uint8_t digest[20];
	gsize dlen = sizeof(digest);
	g_checksum_get_digest(ck, digest, &dlen);
	g_checksum_free(ck);
	gchar *b64 = g_base64_encode(digest, dlen);
	g_snprintf(ref->community_id, sizeof(ref->community_id), "1:%s", b64);
	g_free(b64);
}

static pd_finding *new_finding(const pd_finding_def *def, bool capture_wide);

pd_finding *pd_finding_get(pd_run *run, const char *id, const pd_flow *flow)
{
	const pd_finding_def *def = pd_catalog_find(id);
	if (!def)
		g_error("pcapdoc: detector used unknown finding id '%s'", id);
	uint64_t key = finding_key(def, flow);
	pd_finding *f = g_hash_table_lookup(run->findings, &key);
	if (f)
		return f;
	size_t idx = (size_t)(def - pd_catalog);
	if (flow && run->per_id[idx] >= PD_MAX_FLOW_FINDINGS) {
		/* Past the cap: the flow joins the id's spill finding, whose
		 * metrics accumulate (see pd_finding_metric). */
		uint64_t skey = finding_key(def, NULL) | ((UINT64_C(1) << 44) - 1);
		f = g_hash_table_lookup(run->findings, &skey);
		if (!f) {
			f = new_finding(def, true);
			f->spill = true;
			g_hash_table_insert(run->findings, g_memdup2(&skey, sizeof(skey)), f);
		}
		pd_finding_add_flow(run, f, flow);
		return f;
	}
	if (flow)
		run->per_id[idx]++;
	f = new_finding(def, flow == NULL);
	g_hash_table_insert(run->findings, g_memdup2(&key, sizeof(key)), f);
	if (flow)
		pd_finding_add_flow(run, f, flow);
	return f;
}

static pd_finding *new_finding(const pd_finding_def *def, bool capture_wide)
{
	pd_finding *f = g_new0(pd_finding, 1);
	f->def = def;
	f->severity = def->severity;
	f->confidence = 0.5;
	f->capture_wide = capture_wide;
	f->flows = g_array_new(FALSE, TRUE, sizeof(pd_flow_ref));
	f->examples = g_array_new(FALSE, TRUE, sizeof(pd_evidence));
	f->metrics = g_array_new(FALSE, TRUE, sizeof(pd_metric));
	for (size_t i = 0; i < PD_DEF_MAX_SETTINGS && def->settings[i]; i++)
		f->settings[f->n_settings++] = def->settings[i];
	return f;
}

void pd_finding_add_flow(pd_run *run, pd_finding *f, const pd_flow *flow)
{
	for (guint i = 0; i < f->flows->len; i++)
		if (g_array_index(f->flows, pd_flow_ref, i).flow_id == flow->id)
			return;
	if (f->flows->len >= PD_FINDING_MAX_FLOWS) {
		/* count each flow past the listed ones once, however often a
		 * detector reports it */
		if (!f->unlisted)
			f->unlisted = g_hash_table_new(g_direct_hash, g_direct_equal);
		gpointer k = GSIZE_TO_POINTER((gsize)flow->id + 1);
		if (g_hash_table_add(f->unlisted, k))
			f->flow_count++;
		return;
	}
	f->flow_count++;
	pd_flow_ref ref;
	pd_flow_ref_fill(&ref, flow);
	g_array_append_val(f->flows, ref);
	uint64_t key = flow->id;
	gpointer old_key = NULL, old_list = NULL;
	if (g_hash_table_steal_extended(run->flow_findings, &key, &old_key, &old_list))
		g_hash_table_insert(run->flow_findings, old_key, g_slist_prepend(old_list, f));
	else
		g_hash_table_insert(run->flow_findings, g_memdup2(&key, sizeof(key)), g_slist_prepend(NULL, f));
}

void pd_finding_occurrence_at(pd_finding *f, uint64_t frame, pd_time ts, const char *what)
{
	pd_evidence ev;
	memset(&ev, 0, sizeof(ev));
	ev.frame = frame;
	ev.ts = ts;
	g_strlcpy(ev.what, what ? what : "", sizeof(ev.what));
	f->occurrences++;
	if (!f->first.frame || frame < f->first.frame)
		f->first = ev;
	if (frame >= f->last.frame)
		f->last = ev;
	if (f->examples->len < PD_FINDING_MAX_EXAMPLES)
		g_array_append_val(f->examples, ev);
}

void pd_finding_occurrence(pd_finding *f, const pd_packet *pkt, const char *what)
{
	pd_finding_occurrence_at(f, pkt->frame_no, pkt->ts, what);
}

/* How a metric combines over flows: counts, seconds lost and byte volumes
 * add up; sizes, rates, ratios and durations per event take the maximum. */
static double metric_merge(const char *key, const char *unit, double a, double b)
{
	static const char *const size_words[] = {"size", "mss", "mtu", "window", "max", "min",
						  "snaplen", "in_flight", "rtt", "period", "p50", "p99",
						  "median", "mean", "rate", "ratio", "share"};
	bool adds = unit && (!strcmp(unit, "count") || !strcmp(unit, "s") || !strcmp(unit, "bytes"));
	for (size_t i = 0; adds && i < G_N_ELEMENTS(size_words); i++)
		if (strstr(key, size_words[i]))
			adds = false;
	return adds ? a + b : (b > a ? b : a);
}

void pd_finding_metric(pd_finding *f, const char *key, double value, const char *unit)
{
	if (value != value || value > 1e300 || value < -1e300)
		value = 0; /* NaN or inf never reaches a report */
	for (guint i = 0; i < f->metrics->len; i++) {
		pd_metric *m = &g_array_index(f->metrics, pd_metric, i);
		if (strcmp(m->key, key) == 0) {
			if (f->spill)
				m->value = metric_merge(key, unit, m->value, value);
			else
				m->value = value;
			m->unit = unit;
			return;
		}
	}
	pd_metric m = {.key = key, .value = value, .unit = unit};
	g_array_append_val(f->metrics, m);
}

void pd_finding_detail(pd_finding *f, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	g_free(f->detail);
	f->detail = g_strdup_vprintf(fmt, ap);
	va_end(ap);
}

void pd_finding_settings(pd_finding *f, const char *first, ...)
{
	va_list ap;
	va_start(ap, first);
	f->n_settings = 0;
	for (const char *s = first; s && f->n_settings < PD_FINDING_MAX_SETTINGS; s = va_arg(ap, const char *))
		f->settings[f->n_settings++] = s;
	va_end(ap);
}

void pd_finding_drop(pd_run *run, pd_finding *f)
{
	if (f->spill)
		return; /* shared by many flows: keep it */
	GHashTableIter it;
	gpointer k, v;
	g_hash_table_iter_init(&it, run->findings);
	while (g_hash_table_iter_next(&it, &k, &v)) {
		if (v == f) {
			g_hash_table_iter_remove(&it);
			break;
		}
	}
	/* Unlink from flow lists. */
	g_hash_table_iter_init(&it, run->flow_findings);
	while (g_hash_table_iter_next(&it, &k, &v)) {
		GSList *l = v;
		if (g_slist_find(l, f)) {
			g_hash_table_iter_steal(&it);
			l = g_slist_remove(l, f);
			if (l)
				g_hash_table_insert(run->flow_findings, k, l);
			else
				g_free(k);
			g_hash_table_iter_init(&it, run->flow_findings);
		}
	}
	pd_finding_free(f);
}

uint32_t pd_run_snaplen(const pd_run *run)
{
	return run->snaplen;
}

pd_time pd_run_first_ts(const pd_run *run)
{
	return run->report->cap.first_ts;
}

/* ------------------------------------------------------------ the end */

static int cmp_ptr_finding_first(gconstpointer a, gconstpointer b)
{
	const pd_finding *x = *(pd_finding *const *)a, *y = *(pd_finding *const *)b;
	return x->first.frame < y->first.frame ? -1 : x->first.frame > y->first.frame;
}


/* Many flows with the same id become one capture-wide finding. */
static void aggregate(pd_run *run, GPtrArray *all)
{
	pd_report *r = run->report;
	for (size_t d = 0; d < pd_catalog_len; d++) {
		const pd_finding_def *def = &pd_catalog[d];
		GPtrArray *same = g_ptr_array_new();
		for (guint i = 0; i < all->len; i++) {
			pd_finding *f = g_ptr_array_index(all, i);
			if (f && f->def == def && (!f->capture_wide || f->spill))
				g_ptr_array_add(same, f);
		}
		if (same->len > PD_AGGREGATE_MIN_FLOWS) {
			g_ptr_array_sort(same, cmp_ptr_finding_first);
			pd_finding *agg = g_new0(pd_finding, 1);
			agg->def = def;
			agg->capture_wide = true;
			agg->flows = g_array_new(FALSE, TRUE, sizeof(pd_flow_ref));
			agg->examples = g_array_new(FALSE, TRUE, sizeof(pd_evidence));
			agg->metrics = g_array_new(FALSE, TRUE, sizeof(pd_metric));
			pd_finding *worst = NULL;
			for (guint i = 0; i < same->len; i++) {
				pd_finding *f = g_ptr_array_index(same, i);
				if (!worst || f->impact_s > worst->impact_s ||
				    (f->impact_s == worst->impact_s && f->severity > worst->severity))
					worst = f;
				agg->flow_count += f->flow_count;
				for (guint j = 0; j < f->flows->len && agg->flows->len < PD_FINDING_MAX_FLOWS; j++)
					g_array_append_val(agg->flows, g_array_index(f->flows, pd_flow_ref, j));
				agg->occurrences += f->occurrences;
				agg->impact_s += f->impact_s;
				if (f->severity > agg->severity)
					agg->severity = f->severity;
				if (f->confidence > agg->confidence)
					agg->confidence = f->confidence;
				if (!agg->first.frame || f->first.frame < agg->first.frame)
					agg->first = f->first;
				if (f->last.frame >= agg->last.frame)
					agg->last = f->last;
				if (agg->examples->len < PD_FINDING_MAX_EXAMPLES)
					g_array_append_val(agg->examples, f->first);
				for (guint j = 0; j < f->metrics->len; j++) {
					pd_metric m = g_array_index(f->metrics, pd_metric, j);
					bool found = false;
					for (guint k = 0; k < agg->metrics->len; k++) {
						pd_metric *am = &g_array_index(agg->metrics, pd_metric, k);
						if (strcmp(am->key, m.key) == 0) {
							am->value = metric_merge(m.key, m.unit, am->value, m.value);
							found = true;
							break;
						}
					}
					if (!found)
						g_array_append_val(agg->metrics, m);
				}
			}
			if (worst) { /* always set: same has more than one entry */
				memcpy(agg->settings, worst->settings, sizeof(agg->settings));
				agg->n_settings = worst->n_settings;
			}
			agg->detail = g_strdup_printf("%" G_GUINT64_FORMAT " flows; worst: %s", agg->flow_count,
						      worst && worst->detail ? worst->detail : def->title_en);
			pd_finding_metric(agg, "flows", (double)agg->flow_count, "count");
			for (guint i = 0; i < all->len; i++) {
				pd_finding *f = g_ptr_array_index(all, i);
				if (f && f->def == def && (!f->capture_wide || f->spill)) {
					pd_finding_free(f);
					g_ptr_array_index(all, i) = NULL;
				}
			}
			g_ptr_array_add(r->findings, agg);
		}
		g_ptr_array_free(same, TRUE);
	}
	for (guint i = 0; i < all->len; i++) {
		pd_finding *f = g_ptr_array_index(all, i);
		if (f)
			g_ptr_array_add(r->findings, f);
	}
}

static gint cmp_app(gconstpointer a, gconstpointer b)
{
	const pd_app_count *x = a, *y = b;
	if (x->flows != y->flows)
		return x->flows > y->flows ? -1 : 1;
	return strcmp(x->name, y->name);
}

static gint cmp_lt(gconstpointer a, gconstpointer b)
{
	const pd_linktype_count *x = a, *y = b;
	return x->linktype - y->linktype;
}

static gint cmp_row(gconstpointer a, gconstpointer b)
{
	const pd_flow_row *x = a, *y = b;
	return x->ref.flow_id < y->ref.flow_id ? -1 : x->ref.flow_id > y->ref.flow_id;
}

pd_report *pd_run_finish(pd_run *run)
{
	g_assert(!run->finished);
	run->finished = true;
	pd_flow *f;
	/* Oldest first, so flows end in the order they went quiet. */
	while ((f = pd_flowtable_oldest(run->ft)))
		finalize_flow(run, f);
	for (size_t i = 0; i < pd_detectors_len; i++)
		if (pd_detectors[i]->on_end)
			pd_detectors[i]->on_end(run, run->det_global[i]);

	pd_report *r = run->report;
	pd_capture_summary *cap = &r->cap;
	if (cap->flows_evicted)
		g_ptr_array_add(cap->notes,
				g_strdup_printf("flow table cap of %zu live flows reached: %" G_GUINT64_FORMAT
						" least recently active flows were finalized early (--max-flows)",
						run->opts.max_flows, cap->flows_evicted));
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
	if (pd_ndpi_skipped(run->ndpi))
		g_ptr_array_add(cap->notes,
				g_strdup_printf("%" G_GUINT64_FORMAT " flows were not given an application label: "
						"more than %d flows awaited nDPI at once",
						pd_ndpi_skipped(run->ndpi), PD_NDPI_MAX_LIVE));
	if (cap->packets == 0 && cap->errors->len == 0)
		g_ptr_array_add(cap->notes, g_strdup("the capture contains no packets"));

	GHashTableIter it;
	gpointer k, v;
	g_hash_table_iter_init(&it, run->apps);
	while (g_hash_table_iter_next(&it, &k, &v)) {
		pd_app_count ac;
		memset(&ac, 0, sizeof(ac));
		g_strlcpy(ac.name, k, sizeof(ac.name));
		ac.flows = GPOINTER_TO_SIZE(v);
		g_array_append_val(cap->apps, ac);
	}
	g_array_sort(cap->apps, cmp_app);
	flush_linktype_run(run);
	g_hash_table_iter_init(&it, run->linktypes);
	while (g_hash_table_iter_next(&it, &k, &v)) {
		pd_linktype_count lc = {.linktype = GPOINTER_TO_INT(k) - 1, .packets = GPOINTER_TO_SIZE(v)};
		g_array_append_val(cap->linktypes, lc);
	}
	g_array_sort(cap->linktypes, cmp_lt);
	if (r->flows)
		g_array_sort(r->flows, cmp_row);

	GPtrArray *all = g_ptr_array_new();
	g_hash_table_iter_init(&it, run->findings);
	while (g_hash_table_iter_next(&it, &k, &v))
		g_ptr_array_add(all, v);
	g_hash_table_remove_all(run->findings); /* frees keys only */
	g_ptr_array_sort(all, cmp_ptr_finding_first);
	aggregate(run, all);
	g_ptr_array_free(all, TRUE);
	pd_report_sort(r);

	run->report = NULL;
	return r;
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
	for (size_t i = 0; i < pd_detectors_len; i++) {
		if (pd_detectors[i]->fini)
			pd_detectors[i]->fini(run->det_global[i]);
		g_free(run->det_global[i]);
	}
	g_free(run->det_global);
	g_free(run->det_offset);
	pd_flowtable_free(run->ft);
	pd_ndpi_free(run->ndpi);
	g_hash_table_destroy(run->findings);
	g_free(run->per_id);
	g_hash_table_destroy(run->flow_findings);
	g_hash_table_destroy(run->apps);
	g_hash_table_destroy(run->linktypes);
	g_free(run);
}
