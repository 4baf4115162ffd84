/* Runs a libFuzzer target without libFuzzer: each file named on the
 * command line, then deterministic mutations of it (byte flips, cuts,
 * duplicated spans) from a fixed seed. This is the smoke run `meson test`
 * does in every build; real fuzzing uses -Dfuzz=true (docs/fuzzing.md). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static uint64_t rng_state = 0x9e3779b97f4a7c15ULL;

static uint64_t rng(void)
{
	/* xorshift64*: fixed seed, same mutations on every machine */
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 0x2545f4914f6cdd1dULL;
}

static uint8_t *read_file(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	size_t cap = 1 << 16, n = 0;
	uint8_t *buf = malloc(cap);
	size_t got;
	while (buf && (got = fread(buf + n, 1, cap - n, f)) > 0) {
		n += got;
		if (n == cap) {
			if (cap >= (64u << 20))
				break; /* the smoke run needs no more than 64 MiB */
			cap *= 2;
			uint8_t *nb = realloc(buf, cap);
			if (!nb) {
				free(buf);
				buf = NULL;
				break;
			}
			buf = nb;
		}
	}
	fclose(f);
	*len = n;
	return buf;
}

int main(int argc, char **argv)
{
	int mutations = getenv("PD_FUZZ_MUTATIONS") ? atoi(getenv("PD_FUZZ_MUTATIONS")) : 8;
	unsigned long runs = 0;
	for (int i = 1; i < argc; i++) {
		size_t len = 0;
		uint8_t *data = read_file(argv[i], &len);
		if (!data) {
			fprintf(stderr, "fuzz-smoke: cannot read %s\n", argv[i]);
			continue;
		}
		LLVMFuzzerTestOneInput(data, len);
		runs++;
		uint8_t *m = malloc(len + 64);
		for (int k = 0; m && k < mutations && len > 0; k++) {
			size_t n = len;
			memcpy(m, data, len);
			switch (rng() % 3) {
			case 0: /* flip a handful of bytes past the file header */
				for (int j = 0; j < 16; j++)
					m[rng() % n] ^= (uint8_t)(1u << (rng() % 8));
				break;
			case 1: /* cut anywhere */
				n = (size_t)(rng() % n);
				break;
			default: { /* overwrite a span with a copy of another */
				size_t a = (size_t)(rng() % n), b = (size_t)(rng() % n);
				size_t span = 1 + (size_t)(rng() % 64);
				if (a + span > n)
					span = n - a;
				if (b + span > n)
					span = n - b;
				memmove(m + a, m + b, span);
				break;
			}
			}
			LLVMFuzzerTestOneInput(m, n);
			runs++;
		}
		free(m);
		free(data);
	}
	printf("fuzz-smoke: %lu inputs, no crash\n", runs);
	return 0;
}
