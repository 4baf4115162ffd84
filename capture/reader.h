/* Capture input: one or more files (or "-") read as one capture, merged in
 * timestamp order like mergecap does with tcpdump's rotated files. Plain and
 * gzip-compressed pcap and pcapng, through libpcap at nanosecond precision;
 * plain classic pcap files are read with read(2) and parsed here instead
 * (no stdio or libpcap copy), with the same results.
 * A BPF filter is applied here, after numbering, so frame numbers stay the
 * original ones. */
#ifndef PD_READER_H
#define PD_READER_H

#include <glib.h>
#include <pcap/pcap.h>
#include <stdbool.h>
#include <stdint.h>

#include "dissect/dissect.h"
#include "dissect/packet.h"

typedef struct pd_reader pd_reader;

typedef struct pd_frame {
	uint64_t frame_no; /* 1-based across the merged input */
	pd_time ts;
	uint32_t caplen, wirelen;
	int linktype;
	uint32_t file_index;
	/* valid until the next pd_reader_next(), or until reported done after
	 * pd_reader_hold_frames() */
	const uint8_t *data;
} pd_frame;

/* Opens every file. Files that cannot be opened are reported through
 * pd_reader_error() and skipped; returns NULL only when none can be read
 * (with *err set). filter may be NULL. */
pd_reader *pd_reader_open(const char *const *paths, size_t n, const char *filter, GError **err);

/* Next frame that passes the filter; false at the end of all input. */
bool pd_reader_next(pd_reader *r, pd_frame *out);

/* The frame's fields into pkt, then pkt dissected from its bytes (every
 * frame of a run passes here: inline). */
static inline pd_dissect_status pd_frame_dissect(const pd_frame *fr, pd_packet *pkt)
{
	pkt->frame_no = fr->frame_no;
	pkt->ts = fr->ts;
	pkt->caplen = fr->caplen;
	pkt->wirelen = fr->wirelen;
	pkt->linktype = fr->linktype;
	pkt->file_index = fr->file_index;
	return pd_dissect(pkt, fr->data);
}

/* Per-file problems met so far (open failures, truncation, corruption),
 * each a full sentence naming the file. Owned by the reader. */
const GPtrArray *pd_reader_errors(const pd_reader *r);
bool pd_reader_truncated(const pd_reader *r); /* a file ended mid-record */
bool pd_reader_any_failed(const pd_reader *r); /* a file could not be opened/read */
uint32_t pd_reader_snaplen(const pd_reader *r);
uint64_t pd_reader_bytes_read(const pd_reader *r); /* compressed bytes for .gz */
uint64_t pd_reader_total_bytes(const pd_reader *r); /* sizes of regular files, 0 if unknown */
uint64_t pd_reader_frames_seen(const pd_reader *r); /* incl. filtered-out ones */
/* Every input is read by pcapdoc itself (plain classic pcap files), so
 * frames can stay where they are: after pd_reader_hold_frames(), a frame's
 * data stays valid until the consumer reports it done with
 * pd_reader_frame_done() (frames in order), and a consumer may keep the
 * pointers instead of copying. What it holds at once should be bounded: the
 * reader keeps a buffer busy for as long as one of its frames is held. */
bool pd_reader_frames_stable(const pd_reader *r);
void pd_reader_hold_frames(pd_reader *r);
void pd_reader_frame_done(pd_reader *r, const pd_frame *fr);

/* Read-ahead for those plain pcap files: after pd_reader_allow_read_ahead(),
 * any other thread may call pd_reader_read_ahead(), e.g. whenever it has
 * nothing else to do. Each call reads at most one piece of a file ahead of
 * the consumer (one pread of 256 KiB, a couple of pieces ahead at most) into
 * a free buffer, and says whether it did; the consumer then finds the piece
 * read. The reader must outlive those threads. */
void pd_reader_allow_read_ahead(pd_reader *r);
bool pd_reader_read_ahead(pd_reader *r);

/* The bytes of the direct path's pieces (the buffers read into; their
 * carry room counted as the page a record's start takes), and *allocated
 * what malloc gave for them: for --stats, from any thread while the reader
 * is open (NULL: 0). */
uint64_t pd_reader_piece_bytes(const pd_reader *r, uint64_t *allocated);

void pd_reader_close(pd_reader *r);

#endif
