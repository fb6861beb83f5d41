/* read_folded.c: folded stacks, "root;...;leaf COUNT" (FlameGraph's
 * stackcollapse output), and 3-column "stack BEFORE AFTER" lines (difffolded's
 * output), as read by flamegraph.pl and inferno: the one parser of folded
 * text.  Lines point into the input; the first folded input of a profile
 * keeps them out of the tree until something needs it (folded_private.h),
 * so that folding and drawing them costs no more than reading them. */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "folded_private.h"
#include "json.h"

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

/* parse_count() for the usual count, up to 18 digits and nothing else,
 * without the sign, fraction and range checks. */
static inline int parse_count_fast(const char *s, size_t n, int64_t *out, bool *frac)
{
	if (n - 1 < 18) {
		uint64_t v = 0;
		size_t i = 0;
		for (; i < n && (unsigned char)(s[i] - '0') <= 9; i++)
			v = v * 10 + (uint64_t)(s[i] - '0');
		if (i == n) {
			*out = (int64_t)v;
			return COUNT_OK;
		}
	}
	return parse_count(s, n, out, frac);
}

/* The last whitespace-separated field of [s, e): its start, or NULL. */
static inline const char *last_field(const char *s, const char *e, const char **fend)
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

/* How much of a first line that starts like JSON is parsed as JSON. */
#define FOLDED_JSON_LOOK ((size_t)64 << 10)

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
	{
		/* JSON is told apart by parsing, before the end of its first
		 * line is looked for (a JSON profile is often one line of
		 * megabytes): a JSON text (or its start, or one that breaks
		 * after its first line) is a JSON reader's; "[unknown];foo 1"
		 * and "[kernel.kallsyms];..." are not JSON and are read on. */
		const unsigned char *t = buf + pos, *e = buf + len;
		while (t < e && *t != '\n' && is_space(*t))
			t++;
		size_t erroff = 0, jn = (size_t)(e - t);
		if (t < e && (*t == '{' || *t == '[')) {
			if (json_is_prefix(t, jn < FOLDED_JSON_LOOK ? jn : FOLDED_JSON_LOOK,
					   &erroff))
				return 0;
			const unsigned char *nl = memchr(t, '\n', jn);
			if (erroff >= (size_t)((nl ? nl : e) - t))
				return 0;
		}
	}
	for (lines = 0; pos < len && lines < 64; lines++) {
		const unsigned char *nl = memchr(buf + pos, '\n', len - pos);
		size_t end = nl ? (size_t)(nl - buf) : len;
		const char *s = (const char *)buf + pos, *e = (const char *)buf + end;
		const char *t = s;
		while (t < e && is_space((unsigned char)*t))
			t++;
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

/* ---- flamegraph.pl's grammar (pprof_read_options.folded_flamegraph) ---- */

static bool fg_space(unsigned char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

static bool fg_digit(unsigned char c)
{
	return c >= '0' && c <= '9';
}

/* The length of the white space character that ends at S[I] (exclusive),
 * or 0: flamegraph.pl reads its input as UTF-8, so Perl's \s also matches
 * U+0085, U+00A0, U+1680, U+2000-U+200A, U+2028, U+2029, U+202F, U+205F
 * and U+3000. */
static size_t fg_space_before(const char *str, size_t i)
{
	const unsigned char *s = (const unsigned char *)str;
	if (i >= 1 && fg_space(s[i - 1]))
		return 1;
	if (i >= 2 && s[i - 2] == 0xc2 && (s[i - 1] == 0x85 || s[i - 1] == 0xa0))
		return 2;
	if (i < 3)
		return 0;
	unsigned a = s[i - 3], b = s[i - 2], c = s[i - 1];
	if ((a == 0xe1 && b == 0x9a && c == 0x80) ||
	    (a == 0xe2 && b == 0x80 && ((c >= 0x80 && c <= 0x8a) || c == 0xa8 || c == 0xa9 || c == 0xaf)) ||
	    (a == 0xe2 && b == 0x81 && c == 0x9f) || (a == 0xe3 && b == 0x80 && c == 0x80))
		return 3;
	return 0;
}

/* A number as flamegraph.pl takes it: \d+(\.\d*)? */
static bool fg_number(const char *s, size_t n)
{
	size_t i = 0;
	while (i < n && fg_digit((unsigned char)s[i]))
		i++;
	if (i == 0)
		return false;
	if (i < n && s[i] == '.') {
		i++;
		while (i < n && fg_digit((unsigned char)s[i]))
			i++;
	}
	return i == n;
}

double pp_fg_strtod(const char *s, size_t n)
{
	/* Short integers, the common case, without strtod. */
	if (n <= 15) {
		uint64_t v = 0;
		size_t i = 0;
		while (i < n && fg_digit((unsigned char)s[i]))
			v = v * 10 + (uint64_t)(s[i++] - '0');
		if (i == n)
			return (double)v;
	}
	char tmp[64];
	if (n < sizeof(tmp)) {
		memcpy(tmp, s, n);
		tmp[n] = '\0';
		return strtod(tmp, NULL);
	}
	char *big = malloc(n + 1);
	if (!big)
		return __builtin_nan("");
	memcpy(big, s, n);
	big[n] = '\0';
	double d = strtod(big, NULL);
	free(big);
	return d;
}

/* Splits off "WS NUMBER" at the end of [s, s+n) as flamegraph.pl's
 * /^(.*)\s+?(\d+(?:\.\d*)?)$/ does: the number after the last whitespace,
 * the stack before that one whitespace character. */
static bool fg_split_number(const char *s, size_t n, size_t *stacklen, size_t *numpos)
{
	/* Only digits and dots can follow the last whitespace of a match, so
	 * the scan stops at the first other character. */
	size_t i = n;
	while (i > 0 && (fg_digit((unsigned char)s[i - 1]) || s[i - 1] == '.'))
		i--;
	size_t ws = fg_space_before(s, i);
	if (ws == 0 || !fg_number(s + i, n - i))
		return false;
	*numpos = i;
	*stacklen = i - ws;
	return true;
}

bool pp_fg_parse_line(const char *s, size_t n, struct pp_fg_parsed *r)
{
	size_t stacklen, pos;
	if (!fg_split_number(s, n, &stacklen, &pos))
		return false;
	r->num2 = pos;
	r->num2len = n - pos;
	r->diff = false;
	size_t stack2, pos2;
	if (fg_split_number(s, stacklen, &stack2, &pos2)) {
		r->diff = true;
		r->num1 = pos2;
		r->num1len = stacklen - pos2;
		stacklen = stack2;
	}
	r->stacklen = stacklen;
	return true;
}

/* Digits after the point of a count. */
static unsigned fg_fraction_digits(const char *s, size_t n)
{
	const char *dot = memchr(s, '.', n);
	return dot ? (unsigned)(n - (size_t)(dot - s) - 1) : 0;
}

/* ---- splitting lines ---- */

/* Bytes of X equal to C, as the high bit of each byte (exact, no carries
 * between bytes). */
static inline uint64_t eq_bytes(uint64_t x, uint64_t c)
{
	const uint64_t lo7 = 0x7f7f7f7f7f7f7f7full;
	uint64_t t = x ^ (c * 0x0101010101010101ull);
	return ~(((t & lo7) + lo7) | t | lo7);
}

/* Whether a stack has neither an empty frame (";;") nor a CR, which the
 * tree would change.  Lines are long: 16 or 8 bytes at a time. */
static bool clean_stack(const char *s, size_t n)
{
	bool prev = false; /* the byte before the block was ';' */
	size_t i = 0;
#ifdef __SSE2__
	const __m128i semi = _mm_set1_epi8(';'), cr = _mm_set1_epi8('\r');
	for (; i + 16 <= n; i += 16) {
		__m128i w = _mm_loadu_si128((const __m128i *)(const void *)(s + i));
		unsigned ms = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(w, semi));
		unsigned mc = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(w, cr));
		if (mc || (ms & ((ms << 1) | (prev ? 1u : 0u))))
			return false;
		prev = ms >> 15;
	}
#endif
	for (; i + 8 <= n; i += 8) {
		uint64_t w;
		memcpy(&w, s + i, 8);
		uint64_t m = eq_bytes(w, ';');
		/* adjacent bytes of the word, in either byte order */
		if (eq_bytes(w, '\r') || (m & (m << 8)) || (prev && s[i] == ';'))
			return false;
		prev = s[i + 7] == ';';
	}
	for (; i < n; i++) {
		if (s[i] == '\r' || (s[i] == ';' && prev))
			return false;
		prev = s[i] == ';';
	}
	return true;
}

/* The end of the line that starts at S (its '\n', or E), and in *BAD the
 * first CR or second ';' of a ";;" before it (E when none): the newline
 * search and clean_stack() in one pass over bytes that come from memory,
 * not from the cache. */
static const char *scan_line(const char *s, const char *e, const char **bad)
{
	const char *p = s;
	bool prev = false; /* the byte before P was ';' */
	*bad = e;
#ifdef __SSE2__
	const __m128i nl = _mm_set1_epi8('\n'), semi = _mm_set1_epi8(';'),
		      cr = _mm_set1_epi8('\r');
	for (; e - p >= 16; p += 16) {
		__m128i w = _mm_loadu_si128((const __m128i *)(const void *)p);
		unsigned mn = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(w, nl));
		unsigned ms = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(w, semi));
		unsigned mc = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(w, cr));
		unsigned mb = mc | (ms & ((ms << 1) | (prev ? 1u : 0u)));
		if (mn)
			mb &= (mn & -mn) - 1; /* before the newline */
		if (mb && *bad == e)
			*bad = p + __builtin_ctz(mb);
		if (mn)
			return p + __builtin_ctz(mn);
		prev = ms >> 15;
	}
#endif
	for (; p < e; p++) {
		if (*p == '\n')
			return p;
		if (*bad == e && (*p == '\r' || (*p == ';' && prev)))
			*bad = p;
		prev = *p == ';';
	}
	return e;
}

/* ---- sorted folded lines ---- */

static int stack_cmp(const char *a, size_t an, const char *b, size_t bn)
{
	int c = memcmp(a, b, an < bn ? an : bn);
	if (c)
		return c;
	return an < bn ? -1 : an > bn;
}

int pp_folded_line_cmp(const void *pa, const void *pb)
{
	const struct pprof_folded_line *a = pa, *b = pb;
	return stack_cmp(a->stack, a->len, b->stack, b->len);
}

bool pp_folded_sort_merge(struct pprof_folded_line *l, size_t *np, int64_t *total, int order)
{
	size_t n = *np;
	bool sorted = order != 0;
	for (size_t i = 1; i < n && order < 0 && sorted; i++)
		sorted = pp_folded_line_cmp(&l[i - 1], &l[i]) <= 0;
	if (!sorted)
		qsort(l, n, sizeof(*l), pp_folded_line_cmp);
	size_t j = 0;
	for (size_t i = 0; i < n; i++) {
		if (j && l[j - 1].len == l[i].len && memcmp(l[j - 1].stack, l[i].stack, l[i].len) == 0) {
			if (__builtin_add_overflow(l[j - 1].value, l[i].value, &l[j - 1].value))
				return false;
		} else {
			l[j++] = l[i];
		}
	}
	int64_t t = 0;
	size_t k = 0;
	for (size_t i = 0; i < j; i++) {
		if (l[i].value == 0)
			continue;
		if (__builtin_add_overflow(t, l[i].value, &t))
			return false;
		l[k++] = l[i];
	}
	*np = k;
	*total = t;
	return true;
}

int pp_folded_adopt(struct pprof_profile *err, struct pprof_folded *f, char *buf, size_t len)
{
	f->buf = buf;
	f->buflen = len;
	int64_t total;
	if (!pp_folded_sort_merge(f->lines, &f->n, &total, -1))
		return pp_error(err, PPROF_EINPUT, "sum of values leaves the 64-bit range");
	f->total = total;
	return PPROF_OK;
}

/* ---- reading the lines ---- */

/* What the integer reader learns of its lines on the way, for
 * pp_flines_fold(): whether they come sorted, and the sums per column. */
struct int_stats {
	bool strict, nondecr; /* stacks strictly increasing; never decreasing */
	bool zero[2], ovf[2];
	int64_t sum[2];
};

struct pp_flines_priv {
	struct pp_flines f; /* first */
	struct int_stats st;
};

static inline int push_line(struct pprof_profile *p, struct pp_flines *f, const struct pp_fline *l)
{
	if (__builtin_expect(f->n == f->cap, 0) &&
	    !pp_grow((void **)&f->l, &f->cap, f->n + 1, sizeof(*f->l)))
		return pp_nomem(p);
	f->l[f->n++] = *l;
	return PPROF_OK;
}

/* Whether C can be part of a count: parse_count() takes nothing else. */
static inline bool count_char(unsigned char c)
{
	return (unsigned char)(c - '0') <= 9 || c == '.' || c == '-' || c == '+';
}

static int begin_types(struct pprof_profile *p, int cols)
{
	struct pp_sample_type t[2];
	int status;
	if (cols == 2) {
		if ((status = pp_intern_cstr(p, "samples", &t[0].type)) ||
		    (status = pp_intern_cstr(p, "count", &t[0].unit)))
			return status;
	} else {
		if ((status = pp_intern_cstr(p, "before", &t[0].type)) ||
		    (status = pp_intern_cstr(p, "count", &t[0].unit)) ||
		    (status = pp_intern_cstr(p, "after", &t[1].type)))
			return status;
		t[1].unit = t[0].unit;
	}
	return pp_begin_input(p, t, (uint32_t)cols - 1, -1);
}

#define LINE_MAX_LEN 0x7fffffffu

/* The lines as pprof reads them: white space trimmed, "#" comments, a sign
 * allowed, fractions rounded half away from zero (with a warning), two or
 * three columns but not both, lines without a count skipped (with a
 * warning). */
static int read_int_lines(struct pprof_profile *p, struct pp_flines_priv *fp,
			  const unsigned char *buf, size_t len)
{
	struct pp_flines *fl = &fp->f;
	struct int_stats *st = &fp->st;
	const char *base = (const char *)buf;
	size_t pos = skip_bom(buf, len);
	size_t lineno = 0, invalid = 0, first_invalid = 0;
	bool frac = false;
	int status;
	*st = (struct int_stats){.strict = true, .nondecr = true};
	fl->clean = true;
	while (pos < len) {
		const char *s = base + pos, *bad;
		const char *e = scan_line(s, base + len, &bad);
		size_t lineoff = pos;
		pos = (size_t)(e - base) + 1;
		lineno++;
		while (s < e && is_space((unsigned char)*s))
			s++;
		if (s == e || (*s == '#' && (s + 1 == e || s[1] == ' ' || s[1] == '#')))
			continue;
		const char *fend;
		const char *f = last_field(s, e, &fend);
		int64_t vals[2] = {0, 0};
		bool fr = false;
		int c = f && f != s ? parse_count_fast(f, (size_t)(fend - f), &vals[1], &fr) : COUNT_NONE;
		if (c == COUNT_NONE) {
			if (!invalid++)
				first_invalid = lineno;
			continue;
		}
		if (c == COUNT_RANGE)
			return pp_error_at(p, PPROF_EINPUT, (size_t)((const unsigned char *)f - buf),
					   "line %zu: count leaves the 64-bit range", lineno);
		/* A second count before it makes a 3-column line. */
		const char *send = f;
		while (send > s && is_space((unsigned char)send[-1]))
			send--;
		/* The field before it is a count only if every byte of it can
		 * be part of one: the scan stops at the first that can't (in
		 * the leaf's name, usually) instead of at the field's start. */
		const char *f2 = send;
		while (f2 > s && count_char((unsigned char)f2[-1]))
			f2--;
		int cols = 2;
		bool fr2 = false;
		c = f2 > s && is_space((unsigned char)f2[-1]) && f2 < send
			    ? parse_count_fast(f2, (size_t)(send - f2), &vals[0], &fr2)
			    : COUNT_NONE;
		if (c == COUNT_RANGE)
			return pp_error_at(p, PPROF_EINPUT, (size_t)((const unsigned char *)f2 - buf),
					   "line %zu: count leaves the 64-bit range", lineno);
		if (c == COUNT_OK) {
			cols = 3;
			fr |= fr2;
			send = f2;
			while (send > s && is_space((unsigned char)send[-1]))
				send--;
		}
		if (fl->ncols == 0) {
			fl->ncols = cols;
			if ((status = begin_types(p, cols)) != PPROF_OK)
				return status;
		} else if (cols != fl->ncols) {
			return pp_error_at(p, PPROF_EINPUT, lineoff,
					   "line %zu: %d columns where earlier lines have %d", lineno,
					   cols, fl->ncols);
		}
		frac |= fr;
		size_t sl = (size_t)(send - s);
		if (sl > LINE_MAX_LEN)
			return pp_error_at(p, PPROF_ENOMEM, lineoff, "folded line longer than 2 GiB");
		/* A CR before S was white space: look again after it. */
		if (fl->clean && (*s == ';' || send[-1] == ';' ||
				  (bad < send && (bad >= s || !clean_stack(s, sl)))))
			fl->clean = false;
		struct pp_fline l = {.key = s, .keylen = (uint32_t)sl, .stacklen = (uint32_t)sl};
		l.v[0] = vals[0];
		l.v[1] = vals[1];
		if (fl->n && st->nondecr) {
			/* compared while both lines are in the cache */
			const struct pp_fline *q = &fl->l[fl->n - 1];
			int cmp = stack_cmp(q->key, q->stacklen, s, sl);
			st->nondecr = cmp <= 0;
			st->strict = st->strict && cmp < 0;
		}
		for (int k = 0; k < 2; k++) {
			st->zero[k] |= l.v[k] == 0;
			st->ovf[k] |= __builtin_add_overflow(st->sum[k], l.v[k], &st->sum[k]);
		}
		if ((status = push_line(p, fl, &l)) != PPROF_OK)
			return status;
	}
	if (fl->ncols == 0)
		return pp_error_at(p, PPROF_EINPUT, 0, "no folded stacks in the input");
	if (invalid)
		pp_warn(p, "%zu line%s without a count skipped (the first is line %zu)", invalid,
			invalid == 1 ? "" : "s", first_invalid);
	if (frac)
		pp_warn(p, "fractional counts rounded half away from zero");
	return PPROF_OK;
}

/* The lines as flamegraph.pl reads them: the stack is what comes before
 * the one white space character before the count, counts are unsigned
 * decimals kept as written, "# " comments and blank lines skipped, other
 * lines counted as ignored; a 3-column line is differential. */
static int read_fg_lines(struct pprof_profile *p, struct pp_flines *fl,
			 const unsigned char *buf, size_t len)
{
	const char *base = (const char *)buf;
	size_t pos = skip_bom(buf, len);
	bool diff = false;
	while (pos < len) {
		const char *s = base + pos;
		const char *nl = memchr(s, '\n', len - pos);
		size_t n = nl ? (size_t)(nl - s) : len - pos;
		size_t lineoff = pos;
		pos += n + 1;
		if (n > 0 && s[n - 1] == '\r')
			n--;
		/* Comments, as inferno skips them, and blank lines. */
		if (n == 0 || (n >= 2 && s[0] == '#' && s[1] == ' '))
			continue;
		struct pp_fg_parsed r;
		if (!pp_fg_parse_line(s, n, &r)) {
			fl->ignored++;
			continue;
		}
		if (n > LINE_MAX_LEN)
			return pp_error_at(p, PPROF_ENOMEM, lineoff, "folded line longer than 2 GiB");
		struct pp_fline l = {.key = s, .keylen = (uint32_t)n, .stacklen = (uint32_t)r.stacklen};
		l.d[1] = pp_fg_strtod(s + r.num2, r.num2len);
		l.d[0] = r.diff ? pp_fg_strtod(s + r.num1, r.num1len) : __builtin_nan("");
		unsigned fd = fg_fraction_digits(s + r.num2, r.num2len);
		if (r.diff && fg_fraction_digits(s + r.num1, r.num1len) > fd)
			fd = fg_fraction_digits(s + r.num1, r.num1len);
		if (fd > fl->fdigits)
			fl->fdigits = fd;
		diff |= r.diff;
		int status = push_line(p, fl, &l);
		if (status != PPROF_OK)
			return status;
	}
	fl->ncols = diff ? 3 : 2;
	return begin_types(p, fl->ncols);
}

/* ---- the tree ---- */

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

/* The power of ten the tree's values of flamegraph-read lines are scaled
 * by: enough for every digit written after a point, as long as the sums
 * stay well inside int64. */
static int64_t fg_scale(const struct pp_flines *fl)
{
	double sum[2] = {0, 0};
	for (size_t i = 0; i < fl->n; i++)
		for (int k = 0; k < 2; k++)
			if (fl->l[i].d[k] == fl->l[i].d[k])
				sum[k] += fl->l[i].d[k];
	double most = sum[0] > sum[1] ? sum[0] : sum[1];
	unsigned k = fl->fdigits < 15 ? fl->fdigits : 15;
	int64_t scale = 1;
	for (unsigned i = 0; i < k; i++)
		scale *= 10;
	while (scale > 1 && most * (double)scale >= 4e18)
		scale /= 10;
	return scale;
}

static int settle_lines(struct pprof_profile *p, struct pp_flines *fl)
{
	struct walker w = {0};
	int status = PPROF_OK;
	/* a later input's values are in the first one's scale */
	if (!fl->flamegraph)
		fl->scale = 1;
	else if (p->flines && p->flines != fl && p->flines->flamegraph)
		fl->scale = p->flines->scale;
	else
		fl->scale = fg_scale(fl);
	for (size_t i = 0; i < fl->n && status == PPROF_OK; i++) {
		const struct pp_fline *l = &fl->l[i];
		uint64_t off = (uint64_t)(l->key - fl->base);
		int64_t v[2];
		if (fl->flamegraph) {
			for (int k = 0; k < 2; k++) {
				double d = l->d[k] == l->d[k] ? l->d[k] * (double)fl->scale : 0;
				if (!(d >= 0 && d < 9.2e18)) {
					status = pp_error_at(p, PPROF_EINPUT, off,
							     "count leaves the 64-bit range");
					goto out;
				}
				v[k] = (int64_t)(d + 0.5); /* d >= 0: no sign in this grammar */
			}
		} else {
			v[0] = l->v[0];
			v[1] = l->v[1];
		}
		uint32_t leaf = 0;
		status = walk(p, &w, l->key, l->stacklen, &leaf);
		if (status == PPROF_OK && leaf != 0) /* else an empty stack */
			status = pp_add_sample(p, leaf, 0, fl->ncols == 2 ? &v[1] : v, off);
	}
out:
	free(w.nodes);
	free(w.ends);
	fl->settled = true;
	return status;
}

void pp_flines_free(struct pp_flines *f)
{
	if (!f)
		return;
	pp_hold_release(&f->hold);
	free(f->l);
	free(f);
}

int pp_flines_settle(struct pprof_profile *p)
{
	if (!p->flines || p->flines->settled)
		return PPROF_OK;
	/* The lines are the first input's: in the profile's type order. */
	uint32_t *typemap = p->typemap;
	p->typemap = NULL;
	int s = settle_lines(p, p->flines);
	p->typemap = typemap;
	return s;
}

const struct pp_flines *pp_flines_pending(const struct pprof_profile *p)
{
	return p->flines && !p->flines->settled && p->ninputs == 1 ? p->flines : NULL;
}

int pp_flines_fold(struct pprof_profile *p, const struct pprof_fold_options *o,
		   struct pprof_folded **out, bool *done)
{
	*done = false;
	const struct pp_flines *fl = pp_flines_pending(p);
	if (!fl || fl->flamegraph || !fl->clean || o->granularity == PPROF_G_FILES ||
	    o->sample_index < 0 || (uint32_t)o->sample_index >= p->ntypes)
		return PPROF_OK;
	const struct int_stats *st = &((const struct pp_flines_priv *)(const void *)fl)->st;
	int col = fl->ncols == 2 ? 1 : o->sample_index;
	struct pprof_folded *f = calloc(1, sizeof(*f));
	if (f)
		f->lines = malloc((fl->n ? fl->n : 1) * sizeof(*f->lines));
	if (!f || !f->lines) {
		pprof_folded_free(f);
		return pp_nomem(p);
	}
	for (size_t i = 0; i < fl->n; i++)
		f->lines[i] = (struct pprof_folded_line){fl->l[i].key, fl->l[i].stacklen,
							 fl->l[i].v[col]};
	f->n = fl->n;
	/* Sorted, each stack once, no zeros (the usual file): as it is,
	 * without another pass over the stacks. */
	if (st->strict && !st->zero[col] && !st->ovf[col]) {
		f->total = st->sum[col];
	} else if (!pp_folded_sort_merge(f->lines, &f->n, &f->total, st->nondecr ? 1 : 0)) {
		pprof_folded_free(f);
		return PPROF_OK;
	}
	*out = f;
	*done = true;
	return PPROF_OK;
}

static int read_folded(struct pprof_profile *p, const unsigned char *buf, size_t len,
		       const struct pprof_read_options *o)
{
	/* An earlier folded input's lines go into the tree first. */
	int status = pp_flines_settle(p);
	if (status != PPROF_OK)
		return status;
	bool first = p->ninputs == 0;
	struct pp_flines_priv *fp = calloc(1, sizeof(*fp));
	if (!fp)
		return pp_nomem(p);
	struct pp_flines *fl = &fp->f;
	fl->flamegraph = o && o->folded_flamegraph;
	fl->base = (const char *)buf;
	status = fl->flamegraph ? read_fg_lines(p, fl, buf, len) : read_int_lines(p, fp, buf, len);
	/* The first input keeps its lines for the writers, unless a sum
	 * leaves int64: the tree says where, now. */
	if (status == PPROF_OK && first && !fp->st.ovf[0] && !fp->st.ovf[1]) {
		if (p->hold && p->hold->ptr == (const void *)buf) {
			fl->hold = *p->hold;
			p->hold->ptr = NULL;
		} else {
			/* the caller's buffer: a copy */
			char *copy = malloc(len ? len : 1);
			if (!copy) {
				pp_flines_free(fl);
				return pp_nomem(p);
			}
			memcpy(copy, buf, len);
			for (size_t i = 0; i < fl->n; i++)
				fl->l[i].key = copy + (fl->l[i].key - fl->base);
			fl->hold = (struct pp_hold){copy, len, false};
			fl->base = copy;
		}
		if (fl->hold.mapped)
			madvise(fl->hold.ptr, fl->hold.len, MADV_WILLNEED);
		pp_flines_free(p->flines);
		p->flines = fl;
		return PPROF_OK;
	}
	if (status == PPROF_OK)
		status = settle_lines(p, fl);
	if (status == PPROF_OK && first) {
		pp_flines_free(p->flines);
		p->flines = fl; /* settled, for the ignored count and the scale */
		free(fl->l);    /* they point into BUF, which goes */
		fl->l = NULL;
		fl->n = fl->cap = 0;
		return PPROF_OK;
	}
	pp_flines_free(fl);
	return status;
}

const struct pp_reader pp_reader_folded = {
	.format = PPROF_FMT_FOLDED,
	.name = "folded",
	.bid = bid_folded,
	.read = read_folded,
};
