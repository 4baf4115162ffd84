/* Which problem explains which symptoms on the same flow; see causality.h.
 * Each row is a claim about how Linux TCP behaves, reviewable on its own. */
#include "knowledge/causality.h"

#include <string.h>

const pd_causality pd_causalities[] = {
	/* The dropped handshake ACK leaves the client's data unacknowledged:
	 * it is retransmitted on RTO (and probed at the tail) until an ACK gets
	 * through; the server's SYN-ACK retransmissions are the same stall. */
	{"accept-queue-overflow",
	 {"retransmissions", "rto-timeouts", "tail-loss", "spurious-retransmissions", "synack-retransmit",
	  "syn-retransmit", NULL}},
	/* A full accept queue also drops new SYNs (tcp_conn_request), so the
	 * clients' SYN retries above are the same overflow. */
	/* The listener's drops are why these clients retried their SYNs. */
	{"listener-overload", {"syn-retransmit", "syn-unanswered", NULL}},
	{"syn-flood", {"syn-retransmit", "syn-unanswered", NULL}},
	/* Full-size segments vanish in the black hole: every resend of them is
	 * a timeout, and the flow stalls until the MSS shrinks. */
	{"pmtu-blackhole", {"retransmissions", "rto-timeouts", "tail-loss", NULL}},
	{"pmtu-not-adapted", {"retransmissions", "rto-timeouts", "tail-loss", NULL}},
	/* A closed window stops the sender; its probes and the flight capped
	 * at the window are the same stall. */
	{"zero-window",
	 {"window-limited", "sender-limited", "rto-timeouts", "tail-loss", "retransmissions",
	  "spurious-retransmissions", NULL}},
	/* (Data in flight when the window closed times out while the receiver
	 * withholds its ACKs; it had the bytes, so D-SACK calls them spurious.)
	 * A window that never grows is how the window limit shows. */
	{"window-limited", {"receive-window-fixed", NULL}},
	/* The rejected SYN is retried: that retry is the PAWS rejection's cost. */
	{"paws-rejected-syn", {"syn-retransmit", NULL}},
	/* The SYN was refused (an ICMP error, or a stale state answered with a
	 * challenge ACK): the client's retries are that refusal's cost. */
	{"syn-rejected-icmp", {"syn-retransmit", "syn-unanswered", NULL}},
	{"syn-rejected-existing-state", {"syn-retransmit", NULL}},
	/* The ECN-setup SYN was dropped; the retry without ECN is its cost. */
	{"ecn-syn-dropped", {"syn-retransmit", NULL}},
	/* The middlebox forgot the connection: what the ends send after the
	 * idle period is dropped and resent into silence until they give up. */
	{"middlebox-idle-timeout",
	 {"retransmissions", "rto-timeouts", "tail-loss", "spurious-retransmissions", "keepalive", "reset-injected",
	  "reset-stale-connection", NULL}},
	/* The receiver drops every segment whose timestamp went backwards and
	 * only re-ACKs: the sender resends them until it times out. */
	{"paws-rejected-data", {"retransmissions", "rto-timeouts", "tail-loss", "spurious-retransmissions", NULL}},
	/* First copies dropped inside the sending host are why it resent. */
	{"local-drop", {"retransmissions", "rto-timeouts", "tail-loss", NULL}},
};

const size_t pd_causalities_len = sizeof pd_causalities / sizeof pd_causalities[0];

bool pd_explains(const char *cause, const char *symptom)
{
	for (size_t i = 0; i < pd_causalities_len; i++) {
		if (strcmp(pd_causalities[i].cause, cause))
			continue;
		for (const char *const *c = pd_causalities[i].consequences; *c; c++)
			if (!strcmp(*c, symptom))
				return true;
	}
	return false;
}
