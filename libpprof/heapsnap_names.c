/*
 * heapsnap_names.c: the class names of DevTools' Summary for the nodes of a
 * heap snapshot (HeapSnapshot.ts calculateObjectNames,
 * inferInterfaceDefinitions, applyInterfaceDefinitions; doc/heapsnapshot.md).
 *
 * Plain Objects (type object, name "Object") are named by an "interface":
 * the property lists ("{a, b}", in edge order) that at least 2 objects and
 * one in 1000 of them start with become definitions, most common first;
 * an object takes the definition with the most properties that are all
 * among its own (the earlier one on a tie), else stays "Object".
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "heapsnap.h"

/* The length of a UTF-8 string as JavaScript counts it (UTF-16 units). */
static size_t js_length(const char *s, size_t n)
{
	size_t k = 0;
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		if ((c & 0xc0) != 0x80)
			k += c >= 0xf0 ? 2 : 1;
	}
	return k;
}

/* formatPropertyName: a name with , ' " { or } is written as a JSON string. */
static bool format_property(struct pp_buf *b, const char *s, size_t n)
{
	bool quote = false;
	for (size_t i = 0; i < n; i++)
		if (strchr(",'\"{}", s[i]) && s[i])
			quote = true;
	if (!quote)
		return pp_buf_add(b, s, n);
	if (!pp_buf_addc(b, '"'))
		return false;
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		bool ok;
		if (c == '"' || c == '\\')
			ok = pp_buf_addc(b, '\\') && pp_buf_addc(b, (char)c);
		else if (c == '\b')
			ok = pp_buf_add(b, "\\b", 2);
		else if (c == '\f')
			ok = pp_buf_add(b, "\\f", 2);
		else if (c == '\n')
			ok = pp_buf_add(b, "\\n", 2);
		else if (c == '\r')
			ok = pp_buf_add(b, "\\r", 2);
		else if (c == '\t')
			ok = pp_buf_add(b, "\\t", 2);
		else if (c < 0x20)
			ok = pp_buf_addf(b, "\\u%04x", c);
		else
			ok = pp_buf_addc(b, (char)c);
		if (!ok)
			return false;
	}
	return pp_buf_addc(b, '"');
}

static int cmp_str(const struct pprof_profile *p, uint32_t a, uint32_t b)
{
	uint32_t la = pp_strlen(p, a), lb = pp_strlen(p, b);
	int c = memcmp(pp_str(p, a), pp_str(p, b), la < lb ? la : lb);
	if (c)
		return c;
	return la < lb ? -1 : la > lb;
}

static const struct pprof_profile *sort_p;
static int cmp_ids(const void *x, const void *y)
{
	return cmp_str(sort_p, *(const uint32_t *)x, *(const uint32_t *)y);
}

struct cand {
	uint32_t name;    /* profile string id of "{a, b}" */
	uint32_t count;
	uint32_t order;   /* first seen */
	uint32_t props, nprops; /* in the pool */
};

static int cmp_cand(const void *x, const void *y)
{
	const struct cand *a = x, *b = y;
	if (a->count != b->count)
		return a->count > b->count ? -1 : 1;
	return a->order < b->order ? -1 : a->order > b->order;
}

/* The property tree: state k's transitions are edges (k, prop) -> child,
 * in a hash; greatest[k] is its greatest transition (0: none). */
struct ptree {
	uint64_t *keys; /* (state << 32 | prop) + 1, 0 empty */
	uint32_t *vals;
	size_t cap, used;
	uint32_t *greatest;
	int32_t *match; /* definition index, -1 none */
	uint32_t nstates, capstates;
};

static uint32_t pt_get(const struct ptree *t, uint32_t st, uint32_t prop)
{
	if (t->cap == 0)
		return 0;
	uint64_t k = ((uint64_t)st << 32 | prop) + 1;
	size_t i = (size_t)((k * 0x9e3779b97f4a7c15ull) >> 20) & (t->cap - 1);
	while (t->keys[i]) {
		if (t->keys[i] == k)
			return t->vals[i];
		i = (i + 1) & (t->cap - 1);
	}
	return 0;
}

static bool pt_add(struct ptree *t, uint32_t st, uint32_t prop, uint32_t child)
{
	if ((t->used + 1) * 2 > t->cap) {
		size_t nc = t->cap ? t->cap * 2 : 1024;
		uint64_t *nk = calloc(nc, sizeof(*nk));
		uint32_t *nv = malloc(nc * sizeof(*nv));
		if (!nk || !nv) {
			free(nk);
			free(nv);
			return false;
		}
		for (size_t i = 0; i < t->cap; i++) {
			if (!t->keys[i])
				continue;
			size_t j = (size_t)((t->keys[i] * 0x9e3779b97f4a7c15ull) >> 20) & (nc - 1);
			while (nk[j])
				j = (j + 1) & (nc - 1);
			nk[j] = t->keys[i];
			nv[j] = t->vals[i];
		}
		free(t->keys);
		free(t->vals);
		t->keys = nk;
		t->vals = nv;
		t->cap = nc;
	}
	uint64_t k = ((uint64_t)st << 32 | prop) + 1;
	size_t i = (size_t)((k * 0x9e3779b97f4a7c15ull) >> 20) & (t->cap - 1);
	while (t->keys[i])
		i = (i + 1) & (t->cap - 1);
	t->keys[i] = k;
	t->vals[i] = child;
	t->used++;
	return true;
}

static bool pt_new_state(struct ptree *t, uint32_t *id)
{
	if (t->nstates == t->capstates) {
		uint32_t c = t->capstates ? t->capstates * 2 : 256;
		uint32_t *g = realloc(t->greatest, c * sizeof(*g));
		if (!g)
			return false;
		t->greatest = g;
		int32_t *m = realloc(t->match, c * sizeof(*m));
		if (!m)
			return false;
		t->match = m;
		t->capstates = c;
	}
	t->greatest[t->nstates] = 0;
	t->match[t->nstates] = -1;
	*id = t->nstates++;
	return true;
}

struct u32v {
	uint32_t *v;
	size_t n, cap;
};

static bool push(struct u32v *a, uint32_t x)
{
	if (a->n == a->cap) {
		void *v = a->v;
		if (!pp_grow(&v, &a->cap, a->n + 1, sizeof(uint32_t)))
			return false;
		a->v = v;
	}
	a->v[a->n++] = x;
	return true;
}

/* The interface names of plain Objects: CLS[o] set for those named. */
static int interfaces(struct pprof_profile *p, const struct pp_hs *h, uint32_t object_id,
		      uint32_t *cls)
{
	struct pp_buf b;
	struct u32v pool = {0}, props = {0}, states = {0}, nstates = {0};
	struct cand *c = NULL;
	size_t nc = 0, capc = 0;
	uint32_t *cand_of = NULL; /* profile string id -> candidate + 1 */
	size_t capof = 0;
	uint32_t total = 0;
	uint32_t *propid = NULL; /* snapshot string -> profile string id + 1 */
	struct ptree t;
	uint8_t *seen = NULL;
	int s = PPROF_OK;

	memset(&t, 0, sizeof(t));
	pp_buf_init(&b);
	propid = calloc(h->nstrings + 1, sizeof(*propid));
	if (!propid)
		goto nomem;
#define PROP_ID(sidx, dst)                                                               \
	do {                                                                             \
		uint32_t s_ = (sidx);                                                    \
		if (!propid[s_]) {                                                       \
			size_t l_;                                                       \
			const char *c_ = pp_hs_str(h, s_, &l_);                          \
			uint32_t id_;                                                    \
			if ((s = pp_intern(p, c_, l_, &id_)) != PPROF_OK)                \
				goto out;                                                \
			propid[s_] = id_ + 1;                                            \
		}                                                                        \
		(dst) = propid[s_] - 1;                                                  \
	} while (0)

	/* candidates */
	for (uint32_t o = 0; o < h->n; o++) {
		if (h->type[o] != h->t_object || cls[o] != object_id)
			continue;
		total++;
		b.len = 0;
		b.s[0] = 0;
		if (!pp_buf_addc(&b, '{'))
			goto nomem;
		size_t jslen = 1, start = pool.n;
		for (uint32_t e = h->first[o]; e < h->first[o + 1]; e++) {
			if (h->etype[e] != h->et_property)
				continue;
			size_t l;
			const char *nm = pp_hs_str(h, h->ename[e], &l);
			if (l == 9 && memcmp(nm, "__proto__", 9) == 0)
				continue;
			size_t at = b.len;
			if (jslen != 1 && !pp_buf_add(&b, ", ", 2))
				goto nomem;
			if (!format_property(&b, nm, l))
				goto nomem;
			size_t flen = js_length(b.s + at + (jslen != 1 ? 2 : 0),
						b.len - at - (jslen != 1 ? 2 : 0));
			if (jslen > 1 && jslen + flen > 120) {
				b.len = at;
				break;
			}
			jslen += (jslen != 1 ? 2 : 0) + flen;
			uint32_t id;
			PROP_ID(h->ename[e], id);
			if (!push(&pool, id))
				goto nomem;
		}
		if (pool.n == start)
			continue;
		if (!pp_buf_addc(&b, '}'))
			goto nomem;
		uint32_t nid;
		if ((s = pp_intern(p, b.s, b.len, &nid)) != PPROF_OK)
			goto out;
		if (nid >= capof) {
			size_t oc = capof;
			void *v = cand_of;
			if (!pp_grow(&v, &capof, (size_t)nid + 1, sizeof(*cand_of)))
				goto nomem;
			cand_of = v;
			memset(cand_of + oc, 0, (capof - oc) * sizeof(*cand_of));
		}
		if (cand_of[nid]) {
			c[cand_of[nid] - 1].count++;
			pool.n = start;
			continue;
		}
		if (nc == capc) {
			void *v = c;
			if (!pp_grow(&v, &capc, nc + 1, sizeof(*c)))
				goto nomem;
			c = v;
		}
		c[nc] = (struct cand){nid, 1, (uint32_t)nc, (uint32_t)start,
				      (uint32_t)(pool.n - start)};
		cand_of[nid] = (uint32_t)++nc;
	}
	if (nc == 0)
		goto out;
	qsort(c, nc, sizeof(*c), cmp_cand);
	double minc = total / 1000.0 > 2 ? total / 1000.0 : 2;
	size_t ndef = 0;
	while (ndef < nc && c[ndef].count >= minc)
		ndef++;
	if (ndef == 0)
		goto out;

	/* the property tree of the definitions, each one's properties sorted */
	uint32_t root;
	if (!pt_new_state(&t, &root))
		goto nomem;
	sort_p = p;
	for (size_t d = 0; d < ndef; d++) {
		uint32_t *pr = pool.v + c[d].props;
		qsort(pr, c[d].nprops, sizeof(*pr), cmp_ids);
		uint32_t st = root;
		for (uint32_t k = 0; k < c[d].nprops; k++) {
			uint32_t nx = pt_get(&t, st, pr[k]);
			if (!nx) {
				if (!pt_new_state(&t, &nx) || !pt_add(&t, st, pr[k], nx))
					goto nomem;
				if (!t.greatest[st] || cmp_str(p, t.greatest[st] - 1, pr[k]) < 0)
					t.greatest[st] = pr[k] + 1;
			}
			st = nx;
		}
		if (t.match[st] < 0)
			t.match[st] = (int32_t)d;
	}
	seen = calloc(t.nstates, 1);
	if (!seen)
		goto nomem;

	/* each plain Object's best definition */
	for (uint32_t o = 0; o < h->n; o++) {
		if (h->type[o] != h->t_object || cls[o] != object_id)
			continue;
		props.n = 0;
		for (uint32_t e = h->first[o]; e < h->first[o + 1]; e++) {
			if (h->etype[e] != h->et_property)
				continue;
			uint32_t id;
			PROP_ID(h->ename[e], id);
			if (!push(&props, id))
				goto nomem;
		}
		qsort(props.v, props.n, sizeof(*props.v), cmp_ids);
		states.n = 0;
		if (!push(&states, root))
			goto nomem;
		seen[root] = 1;
		int32_t best = t.match[root];
		uint32_t bestn = best >= 0 ? c[best].nprops : 0;
		for (size_t k = 0; k < props.n; k++) {
			uint32_t pr = props.v[k];
			nstates.n = 0;
			for (size_t q = 0; q < states.n; q++) {
				uint32_t st = states.v[q];
				bool keep = !(t.greatest[st] == 0 ||
					      cmp_str(p, pr, t.greatest[st] - 1) >= 0);
				if (keep) {
					if (!push(&nstates, st))
						goto nomem;
				} else {
					seen[st] = 0;
				}
				uint32_t nx = t.greatest[st] ? pt_get(&t, st, pr) : 0;
				if (nx) {
					if (!seen[nx]) {
						seen[nx] = 1;
						if (!push(&nstates, nx))
							goto nomem;
					}
					int32_t m = t.match[nx];
					if (m >= 0 && (best < 0 || c[m].nprops > bestn ||
						       (c[m].nprops == bestn && m < best))) {
						best = m;
						bestn = c[m].nprops;
					}
				}
			}
			struct u32v tmp = states;
			states = nstates;
			nstates = tmp;
		}
		for (size_t q = 0; q < states.n; q++)
			seen[states.v[q]] = 0;
		if (best >= 0)
			cls[o] = c[best].name;
	}
	goto out;
nomem:
	s = pp_nomem(p);
out:
#undef PROP_ID
	pp_buf_release(&b);
	free(pool.v);
	free(props.v);
	free(states.v);
	free(nstates.v);
	free(c);
	free(cand_of);
	free(propid);
	free(t.keys);
	free(t.vals);
	free(t.greatest);
	free(t.match);
	free(seen);
	return s;
}

int pp_hs_class_names(struct pprof_profile *p, const struct pp_hs *h, uint32_t *cls)
{
	uint32_t system, code, function, regexp, object;
	uint32_t *bytype = NULL, *byname = NULL, *detname = NULL;
	struct pp_buf b;
	int s;

	pp_buf_init(&b);
	if ((s = pp_intern_cstr(p, "(system)", &system)) != PPROF_OK ||
	    (s = pp_intern_cstr(p, "(compiled code)", &code)) != PPROF_OK ||
	    (s = pp_intern_cstr(p, "Function", &function)) != PPROF_OK ||
	    (s = pp_intern_cstr(p, "RegExp", &regexp)) != PPROF_OK ||
	    (s = pp_intern_cstr(p, "Object", &object)) != PPROF_OK)
		return s;
	bytype = calloc(h->nnode_types + 1, sizeof(*bytype));
	byname = calloc((size_t)h->nstrings + 1, sizeof(*byname));
	detname = calloc((size_t)h->nstrings + 1, sizeof(*detname));
	if (!bytype || !byname || !detname) {
		s = pp_nomem(p);
		goto out;
	}
	for (uint32_t o = 0; o < h->n; o++) {
		uint32_t t = h->type[o];
		if (t == h->t_hidden) {
			cls[o] = system;
		} else if (t == h->t_code) {
			cls[o] = code;
		} else if (t == h->t_closure) {
			cls[o] = function;
		} else if (t == h->t_regexp) {
			cls[o] = regexp;
		} else if (t == h->t_object || t == h->t_native) {
			bool det = t == h->t_native && h->detached && h->detached[o] == 2;
			uint32_t *cache = det ? detname : byname;
			uint32_t nm = h->name[o];
			if (!cache[nm]) {
				size_t len;
				const char *str = pp_hs_str(h, nm, &len);
				b.len = 0;
				if ((det && !pp_buf_add(&b, "Detached ", 9)) ||
				    !pp_buf_add(&b, str, len)) {
					s = pp_nomem(p);
					goto out;
				}
				/* '<div id="a">' is the class '<div>' */
				size_t from = b.len > 0 && b.s[0] == '<' ? 0
					      : b.len > 10 && memcmp(b.s, "Detached <", 10) == 0 ? 10
					      : SIZE_MAX;
				if (from != SIZE_MAX) {
					char *sp = memchr(b.s + from, ' ', b.len - from);
					if (sp) {
						b.len = (size_t)(sp - b.s);
						if (!pp_buf_addc(&b, '>')) {
							s = pp_nomem(p);
							goto out;
						}
					}
				}
				uint32_t id;
				if ((s = pp_intern(p, b.s, b.len, &id)) != PPROF_OK)
					goto out;
				cache[nm] = id + 1;
			}
			cls[o] = cache[nm] - 1;
		} else {
			if (!bytype[t]) {
				b.len = 0;
				uint32_t id;
				if (!pp_buf_addf(&b, "(%s)", h->node_types[t])) {
					s = pp_nomem(p);
					goto out;
				}
				if ((s = pp_intern(p, b.s, b.len, &id)) != PPROF_OK)
					goto out;
				bytype[t] = id + 1;
			}
			cls[o] = bytype[t] - 1;
		}
	}
	s = interfaces(p, h, object, cls);
out:
	pp_buf_release(&b);
	free(bytype);
	free(byname);
	free(detname);
	return s;
}

/* ---- positions of the class names (source maps) ---- */

/* The target of node V's edge named NAME (not an element or hidden edge),
 * or PP_HS_NONE. */
static uint32_t edge_to(const struct pp_hs *h, uint32_t v, const char *name)
{
	size_t n = strlen(name);
	for (uint32_t e = h->first[v]; e < h->first[v + 1]; e++) {
		if (h->etype[e] == h->et_element || h->etype[e] == h->et_hidden)
			continue;
		size_t len;
		const char *s = pp_hs_str(h, h->ename[e], &len);
		if (len == n && memcmp(s, name, n) == 0)
			return h->to[e];
	}
	return PP_HS_NONE;
}

struct sid_url {
	uint32_t sid, url;
};

struct fnpos {
	uint32_t sid, line, col, name; /* name: a string of H */
};

static int cmp_sid(const void *a, const void *b)
{
	const struct sid_url *x = a, *y = b;
	return x->sid < y->sid ? -1 : x->sid > y->sid;
}

static int cmp_fnpos(const void *a, const void *b)
{
	const struct fnpos *x = a, *y = b;
	if (x->sid != y->sid)
		return x->sid < y->sid ? -1 : 1;
	if (x->line != y->line)
		return x->line < y->line ? -1 : 1;
	if (x->col != y->col)
		return x->col < y->col ? -1 : 1;
	return x->name < y->name ? -1 : x->name > y->name;
}

int pp_hs_class_positions(struct pprof_profile *p, const struct pp_hs *h, const uint32_t *cls,
			  struct pp_hs_pos **pos, uint32_t *npos)
{
	struct sid_url *su = NULL;
	struct fnpos *fp = NULL;
	size_t nsu = 0, nfp = 0;
	uint32_t *hurl = NULL; /* string of H -> string of P + 1 */
	int s = PPROF_OK;

	*pos = NULL;
	*npos = 0;
	if (h->nloc == 0 || !h->first)
		return PPROF_OK;
	su = malloc((size_t)h->nloc * sizeof(*su));
	fp = malloc((size_t)h->nloc * sizeof(*fp));
	hurl = calloc((size_t)h->nstrings + 1, sizeof(*hurl));
	if (!su || !fp || !hurl) {
		s = pp_nomem(p);
		goto out;
	}
	/* the script ids' URLs, and where the closures start */
	for (uint32_t i = 0; i < h->nloc; i++) {
		const uint32_t *l = h->loc + (size_t)i * 5;
		uint32_t v = l[0], sn = l[2];
		if (h->type[v] != h->t_closure)
			continue;
		fp[nfp++] = (struct fnpos){l[1], l[3], l[4], h->name[v]};
		if (sn == PP_HS_NONE) {
			uint32_t sh = edge_to(h, v, "shared");
			if (sh != PP_HS_NONE) {
				sn = edge_to(h, sh, "script");
				if (sn == PP_HS_NONE)
					sn = edge_to(h, sh, "script_or_debug_info");
			}
		}
		uint32_t nm = sn == PP_HS_NONE ? PP_HS_NONE : edge_to(h, sn, "name");
		if (nm == PP_HS_NONE || h->type[nm] != h->t_string)
			continue;
		uint32_t str = h->name[nm];
		if (!hurl[str]) {
			size_t len;
			const char *u = pp_hs_str(h, str, &len);
			uint32_t id = 0;
			if (len && (s = pp_intern(p, u, len, &id)) != PPROF_OK)
				goto out;
			hurl[str] = id + 1;
		}
		if (hurl[str] > 1)
			su[nsu++] = (struct sid_url){l[1], hurl[str] - 1};
	}
	qsort(su, nsu, sizeof(*su), cmp_sid);
	qsort(fp, nfp, sizeof(*fp), cmp_fnpos);
	*npos = p->nstrs;
	*pos = calloc(*npos, sizeof(**pos));
	if (!*pos) {
		s = pp_nomem(p);
		goto out;
	}
	/* each located object's class: its constructor's start, when a closure
	 * of the object's name starts there */
	for (uint32_t i = 0; i < h->nloc; i++) {
		const uint32_t *l = h->loc + (size_t)i * 5;
		uint32_t v = l[0], c = cls[v];
		if ((h->type[v] != h->t_object && h->type[v] != h->t_native) || c >= *npos)
			continue;
		struct fnpos key = {l[1], l[3], l[4], h->name[v]};
		if (!bsearch(&key, fp, nfp, sizeof(*fp), cmp_fnpos))
			continue;
		struct sid_url sk = {l[1], 0}, *u = bsearch(&sk, su, nsu, sizeof(*su), cmp_sid);
		if (!u)
			continue;
		struct pp_hs_pos *q = &(*pos)[c];
		int64_t line = (int64_t)l[3] + 1, col = (int64_t)l[4] + 1;
		if (q->file == 0 && q->line == 0)
			*q = (struct pp_hs_pos){u->url, line, col};
		else if (q->file != u->url || q->line != line || q->column != col)
			*q = (struct pp_hs_pos){0, -1, 0}; /* two constructors: a name only */
	}
	for (uint32_t c = 0; c < *npos; c++)
		if ((*pos)[c].file == 0)
			(*pos)[c] = (struct pp_hs_pos){0, 0, 0};
out:
	free(su);
	free(fp);
	free(hurl);
	return s;
}
