/*
 * jstoken.h: the tokenizer of JavaScript/TypeScript, the table of the
 * functions a text defines and the positions of its bytes (jstoken.c,
 * jsfunc.c, jswalk.c).  Private to libsourcemap
 * (and its unit tests and fuzz harness).
 */
#ifndef SMAP_JSTOKEN_H
#define SMAP_JSTOKEN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum pp_js_kind {
	PP_JS_IDENT,    /* identifiers and keywords */
	PP_JS_PRIVATE,  /* #name */
	PP_JS_NUMBER,
	PP_JS_STRING,   /* with its quotes */
	PP_JS_TEMPLATE, /* a template piece: `...` or `...${ or }...${ or }...` */
	PP_JS_REGEX,
	PP_JS_PUNCT,
};

/* 8 bytes: a 5 MB bundle has 1.6 million tokens, and each page of the
 * array costs a fault.  LK holds the kind in its low 3 bits and the length
 * above them; a bracket is one byte long, so a bracket holds the index of
 * its partner there instead, under a kind of its own (PP_JS_BRACKET_).  A
 * token is shorter than 2^29 bytes and a text has fewer than 2^29 tokens,
 * since the tokenizer takes no text that long (V8 takes no string that
 * long either).  Read it with pp_js_tok_kind(), pp_js_tok_len() and
 * pp_js_tok_match(). */
struct pp_js_tok {
	uint32_t off; /* bytes */
	uint32_t lk;
};

/* The kind under which a bracket is kept (pp_js_tok_kind() says
 * PP_JS_PUNCT), and the partner of a bracket not (yet) closed. */
#define PP_JS_BRACKET_ 7u
#define PP_JS_NO_MATCH_ ((UINT32_C(1) << 29) - 1)

static inline enum pp_js_kind pp_js_tok_kind(const struct pp_js_tok *t)
{
	unsigned k = t->lk & 7u;
	return k == PP_JS_BRACKET_ ? PP_JS_PUNCT : (enum pp_js_kind)k;
}

/* bytes */
static inline size_t pp_js_tok_len(const struct pp_js_tok *t)
{
	return (t->lk & 7u) == PP_JS_BRACKET_ ? 1 : (size_t)(t->lk >> 3);
}

/* A bracket's partner, else UINT32_MAX. */
static inline uint32_t pp_js_tok_match(const struct pp_js_tok *t)
{
	uint32_t m = t->lk >> 3;
	return (t->lk & 7u) == PP_JS_BRACKET_ && m != PP_JS_NO_MATCH_ ? m : UINT32_MAX;
}

/* The longest text pp_js_tokenize() takes. */
#define PP_JS_MAX_TEXT (((size_t)1 << 29) - 1)

struct pp_js_toks {
	struct pp_js_tok *t;
	size_t n, cap;
	bool heap; /* T is in a struct pp_js_heap */
	bool jsx;  /* JSX elements were read (pp_js_tokenize_jsx()) */
};

/* Memory for the big arrays of a text (a 5 MB bundle has 1.6 million
 * tokens): from 2 MiB on, mapped on its own and asked to be backed by huge
 * pages where the system has them (madvise), so that filling it costs a
 * few page faults instead of thousands; smaller, malloc().  The size given
 * at allocation is passed back to grow and free it.  NULL when out of
 * memory (pp_js_big_realloc() then leaves P as it was). */
void *pp_js_big_alloc(size_t n);
void *pp_js_big_realloc(void *p, size_t old, size_t n);
void pp_js_big_free(void *p, size_t n);

/* A bump allocator over pp_js_big_alloc() blocks (32 MiB at least), for
 * the arrays of texts that live as long as their map: tokens, checkpoints,
 * decoded sourcesContent.  Nothing is freed but the whole.  Zeroed: empty. */
struct pp_js_heap_block;
struct pp_js_heap {
	struct pp_js_heap_block *head;
	char *at, *end; /* free in head */
	void *last;     /* the last allocation, for pp_js_heap_shrink() */
};
/* N bytes, 16-aligned, or NULL. */
void *pp_js_heap_alloc(struct pp_js_heap *h, size_t n);
/* P, the last allocation, now needs only N bytes: the rest is given back
 * (its pages were never touched when nothing was written there). */
void pp_js_heap_shrink(struct pp_js_heap *h, void *p, size_t n);
void pp_js_heap_release(struct pp_js_heap *h);

/* Tokenizes TEXT into V (pp_js_big_alloc()'d; release with pp_js_toks_release()).
 * Returns 0, or -1 when the text is not understood (V is then empty), is
 * longer than PP_JS_MAX_TEXT, or memory ran out. */
int pp_js_tokenize(const char *text, size_t len, struct pp_js_toks *v);
/* The same with the array in H (NULL: pp_js_tokenize()), sized once for the
 * most tokens TEXT can have and shrunk to those it has. */
int pp_js_tokenize_in(const char *text, size_t len, struct pp_js_toks *v, struct pp_js_heap *h);
/* The same, JSX too when JSX is set (a source that is not TypeScript
 * without it: .jsx, .tsx, .js); a text JSX does not make sense of is
 * tokenized again without. */
int pp_js_tokenize_jsx(const char *text, size_t len, bool jsx, struct pp_js_toks *v,
		       struct pp_js_heap *h);
/* The scripts of a single-file component (.vue, .svelte) TEXT, where
 * they are: OUT (LEN bytes) is TEXT with every byte outside the contents
 * of its <script> elements (each tag first on its line, as the top-level
 * blocks are) made a space, but line ends and the bytes of other
 * characters than ASCII, so that each position keeps its line and UTF-16
 * column. */
void pp_js_sfc_scripts(const char *text, size_t len, char *out);
void pp_js_toks_release(struct pp_js_toks *v);
/* Token T's text as a name part (jsname.c): a string key (or a computed
 * key's plain template) without its quotes, up to a NUL byte in it. */
void pp_js_tok_text(const char *text, const struct pp_js_tok *t, const char **s, size_t *n);
/* Whether token T is the text S. */
bool pp_js_tok_is(const char *text, const struct pp_js_tok *t, const char *s);
/* A walk over a text: at byte AT, on 0-based line LINE, UTF-16 column COL. */
struct pp_js_walk {
	size_t at;
	uint32_t line, col;
};
/* Walks W on in TEXT up to byte E (jswalk.c): a line ends at "\n", a lone
 * "\r", LS and PS; a 4-byte UTF-8 sequence is two UTF-16 units, any other
 * one.  The steps follow the lead bytes, so W may stop past E (E inside a
 * sequence), and a walk to E and on to a later E2 ends where a walk
 * straight to E2 does. */
void pp_js_walk_to(const char *text, size_t len, size_t e, struct pp_js_walk *w);
/* OUT[k] = the walk from the start of TEXT to the first byte of token
 * k * STEP of T (N tokens), for every such token in turn. */
void pp_js_walk_marks(const char *text, size_t len, const struct pp_js_tok *t, size_t n,
		      size_t step, struct pp_js_walk *out);

/* The index of the first token starting at or after byte OFF (V->n if none). */
size_t pp_js_tok_at(const struct pp_js_toks *v, size_t off);

/* A function the text defines. */
struct pp_js_func {
	uint32_t start;     /* token where V8 puts the function: the '(' of its
			     * parameters, a lone parameter, or "async" */
	uint32_t head;      /* its first token ("async", "function", the key) */
	uint32_t open;      /* the body's '{', or the first token of a concise body */
	uint32_t close;     /* the body's '}', or its last token */
	uint32_t name_tok;  /* the token that names it (own name, key, the last
			     * identifier of the binding), or UINT32_MAX */
	uint32_t chain;     /* first token of a binding a.b.c (= name_tok when one) */
	uint32_t parent;    /* innermost enclosing function, or UINT32_MAX */
	uint8_t prefix;     /* 0, 1 "get ", 2 "set " */
	bool ctor;          /* a class constructor: named by its class */
	bool this_chain;    /* the binding starts with "this." */
	bool pattern;       /* name_tok binds an object pattern's property,
			     * after its key and ':' ({format: e = () => 1}) */
	bool cls_this;      /* the enclosing class's binding starts with "this." */
	bool inferred;      /* named as V8 infers a name (what new's arguments
			     * hold): the enclosing function first, as for a
			     * member binding (encl) */
	uint32_t cls;       /* the enclosing class's naming token, or UINT32_MAX */
	uint32_t cls_chain; /* the first token of its binding a.b.C = class (=
			     * cls when one word; UINT32_MAX with cls) */
	/* for a member binding (a.b = , this.x = ): the token that names the
	 * function it is in (the class's for a constructor), whose name V8
	 * puts first when it looks like a constructor's (a capital first:
	 * function Foo () { this.x = function () {} } is Foo.x), or
	 * UINT32_MAX */
	uint32_t encl;
	/* for a member with a computed key ([k]() {}, [k]: () => 1, a class
	 * field [k] = () => 1): the '{' of the class body or object literal
	 * it is in, by whose binding V8 names it; else UINT32_MAX */
	uint32_t ctx;
	/* for an element of an array literal that is an object literal's
	 * property value ({list: [() => 1]}): the object's '{'; V8 names it
	 * by what its inferrer holds there (the object's binding, a callee)
	 * and then the key, name_tok (routes.list for const routes = {list:
	 * [...]}, id.l for id({l: [...]})); else UINT32_MAX */
	uint32_t arr_obj;
	/* for export const f = (a function) in a TypeScript namespace's
	 * body: the token of the namespace's (innermost) name, which V8 puts
	 * first (the compilers make it NS.f = ); else UINT32_MAX */
	uint32_t ns;
	/* the whole of an expression container among a JSX element's
	 * children (<C>{(v) => ...}</C>): named children where the compiler
	 * makes the children a property (React's automatic runtime,
	 * jsx(C, {children: (v) => ...})), none where it makes them
	 * arguments (h(C, null, (v) => ...)); the script tells which */
	bool jsx_child;
	/* named by a JSX attribute (<a onClick={() => ...}>), as V8 names
	 * the compiled {onClick: () => ...}: a compiler that makes no such
	 * object (Solid's) makes the name another's, which the script tells */
	bool jsx_attr;
};

/* Whether constructor F's class is bound to a member (a.b.C = class,
 * this.K = class), whose whole binding names it. */
static inline bool pp_js_cls_member(const struct pp_js_func *f)
{
	return f->cls_chain < f->cls; /* the chain ends at the class's name */
}

struct pp_js_funcs {
	struct pp_js_func *f; /* in order of their start token */
	size_t n, cap;
};

/* The functions of tokenized TEXT. 0, or -1 when out of memory. */
int pp_js_functions(const char *text, const struct pp_js_toks *v, struct pp_js_funcs *out);
/* The same; JS: TEXT is JavaScript (a generated script), where "x: T ="
 * is no type annotation (a label, a case, a conditional's branch). */
int pp_js_functions_in(const char *text, const struct pp_js_toks *v, bool js,
		       struct pp_js_funcs *out);
void pp_js_funcs_release(struct pp_js_funcs *fs);
/* The name V8 gives function F, written into BUF (NUL-terminated, cut at
 * CAP); "" for an anonymous function.  Its length in BUF. */
size_t pp_js_func_name(const char *text, const struct pp_js_toks *v, const struct pp_js_func *f,
		       char *buf, size_t cap);
/* The same, with the functions FS of the text F is one of (NULL: not
 * known), which tell the names V8's inferrer still holds from the code
 * around F when it names it (React's "production" !== process.env.NODE_ENV
 * && (function () { exports.jsx = function () {} })() names it
 * process.env.NODE_ENV.exports.jsx; see jsname.c). */
size_t pp_js_func_name_in(const char *text, const struct pp_js_toks *v, const struct pp_js_funcs *fs,
			  const struct pp_js_func *f, char *buf, size_t cap);
/* The name V8 gives the default constructor of the class whose "class"
 * keyword is token I (one without a constructor of its own): its own name,
 * else the binding the class expression is assigned to (A = class {,
 * k: class {, export default class {); written into BUF as
 * pp_js_func_name() writes, "" for none (an anonymous class expression,
 * as one returned by a mixin). */
size_t pp_js_class_name(const char *text, const struct pp_js_toks *v, size_t i, char *buf,
			size_t cap);
/* Whether the class whose "class" keyword is token I has a constructor
 * of its own (V8 then puts none on the keyword). */
bool pp_js_class_has_ctor(const char *text, const struct pp_js_toks *v, size_t i);
/* For a member with a computed key (F->ctx) in a class expression or an
 * object literal assigned to one word (x = class {, var o = {), the token
 * of that word, whose name V8 gives the member; else UINT32_MAX. */
uint32_t pp_js_func_ctx_tok(const char *text, const struct pp_js_toks *v,
			    const struct pp_js_func *f);
/* Whether tokens FIRST .. LAST of V are a.b.c: names and dots by turns. */
bool pp_js_dotted(const char *text, const struct pp_js_toks *v, size_t first, size_t last);
/* Whether V8 takes a function named S (N bytes) for a constructor, whose
 * name it puts before the member bindings made in it: a capital first
 * (V8 asks Unicode's uppercase; a name starting with another byte is
 * taken for none). */
bool pp_js_name_capital(const char *s, size_t n);
/* The token of the binding of esbuild's keepNames helper (--keep-names,
 * wrangler's default) among the first tokens of script TEXT, else
 * UINT32_MAX:
 *   __name = (target, value) => __defProp(target, "name", { value, configurable: true })
 *   o=(e,t)=>mf(e,"name",{value:t,configurable:!0})
 * A function it is given with a string, o(()=>{…},"execEditLength"), has
 * that name as its .name; V8 calls it anonymous. */
uint32_t pp_js_keep_names_helper(const char *text, const struct pp_js_toks *v);
/* The string function F is given to that helper (token HELPER) with,
 * HELPER(F, "NAME"): NAME without its quotes (*LEN bytes, in TEXT), or
 * NULL. */
const char *pp_js_keep_names_string(const char *text, const struct pp_js_toks *v,
				    const struct pp_js_func *f, uint32_t helper, size_t *len);
/* Whether function F of TEXT is async: "async" where V8 puts an async
 * arrow, or before the "function" keyword, a "*" or a method's key (a
 * key "async" is followed by "(", ":" or "="). */
bool pp_js_func_async(const char *text, const struct pp_js_toks *v, const struct pp_js_func *f);
/* The function whose V8 position is token T, or NULL. */
const struct pp_js_func *pp_js_func_starting(const struct pp_js_funcs *fs, uint32_t t);
/* The innermost function whose body holds token T (strictly inside its braces,
 * or in its concise body), or NULL. */
const struct pp_js_func *pp_js_func_holding(const struct pp_js_funcs *fs, uint32_t t);

#endif /* SMAP_JSTOKEN_H */
