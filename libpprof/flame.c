/*
 * flame.c: the flame graph object and its input: folded text read as
 * flamegraph.pl reads it (read_folded.c's parser), or lines made from a
 * profile, and the name maps (palette.map entries, the "ts" palette's name
 * classes).  flame_layout.c places the frames, flame_color.c colours them,
 * flame_svg.c writes the SVG; flame_private.h is what they share.
 */
#include "config.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/random.h>

#include "flame_private.h"

/* ---- the flame object ---- */

int fl_error(struct pprof_flame *f, int status, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(f->err, sizeof(f->err), fmt, ap);
	va_end(ap);
	return status;
}

int fl_nomem(struct pprof_flame *f)
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
	if (!f->borrowed)
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
int fl_keep(struct pprof_flame *f, char *p, size_t len, bool mapped)
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

/* Makes F's lines its own, with room for one more: a copy of borrowed ones. */
int fl_own_lines(struct pprof_flame *f)
{
	if (!f->borrowed)
		return PPROF_OK;
	size_t cap = f->nlines + 1024;
	struct pp_fline *n = malloc(cap * sizeof(*n));
	if (!n)
		return fl_nomem(f);
	memcpy(n, f->lines, f->nlines * sizeof(*n));
	f->lines = n;
	f->caplines = cap;
	f->borrowed = false;
	return PPROF_OK;
}

static int fl_push_line(struct pprof_flame *f, const struct pp_fline *l)
{
	if (f->borrowed && fl_own_lines(f) != PPROF_OK)
		return PPROF_ENOMEM;
	if (f->nlines == f->caplines) {
		size_t cap = f->caplines ? f->caplines * 2 : 1024;
		struct pp_fline *n = realloc(f->lines, cap * sizeof(*n));
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

struct fl_map_entry *fl_map_find(const struct fl_map *m, const char *k, size_t n)
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
struct fl_map_entry *fl_map_get(struct fl_map *m, const char *k, size_t n)
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

/* Lines read as flamegraph.pl reads them, as they are: the first ones
 * borrowed, not copied (they are as many as the input's lines). */
static int fl_add_lines(struct pprof_flame *f, const struct pp_flines *fl)
{
	f->ignored += fl->ignored;
	if (f->nlines == 0 && fl->n > 0) {
		if (!f->borrowed)
			free(f->lines);
		f->lines = fl->l;
		f->nlines = fl->n;
		f->caplines = fl->n;
		f->borrowed = true;
		return PPROF_OK;
	}
	for (size_t i = 0; i < fl->n; i++) {
		int s = fl_push_line(f, &fl->l[i]);
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
	struct pp_fline l;
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
		int64_t t0 = p->seq[i].time;
		i = j;
		if (node == 0 || node >= p->nnodes || value <= 0)
			continue;
		if (!f->have_time0 && f->nlines == m->first) {
			f->time0 = t0 > 0 ? (double)t0 : 0;
			f->have_time0 = true;
		}
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

int pprof_flame_threads(struct pprof_profile *p, struct pprof_flame_thread **threads, size_t *n)
{
	*threads = NULL;
	*n = 0;
	if (p->format != PPROF_FMT_TRACE)
		return PPROF_OK;
	int s = pp_settle(p);
	if (s != PPROF_OK)
		return s;
	uint32_t kname = pp_label_key(p, "thread"), kpid = pp_label_key(p, "pid"),
		 ktid = pp_label_key(p, "tid");
	if (kpid == 0 || ktid == 0)
		return PPROF_OK;
	struct pprof_flame_thread *out = NULL;
	size_t k = 0;
	for (uint32_t e = 0; e < p->nentries; e++) {
		uint32_t ls = p->entries[e].labels;
		if (ls == 0 || ls >= p->nlabelsets)
			continue;
		int64_t pid = 0, tid = 0;
		bool have_pid = false, have_tid = false;
		uint32_t name = 0;
		for (uint32_t i = p->labelsets[ls]; i < p->labelsets[ls + 1]; i++) {
			const struct pp_label *l = &p->labels[i];
			if (l->key == kpid && l->str == 0) {
				pid = l->num;
				have_pid = true;
			} else if (l->key == ktid && l->str == 0) {
				tid = l->num;
				have_tid = true;
			} else if (kname && l->key == kname) {
				name = l->str;
			}
		}
		if (!have_pid || !have_tid)
			continue;
		size_t j = 0;
		while (j < k && !(out[j].pid == pid && out[j].tid == tid))
			j++;
		if (j < k)
			continue;
		struct pprof_flame_thread *nb = realloc(out, (k + 1) * sizeof(*out));
		size_t vn = name ? pp_strlen(p, name) : 0;
		char *c = malloc(vn + 1);
		if (!nb || !c) {
			free(c);
			pprof_flame_threads_free(nb ? nb : out, k);
			return PPROF_ENOMEM;
		}
		out = nb;
		if (vn)
			memcpy(c, pp_str(p, name), vn);
		c[vn] = '\0';
		out[k++] = (struct pprof_flame_thread){c, pid, tid};
	}
	*threads = out;
	*n = k;
	return PPROF_OK;
}

void pprof_flame_threads_free(struct pprof_flame_thread *threads, size_t n)
{
	for (size_t i = 0; threads && i < n; i++)
		free(threads[i].name);
	free(threads);
}
