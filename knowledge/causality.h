/* Which problem explains which symptoms: one problem is one finding, and
 * the symptoms it causes on the same flow are its evidence, not findings
 * of their own with their own advice. Data only (causality.c); the finding
 * store applies it after the detectors ran (heuristics/finding.c). */
#ifndef PD_CAUSALITY_H
#define PD_CAUSALITY_H

#include <stdbool.h>
#include <stddef.h>

#define PD_MAX_CONSEQUENCES 10

typedef struct pd_causality {
	const char *cause; /* a catalogue id */
	/* ids it explains when they concern the same flow, NULL-terminated */
	const char *consequences[PD_MAX_CONSEQUENCES];
	/* The row also holds for the other connections to the server endpoint
	 * of a flow the cause concerns, while the cause lasted: a listener's
	 * state (its queues) is shared by all of them. */
	bool same_server;
	/* The row holds only where the detector that made both findings says
	 * so for that flow (pd_finding_explained_by): the two name one problem
	 * and which one is the cause depends on evidence only it holds. */
	bool declared;
	/* The row holds anywhere on the flow, not only inside the frames the
	 * cause spans (pd_finding_span): the cause is a state of the flow the
	 * symptom shows all along, not an episode. */
	bool whole_flow;
} pd_causality;

extern const pd_causality pd_causalities[];
extern const size_t pd_causalities_len;

/* Whether a finding `cause` on a flow explains a finding `symptom` on it
 * (declared: also the rows that hold only when a detector declares them). */
bool pd_explains(const char *cause, const char *symptom);
bool pd_explains_declared(const char *cause, const char *symptom);
/* Whether it explains `symptom` on another connection to the same server
 * endpoint (a same_server row). */
bool pd_explains_sibling(const char *cause, const char *symptom);
/* Whether a whole_flow row says so: no need to fall in the cause's span. */
bool pd_explains_anywhere(const char *cause, const char *symptom);

#endif
