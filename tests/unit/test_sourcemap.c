/*
 * test_sourcemap.c: libsourcemap: parsing, look-ups as trace-mapping does
 * them, index maps, lazy decoding, strict and lenient modes, scopes, map
 * finding, and the ECMA-426 conformance suite (when ../shared is there).
 */
#include <setjmp.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "json.h"
#include "smap_private.h"
#include "sourcemap.h"

/* ---- helpers ---- */

static struct smap_map *load(const char *json, unsigned flags)
{
	struct smap_map *m = smap_map_new();
	int rc;

	assert_non_null(m);
	rc = smap_map_parse(m, json, strlen(json), flags);
	if (rc != SMAP_OK)
		fail_msg("parse failed: %s", smap_map_error(m));
	return m;
}

/* Parsing JSON fails in strict mode with a message containing WANT. */
static void strict_fails(const char *json, const char *want)
{
	struct smap_map *m = smap_map_new();
	int rc;

	assert_non_null(m);
	rc = smap_map_parse(m, json, strlen(json), SMAP_STRICT);
	if (rc != SMAP_EINPUT)
		fail_msg("strict parse of %s gave %d", json, rc);
	if (!strstr(smap_map_error(m), want))
		fail_msg("error '%s' lacks '%s'", smap_map_error(m), want);
	smap_map_free(m);
}

/* "SOURCE:LINE:COL NAME" (0-based), "-" when unmapped. */
static const char *at(struct smap_map *m, uint32_t l, uint32_t c)
{
	static char buf[512];
	struct smap_mapping r;
	int rc = smap_lookup(m, l, c, &r);

	if (rc == SMAP_NONE)
		return "-";
	assert_int_equal(rc, SMAP_OK);
	snprintf(buf, sizeof(buf), "%s:%u:%u%s%s", r.source ? r.source : "?",
		 r.line, r.column, r.name ? " " : "", r.name ? r.name : "");
	return buf;
}

static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf;
	long n;

	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fseek(f, 0, SEEK_SET);
	buf = malloc((size_t)n + 1);
	assert_non_null(buf);
	assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
	buf[n] = '\0';
	fclose(f);
	if (len)
		*len = (size_t)n;
	return buf;
}

/* The conformance suite beside the checkout, or NULL. */
static const char *suite_dir(void)
{
	static char dir[4096];
	const char *shared = getenv("PPROF_SHARED"), *top = getenv("top_srcdir");
	FILE *f;
	char probe[4200];

	if (shared && *shared)
		snprintf(dir, sizeof(dir), "%s/conformance/source-map-tests", shared);
	else
		snprintf(dir, sizeof(dir), "%s/../shared/conformance/source-map-tests",
			 top ? top : SRCDIR);
	snprintf(probe, sizeof(probe), "%s/source-map-spec-tests.json", dir);
	f = fopen(probe, "rb");
	if (!f)
		return NULL;
	fclose(f);
	return dir;
}

/* A small JSON tree for the test data (trusted, so recursion is fine). */
struct jv {
	int type;
	char *s;
	size_t len;
	struct jv **items;
	char **keys;
	size_t n, cap;
};

static void jv_add(struct jv *o, char *key, struct jv *v)
{
	if (o->n == o->cap) {
		o->cap = o->cap ? o->cap * 2 : 8;
		o->items = realloc(o->items, o->cap * sizeof(*o->items));
		o->keys = realloc(o->keys, o->cap * sizeof(*o->keys));
		assert_non_null(o->items);
		assert_non_null(o->keys);
	}
	o->keys[o->n] = key;
	o->items[o->n++] = v;
}

static struct jv *jparse(const char *buf, size_t len)
{
	struct json j;
	struct jv *stack[64], *root = NULL;
	int depth = 0, t;
	char *key = NULL;

	json_init(&j, buf, len, 0);
	while ((t = json_next(&j)) != JSON_END) {
		struct jv *v;

		if (t == JSON_ERROR)
			fail_msg("bad test JSON: %s at %zu", json_error(&j),
				 json_error_offset(&j));
		if (t == JSON_KEY) {
			key = strndup(j.str, j.len);
			continue;
		}
		if (t == JSON_OBJECT_END || t == JSON_ARRAY_END) {
			depth--;
			continue;
		}
		v = calloc(1, sizeof(*v));
		assert_non_null(v);
		v->type = t;
		if (t == JSON_STRING || t == JSON_NUMBER) {
			v->s = malloc(j.len + 1);
			memcpy(v->s, j.str, j.len);
			v->s[j.len] = '\0';
			v->len = j.len;
		}
		if (depth)
			jv_add(stack[depth - 1], key, v);
		else
			root = v;
		key = NULL;
		if (t == JSON_OBJECT_BEGIN || t == JSON_ARRAY_BEGIN) {
			assert_true(depth < 64);
			stack[depth++] = v;
		}
	}
	json_release(&j);
	return root;
}

static void jfree(struct jv *v)
{
	size_t i;

	if (!v)
		return;
	for (i = 0; i < v->n; i++) {
		jfree(v->items[i]);
		free(v->keys[i]);
	}
	free(v->items);
	free(v->keys);
	free(v->s);
	free(v);
}

static struct jv *jget(const struct jv *o, const char *key)
{
	size_t i;

	for (i = 0; o && i < o->n; i++)
		if (o->keys[i] && strcmp(o->keys[i], key) == 0)
			return o->items[i];
	return NULL;
}

static const char *jstr(const struct jv *v)
{
	return v && v->type == JSON_STRING ? v->s : NULL;
}

static long jnum(const struct jv *v)
{
	return v && v->type == JSON_NUMBER ? strtol(v->s, NULL, 10) : -1;
}

/* A growing string for canonical JSON. */
struct sb {
	char *s;
	size_t n, cap;
};

static void sb_put(struct sb *b, const char *fmt, ...)
{
	va_list ap;
	int k;

	for (;;) {
		va_start(ap, fmt);
		k = vsnprintf(b->s ? b->s + b->n : NULL, b->s ? b->cap - b->n : 0,
			      fmt, ap);
		va_end(ap);
		if (b->s && (size_t)k < b->cap - b->n) {
			b->n += (size_t)k;
			return;
		}
		b->cap = (b->cap + (size_t)k + 1) * 2;
		b->s = realloc(b->s, b->cap);
		assert_non_null(b->s);
	}
}

static void sb_str(struct sb *b, const char *s)
{
	if (!s) {
		sb_put(b, "null");
		return;
	}
	sb_put(b, "\"");
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			sb_put(b, "\\%c", *s);
		else if ((unsigned char)*s < 0x20)
			sb_put(b, "\\u%04x", *s);
		else
			sb_put(b, "%c", *s);
	}
	sb_put(b, "\"");
}

static void jcanon(struct sb *b, const struct jv *v)
{
	size_t i;

	switch (v->type) {
	case JSON_OBJECT_BEGIN:
	case JSON_ARRAY_BEGIN:
		sb_put(b, v->type == JSON_OBJECT_BEGIN ? "{" : "[");
		for (i = 0; i < v->n; i++) {
			if (i)
				sb_put(b, ",");
			if (v->type == JSON_OBJECT_BEGIN) {
				sb_str(b, v->keys[i]);
				sb_put(b, ":");
			}
			jcanon(b, v->items[i]);
		}
		sb_put(b, v->type == JSON_OBJECT_BEGIN ? "}" : "]");
		break;
	case JSON_STRING:
		sb_str(b, v->s);
		break;
	case JSON_NUMBER:
		sb_put(b, "%s", v->s);
		break;
	case JSON_TRUE:
		sb_put(b, "true");
		break;
	case JSON_FALSE:
		sb_put(b, "false");
		break;
	default:
		sb_put(b, "null");
	}
}

/* ---- parsing and look-ups ---- */

static const char basic[] =
	"{\"version\":3,\"file\":\"out.js\",\"names\":[\"foo\",\"bar\"],"
	"\"sources\":[\"basic-mapping-original.js\"],"
	"\"mappings\":\"AAAA,SAASA,MACP,OAAO,EACT,CACA,SAASC,MACP,OAAO,EACT,CACAD,MACAC\"}";

static void test_sourcemap_basic(void **state)
{
	struct smap_map *m = load(basic, 0);

	(void)state;
	assert_string_equal(smap_map_file(m), "out.js");
	assert_false(smap_map_is_index(m));
	assert_int_equal(smap_map_source_count(m), 1);
	assert_string_equal(at(m, 0, 0), "basic-mapping-original.js:0:0");
	assert_string_equal(at(m, 0, 9), "basic-mapping-original.js:0:9 foo");
	assert_string_equal(at(m, 0, 10), "basic-mapping-original.js:0:9 foo");
	assert_string_equal(at(m, 0, 34), "basic-mapping-original.js:3:9 bar");
	assert_string_equal(at(m, 0, 56), "basic-mapping-original.js:7:0 bar");
	assert_string_equal(at(m, 0, 9999), "basic-mapping-original.js:7:0 bar");
	/* nothing on a line the map does not have */
	assert_string_equal(at(m, 1, 0), "-");
	assert_null(smap_map_warning(m));
	smap_map_free(m);
}

static void test_sourcemap_line_rules(void **state)
{
	/* line 0 has segments from column 4; line 1 none; line 2 one
	 * unmapped (1-field) segment then a mapped one */
	struct smap_map *m =
		load("{\"version\":3,\"sources\":[\"a.js\"],\"names\":[],"
		     "\"mappings\":\"IAAA;;AACA,EACA\"}",
		     0);

	(void)state;
	assert_string_equal(at(m, 0, 3), "-"); /* before the first segment */
	assert_string_equal(at(m, 0, 4), "a.js:0:0");
	assert_string_equal(at(m, 1, 7), "-"); /* no earlier line is used */
	assert_string_equal(at(m, 2, 0), "a.js:1:0");
	assert_string_equal(at(m, 2, 2), "a.js:2:0");
	smap_map_free(m);
	/* a 1-field segment means "unmapped" */
	m = load("{\"version\":3,\"sources\":[\"a.js\"],\"names\":[],"
		 "\"mappings\":\"AAAC,E\"}",
		 0);
	assert_string_equal(at(m, 0, 1), "a.js:0:1");
	assert_string_equal(at(m, 0, 2), "-");
	smap_map_free(m);
}

static void test_sourcemap_ties_and_unsorted(void **state)
{
	/* columns 0, 1, 1, 1 (original lines 0, 0, 1, 2): as trace-mapping,
	 * an exact column gives the first of its segments, a larger one the
	 * last */
	struct smap_map *m =
		load("{\"version\":3,\"sources\":[\"a.js\"],\"names\":[],"
		     "\"mappings\":\"AAAA,CAAA,AACA,AACA\"}",
		     0);

	(void)state;
	assert_string_equal(at(m, 0, 0), "a.js:0:0");
	assert_string_equal(at(m, 0, 1), "a.js:0:0");
	assert_string_equal(at(m, 0, 2), "a.js:2:0");
	smap_map_free(m);
	/* unsorted: columns 5, 0, 0 (original lines 0, 1, 2) */
	m = load("{\"version\":3,\"sources\":[\"a.js\"],\"names\":[],"
		 "\"mappings\":\"KAAA,LACA,AACA\"}",
		 0);
	assert_string_equal(at(m, 0, 0), "a.js:1:0");
	assert_string_equal(at(m, 0, 4), "a.js:2:0");
	assert_string_equal(at(m, 0, 5), "a.js:0:0");
	smap_map_free(m);
}

static void test_sourcemap_long_unsorted_line(void **state)
{
	/* 300 segments in descending column order: the merge sort path */
	struct sb b = { 0 };
	struct smap_map *m;
	int i;

	(void)state;
	sb_put(&b, "{\"version\":3,\"sources\":[\"a.js\"],\"names\":[],\"mappings\":\"");
	/* first at column 600, then each 2 columns earlier, original line +1 */
	sb_put(&b, "wlBAAA");
	for (i = 1; i < 300; i++)
		sb_put(&b, ",FACA");
	sb_put(&b, "\"}");
	m = load(b.s, 0);
	assert_string_equal(at(m, 0, 600), "a.js:0:0");
	assert_string_equal(at(m, 0, 601), "a.js:0:0");
	assert_string_equal(at(m, 0, 599), "a.js:1:0");
	assert_string_equal(at(m, 0, 2), "a.js:299:0");
	assert_string_equal(at(m, 0, 1), "-");
	smap_map_free(m);
	free(b.s);
}

static void test_sourcemap_long_line_runs(void **state)
{
	/* 600 segments on one line, the coarse index's case: columns 0-29,
	 * then 20 at column 30 (crossing a stride of 32), then from 40 on;
	 * the original line counts the segments */
	struct sb b = { 0 };
	struct smap_map *m;
	int i;

	(void)state;
	sb_put(&b, "{\"version\":3,\"sources\":[\"a.js\"],\"names\":[],\"mappings\":\"AAAA");
	for (i = 1; i < 600; i++)
		sb_put(&b, ",%sACA", i < 30 || i == 30 ? "C" : i < 50 ? "A" : i == 50 ? "U" : "C");
	sb_put(&b, "\"}");
	m = load(b.s, SMAP_STRICT);
	assert_string_equal(at(m, 0, 29), "a.js:29:0");
	assert_string_equal(at(m, 0, 30), "a.js:30:0"); /* first of the run */
	assert_string_equal(at(m, 0, 35), "a.js:49:0"); /* last of the run */
	assert_string_equal(at(m, 0, 40), "a.js:50:0");
	assert_string_equal(at(m, 0, 41), "a.js:51:0");
	assert_string_equal(at(m, 0, 589), "a.js:599:0");
	assert_string_equal(at(m, 0, 100000), "a.js:599:0");
	assert_non_null(m->sec[0].lz->coarse);
	smap_map_free(m);
	free(b.s);
}

static void test_sourcemap_vlq_limits(void **state)
{
	struct smap_map *m =
		load("{\"version\":3,\"names\":[\"foo\"],\"sources\":[\"a.js\"],"
		     "\"mappings\":\"+/////DA+/////D+/////DA\"}",
		     SMAP_STRICT);
	char big[200];

	(void)state;
	assert_string_equal(at(m, 0, 2147483647),
			    "a.js:2147483647:2147483647 foo");
	assert_string_equal(at(m, 0, 2147483646), "-");
	smap_map_free(m);
	/* a long VLQ of zero digits is still 32 bits */
	snprintf(big, sizeof(big),
		 "{\"version\":3,\"sources\":[\"a.js\"],\"names\":[],"
		 "\"mappings\":\"%s\"}",
		 "igggggggggggggggggggggggggggggggggggggggggggggggggggggA");
	m = load(big, SMAP_STRICT);
	assert_string_equal(at(m, 0, 1), "-");
	smap_map_free(m);
	/* "B" is -0, which ECMA-426 reads as -2^31 */
	strict_fails("{\"version\":3,\"sources\":[],\"names\":[],\"mappings\":\"B\"}",
		     "negative generated column");
	strict_fails("{\"version\":3,\"sources\":[],\"names\":[],"
		     "\"mappings\":\"ggggggE\"}",
		     "past 32 bits (at byte 49)");
}

static void test_sourcemap_sources(void **state)
{
	struct smap_map *m = load(
		"{\"version\":3,\"sourceRoot\":\"webpack://app/\","
		"\"sources\":[\"./src/a.ts\",null,\"../../lib/b.ts\"],"
		"\"sourcesContent\":[\"x\\u0000y\\n\",\"null's\"],"
		"\"names\":[],\"mappings\":\"AAAA,CCAA,CCAA\"}",
		0);
	size_t len;
	const char *c;

	(void)state;
	assert_int_equal(smap_map_source_count(m), 3);
	assert_string_equal(smap_map_source(m, 0), "webpack://app/src/a.ts");
	assert_null(smap_map_source(m, 1));
	assert_string_equal(smap_map_source(m, 2), "webpack://app/lib/b.ts");
	assert_string_equal(smap_map_source_raw(m, 0), "./src/a.ts");
	assert_null(smap_map_source(m, 3));
	c = smap_map_source_content(m, 0, &len);
	assert_non_null(c);
	assert_int_equal(len, 4);
	assert_memory_equal(c, "x\0y\n", 4);
	c = smap_map_source_content(m, 1, &len);
	assert_string_equal(c, "null's");
	assert_null(smap_map_source_content(m, 2, &len));
	assert_int_equal(len, 0);
	/* a mapping to a null source keeps its position */
	assert_string_equal(at(m, 0, 1), "?:0:0");
	smap_map_free(m);
}

static void test_sourcemap_resolve(void **state)
{
	static const char *const cases[][3] = {
		{ NULL, "../../src/transform.ts", "src/transform.ts" },
		{ "", "./a.ts", "a.ts" },
		{ "src", "a.ts", "src/a.ts" },
		{ "src/", "a.ts", "src/a.ts" },
		{ "src/", "/a.ts", "src/a.ts" },
		{ "src", "../x/b.ts", "x/b.ts" },
		{ "theroot", "basic.js", "theroot/basic.js" },
		{ NULL, "/baz/quux/a.js", "/baz/quux/a.js" },
		{ NULL, "/../a.js", "/a.js" },
		{ "webpack://app/", "./src/a.ts", "webpack://app/src/a.ts" },
		{ "webpack://app", "src/../x.ts", "webpack://app/x.ts" },
		{ NULL, "webpack:///./src/a.ts", "webpack:///src/a.ts" },
		{ NULL, "webpack://app/../../a.ts", "webpack://app/a.ts" },
		{ "root", "http://h/d.ts", "http://h/d.ts" },
		{ NULL, "node:internal/x/../y", "node:internal/y" },
		{ NULL, "a/./b//c/", "a/b/c" },
		{ NULL, "..", "" },
		{ NULL, "C:/x/../y.ts", "C:/y.ts" },
		{ NULL, "data:text/plain,a/../b", "data:text/plain,a/../b" },
	};
	struct pp_smap_arena a = { 0 };
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *r = pp_smap_resolve(&a, cases[i][0], cases[i][1]);

		assert_non_null(r);
		if (strcmp(r, cases[i][2]) != 0)
			fail_msg("resolve(%s, %s) = %s, want %s",
				 cases[i][0] ? cases[i][0] : "NULL", cases[i][1], r,
				 cases[i][2]);
	}
	pp_smap_arena_release(&a);
}

static void test_sourcemap_ignore_list(void **state)
{
	struct smap_map *m = load("{\"version\":3,\"sources\":[\"a\",\"b\",\"c\"],"
				  "\"names\":[],\"mappings\":\"AAAA,CCAA\","
				  "\"ignoreList\":[2,0],\"x_google_ignoreList\":[1]}",
				  0);
	struct smap_mapping r;

	(void)state;
	assert_true(smap_map_source_ignored(m, 0));
	assert_false(smap_map_source_ignored(m, 1)); /* ignoreList wins */
	assert_true(smap_map_source_ignored(m, 2));
	assert_int_equal(smap_lookup(m, 0, 0, &r), SMAP_OK);
	assert_true(r.ignored);
	assert_int_equal(smap_lookup(m, 0, 1, &r), SMAP_OK);
	assert_false(r.ignored);
	assert_int_equal(r.source_index, 1);
	smap_map_free(m);
	m = load("{\"version\":3,\"sources\":[\"a\",\"b\"],\"names\":[],"
		 "\"mappings\":\"\",\"x_google_ignoreList\":[1]}",
		 SMAP_STRICT);
	assert_false(smap_map_source_ignored(m, 0));
	assert_true(smap_map_source_ignored(m, 1));
	smap_map_free(m);
}

static void test_sourcemap_prefix(void **state)
{
	static const char text[] = ")]}'garbage\n{\"version\":3,\"sources\":[\"a\"],"
				   "\"names\":[],\"mappings\":\"AAAA\"}";
	struct smap_map *m = load(text, SMAP_STRICT);

	(void)state;
	assert_string_equal(at(m, 0, 0), "a:0:0");
	smap_map_free(m);
	/* offsets in messages count from the start of the text */
	strict_fails(")]}'\n{\"version\":3,\"sources\":[],\"mappings\":\"A!\"}",
		     "invalid base64 VLQ character (at byte 44)");
}

static void test_sourcemap_index_map(void **state)
{
	struct smap_map *m = load(
		"{\"version\":3,\"file\":\"app.js\",\"sections\":["
		"{\"offset\":{\"line\":0,\"column\":0},\"map\":{\"version\":3,"
		"\"sources\":[\"a.js\"],\"names\":[],\"mappings\":\"AAAA,UAAC\"}},"
		"{\"offset\":{\"line\":0,\"column\":20},\"map\":{\"version\":3,"
		"\"sourceRoot\":\"lib\",\"sources\":[\"b.js\"],\"names\":[\"n\"],"
		"\"mappings\":\"UAAEA;AACA\",\"ignoreList\":[0]}},"
		"{\"offset\":{\"line\":5,\"column\":7},\"map\":{\"version\":3,"
		"\"sources\":[\"c.js\"],\"names\":[],\"mappings\":\"AAAA;CAAC\"}}]}",
		SMAP_STRICT);
	struct smap_mapping r;

	(void)state;
	assert_true(smap_map_is_index(m));
	assert_string_equal(smap_map_file(m), "app.js");
	assert_int_equal(smap_map_source_count(m), 3);
	assert_string_equal(smap_map_source(m, 1), "lib/b.js");
	assert_true(smap_map_source_ignored(m, 1));
	assert_false(smap_map_source_ignored(m, 2));
	assert_string_equal(at(m, 0, 0), "a.js:0:0");
	assert_string_equal(at(m, 0, 19), "a.js:0:1");
	/* before the second section's first segment (column 30), on its
	 * first line: the first section's last segment, as if concatenated */
	assert_string_equal(at(m, 0, 22), "a.js:0:1");
	assert_string_equal(at(m, 0, 30), "lib/b.js:0:2 n");
	assert_int_equal(smap_lookup(m, 0, 31, &r), SMAP_OK);
	assert_int_equal(r.generated_column, 30);
	assert_true(r.ignored);
	assert_string_equal(at(m, 1, 0), "lib/b.js:1:2");
	/* the column offset applies to the section's first line only */
	assert_string_equal(at(m, 5, 6), "-");
	assert_string_equal(at(m, 5, 7), "c.js:0:0");
	assert_string_equal(at(m, 6, 0), "-");
	assert_string_equal(at(m, 6, 1), "c.js:0:1");
	assert_int_equal(smap_lookup(m, 6, 1, &r), SMAP_OK);
	assert_int_equal(r.generated_line, 6);
	assert_int_equal(r.generated_column, 1);
	/* between sections: the earlier one goes on */
	assert_string_equal(at(m, 3, 0), "-");
	smap_map_free(m);
	/* falling back to the section before: never an exact hit, so the
	 * last of several segments at one column (a random case where
	 * trace-mapping and an early version disagreed) */
	m = load("{\"version\":3,\"sections\":["
		 "{\"offset\":{\"line\":0,\"column\":0},\"map\":{\"version\":3,"
		 "\"sources\":[\"a.js\"],\"names\":[],\"mappings\":\"MAAA,AAAC\"}},"
		 "{\"offset\":{\"line\":0,\"column\":7},\"map\":{\"version\":3,"
		 "\"sources\":[\"b.js\"],\"names\":[],\"mappings\":\"EAAE\"}}]}",
		 0);
	assert_string_equal(at(m, 0, 6), "a.js:0:0");
	assert_string_equal(at(m, 0, 7), "a.js:0:1");
	assert_string_equal(at(m, 0, 8), "a.js:0:1");
	assert_string_equal(at(m, 0, 9), "b.js:0:2");
	smap_map_free(m);
}

static void test_sourcemap_index_map_errors(void **state)
{
	static const char overlap[] =
		"{\"version\":3,\"sections\":["
		"{\"offset\":{\"line\":0,\"column\":0},\"map\":{\"version\":3,"
		"\"sources\":[\"a.js\"],\"names\":[],\"mappings\":\"AAAA,KAAC\"}},"
		"{\"offset\":{\"line\":0,\"column\":5},\"map\":{\"version\":3,"
		"\"sources\":[\"b.js\"],\"names\":[],\"mappings\":\"AAAA\"}}]}";
	struct smap_map *m;

	(void)state;
	strict_fails(overlap, "sections[1] (offset 0:5) overlaps");
	/* leniently, the later section cuts the earlier one */
	m = load(overlap, 0);
	assert_string_equal(at(m, 0, 4), "a.js:0:0");
	assert_string_equal(at(m, 0, 5), "b.js:0:0");
	smap_map_free(m);
	strict_fails("{\"version\":3,\"sections\":[{\"offset\":{\"line\":0,"
		     "\"column\":0},\"map\":{\"version\":3,\"sections\":[]}}]}",
		     "nested sections");
	strict_fails("{\"version\":3,\"sections\":[{\"offset\":{\"line\":1.5,"
		     "\"column\":0},\"map\":{\"version\":3,\"sources\":[],"
		     "\"mappings\":\"\"}}]}",
		     "sections[0].offset.line is not a non-negative integer");
	strict_fails("{\"version\":3,\"sections\":[{\"offset\":{\"line\":0,"
		     "\"column\":0},\"map\":{\"version\":3,\"sources\":[],"
		     "\"mappings\":\";A,\"}}]}",
		     "sections[0].map.mappings: empty segment");
	/* out of order: dropped leniently */
	m = load("{\"version\":3,\"sections\":["
		 "{\"offset\":{\"line\":2,\"column\":0},\"map\":{\"version\":3,"
		 "\"sources\":[\"a.js\"],\"names\":[],\"mappings\":\"AAAA\"}},"
		 "{\"offset\":{\"line\":1,\"column\":0},\"map\":{\"version\":3,"
		 "\"sources\":[\"b.js\"],\"names\":[],\"mappings\":\"AAAA\"}}]}",
		 0);
	assert_string_equal(at(m, 2, 0), "a.js:0:0");
	assert_string_equal(at(m, 1, 0), "-");
	assert_non_null(strstr(smap_map_warning(m), "starts before"));
	smap_map_free(m);
}

static void test_sourcemap_lazy(void **state)
{
	/* 1000 lines of 3 segments each; original line goes up by one per
	 * segment */
	struct sb b = { 0 };
	struct smap_map *m;
	struct pp_smap_section *s;
	int i;

	(void)state;
	sb_put(&b, "{\"version\":3,\"sources\":[\"a.js\"],\"names\":[],\"mappings\":\"");
	for (i = 0; i < 1000; i++)
		sb_put(&b, "%sAA%cA,EACA,EACA", i ? ";" : "", i ? 'C' : 'A');
	sb_put(&b, "\"}");
	m = load(b.s, 0);
	s = &m->sec[0];
	assert_null(s->lz); /* nothing decoded at load */
	assert_string_equal(at(m, 500, 4), "a.js:1502:0");
	assert_int_equal(s->lz->nlines, 1000);
	assert_int_equal(s->lz->nsegs, 3); /* only line 500 is stored */
	assert_int_equal(s->lz->npassed, 501);
	assert_string_equal(at(m, 10, 0), "a.js:30:0");
	assert_int_equal(s->lz->nsegs, 6);
	assert_int_equal(s->lz->npassed, 501);
	assert_string_equal(at(m, 999, 9), "a.js:2999:0");
	assert_int_equal(s->lz->nsegs, 9);
	smap_map_free(m);
	free(b.s);
}

static void test_sourcemap_lenient(void **state)
{
	/* a bad segment in the middle is skipped, told once, with its
	 * place; the segments around it still map */
	static const char text[] =
		"{\"version\":3,\"sources\":[\"a.js\"],\"names\":[],"
		"\"mappings\":\"AAAA,EA$A,EACA;AACA;AAC,AACA\"}";
	struct smap_map *m = load(text, 0);
	const char *w;

	(void)state;
	assert_null(smap_map_warning(m)); /* nothing decoded yet */
	assert_string_equal(at(m, 0, 0), "a.js:0:0");
	assert_string_equal(at(m, 0, 1), "a.js:0:0");
	assert_string_equal(at(m, 0, 2), "a.js:1:0"); /* "EACA" */
	w = smap_map_warning(m);
	assert_non_null(w);
	assert_string_equal(w, "mappings: invalid base64 VLQ character (at byte 62)");
	assert_string_equal(at(m, 1, 0), "a.js:2:0");
	assert_string_equal(at(m, 2, 0), "a.js:3:0");
	assert_string_equal(smap_map_warning(m),
			    "mappings: invalid base64 VLQ character (at byte 62) (and 1 more)");
	/* asking again does not count problems twice */
	assert_string_equal(at(m, 0, 4), "a.js:1:0");
	assert_string_equal(at(m, 2, 0), "a.js:3:0");
	assert_non_null(strstr(smap_map_warning(m), "(and 1 more)"));
	smap_map_free(m);
	/* fields of the wrong type are skipped leniently */
	m = load("{\"version\":\"3\",\"file\":7,\"sources\":[\"a.js\",5],"
		 "\"names\":[1],\"mappings\":\"AAAAA\",\"ignoreList\":[9]}",
		 0);
	assert_string_equal(at(m, 0, 0), "a.js:0:0");
	assert_null(smap_map_file(m));
	assert_int_equal(smap_map_source_count(m), 2);
	assert_null(smap_map_source(m, 1));
	assert_string_equal(smap_map_warning(m),
			    "file is a number, not a string (at byte 22) (and 4 more)");
	smap_map_free(m);
	/* and a map without mappings has none */
	m = load("{\"version\":3,\"sources\":[]}", 0);
	assert_string_equal(at(m, 0, 0), "-");
	assert_string_equal(smap_map_warning(m), "mappings is missing (at byte 0)");
	smap_map_free(m);
}

static void test_sourcemap_not_a_map(void **state)
{
	struct smap_map *m = smap_map_new();

	(void)state;
	assert_int_equal(smap_map_parse(m, "[1,2]", 5, 0), SMAP_EINPUT);
	assert_string_equal(smap_map_error(m),
			    "not a source map: the JSON text is an array, not an object");
	assert_int_equal(smap_map_parse(m, "{}", 2, 0), SMAP_EUSAGE);
	smap_map_free(m);
	m = smap_map_new();
	assert_int_equal(smap_map_parse(m, "{\"version\":3,", 13, 0), SMAP_EINPUT);
	assert_non_null(strstr(smap_map_error(m), "(at byte 13)"));
	smap_map_free(m);
	m = smap_map_new();
	assert_int_equal(smap_map_load_file(m, "/nonexistent/x.map", 0), SMAP_EIO);
	assert_string_equal(smap_map_error(m),
			    "cannot open: no such file or directory");
	smap_map_free(m);
}

static void test_sourcemap_strict(void **state)
{
	(void)state;
	strict_fails("{\"sources\":[],\"mappings\":\"\"}", "version is missing");
	strict_fails("{\"version\":3,\"sources\":[],\"mappings\":\"AAAA\"}",
		     "source index past the sources (at byte 38)");
	strict_fails("{\"version\":3,\"sources\":[\"a\"],\"names\":[],"
		     "\"mappings\":\"AAAAC\"}",
		     "name index past the names");
	strict_fails("{\"version\":3,\"sources\":[\"a\"],\"mappings\":\"AA\"}",
		     "segment with 2 or 3 fields (must be 1, 4 or 5) (at byte 41)");
	strict_fails("{\"version\":3,\"sources\":[\"a\"],\"mappings\":\"AAAAAA\"}",
		     "more than 5 fields");
	strict_fails("{\"version\":3,\"sources\":[\"a\"],\"mappings\":\"AAAA,\"}",
		     "empty segment");
	strict_fails("{\"version\":3,\"sources\":[\"a\"],\"mappings\":\"g\"}",
		     "cut short");
	strict_fails("{\"version\":3,\"sources\":[\"a\"],\"mappings\":\"\","
		     "\"ignoreList\":[1]}",
		     "ignoreList[0] is 1, past the 1 sources");
	strict_fails("{\"version\":3,\"sources\":[\"a\"],\"mappings\":\"\","
		     "\"sourcesContent\":[1]}",
		     "sourcesContent[0] is a number, not a string or null");
	/* escapes in mappings: the place is counted in characters */
	strict_fails("{\"version\":3,\"sources\":[],\"mappings\":\"\\u0041!\"}",
		     "(at character 1 of mappings)");
}

/* A long line cut into blocks answers as the line decoded whole: columns
 * shared across a block's edge give the first of their segments, a column
 * before the first segment none. */
static void test_sourcemap_blocks(void **state)
{
	(void)state;
	char json[4096];
	size_t at = (size_t)snprintf(json, sizeof(json),
				     "{\"version\":3,\"sources\":[\"a.js\"],\"names\":[],"
				     "\"mappings\":\"AAAA;E");
	for (int i = 1; i < 300; i++) {
		/* the same column as the one before at 64, 128, 129 and 192 */
		bool same = i == 64 || i == 128 || i == 129 || i == 192;
		at += (size_t)snprintf(json + at, sizeof(json) - at, ",%sAAC", same ? "A" : "C");
	}
	at += (size_t)snprintf(json + at, sizeof(json) - at, "\"}");
	assert_true(at < sizeof(json));
	struct smap_map *a = smap_map_new(), *b = smap_map_new();
	assert_int_equal(smap_map_parse(a, json, at, 0), SMAP_OK);
	assert_int_equal(smap_map_parse(b, json, at, 0), SMAP_OK);
	assert_int_equal(smap_map_prepare(b), SMAP_OK);
	struct pp_smap_section *sa = &a->sec[0], *sb = &b->sec[0];
	assert_int_equal(sb->lz->line[1].nseg, 300);
	assert_int_not_equal(sb->lz->line[1].ck, PP_SMAP_NIL);
	uint32_t n;
	int rc;
	const struct pp_smap_seg *v = pp_smap_line_segs(a, sa, 1, &n, &rc);
	assert_int_equal(rc, SMAP_OK);
	assert_int_equal(n, 300);
	assert_int_equal(sa->lz->line[1].ck, PP_SMAP_NIL); /* decoded whole */
	for (uint32_t c = 0; c < 300; c++)
		for (int below = 0; below <= 1; below++) {
			/* the rule over the whole line */
			const struct pp_smap_seg *x = NULL;
			for (uint32_t j = 0; j < n; j++)
				if (v[j].gcol < c || (!below && v[j].gcol == c))
					x = &v[j];
			while (x && x->gcol == c && x > v && x[-1].gcol == c)
				x--; /* an exact column: the first of its segments */
			const struct pp_smap_seg *y = pp_smap_find_seg(b, sb, 1, c, below, &rc);
			assert_int_equal(rc, SMAP_OK);
			if (!x) {
				assert_null(y);
				continue;
			}
			assert_non_null(y);
			assert_memory_equal(x, y, sizeof(*x));
		}
	/* 128 and 129 share column 128 with 127 (across the edge): 127 is the first */
	const struct pp_smap_seg *y = pp_smap_find_seg(b, sb, 1, 128, false, &rc);
	assert_non_null(y);
	assert_int_equal(y->ocol, 127);
	assert_int_equal(sb->lz->line[1].first, PP_SMAP_NIL); /* never decoded whole */
	struct smap_mapping ma, mb;
	for (uint32_t c = 0; c < 300; c += 7) {
		assert_int_equal(smap_lookup(a, 1, c, &ma), smap_lookup(b, 1, c, &mb));
		assert_int_equal(ma.column, mb.column);
		assert_int_equal(ma.generated_column, mb.generated_column);
	}
	smap_map_free(a);
	smap_map_free(b);
}

/* smap_lookup_many() on TEXT (parsed with FLAGS) against smap_lookup()
 * one by one on another parse, over a grid of lines and columns (and a
 * few far ones) in a shuffled order with duplicates; the same warning. */
static void many_as_one_by_one(const char *text, unsigned flags, uint32_t nl, uint32_t nc)
{
	struct smap_map *a = load(text, flags), *b = load(text, flags);
	size_t n = (size_t)(nl + 2) * (nc + 2) * 2, i = 0, k;
	uint32_t *lines = malloc(n * sizeof(*lines)), *cols = malloc(n * sizeof(*cols));
	struct smap_mapping *out = malloc(n * sizeof(*out));
	int *rc = malloc(n * sizeof(*rc)), first = SMAP_OK;
	uint32_t x = 12345;

	assert_true(lines && cols && out && rc);
	for (uint32_t l = 0; l < nl + 2; l++)
		for (uint32_t c = 0; c < nc + 2; c++) {
			lines[i] = l == nl + 1 ? UINT32_MAX : l;
			cols[i++] = c == nc + 1 ? UINT32_MAX - (c & 1) : c;
		}
	for (; i < n; i++) { /* duplicates */
		lines[i] = lines[i / 3];
		cols[i] = cols[i / 3];
	}
	for (i = n - 1; i > 0; i--) { /* Fisher-Yates, a fixed LCG */
		uint32_t t;

		x = x * 1103515245u + 12345u;
		k = (x >> 8) % (i + 1);
		t = lines[i], lines[i] = lines[k], lines[k] = t;
		t = cols[i], cols[i] = cols[k], cols[k] = t;
	}
	assert_int_equal(smap_lookup_many(b, n, lines, cols, out, rc), SMAP_OK);
	for (i = 0; i < n; i++) {
		struct smap_mapping r;
		int want = smap_lookup(a, lines[i], cols[i], &r);

		if (want != SMAP_OK && want != SMAP_NONE && first == SMAP_OK)
			first = want;
		assert_int_equal(rc[i], want);
		if (r.source)
			assert_string_equal(out[i].source, r.source);
		else
			assert_null(out[i].source);
		if (r.name)
			assert_string_equal(out[i].name, r.name);
		else
			assert_null(out[i].name);
		assert_int_equal(out[i].source_index, r.source_index);
		assert_int_equal(out[i].line, r.line);
		assert_int_equal(out[i].column, r.column);
		assert_int_equal(out[i].ignored, r.ignored);
		assert_int_equal(out[i].generated_line, r.generated_line);
		assert_int_equal(out[i].generated_column, r.generated_column);
	}
	assert_int_equal(first, SMAP_OK);
	if (smap_map_warning(a))
		assert_string_equal(smap_map_warning(a), smap_map_warning(b));
	else
		assert_null(smap_map_warning(b));
	smap_map_free(a);
	smap_map_free(b);
	free(lines);
	free(cols);
	free(out);
	free(rc);
}

static void test_sourcemap_lookup_many(void **state)
{
	static const char index_map[] =
		"{\"version\":3,\"file\":\"app.js\",\"sections\":["
		"{\"offset\":{\"line\":0,\"column\":0},\"map\":{\"version\":3,"
		"\"sources\":[\"a.js\"],\"names\":[],\"mappings\":\"AAAA,UAAC\"}},"
		"{\"offset\":{\"line\":0,\"column\":20},\"map\":{\"version\":3,"
		"\"sourceRoot\":\"lib\",\"sources\":[\"b.js\"],\"names\":[\"n\"],"
		"\"mappings\":\"UAAEA;AACA\",\"ignoreList\":[0]}},"
		"{\"offset\":{\"line\":5,\"column\":7},\"map\":{\"version\":3,"
		"\"sources\":[\"c.js\"],\"names\":[],\"mappings\":\"AAAA;CAAC\"}}]}";
	/* sections with bad segments: the first told depends on the order */
	static const char bad_index_map[] =
		"{\"version\":3,\"sections\":["
		"{\"offset\":{\"line\":0,\"column\":0},\"map\":{\"version\":3,"
		"\"sources\":[\"a.js\"],\"names\":[],\"mappings\":\"AAAA;E$AA;AACA\"}},"
		"{\"offset\":{\"line\":4,\"column\":3},\"map\":{\"version\":3,"
		"\"sources\":[\"b.js\"],\"names\":[],\"mappings\":\"AAAA,E!AA;AACA\"}}]}";
	char *text;
	size_t len, i;

	(void)state;
	/* no segment before column 2 of line 0; several at exactly column 4
	 * of line 1; an empty line; past the last line */
	many_as_one_by_one("{\"version\":3,\"sources\":[\"a.js\",\"b.js\"],\"names\":[\"x\",\"y\"],"
			   "\"mappings\":\"EAAA,EAAEA,AAAE,CCAAC;IAAA,AAAC,AAAE,EAAA;;ACAA,C,EAAA\"}",
			   0, 5, 12);
	many_as_one_by_one(index_map, SMAP_STRICT, 8, 40);
	many_as_one_by_one(index_map, 0, 8, 40);
	many_as_one_by_one(bad_index_map, 0, 7, 8);
	/* lenient, a bad segment and an unsorted line */
	many_as_one_by_one("{\"version\":3,\"sources\":[\"a.js\"],\"names\":[],"
			   "\"mappings\":\"AAAA,EA$A,EACA;AACA;AAC,AACA;KAAA,DAAA,MAAA\"}",
			   0, 5, 12);
	/* a long line, cut into blocks */
	len = 0;
	text = malloc(200 + 300 * 6);
	assert_non_null(text);
	len += (size_t)sprintf(text, "{\"version\":3,\"sources\":[\"a.js\"],\"names\":[],"
				     "\"mappings\":\"AAAA;");
	for (i = 0; i < 300; i++)
		len += (size_t)sprintf(text + len, i % 5 == 4 ? "AACA," : "CACA,");
	strcpy(text + len - 1, "\"}");
	{
		size_t keep = pp_smap_block_min;

		pp_smap_block_min = 1;
		many_as_one_by_one(text, 0, 3, 300);
		pp_smap_block_min = keep;
	}
	free(text);
}

static void test_sourcemap_lookup_line(void **state)
{
	struct smap_map *m = load(
		"{\"version\":3,\"sources\":[\"a.js\",\"b.js\"],\"names\":[\"f\"],"
		"\"mappings\":\"AAAAA,EAAE,CAAC;AACA,ECAA;;IAAA\"}",
		0);
	struct smap_mapping r;

	(void)state;
	assert_int_equal(smap_lookup_line(m, 0, &r), SMAP_OK);
	assert_string_equal(r.source, "a.js");
	assert_int_equal(r.line, 0);
	assert_int_equal(r.column, 0);
	assert_null(r.name);
	assert_int_equal(smap_lookup_line(m, 1, &r), SMAP_NONE); /* a.js, b.js */
	assert_int_equal(smap_lookup_line(m, 2, &r), SMAP_NONE); /* empty */
	assert_int_equal(smap_lookup_line(m, 3, &r), SMAP_OK);
	assert_int_equal(r.generated_column, 4);
	assert_int_equal(smap_lookup_line(m, 9, &r), SMAP_NONE);
	smap_map_free(m);
}

/* With the script at hand, a segment that maps only the blanks a line
 * starts with (bun and esbuild give them to where the line before ended)
 * is not the line's code; the rest of a template begun on the line before
 * is. */
static void test_sourcemap_lookup_line_blanks(void **state)
{
	static const char map[] = "{\"version\":3,\"sources\":[\"a.js\"],\"names\":[],"
				  "\"mappings\":\"AAAA;AAAA,IACA;AACA;AACA,EACA\"}";
	static const char script[] = "x();\n    y();\n`a\n` + z;\n";
	struct smap_map *m = load(map, 0);
	struct smap_mapping r;

	(void)state;
	/* without the script, line 1's segments disagree */
	assert_int_equal(smap_lookup_line(m, 1, &r), SMAP_NONE);
	smap_map_free(m);

	m = load(map, 0);
	assert_int_equal(smap_map_set_script(m, script, sizeof(script) - 1), SMAP_OK);
	assert_int_equal(smap_lookup_line(m, 1, &r), SMAP_OK);
	assert_string_equal(r.source, "a.js");
	assert_int_equal(r.line, 1);
	assert_int_equal(r.generated_column, 4);
	/* "` + z;": its first column is the template's end, not a blank */
	assert_int_equal(smap_lookup_line(m, 3, &r), SMAP_NONE);
	smap_map_free(m);
}

/* ---- scopes ---- */

static void dump_scope(struct sb *b, const struct pp_smap_scopes *sc,
		       uint32_t x)
{
	const struct pp_smap_scope *o = &sc->scopes[x];
	uint32_t c, i;

	sb_put(b, "{\"start\":{\"line\":%u,\"column\":%u},"
		  "\"end\":{\"line\":%u,\"column\":%u},\"name\":",
	       o->sl, o->sc, o->el, o->ec);
	sb_str(b, o->name);
	sb_put(b, ",\"kind\":");
	sb_str(b, o->kind);
	sb_put(b, ",\"isStackFrame\":%s,\"variables\":[",
	       o->frame ? "true" : "false");
	for (i = 0; i < o->nvars; i++) {
		if (i)
			sb_put(b, ",");
		sb_str(b, o->vars[i]);
	}
	sb_put(b, "],\"children\":[");
	for (c = o->first_child; c != PP_SMAP_NIL; c = sc->scopes[c].next_sibling) {
		if (c != o->first_child)
			sb_put(b, ",");
		dump_scope(b, sc, c);
	}
	sb_put(b, "]}");
}

static void dump_range(struct sb *b, const struct pp_smap_scopes *sc,
		       uint32_t x)
{
	static const char *const type[] = { "none", "original", "hidden" };
	const struct pp_smap_range *r = &sc->ranges[x];
	uint32_t c;

	sb_put(b, "{\"start\":{\"line\":%u,\"column\":%u},"
		  "\"end\":{\"line\":%u,\"column\":%u},\"definitionIndex\":",
	       r->sl, r->sc, r->el, r->ec);
	if (r->def == PP_SMAP_NIL)
		sb_put(b, "null");
	else
		sb_put(b, "%u", r->def);
	sb_put(b, ",\"stackFrameType\":\"%s\",\"callSite\":", type[r->frame]);
	if (r->callsite)
		sb_put(b, "{\"sourceIndex\":%u,\"line\":%u,\"column\":%u}",
		       r->cs_src, r->cs_line, r->cs_col);
	else
		sb_put(b, "null");
	sb_put(b, ",\"bindings\":[],\"children\":[");
	for (c = r->first_child; c != PP_SMAP_NIL; c = sc->ranges[c].next_sibling) {
		if (c != r->first_child)
			sb_put(b, ",");
		dump_range(b, sc, c);
	}
	sb_put(b, "]}");
}

/* The decoded record in the goldens' shape (decoding/README.md). */
static void dump_record(struct sb *b, struct smap_map *m)
{
	struct pp_smap_section *s = &m->sec[0];
	struct pp_smap_scopes *sc;
	size_t i;
	uint32_t x;

	assert_int_equal(pp_smap_decode_scopes(m, s), SMAP_OK);
	sc = s->sx ? s->sx->dec : NULL;
	assert_non_null(sc);
	sb_put(b, "{\"file\":");
	sb_str(b, smap_map_file(m));
	sb_put(b, ",\"mappings\":[],\"sources\":[");
	for (i = 0; i < smap_map_source_count(m); i++) {
		if (i)
			sb_put(b, ",");
		sb_put(b, "{\"url\":");
		sb_str(b, smap_map_source(m, i));
		sb_put(b, ",\"content\":");
		sb_str(b, smap_map_source_content(m, i, NULL));
		sb_put(b, ",\"ignored\":%s,\"scope\":",
		       smap_map_source_ignored(m, i) ? "true" : "false");
		if (i < sc->nroot && sc->root[i] != PP_SMAP_NIL)
			dump_scope(b, sc, sc->root[i]);
		else
			sb_put(b, "null");
		sb_put(b, "}");
	}
	sb_put(b, "],\"ranges\":[");
	for (x = sc->first_top_range; x != PP_SMAP_NIL; x = sc->ranges[x].next_sibling) {
		if (x != sc->first_top_range)
			sb_put(b, ",");
		dump_range(b, sc, x);
	}
	sb_put(b, "]}");
}

static void test_sourcemap_scopes_goldens(void **state)
{
	static const char *const names[] = {
		"close-start-end-position-scopes", "empty-scopes-field",
		"multiple-root-original-scopes-with-nil", "nested-scopes",
		"nil-scopes", "scope-variables", "sibling-scopes",
		"single-root-original-scope",
	};
	const char *dir = suite_dir();
	size_t i;

	(void)state;
	if (!dir)
		skip();
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		char path[4300];
		char *text, *golden;
		size_t len, glen;
		struct smap_map *m;
		struct jv *g;
		struct sb want = { 0 }, got = { 0 };

		snprintf(path, sizeof(path), "%s/decoding/scopes/%s.map", dir,
			 names[i]);
		text = slurp(path, &len);
		assert_non_null(text);
		snprintf(path, sizeof(path), "%s/decoding/scopes/%s.map.golden",
			 dir, names[i]);
		golden = slurp(path, &glen);
		assert_non_null(golden);
		m = smap_map_new();
		assert_int_equal(smap_map_parse(m, text, len, SMAP_STRICT), SMAP_OK);
		dump_record(&got, m);
		g = jparse(golden, glen);
		jcanon(&want, g);
		if (strcmp(want.s, got.s) != 0)
			fail_msg("%s:\nwant %s\ngot  %s", names[i], want.s, got.s);
		assert_null(smap_map_warning(m));
		jfree(g);
		free(want.s);
		free(got.s);
		smap_map_free(m);
		free(text);
		free(golden);
	}
}

static void test_sourcemap_function_names(void **state)
{
	/* Original scopes of a.js: the module (0:0-10:0) around fnA
	 * (1:0-5:0, a function).  Generated ranges: the module 0:0-0:40
	 * around fnA's code 0:10-0:30. */
	struct smap_map *m = load(
		"{\"version\":3,\"sources\":[\"a.js\"],\"names\":[\"fnA\"],"
		"\"mappings\":\"AAAA;AACE\","
		"\"scopes\":\"BAAA,BFBAA,CEA,CFA,ECAA,EHAKC,FU,FK\"}",
		0);
	const char *name;

	(void)state;
	assert_true(smap_map_has_scopes(m));
	assert_int_equal(smap_lookup_function(m, 0, 5, &name), SMAP_NONE);
	assert_int_equal(smap_lookup_function(m, 0, 15, &name), SMAP_OK);
	assert_string_equal(name, "fnA");
	assert_int_equal(smap_lookup_function(m, 0, 30, &name), SMAP_NONE);
	/* no generated range there: through the mapping to a.js 1:2, inside
	 * fnA's original scope */
	assert_int_equal(smap_lookup_function(m, 1, 0, &name), SMAP_OK);
	assert_string_equal(name, "fnA");
	assert_null(smap_map_warning(m));
	smap_map_free(m);
	/* an anonymous function, and a map without scopes */
	m = load("{\"version\":3,\"sources\":[\"a.js\"],\"names\":[],"
		 "\"mappings\":\"AAAA\",\"scopes\":\"BAAA,BEAC,CAE,CBA\"}",
		 0);
	assert_int_equal(smap_lookup_function(m, 0, 0, &name), SMAP_NONE);
	smap_map_free(m);
	m = load("{\"version\":3,\"sources\":[\"a.js\"],\"names\":[],"
		 "\"mappings\":\"AAAC\",\"scopes\":\"BAAA,BEAA,CAE,CBA\"}",
		 0);
	assert_int_equal(smap_lookup_function(m, 0, 0, &name), SMAP_OK);
	assert_null(name);
	smap_map_free(m);
	m = load(basic, 0);
	assert_false(smap_map_has_scopes(m));
	assert_int_equal(smap_lookup_function(m, 0, 9, &name), SMAP_NONE);
	smap_map_free(m);
	/* a broken scopes field is a warning, never an error */
	m = load("{\"version\":3,\"sources\":[\"a.js\"],\"names\":[],"
		 "\"mappings\":\"AAAA\",\"scopes\":\"BAAA,B!\"}",
		 SMAP_STRICT);
	assert_int_equal(smap_lookup_function(m, 0, 0, &name), SMAP_NONE);
	assert_non_null(strstr(smap_map_warning(m), "scopes: invalid base64 VLQ"));
	smap_map_free(m);
}

/* A constructor after class fields, with TypeScript parameter properties:
 * esbuild puts the constructor first and its body (this.id=e) maps into
 * the original's parameter list ("public id"), four lines below the class
 * name.  The body's vote finds the constructor by its parameters. */
static void test_sourcemap_ctor_parameter_properties(void **state)
{
	static const char script[] = "var l=class{constructor(e){this.id=e}id;x=1;y=2;z=3};";
	struct smap_map *m = load(
		"{\"version\":3,\"sources\":[\"a.ts\"],\"sourcesContent\":[\"class S {\\n"
		"  x = 1;\\n  y = 2;\\n  z = 3;\\n  constructor(public id: number) {}\\n}\\n\"],"
		"\"names\":[\"S\",\"id\"],"
		"\"mappings\":\"AAAA,IAAMA,EAAN,MAIE,WAAA,CAAmBC,GAAP,KAAOA,GAAA,GAAA\"}",
		0);
	struct smap_function fn;

	(void)state;
	assert_int_equal(smap_map_set_script(m, script, strlen(script)), SMAP_OK);
	/* V8's position: the '(' after "constructor" */
	assert_int_equal(smap_function_at(m, 0, 23, &fn), SMAP_OK);
	assert_int_equal(fn.start, 1);
	assert_int_equal(fn.mapped, 1);
	assert_non_null(fn.name);
	assert_string_equal(fn.name, "S");
	assert_int_equal(fn.from, SMAP_FROM_SCRIPT);
	smap_map_free(m);
}

/* ---- finding maps ---- */

static const char *find(const char *script)
{
	static char buf[256];
	size_t n;
	const char *u = smap_script_find_url(script, strlen(script), &n);

	if (!u)
		return NULL;
	snprintf(buf, sizeof(buf), "%.*s", (int)n, u);
	return buf;
}

static void test_sourcemap_find_url(void **state)
{
	(void)state;
	assert_string_equal(find("x();\n//# sourceMappingURL=worker.js.map\n"),
			    "worker.js.map");
	assert_string_equal(find("x();\n//# sourceMappingURL=a.map"), "a.map");
	assert_string_equal(find("x();\r\n//@ sourceMappingURL=a.map  \r\n\r\n"),
			    "a.map");
	assert_string_equal(find("x();\n//# sourceMappingURL=a.map\n// end\n  \n"),
			    "a.map");
	assert_string_equal(find("//# sourceMappingURL=a.map\n"
				 "\t//# sourceMappingURL=b.map"),
			    "b.map");
	assert_string_equal(find("x();\xe2\x80\xa8//#  sourceMappingURL=u.map"),
			    "u.map");
	assert_null(find("x();\n//# sourceMappingURL=a.map\ny();\n"));
	assert_null(find("x(); //# sourceMappingURL=a.map\n"));
	assert_null(find("let a = `\n//# sourceMappingURL=a.map\n// `\n"));
	assert_null(find("x();\n//# sourceMappingURL=a.map b\n"));
	assert_null(find("/*\n//# sourceMappingURL=a.map */\n"));
	assert_null(find(""));
	assert_string_equal(find("//# sourceMappingURL="), "");
}

static void test_sourcemap_data_url(void **state)
{
	static const char json[] = "{\"version\":3,\"sources\":[\"a.js\"],"
				   "\"names\":[],\"mappings\":\"AAAA\"}";
	static const char b64[] =
		"eyJ2ZXJzaW9uIjozLCJzb3VyY2VzIjpbImEuanMiXSwibmFtZXMiOltdLCJtYXBwaW5ncyI6IkFBQUEifQ==";
	char url[512], *out;
	size_t n;
	struct smap_map *m;

	(void)state;
	snprintf(url, sizeof(url), "data:application/json;base64,%s", b64);
	assert_true(smap_url_is_data(url, strlen(url)));
	assert_int_equal(smap_data_url_decode(url, strlen(url), &out, &n), SMAP_OK);
	assert_int_equal(n, strlen(json));
	assert_string_equal(out, json);
	free(out);
	snprintf(url, sizeof(url),
		 "data:application/json;charset=utf-8;base64,%s", b64);
	m = smap_map_new();
	assert_int_equal(smap_map_load_url(m, "dist/worker.js", url, strlen(url), 0),
			 SMAP_OK);
	assert_string_equal(at(m, 0, 0), "a.js:0:0");
	smap_map_free(m);
	assert_int_equal(smap_data_url_decode("data:,%7B%22a%22%3A1%7D", 23, &out, &n),
			 SMAP_OK);
	assert_string_equal(out, "{\"a\":1}");
	free(out);
	assert_int_equal(smap_data_url_decode("data:;base64,@@", 15, &out, &n),
			 SMAP_EINPUT);
	assert_int_equal(smap_data_url_decode("data:nocomma", 12, &out, &n),
			 SMAP_EINPUT);
	assert_false(smap_url_is_data("x.map", 5));
}

static void test_sourcemap_url_to_path(void **state)
{
	static const char *const cases[][3] = {
		{ "dist/worker.js", "worker.js.map", "dist/worker.js.map" },
		{ "/a/b/worker.js", "../maps/w.map?v=1#x", "/a/b/../maps/w.map" },
		{ "worker.js", "w%20x.map", "w x.map" },
		{ "dist/w.js", "/abs/w.map", "/abs/w.map" },
		{ "dist/w.js", "file:///abs/w.map", "/abs/w.map" },
		{ "dist/w.js", "file://localhost/abs/w.map", "/abs/w.map" },
		{ NULL, "w.map", "w.map" },
		{ "dist/w.js", "https://cdn/w.map", NULL },
		{ "dist/w.js", "file://host/w.map", NULL },
		{ "dist/w.js", "data:,{}", NULL },
		{ "dist/w.js", "", NULL },
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *p = smap_url_to_path(cases[i][0], cases[i][1],
					   strlen(cases[i][1]));

		if (!cases[i][2]) {
			if (p)
				fail_msg("%s gave %s", cases[i][1], p);
			continue;
		}
		assert_non_null(p);
		assert_string_equal(p, cases[i][2]);
		free(p);
	}
}

/* ---- the ECMA-426 conformance suite ---- */

static bool check_action(const char *dir, struct smap_map *m,
			 const struct jv *a, const char *test)
{
	const char *type = jstr(jget(a, "actionType"));
	struct smap_mapping r;
	const struct jv *want_src, *want_line, *want_name, *inter;
	long gl, gc, wl, wc;
	size_t i;
	int rc;

	if (type && strcmp(type, "checkIgnoreList") == 0) {
		const struct jv *present = jget(a, "present");

		for (i = 0; present && i < present->n; i++) {
			size_t k;
			bool found = false;

			for (k = 0; k < smap_map_source_count(m); k++)
				if (smap_map_source(m, k) &&
				    strcmp(smap_map_source(m, k),
					   present->items[i]->s) == 0 &&
				    smap_map_source_ignored(m, k))
					found = true;
			if (!found) {
				print_message("# %s: %s not ignored\n", test,
					      present->items[i]->s);
				return false;
			}
		}
		return true;
	}
	gl = jnum(jget(a, "generatedLine"));
	gc = jnum(jget(a, "generatedColumn"));
	want_src = jget(a, "originalSource");
	want_line = jget(a, "originalLine");
	want_name = jget(a, "mappedName");
	wl = jnum(want_line);
	wc = jnum(jget(a, "originalColumn"));
	rc = smap_lookup(m, (uint32_t)gl, (uint32_t)gc, &r);
	inter = jget(a, "intermediateMaps");
	for (i = 0; inter && i < inter->n && rc == SMAP_OK; i++) {
		char path[4300];
		struct smap_map *im = smap_map_new();

		snprintf(path, sizeof(path), "%s/resources/%s", dir,
			 inter->items[i]->s);
		if (smap_map_load_file(im, path, 0) != SMAP_OK) {
			print_message("# %s: %s: %s\n", test, path,
				      smap_map_error(im));
			smap_map_free(im);
			return false;
		}
		rc = smap_lookup(im, r.line, r.column, &r);
		/* the strings must outlive the map: compare now */
		if (rc == SMAP_OK && i + 1 == inter->n) {
			bool ok = wl == (long)r.line && wc == (long)r.column &&
				  ((!jstr(want_src) && !r.source) ||
				   (jstr(want_src) && r.source &&
				    strcmp(jstr(want_src), r.source) == 0)) &&
				  ((!jstr(want_name) && !r.name) ||
				   (jstr(want_name) && r.name &&
				    strcmp(jstr(want_name), r.name) == 0));

			if (!ok)
				print_message("# %s: %ld:%ld gave %s:%u:%u\n", test,
					      gl, gc, r.source ? r.source : "null",
					      r.line, r.column);
			smap_map_free(im);
			return ok;
		}
		smap_map_free(im);
	}
	if (!want_line || want_line->type == JSON_NULL) {
		if (rc != SMAP_NONE)
			print_message("# %s: %ld:%ld should be unmapped\n", test, gl,
				      gc);
		return rc == SMAP_NONE;
	}
	if (rc != SMAP_OK) {
		print_message("# %s: %ld:%ld unmapped\n", test, gl, gc);
		return false;
	}
	if (wl != (long)r.line || wc != (long)r.column ||
	    !((!jstr(want_src) && !r.source) ||
	      (jstr(want_src) && r.source && strcmp(jstr(want_src), r.source) == 0)) ||
	    !((!jstr(want_name) && !r.name) ||
	      (jstr(want_name) && r.name && strcmp(jstr(want_name), r.name) == 0))) {
		print_message("# %s: %ld:%ld gave %s:%u:%u %s\n", test, gl, gc,
			      r.source ? r.source : "null", r.line, r.column,
			      r.name ? r.name : "");
		return false;
	}
	return true;
}

static void test_sourcemap_spec_suite(void **state)
{
	const char *dir = suite_dir();
	char path[4300];
	char *text;
	size_t len, i, k, pass = 0, total;
	struct jv *root, *tests;

	(void)state;
	if (!dir)
		skip();
	snprintf(path, sizeof(path), "%s/source-map-spec-tests.json", dir);
	text = slurp(path, &len);
	assert_non_null(text);
	root = jparse(text, len);
	tests = jget(root, "tests");
	assert_non_null(tests);
	total = tests->n;
	for (i = 0; i < tests->n; i++) {
		const struct jv *t = tests->items[i], *acts;
		const char *name = jstr(jget(t, "name"));
		bool valid = jget(t, "sourceMapIsValid")->type == JSON_TRUE, ok;
		struct smap_map *strict = smap_map_new(), *lenient = smap_map_new();
		int src, lrc;

		snprintf(path, sizeof(path), "%s/resources/%s", dir,
			 jstr(jget(t, "sourceMapFile")));
		src = smap_map_load_file(strict, path, SMAP_STRICT);
		lrc = smap_map_load_file(lenient, path, 0);
		ok = (src == SMAP_OK) == valid;
		if (!ok)
			print_message("# %s: strict load gave %d (%s)\n", name, src,
				      smap_map_error(strict));
		if (valid && lrc != SMAP_OK) {
			print_message("# %s: lenient load failed: %s\n", name,
				      smap_map_error(lenient));
			ok = false;
		}
		acts = jget(t, "testActions");
		for (k = 0; ok && valid && acts && k < acts->n; k++)
			ok = check_action(dir, lenient, acts->items[k], name);
		/* the same answers from the strictly loaded map */
		for (k = 0; ok && valid && acts && k < acts->n; k++)
			ok = check_action(dir, strict, acts->items[k], name);
		if (ok)
			pass++;
		smap_map_free(strict);
		smap_map_free(lenient);
	}
	print_message("# ECMA-426 conformance: %zu of %zu cases pass\n", pass,
		      total);
	assert_int_equal(pass, total);
	jfree(root);
	free(text);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sourcemap_basic),
		cmocka_unit_test(test_sourcemap_line_rules),
		cmocka_unit_test(test_sourcemap_ties_and_unsorted),
		cmocka_unit_test(test_sourcemap_long_unsorted_line),
		cmocka_unit_test(test_sourcemap_long_line_runs),
		cmocka_unit_test(test_sourcemap_vlq_limits),
		cmocka_unit_test(test_sourcemap_sources),
		cmocka_unit_test(test_sourcemap_resolve),
		cmocka_unit_test(test_sourcemap_ignore_list),
		cmocka_unit_test(test_sourcemap_prefix),
		cmocka_unit_test(test_sourcemap_index_map),
		cmocka_unit_test(test_sourcemap_index_map_errors),
		cmocka_unit_test(test_sourcemap_lazy),
		cmocka_unit_test(test_sourcemap_lenient),
		cmocka_unit_test(test_sourcemap_not_a_map),
		cmocka_unit_test(test_sourcemap_strict),
		cmocka_unit_test(test_sourcemap_lookup_line),
		cmocka_unit_test(test_sourcemap_lookup_line_blanks),
		cmocka_unit_test(test_sourcemap_lookup_many),
		cmocka_unit_test(test_sourcemap_blocks),
		cmocka_unit_test(test_sourcemap_scopes_goldens),
		cmocka_unit_test(test_sourcemap_function_names),
		cmocka_unit_test(test_sourcemap_ctor_parameter_properties),
		cmocka_unit_test(test_sourcemap_find_url),
		cmocka_unit_test(test_sourcemap_data_url),
		cmocka_unit_test(test_sourcemap_url_to_path),
		cmocka_unit_test(test_sourcemap_spec_suite),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
