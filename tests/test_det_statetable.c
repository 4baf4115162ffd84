/* det_statetable.c's rule, fed packets built in C (tests/harness.h): from
 * one moment on the SYNs of several clients go unanswered while the
 * connections already open go on exchanging data both ways. The golden
 * captures statetable-full-{client,router,server} show it on the kernel's
 * own packets (nf_conntrack_max=64), statetable-ok-* their healthy twins. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "harness.h"

#define SERVER "10.0.0.2"

typedef struct plan {
	int clients; /* client addresses 10.0.1.1.. */
	int open; /* connections set up at t=1 s */
	bool carry; /* the open ones exchange data after the onset */
	bool rst; /* the new SYNs are refused (RST) instead of dropped */
	bool answered_after; /* one more new connection gets through at the end */
	bool stall; /* a connection set up just before carries a request, never an answer */
	int ports; /* server ports the new attempts go to (80, 8080) */
} plan;

static void exchange(pd_harness *h, pd_hflow *c, int n)
{
	for (int i = 0; i < n; i++) {
		pd_harness_data(h, &c[i], PD_CLIENT, 20);
		pd_harness_later(h, 0.0002);
		pd_harness_data(h, &c[i], PD_SERVER, 20);
		pd_harness_later(h, 0.0002);
	}
}

/* Six new attempts (two per client address, over the ports), each SYN sent
 * at 2.0 + k*0.1 s and again 1, 2 and 3 s later. */
static void syn(pd_harness *h, const char *cli, int port, uint32_t isn)
{
	char srv[32];
	snprintf(srv, sizeof(srv), SERVER ":%d", port);
	pd_hseg s = {.flags = PD_TCP_SYN, .seq = isn, .win = 64240, .mss = 1460, .wscale = 7, .sack_ok = true, .df = true};
	pd_harness_tcp(h, cli, srv, &s);
}

static pd_report *run(const plan *p, const char *detectors)
{
	pd_harness *h = pd_harness_new(detectors);
	pd_harness_at(h, 1.0);
	pd_hflow c[80];
	int n = p->open;
	for (int i = 0; i < n; i++) {
		char cli[32];
		snprintf(cli, sizeof(cli), "10.0.1.%d:%d", 1 + i % 3, 40000 + i);
		c[i] = pd_harness_connect_isn(h, cli, SERVER ":80", 0.0005, 1000u + 7919u * (uint32_t)i,
					      900000u + 104729u * (uint32_t)i);
		pd_harness_later(h, 0.001);
	}
	pd_harness_at(h, 1.3);
	exchange(h, c, n);
	if (p->stall) {
		pd_harness_at(h, 1.9);
		c[n] = pd_harness_connect_isn(h, "10.0.1.1:45000", SERVER ":80", 0.0005, 5, 6);
		pd_harness_later(h, 0.001);
		pd_harness_data(h, &c[n], PD_CLIENT, 30);
	}
	char att[6][32];
	for (int k = 0; k < 6; k++)
		snprintf(att[k], sizeof(att[k]), "10.0.1.%d:%d", 1 + k % p->clients, 50000 + k);
	for (int round = 0; round < 4; round++) {
		pd_harness_at(h, 2.0 + round);
		for (int k = 0; k < 6; k++) {
			int port = p->ports > 1 && k % 2 ? 8080 : 80;
			syn(h, att[k], port, 77000u + 1000u * (uint32_t)k);
			if (p->rst && round == 0) {
				char srv[32];
				snprintf(srv, sizeof(srv), SERVER ":%d", port);
				pd_hseg r = {.flags = PD_TCP_RST | PD_TCP_ACK, .seq = 0, .ack = 77001u + 1000u * (uint32_t)k};
				pd_harness_tcp(h, srv, att[k], &r);
			}
			pd_harness_later(h, 0.1);
		}
		if (p->carry && round % 2) {
			pd_harness_later(h, 0.05);
			exchange(h, c, n);
		}
	}
	if (p->answered_after) {
		pd_harness_at(h, 6.0);
		pd_harness_connect_isn(h, "10.0.1.2:55555", SERVER ":80", 0.0005, 123, 456);
	}
	pd_harness_at(h, 7.0);
	return pd_harness_finish(h);
}

static const plan full = {.clients = 3, .open = 64, .carry = true, .ports = 2};

Test(det_statetable, new_connections_fail_everywhere_while_open_ones_work)
{
	pd_report *r = run(&full, "statetable");
	const pd_finding *f = pd_harness_finding(r, "state-table-full", 0);
	cr_assert_not_null(f);
	cr_expect_eq(f->severity, PD_SEV_ERROR);
	cr_expect_eq(pd_harness_metric(f, "failed_attempts"), 6);
	cr_expect_eq(pd_harness_metric(f, "clients"), 3);
	cr_expect_eq(pd_harness_metric(f, "server_endpoints"), 2);
	cr_expect_eq(pd_harness_metric(f, "open_at_onset"), 64);
	cr_expect_eq(pd_harness_metric(f, "carrying_data_after_onset"), 64);
	double onset = pd_harness_metric(f, "onset_s");
	cr_expect(onset > 0.99 && onset < 1.01, "onset %f (2.0 s, the capture starting at 1.0 s)", onset);
	cr_expect(strstr(f->detail, "power of two"), "%s", f->detail);
	cr_expect(strstr(f->detail, "several server endpoints"), "%s", f->detail);
	cr_expect_str_eq(f->settings[0], "net.netfilter.nf_conntrack_max");
	cr_expect_eq(f->flows->len, 6, "the failed attempts are its flows");
	pd_report_free(r);
}

/* The finding names the failed attempts: their SYN retries are its evidence. */
Test(det_statetable, explains_the_clients_syn_retries)
{
	pd_report *r = run(&full, "statetable,handshake");
	cr_assert_not_null(pd_harness_finding(r, "state-table-full", 0));
	int n = 0;
	for (guint i = 0; i < r->findings->len; i++) {
		const pd_finding *f = g_ptr_array_index(r->findings, i);
		if (strcmp(f->def->id, "syn-unanswered") && strcmp(f->def->id, "syn-retransmit"))
			continue;
		cr_expect_str_eq(f->explained_by, "state-table-full", "%s", f->def->id);
		cr_expect_eq(f->severity, PD_SEV_INFO);
		n++;
	}
	cr_expect_gt(n, 0);
	pd_report_free(r);
}

Test(det_statetable, a_count_that_is_not_round_is_a_floor)
{
	plan p = full;
	p.open = 63;
	pd_report *r = run(&p, "statetable");
	const pd_finding *f = pd_harness_finding(r, "state-table-full", 0);
	cr_assert_not_null(f);
	cr_expect_eq(pd_harness_metric(f, "open_at_onset"), 63);
	cr_expect(!strstr(f->detail, "power of two") && !strstr(f->detail, "round number"), "%s", f->detail);
	cr_expect(strstr(f->detail, "at least 63"), "%s", f->detail);
	pd_report_free(r);
}

Test(det_statetable, one_endpoint_says_what_tells_a_listener_apart)
{
	plan p = full;
	p.ports = 1;
	pd_report *r = run(&p, "statetable");
	const pd_finding *f = pd_harness_finding(r, "state-table-full", 0);
	cr_assert_not_null(f);
	cr_expect_eq(pd_harness_metric(f, "server_endpoints"), 1);
	cr_expect(strstr(f->detail, "one server endpoint"), "%s", f->detail);
	pd_report_free(r);
}

Test(det_statetable, two_clients_are_not_enough)
{
	plan p = full;
	p.clients = 2;
	pd_report *r = run(&p, "statetable");
	cr_expect_eq(pd_harness_count(r, "state-table-full"), 0);
	pd_report_free(r);
}

/* The open connections fell silent too: the server or the path, not a table. */
Test(det_statetable, open_connections_must_go_on)
{
	plan p = full;
	p.carry = false;
	pd_report *r = run(&p, "statetable");
	cr_expect_eq(pd_harness_count(r, "state-table-full"), 0);
	pd_report_free(r);
}

/* A RST is an answer: the SYN got through whatever tracks state. */
Test(det_statetable, refused_syns_are_answered)
{
	plan p = full;
	p.rst = true;
	pd_report *r = run(&p, "statetable");
	cr_expect_eq(pd_harness_count(r, "state-table-full"), 0);
	pd_report_free(r);
}

/* A new connection got through after the failures: nothing was full. */
Test(det_statetable, a_later_success_ends_it)
{
	plan p = full;
	p.answered_after = true;
	pd_report *r = run(&p, "statetable");
	cr_expect_eq(pd_harness_count(r, "state-table-full"), 0);
	pd_report_free(r);
}

/* The last connection set up before the onset got a request and no
 * answer: a listener that stopped accepting (its accept queue) fits too. */
Test(det_statetable, a_stalled_connection_before_points_at_the_listener)
{
	plan p = full;
	p.stall = true;
	pd_report *r = run(&p, "statetable");
	cr_expect_eq(pd_harness_count(r, "state-table-full"), 0);
	pd_report_free(r);
}
