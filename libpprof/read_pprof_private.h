/*
 * read_pprof_private.h: what the pprof reader's files share (read_pprof.c,
 * read_pprof_share.c): the reader's state, the wire format's scanner and
 * the decoding of one sample.  Not installed; not for the tools.
 */
#ifndef PPROF_READ_PPROF_PRIVATE_H
#define PPROF_READ_PPROF_PRIVATE_H

#ifndef PPROF_INTERNAL
#error "read_pprof_private.h is private to libpprof"
#endif

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include "model_private.h"
#include "read_private.h"
#include "walk_private.h"

/* Profile field numbers. */
enum {
	F_SAMPLE_TYPE = 1,
	F_SAMPLE = 2,
	F_MAPPING = 3,
	F_LOCATION = 4,
	F_FUNCTION = 5,
	F_STRING_TABLE = 6,
	F_DROP_FRAMES = 7,
	F_KEEP_FRAMES = 8,
	F_TIME_NANOS = 9,
	F_DURATION_NANOS = 10,
	F_PERIOD_TYPE = 11,
	F_PERIOD = 12,
	F_COMMENT = 13,
	F_DEFAULT_SAMPLE_TYPE = 14,
	F_DOC_URL = 15,
};

enum { WT_VARINT = 0, WT_I64 = 1, WT_LEN = 2, WT_I32 = 5 };

/* One field as the scanner found it. */
struct field {
	uint32_t num, wt;
	size_t off;  /* offset of its key in the input */
	uint64_t v;  /* the value (wire types 0, 1, 5) */
	size_t data; /* the payload (wire type 2): [data, data + len) */
	size_t len;
};

/* A string index read before the string table was complete. */
struct sref {
	int64_t idx;
	size_t off;
};

struct mapping {
	uint64_t id;
	uint32_t base; /* string id of the file's basename, 0 = none */
};

struct function {
	uint64_t id;
	uint32_t name, file; /* string ids */
	int8_t drop;         /* -1 not known yet, 0 no, 1 matches drop_frames and not keep_frames */
};

/* A location expanded into frames, root side first (struct pp_loc, kept
 * small: the samples touch one per frame); its flags say how drop_frames
 * prunes it. */
enum { PRUNE_ALL = 1, PRUNE_BENEATH = 2 };

/* Ids to indexes: a direct table when the ids are dense (the usual 1..N),
 * else open addressing. */
struct idmap {
	uint32_t *dense; /* dense[id] = index + 1 */
	uint64_t ndense;
	uint64_t *keys; /* 0 = empty slot (ids are never 0) */
	uint32_t *vals;
	size_t mask;
	uint64_t seed;
};

struct line {
	uint64_t function_id;
	int64_t line, column;
	size_t off;
};

struct rd {
	struct pprof_profile *p;
	const unsigned char *b;
	size_t len;

	/* string table: profile index -> model string id */
	uint32_t *sids;
	size_t nstr, capstr;

	struct sref *types; /* sample types: type, unit, type, unit, ... */
	size_t ntypes2, captypes2;
	struct sref *comments;
	size_t ncomments, capcomments;
	struct sref drop, keep, default_type, doc_url, period_type[2];
	int64_t time_nanos, duration_nanos, period;
	size_t nmappings, nfunctions, nlocations;

	struct mapping *mappings;
	struct function *functions;
	struct pp_loc *locations;
	uint64_t *locids; /* their ids */
	size_t nm, nf, nl;
	struct idmap mapmap, funmap, locmap;
	uint32_t *frames; /* the locations' frames */
	size_t nframes, capframes;

	pcre2_code *drop_re, *keep_re;
	pcre2_match_data *md;
	pcre2_match_context *mctx; /* the backtracking bound (RE_BUDGET) */
	int re_status;             /* the first match failure that was not "no match" */

	/* scratch, reused across messages */
	struct line *lines;
	size_t caplines;
	uint32_t *locs; /* a sample's locations, leaf first (indexes) */
	size_t caplocs;
	int64_t *vals;
	size_t capvals;
	struct pp_label *labels, *prevlabels;
	size_t caplabels, capprevlabels, nprevlabels;
	uint32_t prevlabelset;
	/* the samples' walk into the tree, with its bound (STEPS_*) */
	struct pp_locwalk walk;
	/* pprof_read_options.defer_tree: the samples go to p->deferred, their
	 * locations from index LOCBASE there */
	bool defer;
	size_t locbase, firstsample;
	uint32_t part;  /* this input's in p->deferred->parts */
	size_t npacked; /* its samples kept as packed ids */
	/* location steps of the deferred samples, and the most frames a
	 * location has: the bound is checked on their product first */
	uint64_t locsteps;
	uint32_t maxlocn;
	bool loc_identity; /* location ids are 1 .. nl in order */
	/* pprof_read_options.skip_lines: a frame with a function is read as
	 * its function's, its name, file and mapping alone (push_frame()) */
	bool by_function;
};

#define STEPS_BASE ((uint64_t)1 << 22)
#define STEPS_PER_BYTE 16

/* Reads a varint at *POS before END: 0, 1 when truncated, 2 when longer
 * than 64 bits. */
static inline int get_varint(const unsigned char *b, size_t *pos, size_t end, uint64_t *out)
{
	size_t i = *pos;
	if (i < end && b[i] < 0x80) {
		*out = b[i];
		*pos = i + 1;
		return 0;
	}
	uint64_t v = 0;
	for (unsigned shift = 0; shift < 70; shift += 7) {
		if (i >= end)
			return 1;
		unsigned char c = b[i++];
		if (shift == 63 && c > 1)
			return 2;
		v |= (uint64_t)(c & 0x7f) << shift;
		if (c < 0x80) {
			*out = v;
			*pos = i;
			return 0;
		}
	}
	return 2;
}

static inline size_t idmap_slot(uint64_t id, uint64_t seed, size_t mask)
{
	id ^= seed;
	id ^= id >> 33;
	id *= 0xff51afd7ed558ccdull;
	id ^= id >> 33;
	return (size_t)id & mask;
}

/* Index of ID plus one, 0 when absent. */
static inline uint32_t idmap_get(const struct idmap *m, uint64_t id)
{
	if (m->dense)
		return id < m->ndense ? m->dense[id] : 0;
	if (!m->keys || id == 0)
		return 0;
	for (size_t s = idmap_slot(id, m->seed, m->mask);; s = (s + 1) & m->mask) {
		if (m->keys[s] == id)
			return m->vals[s];
		if (m->keys[s] == 0)
			return 0;
	}
}

/* Reads the field at *POS before END (the end of the enclosing message). */
int next_field(struct rd *r, size_t *pos, size_t end, struct field *f, const char *msg);
/* Decodes sample F into the tree (or the deferred samples). */
int decode_sample(struct rd *r, const struct field *f, uint32_t ntypes);
/* Reads sample F without walking it (an input that neither defers samples
 * nor drops frames): its *NLOCS locations in r->locs, leaf first, its
 * values in r->vals, its label set interned. */
int read_sample(struct rd *r, const struct field *f, uint32_t ntypes, size_t *nlocs,
		uint32_t *labelset);
/* The samples in two shares (read_pprof_share.c): PPROF_OK or the error,
 * set on P, as the walk of scan_samples() would give it; *TRIED false
 * when the input is not for shares (the caller walks it). */
int scan_shares(struct rd *r, bool give_back, bool *tried);

#endif /* PPROF_READ_PPROF_PRIVATE_H */
