/* Helpers shared by the detectors; see util.h. */
#include "heuristics/util.h"

#include <arpa/inet.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

pd_time pd_flow_rtt(const pd_flow *f)
{
	if (f->hs_rtt > 0) {
		/* A handshake without a repeated SYN or SYN-ACK spans exactly one
		 * round trip of the whole path wherever the capture was taken.
		 * Data/ACK samples do not: next to the receiver (or the ACKer of
		 * a request) they only see the local turn-around, so they must not
		 * override a clean handshake. */
		if (f->half[PD_CLIENT].syn_count <= 1 && f->half[PD_SERVER].syn_count <= 1)
			return f->hs_rtt;
		if (f->rtt_count > 0 && f->rtt_max > 0 && f->hs_rtt > f->rtt_max + f->rtt_max / 2)
			return f->rtt_max;
		return f->hs_rtt;
	}
	return f->rtt_min > 0 ? f->rtt_min : 0;
}

int pd_flow_link_vantage(const pd_flow *f)
{
	const uint8_t in = 1u << (PD_LINK_INCOMING - 1), out = 1u << (PD_LINK_OUTGOING - 1),
		      other = 1u << (PD_LINK_OTHERHOST - 1);
	uint8_t cl = f->half[PD_CLIENT].link_dirs, sv = f->half[PD_SERVER].link_dirs;
	if (!cl || !sv)
		return PD_VANTAGE_UNKNOWN;
	if (((cl & in) && (cl & out)) || ((sv & in) && (sv & out)) || ((cl | sv) & other))
		return PD_VANTAGE_MIDDLE;
	if (cl == out && sv == in)
		return PD_CLIENT;
	if (sv == out && cl == in)
		return PD_SERVER;
	return PD_VANTAGE_UNKNOWN;
}

int pd_flow_vantage(const pd_flow *f)
{
	int lv = pd_flow_link_vantage(f);
	if (lv == PD_CLIENT || lv == PD_SERVER)
		return lv;
	if (lv == PD_VANTAGE_MIDDLE)
		return -1;
	if (!f->syn_ts || !f->synack_frame || !f->hs_ack_frame || f->hs_rtt < 1000 * 1000)
		return -1;
	pd_time syn = f->syn_last_ts ? f->syn_last_ts : f->syn_ts;
	pd_time srv = f->synack_ts - syn, cli = f->hs_ack_ts - f->synack_ts;
	if (srv >= 0 && srv < f->hs_rtt / 4)
		return PD_SERVER;
	if (cli >= 0 && cli < f->hs_rtt / 4)
		return PD_CLIENT;
	return -1;
}

uint32_t pd_flow_mss(const pd_flow *f, int s, bool trust_seen)
{
	const pd_tcp_half *hs = &f->half[s], *hr = &f->half[pd_peer(s)];
	uint32_t mss = hr->mss;
	if (mss && hs->ts_offered && hr->ts_offered)
		mss -= 12;
	if (!mss || (trust_seen && hs->max_payload > mss))
		mss = hs->max_payload > 536 ? hs->max_payload : 536;
	return mss;
}

const char *pd_times(uint64_t n, bool capital, char buf[24])
{
	if (n == 1)
		return capital ? "Once" : "once";
	snprintf(buf, 24, "%" PRIu64 " times", n);
	return buf;
}

void pd_flow_endpoint(const pd_flow *f, int side, char *buf, size_t len)
{
	pd_endpoint_str(&f->addr[side], f->port[side], buf, len);
}

void pd_tuple_key_of(pd_tuple_key *k, const pd_flow *f)
{
	memset(k, 0, sizeof(*k));
	k->c = f->addr[PD_CLIENT];
	k->s = f->addr[PD_SERVER];
	k->cp = f->port[PD_CLIENT];
	k->sp = f->port[PD_SERVER];
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return x < y ? -1 : x > y;
}

double pd_median_u32(uint32_t *v, uint32_t n)
{
	qsort(v, n, sizeof(*v), cmp_u32);
	return n % 2 ? v[n / 2] : ((double)v[n / 2 - 1] + v[n / 2]) / 2.0;
}

void pd_rate_init(pd_rate_1s *r)
{
	memset(r, 0, sizeof(*r));
	r->newest = INT64_MIN;
}

void pd_rate_clear(pd_rate_1s *r)
{
	if (!r->bins)
		return; /* most of a table's never counted: skip the free (costly under ASan) */
	g_free(r->bins);
	g_free(r->windows);
	r->bins = NULL;
	r->windows = NULL;
}

static void rate_peak(pd_rate_1s *r, uint32_t sum, int64_t start)
{
	pd_time at = start * (PD_NS_PER_SEC / PD_RATE_BINS);
	if (sum > r->peak || (sum == r->peak && at < r->peak_ts)) {
		r->peak = sum;
		r->peak_ts = at;
	}
}

static void rate_ring_add(pd_rate_1s *r, int64_t b)
{
	if (b > r->newest) {
		/* the ring moves on: the bins it reuses, and the windows that
		 * start there, are empty (no event after the newest yet) */
		int64_t steps = b - r->newest;
		if (steps > PD_RATE_RING)
			steps = PD_RATE_RING;
		for (int64_t j = 1; j <= steps; j++) {
			size_t k = pd_bin_index(r->newest + j, PD_RATE_RING);
			r->bins[k] = 0;
			r->windows[k] = 0;
		}
		r->newest = b;
	} else if (r->newest - b >= PD_RATE_RING - PD_RATE_BINS) {
		r->late++;
		return;
	}
	uint16_t *bin = &r->bins[pd_bin_index(b, PD_RATE_RING)];
	if (*bin < UINT16_MAX)
		(*bin)++;
	/* the windows that hold b grow by one; counts only grow, so the
	 * last time a window grows it is at its final size */
	for (int64_t start = b - PD_RATE_BINS + 1; start <= b; start++) {
		if (r->newest - start >= PD_RATE_RING)
			continue;
		uint16_t *w = &r->windows[pd_bin_index(start, PD_RATE_RING)];
		if (*w < UINT16_MAX)
			(*w)++;
		rate_peak(r, *w, start);
	}
}

void pd_rate_add(pd_rate_1s *r, pd_time ts)
{
	int64_t b = ts / (PD_NS_PER_SEC / PD_RATE_BINS);
	if (!r->bins && r->n_few < PD_RATE_FEW) {
		/* a few events: every window that holds the new one, counted */
		r->few[r->n_few++] = b;
		if (r->newest == INT64_MIN || b > r->newest)
			r->newest = b;
		for (int64_t start = b - PD_RATE_BINS + 1; start <= b; start++) {
			uint32_t sum = 0;
			for (uint32_t i = 0; i < r->n_few; i++)
				sum += r->few[i] >= start && r->few[i] < start + PD_RATE_BINS;
			rate_peak(r, sum, start);
		}
		return;
	}
	if (!r->bins) {
		r->bins = g_new0(uint16_t, PD_RATE_RING);
		r->windows = g_new0(uint16_t, PD_RATE_RING);
		int64_t newest = r->newest;
		r->newest = r->few[0];
		for (uint32_t i = 0; i < r->n_few; i++)
			if (newest - r->few[i] < PD_RATE_RING - PD_RATE_BINS)
				rate_ring_add(r, r->few[i]);
	}
	rate_ring_add(r, b);
}
