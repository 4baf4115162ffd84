/* det_resets and det_paws_estab on the golden captures of issue 24 (made
 * with the real kernel in network namespaces; the figures asserted here
 * are the tshark-checked facts of each capture's README). */
#include <criterion/criterion.h>
#include <glib.h>
#include <glib/gstdio.h>
#include <math.h>
#include <string.h>

#include "testutil.h"

static cJSON *run(const char *name)
{
	char *rel = g_strdup_printf("testdata/captures/%s/%s.pcap", name, name);
	cJSON *r = pd_test_json(rel, NULL);
	cr_assert_not_null(r, "pcapdoc failed on %s", rel);
	g_free(rel);
	return r;
}

static const cJSON *get(const cJSON *o, const char *key)
{
	return cJSON_GetObjectItemCaseSensitive(o, key);
}

static const char *str(const cJSON *o, const char *key)
{
	const cJSON *v = get(o, key);
	cr_assert(cJSON_IsString(v), "%s not a string", key);
	return v->valuestring;
}

static const char *top_setting(const cJSON *f)
{
	const cJSON *s = cJSON_GetArrayItem(get(f, "settings"), 0);
	cr_assert_not_null(s, "no settings");
	return str(s, "name");
}

static bool has_example(const cJSON *f, int frame)
{
	const cJSON *e;
	cJSON_ArrayForEach(e, get(get(f, "evidence"), "examples"))
	{
		const cJSON *n = get(e, "frame");
		if (cJSON_IsNumber(n) && (int)n->valuedouble == frame)
			return true;
	}
	return false;
}

/* The one finding of that id (the test fails when there is not exactly one). */
static const cJSON *only(const cJSON *r, const char *id)
{
	cr_assert_eq(pd_test_count_findings(r, id), 1, "%s findings: %d", id, pd_test_count_findings(r, id));
	return pd_test_finding(r, id, 0);
}

static const char *const mine[] = {"reset-unread-data",	     "reset-abort",	   "reset-stale-connection",
				   "reset-injected",	     "middlebox-idle-timeout", "paws-rejected-data"};

/* None of this detector pair's findings but `keep`. */
static void none_but(const cJSON *r, const char *keep, const char *capture)
{
	for (size_t i = 0; i < G_N_ELEMENTS(mine); i++)
		if (!keep || strcmp(mine[i], keep))
			cr_expect_eq(pd_test_count_findings(r, mine[i]), 0, "%s: unexpected %s", capture,
				     mine[i]);
}

/* ---------------- close() with unread data ---------------- */

Test(resets, unread_data_client_view)
{
	cJSON *r = run("reset-unread-data-client");
	const cJSON *f = only(r, "reset-unread-data");
	none_but(r, "reset-unread-data", "reset-unread-data-client");
	cr_expect_str_eq(top_setting(f), "application: close() with unread data");
	cr_expect_str_eq(str(f, "severity"), "warning");
	/* frame 46: the 150-byte answer; 48: the server's RST|ACK 12 us later */
	cr_expect_eq(pd_test_metric(f, "rst_frame"), 48);
	cr_expect_eq(pd_test_metric(f, "rst_from_server"), 1);
	cr_expect(has_example(f, 46) && has_example(f, 48));
	cr_expect(fabs(pd_test_metric(f, "since_own_data_ms") - 0.012) < 0.001);
	/* the window in the RST grew: the receive queue was freed */
	cr_expect_eq(pd_test_metric(f, "window_before_bytes"), 65536);
	cr_expect_eq(pd_test_metric(f, "window_in_rst_bytes"), 76800);
	/* 6 client segments (8192 bytes, seq 23577-31769) were in flight */
	cr_expect_eq(pd_test_metric(f, "peer_unacked_bytes"), 8192);
	/* frames 49-55: the kernel's "no socket" resets are consequences */
	cr_expect_eq(pd_test_metric(f, "later_rsts"), 7);
	cr_expect(has_example(f, 49));
	cr_expect(strstr(str(f, "detail"), "frames 49-55") != NULL, "%s", str(f, "detail"));
	cJSON_Delete(r);
}

Test(resets, unread_data_server_view)
{
	cJSON *r = run("reset-unread-data-server");
	const cJSON *f = only(r, "reset-unread-data");
	none_but(r, "reset-unread-data", "reset-unread-data-server");
	cr_expect_str_eq(top_setting(f), "application: close() with unread data");
	cr_expect_eq(pd_test_metric(f, "rst_frame"), 41);
	cr_expect(has_example(f, 40));
	cr_expect(fabs(pd_test_metric(f, "since_own_data_ms") - 0.207) < 0.001);
	cr_expect_eq(pd_test_metric(f, "window_in_rst_bytes"), 76800);
	cr_expect_eq(pd_test_metric(f, "later_rsts"), 7); /* 43, 45, ... 55 */
	cJSON_Delete(r);
}

/* ---------------- abortive close ---------------- */

Test(resets, abort_linger_zero_idle)
{
	const char *names[] = {"reset-abort-client", "reset-abort-server"};
	for (size_t i = 0; i < G_N_ELEMENTS(names); i++) {
		cJSON *r = run(names[i]);
		const cJSON *f = only(r, "reset-abort");
		none_but(r, "reset-abort", names[i]);
		cr_expect_str_eq(top_setting(f), "SO_LINGER");
		cr_expect_eq(pd_test_metric(f, "rst_frame"), 14);
		cr_expect_eq(pd_test_metric(f, "rst_from_server"), 1);
		/* nothing unread (window 65536 before and in the RST), nothing in flight */
		cr_expect_eq(pd_test_metric(f, "window_in_rst_bytes"), 65536);
		cr_expect_eq(pd_test_metric(f, "window_before_bytes"), 65536);
		cr_expect_eq(pd_test_metric(f, "peer_unacked_bytes"), 0);
		/* an idle connection closed by RST: the peer loses nothing */
		cr_expect_str_eq(str(f, "severity"), "info");
		cJSON_Delete(r);
	}
	/* the client saw the RST 505.4 ms after the last answer (frame 12 -> 14) */
	cJSON *r = run("reset-abort-client");
	cr_expect(fabs(pd_test_metric(only(r, "reset-abort"), "since_own_data_ms") - 505.406) < 0.01);
	cJSON_Delete(r);
}

Test(resets, abort_after_alert)
{
	cJSON *r = run("reset-abort-alert-client");
	const cJSON *f = only(r, "reset-abort");
	none_but(r, "reset-abort", "reset-abort-alert-client");
	/* frame 15: the 7-byte alert; 17: RST|ACK 8 us later; 18, 19: no socket */
	cr_expect_eq(pd_test_metric(f, "rst_frame"), 17);
	cr_expect(has_example(f, 15) && has_example(f, 18) && has_example(f, 19));
	cr_expect_eq(pd_test_metric(f, "peer_unacked_bytes"), 500); /* frame 14, never ACKed */
	cr_expect_eq(pd_test_metric(f, "later_rsts"), 2);
	cr_expect_str_eq(str(f, "severity"), "warning");
	cJSON_Delete(r);

	r = run("reset-abort-alert-server");
	f = only(r, "reset-abort");
	cr_expect_eq(pd_test_metric(f, "rst_frame"), 15);
	cr_expect(fabs(pd_test_metric(f, "since_own_data_ms") - 0.082) < 0.001);
	cr_expect_eq(pd_test_metric(f, "later_rsts"), 2); /* 17, 19 */
	cr_expect_str_eq(str(f, "severity"), "warning"); /* the client's data came after it */
	cJSON_Delete(r);
}

/* ---------------- the peer lost the connection ---------------- */

Test(resets, stale_connection)
{
	cJSON *r = run("reset-stale-connection-client");
	const cJSON *f = only(r, "reset-stale-connection");
	none_but(r, "reset-stale-connection", "reset-stale-connection-client");
	/* the second request (frame 8) after 1.98 s idle; the server's bare RST
	 * (frame 9) one round trip later, TTL 62 like its other packets */
	cr_expect_eq(pd_test_metric(f, "rst_frame"), 9);
	cr_expect_eq(pd_test_metric(f, "rst_from_server"), 1);
	cr_expect(has_example(f, 8) && has_example(f, 9));
	cr_expect(fabs(pd_test_metric(f, "answer_delay_ms") - 20.609) < 0.01);
	cr_expect(fabs(pd_test_metric(f, "idle_before_s") - 1.980) < 0.001);
	cJSON_Delete(r);

	r = run("reset-stale-connection-server");
	f = only(r, "reset-stale-connection");
	none_but(r, "reset-stale-connection", "reset-stale-connection-server");
	cr_expect_eq(pd_test_metric(f, "rst_frame"), 9);
	cr_expect(fabs(pd_test_metric(f, "answer_delay_ms") - 0.022) < 0.001); /* this host, at once */
	cJSON_Delete(r);
}

/* ---------------- forged resets ---------------- */

Test(resets, injected_client_view)
{
	cJSON *r = run("reset-injected-client");
	const cJSON *f = only(r, "reset-injected");
	none_but(r, "reset-injected", "reset-injected-client");
	/* frame 9 "from the server": TTL 64 where the server's packets have 62,
	 * 0.3 ms after the request on a 20.6 ms path, IP ID 0x2a2a, DF clear,
	 * no TS option; frame 10 is the real server's answer */
	cr_expect_eq(pd_test_metric(f, "rst_frame"), 9);
	cr_expect_eq(pd_test_metric(f, "claimed_from_server"), 1);
	cr_expect_eq(pd_test_metric(f, "rst_ttl"), 64);
	cr_expect_eq(pd_test_metric(f, "side_ttl"), 62);
	cr_expect_eq(pd_test_metric(f, "forgery_signs"), 6);
	cr_expect(has_example(f, 10) && has_example(f, 11));
	cr_expect(strstr(str(f, "detail"), "0x2a2a") != NULL);
	cJSON_Delete(r);
}

Test(resets, injected_server_view)
{
	cJSON *r = run("reset-injected-server");
	const cJSON *f = only(r, "reset-injected");
	/* the client's own RST (frame 11) answers data on a socket the forged
	 * RST killed: a consequence, not a stale connection */
	none_but(r, "reset-injected", "reset-injected-server");
	cr_expect_eq(pd_test_metric(f, "rst_frame"), 10);
	cr_expect_eq(pd_test_metric(f, "claimed_from_server"), 0);
	cr_expect_eq(pd_test_metric(f, "rst_ttl"), 64);
	cr_expect_eq(pd_test_metric(f, "side_ttl"), 62);
	cr_expect(has_example(f, 11));
	cJSON_Delete(r);
}

/* ---------------- middlebox idle timeouts ---------------- */

static void idle_drop(const char *name, double idle_s, int sender_is_client)
{
	cJSON *r = run(name);
	const cJSON *f = only(r, "middlebox-idle-timeout");
	none_but(r, "middlebox-idle-timeout", name);
	cr_expect_str_eq(top_setting(f), "SO_KEEPALIVE");
	cr_expect_str_eq(str(f, "severity"), "error");
	cr_expect(fabs(pd_test_metric(f, "idle_s") - idle_s) < 0.01, "%s: idle %f", name,
		  pd_test_metric(f, "idle_s"));
	/* frame 8 after the silence, then frames 9-13 unanswered */
	cr_expect_eq(pd_test_metric(f, "first_frame_after_idle"), 8);
	cr_expect_eq(pd_test_metric(f, "retransmissions"), 5);
	cr_expect_eq(pd_test_metric(f, "reset_by_middlebox"), 0);
	cr_expect(has_example(f, 7) && has_example(f, 8) && has_example(f, 13));
	cr_expect(pd_test_metric(f, "dead_s") > 3.6 && pd_test_metric(f, "dead_s") < 3.7);
	const char *who = sender_is_client ? "from 10.90.29.2:39660" : "from 10.90.157.2:8080";
	cr_expect(strstr(str(f, "detail"), who) != NULL, "%s: %s", name, str(f, "detail"));
	cJSON_Delete(r);
}

Test(resets, idle_timeout_dropped)
{
	idle_drop("middlebox-idle-timeout-client", 4.981, 1);
	idle_drop("middlebox-idle-timeout-router", 4.981, 1);
	idle_drop("middlebox-idle-timeout-server", 4.578, 0); /* the server's push */
}

Test(resets, idle_timeout_reset_by_the_firewall)
{
	const char *names[] = {"middlebox-idle-timeout-rst-client", "middlebox-idle-timeout-rst-server"};
	const double idle[] = {4.981, 4.580};
	for (size_t i = 0; i < G_N_ELEMENTS(names); i++) {
		cJSON *r = run(names[i]);
		const cJSON *f = only(r, "middlebox-idle-timeout");
		/* one problem: the firewall's RST is its evidence, not a second finding */
		none_but(r, "middlebox-idle-timeout", names[i]);
		cr_expect_str_eq(top_setting(f), "SO_KEEPALIVE");
		cr_expect_eq(pd_test_metric(f, "reset_by_middlebox"), 1);
		cr_expect_eq(pd_test_metric(f, "first_frame_after_idle"), 8);
		cr_expect(fabs(pd_test_metric(f, "idle_s") - idle[i]) < 0.01);
		cr_expect(has_example(f, 9)); /* the RST: TTL 64, 10.4 ms after frame 8 */
		cr_expect(strstr(str(f, "detail"), "TTL is 64") != NULL);
		cJSON_Delete(r);
	}
}

/* ---------------- PAWS inside the connection ---------------- */

Test(resets, paws_rejected_data)
{
	cJSON *r = run("paws-rejected-data-client");
	const cJSON *f = only(r, "paws-rejected-data");
	none_but(r, "paws-rejected-data", "paws-rejected-data-client");
	cr_expect_str_eq(top_setting(f), "net.ipv4.tcp_timestamps");
	/* frames 8, 10, ... 18: the request and its 5 retransmissions; 9 ... 19
	 * duplicate ACKs whose TSecr stays at frame 7's TSval */
	cr_expect_eq(pd_test_metric(f, "rejected_segments"), 6);
	cr_expect_eq(pd_test_metric(f, "echoed_tsecr"), 3673080226.0);
	cr_expect_eq(pd_test_metric(f, "first_rejected_tsval"), 3673081206.0);
	cr_expect(has_example(f, 8) && has_example(f, 9) && has_example(f, 19));
	cr_expect(strstr(str(f, "detail"), "TSval of frame 7") != NULL, "%s", str(f, "detail"));
	cJSON_Delete(r);

	r = run("paws-rejected-data-server");
	f = only(r, "paws-rejected-data");
	none_but(r, "paws-rejected-data", "paws-rejected-data-server");
	/* here the rewritten TSval is seen: 2599339382 after 3673080226 */
	cr_expect_eq(pd_test_metric(f, "first_rejected_tsval"), 2599339382.0);
	cr_expect_eq(pd_test_metric(f, "tsval_step_back"), 3673080226.0 - 2599339382.0);
	cr_expect(strstr(str(f, "detail"), "2^30") != NULL, "%s", str(f, "detail"));
	cJSON_Delete(r);
}

/* ---------------- the controls, and captures of other problems ---------------- */

Test(resets, controls_stay_clean)
{
	const char *names[] = {
		"reset-unread-data-ok-client",
		"reset-unread-data-ok-server",
		"reset-abort-ok-client",
		"reset-abort-ok-server",
		"reset-abort-alert-ok",
		"reset-stale-connection-ok-client",
		"reset-stale-connection-ok-server",
		"reset-injected-ok-client",
		"reset-injected-ok-server",
		"middlebox-idle-timeout-ok-client",
		"middlebox-idle-timeout-ok-server",
		"paws-rejected-data-ok-client",
		"paws-rejected-data-ok-server",
		"accept-queue-abort",
		"closed-port",
		"random-loss",
		"rto-backoff-twoway",
		"syn-drop-recover",
		"timewait-paws",
		"idle-reply-client",
		"idle-reply-server",
		"reorder-client",
		"zero-window",
	};
	for (size_t i = 0; i < G_N_ELEMENTS(names); i++) {
		cJSON *r = run(names[i]);
		none_but(r, NULL, names[i]);
		cJSON_Delete(r);
	}
}

/* A RST that answers right after the handshake under a queue that held
 * the handshake (tbf): not forged, whatever the handshake RTT says. */
Test(resets, accept_queue_abort_is_not_forged)
{
	cJSON *r = pd_test_json("testdata/captures/aq-abort6-any/aq-abort6-any.pcap", NULL);
	cr_assert_not_null(r);
	none_but(r, NULL, "aq-abort6-any");
	cJSON_Delete(r);
}

/* Keepalive probes dropped for a while, then the request answered: the
 * connection was alive, no middlebox forgot it. Loss without SACK: duplicate
 * ACKs without SACK blocks that are not PAWS. */
Test(resets, other_captures_stay_clean)
{
	const char *files[] = {"testdata/captures/keepalive-probes/keepalive-dropped.pcap",
			       "testdata/captures/keepalive-probes/keepalive-answered.pcap",
			       "testdata/captures/rto-outage/rto-outage.pcap",
			       "testdata/captures/rto-outage/rto-outage-client.pcap",
			       "testdata/captures/nosack-loss/nosack-sender.pcap",
			       "testdata/captures/nosack-loss/nosack-receiver.pcap",
			       "testdata/captures/random-loss/random-loss-client.pcap"};
	for (size_t i = 0; i < G_N_ELEMENTS(files); i++) {
		cJSON *r = pd_test_json(files[i], NULL);
		cr_assert_not_null(r);
		none_but(r, NULL, files[i]);
		cJSON_Delete(r);
	}
}

/* The capture of middlebox-idle-timeout-client, then the same connection
 * again 10 s later from client port 39661: a client that reconnected
 * after the dead connection. Made here from the committed capture (a
 * classic little-endian pcap, Ethernet, IPv4). */
static char *reconnect_capture(void)
{
	char *src = pd_test_src(
		"testdata/captures/middlebox-idle-timeout-client/middlebox-idle-timeout-client.pcap");
	gchar *b = NULL;
	gsize len = 0;
	cr_assert(g_file_get_contents(src, &b, &len, NULL));
	g_free(src);
	cr_assert(len > 24 && (guint8)b[0] == 0xd4 && (guint8)b[3] == 0xa1, "not a little-endian pcap");
	GByteArray *out = g_byte_array_new();
	g_byte_array_append(out, (guint8 *)b, 24);
	for (int copy = 0; copy < 2; copy++) {
		for (gsize off = 24; off + 16 <= len;) {
			guint32 rec[4];
			memcpy(rec, b + off, 16);
			cr_assert(off + 16 + rec[2] <= len);
			guint8 *d = g_memdup2(b + off + 16, rec[2]);
			if (copy) {
				rec[0] += 10;
				gsize tcp = 14 + (gsize)(d[14] & 15) * 4;
				for (gsize o = tcp; o <= tcp + 2 && o + 2 <= rec[2]; o += 2)
					if (d[o] == (39660 >> 8) && d[o + 1] == (39660 & 255))
						d[o + 1] = 39661 & 255;
			}
			g_byte_array_append(out, (guint8 *)rec, 16);
			g_byte_array_append(out, d, rec[2]);
			g_free(d);
			off += 16 + rec[2];
		}
	}
	g_free(b);
	char *dir = g_dir_make_tmp("pd-resets-XXXXXX", NULL);
	cr_assert_not_null(dir);
	char *path = g_build_filename(dir, "reconnect.pcap", NULL);
	cr_assert(g_file_set_contents(path, (const gchar *)out->data, out->len, NULL));
	g_byte_array_free(out, TRUE);
	g_free(dir);
	return path;
}

Test(resets, idle_timeout_then_a_new_connection)
{
	char *path = reconnect_capture();
	cJSON *r = pd_test_json_abs(path, NULL);
	cr_assert_not_null(r);
	/* both connections died the same way; the first was followed by the
	 * second one's SYN (frame 14, t=10.000 s, 4.98 s after frame 8) */
	cr_assert_eq(pd_test_count_findings(r, "middlebox-idle-timeout"), 1); /* one server: one problem */
	cr_assert_eq(pd_test_count_parts(r, "middlebox-idle-timeout"), 2);
	int with_follow_up = 0;
	for (int i = 0; i < 2; i++) {
		const cJSON *f = pd_test_part(r, "middlebox-idle-timeout", i);
		if (!strstr(str(f, "detail"), "a new connection from the same client"))
			continue;
		with_follow_up++;
		cr_expect(has_example(f, 14));
		cr_expect(strstr(str(f, "detail"), "client port 39661") != NULL);
		cr_expect(fabs(pd_test_metric(f, "new_connection_after_s") - 4.978) < 0.01);
	}
	cr_expect_eq(with_follow_up, 1);
	cJSON_Delete(r);
	char *dir = g_path_get_dirname(path);
	g_remove(path);
	g_rmdir(dir);
	g_free(dir);
	g_free(path);
}
