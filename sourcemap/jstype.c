/*
 * jstype.c: what TypeScript's types look like to the function finder
 * (jsfunc.c): type parameters and arguments, a function's return type up
 * to its body, and function types, which define no function.  A script
 * (JavaScript) has none of them.
 */
#include "jsfunc_private.h"

/* The token that closes the type arguments the '<' at I opens (">",
 * or ">>" and ">>>" closing nested ones too), passing what a type holds:
 * commas, function types and brackets (Map<string, (a: T) => void>,
 * Array<{ a: number, b: string }>); NIL when something no type holds
 * comes first (c ? g(a) : b < d, m() {}: a comparison), or nothing
 * closes them within 256 tokens. */
static size_t type_args_end(const struct ctx *c, size_t i)
{
	size_t d = 0;
	for (size_t j = i, k = 0; j < c->n && k < 256; j++, k++) {
		const struct pp_js_tok *t = &c->t[j];
		if (is(c, j, "<")) {
			d++;
			continue;
		}
		if (pp_jsf_type_close(c, j)) {
			size_t n = pp_js_tok_len(t);
			if (n >= d)
				return j;
			d -= n;
			continue;
		}
		if (pp_js_tok_kind(t) != PP_JS_PUNCT || pp_js_tok_len(t) != 1)
			continue;
		char ch = c->s[t->off];
		uint32_t m = pp_js_tok_match(t);
		if ((ch == '(' || ch == '[' || ch == '{') && m != NIL) {
			j = m;
			continue;
		}
		if (ch == ';' || ch == ')' || ch == ']' || ch == '}' || ch == '=')
			return NIL;
	}
	return NIL;
}

/* Whether token I is a word that starts a statement or a declaration and
 * has no place in a type (an overload's signature ends without a ';'). */
static bool statement_word(const struct ctx *c, size_t i)
{
	static const char *const w[] = {"if",      "for",       "while", "return",    "switch",
					"throw",   "case",      "do",    "try",       "break",
					"else",    "continue",  "var",   "let",       "const",
					"export",  "function",  "class", "interface", "enum",
					"declare", "namespace", NULL};
	return is_any(c, i, w);
}

/* Whether token K may start a type: what comes before a type, or a
 * parenthesized one (a ':', "is", '|', '&', '<', ',', "=>", '(', "new"). */
static bool before_type(const struct ctx *c, size_t k)
{
	static const char *const w[] = {":", "is", "|", "&", "<", ",", "=>", "(", "new", NULL};
	return is_any(c, k, w);
}

bool pp_jsf_param_list(const struct ctx *c, size_t o)
{
	uint32_t m = pp_js_tok_match(&c->t[o]);
	if (m == NIL || !is(c, o, "("))
		return false;
	size_t f = o + 1;
	if (f == m || is(c, f, "..."))
		return true;
	if (is(c, f, "{") || is(c, f, "[")) {
		uint32_t e = pp_js_tok_match(&c->t[f]);
		f = e == NIL ? m : e;
	} else if (!kind(c, f, PP_JS_IDENT)) {
		return false;
	}
	return f + 1 == m || is(c, f + 1, ":") || is(c, f + 1, "?") || is(c, f + 1, ",") ||
	       is(c, f + 1, "=");
}

/* Whether the "=>" at token J is a function type's: after a parameter
 * list where a type may start ((...a: T[]) => R, (b: number) => void), not
 * after a parenthesized type (((b: number) => number)) nor a type's last
 * word. */
static bool type_arrow(const struct ctx *c, size_t j)
{
	if (j == 0 || !is(c, j - 1, ")"))
		return false;
	uint32_t o = pp_js_tok_match(&c->t[j - 1]);
	if (o == NIL || o == 0 || !pp_jsf_param_list(c, o))
		return false;
	size_t b = o - 1;
	if (pp_jsf_type_close(c, b)) {
		/* <T>(x: T) => T */
		size_t t = pp_jsf_type_params_open(c, b);
		if (t == NIL || t == 0)
			return false;
		b = t - 1;
	}
	return before_type(c, b);
}

/* Past a TypeScript return type after token I (the ')' of the
 * parameters): the index of the body's '{' or of "=>", else NIL.  A
 * script (JavaScript) has none: f(a):b=>c is a call in a conditional. */
size_t pp_jsf_after_params(const struct ctx *c, size_t i, bool arrow)
{
	size_t j = i + 1;
	if (!c->js && is(c, j, ":")) {
		/* a type: up to a '{' that does not start a type literal */
		j++;
		for (size_t k = 0; j < c->n && k < 4096; k++) {
			const struct pp_js_tok *t = &c->t[j];
			size_t ta = is(c, j, "<") ? type_args_end(c, j) : NIL;
			if (ta != NIL) {
				j = ta + 1;
				continue;
			}
			/* a statement: no type (case f(a): if (x) {}) */
			if (pp_js_tok_kind(t) == PP_JS_IDENT && statement_word(c, j))
				return NIL;
			if (pp_js_tok_kind(t) == PP_JS_PUNCT && pp_js_tok_len(t) == 1) {
				char ch = c->s[t->off];
				if (ch == '{') {
					const char *prev = c->s + c->t[j - 1].off;
					bool type_start =
						(pp_js_tok_len(&c->t[j - 1]) == 1 &&
						 (*prev == ':' || *prev == '|' || *prev == '&' ||
						  *prev == '<' || *prev == ',' || *prev == '(')) ||
						is(c, j - 1, "=>");
					if (!type_start)
						break;
				}
				uint32_t m = pp_js_tok_match(t);
				if ((ch == '(' || ch == '[' || ch == '{') && m != NIL) {
					j = m + 1;
					continue;
				}
				if (ch == ';' || ch == ')' || ch == ']' || ch == '}' || ch == '=' ||
				    ch == ',')
					return NIL;
			}
			if (is(c, j, "=>")) {
				/* an arrow's own, not a function type's in its
				 * return type ((v): v is (...a: T[]) => R => ) */
				if (arrow && !type_arrow(c, j))
					break;
				/* a function type's return type follows (m(): () =>
				 * number { }); the body's '{' must come after it */
			}
			j++;
		}
	}
	if (arrow ? is(c, j, "=>") : is(c, j, "{"))
		return j;
	return NIL;
}

/* The "<" that opens the type parameters closed by token K (">", ">>" or
 * ">>>": <T, U extends A<T> = B>), or NIL: none within 256 tokens back. */
size_t pp_jsf_type_params_open(const struct ctx *c, size_t k)
{
	int d = 0;
	for (size_t steps = 0; k > 0 && steps < 256; steps++, k--) {
		if (is(c, k, ">"))
			d++;
		else if (is(c, k, ">>"))
			d += 2;
		else if (is(c, k, ">>>"))
			d += 3;
		else if (is(c, k, "<") && --d == 0)
			return k;
	}
	return NIL;
}

/* Whether the ')' at K closes what may be an arrow's parameters by what
 * comes before its '(': '=', '(', ',', '[', "=>", "return", "async", or
 * the text's start (type parameters passed). */
static bool arrow_start(const struct ctx *c, size_t k)
{
	static const char *const w[] = {"=", "(", ",", "[", "=>", "return", "async", NULL};
	uint32_t o = pp_js_tok_match(&c->t[k]);
	if (o == NIL || !is(c, o, "("))
		return false;
	size_t b = o;
	if (b > 0 && pp_jsf_type_close(c, b - 1)) {
		size_t t = pp_jsf_type_params_open(c, b - 1);
		if (t == NIL)
			return false;
		b = t;
	}
	return b == 0 || is_any(c, b - 1, w);
}

/* Whether token P lies in a type: back from it over what a type holds
 * (words, '.', '|', '&', '?', ',', "=>", brackets and type arguments
 * passed whole) to where that type starts, either a '<' whose type
 * arguments close after P (Map<string, (x: T) => void>: type_args_end()),
 * or the ':' after a function's parameters, its body after P (m(): () =>
 * number { }, f(v): v is (...a: T[]) => R { }). */
static bool in_type(const struct ctx *c, size_t p)
{
	size_t ang = 0; /* the '>' passed back, of type arguments closed before P */
	for (size_t k = p, steps = 0; k > 0 && steps < 64; steps++) {
		k--;
		const struct pp_js_tok *t = &c->t[k];
		if (pp_jsf_type_close(c, k)) {
			ang += pp_js_tok_len(t);
			continue;
		}
		if (is(c, k, "<")) {
			if (ang) {
				ang--;
				continue;
			}
			size_t e = type_args_end(c, k);
			return e != NIL && e > p;
		}
		if (ang)
			continue;
		if (is(c, k, ":")) {
			if (k == 0 || !is(c, k - 1, ")"))
				return false;
			/* a method's return type, or an arrow's (its
			 * parameters where an arrow's start: not a call's
			 * arguments, nor a conditional's branch) */
			size_t b = pp_jsf_after_params(c, k - 1, false);
			if (b == NIL && arrow_start(c, k - 1))
				b = pp_jsf_after_params(c, k - 1, true);
			return b != NIL && b > p;
		}
		if (pp_js_tok_kind(t) != PP_JS_PUNCT || pp_js_tok_len(t) != 1)
			continue;
		char ch = c->s[t->off];
		uint32_t m = pp_js_tok_match(t);
		if ((ch == ')' || ch == ']' || ch == '}') && m != NIL && m < k) {
			k = m; /* passed back whole */
			continue;
		}
		/* a parenthesized type around P (: ((b: T) => R) =>) */
		if (ch == '(' && m != NIL && m > p && k > 0 && before_type(c, k - 1))
			continue;
		if (ch != '|' && ch != '&' && ch != '.' && ch != '?' && ch != ',')
			return false;
	}
	return false;
}

/*
 * Whether the arrow whose parameters start at token P is a function type
 * (TypeScript), which defines no function: in the type annotation of a
 * parameter (f: (x: T) => number, f?: , this: ), of a variable (const f:
 * (n) => n = ) or of a class field (cb: (n) => void;), or a type alias
 * (type H<T> = (a: T) => T), generic or not (f: <T>(x: T) => T).  Not an
 * object literal's property ({ f: (x) => 1 }), nor a conditional's branch
 * (c ? a : (x) => 1).
 */
bool pp_jsf_arrow_type(const struct ctx *c, size_t p)
{
	/* a generic one's type parameters first (type F = <T>(x: T) => T) */
	if (p >= 1 && pp_jsf_type_close(c, p - 1)) {
		size_t o = pp_jsf_type_params_open(c, p - 1);
		if (o != NIL)
			p = o;
	}
	if (in_type(c, p))
		return true;
	if (p < 2)
		return false;
	if (is(c, p - 1, "=")) {
		size_t q = p - 2;
		if (pp_jsf_type_close(c, q)) {
			q = pp_jsf_type_params_open(c, q);
			if (q == NIL || q == 0)
				return false;
			q--;
		}
		return q > 0 && kind(c, q, PP_JS_IDENT) && is(c, q - 1, "type");
	}
	if (!is(c, p - 1, ":"))
		return false;
	size_t k = p - 1, q = k - 1;
	if (is(c, q, "?") && q > 0)
		q--;
	if (!(kind(c, q, PP_JS_IDENT) || kind(c, q, PP_JS_PRIVATE)) || q == 0)
		return false;
	size_t b = q - 1;
	if (is(c, b, "const") || is(c, b, "let") || is(c, b, "var"))
		return true;
	size_t in = pp_jsf_container(c, k);
	if (in == NIL)
		return false;
	if (is(c, in, "("))
		return in == b || is(c, b, ",") || is(c, b, "...") || pp_jsf_member_modifier(c, b);
	if (is(c, in, "{") && pp_jsf_class_body(c, in))
		return in == b || is(c, b, ";") || is(c, b, "}") || pp_jsf_member_modifier(c, b);
	return false;
}

/* Whether the ')' at K closes a conditional's first branch in
 * parentheses (c ? (a) : p => v), which no arrow's parameters are, the
 * "=>" after the ':' being token I: no ':' of that conditional follows
 * the arrow's body (c ? (t): T => t : 0 is a typed arrow in the first
 * branch). */
static bool cond_group(const struct ctx *c, size_t k, size_t i)
{
	uint32_t o = pp_js_tok_match(&c->t[k]);
	if (o == NIL || o == 0 || !is(c, o - 1, "?"))
		return false;
	size_t open = 0; /* conditionals begun in the body */
	for (size_t j = i + 1, steps = 0; j < c->n && steps < 4096; j++, steps++) {
		uint32_t m = pp_js_tok_match(&c->t[j]);
		if (m != NIL && m > j) {
			j = m; /* a group, whole */
			continue;
		}
		if (is(c, j, "?"))
			open++;
		else if (is(c, j, ":") && open)
			open--;
		else if (is(c, j, ":"))
			return false;
		else if (is(c, j, ";") || is(c, j, ",") || is(c, j, ")") || is(c, j, "]") ||
			 is(c, j, "}"))
			return true;
	}
	return true;
}

bool pp_jsf_return_type_end(const struct ctx *c, size_t i)
{
	if (c->js || i < 2)
		return false;
	if (i >= 3 && is(c, i - 2, ":") && is(c, i - 3, ")"))
		return !pp_jsf_call_parens(c, i - 3) && !cond_group(c, i - 3, i);
	if (is(c, i - 2, ".") || is(c, i - 2, "is") || is(c, i - 2, "|") || is(c, i - 2, "&"))
		return true;
	/* the last word of a function type's return type: (v): v is (...a:
	 * T[]) => R => */
	uint32_t o = i >= 3 && is(c, i - 2, "=>") && is(c, i - 3, ")")
			     ? pp_js_tok_match(&c->t[i - 3])
			     : NIL;
	return o != NIL && pp_jsf_arrow_type(c, o);
}

size_t pp_jsf_params_before(const struct ctx *c, size_t o)
{
	if (c->js || o < 2 || !is(c, o - 1, ":") || !is(c, o - 2, ")") || pp_jsf_param_list(c, o) ||
	    pp_jsf_call_parens(c, o - 2))
		return NIL;
	return pp_js_tok_match(&c->t[o - 2]);
}
