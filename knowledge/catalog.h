/* The catalogue of finding ids: what each means, in English and Chinese,
 * and which settings usually lie behind it. Data only (catalog.c). A
 * detector names the id; texts live here, so reports and docs share them. */
#ifndef PD_CATALOG_H
#define PD_CATALOG_H

#include <stddef.h>

typedef enum pd_severity {
	PD_SEV_INFO = 0,
	PD_SEV_WARNING = 1,
	PD_SEV_ERROR = 2,
} pd_severity;

typedef enum pd_category {
	PD_CAT_HANDSHAKE = 0,
	PD_CAT_TIMESTAMPS,
	PD_CAT_NAGLE_DELAYED_ACK,
	PD_CAT_FRAGMENTATION_PMTU,
	PD_CAT_WINDOW,
	PD_CAT_LOSS,
	PD_CAT_CONNECTION_CHURN,
	PD_CAT_RESETS, /* resets and connections a middlebox forgot */
	PD_CAT_CAPTURE,
	PD_CAT__COUNT
} pd_category;

#define PD_DEF_MAX_SETTINGS 8
#define PD_DEF_MAX_ALTS 6
#define PD_DEF_MAX_COUNTERS 8

typedef struct pd_finding_def {
	const char *id; /* kebab-case, stable once released */
	pd_category category;
	pd_severity severity; /* default; a detector may raise or lower it */
	const char *title_en, *title_zh;
	const char *explain_en, *explain_zh; /* plain words: what it means */
	const char *settings[PD_DEF_MAX_SETTINGS]; /* KB names, NULL-terminated */
	const char *alternatives_en[PD_DEF_MAX_ALTS]; /* other causes, NULL-terminated */
	const char *alternatives_zh[PD_DEF_MAX_ALTS];
	/* Kernel counters (nstat names, knowledge/counters.c) that confirm the
	 * finding on the host, NULL-terminated; none when the kernel counts
	 * nothing that would. */
	const char *counters[PD_DEF_MAX_COUNTERS];
} pd_finding_def;

extern const pd_finding_def pd_catalog[];
extern const size_t pd_catalog_len;

const pd_finding_def *pd_catalog_find(const char *id);

#endif
