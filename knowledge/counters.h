/* The kernel counters a finding can be confirmed with on the host: the
 * names nstat prints (nstat -az NAME ...), what each counts, and the
 * kernel that added it when that is recent. Data only (counters.c). */
#ifndef PD_COUNTERS_H
#define PD_COUNTERS_H

#include <stddef.h>

typedef struct pd_counter {
	const char *name; /* as nstat prints it: "TcpExtListenOverflows" */
	const char *meaning_en, *meaning_zh; /* what one increment means */
	const char *since; /* kernel version that added it; NULL: in every kernel from 5.4 */
} pd_counter;

extern const pd_counter pd_counters[];
extern const size_t pd_counters_len;

const pd_counter *pd_counter_find(const char *name);

#endif
