/* --format html: one self-contained page (no network, no script, no
 * external font: a Content-Security-Policy of default-src 'none' says so
 * to the browser) with the verdict, the findings, and per flagged flow the
 * pictures that prove them, drawn as inline SVG from the packet series the
 * analyzer attached (analyzer/series.c; this renderer never reads packets):
 *
 *   tseq      time-sequence (Stevens) graph, evidence packets marked: every finding on a flow
 *   inflight  bytes in flight against the receive window: window and send-buffer findings
 *   rtt       RTT over time: loss and queueing findings
 *   gaps      histogram of inter-segment gaps, the finding's ~40 ms period shaded: Nagle
 *
 * Frame numbers in the pictures are Wireshark's. Each picture's points are
 * the bounded sample the series hold (PD_SERIES_MAX_POINTS per flow, every
 * marked packet kept), so a page stays a few hundred KB on any capture. */
#include "report/internal.h"

#include <math.h>
#include <string.h>

enum { CH_TSEQ = 1, CH_INFLIGHT = 2, CH_RTT = 4, CH_GAPS = 8 };
static const char *const CH_NAMES[] = {"tseq", "inflight", "rtt", "gaps"};

#define FLOWS_PER_FINDING 3 /* flows drawn under one finding */
#define MAX_LABELS 12 /* frame numbers written next to evidence marks per picture */

typedef struct html {
	GString *o;
	const pd_labels *l;
	const pd_report *r;
	bool zh, verbose;
	GHashTable *drawn; /* flow id -> charts drawn (mask) */
} html;

static void esc(GString *o, const char *s)
{
	pd_r_xml_escape(o, s ? s : "", false);
}

static void esc_fixed(GString *o, const char *a, size_t n)
{
	char *t = g_strndup(a, n);
	esc(o, t);
	g_free(t);
}

/* ---------- which pictures a finding needs ---------- */

static unsigned charts_for(const pd_finding *f)
{
	const pd_finding_def *d = f->def;
	if (!d || d->category == PD_CAT_CAPTURE)
		return 0;
	unsigned m = CH_TSEQ;
	if (d->category == PD_CAT_WINDOW || strcmp(d->id, "sender-limited") == 0 ||
	    strcmp(d->id, "initial-window") == 0 || strcmp(d->id, "slow-start-after-idle") == 0)
		m |= CH_INFLIGHT;
	/* queueing delay: the loss findings, and any queueing or bufferbloat
	 * finding (the accept queue is the listener's, not the path's) */
	if (d->category == PD_CAT_LOSS ||
	    (d->category != PD_CAT_HANDSHAKE && (strstr(d->id, "queue") || strstr(d->id, "bufferbloat"))))
		m |= CH_RTT;
	if (d->category == PD_CAT_NAGLE_DELAYED_ACK)
		m |= CH_GAPS;
	return m;
}

/* ---------- a chart ---------- */

typedef struct chart {
	GString *o;
	double x0, x1, y0, y1;
	int w, h, ml, mr, mt, mb;
	int labels;
	double lx[MAX_LABELS], ly[MAX_LABELS]; /* where frame numbers were written */
	/* two capture points: the point being drawn (-1: one file), whether it
	 * is the other file's, its file's name, and time zero of the axis */
	int point;
	bool other;
	const char *file;
	pd_time origin;
} chart;

static double px(const chart *c, double x)
{
	double t = c->x1 > c->x0 ? (x - c->x0) / (c->x1 - c->x0) : 0;
	return c->ml + t * (c->w - c->ml - c->mr);
}

static double py(const chart *c, double y)
{
	double t = c->y1 > c->y0 ? (y - c->y0) / (c->y1 - c->y0) : 0;
	if (t > 1.02)
		t = 1.02; /* off the chart: drawn at the edge, clipped */
	return c->h - c->mb - t * (c->h - c->mt - c->mb);
}

static double nice_step(double range, int n)
{
	if (!(range > 0))
		return 1;
	double raw = range / n, p = pow(10, floor(log10(raw))), f = raw / p;
	return (f < 1.5 ? 1 : f < 3 ? 2 : f < 7 ? 5 : 10) * p;
}

static void fmt_qty(char *buf, size_t len, double v, bool bytes)
{
	double a = fabs(v);
	if (bytes && a >= 1e6)
		g_snprintf(buf, len, "%gM", round(v / 1e5) / 10);
	else if (bytes && a >= 1e3)
		g_snprintf(buf, len, "%gK", round(v / 1e2) / 10);
	else
		g_snprintf(buf, len, "%g", fabs(v) < 1e-12 ? 0 : v);
}

static void chart_axes(chart *c, const char *xlabel, const char *ylabel, bool ybytes)
{
	GString *o = c->o;
	double xs = nice_step(c->x1 - c->x0, 8), ys = nice_step(c->y1 - c->y0, 5);
	char b[32];
	g_string_append_printf(o, "<g class=\"ax\">");
	for (double y = ceil(c->y0 / ys) * ys; y <= c->y1 + ys * 1e-6; y += ys) {
		fmt_qty(b, sizeof b, y, ybytes);
		g_string_append_printf(o,
				       "<line x1=\"%d\" x2=\"%d\" y1=\"%.1f\" y2=\"%.1f\" class=\"grid\"/>"
				       "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%s</text>",
				       c->ml, c->w - c->mr, py(c, y), py(c, y), c->ml - 5, py(c, y) + 4, b);
	}
	for (double x = ceil(c->x0 / xs) * xs; x <= c->x1 + xs * 1e-6; x += xs) {
		fmt_qty(b, sizeof b, x, false);
		g_string_append_printf(o,
				       "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%d\" y2=\"%d\" class=\"grid\"/>"
				       "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%s</text>",
				       px(c, x), px(c, x), c->mt, c->h - c->mb, px(c, x), c->h - c->mb + 15, b);
	}
	g_string_append_printf(o,
			       "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" class=\"frame\"/>"
			       "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">",
			       c->ml, c->mt, c->w - c->ml - c->mr, c->h - c->mt - c->mb,
			       (c->ml + c->w - c->mr) / 2, c->h - 6);
	esc(o, xlabel);
	g_string_append_printf(o, "</text><text transform=\"translate(14 %d) rotate(-90)\" "
				  "text-anchor=\"middle\">",
			       (c->mt + c->h - c->mb) / 2);
	esc(o, ylabel);
	g_string_append(o, "</text></g>");
}

/* A legend row above the plot at height y: swatch class and label pairs. */
static void chart_legend_at(chart *c, int y, const char *const *cls, const char *const *labels, int n)
{
	double x = c->ml;
	g_string_append(c->o, "<g class=\"legend\">");
	for (int i = 0; i < n; i++) {
		g_string_append_printf(c->o,
				       "<rect x=\"%.0f\" y=\"%d\" width=\"14\" height=\"8\" class=\"%s\"/>"
				       "<text x=\"%.0f\" y=\"%d\">",
				       x, y, cls[i], x + 18, y + 8);
		esc(c->o, labels[i]);
		g_string_append(c->o, "</text>");
		x += 30 + 7.0 * g_utf8_strlen(labels[i], -1) * (g_unichar_iswide(g_utf8_get_char(labels[i])) ? 1.8 : 1);
	}
	g_string_append(c->o, "</g>");
}

static void chart_legend(chart *c, const char *const *cls, const char *const *labels, int n)
{
	chart_legend_at(c, 6, cls, labels, n);
}

/* mt: the top margin, room for the legend rows */
static void figure_begin_mt(html *h, chart *c, const char *kind, uint64_t flow_id, const char *title,
			    int w, int hgt, int mt)
{
	*c = (chart){.o = h->o, .w = w, .h = hgt, .ml = 62, .mr = 16, .mt = mt, .mb = 38, .point = -1};
	g_string_append_printf(h->o, "<figure class=\"chart\" data-chart=\"%s\" data-flow=\"%llu\">"
				     "<figcaption>",
			       kind, (unsigned long long)flow_id);
	esc(h->o, title);
	g_string_append_printf(h->o,
			       "</figcaption><svg xmlns=\"http://www.w3.org/2000/svg\" "
			       "viewBox=\"0 0 %d %d\" width=\"%d\" height=\"%d\" role=\"img\" aria-label=\"",
			       w, hgt, w, hgt);
	esc(h->o, title);
	g_string_append_printf(h->o,
			       "\"><defs><clipPath id=\"clip-%s-%llu\"><rect x=\"%d\" y=\"%d\" "
			       "width=\"%d\" height=\"%d\"/></clipPath></defs>",
			       kind, (unsigned long long)flow_id, c->ml, c->mt, w - c->ml - c->mr,
			       hgt - c->mt - c->mb);
}

static void figure_begin(html *h, chart *c, const char *kind, uint64_t flow_id, const char *title,
			 int w, int hgt)
{
	figure_begin_mt(h, c, kind, flow_id, title, w, hgt, 24);
}

static void plot_begin(chart *c, const char *kind, uint64_t flow_id)
{
	g_string_append_printf(c->o, "<g clip-path=\"url(#clip-%s-%llu)\">", kind,
			       (unsigned long long)flow_id);
}

static void figure_end(html *h, const char *note, const char *extra)
{
	g_string_append(h->o, "</svg><p class=\"note\">");
	esc(h->o, note);
	if (extra && *extra) {
		g_string_append_c(h->o, ' ');
		esc(h->o, extra);
	}
	g_string_append(h->o, "</p></figure>\n");
}

/* What a marked packet is, for its tooltip: the finding's own words when
 * it names the frame, else the local rule's. */
static const char *mark_text(const html *h, const chart *c, const pd_series_point *p, GString *tmp)
{
	g_string_truncate(tmp, 0);
	if (c->point >= 0 && c->file)
		g_string_append_printf(tmp, "%s ", c->file);
	g_string_append_printf(tmp, "#%llu ", (unsigned long long)p->frame);
	/* the findings name frames of the analysed file only */
	for (guint i = 0; !c->other && h->r->findings && i < h->r->findings->len; i++) {
		const pd_finding *f = h->r->findings->pdata[i];
		for (guint e = 0; f->examples && e < f->examples->len; e++) {
			const pd_evidence *ev = &g_array_index(f->examples, pd_evidence, e);
			if (ev->frame == p->frame) {
				char w[128];
				g_string_append(tmp, pd_evidence_what_in(ev, h->zh, w));
				return tmp->str;
			}
		}
	}
	const pd_labels *l = h->l;
	g_string_append(tmp, p->marks & PD_MARK_RETRANS    ? l->legend_retrans
			     : p->marks & PD_MARK_SYN_RETRY ? l->legend_syn
			     : p->marks & PD_MARK_SYN       ? l->legend_syn
			     : p->marks & PD_MARK_ZWP       ? l->legend_zwp
			     : p->marks & PD_MARK_ZERO_WIN  ? l->legend_zero
							    : l->legend_evidence);
	return tmp->str;
}

/* Two capture points: which file a mark's packet is from, and its time on
 * the shared axis (nothing with one file). */
static void point_attrs(chart *c, const pd_series_point *p)
{
	if (c->point < 0)
		return;
	g_string_append(c->o, " data-point=\"");
	esc(c->o, c->file);
	g_string_append_printf(c->o, "\" data-t=\"%.6f\"", (double)(p->ts - c->origin) / 1e9);
}

static const char *mark_class(const pd_series_point *p)
{
	return p->marks & PD_MARK_RETRANS     ? "rt"
	       : p->marks & (PD_MARK_SYN_RETRY | PD_MARK_SYN) ? "syn"
	       : p->marks & PD_MARK_ZWP         ? "zwp"
	       : p->marks & PD_MARK_ZERO_WIN    ? "zw"
						: "ev";
}

static void mark(html *h, chart *c, const pd_series_point *p, double x, double y, GString *tmp)
{
	const char *cls = mark_class(p);
	bool ev = p->marks & PD_MARK_EVIDENCE;
	g_string_append_printf(c->o, "<circle class=\"m %s%s%s\" data-frame=\"%llu\" data-mark=\"%s\"",
			       cls, ev ? " evm" : "", c->other ? " o" : "", (unsigned long long)p->frame,
			       cls);
	point_attrs(c, p);
	g_string_append_printf(c->o, " cx=\"%.1f\" cy=\"%.1f\" r=\"%d\"><title>", x, y,
			       ev || (p->marks & PD_MARK_SYN) ? 4 : 3);
	esc(c->o, mark_text(h, c, p, tmp));
	g_string_append(c->o, "</title></circle>");
	if (ev && c->labels < MAX_LABELS) {
		/* the frame number beside the mark: left of it near the right edge,
		 * raised when it would sit on another, left out when crowded */
		char txt[24];
		int n = g_snprintf(txt, sizeof txt, "#%llu", (unsigned long long)p->frame);
		double tw = n * 6.2;
		double tx = x + tw + 6 > c->w - c->mr ? x - tw - 5 : x + 5;
		double ty = y - 6;
		for (int tries = 0; tries < 3; tries++) {
			bool clash = false;
			for (int i = 0; i < c->labels && !clash; i++)
				clash = fabs(c->lx[i] - tx) < tw + 2 && fabs(c->ly[i] - ty) < 11;
			if (!clash)
				break;
			ty -= 11;
			if (tries == 2)
				return;
		}
		if (ty < c->mt + 9)
			ty = y + 14;
		c->lx[c->labels] = tx;
		c->ly[c->labels] = ty;
		c->labels++;
		g_string_append_printf(c->o, "<text class=\"fl\" x=\"%.1f\" y=\"%.1f\">%s</text>", tx, ty,
				       txt);
	}
}

static double rel_s(const pd_flow_series *fs, pd_time t)
{
	return (double)(t - fs->first_ts) / 1e9;
}

static void note_sampled(GString *b, const pd_labels *l, const pd_flow_series *fs)
{
	if (fs->points->len >= fs->packets)
		return;
	g_string_append_printf(b, "%s%u%s%llu%s", l->sampled_pre, fs->points->len, l->sampled_mid,
			       (unsigned long long)fs->packets, l->sampled_post);
}

/* ---------- the four pictures ---------- */

static int data_dir(const pd_flow_series *fs)
{
	return fs->data_dir;
}

/* The highest sequence number a series reaches, data or ACK (at least 1). */
static double tseq_top(const pd_flow_series *fs, int D)
{
	double ymax = 1;
	for (guint i = 0; i < fs->points->len; i++) {
		const pd_series_point *p = &g_array_index(fs->points, pd_series_point, i);
		if (p->dir == D)
			ymax = MAX(ymax, (double)p->seq + p->len);
		else if (p->flags & PD_TCP_ACK)
			ymax = MAX(ymax, (double)p->ack);
	}
	return ymax;
}

static double tseq_x(const chart *c, pd_time t)
{
	return px(c, (double)(t - c->origin) / 1e9);
}

/* Where a packet's mark sits: data on its bytes, the receiver's packets
 * on the ACK line. */
static double tseq_mark_y(const chart *c, const pd_series_point *p, int D)
{
	if (p->dir == D || (p->marks & PD_MARK_SYN && !(p->flags & PD_TCP_ACK)))
		return py(c, (double)p->seq + (p->len ? p->len / 2.0 : 0));
	return py(c, p->ack);
}

/* One capture point's ACKs as steps (and the window edge: window), and
 * its data segments as ticks. */
static void tseq_lines(chart *c, const pd_flow_series *fs, int D, bool window)
{
	GString *ack = g_string_new(NULL), *win = g_string_new(NULL), *seg = g_string_new(NULL);
	double last_ack_y = -1, last_win_y = -1;
	for (guint i = 0; i < fs->points->len; i++) {
		const pd_series_point *p = &g_array_index(fs->points, pd_series_point, i);
		double x = tseq_x(c, p->ts);
		if (p->dir != D && (p->flags & PD_TCP_ACK) && !(p->flags & PD_TCP_SYN)) {
			double ya = py(c, p->ack), yw = py(c, (double)p->ack + p->win);
			if (last_ack_y < 0)
				g_string_append_printf(ack, "M%.1f %.1f", x, ya);
			else
				g_string_append_printf(ack, "H%.1fV%.1f", x, ya);
			if (last_win_y < 0)
				g_string_append_printf(win, "M%.1f %.1f", x, yw);
			else
				g_string_append_printf(win, "H%.1fV%.1f", x, yw);
			last_ack_y = ya;
			last_win_y = yw;
		} else if (p->dir == D && p->len > 0 && !(p->marks & (PD_MARK_RETRANS | PD_MARK_ZWP))) {
			double y0 = py(c, p->seq), y1 = py(c, (double)p->seq + p->len);
			if (y0 - y1 < 1.5)
				y1 = y0 - 1.5; /* a visible tick even for one byte */
			g_string_append_printf(seg, "M%.1f %.1fV%.1f", x, y0, y1);
		}
	}
	double xe = px(c, c->x1);
	if (last_ack_y >= 0) {
		g_string_append_printf(ack, "H%.1f", xe);
		g_string_append_printf(win, "H%.1f", xe);
	}
	if (c->point < 0) {
		g_string_append_printf(c->o, "<path class=\"l-win\" d=\"%s\"/><path class=\"l-ack\" d=\"%s\"/>"
					     "<path class=\"l-data\" d=\"%s\"/>",
				       win->str, ack->str, seg->str);
	} else {
		const char *cls[] = {"l-win", "l-ack", "l-data"};
		const GString *d[] = {win, ack, seg};
		for (int k = window ? 0 : 1; k < 3; k++) {
			g_string_append_printf(c->o, "<path class=\"%s%s\" data-point=\"", cls[k],
					       c->other ? " o" : "");
			esc(c->o, c->file);
			g_string_append_printf(c->o, "\" d=\"%s\"/>", d[k]->str);
		}
	}
	g_string_free(ack, TRUE);
	g_string_free(win, TRUE);
	g_string_free(seg, TRUE);
}

/* A guide across the plot at every SYN: retries stand out by their
 * spacing (1 s, 2 s, ...) even when the flow carried no data. */
static void tseq_synlines(chart *c, const pd_flow_series *fs)
{
	for (guint i = 0; i < fs->points->len; i++) {
		const pd_series_point *p = &g_array_index(fs->points, pd_series_point, i);
		if (p->marks & PD_MARK_SYN) {
			double x = tseq_x(c, p->ts);
			g_string_append_printf(c->o, "<line class=\"synline\" x1=\"%.1f\" x2=\"%.1f\" "
						     "y1=\"%d\" y2=\"%d\"/>",
					       x, x, c->mt, c->h - c->mb);
		}
	}
}

/* Marked packets, each with its frame number. */
static void tseq_marks(html *h, chart *c, const pd_flow_series *fs, int D, GString *tmp)
{
	for (guint i = 0; i < fs->points->len; i++) {
		const pd_series_point *p = &g_array_index(fs->points, pd_series_point, i);
		if (!(p->marks & (PD_MARK_RETRANS | PD_MARK_SYN | PD_MARK_ZWP | PD_MARK_ZERO_WIN |
				  PD_MARK_EVIDENCE)))
			continue;
		double x = tseq_x(c, p->ts);
		double y = tseq_mark_y(c, p, D);
		if (p->dir == D && p->len > 0 && (p->marks & (PD_MARK_RETRANS | PD_MARK_ZWP)))
			g_string_append_printf(c->o, "<path class=\"l-rt%s\" d=\"M%.1f %.1fV%.1f\"/>",
					       c->other ? " o" : "", x, py(c, p->seq),
					       py(c, (double)p->seq + p->len));
		mark(h, c, p, x, y, tmp);
	}
}

/* Two capture points: the packets seen at this point only, as crosses. */
static void tseq_crosses(html *h, chart *c, const pd_flow_series *fs, int D)
{
	for (guint i = 0; i < fs->points->len; i++) {
		const pd_series_point *p = &g_array_index(fs->points, pd_series_point, i);
		if (!(p->marks & PD_MARK_ONE_POINT))
			continue;
		double x = tseq_x(c, p->ts), y = tseq_mark_y(c, p, D);
		g_string_append_printf(c->o, "<path class=\"x%s\" data-frame=\"%llu\" data-mark=\"one\"",
				       c->other ? " o" : "", (unsigned long long)p->frame);
		point_attrs(c, p);
		g_string_append_printf(c->o, " d=\"M%.1f %.1fl8 8m0 -8l-8 8\"><title>", x - 4, y - 4);
		esc(c->o, c->file);
		g_string_append_printf(c->o, " #%llu ", (unsigned long long)p->frame);
		esc(c->o, h->l->one_point_title);
		g_string_append(c->o, "</title></path>");
	}
}

/* Rough width of a legend label: CJK characters twice as wide. */
static double legend_width(const char *s)
{
	double w = 0;
	for (const char *p = s; *p; p = g_utf8_next_char(p))
		w += g_unichar_iswide(g_utf8_get_char(p)) ? 12.6 : 7.0;
	return w;
}

/* A legend row per capture point: the file and the clock shift its times
 * were moved by; the cross for packets seen at one point only after the
 * last. */
static void tseq_point_legend(chart *c, const pd_labels *l, const char *const file[2],
			      const pd_time shift[2])
{
	static const char *const cls[] = {"s-data", "s-o"};
	GString *t = g_string_new(NULL);
	double end = c->ml;
	for (int k = 0; k < 2; k++) {
		g_string_printf(t, "%s%s%s %+.6f%s", file[k], l->colon, l->point_clock,
				(double)shift[k] / 1e9, l->u_s);
		const char *lab = t->str;
		chart_legend_at(c, 20 + 14 * k, &cls[k], &lab, 1);
		end = c->ml + 18 + legend_width(t->str) + 16;
	}
	g_string_free(t, TRUE);
	int y = 20 + 14;
	g_string_append_printf(c->o, "<g class=\"legend\"><path class=\"x\" d=\"M%.0f %dl8 8m0 -8l-8 8\"/>"
				     "<text x=\"%.0f\" y=\"%d\">",
			       end + 3, y, end + 18, y + 8);
	esc(c->o, l->legend_one_point);
	g_string_append(c->o, "</text></g>");
}

/* The time-sequence graph. With two capture points (fs->partner) both are
 * drawn on one time axis from the earlier first packet: the other point's
 * lines in purple with hollow marks, crosses where a packet was seen at
 * one point only. */
static void draw_tseq(html *h, const pd_flow_series *fs, const char *title)
{
	const pd_labels *l = h->l;
	const pd_flow_series *ps = fs->partner;
	const pd_points *pts = h->r->points;
	bool two = ps && pts && fs->point >= 0 && fs->point <= 1 && ps->point >= 0 && ps->point <= 1 &&
		   pts->files[fs->point] && pts->files[ps->point];
	int D = data_dir(fs);
	pd_time origin = fs->first_ts, end = fs->last_ts;
	double ymax = tseq_top(fs, D);
	char *file[2] = {NULL, NULL};
	if (two) {
		origin = MIN(origin, ps->first_ts);
		end = MAX(end, ps->last_ts);
		ymax = MAX(ymax, tseq_top(ps, D));
		file[0] = g_path_get_basename(pts->files[fs->point]);
		file[1] = g_path_get_basename(pts->files[ps->point]);
	}
	double tmax = (double)(end - origin) / 1e9;
	chart c;
	if (two)
		figure_begin_mt(h, &c, "tseq", fs->ref.flow_id, title, 900, 340 + 28, 24 + 28);
	else
		figure_begin(h, &c, "tseq", fs->ref.flow_id, title, 900, 340);
	c.origin = origin;
	c.x1 = tmax > 0 ? tmax * 1.02 : 0.001;
	c.y1 = ymax * 1.08;
	c.y0 = -ymax * 0.04; /* marks at sequence 0 (SYNs) clear of the frame */
	c.x0 = -c.x1 * 0.01;
	chart_axes(&c, two ? l->axis_time_points : l->axis_time, l->axis_seq, true);
	const char *cls[] = {"s-data", "s-rt", "s-syn", "s-zw", "s-ack", "s-win", "s-ev"};
	const char *lab[] = {l->legend_data, l->legend_retrans, l->legend_syn, l->legend_zero,
			     l->legend_ack, l->legend_win, l->legend_evidence};
	chart_legend(&c, cls, lab, 7);
	if (two) {
		const char *const names[2] = {file[0], file[1]};
		const pd_time shift[2] = {0, ps->shift};
		tseq_point_legend(&c, l, names, shift);
	}
	plot_begin(&c, "tseq", fs->ref.flow_id);

	/* the other point behind, without its window edge */
	if (two) {
		c.point = ps->point;
		c.other = true;
		c.file = file[1];
		tseq_lines(&c, ps, D, false);
	}
	c.point = two ? fs->point : -1;
	c.other = false;
	c.file = file[0];
	tseq_lines(&c, fs, D, true);
	tseq_synlines(&c, fs);
	/* marked packets on top, the crosses over them */
	GString *tmp = g_string_new(NULL);
	if (two) {
		c.point = ps->point;
		c.other = true;
		c.file = file[1];
		tseq_marks(h, &c, ps, D, tmp);
		tseq_crosses(h, &c, ps, D);
		c.point = fs->point;
		c.other = false;
		c.file = file[0];
	}
	tseq_marks(h, &c, fs, D, tmp);
	if (two)
		tseq_crosses(h, &c, fs, D);
	g_string_append(c.o, "</g>");
	GString *extra = g_string_new(NULL);
	note_sampled(extra, l, fs);
	if (two)
		g_string_append_printf(extra, "%s%s", extra->len ? " " : "", l->tseq_points_note);
	figure_end(h, l->tseq_note, extra->str);
	g_string_free(extra, TRUE);
	g_string_free(tmp, TRUE);
	g_free(file[0]);
	g_free(file[1]);
}

static void draw_inflight(html *h, const pd_flow_series *fs, const char *title)
{
	const pd_labels *l = h->l;
	int D = data_dir(fs);
	double fmax = 1, wmax = 1;
	for (guint i = 0; i < fs->points->len; i++) {
		const pd_series_point *p = &g_array_index(fs->points, pd_series_point, i);
		if (p->dir != D)
			continue;
		fmax = MAX(fmax, p->in_flight);
		wmax = MAX(wmax, p->peer_win);
	}
	chart c;
	figure_begin(h, &c, "inflight", fs->ref.flow_id, title, 900, 280);
	double tmax = rel_s(fs, fs->last_ts);
	c.x1 = tmax > 0 ? tmax * 1.02 : 0.001;
	/* a window far above what was ever in flight would flatten the picture */
	c.y1 = MAX(fmax, MIN(wmax, fmax * 6)) * 1.1;
	chart_axes(&c, l->axis_time, l->axis_bytes, true);
	const char *cls[] = {"s-data", "s-win", "s-zw"};
	const char *lab[] = {l->legend_inflight, l->legend_win, l->legend_zero};
	chart_legend(&c, cls, lab, 3);
	plot_begin(&c, "inflight", fs->ref.flow_id);
	GString *fl = g_string_new(NULL), *wn = g_string_new(NULL), *tmp = g_string_new(NULL);
	bool first = true;
	for (guint i = 0; i < fs->points->len; i++) {
		const pd_series_point *p = &g_array_index(fs->points, pd_series_point, i);
		if (p->dir != D)
			continue;
		double x = px(&c, rel_s(fs, p->ts));
		if (first) {
			g_string_append_printf(fl, "M%.1f %.1f", x, py(&c, p->in_flight));
			g_string_append_printf(wn, "M%.1f %.1f", x, py(&c, p->peer_win));
		} else {
			g_string_append_printf(fl, "H%.1fV%.1f", x, py(&c, p->in_flight));
			g_string_append_printf(wn, "H%.1fV%.1f", x, py(&c, p->peer_win));
		}
		first = false;
	}
	g_string_append_printf(c.o, "<path class=\"l-win\" d=\"%s\"/><path class=\"l-fl\" d=\"%s\"/>",
			       wn->str, fl->str);
	for (guint i = 0; i < fs->points->len; i++) {
		const pd_series_point *p = &g_array_index(fs->points, pd_series_point, i);
		if (p->dir != D && (p->marks & PD_MARK_ZERO_WIN))
			mark(h, &c, p, px(&c, rel_s(fs, p->ts)), py(&c, 0), tmp);
	}
	g_string_append(c.o, "</g>");
	figure_end(h, l->inflight_note, NULL);
	g_string_free(fl, TRUE);
	g_string_free(wn, TRUE);
	g_string_free(tmp, TRUE);
}

static void draw_rtt(html *h, const pd_flow_series *fs, const char *title)
{
	const pd_labels *l = h->l;
	int D = data_dir(fs);
	guint n = 0;
	double rmax = 0.001;
	for (guint i = 0; i < fs->rtt->len; i++) {
		const pd_series_rtt *s = &g_array_index(fs->rtt, pd_series_rtt, i);
		if (s->dir == D) {
			n++;
			rmax = MAX(rmax, s->rtt_us / 1000.0);
		}
	}
	chart c;
	figure_begin(h, &c, "rtt", fs->ref.flow_id, title, 900, 260);
	double tmax = rel_s(fs, fs->last_ts);
	c.x1 = tmax > 0 ? tmax * 1.02 : 0.001;
	c.y1 = rmax * 1.1;
	chart_axes(&c, l->axis_time, l->axis_rtt_ms, false);
	const char *cls[] = {"s-rtt"};
	const char *lab[] = {l->legend_rtt};
	chart_legend(&c, cls, lab, 1);
	plot_begin(&c, "rtt", fs->ref.flow_id);
	GString *d = g_string_new(NULL);
	for (guint i = 0; i < fs->rtt->len; i++) {
		const pd_series_rtt *s = &g_array_index(fs->rtt, pd_series_rtt, i);
		if (s->dir == D)
			g_string_append_printf(d, "M%.1f %.1fh3v3h-3z", px(&c, rel_s(fs, s->ts)) - 1.5,
					       py(&c, s->rtt_us / 1000.0) - 1.5);
	}
	g_string_append_printf(c.o, "<path class=\"p-rtt\" d=\"%s\"/></g>", d->str);
	g_string_free(d, TRUE);
	GString *extra = g_string_new(NULL);
	g_string_append_printf(extra, "(%u)", n);
	figure_end(h, l->rtt_note, extra->str);
	g_string_free(extra, TRUE);
}

/* The period the finding measured (delayed-ACK timer), in seconds; 40 ms
 * when it names none. */
static double finding_period(const pd_finding *f)
{
	static const char *const keys[] = {"delayed_ack_ms", "period_ms"};
	for (size_t k = 0; k < G_N_ELEMENTS(keys); k++)
		for (guint i = 0; f->metrics && i < f->metrics->len; i++) {
			const pd_metric *m = &g_array_index(f->metrics, pd_metric, i);
			if (m->key && strcmp(m->key, keys[k]) == 0 && m->value > 0)
				return m->value / 1000.0;
		}
	return 0.040;
}

static void draw_gaps(html *h, const pd_flow_series *fs, const pd_finding *f, const char *title)
{
	const pd_labels *l = h->l;
	uint32_t top = 1;
	for (int d = 0; d < 2; d++)
		for (int b = 0; b < PD_SERIES_GAP_BINS; b++)
			top = MAX(top, fs->gaps[d][b]);
	chart c;
	figure_begin(h, &c, "gaps", fs->ref.flow_id, title, 900, 260);
	c.x0 = 0;
	c.x1 = PD_SERIES_GAP_BINS;
	c.y1 = top * 1.1;
	/* the axes by hand: a log scale of time */
	double ys = nice_step(c.y1, 5);
	char b[32];
	g_string_append(c.o, "<g class=\"ax\">");
	for (double y = 0; y <= c.y1 + 1e-9; y += ys) {
		fmt_qty(b, sizeof b, y, false);
		g_string_append_printf(c.o,
				       "<line x1=\"%d\" x2=\"%d\" y1=\"%.1f\" y2=\"%.1f\" class=\"grid\"/>"
				       "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%s</text>",
				       c.ml, c.w - c.mr, py(&c, y), py(&c, y), c.ml - 5, py(&c, y) + 4, b);
	}
	static const char *const dec[] = {"10 µs", "100 µs", "1 ms", "10 ms", "100 ms", "1 s", "10 s",
					  "100 s"};
	for (int k = 0; k < 8; k++) {
		double x = px(&c, k * PD_SERIES_GAP_PER_DECADE);
		g_string_append_printf(c.o,
				       "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%d\" y2=\"%d\" class=\"grid\"/>"
				       "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%s</text>",
				       x, x, c.mt, c.h - c.mb, x, c.h - c.mb + 15, dec[k]);
	}
	g_string_append_printf(c.o,
			       "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" class=\"frame\"/>"
			       "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">",
			       c.ml, c.mt, c.w - c.ml - c.mr, c.h - c.mt - c.mb, (c.ml + c.w - c.mr) / 2,
			       c.h - 6);
	esc(c.o, l->axis_gap);
	g_string_append_printf(c.o, "</text><text transform=\"translate(14 %d) rotate(-90)\" "
				    "text-anchor=\"middle\">",
			       (c.mt + c.h - c.mb) / 2);
	esc(c.o, l->axis_count);
	g_string_append(c.o, "</text></g>");

	GString *cs = g_string_new(l->client), *sc = g_string_new(l->server_h);
	g_string_append(cs, " → ");
	g_string_append(cs, l->server_h);
	g_string_append(sc, " → ");
	g_string_append(sc, l->client);
	char period_label[96];
	double period = finding_period(f);
	g_snprintf(period_label, sizeof period_label, "%s ≈ %.1f%s", l->legend_cluster, period * 1e3,
		   l->u_ms);
	const char *cls[] = {"s-data", "s-syn", "s-band"};
	const char *lab[] = {cs->str, sc->str, period_label};
	chart_legend(&c, cls, lab, 3);
	/* the finding's period, shaded: bins within -20%/+25% of it */
	double b0 = log10(period * 0.8 / PD_SERIES_GAP_MIN_S) * PD_SERIES_GAP_PER_DECADE;
	double b1 = log10(period * 1.25 / PD_SERIES_GAP_MIN_S) * PD_SERIES_GAP_PER_DECADE;
	g_string_append_printf(c.o,
			       "<rect class=\"band\" data-period-ms=\"%.1f\" x=\"%.1f\" y=\"%d\" "
			       "width=\"%.1f\" height=\"%d\"/>",
			       period * 1e3, px(&c, b0), c.mt, px(&c, b1) - px(&c, b0),
			       c.h - c.mt - c.mb);
	double bw = px(&c, 1) - px(&c, 0);
	for (int d = 0; d < 2; d++)
		for (int k = 0; k < PD_SERIES_GAP_BINS; k++) {
			if (!fs->gaps[d][k])
				continue;
			double lo = PD_SERIES_GAP_MIN_S * pow(10, (double)k / PD_SERIES_GAP_PER_DECADE);
			double hi = lo * pow(10, 1.0 / PD_SERIES_GAP_PER_DECADE);
			double x = px(&c, k) + 1 + d * (bw - 2) / 2;
			g_string_append_printf(c.o,
					       "<rect class=\"%s\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" "
					       "height=\"%.1f\"><title>%u × %.3g–%.3g ms</title></rect>",
					       d ? "b-sc" : "b-cs", x, py(&c, fs->gaps[d][k]), (bw - 2) / 2,
					       py(&c, 0) - py(&c, fs->gaps[d][k]), fs->gaps[d][k], lo * 1e3,
					       hi * 1e3);
		}
	figure_end(h, l->gaps_note, NULL);
	g_string_free(cs, TRUE);
	g_string_free(sc, TRUE);
}

/* ---------- page pieces ---------- */

static void flow_title(GString *b, const pd_flow_ref *f)
{
	char tmp[8];
	g_string_append_printf(b, "#%llu %s ", (unsigned long long)f->flow_id,
			       pd_r_proto_name(f->proto, tmp, sizeof tmp));
	GString *e = g_string_new(NULL);
	pd_r_endpoints(e, f, " → ");
	g_string_append(b, e->str);
	g_string_free(e, TRUE);
}

static void pictures(html *h, const pd_finding *f, unsigned need)
{
	const pd_labels *l = h->l;
	const pd_series_set *s = h->r->series;
	if (!s || s->unavailable) {
		g_string_append_printf(h->o, "<p class=\"nopics\">%s</p>\n",
				       s && s->unavailable ? l->no_series_stdin : l->no_series);
		return;
	}
	guint listed = f->flows ? f->flows->len : 0;
	for (guint i = 0; i < listed && i < FLOWS_PER_FINDING; i++) {
		const pd_flow_ref *ref = &g_array_index(f->flows, pd_flow_ref, i);
		const pd_flow_series *fs = pd_series_find(s, ref->flow_id);
		GString *t = g_string_new(NULL);
		flow_title(t, ref);
		gint64 id = (gint64)ref->flow_id;
		unsigned done = GPOINTER_TO_UINT(g_hash_table_lookup(h->drawn, &id));
		if (!fs || ref->proto != 6) {
			g_string_append(h->o, "<p class=\"nopics\">");
			esc(h->o, t->str);
			g_string_append_printf(h->o, ": %s</p>\n", l->no_series);
		} else if (!(need & ~done)) {
			g_string_append_printf(h->o, "<p class=\"see\"><a href=\"#pics-%llu\">",
					       (unsigned long long)ref->flow_id);
			esc(h->o, t->str);
			g_string_append(h->o, "</a></p>\n");
		} else {
			g_string_append_printf(h->o, "<div class=\"flowpics\"%s%llu\"><h5>",
					       done ? " data-more=\"" : " id=\"pics-",
					       (unsigned long long)ref->flow_id);
			esc(h->o, t->str);
			g_string_append(h->o, "</h5>\n");
			unsigned todo = need & ~done;
			if (todo & CH_TSEQ)
				draw_tseq(h, fs, l->tseq);
			if (todo & CH_INFLIGHT)
				draw_inflight(h, fs, l->inflight);
			if (todo & CH_RTT)
				draw_rtt(h, fs, l->rtt_chart);
			if (todo & CH_GAPS)
				draw_gaps(h, fs, f, l->gaps);
			g_string_append(h->o, "</div>\n");
			gint64 *k = g_new(gint64, 1);
			*k = id;
			g_hash_table_replace(h->drawn, k, GUINT_TO_POINTER(done | need));
		}
		g_string_free(t, TRUE);
	}
	if (listed > FLOWS_PER_FINDING)
		g_string_append_printf(h->o, "<p class=\"note\">%s%u%s</p>\n", l->more_flows_pre,
				       listed - FLOWS_PER_FINDING, l->more_flows_post);
}

static void setting_html(html *h, const pd_finding *f, const char *name, bool full)
{
	const pd_labels *l = h->l;
	const pd_setting *s = pd_kb_find(name);
	g_string_append(h->o, "<li><b>");
	esc(h->o, name);
	g_string_append(h->o, "</b>");
	if (s && full) {
		g_string_append_printf(h->o, " <span class=\"meta\">%s, %s", l->kinds[s->kind],
				       l->sides[s->side]);
		if (s->default_value) {
			g_string_append_printf(h->o, "%s%s ", l->sep, l->default_);
			esc(h->o, s->default_value);
		}
		g_string_append(h->o, "</span><br>");
		g_string_append_printf(h->o, "%s%s<code>", l->check, l->colon);
		esc(h->o, pd_kb_check(s, h->zh));
		g_string_append_printf(h->o, "</code><br>%s%s", l->change, l->colon);
		esc(h->o, h->zh ? s->change_zh : s->change_en);
		g_string_append_printf(h->o, "<br><span class=\"meta\">%s%s", l->caveat, l->colon);
		esc(h->o, h->zh ? s->caveat_zh : s->caveat_en);
		g_string_append(h->o, "</span>");
	}
	GString *hl = g_string_new(NULL);
	if (pd_r_host_line(hl, f, name, h->zh)) {
		g_string_append_printf(h->o, "<br><span class=\"host\">%s%s", pd_r_host_label(h->zh), l->colon);
		esc(h->o, hl->str);
		g_string_append(h->o, "</span>");
	}
	g_string_free(hl, TRUE);
	g_string_append(h->o, "</li>\n");
}

static void render_finding(html *h, size_t n, const pd_finding *f)
{
	const pd_labels *l = h->l;
	const pd_finding_def *d = f->def;
	unsigned sev = (unsigned)f->severity <= PD_SEV_ERROR ? (unsigned)f->severity : 0;
	unsigned need = charts_for(f);
	GString *o = h->o;

	g_string_append_printf(o, "<article class=\"finding sev-%s\" id=\"f-%zu\" data-finding=\"%s\"",
			       pd_severity_name(f->severity), n, d ? d->id : "unknown");
	if (need && f->flows && f->flows->len) {
		g_string_append(o, " data-flows=\"");
		for (guint i = 0; i < f->flows->len && i < FLOWS_PER_FINDING; i++)
			g_string_append_printf(o, "%s%llu", i ? " " : "",
					       (unsigned long long)g_array_index(f->flows, pd_flow_ref, i)
						       .flow_id);
		g_string_append(o, "\" data-needs=\"");
		bool sp = false;
		for (int k = 0; k < 4; k++)
			if (need & (1u << k)) {
				g_string_append_printf(o, "%s%s", sp ? " " : "", CH_NAMES[k]);
				sp = true;
			}
		g_string_append_c(o, '"');
	}
	g_string_append_printf(o, "><h3><span class=\"badge\">%s</span> %zu. ", l->sev[sev], n);
	esc(o, pd_r_title(d, h->zh));
	g_string_append_printf(o, "</h3>\n<p class=\"meta\">id <code>%s</code>%s%s %s%s", d ? d->id : "unknown",
			       l->sep, l->category, d ? pd_category_name(d->category) : "unknown",
			       l->sep);
	GString *t = g_string_new(NULL);
	pd_r_confidence(t, f, l);
	g_string_append_printf(o, "%s%s", t->str, l->sep);
	g_string_truncate(t, 0);
	pd_r_verdict_cost(t, f, l);
	g_string_append(o, t->str);
	if (f->impact_s > 0)
		g_string_append_printf(o, "%s%s%llu%s", l->sep, l->occ_pre,
				       (unsigned long long)f->occurrences,
				       pd_labels_occurrences(l, f->occurrences));
	if (f->known)
		g_string_append_printf(o, "%s%s", l->sep, l->known);
	g_string_append(o, "</p>\n<p>");
	esc(o, pd_r_explain(d, h->zh));
	g_string_append(o, "</p>\n");

	const char *detail = pd_finding_detail_in(f, h->zh);
	if (detail && *detail) {
		g_string_append_printf(o, "<h4>%s</h4>\n<p>", l->seen);
		esc(o, detail);
		g_string_append(o, "</p>\n");
	}
	if (f->metrics && f->metrics->len) {
		g_string_append(o, "<p class=\"metrics\">");
		for (guint i = 0; i < f->metrics->len; i++) {
			const pd_metric *m = &g_array_index(f->metrics, pd_metric, i);
			if (!m->key)
				continue;
			const char *u = pd_labels_unit(l, m->unit);
			g_string_append_printf(o, "<span><code>%s</code> %g%s</span> ", m->key,
					       pd_r_finite(m->value), u ? u : "");
		}
		g_string_append(o, "</p>\n");
	}
	guint listed = f->flows ? f->flows->len : 0;
	if (listed) {
		g_string_append_printf(o, "<h4>%s (%llu%s)</h4>\n<table class=\"flows\"><tr><th>%s</th>"
					  "<th>%s</th><th>%s</th><th>%s</th><th>Community ID</th></tr>\n",
				       l->where, (unsigned long long)f->flow_count, l->flows_n, l->flow,
				       l->client, l->server_h, l->application);
		for (guint i = 0; i < listed; i++) {
			const pd_flow_ref *fr = &g_array_index(f->flows, pd_flow_ref, i);
			g_string_append_printf(o, "<tr><td>%llu</td><td>", (unsigned long long)fr->flow_id);
			g_string_truncate(t, 0);
			pd_r_endpoint(t, &fr->client, fr->client_port);
			esc(o, t->str);
			g_string_append(o, "</td><td>");
			g_string_truncate(t, 0);
			pd_r_endpoint(t, &fr->server, fr->server_port);
			esc(o, t->str);
			g_string_append(o, "</td><td>");
			esc_fixed(o, fr->app, sizeof fr->app);
			g_string_append(o, "</td><td><code>");
			esc_fixed(o, fr->community_id, sizeof fr->community_id);
			g_string_append(o, "</code></td></tr>\n");
		}
		g_string_append(o, "</table>\n");
	}
	if (f->first.frame) {
		g_string_append_printf(o, "<h4>%s</h4>\n<ul class=\"ev\">", l->packets_h);
		char iso[PD_TIME_STRLEN];
		pd_time_iso(f->first.ts, iso, sizeof iso);
		g_string_append_printf(o, "<li>%s #%llu (%s)", l->first,
				       (unsigned long long)f->first.frame, iso);
		if (f->last.frame && f->last.frame != f->first.frame) {
			pd_time_iso(f->last.ts, iso, sizeof iso);
			g_string_append_printf(o, "%s%s #%llu (%s)", h->zh ? "，" : ", ", l->last,
					       (unsigned long long)f->last.frame, iso);
		}
		g_string_append(o, "</li>");
		for (guint i = 0; f->examples && i < f->examples->len; i++) {
			const pd_evidence *e = &g_array_index(f->examples, pd_evidence, i);
			g_string_append_printf(o, "<li>#%llu ", (unsigned long long)e->frame);
			char what[128];
			esc(o, pd_evidence_what_in(e, h->zh, what));
			g_string_append(o, "</li>");
		}
		g_string_append(o, "</ul>\n");
	}
	const char *names[PD_FINDING_MAX_SETTINGS + PD_DEF_MAX_SETTINGS];
	size_t ns = pd_r_settings(f, names);
	if (ns) {
		size_t full = h->verbose ? ns : MIN(ns, (size_t)PD_R_SETTINGS_SHOWN);
		g_string_append_printf(o, "<h4>%s</h4>\n", l->settings);
		if (f->host_counters) {
			g_string_append_printf(o, "<p class=\"host\">%s%s", pd_r_host_label(h->zh), l->colon);
			esc(o, h->zh ? f->host_counters_zh : f->host_counters);
			g_string_append(o, "</p>\n");
		}
		g_string_append(o, "<ol class=\"settings\">\n");
		for (size_t i = 0; i < full; i++)
			setting_html(h, f, names[i], true);
		g_string_append(o, "</ol>\n");
		if (full < ns) {
			g_string_append_printf(o, "<p class=\"fold\">%s%s", l->also_settings, l->colon);
			for (size_t i = full; i < ns; i++) {
				if (i > full)
					g_string_append(o, h->zh ? "、" : ", ");
				g_string_append(o, "<b>");
				esc(o, names[i]);
				g_string_append(o, "</b>");
			}
			g_string_append_printf(o, " (%s)</p>\n", l->fold_pointer);
		}
	}
	if (d && d->alternatives_en[0]) {
		g_string_append_printf(o, "<h4>%s</h4>\n<ul>", l->alternatives);
		for (size_t i = 0; i < PD_DEF_MAX_ALTS && d->alternatives_en[i]; i++) {
			g_string_append(o, "<li>");
			esc(o, h->zh && d->alternatives_zh[i] ? d->alternatives_zh[i] : d->alternatives_en[i]);
			g_string_append(o, "</li>");
		}
		g_string_append(o, "</ul>\n");
	}
	if (need && listed) {
		g_string_append_printf(o, "<h4>%s</h4>\n", l->pictures);
		pictures(h, f, need);
	}
	g_string_append(o, "</article>\n");
	g_string_free(t, TRUE);
}

static void render_verdict(html *h)
{
	const pd_labels *l = h->l;
	double lost = 0;
	size_t n_info = 0;
	GPtrArray *v = pd_r_verdict(h->r, &lost, &n_info);
	GString *o = h->o, *t = g_string_new(NULL);
	g_string_append_printf(o, "<section id=\"verdict\" class=\"verdict\"><h2>%s</h2>\n", l->verdict);
	if (!v->len) {
		if (n_info)
			g_string_append_printf(o, "<p class=\"ok\">%s%zu%s</p>", l->no_problems_info_pre,
					       n_info, l->no_problems_info_post);
		else
			g_string_append_printf(o, "<p class=\"ok\">%s</p>", l->no_findings);
	} else {
		g_string_append_printf(o, "<p>%s%u%s", l->problems_pre, v->len,
				       v->len == 1 ? l->problems_post_one : l->problems_post);
		if (lost > 0) {
			g_string_append_printf(o, "%s%s", l->sep, l->lost_total_pre);
			pd_labels_seconds(o, l, lost);
			g_string_append(o, l->lost_total_post);
		}
		g_string_append(o, "</p>\n<ol>\n");
		for (guint i = 0; i < v->len; i++) {
			const pd_finding *f = v->pdata[i];
			unsigned sev = (unsigned)f->severity <= PD_SEV_ERROR ? (unsigned)f->severity : 0;
			guint idx = 0;
			for (guint k = 0; k < h->r->findings->len; k++)
				if (h->r->findings->pdata[k] == f)
					idx = k + 1;
			g_string_append_printf(o, "<li class=\"sev-%s\"><span class=\"badge\">%s</span> "
						  "<a href=\"#f-%u\">",
					       pd_severity_name(f->severity), l->sev[sev], idx);
			esc(o, pd_r_title(f->def, h->zh));
			g_string_append_printf(o, "</a>%s<code>", l->colon);
			g_string_truncate(t, 0);
			pd_r_verdict_where(t, f, l, " → ");
			esc(o, t->str);
			g_string_append(o, "</code>");
			g_string_truncate(t, 0);
			pd_r_verdict_segment(t, f, l);
			esc(o, t->str);
			g_string_append_printf(o, "%s<b>", l->sep);
			g_string_truncate(t, 0);
			pd_r_verdict_cost(t, f, l);
			esc(o, t->str);
			g_string_append_printf(o, "</b>%s", l->sep);
			g_string_truncate(t, 0);
			pd_r_confidence(t, f, l);
			esc(o, t->str);
			const char *name = NULL;
			const pd_setting *s = pd_r_first_setting(f, &name);
			if (name) {
				g_string_append_printf(o, "<div class=\"first\">%s%s<b>", l->first_step,
						       l->colon);
				esc(o, name);
				g_string_append(o, "</b>");
				if (s) {
					g_string_append_printf(o, " — %s%s<code>", l->check_cmd, l->colon);
					esc(o, pd_kb_check(s, h->zh));
					g_string_append_printf(o, "</code>%s%s%s", l->sep, l->change_cmd,
							       l->colon);
					esc(o, h->zh ? s->change_zh : s->change_en);
				}
				g_string_append(o, "</div>");
			}
			g_string_append(o, "</li>\n");
		}
		g_string_append(o, "</ol>\n");
	}
	g_string_append(o, "</section>\n");
	g_string_free(t, TRUE);
	g_ptr_array_free(v, TRUE);
}

static void row(GString *o, const char *k, const char *v_escaped)
{
	g_string_append_printf(o, "<tr><th>%s</th><td>%s</td></tr>\n", k, v_escaped);
}

static void render_capture(html *h)
{
	const pd_labels *l = h->l;
	const pd_capture_summary *c = &h->r->cap;
	GString *o = h->o, *v = g_string_new(NULL);
	g_string_append_printf(o, "<section id=\"capture\"><h2>%s</h2>\n<table class=\"kv\">\n",
			       l->capture);
	for (guint i = 0; c->files && i < c->files->len; i++) {
		if (i)
			g_string_append(v, ", ");
		esc(v, c->files->pdata[i]);
	}
	row(o, l->files, v->str);
	g_string_printf(v, "%llu (%llu%s)", (unsigned long long)c->packets,
			(unsigned long long)c->wire_bytes, l->u_bytes);
	row(o, l->packets, v->str);
	if (c->packets) {
		char t1[PD_TIME_STRLEN], t2[PD_TIME_STRLEN];
		pd_time_iso(c->first_ts, t1, sizeof t1);
		pd_time_iso(c->last_ts, t2, sizeof t2);
		g_string_printf(v, "%s %s %s %s", l->from, t1, l->to, t2);
		row(o, l->start, v->str);
		g_string_truncate(v, 0);
		pd_labels_seconds(v, l, c->last_ts > c->first_ts ? (double)(c->last_ts - c->first_ts) / 1e9 : 0);
		row(o, l->duration, v->str);
	}
	g_string_printf(v, "TCP %llu, UDP %llu", (unsigned long long)c->tcp_flows,
			(unsigned long long)c->udp_flows);
	row(o, l->flows, v->str);
	g_string_printf(v, "%u (%llu %s)", c->snaplen, (unsigned long long)c->snap_truncated,
			l->truncated_frames);
	row(o, l->snaplen, v->str);
	g_string_append(o, "</table>\n");
	if (c->input_truncated)
		g_string_append_printf(o, "<p class=\"note\">%s</p>\n", l->input_truncated);
	for (guint i = 0; c->notes && i < c->notes->len; i++) {
		g_string_append_printf(o, "<p class=\"note\">%s%s", l->notes, l->colon);
		esc(o, pd_note_in(&g_array_index(c->notes, pd_note, i), h->zh));
		g_string_append(o, "</p>\n");
	}
	for (guint i = 0; c->errors && i < c->errors->len; i++) {
		g_string_append_printf(o, "<p class=\"note err\">%s%s", l->errors, l->colon);
		esc(o, c->errors->pdata[i]);
		g_string_append(o, "</p>\n");
	}
	g_string_append(o, "</section>\n");
	g_string_free(v, TRUE);
}

static const char CSS[] =
	"body{font:15px/1.45 system-ui,-apple-system,\"Segoe UI\",Roboto,\"Noto Sans\",\"Noto Sans CJK SC\","
	"\"PingFang SC\",\"Microsoft YaHei\",sans-serif;color:#1d1d1f;background:#fff;margin:0}"
	"main{max-width:940px;margin:0 auto;padding:16px 20px 40px}"
	"h1{font-size:22px;margin:8px 0 2px}h2{font-size:18px;margin:26px 0 8px;border-bottom:1px solid #ddd}"
	"h3{font-size:16px;margin:0 0 4px}h4{font-size:14px;margin:14px 0 4px;color:#444}"
	"h5{font-size:14px;margin:12px 0 4px;font-family:ui-monospace,monospace}"
	".sub,.meta,.note{color:#555;font-size:13px}.note{margin:2px 0 10px}"
	"code{font-family:ui-monospace,\"SFMono-Regular\",Menlo,Consolas,monospace;font-size:12.5px;"
	"background:#f3f3f5;padding:0 3px;border-radius:3px}"
	".verdict{background:#fafafa;border:1px solid #ddd;border-radius:6px;padding:4px 16px 10px}"
	".verdict h2{border:0;margin-top:10px}.verdict li{margin:6px 0}.verdict .first{font-size:13.5px;color:#333}"
	".ok{font-weight:600;color:#1a7f37}"
	".badge{display:inline-block;font-size:11px;font-weight:700;padding:1px 6px;border-radius:3px;"
	"color:#fff;background:#3b82c4;vertical-align:1px}"
	".sev-warning .badge{background:#c77700}.sev-error .badge{background:#c62828}"
	".finding{border-left:4px solid #3b82c4;padding:6px 0 6px 14px;margin:18px 0}"
	".finding.sev-warning{border-color:#c77700}.finding.sev-error{border-color:#c62828}"
	"table{border-collapse:collapse;font-size:13px}td,th{border:1px solid #ddd;padding:2px 8px;text-align:left}"
	".metrics span{display:inline-block;margin-right:10px;font-size:13px}"
	".ev{font-size:13px;columns:2}ol.settings li{margin:4px 0 8px}"
	"figure{margin:10px 0 14px}figcaption{font-weight:600;font-size:13.5px}"
	"svg{display:block;max-width:100%;height:auto;font-size:11px;font-family:inherit}"
	"svg text{fill:#333}.grid{stroke:#eee}.frame{fill:none;stroke:#999}"
	".legend text{font-size:11px}"
	".s-data{fill:#1f6fb2}.s-rt{fill:#d62728}.s-syn{fill:#ff7f0e}.s-zw{fill:#c2185b}.s-ack{fill:#888}"
	".s-win{fill:#2ca02c}.s-ev{fill:none;stroke:#000;stroke-width:1.5}.s-rtt{fill:#00897b}"
	".s-band{fill:#fde68a}.band{fill:#fde68a;opacity:.7}"
	".l-data{stroke:#1f6fb2;stroke-width:1.6;fill:none}.l-rt{stroke:#d62728;stroke-width:2.4}"
	".l-ack{stroke:#888;stroke-width:1.2;fill:none}.l-win{stroke:#2ca02c;stroke-width:1.2;fill:none;"
	"stroke-dasharray:4 3}.l-fl{stroke:#1f6fb2;stroke-width:1.6;fill:none}"
	".p-rtt{fill:#00897b}.b-cs{fill:#1f6fb2}.b-sc{fill:#ff7f0e}"
	".m{stroke:#fff;stroke-width:.8}.m.rt{fill:#d62728}.m.syn{fill:#ff7f0e}.m.zwp{fill:#7e57c2}"
	".m.zw{fill:#c2185b}.m.ev{fill:#000}.m.evm{stroke:#000;stroke-width:1.6}"
	".fl{font-size:10.5px;fill:#000;font-weight:600}.synline{stroke:#ff7f0e;stroke-dasharray:2 3;opacity:.7}"
	".see a,.nopics{font-size:13px}.nopics{color:#8a5a00}"
	"footer{color:#777;font-size:12px;margin-top:30px}";

/* Only on pages with two capture points: the other point in purple,
 * hollow marks, crosses for packets seen at one point only. */
static const char CSS_POINTS[] =
	".s-o{fill:#8e44ad}.l-data.o{stroke:#8e44ad}.l-ack.o{stroke:#b58ccc}.l-rt.o{stroke-width:1.6}"
	".m.o{fill:#fff;stroke-width:1.5}.m.o.rt{stroke:#d62728}.m.o.syn{stroke:#ff7f0e}"
	".m.o.zwp{stroke:#7e57c2}.m.o.zw{stroke:#c2185b}.m.o.ev{stroke:#000}"
	".x{stroke:#000;stroke-width:2;fill:none}";

static bool has_partner(const pd_report *r)
{
	for (guint i = 0; r->series && r->series->flows && i < r->series->flows->len; i++)
		if (((const pd_flow_series *)r->series->flows->pdata[i])->partner)
			return true;
	return false;
}

static bool render_html(const pd_report *r, const pd_render_opts *opt, FILE *out)
{
	html h = {
		.o = g_string_sized_new(64 << 10),
		.r = r,
		.zh = pd_r_is_zh(opt),
		.verbose = opt && opt->verbose,
		.drawn = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, NULL),
	};
	h.l = pd_labels_get(h.zh);
	const pd_labels *l = h.l;
	GString *o = h.o;
	g_string_append_printf(o,
			       "<!DOCTYPE html>\n<html lang=\"%s\"><head><meta charset=\"utf-8\">"
			       "<meta name=\"viewport\" content=\"width=device-width,initial-scale=1\">"
			       "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
			       "style-src 'unsafe-inline'\">"
			       "<meta name=\"generator\" content=\"pcapdoc %s\"><title>%s",
			       h.zh ? "zh-CN" : "en", opt && opt->version ? opt->version : "", l->report);
	for (guint i = 0; r->cap.files && i < r->cap.files->len && i < 3; i++) {
		g_string_append(o, i ? ", " : ": ");
		char *base = g_path_get_basename(r->cap.files->pdata[i]);
		esc(o, base);
		g_free(base);
	}
	g_string_append_printf(o, "</title><style>%s%s</style></head>\n<body><main>\n<header><h1>%s</h1>"
				  "<p class=\"sub\">",
			       CSS, has_partner(r) ? CSS_POINTS : "", l->report);
	for (guint i = 0; r->cap.files && i < r->cap.files->len; i++) {
		if (i)
			g_string_append(o, ", ");
		esc(o, r->cap.files->pdata[i]);
	}
	g_string_append_printf(o, "%s%llu %s", l->sep, (unsigned long long)r->cap.packets, l->packets);
	if (r->cap.packets) {
		g_string_append(o, l->sep);
		pd_labels_seconds(o, l, r->cap.last_ts > r->cap.first_ts
						? (double)(r->cap.last_ts - r->cap.first_ts) / 1e9
						: 0);
	}
	g_string_append(o, "</p></header>\n");

	render_verdict(&h);
	guint nf = r->findings ? r->findings->len : 0;
	if (nf) {
		uint64_t counts[3];
		pd_r_count(r, counts);
		g_string_append_printf(o, "<section id=\"findings\"><h2>%s (%llu%s%s%llu%s%s%llu%s)</h2>\n",
				       l->findings, (unsigned long long)counts[2], l->errors_n, l->sep,
				       (unsigned long long)counts[1], l->warnings_n, l->sep,
				       (unsigned long long)counts[0], l->infos_n);
		if (r->series && r->series->unavailable)
			g_string_append_printf(o, "<p class=\"nopics\">%s</p>\n", l->no_series_stdin);
		for (guint i = 0; i < nf; i++) {
			render_finding(&h, i + 1, r->findings->pdata[i]);
			if (!pd_r_spill(o, out)) {
				g_hash_table_destroy(h.drawn);
				g_string_free(o, TRUE);
				return false;
			}
		}
		if (r->series && r->series->flows_left_out)
			g_string_append_printf(o, "<p class=\"note\">%s%zu%s</p>\n", l->more_flows_pre,
					       r->series->flows_left_out, l->more_flows_post);
		g_string_append(o, "</section>\n");
	}
	render_capture(&h);
	g_string_append_printf(o, "<footer>%s pcapdoc %s</footer>\n</main></body></html>\n",
			       l->generated_by, opt && opt->version ? opt->version : "");
	bool ok = fwrite(o->str, 1, o->len, out) == o->len;
	g_hash_table_destroy(h.drawn);
	g_string_free(o, TRUE);
	return ok && !ferror(out);
}

const pd_renderer pd_fmt_html = {
	.name = "html",
	.render = render_html,
};
