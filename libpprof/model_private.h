/*
 * model_private.h: the profile model as the readers, transforms and writers
 * of libpprof see it: strings, frames, the call tree, label sets, samples,
 * and the errors set on a profile.  Not installed; not for the tools.
 *
 * The model (DESIGN.md): strings interned once (id 0 is ""), frames interned
 * (id 0 is "no frame"), a call tree of frame ids (node 0 is the root, which
 * has no frame), and aggregated samples: one entry per (node, label set)
 * carrying one int64 per sample type.  Optional: the time-ordered sample
 * sequence of a .cpuprofile, for flame charts.
 */
#ifndef PPROF_MODEL_PRIVATE_H
#define PPROF_MODEL_PRIVATE_H

#ifndef PPROF_INTERNAL
#error "model_private.h is private to libpprof"
#endif

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "buf_private.h"
#include "pprof.h"

struct pp_deferred; /* walk_private.h */
struct pp_flines;   /* folded_private.h */
struct pp_hold;     /* read_private.h */

/* ---- frames ---- */
enum pp_frame_flags {
	PP_FRAME_INLINED = 1u << 0,     /* an inlined Line of a pprof Location */
	PP_FRAME_HAS_ADDRESS = 1u << 1, /* address is meaningful */
	PP_FRAME_NO_SYMBOL = 1u << 2,   /* no function: named [mapping] or <unknown> */
	PP_FRAME_IGNORED = 1u << 3,     /* its source is on a map's ignore list */
	PP_FRAME_MAPPED = 1u << 4,      /* symbolicated through a source map */
};

/* A frame.  Positions are 1-based; 0 means unknown (V8's 0-based
 * line/column are stored +1, pprof's as they are).  LINE and COLUMN are
 * where the frame's function starts for V8 input, the Line's for pprof.
 * AT_LINE is the line inside the function where the samples of a leaf fell
 * (lines.h), printed and written in place of LINE; 0 = LINE. */
struct pp_frame {
	uint32_t name;    /* function name as printed, 0 = none (see NO_SYMBOL) */
	uint32_t file;    /* source file or script URL, 0 = none */
	uint32_t mapping; /* basename of the pprof mapping, 0 = none */
	uint32_t flags;
	int64_t line;
	int64_t column;
	uint64_t address;
	int64_t at_line;
};

/* ---- labels (pprof Sample.label) ---- */
struct pp_label {
	uint32_t key;  /* string id */
	uint32_t str;  /* string id, 0 for a numeric label */
	int64_t num;
	uint32_t unit; /* string id of num_unit, 0 = none */
};

/* ---- tree ---- */
struct pp_node {
	uint32_t parent; /* node 0 (the root) is its own parent */
	uint32_t frame;  /* 0 for the root */
};

/* An aggregated sample: the values of samples whose stack ends at NODE and
 * whose labels are the label set LABELS (0 = no labels). */
struct pp_entry {
	uint32_t node;
	uint32_t labels;
};

/* One sample of a time-ordered input, in time order once the reader is done. */
struct pp_seq {
	uint32_t node;
	int64_t time; /* nanoseconds from the profile start */
	int64_t wall; /* nanoseconds the sample stands for */
};

struct pp_sample_type {
	uint32_t type, unit; /* string ids */
};

struct pp_hash; /* open addressing, private to profile.c */

/* The hash of the model's tables (profile.c) and of the walks that read
 * the tree's index ahead (locwalk.c). */
static inline uint64_t pp_hash_mix(uint64_t key)
{
	key ^= key >> 31;
	key *= 0x9E3779B97F4A7C15ull;
	key ^= key >> 29;
	return key;
}

/* The tree's and the samples' indexes hold only ids: the key of a slot is
 * read back from the node or entry it names, which keeps the largest tables
 * of a big profile at 4 bytes a slot.  The ids of a table of CAP slots are
 * below CAP - 1 (they are dense from 0 or 1, and the table grows at three
 * quarters full), so a slot holds id + 1 in its low log2(CAP) bits and, in
 * the bits above, the same bits of its key's hash (bits 32 and up of
 * pp_hash_mix(), which the slot's place does not use): a probe reads the node
 * or entry only when those agree, instead of at every occupied slot (a
 * cache miss each on a big profile; about one in 2^(32 - log2(CAP)) now). */
struct pp_idhash {
	uint32_t *slots; /* (id + 1) | pp_idhash_tag(), 0 = empty */
	uint32_t cap, n;
};

static inline uint32_t pp_idhash_tag(uint64_t mix, uint32_t cap)
{
	return (uint32_t)(mix >> 32) & ~(cap - 1);
}

/* Frees an id index (profile.c): the shares drop theirs when merged. */
void pp_idhash_free(struct pp_idhash *h);

struct pprof_profile;
/* The tree of P (profile.c), for a new profile and the shares' profiles
 * (profile_share.c), which borrow the rest: the node, sample and label
 * indexes, the root node and the empty label set; false when out of
 * memory (pp_tree_release() frees what was made).  pp_tree_release() also
 * frees the labels, aggregated samples, values and error buffer. */
bool pp_tree_init(struct pprof_profile *p);
void pp_tree_release(struct pprof_profile *p);

struct pprof_profile {
	struct pp_arena arena;
	enum pprof_format format;

	/* strings */
	const char **strs;
	uint32_t *strlens;
	uint32_t nstrs, capstrs;
	struct pp_hash *strhash;
	uint64_t hseed; /* seeds the hashes of strings, frames, label sets */

	/* frames (index 0 unused) */
	struct pp_frame *frames;
	uint32_t nframes, capframes;
	struct pp_hash *framehash;

	/* tree (node 0 is the root) */
	struct pp_node *nodes;
	uint32_t nnodes, capnodes;
	struct pp_idhash *nodehash;

	/* label sets: set i is labels[labelsets[i] .. labelsets[i+1]) (set 0 empty) */
	struct pp_label *labels;
	uint32_t nlabels, caplabels;
	uint32_t *labelsets;
	uint32_t nlabelsets, caplabelsets;
	struct pp_hash *labelhash;

	/* sample types, and the aggregated samples: values[e * ntypes + t] */
	struct pp_sample_type *types;
	uint32_t ntypes;
	int default_type; /* index, or -1: the last */
	/* A folded header's type and unit given to the types (read.c), and
	 * the types the folded reader declared, put back while another
	 * folded input is read into the profile. */
	struct pp_sample_type hdr_orig[2];
	uint32_t hdr_type, hdr_unit;
	bool hdr;
	struct pp_entry *entries;
	int64_t *values;
	uint32_t nentries, capentries;
	struct pp_idhash *entryhash;

	/* samples not yet in the tree (NULL: none) */
	struct pp_deferred *deferred;
	/* the lines of the first input when it is folded text (folded_private.h) */
	struct pp_flines *flines;
	/* while a reader reads: the buffer it reads, when it may keep it
	 * (read.c); else NULL */
	struct pp_hold *hold;

	/* source maps an input carries (a Chrome trace's metadata.sourceMaps),
	 * in the arena; pprof_symbolicate() uses them before any other */
	struct pp_emap {
		struct pp_emap *next;
		uint32_t url; /* string id of the script's URL */
		const char *text; /* the map's JSON */
		size_t len;
	} *emaps;
	/* the map files pprof_symbolicate() used (found under a -m directory,
	 * named, or associated by the rules), paths in the arena: pprof-top
	 * --list reads their sourcesContent */
	struct pp_umap {
		struct pp_umap *next;
		const char *path;
	} *umaps;

	/* time-ordered samples (cpuprofile) */
	struct pp_seq *seq;
	size_t nseq, capseq;

	/* metadata (pprof) */
	int64_t time_nanos, duration_nanos, period;
	struct pp_sample_type period_type;
	uint32_t *comments;
	uint32_t ncomments;
	uint32_t doc_url;
	bool have_columns; /* some frame has a column */
	uint32_t ninputs;
	/* what the inputs were, for the cross-format warnings (compare.c):
	 * bit 1 << format of every input read; of the inputs that measure
	 * time, the producers of those with (idle) or (program) samples and
	 * of those without; inputs read, the first one's format, and the
	 * magnitude of the idle samples before the input being read */
	uint32_t in_formats, idle_formats, noidle_formats;
	unsigned wall_kinds, first_wall; /* how the inputs' wall was measured */
	uint32_t nread;
	enum pprof_format first_format;
	uint64_t idle_before;

	/* the current input's mapping from its sample type order to ours */
	uint32_t *typemap;

	/* diagnostics */
	struct pp_buf error;
	char **warnings;
	size_t nwarnings;
};

/* ---- errors and warnings ---- */
/* Sets the error message (printf-style) and returns STATUS. */
int pp_error(struct pprof_profile *p, int status, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* The same with " (at byte OFFSET)" appended. */
int pp_error_at(struct pprof_profile *p, int status, uint64_t offset,
		const char *fmt, ...) __attribute__((format(printf, 4, 5)));
/* Records a warning once. */
void pp_warn(struct pprof_profile *p, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
int pp_nomem(struct pprof_profile *p);

/* ---- model building (all return PPROF_OK or an error set on p) ---- */
/* Interns LEN bytes; *ID receives the string id. */
int pp_intern(struct pprof_profile *p, const char *s, size_t len, uint32_t *id);
static inline const char *pp_str(const struct pprof_profile *p, uint32_t id)
{
	return p->strs[id];
}
static inline uint32_t pp_strlen(const struct pprof_profile *p, uint32_t id)
{
	return p->strlens[id];
}
/* Interns a frame; *ID receives its id (>= 1). */
int pp_frame_intern(struct pprof_profile *p, const struct pp_frame *f, uint32_t *id);
/* Frees the index that finds a frame (12 MB for 350k frames) while no
 * frame is interned (a big input's samples); pp_frame_intern() rebuilds
 * it if needed. */
void pp_drop_frame_index(struct pprof_profile *p);
/* The child of PARENT for FRAME, created when missing. */
int pp_node_child(struct pprof_profile *p, uint32_t parent, uint32_t frame,
		  uint32_t *child);
/* Rebuilds the tree with each frame f replaced by MAP[f] (MAP has nframes
 * entries; 0 removes the frame from its stacks).  Nodes and aggregated
 * samples that become equal merge; the sample sequence follows. */
int pp_remap_frames(struct pprof_profile *p, const uint32_t *map);
/* Asks the kernel for huge pages under the BYTES at PTR (a malloc'd block
 * of at least a few MiB; smaller ones are left alone): the tree's arrays
 * and indexes are touched at random, and 4 KiB pages cost a fault each
 * when fresh and a TLB miss each after (transparent huge pages are often
 * "madvise" only).  Advice only: nothing changes when it is not taken. */
void pp_advise_huge(void *ptr, size_t bytes);
/* Gives back to the system the whole pages of [BASE, BASE + UPTO) past
 * *GIVEN (an address, 0 at first; moved to where they end): bytes of a
 * block the caller reads no more.  The block stays allocated and is freed
 * as usual; a page given back reads as zeros if touched. */
void pp_give_back(const void *base, size_t upto, uintptr_t *given);
/* *BYTES for an array freed with free() and grown with realloc(), NULL
 * when out of memory.  From 1 MiB on, *BYTES is rounded up to whole 2 MiB
 * pages and the block starts at a 2 MiB boundary with huge pages asked
 * for, so that they back it from its first byte: glibc's own large blocks
 * start anywhere in a 2 MiB page, and their first megabyte or so takes a
 * fault per 4 KiB. */
void *pp_huge_alloc(size_t *bytes);
/* N zeroed elements of SIZE bytes for a big array: from 256 KiB on, a
 * mapping of its own in whole 2 MiB huge pages (asked for), so that its
 * pages cost a fault per 2 MiB and freeing it gives the memory back at
 * once, else calloc().  NULL when out of memory.  Freed with pp_big_free()
 * given the same N and SIZE. */
void *pp_big_calloc(size_t n, size_t size);
void pp_big_free(void *ptr, size_t n, size_t size);
/* Makes the pages of N blocks (PTR[k], BYTES[k] bytes; at most 4) on a
 * thread of its own, in order, while the caller goes on: a fresh page costs
 * a fault and its zeroing (a fifth to half of some steps' time here), which
 * the other core then pays ahead of the caller.  The pages are made with
 * MADV_POPULATE_WRITE, which leaves their bytes alone: the caller may write
 * them meanwhile.  NULL (nothing done) for less than 8 MiB in all, without a
 * thread, or where the kernel does not know the advice (it fails at once).
 * pp_populate_end() stops it where it is and waits: before any block is
 * freed. */
struct pp_populate *pp_populate_start(void *const *ptr, const size_t *bytes, int n);
void pp_populate_end(struct pp_populate *pg);
/* Frees the index that finds a node's child (the largest table of a big
 * profile) when only walks remain; pp_node_child() rebuilds it if needed. */
void pp_drop_node_index(struct pprof_profile *p);

/* Moves the deferred samples, and the lines of a folded input, into the
 * tree (no-op when there are none). */
int pp_settle(struct pprof_profile *p);

/* The string id of KEY among the label keys, or 0. */
uint32_t pp_label_key(const struct pprof_profile *p, const char *key);
/* Whether label set SET has the string label KEY (a string id) = VAL. */
bool pp_has_label(const struct pprof_profile *p, uint32_t set, uint32_t key, const char *val);
/* Interns a label set (sorted by the callee); N may be 0 (gives set 0). */
int pp_labelset_intern(struct pprof_profile *p, const struct pp_label *l,
		       uint32_t n, uint32_t *id);
/* Declares the sample types of the input being read (string ids).  For the
 * first input they become the profile's; later inputs must have the same
 * names and units (in any order). */
int pp_begin_input(struct pprof_profile *p, const struct pp_sample_type *t,
		   uint32_t n, int default_type);
/* The times of the input being read (after pp_begin_input()), merged into
 * P's as pprof's merge does: the earliest TIME_NANOS that is not 0 (a wall
 * clock date, nanoseconds since 1970: 0 when the input has none, never a
 * monotonic clock), durations summed, the first input's PERIOD_TYPE and
 * PERIOD unless it had none. */
void pp_input_times(struct pprof_profile *p, int64_t time_nanos, int64_t duration_nanos,
		    struct pp_sample_type period_type, int64_t period);
/* Is string ID "(idle)" or "(program)", the samples V8 keeps and some
 * producers of pprof files leave out? */
bool pp_is_idle_name(const struct pprof_profile *p, uint32_t id);
/* Called before and after each input is read (read.c): records what it was
 * (format, idle samples) and warns once when the inputs merged so far are
 * not alike (compare.c).  Costs a pass over the samples when a second
 * input comes, none for one. */
void pp_input_start(struct pprof_profile *p);
void pp_input_done(struct pprof_profile *p);
/* Adds VALUES (in the current input's type order) to (NODE, LABELS);
 * PPROF_EINPUT when a sum leaves int64.  OFFSET is for the message. */
int pp_add_sample(struct pprof_profile *p, uint32_t node, uint32_t labels,
		  const int64_t *values, uint64_t offset);
/* Appends a time-ordered sample. */
int pp_seq_push(struct pprof_profile *p, uint32_t node, int64_t time, int64_t wall);
/* Interns a C string, for readers' fixed names. */
int pp_intern_cstr(struct pprof_profile *p, const char *s, uint32_t *id);

/* ---- units (units.c) ---- */
/* VALUE in unit FROM ("bytes", "nanoseconds", ...) as a number of unit TO,
 * or of the largest unit it is at least one of when TO is "minimum" or
 * "auto", as pprof's measurement.Scale; *UNIT receives the unit's printed
 * name ("" for counts). */
double pp_unit_scale(int64_t value, const char *from, const char *to, const char **unit);
/* Pictures' units (units.c): time as ns, us, ms, s and memory as B, KiB,
 * MiB, GiB, TiB.  The kind of UNIT (a sample type's unit, "ns", "bytes",
 * "ms"...), its size put in *BASE in nanoseconds or bytes. */
enum pp_human_kind { PP_HUMAN_NONE = 0, PP_HUMAN_TIME, PP_HUMAN_BYTES };
enum pp_human_kind pp_human_kind(const char *unit, double *base);
/* VALUE (in UNIT, of kind pp_human_kind()) as "250.1 ms", "2.500 MiB": the
 * largest unit it reaches, and as many decimals as make one step of the
 * last digit at most RESOLUTION (in UNIT; 0: three significant digits),
 * never finer than UNIT itself.  SIGN: a '+' before a positive
 * value.  Writes at most SIZE bytes, NUL included; returns the length. */
size_t pp_human_value(char *buf, size_t size, double value, const char *unit, double resolution,
		      bool sign);
/* S in ASCII lower case into D (SIZE bytes, NUL-terminated, cut to fit). */
void pp_ascii_lower(char *d, const char *s, size_t size);

/* ---- naming ---- */
/* Appends the name of frame F at granularity G to B, with ';' turned into
 * ':' and CR/LF into spaces. */
bool pp_frame_name(const struct pprof_profile *p, uint32_t frame,
		   enum pprof_granularity g, struct pp_buf *b);
/* The string id of every frame's name at granularity G, interned in P's
 * strings, into OUT[0 .. p->nframes) (OUT[0] = 0 for the root). */
int pp_frame_names(struct pprof_profile *p, enum pprof_granularity g, uint32_t *out);

/* Room for FRAMES more frames, NODES more nodes of the tree and ENTRIES more
 * aggregated samples, their indexes included, so that a reader that knows
 * how many it may add does not grow the arrays and tables step by step
 * (each step a copy, a rehash and fresh pages).  Only sizes change: ids,
 * order and contents do not.  Call after pp_begin_input() for ENTRIES. */
int pp_reserve(struct pprof_profile *p, uint32_t frames, uint32_t nodes, uint32_t entries);

#endif /* PPROF_MODEL_PRIVATE_H */
