/* The settings knowledge base: one entry per kernel, socket, route,
 * application or middlebox setting a finding can point at. Data only
 * (kb.c), built into the binary, shared by all detectors and reports. */
#ifndef PD_KB_H
#define PD_KB_H

#include <stddef.h>

typedef enum pd_kb_kind {
	PD_KB_SYSCTL = 0,
	PD_KB_SOCKOPT,
	PD_KB_ROUTE, /* ip route attribute */
	PD_KB_APP, /* application setting or behaviour */
	PD_KB_FIREWALL, /* firewall, NAT or other middlebox */
	PD_KB_INTERFACE, /* NIC / link property (MTU, offloads) */
} pd_kb_kind;

typedef enum pd_kb_side {
	PD_SIDE_CLIENT = 0,
	PD_SIDE_SERVER,
	PD_SIDE_BOTH,
	PD_SIDE_SENDER,
	PD_SIDE_RECEIVER,
	PD_SIDE_PATH,
} pd_kb_side;

typedef struct pd_setting {
	const char *name; /* canonical: "net.core.somaxconn", "TCP_NODELAY" */
	pd_kb_kind kind;
	pd_kb_side side;
	const char *default_value; /* on current Linux; NULL when not applicable */
	const char *check; /* command that shows its value or effect */
	const char *change_en, *change_zh; /* what to change */
	const char *caveat_en, *caveat_zh; /* traps, myths, arithmetic */
	const char *removed_in; /* kernel version that removed it, or NULL */
} pd_setting;

extern const pd_setting pd_kb[];
extern const size_t pd_kb_len;

const pd_setting *pd_kb_find(const char *name);
const char *pd_kb_kind_name(pd_kb_kind k);
const char *pd_kb_side_name(pd_kb_side s);

#endif
