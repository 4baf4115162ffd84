/* Which problem explains which symptoms on the same flow; see causality.h.
 * Each row is a claim about how Linux TCP behaves, reviewable on its own. */
#include "knowledge/causality.h"

#include <string.h>

const pd_causality pd_causalities[] = {
	/* The dropped handshake ACK leaves the client's data unacknowledged:
	 * it is retransmitted on RTO (and probed at the tail) until an ACK gets
	 * through; the server's SYN-ACK retransmissions are the same stall. */
	{.cause = "accept-queue-overflow",
	 .consequences = {"retransmissions", "rto-timeouts", "tail-loss", "spurious-retransmissions", "synack-retransmit",
	  "syn-retransmit", NULL}},
	/* A full accept queue also drops new SYNs (tcp_conn_request): the
	 * other clients of that listener who retried their SYNs while it
	 * overflowed met the same queue. */
	{.cause = "accept-queue-overflow",
	 .consequences = {"syn-retransmit", "syn-unanswered", "listener-overload", NULL},
	 .same_server = true},
	/* The listener's drops are why these clients retried their SYNs. */
	{.cause = "listener-overload", .consequences = {"syn-retransmit", "syn-unanswered", NULL}, .same_server = true},
	{.cause = "syn-flood", .consequences = {"syn-retransmit", "syn-unanswered", NULL}, .same_server = true},
	/* A full state table drops every new connection's SYN on the way: the
	 * clients' retries, their giving up, and many clients retrying toward
	 * one listener at once, are that table's doing. */
	{.cause = "state-table-full",
	 .consequences = {"syn-retransmit", "syn-unanswered", "listener-overload", NULL},
	 .same_server = true},
	/* Full-size segments vanish in the black hole: every resend of them is
	 * a timeout, and the flow stalls until the MSS shrinks. */
	{.cause = "pmtu-blackhole", .consequences = {"retransmissions", "rto-timeouts", "tail-loss", NULL}},
	{.cause = "pmtu-not-adapted", .consequences = {"retransmissions", "rto-timeouts", "tail-loss", NULL}},
	/* A closed window stops the sender; its probes and the data caught in
	 * flight when it closed are the same stall. */
	{.cause = "zero-window",
	 .consequences = {"sender-limited", "rto-timeouts", "tail-loss", "retransmissions", "spurious-retransmissions",
	  NULL}},
	/* The receiver's buffer that closed the window also caps the flight
	 * between its stalls: one slow or small receiver. */
	{.cause = "zero-window", .consequences = {"window-limited", NULL}, .whole_flow = true},
	/* (Data in flight when the window closed times out while the receiver
	 * withholds its ACKs; it had the bytes, so D-SACK calls them spurious.)
	 * A window that never grows is how the window limit shows. */
	{.cause = "window-limited", .consequences = {"receive-window-fixed", NULL}},
	/* The rejected SYN is retried: that retry is the PAWS rejection's cost. */
	{.cause = "paws-rejected-syn", .consequences = {"syn-retransmit", NULL}},
	/* The SYN was refused (an ICMP error, or a stale state answered with a
	 * challenge ACK): the client's retries are that refusal's cost. */
	{.cause = "syn-rejected-icmp", .consequences = {"syn-retransmit", "syn-unanswered", NULL}},
	{.cause = "syn-rejected-existing-state", .consequences = {"syn-retransmit", NULL}},
	/* The ECN-setup SYN was dropped; the retry without ECN is its cost. */
	{.cause = "ecn-syn-dropped", .consequences = {"syn-retransmit", NULL}},
	/* The middlebox forgot the connection: what the ends send after the
	 * idle period is dropped and resent into silence until they give up. */
	{.cause = "middlebox-idle-timeout",
	 .consequences = {"retransmissions", "rto-timeouts", "tail-loss", "spurious-retransmissions", "keepalive", "reset-injected",
	  "reset-stale-connection", NULL}},
	/* The receiver drops every segment whose timestamp went backwards and
	 * only re-ACKs: the sender resends them until it times out. */
	{.cause = "paws-rejected-data", .consequences = {"retransmissions", "rto-timeouts", "tail-loss", "spurious-retransmissions", NULL}},
	/* Lost data recovered on the retransmission timer: the resends and the
	 * timeouts are one problem. Which one names it is the loss detector's
	 * call on the flow: a peer that went silent is the timeouts' (how long
	 * the sender keeps trying), a path that lost some segments is the
	 * retransmissions' (the timeouts are what recovering cost). */
	{.cause = "rto-timeouts", .consequences = {"retransmissions", "tail-loss", NULL}, .declared = true},
	{.cause = "retransmissions", .consequences = {"rto-timeouts", "tail-loss", NULL}, .declared = true},
	/* First copies dropped inside the sending host are why it resent. */
	{.cause = "local-drop", .consequences = {"retransmissions", "rto-timeouts", "tail-loss", NULL}},
};

const size_t pd_causalities_len = sizeof pd_causalities / sizeof pd_causalities[0];

/* Which rows a question may use. */
enum { ROWS_FLOW, ROWS_SIBLING, ROWS_DECLARED, ROWS_WHOLE_FLOW };

static bool explains(const char *cause, const char *symptom, int rows)
{
	for (size_t i = 0; i < pd_causalities_len; i++) {
		const pd_causality *r = &pd_causalities[i];
		if (strcmp(r->cause, cause) || (rows == ROWS_SIBLING && !r->same_server) ||
		    (r->declared && rows != ROWS_DECLARED) || (rows == ROWS_WHOLE_FLOW && !r->whole_flow))
			continue;
		for (const char *const *c = r->consequences; *c; c++)
			if (!strcmp(*c, symptom))
				return true;
	}
	return false;
}

bool pd_explains(const char *cause, const char *symptom)
{
	return explains(cause, symptom, ROWS_FLOW);
}

bool pd_explains_declared(const char *cause, const char *symptom)
{
	return explains(cause, symptom, ROWS_DECLARED);
}

bool pd_explains_sibling(const char *cause, const char *symptom)
{
	return explains(cause, symptom, ROWS_SIBLING);
}

bool pd_explains_anywhere(const char *cause, const char *symptom)
{
	return explains(cause, symptom, ROWS_WHOLE_FLOW);
}
