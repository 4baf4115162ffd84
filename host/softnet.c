/* /proc/net/softnet_stat: one line per CPU of 8-digit hex words; column 1
 * packets processed, 2 dropped (the per-CPU backlog, net.core.
 * netdev_max_backlog, was full), 3 time_squeeze (the softirq ran out of
 * net.core.netdev_budget / netdev_budget_usecs with work left). Summed over
 * the CPUs. Kernels since 2.6 print at least 10 columns; 3 are enough. */
#include <string.h>

#include "host/host.h"

static bool hex8(const char *s, size_t n, int64_t *out)
{
	if (n != 8)
		return false;
	int64_t v = 0;
	for (size_t i = 0; i < n; i++) {
		char ch = s[i];
		int d = ch >= '0' && ch <= '9' ? ch - '0' : ch >= 'a' && ch <= 'f' ? ch - 'a' + 10 : -1;
		if (d < 0)
			return false;
		v = v * 16 + d;
	}
	*out = v;
	return true;
}

bool pd_host_parse_softnet(pd_host *h, const char *name, const char *text, size_t len, double time)
{
	pd_host_lines c = {text, text + len};
	const char *l;
	size_t n;
	int64_t sum[3] = {0, 0, 0};
	unsigned cpus = 0, bad = 0;
	while (pd_host_next_line(&c, &l, &n)) {
		while (n && (l[n - 1] == ' ' || l[n - 1] == '\t'))
			n--;
		if (!n)
			continue;
		int64_t col[3] = {0, 0, 0};
		unsigned words = 0;
		bool ok = true;
		for (size_t i = 0; i < n && ok;) {
			size_t s = i;
			while (i < n && l[i] != ' ')
				i++;
			int64_t v;
			ok = hex8(l + s, i - s, &v) && words < 64;
			if (ok && words < 3)
				col[words] = v;
			words++;
			while (i < n && l[i] == ' ')
				i++;
		}
		if (!ok || words < 3) {
			bad++;
			continue;
		}
		for (int k = 0; k < 3; k++)
			sum[k] += col[k];
		cpus++;
	}
	/* a cut last line is one bad line; more and this is something else */
	if (!cpus || bad > 1)
		return false;
	GHashTable *t = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
	pd_host_series_add(t, "processed", sum[0]);
	pd_host_series_add(t, "dropped", sum[1]);
	pd_host_series_add(t, "time_squeeze", sum[2]);
	pd_host_series_add(t, "cpus", cpus);
	return pd_host_series_keep(h->softnet, t, name, time);
}
