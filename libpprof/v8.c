/* v8.c: V8 profile nodes, flat or nested, and the call tree built from
 * them (see v8.h). */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#include "v8.h"

void pp_v8_init(struct pp_v8 *v, struct pprof_profile *p, struct json *j)
{
	memset(v, 0, sizeof(*v));
	v->p = p;
	v->j = j;
	v->last_idx = PP_V8_NONE;
}

void pp_v8_size_hint(struct pp_v8 *v, size_t len)
{
	/* V8 writes a node in 100 bytes at least, 250 on average with its
	 * children and positionTicks; a tick entry in 22 */
	const size_t most = (size_t)1 << 20; /* beyond, they double as always */

	v->hint_nodes = len / 256 < most ? len / 256 : most;
	v->hint_kids = v->hint_nodes;
	v->hint_ticks = len / 128 < most ? len / 128 : most;
}

/* *A (*CAP elements of SIZE bytes, N used) with room for one more: doubled,
 * or HINT elements at first (pp_huge_alloc(): whole huge pages from its
 * first byte when it is big); huge pages asked for when it grows big. */
static bool grow_hinted(void **a, size_t *cap, size_t n, size_t size, size_t hint, size_t first)
{
	size_t c;
	void *b;

	if (n < *cap)
		return true;
	c = *cap ? *cap * 2 : hint > first ? hint : first;
	if (c > SIZE_MAX / size)
		return false;
	if (!*a) {
		size_t bytes = c * size;
		if (!(b = pp_huge_alloc(&bytes)))
			return false;
		c = bytes / size;
	} else {
		if (!(b = realloc(*a, c * size)))
			return false;
		pp_advise_huge(b, c * size);
	}
	*a = b;
	*cap = c;
	return true;
}

void pp_v8_release(struct pp_v8 *v)
{
	free(v->nodes);
	free(v->kids);
	free(v->ticks);
	free(v->hkeys);
	free(v->hvals);
	free(v->direct);
	free(v->ticksum);
	v->ticksum = NULL;
	v->direct = NULL;
	v->nodes = NULL;
	v->kids = NULL;
	v->ticks = NULL;
	v->hkeys = NULL;
	v->hvals = NULL;
}

int pp_v8_json_error(struct pprof_profile *p, const struct json *j)
{
	return pp_error_at(p, PPROF_EINPUT, json_error_offset(j), "%s", json_error(j));
}

int pp_v8_int(struct pprof_profile *p, struct json *j, const char *what, int64_t *out)
{
	if (!json_int64(j, out))
		return pp_error_at(p, PPROF_EINPUT, json_offset(j),
				   "%s is not a 64-bit integer", what);
	return PPROF_OK;
}

int pp_v8_int_array(struct pprof_profile *p, struct json *j, int t, const char *what,
		    int64_t **a, size_t *n, size_t *cap)
{
	if (t == JSON_ERROR)
		return pp_v8_json_error(p, j);
	if (t != JSON_ARRAY_BEGIN)
		return pp_error_at(p, PPROF_EINPUT, json_offset(j), "%s is not an array", what);
	for (;;) {
		if (*n == *cap) {
			size_t c = *cap ? *cap * 2 : 4096;
			int64_t *b = realloc(*a, c * sizeof(*b));

			if (!b)
				return pp_nomem(p);
			*a = b;
			*cap = c;
		}
		/* the plain integers in bulk; anything else token by token */
		size_t got = json_ints(j, *a + *n, *cap - *n);

		*n += got;
		if (*n == *cap)
			continue;
		t = json_next(j);
		if (t == JSON_ARRAY_END)
			return PPROF_OK;
		if (t == JSON_ERROR)
			return pp_v8_json_error(p, j);
		if (t != JSON_NUMBER)
			return pp_error_at(p, PPROF_EINPUT, json_offset(j),
					   "%s holds something other than a number", what);
		if (!json_int64(j, &(*a)[*n]))
			return pp_error_at(p, PPROF_EINPUT, json_offset(j),
					   "%s holds a number that is not a 64-bit integer", what);
		(*n)++;
	}
}

/* ---- reading nodes ---- */

static int new_node(struct pp_v8 *v, uint32_t parent, uint32_t *idx)
{
	struct pp_v8_node *d;

	if (v->n == v->cap) {
		/* From 1 unless hinted: a Chrome trace may hold a million
		 * profiles. */
		size_t c = v->cap;

		if (v->cap >= UINT32_MAX / 4)
			return pp_error(v->p, PPROF_ENOMEM, "too many nodes");
		if (!grow_hinted((void **)&v->nodes, &c, v->n, sizeof(*v->nodes),
				 v->hint_nodes < UINT32_MAX / 4 ? v->hint_nodes : UINT32_MAX / 4, 1))
			return pp_nomem(v->p);
		if (v->sum_ticks) {
			int64_t *t = realloc(v->ticksum, c * sizeof(*t));

			if (!t)
				return pp_nomem(v->p);
			v->ticksum = t;
		}
		v->cap = (uint32_t)c;
	}
	if (v->sum_ticks)
		v->ticksum[v->n] = 0;
	*idx = v->n++;
	d = &v->nodes[*idx];
	memset(d, 0, sizeof(*d));
	d->offset = json_offset(v->j);
	d->line = -1;
	d->column = -1;
	d->parent = parent;
	d->model = PP_V8_NONE;
	return PPROF_OK;
}

static int add_kid(struct pp_v8 *v, uint32_t parent)
{
	struct pp_v8_kid *k;

	if (!grow_hinted((void **)&v->kids, &v->capkids, v->nkids, sizeof(*v->kids), v->hint_kids,
			 256))
		return pp_nomem(v->p);
	k = &v->kids[v->nkids];
	k->offset = json_offset(v->j);
	k->parent = parent;
	if (!json_int64(v->j, &k->id))
		return pp_error_at(v->p, PPROF_EINPUT, k->offset,
				   "child id is not a 64-bit integer");
	v->nkids++;
	return PPROF_OK;
}

/* The string value of the current key, interned into *ID. */
static int string_field(struct pp_v8 *v, const char *what, uint32_t *id)
{
	int t = json_next(v->j);

	if (t == JSON_ERROR)
		return pp_v8_json_error(v->p, v->j);
	if (t != JSON_STRING)
		return pp_error_at(v->p, PPROF_EINPUT, json_offset(v->j),
				   "%s is not a string", what);
	return pp_intern(v->p, v->j->str, v->j->len, id);
}

/* The integer value of the current key. */
static int int_field(struct pp_v8 *v, const char *what, int64_t *out)
{
	int t = json_next(v->j);

	if (t == JSON_ERROR)
		return pp_v8_json_error(v->p, v->j);
	if (t != JSON_NUMBER)
		return pp_error_at(v->p, PPROF_EINPUT, json_offset(v->j),
				   "%s is not a number", what);
	return pp_v8_int(v->p, v->j, what, out);
}

/* functionName, url, lineNumber or columnNumber, as found in callFrame or,
 * in Node's old format, on the node itself.  *KNOWN is false for any other
 * key (whose value is not read). */
static int frame_field(struct pp_v8 *v, struct pp_v8_node *d, bool *known)
{
	struct json *j = v->j;

	*known = true;
	if (KEY_IS(j, "functionName"))
		return string_field(v, "functionName", &d->name);
	if (KEY_IS(j, "url"))
		return string_field(v, "url", &d->url);
	if (KEY_IS(j, "lineNumber"))
		return int_field(v, "lineNumber", &d->line);
	if (KEY_IS(j, "columnNumber"))
		return int_field(v, "columnNumber", &d->column);
	*known = false;
	return PPROF_OK;
}

static int skip_value(struct pp_v8 *v)
{
	int t = json_next(v->j);

	if (t == JSON_ERROR || json_skip(v->j, t) == JSON_ERROR)
		return pp_v8_json_error(v->p, v->j);
	return PPROF_OK;
}

static int read_call_frame(struct pp_v8 *v, uint32_t idx)
{
	struct json *j = v->j;
	int t = json_next(j), s;

	if (t == JSON_ERROR)
		return pp_v8_json_error(v->p, j);
	if (t != JSON_OBJECT_BEGIN)
		return pp_error_at(v->p, PPROF_EINPUT, json_offset(j),
				   "callFrame is not an object");
	for (;;) {
		bool known;

		t = json_next(j);
		if (t == JSON_OBJECT_END)
			return PPROF_OK;
		if (t == JSON_ERROR)
			return pp_v8_json_error(v->p, j);
		s = frame_field(v, &v->nodes[idx], &known);
		if (s == PPROF_OK && !known)
			s = skip_value(v);
		if (s != PPROF_OK)
			return s;
	}
}

/* Sum *SUM (-1 once past int64) with TICKS (0 or more) added. */
static inline void sum_ticks(int64_t *sum, int64_t ticks)
{
	if (*sum >= 0 && __builtin_add_overflow(*sum, ticks, sum))
		*sum = -1;
}

/* The entry K (checked) of node K.node kept, or summed (v->sum_ticks). */
static inline bool put_tick(struct pp_v8 *v, struct pp_v8_tick k)
{
	if (v->sum_ticks) {
		sum_ticks(&v->ticksum[k.node], k.ticks);
		return true;
	}
	if (!grow_hinted((void **)&v->ticks, &v->capticks, v->nticks, sizeof(*v->ticks),
			 v->hint_ticks, 256))
		return false;
	v->ticks[v->nticks++] = k;
	return true;
}

/* "positionTicks": [{line, ticks}, ...] of node IDX. */
static int read_ticks(struct pp_v8 *v, uint32_t idx)
{
	struct json *j = v->j;
	int t = json_next(j), s;

	if (t == JSON_ERROR)
		return pp_v8_json_error(v->p, j);
	if (t != JSON_ARRAY_BEGIN)
		return pp_error_at(v->p, PPROF_EINPUT, json_offset(j),
				   "positionTicks is not an array");
	for (;;) {
		uint64_t at;
		bool have_line = false, have_ticks = false;
		struct pp_v8_tick k = { idx, 0, 0 };
		uint32_t line, ticks;

		/* V8 writes {"line":N,"ticks":N}: read at once */
		if (json_int_pair(j, "line", "ticks", &line, &ticks)) {
			if (line < 1)
				return pp_error_at(v->p, PPROF_EINPUT,
						   json_offset(j) + sizeof("{\"line\":") - 1,
						   "positionTicks line %lld is not 1 or more",
						   (long long)line);
			if (!put_tick(v, (struct pp_v8_tick){idx, line, ticks}))
				return pp_nomem(v->p);
			continue;
		}
		t = json_next(j);
		if (t == JSON_ARRAY_END)
			return PPROF_OK;
		if (t == JSON_ERROR)
			return pp_v8_json_error(v->p, j);
		if (t != JSON_OBJECT_BEGIN)
			return pp_error_at(v->p, PPROF_EINPUT, json_offset(j),
					   "a positionTicks entry is not an object");
		at = json_offset(j);
		for (;;) {
			t = json_next(j);
			if (t == JSON_OBJECT_END)
				break;
			if (t == JSON_ERROR)
				return pp_v8_json_error(v->p, j);
			if (KEY_IS(j, "line")) {
				s = int_field(v, "positionTicks line", &k.line);
				if (s == PPROF_OK && k.line < 1)
					s = pp_error_at(v->p, PPROF_EINPUT, json_offset(j),
							"positionTicks line %lld is not 1 or more",
							(long long)k.line);
				have_line = true;
			} else if (KEY_IS(j, "ticks")) {
				s = int_field(v, "positionTicks ticks", &k.ticks);
				if (s == PPROF_OK && k.ticks < 0)
					s = pp_error_at(v->p, PPROF_EINPUT, json_offset(j),
							"negative positionTicks ticks %lld",
							(long long)k.ticks);
				have_ticks = true;
			} else {
				s = skip_value(v);
			}
			if (s != PPROF_OK)
				return s;
		}
		if (!have_line || !have_ticks)
			return pp_error_at(v->p, PPROF_EINPUT, at,
					   "a positionTicks entry without %s",
					   have_line ? "ticks" : "a line");
		if (!put_tick(v, k))
			return pp_nomem(v->p);
	}
}

struct level {
	uint32_t node;
	bool in_children; /* inside the node's "children" array */
};

/* Node NODE on *STACK (*SP used of *CAP): nesting is bounded by the
 * parser's depth limit, and the stack grows with it instead of the C
 * stack.  False when out of memory. */
static bool level_push(struct level **stack, size_t *sp, size_t *cap, uint32_t node)
{
	if (*sp == *cap) {
		size_t c = *cap ? *cap * 2 : 64;
		struct level *b = realloc(*stack, c * sizeof(*b));

		if (!b)
			return false;
		*stack = b;
		*cap = c;
	}
	(*stack)[*sp] = (struct level){node, false};
	(*sp)++;
	return true;
}

/*
 * The walk of pp_v8_read_node() again over one node's object and the nodes
 * nested in its "children", reading only their positionTicks: node I's
 * object at its offset, its nested nodes numbered on from I + 1 in the
 * order of their '{' as the first read numbered them (and found where it
 * found them); *NEXT gets the first index past them.  Each byte is read
 * once however deep the nodes nest.
 */
static int reread_tree(struct pp_v8 *v, const unsigned char *buf, size_t len, uint32_t max_depth,
		       uint32_t i, uint32_t *next)
{
	struct level *stack = NULL;
	size_t sp = 0, cap = 0;
	uint64_t at = v->nodes[i].offset;
	struct json *saved = v->j, j;
	uint32_t n = i;
	int s = PPROF_OK, t;

	if (at >= len)
		return pp_error(v->p, PPROF_EINPUT, "node %u read again: not there", i);
	json_init(&j, buf + at, len - (size_t)at, max_depth);
	json_set_base(&j, (size_t)at);
	v->j = &j;
	for (t = json_next(&j);; t = json_next(&j)) {
		if (t == JSON_ERROR) {
			s = pp_v8_json_error(v->p, &j);
			break;
		}
		if (sp == 0 || stack[sp - 1].in_children) {
			if (sp > 0 && t == JSON_ARRAY_END) {
				stack[sp - 1].in_children = false;
				continue;
			}
			if (sp > 0 && t == JSON_NUMBER)
				continue; /* a child named by id */
			/* a node: the one the first read numbered N here */
			if (t != JSON_OBJECT_BEGIN || n >= v->n ||
			    v->nodes[n].offset != json_offset(&j)) {
				s = pp_error_at(v->p, PPROF_EINPUT, json_offset(&j),
						"node %u read again: not where it was", n);
				break;
			}
			if (!level_push(&stack, &sp, &cap, n++)) {
				s = pp_nomem(v->p);
				break;
			}
			continue;
		}
		if (t == JSON_OBJECT_END) {
			if (--sp == 0)
				break;
			continue;
		}
		if (KEY_IS(&j, "positionTicks")) {
			s = read_ticks(v, stack[sp - 1].node);
		} else if (KEY_IS(&j, "children")) {
			t = json_next(&j);
			if (t == JSON_ARRAY_BEGIN)
				stack[sp - 1].in_children = true;
			else if (t == JSON_ERROR || json_skip(&j, t) == JSON_ERROR)
				s = pp_v8_json_error(v->p, &j);
		} else {
			s = skip_value(v);
		}
		if (s != PPROF_OK)
			break;
	}
	v->j = saved;
	json_release(&j);
	free(stack);
	*next = n;
	return s;
}

int pp_v8_reread_ticks(struct pp_v8 *v, const unsigned char *buf, size_t len, uint32_t max_depth)
{
	int s = PPROF_OK;

	v->sum_ticks = false;
	v->nticks = 0;
	/* a node not read with an earlier one's tree starts a tree of its own
	 * (the flat layout's nodes, Node's old layout's head) */
	for (uint32_t i = 0; i < v->n && s == PPROF_OK;)
		s = reread_tree(v, buf, len, max_depth, i, &i);
	return s;
}

int pp_v8_read_node(struct pp_v8 *v)
{
	struct json *j = v->j;
	struct level *stack = NULL;
	size_t sp = 0, cap = 0;
	uint32_t idx;
	int s, t;

#define PUSH(IDX)                                            \
	do {                                                 \
		if (!level_push(&stack, &sp, &cap, (IDX))) { \
			s = pp_nomem(v->p);                  \
			goto out;                            \
		}                                            \
	} while (0)

	s = new_node(v, PP_V8_NONE, &idx);
	if (s != PPROF_OK)
		return s;
	PUSH(idx);
	while (sp > 0) {
		struct level *top = &stack[sp - 1];
		uint32_t cur = top->node;
		struct pp_v8_node *d;
		bool known;

		t = json_next(j);
		if (t == JSON_ERROR) {
			s = pp_v8_json_error(v->p, j);
			goto out;
		}
		if (top->in_children) {
			if (t == JSON_ARRAY_END) {
				top->in_children = false;
			} else if (t == JSON_NUMBER) {
				s = add_kid(v, cur);
				if (s != PPROF_OK)
					goto out;
			} else if (t == JSON_OBJECT_BEGIN) {
				s = new_node(v, cur, &idx);
				if (s != PPROF_OK)
					goto out;
				PUSH(idx);
			} else {
				s = pp_error_at(v->p, PPROF_EINPUT, json_offset(j),
						"a child is neither a node id nor a node");
				goto out;
			}
			continue;
		}
		if (t == JSON_OBJECT_END) {
			sp--;
			continue;
		}
		/* t is JSON_KEY: the parser allows nothing else here. */
		d = &v->nodes[cur];
		if (KEY_IS(j, "callFrame")) {
			s = read_call_frame(v, cur);
		} else if (KEY_IS(j, "id")) {
			s = int_field(v, "node id", &d->id);
			d->has_id = true;
		} else if (KEY_IS(j, "parent")) {
			s = int_field(v, "parent", &d->parent_id);
			d->has_parent = true;
		} else if (KEY_IS(j, "positionTicks")) {
			s = read_ticks(v, cur);
		} else if (KEY_IS(j, "hitCount")) {
			s = int_field(v, "hitCount", &d->hitcount);
		} else if (KEY_IS(j, "selfSize")) {
			s = int_field(v, "selfSize", &d->selfsize);
			/* Bytes allocated: V8 never writes a negative one, and
			 * summed it would cancel real allocations unseen. */
			if (s == PPROF_OK && d->selfsize < 0)
				s = pp_error_at(v->p, PPROF_EINPUT, json_offset(j),
						"negative selfSize %lld", (long long)d->selfsize);
		} else if (KEY_IS(j, "children")) {
			t = json_next(j);
			if (t == JSON_ERROR) {
				s = pp_v8_json_error(v->p, j);
			} else if (t != JSON_ARRAY_BEGIN) {
				s = pp_error_at(v->p, PPROF_EINPUT, json_offset(j),
						"children is not an array");
			} else {
				top->in_children = true;
				s = PPROF_OK;
			}
		} else {
			s = frame_field(v, d, &known);
			if (s == PPROF_OK && !known)
				s = skip_value(v);
		}
		if (s != PPROF_OK)
			goto out;
	}
	s = PPROF_OK;
out:
	free(stack);
	return s;
#undef PUSH
}

/* ---- V8's own layout, read from the bytes ---- */

/* "KEY": (the literal, quotes and colon included) at *P. */
#define LIT(p, e, lit)                                                                       \
	((size_t)((e) - (p)) >= sizeof(lit) - 1 && memcmp((p), lit, sizeof(lit) - 1) == 0 && \
	 ((p) += sizeof(lit) - 1, true))

/* A plain integer at *P (an optional '-', 1 to 18 digits, no leading zero
 * but "0" itself): what json_next() and json_int64() make of it, *P past
 * it.  Returns the byte after it (not read), or -1 when there is none or
 * the number is not such an integer.  The caller accepts only a ',', '}'
 * or ']' after it, bytes that cannot continue a number. */
static inline int fast_int(const unsigned char **pp, const unsigned char *e, int64_t *out)
{
	const unsigned char *p = *pp, *q;
	bool neg = p < e && *p == '-';
	uint64_t x = 0;

	p += neg;
	for (q = p; q < e && (unsigned)(*q - '0') <= 9 && q - p <= 18; q++)
		x = x * 10 + (unsigned)(*q - '0');
	if (q == p || q - p > 18 || q >= e || (*p == '0' && q - p > 1))
		return -1;
	*out = neg ? -(int64_t)x : (int64_t)x;
	*pp = q;
	return *q;
}

/* A string without escapes or bytes >= 0x80 at *P, its quotes included:
 * *S and *N its contents, *P past it. */
static inline bool fast_str(const unsigned char **pp, const unsigned char *e,
			    const unsigned char **s, size_t *n)
{
	const unsigned char *p = *pp, *q;

	if (p >= e || *p != '"')
		return false;
	q = json_plain_end(p + 1, e);
	if (q >= e || *q != '"')
		return false;
	*s = p + 1;
	*n = (size_t)(q - p - 1);
	*pp = q + 1;
	return true;
}

int pp_v8_fast_node(struct pp_v8 *v, bool *done)
{
	struct json *j = v->j;
	const unsigned char *e, *at = json_element(j, 3, &e), *p = at;
	const unsigned char *name, *script, *url;
	size_t nname, nscript, nurl, kids0 = v->nkids, ticks0 = v->nticks;
	int64_t id, line, column, hit = 0, tsum = 0;
	bool seen_hit = false, seen_kids = false, seen_ticks = false;
	uint32_t idx;
	int s;

	*done = false;
	if (p && e - p > 8192) {
		__builtin_prefetch(p + 4096);
		__builtin_prefetch(p + 8192);
	}
	if (!p || !LIT(p, e, "{\"id\":") || fast_int(&p, e, &id) != ',' ||
	    !LIT(p, e, ",\"callFrame\":{\"functionName\":") || !fast_str(&p, e, &name, &nname) ||
	    !LIT(p, e, ",\"scriptId\":") || !fast_str(&p, e, &script, &nscript) ||
	    !LIT(p, e, ",\"url\":") || !fast_str(&p, e, &url, &nurl) ||
	    !LIT(p, e, ",\"lineNumber\":") || fast_int(&p, e, &line) != ',' ||
	    !LIT(p, e, ",\"columnNumber\":") || fast_int(&p, e, &column) != '}')
		return PPROF_OK;
	p++;
	/* Kids and ticks go straight to their arrays, taken back when the
	 * node turns out to be something else.  A kid's offset is from AT
	 * until the node is kept. */
	while (p < e && *p == ',') {
		p++;
		if (!seen_hit && LIT(p, e, "\"hitCount\":")) {
			int c = fast_int(&p, e, &hit);

			seen_hit = true;
			if (c != ',' && c != '}')
				goto back;
		} else if (!seen_kids && LIT(p, e, "\"children\":[")) {
			seen_kids = true;
			if (p < e && *p == ']') {
				p++;
				continue;
			}
			for (;;) {
				const unsigned char *k = p;
				int64_t kid;
				int c = fast_int(&p, e, &kid);

				if ((c != ',' && c != ']') ||
				    !grow_hinted((void **)&v->kids, &v->capkids, v->nkids,
						 sizeof(*v->kids), v->hint_kids, 256))
					goto back;
				v->kids[v->nkids++] = (struct pp_v8_kid){kid, (uint64_t)(k - at), 0};
				p++;
				if (c == ']')
					break;
			}
		} else if (!seen_ticks && LIT(p, e, "\"positionTicks\":[")) {
			seen_ticks = true;
			if (p < e && *p == ']') {
				p++;
				continue;
			}
			for (;;) {
				int64_t l, t;

				if (!LIT(p, e, "{\"line\":") || fast_int(&p, e, &l) != ',' ||
				    !LIT(p, e, ",\"ticks\":") || fast_int(&p, e, &t) != '}' ||
				    l < 1 || t < 0)
					goto back;
				if (v->sum_ticks)
					sum_ticks(&tsum, t);
				else if (grow_hinted((void **)&v->ticks, &v->capticks, v->nticks,
						     sizeof(*v->ticks), v->hint_ticks, 256))
					v->ticks[v->nticks++] = (struct pp_v8_tick){0, l, t};
				else
					goto back;
				p++;
				if (p < e && *p == ']') {
					p++;
					break;
				}
				if (p >= e || *p != ',')
					goto back;
				p++;
			}
		} else {
			goto back;
		}
	}
	if (p >= e || *p != '}')
		goto back;
	p++;

	json_element_done(j, at, p);
	s = new_node(v, PP_V8_NONE, &idx);
	if (s != PPROF_OK)
		return s;
	*done = true;
	{
		struct pp_v8_node *d = &v->nodes[idx];
		uint64_t base = d->offset;

		d->id = id;
		d->has_id = true;
		d->line = line;
		d->column = column;
		d->hitcount = hit;
		for (size_t k = kids0; k < v->nkids; k++) {
			v->kids[k].offset += base;
			v->kids[k].parent = idx;
		}
		for (size_t k = ticks0; k < v->nticks; k++)
			v->ticks[k].node = idx;
		if (v->sum_ticks)
			v->ticksum[idx] = tsum;
		s = pp_intern(v->p, (const char *)name, nname, &d->name);
		if (s == PPROF_OK)
			s = pp_intern(v->p, (const char *)url, nurl, &d->url);
	}
	return s;
back:
	v->nkids = kids0;
	v->nticks = ticks0;
	return PPROF_OK;
}

/* ---- ids ---- */

/* Ids come from the input: hashed with a seed the input can't know, crafted
 * ids can't all fall into one slot (hash flooding: 40,000 nodes whose ids
 * collided took 0.9 s, quadratically more with more). */
static uint64_t hash_seed(const void *addr)
{
	uint64_t s = (uint64_t)(uintptr_t)addr * 0x9e3779b97f4a7c15ull, r;
	if (getrandom(&r, sizeof(r), GRND_NONBLOCK) == (ssize_t)sizeof(r))
		s ^= r;
	return s;
}

static inline uint32_t id_slot(int64_t id, uint64_t seed, uint32_t cap)
{
	uint64_t h = ((uint64_t)id ^ seed) * UINT64_C(0x9e3779b97f4a7c15);

	return (uint32_t)(h >> 32) & (cap - 1);
}

/* The table of ids when they are few and small; false when they are not
 * (the hash then). */
static int build_direct(struct pp_v8 *v, bool *done)
{
	int64_t max = -1;
	uint32_t i;

	*done = false;
	for (i = 0; i < v->n; i++) {
		const struct pp_v8_node *d = &v->nodes[i];

		if (!d->has_id)
			continue;
		if (d->id < 0 || d->id > 2 * (int64_t)v->n + 64)
			return PPROF_OK;
		if (d->id > max)
			max = d->id;
	}
	v->direct = calloc((size_t)(max + 1) + 1, sizeof(*v->direct));
	if (!v->direct)
		return pp_nomem(v->p);
	v->ndirect = (uint32_t)(max + 1);
	for (i = 0; i < v->n; i++) {
		const struct pp_v8_node *d = &v->nodes[i];

		if (!d->has_id)
			continue;
		if (v->direct[d->id])
			return pp_error_at(v->p, PPROF_EINPUT, d->offset, "duplicate node id %lld",
					   (long long)d->id);
		v->direct[d->id] = i + 1;
	}
	*done = true;
	return PPROF_OK;
}

static int build_ids(struct pp_v8 *v)
{
	uint32_t cap = 64, i;
	bool direct;
	int s = build_direct(v, &direct);

	if (s != PPROF_OK || direct)
		return s;

	while (cap < v->n * 2u + 2)
		cap *= 2;
	v->hkeys = malloc((size_t)cap * sizeof(*v->hkeys));
	v->hvals = calloc(cap, sizeof(*v->hvals));
	if (!v->hkeys || !v->hvals)
		return pp_nomem(v->p);
	v->hcap = cap;
	v->hseed = hash_seed(v->hvals);
	for (i = 0; i < v->n; i++) {
		const struct pp_v8_node *d = &v->nodes[i];
		uint32_t k;

		if (!d->has_id)
			continue;
		for (k = id_slot(d->id, v->hseed, cap); v->hvals[k]; k = (k + 1) & (cap - 1))
			if (v->hkeys[k] == d->id)
				return pp_error_at(v->p, PPROF_EINPUT, d->offset,
						   "duplicate node id %lld", (long long)d->id);
		v->hkeys[k] = d->id;
		v->hvals[k] = i + 1;
	}
	return PPROF_OK;
}

uint32_t pp_v8_find(struct pp_v8 *v, int64_t id)
{
	uint32_t k;

	if (v->last_idx != PP_V8_NONE && v->last_id == id)
		return v->last_idx;
	if (v->direct)
		return id >= 0 && id < (int64_t)v->ndirect ? v->direct[id] - 1 : PP_V8_NONE;
	if (!v->hcap)
		return PP_V8_NONE;
	for (k = id_slot(id, v->hseed, v->hcap); v->hvals[k]; k = (k + 1) & (v->hcap - 1)) {
		if (v->hkeys[k] == id) {
			v->last_id = id;
			v->last_idx = v->hvals[k] - 1;
			return v->last_idx;
		}
	}
	return PP_V8_NONE;
}

/* ---- the tree ---- */

static bool is_root_name(const struct pp_v8 *v, const struct pp_v8_node *d)
{
	return pp_strlen(v->p, d->name) == 6 && memcmp(pp_str(v->p, d->name), "(root)", 6) == 0;
}

static int node_frame(struct pp_v8 *v, const struct pp_v8_node *d, uint32_t anon,
		      uint32_t *frame)
{
	struct pp_frame f;

	memset(&f, 0, sizeof(f));
	f.name = pp_strlen(v->p, d->name) ? d->name : anon;
	f.file = d->url; /* "" is string 0: no file */
	/* V8's positions are 0-based, -1 for none; the model's 1-based. */
	f.line = d->line >= 0 && d->line < INT64_MAX ? d->line + 1 : 0;
	f.column = d->column >= 0 && d->column < INT64_MAX ? d->column + 1 : 0;
	return pp_frame_intern(v->p, &f, frame);
}

/* A node whose parent chain does not reach a root: walking up N steps from
 * it ends on the cycle. */
static int cycle_error(struct pp_v8 *v, uint32_t start)
{
	uint32_t i, c = start;

	for (i = 0; i < v->n && v->nodes[c].parent != PP_V8_NONE; i++)
		c = v->nodes[c].parent;
	if (v->nodes[c].has_id)
		return pp_error_at(v->p, PPROF_EINPUT, v->nodes[c].offset,
				   "node graph has a cycle through node %lld",
				   (long long)v->nodes[c].id);
	return pp_error_at(v->p, PPROF_EINPUT, v->nodes[c].offset, "node graph has a cycle");
}

int pp_v8_build(struct pp_v8 *v)
{
	uint32_t *first = NULL, *order = NULL, anon, i;
	size_t k;
	uint32_t head = 0, tail = 0;
	int s;

	s = build_ids(v);
	if (s != PPROF_OK)
		return s;
	for (k = 0; k < v->nkids; k++) {
		const struct pp_v8_kid *kid = &v->kids[k];
		const struct pp_v8_node *par = &v->nodes[kid->parent];
		uint32_t c = pp_v8_find(v, kid->id);

		if (c == PP_V8_NONE) {
			if (par->has_id)
				return pp_error_at(v->p, PPROF_EINPUT, kid->offset,
						   "node %lld: child %lld does not exist",
						   (long long)par->id, (long long)kid->id);
			return pp_error_at(v->p, PPROF_EINPUT, kid->offset,
					   "child %lld does not exist", (long long)kid->id);
		}
		if (v->nodes[c].parent != PP_V8_NONE)
			return pp_error_at(v->p, PPROF_EINPUT, kid->offset,
					   "node %lld has more than one parent",
					   (long long)kid->id);
		v->nodes[c].parent = kid->parent;
	}
	/* linked: its memory, given back, is taken again below (memory a
	 * process freed a moment ago costs far less than fresh pages) */
	free(v->kids);
	v->kids = NULL;
	v->nkids = v->capkids = 0;
	for (i = 0; i < v->n; i++) {
		struct pp_v8_node *d = &v->nodes[i];
		uint32_t par;

		if (!d->has_parent)
			continue;
		par = pp_v8_find(v, d->parent_id);
		if (par == PP_V8_NONE) {
			if (d->has_id)
				return pp_error_at(v->p, PPROF_EINPUT, d->offset,
						   "node %lld: parent %lld does not exist",
						   (long long)d->id, (long long)d->parent_id);
			return pp_error_at(v->p, PPROF_EINPUT, d->offset,
					   "parent %lld does not exist", (long long)d->parent_id);
		}
		if (d->parent != PP_V8_NONE && d->parent != par)
			return pp_error_at(v->p, PPROF_EINPUT, d->offset,
					   "node %lld has more than one parent", (long long)d->id);
		d->parent = par;
	}

	/* Children grouped by parent (counting sort on the parent, stable),
	 * then a breadth-first walk from the roots: every parent gets its
	 * model node before its children. */
	/* FIRST, ORDER and the two below in one zeroed block: huge pages
	 * once it is big enough, where four blocks of their own would take a
	 * fault per 4 KiB (all of each is written) */
	if (!(first = pp_big_calloc(4 * ((size_t)v->n + 1), sizeof(*first)))) {
		s = pp_nomem(v->p);
		goto out;
	}
	order = first + ((size_t)v->n + 1);
	for (i = 0; i < v->n; i++)
		if (v->nodes[i].parent != PP_V8_NONE)
			first[v->nodes[i].parent + 1]++;
	for (i = 0; i < v->n; i++)
		first[i + 1] += first[i];
	{
		/* KIDS holds the children by parent (FILL: where the next of
		 * each goes); ORDER is the walk's queue. */
		uint32_t *fill = order + ((size_t)v->n + 1);
		uint32_t *kids = fill + ((size_t)v->n + 1);

		memcpy(fill, first, ((size_t)v->n + 1) * sizeof(*fill));
		for (i = 0; i < v->n; i++)
			if (v->nodes[i].parent != PP_V8_NONE)
				kids[fill[v->nodes[i].parent]++] = i;

		s = pp_intern_cstr(v->p, "(anonymous)", &anon);
		/* at most a frame and a node per node, and the reader's more */
		if (s == PPROF_OK)
			s = pp_reserve(v->p, v->n + v->reserve_more, v->n + v->reserve_more, 0);
		if (s != PPROF_OK)
			goto out;
		for (i = 0; i < v->n; i++) {
			struct pp_v8_node *d = &v->nodes[i];
			uint32_t frame;

			if (d->parent != PP_V8_NONE)
				continue;
			if (is_root_name(v, d)) {
				d->model = 0;
			} else {
				s = node_frame(v, d, anon, &frame);
				if (s == PPROF_OK)
					s = pp_node_child(v->p, 0, frame, &d->model);
				if (s != PPROF_OK)
					goto out;
			}
			order[tail++] = i;
		}
		while (head < tail) {
			uint32_t u = order[head++], c;

			for (c = first[u]; c < first[u + 1]; c++) {
				struct pp_v8_node *d = &v->nodes[kids[c]];
				uint32_t frame;

				s = node_frame(v, d, anon, &frame);
				if (s == PPROF_OK)
					s = pp_node_child(v->p, v->nodes[u].model, frame,
							  &d->model);
				if (s != PPROF_OK)
					goto out;
				order[tail++] = kids[c];
			}
		}
	}
	if (tail < v->n) {
		for (i = 0; i < v->n; i++)
			if (v->nodes[i].model == PP_V8_NONE)
				break;
		s = cycle_error(v, i);
		goto out;
	}
	s = PPROF_OK;
out:
	pp_big_free(first, 4 * ((size_t)v->n + 1), sizeof(*first));
	return s;
}

/* ---- after the fact ---- */

uint64_t pp_v8_json_element_offset(struct json *j, const char *key, size_t index)
{
	int t;

	if (json_next(j) != JSON_OBJECT_BEGIN)
		return 0;
	for (;;) {
		t = json_next(j);
		if (t != JSON_KEY)
			return 0;
		if (json_is(j, key))
			break;
		t = json_next(j);
		if (json_skip(j, t) == JSON_ERROR)
			return 0;
	}
	if (json_next(j) != JSON_ARRAY_BEGIN)
		return 0;
	for (size_t i = 0;; i++) {
		t = json_next(j);
		if (t == JSON_ERROR || t == JSON_ARRAY_END)
			return 0;
		if (i == index)
			return json_offset(j);
		if (json_skip(j, t) == JSON_ERROR)
			return 0;
	}
}

uint64_t pp_v8_element_offset(const unsigned char *buf, size_t len, uint32_t max_depth,
			      const char *key, size_t index)
{
	struct json j;
	json_init(&j, buf, len, max_depth);
	uint64_t off = pp_v8_json_element_offset(&j, key, index);
	json_release(&j);
	return off;
}

/* ---- bids ---- */

/* KEY (with its quotes) occurs in [B, E) as an object key: not preceded by
 * a backslash (an escaped quote inside a string), and followed by ':'. */
static bool has_key(const unsigned char *b, const unsigned char *e, const char *key)
{
	size_t n = strlen(key);
	const unsigned char *p = b;

	while (p < e) {
		const unsigned char *q = memmem(p, (size_t)(e - p), key, n), *r;

		if (!q)
			return false;
		r = q + n;
		while (r < e && (*r == ' ' || *r == '\t' || *r == '\n' || *r == '\r'))
			r++;
		if (r < e && *r == ':' && (q == b || q[-1] != '\\'))
			return true;
		p = q + 1;
	}
	return false;
}

static unsigned sniff_keys(const unsigned char *p, const unsigned char *e)
{
	unsigned r = 0;

	if (has_key(p, e, "\"selfSize\""))
		r |= PP_V8_HEAP;
	if (has_key(p, e, "\"timeDeltas\"") || has_key(p, e, "\"hitCount\"") ||
	    has_key(p, e, "\"timestamps\"") || has_key(p, e, "\"nodes\"") ||
	    has_key(p, e, "\"startTime\"") || has_key(p, e, "\"endTime\""))
		r |= PP_V8_CPU;
	if (has_key(p, e, "\"head\"") || has_key(p, e, "\"samples\"") ||
	    has_key(p, e, "\"callFrame\""))
		r |= PP_V8_ANY;
	/* Node's old format has the frame's fields on the node itself. */
	if (has_key(p, e, "\"functionName\"")) {
		r |= PP_V8_ANY;
		if (!has_key(p, e, "\"callFrame\""))
			r |= PP_V8_CPU;
	}
	return r;
}

unsigned pp_v8_sniff(const unsigned char *buf, size_t len)
{
	const size_t window = 65536;
	const unsigned char *p = buf, *e = buf + len;
	unsigned r;

	if (e - p >= 3 && p[0] == 0xef && p[1] == 0xbb && p[2] == 0xbf)
		p += 3;
	while (p < e && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r'))
		p++;
	if (p >= e || *p != '{')
		return 0;
	/* The first and the last 64 KiB: the top-level keys after a big tree
	 * ("timeDeltas", "samples") are at the end. */
	r = PP_V8_OBJECT | sniff_keys(p, (size_t)(e - p) > window ? p + window : e);
	if ((size_t)(e - p) > window)
		r |= sniff_keys((size_t)(e - p) > 2 * window ? e - window : p + window, e);
	return r;
}
