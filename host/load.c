/* Reading a host's snapshots: a folder of files or a .tar.gz of them, each
 * recognised by its content; and the questions the run asks of them. */
#include <errno.h>
#include <math.h>
#include <string.h>
#include <sys/stat.h>
#include <zlib.h>

#include "host/host.h"
#include "dissect/addr.h"

#define HOST_MAX_FILE (64u << 20) /* a sysctl -a is ~100 KB; anything this big is not ours */
#define HOST_MAX_FILES 1024 /* the collector writes ~320: ss every second for 5 minutes */

static void note(pd_host *h, const char *file, const char *en, const char *zh)
{
	g_ptr_array_add(h->notes_en, g_strdup_printf("host snapshot %s: %s", file, en));
	g_ptr_array_add(h->notes_zh, g_strdup_printf("主机快照 %s：%s", file, zh));
}

static void nstat_free(gpointer p)
{
	pd_host_nstat *s = p;
	g_hash_table_destroy(s->v);
	g_free(s->file);
	g_free(s);
}

static void ctstat_free(gpointer p)
{
	pd_host_ctstat *s = p;
	g_free(s->file);
	g_free(s);
}

static pd_host *host_new(const char *path)
{
	pd_host *h = g_new0(pd_host, 1);
	h->source = g_strdup(path);
	h->sysctl = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
	h->nstat = g_ptr_array_new_with_free_func(nstat_free);
	h->ctstat = g_ptr_array_new_with_free_func(ctstat_free);
	h->link = g_ptr_array_new_with_free_func(nstat_free);
	h->qdisc = g_ptr_array_new_with_free_func(nstat_free);
	h->softnet = g_ptr_array_new_with_free_func(nstat_free);
	h->socks = g_array_new(FALSE, TRUE, sizeof(pd_host_sock));
	h->nets = g_array_new(FALSE, TRUE, sizeof(pd_host_net));
	h->notes_en = g_ptr_array_new_with_free_func(g_free);
	h->notes_zh = g_ptr_array_new_with_free_func(g_free);
	h->ct_count = -1;
	return h;
}

void pd_host_free(pd_host *h)
{
	if (!h)
		return;
	g_free(h->source);
	g_hash_table_destroy(h->sysctl);
	g_ptr_array_free(h->nstat, TRUE);
	g_ptr_array_free(h->ctstat, TRUE);
	g_ptr_array_free(h->link, TRUE);
	g_ptr_array_free(h->qdisc, TRUE);
	g_ptr_array_free(h->softnet, TRUE);
	g_array_free(h->socks, TRUE);
	g_array_free(h->nets, TRUE);
	g_ptr_array_free(h->notes_en, TRUE);
	g_ptr_array_free(h->notes_zh, TRUE);
	g_free(h);
}

/* One word of [A-Za-z0-9.-_], as hostname and uname -r print. */
static bool one_word(const char *s, size_t n)
{
	if (n == 0 || n > 63)
		return false;
	for (size_t i = 0; i < n; i++) {
		char c = s[i];
		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
		      c == '-' || c == '_' || c == '+' || c == '~'))
			return false;
	}
	return true;
}

static void seen_time(pd_host *h, double t)
{
	if (t <= 0)
		return;
	if (h->first_time == 0 || t < h->first_time)
		h->first_time = t;
	if (t > h->last_time)
		h->last_time = t;
}

pd_host_kind pd_host_add_text(pd_host *h, const char *name, const char *text, size_t len, double mtime)
{
	if (memchr(text, 0, len)) {
		note(h, name, "binary data, not a command's text output; not used",
		     "二进制数据，不是命令的文本输出；未使用");
		return PD_HK_UNKNOWN;
	}
	/* the collector's header lines: "# time EPOCH" (when it was taken), "# cmd ..." */
	double time = mtime;
	pd_host_lines c = {text, text + len};
	const char *l;
	size_t n;
	const char *body = text;
	while (pd_host_next_line(&c, &l, &n)) {
		if (n > 7 && !memcmp(l, "# time ", 7)) {
			char buf[32];
			size_t k = MIN(n - 7, sizeof(buf) - 1);
			memcpy(buf, l + 7, k);
			buf[k] = 0;
			char *end = NULL;
			double t = g_ascii_strtod(buf, &end);
			if (end != buf && isfinite(t) && t > 0)
				time = t;
		} else if (!(n > 6 && !memcmp(l, "# cmd ", 6))) {
			break;
		}
		body = c.p;
	}
	size_t blen = (size_t)(text + len - body);
	/* the meaningful lines: trailing blanks do not count */
	c = (pd_host_lines){body, body + blen};
	unsigned lines = 0;
	const char *first = NULL;
	size_t first_n = 0;
	while (pd_host_next_line(&c, &l, &n)) {
		while (n && (l[n - 1] == ' ' || l[n - 1] == '\t'))
			n--;
		if (!n)
			continue;
		if (!lines) {
			first = l;
			first_n = n;
		}
		lines++;
	}
	if (!lines) {
		note(h, name, "empty; not used", "为空；未使用");
		return PD_HK_UNKNOWN;
	}
	pd_host_kind k = PD_HK_UNKNOWN;
	if (lines == 1) {
		int64_t v;
		size_t used;
		if (pd_host_int(first, first_n, &v, &used) && used == first_n && v >= 0) {
			h->ct_count = v;
			k = PD_HK_CONNTRACK_C;
		} else if (one_word(first, first_n) && first[0] >= '0' && first[0] <= '9' &&
			   memchr(first, '.', first_n)) {
			memcpy(h->kernel, first, first_n);
			h->kernel[first_n] = 0;
			k = PD_HK_UNAME;
		} else if (one_word(first, first_n)) {
			memcpy(h->hostname, first, first_n);
			h->hostname[first_n] = 0;
			k = PD_HK_HOSTNAME;
		} else if (pd_host_parse_softnet(h, name, body, blen, time)) {
			k = PD_HK_SOFTNET; /* one CPU */
		} else if (pd_host_parse_ss(h, body, blen, time)) {
			k = PD_HK_SS; /* the header alone: no socket at that moment */
		}
	} else if (pd_host_parse_conntrack_s(h, name, body, blen, time)) {
		k = PD_HK_CONNTRACK_S;
	} else if (pd_host_parse_nstat(h, name, body, blen, time)) {
		k = PD_HK_NSTAT;
	} else if (pd_host_parse_iplink(h, name, body, blen, time)) {
		k = PD_HK_IPLINK;
		pd_host_parse_ipaddr(h, body, blen); /* ip -s addr: the addresses too */
	} else if (pd_host_parse_ipaddr(h, body, blen)) {
		k = PD_HK_IPADDR;
	} else if (pd_host_parse_qdisc(h, name, body, blen, time)) {
		k = PD_HK_QDISC;
	} else if (pd_host_parse_softnet(h, name, body, blen, time)) {
		k = PD_HK_SOFTNET;
	} else if (pd_host_parse_ss(h, body, blen, time)) {
		k = PD_HK_SS;
	} else if (pd_host_parse_sysctl(h, body, blen)) {
		k = PD_HK_SYSCTL;
	}
	if (k == PD_HK_UNKNOWN) {
		note(h, name,
		     "not the output of a command pcapdoc reads (sysctl -a, nstat -az, ss -tmi, conntrack -S/-C, "
		     "ip addr, ip -s link, tc -s qdisc, /proc/net/softnet_stat, uname -r, hostname); not used",
		     "不是 pcapdoc 能读的命令输出（sysctl -a、nstat -az、ss -tmi、conntrack -S/-C、ip addr、ip -s link、"
		     "tc -s qdisc、/proc/net/softnet_stat、uname -r、hostname）；未使用");
		return k;
	}
	seen_time(h, time);
	h->files_used++;
	return k;
}

static void add_file(pd_host *h, const char *name, const char *data, size_t len, double mtime)
{
	pd_host_add_text(h, name, data, len, mtime);
}

static uint64_t octal(const char *s, size_t n)
{
	uint64_t v = 0;
	for (size_t i = 0; i < n && s[i]; i++) {
		if (s[i] == ' ')
			continue;
		if (s[i] < '0' || s[i] > '7')
			break;
		v = v * 8 + (uint64_t)(s[i] - '0');
	}
	return v;
}

/* ustar inside gzip: 512-byte headers, regular files only, names taken as
 * they are (only for the notes). */
static void load_tgz(pd_host *h, const char *path)
{
	gzFile gz = gzopen(path, "rb");
	if (!gz) {
		note(h, path, "cannot be opened; not used", "无法打开；未使用");
		return;
	}
	unsigned char hdr[512];
	unsigned files = 0;
	bool ok = true;
	for (;;) {
		int r = gzread(gz, hdr, sizeof(hdr));
		if (r == 0)
			break;
		if (r != (int)sizeof(hdr)) {
			ok = false;
			break;
		}
		bool zero = true;
		for (size_t i = 0; i < sizeof(hdr) && zero; i++)
			zero = hdr[i] == 0;
		if (zero)
			break;
		char name[101];
		memcpy(name, hdr, 100);
		name[100] = 0;
		uint64_t size = octal((const char *)hdr + 124, 12);
		double mtime = (double)octal((const char *)hdr + 136, 12);
		char type = (char)hdr[156];
		uint64_t padded = (size + 511) & ~UINT64_C(511);
		if ((type == '0' || type == 0) && size <= HOST_MAX_FILE && files < HOST_MAX_FILES) {
			char *buf = g_malloc(padded ? padded : 1);
			if (gzread(gz, buf, (unsigned)padded) != (int)padded) {
				g_free(buf);
				ok = false;
				break;
			}
			const char *base = strrchr(name, '/');
			char *label = g_strdup_printf("%s:%s", path, base && base[1] ? base + 1 : name);
			if (!(base && !base[1]))
				add_file(h, label, buf, (size_t)size, mtime);
			g_free(label);
			g_free(buf);
			files++;
		} else if (gzseek(gz, (z_off_t)padded, SEEK_CUR) < 0) {
			ok = false;
			break;
		}
	}
	if (!ok)
		note(h, path, "the archive is truncated or not a tar.gz; what was read before is used",
		     "归档被截断或不是 tar.gz；只使用之前读到的部分");
	gzclose(gz);
}

static void load_dir(pd_host *h, const char *path)
{
	GError *err = NULL;
	GDir *d = g_dir_open(path, 0, &err);
	if (!d) {
		note(h, path, err ? err->message : "cannot be read", err ? err->message : "无法读取");
		g_clear_error(&err);
		return;
	}
	GPtrArray *names = g_ptr_array_new_with_free_func(g_free);
	const char *n;
	bool more = false;
	while ((n = g_dir_read_name(d))) {
		if (names->len >= HOST_MAX_FILES) {
			more = true;
			break;
		}
		g_ptr_array_add(names, g_strdup(n));
	}
	if (more)
		note(h, path, "more files than pcapdoc reads from one folder; some were left out",
		     "文件数超过 pcapdoc 从一个目录读取的上限；部分未读取");
	g_dir_close(d);
	g_ptr_array_sort(names, (GCompareFunc)g_strcmp0);
	for (guint i = 0; i < names->len; i++) {
		const char *base = *(char **)&names->pdata[i];
		char *p = g_build_filename(path, base, NULL);
		struct stat st;
		if (stat(p, &st) == 0 && S_ISREG(st.st_mode)) {
			char *text = NULL;
			gsize len = 0;
			if ((uint64_t)st.st_size > HOST_MAX_FILE)
				note(h, p, "larger than any snapshot; not used", "比任何快照都大；未使用");
			else if (g_file_get_contents(p, &text, &len, NULL))
				add_file(h, p, text, len, 0); /* a checked-out file's mtime says nothing */
			else
				note(h, p, "cannot be read; not used", "无法读取；未使用");
			g_free(text);
		}
		g_free(p);
	}
	g_ptr_array_free(names, TRUE);
}

static gint nstat_cmp(gconstpointer a, gconstpointer b)
{
	const pd_host_nstat *x = *(pd_host_nstat *const *)a, *y = *(pd_host_nstat *const *)b;
	/* by time when both have one, else by their totals: counters only grow */
	if (x->time > 0 && y->time > 0 && x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return x->total < y->total ? -1 : x->total > y->total ? 1 : 0;
}

static gint ct_cmp(gconstpointer a, gconstpointer b)
{
	const pd_host_ctstat *x = *(pd_host_ctstat *const *)a, *y = *(pd_host_ctstat *const *)b;
	if (x->time > 0 && y->time > 0 && x->time != y->time)
		return x->time < y->time ? -1 : 1;
	int64_t tx = x->found + x->insert + x->drop, ty = y->found + y->insert + y->drop;
	return tx < ty ? -1 : tx > ty ? 1 : 0;
}

pd_host *pd_host_load(const char *path)
{
	pd_host *h = host_new(path);
	struct stat st;
	if (stat(path, &st) != 0) {
		note(h, path, g_strerror(errno), g_strerror(errno));
		return h;
	}
	if (S_ISDIR(st.st_mode))
		load_dir(h, path);
	else
		load_tgz(h, path);
	g_ptr_array_sort(h->nstat, nstat_cmp);
	g_ptr_array_sort(h->ctstat, ct_cmp);
	g_ptr_array_sort(h->link, nstat_cmp);
	g_ptr_array_sort(h->qdisc, nstat_cmp);
	g_ptr_array_sort(h->softnet, nstat_cmp);
	if (h->socks_capped)
		note(h, path, "more sockets than pcapdoc keeps in all the ss snapshots; the later ones were left out",
		     "所有 ss 快照中的套接字超过 pcapdoc 保留的上限；后面的未读取");
	if (!h->files_used)
		note(h, path, "no snapshot pcapdoc reads was found", "没有找到 pcapdoc 能读的快照");
	return h;
}

bool pd_host_sysctl_int(const pd_host *h, const char *name, unsigned field, int64_t *out)
{
	const char *v = g_hash_table_lookup(h->sysctl, name);
	if (!v)
		return false;
	size_t n = strlen(v), i = 0;
	for (unsigned f = 0;; f++) {
		while (i < n && (v[i] == ' ' || v[i] == '\t'))
			i++;
		if (i >= n)
			return false;
		size_t used;
		if (f == field)
			return pd_host_int(v + i, n - i, out, &used);
		while (i < n && v[i] != ' ' && v[i] != '\t')
			i++;
	}
}

void pd_host_series_add(GHashTable *t, const char *key, int64_t v)
{
	int64_t *pv = g_hash_table_lookup(t, key);
	if (pv) {
		*pv += v;
		return;
	}
	pv = g_new(int64_t, 1);
	*pv = v;
	g_hash_table_insert(t, g_strdup(key), pv);
}

bool pd_host_series_keep(GPtrArray *to, GHashTable *t, const char *name, double time)
{
	if (!g_hash_table_size(t)) {
		g_hash_table_destroy(t);
		return false;
	}
	pd_host_nstat *s = g_new0(pd_host_nstat, 1);
	s->file = g_strdup(name);
	s->time = time;
	s->v = t;
	GHashTableIter it;
	gpointer k, v;
	g_hash_table_iter_init(&it, t);
	while (g_hash_table_iter_next(&it, &k, &v))
		s->total += (double)*(int64_t *)v;
	g_ptr_array_add(to, s);
	return true;
}

bool pd_host_series_delta(const GPtrArray *snaps, const char *key, int64_t *delta, bool *absolute)
{
	if (!snaps->len)
		return false;
	const pd_host_nstat *a = g_ptr_array_index(snaps, 0);
	const pd_host_nstat *b = g_ptr_array_index(snaps, snaps->len - 1);
	const int64_t *vb = g_hash_table_lookup(b->v, key);
	if (!vb)
		return false;
	if (a == b) {
		*delta = *vb;
		*absolute = true;
		return true;
	}
	const int64_t *va = g_hash_table_lookup(a->v, key);
	*delta = *vb - (va ? *va : 0);
	*absolute = false;
	return true;
}

static bool if_listed(const char *const *ifs, const char *name, size_t n)
{
	for (size_t i = 0; ifs && ifs[i]; i++)
		if (strlen(ifs[i]) == n && !memcmp(ifs[i], name, n))
			return true;
	return false;
}

bool pd_host_if_delta(const GPtrArray *snaps, const char *const *ifs, const char *counter, int64_t *delta,
		      bool *absolute, bool *all)
{
	*delta = 0;
	*all = false;
	unsigned n_if = 0;
	if (!snaps->len)
		return false;
	const pd_host_nstat *b = g_ptr_array_index(snaps, snaps->len - 1);
	size_t cl = strlen(counter);
	for (int pass = 0; pass < 2 && !n_if; pass++) {
		/* pass 0: the interfaces asked for; pass 1: every one but lo */
		if (pass == 0 && !(ifs && ifs[0]))
			continue;
		GHashTableIter it;
		gpointer k, v;
		g_hash_table_iter_init(&it, b->v);
		while (g_hash_table_iter_next(&it, &k, &v)) {
			const char *key = k;
			const char *sp = strchr(key, ' ');
			if (!sp || strcmp(sp + 1, counter) || strlen(sp + 1) != cl)
				continue;
			size_t in = (size_t)(sp - key);
			if (pass == 0 ? !if_listed(ifs, key, in) : (in == 2 && !memcmp(key, "lo", 2)))
				continue;
			int64_t d;
			if (!pd_host_series_delta(snaps, key, &d, absolute))
				continue;
			*delta += d;
			n_if++;
			*all = pass == 1;
		}
	}
	return n_if > 0;
}

bool pd_host_counter(const pd_host *h, const char *name, int64_t *delta, bool *absolute)
{
	return pd_host_series_delta(h->nstat, name, delta, absolute);
}

bool pd_host_ct_delta(const pd_host *h, int64_t *drop, int64_t *insert_failed, int64_t *early_drop)
{
	if (!h->ctstat->len)
		return false;
	const pd_host_ctstat *a = g_ptr_array_index(h->ctstat, 0);
	const pd_host_ctstat *b = g_ptr_array_index(h->ctstat, h->ctstat->len - 1);
	if (a == b) {
		*drop = b->drop;
		*insert_failed = b->insert_failed;
		*early_drop = b->early_drop;
	} else {
		*drop = b->drop - a->drop;
		*insert_failed = b->insert_failed - a->insert_failed;
		*early_drop = b->early_drop - a->early_drop;
	}
	return true;
}

bool pd_host_has_addr(const pd_host *h, const pd_addr *a)
{
	for (guint i = 0; i < h->nets->len; i++)
		if (pd_addr_equal(&g_array_index(h->nets, pd_host_net, i).addr, a))
			return true;
	return false;
}

bool pd_host_on_net(const pd_host *h, const pd_addr *a)
{
	for (guint i = 0; i < h->nets->len; i++) {
		const pd_host_net *n = &g_array_index(h->nets, pd_host_net, i);
		if (n->addr.family != a->family || !a->family)
			continue;
		unsigned bits = n->prefix;
		if (bits == 0 || (a->family == 4 && bits < 8) || (a->family == 6 && bits < 16))
			continue; /* a default-sized net says nothing about the path */
		size_t full = bits / 8;
		if (memcmp(n->addr.bytes, a->bytes, full))
			continue;
		unsigned rest = bits % 8;
		if (rest) {
			uint8_t mask = (uint8_t)(0xff << (8 - rest));
			if ((n->addr.bytes[full] & mask) != (a->bytes[full] & mask))
				continue;
		}
		if (pd_addr_equal(&n->addr, a) == false)
			return true;
	}
	return false;
}
