/* nstat -az (or -a): "#kernel" then "Name  value  rate" lines. One
 * snapshot gives absolute counts; two give what happened between them. */
#include <string.h>

#include "host/host.h"

static bool counter_name(const char *s, size_t n)
{
	if (n < 3 || n > 80 || !(s[0] >= 'A' && s[0] <= 'Z'))
		return false;
	for (size_t i = 0; i < n; i++)
		if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' && s[i] <= 'Z') || (s[i] >= '0' && s[i] <= '9') ||
		      s[i] == '_'))
			return false;
	return true;
}

bool pd_host_parse_nstat(pd_host *h, const char *name, const char *text, size_t len, double time)
{
	pd_host_lines c = {text, text + len};
	const char *l;
	size_t n;
	bool kernel = false;
	unsigned good = 0, bad = 0;
	GHashTable *t = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
	while (pd_host_next_line(&c, &l, &n)) {
		if (n == 0)
			continue;
		if (n >= 7 && !strncmp(l, "#kernel", 7)) {
			kernel = true;
			continue;
		}
		if (l[0] == '#')
			continue;
		size_t kn = 0;
		while (kn < n && l[kn] != ' ' && l[kn] != '\t')
			kn++;
		size_t i = kn;
		while (i < n && (l[i] == ' ' || l[i] == '\t'))
			i++;
		int64_t v;
		size_t used;
		if (!counter_name(l, kn) || i == kn || !pd_host_int(l + i, n - i, &v, &used) ||
		    (i + used < n && l[i + used] != ' ' && l[i + used] != '\t')) {
			bad++;
			continue;
		}
		int64_t *pv = g_new(int64_t, 1);
		*pv = v;
		g_hash_table_replace(t, g_strndup(l, kn), pv);
		good++;
	}
	/* Ip/Tcp/TcpExt names: nstat's, not any "Name value" list */
	bool ours = g_hash_table_contains(t, "IpInReceives") || g_hash_table_contains(t, "TcpInSegs") ||
		    g_hash_table_contains(t, "TcpExtListenOverflows") || g_hash_table_contains(t, "TcpActiveOpens");
	if (!(kernel || ours) || good < 3 || good < bad * 4) {
		g_hash_table_destroy(t);
		return false;
	}
	return pd_host_series_keep(h->nstat, t, name, time);
}
