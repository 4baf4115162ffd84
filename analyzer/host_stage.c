/* The run's last stage with --host: what each host's snapshots say about
 * the findings' ranked settings (knowledge/host_evidence.c), applied after
 * every detector has finished. Detectors never see host facts; this stage
 * only annotates and re-orders the settings already ranked, and adds one
 * info finding for counters that moved with nothing to explain them. */
#include <math.h>
#include <string.h>

#include "analyzer/host_stage.h"
#include "dissect/addr.h"
#include "host/host.h"
#include "knowledge/catalog.h"
#include "knowledge/host_evidence.h"

#define HOST_MAX_AWAY_S 3600.0 /* snapshots further than this from the capture: another time */

typedef enum { OUT_UNKNOWN, OUT_YES, OUT_NO } outcome;

typedef struct fact {
	GString *en, *zh;
} fact;

static const char *host_label(const pd_host *h)
{
	return h->hostname[0] ? h->hostname : h->source;
}

static void note_take(pd_capture_summary *c, GPtrArray *en, GPtrArray *zh)
{
	for (guint i = 0; i < en->len; i++)
		pd_capture_note_take(c, g_strdup(en->pdata[i]), g_strdup(zh->pdata[i]));
}

/* ---- which end of a finding's flows the host is */

static bool flow_server_is(const pd_host *h, const pd_flow_ref *r)
{
	return pd_host_has_addr(h, &r->server);
}

static bool flow_end_is(const pd_host *h, const pd_flow_ref *r)
{
	return pd_host_has_addr(h, &r->server) || pd_host_has_addr(h, &r->client);
}

static bool flow_on_path(const pd_host *h, const pd_flow_ref *r)
{
	return flow_end_is(h, r) || pd_host_on_net(h, &r->server) || pd_host_on_net(h, &r->client);
}

/* The ss socket of this flow on the host (either end's view), the one with
 * the largest buffers over the snapshots. */
static const pd_host_sock *flow_socket(const pd_host *h, const pd_flow_ref *r, int64_t *rb, int64_t *tb)
{
	const pd_host_sock *best = NULL;
	*rb = *tb = -1;
	for (guint i = 0; i < h->socks->len; i++) {
		const pd_host_sock *s = &g_array_index(h->socks, pd_host_sock, i);
		bool srv = s->lport == r->server_port && s->pport == r->client_port &&
			   pd_addr_equal(&s->local, &r->server) && pd_addr_equal(&s->peer, &r->client);
		bool cli = s->lport == r->client_port && s->pport == r->server_port &&
			   pd_addr_equal(&s->local, &r->client) && pd_addr_equal(&s->peer, &r->server);
		if (!srv && !cli)
			continue;
		best = s;
		*rb = MAX(*rb, s->rb);
		*tb = MAX(*tb, s->tb);
	}
	return best;
}

static const pd_host_sock *listener(const pd_host *h, const pd_flow_ref *r)
{
	const pd_host_sock *found = NULL;
	for (guint i = 0; i < h->socks->len; i++) {
		const pd_host_sock *s = &g_array_index(h->socks, pd_host_sock, i);
		if (strcmp(s->state, "LISTEN") || s->lport != r->server_port)
			continue;
		static const uint8_t zero[16];
		bool wildcard = !s->local.family || !memcmp(s->local.bytes, zero, sizeof(zero)); /* 0.0.0.0, ::, * */
		if (!wildcard && !pd_addr_equal(&s->local, &r->server))
			continue;
		if (!found || s->time > found->time)
			found = s;
	}
	return found;
}

/* The flow of f the rule's end applies to on h, or NULL. */
static const pd_flow_ref *end_flow(const pd_host *h, const pd_finding *f, pd_he_end end)
{
	if (!h->nets->len && end != PD_HE_SOCKET)
		return f->flows && f->flows->len ? &g_array_index(f->flows, pd_flow_ref, 0) : NULL;
	for (guint i = 0; f->flows && i < f->flows->len; i++) {
		const pd_flow_ref *r = &g_array_index(f->flows, pd_flow_ref, i);
		int64_t rb, tb;
		switch (end) {
		case PD_HE_SERVER:
			if (flow_server_is(h, r))
				return r;
			break;
		case PD_HE_EITHER:
			if (flow_end_is(h, r))
				return r;
			break;
		case PD_HE_PATH:
			if (flow_on_path(h, r))
				return r;
			break;
		case PD_HE_SOCKET:
			if (flow_socket(h, r, &rb, &tb))
				return r;
			break;
		}
	}
	return NULL;
}

/* ---- the tests */

static void sysctl_missing(pd_host *h, GHashTable *noted, const char *name)
{
	if (g_hash_table_contains(noted, name))
		return;
	g_hash_table_add(noted, (gpointer)name);
	g_ptr_array_add(h->notes_en,
			g_strdup_printf("host snapshot %s: %s is not in its sysctl -a (an older kernel, or the "
					"module not loaded); the settings that need it are not judged",
					h->source, name));
	g_ptr_array_add(h->notes_zh, g_strdup_printf("主机快照 %s：其 sysctl -a 中没有 %s（内核较旧或模块未加载）；"
						     "依赖它的设置不作判断",
						     h->source, name));
}

static bool counter_rose(const pd_host *h, const char *name, fact *x, bool *rose)
{
	int64_t d;
	bool abs;
	if (!pd_host_counter(h, name, &d, &abs))
		return false;
	if (abs) {
		g_string_append_printf(x->en, "%s is %lld on %s (one nstat snapshot: since boot)", name, (long long)d,
				       host_label(h));
		g_string_append_printf(x->zh, "%s 上 %s 为 %lld（只有一份 nstat 快照：自开机起）", host_label(h), name,
				       (long long)d);
	} else {
		g_string_append_printf(x->en, "%s %+lld on %s during the capture", name, (long long)d, host_label(h));
		g_string_append_printf(x->zh, "抓包期间 %s 上 %s %+lld", host_label(h), name, (long long)d);
	}
	*rose = d > 0;
	return true;
}

static outcome test_conntrack(pd_host *h, GHashTable *noted, fact *x)
{
	int64_t max = -1, count = -1;
	if (!pd_host_sysctl_int(h, "net.netfilter.nf_conntrack_max", 0, &max)) {
		if (g_hash_table_size(h->sysctl))
			sysctl_missing(h, noted, "net.netfilter.nf_conntrack_max");
		return OUT_UNKNOWN;
	}
	if (!pd_host_sysctl_int(h, "net.netfilter.nf_conntrack_count", 0, &count))
		count = h->ct_count;
	if (h->ct_count > count)
		count = h->ct_count;
	int64_t drop = 0, failed = 0, early = 0;
	bool have_ct = pd_host_ct_delta(h, &drop, &failed, &early);
	g_string_append_printf(x->en, "nf_conntrack_count %lld of nf_conntrack_max %lld on %s", (long long)count,
			       (long long)max, host_label(h));
	g_string_append_printf(x->zh, "%s 上 nf_conntrack_count 为 %lld，nf_conntrack_max 为 %lld", host_label(h),
			       (long long)count, (long long)max);
	if (have_ct) {
		g_string_append_printf(x->en, "; conntrack -S drop %+lld, insert_failed %+lld, early_drop %+lld",
				       (long long)drop, (long long)failed, (long long)early);
		g_string_append_printf(x->zh, "；conntrack -S drop %+lld、insert_failed %+lld、early_drop %+lld",
				       (long long)drop, (long long)failed, (long long)early);
	}
	if (max > 0 && count >= 0 && (double)count >= 0.9 * (double)max)
		return OUT_YES;
	if (have_ct && (drop > 0 || failed > 0 || early > 0))
		return OUT_YES;
	if (max > 0 && count >= 0 && (double)count < 0.5 * (double)max)
		return OUT_NO;
	return OUT_UNKNOWN;
}

static outcome test_backlog(pd_host *h, GHashTable *noted, const pd_flow_ref *r, bool below, fact *x)
{
	int64_t d;
	bool abs;
	if (!pd_host_counter(h, "TcpExtListenOverflows", &d, &abs) || d <= 0)
		return OUT_UNKNOWN; /* which limit matters only once the queue overflowed */
	const pd_host_sock *l = listener(h, r);
	int64_t somax;
	if (!l)
		return OUT_UNKNOWN;
	if (!pd_host_sysctl_int(h, "net.core.somaxconn", 0, &somax)) {
		if (g_hash_table_size(h->sysctl))
			sysctl_missing(h, noted, "net.core.somaxconn");
		return OUT_UNKNOWN;
	}
	g_string_append_printf(x->en, "the listener on port %u has a backlog of %lld (ss Send-Q), net.core.somaxconn "
				      "is %lld on %s",
			       r->server_port, (long long)l->sendq, (long long)somax, host_label(h));
	g_string_append_printf(x->zh, "%4$s 上端口 %1$u 的监听套接字 backlog 为 %2$lld（ss Send-Q），"
				      "net.core.somaxconn 为 %3$lld",
			       r->server_port, (long long)l->sendq, (long long)somax, host_label(h));
	bool is_below = l->sendq < somax;
	return below ? (is_below ? OUT_YES : OUT_NO) : (is_below ? OUT_NO : OUT_YES);
}

static void window_fact(const pd_finding *f, fact *x)
{
	double w;
	if (pd_finding_metric_of(f, "max_window", &w)) {
		g_string_append_printf(x->en, "; the window never exceeded %.0f B", w);
		g_string_append_printf(x->zh, "；窗口从未超过 %.0f B", w);
	}
}

static outcome test_buffer(pd_host *h, GHashTable *noted, const pd_finding *f, const pd_flow_ref *r,
			   pd_he_test t, fact *x)
{
	int64_t rb, tb;
	if (!flow_socket(h, r, &rb, &tb))
		return OUT_UNKNOWN;
	bool recv = t == PD_HE_RB_AT_RMEM_MAX || t == PD_HE_RB_BELOW_RMEM_MAX;
	const char *sys = recv ? "net.ipv4.tcp_rmem" : "net.ipv4.tcp_wmem";
	int64_t max, have = recv ? rb : tb;
	if (have < 0)
		return OUT_UNKNOWN;
	if (!pd_host_sysctl_int(h, sys, 2, &max)) {
		if (g_hash_table_size(h->sysctl))
			sysctl_missing(h, noted, sys);
		return OUT_UNKNOWN;
	}
	g_string_append_printf(x->en, "the flow's socket on %s had %s %lld B (ss -tmi), %s max is %lld B",
			       host_label(h), recv ? "rb" : "tb", (long long)have, sys, (long long)max);
	g_string_append_printf(x->zh, "%s 上该连接的套接字 %s 为 %lld B（ss -tmi），%s 最大值为 %lld B", host_label(h),
			       recv ? "rb" : "tb", (long long)have, sys, (long long)max);
	if (recv)
		window_fact(f, x);
	bool at = have >= max;
	bool want_at = t == PD_HE_RB_AT_RMEM_MAX || t == PD_HE_TB_AT_WMEM_MAX;
	return at == want_at ? OUT_YES : OUT_NO;
}

/* ---- drops below TCP: ip -s link, tc -s qdisc, softnet_stat */

static bool net_holds(const pd_host_net *n, const pd_addr *a)
{
	if (n->addr.family != a->family || !a->family)
		return false;
	unsigned bits = n->prefix, full = bits / 8, rest = bits % 8;
	if (memcmp(n->addr.bytes, a->bytes, full))
		return false;
	return !rest || ((n->addr.bytes[full] ^ a->bytes[full]) & (uint8_t)(0xff << (8 - rest))) == 0;
}

#define HOST_MAX_IFS 8

/* The interfaces facing the flow: those whose network holds one of its
 * ends (an end's own address, or a router's interface on its network). */
static void flow_ifs(const pd_host *h, const pd_flow_ref *r, const char *ifs[HOST_MAX_IFS + 1])
{
	size_t k = 0;
	for (guint i = 0; i < h->nets->len && k < HOST_MAX_IFS; i++) {
		const pd_host_net *n = &g_array_index(h->nets, pd_host_net, i);
		if (!n->ifname[0] || n->prefix == 0 || !(net_holds(n, &r->server) || net_holds(n, &r->client)))
			continue;
		bool dup = false;
		for (size_t j = 0; j < k && !dup; j++)
			dup = !strcmp(ifs[j], n->ifname);
		if (!dup)
			ifs[k++] = n->ifname;
	}
	ifs[k] = NULL;
}

static outcome test_series(pd_host *h, const pd_flow_ref *r, const pd_host_rule *rule, fact *x)
{
	const GPtrArray *snaps = rule->test == PD_HE_LINK_ROSE ? h->link
				 : rule->test == PD_HE_QDISC_ROSE ? h->qdisc
								  : h->softnet;
	const char *cmd = rule->test == PD_HE_LINK_ROSE ? "ip -s link"
			  : rule->test == PD_HE_QDISC_ROSE ? "tc -s qdisc"
							   : "/proc/net/softnet_stat";
	const char *ifs[HOST_MAX_IFS + 1];
	flow_ifs(h, r, ifs);
	char **names = g_strsplit(rule->a, " ", 0);
	int64_t sum = 0;
	bool abs = false, any = false;
	GString *what = g_string_new(""), *where = g_string_new(""), *where_zh = g_string_new("");
	bool all_ifs = false;
	for (char **c = names; *c; c++) {
		int64_t d;
		bool a;
		bool all = false;
		bool got = rule->test == PD_HE_SOFTNET_ROSE ? pd_host_series_delta(snaps, *c, &d, &a)
							    : pd_host_if_delta(snaps, ifs, *c, &d, &a, &all);
		if (!got)
			continue;
		any = true;
		abs = a;
		sum += d;
		all_ifs |= all;
		g_string_append_printf(what, "%s%s %s%lld", what->len ? ", " : "", *c, a ? "" : "+", (long long)d);
	}
	g_strfreev(names);
	if (!any) {
		g_string_free(what, TRUE);
		g_string_free(where, TRUE);
		g_string_free(where_zh, TRUE);
		return OUT_UNKNOWN;
	}
	if (rule->test != PD_HE_SOFTNET_ROSE) {
		for (size_t i = 0; ifs[i] && !all_ifs; i++)
			g_string_append_printf(where, "%s%s", i ? ", " : "", ifs[i]);
		g_string_assign(where_zh, where->str);
		if (!where->len) {
			g_string_assign(where, "every interface but lo");
			g_string_assign(where_zh, "除 lo 外的所有接口");
		}
	} else {
		int64_t sq;
		bool a;
		if (strcmp(rule->a, "time_squeeze") && pd_host_series_delta(snaps, "time_squeeze", &sq, &a))
			g_string_append_printf(what, ", time_squeeze %s%lld", a ? "" : "+", (long long)sq);
		g_string_assign(where, "all CPUs");
		g_string_assign(where_zh, "所有 CPU");
	}
	const char *span_en = abs ? "one snapshot: since boot" : "during the capture";
	const char *span_zh = abs ? "只有一份快照：自开机起" : "抓包期间";
	g_string_append_printf(x->en, "%s on %s (%s): %s %s", cmd, host_label(h), where->str, what->str, span_en);
	g_string_append_printf(x->zh, "%s 上 %s（%s）：%s，%s", host_label(h), cmd, where_zh->str, what->str, span_zh);
	g_string_free(what, TRUE);
	g_string_free(where, TRUE);
	g_string_free(where_zh, TRUE);
	return sum > 0 ? OUT_YES : OUT_NO;
}

static outcome run_test(pd_host *h, GHashTable *noted, const pd_finding *f, const pd_host_rule *rule,
			const pd_flow_ref *r, fact *x)
{
	bool rose;
	switch (rule->test) {
	case PD_HE_COUNTER_ROSE:
		if (!counter_rose(h, rule->a, x, &rose))
			return OUT_UNKNOWN;
		return rose ? OUT_YES : OUT_NO;
	case PD_HE_COUNTER_ROSE_SYSCTL_IS: {
		int64_t v;
		if (!pd_host_sysctl_int(h, rule->b, 0, &v)) {
			if (g_hash_table_size(h->sysctl))
				sysctl_missing(h, noted, rule->b);
			return OUT_UNKNOWN;
		}
		if (!counter_rose(h, rule->a, x, &rose))
			return OUT_UNKNOWN;
		g_string_append_printf(x->en, ", %s = %lld", rule->b, (long long)v);
		g_string_append_printf(x->zh, "，%s = %lld", rule->b, (long long)v);
		return rose && v == rule->value ? OUT_YES : OUT_NO;
	}
	case PD_HE_CONNTRACK_FULL:
		return test_conntrack(h, noted, x);
	case PD_HE_BACKLOG_BELOW_SOMAXCONN:
	case PD_HE_BACKLOG_AT_SOMAXCONN:
		return test_backlog(h, noted, r, rule->test == PD_HE_BACKLOG_BELOW_SOMAXCONN, x);
	case PD_HE_RB_AT_RMEM_MAX:
	case PD_HE_RB_BELOW_RMEM_MAX:
	case PD_HE_TB_BELOW_WMEM_MAX:
	case PD_HE_TB_AT_WMEM_MAX:
		return test_buffer(h, noted, f, r, rule->test, x);
	case PD_HE_LINK_ROSE:
	case PD_HE_QDISC_ROSE:
	case PD_HE_SOFTNET_ROSE:
		return test_series(h, r, rule, x);
	}
	return OUT_UNKNOWN;
}

/* ---- applying them */

static int rank_of(pd_host_verdict v)
{
	switch (v) {
	case PD_HV_CONFIRMED:
		return 0;
	case PD_HV_CONSISTENT:
		return 1;
	case PD_HV_NONE:
		return 2;
	default:
		return 3;
	}
}

/* Settings re-ordered: confirmed, consistent, not judged, ruled out; the
 * order the detector gave kept within each group. */
static void rerank(pd_finding *f)
{
	const char *s[PD_FINDING_MAX_SETTINGS];
	pd_host_verdict v[PD_FINDING_MAX_SETTINGS];
	char *fe[PD_FINDING_MAX_SETTINGS], *fz[PD_FINDING_MAX_SETTINGS];
	size_t k = 0;
	for (int g = 0; g < 4; g++)
		for (size_t i = 0; i < f->n_settings; i++)
			if (rank_of(f->host_verdict[i]) == g) {
				s[k] = f->settings[i];
				v[k] = f->host_verdict[i];
				fe[k] = f->host_fact[i];
				fz[k] = f->host_fact_zh[i];
				k++;
			}
	for (size_t i = 0; i < k; i++) {
		f->settings[i] = s[i];
		f->host_verdict[i] = v[i];
		f->host_fact[i] = fe[i];
		f->host_fact_zh[i] = fz[i];
	}
}

static void counters_line(const pd_host *h, pd_finding *f)
{
	const pd_finding_def *d = f->def;
	if (!d)
		return;
	GString *en = g_string_new(""), *zh = g_string_new("");
	for (size_t i = 0; i < PD_DEF_MAX_COUNTERS && d->counters[i]; i++) {
		int64_t delta;
		bool abs;
		if (!pd_host_counter(h, d->counters[i], &delta, &abs) || abs || delta == 0)
			continue;
		g_string_append_printf(en, "%s%s %+lld", en->len ? ", " : "", d->counters[i], (long long)delta);
		g_string_append_printf(zh, "%s%s %+lld", zh->len ? "，" : "", d->counters[i], (long long)delta);
	}
	if (en->len) {
		char *e = g_strdup_printf("%s%s%s during the capture (%s)", f->host_counters ? f->host_counters : "",
					  f->host_counters ? "; " : "", en->str, host_label(h));
		char *z = g_strdup_printf("%s%s抓包期间 %s（%s）", f->host_counters_zh ? f->host_counters_zh : "",
					  f->host_counters_zh ? "；" : "", zh->str, host_label(h));
		g_free(f->host_counters);
		g_free(f->host_counters_zh);
		f->host_counters = e;
		f->host_counters_zh = z;
	}
	g_string_free(en, TRUE);
	g_string_free(zh, TRUE);
}

static bool apply_host(pd_host *h, pd_finding *f, GHashTable *noted)
{
	if (!f->def)
		return false;
	/* the settings as ranked, made explicit so they can be re-ordered */
	if (f->n_settings == 0) {
		for (size_t i = 0; i < PD_DEF_MAX_SETTINGS && f->def->settings[i] && i < PD_FINDING_MAX_SETTINGS; i++)
			f->settings[f->n_settings++] = f->def->settings[i];
	}
	bool any = false;
	for (size_t r = 0; r < pd_host_rules_len; r++) {
		const pd_host_rule *rule = &pd_host_rules[r];
		if (strcmp(rule->finding, f->def->id))
			continue;
		size_t i = 0;
		while (i < f->n_settings && strcmp(f->settings[i], rule->setting))
			i++;
		if (i == f->n_settings)
			continue;
		/* a verdict an earlier host gave stays; this host adds only where none did */
		if (f->host_source && f->host_source != h->ref && f->host_verdict[i] != PD_HV_NONE)
			continue;
		const pd_flow_ref *fr = end_flow(h, f, rule->end);
		if (!fr)
			continue;
		fact x = {g_string_new(""), g_string_new("")};
		outcome o = run_test(h, noted, f, rule, fr, &x);
		pd_host_verdict v = o == OUT_YES ? rule->if_yes : o == OUT_NO ? rule->if_no : PD_HV_NONE;
		if (v != PD_HV_NONE) {
			f->host_verdict[i] = v;
			g_free(f->host_fact[i]);
			g_free(f->host_fact_zh[i]);
			f->host_fact[i] = g_string_free(x.en, FALSE);
			f->host_fact_zh[i] = g_string_free(x.zh, FALSE);
			any = true;
		} else {
			g_string_free(x.en, TRUE);
			g_string_free(x.zh, TRUE);
		}
	}
	if (end_flow(h, f, PD_HE_EITHER))
		counters_line(h, f);
	if (any) {
		f->host_source = h->ref;
		rerank(f);
	}
	return any || f->host_counters;
}

static bool explained(const pd_report *r, const pd_host_unexplained *w)
{
	for (guint i = 0; i < r->findings->len; i++) {
		const pd_finding *f = r->findings->pdata[i];
		for (size_t k = 0; f->def && k < PD_HOST_MAX_EXPLAINERS && w->explained_by[k]; k++)
			if (!strcmp(f->def->id, w->explained_by[k]))
				return true;
	}
	return false;
}

static void unexplained(pd_report *r, const pd_host *h, GPtrArray *made)
{
	GString *en = g_string_new(""), *zh = g_string_new("");
	pd_finding *nf = NULL;
	for (size_t i = 0; i < pd_host_watch_len; i++) {
		const pd_host_unexplained *w = &pd_host_watch[i];
		int64_t d;
		bool abs;
		if (!pd_host_counter(h, w->counter, &d, &abs) || abs || d <= 0 || explained(r, w))
			continue;
		if (!nf) {
			nf = g_new0(pd_finding, 1);
			nf->def = pd_catalog_find(PD_HOST_COUNTER_FINDING);
			nf->severity = PD_SEV_INFO;
			nf->confidence = 0.5;
			nf->capture_wide = true;
			nf->flows = g_array_new(FALSE, TRUE, sizeof(pd_flow_ref));
			nf->examples = g_array_new(FALSE, TRUE, sizeof(pd_evidence));
			nf->metrics = g_array_new(FALSE, TRUE, sizeof(pd_metric));
			nf->host_source = h->ref;
		}
		pd_metric m = {.key = w->counter, .value = (double)d, .unit = "count", .agg = PD_AGG_SUM};
		g_array_append_val(nf->metrics, m);
		nf->occurrences += (uint64_t)d;
		g_string_append_printf(en, "%s%s %+lld", en->len ? ", " : "", w->counter, (long long)d);
		g_string_append_printf(zh, "%s%s %+lld", zh->len ? "，" : "", w->counter, (long long)d);
	}
	if (nf) {
		nf->detail = g_strdup_printf("on %s during the capture: %s; no finding in the packets explains it",
					     host_label(h), en->str);
		nf->detail_zh = g_strdup_printf("抓包期间 %s 上：%s；报文中没有结论能解释", host_label(h), zh->str);
		nf->host_counters = g_strdup(en->str);
		nf->host_counters_zh = g_strdup(zh->str);
		g_ptr_array_add(made, nf);
	}
	g_string_free(en, TRUE);
	g_string_free(zh, TRUE);
}

/* The host is one the capture saw: an address of it, or of a network it is
 * on, is an end of some finding's flow. */
static bool host_in_capture(const pd_host *h, const pd_report *r, bool *any_flows)
{
	*any_flows = false;
	for (guint i = 0; i < r->findings->len; i++) {
		const pd_finding *f = r->findings->pdata[i];
		for (guint k = 0; f->flows && k < f->flows->len; k++) {
			*any_flows = true;
			if (flow_on_path(h, &g_array_index(f->flows, pd_flow_ref, k)))
				return true;
		}
	}
	return false;
}

void pd_host_stage(pd_report *r, const char *const *paths, size_t n)
{
	if (!n)
		return;
	pd_capture_summary *c = &r->cap;
	if (!c->hosts)
		c->hosts = g_ptr_array_new_with_free_func(g_free);
	GPtrArray *made = g_ptr_array_new();
	GPtrArray *loaded = g_ptr_array_new_with_free_func((GDestroyNotify)pd_host_free);
	for (size_t p = 0; p < n; p++) {
		char *src = g_strdup(paths[p]);
		g_ptr_array_add(c->hosts, src);
		pd_host *h = pd_host_load(paths[p]);
		h->ref = src; /* the report's copy: findings point at it */
		g_ptr_array_add(loaded, h);
		bool use = h->files_used > 0;
		double t0 = (double)c->first_ts / 1e9, t1 = (double)c->last_ts / 1e9;
		if (use && h->first_time > 0 && c->packets &&
		    (h->first_time > t1 + HOST_MAX_AWAY_S || h->last_time < t0 - HOST_MAX_AWAY_S)) {
			double away = h->first_time > t1 ? h->first_time - t1 : t0 - h->last_time;
			g_ptr_array_add(h->notes_en,
					g_strdup_printf("host snapshot %s: taken %.1f h away from the capture; not used",
							src, away / 3600.0));
			g_ptr_array_add(h->notes_zh,
					g_strdup_printf("主机快照 %s：与抓包时间相差 %.1f 小时；未使用", src, away / 3600.0));
			use = false;
		}
		bool any_flows;
		if (use && h->nets->len && !host_in_capture(h, r, &any_flows) && any_flows) {
			char a[PD_ADDR_STRLEN];
			pd_addr_str(&g_array_index(h->nets, pd_host_net, 0).addr, a, sizeof(a));
			g_ptr_array_add(h->notes_en,
					g_strdup_printf("host snapshot %s: its addresses (%s ...) are in none of the "
							"findings' flows: a snapshot of another host; not used",
							src, a));
			g_ptr_array_add(h->notes_zh, g_strdup_printf("主机快照 %s：其地址（%s ...）不在任何结论的连接中："
								     "是另一台主机的快照；未使用",
								     src, a));
			use = false;
		}
		if (use && !h->nets->len) {
			g_ptr_array_add(h->notes_en,
					g_strdup_printf("host snapshot %s: no ip addr output; taken as an end of every "
							"finding's flows without checking",
							src));
			g_ptr_array_add(h->notes_zh, g_strdup_printf("主机快照 %s：没有 ip addr 输出；未经核对即视为每个"
								     "结论连接的一端",
								     src));
		}
		if (use) {
			GHashTable *noted = g_hash_table_new(g_str_hash, g_str_equal);
			for (guint i = 0; i < r->findings->len; i++)
				apply_host(h, r->findings->pdata[i], noted);
			unexplained(r, h, made);
			g_hash_table_destroy(noted);
		}
		note_take(c, h->notes_en, h->notes_zh);
	}
	for (guint i = 0; i < made->len; i++)
		g_ptr_array_add(r->findings, made->pdata[i]);
	g_ptr_array_free(made, TRUE);
	g_ptr_array_free(loaded, TRUE);
	pd_report_sort(r);
}
