/*
 * flame.c: SVG flame graphs with flamegraph.pl's geometry.
 *
 * The input is folded lines, "stack VALUE" or "stack BEFORE AFTER", read
 * the way flamegraph.pl reads them (the last field is a decimal number,
 * fractions kept; a second number before it makes a differential line),
 * or made from a profile.  Lines are sorted as whole lines, adjacent equal
 * prefixes merged, and frames narrower than minwidth left out: the same
 * frames, x, widths, depths, labels and tooltips as flamegraph.pl, except
 * that two frames of one name ending at the same place at the same depth
 * are both kept (flamegraph.pl keys its frames by name, depth and end, and
 * loses the first when a zero-width one closes there too).
 */
#include "config.h"

#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <time.h>

#include "folded_private.h"

#include "flame_script.h"

/* ---- small helpers ---- */

static double fl_nan(void)
{
	return __builtin_nan("");
}

static bool fl_isnan(double d)
{
	return d != d;
}

static double fl_fabs(double d)
{
	return d < 0 ? -d : d;
}

/* Floor of a double.  Past 2^53 every double is an integer, and the cast
 * below would be undefined past int64 (a count of 1e38 reached it). */
static double fl_floor(double d)
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

/* A folded line.  KEY is what the lines are sorted on (the line as read, or
 * made from a profile, or its reversed form); the stack is KEY[0, STACKLEN).
 * BEFORE is NaN for a 2-column line. */
struct fl_line {
	const char *key;
	uint32_t keylen;
	uint32_t stacklen;
	double before;
	double after;
};
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
	struct fl_line *lines;
	size_t nlines, caplines;
	size_t ignored; /* lines not in the folded format */
	struct pp_flines **flines; /* read by pprof_flame_add_text() */
	size_t nflines, capflines;
	bool timeline;  /* lines are in time order (from a profile's samples) */
	struct fl_map palette;
	struct fl_map classes;
	char err[512];
};

static int fl_error(struct pprof_flame *f, int status, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static int fl_error(struct pprof_flame *f, int status, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(f->err, sizeof(f->err), fmt, ap);
	va_end(ap);
	return status;
}

static int fl_nomem(struct pprof_flame *f)
{
	return fl_error(f, PPROF_ENOMEM, "out of memory");
}

struct pprof_flame *pprof_flame_new(void)
{
	return calloc(1, sizeof(struct pprof_flame));
}

static void fl_map_release(struct fl_map *m)
{
	for (size_t i = 0; i < m->cap; i++) {
		free(m->e[i].key);
		free(m->e[i].val);
	}
	free(m->e);
	memset(m, 0, sizeof(*m));
}

void pprof_flame_free(struct pprof_flame *f)
{
	if (!f)
		return;
	for (size_t i = 0; i < f->nbufs; i++) {
		if (f->bufs[i].mapped)
			munmap(f->bufs[i].p, f->bufs[i].len);
		else
			free(f->bufs[i].p);
	}
	free(f->bufs);
	for (size_t i = 0; i < f->nflines; i++)
		pp_flines_free(f->flines[i]);
	free(f->flines);
	free(f->lines);
	fl_map_release(&f->palette);
	fl_map_release(&f->classes);
	free(f);
}

const char *pprof_flame_error(const struct pprof_flame *f)
{
	return f->err;
}

size_t pprof_flame_line_count(const struct pprof_flame *f)
{
	return f->nlines;
}

size_t pprof_flame_ignored_lines(const struct pprof_flame *f)
{
	return f->ignored;
}

/* Takes ownership of P (malloc'd, or mmapped when MAPPED). */
static int fl_keep(struct pprof_flame *f, char *p, size_t len, bool mapped)
{
	if (f->nbufs == f->capbufs) {
		size_t cap = f->capbufs ? f->capbufs * 2 : 4;
		struct fl_buffer *b = realloc(f->bufs, cap * sizeof(*b));
		if (!b)
			return fl_nomem(f);
		f->bufs = b;
		f->capbufs = cap;
	}
	f->bufs[f->nbufs].p = p;
	f->bufs[f->nbufs].len = len;
	f->bufs[f->nbufs].mapped = mapped;
	f->nbufs++;
	return PPROF_OK;
}

static int fl_push_line(struct pprof_flame *f, const struct fl_line *l)
{
	if (f->nlines == f->caplines) {
		size_t cap = f->caplines ? f->caplines * 2 : 1024;
		struct fl_line *n = realloc(f->lines, cap * sizeof(*n));
		if (!n)
			return fl_nomem(f);
		f->lines = n;
		f->caplines = cap;
	}
	f->lines[f->nlines++] = *l;
	return PPROF_OK;
}

/* ---- string maps ---- */

/* Names come from the input.  FNV's low bits depend only on the low bits
 * of the state and the bytes, so names crafted to share them all fell into
 * one slot (64,000 such names: 4 s, quadratic); a seed the input can't
 * know, and mixing the high bits down, keep them apart. */
static uint64_t fl_hash(const char *s, size_t n, uint64_t seed)
{
	uint64_t h = 0xcbf29ce484222325ull ^ seed;
	for (size_t i = 0; i < n; i++) {
		h ^= (unsigned char)s[i];
		h *= 0x100000001b3ull;
	}
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdull;
	h ^= h >> 33;
	return h;
}

static struct fl_map_entry *fl_map_find(const struct fl_map *m, const char *k, size_t n)
{
	if (!m->cap)
		return NULL;
	uint64_t h = fl_hash(k, n, m->seed);
	for (size_t i = h & (m->cap - 1);; i = (i + 1) & (m->cap - 1)) {
		struct fl_map_entry *e = &m->e[i];
		if (!e->key)
			return NULL;
		if (e->hash == h && e->keylen == n && memcmp(e->key, k, n) == 0)
			return e;
	}
}

/* The entry for K, added (with no value) when missing; NULL when out of memory. */
static struct fl_map_entry *fl_map_get(struct fl_map *m, const char *k, size_t n)
{
	struct fl_map_entry *e = fl_map_find(m, k, n);
	if (e)
		return e;
	if ((m->n + 1) * 2 > m->cap) {
		if (!m->cap) {
			m->seed = (uint64_t)(uintptr_t)m * 0x9e3779b97f4a7c15ull;
			uint64_t r;
			if (getrandom(&r, sizeof(r), GRND_NONBLOCK) == (ssize_t)sizeof(r))
				m->seed ^= r;
		}
		size_t cap = m->cap ? m->cap * 2 : 64;
		struct fl_map_entry *ne = calloc(cap, sizeof(*ne));
		if (!ne)
			return NULL;
		for (size_t i = 0; i < m->cap; i++) {
			if (!m->e[i].key)
				continue;
			size_t j = m->e[i].hash & (cap - 1);
			while (ne[j].key)
				j = (j + 1) & (cap - 1);
			ne[j] = m->e[i];
		}
		free(m->e);
		m->e = ne;
		m->cap = cap;
	}
	uint64_t h = fl_hash(k, n, m->seed);
	size_t i = h & (m->cap - 1);
	while (m->e[i].key)
		i = (i + 1) & (m->cap - 1);
	char *key = malloc(n + 1);
	if (!key)
		return NULL;
	memcpy(key, k, n);
	key[n] = '\0';
	e = &m->e[i];
	e->key = key;
	e->keylen = n;
	e->hash = h;
	e->val = NULL;
	e->cls = 0;
	m->n++;
	return e;
}

/* ---- reading folded text (read_folded.c's parser) ---- */

static bool fl_digit(unsigned char c)
{
	return c >= '0' && c <= '9';
}

/* Keeps the lines of L (taken from a profile, with the buffer they point
 * into) for F to free. */
static int fl_keep_lines(struct pprof_flame *f, struct pp_flines *l)
{
	if (!pp_grow((void **)&f->flines, &f->capflines, f->nflines + 1, sizeof(*f->flines))) {
		pp_flines_free(l);
		return fl_nomem(f);
	}
	f->flines[f->nflines++] = l;
	return PPROF_OK;
}

/* Lines read as flamegraph.pl reads them, as they are. */
static int fl_add_lines(struct pprof_flame *f, const struct pp_flines *fl)
{
	f->ignored += fl->ignored;
	for (size_t i = 0; i < fl->n; i++) {
		const struct pp_fline *r = &fl->l[i];
		struct fl_line l = {r->key, r->keylen, r->stacklen, r->d[0], r->d[1]};
		int s = fl_push_line(f, &l);
		if (s != PPROF_OK)
			return s;
	}
	return PPROF_OK;
}

int pprof_flame_add_text(struct pprof_flame *f, const void *buf, size_t len)
{
	struct pprof_profile *p = pprof_profile_new();
	if (!p)
		return fl_nomem(f);
	const unsigned char *b = buf;
	unsigned char *u8 = NULL;
	int s = PPROF_OK;
	if (len >= 2 && ((b[0] == 0xff && b[1] == 0xfe) || (b[0] == 0xfe && b[1] == 0xff))) {
		s = pp_utf16_to_utf8(p, b, len, &u8, &len);
		b = u8;
	}
	struct pprof_read_options o = {.folded_flamegraph = 1};
	if (s == PPROF_OK)
		s = pp_reader_folded.read(p, b, len, &o);
	free(u8);
	if (s != PPROF_OK) {
		fl_error(f, s, "%s", pprof_profile_error(p));
		pprof_profile_free(p);
		return s;
	}
	struct pp_flines *fl = p->flines;
	p->flines = NULL;
	pprof_profile_free(p);
	s = fl_keep_lines(f, fl);
	return s == PPROF_OK ? fl_add_lines(f, fl) : s;
}

/* ---- lines from a profile ---- */

/* The class of a frame for the "ts" palette, from its script or file. */
static enum fl_class fl_class_of_file(const char *file, size_t n, uint32_t flags)
{
	if (flags & PP_FRAME_IGNORED)
		return FL_CLASS_DEPENDENCY;
	if (n == 0)
		return FL_CLASS_RUNTIME;
	for (size_t i = 0; i + 13 <= n; i++)
		if (memcmp(file + i, "node_modules/", 13) == 0)
			return FL_CLASS_DEPENDENCY;
	if ((n >= 5 && memcmp(file, "node:", 5) == 0) ||
	    (n >= 9 && memcmp(file, "internal/", 9) == 0))
		return FL_CLASS_RUNTIME;
	return FL_CLASS_USER;
}

static bool fl_engine_name(const char *s, size_t n)
{
	static const char *const names[] = {"(program)", "(garbage collector)", "(idle)",
					    "(root)"};
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (strlen(names[i]) == n && memcmp(names[i], s, n) == 0)
			return true;
	return false;
}

/* Records the class of every frame name of P, user code winning when one
 * name stands for frames of several classes. */
static int fl_classify_profile(struct pprof_flame *f, struct pprof_profile *p,
			       enum pprof_granularity g)
{
	struct pp_buf b;
	pp_buf_init(&b);
	for (uint32_t id = 1; id < p->nframes; id++) {
		const struct pp_frame *fr = &p->frames[id];
		b.len = 0;
		if (b.s)
			b.s[0] = '\0';
		if (!pp_frame_name(p, id, g, &b)) {
			pp_buf_release(&b);
			return fl_nomem(f);
		}
		enum fl_class c;
		if (fl_engine_name(b.s, b.len))
			c = FL_CLASS_ENGINE;
		else
			c = fl_class_of_file(pp_str(p, fr->file), pp_strlen(p, fr->file), fr->flags);
		struct fl_map_entry *e = fl_map_get(&f->classes, b.s, b.len);
		if (!e) {
			pp_buf_release(&b);
			return fl_nomem(f);
		}
		if ((int)c > e->cls)
			e->cls = (int)c;
	}
	pp_buf_release(&b);
	return PPROF_OK;
}

/* Folded text made from a profile, kept in one growing buffer; lines point
 * into it by offset until it stops moving. */
struct fl_maker {
	struct pprof_flame *f;
	char *buf;
	size_t len, cap;
	size_t first; /* index of the first line made */
	int status;
	double scale; /* the profile's values are counts times SCALE */
};

static bool fl_maker_add(struct fl_maker *m, const char *s, size_t n)
{
	if (m->len + n > m->cap) {
		size_t cap = m->cap ? m->cap : 1 << 16;
		while (cap < m->len + n)
			cap *= 2;
		char *nb = realloc(m->buf, cap);
		if (!nb)
			return false;
		m->buf = nb;
		m->cap = cap;
	}
	memcpy(m->buf + m->len, s, n);
	m->len += n;
	return true;
}

/* " VALUE" into NUM (64 bytes); its length. */
static int fl_numtext(char *num, double value)
{
	if (value == (double)(int64_t)value)
		return snprintf(num, 64, " %lld", (long long)(int64_t)value);
	return snprintf(num, 64, " %.17g", value);
}

/* A line "stack [BEFORE] AFTER" (BEFORE NaN: a 2-column line). */
static int fl_maker_line2(struct fl_maker *m, const char *stack, size_t len, double before,
			  double value)
{
	char num[128];
	int k = 0;
	if (!fl_isnan(before))
		k = fl_numtext(num, before);
	k += fl_numtext(num + k, value);
	if (len + (size_t)k > 0x7fffffffu)
		return fl_error(m->f, PPROF_ENOMEM, "folded line longer than 2 GiB");
	size_t at = m->len;
	if (!fl_maker_add(m, stack, len) || !fl_maker_add(m, num, (size_t)k))
		return fl_nomem(m->f);
	struct fl_line l;
	l.key = (const char *)(uintptr_t)at; /* an offset until fl_maker_done() */
	l.keylen = (uint32_t)(len + (size_t)k);
	l.stacklen = (uint32_t)len | FL_MODEL_BIT;
	l.after = value;
	l.before = before;
	return fl_push_line(m->f, &l);
}

static int fl_maker_line(struct fl_maker *m, const char *stack, size_t len, double value)
{
	/* A negative value (a pprof -diff_base profile) has no width: left
	 * out, as flamegraph.pl leaves out a line whose count is not a
	 * number, and counted. */
	if (!(value > 0)) {
		m->f->ignored++;
		return PPROF_OK;
	}
	return fl_maker_line2(m, stack, len, fl_nan(), value);
}

static int fl_maker_emit(void *ctx, const char *stack, size_t len, int64_t value)
{
	struct fl_maker *m = ctx;
	return fl_maker_line(m, stack, len, (double)value / m->scale);
}

/* The two columns of a profile read from "stack BEFORE AFTER" text, as
 * differential lines again: one per stack in either column. */
static int fl_differential(struct fl_maker *m, struct pprof_profile *p,
			   const struct pprof_fold_options *o)
{
	struct pprof_fold_options o0 = *o, o1 = *o;
	o0.sample_index = 0;
	o1.sample_index = 1;
	struct pprof_folded *a = NULL, *b = NULL;
	int s = pprof_fold(p, &o0, &a);
	if (s == PPROF_OK)
		s = pprof_fold(p, &o1, &b);
	size_t i = 0, j = 0;
	while (s == PPROF_OK && (i < a->n || j < b->n)) {
		int c = i == a->n ? 1 : j == b->n ? -1 : pp_folded_line_cmp(&a->lines[i], &b->lines[j]);
		const struct pprof_folded_line *l = c <= 0 ? &a->lines[i] : &b->lines[j];
		double before = c <= 0 ? (double)a->lines[i++].value / m->scale : 0;
		double after = c >= 0 ? (double)b->lines[j++].value / m->scale : 0;
		s = fl_maker_line2(m, l->stack, l->len, before, after);
	}
	if (s != PPROF_OK && !m->f->err[0])
		fl_error(m->f, s, "%s", pprof_profile_error(p));
	pprof_folded_free(a);
	pprof_folded_free(b);
	return s;
}

static int fl_maker_done(struct fl_maker *m)
{
	if (fl_keep(m->f, m->buf, m->len, false) != PPROF_OK) {
		free(m->buf);
		return PPROF_ENOMEM;
	}
	for (size_t i = m->first; i < m->f->nlines; i++)
		m->f->lines[i].key = m->buf + (uintptr_t)m->f->lines[i].key;
	return PPROF_OK;
}

/* The samples of a time-ordered profile as folded runs: consecutive samples
 * with the same stack make one line, in time order. */
static int fl_timeline(struct fl_maker *m, struct pprof_profile *p,
		       const struct pprof_fold_options *o)
{
	struct pprof_flame *f = m->f;
	bool wall = false;
	if (o->sample_index >= 0 && (size_t)o->sample_index < p->ntypes) {
		uint32_t t = p->types[o->sample_index].type;
		wall = pp_strlen(p, t) == 4 && memcmp(pp_str(p, t), "wall", 4) == 0;
	}
	struct pp_buf stack;
	pp_buf_init(&stack);
	uint32_t *path = NULL;
	size_t cappath = 0;
	int status = PPROF_OK;
	size_t i = 0;
	while (i < p->nseq) {
		uint32_t node = p->seq[i].node;
		double value = 0;
		size_t j = i;
		for (; j < p->nseq && p->seq[j].node == node; j++)
			value += wall ? (double)p->seq[j].wall : 1.0;
		i = j;
		if (node == 0 || node >= p->nnodes || value <= 0)
			continue;
		/* The path from the root, built leaf first. */
		size_t depth = 0;
		for (uint32_t n = node; n != 0; n = p->nodes[n].parent) {
			if (depth == cappath) {
				size_t cap = cappath ? cappath * 2 : 64;
				uint32_t *np = realloc(path, cap * sizeof(*np));
				if (!np) {
					status = fl_nomem(f);
					goto out;
				}
				path = np;
				cappath = cap;
			}
			path[depth++] = p->nodes[n].frame;
			if (depth > p->nnodes)
				break; /* a cycle would be a model bug; don't spin */
		}
		stack.len = 0;
		for (size_t d = depth; d-- > 0;) {
			if ((d + 1 < depth && !pp_buf_addc(&stack, ';')) ||
			    !pp_frame_name(p, path[d], o->granularity, &stack)) {
				status = fl_nomem(f);
				goto out;
			}
		}
		status = fl_maker_line(m, stack.s, stack.len, value);
		if (status != PPROF_OK)
			goto out;
	}
out:
	free(path);
	pp_buf_release(&stack);
	return status;
}

int pprof_flame_add_profile(struct pprof_flame *f, struct pprof_profile *p,
			    const struct pprof_fold_options *o, unsigned flags)
{
	/* Folded text read as flamegraph.pl reads it: its lines as they are
	 * when nothing has changed them, else the tree's, in the counts read
	 * (its values are scaled to keep the fractions). */
	const struct pp_flines *fl = p->flines;
	bool fg = fl && fl->flamegraph && p->format == PPROF_FMT_FOLDED;
	if (fg && pp_flines_pending(p))
		return fl_add_lines(f, fl);
	struct fl_maker m = {.f = f, .first = f->nlines, .status = PPROF_OK, .scale = 1};
	if (fg) {
		f->ignored += fl->ignored;
		m.scale = (double)fl->scale;
	}
	int s;
	if ((flags & PPROF_FLAME_TIMELINE) && p->nseq > 0) {
		f->timeline = true;
		s = fl_timeline(&m, p, o);
	} else if (fg && fl->ncols == 3 && p->ntypes == 2) {
		s = fl_differential(&m, p, o);
	} else {
		s = pprof_fold_each(p, o, fl_maker_emit, &m);
		if (s != PPROF_OK && !f->err[0])
			fl_error(f, s, "%s", pprof_profile_error(p));
	}
	if (s != PPROF_OK) {
		f->nlines = m.first;
		free(m.buf);
		return s;
	}
	s = fl_maker_done(&m);
	if (s != PPROF_OK || p->format == PPROF_FMT_FOLDED)
		return s; /* names only: nothing to classify */
	return fl_classify_profile(f, p, o->granularity);
}

int pprof_flame_has_timeline(const struct pprof_profile *p)
{
	return p->nseq > 0;
}

/* ---- palette.map (--cp) ---- */

/* A colour as flamegraph.pl writes them, "rgb(R,G,B)", or "#rrggbb". */
static bool fl_colour_ok(const char *s, size_t n)
{
	if (n == 7 && s[0] == '#') {
		for (size_t i = 1; i < 7; i++)
			if (!strchr("0123456789abcdefABCDEF", s[i]) || !s[i])
				return false;
		return true;
	}
	if (n < 10 || memcmp(s, "rgb(", 4) != 0 || s[n - 1] != ')')
		return false;
	int parts = 0;
	size_t i = 4;
	while (i < n - 1) {
		size_t d = 0;
		while (i < n - 1 && fl_digit((unsigned char)s[i]) && d < 3) {
			i++;
			d++;
		}
		if (d == 0)
			return false;
		parts++;
		if (i < n - 1) {
			if (s[i] != ',' || parts == 3)
				return false;
			i++;
		}
	}
	return parts == 3;
}

int pprof_flame_palette_read(struct pprof_flame *f, const void *buf, size_t len)
{
	const char *b = buf;
	size_t pos = 0;
	while (pos < len) {
		const char *s = b + pos;
		const char *nl = memchr(s, '\n', len - pos);
		size_t n = nl ? (size_t)(nl - s) : len - pos;
		pos += n + 1;
		if (n > 0 && s[n - 1] == '\r')
			n--;
		/* NAME->COLOUR; a name may itself hold "->", the colour can't. */
		size_t arrow = n;
		for (size_t i = n; i >= 2; i--) {
			if (s[i - 2] == '-' && s[i - 1] == '>') {
				arrow = i - 2;
				break;
			}
		}
		if (arrow == n || !fl_colour_ok(s + arrow + 2, n - arrow - 2))
			continue;
		struct fl_map_entry *e = fl_map_get(&f->palette, s, arrow);
		if (!e)
			return fl_nomem(f);
		free(e->val);
		e->val = strndup(s + arrow + 2, n - arrow - 2);
		if (!e->val)
			return fl_nomem(f);
	}
	return PPROF_OK;
}

static int fl_cmp_entry(const void *a, const void *b)
{
	const struct fl_map_entry *x = *(const struct fl_map_entry *const *)a;
	const struct fl_map_entry *y = *(const struct fl_map_entry *const *)b;
	size_t n = x->keylen < y->keylen ? x->keylen : y->keylen;
	int c = memcmp(x->key, y->key, n);
	if (c)
		return c;
	return x->keylen < y->keylen ? -1 : x->keylen > y->keylen;
}

int pprof_flame_palette_write(struct pprof_flame *f, FILE *out)
{
	struct fl_map_entry **v = malloc((f->palette.n + 1) * sizeof(*v));
	if (!v)
		return fl_nomem(f);
	size_t n = 0;
	for (size_t i = 0; i < f->palette.cap; i++)
		if (f->palette.e[i].key && f->palette.e[i].val)
			v[n++] = &f->palette.e[i];
	qsort(v, n, sizeof(*v), fl_cmp_entry);
	for (size_t i = 0; i < n; i++) {
		fwrite(v[i]->key, 1, v[i]->keylen, out);
		fprintf(out, "->%s\n", v[i]->val);
	}
	free(v);
	if (ferror(out))
		return fl_error(f, PPROF_EIO, "%s", strerror(errno));
	return PPROF_OK;
}

/* ---- options ---- */

static const char *const fl_palettes[] = {
	[PPROF_FLAME_HOT] = "hot",	 [PPROF_FLAME_MEM] = "mem",
	[PPROF_FLAME_IO] = "io",	 [PPROF_FLAME_WAKEUP] = "wakeup",
	[PPROF_FLAME_JAVA] = "java",	 [PPROF_FLAME_JS] = "js",
	[PPROF_FLAME_PERL] = "perl",	 [PPROF_FLAME_RED] = "red",
	[PPROF_FLAME_GREEN] = "green",	 [PPROF_FLAME_BLUE] = "blue",
	[PPROF_FLAME_AQUA] = "aqua",	 [PPROF_FLAME_YELLOW] = "yellow",
	[PPROF_FLAME_PURPLE] = "purple", [PPROF_FLAME_ORANGE] = "orange",
	[PPROF_FLAME_TS] = "ts",
};

int pprof_flame_palette_parse(const char *name)
{
	for (size_t i = 0; i < sizeof(fl_palettes) / sizeof(fl_palettes[0]); i++)
		if (fl_palettes[i] && strcmp(fl_palettes[i], name) == 0)
			return (int)i;
	if (strcmp(name, "typescript") == 0)
		return PPROF_FLAME_TS;
	return -1;
}

void pprof_flame_options_init(struct pprof_flame_options *o)
{
	memset(o, 0, sizeof(*o));
	o->fonttype = "Verdana";
	o->countname = "samples";
	o->nametype = "Function:";
	o->palette = PPROF_FLAME_HOT;
	o->width = 1200;
	o->frameheight = 16;
	o->fontsize = 12;
	o->fontwidth = 0.59;
	o->minwidth = 0.1;
	o->factor = 1;
}

/* ---- output ---- */

struct fl_out {
	FILE *f;
	char buf[1 << 16];
	size_t n;
	bool err;
};

static void fl_flush(struct fl_out *o)
{
	if (o->n && fwrite(o->buf, 1, o->n, o->f) != o->n)
		o->err = true;
	o->n = 0;
}

static void fl_put(struct fl_out *o, const char *s, size_t n)
{
	if (o->n + n > sizeof(o->buf)) {
		fl_flush(o);
		if (n > sizeof(o->buf)) {
			if (fwrite(s, 1, n, o->f) != n)
				o->err = true;
			return;
		}
	}
	memcpy(o->buf + o->n, s, n);
	o->n += n;
}

static void fl_puts(struct fl_out *o, const char *s)
{
	fl_put(o, s, strlen(s));
}

static void fl_printf(struct fl_out *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void fl_printf(struct fl_out *o, const char *fmt, ...)
{
	char tmp[512];
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(tmp, sizeof(tmp), fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if ((size_t)n < sizeof(tmp)) {
		fl_put(o, tmp, (size_t)n);
		return;
	}
	char *big = malloc((size_t)n + 1);
	if (!big) {
		o->err = true;
		return;
	}
	va_start(ap, fmt);
	vsnprintf(big, (size_t)n + 1, fmt, ap);
	va_end(ap);
	fl_put(o, big, (size_t)n);
	free(big);
}

/* Writes an unsigned integer; returns the digits written. */
static size_t fl_utoa(char *p, uint64_t v)
{
	char t[24];
	size_t n = 0;
	do {
		t[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	for (size_t i = 0; i < n; i++)
		p[i] = t[n - 1 - i];
	return n;
}

/* printf("%.<digits>f", d) for digits 1 or 2, without printf when the
 * answer is certain: a value that is not near a rounding tie. */
static size_t fl_fixed(char *p, double d, int digits)
{
	double scale = digits == 1 ? 10.0 : 100.0;
	if (d >= 0 && d < 1e9) {
		double t = d * scale;
		double fl = fl_floor(t);
		double frac = t - fl;
		if (fl_fabs(frac - 0.5) > 1e-6) {
			uint64_t r = (uint64_t)fl + (frac > 0.5);
			uint64_t ip = r / (uint64_t)scale, fp = r % (uint64_t)scale;
			size_t n = fl_utoa(p, ip);
			p[n++] = '.';
			if (digits == 2)
				p[n++] = (char)('0' + fp / 10);
			p[n++] = (char)('0' + fp % 10);
			return n;
		}
	}
	int n = snprintf(p, 64, digits == 1 ? "%.1f" : "%.2f", d);
	return n < 0 ? 0 : n < 64 ? (size_t)n : 63;
}

/* A number as Perl prints it ("%.15g"), fast for integers and halves. */
static size_t fl_perlnum(char *p, double d)
{
	if (d >= 0 && d < 1e15) {
		double t = d * 2;
		if (t == fl_floor(t)) {
			uint64_t h = (uint64_t)t;
			size_t n = fl_utoa(p, h / 2);
			if (h & 1) {
				p[n++] = '.';
				p[n++] = '5';
			}
			return n;
		}
	}
	int n = snprintf(p, 64, "%.15g", d);
	return n < 0 ? 0 : n < 64 ? (size_t)n : 63;
}

/* The shortest text that reads back as D, for the s and w attributes. */
static size_t fl_exact(char *p, double d)
{
	if (d >= 0 && d < 9e15 && d == fl_floor(d))
		return fl_utoa(p, (uint64_t)d);
	for (int prec = 15; prec <= 17; prec++) {
		int n = snprintf(p, 64, "%.*g", prec, d);
		if (strtod(p, NULL) == d || prec == 17)
			return n < 0 ? 0 : n < 64 ? (size_t)n : 63;
	}
	return 0;
}

/* ---- names: UTF-8 decoding and XML escaping ---- */

/* Decodes one character at S[*I]; an invalid byte is consumed alone and
 * returns -1. */
static int32_t fl_utf8(const unsigned char *s, size_t n, size_t *i)
{
	unsigned char c = s[*i];
	if (c < 0x80) {
		(*i)++;
		return c;
	}
	int need;
	uint32_t v, min;
	if (c >= 0xc2 && c <= 0xdf) {
		need = 1;
		v = c & 0x1f;
		min = 0x80;
	} else if (c >= 0xe0 && c <= 0xef) {
		need = 2;
		v = c & 0x0f;
		min = 0x800;
	} else if (c >= 0xf0 && c <= 0xf4) {
		need = 3;
		v = c & 0x07;
		min = 0x10000;
	} else {
		(*i)++;
		return -1;
	}
	if (*i + (size_t)need >= n) {
		(*i)++;
		return -1;
	}
	for (int k = 1; k <= need; k++) {
		unsigned char d = s[*i + (size_t)k];
		if ((d & 0xc0) != 0x80) {
			(*i)++;
			return -1;
		}
		v = v << 6 | (d & 0x3f);
	}
	if (v < min || v > 0x10ffff || (v >= 0xd800 && v < 0xe000)) {
		(*i)++;
		return -1;
	}
	*i += (size_t)need + 1;
	return (int32_t)v;
}

/* The number of characters of a name, invalid bytes counting one each. */
static size_t fl_chars(const char *s, size_t n)
{
	size_t count = 0;
	for (size_t i = 0; i < n;) {
		if ((unsigned char)s[i] < 0x80) {
			i++;
		} else {
			fl_utf8((const unsigned char *)s, n, &i);
		}
		count++;
	}
	return count;
}

/* Byte length of the first CHARS characters. */
static size_t fl_prefix_bytes(const char *s, size_t n, size_t chars)
{
	size_t i = 0;
	while (i < n && chars > 0) {
		if ((unsigned char)s[i] < 0x80)
			i++;
		else
			fl_utf8((const unsigned char *)s, n, &i);
		chars--;
	}
	return i;
}

enum { FL_ESC_TEXT = 0, FL_ESC_ATTR = 1 };

/* Writes S as XML character data: markup characters escaped, control
 * characters shown as their Unicode control pictures, invalid UTF-8 and
 * non-characters as U+FFFD, so any bytes give well-formed XML. */
static void fl_xml(struct fl_out *o, const char *s, size_t n, int mode)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t i = 0, run = 0;
	while (i < n) {
		unsigned char c = u[i];
		if (c >= 0x20 && c < 0x7f && c != '&' && c != '<' && c != '>' &&
		    !(c == '"' && mode == FL_ESC_ATTR)) {
			i++;
			continue;
		}
		fl_put(o, s + run, i - run);
		if (c < 0x80) {
			switch (c) {
			case '&': fl_puts(o, "&amp;"); break;
			case '<': fl_puts(o, "&lt;"); break;
			case '>': fl_puts(o, "&gt;"); break;
			case '"': fl_puts(o, "&quot;"); break;
			case 0x7f: fl_puts(o, "\xe2\x90\xa1"); break; /* U+2421 */
			default: {
				/* U+2400 + c: the control picture of C0 characters. */
				char pic[3] = {(char)0xe2, (char)0x90, (char)(0x80 + c)};
				fl_put(o, pic, 3);
			}
			}
			i++;
		} else {
			size_t at = i;
			int32_t cp = fl_utf8(u, n, &i);
			if (cp < 0 || cp == 0xfffe || cp == 0xffff)
				fl_puts(o, "\xef\xbf\xbd");
			else
				fl_put(o, s + at, i - at);
		}
		run = i;
	}
	fl_put(o, s + run, n - run);
}

static void fl_xml_cstr(struct fl_out *o, const char *s, int mode)
{
	fl_xml(o, s, strlen(s), mode);
}

/* ---- colours ---- */

/* Perl's rand() after srand(seed): drand48 on a 48-bit state. */
static double fl_perl_rand(uint32_t seed)
{
	uint64_t x = ((uint64_t)seed << 16) + 0x330e;
	x = (x * 0x5deece66dull + 0xb) & 0xffffffffffffull;
	return (double)x * (1.0 / 281474976710656.0);
}

/* The code points of a name (invalid bytes as their byte value), for the
 * colour hashes that flamegraph.pl computes on characters. */
static size_t fl_codepoints(const char *s, size_t n, uint32_t *out, size_t max)
{
	size_t k = 0;
	for (size_t i = 0; i < n && k < max;) {
		size_t at = i;
		int32_t c = fl_utf8((const unsigned char *)s, n, &i);
		out[k++] = c < 0 ? (unsigned char)s[at] : (uint32_t)c;
	}
	return k;
}

/* flamegraph.pl's --hash: early characters weigh most. */
static double fl_namehash(const uint32_t *cp, size_t n)
{
	/* A module name ("mod`func") is dropped up to its backtick. */
	for (size_t i = 1; i < n; i++) {
		if (cp[i] == '`') {
			cp += i + 1;
			n -= i + 1;
			break;
		}
	}
	double vector = 0, weight = 1, max = 1;
	unsigned mod = 10;
	for (size_t i = 0; i < n; i++) {
		double v = (double)(cp[i] % mod);
		vector += v / (double)(mod - 1) * weight;
		mod++;
		max += weight;
		weight *= 0.70;
		if (mod > 12)
			break;
	}
	return 1 - vector / max;
}

struct fl_rgb {
	int r, g, b;
};

static bool fl_ends(const char *s, size_t n, const char *suf)
{
	size_t k = strlen(suf);
	return n >= k && memcmp(s + n - k, suf, k) == 0;
}

static bool fl_has(const char *s, size_t n, const char *needle)
{
	size_t k = strlen(needle);
	if (k > n)
		return false;
	for (size_t i = 0; i + k <= n; i++)
		if (memcmp(s + i, needle, k) == 0)
			return true;
	return false;
}

/* The class of a name for the "ts" palette when no profile told it: a file
 * in the name (granularities lines, filefunctions, files) decides, else
 * V8's engine and builtin names. */
static enum fl_class fl_class_of_name(const char *s, size_t n)
{
	if (fl_engine_name(s, n))
		return FL_CLASS_ENGINE;
	if (fl_has(s, n, "node_modules/"))
		return FL_CLASS_DEPENDENCY;
	if (fl_has(s, n, "node:") || fl_has(s, n, " internal/") ||
	    (n >= 9 && memcmp(s, "internal/", 9) == 0))
		return FL_CLASS_RUNTIME;
	static const char *const exts[] = {".ts", ".tsx", ".mts", ".cts", ".js",
					   ".jsx", ".mjs", ".cjs"};
	for (size_t i = 0; i < sizeof(exts) / sizeof(exts[0]); i++) {
		size_t k = strlen(exts[i]);
		for (size_t j = 0; j + k <= n; j++) {
			if (memcmp(s + j, exts[i], k) == 0 &&
			    (j + k == n || s[j + k] == ':' || s[j + k] == ' ' || s[j + k] == ')'))
				return FL_CLASS_USER;
		}
	}
	/* V8 builtins and Web APIs: "JSON.stringify", "Array.prototype.map". */
	if (n > 2 && s[0] >= 'A' && s[0] <= 'Z') {
		for (size_t j = 1; j + 1 < n; j++) {
			if (s[j] == '.')
				return FL_CLASS_RUNTIME;
			if (!((s[j] >= 'a' && s[j] <= 'z') || (s[j] >= 'A' && s[j] <= 'Z') ||
			      (s[j] >= '0' && s[j] <= '9')))
				break;
		}
	}
	static const char *const natives[] = {"fetch", "setTimeout", "setInterval",
					      "queueMicrotask", "structuredClone",
					      "atob", "btoa"};
	for (size_t i = 0; i < sizeof(natives) / sizeof(natives[0]); i++)
		if (strlen(natives[i]) == n && memcmp(natives[i], s, n) == 0)
			return FL_CLASS_RUNTIME;
	return FL_CLASS_USER;
}

struct fl_colorer {
	enum pprof_flame_palette palette;
	bool hash, random;
	uint64_t rstate;
	const struct fl_map *classes;
	uint32_t *cp;
	size_t capcp;
};

static uint64_t fl_clock_seed(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000007u ^ (uint64_t)ts.tv_nsec;
}

static double fl_random(struct fl_colorer *c)
{
	c->rstate = (c->rstate * 0x5deece66dull + 0xb) & 0xffffffffffffull;
	return (double)c->rstate * (1.0 / 281474976710656.0);
}

static struct fl_rgb fl_color(struct fl_colorer *c, const char *name, size_t n)
{
	double v1, v2, v3;
	if (c->hash) {
		if (n > c->capcp) {
			uint32_t *cp = realloc(c->cp, n * sizeof(*cp));
			if (cp) {
				c->cp = cp;
				c->capcp = n;
			}
		}
		size_t k = fl_codepoints(name, n, c->cp, c->capcp);
		v1 = fl_namehash(c->cp, k);
		for (size_t i = 0; i < k / 2; i++) {
			uint32_t t = c->cp[i];
			c->cp[i] = c->cp[k - 1 - i];
			c->cp[k - 1 - i] = t;
		}
		v2 = v3 = fl_namehash(c->cp, k);
	} else if (c->random) {
		v1 = fl_random(c);
		v2 = fl_random(c);
		v3 = fl_random(c);
	} else {
		/* Perl's srand(sum of the characters) then rand(). */
		uint32_t sum = 0;
		for (size_t i = 0; i < n;) {
			if ((unsigned char)name[i] < 0x80) {
				sum += (unsigned char)name[i++];
			} else {
				size_t at = i;
				int32_t cp = fl_utf8((const unsigned char *)name, n, &i);
				sum += cp < 0 ? (unsigned char)name[at] : (uint32_t)cp;
			}
		}
		v1 = v2 = v3 = fl_perl_rand(sum);
	}
	struct fl_rgb rgb = {0, 0, 0};
	enum pprof_flame_palette type = c->palette;
	switch (type) {
	case PPROF_FLAME_HOT:
		rgb.r = 205 + (int)(50 * v3);
		rgb.g = (int)(230 * v1);
		rgb.b = (int)(55 * v2);
		return rgb;
	case PPROF_FLAME_MEM:
		rgb.g = 190 + (int)(50 * v2);
		rgb.b = (int)(210 * v1);
		return rgb;
	case PPROF_FLAME_IO:
		rgb.r = rgb.g = 80 + (int)(60 * v1);
		rgb.b = 190 + (int)(55 * v2);
		return rgb;
	case PPROF_FLAME_JAVA:
		if (fl_ends(name, n, "_[j]"))
			type = PPROF_FLAME_GREEN;
		else if (fl_ends(name, n, "_[i]"))
			type = PPROF_FLAME_AQUA;
		else {
			type = PPROF_FLAME_RED;
			static const char *const pk[] = {"java/", "javax/", "jdk/", "net/",
							 "org/", "com/", "io/", "sun/"};
			const char *s = name;
			size_t m = n;
			if (m > 0 && s[0] == 'L') {
				s++;
				m--;
			}
			bool java = false;
			for (size_t i = 0; i < sizeof(pk) / sizeof(pk[0]); i++)
				if (m >= strlen(pk[i]) && memcmp(s, pk[i], strlen(pk[i])) == 0)
					java = true;
			/* "Ljava/..." or "java/...": try both spellings. */
			for (size_t i = 0; !java && i < sizeof(pk) / sizeof(pk[0]); i++)
				if (n >= strlen(pk[i]) && memcmp(name, pk[i], strlen(pk[i])) == 0)
					java = true;
			if (java || fl_has(name, n, ":::"))
				type = PPROF_FLAME_GREEN;
			else if (fl_has(name, n, "::"))
				type = PPROF_FLAME_YELLOW;
			else if (fl_ends(name, n, "_[k]"))
				type = PPROF_FLAME_ORANGE;
		}
		break;
	case PPROF_FLAME_PERL:
		if (fl_has(name, n, "::"))
			type = PPROF_FLAME_YELLOW;
		else if (fl_has(name, n, "Perl") || fl_has(name, n, ".pl"))
			type = PPROF_FLAME_GREEN;
		else if (fl_ends(name, n, "_[k]"))
			type = PPROF_FLAME_ORANGE;
		else
			type = PPROF_FLAME_RED;
		break;
	case PPROF_FLAME_JS: {
		bool slashjs = false;
		const char *sl = memchr(name, '/', n);
		if (sl)
			slashjs = fl_has(sl + 1, n - (size_t)(sl + 1 - name), ".js");
		if (fl_ends(name, n, "_[j]"))
			type = memchr(name, '/', n) ? PPROF_FLAME_GREEN : PPROF_FLAME_AQUA;
		else if (fl_has(name, n, "::"))
			type = PPROF_FLAME_YELLOW;
		else if (slashjs)
			type = PPROF_FLAME_GREEN;
		else if (memchr(name, ':', n))
			type = PPROF_FLAME_AQUA;
		else if (n == 1 && name[0] == ' ')
			type = PPROF_FLAME_GREEN;
		else if (fl_has(name, n, "_[k]"))
			type = PPROF_FLAME_ORANGE;
		else
			type = PPROF_FLAME_RED;
		break;
	}
	case PPROF_FLAME_WAKEUP:
		type = PPROF_FLAME_AQUA;
		break;
	case PPROF_FLAME_TS: {
		int cls = 0;
		const struct fl_map_entry *e =
			c->classes && c->classes->n ? fl_map_find(c->classes, name, n) : NULL;
		cls = e ? e->cls : (int)fl_class_of_name(name, n);
		switch (cls) {
		case FL_CLASS_ENGINE: {
			int x = 180 + (int)(40 * v1);
			rgb.r = rgb.g = rgb.b = x;
			return rgb;
		}
		case FL_CLASS_RUNTIME:
			type = PPROF_FLAME_PURPLE;
			break;
		case FL_CLASS_DEPENDENCY:
			type = PPROF_FLAME_BLUE;
			break;
		default:
			rgb.r = 205 + (int)(50 * v3);
			rgb.g = (int)(230 * v1);
			rgb.b = (int)(55 * v2);
			return rgb;
		}
		break;
	}
	default:
		break;
	}
	switch (type) {
	case PPROF_FLAME_RED:
		rgb.r = 200 + (int)(55 * v1);
		rgb.g = rgb.b = 50 + (int)(80 * v1);
		break;
	case PPROF_FLAME_GREEN:
		rgb.g = 200 + (int)(55 * v1);
		rgb.r = rgb.b = 50 + (int)(60 * v1);
		break;
	case PPROF_FLAME_BLUE:
		rgb.b = 205 + (int)(50 * v1);
		rgb.r = rgb.g = 80 + (int)(60 * v1);
		break;
	case PPROF_FLAME_YELLOW:
		rgb.r = rgb.g = 175 + (int)(55 * v1);
		rgb.b = 50 + (int)(20 * v1);
		break;
	case PPROF_FLAME_PURPLE:
		rgb.r = rgb.b = 190 + (int)(65 * v1);
		rgb.g = 80 + (int)(60 * v1);
		break;
	case PPROF_FLAME_AQUA:
		rgb.r = 50 + (int)(60 * v1);
		rgb.g = rgb.b = 165 + (int)(55 * v1);
		break;
	case PPROF_FLAME_ORANGE:
		rgb.r = 190 + (int)(65 * v1);
		rgb.g = 90 + (int)(65 * v1);
		break;
	default:
		break;
	}
	return rgb;
}

/* Differential colour: red for more, blue for less, white for none. */
static struct fl_rgb fl_color_scale(double value, double max, bool negate)
{
	struct fl_rgb rgb = {255, 255, 255};
	if (negate)
		value = -value;
	if (value > max)
		value = max;
	if (value < -max)
		value = -max;
	if (value > 0)
		rgb.g = rgb.b = (int)(210 * (max - value) / max);
	else if (value < 0)
		rgb.r = rgb.g = (int)(210 * (max + value) / max);
	return rgb;
}

/* ---- layout ---- */

/* A drawn frame. */
struct fl_node {
	const char *name;
	uint32_t len;
	uint32_t depth;
	double start, end;
	double delta;    /* of the line that opened it (flamegraph.pl), NaN if none */
	double incl;     /* inclusive delta: every line through it */
	double other;    /* width of its callees too narrow to draw */
	uint32_t kid0, nkids; /* callees in the kids array (relayout only) */
};

struct fl_open {
	const char *name;
	uint32_t len;
	uint32_t off; /* where the frame starts in the stack text */
	double stime;
	double delta;
	double dsum; /* running delta sum when opened */
	double other;
};

struct fl_layout {
	struct fl_node *nodes;
	size_t n, cap;
	struct fl_open *open;
	size_t nopen, capopen;
	double minwidth_time;
	bool keep_other;
	double time, dsum;
	const char *prev; /* the stack of the previous line */
	size_t prevlen;
};

static bool fl_node_push(struct fl_layout *L, const struct fl_node *n)
{
	if (L->n == L->cap) {
		size_t cap = L->cap ? L->cap * 2 : 4096;
		struct fl_node *nn = realloc(L->nodes, cap * sizeof(*nn));
		if (!nn)
			return false;
		L->nodes = nn;
		L->cap = cap;
	}
	L->nodes[L->n++] = *n;
	return true;
}

/* flamegraph.pl keys a frame by "name;depth;END" and reads END back from
 * that text: an end that is not an integer is the time printed as Perl
 * prints numbers ("%.15g"). */
static double fl_perl_end(double t)
{
	if (t >= 0 && t < 1e15 && t == fl_floor(t))
		return t;
	char tmp[64];
	snprintf(tmp, sizeof(tmp), "%.15g", t);
	return strtod(tmp, NULL);
}

/* Closes the open frames above depth KEEP at the current time. */
static bool fl_close(struct fl_layout *L, size_t keep)
{
	while (L->nopen > keep) {
		struct fl_open *o = &L->open[--L->nopen];
		double end = fl_perl_end(L->time);
		double w = end - o->stime;
		if (w < L->minwidth_time) {
			if (L->keep_other && L->nopen > 0)
				L->open[L->nopen - 1].other += w;
			continue;
		}
		struct fl_node n = {
			.name = o->name,
			.len = o->len,
			.depth = (uint32_t)L->nopen,
			.start = o->stime,
			.end = end,
			.delta = o->delta,
			.incl = L->dsum - o->dsum,
			.other = o->other,
		};
		if (!fl_node_push(L, &n))
			return false;
	}
	return true;
}

static bool fl_open_push(struct fl_layout *L, const char *name, size_t len, size_t off,
			 double delta)
{
	if (L->nopen == L->capopen) {
		size_t cap = L->capopen ? L->capopen * 2 : 256;
		struct fl_open *no = realloc(L->open, cap * sizeof(*no));
		if (!no)
			return false;
		L->open = no;
		L->capopen = cap;
	}
	struct fl_open *o = &L->open[L->nopen++];
	o->name = name;
	o->len = (uint32_t)len;
	o->off = (uint32_t)off;
	o->stime = L->time;
	o->delta = delta;
	o->dsum = L->dsum;
	o->other = 0;
	return true;
}

/* Merges one line into the open frames: those it shares with the previous
 * line stay open, the others close, and its own open.  A frame starts at
 * the same offset in every line that shares the frames before it, so the
 * shared frames are found by comparing the line with the previous one. */
__attribute__((noinline)) static bool fl_flow(struct fl_layout *L, const char *stack,
					      size_t stacklen, double d, double width)
{
	/* flamegraph.pl splits on ';' and drops trailing empty fields. */
	while (stacklen > 0 && stack[stacklen - 1] == ';')
		stacklen--;
	if (L->nopen == 0) {
		/* The root, shared by every line. */
		double rd = fl_isnan(d) ? fl_nan() : (stacklen == 0 ? d : 0);
		if (!fl_open_push(L, "", 0, 0, rd))
			return false;
		L->prev = stack;
		L->prevlen = 0;
	}
	/* The first byte where this stack and the previous one differ. */
	size_t lim = stacklen < L->prevlen ? stacklen : L->prevlen, m = 0;
	while (m + 8 <= lim) {
		uint64_t a, b;
		memcpy(&a, stack + m, 8);
		memcpy(&b, L->prev + m, 8);
		if (a != b)
			break;
		m += 8;
	}
	while (m < lim && stack[m] == L->prev[m])
		m++;
	/* The open frames that end before it, or at it where this stack has
	 * a frame boundary too, are shared. */
	size_t depth = 1;
	while (depth < L->nopen) {
		const struct fl_open *o = &L->open[depth];
		size_t end = (size_t)o->off + o->len;
		if (end > m || (end == m && m < stacklen && stack[m] != ';') ||
		    (end == m && stacklen == 0))
			break;
		depth++;
	}
	if (!fl_close(L, depth))
		return false;
	size_t pos = depth == 1 ? 0 : (size_t)L->open[depth - 1].off + L->open[depth - 1].len + 1;
	if (stacklen > 0 && pos <= stacklen) {
		for (;;) {
			const char *semi = memchr(stack + pos, ';', stacklen - pos);
			size_t e = semi ? (size_t)(semi - stack) : stacklen;
			bool leaf = !semi;
			double fd = fl_isnan(d) ? fl_nan() : (leaf ? d : 0);
			if (!fl_open_push(L, stack + pos, e - pos, pos, fd))
				return false;
			if (leaf)
				break;
			pos = e + 1;
		}
	}
	L->prev = stack;
	L->prevlen = stacklen;
	L->time += width;
	if (!fl_isnan(d))
		L->dsum += d;
	return true;
}

/* ---- sorting lines ---- */

/* Lines sort bytewise on their key, a prefix first, as Perl's sort does.
 * A three-way radix quicksort on 8-byte words: each record caches the
 * big-endian word of its key at the range's offset; a range is split into
 * smaller, equal and larger words, and only the equal part moves on to the
 * next word (after skipping whatever prefix all its keys share, usually
 * the root frames).  The keys are scattered over the input, so they are
 * fetched ahead of use. */
struct fl_skey {
	uint64_t w;
	uint32_t rem; /* bytes left from this offset, capped at 9 */
	uint32_t idx;
};

static uint64_t fl_load_be(const char *s, size_t n)
{
	uint64_t v = 0;
	if (n >= 8) {
		memcpy(&v, s, 8);
		return __builtin_bswap64(v);
	}
	unsigned char b[8] = {0};
	memcpy(b, s, n);
	memcpy(&v, b, 8);
	return __builtin_bswap64(v);
}

/* -1, 0, 1 on the cached word, then on how many bytes are left. */
static int fl_skey_cmp(const struct fl_skey *x, const struct fl_skey *y)
{
	if (x->w != y->w)
		return x->w < y->w ? -1 : 1;
	if (x->rem != y->rem)
		return x->rem < y->rem ? -1 : 1;
	return 0;
}

struct fl_range {
	size_t lo, hi, off;
	bool loaded; /* the records hold the words at off */
};

#define FL_AHEAD 12 /* lines fetched ahead of use */

/* Full comparison of two keys from byte OFF on. */
static int fl_key_cmp(const struct fl_line *a, const struct fl_line *b, size_t off)
{
	size_t na = a->keylen - off, nb = b->keylen - off;
	int c = memcmp(a->key + off, b->key + off, na < nb ? na : nb);
	if (c)
		return c;
	return na < nb ? -1 : na > nb;
}

static void fl_load_range(const struct fl_line *lines, struct fl_skey *k, struct fl_range *r)
{
	/* Skip the prefix every key of the range shares. */
	const struct fl_line *first = &lines[k[r->lo].idx];
	size_t lcp = first->keylen > r->off ? first->keylen - r->off : 0;
	for (size_t i = r->lo + 1; i < r->hi && lcp > 0; i++) {
		if (i + FL_AHEAD < r->hi)
			__builtin_prefetch(lines[k[i + FL_AHEAD].idx].key + r->off);
		const struct fl_line *l = &lines[k[i].idx];
		size_t m = l->keylen > r->off ? l->keylen - r->off : 0;
		if (m < lcp)
			lcp = m;
		const char *a = first->key + r->off, *b = l->key + r->off;
		size_t j = 0;
		while (j + 8 <= lcp && memcmp(a + j, b + j, 8) == 0)
			j += 8;
		while (j < lcp && a[j] == b[j])
			j++;
		lcp = j;
	}
	r->off += lcp;
	for (size_t i = r->lo; i < r->hi; i++) {
		if (i + FL_AHEAD < r->hi)
			__builtin_prefetch(lines[k[i + FL_AHEAD].idx].key + r->off);
		const struct fl_line *l = &lines[k[i].idx];
		size_t rem = l->keylen > r->off ? l->keylen - r->off : 0;
		k[i].w = fl_load_be(l->key + r->off, rem);
		k[i].rem = rem > 8 ? 9 : (uint32_t)rem;
	}
	r->loaded = true;
}

__attribute__((noinline)) static bool fl_sort_lines(struct fl_line *lines, size_t n)
{
	bool sorted = true;
	for (size_t i = 1; i < n && sorted; i++)
		if (fl_key_cmp(&lines[i - 1], &lines[i], 0) > 0)
			sorted = false;
	if (sorted)
		return true;
	struct fl_skey *k = malloc(n * sizeof(*k));
	size_t capstack = 256, nstack = 0;
	struct fl_range *stack = malloc(capstack * sizeof(*stack));
	if (!k || !stack)
		goto fail;
	for (size_t i = 0; i < n; i++)
		k[i].idx = (uint32_t)i;
	stack[nstack++] = (struct fl_range){0, n, 0, false};
	while (nstack) {
		struct fl_range r = stack[--nstack];
		if (r.hi - r.lo < 2)
			continue;
		if (r.hi - r.lo <= 16) {
			/* Short ranges: insertion sort on whole keys. */
			for (size_t i = r.lo + 1; i < r.hi; i++) {
				struct fl_skey t = k[i];
				size_t j = i;
				while (j > r.lo && fl_key_cmp(&lines[t.idx], &lines[k[j - 1].idx], r.off) < 0) {
					k[j] = k[j - 1];
					j--;
				}
				k[j] = t;
			}
			continue;
		}
		if (!r.loaded)
			fl_load_range(lines, k, &r);
		/* Median of three as the pivot. */
		struct fl_skey *a = &k[r.lo], *b = &k[r.lo + (r.hi - r.lo) / 2], *c = &k[r.hi - 1];
		struct fl_skey pivot = *b;
		if (fl_skey_cmp(a, b) > 0)
			pivot = fl_skey_cmp(a, c) < 0 ? *a : fl_skey_cmp(b, c) > 0 ? *b : *c;
		else if (fl_skey_cmp(b, c) > 0)
			pivot = fl_skey_cmp(a, c) > 0 ? *a : *c;
		/* [lo, lt) smaller, [lt, i) equal, (gt, hi) larger. */
		size_t lt = r.lo, i = r.lo, gt = r.hi;
		while (i < gt) {
			int cmp = fl_skey_cmp(&k[i], &pivot);
			if (cmp < 0) {
				struct fl_skey t = k[lt];
				k[lt++] = k[i];
				k[i++] = t;
			} else if (cmp > 0) {
				struct fl_skey t = k[--gt];
				k[gt] = k[i];
				k[i] = t;
			} else {
				i++;
			}
		}
		if (nstack + 3 > capstack) {
			struct fl_range *ns = realloc(stack, 2 * capstack * sizeof(*ns));
			if (!ns)
				goto fail;
			stack = ns;
			capstack *= 2;
		}
		stack[nstack++] = (struct fl_range){r.lo, lt, r.off, true};
		stack[nstack++] = (struct fl_range){gt, r.hi, r.off, true};
		if (pivot.rem == 9)
			stack[nstack++] = (struct fl_range){lt, gt, r.off + 8, false};
	}
	/* Apply the order in place, cycle by cycle (idx marks what is done). */
	for (size_t i = 0; i < n; i++) {
		if (k[i].idx == (uint32_t)i || k[i].idx == UINT32_MAX)
			continue;
		struct fl_line t = lines[i];
		size_t j = i;
		for (;;) {
			size_t from = k[j].idx;
			k[j].idx = UINT32_MAX;
			if (from == i) {
				lines[j] = t;
				break;
			}
			lines[j] = lines[from];
			j = from;
		}
	}
	free(k);
	free(stack);
	return true;
fail:
	free(k);
	free(stack);
	return false;
}

/* ---- reversed stacks (--reverse) ---- */

/* Rewrites every line as flamegraph.pl does for --reverse: the frames in
 * the other order, then the number(s) as read, then the line read again
 * (a frame name ending in a number may now read as a count). */
static int fl_reverse(struct pprof_flame *f)
{
	size_t total = 0;
	for (size_t i = 0; i < f->nlines; i++)
		total += f->lines[i].keylen + 2;
	char *buf = malloc(total ? total : 1);
	if (!buf)
		return fl_nomem(f);
	if (fl_keep(f, buf, total, false) != PPROF_OK) {
		free(buf);
		return PPROF_ENOMEM;
	}
	char *w = buf;
	size_t out = 0;
	for (size_t i = 0; i < f->nlines; i++) {
		struct fl_line l = f->lines[i];
		bool model = (l.stacklen & FL_MODEL_BIT) != 0;
		size_t stacklen = l.stacklen & ~FL_MODEL_BIT;
		const char *s = l.key;
		char *start = w;
		size_t end = stacklen;
		while (end > 0 && s[end - 1] == ';')
			end--;
		/* Fields from the last to the first. */
		size_t e = end;
		bool first = true;
		while (end > 0) {
			size_t b = e;
			while (b > 0 && s[b - 1] != ';')
				b--;
			if (!first)
				*w++ = ';';
			first = false;
			memcpy(w, s + b, e - b);
			w += e - b;
			if (b == 0)
				break;
			e = b - 1;
		}
		size_t newstack = (size_t)(w - start);
		if (model) {
			memcpy(w, s + stacklen, l.keylen - stacklen);
			w += l.keylen - stacklen;
			l.key = start;
			l.keylen = (uint32_t)(w - start);
			l.stacklen = (uint32_t)newstack | FL_MODEL_BIT;
			f->lines[out++] = l;
			continue;
		}
		struct pp_fg_parsed r;
		pp_fg_parse_line(s, l.keylen, &r);
		if (r.diff) {
			*w++ = ' ';
			memcpy(w, s + r.num1, r.num1len);
			w += r.num1len;
		}
		*w++ = ' ';
		memcpy(w, s + r.num2, r.num2len);
		w += r.num2len;
		size_t n = (size_t)(w - start);
		if (!pp_fg_parse_line(start, n, &r)) {
			f->ignored++;
			continue;
		}
		l.key = start;
		l.keylen = (uint32_t)n;
		l.stacklen = (uint32_t)r.stacklen;
		l.after = pp_fg_strtod(start + r.num2, r.num2len);
		l.before = r.diff ? pp_fg_strtod(start + r.num1, r.num1len) : fl_nan();
		f->lines[out++] = l;
	}
	f->nlines = out;
	return PPROF_OK;
}

/* ---- relayout: callees packed from their caller's start ---- */

static int fl_cmp_width(const void *a, const void *b, void *ctx)
{
	const struct fl_node *nodes = ctx;
	const struct fl_node *x = &nodes[*(const uint32_t *)a];
	const struct fl_node *y = &nodes[*(const uint32_t *)b];
	double wx = x->end - x->start, wy = y->end - y->start;
	if (wx != wy)
		return wx > wy ? -1 : 1;
	uint32_t ia = *(const uint32_t *)a, ib = *(const uint32_t *)b;
	return ia < ib ? -1 : ia > ib;
}

static const char fl_other_name[] = "(other)";

static bool fl_relayout(struct fl_layout *L, bool by_width, bool others)
{
	size_t n = L->n;
	/* Room for one "(other)" per node. */
	if (others) {
		size_t cap = n * 2 + 1;
		struct fl_node *nn = realloc(L->nodes, cap * sizeof(*nn));
		if (!nn)
			return false;
		L->nodes = nn;
		L->cap = cap;
	}
	uint32_t *kids = malloc((2 * n + 1) * sizeof(*kids));
	uint32_t *stack = malloc((n + 1) * sizeof(*stack));
	if (!kids || !stack) {
		free(kids);
		free(stack);
		return false;
	}
	size_t nkids = 0, nstack = 0;
	for (size_t i = 0; i < n; i++) {
		struct fl_node *nd = &L->nodes[i];
		size_t top = nstack;
		while (top > 0 && L->nodes[stack[top - 1]].depth > nd->depth)
			top--;
		nd->kid0 = (uint32_t)nkids;
		for (size_t j = top; j < nstack; j++)
			kids[nkids++] = stack[j];
		nstack = top;
		if (others && nd->other > 0 && nd->other >= L->minwidth_time) {
			struct fl_node o = {
				.name = fl_other_name,
				.len = sizeof(fl_other_name) - 1,
				.depth = nd->depth + 1,
				.start = 0,
				.end = nd->other,
				.delta = fl_nan(),
				.incl = 0,
				.other = 0,
			};
			kids[nkids++] = (uint32_t)L->n;
			L->nodes[L->n++] = o;
		}
		nd->nkids = (uint32_t)(nkids - nd->kid0);
		stack[nstack++] = (uint32_t)i;
	}
	/* Pre-order from the roots (normally the one root, last). */
	size_t nroots = nstack;
	for (size_t r = 0; r < nroots; r++) {
		size_t sp = 0;
		uint32_t root = stack[r];
		uint32_t *todo = malloc((L->n + 1) * sizeof(*todo));
		if (!todo) {
			free(kids);
			free(stack);
			return false;
		}
		todo[sp++] = root;
		while (sp) {
			struct fl_node *p = &L->nodes[todo[--sp]];
			uint32_t *k = kids + p->kid0;
			size_t nk = p->nkids;
			bool last_other = others && nk > 0 && L->nodes[k[nk - 1]].name == fl_other_name;
			if (by_width)
				qsort_r(k, nk - last_other, sizeof(*k), fl_cmp_width, L->nodes);
			double x = p->start;
			for (size_t j = 0; j < nk; j++) {
				struct fl_node *c = &L->nodes[k[j]];
				double w = c->end - c->start;
				c->start = x;
				c->end = x + w;
				x += w;
				todo[sp++] = k[j];
			}
		}
		free(todo);
	}
	free(kids);
	free(stack);
	return true;
}

/* ---- the SVG ---- */

static const char *fl_bg(const char *name, enum pprof_flame_palette pal, const char **c2)
{
	if (!name || !*name) {
		switch (pal) {
		case PPROF_FLAME_MEM: name = "green"; break;
		case PPROF_FLAME_IO:
		case PPROF_FLAME_WAKEUP: name = "blue"; break;
		case PPROF_FLAME_RED: case PPROF_FLAME_GREEN: case PPROF_FLAME_BLUE:
		case PPROF_FLAME_AQUA: case PPROF_FLAME_YELLOW: case PPROF_FLAME_PURPLE:
		case PPROF_FLAME_ORANGE: name = "grey"; break;
		default: name = "yellow"; break;
		}
	}
	if (strcmp(name, "yellow") == 0) {
		*c2 = "#eeeeb0";
		return "#eeeeee";
	}
	if (strcmp(name, "blue") == 0) {
		*c2 = "#e0e0ff";
		return "#eeeeee";
	}
	if (strcmp(name, "green") == 0) {
		*c2 = "#e0ffe0";
		return "#eef2ee";
	}
	if (strcmp(name, "grey") == 0 || strcmp(name, "gray") == 0) {
		*c2 = "#e8e8e8";
		return "#f8f8f8";
	}
	if (strlen(name) == 7 && fl_colour_ok(name, 7)) {
		*c2 = name;
		return name;
	}
	return NULL;
}

int pprof_flame_bgcolors_ok(const char *name)
{
	const char *c2;
	return fl_bg(name, PPROF_FLAME_HOT, &c2) != NULL;
}

/* A font list for CSS: letters (any non-ASCII character too), digits,
 * spaces, commas, quotes, dots, hyphens and underscores only, so it can't
 * close the style or load anything. */
int pprof_flame_fonttype_ok(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
		      (*s >= '0' && *s <= '9') || (unsigned char)*s >= 0x80 ||
		      strchr(" ,'\"._-", *s)))
			return false;
	return true;
}

/* Title counts: "%.0f" with thousands commas, as flamegraph.pl prints them. */
static size_t fl_count(char *p, double v)
{
	char raw[400];
	size_t n;
	if (v >= 0 && v < 9e15 && v == fl_floor(v))
		n = fl_utoa(raw, (uint64_t)v);
	else
		n = (size_t)snprintf(raw, sizeof(raw), "%.0f", v);
	if (n >= sizeof(raw))
		n = sizeof(raw) - 1;
	size_t k = 0, i = 0;
	if (raw[0] == '-' || raw[0] == '+')
		p[k++] = raw[i++];
	size_t digits = n - i;
	for (; i < n; i++) {
		p[k++] = raw[i];
		size_t left = n - i - 1;
		if (left > 0 && left % 3 == 0 && digits > 3)
			p[k++] = ',';
	}
	return k;
}

/* Strips a perf annotation (_[k], _[w], _[i], _[j]) from the end of a name. */
static size_t fl_strip_annotation(const char *s, size_t n)
{
	if (n >= 4 && s[n - 4] == '_' && s[n - 3] == '[' && s[n - 1] == ']' &&
	    strchr("kwij", s[n - 2]) && s[n - 2])
		return n - 4;
	return n;
}

struct fl_writer {
	struct fl_out *out;
	const struct pprof_flame_options *o;
	struct pprof_flame *f;
	struct fl_colorer col;
	double wpt, timemax, imageheight, ypad1, ypad2, maxdelta;
	double charw;
	bool diff;
};

static void fl_frame(struct fl_writer *W, const struct fl_node *nd, bool is_root)
{
	const struct pprof_flame_options *o = W->o;
	struct fl_out *out = W->out;
	char num[64];
	size_t k;
	double stime = nd->start, etime = is_root ? W->timemax : nd->end;
	double x1 = 10 + stime * W->wpt;
	double x2 = 10 + etime * W->wpt;
	double depth = nd->depth;
	double y1, y2;
	if (!(o->flags & PPROF_FLAME_INVERTED)) {
		y1 = W->imageheight - W->ypad2 - (depth + 1) * o->frameheight + 1;
		y2 = W->imageheight - W->ypad2 - depth * o->frameheight;
	} else {
		y1 = W->ypad1 + depth * o->frameheight;
		y2 = W->ypad1 + (depth + 1) * o->frameheight - 1;
	}
	size_t namelen = fl_strip_annotation(nd->name, nd->len);

	fl_puts(out, "<g");
	if (stime != 0) {
		fl_puts(out, " s=\"");
		k = fl_exact(num, stime);
		fl_put(out, num, k);
		fl_puts(out, "\"");
	}
	/* The width, unless the title's count says it exactly. */
	double width = etime - stime;
	double shown = width * o->factor;
	if (!(o->factor == 1 && width == fl_floor(width) && width < 9e15)) {
		fl_puts(out, " w=\"");
		k = fl_exact(num, width);
		fl_put(out, num, k);
		fl_puts(out, "\"");
	}
	fl_puts(out, "><title>");
	/* samples = sprintf("%.0f", width * factor); pct from that text. */
	char samples[1024]; /* up to 400 digits and their commas */
	double sv;
	if (shown >= 0 && shown < 9e15) {
		double r = fl_floor(shown);
		double frac = shown - r;
		if (fl_fabs(frac - 0.5) > 1e-9 || shown == r)
			sv = r + (frac > 0.5);
		else {
			snprintf(samples, sizeof(samples), "%.0f", shown);
			sv = strtod(samples, NULL);
		}
	} else {
		snprintf(samples, sizeof(samples), "%.0f", shown);
		sv = strtod(samples, NULL);
	}
	k = fl_count(samples, sv);
	if (is_root) {
		fl_puts(out, "all (");
		fl_put(out, samples, k);
		fl_puts(out, " ");
		fl_xml_cstr(out, o->countname, FL_ESC_TEXT);
		fl_puts(out, ", 100%)");
	} else {
		fl_xml(out, nd->name, namelen, FL_ESC_TEXT);
		fl_puts(out, " (");
		fl_put(out, samples, k);
		fl_puts(out, " ");
		fl_xml_cstr(out, o->countname, FL_ESC_TEXT);
		fl_puts(out, ", ");
		double pct = 100 * sv / (W->timemax * o->factor);
		k = fl_fixed(num, pct, 2);
		fl_put(out, num, k);
		fl_puts(out, "%");
		double d = (o->flags & PPROF_FLAME_INCLUSIVE_DELTA) ? nd->incl : nd->delta;
		if (W->diff && !fl_isnan(d) && nd->name != fl_other_name) {
			/* Perl's integer zero has no sign: "+ 0.0" drops it. */
			if (o->flags & PPROF_FLAME_NEGATE)
				d = -d + 0.0;
			/* A change can dwarf the total: room for any double. */
			double dp = 100 * d / (W->timemax * o->factor);
			char dps[512];
			int pn = snprintf(dps, sizeof(dps), "%.2f", dp);
			fl_puts(out, "; ");
			if (d > 0)
				fl_puts(out, "+");
			fl_put(out, dps, pn < 0 ? 0 : pn < (int)sizeof(dps) ? (size_t)pn : sizeof(dps) - 1);
			fl_puts(out, "%");
		}
		fl_puts(out, ")");
	}
	fl_puts(out, "</title><rect x=\"");
	/* x and width as flamegraph.pl: each edge to 0.1, the width from those. */
	char xs[64], x2s[64];
	size_t xn = fl_fixed(xs, x1, 1), x2n = fl_fixed(x2s, x2, 1);
	xs[xn] = x2s[x2n] = '\0';
	fl_put(out, xs, xn);
	fl_puts(out, "\" y=\"");
	k = fl_perlnum(num, y1);
	fl_put(out, num, k);
	fl_puts(out, "\" width=\"");
	k = fl_fixed(num, strtod(x2s, NULL) - strtod(xs, NULL), 1);
	fl_put(out, num, k);
	fl_puts(out, "\" height=\"");
	k = fl_fixed(num, y2 - y1, 1);
	fl_put(out, num, k);
	fl_puts(out, "\" fill=\"");

	struct fl_rgb rgb;
	const char *fixed = NULL;
	double dcol = (o->flags & PPROF_FLAME_INCLUSIVE_DELTA) ? nd->incl : nd->delta;
	if (nd->len == 2 && memcmp(nd->name, "--", 2) == 0) {
		rgb = (struct fl_rgb){160, 160, 160};
	} else if (nd->len == 1 && nd->name[0] == '-') {
		rgb = (struct fl_rgb){200, 200, 200};
	} else if (W->diff && !fl_isnan(dcol) && nd->name != fl_other_name) {
		rgb = fl_color_scale(dcol, W->maxdelta, (o->flags & PPROF_FLAME_NEGATE) != 0);
	} else if (o->flags & PPROF_FLAME_CONSISTENT) {
		struct fl_map_entry *e = fl_map_get(&W->f->palette, nd->name, nd->len);
		if (e && !e->val) {
			rgb = fl_color(&W->col, nd->name, nd->len);
			char tmp[40];
			snprintf(tmp, sizeof(tmp), "rgb(%d,%d,%d)", rgb.r, rgb.g, rgb.b);
			e->val = strdup(tmp);
		}
		if (e && e->val)
			fixed = e->val;
		else
			rgb = fl_color(&W->col, nd->name, nd->len);
	} else {
		rgb = fl_color(&W->col, nd->name, nd->len);
	}
	if (fixed) {
		fl_puts(out, fixed);
	} else {
		static const char hex[] = "0123456789abcdef";
		char c[7] = {'#',
			     hex[(rgb.r >> 4) & 15], hex[rgb.r & 15],
			     hex[(rgb.g >> 4) & 15], hex[rgb.g & 15],
			     hex[(rgb.b >> 4) & 15], hex[rgb.b & 15]};
		fl_put(out, c, 7);
	}
	fl_puts(out, "\"/>");

	/* The label: as many characters as fit, the last two as "..". */
	double fchars = (x2 - x1) / W->charw;
	if (fchars >= 3 && !is_root) {
		size_t chars = fchars > 1e9 ? (size_t)1e9 : (size_t)fchars;
		fl_puts(out, "<text x=\"");
		k = fl_fixed(num, x1 + 3, 2);
		fl_put(out, num, k);
		fl_puts(out, "\" y=\"");
		k = fl_perlnum(num, 3 + (y1 + y2) / 2);
		fl_put(out, num, k);
		fl_puts(out, "\">");
		size_t total = chars < namelen ? fl_chars(nd->name, namelen) : namelen;
		if (chars < total) {
			size_t b = fl_prefix_bytes(nd->name, namelen, chars - 2);
			fl_xml(out, nd->name, b, FL_ESC_TEXT);
			fl_puts(out, "..");
		} else {
			fl_xml(out, nd->name, namelen, FL_ESC_TEXT);
		}
		fl_puts(out, "</text>");
	}
	fl_puts(out, "</g>\n");
}

int pprof_flame_write_svg(struct pprof_flame *f, const struct pprof_flame_options *o, FILE *file)
{
	int status = PPROF_OK;
	struct fl_layout L;
	memset(&L, 0, sizeof(L));
	struct fl_out *out = NULL;
	bool flamechart = (o->flags & PPROF_FLAME_FLAMECHART) != 0;

	if (o->width <= 0 || o->frameheight <= 0 || o->fontsize <= 0 || o->fontwidth <= 0 ||
	    o->minwidth < 0 || !(o->factor == o->factor))
		return fl_error(f, PPROF_EUSAGE, "invalid drawing parameters");
	if (!pprof_flame_fonttype_ok(o->fonttype))
		return fl_error(f, PPROF_EUSAGE, "invalid font type");
	const char *bg2;
	const char *bg1 = fl_bg(o->bgcolors, o->palette, &bg2);
	if (!bg1)
		return fl_error(f, PPROF_EUSAGE, "unrecognized background colors \"%s\"", o->bgcolors);

	if (o->flags & PPROF_FLAME_REVERSE) {
		status = fl_reverse(f);
		if (status != PPROF_OK)
			return status;
	}
	if (!flamechart && !f->timeline) {
		if (!fl_sort_lines(f->lines, f->nlines))
			return fl_nomem(f);
	}

	/* Totals first: minwidth in samples needs the sum. */
	double time = 0;
	bool diff = false;
	double maxleaf = 1;
	for (size_t i = 0; i < f->nlines; i++) {
		const struct fl_line *l = &f->lines[i];
		double w = l->after;
		if (!fl_isnan(l->before)) {
			diff = true;
			double d = l->after - l->before;
			if (fl_fabs(d) > maxleaf)
				maxleaf = fl_fabs(d);
			if (o->diff_width == PPROF_FLAME_DIFF_BEFORE)
				w = l->before;
			else if (o->diff_width == PPROF_FLAME_DIFF_MAX && l->before > w)
				w = l->before;
		}
		time += w;
	}
	if (!(time > 0))
		return fl_error(f, PPROF_EINPUT, "no stack counts found");
	if (time - time != 0)
		return fl_error(f, PPROF_EINPUT, "stack counts too large");
	double timemax = time;
	if (o->total > 0 && o->total >= time)
		timemax = o->total;
	double wpt = (o->width - 20) / timemax;
	L.minwidth_time = o->minwidth_percent ? timemax * o->minwidth / 100 : o->minwidth / wpt;
	L.keep_other = (o->flags & PPROF_FLAME_MERGE_SMALL) != 0;

	for (size_t i = 0; i < f->nlines; i++) {
		const struct fl_line *l = &f->lines[i];
		if (i + 8 < f->nlines) {
			const struct fl_line *n = &f->lines[i + 8];
			__builtin_prefetch(n->key);
			__builtin_prefetch(n->key + (n->stacklen & ~FL_MODEL_BIT) / 2);
			__builtin_prefetch(n->key + (n->stacklen & ~FL_MODEL_BIT));
		}
		double w = l->after;
		double d = fl_nan();
		if (!fl_isnan(l->before)) {
			d = l->after - l->before;
			if (o->diff_width == PPROF_FLAME_DIFF_BEFORE)
				w = l->before;
			else if (o->diff_width == PPROF_FLAME_DIFF_MAX && l->before > w)
				w = l->before;
		}
		if (!fl_flow(&L, l->key, l->stacklen & ~FL_MODEL_BIT, d, w)) {
			status = fl_nomem(f);
			goto out;
		}
	}
	if (!fl_close(&L, 0)) {
		status = fl_nomem(f);
		goto out;
	}
	if ((o->flags & (PPROF_FLAME_SORT_WIDTH | PPROF_FLAME_MERGE_SMALL)) && !flamechart) {
		if (!fl_relayout(&L, (o->flags & PPROF_FLAME_SORT_WIDTH) != 0,
				 (o->flags & PPROF_FLAME_MERGE_SMALL) != 0)) {
			status = fl_nomem(f);
			goto out;
		}
	}

	uint32_t depthmax = 0;
	double maxincl = 0;
	for (size_t i = 0; i < L.n; i++) {
		if (L.nodes[i].depth > depthmax)
			depthmax = L.nodes[i].depth;
		if (L.nodes[i].depth > 0 && fl_fabs(L.nodes[i].incl) > maxincl)
			maxincl = fl_fabs(L.nodes[i].incl);
	}

	struct fl_writer W;
	memset(&W, 0, sizeof(W));
	out = malloc(sizeof(*out));
	if (!out) {
		status = fl_nomem(f);
		goto out;
	}
	out->f = file;
	out->n = 0;
	out->err = false;
	W.out = out;
	W.o = o;
	W.f = f;
	W.diff = diff;
	W.col.palette = o->palette;
	W.col.hash = (o->flags & PPROF_FLAME_HASH) != 0;
	W.col.random = (o->flags & PPROF_FLAME_RANDOM) != 0;
	W.col.rstate = o->seed ? o->seed : fl_clock_seed();
	W.col.classes = &f->classes;
	W.timemax = timemax;
	W.wpt = wpt;
	W.ypad1 = o->fontsize * 3;
	W.ypad2 = o->fontsize * 2 + 10;
	double ypad3 = o->fontsize * 2;
	W.imageheight = (depthmax + 1) * o->frameheight + W.ypad1 + W.ypad2;
	bool subtitle = o->subtitle && *o->subtitle;
	if (subtitle)
		W.imageheight += ypad3;
	W.charw = o->fontsize * o->fontwidth;
	W.maxdelta = (o->flags & PPROF_FLAME_INCLUSIVE_DELTA) ? (maxincl > 0 ? maxincl : 1) : maxleaf;

	const char *title = o->title && *o->title ? o->title
			    : flamechart		? "Flame Chart"
			    : (o->flags & PPROF_FLAME_INVERTED) ? "Icicle Graph"
								: "Flame Graph";
	char a[64], b[64];
	size_t an, bn;
	an = fl_perlnum(a, o->width);
	a[an] = '\0';
	bn = fl_perlnum(b, W.imageheight);
	b[bn] = '\0';
	fl_puts(out, "<?xml version=\"1.0\" standalone=\"no\"?>\n");
	fl_printf(out, "<svg version=\"1.1\" width=\"%s\" height=\"%s\" viewBox=\"0 0 %s %s\" "
		       "xmlns=\"http://www.w3.org/2000/svg\">\n", a, b, a, b);
	fl_puts(out, "<!-- Flame graph written by pprof-flame: flamegraph.pl's geometry and "
		     "options; click a frame to zoom, Ctrl-F to search. -->\n");
	fl_puts(out, "<!-- NOTES: ");
	if (o->notes) {
		/* A comment may not hold "--"; keep the text, break the pairs. */
		const char *s = o->notes;
		size_t n = strlen(s), run = 0;
		for (size_t i = 0; i < n; i++) {
			if (s[i] == '-' && (i + 1 == n || s[i + 1] == '-')) {
				fl_xml(out, s + run, i + 1 - run, FL_ESC_TEXT);
				fl_puts(out, " ");
				run = i + 1;
			}
		}
		fl_xml(out, s + run, n - run, FL_ESC_TEXT);
	}
	fl_puts(out, " -->\n");
	fl_printf(out, "<defs><linearGradient id=\"background\" y1=\"0\" y2=\"1\" x1=\"0\" x2=\"0\">"
		       "<stop stop-color=\"%s\" offset=\"5%%\"/><stop stop-color=\"%s\" "
		       "offset=\"95%%\"/></linearGradient></defs>\n", bg1, bg2);
	char fs[64];
	size_t fsn = fl_perlnum(fs, o->fontsize);
	fs[fsn] = '\0';
	char ts[64];
	size_t tsn = fl_perlnum(ts, o->fontsize + 5);
	ts[tsn] = '\0';
	fl_puts(out, "<style type=\"text/css\">\n");
	fl_puts(out, "text { font-family:");
	fl_xml_cstr(out, o->fonttype, FL_ESC_TEXT);
	fl_printf(out, "; font-size:%spx; fill:rgb(0,0,0); }\n", fs);
	fl_puts(out, "#search, #ignorecase { opacity:0.1; cursor:pointer; }\n"
		     "#search:hover, #search.show, #ignorecase:hover, #ignorecase.show { opacity:1; }\n"
		     "#subtitle { text-anchor:middle; fill:rgb(160,160,160); }\n");
	fl_printf(out, "#title { text-anchor:middle; font-size:%spx; }\n", ts);
	fl_puts(out, "#unzoom { cursor:pointer; }\n"
		     "#frames > *:hover { stroke:black; stroke-width:0.5; cursor:pointer; }\n"
		     ".hide { display:none; }\n"
		     ".parent { opacity:0.5; }\n"
		     "#frames > .m > rect { fill:rgb(230,0,230); }\n"
		     "</style>\n");
	char tmp[64];
	size_t tn;
	fl_printf(out, "<rect x=\"0.0\" y=\"0\" width=\"%.1f\" height=\"%.1f\" "
		       "fill=\"url(#background)\"/>\n", o->width, W.imageheight);
	fl_printf(out, "<text id=\"title\" x=\"%.2f\" y=\"", (double)(int64_t)(o->width / 2));
	tn = fl_perlnum(tmp, o->fontsize * 2);
	fl_put(out, tmp, tn);
	fl_puts(out, "\">");
	fl_xml_cstr(out, title, FL_ESC_TEXT);
	fl_puts(out, "</text>\n");
	if (subtitle) {
		fl_printf(out, "<text id=\"subtitle\" x=\"%.2f\" y=\"", (double)(int64_t)(o->width / 2));
		tn = fl_perlnum(tmp, o->fontsize * 4);
		fl_put(out, tmp, tn);
		fl_puts(out, "\">");
		fl_xml_cstr(out, o->subtitle, FL_ESC_TEXT);
		fl_puts(out, "</text>\n");
	}
	char ybot[64], ytop[64];
	size_t ybn = fl_perlnum(ybot, W.imageheight - W.ypad2 / 2);
	ybot[ybn] = '\0';
	size_t ytn = fl_perlnum(ytop, o->fontsize * 2);
	ytop[ytn] = '\0';
	fl_printf(out, "<text id=\"details\" x=\"10.00\" y=\"%s\"> </text>\n", ybot);
	fl_printf(out, "<text id=\"unzoom\" x=\"10.00\" y=\"%s\" class=\"hide\">Reset Zoom</text>\n", ytop);
	fl_printf(out, "<text id=\"search\" x=\"%.2f\" y=\"%s\">Search</text>\n", o->width - 110, ytop);
	fl_printf(out, "<text id=\"ignorecase\" x=\"%.2f\" y=\"%s\">ic</text>\n", o->width - 26, ytop);
	fl_printf(out, "<text id=\"matched\" x=\"%.2f\" y=\"%s\" class=\"hide\"> </text>\n",
		  o->width - 110, ybot);

	/* The drawing parameters, for the script. */
	double y0 = (o->flags & PPROF_FLAME_INVERTED) ? W.ypad1
						      : W.imageheight - W.ypad2 - o->frameheight + 1;
	fl_puts(out, "<g id=\"frames\" total=\"");
	tn = fl_exact(tmp, timemax);
	fl_put(out, tmp, tn);
	fl_puts(out, "\" imagewidth=\"");
	tn = fl_exact(tmp, o->width);
	fl_put(out, tmp, tn);
	fl_puts(out, "\" frameheight=\"");
	tn = fl_exact(tmp, o->frameheight);
	fl_put(out, tmp, tn);
	fl_puts(out, "\" y0=\"");
	tn = fl_exact(tmp, y0);
	fl_put(out, tmp, tn);
	fl_puts(out, "\" fontsize=\"");
	tn = fl_exact(tmp, o->fontsize);
	fl_put(out, tmp, tn);
	fl_puts(out, "\" fontwidth=\"");
	tn = fl_exact(tmp, o->fontwidth);
	fl_put(out, tmp, tn);
	if (o->factor != 1) {
		fl_puts(out, "\" factor=\"");
		tn = fl_exact(tmp, o->factor);
		fl_put(out, tmp, tn);
	}
	if (o->flags & PPROF_FLAME_INVERTED)
		fl_puts(out, "\" inverted=\"1");
	fl_puts(out, "\" nametype=\"");
	fl_xml_cstr(out, o->nametype, FL_ESC_ATTR);
	fl_puts(out, "\" countname=\"");
	fl_xml_cstr(out, o->countname, FL_ESC_ATTR);
	fl_puts(out, "\">\n");

	for (size_t i = 0; i < L.n; i++) {
		const struct fl_node *nd = &L.nodes[i];
		fl_frame(&W, nd, nd->depth == 0);
	}
	fl_puts(out, "</g>\n<script type=\"text/ecmascript\"><![CDATA[\n");
	fl_put(out, pp_flame_script, sizeof(pp_flame_script) - 1);
	fl_puts(out, "]]></script>\n</svg>\n");
	fl_flush(out);
	if (out->err || ferror(file))
		status = fl_error(f, PPROF_EIO, "write error: %s", strerror(errno ? errno : EIO));
	free(W.col.cp);
out:
	free(out);
	free(L.nodes);
	free(L.open);
	return status;
}
