/* Packing a flow's block while it waits (see "parked flows" in
 * flowtable.h): the bytes that differ from a template block, as runs.
 *
 * Half-open flows from one capture differ from each other in a few fields
 * (addresses, ports, times, frame numbers, sequence numbers); the rest of a
 * 1 KiB block is the same, mostly zero. Packed against the first block a
 * thread parked, a half-open flow takes ~200 bytes instead of ~1 KiB.
 * (Several templates, each block that packed badly against the newest one
 * becoming the next, made records larger on the benchmark's slices, not
 * smaller: the floor is the fields every flow has its own value of.) */
#ifndef PD_PACK_H
#define PD_PACK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The largest block pd_pack packs. */
#define PD_PACK_MAX_LEN 8192

/* Bytes pd_pack may write for a block of len bytes. */
size_t pd_pack_bound(size_t len);

/* Writes src's difference from tmpl (both len bytes, len at most
 * PD_PACK_MAX_LEN) to dst (at least pd_pack_bound(len) bytes); returns the
 * bytes written. */
size_t pd_pack(const uint8_t *src, const uint8_t *tmpl, size_t len, uint8_t *dst);

/* Rebuilds the block pd_pack packed: dst gets len bytes. Returns 0, or -1
 * when the packed bytes do not describe a block of len bytes (dst is then
 * a copy of tmpl). */
int pd_unpack(const uint8_t *packed, size_t packed_len, const uint8_t *tmpl, size_t len, uint8_t *dst);

/* Tests: false makes pd_pack compare 16 bytes at a time where it would use
 * AVX2, so both ways are checked on one machine. */
void pd_pack_allow_avx2(bool allow);

/* Blocks of one length, packed against the first of them. */
typedef struct pd_packer {
	size_t len;
	uint8_t *tmpl; /* NULL until the first block */
	uint8_t *scratch; /* the last block packed, packed */
} pd_packer;

void pd_packer_init(pd_packer *p, size_t len);
void pd_packer_free(pd_packer *p);
/* Packs block (len bytes) into p->scratch; returns the packed length. */
size_t pd_packer_pack(pd_packer *p, const uint8_t *block);
/* pd_unpack against the template: 0, or -1 when damaged. */
int pd_packer_unpack(const pd_packer *p, const uint8_t *packed, size_t packed_len, uint8_t *dst);

#endif
