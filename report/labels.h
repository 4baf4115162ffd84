/* Everything the text, Markdown and HTML renderers print themselves, in
 * English and Chinese: one table (labels.c) so the formats cannot drift
 * apart, and a test can check that a Chinese report carries none of the
 * English labels. Catalogue and knowledge-base prose comes from knowledge/;
 * detector details and evidence notes come from the detectors.
 *
 * Every member is a `const char *` (the test walks the struct as an
 * array). Where Chinese puts a word around a number differently, a label
 * comes as a prefix and a suffix ("3 occurrences" / "出现 3 次"): the
 * renderers print pre NUMBER post and never build a format string. */
#ifndef PD_LABELS_H
#define PD_LABELS_H

#include <glib.h>
#include <stdbool.h>
#include <stdint.h>

typedef struct pd_labels {
	/* punctuation: "; " / "；" and ": " / "：" */
	const char *sep, *colon;
	/* headings */
	const char *report, *verdict, *capture, *quality, *findings, *flow_table, *flow_details,
		*summary;
	/* capture summary */
	const char *files, *packets, *on_wire_pre, *on_wire_post, *span_pre, *from, *to,
		*duration, *start, *link_types, *protocols, *other, *non_ip, *fragments, *flows,
		*evicted, *apps, *snaplen, *truncated_frames, *malformed, *notes, *errors,
		*input_truncated, *no_quality;
	/* verdict */
	const char *no_findings, *no_traffic_findings, *no_problems_info_pre, *no_problems_info_post,
		*problems_pre, *problems_post, *problems_post_one, *lost_total_pre, *lost_total_post, *lost_pre,
		*lost_post, *cost_unmeasured, *whole_capture, *server, *servers_post, *first_step,
		*check_cmd, *change_cmd, *verdict_then;
	/* finding details */
	const char *errors_n, *warnings_n, *infos_n, *category, *confidence, *time_lost,
		*occ_pre, *occ_post, *occ_post_one, *known, *meaning, *seen, *where, *flows_n, *listed,
		*packets_h, *first, *last, *settings, *default_, *check, *change, *caveat,
		*removed_in, *alternatives, *also_settings, *fold_pointer, *explained_by, *explains;
	/* tables */
	const char *severity, *finding, *time_lost_s, *occurrences, *flow, *client, *server_h,
		*application, *value, *omitted, *rtt, *retrans, *state, *frames, *pkts, *bytes,
		*ooo, *dupack, *zero_win, *first_packet, *last_packet, *pkts_cs, *bytes_cs,
		*retransmissions, *out_of_order, *dup_acks, *zero_windows, *community_id;
	/* units after a number */
	const char *u_s, *u_ms, *u_bytes, *u_bytes_s, *u_flows, *u_frames;
	/* HTML report */
	const char *pictures, *tseq, *tseq_note, *inflight, *inflight_note, *rtt_chart,
		*rtt_note, *gaps, *gaps_note, *legend_data, *legend_retrans, *legend_syn,
		*legend_zwp, *legend_zero, *legend_evidence, *legend_ack, *legend_win,
		*legend_inflight, *legend_rtt, *legend_cluster, *axis_time, *axis_seq,
		*axis_bytes, *axis_rtt_ms, *axis_gap, *axis_count, *sampled_pre, *sampled_mid,
		*sampled_post, *no_series_stdin, *no_series, *marked_frames, *more_flows_pre,
		*more_flows_post, *generated_by, *legend_one_point, *point_clock,
		*one_point_title, *tseq_points_note, *axis_time_points;
	/* enumerations */
	const char *kinds[6], *sides[6], *sev[3], *sev_lower[3];
	const char *states[5]; /* closed, reset, open, syn-only, udp */
} pd_labels;

const pd_labels *pd_labels_get(bool zh);
/* The number of strings in a pd_labels (for the tests). */
#define PD_LABELS_COUNT (sizeof(pd_labels) / sizeof(const char *))

/* A flow state from the model ("closed", "reset", ...) in the report's
 * language; unknown ones as given. */
const char *pd_labels_state(const pd_labels *l, const char *state);

/* A metric unit ("s", "ms", "bytes", "bytes/s", "count", "ratio") after a
 * number: " s" / " 秒"; "" for count and ratio. */
const char *pd_labels_unit(const pd_labels *l, const char *unit);

/* The word after a number of occurrences, singular or plural. */
const char *pd_labels_occurrences(const pd_labels *l, uint64_t n);

/* Seconds as "1.269 s" / "1.269 秒", appended. */
void pd_labels_seconds(GString *b, const pd_labels *l, double s);

#endif
