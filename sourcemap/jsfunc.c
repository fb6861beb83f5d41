/*
 * jsfunc.c: the functions a tokenized JavaScript/TypeScript text defines,
 * where V8 puts each (the '(' of its parameters, a lone arrow parameter,
 * "async" of an async arrow), where its body is, and the token that names
 * it as V8 infers names: its own name, the key of a method or property, the
 * binding it is assigned to (a.b.c = function), its class for a
 * constructor; none for a callback passed inline.
 */
#include "jsfunc_private.h"

#include <stdlib.h>
#include <string.h>

/* Whether token I is a word that cannot be a method's key before "(":
 * if for while switch catch with function return typeof await yield new
 * super import void delete in of do else instanceof throw case export
 * class.  By length first: most tokens before a "(" are a minified
 * callee's one or two letters. */
bool pp_jsf_not_key(const struct ctx *c, size_t i)
{
	static const char *const by_len[11][8] = {
		[2] = {"if", "in", "of", "do"},
		[3] = {"for", "new"},
		[4] = {"with", "void", "else", "case"},
		[5] = {"while", "catch", "await", "yield", "super", "throw", "class"},
		[6] = {"switch", "return", "typeof", "import", "delete", "export"},
		[8] = {"function"},
		[10] = {"instanceof"},
	};
	size_t n = i < c->n ? pp_js_tok_len(&c->t[i]) : 0;
	if (n < 2 || n > 10)
		return false;
	const char *t = c->s + c->t[i].off;
	for (size_t k = 0; k < 8 && by_len[n][k]; k++)
		if (by_len[n][k][0] == t[0] && memcmp(by_len[n][k], t, n) == 0)
			return true;
	return false;
}

/* The last token of the concise arrow body starting at I. */
static size_t concise_end(const struct ctx *c, size_t i)
{
	size_t j = i, last = i, subs = 0; /* the body's own open "${" */
	size_t conds = 0;                 /* its own conditionals' open "?" */
	while (j < c->n) {
		const struct pp_js_tok *t = &c->t[j];
		if (pp_js_tok_kind(t) == PP_JS_PUNCT && pp_js_tok_len(t) == 1) {
			char ch = c->s[t->off];
			if (ch == ',' || ch == ';' || ch == ')' || ch == ']' || ch == '}')
				break;
			/* a ':' without its '?' in the body: the conditional
			 * around the arrow goes on (c ? () => 1 : g) */
			if (ch == '?')
				conds++;
			if (ch == ':' && !conds--)
				break;
			uint32_t m = pp_js_tok_match(t);
			if ((ch == '(' || ch == '[' || ch == '{') && m != NIL) {
				last = m;
				j = m + 1;
				continue;
			}
		}
		if (pp_js_tok_kind(t) == PP_JS_TEMPLATE) {
			/* a piece "}..." closes a substitution: one of the
			 * body's own templates (x => `a${x}b`), else the one
			 * that holds the arrow (`${x => x}`), where it ends */
			const char *ts = c->s + t->off;
			size_t n = pp_js_tok_len(t);
			if (ts[0] == '}') {
				if (!subs)
					break;
				subs--;
			}
			if (n >= 2 && ts[n - 2] == '$' && ts[n - 1] == '{')
				subs++;
		}
		last = j;
		j++;
	}
	return last;
}

/* Whether the expression ending at token E is called or taken a member
 * of: "(", "." or "?." after it (V8 names no function that is called
 * where it is written: var j = function () {}() is anonymous). */
static bool called_after(const struct ctx *c, size_t e)
{
	return e != NIL && e + 1 < c->n &&
	       (is(c, e + 1, "(") || is(c, e + 1, ".") || is(c, e + 1, "?."));
}

/* Whether token I may be part of an operand of the expressions
 * through_operators() passes: a name, a literal, a member's dot, a unary
 * or binary operator that is none of ? : || && ?? , = (those it handles
 * itself); not a word that starts a statement or a clause. */
static bool operand_tok(const struct ctx *c, size_t i)
{
	static const char *const stop[] = {"return", "throw",  "case",   "default",  "else",
					   "do",     "yield",  "export", "extends",  "const",
					   "let",    "var",    "if",     "while",    "for",
					   "with",   "switch", "catch",  "function", "class",
					   "import", "of",     NULL};
	const struct pp_js_tok *t = &c->t[i];
	switch (pp_js_tok_kind(t)) {
	case PP_JS_IDENT:
		return !is_any(c, i, stop);
	case PP_JS_PRIVATE:
	case PP_JS_NUMBER:
	case PP_JS_STRING:
	case PP_JS_TEMPLATE:
	case PP_JS_REGEX:
		return true;
	default:
		break;
	}
	static const char *const ops[] = {".",  "?.", "!",   "~",  "+",   "-", "*",  "/",  "%",
					  "**", "==", "===", "!=", "!==", "<", ">",  "<=", ">=",
					  "<<", ">>", ">>>", "&",  "|",   "^", "++", "--"};
	for (size_t k = 0; k < sizeof(ops) / sizeof(ops[0]); k++)
		if (is(c, i, ops[k]))
			return true;
	return false;
}

/* The opening bracket that token I closes, or NIL (not a closing bracket). */
static size_t opener(const struct ctx *c, size_t i)
{
	uint32_t m = pp_js_tok_match(&c->t[i]);
	return m < i ? m : NIL;
}

/* Back from token K over matched groups to the first token AT takes (a
 * type's start: the ':' before it), or NIL at a ';', '{', '}' or '='
 * (the statement's or the binding's edge), at the text's start, or past
 * 256 tokens. */
static size_t back_to(const struct ctx *c, size_t k, bool (*at)(const struct ctx *, size_t))
{
	for (size_t steps = 0; k > 0 && steps < 256; steps++) {
		if (at(c, k))
			return k;
		size_t o = opener(c, k);
		if (o != NIL) {
			if (o == 0)
				break; /* the text's first token: nothing before */
			k = o - 1;
			continue;
		}
		if (is(c, k, ";") || is(c, k, "{") || is(c, k, "}") || is(c, k, "="))
			break;
		k--;
	}
	return NIL;
}

/* A ')' followed by a ':' (an arrow's parameters and return type), and a
 * ':' (a binding's type), for back_to(). */
static bool params_typed(const struct ctx *c, size_t k)
{
	return is(c, k, ")") && is(c, k + 1, ":") && pp_js_tok_match(&c->t[k]) != NIL;
}
static bool colon(const struct ctx *c, size_t k)
{
	return is(c, k, ":");
}

/* Whether the parentheses closed by token K are a call's arguments (f(a),
 * g()(a), a[0](b), a?.(b), a tagged template's call), which no arrow's
 * parameters are: "async (a): T =>" is an arrow. */
bool pp_jsf_call_parens(const struct ctx *c, size_t k)
{
	uint32_t o = pp_js_tok_match(&c->t[k]);
	if (o == NIL || o == 0)
		return false;
	if (kind(c, o - 1, PP_JS_IDENT))
		return operand_tok(c, o - 1) && !is(c, o - 1, "async");
	return is(c, o - 1, ")") || is(c, o - 1, "]") || is(c, o - 1, "?.") ||
	       kind(c, o - 1, PP_JS_TEMPLATE);
}

/* The first token of the parameters of the arrow whose "=>" is token I:
 * its '(', or a lone parameter; NIL when there is none. */
static size_t arrow_params(const struct ctx *c, size_t i)
{
	if (i == 0)
		return NIL;
	/* (a): T => is TypeScript's; c ? f(a) : s => t, and a script's
	 * c?f(a):s=>t, are a lone parameter's; so is no last word of a
	 * return type, (a): p is t.Node => */
	if (kind(c, i - 1, PP_JS_IDENT) && !pp_jsf_return_type_end(c, i))
		return i - 1;
	if (is(c, i - 1, ")") && pp_js_tok_match(&c->t[i - 1]) != NIL) {
		size_t o = pp_js_tok_match(&c->t[i - 1]);
		size_t p = pp_jsf_params_before(c, o);
		return p != NIL ? p : o;
	}
	if (c->js)
		return NIL;
	/* (a): T => : back to a ')' followed by ':' (not a call's) */
	size_t k = back_to(c, i - 1, params_typed);
	return k == NIL || pp_jsf_call_parens(c, k) ? NIL : pp_js_tok_match(&c->t[k]);
}

/* Back from token P over one operand (matched brackets whole, a function
 * expression whole; ARROWS: an arrow function whole too, for a
 * conditional's first branch, where one ends at the ":", and before a ",";
 * elsewhere a "=>" means the walk is in an arrow's body):
 * the token before it, or NIL when the text starts there or *BUDGET steps
 * ran out, or the first token met that no operand holds (the caller looks
 * at it). */
static size_t pass_operand(const struct ctx *c, size_t p, bool arrows, size_t *budget)
{
	for (; *budget; --*budget) {
		size_t o = opener(c, p);
		if (o != NIL) {
			if (o == 0)
				return NIL;
			p = o - 1;
			continue;
		}
		if (arrows && is(c, p, "=>") && p > 0) {
			/* its parameters: (a, b), (a): T or a lone a; then
			 * "async" */
			size_t a = arrow_params(c, p);
			if (a == NIL)
				return p - 1;
			p = a;
			if (p > 0 && is(c, p - 1, "async"))
				p--;
			if (p == 0)
				return NIL;
			p--;
			continue;
		}
		if (is(c, p, "function")) {
			/* a function expression, passed whole (its body
			 * and parameters were): an array's earlier element,
			 * an operand (x = [function a() {}, f]) */
			if (p > 0 && is(c, p - 1, "async"))
				p--;
			if (p == 0)
				return NIL;
			p--;
			continue;
		}
		if (!operand_tok(c, p))
			return p;
		if (p == 0)
			return NIL;
		p--;
	}
	return NIL;
}

/*
 * V8 names a function by the assignment that holds it even through the
 * expression between them: x = c ? f : g, x = a || f, x = a && (f),
 * x = (0, f), x = [f] all name f x (checked with node --cpu-prof), where a
 * call's argument (g(f)) and a function called where it is written are
 * anonymous.  From the function's first token H: the token just after the
 * "=" (or "||=" ...) that holds it, when the walk back passes only
 * conditional and logical operators, their operands, and grouping
 * parentheses and array brackets not called; H itself otherwise, with
 * nothing between or anything else met (a statement's start, a call).  An
 * object literal's key ends the walk too: the token after its ':' (V8
 * names {k: c ? f : g} by the object and the key), but not through a
 * "," ({k: (a, f)} is anonymous).
 */
static bool object_open(const struct ctx *c, size_t open, int depth);
static bool key_colon(const struct ctx *c, size_t p);
static size_t through_operators(const struct ctx *c, size_t h)
{
	size_t p = h - 1;
	bool moved = false, comma = false, anycomma = false;
	/* the tokens looked at, all told: what lies between a binding and
	 * its function is short, and a text of 10^5 functions in one long
	 * chain (a || (() => 1) || ...) is not 10^10 steps */
	size_t budget = 512;
	while (p != NIL && budget) {
		budget--;
		uint32_t m = pp_js_tok_match(&c->t[p]);
		if ((is(c, p, "(") || is(c, p, "[")) && m != NIL && m > p) {
			/* an enclosing bracket: a group, or an array literal */
			bool paren = is(c, p, "(");
			if (p == 0 || called_after(c, m) || (paren && is(c, m + 1, "=>")))
				return h;
			if (kind(c, p - 1, PP_JS_IDENT)
				    ? operand_tok(c, p - 1)
				    : (is(c, p - 1, ")") || is(c, p - 1, "]") ||
				       is(c, p - 1, "?.") || kind(c, p - 1, PP_JS_TEMPLATE)))
				return h; /* a call's arguments, an index */
			comma = false;
			moved = true;
			p--;
			continue;
		}
		if (is(c, p, "=") || is(c, p, "||=") || is(c, p, "&&=") || is(c, p, "?\?=")) {
			/* after a "," that no group holds: a sequence's
			 * earlier part (x = a, f) */
			return moved && !comma ? p + 1 : h;
		}
		bool op = is(c, p, "?") || is(c, p, "||") || is(c, p, "&&") || is(c, p, "?\?") ||
			  is(c, p, ",");
		if (is(c, p, ":")) {
			/* a conditional's second branch: its first before, then
			 * "?"; a first branch that is a conditional itself (c ?
			 * r ? x : y : f) is passed whole, its "?" and ":" paired */
			size_t q = p > 0 ? pass_operand(c, p - 1, true, &budget) : NIL, need = 1;
			while (q != NIL && q != p - 1 && q > 0 && budget &&
			       (is(c, q, ":") || (is(c, q, "?") && need > 1))) {
				if (is(c, q, ":"))
					need++;
				else
					need--;
				size_t r = pass_operand(c, q - 1, true, &budget);
				if (r == NIL || r == q - 1) {
					q = NIL;
					break;
				}
				q = r;
			}
			if (q == NIL || q == p - 1 || !is(c, q, "?"))
				return moved && !anycomma && key_colon(c, p) ? p + 1 : h;
			p = q;
			op = true;
		}
		if (!op || p == 0)
			return h;
		if (is(c, p, ","))
			comma = anycomma = true;
		/* before a ",", an arrow is an earlier element or argument
		 * whole ([() => 1, f]); before another operator, a "=>" is
		 * the arrow whose body the walk is in */
		size_t q = pass_operand(c, p - 1, is(c, p, ","), &budget);
		if (q == NIL || q == p - 1)
			return h; /* no operand before the operator */
		p = q;
		moved = true;
	}
	return h;
}

/* Whether the brackets OPEN .. CLOSE hold a key V8 names a member by: a
 * string or a template without substitutions, written without escapes
 * (V8 takes their value: a['x'] is a.x), or any other expression (V8
 * says <computed>: a[1], a[k], a[Symbol.iterator]).  Not an empty pair, nor
 * a literal with an escape (its value is not decoded here). */
static bool key_known(const struct ctx *c, size_t open, size_t close)
{
	if (close <= open + 1)
		return false;
	if (close == open + 2 &&
	    (kind(c, open + 1, PP_JS_STRING) || kind(c, open + 1, PP_JS_TEMPLATE))) {
		const struct pp_js_tok *t = &c->t[open + 1];
		return pp_js_tok_len(t) >= 2 && !memchr(c->s + t->off, '\\', pp_js_tok_len(t));
	}
	return true;
}

/*
 * The first token of the member chain that ends at token Q (an identifier,
 * a #private name, or the "]" of a computed key) as V8 names an assignment
 * to it: a.b.c, this.x, a.b[k], x[0].d, Foo.prototype[Symbol.iterator];
 * NIL when Q ends no such chain, and for a chain behind a call or anything
 * else V8 names otherwise (f().a).
 */
size_t pp_jsf_member_chain(const struct ctx *c, size_t q)
{
	size_t first = q;
	for (size_t steps = 0; steps < 256; steps++) {
		if (is(c, first, "]")) {
			uint32_t open = pp_js_tok_match(&c->t[first]);
			if (open == NIL || open >= first || open == 0 || !key_known(c, open, first))
				return NIL;
			size_t obj = open - 1;
			/* the object: a name (not a keyword: return [a] = is an
			 * array), or another member's "]" */
			if (!(is(c, obj, "]") || kind(c, obj, PP_JS_PRIVATE) ||
			      (kind(c, obj, PP_JS_IDENT) && !pp_jsf_not_key(c, obj))))
				return NIL;
			first = obj;
			continue;
		}
		if (!(kind(c, first, PP_JS_IDENT) || kind(c, first, PP_JS_PRIVATE)))
			return NIL;
		if (first >= 2 && is(c, first - 1, ".") &&
		    (kind(c, first - 2, PP_JS_IDENT) || kind(c, first - 2, PP_JS_PRIVATE) ||
		     is(c, first - 2, "]"))) {
			first -= 2;
			continue;
		}
		/* f().a = (and the like): V8 names such a function by parts
		 * not read here (pp_jsf_binding() takes its last part) */
		return first >= 1 && is(c, first - 1, ".") ? NIL : first;
	}
	return NIL;
}

/* The open bracket that holds token I: the innermost '{', '[' or '(' whose
 * partner comes after I; NIL when none is found within 4096 tokens.  The
 * walk back stops at the token last asked of (C->last): its bracket, when
 * still open at I, or the walk goes on before it; so the members of an
 * object of 10^5 computed keys, asked in order, are not 10^5 walks over
 * the ones before. */
size_t pp_jsf_container(const struct ctx *c, size_t i)
{
	if (c->last && c->last->q == i)
		return c->last->in; /* asked again */
	size_t k = i, in = NIL;
	for (size_t steps = 0; k > 0 && steps < 4096; steps++) {
		k--;
		size_t o = opener(c, k);
		if (o != NIL) {
			k = o; /* a closed group: from its opener on */
		} else {
			uint32_t m = pp_js_tok_match(&c->t[k]);
			if (m != NIL && m > i) {
				in = k;
				break;
			}
		}
		/* the last token asked of, at this level: its answer */
		if (c->last && k == c->last->q) {
			size_t b = c->last->in;
			if (b == NIL)
				break; /* not found from there either */
			if (pp_js_tok_match(&c->t[b]) > i) {
				in = b;
				break;
			}
			k = b; /* closed before I: on from before it */
		}
	}
	if (c->last) {
		c->last->q = i;
		c->last->in = in;
	}
	return in;
}

/* The "class" keyword of the class whose body's '{' is OPEN (back over
 * its name, heritage and type parameters), or NIL: an object literal or a
 * block. */
size_t pp_jsf_class_of(const struct ctx *c, size_t open)
{
	size_t k = open;
	for (size_t steps = 0; k > 0 && steps < 64; steps++) {
		k--;
		if (is(c, k, "class"))
			return k > 0 && is(c, k - 1, ".") ? NIL : k;
		size_t o = opener(c, k);
		if (o != NIL) {
			/* a heritage holds calls and type arguments, not a
			 * block: f(class {}, { a: 1 }) is no class body */
			if (is(c, k, "}"))
				return NIL;
			k = o;
			continue;
		}
		if (!(kind(c, k, PP_JS_IDENT) || is(c, k, ".") || is(c, k, ",") || is(c, k, "<") ||
		      is(c, k, ">")))
			return NIL;
	}
	return NIL;
}

/* Whether the '{' at I is a class body. */
bool pp_jsf_class_body(const struct ctx *c, size_t i)
{
	return i != NIL && is(c, i, "{") && pp_jsf_class_of(c, i) != NIL;
}

/* Whether the '{' at OPEN starts an object literal or pattern: it follows
 * what starts an expression or a pattern (a logical operator too), or it
 * is the value of a key of such an object ({a: {b: c = ...}}), DEPTH
 * levels up at most; not a block, a class body or case x: {. */
static bool object_open(const struct ctx *c, size_t open, int depth)
{
	if (open == NIL || open == 0 || !is(c, open, "{"))
		return false;
	size_t b = open - 1;
	if (is(c, b, "=") || is(c, b, "(") || is(c, b, ",") || is(c, b, "[") || is(c, b, "?") ||
	    is(c, b, "&&") || is(c, b, "||") || is(c, b, "?\?") || is(c, b, "let") ||
	    is(c, b, "const") || is(c, b, "var") || is(c, b, "return") || is(c, b, "yield"))
		return true;
	/* c ? {...} : {...}: a conditional's second branch after an
	 * object literal (a case's or a label's ':' holds a block) */
	if (depth > 0 && is(c, b, ":") && b >= 1 && is(c, b - 1, "}") &&
	    object_open(c, pp_js_tok_match(&c->t[b - 1]), depth - 1))
		return true;
	/* {o: {k: v = ...}}: a key before, itself in such an object */
	return depth > 0 && is(c, b, ":") && b >= 2 &&
	       (kind(c, b - 1, PP_JS_IDENT) || kind(c, b - 1, PP_JS_STRING) ||
		kind(c, b - 1, PP_JS_NUMBER)) &&
	       (is(c, b - 2, "{") || is(c, b - 2, ",")) &&
	       object_open(c, pp_jsf_container(c, b - 1), depth - 1);
}

/* The first token of the key before the ':' at P when it may be an object
 * literal's ({k: or , k: with a name, a string or a number, or a computed
 * [k]:), else NIL: not a label, a case or a type. */
static size_t key_first(const struct ctx *c, size_t p)
{
	if (p < 2 || !is(c, p, ":"))
		return NIL;
	size_t k = p - 1;
	if (is(c, k, "]")) {
		k = opener(c, k);
		if (k == NIL || k == 0)
			return NIL;
	} else if (!(kind(c, k, PP_JS_IDENT) || kind(c, k, PP_JS_STRING) ||
		     kind(c, k, PP_JS_NUMBER))) {
		return NIL;
	}
	return is(c, k - 1, "{") || is(c, k - 1, ",") ? k : NIL;
}

/* Whether the ':' at P follows a key of an object literal (key_first()). */
static bool key_colon(const struct ctx *c, size_t p)
{
	size_t k = key_first(c, p);
	return k != NIL && object_open(c, pp_jsf_container(c, k), 8);
}

/* Whether Q, before "= function" or "= () =>", is the binding of an object
 * pattern's property (let {format: e = r => ...} = o, or the same in an
 * object literal, an assignment there), after its key K (Q - 2): V8 names
 * it by Q, as minifiers write TypeScript's {format = (n) => ...}.  Not a
 * type: x: T = in a declaration, a parameter or a class field, whose
 * brackets are none, a declaration's, a '(' or a class body. */
static bool pattern_binding(const struct ctx *c, size_t q)
{
	if (q < 3 || !kind(c, q, PP_JS_IDENT) || !is(c, q - 1, ":"))
		return false;
	size_t k = q - 2;
	if (!(kind(c, k, PP_JS_IDENT) || kind(c, k, PP_JS_STRING) || kind(c, k, PP_JS_NUMBER)) ||
	    !(is(c, k - 1, "{") || is(c, k - 1, ",")))
		return false;
	return object_open(c, pp_jsf_container(c, k), 8);
}

/* Whether tokens FIRST .. LAST are a.b.c: names and dots by turns. */
static bool dotted(const struct ctx *c, size_t first, size_t last)
{
	for (size_t i = first; i <= last; i++)
		if ((i - first) % 2 ? !is(c, i, ".") : !kind(c, i, PP_JS_IDENT))
			return false;
	return true;
}

bool pp_js_dotted(const char *text, const struct pp_js_toks *v, size_t first, size_t last)
{
	struct ctx c = {text, v->t, v->n, NULL, false};
	return last < v->n && dotted(&c, first, last);
}

/* The body's '{' of the class whose "class" keyword is token I (the first
 * '{' outside brackets after it), NIL when it has none. */
size_t pp_jsf_class_open(const struct ctx *c, size_t i)
{
	size_t j = i + 1;
	for (; j < c->n && !is(c, j, "{"); j++)
		if ((is(c, j, "(") || is(c, j, "[")) && pp_js_tok_match(&c->t[j]) != NIL)
			j = pp_js_tok_match(&c->t[j]);
	return j < c->n && pp_js_tok_match(&c->t[j]) != NIL ? j : NIL;
}

/* Whether token I is an assignment other than "=": += -= *= /= %= **=
 * <<= >>= >>>= &= |= ^= (not ||= &&= ??=, which name as "=" does). */
static bool compound_assign(const struct ctx *c, size_t i)
{
	const struct pp_js_tok *t = &c->t[i];
	size_t n = pp_js_tok_len(t);
	if (pp_js_tok_kind(t) != PP_JS_PUNCT || n < 2 || c->s[t->off + n - 1] != '=')
		return false;
	return !(is(c, i, "==") || is(c, i, "===") || is(c, i, "!=") || is(c, i, "!==") ||
		 is(c, i, "<=") || is(c, i, ">=") || is(c, i, "||=") || is(c, i, "&&=") ||
		 is(c, i, "?\?="));
}

/* Whether the right side of the assignment at token I is a call, or a
 * new, and nothing more (x = a.b(c), new X(): not f() + 1): the ')' that
 * ends it, else NIL. */
static size_t rhs_call(const struct ctx *c, size_t i)
{
	size_t j = i + 1;
	if (is(c, j, "new"))
		j++;
	size_t k = NIL;
	for (size_t steps = 0; j < c->n && steps < 64; steps++) {
		if (kind(c, j, PP_JS_IDENT) || kind(c, j, PP_JS_PRIVATE)) {
			j++;
		} else if ((is(c, j, ".") || is(c, j, "?.")) && k == NIL) {
			j++;
		} else if (is(c, j, "(") && pp_js_tok_match(&c->t[j]) != NIL && j > i + 1) {
			k = pp_js_tok_match(&c->t[j]);
			j = k + 1;
			if (!(is(c, j, "(") || is(c, j, ".") || is(c, j, "?.")))
				break;
			k = NIL; /* f()(), f().g(): on */
		} else {
			return NIL;
		}
	}
	if (k == NIL)
		return NIL;
	if (j >= c->n || !kind(c, j, PP_JS_PUNCT))
		return k; /* the text's end, or a statement after it */
	return is(c, j, ";") || is(c, j, ",") || is(c, j, ")") || is(c, j, "]") || is(c, j, "}")
		       ? k
		       : NIL;
}

/* The last token of the right side of the assignment at token I: up to
 * a ';', a ',' or a closing bracket outside its own brackets; NIL when
 * not found within 256 tokens. */
static size_t rhs_end(const struct ctx *c, size_t i)
{
	size_t j = i + 1;
	for (size_t steps = 0; j < c->n && steps < 256; steps++) {
		uint32_t m = pp_js_tok_match(&c->t[j]);
		if (m != NIL && m > j) {
			j = m + 1;
			continue;
		}
		if (is(c, j, ";") || is(c, j, ",") || is(c, j, ")") || is(c, j, "]") ||
		    is(c, j, "}"))
			return j > i + 1 ? j - 1 : NIL;
		j++;
	}
	return NIL;
}

/*
 * What V8's function name inference makes of function F, parsing on from
 * its last token E to the end of the expression bound at token EQ (the
 * "="): whether it still holds F when that binding names the functions it
 * collected (node --cpu-prof: const h = [(e) => { S() }, (e) => { S() },
 * (e) => 1] names only the last h).  V8 collects each function literal when it ends; a
 * call, when its arguments end, drops the last one collected (so an
 * argument is anonymous), as x += does; an assignment or a declaration
 * names all those collected by its own target (const q = [() => S(), ()
 * => { let z = 1 }] names the first z).  An arrow's body is parsed in the
 * same inference; a function's or a method's body, or a class's, in its
 * own.  NIL: F holds; 0: it is dropped; else the "=" whose target names it.
 * Past 1024 tokens, F is taken to hold (a text of 10^5 functions in one
 * array is not 10^10 steps).
 */
static size_t survives(const struct ctx *c, size_t eq, size_t e)
{
	/* what ends where, under way: a call's ')' drops the last function,
	 * an arrow's last token adds one, an assignment's right side (EQ:
	 * its "=") names them or, when a call, drops one */
	enum { DEPTH = 64 };
	struct {
		size_t at, eq;
		bool add;
	} ends[DEPTH];
	size_t nends = 0, after = 0; /* functions collected after F, held */
#define END_AT(a, q, d)                                                              \
	do {                                                                         \
		if (nends == DEPTH)                                                  \
			return NIL;                                                  \
		ends[nends].at = (a), ends[nends].eq = (q), ends[nends++].add = (d); \
	} while (0)
	size_t i = e + 1;
	for (size_t steps = 0; i < c->n && steps < 1024; steps++, i++) {
		uint32_t m = pp_js_tok_match(&c->t[i]);
		if (m != NIL && m < i && (nends == 0 || ends[nends - 1].at != i)) {
			/* a bracket that opened before: one around F, between
			 * the "=" and it (an array, a group), or the end */
			if (m < eq)
				return NIL;
			continue;
		}
		if (nends == 0 && (is(c, i, ";") || is(c, i, "}")))
			return NIL;
		if (nends == 0 && is(c, i, ",")) {
			size_t in = pp_jsf_container(c, i);
			if (in == NIL || in < eq)
				return NIL; /* the binding's own list, or a sequence */
		}
		if (is(c, i, "=")) {
			/* when its right side ends: x = f(…) drops the last
			 * function, as the call did (const days = dayDiff(a,
			 * b)); else the target names them all */
			size_t k = rhs_call(c, i);
			size_t r = k != NIL ? k : rhs_end(c, i);
			if (r == NIL)
				return NIL;
			END_AT(r, k != NIL ? NIL : i, false);
			continue;
		}
		if (compound_assign(c, i)) {
			/* x += … drops the last function, as a call does */
			if (!after)
				return 0;
			after--;
			continue;
		}
		if (is(c, i, "function") && !(i > 0 && is(c, i - 1, "."))) {
			/* a function expression: collected, its body apart */
			size_t j = i + 1;
			while (j < c->n && !is(c, j, "(") && j < i + 64)
				j++;
			uint32_t pm = j < c->n ? pp_js_tok_match(&c->t[j]) : NIL;
			size_t b = pm != NIL && pm > j ? pp_jsf_after_params(c, pm, false) : NIL;
			if (b == NIL || pp_js_tok_match(&c->t[b]) == NIL)
				return NIL; /* not followed: taken to hold */
			i = pp_js_tok_match(&c->t[b]);
			after++;
			goto ended;
		}
		if (is(c, i, "class") && !(i > 0 && is(c, i - 1, "."))) {
			size_t o = pp_jsf_class_open(c, i);
			if (o == NIL)
				return NIL;
			i = pp_js_tok_match(&c->t[o]);
			goto ended;
		}
		if (is(c, i, "(") && m != NIL && i > 0 &&
		    ((kind(c, i - 1, PP_JS_IDENT) &&
		      (!pp_jsf_not_key(c, i - 1) || is(c, i - 1, "super"))) ||
		     is(c, i - 1, ")") || is(c, i - 1, "]") || is(c, i - 1, "?.") ||
		     kind(c, i - 1, PP_JS_PRIVATE))) {
			/* a method's body (m(a) {): its own; x?.() is a call */
			size_t b = pp_jsf_after_params(c, m, false);
			if (b != NIL && pp_js_tok_match(&c->t[b]) != NIL) {
				i = pp_js_tok_match(&c->t[b]);
				goto ended;
			}
			/* an async arrow's parameters, not a call (in
			 * TypeScript, c ? w() : (s) => 1 is a call too) */
			if (is(c, i - 1, "async") && pp_jsf_after_params(c, m, true) != NIL)
				continue;
			END_AT(m, NIL, false);
			continue;
		}
		if (is(c, i, "=>") && i + 1 < c->n) {
			size_t end = is(c, i + 1, "{") && pp_js_tok_match(&c->t[i + 1]) != NIL
					     ? pp_js_tok_match(&c->t[i + 1])
					     : concise_end(c, i + 1);
			END_AT(end, NIL, true);
			continue;
		}
	ended:
		/* the calls and arrows that end here, the innermost first */
		while (nends && ends[nends - 1].at == i) {
			nends--;
			if (ends[nends].add)
				after++;
			else if (ends[nends].eq != NIL)
				return ends[nends].eq; /* named by that target */
			else if (after)
				after--;
			else
				return 0; /* F dropped by a call */
		}
	}
#undef END_AT
	return NIL;
}

/* Whether token B ends a JSX element's markup as the tokenizer writes it:
 * a string token (which JavaScript never has before "{"), or the '}' of a
 * container right after one. */
static bool after_markup(const struct ctx *c, size_t b)
{
	size_t p = opener(c, b);
	if (p != NIL) {
		if (p == 0 || !is(c, p, "{"))
			return false;
		b = p - 1;
	}
	return kind(c, b, PP_JS_STRING);
}

/* Whether the '{' at O is a JSX attribute's container, name={...}: the
 * tokenizer makes the name one token and the '=' another, after the tag's
 * markup (a string token) or another attribute's container (in
 * JavaScript, x = { function() {} } is an object literal). */
static bool jsx_attr_open(const struct ctx *c, size_t o)
{
	if (o < 3 || !is(c, o, "{") || !is(c, o - 1, "=") || !kind(c, o - 2, PP_JS_IDENT))
		return false;
	/* or after another attribute's container */
	size_t p = is(c, o - 3, "}") ? opener(c, o - 3) : NIL;
	return after_markup(c, o - 3) || (p != NIL && p > 0 && is(c, p - 1, "="));
}

/*
 * The binding of a function expression whose first token is H and last E
 * (NIL when not known): what it is assigned to (x = , a.b.c = ,
 * const x: T = , through the expressions of through_operators()), or the
 * key of an object literal property (k: ).  Sets F's name_tok, chain and
 * this_chain.
 */
void pp_jsf_binding(const struct ctx *c, size_t h, size_t e, struct pp_js_func *f)
{
	if (h == 0 || called_after(c, e))
		return;
	/* name={function}, a JSX attribute's whole value (the tokenizer
	 * makes it these tokens, after the tag's markup or another
	 * attribute's container; in JavaScript, x = { function() {} } is an
	 * object with a method named function): compiled, {name: function},
	 * V8's name */
	if (h >= 1 && e != NIL && pp_js_tok_match(&c->t[h - 1]) == e + 1 && jsx_attr_open(c, h - 1)) {
		f->name_tok = f->chain = (uint32_t)(h - 3);
		f->jsx_attr = true;
		return;
	}
	/* {function} among a JSX element's children: after the element's
	 * markup or after another container there */
	if (h >= 2 && e != NIL && is(c, h - 1, "{") && pp_js_tok_match(&c->t[h - 1]) == e + 1 &&
	    after_markup(c, h - 2)) {
		f->jsx_child = true;
		return;
	}
	size_t h0 = h;
	h = through_operators(c, h);
	size_t p = h - 1;
	/* only parentheses between the binding and F (x = (f)), and F a
	 * function V8 takes to be called at once for the '(' before it
	 * ("(function", "(async function"): V8 gives such a function no
	 * inferred name, only the one the binding itself gives (x =
	 * (function () {}) and {k: (function () {})} are x and k; a.b =
	 * (function () {}), x = c ? (function () {}) : g, x = a ||
	 * (function () {}) anonymous, checked with node --cpu-prof) */
	bool parens = true;
	for (size_t g = h; g < h0; g++)
		if (!is(c, g, "("))
			parens = false;
	bool eager = h0 > 0 && is(c, h0 - 1, "(") && function_keyword(c, h0);
	if (eager && !parens)
		return;
	/* through an operator to an object's key, a name V8 infers: the
	 * key's '{' asked now, while the walk's answer is remembered
	 * (survives() asks of a later token) */
	bool inferred = h != h0 && !parens;
	size_t kf = key_first(c, p);
	size_t kin = kf != NIL && inferred ? pp_jsf_container(c, kf) : NIL;
	/* through an array or a conditional: named only if V8's inference
	 * still holds it when the expression ends, or by the target of an
	 * assignment on the way */
	size_t sv = h != h0 && e != NIL && p > 0 ? survives(c, p, e) : NIL;
	if (sv == 0)
		return;
	if (sv != NIL)
		p = sv;
	/* x = function, x ||= () => (or through the expressions above) */
	if (is(c, p, "=") || is(c, p, "||=") || is(c, p, "&&=") || is(c, p, "?\?=")) {
		if (p == 0)
			return;
		size_t q = p - 1;
		/* [k] = in a class body: a field's computed key, named by
		 * the class (computed_member()) */
		if (is(c, q, "]") && opener(c, q) != NIL &&
		    pp_jsf_class_body(c, pp_jsf_container(c, opener(c, q))))
			return;
		/* a[k] = (a computed member), else const x: Type = ...: back
		 * over the type to "x :" */
		size_t keyed = is(c, q, "]") ? pp_jsf_member_chain(c, q) : NIL;
		bool pattern = keyed == NIL && pattern_binding(c, q);
		/* {k: v = a || function () {}}: V8 says k.v (an inferred
		 * name, not the binding's): none here; {k: v = (() => 1)}
		 * is v */
		for (size_t g = h; pattern && g < h0; g++)
			if (!is(c, g, "("))
				return;
		/* x: T = is a type, back over it to x; in JavaScript, which
		 * has none, lbl: x =, case a: x =, c ? a : x = are x */
		bool ident = kind(c, q, PP_JS_IDENT) || kind(c, q, PP_JS_PRIVATE);
		if (keyed == NIL && !pattern && !(ident && c->js) &&
		    (!ident || (q > 0 && (is(c, q - 1, ":") || is(c, q - 1, "=>") ||
					  is(c, q - 1, "|") || is(c, q - 1, "&"))))) {
			size_t k = back_to(c, q, colon);
			if (k == NIL)
				return;
			q = k - 1;
			if (is(c, q, "?") && q > 0)
				q--;
			if (!(kind(c, q, PP_JS_IDENT) || kind(c, q, PP_JS_PRIVATE)))
				return;
		}
		size_t first = keyed != NIL ? keyed : pp_jsf_member_chain(c, q);
		if (first == NIL) {
			if (is(c, q, "]"))
				return;
			first = q;
		}
		/* a.b = c.d = function: V8 names it by every member target of
		 * the assignments, outer first (a.b.c.d); a plain variable
		 * ends them (x = a.b = f is a.b), as does this.x (this.z =
		 * a.y = f is z.a.y) */
		if (is(c, p, "=") && first != q && dotted(c, first, q) && !is(c, first, "this")) {
			while (first >= 2 && is(c, first - 1, "=") &&
			       kind(c, first - 2, PP_JS_IDENT)) {
				size_t o = pp_jsf_member_chain(c, first - 2);
				if (o == NIL || o == first - 2 || !dotted(c, o, first - 2))
					break;
				first = o;
				if (is(c, o, "this"))
					break;
			}
		}
		if (eager && (first != q || keyed != NIL))
			return; /* a member: a name V8 infers */
		f->name_tok = (uint32_t)q;
		f->chain = (uint32_t)first;
		f->pattern = pattern;
		if (f->chain != f->name_tok && is(c, f->chain, "this"))
			f->this_chain = true;
		return;
	}
	if (kf != NIL) {
		/* {k: f} and {k: (f)} are k; {k: c ? f : g}, {k: a || f}
		 * V8's inferred name, by what it holds before the object and
		 * the key (const o = {k: a || f} is o.k), as an array's
		 * element ({k: [f]}); {[k]: c ? f : g} by the object's
		 * binding alone ({[k]: f}: computed_member()) */
		bool computed = is(c, kf, "[");
		if (inferred) {
			if (kin == NIL || !object_open(c, kin, 8))
				return;
			if (computed) {
				f->ctx = (uint32_t)kin;
				return;
			}
			f->arr_obj = (uint32_t)kin;
		}
		if (!computed)
			f->name_tok = f->chain = (uint32_t)kf;
		return;
	}
	if (is(c, p, "default") && p >= 1 && is(c, p - 1, "export")) {
		f->name_tok = f->chain = (uint32_t)p;
		return;
	}
}

/* For a function bound by export const NAME = (let, var) directly in a
 * TypeScript namespace's body (namespace A.B { }: B): F->ns set to the
 * namespace's name.  TypeScript, esbuild and the others make it A.B.NAME
 * = , B.NAME = inside their function for B, and V8 says B.NAME. */
static void namespace_member(const struct ctx *c, struct pp_js_func *f)
{
	size_t q = f->name_tok;
	if (q == NIL || f->chain != q || q < 2 || !is(c, q - 2, "export") ||
	    !(is(c, q - 1, "const") || is(c, q - 1, "let") || is(c, q - 1, "var")))
		return;
	size_t open = pp_jsf_container(c, q - 2);
	if (open == NIL || open < 2 || !is(c, open, "{") || !kind(c, open - 1, PP_JS_IDENT))
		return;
	size_t k = open - 1;
	while (k >= 2 && is(c, k - 1, ".") && kind(c, k - 2, PP_JS_IDENT))
		k -= 2;
	if (k > 0 && (is(c, k - 1, "namespace") || is(c, k - 1, "module")))
		f->ns = (uint32_t)(open - 1);
}

/* A function that is an argument of new X(...) where that expression is a
 * class field's value or an object literal's property's: V8 names it as
 * the field or the property (class K { ready = new Promise((r) => ...) }
 * is ready, const state = {init: new P(() => ...)} state.init, return {p:
 * new P(() => ...)} p): it infers a name for what new's arguments hold as
 * for the value itself.  A call after it (in a later argument, or on the
 * new expression) or around it drops it, as does a variable or an
 * assignment whose value is the new expression itself (const x = new
 * P(() => 1) is anonymous).  In a class expression bound to a variable,
 * the variable comes first (var Conn = class { ready = ... } is
 * Conn.ready).  Where the object or the class is not bound so simply, or
 * the object is nested, nothing is said.  H and E: F's first and last
 * tokens. */
static void new_argument(const struct ctx *c, size_t h, size_t e, struct pp_js_func *f)
{
	if (h == 0 || e == NIL || e + 1 >= c->n || !(is(c, e + 1, ")") || is(c, e + 1, ",")))
		return;
	size_t open = h - 1;
	if (!is(c, open, "("))
		open = is(c, open, ",") ? pp_jsf_container(c, open) : NIL;
	uint32_t close = open != NIL ? pp_js_tok_match(&c->t[open]) : NIL;
	if (open == NIL || open == 0 || close == NIL || close <= e || !is(c, open, "("))
		return;
	size_t k = open - 1;
	if (!c->js && pp_jsf_type_close(c, k)) { /* new Promise<number>( */
		size_t lt = pp_jsf_type_params_open(c, k);
		if (lt == NIL || lt == 0)
			return;
		k = lt - 1;
	}
	if (!kind(c, k, PP_JS_IDENT))
		return;
	while (k >= 2 && is(c, k - 1, ".") && kind(c, k - 2, PP_JS_IDENT))
		k -= 2;
	if (k == 0 || !is(c, k - 1, "new"))
		return;
	/* the arguments after it: no call, which would drop it, nor
	 * anything that may hold one */
	for (size_t j = e + 1; j < close; j++)
		if (is(c, j, "(") || is(c, j, "=>") || is(c, j, "function") || is(c, j, "class") ||
		    kind(c, j, PP_JS_TEMPLATE))
			return;
	e = close - 1;
	/* the value ends with the new expression */
	size_t after = e + 2;
	if (after < c->n && !is(c, after, ";") && !is(c, after, ",") && !is(c, after, "}"))
		return;
	struct pp_js_func b = no_func;
	pp_jsf_binding(c, k - 1, e + 1, &b);
	if (b.name_tok == NIL || b.chain != b.name_tok || b.pattern)
		return;
	size_t in = pp_jsf_container(c, b.name_tok);
	if (in == NIL || !is(c, in, "{"))
		return;
	size_t kw = pp_jsf_class_of(c, in);
	if (kw != NIL) {
		/* the field's own name (x = y = new P() is no field y) */
		size_t fs = b.name_tok - 1;
		while (fs > in &&
		       (is(c, fs, "static") || is(c, fs, "readonly") || is(c, fs, "private") ||
			is(c, fs, "public") || is(c, fs, "protected") || is(c, fs, "override") ||
			is(c, fs, "declare") || is(c, fs, "accessor")))
			fs--;
		if (!(is(c, fs, "{") || is(c, fs, ";") || is(c, fs, "}")))
			return;
		/* a field: of a class expression bound to a variable, V8
		 * puts the variable first (var Conn = class { ready = new
		 * P(() => ) } is Conn.ready, whatever the class's own name) */
		size_t q = kw > 0 ? kw - 1 : NIL;
		bool expr = q != NIL &&
			    (is(c, q, "=") || is(c, q, ":") || is(c, q, "(") || is(c, q, ",") ||
			     is(c, q, "[") || is(c, q, "?") || is(c, q, "return") ||
			     is(c, q, "=>") || is(c, q, "||") || is(c, q, "&&") || is(c, q, "??"));
		struct pp_js_func cb = no_func;
		if (expr) {
			/* only x = class, const x = class: a.b = class is
			 * a.b.ready, {K: class} o.K.ready, not read here */
			if (!is(c, q, "="))
				return;
			pp_jsf_binding(c, kw, pp_js_tok_match(&c->t[in]), &cb);
			if (cb.name_tok == NIL || cb.chain != cb.name_tok || cb.pattern ||
			    !kind(c, cb.name_tok, PP_JS_IDENT))
				return;
			f->ns = cb.name_tok;
		}
		f->name_tok = f->chain = b.name_tok;
		f->inferred = true;
		return;
	}
	if (!is(c, b.name_tok + 1, ":") || in == 0)
		return;
	/* a property: of an object bound to a variable (const x = {, const
	 * x: T = {), or returned */
	if (is(c, in - 1, "return")) {
		f->name_tok = f->chain = b.name_tok;
		f->inferred = true;
		return;
	}
	size_t v = NIL;
	if (in >= 3 && is(c, in - 1, "=") && kind(c, in - 2, PP_JS_IDENT))
		v = in - 2;
	if (v != NIL && v >= 2 && is(c, v - 1, ":") && kind(c, v - 2, PP_JS_IDENT) && !c->js)
		v = v - 2;
	if (v == NIL || v == 0 ||
	    !(is(c, v - 1, "const") || is(c, v - 1, "let") || is(c, v - 1, "var")))
		return;
	/* export const st = { in a TypeScript namespace runs as NS.st = {:
	 * NS.st.a, not read here */
	struct pp_js_func nsf = no_func;
	nsf.name_tok = nsf.chain = (uint32_t)v;
	namespace_member(c, &nsf);
	if (nsf.ns != NIL)
		return;
	f->name_tok = f->chain = b.name_tok;
	f->ns = (uint32_t)v;
	f->inferred = true;
}

/* The member with a computed key that function F is the value of, when it
 * is one: F->ctx set to the '{' that holds its key.  H is F's first
 * token: [k]: () => 1 in an object literal, [k] = () => 1 (a class field,
 * static or not). */
static void computed_member(const struct ctx *c, size_t h, struct pp_js_func *f)
{
	if (h < 2 || !is(c, h - 2, "]"))
		return;
	size_t o = opener(c, h - 2);
	if (o == NIL || o == 0)
		return;
	size_t in = pp_jsf_container(c, o);
	if (in == NIL || !is(c, in, "{"))
		return;
	if (is(c, h - 1, ":") && (is(c, o - 1, "{") || is(c, o - 1, ",")) &&
	    !pp_jsf_class_body(c, in))
		f->ctx = (uint32_t)in;
	else if (is(c, h - 1, "=") && pp_jsf_class_body(c, in) &&
		 (is(c, o - 1, "{") || is(c, o - 1, ";") || is(c, o - 1, "}") ||
		  is(c, o - 1, "static")))
		f->ctx = (uint32_t)in;
}

/*
 * An anonymous function that is an element of an array literal that is an
 * object literal's property's value: V8 names it by the object's binding
 * and the key (const routes = {list: [() => 1, function () {}]} names
 * both routes.list; return {items: [() => 1]}, items), where its
 * inference still holds it when the value ends (survives()).  H and E:
 * F's first and last tokens.
 */
static void array_key(const struct ctx *c, size_t h, size_t e, struct pp_js_func *f)
{
	if (h < 4 || e == NIL)
		return;
	size_t arr = is(c, h - 1, "[")   ? h - 1
		     : is(c, h - 1, ",") ? pp_jsf_container(c, h - 1)
					 : NIL;
	if (arr == NIL || arr < 3 || !is(c, arr, "[") || !is(c, arr - 1, ":"))
		return;
	uint32_t close = pp_js_tok_match(&c->t[arr]);
	if (close == NIL || close <= e || called_after(c, close))
		return;
	size_t key = arr - 2;
	if (!(kind(c, key, PP_JS_IDENT) || kind(c, key, PP_JS_STRING) ||
	      kind(c, key, PP_JS_NUMBER)) ||
	    !(is(c, key - 1, "{") || is(c, key - 1, ",")))
		return;
	size_t in = pp_jsf_container(c, key);
	if (in == NIL || !is(c, in, "{") || pp_jsf_class_body(c, in))
		return;
	/* the value is the array alone */
	if (close + 1 < c->n && !is(c, close + 1, ",") && !is(c, close + 1, "}"))
		return;
	if (survives(c, arr - 1, e) != NIL)
		return;
	f->name_tok = f->chain = (uint32_t)key;
	f->arr_obj = (uint32_t)in;
}

static int add(struct pp_js_funcs *fs, const struct pp_js_func *f)
{
	if (fs->n == fs->cap) {
		size_t cap = fs->cap ? fs->cap * 2 : 64;
		struct pp_js_func *nf = realloc(fs->f, cap * sizeof(*nf));
		if (!nf)
			return -1;
		fs->f = nf;
		fs->cap = cap;
	}
	fs->f[fs->n++] = *f;
	return 0;
}

/* The class whose "class" keyword is token I: its body's '{' as
 * pp_jsf_class_open(); B's name_tok set to its own name, else (a class
 * expression) B's binding set by pp_jsf_binding(). */
size_t pp_jsf_class_head(const struct ctx *c, size_t i, struct pp_js_func *b)
{
	if (kind(c, i + 1, PP_JS_IDENT) && !is(c, i + 1, "extends") && !is(c, i + 1, "implements"))
		b->name_tok = b->chain = (uint32_t)(i + 1);
	else
		pp_jsf_binding(c, i, NIL, b);
	return pp_jsf_class_open(c, i);
}

struct cls {
	uint32_t open, close, name;
	uint32_t chain; /* the binding's first token (= name when one) */
	bool this_chain;
	uint32_t order; /* found as the ORDER-th class */
};

static int cmp_start(const void *a, const void *b)
{
	const struct pp_js_func *x = a, *y = b;
	return x->start < y->start ? -1 : x->start > y->start;
}

/* Classes by the token of their body's '{' (they nest: matched braces),
 * the earlier found first among equals. */
static int cmp_open(const void *a, const void *b)
{
	const struct cls *x = a, *y = b;
	if (x->open != y->open)
		return x->open < y->open ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

/* Whether token I is a word TypeScript puts before a class member's or a
 * parameter property's name: public private protected readonly static
 * declare abstract override accessor. */
bool pp_jsf_member_modifier(const struct ctx *c, size_t i)
{
	static const char *const w[] = {"public",  "private",  "protected", "readonly", "static",
					"declare", "abstract", "override",  "accessor", NULL};
	return kind(c, i, PP_JS_IDENT) && is_any(c, i, w);
}

/* Whether K, a word that is a member's key nowhere else (pp_jsf_not_key():
 * catch, return, delete, new...), is one here: first in a member of a
 * class body or an object literal, after its modifiers (a Promise-like
 * class's catch(f) {}, an iterator's return() {}, a client's delete(id)
 * {}); not } catch (e) { in a block. */
static bool keyword_key(const struct ctx *c, size_t k)
{
	/* function() {} and class() {} as keys are left to what reads
	 * "function" and "class" (an anonymous function, no class) */
	if (is(c, k, "function") || is(c, k, "class"))
		return false;
	size_t b = k;
	while (b > 0 && (pp_jsf_member_modifier(c, b - 1) || is(c, b - 1, "async") ||
			 is(c, b - 1, "get") || is(c, b - 1, "set") || is(c, b - 1, "*")))
		b--;
	if (b == 0)
		return false;
	b--;
	bool sep = is(c, b, "{") || is(c, b, ",");
	if (!(sep || is(c, b, "}") || is(c, b, ";")))
		return false;
	size_t in = pp_jsf_container(c, k);
	if (in == NIL || !is(c, in, "{"))
		return false;
	if (pp_jsf_class_body(c, in))
		return !is(c, b, ",");
	return sep && object_open(c, in, 8) && !jsx_attr_open(c, in);
}

/* The first bytes of the tokens that may start something: "class",
 * "function", "=>", "(" (and whatever else starts with them) */
static const bool may_start[256] = {['c'] = true, ['f'] = true, ['='] = true, ['('] = true};

int pp_js_functions(const char *text, const struct pp_js_toks *v, struct pp_js_funcs *out)
{
	return pp_js_functions_in(text, v, false, out);
}

int pp_js_functions_in(const char *text, const struct pp_js_toks *v, bool js,
		       struct pp_js_funcs *out)
{
	struct cont last = {NIL, NIL};
	struct ctx c = {text, v->t, v->n, &last, js};
	struct cls *classes = NULL;
	size_t ncls = 0, ccap = 0, *fstack = NULL, *cstack = NULL;
	memset(out, 0, sizeof(*out));

	for (size_t i = 0; i < c.n; i++) {
		/* only "class", "function", "=>" and "(" start anything: most
		 * tokens leave by their kind and first byte */
		unsigned char ch = (unsigned char)text[c.t[i].off];
		if (!may_start[ch] || (pp_js_tok_kind(&c.t[i]) != PP_JS_IDENT &&
				       pp_js_tok_kind(&c.t[i]) != PP_JS_PUNCT))
			continue;
		struct pp_js_func f = no_func;
		bool dot_before = i > 0 && (is(&c, i - 1, ".") || is(&c, i - 1, "?."));

		if (is(&c, i, "class") && !dot_before) {
			struct pp_js_func b = f;
			size_t j = pp_jsf_class_head(&c, i, &b);
			uint32_t name = b.name_tok;
			uint32_t chain = b.chain != NIL ? b.chain : name;
			if (j != NIL) {
				if (ncls == ccap) {
					size_t cap = ccap ? ccap * 2 : 16;
					struct cls *nc = realloc(classes, cap * sizeof(*nc));
					if (!nc)
						goto fail;
					classes = nc;
					ccap = cap;
				}
				classes[ncls] = (struct cls){(uint32_t)j,  pp_js_tok_match(&c.t[j]),
							     name,         chain,
							     b.this_chain, (uint32_t)ncls};
				ncls++;
			}
			continue;
		}
		if (is(&c, i, "function") && !dot_before) {
			size_t j = i + 1;
			f.head = (uint32_t)(i > 0 && is(&c, i - 1, "async") ? i - 1 : i);
			if (is(&c, j, "*"))
				j++;
			bool named = kind(&c, j, PP_JS_IDENT);
			size_t name_at = j;
			if (named)
				j++;
			if (is(&c, j, "<")) { /* type parameters */
				int d = 0;
				for (; j < c.n; j++) {
					if (is(&c, j, "<"))
						d++;
					else if (is(&c, j, ">") && --d == 0)
						break;
					else if (is(&c, j, ">>"))
						d -= 2;
					else if (is(&c, j, ">>>"))
						d -= 3;
					if (d <= 0 && !is(&c, j, "<"))
						break;
				}
				j++;
			}
			if (!is(&c, j, "(") || pp_js_tok_match(&c.t[j]) == NIL)
				continue;
			size_t b = pp_jsf_after_params(&c, pp_js_tok_match(&c.t[j]), false);
			if (b == NIL || pp_js_tok_match(&c.t[b]) == NIL)
				continue;
			f.start = (uint32_t)j;
			f.open = (uint32_t)b;
			f.close = pp_js_tok_match(&c.t[b]);
			if (named)
				f.name_tok = f.chain = (uint32_t)name_at;
			else
				pp_jsf_binding(&c, f.head, f.close, &f);
			if (f.name_tok == NIL)
				new_argument(&c, f.head, f.close, &f);
			if (f.name_tok == NIL)
				array_key(&c, f.head, f.close, &f);
			if (f.name_tok == NIL)
				computed_member(&c, f.head, &f);
			else if (f.ns == NIL)
				namespace_member(&c, &f);
			if (add(out, &f))
				goto fail;
			continue;
		}
		if (is(&c, i, "=>")) {
			size_t p = arrow_params(&c, i);
			if (p == NIL || pp_jsf_arrow_type(&c, p))
				continue;
			f.start = f.head = (uint32_t)p;
			if (p > 0 && is(&c, p - 1, "async") &&
			    !(kind(&c, p, PP_JS_IDENT) && is(&c, p, "async")))
				f.start = f.head = (uint32_t)(p - 1);
			if (p > 1 && pp_jsf_type_close(&c, p - 1)) {
				/* <T,>(a: T) => (TypeScript): its type parameters
				 * are its head, bound as the arrow is */
				size_t k = pp_jsf_type_params_open(&c, p - 1);
				if (k != NIL)
					f.head = (uint32_t)(k > 0 && is(&c, k - 1, "async") ? k - 1
											    : k);
			}
			if (i + 1 >= c.n)
				continue;
			if (is(&c, i + 1, "{") && pp_js_tok_match(&c.t[i + 1]) != NIL) {
				f.open = (uint32_t)(i + 1);
				f.close = pp_js_tok_match(&c.t[i + 1]);
			} else {
				f.open = (uint32_t)(i + 1);
				f.close = (uint32_t)concise_end(&c, i + 1);
			}
			pp_jsf_binding(&c, f.head, f.close, &f);
			if (f.name_tok == NIL)
				new_argument(&c, f.head, f.close, &f);
			if (f.name_tok == NIL)
				array_key(&c, f.head, f.close, &f);
			if (f.name_tok == NIL)
				computed_member(&c, f.head, &f);
			else if (f.ns == NIL)
				namespace_member(&c, &f);
			if (add(out, &f))
				goto fail;
			continue;
		}
		if (is(&c, i, "(") && i > 0 && pp_js_tok_match(&c.t[i]) != NIL) {
			/* a method: KEY ( ... ) [: T] { */
			size_t k = i - 1;
			if (pp_jsf_type_close(&c, k)) { /* m<T>( */
				size_t lt = pp_jsf_type_params_open(&c, k);
				if (lt == NIL || lt == 0)
					continue;
				k = lt - 1;
			}
			size_t key = k;
			if (is(&c, k, "]") && pp_js_tok_match(&c.t[k]) != NIL)
				key = pp_js_tok_match(&c.t[k]);
			else if (!(kind(&c, k, PP_JS_IDENT) || kind(&c, k, PP_JS_STRING) ||
				   kind(&c, k, PP_JS_NUMBER) || kind(&c, k, PP_JS_PRIVATE)) ||
				 (pp_jsf_not_key(&c, k) && !keyword_key(&c, k)))
				continue;
			if (key > 0 && (is(&c, key - 1, ".") || is(&c, key - 1, "?.") ||
					is(&c, key - 1, "function") ||
					(key > 1 && is(&c, key - 1, "*") && is(&c, key - 2, "function"))))
				continue;
			size_t b = pp_jsf_after_params(&c, pp_js_tok_match(&c.t[i]), false);
			if (b == NIL || pp_js_tok_match(&c.t[b]) == NIL)
				continue;
			f.start = (uint32_t)i;
			f.head = (uint32_t)key;
			f.open = (uint32_t)b;
			f.close = pp_js_tok_match(&c.t[b]);
			if (key == k) {
				f.name_tok = f.chain = (uint32_t)k;
				if (key > 0 && (is(&c, key - 1, "get") || is(&c, key - 1, "set")) &&
				    !(key > 1 && is(&c, key - 2, ".")))
					f.prefix = is(&c, key - 1, "get") ? 1 : 2;
				if (is(&c, k, "constructor"))
					f.ctor = true;
			} else {
				/* [k]() {}: named by what holds it */
				size_t in = pp_jsf_container(&c, key);
				if (in != NIL && is(&c, in, "{"))
					f.ctx = (uint32_t)in;
			}
			if (add(out, &f))
				goto fail;
			continue;
		}
	}
	if (out->n)
		qsort(out->f, out->n, sizeof(*out->f), cmp_start);
	/* parents and classes: both nest, so the innermost container is
	 * the last one, in start order, that holds the token.  Found with a
	 * stack of the functions (and classes) before, from which those that
	 * end before the current start leave for good: a text of 10^5
	 * functions side by side is not 10^10 steps. */
	if (out->n) {
		if (out->n > SIZE_MAX / sizeof(*fstack) ||
		    !(fstack = malloc(out->n * sizeof(*fstack))))
			goto fail;
		if (ncls)
			qsort(classes, ncls, sizeof(*classes), cmp_open);
		if (ncls && !(cstack = malloc(ncls * sizeof(*cstack))))
			goto fail;
	}
	size_t nf = 0, nc = 0, nextc = 0;
	for (size_t i = 0; i < out->n; i++) {
		struct pp_js_func *f = &out->f[i];
		while (nf && out->f[fstack[nf - 1]].close < f->start)
			nf--;
		for (size_t k = nf; k-- > 0;) {
			const struct pp_js_func *g = &out->f[fstack[k]];
			if (g->open < f->start && f->start <= g->close) {
				f->parent = (uint32_t)fstack[k];
				break;
			}
		}
		fstack[nf++] = i;
		while (nextc < ncls && classes[nextc].open < f->start)
			cstack[nc++] = nextc++;
		while (nc && classes[cstack[nc - 1]].close <= f->start)
			nc--;
		for (size_t k = nc; k-- > 0;) {
			const struct cls *x = &classes[cstack[k]];
			if (x->open < f->start && f->start < x->close) {
				f->cls = x->name;
				f->cls_chain = x->chain;
				f->cls_this = x->this_chain;
				break;
			}
		}
		/* a member binding: the name of the function it is in, when
		 * that is one word (the parent comes first in start order) */
		bool member_cls = f->ctor && pp_js_cls_member(f);
		if (f->name_tok != NIL && (f->chain != f->name_tok || f->inferred || member_cls) &&
		    f->parent != NIL) {
			const struct pp_js_func *pf = &out->f[f->parent];
			/* a constructor's class, when declared or bound to a
			 * variable (not registry.D = class, this.K = class);
			 * exports.C = class is how minifiers write class C
			 * exported from CommonJS: declared */
			if (pf->ctor) {
				if (!pp_js_cls_member(pf) || is(&c, pf->cls_chain, "exports") ||
				    is(&c, pf->cls_chain, "module"))
					f->encl = pf->cls;
			} else if (pf->chain == pf->name_tok && !pf->prefix) {
				f->encl = pf->name_tok;
			}
		}
	}
	free(fstack);
	free(cstack);
	free(classes);
	return 0;
fail:
	free(fstack);
	free(cstack);
	free(classes);
	pp_js_funcs_release(out);
	return -1;
}

void pp_js_funcs_release(struct pp_js_funcs *fs)
{
	free(fs->f);
	memset(fs, 0, sizeof(*fs));
}

const struct pp_js_func *pp_js_func_starting(const struct pp_js_funcs *fs, uint32_t t)
{
	size_t lo = 0, hi = fs->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (fs->f[mid].start < t)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < fs->n && fs->f[lo].start == t ? &fs->f[lo] : NULL;
}

const struct pp_js_func *pp_js_func_holding(const struct pp_js_funcs *fs, uint32_t t)
{
	/* the last function starting before T; then out through parents */
	size_t lo = 0, hi = fs->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (fs->f[mid].start < t)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0)
		return NULL;
	const struct pp_js_func *f = &fs->f[lo - 1];
	for (size_t steps = 0; f && steps < fs->n; steps++) {
		bool block = f->close != f->open;
		if (block ? (f->open < t && t < f->close) : (f->open <= t && t <= f->close))
			return f;
		if (f->open <= t && t <= f->close) /* a concise body */
			return f;
		f = f->parent == NIL ? NULL : &fs->f[f->parent];
	}
	return NULL;
}
