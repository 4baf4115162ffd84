/* Packing of idle flows' detector blocks: a block is mostly zeros (about
 * three quarters of its bytes on a front end's keep-alive flows), and many
 * of its other words repeat one another (each detector keeps the times and
 * sequence numbers it needs). A flow that has been silent for a while keeps
 * only a bit per repeat and the non-zero 32-bit words that are not repeats,
 * with a bitmap of where they were. The bytes come back exactly, so no
 * detector knows or cares.
 *
 * Which words repeat which depends on the detectors' layout, not on the
 * flow: a layout (one per kind of block) learns it from the first blocks
 * one thread offers, then publishes it and never changes it, so a block
 * packed by any thread unpacks on any other. Blocks packed before it was
 * published say so and unpack without it. */
#ifndef PD_PACK_H
#define PD_PACK_H

#include <stddef.h>
#include <stdint.h>

/* How many blocks a layout learns from before it is fixed. */
#define PD_PACK_LEARN 64

typedef struct pd_pack_layout pd_pack_layout;

/* A layout for blocks of n bytes (a multiple of 4), knowing no repeats. */
pd_pack_layout *pd_pack_layout_new(size_t n);
void pd_pack_layout_free(pd_pack_layout *l);
/* Learns from one block of the layout's size. One thread only; once it
 * has seen PD_PACK_LEARN blocks the repeats are fixed and published, and
 * later calls do nothing. */
void pd_pack_layout_learn(pd_pack_layout *l, const uint8_t *block);
/* How many pairs of words the layout checks (0 until it is published). */
size_t pd_pack_layout_pairs(const pd_pack_layout *l);

/* The most bytes pd_pack_into writes for a block of the layout's size. */
size_t pd_pack_bound(const pd_pack_layout *l);
/* Packs one block (the layout's size) into out (pd_pack_bound bytes) and
 * returns the packed length. */
size_t pd_pack_into(const pd_pack_layout *l, const uint8_t *src, uint8_t *out);
/* Restores into dst the block packed at packed; returns the packed length
 * it read, so blocks packed one after another unpack in turn. */
size_t pd_unpack_from(const pd_pack_layout *l, const uint8_t *packed, uint8_t *dst);

#endif
