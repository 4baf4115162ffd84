/* What a host's own snapshots say about a ranked setting: per (finding,
 * setting), the fact that confirms it or rules it out. Data only
 * (host_evidence.c); analyzer/run.c applies it after detection, detectors
 * never see it. docs/host-evidence.md explains every row. */
#ifndef PD_HOST_EVIDENCE_H
#define PD_HOST_EVIDENCE_H

#include <stddef.h>
#include <stdint.h>

typedef enum pd_host_verdict {
	PD_HV_NONE = 0, /* the snapshots say nothing about it */
	PD_HV_RULED_OUT,
	PD_HV_CONSISTENT,
	PD_HV_CONFIRMED,
} pd_host_verdict;

/* Which end of the finding's flows the snapshot must come from. */
typedef enum pd_he_end {
	PD_HE_SERVER, /* the host is the flows' server */
	PD_HE_EITHER, /* the host is one of the two ends */
	PD_HE_PATH, /* an end, or a router on a network of an end (conntrack) */
	PD_HE_SOCKET, /* the host holds the flow's socket in an ss snapshot */
} pd_he_end;

typedef enum pd_he_test {
	/* nstat counter `a` rose during the capture (one snapshot: is above 0) */
	PD_HE_COUNTER_ROSE,
	/* counter `a` rose while sysctl `b` is `value` */
	PD_HE_COUNTER_ROSE_SYSCTL_IS,
	/* conntrack full: nf_conntrack_count >= 90 % of nf_conntrack_max, or
	 * conntrack -S drop / insert_failed / early_drop rose. "no": count below
	 * half of max and no drop */
	PD_HE_CONNTRACK_FULL,
	/* a listener on the flows' server port (ss, LISTEN) has a backlog
	 * (Send-Q) below net.core.somaxconn: the application's listen() set it */
	PD_HE_BACKLOG_BELOW_SOMAXCONN,
	/* the same listener's backlog equals net.core.somaxconn */
	PD_HE_BACKLOG_AT_SOMAXCONN,
	/* the flow's socket (ss) has rb at net.ipv4.tcp_rmem's maximum:
	 * autotuning reached the cap. "no": rb below it */
	PD_HE_RB_AT_RMEM_MAX,
	/* rb below tcp_rmem's maximum on a window-limited socket: locked by
	 * SO_RCVBUF. "no": at the maximum */
	PD_HE_RB_BELOW_RMEM_MAX,
	/* tb below net.ipv4.tcp_wmem's maximum: locked by SO_SNDBUF. "no": at it */
	PD_HE_TB_BELOW_WMEM_MAX,
	/* tb at tcp_wmem's maximum: autotuning reached the cap. "no": below */
	PD_HE_TB_AT_WMEM_MAX,
	/* ip -s link: the sum of counters `a` (space-separated, "rx_dropped
	 * rx_missed") rose on the flow's interface(s): those whose network holds
	 * an end of the flow (ip addr), else every interface but lo. "no": 0 */
	PD_HE_LINK_ROSE,
	/* tc -s qdisc: the sum of `a` ("dropped", "overlimits") of the qdiscs on
	 * the flow's interface(s) rose. "no": 0 */
	PD_HE_QDISC_ROSE,
	/* /proc/net/softnet_stat: `a` ("dropped", "time_squeeze") summed over
	 * the CPUs rose. "no": 0 */
	PD_HE_SOFTNET_ROSE,
} pd_he_test;

typedef struct pd_host_rule {
	const char *finding; /* catalogue id */
	const char *setting; /* KB name as the finding ranks it */
	pd_he_end end;
	pd_he_test test;
	const char *a, *b; /* counter / sysctl names the test reads */
	int64_t value;
	pd_host_verdict if_yes, if_no; /* PD_HV_NONE: that outcome says nothing */
} pd_host_rule;

/* In order: a later row for the same (finding, setting) that decides
 * replaces an earlier one (the general fact first, the finer one after). */
extern const pd_host_rule pd_host_rules[];
extern const size_t pd_host_rules_len;

/* Counters that, having moved with no finding to explain them, become an
 * info finding (the capture may have missed what they count): the counter,
 * and the findings any of which explains it. */
#define PD_HOST_MAX_EXPLAINERS 6
typedef struct pd_host_unexplained {
	const char *counter;
	const char *explained_by[PD_HOST_MAX_EXPLAINERS]; /* NULL-terminated */
} pd_host_unexplained;

extern const pd_host_unexplained pd_host_watch[];
extern const size_t pd_host_watch_len;

/* The catalogue id of the info finding made for those. */
#define PD_HOST_COUNTER_FINDING "host-counter-moved"

const char *pd_host_verdict_name(pd_host_verdict v);

#endif
