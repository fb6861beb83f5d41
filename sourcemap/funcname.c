/*
 * funcname.c: the name of the original function a generated position is
 * in (smap_function_at()).
 *
 * V8 puts a function at the '(' of its parameters (a lone arrow parameter,
 * "async" of an async arrow).  In order, stopping at the first that knows:
 * the map's scopes; the generated script (when given): the function that
 * starts there, and the original function its body maps into (a vote of
 * the first mapped tokens of the body, nested functions left out), named
 * by the mapping's name at the generated naming token (P in P=i=>, the key,
 * the method name), as DevTools does, when that token maps to the original
 * function's own naming token, else by the original source's tokens
 * (sourcesContent); without the script, the original function whose head
 * holds the mapped position.  Each text is tokenized once, when first
 * needed.
 */
#include "smap_private.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "jstoken.h"
#include "names_private.h"

#define NIL UINT32_MAX
#define VOTES 16
/* Without a source text, how far below the naming token the first mapped
 * token of the body may lie for the name to be the function's: a body's
 * first statement can follow a comment, or the parameter defaults a
 * compiler lowered into it (acorn's dist: six lines of if (a === void 0)
 * before a body's first token a minifier kept).  Two lines lost those on
 * real libraries (acorn, marked, js-yaml through esbuild, webpack, vite:
 * 87, 73, 83% of the weight named, against 94, 81, 93 at 16) and named
 * no frame more rightly on the fixtures. */
#define NAME_BODY 16

struct memo {
	uint64_t key; /* line << 32 | column, plus one: 0 is an empty slot */
	struct smap_function fn;
};

static void memo_clear(struct pp_smap_names *n)
{
	free(n->memo);
	n->memo = NULL;
	n->nmemo = n->memocap = 0;
}

static uint64_t memo_key(uint32_t line, uint32_t col)
{
	return ((uint64_t)line << 32 | col) + 1;
}

static size_t memo_slot(const struct pp_smap_names *n, uint64_t key)
{
	uint64_t h = key * 0x9e3779b97f4a7c15u;
	size_t i = (size_t)(h >> 32) & (n->memocap - 1);
	while (n->memo[i].key && n->memo[i].key != key)
		i = (i + 1) & (n->memocap - 1);
	return i;
}

static const struct smap_function *memo_get(const struct pp_smap_names *n, uint32_t line,
					    uint32_t col)
{
	if (!n->memocap)
		return NULL;
	size_t i = memo_slot(n, memo_key(line, col));
	return n->memo[i].key ? &n->memo[i].fn : NULL;
}

/* Remembers FN (nothing when out of memory: it is only asked again) */
static void memo_put(struct pp_smap_names *n, uint32_t line, uint32_t col,
		     const struct smap_function *fn)
{
	if ((n->nmemo + 1) * 2 > n->memocap) {
		size_t cap = n->memocap ? n->memocap * 2 : 1024;
		struct memo *old = n->memo, *nm = calloc(cap, sizeof(*nm));
		if (!nm)
			return;
		size_t oldcap = n->memocap;
		n->memo = nm;
		n->memocap = cap;
		for (size_t i = 0; i < oldcap; i++)
			if (old[i].key)
				n->memo[memo_slot(n, old[i].key)] = old[i];
		free(old);
	}
	size_t i = memo_slot(n, memo_key(line, col));
	if (!n->memo[i].key) {
		n->memo[i].key = memo_key(line, col);
		n->memo[i].fn = *fn;
		n->nmemo++;
	}
}

static void text_release(struct text *t)
{
	if (!t->toks.heap)
		pp_js_big_free(t->ck, (t->toks.n / CK + 1) * sizeof(*t->ck));
	pp_js_toks_release(&t->toks);
	pp_js_funcs_release(&t->funcs);
	memset(t, 0, sizeof(*t));
}

static void script_release(struct pp_smap_names *n)
{
	if (n->smapped)
		munmap(n->script, n->slen);
	else
		free(n->script);
	n->script = NULL;
	n->slen = 0;
	n->smapped = false;
}

void pp_smap_names_free(struct pp_smap_names *n)
{
	if (!n)
		return;
	text_release(&n->gen);
	for (size_t i = 0; i < n->nsrc; i++)
		text_release(&n->src[i]);
	free(n->src);
	free(n->canon);
	if (n->files)
		for (size_t i = 0; i < n->nsrc; i++)
			free(n->files[i]);
	free(n->files);
	if (n->located)
		for (size_t i = 0; i < n->nsrc; i++)
			free(n->located[i].path);
	free(n->located);
	free(n->srcdir);
	free(n->location);
	script_release(n);
	memo_clear(n);
	pp_js_heap_release(&n->heap2);
	pp_js_heap_release(&n->heapg);
	free(n);
}

/* S (LEN bytes, a NUL after them; MAPPED: a mapping of its file) becomes
 * the generated script, in place of any before it. */
static void adopt_script(struct pp_smap_names *n, char *s, size_t len, bool mapped)
{
	text_release(&n->gen);
	script_release(n);
	memo_clear(n);
	n->script = s;
	n->slen = len;
	n->smapped = mapped;
}

int smap_map_set_script(struct smap_map *m, const void *text, size_t len)
{
	struct pp_smap_names *n = pp_smap_names_of(m);
	if (!n)
		return pp_smap_fail(m, SMAP_ENOMEM, "out of memory");
	char *c = malloc(len + 1);
	if (!c)
		return pp_smap_fail(m, SMAP_ENOMEM, "out of memory");
	memcpy(c, text, len);
	c[len] = '\0';
	adopt_script(n, c, len, false);
	return SMAP_OK;
}

int smap_map_load_script(struct smap_map *m, const char *path)
{
	struct pp_smap_names *n = pp_smap_names_of(m);
	if (!n)
		return pp_smap_fail(m, SMAP_ENOMEM, "out of memory");
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return pp_smap_fail(m, SMAP_EIO, "%s: %s", path, strerror(errno));
	struct stat st;
	long pg = sysconf(_SC_PAGESIZE);
	/* mapped when a NUL follows it in its last page (as after a copy) */
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0 && pg > 0 &&
	    (uint64_t)st.st_size < SIZE_MAX && st.st_size % pg != 0) {
		size_t len = (size_t)st.st_size;
		void *p = mmap(NULL, len, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, 0);
		if (p != MAP_FAILED) {
			close(fd);
			adopt_script(n, p, len, true);
			return SMAP_OK;
		}
	}
	/* read, as a copy */
	size_t cap = 1 << 16, got = 0;
	char *buf = malloc(cap + 1);
	for (;;) {
		if (!buf) {
			close(fd);
			return pp_smap_fail(m, SMAP_ENOMEM, "out of memory");
		}
		if (got == cap) {
			char *nb = cap > SIZE_MAX / 4 ? NULL : realloc(buf, cap * 2 + 1);
			if (!nb)
				free(buf);
			buf = nb;
			cap *= 2;
			continue;
		}
		ssize_t r = read(fd, buf + got, cap - got);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			int e = errno;
			free(buf);
			close(fd);
			return pp_smap_fail(m, SMAP_EIO, "%s: %s", path, strerror(e));
		}
		if (r == 0)
			break;
		got += (size_t)r;
	}
	close(fd);
	buf[got] = '\0';
	adopt_script(n, buf, got, false);
	return SMAP_OK;
}

/* Sets the path at offsetof(struct pp_smap_names, FIELD) to a copy of
 * PATH (NULL: none); the names known so far are forgotten. */
static int set_path(struct smap_map *m, size_t field, const char *path)
{
	struct pp_smap_names *n = pp_smap_names_of(m);
	if (!n)
		return pp_smap_fail(m, SMAP_ENOMEM, "out of memory");
	char *d = NULL;
	if (path && !(d = strdup(path)))
		return pp_smap_fail(m, SMAP_ENOMEM, "out of memory");
	char **slot = (char **)((char *)n + field);
	free(*slot);
	*slot = d;
	memo_clear(n);
	return SMAP_OK;
}

int smap_map_set_source_dir(struct smap_map *m, const char *dir)
{
	return set_path(m, offsetof(struct pp_smap_names, srcdir), dir);
}

int smap_map_set_location(struct smap_map *m, const char *path)
{
	return set_path(m, offsetof(struct pp_smap_names, location), path);
}

struct pos {
	uint32_t line, col;
};

/* The position of token I. */
static struct pos tpos(const struct text *ct, size_t i)
{
	/* the texts are the map's cache: the cursor moves under const */
	struct text *t = (struct text *)ct;
	struct pp_js_walk w = t->ck[i / CK];
	if (t->cur_i <= i && t->cur_i >= i / CK * CK)
		w = t->cur;
	pp_js_walk_to(t->s, t->len, t->toks.t[i].off, &w);
	t->cur_i = i;
	t->cur = w;
	return (struct pos){w.line, w.col};
}

/* What a text is: the generated script (JavaScript), a TypeScript source
 * (.ts, .mts, .cts: <T>x is a type assertion), another source (JSX too:
 * .tsx, .jsx, .js), or a single-file component (.vue, .svelte: scripts in
 * markup). */
enum lang { L_SCRIPT, L_TS, L_JSX, L_SFC };

/* Tokenizes T (once) and finds its functions and token positions; the
 * arrays in the map's heap. */
static bool text_ready_in(struct pp_js_heap *h, struct text *t, const char *s, size_t len,
			  enum lang lang)
{
	if (t->tried)
		return t->ok;
	t->tried = true;
	if (len > UINT32_MAX)
		return false;
	if (lang == L_SFC) {
		/* its scripts where they are, the markup blanked */
		char *b = pp_js_heap_alloc(h, len);
		if (!b)
			return false;
		pp_js_sfc_scripts(s, len, b);
		s = b;
	}
	t->s = s;
	t->len = len;
	if (pp_js_tokenize_jsx(s, len, lang == L_JSX, &t->toks, h))
		return false;
	t->markup = lang == L_SFC || t->toks.jsx;
	if (pp_js_functions_in(s, &t->toks, lang == L_SCRIPT, &t->funcs))
		goto fail;
	t->ck = pp_js_heap_alloc(h, (t->toks.n / CK + 1) * sizeof(*t->ck));
	if (!t->ck)
		goto fail;
	pp_js_walk_marks(s, len, t->toks.t, t->toks.n, CK, t->ck);
	t->cur_i = 0;
	t->cur = t->ck[0];
	t->ok = true;
	return true;
fail:
	text_release(t);
	t->tried = true;
	return false;
}

/* Whether the first N bytes of R end in EXT. */
static bool name_ends(const char *r, size_t n, const char *ext)
{
	size_t e = strlen(ext);
	return n > e && memcmp(r + n - e, ext, e) == 0;
}

/* What source I of M is, by its name's end (a query after it aside). */
static enum lang source_lang(struct smap_map *m, size_t i)
{
	static const struct {
		const char *ext;
		enum lang lang;
	} by_ext[] = {{".ts", L_TS},
		      {".mts", L_TS},
		      {".cts", L_TS},
		      {".vue", L_SFC},
		      {".svelte", L_SFC}};
	const char *r = i < m->nsrc ? m->src[i].raw : NULL;
	size_t n = r ? strcspn(r, "?#") : 0;
	for (size_t k = 0; k < sizeof(by_ext) / sizeof(by_ext[0]); k++)
		if (name_ends(r, n, by_ext[k].ext))
			return by_ext[k].lang;
	return L_JSX;
}

/* Source I's text S. */
static bool text_ready(struct smap_map *m, struct text *t, size_t i, const char *s, size_t len)
{
	return text_ready_in(&m->heap, t, s, len, source_lang(m, i));
}

static bool pos_before(struct pos p, uint32_t line, uint32_t col)
{
	return p.line < line || (p.line == line && p.col < col);
}

/* The first token at or after LINE:COL: the last checkpoint before it, then
 * token by token from there. */
static size_t tok_at(const struct text *t, uint32_t line, uint32_t col)
{
	size_t n = t->toks.n, nb = (n + CK - 1) / CK;
	size_t lo = 0, hi = nb;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		struct pos p = {t->ck[mid].line, t->ck[mid].col};
		if (pos_before(p, line, col))
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0)
		return 0;
	size_t end = lo * CK < n ? lo * CK : n;
	for (size_t i = (lo - 1) * CK + 1; i < end; i++)
		if (!pos_before(tpos(t, i), line, col))
			return i;
	return end;
}

static bool tok_exact(const struct text *t, uint32_t line, uint32_t col, size_t *i)
{
	*i = tok_at(t, line, col);
	if (*i >= t->toks.n)
		return false;
	struct pos p = tpos(t, *i);
	return p.line == line && p.col == col;
}

/* The "class" keyword at LINE:COL of T, or after an "export" or "export
 * default" there (where a map may put a class's head), else NIL.  V8 puts
 * there the default constructor of a class without one of its own (a
 * heap snapshot's class location too), where no function of the text
 * starts. */
static size_t class_keyword(const struct text *t, uint32_t line, uint32_t col)
{
	size_t i;
	if (!tok_exact(t, line, col, &i))
		return NIL;
	if (i + 1 < t->toks.n && pp_js_tok_is(t->s, &t->toks.t[i], "export"))
		i++;
	if (i + 1 < t->toks.n && pp_js_tok_is(t->s, &t->toks.t[i], "default"))
		i++;
	return pp_js_tok_is(t->s, &t->toks.t[i], "class") ? i : NIL;
}

/* The token that names the class whose "class" keyword is token I, or
 * NULL: V8 names a default constructor by its class ("class extends Y"
 * has none). */
static const struct pp_js_tok *class_name(const struct text *t, size_t i)
{
	if (i + 1 >= t->toks.n)
		return NULL;
	const struct pp_js_tok *k = &t->toks.t[i + 1];
	if (pp_js_tok_kind(k) != PP_JS_IDENT || pp_js_tok_is(t->s, k, "extends") ||
	    pp_js_tok_is(t->s, k, "implements"))
		return NULL;
	return k;
}

static bool same_source(struct smap_map *m, size_t a, size_t b)
{
	return a == b || pp_smap_canon(m, a) == pp_smap_canon(m, b);
}

/* Whether mapping A lies just before mapping B, in B's source: at it or
 * before it, two lines up at most (a naming token before its function's
 * head). */
static bool just_before(struct smap_map *m, const struct smap_mapping *a,
			const struct smap_mapping *b)
{
	return same_source(m, a->source_index, b->source_index) &&
	       (a->line < b->line || (a->line == b->line && a->column <= b->column)) &&
	       b->line - a->line <= 2;
}

static struct text *source_text(struct smap_map *m, size_t i)
{
	struct pp_smap_names *n = pp_smap_names_of(m);
	if (!n || i >= m->nsrc)
		return NULL;
	i = pp_smap_canon(m, i);
	if (!n->src) {
		if (!(n->src = calloc(m->nsrc, sizeof(*n->src))))
			return NULL;
		n->nsrc = m->nsrc;
	}
	struct text *t = &n->src[i];
	if (!m->src[i].craw) {
		size_t len = 0;
		const char *f = t->tried ? t->s : pp_smap_source_file(m, n, i, &len);
		if (!f) {
			t->tried = true; /* read once, found or not */
			return NULL;
		}
		return text_ready(m, t, i, f, t->tried ? t->len : len) ? t : NULL;
	}
	if (t->tried)
		return t->ok ? t : NULL;
	size_t len;
	const char *c = pp_smap_content(m, i, &len, false);
	if (!c)
		return NULL; /* out of memory: asked again */
	return text_ready(m, t, i, c, len) ? t : NULL;
}

size_t pp_smap_jobs_min = (size_t)1 << 20;

/* A source for smap_map_prepare_functions() to decode and tokenize. */
struct job {
	size_t src;
	size_t len; /* its sourcesContent's length, escaped */
};

/* The jobs of one thread: each source's text and arrays in H (a source is
 * in one job only, and each thread has a heap of its own). */
struct jobs {
	struct smap_map *m;
	struct job *v;
	size_t n;
	struct pp_js_heap *h;
};

static void *run_jobs(void *arg)
{
	struct jobs *js = arg;
	for (size_t i = 0; i < js->n; i++) {
		size_t len;
		const char *c = pp_smap_content_in(js->m, js->v[i].src, &len, false, js->h);
		if (c) /* else out of memory: asked again */
			(void)text_ready_in(js->h, &js->m->names->src[js->v[i].src], c, len,
					    source_lang(js->m, js->v[i].src));
	}
	return NULL;
}

static int by_len_desc(const void *a, const void *b)
{
	const struct job *x = a, *y = b;
	return (x->len < y->len) - (x->len > y->len);
}

int smap_map_prepare_functions(struct smap_map *m, const uint32_t *lines, const uint32_t *cols,
			       size_t npos)
{
	struct pp_smap_names *n = pp_smap_names_of(m);
	if (!n)
		return pp_smap_fail(m, SMAP_ENOMEM, "out of memory");
	/* a map with scopes asks them first, and may not look up at all */
	for (size_t k = 0; k < m->nsec; k++)
		if (m->sec[k].sx)
			return SMAP_OK;
	if (!m->nsrc || !npos)
		return SMAP_OK;
	if (!n->src) {
		if (!(n->src = calloc(m->nsrc, sizeof(*n->src))))
			return pp_smap_fail(m, SMAP_ENOMEM, "out of memory");
		n->nsrc = m->nsrc;
	}
	struct job *v = malloc(npos * sizeof(*v));
	bool *seen = calloc(m->nsrc, sizeof(*seen));
	size_t nj = 0, total = 0;
	int rc = SMAP_OK;
	if (!v || !seen) {
		rc = pp_smap_fail(m, SMAP_ENOMEM, "out of memory");
		goto out;
	}
	/* the sources the positions map into (the look-ups are those
	 * smap_function_at() makes first), decoded here */
	for (size_t k = 0; k < npos; k++) {
		struct smap_mapping mp;
		int r = smap_lookup(m, lines[k], cols[k], &mp);
		if (r == SMAP_ENOMEM) {
			rc = r;
			goto out;
		}
		if (r != SMAP_OK || !mp.source || mp.source_index >= m->nsrc)
			continue;
		size_t i = pp_smap_canon(m, mp.source_index);
		if (seen[i] || !m->src[i].craw || n->src[i].tried)
			continue;
		seen[i] = true;
		v[nj++] = (struct job){i, m->src[i].craw_len};
		total += m->src[i].craw_len;
	}
	/* the biggest first, each to the thread with less so far; each
	 * thread decodes its own */
	qsort(v, nj, sizeof(*v), by_len_desc);
	struct job *a = malloc((nj ? nj : 1) * sizeof(*a));
	struct jobs mine = {m, v, 0, &m->heap}, other = {m, a, 0, &n->heap2};
	if (!a || nj < 2 || total < pp_smap_jobs_min) {
		mine.n = nj; /* not worth a thread */
		run_jobs(&mine);
		free(a);
		goto out;
	}
	size_t wm = 0, wo = 0;
	for (size_t k = 0; k < nj; k++) {
		if (wm <= wo) {
			v[mine.n++] = v[k];
			wm += v[k].len;
		} else {
			a[other.n++] = v[k];
			wo += v[k].len;
		}
	}
	pthread_t th;
	bool started = pthread_create(&th, NULL, run_jobs, &other) == 0;
	run_jobs(&mine);
	if (started)
		pthread_join(th, NULL);
	else
		run_jobs(&other);
	free(a);
out:
	free(v);
	free(seen);
	return rc;
}

/* The segment that starts exactly at generated LINE:COL, or false. */
static bool exact(struct smap_map *m, uint32_t line, uint32_t col, struct smap_mapping *mp)
{
	return smap_lookup(m, line, col, mp) == SMAP_OK && mp->source &&
	       mp->generated_line == line && mp->generated_column == col;
}

/* The original word of token I of G: the map's name at it, or its own text
 * where a segment without a name starts there (not renamed); NULL where no
 * segment starts there.  Its length in *N. */
static const char *mapped_word(struct smap_map *m, const struct text *g, uint32_t i, size_t *n)
{
	struct smap_mapping mp;
	struct pos p = tpos(g, i);
	if (!exact(m, p.line, p.col, &mp))
		return NULL;
	if (mp.name) {
		*n = strlen(mp.name);
		return mp.name;
	}
	*n = pp_js_tok_len(&g->toks.t[i]);
	return g->s + g->toks.t[i].off;
}

/* Whether token I of T lies in a default value in the parameter list of
 * F ({noNewArrows = !arguments[0]?.specCompliant} = {}, f(a = g(1, b))):
 * code that runs there, where a compiler may make a function of its own
 * (esbuild lowers ?. to (r => ...)(), mapped there), not F's head. */
static bool in_default(const struct text *t, const struct pp_js_func *f, size_t i)
{
	const struct pp_js_tok *p = &t->toks.t[f->start];
	uint32_t shut = pp_js_tok_match(p);
	if (!pp_js_tok_is(t->s, p, "(") || shut == NIL || i <= f->start || i >= shut)
		return false;
	/* per open bracket from the parameters' '(' on: after a '=' of its
	 * own, before the ',' that ends that element */
	bool dflt[64] = {false};
	size_t d = 0;
	for (size_t j = f->start + 1; j < i; j++) {
		const struct pp_js_tok *q = &t->toks.t[j];
		if (pp_js_tok_kind(q) != PP_JS_PUNCT || pp_js_tok_len(q) != 1)
			continue;
		char ch = t->s[q->off];
		if (ch == '(' || ch == '[' || ch == '{') {
			if (d + 1 < sizeof(dflt) / sizeof(dflt[0]))
				dflt[++d] = false;
		} else if (ch == ')' || ch == ']' || ch == '}') {
			if (d)
				d--;
		} else if (ch == '=') {
			dflt[d] = true;
		} else if (ch == ',') {
			dflt[d] = false;
		}
	}
	for (size_t k = 0; k <= d; k++)
		if (dflt[k])
			return true;
	return false;
}

/* The original function around a mapped position: the innermost whose
 * body or parameter list holds it.  A generated body's tokens may map into
 * the parameters: TypeScript's parameter properties (constructor(public
 * id) becomes this.id=e in the body, mapped to "public id"), defaults a
 * compiler moved into the body. */
static const struct pp_js_func *holding(struct smap_map *m, const struct smap_mapping *mp,
					 struct text **src)
{
	struct text *t = source_text(m, mp->source_index);
	*src = t;
	if (!t)
		return NULL;
	size_t i = tok_at(t, mp->line, mp->column);
	if (i >= t->toks.n)
		return NULL;
	const struct pp_js_funcs *fs = &t->funcs;
	size_t lo = 0, hi = fs->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (fs->f[mid].start <= i)
			lo = mid + 1;
		else
			hi = mid;
	}
	const struct pp_js_func *f = lo ? &fs->f[lo - 1] : NULL;
	for (size_t steps = 0; f && steps < fs->n; steps++) {
		const struct pp_js_tok *p = &t->toks.t[f->start];
		uint32_t shut = pp_js_tok_match(p); /* the parameters' ')' */
		if (pp_js_tok_is(t->s, p, "(") && shut != NIL && f->start < i && i < shut)
			return f;
		if (f->open <= i && i <= f->close)
			return f; /* as pp_js_func_holding(): the braces count */
		f = f->parent == NIL ? NULL : &fs->f[f->parent];
	}
	return NULL;
}

/* The original function whose head (binding, key, "function", params)
 * holds the mapped position: V8's position mapped without the script. */
static const struct pp_js_func *heading(struct smap_map *m, const struct smap_mapping *mp,
					 struct text **src)
{
	struct text *t = source_text(m, mp->source_index);
	*src = t;
	if (!t)
		return NULL;
	size_t i = tok_at(t, mp->line, mp->column);
	const struct pp_js_funcs *fs = &t->funcs;
	size_t lo = 0, hi = fs->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (fs->f[mid].start < i)
			lo = mid + 1;
		else
			hi = mid;
	}
	const struct pp_js_func *best = NULL;
	for (size_t k = lo >= 8 ? lo - 8 : 0; k < fs->n && k < lo + 8; k++) {
		const struct pp_js_func *f = &fs->f[k];
		uint32_t first = f->head;
		/* a binding before the head: its words and the "=" or ":"
		 * after them, not what lies between them and the head (x =
		 * [function a() {}, () => 1]: a's head is not the arrow's) */
		uint32_t bound = NIL;
		if (f->chain != NIL && f->chain < first) {
			first = f->chain;
			bound = f->name_tok + 1;
		}
		/* export const f = , export default function, static m( */
		static const char *const lead[] = {"export", "default", "async", "const", "let",
						   "var", "static", "public", "private",
						   "protected", "override", "readonly", NULL};
		for (bool more = true; more && first > 0;) {
			more = false;
			/* the words are identifiers of 3 to 9 bytes */
			const struct pp_js_tok *lt = &t->toks.t[first - 1];
			size_t ln = pp_js_tok_len(lt);
			if (pp_js_tok_kind(lt) != PP_JS_IDENT || ln < 3 || ln > 9)
				break;
			for (const char *const *w = lead; *w; w++)
				if (pp_js_tok_is(t->s, &t->toks.t[first - 1], *w)) {
					first--;
					more = true;
					break;
				}
		}
		/* through the parameters: a map may point at one */
		uint32_t end = f->start;
		uint32_t shut = pp_js_tok_match(&t->toks.t[end]);
		if (pp_js_tok_is(t->s, &t->toks.t[end], "(") && shut != NIL)
			end = shut;
		/* parentheses around the function alone, (function () {})
		 * in x || (function () {}): terser maps the function to the
		 * first of them */
		uint32_t wrap = f->head, wclose = f->close;
		while (wrap > 0 && wclose != NIL && wclose + 1 < t->toks.n &&
		       pp_js_tok_is(t->s, &t->toks.t[wrap - 1], "(") &&
		       pp_js_tok_match(&t->toks.t[wrap - 1]) == wclose + 1) {
			wrap--;
			wclose++;
		}
		/* the innermost: the last, in start order, that holds it
		 * (not in a default value of its parameters: code there) */
		if (((first <= i && i <= end && (bound == NIL || i <= bound || f->head <= i)) ||
		     (wrap <= i && i < f->head)) &&
		    !in_default(t, f, i))
			best = f;
	}
	return best;
}

static const char *keep(struct smap_map *m, const char *s, size_t n)
{
	return pp_smap_strndup(&m->arena, s, n);
}

static uint32_t naming_tok(const struct pp_js_func *f)
{
	return f->ctor ? f->cls : f->name_tok;
}

/* Whether generated function GF is named by a key of the text of
 * original function OF's naming token (its quotes aside). */
static bool same_key(const struct text *g, const struct pp_js_func *gf, const struct text *ot,
		     const struct pp_js_func *of)
{
	uint32_t gn = naming_tok(gf);
	if (gn == NIL || of->name_tok == NIL)
		return false;
	const char *a, *b;
	size_t an, bn;
	pp_js_tok_text(g->s, &g->toks.t[gn], &a, &an);
	pp_js_tok_text(ot->s, &ot->toks.t[of->name_tok], &b, &bn);
	return an == bn && memcmp(a, b, an) == 0;
}

/* Whether source I of M is TypeScript (.ts, .tsx, .mts, .cts), whose
 * text never writes exports.f = (its compiler's CommonJS does). */
static bool ts_source(struct smap_map *m, size_t i)
{
	const char *r = i < m->nsrc ? m->src[i].raw : NULL;
	size_t n = r ? strlen(r) : 0;
	static const char *const ext[] = {".ts", ".tsx", ".mts", ".cts"};
	for (size_t k = 0; k < 4; k++)
		if (name_ends(r, n, ext[k]))
			return true;
	return false;
}

/* The name of generated function G with the map's names at its tokens. */
static size_t mapped_name(struct smap_map *m, const struct text *g, const struct pp_js_func *f,
			  char *buf, size_t cap, struct smap_mapping *last, bool *named)
{
	size_t at = 0;
	*named = false;
	buf[0] = '\0';
	/* a constructor: its class's binding (registry.Codec = class) */
	uint32_t first = f->ctor ? f->cls_chain : f->chain, end = naming_tok(f);
	bool this_chain = f->ctor ? f->cls_this : f->this_chain;
	if (end == NIL)
		return 0;
	if (f->prefix && !f->ctor) {
		memcpy(buf, f->prefix == 1 ? "get " : "set ", 5);
		at = 4;
	}
	if (f->encl != NIL && (!f->ctor || pp_js_cls_member(f))) {
		/* a member binding in a constructor-like function: its name
		 * first, the original's: the map's name at its token, or the
		 * token's own text where a segment without a name starts
		 * (not renamed) or where it names a class (minifiers keep
		 * those); else none (a minified name says nothing of a
		 * capital) */
		struct smap_mapping cm;
		struct pos cp = tpos(g, f->encl);
		const struct pp_js_tok *ct = &g->toks.t[f->encl];
		const char *cs = NULL;
		size_t cn = 0;
		bool ex = exact(m, cp.line, cp.col, &cm);
		if (ex && cm.name) {
			cs = cm.name;
			cn = strlen(cs);
		} else if (ex || f->encl == f->cls) {
			cs = g->s + ct->off;
			cn = pp_js_tok_len(ct);
		}
		if (cs && pp_js_name_capital(cs, cn) && at + cn + 1 < cap) {
			memcpy(buf + at, cs, cn);
			at += cn;
			buf[at] = '\0';
		}
	}
	if (f->ns != NIL) {
		/* const state = {init: new P(() => )}: the variable first, the
		 * map's name at its token, or its own text where a segment
		 * without a name starts there (not renamed) */
		size_t nn;
		const char *ns = mapped_word(m, g, f->ns, &nn);
		if (!ns || at + nn + 2 >= cap)
			return 0;
		if (at && buf[at - 1] != ' ')
			buf[at++] = '.';
		memcpy(buf + at, ns, nn);
		at += nn;
		buf[at] = '\0';
	}
	for (uint32_t i = first; i <= end; i += 2) {
		const struct pp_js_tok *t = &g->toks.t[i];
		const char *s = g->s + t->off;
		size_t n = pp_js_tok_len(t);
		struct smap_mapping mp;
		struct pos ip = tpos(g, i);
		bool ex = exact(m, ip.line, ip.col, &mp);
		/* {format:t = () => }, a pattern's binding (as minifiers write
		 * {format = () => }) that has no segment of its own: the
		 * map's name at the key (before the ':'), where the segment
		 * starts */
		if (!ex && i == end && f->pattern &&
		    pp_js_tok_kind(&g->toks.t[i - 2]) == PP_JS_IDENT) {
			struct pos kp = tpos(g, i - 2);
			ex = exact(m, kp.line, kp.col, &mp) && mp.name;
		}
		/* this.x: "this" is no part; nor is a "prototype" in
		 * a.prototype.f (V8 leaves it out) */
		if ((i == first && this_chain) ||
		    (i != first && i < end && pp_js_tok_is(g->s, t, "prototype")))
			continue;
		if (i == first && i < end && pp_js_tok_kind(t) == PP_JS_IDENT &&
		    (pp_js_tok_is(g->s, t, "exports") || pp_js_tok_is(g->s, t, "module")) &&
		    !(ex && mp.name &&
		      (!pp_js_tok_is(g->s, t, mp.name) || !ts_source(m, mp.source_index)))) {
			/* exports.f = , module.exports.f = : CommonJS's, not the
			 * source's, though a map names it so where the source
			 * is TypeScript (terser's, of tsc's CommonJS) */
			if (pp_js_tok_is(g->s, t, "module") && i + 2 < end &&
			    pp_js_tok_is(g->s, &g->toks.t[i + 2], "exports"))
				i += 2;
			continue;
		}
		bool hash = false;
		if (ex && mp.name && pp_js_tok_kind(t) != PP_JS_STRING) {
			s = mp.name;
			n = strlen(s);
			/* terser names #m by "m" */
			hash = pp_js_tok_kind(t) == PP_JS_PRIVATE && s[0] != '#';
		} else if (pp_js_tok_kind(t) == PP_JS_STRING && n >= 2) {
			s++;
			n -= 2;
		}
		if (i == end) {
			if (!ex)
				return 0; /* the naming token itself is not mapped */
			*last = mp;
			/* the last part of a.b.c is a property: its text is the
			 * source's (minifiers keep property names) */
			*named = mp.name != NULL || (i != first && pp_js_tok_kind(t) == PP_JS_IDENT);
		}
		if (at && buf[at - 1] != ' ' && at + 1 < cap)
			buf[at++] = '.';
		if (hash && at + 2 < cap)
			buf[at++] = '#';
		if (at + n + 1 > cap)
			n = cap - at - 1;
		memcpy(buf + at, s, n);
		at += n;
		buf[at] = '\0';
	}
	return at;
}

/* How many of the SEG_PROBE tokens of G from token FIRST on generated line
 * LINE have a segment of the map starting strictly inside them: none for a
 * map of this script, whose segments start at tokens; a map of another
 * build has its segments where that build's tokens were.  Without a source
 * text this is what tells a stale map from the right one. */
#define SEG_PROBE 16
/* How many of them make the map another build's at a function.  The maps
 * of the names fixtures' six bundlers, of five bundlers' builds of a
 * program over eleven npm packages and of the bench bundle (over 16,000
 * function positions) have at most 3 (swc's, whose segments sometimes
 * start inside a token; every other's none); the map of that program
 * built again with one more function, 4 or more at 40 of its 606. */
#define SEG_FOREIGN 4
static unsigned segs_inside_tokens(struct smap_map *m, const struct text *g, uint32_t first,
				   uint32_t line)
{
	unsigned inside = 0;
	for (size_t j = first; j < g->toks.n && j < (size_t)first + SEG_PROBE; j++) {
		const struct pp_js_tok *t = &g->toks.t[j];
		struct pos jp = tpos(g, j);
		if (jp.line != line)
			break;
		/* its length in UTF-16 units (a token of one line) */
		uint32_t units = 0;
		bool one_line = true;
		for (uint32_t b = 0; b < pp_js_tok_len(t); b++) {
			unsigned char c = (unsigned char)g->s[t->off + b];
			if (c == '\n' || c == '\r') {
				one_line = false;
				break;
			}
			if ((c & 0xc0) != 0x80)
				units += c >= 0xf0 ? 2 : 1;
		}
		if (!one_line)
			continue;
		/* a template piece: its text alone, between the "`" or "}"
		 * it opens with and the "${" or "`" it closes with (swc,
		 * rspack's minifier, maps each of those, and the text's
		 * start) */
		uint32_t from = jp.col, end = jp.col + units;
		if (pp_js_tok_kind(t) == PP_JS_TEMPLATE) {
			from++;
			end -= g->s[t->off + pp_js_tok_len(t) - 1] == '{' ? 2 : 1;
		}
		if (end < from + 2)
			continue;
		struct smap_mapping mp;
		if (smap_lookup(m, line, end - 1, &mp) == SMAP_OK && mp.generated_line == line &&
		    mp.generated_column > from)
			inside++;
	}
	return inside;
}

static int function_at(struct smap_map *m, uint32_t line, uint32_t column,
		       struct smap_function *out);

int smap_map_prepare(struct smap_map *m)
{
	(void)smap_map_generated_lines(m);
	/* a regular map's lines passed (an index map's sections are decoded
	 * only where asked) */
	if (!m->index && m->nsec == 1 && pp_smap_pass_clean(m, &m->sec[0]) == SMAP_ENOMEM)
		return SMAP_ENOMEM;
	return SMAP_OK;
}

int smap_map_prepare_script(struct smap_map *m)
{
	struct pp_smap_names *n = m->names;
	/* a script not understood is not understood later either */
	if (n && n->script)
		(void)text_ready_in(&n->heapg, &n->gen, n->script, n->slen, L_SCRIPT);
	return SMAP_OK;
}

uint32_t pp_smap_line_code(struct smap_map *m, uint32_t line)
{
	struct pp_smap_names *n = m->names;
	if (!n || !n->script || !text_ready_in(&n->heapg, &n->gen, n->script, n->slen, L_SCRIPT))
		return 0;
	size_t i = tok_at(&n->gen, line, 0);
	if (i >= n->gen.toks.n)
		return 0;
	struct pos p = tpos(&n->gen, i);
	if (p.line != line)
		return 0;
	/* only blanks before it on its line, one column each (not the end
	 * of a template or a comment that began on a line before) */
	size_t off = n->gen.toks.t[i].off, k = off;
	while (k > 0 && (n->script[k - 1] == ' ' || n->script[k - 1] == '\t'))
		k--;
	return off - k == p.col ? p.col : 0;
}

int smap_function_at(struct smap_map *m, uint32_t line, uint32_t column,
		     struct smap_function *out)
{
	struct pp_smap_names *n = pp_smap_names_of(m);
	if (!n) {
		memset(out, 0, sizeof(*out));
		out->start = -1;
		out->mapped = -1;
		return pp_smap_fail(m, SMAP_ENOMEM, "out of memory");
	}
	const struct smap_function *k = memo_get(n, line, column);
	if (k) {
		*out = *k;
		return SMAP_OK;
	}
	int rc = function_at(m, line, column, out);
	if (rc == SMAP_OK)
		memo_put(n, line, column, out);
	return rc;
}

/* The original function most of the first VOTES mapped tokens of GF's
 * body lie in (its nested functions passed), in *OT; the first of those
 * mappings in *BODY_FIRST (*HAVE_FIRST). */
static const struct pp_js_func *by_vote(struct smap_map *m, const struct text *g,
					const struct pp_js_func *gf, struct text **ot,
					struct smap_mapping *body_first, bool *have_first)
{
	struct {
		const struct pp_js_func *f;
		struct text *t;
		unsigned votes;
	} cand[VOTES];
	size_t nc = 0, seen = 0;
	uint32_t i = gf->open == gf->close ? gf->open : gf->open + 1;
	/* the functions in start order, from the first at or after I on:
	 * I only grows, so the one starting at I is found by walking on */
	size_t lo = 0, hi = g->funcs.n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (g->funcs.f[mid].start < i)
			lo = mid + 1;
		else
			hi = mid;
	}
	const struct pp_js_func *fk = g->funcs.f + lo, *fend = g->funcs.f + g->funcs.n;
	for (; i < gf->close + (gf->open == gf->close) && seen < VOTES; i++) {
		while (fk < fend && fk->start < i)
			fk++;
		/* a nested function from its head on ("function", a key),
		 * before its start */
		const struct pp_js_func *nf = fk < fend && fk->head <= i ? fk : NULL;
		if (nf && nf != gf && nf->close >= i) {
			i = nf->close;
			continue;
		}
		struct smap_mapping mp;
		struct pos ip = tpos(g, i);
		if (!exact(m, ip.line, ip.col, &mp))
			continue;
		seen++;
		if (!*have_first) {
			*body_first = mp;
			*have_first = true;
		}
		struct text *st;
		const struct pp_js_func *of = holding(m, &mp, &st);
		if (!of)
			continue;
		size_t c;
		for (c = 0; c < nc; c++)
			if (cand[c].f == of)
				break;
		if (c == nc) {
			cand[nc].f = of;
			cand[nc].t = st;
			cand[nc++].votes = 0;
		}
		cand[c].votes++;
		/* decided when no other can catch up with the votes left:
		 * the same winner as after all of them, fewer look-ups */
		unsigned lead = 0, next = 0;
		for (size_t k = 0; k < nc; k++) {
			if (cand[k].votes > lead) {
				next = lead;
				lead = cand[k].votes;
			} else if (cand[k].votes > next) {
				next = cand[k].votes;
			}
		}
		if (lead > next + (VOTES - seen))
			break;
	}
	const struct pp_js_func *of = NULL;
	unsigned best = 0;
	for (size_t c = 0; c < nc; c++)
		if (cand[c].votes > best) {
			best = cand[c].votes;
			of = cand[c].f;
			*ot = cand[c].t;
		}
	return of;
}

/* The original function whose head holds the first mapped parameter of
 * GF, in *PT, or NULL.  The parameters are the function's own, where its
 * body may hold another's code (a callee inlined: terser's subscribe
 * holds isSubscriber's body, which by_vote() would take). */
static const struct pp_js_func *by_parameters(struct smap_map *m, const struct text *g,
					      const struct pp_js_func *gf, struct text **pt)
{
	const struct pp_js_tok *st = &g->toks.t[gf->start];
	uint32_t pa = gf->start, pb = gf->start;
	if (pp_js_tok_is(g->s, st, "(") && pp_js_tok_match(st) != NIL) {
		pa = gf->start + 1;
		pb = pp_js_tok_match(st);
	} else if (pp_js_tok_kind(st) == PP_JS_IDENT) {
		pb = gf->start + 1; /* a lone arrow parameter */
	}
	for (uint32_t k = pa; k < pb; k++) {
		struct smap_mapping pm;
		struct pos kp = tpos(g, k);
		if (pp_js_tok_kind(&g->toks.t[k]) != PP_JS_IDENT ||
		    !exact(m, kp.line, kp.col, &pm) || !pm.source)
			continue;
		return heading(m, &pm, pt);
	}
	return NULL;
}

/* Whether OF is a class field's function in OT (m = () => , m: T =
 * function): a binding by "=" right in a class body, not a variable. */
static bool class_field(const struct text *ot, const struct pp_js_func *of)
{
	uint32_t q = of->name_tok;
	if (q == NIL || of->chain != q || q == 0 || of->head <= q)
		return false;
	bool eq = false;
	for (uint32_t i = q + 1; i < of->head && !eq; i++)
		eq = pp_js_tok_is(ot->s, &ot->toks.t[i], "=");
	const struct pp_js_tok *pt = &ot->toks.t[q - 1];
	bool member = pp_js_tok_is(ot->s, pt, ";") || pp_js_tok_is(ot->s, pt, "{") ||
		      pp_js_tok_is(ot->s, pt, "}") ||
		      (pp_js_tok_kind(pt) == PP_JS_IDENT && !pp_js_tok_is(ot->s, pt, "const") &&
		       !pp_js_tok_is(ot->s, pt, "let") && !pp_js_tok_is(ot->s, pt, "var"));
	return eq && member;
}

/* The length of the name of OF's class (its token in OT) when generated
 * function GF is bound as X.prototype.m or X.m, or as this.m in a
 * constructor of X where OF is a class field (its compiler moved it
 * there), X mapped to that class's name (the map's name at X, or X's own
 * text where it has none), else 0. */
static size_t class_member_binding(struct smap_map *m, const struct text *g,
				   const struct pp_js_func *gf, const struct text *ot,
				   const struct pp_js_func *of)
{
	uint32_t a = gf->chain, z = gf->name_tok, x = a;
	if (a == NIL || z == NIL)
		return 0;
	if (gf->this_chain) {
		if (z != a + 2 || gf->encl == NIL || !class_field(ot, of))
			return 0;
		x = gf->encl;
	} else if (gf->encl != NIL || !(z == a + 2 || z == a + 4)) {
		return 0;
	}
	if (!pp_js_dotted(g->s, &g->toks, a, z))
		return 0;
	if (z == a + 4 && !pp_js_tok_is(g->s, &g->toks.t[a + 2], "prototype"))
		return 0;
	const struct pp_js_tok *ct = &ot->toks.t[of->cls];
	size_t cn = pp_js_tok_len(ct), xn;
	const char *xs = pp_js_tok_kind(ct) == PP_JS_IDENT ? mapped_word(m, g, x, &xn) : NULL;
	return xs && xn == cn && memcmp(xs, ot->s + ct->off, cn) == 0 ? cn : 0;
}

/* OUT named N bytes of S (copied), from FROM. */
static int set_name(struct smap_map *m, struct smap_function *out, const char *s, size_t n, int from)
{
	if (!(out->name = keep(m, s, n)))
		return pp_smap_fail(m, SMAP_ENOMEM, "out of memory");
	out->from = from;
	return SMAP_OK;
}

/* Whether the ')' at token CLOSE closes a group around the expression
 * whose first token is HEAD: (function () {}), not a call's arguments
 * (f(function () {})). */
static bool grouped(const struct text *g, uint32_t head, uint32_t close)
{
	if (head == 0 || pp_js_tok_match(&g->toks.t[close]) != head - 1)
		return false;
	if (head == 1)
		return true;
	const struct pp_js_tok *b = &g->toks.t[head - 2];
	enum pp_js_kind k = pp_js_tok_kind(b);
	return !(k == PP_JS_IDENT || k == PP_JS_PRIVATE || k == PP_JS_TEMPLATE ||
		 pp_js_tok_is(g->s, b, ")") || pp_js_tok_is(g->s, b, "]")) ||
	       pp_js_tok_is(g->s, b, "return") || pp_js_tok_is(g->s, b, "typeof") ||
	       pp_js_tok_is(g->s, b, "void") || pp_js_tok_is(g->s, b, "await");
}

/* The map's name at the call of generated function GF where it is written
 * (!function(){…}(), (function(){…})()), a function a minifier inlined at
 * its one call (main(); ): the call's '(' maps to that call, named by the
 * function called.  NULL when none (a concise arrow's body ends in no call
 * of it). */
static const char *call_name(struct smap_map *m, const struct text *g, const struct pp_js_func *gf)
{
	if (!pp_js_tok_is(g->s, &g->toks.t[gf->open], "{"))
		return NULL;
	uint32_t call = gf->close + 1;
	/* (function(){…})(: the ')' of the group around it */
	if (call < g->toks.n && pp_js_tok_is(g->s, &g->toks.t[call], ")")) {
		if (!grouped(g, gf->head, call))
			return NULL;
		call++;
	}
	struct smap_mapping mp;
	return call < g->toks.n && pp_js_tok_is(g->s, &g->toks.t[call], "(") &&
			       exact(m, tpos(g, call).line, tpos(g, call).col, &mp)
		       ? mp.name
		       : NULL;
}

/* The string generated function GF is given to esbuild's keepNames
 * helper with, without its quotes (N bytes), or NULL; the helper looked
 * for once per script. */
static const char *keep_names_string(struct pp_smap_names *n, const struct text *g,
				     const struct pp_js_func *gf, size_t *len)
{
	if (!n->keep_names_tried) {
		n->keep_names_tried = true;
		n->keep_names = pp_js_keep_names_helper(g->s, &g->toks);
	}
	return pp_js_keep_names_string(g->s, &g->toks, gf, n->keep_names, len);
}

static int function_at(struct smap_map *m, uint32_t line, uint32_t column,
		       struct smap_function *out)
{
	char buf[512], nbuf[512];
	memset(out, 0, sizeof(*out));
	out->start = -1;
	out->mapped = -1;
	struct pp_smap_names *n = pp_smap_names_of(m);
	if (!n)
		return pp_smap_fail(m, SMAP_ENOMEM, "out of memory");

	const char *sn;
	int rc = smap_lookup_function(m, line, column, &sn);
	if (rc == SMAP_ENOMEM)
		return rc;
	if (rc == SMAP_OK) {
		out->name = sn ? sn : "";
		out->from = SMAP_FROM_SCOPES;
	}

	struct text *g = n->script && text_ready_in(&n->heapg, &n->gen, n->script, n->slen, L_SCRIPT)
				 ? &n->gen
				 : NULL;
	const struct pp_js_func *gf = NULL;
	/* V8's position maps into markup's source off any function's head:
	 * a function its compiler made (a template's render function, a
	 * wrapper Solid makes of an element), named as without the source */
	bool made = false;
	/* V8's position mapped, and the original function whose head holds
	 * it (with the script, at a function start) */
	struct smap_mapping vm;
	bool have_vm = false;
	struct text *ht = NULL;
	const struct pp_js_func *hf = NULL;
	if (g) {
		size_t ti;
		if (tok_exact(g, line, column, &ti))
			gf = pp_js_func_starting(&g->funcs, (uint32_t)ti);
		out->start = gf || (line == 0 && column == 0) ? 1 : 0;
		/* V8's default constructor of a class without one of its own
		 * (no function of the text starts there): not known */
		if (!gf && class_keyword(g, line, column) != NIL)
			out->start = -1;
		if (gf) {
			size_t k = pp_js_func_name(g->s, &g->toks, gf, buf, sizeof(buf));
			out->token = keep(m, buf, k);
			/* the map's segments there start where the script's
			 * tokens do (another build's do not) */
			uint32_t first = gf->head;
			if (gf->chain != NIL && gf->chain < first)
				first = gf->chain;
			unsigned inside = segs_inside_tokens(m, g, first, line);
			out->inside = (int)inside;
			out->foreign = inside >= SEG_FOREIGN;
			/* does the map agree that a function starts here? */
			rc = smap_lookup(m, line, column, &vm);
			if (rc == SMAP_ENOMEM)
				return rc;
			have_vm = rc == SMAP_OK && vm.source;
			if (!have_vm) {
				out->mapped = 0;
			} else {
				hf = heading(m, &vm, &ht);
				made = ht && !hf && ht->markup;
				if (ht && !made) {
					out->mapped = hf ? 1 : 0;
				} else {
					/* a segment that starts in the function's head */
					size_t st;
					struct pos fp = tpos(g, first);
					out->mapped = vm.generated_line == line &&
						      (fp.line < line ||
						       vm.generated_column >= fp.col) &&
						      tok_exact(g, vm.generated_line,
								vm.generated_column, &st);
					/* the segments there start at the tokens
					 * (more than one inside them: another build's) */
					if (out->mapped && inside > 1)
						out->mapped = 0;
					/* the naming token maps just before, in the
					 * same source */
					uint32_t nt = naming_tok(gf);
					struct smap_mapping em;
					if (out->mapped && nt != NIL &&
					    exact(m, tpos(g, nt).line, tpos(g, nt).col, &em))
						out->mapped = just_before(m, &em, &vm);
				}
			}
		}
	}
	if (out->from)
		return SMAP_OK;
	/* the script at hand starts no function where V8 put one: not the
	 * script V8 ran (a build made since, with its map); nothing of the
	 * map is asked there */
	if (g && !gf && out->start == 0) {
		out->foreign = 1;
		return SMAP_OK;
	}

	if (gf) {
		/* the parameters' function, else the vote of the body */
		struct smap_mapping body_first;
		bool have_first = false;
		memset(&body_first, 0, sizeof(body_first));
		struct text *ot = NULL;
		const struct pp_js_func *of = by_parameters(m, g, gf, &ot);
		if (!of)
			of = by_vote(m, g, gf, &ot, &body_first, &have_first);
		if (made)
			of = NULL;
		/* V8's position maps into a default value of OF's parameters:
		 * a function made of that code, not OF (V8 names it alone) */
		if (of && have_vm && source_text(m, vm.source_index) == ot &&
		    in_default(ot, of, tok_at(ot, vm.line, vm.column)))
			of = NULL;
		if (!of && !have_first && have_vm) {
			/* an empty body: the function's own position */
			of = hf;
			ot = ht;
		}
		/* named by a JSX attribute only where the script makes the
		 * attribute the function's key (React's {onClick: () => ...};
		 * Solid's el.$$click = () => ... is no such key) */
		if (of && of->jsx_attr && !same_key(g, gf, ot, of))
			of = NULL;
		/* an async function of the script whose body maps into a
		 * function of the original that is not: a later build's map,
		 * another function where this one was (compilers make async
		 * functions generators, never the other way) */
		if (of && pp_js_func_async(g->s, &g->toks, gf) &&
		    !pp_js_func_async(ot->s, &ot->toks, of))
			out->foreign = 1;
		struct smap_mapping last;
		bool named = false;
		memset(&last, 0, sizeof(last));
		size_t k = mapped_name(m, g, gf, nbuf, sizeof(nbuf), &last, &named);
		if (of) {
			uint32_t nt = naming_tok(of);
			bool agrees = named && nt != NIL && ot == source_text(m, last.source_index) &&
				      tpos(ot, nt).line == last.line && tpos(ot, nt).col == last.column;
			/* the original's own words: a bundler's binding
			 * (exports.f = , ns.f = ) is not the name V8 gives */
			size_t l = pp_js_func_name_in(ot->s, &ot->toks, &ot->funcs, of, buf,
						      sizeof(buf));
			/* a member with a computed key, nameless in the original
			 * (a class declaration) and in a class expression of the
			 * script (export default class A became var A = class):
			 * V8 names it by that binding, the map's name at it (or
			 * its own text, not renamed) */
			/* a JSX child's function the script makes the children
			 * property (jsx(C, {children: (v) => ...})) */
			uint32_t gn = naming_tok(gf);
			if (!l && of->jsx_child && gn != NIL &&
			    pp_js_tok_is(g->s, &g->toks.t[gn], "children")) {
				l = strlen(strcpy(buf, "children"));
				agrees = true;
			}
			uint32_t bt = !l && of->ctx != NIL ? pp_js_func_ctx_tok(g->s, &g->toks, gf)
							   : NIL;
			const char *bs = bt != NIL ? mapped_word(m, g, bt, &l) : NULL;
			if (bs) {
				if (l >= sizeof(buf))
					l = sizeof(buf) - 1;
				memcpy(buf, bs, l);
				buf[l] = '\0';
				agrees = true;
			}
			/* what new's arguments hold in a field of a class the
			 * original declares and the script binds (class Conn
			 * became var Conn = class): V8 puts the binding first,
			 * the map's name at it (or its own text, not renamed) */
			size_t wl = 0;
			const char *w = l && gf->ns != NIL && of->ns == NIL && of->name_tok != NIL
						? mapped_word(m, g, gf->ns, &wl)
						: NULL;
			if (w && wl + 1 + l < sizeof(buf)) {
				memmove(buf + wl + 1, buf, l + 1);
				memcpy(buf, w, wl);
				buf[wl] = '.';
				l += wl + 1;
			}
			/* a class's method or static method its library's own
			 * compiler made X.prototype.m = function or X.m =
			 * function (an ES5 build whose map leads to the class),
			 * a class field it made this.m = in X's constructor:
			 * V8 says X.m, X the class */
			size_t cn = 0;
			if (agrees && l && l + 1 < sizeof(buf) && of->cls != NIL && !of->ctor &&
			    !of->prefix && (cn = class_member_binding(m, g, gf, ot, of)) != 0 &&
			    cn + 1 + l < sizeof(buf)) {
				const struct pp_js_tok *ct = &ot->toks.t[of->cls];
				memmove(buf + cn + 1, buf, l + 1);
				memcpy(buf, ot->s + ct->off, cn);
				buf[cn] = '.';
				l += cn + 1;
			}
			out->name = keep(m, buf, l);
			out->from = agrees ? SMAP_FROM_SCRIPT : SMAP_FROM_SOURCE;
			return out->name ? SMAP_OK : pp_smap_fail(m, SMAP_ENOMEM, "out of memory");
		}
		/* no source text: the mapping's name at the naming token, when it
		 * sits before the body in the same source, at most NAME_BODY
		 * lines before its first mapped token, or right before the
		 * function's own head (V8's position mapped: lunr's
		 * lunr.Index.prototype.query = function (fn) {, its body's
		 * first statement after twenty lines of comment; a function
		 * inlined at a binding has its head where it was declared) */
		if (named &&
		    (!have_first ||
		     (same_source(m, last.source_index, body_first.source_index) &&
		      last.line <= body_first.line && body_first.line - last.line <= NAME_BODY) ||
		     (have_vm && just_before(m, &last, &vm)))) {
			out->name = keep(m, nbuf, k);
			out->from = SMAP_FROM_SCRIPT;
			return out->name ? SMAP_OK : pp_smap_fail(m, SMAP_ENOMEM, "out of memory");
		}
		/* exports.f = function, its binding not mapped (terser's
		 * output of tsc's CommonJS, whose export function f became
		 * exports.f = f): f, a property's text being the source's,
		 * where its function is mapped into TypeScript (a CommonJS
		 * source's exports.f is V8's name) */
		uint32_t nt = naming_tok(gf), ch = gf->chain;
		if (nt != NIL && !gf->ctor && !gf->prefix && have_first &&
		    ts_source(m, body_first.source_index) && ch != NIL && ch + 2 == nt &&
		    pp_js_tok_is(g->s, &g->toks.t[ch], "exports") &&
		    pp_js_tok_is(g->s, &g->toks.t[ch + 1], ".") &&
		    pp_js_tok_kind(&g->toks.t[nt]) == PP_JS_IDENT) {
			const struct pp_js_tok *t = &g->toks.t[nt];
			return set_name(m, out, g->s + t->off, pp_js_tok_len(t), SMAP_FROM_SCRIPT);
		}
		if (nt == NIL && !gf->ctor) {
			/* given to esbuild's keepNames helper: the name it
			 * gives */
			size_t kl = 0;
			const char *ks = keep_names_string(n, g, gf, &kl);
			if (ks)
				return set_name(m, out, ks, kl, SMAP_FROM_SCRIPT);
			/* a member with a computed key in a class expression or
			 * an object literal bound to one word (var l = class {
			 * *[Symbol.iterator]() }): V8 names it by that binding,
			 * the map's name at it */
			size_t l = 0;
			uint32_t bt = gf->ctx != NIL ? pp_js_func_ctx_tok(g->s, &g->toks, gf) : NIL;
			const char *bs = bt != NIL ? mapped_word(m, g, bt, &l) : NULL;
			if (bs)
				return set_name(m, out, bs, l, SMAP_FROM_SCRIPT);
			/* anonymous here: a name at its '(' (a named function
			 * expression a minifier made anonymous), else anonymous
			 * (a lone parameter's name is the parameter's) */
			struct smap_mapping mp;
			bool paren = pp_js_tok_is(g->s, &g->toks.t[gf->start], "(");
			out->name = paren && exact(m, line, column, &mp) && mp.name ? mp.name : "";
			/* else a function inlined at its one call: that call's */
			const char *cn = out->name[0] ? NULL : call_name(m, g, gf);
			if (cn)
				out->name = cn;
			out->from = SMAP_FROM_SCRIPT;
		}
		return SMAP_OK;
	}

	/* a default constructor in the script (class l extends s): named
	 * by the original class whose own name the class's name maps to
	 * exactly (l to User of class User: a map may put the "class"
	 * keyword a column off), or without the source by the map's name
	 * there */
	size_t gci = g && (line || column) ? class_keyword(g, line, column) : NIL;
	if (gci != NIL && pp_js_class_has_ctor(g->s, &g->toks, gci))
		gci = NIL; /* its constructor is elsewhere: V8's top level */
	struct smap_mapping em;
	if (gci != NIL && class_name(g, gci) &&
	    exact(m, tpos(g, gci + 1).line, tpos(g, gci + 1).col, &em)) {
		struct text *ct = source_text(m, em.source_index);
		size_t j;
		if (ct && tok_exact(ct, em.line, em.column, &j) && j > 0 &&
		    pp_js_tok_kind(&ct->toks.t[j]) == PP_JS_IDENT &&
		    pp_js_tok_is(ct->s, &ct->toks.t[j - 1], "class")) {
			const struct pp_js_tok *k = &ct->toks.t[j];
			return set_name(m, out, ct->s + k->off, pp_js_tok_len(k), SMAP_FROM_SOURCE);
		}
		if (!ct) {
			/* var User = class _User (esbuild, for a class that
			 * refers to itself), User = class e (swc): the binding
			 * and the class's name mapped to the original's one
			 * token, the class's renamed: the binding's word (the
			 * map's name at it, or its text where not renamed) */
			struct smap_mapping bm;
			const char *w = em.name;
			size_t wl = w ? strlen(w) : 0;
			if (gci >= 2 && pp_js_tok_is(g->s, &g->toks.t[gci - 1], "=") &&
			    pp_js_tok_kind(&g->toks.t[gci - 2]) == PP_JS_IDENT &&
			    exact(m, tpos(g, gci - 2).line, tpos(g, gci - 2).col, &bm) &&
			    same_source(m, bm.source_index, em.source_index) &&
			    bm.line == em.line && bm.column == em.column)
				w = mapped_word(m, g, (uint32_t)(gci - 2), &wl);
			if (w)
				return set_name(m, out, w, wl, SMAP_FROM_SCRIPT);
		}
	}

	/* without the script (or not at a function start in it): the
	 * original function whose head holds the mapped position */
	struct smap_mapping mp;
	rc = smap_lookup(m, line, column, &mp);
	if (rc == SMAP_ENOMEM)
		return rc;
	if (rc != SMAP_OK || !mp.source)
		return SMAP_OK;
	struct text *ot;
	const struct pp_js_func *of = heading(m, &mp, &ot);
	if (ot && !g)
		out->start = of ? 1 : 0;
	/* a default constructor, as above: named by its class when the
	 * original has "class NAME" at the mapped position (vite's maps
	 * point at an "export" before it) */
	size_t ci = ot && !of && (!g || out->start == -1) && (line || column)
			    ? class_keyword(ot, mp.line, mp.column)
			    : NIL;
	if (ci != NIL && pp_js_class_has_ctor(ot->s, &ot->toks, ci))
		ci = NIL;
	if (ci != NIL) {
		if (!g)
			out->start = -1;
		/* its own name, else its binding; an anonymous class
		 * expression (a mixin's) is anonymous, whatever V8 inferred
		 * for the bundler's binding of it */
		size_t l = pp_js_class_name(ot->s, &ot->toks, ci, buf, sizeof(buf));
		return set_name(m, out, buf, l, SMAP_FROM_SOURCE);
	}
	/* 0:0 is the script's top level (V8's function of the whole script,
	 * unnamed), whatever function of the original the map puts there
	 * (vite's bundle starts with a function's code) */
	if (of && !g && (line || column)) {
		size_t l = pp_js_func_name_in(ot->s, &ot->toks, &ot->funcs, of, buf, sizeof(buf));
		out->name = keep(m, buf, l);
		out->from = SMAP_FROM_SOURCE;
		if (!out->name)
			return pp_smap_fail(m, SMAP_ENOMEM, "out of memory");
	}
	return SMAP_OK;
}

uint32_t smap_map_generated_lines(struct smap_map *m)
{
	uint64_t end = 0;
	/* From the last section back: a line at or past a section's start
	 * belongs to it (or to a later one), so the last section with
	 * segments ends the map, and an index map of a million sections is
	 * not decoded whole for it. */
	for (size_t k = m->nsec; k > 0; k--) {
		struct pp_smap_section *s = &m->sec[k - 1];
		if (!s->mappings)
			continue;
		if (!s->lz && pp_smap_index_lines(m, s))
			continue;
		/* trailing lines without segments do not count: only lines
		 * with segments have records */
		uint64_t nl = 0;
		for (uint32_t r = s->lz->nrec; r > 0; r--)
			if (s->lz->line[r - 1].end > s->lz->line[r - 1].start) {
				nl = (uint64_t)s->lz->line[r - 1].lno + 1;
				break;
			}
		if (nl) {
			end = (uint64_t)s->off_line + nl;
			break;
		}
	}
	return end > UINT32_MAX ? UINT32_MAX : (uint32_t)end;
}
