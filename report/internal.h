/* Helpers shared by the report renderers (render.c). Not part of the
 * public interface: only report/ includes this. */
#ifndef PD_REPORT_INTERNAL_H
#define PD_REPORT_INTERNAL_H

#include "dissect/dissect.h"
#include "knowledge/kb.h"
#include "report/labels.h"
#include "report/render.h"

/* "10.0.0.1:80" / "[2001:db8::1]:80" appended to buf. */
void pd_r_endpoint(GString *buf, const pd_addr *a, uint16_t port);
/* A flow's client and server endpoints with sep between them. */
void pd_r_endpoints(GString *buf, const pd_flow_ref *f, const char *sep);
/* s for XML/HTML text or attribute values: pd_escape_text (XML 1.0
 * forbids most control characters), then & < > " as entities, and ' too
 * when apos (JUnit attributes; the Markdown <summary> leaves it). NULL
 * appends nothing. */
void pd_r_xml_escape(GString *buf, const char *s, bool apos);
/* "tcp", "udp", "icmp", or the number. */
const char *pd_r_proto_name(uint8_t proto, char *tmp, size_t len);

/* The finding's settings ranking, falling back to the catalogue's default
 * when the detector left it empty. Returns the count (<= PD_DEF_MAX_SETTINGS). */
size_t pd_r_settings(const pd_finding *f, const char **out);
/* What --host snapshots said about setting name of f (PD_HV_NONE: nothing),
 * and the fact behind it in each language (NULL none). */
pd_host_verdict pd_r_host_verdict(const pd_finding *f, const char *name, const char **fact_en,
				  const char **fact_zh);
/* "confirmed: FACT" for setting name of f in the language, into b (which
 * it clears); false when the snapshots said nothing about it. */
bool pd_r_host_line(GString *b, const pd_finding *f, const char *name, bool zh);
/* The label of those lines and of the counters line. */
const char *pd_r_host_label(bool zh);
/* Its first setting is confirmed by host counters. */
bool pd_r_host_confirmed(const pd_finding *f);

/* A finite number for JSON and text (NaN/inf would break determinism). */
double pd_r_finite(double v);

bool pd_r_is_zh(const pd_render_opts *o);

/* Writes what o holds to out and empties it once it has grown past
 * PD_R_SPILL bytes, so a long flow table is not built whole in memory.
 * false once a write failed (o is emptied all the same). */
#define PD_R_SPILL (64u << 10)
bool pd_r_spill(GString *o, FILE *out);
const char *pd_r_title(const pd_finding_def *d, bool zh);
const char *pd_r_explain(const pd_finding_def *d, bool zh);

/* Matching key of a finding in a JSON report (json_model.c's layout):
 * "id" for capture-wide findings, else "id|client_ip>server_ip:port,..."
 * over its distinct listed flows, sorted. The client port is left out on
 * purpose: it is ephemeral, so the same problem seen again gets the same key. */
char *pd_r_json_finding_key(const cJSON *finding);

/* Reads and parses a JSON report; NULL with *err set. */
cJSON *pd_r_load_json(const char *path, GError **err);

/* Counts of findings per severity. */
void pd_r_count(const pd_report *r, uint64_t counts[3]);

/* libpcap's name for a link type, or LINKTYPE_<n> when it has none. */
const char *pd_r_linktype_name(int linktype, char *buf, size_t len);

/* The verdict (verdict.c): the warnings and errors, most time lost first,
 * problems of the capture itself last; borrowed pointers (free the array
 * only). total_lost sums their impact_s; n_info counts the info notes. */
GPtrArray *pd_r_verdict(const pd_report *r, double *total_lost, size_t *n_info);
/* Where: "client -> server" for one flow, "N flows; server S" when the
 * listed flows share a server, "N flows; K servers", or "whole capture". */
void pd_r_verdict_where(GString *b, const pd_finding *f, const pd_labels *l, const char *arrow);
/* "; dropped between the two capture points": the segment of the path two
 * capture points located it in, after the place (nothing without one). */
void pd_r_verdict_segment(GString *b, const pd_finding *f, const pd_labels *l);
/* What it cost: "1.269 s lost" / "损失 1.269 秒", or "3 occurrences". */
void pd_r_verdict_cost(GString *b, const pd_finding *f, const pd_labels *l);
/* "confidence 95%". */
void pd_r_confidence(GString *b, const pd_finding *f, const pd_labels *l);
/* The first setting to look at (its KB entry, NULL when not in the KB or
 * none; *name NULL when none). */
const pd_setting *pd_r_first_setting(const pd_finding *f, const char **name);

/* Settings shown in full in a finding's details unless --verbose; the rest
 * are named in one line with a pointer to docs/settings.md. */
#define PD_R_SETTINGS_SHOWN 2

#endif
