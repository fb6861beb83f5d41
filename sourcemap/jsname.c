/*
 * jsname.c: the names V8 gives the functions and classes jsfunc.c found,
 * rendered from their naming tokens: a binding's member chain (a.b.c), a
 * getter's "get ", a class's name before its members' where V8 puts it,
 * the binding of the class expression or object literal a computed member
 * is in.
 */
#include "jsfunc_private.h"

#include <stdlib.h>
#include <string.h>

static size_t put(char *buf, size_t cap, size_t at, const char *s, size_t n)
{
	if (at < cap) {
		size_t k = n < cap - 1 - at ? n : cap - 1 - at;
		memcpy(buf + at, s, k);
		buf[at + k] = '\0';
	}
	return at + n;
}

/* (a name is a C string: its length must be its strlen()) */
void pp_js_tok_text(const char *text, const struct pp_js_tok *t, const char **s, size_t *n)
{
	*s = text + t->off;
	*n = pp_js_tok_len(t);
	if ((pp_js_tok_kind(t) == PP_JS_STRING || pp_js_tok_kind(t) == PP_JS_TEMPLATE) && *n >= 2) {
		(*s)++;
		*n -= 2;
		const char *z = memchr(*s, '\0', *n);
		if (z)
			*n = (size_t)(z - *s);
	}
}

/* The parts of the binding a.b.c (or a.b = c.d) from token FIRST to LAST
 * written from AT on, after a "." when PART: "this" is no part (THIS_CHAIN); nor is a
 * "prototype" in a.prototype.f; a computed key is its string's value or
 * "<computed>" (pp_jsf_member_chain() took only such keys). */
static size_t chain_name(const char *text, const struct pp_js_toks *v, uint32_t first,
			 uint32_t last, bool this_chain, char *buf, size_t cap, size_t at, bool part)
{
	const char *s;
	size_t n;
	for (uint32_t i = first + (this_chain ? 1 : 0); i <= last;) {
		const struct pp_js_tok *t = &v->t[i];
		if (pp_js_tok_is(text, t, ".") || pp_js_tok_is(text, t, "=")) {
			i++; /* a.b = c.d: a.b.c.d */
			continue;
		}
		uint32_t m = pp_js_tok_match(t);
		if (pp_js_tok_is(text, t, "[") && m != UINT32_MAX && m > i && m <= last) {
			enum pp_js_kind kk = pp_js_tok_kind(&v->t[i + 1]);
			if (m == i + 2 && (kk == PP_JS_STRING || kk == PP_JS_TEMPLATE)) {
				pp_js_tok_text(text, &v->t[i + 1], &s, &n);
			} else {
				s = "<computed>";
				n = 10;
			}
			i = m + 1;
		} else {
			if (i != first && i < last && pp_js_tok_is(text, t, "prototype")) {
				i++;
				continue;
			}
			pp_js_tok_text(text, t, &s, &n);
			i++;
		}
		if (part)
			at = put(buf, cap, at, ".", 1);
		at = put(buf, cap, at, s, n);
		part = true;
	}
	return at;
}

/* The binding of the expression whose first token is H and last E, as
 * V8 names what it holds: x = , a.b.c = , const x = (not this.x = ,
 * whose naming in a constructor is not known here): its length written
 * into BUF, else SIZE_MAX. */
static size_t assigned_name(const struct ctx *c, const struct pp_js_toks *v, size_t h, size_t e,
			    char *buf, size_t cap)
{
	struct pp_js_func b = no_func;
	if (h == 0 || !is(c, h - 1, "="))
		return SIZE_MAX;
	pp_jsf_binding(c, h, e, &b);
	if (b.name_tok == NIL || b.this_chain)
		return SIZE_MAX;
	return chain_name(c->s, v, b.chain, b.name_tok, false, buf, cap, 0, false);
}

/*
 * The name V8 infers for the class expression or object literal whose '{'
 * is OPEN, which it gives each member with a computed key (node
 * --cpu-prof): the binding it is assigned to (A = class {, ns.D = class {,
 * const o = {, a class field x = {), then the keys of the object literals
 * it is nested in (o.a for o = { a: { [k]() {} } }); an array literal's
 * binding for its elements (r = [{ [k]() {} }]).  Its length, written into
 * BUF; SIZE_MAX where V8 infers none (a class declaration) or one not
 * known here (an argument, whose callee's name V8 takes; this.h = { } in
 * a constructor, E.h; a conditional's branch).
 */
static size_t ctx_name(const struct ctx *c, const struct pp_js_toks *v, size_t open, char *buf,
		       size_t cap, unsigned depth)
{
	uint32_t close = open < c->n ? pp_js_tok_match(&c->t[open]) : NIL;
	if (depth > 16 || open == 0 || close == NIL || close <= open)
		return SIZE_MAX;
	size_t kw = pp_jsf_class_of(c, open), p = open - 1;
	if (kw != NIL)
		return assigned_name(c, v, kw, close, buf, cap);
	if (is(c, p, "="))
		return assigned_name(c, v, open, close, buf, cap); /* a class field's too */
	if (is(c, p, ":") && p >= 2 && kind(c, p - 1, PP_JS_IDENT) &&
	    (is(c, p - 2, "{") || is(c, p - 2, ","))) {
		size_t in = pp_jsf_container(c, p - 1);
		if (in == NIL || !is(c, in, "{") || pp_jsf_class_body(c, in))
			return SIZE_MAX;
		size_t at = ctx_name(c, v, in, buf, cap, depth + 1);
		if (at == SIZE_MAX)
			return SIZE_MAX;
		const struct pp_js_tok *k = &c->t[p - 1];
		at = put(buf, cap, at, ".", 1);
		return put(buf, cap, at, c->s + k->off, pp_js_tok_len(k));
	}
	if (is(c, p, "[") || is(c, p, ",")) {
		size_t arr = is(c, p, "[") ? p : pp_jsf_container(c, p);
		if (arr == NIL || !is(c, arr, "["))
			return SIZE_MAX;
		return assigned_name(c, v, arr, pp_js_tok_match(&c->t[arr]), buf, cap);
	}
	return SIZE_MAX;
}

/*
 * What V8's name inferrer still holds when it names the function bound
 * at member chain a.b = (this.x = ): V8 joins, with ".", every name the
 * enclosing unfinished expressions pushed in the same parse (identifiers,
 * .properties, ["keys"]), a name of a variable dropped before another's.
 * A function in parentheses or after "!" (a likely IIFE) is parsed with
 * the code around it, so
 *
 *	"production" !== process.env.NODE_ENV && (function () {
 *		exports.jsx = function () {};
 *	})();
 *
 * names it process.env.NODE_ENV.exports.jsx (React's development
 * builds); any other function is parsed when first called, from its own
 * name alone when that has a capital first (function Foo () { this.x =
 * function () {} } is Foo.x).  node --cpu-prof says so.
 */
#define LEAK_PARTS 32

struct leak {
	uint32_t tok[LEAK_PARTS]; /* from the last backward */
	bool var[LEAK_PARTS];     /* a variable's name (an identifier) */
	size_t n;
	uint32_t encl; /* the name of the function it is parsed with, or NIL */
};

static bool push_part(struct leak *l, size_t tok, bool var)
{
	if (l->n == LEAK_PARTS)
		return false;
	l->tok[l->n] = (uint32_t)tok;
	l->var[l->n++] = var;
	return true;
}

/* words before which a statement ends (its expression is done) */
static const char *const stmt_words[] = {"return", "throw",   "case",  "else", "do",
					 "var",    "let",     "const", "if",   "while",
					 "for",    "switch",  "with",  "try",  "finally",
					 "export", "default", NULL};
/* words an expression goes on after */
static const char *const operator_words[] = {"typeof", "void",  "delete", "instanceof", "in",
					     "new",    "await", "yield",  "of",         NULL};
/* words that are values but push no name */
static const char *const value_words[] = {"this", "null", "true", "false", "super", NULL};

/* Whether token I pushes no name: an operator's word or such a value. */
static bool no_name(const struct ctx *c, size_t i)
{
	return is_any(c, i, operator_words) || is_any(c, i, value_words);
}

/* Whether an expression may start at token I (no value ends before it,
 * so a '(' there groups and a '[' opens an array): I at the start, after
 * a word such as return or typeof, after an operator (f<T>(, a
 * TypeScript call's '>', is taken for a value's end, as a > (...) would
 * be too). */
static bool expr_after(const struct ctx *c, size_t i)
{
	if (i == 0)
		return true;
	size_t p = i - 1;
	if (kind(c, p, PP_JS_IDENT))
		return no_name(c, p) || is_any(c, p, stmt_words);
	if (kind(c, p, PP_JS_PUNCT))
		return !is(c, p, ")") && !is(c, p, "]") && !is(c, p, "}") && !is(c, p, ">");
	return false;
}

/* Whether F is parsed with the code around it: in parentheses, or after
 * "!" (V8's guesses of a function called at once). */
static bool eager(const struct ctx *c, const struct pp_js_func *f)
{
	if (f->head == NIL || f->head == 0)
		return false;
	size_t g = f->head - 1;
	if (is(c, g, "!") && !is(c, f->head, "(") && !is(c, f->head, "async"))
		return true; /* !function () {} */
	if (!is(c, g, "(") || !expr_after(c, g))
		return false;
	/* (function () {}): so guessed; an arrow only when called at once,
	 * (() => {})() */
	if (function_keyword(c, f->head))
		return true;
	uint32_t m = pp_js_tok_match(&c->t[g]);
	return m != NIL && m > g && is(c, m + 1, "(");
}

/* Whether the '[' at I opens an array literal (not a computed member). */
static bool array_open(const struct ctx *c, size_t i)
{
	return is(c, i, "[") && expr_after(c, i);
}

/* Whether the '{' at I opens a block (after a statement's head or end). */
static bool block_open(const struct ctx *c, size_t i)
{
	if (i == 0)
		return true;
	return is(c, i - 1, ")") || is(c, i - 1, ";") || is(c, i - 1, "{") || is(c, i - 1, "}") ||
	       is(c, i - 1, "else") || is(c, i - 1, "try") || is(c, i - 1, "finally") ||
	       is(c, i - 1, "do");
}

/* Whether a line ends between tokens I and I + 1 where a statement ends
 * too (a + b, a.b and a(b) go on over lines; a b does not). */
static bool asi_between(const struct ctx *c, size_t i)
{
	const struct pp_js_tok *a = &c->t[i], *b = &c->t[i + 1];
	size_t e = a->off + pp_js_tok_len(a);
	if (b->off <= e || !memchr(c->s + e, '\n', b->off - e))
		return false;
	enum pp_js_kind ka = pp_js_tok_kind(a), kb = pp_js_tok_kind(b);
	/* what an expression can end with; what cannot go on with one */
	bool ends = ka == PP_JS_PUNCT ? is(c, i, ")") || is(c, i, "]") || is(c, i, "}") ||
						is(c, i, "++") || is(c, i, "--")
				      : !is_any(c, i, operator_words);
	/* (a line's "!", "~", "++" or "--" cannot go on with the line before) */
	bool starts = kb != PP_JS_PUNCT ? !is(c, i + 1, "in") && !is(c, i + 1, "instanceof") &&
						  !is(c, i + 1, "of")
					: is(c, i + 1, "!") || is(c, i + 1, "~") ||
						  is(c, i + 1, "++") || is(c, i + 1, "--");
	return ends && starts;
}

/* The names V8 holds before token B (a binding's first, an object
 * literal's '{') in function F's parent, into L; false where the code
 * around is not understood here. */
static bool leak_of(const struct ctx *c, const struct pp_js_funcs *fs, const struct pp_js_func *f,
		    size_t b, struct leak *l)
{
	uint32_t p = f->parent;
	size_t i = b;
	l->n = 0;
	l->encl = NIL;
	/* what lies between a binding and the function or statement it is
	 * in is short: 4096 tokens at most, so that a text of 10^5 bindings
	 * is not 10^10 steps */
	for (unsigned steps = 0; steps < 4096; steps++) {
		if (i == 0)
			return p == NIL; /* the top of the text */
		i--;
		bool boundary = false; /* a statement's: nothing before it holds */
		if (p != NIL && i == fs->f[p].open) {
			const struct pp_js_func *pf = &fs->f[p];
			if (!is(c, i, "{"))
				return false; /* a concise body */
			if (!eager(c, pf)) {
				/* parsed on its own, after its own name (a
				 * constructor's: its class's) */
				if (pf->prefix)
					return false;
				if (pf->ctor) {
					if (pf->cls == NIL || pp_js_cls_member(pf))
						return false;
					l->encl = pf->cls;
					return true;
				}
				l->encl = pf->chain == pf->name_tok ? pf->name_tok : NIL;
				return true;
			}
			i = pf->head; /* on at the '(' or "!" before it */
			p = pf->parent;
			continue;
		}
		uint32_t m = pp_js_tok_match(&c->t[i]);
		enum pp_js_kind k = pp_js_tok_kind(&c->t[i]);
		if (asi_between(c, i)) {
			boundary = true;        /* token I ends the statement before */
		} else if (m != NIL && m < i) { /* a closer: over what it closes */
			if (is(c, i, "}"))
				return false;
			if (is(c, i, "]")) {
				/* a["k"]: the key; an array literal: nothing */
				if (!array_open(c, m) &&
				    (m + 2 != i || !kind(c, m + 1, PP_JS_STRING) ||
				     !push_part(l, m + 1, false)))
					return false;
			}
			i = m;
			continue;
		} else if (m != NIL) { /* an opener still open */
			if (is(c, i, "(") || array_open(c, i))
				continue; /* a group, a call's argument, an array's
					   * element: on before it */
			if (!is(c, i, "{") || !block_open(c, i))
				return false;
			boundary = true;
		} else if (k == PP_JS_IDENT || k == PP_JS_PRIVATE) {
			/* a.b (a.finally, a.new: a property's name whatever
			 * the word) */
			if (i > 0 && (is(c, i - 1, ".") || is(c, i - 1, "?."))) {
				if (!push_part(l, i, false))
					return false;
				i--;
				continue;
			}
			if (is(c, i, "function") || is(c, i, "class") || is(c, i, "async"))
				return false;
			if (is_any(c, i, stmt_words))
				boundary = true;
			else if (!no_name(c, i) && !push_part(l, i, true))
				return false;
		} else if (k == PP_JS_PUNCT) {
			if ((c->t[i].lk & 7u) == PP_JS_BRACKET_)
				return false; /* a bracket never closed */
			if (is(c, i, ":") && i >= 2 &&
			    (kind(c, i - 1, PP_JS_IDENT) || kind(c, i - 1, PP_JS_STRING) ||
			     kind(c, i - 1, PP_JS_NUMBER)) &&
			    (is(c, i - 2, "{") || is(c, i - 2, ","))) {
				/* an object literal's key: pushed, its earlier
				 * properties finished; on before the object */
				size_t in = pp_jsf_container(c, i - 1);
				if (in == NIL || in == 0 || !is(c, in, "{") || block_open(c, in) ||
				    !push_part(l, i - 1, false))
					return false;
				i = in;
				continue;
			}
			if (is(c, i, "=>") || is(c, i, ":") || is(c, i, "."))
				return false;
			if (is(c, i, ";"))
				boundary = true;
			if (is(c, i, ",")) {
				/* a sequence's or a list's earlier part, finished:
				 * on before the list's '(', or a statement's */
				size_t in = pp_jsf_container(c, i);
				if (in == NIL)
					return false;
				if (is(c, in, "(") || array_open(c, in)) {
					i = in + 1;
					continue;
				}
				if (!is(c, in, "{") ||
				    !((p != NIL && in == fs->f[p].open) || block_open(c, in)))
					return false;
				boundary = true;
			}
		}
		/* (a string, number, template or regex pushes none; what a
		 * template's ${} held is not known here) */
		if (k == PP_JS_TEMPLATE && c->s[c->t[i].off] == '}')
			return false;
		if (boundary) {
			/* on at the function's body (a statement pushes none) */
			if (p == NIL)
				return true;
			i = fs->f[p].open + 1;
		}
	}
	return false;
}

/* L's names written into BUF from its start, joined with "." (the
 * enclosing function's, when a capital starts it, then the rest, a
 * variable's before another variable's dropped; NEXT_VAR: a variable's
 * name follows them); their length. */
static size_t leak_parts(const char *text, const struct pp_js_toks *v, const struct leak *l,
			 bool next_var, char *buf, size_t cap)
{
	size_t at = 0;
	const char *s;
	size_t n;
	if (cap)
		buf[0] = '\0';
	if (l->encl != NIL) {
		pp_js_tok_text(text, &v->t[l->encl], &s, &n);
		if (pp_js_name_capital(s, n))
			at = put(buf, cap, at, s, n);
	}
	for (size_t k = l->n; k-- > 0;) {
		bool var_after = k ? l->var[k - 1] : next_var;
		if (l->var[k] && var_after)
			continue;
		pp_js_tok_text(text, &v->t[l->tok[k]], &s, &n);
		if (at)
			at = put(buf, cap, at, ".", 1);
		at = put(buf, cap, at, s, n);
	}
	return at;
}

/* F's name where V8's inferrer names it with what it still holds
 * (leak_of()); SIZE_MAX where that is not known. */
static size_t leaked_name(const char *text, const struct pp_js_toks *v, const struct pp_js_funcs *fs,
			  const struct pp_js_func *f, char *buf, size_t cap)
{
	struct ctx c = {text, v->t, v->n, NULL, false};
	struct leak l;
	if (!fs || f->ctor || f->name_tok == NIL || f->prefix || f->inferred || f->ns != NIL ||
	    f->chain == NIL || (f->chain == f->name_tok && !f->this_chain) ||
	    !leak_of(&c, fs, f, f->chain, &l))
		return SIZE_MAX;
	size_t at = leak_parts(text, v, &l, !f->this_chain, buf, cap);
	return chain_name(text, v, f->chain, f->name_tok, f->this_chain, buf, cap, at, at > 0);
}

/* pp_js_func_name()'s name, its whole length returned (more than was
 * written when it was cut at CAP) */
static size_t func_name(const char *text, const struct pp_js_toks *v, const struct pp_js_funcs *fs,
			const struct pp_js_func *f, char *buf, size_t cap)
{
	size_t at = 0;
	const char *s;
	size_t n;
	if (cap)
		buf[0] = '\0';
	if (f->ctor) {
		/* registry.Codec = class { constructor() {} }: registry.Codec */
		if (f->cls == NIL)
			return 0;
		if (pp_js_cls_member(f)) {
			/* this.K = class in function Holder: Holder.K */
			size_t at0 = 0;
			if (f->encl != NIL) {
				pp_js_tok_text(text, &v->t[f->encl], &s, &n);
				if (pp_js_name_capital(s, n))
					at0 = put(buf, cap, 0, s, n);
			}
			return chain_name(text, v, f->cls_chain, f->cls, f->cls_this, buf, cap, at0,
					  at0 > 0);
		}
		pp_js_tok_text(text, &v->t[f->cls], &s, &n);
		return put(buf, cap, 0, s, n);
	}
	if (f->name_tok == NIL) {
		if (f->ctx == NIL)
			return 0;
		struct ctx c = {text, v->t, v->n, NULL, false};
		at = ctx_name(&c, v, f->ctx, buf, cap, 0);
		if (at == SIZE_MAX) {
			if (cap)
				buf[0] = '\0';
			return 0;
		}
		return at;
	}
	if (f->arr_obj != NIL) {
		/* {list: [() => 1]}: what V8's inferrer holds before the
		 * object (its binding, a callee, the name of the function it
		 * is parsed with), then the key */
		struct ctx c = {text, v->t, v->n, NULL, false};
		struct leak l;
		if (fs && leak_of(&c, fs, f, f->arr_obj, &l)) {
			at = leak_parts(text, v, &l, false, buf, cap);
			if (at)
				at = put(buf, cap, at, ".", 1);
		} else if (!(f->arr_obj > 0 && is(&c, f->arr_obj - 1, "return"))) {
			at = ctx_name(&c, v, f->arr_obj, buf, cap, 0);
			if (at == SIZE_MAX || at == 0) {
				if (cap)
					buf[0] = '\0';
				return 0;
			}
			at = put(buf, cap, at, ".", 1);
		}
		pp_js_tok_text(text, &v->t[f->name_tok], &s, &n);
		return put(buf, cap, at, s, n);
	}
	size_t ln = leaked_name(text, v, fs, f, buf, cap);
	if (ln != SIZE_MAX)
		return ln;
	if (cap)
		buf[0] = '\0';
	if (f->prefix)
		at = put(buf, cap, at, f->prefix == 1 ? "get " : "set ", 4);
	bool part = false; /* a part written: the next one after a "." */
	if (f->encl != NIL) {
		pp_js_tok_text(text, &v->t[f->encl], &s, &n);
		if (pp_js_name_capital(s, n)) {
			at = put(buf, cap, at, s, n);
			part = true;
		}
	}
	if (f->ns != NIL) {
		pp_js_tok_text(text, &v->t[f->ns], &s, &n);
		if (part)
			at = put(buf, cap, at, ".", 1);
		at = put(buf, cap, at, s, n);
		part = true;
	}
	return chain_name(text, v, f->chain, f->name_tok, f->this_chain, buf, cap, at, part);
}

size_t pp_js_func_name(const char *text, const struct pp_js_toks *v, const struct pp_js_func *f,
		       char *buf, size_t cap)
{
	return pp_js_func_name_in(text, v, NULL, f, buf, cap);
}

size_t pp_js_func_name_in(const char *text, const struct pp_js_toks *v, const struct pp_js_funcs *fs,
			  const struct pp_js_func *f, char *buf, size_t cap)
{
	size_t n = func_name(text, v, fs, f, buf, cap);
	/* what BUF holds: a name longer than CAP is cut there */
	return !cap ? 0 : n < cap ? n : cap - 1;
}

size_t pp_js_class_name(const char *text, const struct pp_js_toks *v, size_t i, char *buf,
			size_t cap)
{
	struct ctx c = {text, v->t, v->n, NULL, false};
	struct pp_js_func b = no_func;
	if (cap)
		buf[0] = '\0';
	if (!is(&c, i, "class"))
		return 0;
	pp_jsf_class_head(&c, i, &b);
	if (b.name_tok == NIL)
		return 0;
	size_t n = func_name(text, v, NULL, &b, buf, cap);
	return !cap ? 0 : n < cap ? n : cap - 1;
}

bool pp_js_class_has_ctor(const char *text, const struct pp_js_toks *v, size_t i)
{
	struct ctx c = {text, v->t, v->n, NULL, false};
	if (!is(&c, i, "class"))
		return false;
	size_t o = pp_jsf_class_open(&c, i);
	if (o == NIL)
		return false;
	size_t close = pp_js_tok_match(&c.t[o]);
	for (size_t j = o + 1; j < close; j++) {
		uint32_t m = pp_js_tok_match(&c.t[j]);
		if (is(&c, j, "constructor") && is(&c, j + 1, "(") && !is(&c, j - 1, "."))
			return true;
		if (m != NIL && m > j)
			j = m; /* a member's body, a computed key */
	}
	return false;
}

uint32_t pp_js_func_ctx_tok(const char *text, const struct pp_js_toks *v, const struct pp_js_func *f)
{
	if (f->name_tok != NIL || f->ctor || f->ctx == NIL)
		return NIL;
	struct ctx c = {text, v->t, v->n, NULL, false};
	size_t kw = pp_jsf_class_of(&c, f->ctx), h = kw != NIL ? kw : f->ctx;
	if (h < 2 || !is(&c, h - 1, "=") || !kind(&c, h - 2, PP_JS_IDENT) ||
	    pp_jsf_not_key(&c, h - 2))
		return NIL;
	/* one word: not a.b = , nor x: T = (a type) */
	if (h >= 3 && (is(&c, h - 3, ".") || is(&c, h - 3, "?.") || is(&c, h - 3, ":")))
		return NIL;
	return (uint32_t)(h - 2);
}

bool pp_js_name_capital(const char *s, size_t n)
{
	return n > 0 && s[0] >= 'A' && s[0] <= 'Z';
}

/* Whether tokens I and J are the same word. */
static bool same_word(const struct ctx *c, size_t i, size_t j)
{
	return kind(c, i, PP_JS_IDENT) && kind(c, j, PP_JS_IDENT) &&
	       pp_js_tok_len(&c->t[i]) == pp_js_tok_len(&c->t[j]) &&
	       memcmp(c->s + c->t[i].off, c->s + c->t[j].off, pp_js_tok_len(&c->t[i])) == 0;
}

/* How far into a script esbuild's helpers are looked for (they come
 * first, after the imports). */
#define HELPERS_LOOK 4096

uint32_t pp_js_keep_names_helper(const char *text, const struct pp_js_toks *v)
{
	struct ctx c = {text, v->t, v->n, NULL, true};
	for (size_t i = 0; i < c.n && i < HELPERS_LOOK; i++) {
		if (!(kind(&c, i, PP_JS_IDENT) && is(&c, i + 1, "=") && is(&c, i + 2, "(") &&
		      kind(&c, i + 3, PP_JS_IDENT) && is(&c, i + 4, ",") &&
		      kind(&c, i + 5, PP_JS_IDENT) && is(&c, i + 6, ")") && is(&c, i + 7, "=>") &&
		      kind(&c, i + 8, PP_JS_IDENT) && is(&c, i + 9, "(") &&
		      same_word(&c, i + 10, i + 3) && is(&c, i + 11, ",") &&
		      (is(&c, i + 12, "\"name\"") || is(&c, i + 12, "'name'")) &&
		      is(&c, i + 13, ",") && is(&c, i + 14, "{") && is(&c, i + 15, "value")))
			continue;
		uint32_t close = pp_js_tok_match(&c.t[i + 14]);
		if (close == NIL || !is(&c, (size_t)close + 1, ")"))
			continue;
		for (size_t k = i + 16; k < close; k++)
			if (is(&c, k, "configurable"))
				return (uint32_t)i;
	}
	return NIL;
}

const char *pp_js_keep_names_string(const char *text, const struct pp_js_toks *v,
				    const struct pp_js_func *f, uint32_t helper, size_t *len)
{
	struct ctx c = {text, v->t, v->n, NULL, true};
	size_t e = (size_t)f->close + 1;
	if (helper == NIL || f->head < 2 || !is(&c, f->head - 1, "(") ||
	    !same_word(&c, f->head - 2, helper) || !is(&c, e, ",") ||
	    !kind(&c, e + 1, PP_JS_STRING) || !is(&c, e + 2, ")"))
		return NULL;
	const struct pp_js_tok *t = &c.t[e + 1];
	size_t l = pp_js_tok_len(t);
	const char *s = text + t->off;
	if (l < 3 || memchr(s, '\\', l))
		return NULL;
	*len = l - 2;
	return s + 1;
}

bool pp_js_func_async(const char *text, const struct pp_js_toks *v, const struct pp_js_func *f)
{
	struct ctx c = {text, v->t, v->n, NULL, true};
	for (size_t i = f->head; i <= f->start && i < c.n; i++) {
		if (!is(&c, i, "async"))
			continue;
		if (i == f->start)
			return true;
		return kind(&c, i + 1, PP_JS_IDENT) || kind(&c, i + 1, PP_JS_PRIVATE) ||
		       kind(&c, i + 1, PP_JS_STRING) || kind(&c, i + 1, PP_JS_NUMBER) ||
		       is(&c, i + 1, "*") || is(&c, i + 1, "[");
	}
	return false;
}
