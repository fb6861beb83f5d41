/* read_folded.c: folded stacks, "root;...;leaf COUNT" (FlameGraph's
 * stackcollapse output), and 3-column "stack BEFORE AFTER" lines (difffolded's
 * output), as read by flamegraph.pl and inferno. */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "pprof_private.h"

static bool is_space(unsigned char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

/* What parse_count() found: a count is a number; one that does not fit in
 * int64 is still a count (the line is not a frame name with a space), and
 * reading it is an error rather than a skipped line. */
enum { COUNT_NONE, COUNT_OK, COUNT_RANGE };

/* Parses a count: an optional sign, digits, an optional fraction.  *FRAC is
 * set when the count has a non-zero fraction; the value is rounded half away
 * from zero.  COUNT_NONE when it is not a number, COUNT_RANGE when it leaves
 * int64. */
static int parse_count(const char *s, size_t n, int64_t *out, bool *frac)
{
	size_t i = 0;
	bool neg = false;
	if (i < n && (s[i] == '-' || s[i] == '+'))
		neg = s[i++] == '-';
	if (i == n)
		return COUNT_NONE;
	uint64_t v = 0;
	size_t digits = 0;
	bool range = false; /* the syntax is still checked to its end */
	for (; i < n && s[i] >= '0' && s[i] <= '9'; i++, digits++) {
		if (v > (UINT64_MAX - 9) / 10)
			range = true;
		else
			v = v * 10 + (uint64_t)(s[i] - '0');
	}
	bool round_up = false;
	if (i < n && s[i] == '.') {
		i++;
		size_t fd = 0;
		for (; i < n && s[i] >= '0' && s[i] <= '9'; i++, fd++) {
			if (s[i] != '0')
				*frac = true;
			if (fd == 0)
				round_up = s[i] >= '5';
		}
		if (fd == 0 && digits == 0)
			return COUNT_NONE;
	} else if (digits == 0) {
		return COUNT_NONE;
	}
	if (i != n)
		return COUNT_NONE;
	if (range)
		return COUNT_RANGE;
	if (round_up)
		v++;
	if (neg) {
		if (v > (uint64_t)INT64_MAX + 1)
			return COUNT_RANGE;
		*out = v == (uint64_t)INT64_MAX + 1 ? INT64_MIN : -(int64_t)v;
	} else {
		if (v > INT64_MAX)
			return COUNT_RANGE;
		*out = (int64_t)v;
	}
	return COUNT_OK;
}

/* The last whitespace-separated field of [s, e): its start, or NULL. */
static const char *last_field(const char *s, const char *e, const char **fend)
{
	while (e > s && is_space((unsigned char)e[-1]))
		e--;
	*fend = e;
	const char *b = e;
	while (b > s && !is_space((unsigned char)b[-1]))
		b--;
	return b < e ? b : NULL;
}

static size_t skip_bom(const unsigned char *buf, size_t len)
{
	return len >= 3 && buf[0] == 0xef && buf[1] == 0xbb && buf[2] == 0xbf ? 3 : 0;
}

/* -1 when the bytes end before the bid is decided (no count yet, and the
 * last line unfinished or fewer than 64 lines): for a whole input that is a
 * no, for the start of a pipe it means "read more". */
static int bid_folded(const unsigned char *buf, size_t len)
{
	size_t pos = skip_bom(buf, len);
	/* Text whose first lines include a stack with a count; comment and
	 * invalid lines may come before it, as in real files.  A deep stack
	 * makes a long line, so lines are read whole. */
	int lines;
	for (lines = 0; pos < len && lines < 64; lines++) {
		const unsigned char *nl = memchr(buf + pos, '\n', len - pos);
		size_t end = nl ? (size_t)(nl - buf) : len;
		const char *s = (const char *)buf + pos, *e = (const char *)buf + end;
		const char *t = s;
		while (t < e && is_space((unsigned char)*t))
			t++;
		/* JSON is told apart before the long scan of its one line. */
		if (lines == 0 && t < e && (*t == '{' || *t == '['))
			return 0;
		for (const char *c = s; c < e; c++)
			if ((unsigned char)*c < 0x20 && !is_space((unsigned char)*c))
				return 0;
		const char *fend;
		const char *f = t < e ? last_field(t, e, &fend) : NULL;
		int64_t v;
		bool frac = false;
		if (f && f != t && *t != '#' &&
		    parse_count(f, (size_t)(fend - f), &v, &frac) != COUNT_NONE)
			return 20;
		if (!nl)
			return -1;
		pos = end + 1;
	}
	return lines < 64 ? -1 : 0;
}

/* Splits a stack into frames and walks the tree; consecutive lines of a
 * sorted file share their prefix, so the walk restarts where they differ. */
struct walker {
	uint32_t *nodes; /* node at each depth of the previous line */
	size_t *ends;    /* end offset of the frame at each depth, in prev */
	size_t depth, cap;
	const char *prev;
	size_t prevlen;
};

static int walk(struct pprof_profile *p, struct walker *w, const char *s, size_t n,
		uint32_t *leaf)
{
	/* How many whole frames the line shares with the previous one. */
	size_t keep = 0;
	size_t m = n < w->prevlen ? n : w->prevlen;
	size_t same = 0;
	while (same < m && s[same] == w->prev[same])
		same++;
	while (keep < w->depth) {
		size_t e = w->ends[keep];
		if (e > same || !(e == n || s[e] == ';') || !(e == w->prevlen || w->prev[e] == ';'))
			break;
		keep++;
	}
	uint32_t node = keep ? w->nodes[keep - 1] : 0;
	size_t pos = keep ? w->ends[keep - 1] + 1 : 0;
	size_t depth = keep;
	while (pos <= n) {
		const char *semi = memchr(s + pos, ';', n - pos);
		size_t e = semi ? (size_t)(semi - s) : n;
		if (e > pos) { /* empty frames (";;") are skipped, as flamegraph.pl draws none */
			struct pp_frame f;
			memset(&f, 0, sizeof(f));
			int st = pp_intern(p, s + pos, e - pos, &f.name);
			uint32_t fid;
			if (st == PPROF_OK)
				st = pp_frame_intern(p, &f, &fid);
			if (st == PPROF_OK)
				st = pp_node_child(p, node, fid, &node);
			if (st != PPROF_OK)
				return st;
			if (depth == w->cap) {
				size_t cap = w->cap ? w->cap * 2 : 64;
				uint32_t *nn = realloc(w->nodes, cap * sizeof(*nn));
				if (nn)
					w->nodes = nn;
				size_t *ne = realloc(w->ends, cap * sizeof(*ne));
				if (ne)
					w->ends = ne;
				if (!nn || !ne)
					return pp_nomem(p);
				w->cap = cap;
			}
			w->nodes[depth] = node;
			w->ends[depth] = e;
			depth++;
		}
		pos = e + 1;
	}
	w->depth = depth;
	w->prev = s;
	w->prevlen = n;
	*leaf = node;
	return PPROF_OK;
}

static int read_folded(struct pprof_profile *p, const unsigned char *buf, size_t len,
		       const struct pprof_read_options *o)
{
	size_t pos = skip_bom(buf, len);
	int ncols = 0;
	size_t lineno = 0, invalid = 0, first_invalid = 0;
	bool frac = false;
	int status = PPROF_OK;
	struct walker w = {0};
	while (pos < len) {
		const unsigned char *nl = memchr(buf + pos, '\n', len - pos);
		size_t end = nl ? (size_t)(nl - buf) : len;
		const char *s = (const char *)buf + pos, *e = (const char *)buf + end;
		size_t lineoff = pos;
		pos = end + 1;
		lineno++;
		while (s < e && is_space((unsigned char)*s))
			s++;
		if (s == e || (*s == '#' && (s + 1 == e || s[1] == ' ' || s[1] == '#')))
			continue;
		const char *fend;
		const char *f = last_field(s, e, &fend);
		int64_t vals[2];
		bool fr = false;
		int c = f && f != s ? parse_count(f, (size_t)(fend - f), &vals[1], &fr) : COUNT_NONE;
		if (c == COUNT_NONE) {
			if (!invalid++)
				first_invalid = lineno;
			continue;
		}
		if (c == COUNT_RANGE) {
			status = pp_error_at(p, PPROF_EINPUT, (size_t)((const unsigned char *)f - buf),
					     "line %zu: count leaves the 64-bit range", lineno);
			goto out;
		}
		/* A second count before it makes a 3-column line. */
		const char *send = f;
		while (send > s && is_space((unsigned char)send[-1]))
			send--;
		const char *f2end;
		const char *f2 = last_field(s, send, &f2end);
		int cols = 2;
		bool fr2 = false;
		c = f2 && f2 != s ? parse_count(f2, (size_t)(f2end - f2), &vals[0], &fr2) : COUNT_NONE;
		if (c == COUNT_RANGE) {
			status = pp_error_at(p, PPROF_EINPUT, (size_t)((const unsigned char *)f2 - buf),
					     "line %zu: count leaves the 64-bit range", lineno);
			goto out;
		}
		if (c == COUNT_OK) {
			cols = 3;
			fr |= fr2;
			send = f2;
			while (send > s && is_space((unsigned char)send[-1]))
				send--;
		}
		if (ncols == 0) {
			ncols = cols;
			struct pp_sample_type t[2];
			if (cols == 2) {
				if ((status = pp_intern_cstr(p, "samples", &t[0].type)) ||
				    (status = pp_intern_cstr(p, "count", &t[0].unit)))
					goto out;
			} else {
				if ((status = pp_intern_cstr(p, "before", &t[0].type)) ||
				    (status = pp_intern_cstr(p, "count", &t[0].unit)) ||
				    (status = pp_intern_cstr(p, "after", &t[1].type)))
					goto out;
				t[1].unit = t[0].unit;
			}
			status = pp_begin_input(p, t, (uint32_t)cols - 1, -1);
			if (status != PPROF_OK)
				goto out;
		} else if (cols != ncols) {
			status = pp_error_at(p, PPROF_EINPUT, lineoff,
					     "line %zu: %d columns where earlier lines have %d", lineno,
					     cols, ncols);
			goto out;
		}
		frac |= fr;
		uint32_t leaf = 0;
		status = walk(p, &w, s, (size_t)(send - s), &leaf);
		if (status != PPROF_OK)
			goto out;
		if (leaf == 0)
			continue; /* an empty stack */
		status = pp_add_sample(p, leaf, 0, cols == 2 ? &vals[1] : vals, lineoff);
		if (status != PPROF_OK)
			goto out;
	}
	if (ncols == 0) {
		status = pp_error_at(p, PPROF_EINPUT, 0, "no folded stacks in the input");
		goto out;
	}
	if (invalid)
		pp_warn(p, "%zu line%s without a count skipped (the first is line %zu)", invalid,
			invalid == 1 ? "" : "s", first_invalid);
	if (frac)
		pp_warn(p, "fractional counts rounded half away from zero");
out:
	free(w.nodes);
	free(w.ends);
	(void)o;
	return status;
}

const struct pp_reader pp_reader_folded = {
	.format = PPROF_FMT_FOLDED,
	.name = "folded",
	.bid = bid_folded,
	.read = read_folded,
};
