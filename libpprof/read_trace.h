/*
 * read_trace.h: the parts of the Chrome trace reader (read_trace.c) that
 * stand on their own, in read_trace_parts.c: a small hash map, the date of
 * DevTools' metadata, DevTools' repair of missing samples, the bid.
 * Private to libpprof.
 */
#ifndef PP_READ_TRACE_H
#define PP_READ_TRACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "v8.h"

/* An open-addressing map from (int64, int64) to uint32 (zeroed: empty;
 * free(slots) when done). */
struct kvmap {
	struct kvslot {
		int64_t a, b;
		uint32_t val; /* value + 1; 0 = empty */
	} *slots;
	uint32_t cap, n;
	uint64_t seed;
};

/* The value of (A, B), or UINT32_MAX. */
uint32_t pp_kv_get(const struct kvmap *m, int64_t a, int64_t b);
/* Sets (A, B) to VAL; false when out of memory. */
bool pp_kv_put(struct kvmap *m, int64_t a, int64_t b, uint32_t val);

/* DevTools' metadata.startTime (ISO 8601 as Date.prototype.toJSON() writes
 * it, or with an offset) as nanoseconds since the epoch; false for
 * anything else or a time outside 1970..2262. */
bool pp_iso_date_ns(const char *p, size_t len, int64_t *out);

/* DevTools' fixMissingSamples over the time-ordered samples SEQ[0 .. N)
 * (node indexes of V). */
void pp_trace_fix_missing(struct pprof_profile *p, struct pp_v8 *v, uint32_t *seq, size_t n);

/* The trace reader's bid (read_private.h). */
int pp_trace_bid(const unsigned char *buf, size_t len);

#endif /* PP_READ_TRACE_H */
