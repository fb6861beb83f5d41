/*
 * pprof.h: read, transform and write CPU and memory profiles.
 *
 * One model (struct pprof_profile) is filled by a reader per format
 * (pprof profile.proto, V8 .cpuprofile and .heapprofile, folded stacks) and
 * read by every writer (folded stacks, ...).  The library never prints and
 * never exits: a function returns a status (PPROF_OK or an error) and leaves
 * a one-line message on the profile, read with pprof_profile_error().
 */
#ifndef PPROF_H
#define PPROF_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Status codes. */
enum pprof_status {
	PPROF_OK = 0,
	PPROF_EINPUT = 1, /* the input is malformed or unsupported */
	PPROF_ENOMEM = 2, /* out of memory, or a documented bound was passed */
	PPROF_EIO = 3,    /* reading or writing failed (errno kept) */
	PPROF_EUSAGE = 4, /* an argument is wrong: unknown sample type, ... */
};

/* Frame naming, as pprof's -functions, -filefunctions, -lines, -files,
 * -addresses. */
enum pprof_granularity {
	PPROF_G_FUNCTIONS = 0,
	PPROF_G_FILEFUNCTIONS,
	PPROF_G_LINES,
	PPROF_G_FILES,
	PPROF_G_ADDRESSES,
};

/* Input formats, as detected by the readers' bids. */
enum pprof_format {
	PPROF_FMT_UNKNOWN = 0,
	PPROF_FMT_PPROF,
	PPROF_FMT_CPUPROFILE,
	PPROF_FMT_HEAPPROFILE,
	PPROF_FMT_FOLDED,
	PPROF_FMT_TRACE, /* Chrome trace (Trace Event Format JSON) */
	PPROF_FMT_HEAPSNAPSHOT,
};

struct pprof_profile;

/* A new, empty profile, or NULL when out of memory. */
struct pprof_profile *pprof_profile_new(void);
/* Frees the profile and everything read into it.  NULL is allowed. */
void pprof_profile_free(struct pprof_profile *p);

/* The message of the last failure ("truncated gzip stream (at byte 4096)"),
 * or "" when there was none.  Owned by the profile. */
const char *pprof_profile_error(const struct pprof_profile *p);

/* Warnings collected while reading and transforming (each distinct message
 * once, in the order first seen).  Owned by the profile. */
size_t pprof_profile_warning_count(const struct pprof_profile *p);
const char *pprof_profile_warning(const struct pprof_profile *p, size_t i);

/* Reading.  Several inputs read into one profile are summed; their sample
 * types must match by name and unit. */
struct pprof_read_options {
	/* Refuse input that inflates past this many bytes (0: the default,
	 * 4 GiB; see DESIGN.md for the ratio rule under it). */
	uint64_t max_input;
	/* Maximum JSON nesting depth (0: the default, 1,000,000). */
	uint32_t max_depth;
	/* Called while a long input is read from a pipe or inflated: at most
	 * every few MiB, with the bytes taken in so far and the size they
	 * count towards (the compressed size while inflating; 0 while
	 * reading a pipe, whose size is unknown), and once more with DONE
	 * equal to TOTAL when that step is over.  NULL: not called.  The
	 * library never prints; a program draws its progress line here. */
	void (*progress)(void *ctx, uint64_t done, uint64_t total);
	void *progress_ctx;
	/* pprof input: keep each sample as its list of locations instead of
	 * adding it to the call tree.  pprof_top() reads such samples as they
	 * are, several times faster than building the tree of a big profile;
	 * any other use of the profile builds the same tree first, at the cost
	 * it would have had.  The input is validated in full either way. */
	int defer_tree;
	/* Chrome traces: leave out DevTools' repair of lone (program)
	 * samples (fixMissingSamples, doc/trace-format.md). */
	int trace_keep_missing;
	/* Chrome traces: a regex (PCRE2, unanchored, as --tagfocus) on the
	 * thread names: only the threads it matches are read.  The time-ordered
	 * samples of a flame chart are those of the thread with the most
	 * samples, among these.  NULL: every thread. */
	const char *trace_thread;
	/* Chrome traces: TRACE_PICK set, only the thread of process id
	 * TRACE_PID and thread id TRACE_TID is read (after TRACE_THREAD): what
	 * pprof-flame reads once per chart of a trace of several threads. */
	int trace_pick;
	int64_t trace_pid, trace_tid;
	/* Folded input: read as flamegraph.pl reads it (pprof-flame): counts
	 * kept as written, fractions included, lines without a count counted
	 * rather than warned of (pprof_flame_ignored_lines()).  Otherwise a
	 * fractional count is rounded half away from zero, with one warning. */
	int folded_flamegraph;
	/* Heap snapshots: the leak set (doc/heapsnapshot.md, "Leaks between
	 * snapshots").  With heap_since (a path, gzipped or not), only the
	 * objects of the input whose id is not in that snapshot and, with
	 * heap_until too, is in that one: memlab's three snapshots BASELINE,
	 * TARGET, FINAL.  Snapshots whose ids cannot be of one process are
	 * refused.  NULL: every object. */
	const char *heap_since;
	const char *heap_until;
	/* Heap snapshots: each object's stack is its shortest retainer path
	 * from the root (class and edge names) instead of its dominator
	 * chain. */
	int heap_retainers;
	/* V8 .cpuprofile: leave out the time-ordered sample sequence, which
	 * only a flame chart reads (pprof_flame_has_timeline() is then 0); the
	 * call tree and its values are the same. */
	int skip_sequence;
	/* For a program that prints frames at functions, filefunctions or
	 * files granularity, and neither maps, renames nor filters them:
	 * what only lines and addresses tell apart is read as one.  V8
	 * .cpuprofile: each node's samples stay on its function's frame
	 * rather than split over the lines of its positionTicks (which are
	 * still read and checked).  pprof: a frame with a function keeps
	 * its name, file and mapping alone (no line, column, address or
	 * inlined mark), so the frames of one function are one.  The frames
	 * left out print as the one kept and merge with it: the program's
	 * output is the same. */
	int skip_lines;
};

/* Reads the whole of FILE (a path, or NULL or "-" for standard input),
 * gzipped or not, in whatever format it is.  On failure the profile holds
 * the samples of earlier inputs only partly and should be dropped. */
int pprof_read_file(struct pprof_profile *p, const char *path,
		    const struct pprof_read_options *o);
/* The same for bytes in memory (not gzipped-detected twice; the buffer is
 * only borrowed for the call). */
int pprof_read_buffer(struct pprof_profile *p, const void *buf, size_t len,
		      const struct pprof_read_options *o);

/* Whether an input carried source maps of its own (a Chrome trace saved
 * with its scripts' source maps): pprof_symbolicate() then uses them, with
 * or without maps given. */
int pprof_profile_has_sourcemaps(const struct pprof_profile *p);

/* The format of the last input read. */
enum pprof_format pprof_profile_format(const struct pprof_profile *p);
const char *pprof_format_name(enum pprof_format f);

/* Sample types: index i from 0 to count-1. */
size_t pprof_sample_type_count(const struct pprof_profile *p);
const char *pprof_sample_type_name(const struct pprof_profile *p, size_t i);
const char *pprof_sample_type_unit(const struct pprof_profile *p, size_t i);
/* The capture's duration (a pprof profile's duration_nanos); 0: unknown. */
int64_t pprof_profile_duration_nanos(const struct pprof_profile *p);
/* The index chosen by a -i argument (a name, or a name with an inuse_
 * prefix standing for the name without it, as pprof matches them; or a
 * decimal index), or by default (NULL or ""):
 * default_sample_type, else the last type.  Returns -1, with the message on
 * the profile, when it names no type. */
int pprof_sample_type_select(struct pprof_profile *p, const char *arg);

/* Granularity from its name ("functions", ...); -1 when unknown. */
int pprof_granularity_parse(const char *name);

/* Folded stacks: one line per distinct stack, "root;...;leaf VALUE",
 * bytewise sorted on the stack, zero values left out. */
struct pprof_folded_line {
	const char *stack; /* not NUL-terminated */
	size_t len;
	int64_t value;
};
struct pprof_folded {
	struct pprof_folded_line *lines;
	size_t n;
	int64_t total; /* sum of the values */
	/* private */
	char *buf;
	size_t buflen;
};
struct pprof_fold_options {
	int sample_index; /* from pprof_sample_type_select() */
	enum pprof_granularity granularity;
};
/* Builds the folded lines of P into *OUT (freed with pprof_folded_free()).
 * For folded text that nothing has transformed, the lines are the input's
 * as read (sorted and merged), pointing into it: use them while P lives. */
int pprof_fold(struct pprof_profile *p, const struct pprof_fold_options *o,
	       struct pprof_folded **out);
void pprof_folded_free(struct pprof_folded *f);
/* Calls EMIT for each folded line in order, without keeping the lines; stops
 * at the first status EMIT returns other than PPROF_OK and returns it. */
int pprof_fold_each(struct pprof_profile *p, const struct pprof_fold_options *o,
		    int (*emit)(void *ctx, const char *stack, size_t len, int64_t value),
		    void *ctx);
/* Writes the folded lines of P to OUT as they are made. */
int pprof_fold_write(struct pprof_profile *p, const struct pprof_fold_options *o,
		     FILE *out);
/* Writes folded lines to OUT; PPROF_EIO (errno set) on a write error. */
int pprof_folded_write(const struct pprof_folded *f, FILE *out);

/* ---- transforms (filter.c, rules.c) and pprof output (write_pprof.c) ---- */

/* A rules file (doc/rules.md): rename rules, default filters, and which
 * source map belongs to which script URL. */
struct pprof_rules;

/* A new, empty rule set, or NULL when out of memory. */
struct pprof_rules *pprof_rules_new(void);
void pprof_rules_free(struct pprof_rules *r);
/* Reads a YAML rules file (schema version 1).  On failure the message,
 * with the line and column where it went wrong, is left on R, and R holds
 * nothing usable.  Relative map paths resolve against the file's directory. */
int pprof_rules_read_file(struct pprof_rules *r, const char *path);
/* The same for text in memory; BASE_DIR (may be NULL: the current
 * directory) is where relative map paths resolve. */
int pprof_rules_read_buffer(struct pprof_rules *r, const char *text, size_t len,
			    const char *base_dir);
/* The message of the last failure, or "".  Owned by R. */
const char *pprof_rules_error(const struct pprof_rules *r);

/* A source-map association of the rules file: URL is matched exactly, or as
 * an unanchored PCRE2 regex when IS_REGEX; MAP is the map's path (for a
 * regex it may hold $1, ${name} references to the regex's groups), already
 * resolved against the rules file's directory when relative. */
struct pprof_rules_sourcemap {
	const char *url;
	int is_regex;
	const char *map;
};
/* The associations in file order; *N receives their number.  Owned by R. */
const struct pprof_rules_sourcemap *pprof_rules_sourcemaps(const struct pprof_rules *r,
							   size_t *n);
/* The map path for script URL (the first association that matches, with
 * regex groups substituted), malloc'd into *PATH (free it), or *PATH = NULL
 * when none matches.  PPROF_ENOMEM is the only failure. */
int pprof_rules_sourcemap_for(const struct pprof_rules *r, const char *url, char **path);

/* Filters and transforms of the model, as go tool pprof's options of the
 * same names.  Regexes are PCRE2, compiled once when added, matched
 * unanchored against each frame's function name and file name. */
enum pprof_filter_option {
	PPROF_FILTER_FOCUS = 0,    /* keep samples with a frame that matches */
	PPROF_FILTER_IGNORE,       /* drop samples with a frame that matches */
	PPROF_FILTER_HIDE,         /* remove the frames that match */
	PPROF_FILTER_SHOW,         /* keep only the frames that match */
	PPROF_FILTER_SHOW_FROM,    /* drop the frames above the outermost match */
	PPROF_FILTER_PRUNE_FROM,   /* drop the frames below the innermost match */
	PPROF_FILTER_TAGFOCUS,     /* [KEY=]REGEX[,REGEX...] or [KEY=]RANGE on labels */
	PPROF_FILTER_TAGIGNORE,
	PPROF_FILTER_TAGROOT,      /* KEY[,KEY...]: label values as root frames */
	PPROF_FILTER_TAGLEAF,      /* KEY[,KEY...]: label values as leaf frames */
	PPROF_FILTER_COLLAPSE_RECURSION, /* a frame calling itself directly: once */
	PPROF_FILTER_DROP_IDLE,    /* drop samples whose leaf is (idle) or (program) */
	PPROF_FILTER_NOPTIONS
};

struct pprof_filter;

/* A new filter that changes nothing, or NULL when out of memory. */
struct pprof_filter *pprof_filter_new(void);
void pprof_filter_free(struct pprof_filter *f);
/* The message of the last failure, or "".  Owned by F. */
const char *pprof_filter_error(const struct pprof_filter *f);
/* The option named NAME ("focus", "show-from" or "show_from", ...), or -1. */
int pprof_filter_option_parse(const char *name);
const char *pprof_filter_option_name(enum pprof_filter_option o);
/* Adds VALUE to option O (VALUE is ignored for the two flags).  Options are
 * repeatable: a frame matches a regex option when any of its values
 * matches; a sample must pass every tagfocus and no tagignore; tagroot and
 * tagleaf keys accumulate.  PPROF_EUSAGE with the message on F when VALUE
 * is a bad regex or range. */
int pprof_filter_add(struct pprof_filter *f, enum pprof_filter_option o, const char *value);
/* Whether option O has been given. */
int pprof_filter_has(const struct pprof_filter *f, enum pprof_filter_option o);
/* Uses R's rename rules, and adds R's default filters for the options not
 * given yet (so options added before this call override the file's).  R is
 * borrowed and must outlive F.  PPROF_EUSAGE when a default is bad. */
int pprof_filter_use_rules(struct pprof_filter *f, const struct pprof_rules *r);
/* Whether F would change a profile. */
int pprof_filter_is_empty(const struct pprof_filter *f);

/* What the filter step hands to the report that prints the profile
 * (pprof_top_options.report): pprof's sample filters as given
 * ("focus=REGEX", ..., in pprof's order: its legend, "Active filters:"),
 * and per sample type the total of the samples before them, as pprof's
 * percentages are of all samples (NULL: the totals after the filters
 * hold, as under --drop-idle, which is meant to leave idle time out). */
struct pprof_filter_report {
	char **filters;
	size_t nfilters;
	int64_t *totals; /* NTYPES entries, in the profile's type order, or NULL */
	size_t ntypes;
};
void pprof_filter_report_free(struct pprof_filter_report *r);

/* Rewrites P's call tree: rename rules, then tagroot/tagleaf, then
 * focus/ignore/drop-idle/tagfocus/tagignore, hide/show, show-from,
 * prune-from, and last collapse-recursion, in that order (as go tool pprof
 * applies them).  Samples whose stack is emptied are dropped.  Warnings
 * ("focus expression matched no samples") go on P.  Run it after
 * symbolication and before any writer.  REPORT (may be NULL) receives the
 * report for the tables (freed with pprof_filter_report_free()), or NULL
 * when there is nothing to report. */
int pprof_filter_apply(const struct pprof_filter *f, struct pprof_profile *p,
		       struct pprof_filter_report **report);

/* Writes P as a gzipped profile.proto to OUT: all sample types, the default
 * one, functions, locations (inlined frames as the Lines of one Location),
 * mappings, labels, and time, duration, period and comments.  PPROF_EIO
 * (errno set) when writing fails. */
int pprof_write_pprof(struct pprof_profile *p, FILE *out);

/* Source maps: put frames of generated JavaScript back on the original
 * source (file, 1-based line, the original function's name), one look-up
 * per unique frame.  MAPS are map files or directories searched for
 * scripts (their sourceMappingURL comment, NAME.js.map beside NAME.js) and
 * maps.  A map that can't be used, and a script URL with no map, only warn;
 * PPROF_EIO when a path given can't be read. */
struct pprof_rules;
struct pprof_symbolicate_options {
	const char *const *maps;
	size_t nmaps;
	int hide_ignored; /* remove frames whose source is on an ignore list */
	/* A rules file's associations of script URLs with maps (may be NULL);
	 * they come before the maps found through MAPS. */
	const struct pprof_rules *rules;
	/* The output shows lines (-g lines, a pprof file): then a leaf whose
	 * sampled line can't be mapped (a one-line bundle) is said, once per
	 * map; otherwise nothing is lost and nothing is said. */
	int lines;
	/* A directory holding the original sources, read where a map has no
	 * sourcesContent (--source-path; may be NULL). */
	const char *source_path;
	/* The maps pprof_sourcemaps_start() began to load (may be NULL). */
	struct pprof_sourcemaps *prefetch;
};
int pprof_symbolicate(struct pprof_profile *p, const struct pprof_symbolicate_options *o);

/* Loading the map files early.  The map files O names (-m FILE; not
 * directories) are known before the profile is read: this starts reading,
 * parsing and indexing them, and the scripts beside them, on a thread of
 * its own, so that it overlaps reading the profile.  Given as O's prefetch
 * to pprof_symbolicate() (with the same O otherwise), the maps are taken
 * from there, once its thread is done.  Nothing is said early: warnings
 * and errors are those of a load without it, in the same order.  NULL
 * when there is nothing to load early, or no thread could be started:
 * pprof_symbolicate() then loads the maps itself, as without it. */
struct pprof_sourcemaps;
struct pprof_sourcemaps *pprof_sourcemaps_start(const struct pprof_symbolicate_options *o);
/* Waits for its thread and frees what pprof_symbolicate() did not take.
 * NULL is allowed. */
void pprof_sourcemaps_free(struct pprof_sourcemaps *s);

/* The optional first line of folded text (pprof-fold --header, pprof-diff
 * --header): "# sample_type=TYPE/UNIT", a comment to other readers.  Our
 * readers take TYPE and UNIT for the lines' sample type ("samples/count"
 * otherwise), UNIT only for a differential file's "before" and "after". */
#define PPROF_FOLDED_HEADER "# sample_type="

/* Version of the library, "MAJOR.MINOR.PATCH". */
const char *pprof_version(void);

/* ---- flame graphs (flame.c) ---- */
/* SVG flame graphs with flamegraph.pl's options and geometry: for the same
 * folded lines and options, the same frames, x, widths, depths, labels and
 * tooltips.  Input is folded text ("stack VALUE", fractions kept, or
 * "stack BEFORE AFTER" for a differential graph) or a profile.  The SVG is
 * self-contained (its own style and script) and well-formed XML whatever
 * bytes the names hold. */
struct pprof_flame;

/* Colour palettes: flamegraph.pl's, and "ts", which tells user code,
 * dependencies (node_modules, a source map's ignore list), runtime frames
 * and the engine's (program)/(garbage collector)/(idle) apart. */
enum pprof_flame_palette {
	PPROF_FLAME_HOT = 0,
	PPROF_FLAME_MEM,
	PPROF_FLAME_IO,
	PPROF_FLAME_WAKEUP,
	PPROF_FLAME_JAVA,
	PPROF_FLAME_JS,
	PPROF_FLAME_PERL,
	PPROF_FLAME_RED,
	PPROF_FLAME_GREEN,
	PPROF_FLAME_BLUE,
	PPROF_FLAME_AQUA,
	PPROF_FLAME_YELLOW,
	PPROF_FLAME_PURPLE,
	PPROF_FLAME_ORANGE,
	PPROF_FLAME_TS,
};

enum pprof_flame_flags {
	PPROF_FLAME_HASH = 1u << 0,       /* --hash: colour by a hash of the name */
	PPROF_FLAME_RANDOM = 1u << 1,     /* --random */
	PPROF_FLAME_CONSISTENT = 1u << 2, /* --cp: colours from/to the palette map */
	PPROF_FLAME_REVERSE = 1u << 3,    /* --reverse: stacks leaf first */
	PPROF_FLAME_INVERTED = 1u << 4,   /* --inverted: icicle graph */
	PPROF_FLAME_FLAMECHART = 1u << 5, /* --flamechart: input order, not sorted */
	PPROF_FLAME_NEGATE = 1u << 6,     /* --negate: swap differential hues */
	PPROF_FLAME_SORT_WIDTH = 1u << 7, /* callees widest first, packed */
	PPROF_FLAME_MERGE_SMALL = 1u << 8, /* callees below minwidth as one "(other)" */
	PPROF_FLAME_INCLUSIVE_DELTA = 1u << 9, /* colour by the inclusive delta, and
						* titles with before, after and delta */
	PPROF_FLAME_COUNTS = 1u << 10, /* titles in countname even with a unit */
};

/* Which value of a differential line gives the width. */
enum pprof_flame_diff_width {
	PPROF_FLAME_DIFF_AFTER = 0, /* as flamegraph.pl */
	PPROF_FLAME_DIFF_BEFORE,    /* shows paths that vanished */
	PPROF_FLAME_DIFF_MAX,       /* the larger of the two */
};

struct pprof_flame_options {
	const char *title;     /* NULL or "": Flame Graph / Icicle Graph / Flame Chart */
	const char *subtitle;  /* "": none; NULL: none, or the default one (below) */
	const char *notes;     /* put in a comment; NULL: none */
	const char *fonttype;  /* "Verdana"; see pprof_flame_fonttype_ok() */
	const char *countname; /* "samples" */
	const char *nametype;  /* "Function:" */
	const char *bgcolors;  /* NULL: by palette; yellow, blue, green, grey, #rrggbb */
	enum pprof_flame_palette palette;
	enum pprof_flame_diff_width diff_width;
	unsigned flags;           /* enum pprof_flame_flags */
	double width;             /* 1200 */
	double frameheight;       /* 16 */
	double fontsize;          /* 12 */
	double fontwidth;         /* 0.59 */
	double minwidth;          /* 0.1 (pixels, or percent of the total) */
	int minwidth_percent;     /* minwidth is a percentage */
	double factor;            /* 1: scales the counts shown */
	double total;             /* 0: the sum; else the width of the root if larger */
	unsigned long long seed;  /* for PPROF_FLAME_RANDOM; 0: from the clock */
	/* The counts' unit ("nanoseconds", "bytes", "ms"...; NULL: none): time
	 * and memory are shown as ns/us/ms/s and B/KiB/MiB/GiB in titles and
	 * the subtitle, unless PPROF_FLAME_COUNTS or a factor other than 1. */
	const char *unit;
	/* With a unit or a sample type, a NULL subtitle becomes "SOURCE — TYPE
	 * (UNIT), total T[, duration D]". */
	const char *sample_type; /* "cpu", "alloc_space"...; NULL: none */
	const char *source;      /* the input's name(s); NULL: none */
	double duration;         /* the capture's, in nanoseconds; 0: unknown */
};
/* flamegraph.pl's defaults. */
void pprof_flame_options_init(struct pprof_flame_options *o);
/* A palette by name (also "typescript" for "ts"); -1 when unknown. */
int pprof_flame_palette_parse(const char *name);
/* Whether a --fonttype or --bgcolors value is acceptable. */
int pprof_flame_fonttype_ok(const char *s);
int pprof_flame_bgcolors_ok(const char *s);

/* A new, empty set of lines, or NULL when out of memory. */
struct pprof_flame *pprof_flame_new(void);
void pprof_flame_free(struct pprof_flame *f);
/* The message of the last failure, or "".  Owned by F. */
const char *pprof_flame_error(const struct pprof_flame *f);

/* Adds folded text (copied): "stack COUNT" or "stack BEFORE AFTER" lines,
 * the counts decimal with an optional fraction; "# " comment lines, blank
 * lines, CRLF, a UTF-8 BOM and UTF-16 with a BOM are accepted, other lines
 * are counted as ignored. */
int pprof_flame_add_text(struct pprof_flame *f, const void *buf, size_t len);
/* Adds the folded lines of P (as pprof_fold()), and remembers where each
 * frame name comes from for the "ts" palette.  Folded text read with
 * pprof_read_options.folded_flamegraph gives flamegraph.pl's lines and
 * counts, fractions and a differential column included, transformed or
 * not; untransformed, F's lines point into P's input: P must outlive F's
 * pprof_flame_write_svg().  With PPROF_FLAME_TIMELINE and
 * a time-ordered profile (.cpuprofile), the samples in time order instead:
 * consecutive samples of one stack make a line, its width the samples' wall
 * time (sample type "wall") or their number. */
#define PPROF_FLAME_TIMELINE 1u
int pprof_flame_add_profile(struct pprof_flame *f, struct pprof_profile *p,
			    const struct pprof_fold_options *o, unsigned flags);
/* Whether P keeps its samples in time order. */
int pprof_flame_has_timeline(const struct pprof_profile *p);
size_t pprof_flame_line_count(const struct pprof_flame *f);
/* Lines that were not folded stacks, or stacks of a profile with a
 * negative value, left out. */
size_t pprof_flame_ignored_lines(const struct pprof_flame *f);

/* The threads of a Chrome trace's samples (their "pid", "tid" and
 * "thread" labels), each (pid, tid) once, in the order the samples give
 * them: malloc'd, freed with pprof_flame_threads_free().  NAME is "" for
 * a thread without one.  None (*N 0) for other formats. */
struct pprof_flame_thread {
	char *name;
	int64_t pid, tid;
};
int pprof_flame_threads(struct pprof_profile *p, struct pprof_flame_thread **threads, size_t *n);
void pprof_flame_threads_free(struct pprof_flame_thread *threads, size_t n);

/* palette.map (--cp): "NAME->rgb(R,G,B)" lines.  Reading keeps the valid
 * entries; writing puts every entry used or read, sorted by name. */
int pprof_flame_palette_read(struct pprof_flame *f, const void *buf, size_t len);
int pprof_flame_palette_write(struct pprof_flame *f, FILE *out);

/* Writes the SVG.  PPROF_EINPUT when there is nothing to draw ("no stack
 * counts found"), PPROF_EUSAGE for bad options, PPROF_EIO on a write error.
 * Sorts and, with PPROF_FLAME_REVERSE, rewrites F's lines: write once. */
int pprof_flame_write_svg(struct pprof_flame *f, const struct pprof_flame_options *o,
			  FILE *out);
/* Stacks N SVGs written by pprof_flame_write_svg() (SVGS[i], LENS[i]
 * bytes) top to bottom in one SVG, each chart keeping its own zoom, search
 * and details (its URL keys numbered after the first).  PPROF_EINPUT when
 * one is not such an SVG, PPROF_EIO on a write error. */
int pprof_flame_stack_svgs(const char *const *svgs, const size_t *lens, size_t n, FILE *out);

/* ---- diff and top (diff.c, top.c, top_diff.c; labels: units.c) ---- */

/* Rewrites each run of "0x" and hex digits in the stacks of F to "0x..."
 * (difffolded.pl -s), then sorts and merges the lines again.  PPROF_ENOMEM,
 * or PPROF_EINPUT when a merged value leaves int64 (message on ERR). */
int pprof_folded_strip_hex(struct pprof_profile *err, struct pprof_folded *f);

/* pprof-diff: the stacks of AFTER that begin with a producer's spelling of
 * a thing (man/pprof-diff.1's synonyms: V8's "(garbage collector)",
 * @datadog/pprof's "Node.js;Garbage Collection") begin with BEFORE's
 * spelling instead, when each side uses only its own; AFTER is sorted and
 * merged again.  *NMATCHED: the lines rewritten.  PPROF_ENOMEM, or
 * PPROF_EINPUT when a merged value leaves int64 (message on ERR). */
int pprof_folded_synonyms(struct pprof_profile *err, const struct pprof_folded *before,
			  struct pprof_folded *after, size_t *nmatched);

/* pprof-diff --fold-vanished: before A and B are compared, each frame of
 * their stacks whose name is not in the other's stacks too is left out,
 * so that its value counts in its caller (what V8 inlining does to a
 * callee); a stack's root stays.  Both are sorted and merged again.
 * PPROF_ENOMEM, or PPROF_EINPUT when a merged value leaves int64 (message
 * on ERR). */
int pprof_folded_fold_vanished(struct pprof_profile *err, struct pprof_folded *a,
			       struct pprof_folded *b);

/* A diff of two folded profiles: one line per stack present in either,
 * bytewise sorted, "stack BEFORE AFTER" (difffolded.pl's output, 0 where
 * the stack is absent). */
struct pprof_diff_line {
	const char *stack; /* not NUL-terminated; points into the inputs */
	size_t len;
	int64_t before, after;
};
struct pprof_diff {
	struct pprof_diff_line *lines;
	size_t n;
	int64_t total_before;        /* BEFORE's total as read */
	int64_t total_after;         /* AFTER's total */
	int64_t total_before_scaled; /* the sum of the before column */
	int normalized;              /* the before column was scaled (-n) */
};
struct pprof_diff_options {
	/* Scale BEFORE to AFTER's total as difffolded.pl -n: each before value
	 * v becomes trunc(v * total_after / total_before), exact when the
	 * product fits in int64 and divides evenly, else in double precision
	 * (Perl's arithmetic).  Nothing changes when the totals are equal or
	 * BEFORE's is 0. */
	int normalize;
};
/* Builds the diff of BEFORE and AFTER (sorted folded lines, as pprof_fold()
 * makes them; they must outlive *OUT).  PPROF_ENOMEM (message on ERR). */
int pprof_diff_folded(struct pprof_profile *err, const struct pprof_folded *before,
		      const struct pprof_folded *after, const struct pprof_diff_options *o,
		      struct pprof_diff **out);
void pprof_diff_free(struct pprof_diff *d);
/* Writes "stack BEFORE AFTER" lines; PPROF_EIO (errno set) on a write error. */
int pprof_diff_write(const struct pprof_diff *d, FILE *out);
/* Before comparing sample type BI of BEFORE with type AI of AFTER: adds a
 * warning to AFTER (pprof_profile_warning()) when they are not the same
 * quantity (cpu and wall; a V8 profile's wall, the time between its
 * samples, and a pprof file's, its samples times the period), and, unless
 * IDLE_DROPPED, when one side has (idle) or (program) frames and the
 * other, from another producer, none (it leaves those samples out).  Each
 * warning once. */
void pprof_compare_warn(const struct pprof_profile *before, size_t bi,
			struct pprof_profile *after, size_t ai, int idle_dropped);

/* Output formats of the tables. */
enum pprof_table_format {
	PPROF_TABLE_TEXT = 0, /* aligned columns, values in a unit pprof would pick */
	PPROF_TABLE_TSV,      /* '#' lines of totals, a header line, raw integers */
	PPROF_TABLE_JSON,     /* one object */
};
/* The format named NAME ("text", "tsv", "json"), or -1. */
int pprof_table_format_parse(const char *name);

/* Value labels as go tool pprof prints them (measurement.ScaledLabel):
 * VALUE in FROM_UNIT (a sample type's unit: "nanoseconds", "bytes",
 * "count", ...) converted to TO_UNIT ("auto": the largest unit the value
 * reaches; "ms", "MB", ...), two decimals with ".00" dropped, and the unit
 * appended ("1.37s", "77.19MB", "42").  Writes at most SIZE bytes to BUF,
 * NUL included, and returns the length. */
size_t pprof_value_label(char *buf, size_t size, int64_t value, const char *from_unit,
			 const char *to_unit);
/* The one unit pprof's reports use for a table whose smallest non-zero
 * magnitude is MIN and whose total is MAX (report.selectOutputUnit): a
 * unit name, or FROM_UNIT in lower case when it has no scale (count).
 * Written to BUF (SIZE bytes, NUL included). */
void pprof_output_unit(char *buf, size_t size, int64_t min, int64_t max, const char *from_unit);

/* The flat/cum table of go tool pprof -top: one row per function (a frame
 * name at the chosen granularity).  flat: the value of the samples whose
 * leaf it is; cum: of the samples whose stack holds it, once per sample
 * even when it recurses. */
enum pprof_top_inline {
	PPROF_TOP_NOT_INLINED = 0,
	PPROF_TOP_INLINED,         /* every call to it was inlined: "(inline)" */
	PPROF_TOP_PARTLY_INLINED,  /* "(partial-inline)" */
};
/* A call between two rows of a tree (pprof -tree): the row at the other
 * end, the value of the samples through the call (once each), and whether
 * every such call was inlined ("(inline)"). */
struct pprof_top_call {
	size_t row;
	int64_t weight;
	int inlined;
};
struct pprof_top_row {
	const char *name; /* NUL-terminated, owned by the table */
	int64_t flat, cum;
	enum pprof_top_inline inlined;
	/* with pprof_top_options.tree: the callers and callees among the kept
	 * rows, sorted as pprof sorts them (by |weight|, then name); SHOWN: the
	 * row is printed (it matches pprof_top_options.peek, or no peek) */
	const struct pprof_top_call *callers, *callees;
	size_t ncallers, ncallees;
	int shown;
};
struct pprof_top {
	struct pprof_top_row *rows; /* sorted as pprof sorts them */
	size_t n;                   /* rows kept (the limit applied) */
	size_t nall;                /* rows with a non-zero flat or cum */
	int64_t total;              /* pprof's total: the sum of |value| over the
				     * samples, empty stacks included (only the
				     * pprof::base samples of a -diff_base profile) */
	int64_t flat_sum;           /* the kept rows' flat */
	const char *type, *unit;    /* the sample type's name and unit */
	const char **comments;      /* the profile's comments not starting with '#' */
	size_t ncomments;
	int64_t time_nanos, duration_nanos; /* 0 when unknown */
	/* pprof's sample filters applied to the profile ("focus=REGEX", ...,
	 * in pprof's order): then TOTAL is the total before them, as pprof's
	 * percentages are of all samples */
	const char **filters;
	size_t nfilters;
	const char *output_unit; /* pprof's -unit; NULL: the unit pprof picks */
	int tree;                /* printed as pprof -tree (text only) */
	/* private */
	char *buf;
	struct pprof_top_call *calls;
};
struct pprof_top_options {
	int sample_index; /* from pprof_sample_type_select() */
	enum pprof_granularity granularity;
	int cum;          /* sort by cum, not flat */
	size_t limit;     /* rows to keep; 0: all (pprof -nodecount) */
	unsigned threads; /* for the walk of a big profile's samples; 0: as
			   * many as the cores online (at most 8) */
	/* what pprof_filter_apply() reported (may be NULL): the table's
	 * total and its "Active filters:" legend */
	const struct pprof_filter_report *report;
	/* pprof's -tree: the rows with their callers and callees.  With PEEK
	 * (a PCRE2 regex, unanchored) pprof's -peek: only the rows whose name
	 * matches are shown, and every row is kept whatever LIMIT says;
	 * PPROF_EUSAGE for a bad regex, PPROF_EINPUT when no row matches. */
	int tree;
	const char *peek;
	/* the unit of the printed values, as pprof's -unit ("ms", "MB",
	 * "auto": each value's own); NULL or "minimum": the one pprof picks */
	const char *unit;
};
/* Builds the table of P into *OUT (freed with pprof_top_free()). */
int pprof_top(struct pprof_profile *p, const struct pprof_top_options *o,
	      struct pprof_top **out);
void pprof_top_free(struct pprof_top *t);
/* Writes the table: as go tool pprof -top prints it (its header lines but
 * File and Build ID, then flat, flat%, sum%, cum, cum%, name), or as TSV or
 * JSON with raw values; a tree as go tool pprof -tree or -peek prints it
 * (PPROF_EUSAGE in other formats than text).  Times are printed in the local time zone, as pprof
 * does.  PPROF_EIO (errno set) on a write error. */
int pprof_top_write(const struct pprof_top *t, enum pprof_table_format fmt, FILE *out);

/* pprof's -tags: for each label key of P's samples (by name), the total of
 * value SAMPLE_INDEX over the samples that carry it, then each of its
 * values (a number as a label in the key's unit) with its sum and share,
 * by |sum| then name, aligned as go tool pprof -tags prints them.  UNIT as
 * pprof_top_options.unit.  Settles deferred samples; PPROF_EIO (errno
 * set) on a write error. */
int pprof_tags_write(struct pprof_profile *p, int sample_index, const char *unit, FILE *out);

/* pprof's -list: for each function whose name matches REGEX (PCRE2,
 * unanchored), by name, and each of its source files, by name, its flat
 * and cum, then the file's lines from five before the first line with
 * samples to five after the last, each with its flat and cum ("." for
 * none), as go tool pprof -list prints them.  The files are read as pprof
 * finds them: an absolute path as it is, a relative one under SOURCE_PATH
 * (NULL: the current directory) or a directory above it, after pprof's
 * heuristic trim (the path after the search path's base name); a file a
 * source map names is its sourcesContent when the map has it. */
struct pprof_list_options {
	int sample_index;
	const char *regex;
	const char *source_path;
	const char *unit; /* as pprof_top_options.unit; NULL: each value in its own */
	const struct pprof_filter_report *report; /* may be NULL: the total */
	/* source map files (others are skipped) whose sourcesContent holds
	 * the text of a file their sources name; they and the maps the input
	 * carries come before the files on disk */
	const char *const *maps;
	size_t nmaps;
};
/* PPROF_EUSAGE for a bad regex, PPROF_EINPUT when no function matches,
 * PPROF_EIO (errno set) on a write error.  Settles deferred samples. */
int pprof_list_write(struct pprof_profile *p, const struct pprof_list_options *o, FILE *out);

/* The table of a diff by function: self (as flat) and total (as cum, once
 * per stack) before and after, for the functions where either changed. */
struct pprof_diff_row {
	const char *name; /* NUL-terminated, owned by the table */
	int64_t self_before, self_after, total_before, total_after;
};
struct pprof_diff_table {
	struct pprof_diff_row *rows; /* by |self delta| (or |total delta|), then
				      * name, as go tool pprof -top -diff_base */
	size_t n;
	/* private */
	char *buf;
};
/* Builds the table of D (frames are the ';'-separated names of its
 * stacks); CUM sorts by |total delta| first.  PPROF_ENOMEM, or PPROF_EINPUT
 * when a sum leaves int64 (message on ERR). */
int pprof_diff_table(struct pprof_profile *err, const struct pprof_diff *d, int cum,
		     struct pprof_diff_table **out);
void pprof_diff_table_free(struct pprof_diff_table *t);
/* What the table's header says. */
struct pprof_diff_info {
	const char *type, *unit;     /* the sample type */
	const char *before, *after;  /* the inputs' names */
	const char *output_unit;     /* the unit of printed values, as pprof's -unit;
				      * NULL or "minimum": the one pprof picks */
};
/* Writes the first LIMIT rows (0: all) with the totals and the
 * normalisation used; delta% is the delta as a percentage of the before
 * column's total.  PPROF_EIO (errno set) on a write error. */
int pprof_diff_table_write(const struct pprof_diff_table *t, const struct pprof_diff *d,
			   const struct pprof_diff_info *info, enum pprof_table_format fmt,
			   size_t limit, FILE *out);
/* The regression gate: whether the total, or some function's total, grew
 * by more than PCT percent of the before column's total (any growth when
 * that total is 0) and by at least MIN_DELTA (in the sample type's unit;
 * 0: any).  *WORST receives the row that grew most (NULL when no function
 * grew); *NOVER the number of functions over the threshold. */
int pprof_diff_regressed(const struct pprof_diff_table *t, const struct pprof_diff *d, double pct,
			 int64_t min_delta, const struct pprof_diff_row **worst, size_t *nover);

/* TEXT as a value in UNIT (a sample type's unit, "nanoseconds", "bytes"):
 * a decimal number, in UNIT itself, or followed by a unit of the same kind
 * as pprof names them ("5ms", "2.5s", "1MB"; "KiB", "MiB"... are the same
 * 1024-based units), rounded to an integer.  PPROF_EUSAGE when TEXT is not
 * one, or its unit is not of UNIT's kind. */
int pprof_value_parse(const char *text, const char *unit, int64_t *out);

#ifdef __cplusplus
}
#endif
#endif /* PPROF_H */
