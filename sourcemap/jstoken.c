/*
 * jstoken.c: a small, strict tokenizer of JavaScript and TypeScript, for
 * finding functions and the names they are bound to.
 *
 * It knows comments, strings, template literals (with their substitutions
 * tokenized as code), regular expression literals (told from division by
 * the token before), numbers, identifiers (any byte >= 0x80 counts as an
 * identifier byte), #private names and punctuators.  Brackets are matched.
 * Anything it cannot make sense of (an unterminated string, comment or
 * template, a bracket that does not match) fails the whole text: a
 * name is never guessed from a text that was not understood.
 */
#include "jstoken.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

/* Byte classes: 1 white space, 2 an identifier's first byte (any byte >=
 * 0x80 counts), 4 a digit.  One look-up per byte instead of a chain of
 * comparisons: the tokenizer reads every byte of the bundle and of each
 * source a frame lands in. */
enum { C_WS = 1, C_ID = 2, C_DIGIT = 4 };
static const unsigned char cls[256] = {
	0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 0, 0,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	1, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 0, 0, 0, 0, 0, 0,
	0, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2,
	2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 0, 2, 0, 0, 2,
	0, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2,
	2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 0, 0, 0, 0, 0,
	2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2,
	2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2,
	2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2,
	2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2,
	2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2,
	2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2,
	2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2,
	2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2,
};

static inline bool ident_start(unsigned char c)
{
	return cls[c] & C_ID;
}

static inline bool ident_part(unsigned char c)
{
	return cls[c] & (C_ID | C_DIGIT);
}

bool pp_js_tok_is(const char *text, const struct pp_js_tok *t, const char *s)
{
	/* asked of nearly every token, mostly in vain: the first byte first */
	size_t len = pp_js_tok_len(t);
	if (!len || text[t->off] != s[0])
		return !len && !s[0];
	size_t n = strlen(s);
	return len == n && memcmp(text + t->off, s, n) == 0;
}

/* After these words an expression starts: a '/' there opens a regex. */
static bool expr_keyword(const char *text, const struct pp_js_tok *t)
{
	static const char *const kw[] = {"return", "typeof", "instanceof", "in",     "of",
					 "new",    "delete", "void",       "throw",  "case",
					 "do",     "else",   "yield",      "await",  "extends"};
	for (size_t i = 0; i < sizeof(kw) / sizeof(kw[0]); i++)
		if (pp_js_tok_is(text, t, kw[i]))
			return true;
	return false;
}

static bool regex_allowed(const char *text, const struct pp_js_toks *v)
{
	if (!v->n)
		return true;
	const struct pp_js_tok *t = &v->t[v->n - 1];
	switch (pp_js_tok_kind(t)) {
	case PP_JS_IDENT:
		return expr_keyword(text, t);
	case PP_JS_TEMPLATE:
		/* a piece that opens a substitution: `...${ /re/ } */
		return pp_js_tok_len(t) >= 2 && text[t->off + pp_js_tok_len(t) - 1] == '{';
	case PP_JS_NUMBER:
	case PP_JS_STRING:
	case PP_JS_REGEX:
	case PP_JS_PRIVATE:
		return false;
	case PP_JS_PUNCT:
		if (pp_js_tok_len(t) == 1 &&
		    (text[t->off] == ')' || text[t->off] == ']' || text[t->off] == '}'))
			return false;
		if (pp_js_tok_len(t) == 2 &&
		    (memcmp(text + t->off, "++", 2) == 0 || memcmp(text + t->off, "--", 2) == 0))
			return false;
		return true;
	}
	return true;
}

#define BIG ((size_t)2 << 20)

static size_t big_round(size_t n)
{
	return (n + BIG - 1) & ~(BIG - 1);
}

void *pp_js_big_alloc(size_t n)
{
#if defined(MADV_HUGEPAGE) && defined(MAP_ANONYMOUS)
	if (n >= BIG && n <= SIZE_MAX / 2) {
		/* aligned to the huge page: map one more and trim */
		size_t r = big_round(n);
		char *p = mmap(NULL, r + BIG, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
			       -1, 0);
		if (p == MAP_FAILED)
			return NULL;
		char *a = (char *)(((uintptr_t)p + BIG - 1) & ~(uintptr_t)(BIG - 1));
		if (a > p)
			munmap(p, (size_t)(a - p));
		if (a + r < p + r + BIG)
			munmap(a + r, (size_t)(p + r + BIG - (a + r)));
		(void)madvise(a, r, MADV_HUGEPAGE); /* a wish: without, 4 KiB pages */
		return a;
	}
#endif
	return malloc(n ? n : 1);
}

void pp_js_big_free(void *p, size_t n)
{
	if (!p)
		return;
#if defined(MADV_HUGEPAGE) && defined(MAP_ANONYMOUS)
	if (n >= BIG && n <= SIZE_MAX / 2) {
		munmap(p, big_round(n));
		return;
	}
#endif
	free(p);
}

void *pp_js_big_realloc(void *p, size_t old, size_t n)
{
	if (!p)
		return pp_js_big_alloc(n);
	if (old < BIG && n < BIG)
		return realloc(p, n ? n : 1);
	void *q = pp_js_big_alloc(n);
	if (!q)
		return NULL;
	memcpy(q, p, old < n ? old : n);
	pp_js_big_free(p, old);
	return q;
}

struct pp_js_heap_block {
	struct pp_js_heap_block *next;
	size_t size;
};

#define HEAP_BLOCK ((size_t)32 << 20)
#define HEAP_HDR ((sizeof(struct pp_js_heap_block) + 15) & ~(size_t)15)

void *pp_js_heap_alloc(struct pp_js_heap *h, size_t n)
{
	n = (n + 15) & ~(size_t)15;
	if (!n)
		n = 16;
	if (!h->head || (size_t)(h->end - h->at) < n) {
		if (n > SIZE_MAX / 2 - HEAP_HDR)
			return NULL;
		size_t size = n + HEAP_HDR > HEAP_BLOCK ? n + HEAP_HDR : HEAP_BLOCK;
		struct pp_js_heap_block *b = pp_js_big_alloc(size);
		if (!b)
			return NULL;
		b->next = h->head;
		b->size = size;
		h->head = b;
		h->at = (char *)b + HEAP_HDR;
		h->end = (char *)b + size;
	}
	void *p = h->at;
	h->at += n;
	h->last = p;
	return p;
}

void pp_js_heap_shrink(struct pp_js_heap *h, void *p, size_t n)
{
	if (!p || p != h->last)
		return;
	n = (n + 15) & ~(size_t)15;
	if ((char *)p + n <= h->at)
		h->at = (char *)p + n;
}

void pp_js_heap_release(struct pp_js_heap *h)
{
	struct pp_js_heap_block *b = h->head, *next;
	for (; b; b = next) {
		next = b->next;
		pp_js_big_free(b, b->size);
	}
	memset(h, 0, sizeof(*h));
}

/* OFF and LEN fit: the text's length was checked (PP_JS_MAX_TEXT); the
 * array has room for a token per byte, the most there can be */
static inline void push(struct pp_js_toks *v, enum pp_js_kind k, size_t off, size_t len)
{
	v->t[v->n++] = (struct pp_js_tok){(uint32_t)off, (uint32_t)len << 3 | (uint32_t)k};
}

/* The LK of a bracket whose partner is token M (PP_JS_NO_MATCH_: not known yet) */
static inline uint32_t bracket_lk(uint32_t m)
{
	return m << 3 | PP_JS_BRACKET_;
}

static inline void push_bracket(struct pp_js_toks *v, size_t off)
{
	v->t[v->n++] = (struct pp_js_tok){(uint32_t)off, bracket_lk(PP_JS_NO_MATCH_)};
}

/* The longest punctuator at P (at most 4 bytes): >>>= ... === !== **= <<=
 * >>= >>> &&= ||= ??= => == != <= >= && || ?? ?. ++ -- += -= *= /= %= &=
 * |= ^= ** << >>, else one byte. */
static size_t punct_len(const char *p, size_t left)
{
	if (left < 2)
		return 1;
	char a = p[0], b = p[1], c = left > 2 ? p[2] : '\0', d = left > 3 ? p[3] : '\0';
	switch (a) {
	case '>':
		if (b == '>')
			return c == '>' ? (d == '=' ? 4 : 3) : c == '=' ? 3 : 2;
		return b == '=' ? 2 : 1;
	case '<':
		if (b == '<')
			return c == '=' ? 3 : 2;
		return b == '=' ? 2 : 1;
	case '=':
		if (b == '=')
			return c == '=' ? 3 : 2;
		return b == '>' ? 2 : 1;
	case '!':
		return b == '=' ? (c == '=' ? 3 : 2) : 1;
	case '*':
	case '&':
	case '|':
		if (b == a)
			return c == '=' ? 3 : 2;
		return b == '=' ? 2 : 1;
	case '?':
		if (b == '?')
			return c == '=' ? 3 : 2;
		/* "?." before a digit is a ternary and a number (a?.5:1) */
		if (b == '.')
			return c >= '0' && c <= '9' ? 1 : 2;
		return 1;
	case '.':
		return b == '.' && c == '.' ? 3 : 1;
	case '+':
	case '-':
		return b == a || b == '=' ? 2 : 1;
	case '/':
	case '%':
	case '^':
		return b == '=' ? 2 : 1;
	default:
		return 1;
	}
}

/* A quoted string from *I (at the quote); false when unterminated. */
static bool skip_string(const char *s, size_t len, size_t *i)
{
	char q = s[*i];
	size_t j = *i + 1;
	while (j < len) {
		char c = s[j];
		if (c == q)
			break;
		if (c == '\\')
			j++;
		else if (c == '\n')
			return false;
		j++;
	}
	if (j >= len)
		return false;
	*i = j + 1;
	return true;
}

static bool skip_regex(const char *s, size_t len, size_t *i)
{
	size_t j = *i + 1;
	bool in_class = false;
	while (j < len) {
		char c = s[j];
		if (c == '\n')
			return false;
		if (c == '\\')
			j++;
		else if (c == '[')
			in_class = true;
		else if (c == ']')
			in_class = false;
		else if (c == '/' && !in_class)
			break;
		j++;
	}
	if (j >= len)
		return false;
	j++;
	while (j < len && ident_part((unsigned char)s[j]))
		j++;
	*i = j;
	return true;
}

/* Past the comment at *I: 1, or 0 when none starts there, -1 when it
 * never ends ("//" runs to the line's end, "/" "*" to the first "*" "/"
 * after it, "/" "*" "/" not closing). */
static int skip_comment(const char *s, size_t len, size_t *i)
{
	size_t j = *i;
	if (j + 1 >= len || s[j] != '/' || (s[j + 1] != '/' && s[j + 1] != '*'))
		return 0;
	if (s[j + 1] == '/') {
		const char *e = memchr(s + j, '\n', len - j);
		*i = e ? (size_t)(e - s) : len;
		return 1;
	}
	for (j += 2; j + 1 < len; j++) {
		const char *a = memchr(s + j, '*', len - 1 - j);
		if (!a)
			break;
		j = (size_t)(a - s);
		if (s[j + 1] == '/') {
			*i = j + 2;
			return 1;
		}
	}
	return -1;
}

/* The open brackets: token indexes, each marked: code, a template's "${"
 * (its "}" resumes the template), or a JSX expression container (its "}"
 * resumes the element, in the state kept beside it). */
enum { B_CODE, B_TMPL, B_JSX };
struct brackets {
	uint32_t *tok;
	uint8_t *mark;
	uint32_t *jsx; /* for B_JSX: the element's state (struct jsx) */
	size_t depth, cap;
};

static int open_bracket(struct brackets *b, uint32_t tok, uint8_t mark, uint32_t jsx)
{
	if (b->depth == b->cap) {
		size_t nc = b->cap ? b->cap * 2 : 64;
		uint32_t *ns = realloc(b->tok, nc * sizeof(*ns));
		if (!ns)
			return -1;
		b->tok = ns;
		uint8_t *nm = realloc(b->mark, nc * sizeof(*nm));
		if (!nm)
			return -1;
		b->mark = nm;
		uint32_t *nj = realloc(b->jsx, nc * sizeof(*nj));
		if (!nj)
			return -1;
		b->jsx = nj;
		b->cap = nc;
	}
	b->tok[b->depth] = tok;
	b->jsx[b->depth] = jsx;
	b->mark[b->depth++] = mark;
	return 0;
}

/* Closes the bracket that token V->n - 1 (C) ends; false when it does not
 * match the open one (or a template's "${" is open). */
static inline bool close_bracket(struct brackets *b, const char *s, struct pp_js_toks *v, char c)
{
	if (!b->depth || b->mark[b->depth - 1] == B_TMPL)
		return false;
	uint32_t o = b->tok[--b->depth];
	char oc = s[v->t[o].off];
	if ((c == ')' && oc != '(') || (c == ']' && oc != '[') || (c == '}' && oc != '{'))
		return false;
	v->t[o].lk = bracket_lk((uint32_t)(v->n - 1));
	v->t[v->n - 1].lk = bracket_lk(o);
	return true;
}

/*
 * JSX (React's elements in .jsx and .tsx files, and in .js files, where a
 * '<' cannot start an expression otherwise).  An element becomes tokens
 * the function finder reads as an expression: its markup (tags, strings,
 * text) as opaque PP_JS_STRING pieces, and its expression containers as
 * code in brackets.  An attribute whose value is a container, name={...},
 * gives its name as one PP_JS_IDENT token (a-b and a:b too) and its '='
 * as a punctuator: compiled, it is the key of an object literal, by which
 * V8 names a function that is the whole value.  The element's state while
 * a container is open: how many elements are open around it, and whether
 * it is inside a tag (in its attributes).
 */
struct jsx {
	uint32_t depth;
	bool tag;
};

static uint32_t jsx_pack(struct jsx st)
{
	return st.depth << 1 | (uint32_t)st.tag;
}

static struct jsx jsx_unpack(uint32_t u)
{
	return (struct jsx){u >> 1, u & 1};
}

/* Whether the last tokens of V are "export default" (an expression may
 * follow, which regex_allowed() does not say: x.default / 2). */
static bool export_default(const char *s, const struct pp_js_toks *v)
{
	return v->n >= 2 && pp_js_tok_is(s, &v->t[v->n - 1], "default") &&
	       pp_js_tok_is(s, &v->t[v->n - 2], "export");
}

/* Past white space and comments from *I; false in an unterminated comment. */
static bool jsx_space(const char *s, size_t len, size_t *i)
{
	int cm = 1;
	while (*i < len && cm > 0) {
		if (cls[(unsigned char)s[*i]] & C_WS)
			++*i;
		else
			cm = skip_comment(s, len, i);
	}
	return cm >= 0;
}

/* The end of a JSX name from I (an identifier's bytes, '-', ':', '.'). */
static size_t jsx_name(const char *s, size_t len, size_t i)
{
	while (i < len &&
	       (ident_part((unsigned char)s[i]) || s[i] == '-' || s[i] == ':' || s[i] == '.'))
		i++;
	return i;
}

/* Past the TypeScript type arguments at I, <...> (an element's, <List<T>
 * a={1}>), or LEN when they do not close. */
static size_t jsx_type_args(const char *s, size_t len, size_t i)
{
	size_t depth = 0;
	for (; i < len; i++) {
		if (s[i] == '<')
			depth++;
		else if (s[i] == '>' && s[i - 1] != '=' && !--depth)
			return i + 1;
	}
	return len;
}

/* Whether the '<' at I (where an expression starts) opens an element: a
 * name or '>' follows, then what a tag holds ('>', "/>", an attribute, a
 * spread, type arguments); not a TypeScript type parameter (<T,>, <T
 * extends U>, <T = U>) nor a generic function's type (<T>(x: T) => T),
 * nor a comparison after a non-null assertion (a! < b). */
static bool jsx_opens(const char *s, size_t len, size_t i)
{
	size_t j = i + 1;
	if (!jsx_space(s, len, &j) || j >= len)
		return false;
	if (s[j] == '>')
		return true;
	if (!ident_start((unsigned char)s[j]))
		return false;
	size_t n = j;
	j = jsx_name(s, len, j);
	bool word = true; /* a name without '.', '-', ':' */
	for (size_t k = n; k < j; k++)
		word = word && ident_part((unsigned char)s[k]);
	if (!jsx_space(s, len, &j) || j >= len)
		return false;
	if (len - j > 8 && memcmp(s + j, "extends", 7) == 0 &&
	    (cls[(unsigned char)s[j + 7]] & C_WS)) {
		size_t k = j + 7;
		return jsx_space(s, len, &k) && k < len &&
		       (s[k] == '=' || s[k] == '>' || s[k] == '/');
	}
	char c = s[j];
	if (!(c == '>' || c == '/' || c == '{' || c == '<' || ident_start((unsigned char)c)))
		return false;
	if (c == '>' && word) {
		/* <T>(...) => : the parameters' ')' within 1 KiB, then "=>" */
		size_t k = j + 1, depth = 0;
		if (!jsx_space(s, len, &k) || k >= len || s[k] != '(')
			return true;
		for (size_t end = len - k > 1024 ? k + 1024 : len; k < end; k++) {
			if (s[k] == '(')
				depth++;
			else if (s[k] == ')' && !--depth)
				break;
		}
		if (depth)
			return true;
		k++;
		return !(jsx_space(s, len, &k) && len - k >= 2 && s[k] == '=' && s[k + 1] == '>');
	}
	return true;
}

static inline void jsx_piece(struct pp_js_toks *v, size_t from, size_t to)
{
	if (to > from)
		push(v, PP_JS_STRING, from, to - from);
}

/*
 * Scans an element from *I in state ST (at its '<', or just past a
 * container's '}') up to its end or its next container, whose '{' it
 * pushes and opens.  -1 when it is not understood.
 */
static int jsx_scan(const char *s, size_t len, size_t *pi, struct jsx st, struct pp_js_toks *v,
		    struct brackets *br)
{
	size_t i = *pi, piece = i;
	for (;;) {
		if (st.tag) {
			if (!jsx_space(s, len, &i) || i >= len)
				return -1;
			char c = s[i];
			if (c == '/') {
				if (i + 1 >= len || s[i + 1] != '>')
					return -1;
				i += 2;
				st.tag = false;
				if (!st.depth)
					break;
				continue;
			}
			if (c == '>') {
				i++;
				st.tag = false;
				st.depth++;
				continue;
			}
			if (c == '{') /* {...props} */
				goto container;
			if (!ident_start((unsigned char)c))
				return -1;
			size_t a = i;
			i = jsx_name(s, len, i);
			size_t ae = i;
			if (!jsx_space(s, len, &i) || i >= len)
				return -1;
			if (s[i] != '=')
				continue; /* an attribute without a value */
			size_t eq = i++;
			if (!jsx_space(s, len, &i) || i >= len)
				return -1;
			if (s[i] == '"' || s[i] == '\'') {
				/* no escapes; lines may break */
				const char *e = memchr(s + i + 1, s[i], len - i - 1);
				if (!e)
					return -1;
				i = (size_t)(e - s) + 1;
				continue;
			}
			if (s[i] != '{')
				return -1; /* an element as a value: not taken */
			jsx_piece(v, piece, a);
			push(v, PP_JS_IDENT, a, ae - a);
			push(v, PP_JS_PUNCT, eq, 1);
			piece = i;
			goto container;
		}
		/* children (or the element's first '<'): text up to a
		 * container or a tag */
		while (i < len && s[i] != '{' && s[i] != '<')
			i++;
		if (i >= len)
			return -1;
		if (s[i] == '{') {
			if (!st.depth)
				return -1;
			goto container;
		}
		i++;
		if (!jsx_space(s, len, &i) || i >= len)
			return -1;
		if (s[i] == '>') { /* <>: a fragment */
			i++;
			st.depth++;
			continue;
		}
		if (s[i] == '/') { /* </name> */
			i++;
			if (!st.depth || !jsx_space(s, len, &i))
				return -1;
			i = jsx_name(s, len, i);
			if (!jsx_space(s, len, &i) || i >= len || s[i] != '>')
				return -1;
			i++;
			if (!--st.depth)
				break;
			continue;
		}
		if (!ident_start((unsigned char)s[i]))
			return -1;
		i = jsx_name(s, len, i);
		if (i < len && s[i] == '<' && (i = jsx_type_args(s, len, i)) >= len)
			return -1;
		st.tag = true;
	}
	jsx_piece(v, piece, i);
	*pi = i;
	return 0;
container:
	jsx_piece(v, piece, i);
	push_bracket(v, i);
	if (open_bracket(br, (uint32_t)(v->n - 1), B_JSX, jsx_pack(st)))
		return -1;
	*pi = i + 1;
	return 0;
}

int pp_js_tokenize(const char *s, size_t len, struct pp_js_toks *v)
{
	return pp_js_tokenize_in(s, len, v, NULL);
}

static int tokenize(const char *s, size_t len, bool jsx, struct pp_js_toks *v, struct pp_js_heap *h);

int pp_js_tokenize_in(const char *s, size_t len, struct pp_js_toks *v, struct pp_js_heap *h)
{
	return tokenize(s, len, false, v, h);
}

int pp_js_tokenize_jsx(const char *s, size_t len, bool jsx, struct pp_js_toks *v,
		       struct pp_js_heap *h)
{
	/* a '<' taken for an element that is none (a type's <T>(x: T) =>
	 * in a .tsx file, Flow's generics) leaves one unclosed: without */
	if (jsx && tokenize(s, len, true, v, h) == 0)
		return 0;
	return tokenize(s, len, false, v, h);
}

static int tokenize(const char *s, size_t len, bool jsx, struct pp_js_toks *v, struct pp_js_heap *h)
{
	struct brackets br = {NULL, NULL, NULL, 0, 0};
	size_t i = 0;
	int rc = -1;

	memset(v, 0, sizeof(*v));
	if (len > PP_JS_MAX_TEXT)
		return -1;
	/* a token takes a byte at least: never more than LEN, so that
	 * push() need not check (the pages not written are not taken) */
	v->cap = len + 1;
	v->heap = h != NULL;
	if (len + 1 > SIZE_MAX / sizeof(*v->t) ||
	    !(v->t = h ? pp_js_heap_alloc(h, v->cap * sizeof(*v->t))
		       : pp_js_big_alloc(v->cap * sizeof(*v->t)))) {
		memset(v, 0, sizeof(*v));
		return -1;
	}
	/* a hashbang line */
	if (len >= 2 && s[0] == '#' && s[1] == '!')
		while (i < len && s[i] != '\n')
			i++;
	while (i < len) {
		unsigned char c = (unsigned char)s[i];
		unsigned char k = cls[c];
		size_t st = i;
		if (k & C_WS) {
			i++;
			continue;
		}
		/* the one-byte punctuators that are nothing else: brackets,
		 * "," ";" ":" "~" "@" (a "}" that resumes a template is) */
		switch (c) {
		case '(':
		case '[':
		case '{':
			i++;
			push_bracket(v, st);
			if (open_bracket(&br, (uint32_t)(v->n - 1), B_CODE, 0))
				goto out;
			continue;
		case '}':
			if (br.depth && br.mark[br.depth - 1] == B_TMPL)
				break;
			if (br.depth && br.mark[br.depth - 1] == B_JSX) {
				struct jsx el = jsx_unpack(br.jsx[br.depth - 1]);
				push_bracket(v, i++);
				if (!close_bracket(&br, s, v, '}') ||
				    jsx_scan(s, len, &i, el, v, &br))
					goto out;
				continue;
			}
			/* fall through */
		case ')':
		case ']':
			i++;
			push_bracket(v, st);
			if (!close_bracket(&br, s, v, (char)c))
				goto out;
			continue;
		case ',':
		case ';':
		case ':':
		case '~':
		case '@':
			i++;
			push(v, PP_JS_PUNCT, st, 1);
			continue;
		default:
			break;
		}
		if (c >= 0x80) {
			if (c == 0xc2 && i + 1 < len && (unsigned char)s[i + 1] == 0xa0) { /* NBSP */
				i += 2;
				continue;
			}
			if (c == 0xef && i + 2 < len && (unsigned char)s[i + 1] == 0xbb &&
			    (unsigned char)s[i + 2] == 0xbf) { /* BOM */
				i += 3;
				continue;
			}
			if (c == 0xe2 && i + 2 < len && (unsigned char)s[i + 1] == 0x80 &&
			    ((unsigned char)s[i + 2] == 0xa8 || (unsigned char)s[i + 2] == 0xa9)) {
				i += 3; /* LS, PS */
				continue;
			}
		}
		if (k & C_ID) {
			i++;
			while (i < len && ident_part((unsigned char)s[i]))
				i++;
			push(v, PP_JS_IDENT, st, i - st);
			continue;
		}
		if (c == '/') {
			int cm = skip_comment(s, len, &i);
			if (cm < 0)
				goto out;
			if (cm)
				continue;
		}
		if (c == '#' && i + 1 < len && ident_start((unsigned char)s[i + 1])) {
			i++;
			while (i < len && ident_part((unsigned char)s[i]))
				i++;
			push(v, PP_JS_PRIVATE, st, i - st);
			continue;
		}
		if ((k & C_DIGIT) || (c == '.' && i + 1 < len && s[i + 1] >= '0' && s[i + 1] <= '9')) {
			bool hex = s[st] == '0' && st + 1 < len && (s[st + 1] == 'x' || s[st + 1] == 'X');
			while (i < len && (ident_part((unsigned char)s[i]) || s[i] == '.' ||
					   ((s[i] == '+' || s[i] == '-') &&
					    (s[i - 1] == 'e' || s[i - 1] == 'E') && !hex)))
				i++;
			push(v, PP_JS_NUMBER, st, i - st);
			continue;
		}
		if (c == '"' || c == '\'') {
			if (!skip_string(s, len, &i))
				goto out;
			push(v, PP_JS_STRING, st, i - st);
			continue;
		}
		if (c == '`' || (c == '}' && br.depth && br.mark[br.depth - 1] == B_TMPL)) {
			/* a template piece: up to the closing '`' or a "${" */
			if (c == '}')
				br.depth--;
			size_t j = i + 1;
			bool open = false;
			while (j < len && s[j] != '`') {
				if (s[j] == '\\') {
					j += 2;
					continue;
				}
				if (s[j] == '$' && j + 1 < len && s[j + 1] == '{') {
					open = true;
					break;
				}
				j++;
			}
			if (j >= len)
				goto out;
			i = open ? j + 2 : j + 1;
			push(v, PP_JS_TEMPLATE, st, i - st);
			if (open && open_bracket(&br, UINT32_MAX, B_TMPL, 0))
				goto out;
			continue;
		}
		if (c == '/' && regex_allowed(s, v)) {
			if (!skip_regex(s, len, &i))
				goto out;
			push(v, PP_JS_REGEX, st, i - st);
			continue;
		}
		if (c == '<' && jsx && (regex_allowed(s, v) || export_default(s, v)) &&
		    jsx_opens(s, len, i)) {
			if (jsx_scan(s, len, &i, (struct jsx){0, false}, v, &br))
				goto out;
			v->jsx = true;
			continue;
		}
		if (c < 0x21 || c > 0x7e || c == '\\' || c == '#')
			goto out; /* a control character, a stray '#' */
		/* no bracket comes here: the switch above took them, and a
		 * '}' it left resumes a template */
		size_t n = punct_len(s + i, len - i);
		i += n;
		push(v, PP_JS_PUNCT, st, n);
	}
	if (br.depth == 0)
		rc = 0;
out:
	free(br.tok);
	free(br.mark);
	free(br.jsx);
	if (rc) {
		if (h)
			pp_js_heap_shrink(h, v->t, 0);
		else
			pp_js_big_free(v->t, v->cap * sizeof(*v->t));
		memset(v, 0, sizeof(*v));
	} else if (h) {
		pp_js_heap_shrink(h, v->t, v->n * sizeof(*v->t));
		v->cap = v->n;
	}
	return rc;
}

/* OUT[A..E) from S: blanks but line ends and bytes from 0x80 */
static void blank(const char *s, size_t a, size_t e, char *out)
{
	for (size_t k = a; k < e; k++) {
		unsigned char c = (unsigned char)s[k];
		out[k] = c == '\n' || c == '\r' || c >= 0x80 ? (char)c : ' ';
	}
}

/* The first "<script" from I that opens an element (white space or '>'
 * after it) first on its line, as a component's top-level blocks are
 * (not one a template's text or comment mentions), else LEN. */
static size_t script_tag(const char *s, size_t len, size_t i)
{
	while (i + 7 < len) {
		const char *p = memchr(s + i, '<', len - i);
		if (!p)
			break;
		size_t k = (size_t)(p - s), b = k;
		while (b > 0 && (s[b - 1] == ' ' || s[b - 1] == '\t'))
			b--;
		if (k + 7 < len && memcmp(p, "<script", 7) == 0 &&
		    (p[7] == '>' || (cls[(unsigned char)p[7]] & C_WS)) &&
		    (b == 0 || s[b - 1] == '\n' || s[b - 1] == '\r'))
			return k;
		i = k + 1;
	}
	return len;
}

/* Past the '>' that ends the tag from I, its attributes' quoted values
 * passed (generic="T extends Record<K, V>"), or LEN. */
static size_t tag_end(const char *s, size_t len, size_t i)
{
	for (; i < len; i++) {
		if (s[i] == '"' || s[i] == '\'') {
			const char *q = memchr(s + i + 1, s[i], len - i - 1);
			if (!q)
				return len;
			i = (size_t)(q - s);
		} else if (s[i] == '>') {
			return i + 1;
		}
	}
	return len;
}

void pp_js_sfc_scripts(const char *s, size_t len, char *out)
{
	size_t i = 0;
	while (i < len) {
		size_t t = script_tag(s, len, i);
		size_t c = t < len ? tag_end(s, len, t) : len; /* its contents */
		blank(s, i, c, out);
		if (c >= len)
			break;
		size_t e = c;
		while (e < len) {
			const char *p = memchr(s + e, '<', len - e);
			e = p ? (size_t)(p - s) : len;
			if (e + 8 <= len && memcmp(s + e, "</script", 8) == 0)
				break;
			if (e < len)
				e++;
		}
		memcpy(out + c, s + c, e - c);
		i = e;
	}
}

void pp_js_toks_release(struct pp_js_toks *v)
{
	if (!v->heap)
		pp_js_big_free(v->t, v->cap * sizeof(*v->t));
	memset(v, 0, sizeof(*v));
}

size_t pp_js_tok_at(const struct pp_js_toks *v, size_t off)
{
	size_t lo = 0, hi = v->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (v->t[mid].off < off)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo; /* the first token at or after OFF */
}
