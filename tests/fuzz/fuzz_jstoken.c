/* fuzz_jstoken.c: libFuzzer harness of the JavaScript/TypeScript tokenizer
 * and function finder of libsourcemap (jstoken.c, jsfunc.c, jstype.c): any
 * bytes tokenize or fail cleanly; tokens are in order, within the text, and
 * matched brackets point at each other; every function's tokens are in
 * range and its name fits, as every class's name does; the positions of the tokens (pp_js_walk_marks())
 * and walks between them (pp_js_walk_to()) equal a walk a character at a
 * time.  The same bytes as the script of a map with a source and of one
 * without, looked up through smap_function_at() over a grid of positions.
 * Seeds: the fixtures' scripts and TypeScript sources. */
#include "config.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../jswalk_ref.h"
#include "jstoken.h"
#include "sourcemap.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void fail(const char *what)
{
	fprintf(stderr, "fuzz_jstoken: broken promise: %s\n", what);
	abort();
}

static bool same_walk(const struct pp_js_walk *a, const struct pp_js_walk *b)
{
	return a->at == b->at && a->line == b->line && a->col == b->col;
}

/* The marks of V's tokens, and walks from each token to the next, equal
 * the reference walk. */
static void check_walks(const char *s, size_t size, const struct pp_js_toks *v)
{
	struct pp_js_walk *mk = malloc((v->n + 1) * sizeof(*mk));
	if (!mk)
		return;
	pp_js_walk_marks(s, size, v->t, v->n, 1, mk);
	struct pp_js_walk r = {0, 0, 0};
	for (size_t i = 0; i < v->n; i++) {
		struct pp_js_walk w = r;
		walk_ref(s, size, v->t[i].off, &r);
		pp_js_walk_to(s, size, v->t[i].off, &w);
		if (!same_walk(&w, &r) || !same_walk(&mk[i], &r))
			fail("a token's position is not the walk's");
	}
	struct pp_js_walk w = r;
	walk_ref(s, size, size, &r);
	pp_js_walk_to(s, size, size, &w);
	if (!same_walk(&w, &r))
		fail("the text's end is not the walk's");
	free(mk);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *s = (const char *)data;
	struct pp_js_toks v;
	if (size > 1 << 20)
		return 0;
	/* JSX on in half the inputs (a .tsx source; what it does not make
	 * sense of, tokenized again without) */
	if (pp_js_tokenize_jsx(s, size, (size & 2) != 0, &v, NULL) == 0) {
		for (size_t i = 0; i < v.n; i++) {
			const struct pp_js_tok *t = &v.t[i];
			size_t len = pp_js_tok_len(t);
			uint32_t m = pp_js_tok_match(t);
			if ((size_t)t->off + len > size || len == 0)
				fail("token outside the text");
			if (i && t->off < v.t[i - 1].off + pp_js_tok_len(&v.t[i - 1]))
				fail("tokens overlap");
			if ((m != UINT32_MAX) != (len == 1 && memchr("()[]{}", s[t->off], 6) &&
						  pp_js_tok_kind(t) == PP_JS_PUNCT))
				fail("a bracket without its partner, or a partner not a bracket's");
			if (m != UINT32_MAX && (m >= v.n || pp_js_tok_match(&v.t[m]) != i))
				fail("brackets do not match");
		}
		check_walks(s, size, &v);
		struct pp_js_funcs fs;
		/* TypeScript's rules, or JavaScript's (a generated script) */
		if (pp_js_functions_in(s, &v, size & 1, &fs) == 0) {
			for (size_t i = 0; i < fs.n; i++) {
				const struct pp_js_func *f = &fs.f[i];
				char buf[64];
				if (f->start >= v.n || f->head >= v.n || f->open >= v.n ||
				    f->close >= v.n || f->open > f->close)
					fail("function tokens out of range");
				size_t n = pp_js_func_name(s, &v, f, buf, sizeof(buf));
				if (strlen(buf) != (n < sizeof(buf) ? n : sizeof(buf) - 1))
					fail("name length");
				/* with what V8's inferrer holds from around it */
				n = pp_js_func_name_in(s, &v, &fs, f, buf, sizeof(buf));
				if (strlen(buf) != (n < sizeof(buf) ? n : sizeof(buf) - 1))
					fail("name length");
				if (pp_js_func_starting(&fs, f->start) == NULL)
					fail("a function is not found at its start");
				(void)pp_js_func_holding(&fs, f->open + 1);
			}
			pp_js_funcs_release(&fs);
		}
		for (size_t i = 0; i < v.n; i++) {
			char buf[16];
			size_t n = pp_js_class_name(s, &v, i, buf, sizeof(buf));
			if (strlen(buf) != n || n >= sizeof(buf))
				fail("class name length");
		}
		pp_js_toks_release(&v);
	}

	/* as the script of a map, with its source and without (the names
	 * from the script and the map's names alone: segments every few
	 * columns, some named) */
	static const char map[] = "{\"version\":3,\"sources\":[\"a.ts\"],\"names\":[\"n\"],"
				  "\"sourcesContent\":[\"function f(a){return a}\"],"
				  "\"mappings\":\"AAAA,SAASA,EAAE;AACA\"}";
	static const char bare[] = "{\"version\":3,\"sources\":[\"a.ts\"],\"names\":[\"n\",\"m\"],"
				   "\"mappings\":\"AAAA,EAAEA,EAAE,EAAEC,EAAE,EACRD,EAAE,EAAEC\"}";
	for (int k = 0; k < 2; k++) {
		struct smap_map *m = smap_map_new();
		if (!m)
			return 0;
		const char *mj = k ? bare : map;
		if (smap_map_parse(m, mj, strlen(mj), 0) == SMAP_OK &&
		    smap_map_set_script(m, data, size) == SMAP_OK) {
			for (uint32_t l = 0; l < 3; l++) {
				/* a line alone: its leading blanks aside (the
				 * script's tokens say where its code starts) */
				struct smap_mapping r;
				if (smap_lookup_line(m, l, &r) == SMAP_ENOMEM)
					break;
				for (uint32_t c = 0; c < 64; c += k ? 1 : 3) {
					struct smap_function fn;
					if (smap_function_at(m, l, c, &fn) != SMAP_OK)
						break;
					if (fn.start < -1 || fn.start > 1)
						fail("start is not -1, 0 or 1");
				}
			}
			(void)smap_map_generated_lines(m);
		}
		smap_map_free(m);
	}

	/* as a map's source (.tsx, or .vue by the input's size: JSX, a
	 * component's scripts), under a fixed script whose segments map
	 * into it every two columns of two lines */
	static const char *const ext[] = {"tsx", "vue"};
	static const char script[] = "function f(a){return a}\nvar g=function(b){return b}";
	char *j = size <= 4096 ? malloc(size * 6 + 256) : NULL;
	if (j) {
		size_t o = (size_t)sprintf(j,
					   "{\"version\":3,\"sources\":[\"a.%s\"],\"names\":[\"n\"],"
					   "\"sourcesContent\":[\"",
					   ext[size & 1]);
		for (size_t i = 0; i < size; i++) {
			unsigned char ch = data[i];
			if (ch == '"' || ch == '\\')
				o += (size_t)sprintf(j + o, "\\%c", ch);
			else if (ch < 0x20)
				o += (size_t)sprintf(j + o, "\\u%04x", ch);
			else
				j[o++] = (char)ch;
		}
		o += (size_t)sprintf(j + o, "\"],\"mappings\":\"AAAA,EAAEA,EAAE,EAAE,EAAE,EAAE,EAAE,"
					    "EAAE;AACA,EAAE,EAAE,EAAE,EAAE,EAAE,EAAE,EAAE\"}");
		struct smap_map *m = smap_map_new();
		if (m && smap_map_parse(m, j, o, 0) == SMAP_OK &&
		    smap_map_set_script(m, script, strlen(script)) == SMAP_OK) {
			for (uint32_t l = 0; l < 2; l++)
				for (uint32_t c = 0; c < 32; c++) {
					struct smap_function fn;
					if (smap_function_at(m, l, c, &fn) != SMAP_OK)
						break;
				}
		}
		smap_map_free(m);
		free(j);
	}
	return 0;
}
