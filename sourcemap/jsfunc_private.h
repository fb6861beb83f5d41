/*
 * jsfunc_private.h: what the function finder (jsfunc.c, its reading of
 * TypeScript's types in jstype.c) and the naming of what it found
 * (jsname.c) share: the tokens as both read them and the
 * finder's questions about a token's surroundings.  Private to
 * libsourcemap.
 */
#ifndef SMAP_JSFUNC_PRIVATE_H
#define SMAP_JSFUNC_PRIVATE_H

#include "jstoken.h"

#include <string.h>

#define NIL UINT32_MAX

/* pp_jsf_container()'s last answer: the token asked of and its open bracket */
struct cont {
	size_t q, in;
};

struct ctx {
	const char *s;
	const struct pp_js_tok *t;
	size_t n;
	struct cont *last; /* NULL: no memory of the last answer */
	bool js;           /* JavaScript: no type annotations */
};

/* A function of no tokens yet: nothing known of it */
static const struct pp_js_func no_func = {NIL, NIL,   NIL,   NIL,   NIL,   NIL,   NIL,
					  0,   false, false, false, false, false, NIL,
					  NIL, NIL,   NIL,   NIL,   NIL,   false, false};

/* pp_js_tok_is(), inlined: W is a literal, so its length is known */
static inline bool is(const struct ctx *c, size_t i, const char *w)
{
	if (i >= c->n || c->s[c->t[i].off] != w[0])
		return false;
	size_t n = strlen(w);
	return pp_js_tok_len(&c->t[i]) == n && memcmp(c->s + c->t[i].off, w, n) == 0;
}

/* Whether token I is one of the texts W (a list ending in NULL). */
static inline bool is_any(const struct ctx *c, size_t i, const char *const *w)
{
	for (; *w; w++)
		if (is(c, i, *w))
			return true;
	return false;
}

static inline bool kind(const struct ctx *c, size_t i, enum pp_js_kind k)
{
	return i < c->n && pp_js_tok_kind(&c->t[i]) == k;
}

/* Whether token I starts a function expression: "function", "async
 * function" ("(" before it: one V8 takes to be called at once) */
static inline bool function_keyword(const struct ctx *c, size_t i)
{
	return is(c, i, "function") || (is(c, i, "async") && is(c, i + 1, "function"));
}

/* Whether token K may close type parameters: ">", or ">>" and ">>>"
 * closing nested ones too (<V = Map<K, Array<number>>>). */
static inline bool pp_jsf_type_close(const struct ctx *c, size_t k)
{
	return is(c, k, ">") || is(c, k, ">>") || is(c, k, ">>>");
}

/* jstype.c: past a TypeScript return type after token I (the ')' of the
 * parameters): the body's '{' (ARROW: the "=>"), else NIL. */
size_t pp_jsf_after_params(const struct ctx *c, size_t i, bool arrow);
/* jstype.c: the "<" that opens the type parameters closed by token K, or
 * NIL. */
size_t pp_jsf_type_params_open(const struct ctx *c, size_t k);
/* jstype.c: whether the arrow whose parameters start at token P is a
 * function type, which defines no function. */
bool pp_jsf_arrow_type(const struct ctx *c, size_t p);
/* Whether the '(' at O opens what may be a parameter list: () or one
 * starting with "...", a word or a pattern, then ':', '?', ',', '=' or
 * its end (not a parenthesized type: ((a: T) => R)). */
bool pp_jsf_param_list(const struct ctx *c, size_t o);
/* jstype.c: whether the word before the "=>" at token I ends an arrow's
 * return type (TypeScript), not a lone parameter: (a): T =>, (a): p is
 * t.Node =>, (v): v is (...a: T[]) => R =>; not after a call's ':' nor a
 * conditional's (c ? f(a) : s => t, c ? (a) : p => v). */
bool pp_jsf_return_type_end(const struct ctx *c, size_t i);
/* jstype.c: the '(' of the parameters before the parenthesized return
 * type whose '(' is token O ((a): ((b: T) => R) =>), else NIL. */
size_t pp_jsf_params_before(const struct ctx *c, size_t o);
/* Whether the parentheses closed by token K are a call's arguments. */
bool pp_jsf_call_parens(const struct ctx *c, size_t k);
/* Whether token I is a class member's modifier (static, public, ...). */
bool pp_jsf_member_modifier(const struct ctx *c, size_t i);

/* Whether token I is a word that cannot be a method's key before "(". */
bool pp_jsf_not_key(const struct ctx *c, size_t i);
/* The first token of the member chain a.b.c (or this.a, a[k].b) that ends
 * at token Q, or NIL. */
size_t pp_jsf_member_chain(const struct ctx *c, size_t q);
/* The innermost bracket open around token I (4096 tokens back at most),
 * or NIL. */
size_t pp_jsf_container(const struct ctx *c, size_t i);
/* The "class" keyword of the class whose body's '{' is OPEN, or NIL. */
size_t pp_jsf_class_of(const struct ctx *c, size_t open);
/* Whether the '{' at I is a class body. */
bool pp_jsf_class_body(const struct ctx *c, size_t i);
/* The '{' of the body of the class whose "class" keyword is token I. */
size_t pp_jsf_class_open(const struct ctx *c, size_t i);
/* Sets F's naming tokens from the binding of the function (or class)
 * whose first token is H and last E (NIL: not known). */
void pp_jsf_binding(const struct ctx *c, size_t h, size_t e, struct pp_js_func *f);
/* The class whose "class" keyword is token I: its naming tokens in B;
 * the '{' of its body. */
size_t pp_jsf_class_head(const struct ctx *c, size_t i, struct pp_js_func *b);

#endif /* SMAP_JSFUNC_PRIVATE_H */
