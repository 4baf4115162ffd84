/* libFuzzer target for idle packing (analyzer/pack.c): whatever a block
 * holds, and whether or not its layout has learned, the bytes come back
 * exactly. The first 2 bytes give the block's size in 32-bit words
 * (1-2048), the rest are blocks of that size (the last zero-padded). A
 * layout learns from the blocks, taken in turn, until it publishes; one
 * block is packed before and unpacked after. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "analyzer/pack.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 2)
		return 0;
	size_t n = 4 * (1 + (size_t)((data[0] << 8 | data[1]) % 2048));
	data += 2;
	size -= 2;
	size_t blocks = size ? (size + n - 1) / n : 1;
	uint8_t *in = calloc(blocks, n), *back = malloc(n);
	pd_pack_layout *l = pd_pack_layout_new(n);
	uint8_t *early = malloc(pd_pack_bound(l)), *out = malloc(pd_pack_bound(l));
	if (!in || !back || !early || !out)
		abort();
	memcpy(in, data, size);

	size_t early_len = pd_pack_into(l, in, early);
	for (size_t i = 0; i < PD_PACK_LEARN; i++)
		pd_pack_layout_learn(l, in + n * (i % blocks));
	if (pd_unpack_from(l, early, back) != early_len || memcmp(back, in, n) != 0)
		abort();
	for (size_t b = 0; b < blocks; b++) {
		size_t len = pd_pack_into(l, in + n * b, out);
		if (len > pd_pack_bound(l) || pd_unpack_from(l, out, back) != len || memcmp(back, in + n * b, n) != 0)
			abort();
	}
	pd_pack_layout_free(l);
	free(in);
	free(back);
	free(early);
	free(out);
	return 0;
}
