/* fold.c: the profile as folded stacks, in bytewise order, without building
 * the lines first.
 *
 * Frames are named at the chosen granularity and the tree is rebuilt on the
 * names (so frames that print alike merge).  Lines then come out of one
 * depth-first walk: at each node, a child contributes two items, its own line
 * (key NAME) and its descendants' lines (key "NAME;"); sorting the items
 * bytewise orders every line below the node, because names hold no ';'. */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "folded_private.h"

struct dnode {
	uint32_t name;   /* string id of the printed name */
	uint32_t first;  /* index of the first child in the children array */
	uint32_t count;  /* number of children */
	uint32_t parent; /* its parent display node (in the padding) */
	int64_t value;
};

struct item {
	uint32_t node;
	uint32_t desc; /* 0: the node's own line; 1: its descendants */
};

struct folder {
	struct pprof_profile *p;
	struct dnode *dn;
	uint32_t ndn;
	uint32_t *children;
	size_t capdn, nchildren; /* the sizes dn and children were made with */
};

/* Bytewise order of NAME (desc 0) or NAME";" (desc 1). */
static int item_cmp_ctx(const struct item *a, const struct item *b, const struct folder *f)
{
	const struct pprof_profile *p = f->p;
	uint32_t na = f->dn[a->node].name, nb = f->dn[b->node].name;
	size_t la = pp_strlen(p, na), lb = pp_strlen(p, nb);
	size_t m = la < lb ? la : lb;
	int c = memcmp(pp_str(p, na), pp_str(p, nb), m);
	if (c)
		return c;
	/* One name is a prefix of the other (or they are equal): compare the
	 * next byte, which is ';' for a descendants item and "end" otherwise. */
	int ca = la > m ? (unsigned char)pp_str(p, na)[m] : (a->desc ? ';' : -1);
	int cb = lb > m ? (unsigned char)pp_str(p, nb)[m] : (b->desc ? ';' : -1);
	if (ca == cb) /* equal names: only one node's own and descendants items */
		return a->node != b->node ? (a->node < b->node ? -1 : 1) : (int)a->desc - (int)b->desc;
	return ca < cb ? -1 : 1;
}

/* qsort has no context argument in C11; the walk is single-threaded. */
static const struct folder *sort_ctx;
static int item_cmp(const void *a, const void *b)
{
	return item_cmp_ctx(a, b, sort_ctx);
}

/* An open-addressing map from (parent, name) to a display node: a slot
 * holds the node + 1 (0 = empty), its key is read back from the node, so a
 * slot is 4 bytes (a profile of millions of nodes has as many slots). */
struct dmap {
	uint32_t *slots;
	uint32_t cap;
};

/* The selected value of the entry in the low half of K. */
static inline int64_t entry_value(const struct pprof_profile *p, uint64_t k, int sel)
{
	return p->values[(size_t)(uint32_t)k * p->ntypes + (uint32_t)sel];
}

/* Sorts K[0 .. n) by their high halves (node ids), keeping the order of
 * equal ones: two passes of a radix sort on 16 bits each. */
static int sort_by_node(struct pprof_profile *p, uint64_t *k, size_t n)
{
	if (n < 2)
		return PPROF_OK;
	uint64_t *t = pp_big_calloc(n, sizeof(*t));
	size_t *count = calloc((size_t)1 << 16, sizeof(*count));
	if (!t || !count) {
		pp_big_free(t, n, sizeof(*t));
		free(count);
		return pp_nomem(p);
	}
	uint64_t *from = k, *to = t;
	for (unsigned shift = 32; shift < 64; shift += 16) {
		memset(count, 0, ((size_t)1 << 16) * sizeof(*count));
		for (size_t i = 0; i < n; i++)
			count[(from[i] >> shift) & 0xffff]++;
		size_t sum = 0;
		for (size_t c = 0; c < ((size_t)1 << 16); c++) {
			size_t x = count[c];
			count[c] = sum;
			sum += x;
		}
		for (size_t i = 0; i < n; i++)
			to[count[(from[i] >> shift) & 0xffff]++] = from[i];
		uint64_t *sw = from;
		from = to;
		to = sw;
	}
	/* two passes: the sorted keys are back in K */
	pp_big_free(t, n, sizeof(*t));
	free(count);
	return PPROF_OK;
}

static int build(struct folder *f, const struct pprof_fold_options *o)
{
	struct pprof_profile *p = f->p;
	int sel = o->sample_index;
	int status = PPROF_OK;
	/* Only walks follow: the child index is not needed while folding. */
	pp_drop_node_index(p);
	uint32_t *fname = malloc((size_t)p->nframes * sizeof(*fname));
	/* The arrays of millions of entries are mappings of their own: they
	 * go back to the system when freed, before the next ones are made. */
	size_t nn = p->nnodes;
	size_t ne = p->nentries;
	uint64_t *byn = pp_big_calloc(ne, sizeof(*byn));
	uint32_t *dof = pp_big_calloc(nn, sizeof(*dof));
	struct dmap m = {0};
	f->dn = pp_big_calloc(nn, sizeof(*f->dn));
	f->capdn = nn;
	if (!fname || !byn || !dof || !f->dn) {
		status = pp_nomem(p);
		goto out;
	}

	/* 1. Printed names of the frames, interned in the profile's strings. */
	struct pp_buf b;
	pp_buf_init(&b);
	fname[0] = 0;
	for (uint32_t i = 1; i < p->nframes; i++) {
		pp_buf_reset(&b);
		if (!pp_frame_name(p, i, o->granularity, &b)) {
			pp_buf_release(&b);
			status = pp_nomem(p);
			goto out;
		}
		status = pp_intern(p, b.s, b.len, &fname[i]);
		if (status != PPROF_OK) {
			pp_buf_release(&b);
			goto out;
		}
	}
	pp_buf_release(&b);

	/* 2. The entries in node order (entry order among a node's): a node's
	 * value is then summed as step 3 reaches it, from a list of the
	 * entries (a few per sample) rather than an array of every node. */
	for (size_t e = 0; e < ne; e++)
		byn[e] = (uint64_t)p->entries[e].node << 32 | e;
	status = sort_by_node(p, byn, ne);
	if (status != PPROF_OK)
		goto out;
	size_t at_e = 0;
	int64_t rootval = 0; /* the root's own value is not printed, but summed */
	for (; at_e < ne && (byn[at_e] >> 32) == 0; at_e++)
		if (__builtin_add_overflow(rootval, entry_value(p, byn[at_e], sel), &rootval)) {
			status = pp_error(p, PPROF_EINPUT, "sum of values leaves the 64-bit range");
			goto out;
		}

	/* 3. The tree on printed names; a parent always has a smaller id than
	 * its children, so one pass in id order suffices.  When no two frames
	 * print alike (folded input, most V8 profiles at -g lines), it is the
	 * tree itself and needs no map. */
	bool injective = true;
	{
		uint8_t *seen = calloc(p->nstrs, 1);
		if (!seen) {
			status = pp_nomem(p);
			goto out;
		}
		for (uint32_t i = 1; i < p->nframes && injective; i++) {
			if (seen[fname[i]])
				injective = false;
			seen[fname[i]] = 1;
		}
		free(seen);
	}
	f->ndn = 1;
	f->dn[0] = (struct dnode){0, 0, 0, 0, 0};
	dof[0] = 0;
	if (!injective) {
		m.cap = 1024;
		while (m.cap < nn + nn / 4 + 1 && m.cap < (1u << 31))
			m.cap *= 2;
		m.slots = pp_big_calloc(m.cap, sizeof(*m.slots));
		if (!m.slots) {
			status = pp_nomem(p);
			goto out;
		}
	}
	for (uint32_t n = 1; n < p->nnodes; n++) {
		uint32_t dp = dof[p->nodes[n].parent];
		uint32_t name = fname[p->nodes[n].frame];
		uint32_t d;
		if (injective) {
			d = f->ndn++;
			f->dn[d] = (struct dnode){name, 0, 0, dp, 0};
			f->dn[dp].count++;
		} else {
			uint64_t key = ((uint64_t)dp << 32) | name;
			uint64_t h = key * 0x9E3779B97F4A7C15ull;
			uint32_t s = (uint32_t)(h >> 32) & (m.cap - 1);
			for (;;) {
				uint32_t v = m.slots[s];
				if (!v || (f->dn[v - 1].name == name && f->dn[v - 1].parent == dp))
					break;
				s = (s + 1) & (m.cap - 1);
			}
			if (m.slots[s]) {
				d = m.slots[s] - 1;
			} else {
				d = f->ndn++;
				f->dn[d] = (struct dnode){name, 0, 0, dp, 0};
				m.slots[s] = d + 1;
				f->dn[dp].count++;
			}
		}
		dof[n] = d;
		int64_t nval = 0;
		for (; at_e < ne && (byn[at_e] >> 32) == n; at_e++)
			if (__builtin_add_overflow(nval, entry_value(p, byn[at_e], sel), &nval)) {
				status = pp_error(p, PPROF_EINPUT,
						  "sum of values leaves the 64-bit range");
				goto out;
			}
		if (__builtin_add_overflow(f->dn[d].value, nval, &f->dn[d].value)) {
			status = pp_error(p, PPROF_EINPUT, "sum of values leaves the 64-bit range");
			goto out;
		}
	}
	pp_big_free(byn, ne, sizeof(*byn));
	byn = NULL;
	pp_big_free(m.slots, m.cap, sizeof(*m.slots));
	m.slots = NULL;

	/* 4. Children lists (CSR).  Display nodes were also made parent first. */
	f->nchildren = f->ndn ? f->ndn : 1;
	f->children = pp_big_calloc(f->nchildren, sizeof(*f->children));
	if (!f->children) {
		status = pp_nomem(p);
		goto out;
	}
	uint32_t at = 0;
	for (uint32_t d = 0; d < f->ndn; d++) {
		f->dn[d].first = at;
		at += f->dn[d].count;
		f->dn[d].count = 0;
	}
	/* Display nodes were made parent first, in node order. */
	uint32_t last = 0;
	for (uint32_t n = 1; n < p->nnodes; n++) {
		uint32_t d = dof[n];
		if (d <= last)
			continue; /* merged into an earlier display node */
		last = d;
		uint32_t dp = dof[p->nodes[n].parent];
		f->children[f->dn[dp].first + f->dn[dp].count++] = d;
	}
out:
	free(fname);
	pp_big_free(byn, ne, sizeof(*byn));
	pp_big_free(dof, nn, sizeof(*dof));
	pp_big_free(m.slots, m.cap, sizeof(*m.slots));
	return status;
}

int pprof_fold_each(struct pprof_profile *p, const struct pprof_fold_options *o,
		    int (*emit)(void *ctx, const char *stack, size_t len, int64_t value),
		    void *ctx)
{
	if (o->sample_index < 0 || (uint32_t)o->sample_index >= p->ntypes)
		return pp_error(p, PPROF_EUSAGE, "no sample type selected");
	/* Folded text nothing has changed: its lines as they are. */
	struct pprof_folded *lines;
	bool done;
	int s = pp_flines_fold(p, o, &lines, &done);
	if (s != PPROF_OK || done) {
		for (size_t i = 0; s == PPROF_OK && done && i < lines->n; i++)
			s = emit(ctx, lines->lines[i].stack, lines->lines[i].len, lines->lines[i].value);
		if (done)
			pprof_folded_free(lines);
		return s;
	}
	int settled = pp_settle(p);
	if (settled != PPROF_OK)
		return settled;
	struct folder f = {p, NULL, 0, NULL, 0, 0};
	int status = build(&f, o);
	struct item *items = NULL;
	size_t nitems = 0, capitems = 0;
	/* The walk's stack: per level, where its items start, the next one, and
	 * the length of the path string at that level. */
	struct level {
		size_t begin, next, end, pathlen;
	} *lv = NULL;
	size_t nlv = 0, caplv = 0;
	struct pp_buf path;
	pp_buf_init(&path);
	if (status != PPROF_OK)
		goto out;

	uint32_t node = 0;
	for (;;) {
		/* Enter NODE: push its children's items, sorted. */
		const struct dnode *d = &f.dn[node];
		size_t need = nitems + 2 * (size_t)d->count;
		if (need > capitems) {
			size_t cap = capitems ? capitems : 256;
			while (cap < need)
				cap *= 2;
			struct item *ni = realloc(items, cap * sizeof(*ni));
			if (!ni) {
				status = pp_nomem(p);
				goto out;
			}
			items = ni;
			capitems = cap;
		}
		size_t begin = nitems;
		for (uint32_t k = 0; k < d->count; k++) {
			uint32_t c = f.children[d->first + k];
			if (f.dn[c].value != 0)
				items[nitems++] = (struct item){c, 0};
			if (f.dn[c].count)
				items[nitems++] = (struct item){c, 1};
		}
		sort_ctx = &f;
		if (nitems - begin > 1)
			qsort(items + begin, nitems - begin, sizeof(*items), item_cmp);
		if (nlv == caplv) {
			size_t cap = caplv ? caplv * 2 : 64;
			struct level *nl = realloc(lv, cap * sizeof(*nl));
			if (!nl) {
				status = pp_nomem(p);
				goto out;
			}
			lv = nl;
			caplv = cap;
		}
		lv[nlv++] = (struct level){begin, begin, nitems, path.len};

		/* Take the next item of the innermost level; pop finished levels. */
		for (;;) {
			if (nlv == 0)
				goto out;
			struct level *l = &lv[nlv - 1];
			if (l->next == l->end) {
				nitems = l->begin;
				nlv--;
				continue;
			}
			struct item it = items[l->next++];
			const struct dnode *c = &f.dn[it.node];
			path.len = l->pathlen;
			if (path.len && !pp_buf_addc(&path, ';')) {
				status = pp_nomem(p);
				goto out;
			}
			if (!pp_buf_add(&path, pp_str(p, c->name), pp_strlen(p, c->name))) {
				status = pp_nomem(p);
				goto out;
			}
			if (it.desc == 0) {
				status = emit(ctx, path.s, path.len, c->value);
				if (status != PPROF_OK)
					goto out;
				continue;
			}
			node = it.node;
			break;
		}
	}
out:
	pp_buf_release(&path);
	free(items);
	free(lv);
	pp_big_free(f.dn, f.capdn, sizeof(*f.dn));
	pp_big_free(f.children, f.nchildren, sizeof(*f.children));
	return status;
}

/* ---- folded lines in memory ---- */

struct collect {
	struct pprof_profile *p;
	struct pprof_folded *f;
	size_t cap, bufcap;
};

static int collect_line(void *ctx, const char *stack, size_t len, int64_t value)
{
	struct collect *c = ctx;
	struct pprof_folded *f = c->f;
	if (f->n == c->cap) {
		size_t cap = c->cap ? c->cap * 2 : 1024;
		struct pprof_folded_line *l = realloc(f->lines, cap * sizeof(*l));
		if (!l)
			return pp_nomem(c->p);
		f->lines = l;
		c->cap = cap;
	}
	if (f->buflen + len > c->bufcap) {
		size_t cap = c->bufcap ? c->bufcap : 65536;
		while (cap < f->buflen + len)
			cap *= 2;
		char *b = realloc(f->buf, cap);
		if (!b)
			return pp_nomem(c->p);
		f->buf = b;
		c->bufcap = cap;
	}
	memcpy(f->buf + f->buflen, stack, len);
	/* Offsets for now: the buffer moves while it grows. */
	f->lines[f->n].stack = (const char *)(uintptr_t)f->buflen;
	f->lines[f->n].len = len;
	f->lines[f->n].value = value;
	f->buflen += len;
	f->n++;
	if (__builtin_add_overflow(f->total, value, &f->total))
		return pp_error(c->p, PPROF_EINPUT, "sum of values leaves the 64-bit range");
	return PPROF_OK;
}

int pprof_fold(struct pprof_profile *p, const struct pprof_fold_options *o,
	       struct pprof_folded **out)
{
	/* Folded text nothing has changed: its lines, not copied. */
	if (o->sample_index >= 0 && (uint32_t)o->sample_index < p->ntypes) {
		bool done;
		int s = pp_flines_fold(p, o, out, &done);
		if (s != PPROF_OK || done)
			return s;
	}
	struct pprof_folded *f = calloc(1, sizeof(*f));
	if (!f)
		return pp_nomem(p);
	struct collect c = {p, f, 0, 0};
	int s = pprof_fold_each(p, o, collect_line, &c);
	if (s != PPROF_OK) {
		pprof_folded_free(f);
		return s;
	}
	for (size_t i = 0; i < f->n; i++)
		f->lines[i].stack = f->buf + (uintptr_t)f->lines[i].stack;
	*out = f;
	return PPROF_OK;
}

void pprof_folded_free(struct pprof_folded *f)
{
	if (!f)
		return;
	free(f->lines);
	free(f->buf);
	free(f);
}

/* Folded lines go out through a buffer of their own, 1 MiB at a time: one
 * fwrite() per line (two with its value) cost as much as the walk on a
 * profile that folds to gigabytes of text. */
#define WBUF_SIZE ((size_t)1 << 20)

struct writer {
	struct pprof_profile *p;
	FILE *out;
	char *buf;
	size_t len;
};

static int writer_flush(struct writer *w)
{
	if (w->len && fwrite(w->buf, 1, w->len, w->out) != w->len)
		return PPROF_EIO;
	w->len = 0;
	return PPROF_OK;
}

/* " VALUE\n" into D (at least 22 bytes); its length. */
static size_t format_value(char *d, int64_t value)
{
	char t[24];
	size_t n = 0;
	uint64_t u = value < 0 ? 0 - (uint64_t)value : (uint64_t)value;
	do {
		t[n++] = (char)('0' + u % 10);
		u /= 10;
	} while (u);
	size_t k = 0;
	d[k++] = ' ';
	if (value < 0)
		d[k++] = '-';
	while (n)
		d[k++] = t[--n];
	d[k++] = '\n';
	return k;
}

static int write_line(struct writer *w, const char *stack, size_t len, int64_t value)
{
	if (w->len + len + 24 > WBUF_SIZE) {
		if (writer_flush(w) != PPROF_OK)
			return PPROF_EIO;
		if (len + 24 > WBUF_SIZE) { /* a stack longer than the buffer */
			if (fwrite(stack, 1, len, w->out) != len)
				return PPROF_EIO;
			len = 0;
		}
	}
	memcpy(w->buf + w->len, stack, len);
	w->len += len;
	w->len += format_value(w->buf + w->len, value);
	return PPROF_OK;
}

int pprof_folded_write(const struct pprof_folded *f, FILE *out)
{
	for (size_t i = 0; i < f->n; i++) {
		char num[24];
		size_t n = format_value(num, f->lines[i].value);
		if (fwrite(f->lines[i].stack, 1, f->lines[i].len, out) != f->lines[i].len ||
		    fwrite(num, 1, n, out) != n)
			return PPROF_EIO;
	}
	return PPROF_OK;
}

static int write_emit(void *ctx, const char *stack, size_t len, int64_t value)
{
	struct writer *w = ctx;
	if (write_line(w, stack, len, value) != PPROF_OK)
		return pp_error(w->p, PPROF_EIO, "write error: %s", strerror(errno));
	return PPROF_OK;
}

int pprof_fold_write(struct pprof_profile *p, const struct pprof_fold_options *o, FILE *out)
{
	struct writer w = {p, out, malloc(WBUF_SIZE), 0};
	if (!w.buf)
		return pp_nomem(p);
	int s = pprof_fold_each(p, o, write_emit, &w);
	if (s == PPROF_OK && writer_flush(&w) != PPROF_OK)
		s = pp_error(p, PPROF_EIO, "write error: %s", strerror(errno));
	free(w.buf);
	return s;
}
