/* Host snapshots: what a host's own commands said while the capture ran.
 *
 * `pcapdoc --host DIR` (or a .tar.gz of the same files) gives plain-text
 * outputs of read-only commands: sysctl -a, nstat -az (before and after the
 * capture), ss -tmi (any number), conntrack -S / -C, ip addr, ip -s link,
 * tc -s qdisc, /proc/net/softnet_stat (before and after), uname -r, hostname. Each file is recognised by its content, never its name. Every
 * parser here is a bounded line reader over text that may be anything:
 * garbage, truncated, another command's output; it never crashes and says
 * why a file was not used (pd_host.notes). */
#ifndef PD_HOST_H
#define PD_HOST_H

#include <glib.h>
#include <stdbool.h>
#include <stdint.h>

#include "dissect/packet.h"

#define PD_HOST_MAX_SOCKS 1000000 /* ~100 MB: a busy server's ss, many times over */

/* What one file turned out to be. */
typedef enum pd_host_kind {
	PD_HK_UNKNOWN = 0,
	PD_HK_SYSCTL,
	PD_HK_NSTAT,
	PD_HK_SS,
	PD_HK_CONNTRACK_S,
	PD_HK_CONNTRACK_C,
	PD_HK_IPADDR,
	PD_HK_UNAME,
	PD_HK_HOSTNAME,
	PD_HK_IPLINK, /* ip -s link: per-interface RX/TX counters */
	PD_HK_QDISC, /* tc -s qdisc: per-qdisc dropped / overlimits */
	PD_HK_SOFTNET, /* /proc/net/softnet_stat: per-CPU backlog drops, time squeezes */
} pd_host_kind;

/* One counter snapshot: nstat -az (counter name -> value), and in the same
 * shape ip -s link ("IF rx_dropped"), tc -s qdisc ("IF dropped") and
 * softnet_stat ("dropped", summed over the CPUs). */
typedef struct pd_host_nstat {
	char *file;
	double time; /* seconds since the epoch; 0 unknown */
	GHashTable *v; /* char* -> int64_t* (owned) */
	double total; /* sum of all values: the later snapshot has the larger one */
} pd_host_nstat;

/* conntrack -S summed over CPUs. */
typedef struct pd_host_ctstat {
	char *file;
	double time;
	int64_t found, invalid, insert, insert_failed, drop, early_drop, error;
} pd_host_ctstat;

/* One socket line of ss -tmi (with its detail line). */
typedef struct pd_host_sock {
	char state[16];
	pd_addr local, peer;
	uint16_t lport, pport;
	int64_t recvq, sendq; /* LISTEN: accept queue now and its limit (the backlog) */
	int64_t rb, tb; /* skmem rb / tb (bytes); -1 unknown */
	int64_t rcv_space, snd_wnd, rcv_wnd; /* -1 unknown */
	double time; /* of the ss snapshot it came from */
} pd_host_sock;

typedef struct pd_host_net {
	pd_addr addr;
	unsigned prefix;
	char ifname[16]; /* the interface ip addr names it on ("" unknown; "eth0@if3" as "eth0") */
} pd_host_net;

typedef struct pd_host {
	char *source; /* the DIR or .tar.gz as given */
	const char *ref; /* the report's copy of source (findings point at it); not owned */
	char hostname[64];
	char kernel[64];
	GHashTable *sysctl; /* char* name -> char* value */
	GPtrArray *nstat; /* pd_host_nstat*, in time order once loaded (pd_host_load sorts) */
	GPtrArray *ctstat; /* pd_host_ctstat*, time order */
	GPtrArray *link, *qdisc, *softnet; /* pd_host_nstat* of ip -s link, tc -s qdisc, softnet_stat; time order */
	int64_t ct_count; /* conntrack -C; -1 unknown */
	GArray *socks; /* pd_host_sock, at most PD_HOST_MAX_SOCKS over all snapshots */
	bool socks_capped; /* some were left out */
	GArray *nets; /* pd_host_net: the host's own addresses */
	double first_time, last_time; /* snapshot times seen; 0 none */
	GPtrArray *notes_en, *notes_zh; /* char*: files not used and why */
	unsigned files_used;
} pd_host;

/* Reads DIR (every regular file, not recursive) or a .tar.gz / .tgz. Never
 * NULL; a path that cannot be read leaves a note and nothing else. */
pd_host *pd_host_load(const char *path);
void pd_host_free(pd_host *h);

/* Parses one file's text into h (name for the notes). Returns the kind it
 * was taken for, PD_HK_UNKNOWN when not used (a note says why). */
pd_host_kind pd_host_add_text(pd_host *h, const char *name, const char *text, size_t len, double mtime);

/* Facts, or false when the snapshots do not tell. */
bool pd_host_sysctl_int(const pd_host *h, const char *name, unsigned field, int64_t *out);
/* The counter's change from the first nstat snapshot to the last; with one
 * snapshot, its absolute value (*absolute set). */
bool pd_host_counter(const pd_host *h, const char *name, int64_t *delta, bool *absolute);
/* The same for a counter of one of the link / qdisc / softnet series. */
bool pd_host_series_delta(const GPtrArray *snaps, const char *key, int64_t *delta, bool *absolute);
/* Per-interface counter (ip -s link, tc -s qdisc) summed over the
 * interfaces ifs (NULL-terminated), or over every interface but lo when ifs
 * is NULL or none of them is in the snapshots (*all set). */
bool pd_host_if_delta(const GPtrArray *snaps, const char *const *ifs, const char *counter, int64_t *delta,
		      bool *absolute, bool *all);
bool pd_host_ct_delta(const pd_host *h, int64_t *drop, int64_t *insert_failed, int64_t *early_drop);
bool pd_host_has_addr(const pd_host *h, const pd_addr *a);
/* a is on a network the host has an address on (a router, a neighbour). */
bool pd_host_on_net(const pd_host *h, const pd_addr *a);

/* The line parsers, one per kind (host/<kind>.c): each takes the whole
 * text, bounded by len, and fills h; false when the text is not that kind. */
bool pd_host_parse_sysctl(pd_host *h, const char *text, size_t len);
bool pd_host_parse_nstat(pd_host *h, const char *name, const char *text, size_t len, double time);
bool pd_host_parse_ss(pd_host *h, const char *text, size_t len, double time);
bool pd_host_parse_conntrack_s(pd_host *h, const char *name, const char *text, size_t len, double time);
bool pd_host_parse_ipaddr(pd_host *h, const char *text, size_t len);
bool pd_host_parse_iplink(pd_host *h, const char *name, const char *text, size_t len, double time);
bool pd_host_parse_qdisc(pd_host *h, const char *name, const char *text, size_t len, double time);
bool pd_host_parse_softnet(pd_host *h, const char *name, const char *text, size_t len, double time);
/* Adds v to key's value in a counter snapshot's table (the series parsers'). */
void pd_host_series_add(GHashTable *t, const char *key, int64_t v);
/* Keeps a series snapshot: false (and t destroyed) when t is empty. */
bool pd_host_series_keep(GPtrArray *to, GHashTable *t, const char *name, double time);

/* A bounded line cursor over text. */
typedef struct pd_host_lines {
	const char *p, *end;
} pd_host_lines;
/* The next line (without its newline) into *line, *n; false at the end. */
bool pd_host_next_line(pd_host_lines *c, const char **line, size_t *n);
/* Parses a decimal int64 at s (bounded by n); *used how many chars. */
bool pd_host_int(const char *s, size_t n, int64_t *out, size_t *used);
/* ip's interface line "N: NAME[@PEER]: <FLAGS> ...": NAME into out (NUL
 * terminated, at most 15 chars); false when l is not one. */
bool pd_host_ifline(const char *l, size_t n, char out[16]);
/* "a.b.c.d" or an IPv6 address, optional "%if", optional "[...]". */
bool pd_host_addr_parse(const char *s, size_t n, pd_addr *out);

#endif
