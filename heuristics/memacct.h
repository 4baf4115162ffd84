/* Bytes the process holds, by part, for --stats: what malloc holds for
 * the detectors' keyed tables and side allocations, nDPI, the flow
 * tables' index, flow memory between flows, and epochs in flight.
 * Counted per thread without locks (a thread adds to its own counters;
 * a counter may go negative on a thread that frees what another made),
 * summed over threads when read. The sum is only as exact as the
 * moment: readers on other threads see each counter's last store. */
#ifndef PD_MEMACCT_H
#define PD_MEMACCT_H

#include <stddef.h>
#include <stdint.h>

typedef enum pd_mem_part {
	PD_MEM_KEYTABLES, /* pd_keytable entries and index */
	PD_MEM_DETECTORS, /* detectors' per-flow side allocations (pd_mem_new0) */
	PD_MEM_NDPI, /* everything nDPI allocates (its modules, flow states) */
	PD_MEM_FLOW_INDEX, /* the flow tables' open-addressing arrays */
	PD_MEM_FLOWS_IDLE, /* ended flows not yet collected, slots and blocks kept for reuse */
	PD_MEM_EPOCHS, /* batches of messages to the workers */
	PD_MEM_PARTS
} pd_mem_part;

/* The calling thread's counter of part moves by bytes. */
void pd_mem_count(pd_mem_part part, int64_t bytes);
/* out[part]: the sum over all threads, past and present. */
void pd_mem_totals(int64_t out[PD_MEM_PARTS]);
/* What malloc holds for p (its usable size; 0 for NULL). Not const: p is
 * often fresh from malloc, and a const pointer to it reads as a read of
 * uninitialised bytes to GCC's -Wmaybe-uninitialized. */
size_t pd_mem_size(void *p);
/* g_malloc0 / g_free counted in part: for what a detector allocates
 * beside its blocks. */
void *pd_mem_new0(pd_mem_part part, size_t size);
void pd_mem_free(pd_mem_part part, void *p);

#endif
