/* Sentences pcapdoc prints, in English and Chinese side by side.
 *
 * A detector writes PD_TXT("en format", "zh format") where a report
 * sentence is made; both are printf formats taking the same arguments in
 * the same order (glibc's %1$s positional forms may reorder the Chinese).
 * The English format is checked by the compiler against the arguments;
 * tests/test_text.c checks that every Chinese format exists and converts
 * the same arguments. Every PD_TXT lands in one linker section, so the
 * test can see all of them without a list to keep. */
#ifndef PD_TEXT_H
#define PD_TEXT_H

#include <stdarg.h>
#include <stddef.h>

typedef struct pd_text {
	const char *en;
	const char *zh; /* NULL: not translated yet (tests/test_zh.c lists where) */
	const char *file;
	int line;
} pd_text;

/* Checks a format against its arguments at compile time; never called. */
void pd_text_check_(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#define PD_TXT_SECTION __attribute__((section("pd_texts"), used, aligned(sizeof(void *))))

/* A pd_text * for the literals (en, zh), made once where the macro stands. */
#define PD_TXT(en_, zh_)                                                                      \
	({                                                                                    \
		static const pd_text pd_txt_ PD_TXT_SECTION = {en_, zh_, __FILE__, __LINE__}; \
		&pd_txt_;                                                                     \
	})

#define PD_UNPAREN(...) __VA_ARGS__

/* Calls fn(lead..., PD_TXT(en, zh), args...) after the compiler checked en
 * against args; lead is a parenthesised argument list: the way to pass a
 * sentence with its arguments. */
#define PD_TXT_CALL(fn, lead, en_, zh_, ...)                                   \
	do {                                                                   \
		if (0)                                                         \
			pd_text_check_(en_, ##__VA_ARGS__);                    \
		fn(PD_UNPAREN lead, PD_TXT(en_, zh_), ##__VA_ARGS__);          \
	} while (0)

/* The two formats of t with the same arguments: en and zh (zh falls back
 * to en). Callers g_free both. */
void pd_text_format(const pd_text *t, char **en, char **zh, va_list ap);

/* Every PD_TXT in the program (the linker section's bounds). */
const pd_text *pd_texts_begin(void);
const pd_text *pd_texts_end(void);

#endif
