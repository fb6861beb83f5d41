/*
 * flame_private.h: what the four files of the flame graph share.
 *
 * SVG flame graphs with flamegraph.pl's geometry.  The input is folded
 * lines, "stack VALUE" or "stack BEFORE AFTER", read the way flamegraph.pl
 * reads them (the last field is a decimal number, fractions kept; a second
 * number before it makes a differential line), or made from a profile
 * (flame.c).  Lines are sorted as whole lines, adjacent equal prefixes
 * merged, and frames narrower than minwidth left out (flame_layout.c): the
 * same frames, x, widths, depths, labels and tooltips as flamegraph.pl,
 * except that two frames of one name ending at the same place at the same
 * depth are both kept (flamegraph.pl keys its frames by name, depth and
 * end, and loses the first when a zero-width one closes there too).
 * flame_color.c colours the frames, flame_svg.c writes them.
 */
#ifndef FLAME_PRIVATE_H
#define FLAME_PRIVATE_H

#ifndef PPROF_INTERNAL
#error "flame_private.h is private to libpprof"
#endif

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "folded_private.h"

/* ---- small helpers ---- */

static inline double fl_nan(void)
{
	return __builtin_nan("");
}

static inline bool fl_isnan(double d)
{
	return d != d;
}

static inline double fl_fabs(double d)
{
	return d < 0 ? -d : d;
}

/* Floor of a double.  Past 2^53 every double is an integer, and the cast
 * below would be undefined past int64 (a count of 1e38 reached it). */
static inline double fl_floor(double d)
{
	if (!(d > -9e15 && d < 9e15)) /* NaN too */
		return d;
	double t = (double)(int64_t)d;
	return t > d ? t - 1 : t;
}

/* ---- the flame object ---- */

struct fl_buffer {
	char *p;
	size_t len;
	bool mapped;
};

/* A folded line is read_folded.c's struct pp_fline: KEY is what the lines
 * are sorted on (the line as read, or made from a profile, or its reversed
 * form); the stack is KEY[0, STACKLEN).  BEFORE is NaN for a 2-column
 * line.  The lines of a profile's folded input are its own array, borrowed
 * (pprof_flame.borrowed) until something changes them. */
#define FL_MODEL_BIT 0x80000000u /* in stacklen: made from a profile, not read */

/* Name classes of the "ts" palette. */
enum fl_class {
	FL_CLASS_NONE = 0,
	FL_CLASS_ENGINE, /* (program), (garbage collector), (idle), (root) */
	FL_CLASS_RUNTIME, /* native and runtime frames: no script, node:, internal/ */
	FL_CLASS_DEPENDENCY, /* node_modules, or a source map's ignore list */
	FL_CLASS_USER,
};

/* A string map (open addressing) for palette.map entries and name classes. */
struct fl_map_entry {
	char *key;
	size_t keylen;
	char *val; /* palette: the colour; classes: NULL */
	int cls;
	uint64_t hash;
};
struct fl_map {
	struct fl_map_entry *e;
	size_t n, cap;
	uint64_t seed; /* set with the first entry (see fl_hash) */
};

struct pprof_flame {
	struct fl_buffer *bufs;
	size_t nbufs, capbufs;
	struct pp_fline *lines;
	size_t nlines, caplines;
	bool borrowed; /* LINES are a profile's: not ours to change or free */
	size_t ignored; /* lines not in the folded format */
	struct pp_flines **flines; /* read by pprof_flame_add_text() */
	size_t nflines, capflines;
	bool timeline;  /* lines are in time order (from a profile's samples) */
	/* a timeline's first drawn sample, in nanoseconds from the capture's
	 * start (its axis and the frames' starts count from there) */
	double time0;
	bool have_time0;
	struct fl_map palette;
	struct fl_map classes;
	char err[512];
};

int fl_error(struct pprof_flame *f, int status, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
int fl_nomem(struct pprof_flame *f);
/* Makes F's lines its own (a copy of borrowed ones), before they change. */
int fl_own_lines(struct pprof_flame *f);
/* Takes ownership of P (malloc'd, or mmapped when MAPPED). */
int fl_keep(struct pprof_flame *f, char *p, size_t len, bool mapped);
struct fl_map_entry *fl_map_find(const struct fl_map *m, const char *k, size_t n);
/* The entry for K, added (with no value) when missing; NULL when out of memory. */
struct fl_map_entry *fl_map_get(struct fl_map *m, const char *k, size_t n);

/* ---- layout (flame_layout.c) ---- */

/* A drawn frame. */
struct fl_node {
	const char *name;
	uint32_t len;
	uint32_t depth;
	double start, end;
	double delta;    /* of the line that opened it (flamegraph.pl), NaN if none */
	double incl;     /* inclusive delta: every line through it */
	double ib, ia;   /* inclusive before and after (ib 0 without a before column) */
	double sb, sa;   /* self before and after: the lines that end at it */
	double other;    /* width of its callees too narrow to draw */
	uint32_t kid0, nkids; /* callees in the kids array (relayout only) */
};

struct fl_open;

struct fl_layout {
	struct fl_node *nodes;
	size_t n, cap;
	struct fl_open *open;
	size_t nopen, capopen;
	double minwidth_time;
	bool keep_other;
	double time, dsum, bsum, asum;
	const char *prev; /* the stack of the previous line */
	size_t prevlen;
};

/* The name of the frames that stand for callees too narrow to draw. */
extern const char fl_other_name[];

/* Whether lines are sorted bytewise on their key, as Perl's sort does. */
bool fl_lines_sorted(const struct pp_fline *lines, size_t n);
/* Sorts lines that are not (fl_lines_sorted()); false when out of memory. */
bool fl_sort_lines(struct pp_fline *lines, size_t n);
/* Rewrites every line as flamegraph.pl does for --reverse. */
int fl_reverse(struct pprof_flame *f);
/* Merges one line into the open frames: BEFORE NaN for a 2-column line. */
bool fl_flow(struct fl_layout *L, const char *stack, size_t stacklen, double before,
	     double after, double width);
/* Closes the open frames above depth KEEP at the current time. */
bool fl_close(struct fl_layout *L, size_t keep);
/* Packs callees from their caller's start: by width (BY_WIDTH), with an
 * "(other)" frame for those too narrow to draw (OTHERS). */
bool fl_relayout(struct fl_layout *L, bool by_width, bool others);

/* ---- colours (flame_color.c) ---- */

struct fl_rgb {
	int r, g, b;
};

struct fl_colorer {
	enum pprof_flame_palette palette;
	bool hash, random;
	uint64_t rstate;
	const struct fl_map *classes;
	uint32_t *cp;
	size_t capcp;
};

bool fl_engine_name(const char *s, size_t n);
/* A colour as flamegraph.pl writes them, "rgb(R,G,B)", or "#rrggbb". */
bool fl_colour_ok(const char *s, size_t n);
/* A seed for --random from the clock. */
uint64_t fl_clock_seed(void);
/* The colour of a frame of name [NAME, NAME+N) in C's palette. */
struct fl_rgb fl_color(struct fl_colorer *c, const char *name, size_t n);
/* Differential colour: red for more, blue for less, white for none. */
struct fl_rgb fl_color_scale(double value, double max, bool negate);
/* The background gradient's two colours for NAME (or PAL's default when
 * NAME is NULL or empty): the first returned, the second in *C2; NULL when
 * NAME is no colour. */
const char *fl_bg(const char *name, enum pprof_flame_palette pal, const char **c2);

/* ---- names (flame_svg.c) ---- */

/* Decodes one character at S[*I]; an invalid byte is consumed alone and
 * returns -1. */
int32_t fl_utf8(const unsigned char *s, size_t n, size_t *i);

#endif /* FLAME_PRIVATE_H */
