/* tc -s qdisc: "qdisc KIND HANDLE: dev IF root|parent P ..." then
 * " Sent B bytes P pkt (dropped D, overlimits O requeues R)". Kept per
 * interface, summed over its qdiscs ("IF dropped", "IF overlimits"); a
 * classful root counts its children's drops too, which only matters for
 * how large the sum is, never for whether it rose. */
#include <string.h>

#include "host/host.h"

/* The number after word in l (bounded by n), as "dropped 5," prints it. */
static bool after(const char *l, size_t n, const char *word, int64_t *out)
{
	size_t wl = strlen(word);
	for (size_t i = 0; i + wl < n; i++)
		if ((i == 0 || l[i - 1] == ' ' || l[i - 1] == '(') && !memcmp(l + i, word, wl) && l[i + wl] == ' ')
			return pd_host_int(l + i + wl + 1, n - i - wl - 1, out, NULL) && *out >= 0;
	return false;
}

bool pd_host_parse_qdisc(pd_host *h, const char *name, const char *text, size_t len, double time)
{
	pd_host_lines c = {text, text + len};
	const char *l;
	size_t n;
	char ifname[16] = "";
	GHashTable *t = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
	while (pd_host_next_line(&c, &l, &n)) {
		if (n > 6 && !memcmp(l, "qdisc ", 6)) {
			ifname[0] = 0;
			for (size_t i = 6; i + 5 < n; i++) {
				if (memcmp(l + i, " dev ", 5))
					continue;
				size_t s = i + 5, e = s;
				while (e < n && l[e] != ' ')
					e++;
				if (e > s && e - s <= 15) {
					memcpy(ifname, l + s, e - s);
					ifname[e - s] = 0;
				}
				break;
			}
			continue;
		}
		if (n && l[0] != ' ' && l[0] != '\t') {
			ifname[0] = 0; /* class, filter, anything else: not a qdisc's counters */
			continue;
		}
		size_t i = 0;
		while (i < n && (l[i] == ' ' || l[i] == '\t'))
			i++;
		int64_t dropped, over;
		if (!ifname[0] || n - i < 5 || memcmp(l + i, "Sent ", 5) || !after(l, n, "dropped", &dropped) ||
		    !after(l, n, "overlimits", &over))
			continue;
		char key[40];
		g_snprintf(key, sizeof(key), "%s dropped", ifname);
		pd_host_series_add(t, key, dropped);
		g_snprintf(key, sizeof(key), "%s overlimits", ifname);
		pd_host_series_add(t, key, over);
		ifname[0] = 0; /* one Sent line per qdisc */
	}
	return pd_host_series_keep(h->qdisc, t, name, time);
}
