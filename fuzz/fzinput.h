/* The fast pipeline fuzzer's input format (fuzz/fuzz_engine.c,
 * docs/fuzzing.md): a short header, then records, each of which makes one
 * frame. Records are a packet's bytes, or a packet built from an earlier
 * one (an ICMP error quoting it, a fragment of it, the next TCP segment of
 * its flow, a copy with a byte changed), so that mutations change fields,
 * flags, times, orders and lengths instead of breaking a file header.
 *
 * Header (FZ_HDR bytes):
 *   0     link type (index into fz_linktypes, modulo)
 *   1     run: bit 0 two worker threads; bits 1-2 --max-flows 1024, 16,
 *         128 or 100000; bit 3 no nDPI; bits 4-6 renderer (0-2 none,
 *         then text, markdown... in pd_renderers order); bit 7 Chinese
 *   2-3   snap length (LE; 0: 262144); frames are cut to it
 *   4-7   time of the first frame, seconds (LE, signed)
 * Record: kind, flags, time delta (u16 LE), then by kind:
 *   FZ_RAW    len u16, bytes          a frame as captured (link header too)
 *   FZ_IP     len u16, bytes          an IP packet; the link header is made
 *   FZ_ICMP   ref, type, code, src, mtu u16, quote u16
 *             an ICMP (ICMPv6 for IPv6) error quoting `quote` bytes of the
 *             packet ref frames back (0: the one before), sent to its source
 *             by its destination (src 0) or a router (else)
 *   FZ_FRAG   ref, more, offset u16 (8-byte units), len u16, ident u16
 *             a fragment of that packet's payload (bytes past its end are
 *             filled); IPv6 gets a fragment header
 *   FZ_SEG    ref, reply, tcp flags, 0, seq u32, ack u32, window u16, len u16
 *             the packet again with seq/ack advanced by seq/ack (a reply:
 *             addresses and ports swapped, seq from its ack), new flags,
 *             window and a payload of len bytes; for UDP the ports and
 *             length only
 *   FZ_REPEAT ref, xor, pos u16       a copy with one byte xored
 * Flags: bits 0-1 time unit (us, ms, s, 1000 s); bit 2 time goes back;
 * bit 3 (FZ_RAW) fix the IP and UDP lengths; bit 4 the wire length says 64
 * bytes more, bit 5 half of the frame (corrupt); bit 6 the capturing host
 * sent it (made link headers); bit 7 a VLAN tag (made Ethernet headers). */
#ifndef PD_FZINPUT_H
#define PD_FZINPUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dissect/packet.h"

#define FZ_HDR 8
#define FZ_MAX_FRAMES 2048
#define FZ_MAX_FRAME 65535
#define FZ_MAX_BYTES (4u << 20) /* all frames of one input */

enum { FZ_RAW, FZ_IP, FZ_ICMP, FZ_FRAG, FZ_SEG, FZ_REPEAT, FZ_KINDS };

extern const int fz_linktypes[];
extern const size_t fz_n_linktypes;

typedef struct fz_frame {
	uint8_t *data; /* exactly caplen bytes (malloc'ed), so ASan sees overreads */
	uint32_t caplen, wirelen;
	pd_time ts;
	/* where the IP packet is, for records that refer to this frame */
	uint32_t l3_off, l3_len;
	uint8_t ipver; /* 0: no IP; 0xff: not looked at yet */
} fz_frame;

typedef struct fz_input {
	int linktype;
	bool two_threads, no_ndpi, zh;
	size_t max_flows;
	unsigned renderer;
	uint32_t snaplen;
	size_t n;
	fz_frame frames[FZ_MAX_FRAMES];
	size_t bytes;
} fz_input;

/* Builds the frames of an input (any bytes are an input). */
void fz_build(const uint8_t *data, size_t size, fz_input *in);
void fz_clear(fz_input *in);

/* The size of the record at data (n bytes left): 0 when none fits. A record
 * that ends past the input is cut (its length field is then too big). */
size_t fz_record_size(const uint8_t *data, size_t n);

/* A capture as inputs: calls emit for each piece of at most max_bytes (and
 * FZ_MAX_FRAMES frames), at most max_pieces of them. Frames of link types
 * the format lacks are left out. False if the file cannot be read. */
typedef void (*fz_emit_fn)(const uint8_t *data, size_t size, void *user);
bool fz_from_capture(const char *path, size_t max_bytes, unsigned max_pieces, fz_emit_fn emit, void *user);

/* Writes the frames of an input as a pcap file (nanosecond times). */
bool fz_write_pcap(const fz_input *in, const char *path);

/* Structure-aware mutation and crossover (LLVMFuzzerCustomMutator and
 * LLVMFuzzerCustomCrossOver); mutate_bytes is libFuzzer's own mutator. */
typedef size_t (*fz_bytes_fn)(uint8_t *data, size_t size, size_t max);
size_t fz_mutate(uint8_t *data, size_t size, size_t max, unsigned seed, fz_bytes_fn mutate_bytes);
size_t fz_crossover(const uint8_t *a, size_t na, const uint8_t *b, size_t nb, uint8_t *out, size_t max,
		    unsigned seed);

#endif
