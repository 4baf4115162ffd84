/* Bilingual sentences; see text.h. */
#include "report/text.h"

#include <glib.h>

/* The formats are the program's own literals (PD_TXT), checked at compile
 * time; only their route here is not. */
#pragma GCC diagnostic ignored "-Wformat-nonliteral"

void pd_text_format(const pd_text *t, char **en, char **zh, va_list ap)
{
	va_list ap2;
	va_copy(ap2, ap);
	*en = g_strdup_vprintf(t->en, ap);
	*zh = t->zh ? g_strdup_vprintf(t->zh, ap2) : g_strdup(*en);
	va_end(ap2);
}

/* The linker makes these for a section whose name is a C identifier. */
extern const pd_text __start_pd_texts[] __attribute__((weak));
extern const pd_text __stop_pd_texts[] __attribute__((weak));

const pd_text *pd_texts_begin(void)
{
	return __start_pd_texts;
}

const pd_text *pd_texts_end(void)
{
	return __stop_pd_texts;
}
