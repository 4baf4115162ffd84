/* ip addr: "N: IF: <FLAGS> ..." then "    inet A/P ..." / "    inet6 A/P ...". */
#include <string.h>

#include "host/host.h"

bool pd_host_parse_ipaddr(pd_host *h, const char *text, size_t len)
{
	pd_host_lines c = {text, text + len};
	const char *l;
	size_t n;
	bool iface = false;
	unsigned found = 0;
	char ifname[16] = "";
	while (pd_host_next_line(&c, &l, &n)) {
		if (pd_host_ifline(l, n, ifname)) {
			iface = true;
			continue;
		}
		size_t i = 0;
		while (i < n && (l[i] == ' ' || l[i] == '\t'))
			i++;
		if (!iface || i == 0)
			continue;
		size_t kw = 0;
		if (n - i > 5 && !memcmp(l + i, "inet ", 5))
			kw = 5;
		else if (n - i > 6 && !memcmp(l + i, "inet6 ", 6))
			kw = 6;
		if (!kw)
			continue;
		i += kw;
		size_t s = i;
		while (i < n && l[i] != '/' && l[i] != ' ')
			i++;
		pd_host_net net = {0};
		memcpy(net.ifname, ifname, sizeof(net.ifname));
		if (!pd_host_addr_parse(l + s, i - s, &net.addr))
			continue;
		net.prefix = net.addr.family == 4 ? 32 : 128;
		if (i < n && l[i] == '/') {
			int64_t p;
			if (pd_host_int(l + i + 1, n - i - 1, &p, NULL) && p >= 0 && p <= (int64_t)net.prefix)
				net.prefix = (unsigned)p;
		}
		g_array_append_val(h->nets, net);
		found++;
	}
	return iface && found > 0;
}
