/* Runs the fast pipeline target (fuzz_engine.c) without libFuzzer: each
 * capture named on the command line becomes inputs (fzinput.h; files
 * ending in .fz are inputs already), and each input runs as it is, then
 * after deterministic structure-aware mutations (fz_mutate, with a small
 * byte mutator in place of libFuzzer's) and a crossover with the previous
 * input, from a fixed seed. This is the smoke run `meson test` does in
 * every build (with the build's sanitizers); real fuzzing uses -Dfuzz=true
 * (docs/fuzzing.md). PD_FUZZ_MUTATIONS: mutations per input (default 16). */
#include <glib.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fzinput.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max, unsigned int seed);
size_t LLVMFuzzerMutate(uint8_t *data, size_t size, size_t max);

static uint64_t rng_state = 0x9e3779b97f4a7c15ULL;

static uint64_t rng(void)
{
	/* xorshift64*: fixed seed, same mutations on every machine */
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 0x2545f4914f6cdd1dULL;
}

/* libFuzzer's byte mutator, in small: flips, a cut or growth, a copied span. */
size_t LLVMFuzzerMutate(uint8_t *m, size_t n, size_t max)
{
	switch (rng() % 4) {
	case 0:
		for (int j = 0; n && j < 4; j++)
			m[rng() % n] ^= (uint8_t)(1u << (rng() % 8));
		break;
	case 1:
		if (n)
			n = (size_t)(rng() % n);
		break;
	case 2:
		while (n < max && rng() % 8)
			m[n++] = (uint8_t)rng();
		break;
	default:
		if (n) {
			size_t a = (size_t)(rng() % n), b = (size_t)(rng() % n);
			size_t span = 1 + (size_t)(rng() % 64);
			if (a + span > n)
				span = n - a;
			if (b + span > n)
				span = n - b;
			memmove(m + a, m + b, span);
		}
		break;
	}
	return n;
}

#define SMOKE_MAX_INPUT (64 << 10)

typedef struct state {
	int mutations;
	unsigned long runs;
	uint8_t *prev;
	size_t prev_len;
} state;

static void run_input(const uint8_t *data, size_t len, void *user)
{
	state *st = user;
	static uint8_t m[SMOKE_MAX_INPUT];
	if (len > SMOKE_MAX_INPUT)
		len = SMOKE_MAX_INPUT;
	LLVMFuzzerTestOneInput(data, len);
	st->runs++;
	for (int k = 0; k < st->mutations; k++) {
		memcpy(m, data, len);
		size_t n = len;
		for (int steps = 1 + (int)(rng() % 3); steps > 0; steps--)
			n = LLVMFuzzerCustomMutator(m, n, SMOKE_MAX_INPUT, (unsigned)rng());
		LLVMFuzzerTestOneInput(m, n);
		st->runs++;
	}
	if (st->prev) {
		size_t n = fz_crossover(data, len, st->prev, st->prev_len, m, SMOKE_MAX_INPUT,
					(unsigned)rng());
		LLVMFuzzerTestOneInput(m, n);
		st->runs++;
	}
	g_free(st->prev);
	st->prev = g_memdup2(data, len);
	st->prev_len = len;
}

int main(int argc, char **argv)
{
	state st = {.mutations = getenv("PD_FUZZ_MUTATIONS") ? atoi(getenv("PD_FUZZ_MUTATIONS")) : 16};
	LLVMFuzzerInitialize(&argc, &argv);
	for (int i = 1; i < argc; i++) {
		if (g_str_has_suffix(argv[i], ".fz")) {
			gchar *data = NULL;
			gsize len = 0;
			if (g_file_get_contents(argv[i], &data, &len, NULL))
				run_input((const uint8_t *)data, len, &st);
			else
				fprintf(stderr, "fuzz-smoke: cannot read %s\n", argv[i]);
			g_free(data);
		} else if (!fz_from_capture(argv[i], 16384, 2, run_input, &st)) {
			fprintf(stderr, "fuzz-smoke: cannot read %s\n", argv[i]);
		}
	}
	g_free(st.prev);
	printf("fuzz-smoke: %lu inputs, no crash\n", st.runs);
	return 0;
}
