/* The finished report: what every report format reads and nothing else.
 *
 * The run owns the pd_report and everything reachable from it. Detectors
 * add findings through heuristics/detector.h while the capture is read;
 * once the run is finished the report is immutable and the renderers in
 * report/ only read it (they never re-analyse). */
#ifndef PD_MODEL_H
#define PD_MODEL_H

#include <glib.h>
#include <stdio.h>

#include "dissect/packet.h"
#include "report/text.h"
#include "knowledge/catalog.h"
#include "knowledge/host_evidence.h"

#define PD_SCHEMA_VERSION "1.3"

/* A flow as a finding or the flow table names it. */
typedef struct pd_flow_ref {
	uint64_t flow_id;
	uint8_t proto;
	pd_addr client, server;
	uint16_t client_port, server_port;
	char app[48];
	char community_id[40]; /* "1:base64", Zeek/Suricata compatible */
} pd_flow_ref;

typedef struct pd_evidence {
	uint64_t frame; /* 1-based */
	pd_time ts;
	char what[64]; /* short label: "SYN retransmission #2" */
	char what_zh[96]; /* the same in Chinese */
} pd_evidence;

/* How a metric combines when findings of one id on several flows become
 * one capture-wide finding (stated by the detector that measured it). */
typedef enum pd_agg {
	PD_AGG_SUM, /* counts, time lost, volumes */
	PD_AGG_MAX, /* levels, sizes, moments: the largest */
	PD_AGG_MIN, /* the smallest */
} pd_agg;

typedef struct pd_metric {
	const char *key; /* static, snake_case: "syn_retransmits" */
	double value;
	const char *unit; /* static: "count", "s", "ms", "bytes", "bytes/s", "ratio", "ticks" */
	pd_agg agg;
} pd_metric;

#define PD_FINDING_MAX_FLOWS 32 /* flows listed; flow_count says how many in all */
#define PD_FINDING_MAX_EXAMPLES 8
#define PD_FINDING_MAX_SETTINGS 8
#define PD_FINDING_MAX_CONSEQUENCES 8

typedef struct pd_finding {
	const pd_finding_def *def; /* id, category, texts, default settings */
	pd_severity severity;
	double confidence; /* 0..1 */
	char *detail; /* one measured line, English, owned */
	char *detail_zh; /* the same in Chinese (English where untranslated), owned */
	bool capture_wide; /* aggregates many flows */
	uint64_t flow_count;
	GArray *flows; /* pd_flow_ref, at most PD_FINDING_MAX_FLOWS */
	uint64_t occurrences;
	pd_evidence first, last;
	GArray *examples; /* pd_evidence, at most PD_FINDING_MAX_EXAMPLES */
	GArray *metrics; /* pd_metric */
	double impact_s; /* time lost, seconds; 0 when not measurable */
	const char *settings[PD_FINDING_MAX_SETTINGS]; /* KB names, most likely first */
	size_t n_settings;
	bool known; /* present in the --baseline report */
	/* One problem, one finding (knowledge/causality.c): the catalogue id
	 * of the finding that explains this one on its flows (its severity
	 * then drops to info), or NULL; and the ids this one explains. */
	const char *explained_by;
	const char *consequences[PD_FINDING_MAX_CONSEQUENCES];
	size_t n_consequences;
	/* One problem on several flows is one finding: all its flows go to
	 * one server endpoint (scope "server"), and members holds the
	 * findings of one flow each that were merged into it, with each flow's
	 * own detail, evidence and metrics (pd_finding*, owned, at most
	 * PD_FINDING_MAX_FLOWS; NULL when it was made as it is). */
	bool one_server;
	GPtrArray *members;
	/* What --host snapshots said (analyzer/run.c, after detection), per
	 * setting, parallel to settings (set only when host_source is): the
	 * verdict and the host fact behind it, English and Chinese, owned. */
	const char *host_source; /* the snapshot (DIR or .tar.gz) used, or NULL */
	pd_host_verdict host_verdict[PD_FINDING_MAX_SETTINGS];
	char *host_fact[PD_FINDING_MAX_SETTINGS], *host_fact_zh[PD_FINDING_MAX_SETTINGS];
	char *host_counters, *host_counters_zh; /* "TcpExtListenOverflows +2 during the capture; ..." */
	/* Where on the path it happened, from two capture points
	 * (analyzer/points_report.c): static, English and Chinese, or NULL. */
	const char *segment, *segment_zh;
} pd_finding;

typedef struct pd_linktype_count {
	int linktype;
	uint64_t packets;
} pd_linktype_count;

typedef struct pd_app_count {
	char name[48];
	uint64_t flows;
} pd_app_count;

typedef struct pd_flow_row {
	pd_flow_ref ref;
	uint64_t first_frame, last_frame;
	pd_time first_ts, last_ts;
	uint64_t pkts[2], bytes[2]; /* [0] client->server, [1] server->client; payload bytes */
	pd_time hs_rtt; /* -1 unknown */
	uint32_t retrans, ooo, dupacks, zero_win; /* both directions */
	const char *state; /* static: "closed", "reset", "open", "syn-only", "udp" */
} pd_flow_row;

/* A capture note (truncation, a cap hit, ...) in English and Chinese. */
typedef struct pd_note {
	char *en;
	char *zh; /* the same in Chinese (English where untranslated) */
} pd_note;

typedef struct pd_capture_summary {
	GPtrArray *files; /* char*, as given */
	GArray *linktypes; /* pd_linktype_count */
	uint64_t packets, wire_bytes, captured_bytes;
	pd_time first_ts, last_ts;
	uint32_t snaplen; /* largest snaplen among the files */
	uint64_t snap_truncated; /* frames with caplen < wirelen */
	uint64_t malformed[PD_MAL__COUNT];
	uint64_t not_ip, unsupported_link, ip_truncated;
	uint64_t ipv4, ipv6, tcp, udp, icmp, other_l4, fragments;
	uint64_t tcp_flows, udp_flows;
	uint64_t other_flows; /* pseudo-flows: IP fragments without their first fragment, protocols without ports */
	uint64_t flows_evicted; /* flow-table cap hit */
	GArray *apps; /* pd_app_count, sorted by flows desc then name */
	bool input_truncated; /* a file ended mid-record */
	GArray *notes; /* pd_note, owned: add with pd_capture_note() */
	GPtrArray *errors; /* char*: per-file read errors */
	/* The capture's identity, filled by pd_report_hash_files() (the CLI
	 * calls it for --format jsonl): the SHA-256 of each file's bytes as
	 * stored (a .gz file's compressed bytes), parallel to files; "" for
	 * one that could not be hashed (standard input). NULL when not asked. */
	GPtrArray *file_sha256; /* char*, lowercase hex */
	GArray *file_sizes; /* uint64_t bytes, parallel to files; 0 unknown */
	GPtrArray *hosts; /* char*: the --host snapshots given (used or not: see notes), owned; NULL none */
} pd_capture_summary;

/* Packet series behind the HTML report's pictures (analyzer/series.c,
 * only for --format html): per flagged flow, a bounded sample of its
 * packets. Only the HTML renderer reads them. */
#define PD_MARK_RETRANS 0x01 /* data below the highest sequence seen that way */
#define PD_MARK_SYN 0x02
#define PD_MARK_SYN_RETRY 0x04 /* a SYN (or SYN-ACK) seen again */
#define PD_MARK_ZERO_WIN 0x08 /* advertises a zero window */
#define PD_MARK_ZWP 0x10 /* 0-1 byte segment while the peer's window is zero */
#define PD_MARK_EVIDENCE 0x20 /* a frame one of the flow's findings names */
#define PD_MARK_FIN 0x40
#define PD_MARK_RST 0x80
#define PD_MARK_ONE_POINT 0x100 /* two capture points: seen at this point only (lost between them, or missed by the other capture) */

typedef struct pd_series_point {
	uint64_t frame; /* Wireshark's frame number */
	pd_time ts;
	uint32_t seq, len; /* seq relative to the direction's SYN (SYN = 0, first byte = 1) */
	uint32_t ack; /* relative to the other direction's SYN; 0 without ACK */
	uint32_t win; /* this packet's window, bytes (scaled when both SYNs showed it) */
	uint32_t in_flight; /* bytes this direction sent and the other has not ACKed yet */
	uint32_t peer_win; /* the other direction's last window, bytes */
	uint8_t dir; /* 0 client->server, 1 server->client */
	uint8_t flags; /* TCP flags */
	uint16_t marks; /* PD_MARK_* */
} pd_series_point;

typedef struct pd_series_rtt {
	uint64_t frame; /* the segment's frame */
	pd_time ts;
	uint32_t rtt_us;
	uint8_t dir; /* direction of the data segment */
} pd_series_rtt;

/* Inter-segment gaps: log bins, PD_SERIES_GAP_PER_DECADE per decade from
 * 10 us; the first bin takes anything shorter, the last anything longer. */
#define PD_SERIES_GAP_BINS 36
#define PD_SERIES_GAP_PER_DECADE 5
#define PD_SERIES_GAP_MIN_S 1e-5

typedef struct pd_flow_series {
	pd_flow_ref ref;
	uint64_t first_frame, last_frame;
	pd_time first_ts, last_ts;
	uint64_t packets; /* the flow's packets read; points holds a sample */
	uint64_t payload[2]; /* bytes per direction */
	GArray *points; /* pd_series_point, frame order, bounded */
	GArray *rtt; /* pd_series_rtt, bounded */
	uint32_t gaps[2][PD_SERIES_GAP_BINS]; /* per direction, every data segment counted */
	uint8_t data_dir; /* direction with more payload */
	bool wscale_known; /* both SYNs seen: windows are in bytes */
	/* Two capture points (r->points, verdict two): the capture point of
	 * these packets (an index of r->points->files), and the same
	 * connection at the other point, its times moved by the clock offset
	 * into this file's clock and its sequence numbers from its own ISN
	 * (owned; NULL with one file or when the other file lacks it).
	 * points_matched: the packets of both were matched one to one, so
	 * PD_MARK_ONE_POINT says which crossed and which did not. */
	struct pd_flow_series *partner;
	int point;
	pd_time shift; /* added to the partner's own times (its clock to this one's) */
	bool points_matched;
} pd_flow_series;

typedef struct pd_series_set {
	GPtrArray *flows; /* pd_flow_series*, in the order the findings name them */
	char *unavailable; /* why there are none (standard input), or NULL */
	size_t max_points; /* the bound per flow */
	size_t flows_left_out; /* flagged flows past the bound on flows */
} pd_series_set;

void pd_series_set_free(pd_series_set *s);
/* The series of a flow, or NULL. */
const pd_flow_series *pd_series_find(const pd_series_set *s, uint64_t flow_id);


/* Two capture points of the same connections (analyzer/points.c): what
 * the pairing of two input files found. Point 0 is the first file given,
 * point 1 the second. Per direction of a connection, "up" is the point the
 * packets pass first (the client's side for client->server). */
typedef enum pd_points_verdict {
	PD_POINTS_TWO = 0, /* two points of the same connections */
	PD_POINTS_ROTATION, /* one point split in two files: merged */
	PD_POINTS_DUPLICATE, /* the same point twice: identical frames */
	PD_POINTS_DISJOINT, /* no connection in common */
} pd_points_verdict;

#define PD_POINTS_MAX_LOST 8

typedef struct pd_points_dir {
	uint64_t both; /* seen at both points */
	uint64_t only_up; /* left the upstream point, never reached the downstream one */
	uint64_t only_down; /* seen downstream only (upstream capture missed it, or made between) */
	uint64_t outside; /* upstream only, but outside the other file's time span */
	uint64_t lost_syn; /* of only_up: SYNs (client->server) or SYN-ACKs */
	uint64_t lost_data; /* of only_up: segments with payload */
	uint64_t reordered; /* arrived downstream before one that left upstream earlier */
	uint64_t delay_n;
	double delay_min_ms, delay_p50_ms, delay_p95_ms, delay_max_ms;
	double delay_early_ms, delay_late_ms; /* medians of the first and last quarter */
	int ttl_up, ttl_down; /* first packet seen at both; -1 unknown */
	uint64_t dscp_changed, ecn_changed, ece_cwr_changed;
	uint64_t lost_frames[PD_POINTS_MAX_LOST]; /* frames of the upstream file */
	uint32_t n_lost_frames;
	uint64_t lost_syn_frames[PD_POINTS_MAX_LOST]; /* the lost SYNs or SYN-ACKs among them */
	uint32_t n_lost_syn_frames;
} pd_points_dir;

typedef struct pd_points_conn {
	pd_addr client[2], server[2]; /* as seen at each point */
	uint16_t cport[2], sport[2];
	uint64_t first_frame[2];
	bool translated; /* the tuples differ: NAT between the points */
	pd_points_dir dir[2]; /* [0] client->server, [1] server->client */
	bool seq_known[2];
	uint32_t seq_offset[2]; /* point 1's ISN minus point 0's, per direction */
	/* options of the SYN [0] and SYN-ACK [1] as seen at each point
	 * [point]: -1 absent or not seen at both */
	int mss[2][2], wscale[2][2], sack[2][2], ts[2][2];
} pd_points_conn;

typedef struct pd_points {
	pd_points_verdict verdict;
	bool forced; /* --points */
	char *files[2];
	int client_side; /* the point nearer the client: 0 or 1; -1 unknown */
	int analysed; /* the point the findings come from */
	double offset_s; /* point 1's clock minus point 0's */
	double uncertainty_s; /* +- around offset_s (half the sum of the minimum one-way delays) */
	uint64_t samples; /* packets the offset was estimated from */
	bool drift_known; /* samples both ways, early and late */
	double drift_ppm; /* how much faster point 1's clock runs than point 0's */
	double drift_uncertainty_ppm; /* +- around drift_ppm */
	uint64_t n_conns[2]; /* TCP connections read at each point */
	uint64_t packets[2]; /* TCP packets read at each point */
	uint64_t paired; /* connections seen at both */
	uint64_t translated; /* of them, with a NAT between */
	bool capped; /* a file had more packets than the pairing keeps */
	bool truncated[2];
	pd_points_dir total[2]; /* all paired connections, per direction */
	GArray *conns; /* pd_points_conn, paired ones, by first frame at point 0 */
} pd_points;

void pd_points_free(pd_points *p);

typedef struct pd_report {
	pd_capture_summary cap;
	GArray *flows; /* pd_flow_row; NULL unless the flow table was asked for */
	uint64_t flows_omitted; /* rows beyond the cap */
	GPtrArray *findings; /* pd_finding*, sorted: severity desc, impact desc, id, first frame */
	pd_series_set *series; /* NULL unless collected for --format html */
	pd_points *points; /* NULL unless two files were paired (analyzer/points.c) */
} pd_report;

/* The finding's metric of that key into *value; false when it has none. */
bool pd_finding_metric_of(const pd_finding *f, const char *key, double *value);

pd_report *pd_report_new(void);
void pd_report_free(pd_report *r);

/* Hashes every input file named in r->cap.files (report/identity.c),
 * reading the files again as bytes (never as packets): ~4 s per GB.
 * Standard input ("-") and files that cannot be read get "". */
void pd_report_hash_files(pd_report *r);
void pd_finding_free(pd_finding *f);

/* Adds a capture note: en and zh are printf formats taking the same
 * arguments, as a detector's sentences (report/text.h). */
#define pd_capture_note(c, en, zh, ...) PD_TXT_CALL(pd_capture_note_, (c), en, zh, ##__VA_ARGS__)
void pd_capture_note_(pd_capture_summary *c, const pd_text *t, ...);
/* A note already written in both languages; takes both strings. */
void pd_capture_note_take(pd_capture_summary *c, char *en, char *zh);
/* The note in the report's language. */
const char *pd_note_in(const pd_note *n, bool zh);

/* The detail and an evidence label in the report's language (zh: Chinese
 * where the detector gave one, else English). */
const char *pd_finding_detail_in(const pd_finding *f, bool zh);
const char *pd_evidence_what_in(const pd_evidence *e, bool zh, char buf[128]);

/* Sorts findings in the canonical order. */
void pd_report_sort(pd_report *r);

const char *pd_severity_name(pd_severity s);
bool pd_severity_parse(const char *s, pd_severity *out);
const char *pd_category_name(pd_category c);

/* Time as "seconds.nanoseconds" (exact, for JSON) and ISO-8601 UTC. */
void pd_time_str(pd_time t, char *buf, size_t len);
void pd_time_iso(pd_time t, char *buf, size_t len);
#define PD_TIME_STRLEN 40

#endif
