/* analyzer/slab.c: fixed-size blocks from 2 MiB chunks, and chunks made
 * ready by another thread (pd_slab_prefault) while the owner allocates. */
#include <criterion/criterion.h>
#include <glib.h>
#include <stdint.h>
#include <string.h>
#include "analyzer/sanitizers.h"
#include "analyzer/slab.h"
#include "testutil.h"

static bool prefault_chore(void *slab)
{
	return pd_slab_prefault(slab);
}

/* Until the prefaulter has a chunk ready (at most 2 s: on a loaded machine
 * it may not be scheduled at once). */
static void wait_ready(pd_slab *s)
{
	if (PD_SANITIZED)
		return; /* nothing to prefault: blocks are mallocs of their own */
	for (int i = 0; i < 2000 && !__atomic_load_n(&s->ready, __ATOMIC_ACQUIRE); i++)
		g_usleep(1000);
}

#define BLOCK 1100
#define N 24000 /* about 13 chunks of blocks */

/* Each block keeps the pattern written to it: no two blocks overlap, and a
 * chunk another thread got ready is handed out whole, once. */
static void check_blocks(uint8_t **b, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		uint8_t v = (uint8_t)(i * 7 + 1);
		cr_assert(b[i][0] == v && b[i][BLOCK / 2] == v && b[i][BLOCK - 1] == v,
			  "block %zu was overwritten", i);
	}
}

Test(slab, blocks_stay_apart_while_another_thread_prefaults)
{
	pd_slab s;
	pd_slab_init(&s, BLOCK);
	pd_test_spinner *prefaulter = pd_test_spinner_start(prefault_chore, &s);
	uint8_t **b = g_new(uint8_t *, N);
	for (size_t i = 0; i < N; i++) {
		b[i] = pd_slab_alloc(&s);
		cr_assert_eq((uintptr_t)b[i] & 63, 0, "block %zu not 64-byte aligned", i);
		memset(b[i], (int)(uint8_t)(i * 7 + 1), BLOCK);
		if (i % 1000 == 0)
			wait_ready(&s); /* the other thread's chance, as a lane's idle moment */
	}
	check_blocks(b, N);
	/* freed blocks come back before any new chunk is taken */
	size_t chunks = s.n_chunks;
	for (size_t i = 0; i < N; i += 2)
		pd_slab_free(&s, b[i]);
	for (size_t i = 0; i < N; i += 2) {
		b[i] = pd_slab_alloc(&s);
		memset(b[i], (int)(uint8_t)(i * 7 + 1), BLOCK);
	}
	check_blocks(b, N);
	guint made = pd_test_spinner_stop(prefaulter); /* chunks it made ready */
	if (!PD_SANITIZED) {
		cr_expect_eq(s.n_chunks, chunks, "a chunk was taken although blocks were free");
		cr_expect(chunks >= 12, "%zu chunks for %d blocks", chunks, N);
		cr_expect(made >= chunks / 2, "only %u of %zu chunks were made ready by the other thread",
			  made, chunks);
	} else {
		cr_expect_eq(made, 0u, "under ASan blocks are mallocs of their own, nothing to prefault");
	}
	for (size_t i = 0; i < N; i++)
		pd_slab_free(&s, b[i]);
	g_free(b);
	pd_slab_destroy(&s); /* also the chunk still ready, if any */
}
