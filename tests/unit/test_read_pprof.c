/* Unit tests of the pprof reader (read_pprof.c), on profiles encoded by
 * hand with the small encoder below. */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "pprof_private.h"

/* ---- a tiny protobuf encoder ---- */

struct enc {
	unsigned char *b;
	size_t n, cap;
};

static void put_byte(struct enc *e, unsigned char c)
{
	if (e->n == e->cap) {
		e->cap = e->cap ? e->cap * 2 : 256;
		e->b = realloc(e->b, e->cap);
		assert_non_null(e->b);
	}
	e->b[e->n++] = c;
}

static void put_raw(struct enc *e, const void *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		put_byte(e, ((const unsigned char *)p)[i]);
}

static void put_varint(struct enc *e, uint64_t v)
{
	while (v >= 0x80) {
		put_byte(e, (unsigned char)(v | 0x80));
		v >>= 7;
	}
	put_byte(e, (unsigned char)v);
}

static void put_key(struct enc *e, uint32_t field, uint32_t wt)
{
	put_varint(e, (uint64_t)field << 3 | wt);
}

/* A varint field (int64 values are their two's complement). */
static void put_uint(struct enc *e, uint32_t field, uint64_t v)
{
	put_key(e, field, 0);
	put_varint(e, v);
}

static void put_bytes(struct enc *e, uint32_t field, const void *p, size_t n)
{
	put_key(e, field, 2);
	put_varint(e, n);
	put_raw(e, p, n);
}

/* Appends SUB as field FIELD and empties SUB. */
static void put_msg(struct enc *e, uint32_t field, struct enc *sub)
{
	put_bytes(e, field, sub->b, sub->n);
	sub->n = 0;
}

static void put_packed(struct enc *e, uint32_t field, const int64_t *v, size_t n)
{
	struct enc t = {0};
	for (size_t i = 0; i < n; i++)
		put_varint(&t, (uint64_t)v[i]);
	put_bytes(e, field, t.b, t.n);
	free(t.b);
}

/* ---- a profile builder: strings are collected and written at the end
 * (as Go does it, after everything else) ---- */

struct pb {
	struct enc e;
	const char *strs[256];
	int nstrs;
};

static void pb_init(struct pb *b)
{
	memset(b, 0, sizeof(*b));
	b->strs[b->nstrs++] = "";
}

/* Index of S in the string table, added when new. */
static int64_t S(struct pb *b, const char *s)
{
	for (int i = 0; i < b->nstrs; i++)
		if (strcmp(b->strs[i], s) == 0)
			return i;
	assert_true(b->nstrs < 256);
	b->strs[b->nstrs] = s;
	return b->nstrs++;
}

static void pb_type(struct pb *b, const char *type, const char *unit)
{
	struct enc m = {0};
	put_uint(&m, 1, (uint64_t)S(b, type));
	put_uint(&m, 2, (uint64_t)S(b, unit));
	put_msg(&b->e, 1, &m);
	free(m.b);
}

static void pb_function(struct pb *b, uint64_t id, const char *name, const char *file)
{
	struct enc m = {0};
	put_uint(&m, 1, id);
	if (name)
		put_uint(&m, 2, (uint64_t)S(b, name));
	if (file)
		put_uint(&m, 4, (uint64_t)S(b, file));
	put_msg(&b->e, 5, &m);
	free(m.b);
}

static void pb_mapping(struct pb *b, uint64_t id, const char *file)
{
	struct enc m = {0};
	put_uint(&m, 1, id);
	put_uint(&m, 2, 0x400000);
	put_uint(&m, 3, 0x500000);
	if (file)
		put_uint(&m, 5, (uint64_t)S(b, file));
	put_msg(&b->e, 3, &m);
	free(m.b);
}

/* A location with N lines given as {function_id, line, column} triples,
 * innermost first (as in the proto). */
static void pb_location(struct pb *b, uint64_t id, uint64_t mapping, uint64_t address, size_t n,
			const int64_t (*lines)[3])
{
	struct enc m = {0}, l = {0};
	put_uint(&m, 1, id);
	if (mapping)
		put_uint(&m, 2, mapping);
	if (address)
		put_uint(&m, 3, address);
	for (size_t i = 0; i < n; i++) {
		if (lines[i][0])
			put_uint(&l, 1, (uint64_t)lines[i][0]);
		if (lines[i][1])
			put_uint(&l, 2, (uint64_t)lines[i][1]);
		if (lines[i][2])
			put_uint(&l, 3, (uint64_t)lines[i][2]);
		put_msg(&m, 4, &l);
	}
	put_msg(&b->e, 4, &m);
	free(m.b);
	free(l.b);
}

/* A location with one line of function FN (the common case). */
static void pb_loc1(struct pb *b, uint64_t id, uint64_t fn)
{
	const int64_t line[1][3] = {{(int64_t)fn, 0, 0}};
	pb_location(b, id, 0, 0, 1, line);
}

struct lbl {
	const char *key, *str;
	int64_t num;
	const char *unit;
};

/* A sample: location ids leaf first, values, labels (NULL-key ended). */
static void pb_sample_l(struct pb *b, const int64_t *locs, size_t nlocs, const int64_t *vals,
			size_t nvals, const struct lbl *labels)
{
	struct enc m = {0}, l = {0};
	put_packed(&m, 1, locs, nlocs);
	put_packed(&m, 2, vals, nvals);
	for (; labels && labels->key; labels++) {
		put_uint(&l, 1, (uint64_t)S(b, labels->key));
		if (labels->str)
			put_uint(&l, 2, (uint64_t)S(b, labels->str));
		if (labels->num)
			put_uint(&l, 3, (uint64_t)labels->num);
		if (labels->unit)
			put_uint(&l, 4, (uint64_t)S(b, labels->unit));
		put_msg(&m, 3, &l);
	}
	put_msg(&b->e, 2, &m);
	free(m.b);
	free(l.b);
}

#define LOCS(...) ((const int64_t[]){__VA_ARGS__}), sizeof((const int64_t[]){__VA_ARGS__}) / 8
#define VALS LOCS

static void pb_sample(struct pb *b, const int64_t *locs, size_t nlocs, const int64_t *vals,
		      size_t nvals)
{
	pb_sample_l(b, locs, nlocs, vals, nvals, NULL);
}

static void pb_strings(struct pb *b)
{
	for (int i = 0; i < b->nstrs; i++)
		put_bytes(&b->e, 6, b->strs[i], strlen(b->strs[i]));
}

/* Writes the string table and returns the bytes (owned by B). */
static const struct enc *pb_finish(struct pb *b)
{
	pb_strings(b);
	return &b->e;
}

static void pb_release(struct pb *b)
{
	free(b->e.b);
}

/* ---- reading ---- */

static int read_enc(struct pprof_profile *p, const struct enc *e)
{
	return pprof_read_buffer(p, e->b, e->n, NULL);
}

static struct pprof_profile *read_ok(const struct enc *e)
{
	struct pprof_profile *p = pprof_profile_new();
	assert_non_null(p);
	if (read_enc(p, e) != PPROF_OK)
		fail_msg("read failed: %s", pprof_profile_error(p));
	assert_int_equal(pprof_profile_format(p), PPROF_FMT_PPROF);
	return p;
}

/* Folds P at sample index SEL (-1: the default) into a malloc'd string. */
static char *fold_str(struct pprof_profile *p, int sel, enum pprof_granularity g)
{
	if (sel < 0)
		sel = pprof_sample_type_select(p, NULL);
	struct pprof_fold_options o = {sel, g};
	struct pprof_folded *f = NULL;
	assert_int_equal(pprof_fold(p, &o, &f), PPROF_OK);
	struct pp_buf b;
	pp_buf_init(&b);
	for (size_t i = 0; i < f->n; i++) {
		pp_buf_add(&b, f->lines[i].stack, f->lines[i].len);
		pp_buf_addf(&b, " %lld\n", (long long)f->lines[i].value);
	}
	pprof_folded_free(f);
	char *s = strdup(b.s);
	pp_buf_release(&b);
	return s;
}

static void expect_fold(struct pb *b, const char *want)
{
	struct pprof_profile *p = read_ok(pb_finish(b));
	char *got = fold_str(p, -1, PPROF_G_FUNCTIONS);
	assert_string_equal(got, want);
	free(got);
	pprof_profile_free(p);
}

/* Expects reading to fail with exactly message WANT. */
static void expect_error(const struct enc *e, const char *want)
{
	struct pprof_profile *p = pprof_profile_new();
	assert_non_null(p);
	assert_int_equal(read_enc(p, e), PPROF_EINPUT);
	assert_string_equal(pprof_profile_error(p), want);
	pprof_profile_free(p);
}

/* The frames of the one entry's stack, root first, as "name[flags]" with
 * flags i (inlined), n (no symbol), a (address). */
static char *entry_frames(struct pprof_profile *p, uint32_t e)
{
	uint32_t path[64], n = 0;
	for (uint32_t node = p->entries[e].node; node; node = p->nodes[node].parent) {
		assert_true(n < 64);
		path[n++] = node;
	}
	struct pp_buf b;
	pp_buf_init(&b);
	while (n-- > 0) {
		const struct pp_frame *f = &p->frames[p->nodes[path[n]].frame];
		pp_buf_addf(&b, "%s%s", b.len ? ";" : "", f->name ? pp_str(p, f->name) : "");
		if (f->flags & PP_FRAME_INLINED)
			pp_buf_addc(&b, 'i');
		if (f->flags & PP_FRAME_NO_SYMBOL)
			pp_buf_addc(&b, 'n');
		if (f->flags & PP_FRAME_HAS_ADDRESS)
			pp_buf_addf(&b, "@%llx", (unsigned long long)f->address);
		if (f->mapping)
			pp_buf_addf(&b, "[%s]", pp_str(p, f->mapping));
		if (f->file)
			pp_buf_addf(&b, " %s:%lld:%lld", pp_str(p, f->file), (long long)f->line,
				    (long long)f->column);
	}
	char *s = strdup(b.s);
	pp_buf_release(&b);
	return s;
}

/* ---- tests ---- */

static void test_read_pprof_basic(void **state)
{
	(void)state;
	struct pb b;
	pb_init(&b);
	pb_type(&b, "samples", "count");
	pb_type(&b, "cpu", "nanoseconds");
	/* samples before the locations and functions, as Go writes them */
	pb_sample(&b, LOCS(3, 2, 1), VALS(1, 10));
	pb_sample(&b, LOCS(2, 1), VALS(2, 20));
	pb_sample(&b, LOCS(3, 2, 1), VALS(4, 40));
	pb_loc1(&b, 1, 1);
	pb_loc1(&b, 2, 2);
	pb_loc1(&b, 3, 3);
	pb_function(&b, 1, "main", "main.go");
	pb_function(&b, 2, "a", "a.go");
	pb_function(&b, 3, "b", "b.go");
	struct pprof_profile *p = read_ok(pb_finish(&b));
	assert_int_equal(pprof_sample_type_count(p), 2);
	assert_string_equal(pprof_sample_type_name(p, 1), "cpu");
	assert_string_equal(pprof_sample_type_unit(p, 0), "count");
	assert_int_equal(pprof_sample_type_select(p, NULL), 1);
	char *got = fold_str(p, 0, PPROF_G_FUNCTIONS);
	assert_string_equal(got, "main;a 2\nmain;a;b 5\n");
	free(got);
	got = fold_str(p, 1, PPROF_G_LINES);
	assert_string_equal(got, "main main.go;a a.go 20\nmain main.go;a a.go;b b.go 50\n");
	free(got);
	pprof_profile_free(p);
	pb_release(&b);
}

static void test_read_pprof_inline_order(void **state)
{
	(void)state;
	struct pb b;
	pb_init(&b);
	pb_type(&b, "cpu", "nanoseconds");
	pb_function(&b, 1, "main", "main.c");
	pb_function(&b, 2, "parse", "parse.c");
	pb_function(&b, 3, "strlen_inl", "str.h");
	pb_function(&b, 4, "memcpy_inl", "str.h");
	pb_mapping(&b, 1, "/usr/bin/app");
	pb_loc1(&b, 1, 1);
	/* line[0] is the innermost callee, the last line the caller */
	const int64_t lines[3][3] = {{4, 33, 7}, {3, 6, 0}, {2, 25, 3}};
	pb_location(&b, 2, 1, 0x402010, 3, lines);
	pb_sample(&b, LOCS(2, 1), VALS(5));
	struct pprof_profile *p = read_ok(pb_finish(&b));
	assert_int_equal(p->nentries, 1);
	char *got = entry_frames(p, 0);
	assert_string_equal(got, "main main.c:0:0;"
				 "parse@402010[app] parse.c:25:3;"
				 "strlen_inli@402010[app] str.h:6:0;"
				 "memcpy_inli@402010[app] str.h:33:7");
	free(got);
	assert_true(p->have_columns);
	got = fold_str(p, -1, PPROF_G_FUNCTIONS);
	assert_string_equal(got, "main;parse;strlen_inl;memcpy_inl 5\n");
	free(got);
	pprof_profile_free(p);
	pb_release(&b);
}

static void test_read_pprof_no_symbol(void **state)
{
	(void)state;
	struct pb b;
	pb_init(&b);
	pb_type(&b, "cpu", "nanoseconds");
	pb_function(&b, 1, "main", "main.c");
	pb_function(&b, 2, "", "anon.c"); /* empty name */
	pb_mapping(&b, 1, "/lib/x86_64/libfoo.so.6");
	pb_mapping(&b, 2, "");
	pb_mapping(&b, 3, "/");
	pb_loc1(&b, 1, 1);
	pb_location(&b, 2, 1, 0x1234, 0, NULL);   /* no lines, a mapping */
	pb_location(&b, 3, 0, 0xdeadbeef, 0, NULL); /* no lines, no mapping */
	const int64_t anon[1][3] = {{2, 2, 0}};
	pb_location(&b, 4, 1, 0x5000, 1, anon);
	const int64_t nofn[1][3] = {{0, 9, 0}}; /* function_id 0 */
	pb_location(&b, 5, 1, 0x6000, 1, nofn);
	pb_location(&b, 6, 2, 0x7000, 0, NULL); /* mapping without a file name */
	pb_location(&b, 7, 3, 0, 0, NULL);
	pb_sample(&b, LOCS(3, 2, 1), VALS(1));
	pb_sample(&b, LOCS(4, 1), VALS(2));
	pb_sample(&b, LOCS(5, 1), VALS(4));
	pb_sample(&b, LOCS(6, 1), VALS(8));
	pb_sample(&b, LOCS(7, 1), VALS(16));
	struct pprof_profile *p = read_ok(pb_finish(&b));
	assert_int_equal(p->nentries, 5);
	const char *want[] = {
		"main main.c:0:0;n@1234[libfoo.so.6];n@deadbeef",
		"main main.c:0:0;n@5000[libfoo.so.6] anon.c:2:0",
		"main main.c:0:0;n@6000[libfoo.so.6]",
		"main main.c:0:0;n@7000",
		"main main.c:0:0;n[/]",
	};
	for (uint32_t e = 0; e < 5; e++) {
		char *got = entry_frames(p, e);
		assert_string_equal(got, want[e]);
		free(got);
	}
	char *got = fold_str(p, -1, PPROF_G_FUNCTIONS);
	assert_string_equal(got, "main;<unknown> 8\n"
				 "main;[/] 16\n"
				 "main;[libfoo.so.6] 6\n"
				 "main;[libfoo.so.6];<unknown> 1\n");
	free(got);
	pprof_profile_free(p);
	pb_release(&b);
}

static void test_read_pprof_multiple_types_default(void **state)
{
	(void)state;
	/* default_sample_type names a type: its index */
	struct pb b;
	pb_init(&b);
	pb_type(&b, "alloc_objects", "count");
	pb_type(&b, "alloc_space", "bytes");
	pb_type(&b, "inuse_space", "bytes");
	pb_function(&b, 1, "main", NULL);
	pb_loc1(&b, 1, 1);
	pb_sample(&b, LOCS(1), VALS(1, 100, 50));
	put_uint(&b.e, 14, (uint64_t)S(&b, "alloc_space"));
	struct pprof_profile *p = read_ok(pb_finish(&b));
	assert_int_equal(p->default_type, 1);
	assert_int_equal(pprof_sample_type_select(p, NULL), 1);
	assert_int_equal(pprof_sample_type_select(p, "inuse_space"), 2);
	assert_int_equal(pprof_sample_type_select(p, "space"), -1);
	char *got = fold_str(p, -1, PPROF_G_FUNCTIONS);
	assert_string_equal(got, "main 100\n");
	free(got);
	pprof_profile_free(p);
	pb_release(&b);

	/* naming no type (or none at all): the last */
	pb_init(&b);
	pb_type(&b, "samples", "count");
	pb_type(&b, "cpu", "nanoseconds");
	pb_function(&b, 1, "main", NULL);
	pb_loc1(&b, 1, 1);
	pb_sample(&b, LOCS(1), VALS(1, 100));
	put_uint(&b.e, 14, (uint64_t)S(&b, "wall"));
	p = read_ok(pb_finish(&b));
	assert_int_equal(p->default_type, -1);
	assert_int_equal(pprof_sample_type_select(p, NULL), 1);
	pprof_profile_free(p);
	pb_release(&b);
}

static void test_read_pprof_negative_values(void **state)
{
	(void)state;
	struct pb b;
	pb_init(&b);
	pb_type(&b, "samples", "count");
	pb_type(&b, "cpu", "nanoseconds");
	pb_function(&b, 1, "main", NULL);
	pb_function(&b, 2, "f", NULL);
	pb_loc1(&b, 1, 1);
	pb_loc1(&b, 2, 2);
	pb_sample(&b, LOCS(2, 1), VALS(-3, -30000000));
	pb_sample(&b, LOCS(1), VALS(2, INT64_MIN));
	pb_sample(&b, LOCS(2, 1), VALS(1, 10000000));
	struct pprof_profile *p = read_ok(pb_finish(&b));
	assert_int_equal(p->nentries, 2);
	assert_int_equal(p->values[0], -2);
	assert_int_equal(p->values[1], -20000000);
	assert_int_equal(p->values[2], 2);
	assert_int_equal(p->values[3], INT64_MIN);
	char *got = fold_str(p, 0, PPROF_G_FUNCTIONS);
	assert_string_equal(got, "main 2\nmain;f -2\n");
	free(got);
	pprof_profile_free(p);
	pb_release(&b);
}

static void test_read_pprof_unpacked_and_unknown_fields(void **state)
{
	(void)state;
	struct pb b;
	pb_init(&b);
	pb_type(&b, "samples", "count");
	pb_type(&b, "cpu", "nanoseconds");
	pb_function(&b, 1, "main", NULL);
	pb_function(&b, 2, "f", NULL);
	pb_loc1(&b, 1, 1);
	pb_loc1(&b, 2, 2);
	/* a sample with unpacked ids and values, and unknown fields of every
	 * wire type, at the top level and inside */
	struct enc m = {0};
	put_uint(&m, 1, 2);
	put_uint(&m, 2, 5);
	put_uint(&m, 1, 1);
	put_uint(&m, 9, 77);
	put_key(&m, 10, 1);
	put_raw(&m, "12345678", 8);
	put_key(&m, 11, 5);
	put_raw(&m, "1234", 4);
	put_bytes(&m, 12, "xyz", 3);
	put_uint(&m, 2, 50);
	put_msg(&b.e, 2, &m);
	free(m.b);
	put_uint(&b.e, 99, 1);
	put_bytes(&b.e, 100, "junk", 4);
	expect_fold(&b, "main;f 50\n");
	pb_release(&b);
}

/* One location under many parents, in turn: the steps a location
 * remembers must never lead a sample to another parent's node. */
static void test_read_pprof_shared_location(void **state)
{
	(void)state;
	struct pb b;
	pb_init(&b);
	pb_type(&b, "samples", "count");
	static const char *names[] = {"main", "p1", "p2", "p3", "p4", "leaf", "x"};
	for (int i = 0; i < 7; i++) {
		pb_function(&b, (uint64_t)i + 1, names[i], NULL);
		pb_loc1(&b, (uint64_t)i + 1, (uint64_t)i + 1);
	}
	/* location 6 (leaf) under p1..p4 and main, alternating, and location 7
	 * under leaf in each of those places */
	for (int round = 0; round < 3; round++) {
		for (int64_t parent = 2; parent <= 5; parent++) {
			pb_sample(&b, LOCS(6, parent, 1), VALS(1));
			pb_sample(&b, LOCS(7, 6, parent, 1), VALS(10));
		}
		pb_sample(&b, LOCS(6, 1), VALS(100));
		pb_sample(&b, LOCS(7, 6, 5, 1), VALS(1000));
		pb_sample(&b, LOCS(6, 4, 3, 2, 1), VALS(10000));
	}
	expect_fold(&b, "main;leaf 300\n"
			"main;p1;leaf 3\n"
			"main;p1;leaf;x 30\n"
			"main;p1;p2;p3;leaf 30000\n"
			"main;p2;leaf 3\n"
			"main;p2;leaf;x 30\n"
			"main;p3;leaf 3\n"
			"main;p3;leaf;x 30\n"
			"main;p4;leaf 3\n"
			"main;p4;leaf;x 3030\n");
	pb_release(&b);
}

static void test_read_pprof_sparse_ids(void **state)
{
	(void)state;
	struct pb b;
	pb_init(&b);
	pb_type(&b, "cpu", "nanoseconds");
	pb_function(&b, 1000000007, "main", NULL);
	pb_function(&b, 0xffffffffffffull, "f", NULL);
	pb_loc1(&b, 123456789012345ull, 1000000007);
	pb_loc1(&b, 0xfffffffffffffff0ull, 0xffffffffffffull);
	pb_sample(&b, LOCS((int64_t)0xfffffffffffffff0ull, 123456789012345), VALS(7));
	expect_fold(&b, "main;f 7\n");
	pb_release(&b);
}

static void test_read_pprof_labels(void **state)
{
	(void)state;
	struct pb b;
	pb_init(&b);
	pb_type(&b, "space", "bytes");
	pb_function(&b, 1, "main", NULL);
	pb_loc1(&b, 1, 1);
	const struct lbl l1[] = {{"thread", "main", 0, NULL},
				 {"bytes", NULL, 100, "bytes"},
				 {"tag", "b", 0, NULL},
				 {"tag", "a", 0, NULL},
				 {"n", NULL, -5, NULL},
				 {"empty", NULL, 0, NULL}, /* neither: ignored as pprof does */
				 {NULL, NULL, 0, NULL}};
	/* the same set in another order */
	const struct lbl l2[] = {{"tag", "a", 0, NULL},
				 {"n", NULL, -5, NULL},
				 {"tag", "b", 0, NULL},
				 {"bytes", NULL, 100, "bytes"},
				 {"thread", "main", 0, NULL},
				 {NULL, NULL, 0, NULL}};
	const struct lbl l3[] = {{"thread", "io", 0, NULL}, {NULL, NULL, 0, NULL}};
	const struct lbl l4[] = {{"empty", NULL, 0, NULL}, {NULL, NULL, 0, NULL}};
	pb_sample_l(&b, LOCS(1), VALS(1), l1);
	pb_sample_l(&b, LOCS(1), VALS(2), l3);
	pb_sample_l(&b, LOCS(1), VALS(4), l2);
	pb_sample_l(&b, LOCS(1), VALS(8), l4);
	pb_sample(&b, LOCS(1), VALS(16));
	struct pprof_profile *p = read_ok(pb_finish(&b));
	assert_int_equal(p->nentries, 3);
	assert_int_equal(p->entries[0].labels, p->entries[0].labels);
	/* entry 0: l1 = l2 (1 + 4); entry 1: l3; entry 2: no labels (8 + 16) */
	assert_int_equal(p->values[0], 5);
	assert_int_equal(p->values[1], 2);
	assert_int_equal(p->values[2], 24);
	assert_int_equal(p->entries[2].labels, 0);
	uint32_t set = p->entries[0].labels;
	uint32_t lo = p->labelsets[set], hi = p->labelsets[set + 1];
	assert_int_equal(hi - lo, 5);
	struct pp_buf s;
	pp_buf_init(&s);
	for (uint32_t i = lo; i < hi; i++) {
		const struct pp_label *l = &p->labels[i];
		pp_buf_addf(&s, "%s=", pp_str(p, l->key));
		if (l->str)
			pp_buf_addf(&s, "%s ", pp_str(p, l->str));
		else
			pp_buf_addf(&s, "%lld%s ", (long long)l->num, pp_str(p, l->unit));
	}
	/* sorted by key id, then value: the ids follow first appearance
	 * ("bytes" is a unit before it is a key) */
	assert_string_equal(s.s, "bytes=100bytes thread=main tag=b tag=a n=-5 ");
	pp_buf_release(&s);
	pprof_profile_free(p);
	pb_release(&b);
}

static void test_read_pprof_metadata(void **state)
{
	(void)state;
	struct pb b;
	pb_init(&b);
	pb_type(&b, "cpu", "nanoseconds");
	put_uint(&b.e, 9, 1700000000123456789ull);
	put_uint(&b.e, 10, 5000000000ull);
	struct enc m = {0};
	put_uint(&m, 1, (uint64_t)S(&b, "cpu"));
	put_uint(&m, 2, (uint64_t)S(&b, "nanoseconds"));
	put_msg(&b.e, 11, &m);
	free(m.b);
	put_uint(&b.e, 12, 10000000);
	put_uint(&b.e, 13, (uint64_t)S(&b, "first comment"));
	put_packed(&b.e, 13, (const int64_t[]){S(&b, "second"), S(&b, "third")}, 2);
	put_uint(&b.e, 15, (uint64_t)S(&b, "https://example.com/doc"));
	struct pprof_profile *p = read_ok(pb_finish(&b));
	assert_int_equal(p->time_nanos, 1700000000123456789ll);
	assert_int_equal(p->duration_nanos, 5000000000ll);
	assert_int_equal(p->period, 10000000);
	assert_string_equal(pp_str(p, p->period_type.type), "cpu");
	assert_string_equal(pp_str(p, p->period_type.unit), "nanoseconds");
	assert_int_equal(p->ncomments, 3);
	assert_string_equal(pp_str(p, p->comments[0]), "first comment");
	assert_string_equal(pp_str(p, p->comments[2]), "third");
	assert_string_equal(pp_str(p, p->doc_url), "https://example.com/doc");
	assert_int_equal(p->nentries, 0);
	pprof_profile_free(p);
	pb_release(&b);
}

static void test_read_pprof_two_inputs(void **state)
{
	(void)state;
	struct pb b;
	pb_init(&b);
	pb_type(&b, "samples", "count");
	pb_type(&b, "cpu", "nanoseconds");
	pb_function(&b, 1, "main", NULL);
	pb_loc1(&b, 1, 1);
	pb_sample(&b, LOCS(1), VALS(1, 10));
	put_uint(&b.e, 13, (uint64_t)S(&b, "one"));
	const struct enc *e = pb_finish(&b);
	struct pprof_profile *p = pprof_profile_new();
	assert_int_equal(read_enc(p, e), PPROF_OK);
	assert_int_equal(read_enc(p, e), PPROF_OK);
	char *got = fold_str(p, -1, PPROF_G_FUNCTIONS);
	assert_string_equal(got, "main 20\n");
	free(got);
	assert_int_equal(p->ncomments, 2);
	pprof_profile_free(p);
	pb_release(&b);
}

/* ---- drop_frames / keep_frames, as google/pprof's profile/prune.go ---- */

/* Functions 1..7: main, a, b, runtime.mallocgc, malloc, "c(int)",
 * ".d", each in location of the same id. */
static void prune_profile(struct pb *b, const char *drop, const char *keep)
{
	pb_init(b);
	pb_type(b, "samples", "count");
	const char *names[] = {"main", "a", "b", "runtime.mallocgc", "malloc", "c(int)", ".d"};
	for (int i = 0; i < 7; i++) {
		pb_function(b, (uint64_t)i + 1, names[i], NULL);
		pb_loc1(b, (uint64_t)i + 1, (uint64_t)i + 1);
	}
	if (drop)
		put_uint(&b->e, 7, (uint64_t)S(b, drop));
	if (keep)
		put_uint(&b->e, 8, (uint64_t)S(b, keep));
}

static void test_read_pprof_drop_frames(void **state)
{
	(void)state;
	struct pb b;
	/* the outermost match after the first user frame cuts the stack
	 * there, whatever comes beneath it */
	prune_profile(&b, "runtime\\..*|malloc", NULL);
	pb_sample(&b, LOCS(5, 4, 2, 1), VALS(1));       /* main;a;mallocgc;malloc */
	pb_sample(&b, LOCS(2, 5, 3, 1), VALS(2));       /* main;b;malloc;a */
	pb_sample(&b, LOCS(3, 2, 1), VALS(4));          /* untouched */
	pb_sample(&b, LOCS(2, 5, 4, 1), VALS(8));       /* main;mallocgc;malloc;a */
	expect_fold(&b, "main 8\nmain;a 1\nmain;a;b 4\nmain;b 2\n");
	pb_release(&b);

	/* frames on the root side before the first user frame stay; a stack
	 * that is all matches stays whole */
	prune_profile(&b, "runtime\\..*|malloc", NULL);
	pb_sample(&b, LOCS(2, 1, 4), VALS(1));          /* mallocgc;main;a */
	pb_sample(&b, LOCS(5, 4), VALS(2));             /* mallocgc;malloc */
	pb_sample(&b, LOCS(5, 2, 4), VALS(4));          /* mallocgc;a;malloc */
	expect_fold(&b, "runtime.mallocgc;a 4\nruntime.mallocgc;main;a 1\n"
			"runtime.mallocgc;malloc 2\n");
	pb_release(&b);

	/* anchored: "mall" matches nothing; alternatives in the group */
	prune_profile(&b, "mall|b", NULL);
	pb_sample(&b, LOCS(5, 3, 2, 1), VALS(1));
	expect_fold(&b, "main;a 1\n");
	pb_release(&b);

	/* the name is simplified first: "c(int)" is "c", ".d" is "d" */
	prune_profile(&b, "c|d", NULL);
	pb_sample(&b, LOCS(2, 6, 1), VALS(1));
	pb_sample(&b, LOCS(2, 7, 1), VALS(2));
	expect_fold(&b, "main 3\n");
	pb_release(&b);
}

static void test_read_pprof_keep_frames(void **state)
{
	(void)state;
	struct pb b;
	/* keep_frames overrides drop_frames */
	prune_profile(&b, "runtime\\..*|malloc", "malloc");
	pb_sample(&b, LOCS(5, 4, 2, 1), VALS(1));
	pb_sample(&b, LOCS(3, 5, 2, 1), VALS(2));
	expect_fold(&b, "main;a 1\nmain;a;malloc;b 2\n");
	pb_release(&b);

	/* keep_frames alone does nothing */
	prune_profile(&b, NULL, "main|a");
	pb_sample(&b, LOCS(5, 4, 2, 1), VALS(1));
	expect_fold(&b, "main;a;runtime.mallocgc;malloc 1\n");
	pb_release(&b);
}

static void test_read_pprof_drop_frames_inlined(void **state)
{
	(void)state;
	struct pb b;
	pb_init(&b);
	pb_type(&b, "samples", "count");
	pb_function(&b, 1, "main", NULL);
	pb_function(&b, 2, "outer", NULL);
	pb_function(&b, 3, "mid_inl", NULL);
	pb_function(&b, 4, "leaf_inl", NULL);
	pb_function(&b, 5, "a", NULL);
	pb_loc1(&b, 1, 1);
	pb_loc1(&b, 5, 5);
	/* location 2: outer <- mid_inl <- leaf_inl (innermost first) */
	const int64_t l2[3][3] = {{4, 3, 0}, {3, 2, 0}, {2, 1, 0}};
	pb_location(&b, 2, 0, 0, 3, l2);
	/* location 3: mid_inl inlined into a */
	const int64_t l3[2][3] = {{3, 2, 0}, {5, 9, 0}};
	pb_location(&b, 3, 0, 0, 2, l3);
	put_uint(&b.e, 7, (uint64_t)S(&b, "mid_inl"));
	/* a match inside a location keeps the lines outside it and cuts the
	 * stack after it */
	pb_sample(&b, LOCS(5, 2, 1), VALS(1));
	/* the location is cut even where the stack is not (no user frame
	 * before it) */
	pb_sample(&b, LOCS(5, 2), VALS(2));
	pb_sample(&b, LOCS(5, 3, 1), VALS(4));
	struct pprof_profile *p = read_ok(pb_finish(&b));
	char *got = fold_str(p, -1, PPROF_G_FUNCTIONS);
	assert_string_equal(got, "main;a 4\nmain;outer 1\nouter;a 2\n");
	free(got);
	pprof_profile_free(p);
	pb_release(&b);

	/* a match on the outermost line drops the whole location */
	pb_init(&b);
	pb_type(&b, "samples", "count");
	pb_function(&b, 1, "main", NULL);
	pb_function(&b, 2, "outer", NULL);
	pb_function(&b, 3, "inl", NULL);
	pb_loc1(&b, 1, 1);
	const int64_t l[2][3] = {{3, 0, 0}, {2, 0, 0}};
	pb_location(&b, 2, 0, 0, 2, l);
	put_uint(&b.e, 7, (uint64_t)S(&b, "outer"));
	pb_sample(&b, LOCS(2, 1), VALS(1));
	pb_sample(&b, LOCS(2), VALS(2));
	expect_fold(&b, "main 1\nouter;inl 2\n");
	pb_release(&b);
}

static void test_read_pprof_bad_regex(void **state)
{
	(void)state;
	struct pb b;
	prune_profile(&b, "a(", NULL);
	pb_sample(&b, LOCS(1), VALS(1));
	struct pprof_profile *p = pprof_profile_new();
	assert_int_equal(read_enc(p, pb_finish(&b)), PPROF_EINPUT);
	assert_non_null(strstr(pprof_profile_error(p), "bad drop_frames regular expression"));
	pprof_profile_free(p);
	pb_release(&b);
}

/* ---- errors ---- */

static void test_read_pprof_errors(void **state)
{
	(void)state;
	struct pb b;
	struct enc e = {0};

	/* string_table[0] must be "" */
	put_bytes(&e, 6, "x", 1);
	expect_error(&e, "string_table[0] is not empty (at byte 0)");
	e.n = 0;

	/* no string table at all */
	put_uint(&e, 9, 1);
	expect_error(&e, "no string table (at byte 0)");
	e.n = 0;

	/* truncated: a length past the end */
	put_key(&e, 2, 2);
	put_varint(&e, 10);
	put_raw(&e, "abc", 3);
	expect_error(&e, "truncated profile: field 2 needs 10 bytes, 3 left (at byte 0)");
	e.n = 0;

	/* truncated varint */
	put_bytes(&e, 6, "", 0);
	put_byte(&e, 0x48);
	put_byte(&e, 0x80);
	expect_error(&e, "truncated profile (at byte 2)");
	e.n = 0;

	/* varint longer than 64 bits */
	put_bytes(&e, 6, "", 0);
	put_byte(&e, 0x48);
	for (int i = 0; i < 9; i++)
		put_byte(&e, 0xff);
	put_byte(&e, 0x02);
	expect_error(&e, "varint overflow in profile (at byte 2)");
	e.n = 0;

	/* wire types */
	put_bytes(&e, 6, "", 0);
	put_key(&e, 9, 2);
	put_varint(&e, 0);
	expect_error(&e, "bad wire type 2 for field 9 of profile (at byte 2)");
	e.n = 0;
	put_bytes(&e, 6, "", 0);
	put_key(&e, 20, 3);
	expect_error(&e, "bad wire type 3 in profile (at byte 2)");
	e.n = 0;
	free(e.b);

	/* value count */
	pb_init(&b);
	pb_type(&b, "cpu", "nanoseconds");
	pb_function(&b, 1, "main", NULL);
	pb_loc1(&b, 1, 1);
	pb_sample(&b, LOCS(1), VALS(1, 2));
	expect_error(pb_finish(&b), "sample has 2 values for 1 sample types (at byte 20)");
	pb_release(&b);

	/* samples but no sample types */
	pb_init(&b);
	pb_function(&b, 1, "main", NULL);
	pb_loc1(&b, 1, 1);
	pb_sample(&b, LOCS(1), NULL, 0);
	expect_error(pb_finish(&b), "sample without sample types in the profile (at byte 14)");
	pb_release(&b);

	/* dangling location id */
	pb_init(&b);
	pb_type(&b, "cpu", "nanoseconds");
	pb_function(&b, 1, "main", NULL);
	pb_loc1(&b, 1, 1);
	pb_sample(&b, LOCS(1, 99), VALS(1));
	expect_error(pb_finish(&b), "sample refers to missing location 99 (at byte 22)");
	pb_release(&b);

	/* dangling function id */
	pb_init(&b);
	pb_type(&b, "cpu", "nanoseconds");
	pb_function(&b, 1, "main", NULL);
	pb_loc1(&b, 1, 2);
	expect_error(pb_finish(&b), "location 1 refers to missing function 2 (at byte 16)");
	pb_release(&b);

	/* dangling mapping id */
	pb_init(&b);
	pb_type(&b, "cpu", "nanoseconds");
	pb_location(&b, 1, 3, 0x10, 0, NULL);
	expect_error(pb_finish(&b), "location 1 refers to missing mapping 3 (at byte 10)");
	pb_release(&b);

	/* string index out of range, and negative */
	pb_init(&b);
	pb_type(&b, "cpu", "nanoseconds");
	put_uint(&b.e, 14, 77);
	expect_error(pb_finish(&b),
		     "string index 77 out of range (the table has 3 strings) (at byte 6)");
	pb_release(&b);
	pb_init(&b);
	pb_type(&b, "cpu", "nanoseconds");
	pb_function(&b, 1, "main", NULL);
	struct enc m = {0};
	put_uint(&m, 1, 2);
	put_uint(&m, 2, (uint64_t)-1);
	put_msg(&b.e, 5, &m);
	expect_error(pb_finish(&b),
		     "string index -1 out of range (the table has 4 strings) (at byte 16)");
	pb_release(&b);

	/* a label's string index */
	pb_init(&b);
	pb_type(&b, "cpu", "nanoseconds");
	pb_function(&b, 1, "main", NULL);
	pb_loc1(&b, 1, 1);
	put_bytes(&m, 1, "\x01", 1);
	put_bytes(&m, 2, "\x05", 1);
	put_bytes(&m, 3, "\x08\x01\x10\x63", 4);
	put_msg(&b.e, 2, &m);
	free(m.b);
	expect_error(pb_finish(&b),
		     "string index 99 out of range (the table has 4 strings) (at byte 32)");
	pb_release(&b);

	/* a second time_nanos: two profiles back to back */
	pb_init(&b);
	pb_type(&b, "cpu", "nanoseconds");
	put_uint(&b.e, 9, 1000);
	pb_strings(&b);
	size_t half = b.e.n;
	put_raw(&b.e, b.e.b, half);
	expect_error(&b.e, "concatenated profiles detected (at byte 35)");
	pb_release(&b);

	/* duplicate and reserved ids */
	pb_init(&b);
	pb_type(&b, "cpu", "nanoseconds");
	pb_function(&b, 1, "main", NULL);
	pb_function(&b, 1, "other", NULL);
	expect_error(pb_finish(&b), "several functions with id 1 (at byte 12)");
	pb_release(&b);
	pb_init(&b);
	pb_type(&b, "cpu", "nanoseconds");
	pb_function(&b, 1, "main", NULL);
	pb_loc1(&b, 0, 1);
	expect_error(pb_finish(&b), "location with reserved id 0 (at byte 12)");
	pb_release(&b);
}

static void test_read_pprof_bid(void **state)
{
	(void)state;
	const struct pp_reader *r = &pp_reader_pprof;
	struct pb b;
	pb_init(&b);
	pb_type(&b, "cpu", "nanoseconds");
	pb_function(&b, 1, "main", NULL);
	const struct enc *e = pb_finish(&b);
	assert_int_equal(r->bid(e->b, e->n), 10);
	pb_release(&b);
	/* time_nanos first, a string table first, a packed comment */
	assert_int_equal(r->bid((const unsigned char *)"\x48\x01\x32\x00", 4), 10);
	assert_int_equal(r->bid((const unsigned char *)"\x32\x00", 2), 10);
	assert_int_equal(r->bid((const unsigned char *)"\x6a\x01\x01", 3), 10);
	/* text and JSON */
	assert_int_equal(r->bid((const unsigned char *)"{\"nodes\":[]}", 12), 0);
	assert_int_equal(r->bid((const unsigned char *)"main;a 1\n", 9), 0);
	assert_int_equal(r->bid((const unsigned char *)"(root);a 1\n", 11), 0);
	assert_int_equal(r->bid((const unsigned char *)"", 0), 0);
	/* looks like a field at first, then not */
	assert_int_equal(r->bid((const unsigned char *)"Z\x02\x08\x01main;a 1\n", 13), 1);
	/* a first field whose message doesn't parse, or longer than a pipe's
	 * first 64 KiB: garbage */
	assert_int_equal(r->bid((const unsigned char *)"Z\x01xmain;a 1\n", 12), 0);
	assert_int_equal(r->bid((const unsigned char *)"\x12\x03\x08\x01\x07", 5), 0);
	unsigned char *big = calloc(1, 65536);
	assert_non_null(big);
	memcpy(big, "\x12\xff\xff\x04", 4);
	assert_int_equal(r->bid(big, 65536), 0);
	assert_int_equal(r->bid(big, 1000), 10);
	free(big);
	/* a wire type that doesn't fit the field */
	assert_int_equal(r->bid((const unsigned char *)"\x08\x01", 2), 0);
	assert_int_equal(r->bid((const unsigned char *)"\x7a\x01x", 3), 0);
}

/* ---- the samples in two shares on two threads (read_pprof.c) ---- */

static uint64_t rng = 0x9e3779b97f4a7c15ull;
static uint32_t rnd(uint32_t n)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (uint32_t)(rng % n);
}

/* A profile of random stacks over locations with inlined lines, some
 * repeated, empty stacks, labels, unpacked ids; with sparse location ids
 * when SPARSE; a missing location at sample BAD (or none: -1); two
 * samples whose sum leaves int64 at sample OVER (or -1). */
static void shares_profile(struct pb *b, bool sparse, int bad, int over)
{
	static const char *fn[24] = {"main", "a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k",
				     "l",    "m", "n", "o", "p", "q", "r", "s", "t", "u", "v", "w"};
	static const char *thr[3] = {"t1", "t2", "t3"};
	pb_init(b);
	pb_type(b, "samples", "count");
	pb_type(b, "cpu", "nanoseconds");
	const uint64_t nloc = 60;
	/* samples first, as Go writes them */
	for (int i = 0; i < 400; i++) {
		int64_t locs[40];
		size_t n = rnd(5) == 0 ? rnd(2) : 1 + rnd(30);
		/* roots among a few locations, so that shares meet at depth 1 */
		for (size_t k = 0; k < n; k++)
			locs[k] = (int64_t)(k + 1 == n ? 1 + rnd(4) : 1 + rnd(nloc));
		if (sparse)
			for (size_t k = 0; k < n; k++)
				locs[k] = locs[k] * 1000 + 7;
		if (i == bad)
			locs[0] = 999999;
		int64_t vals[2] = {1 + rnd(5), (int64_t)rnd(1000000)};
		if (over >= 0 && (i == over || i == over + 1)) {
			int64_t one[1] = {sparse ? 1007 : 1};
			vals[1] = INT64_MAX / 2 + 1;
			pb_sample_l(b, one, 1, vals, 2, NULL);
			continue;
		}
		struct lbl l[3] = {{"thread", thr[rnd(3)], 0, NULL},
				   {"n", NULL, rnd(3), "bytes"},
				   {NULL, NULL, 0, NULL}};
		if (rnd(3) == 0)
			l[1].key = NULL;
		if (rnd(4) == 0) {
			/* unpacked ids: one field per id */
			struct enc m = {0};
			for (size_t k = 0; k < n; k++)
				put_uint(&m, 1, (uint64_t)locs[k]);
			put_packed(&m, 2, vals, 2);
			put_msg(&b->e, 2, &m);
			free(m.b);
		} else {
			pb_sample_l(b, locs, n, vals, 2, rnd(2) ? l : NULL);
		}
	}
	for (uint64_t f = 1; f <= 24; f++)
		pb_function(b, f, fn[f - 1], f % 3 ? "x.go" : "y.go");
	for (uint64_t id = 1; id <= nloc; id++) {
		int64_t lines[3][3];
		size_t nl = rnd(4) == 0 ? 2 + rnd(2) : 1;
		for (size_t k = 0; k < nl; k++) {
			lines[k][0] = 1 + rnd(24);
			lines[k][1] = rnd(3) ? (int64_t)(10 + rnd(5)) : 0;
			lines[k][2] = 0;
		}
		pb_location(b, sparse ? id * 1000 + 7 : id, 0, 0x1000 + id * 16, nl, lines);
	}
}

/* P and Q hold the same tree, aggregated samples and label sets, in the
 * same order. */
static void assert_same_model(const struct pprof_profile *p, const struct pprof_profile *q)
{
	assert_int_equal(p->nnodes, q->nnodes);
	assert_memory_equal(p->nodes, q->nodes, p->nnodes * sizeof(*p->nodes));
	assert_int_equal(p->nentries, q->nentries);
	if (p->nentries) {
		assert_memory_equal(p->entries, q->entries, p->nentries * sizeof(*p->entries));
		assert_memory_equal(p->values, q->values,
				    (size_t)p->nentries * p->ntypes * sizeof(*p->values));
	}
	assert_int_equal(p->nlabelsets, q->nlabelsets);
	assert_memory_equal(p->labelsets, q->labelsets, (p->nlabelsets + 1) * sizeof(uint32_t));
	assert_int_equal(p->nlabels, q->nlabels);
	if (p->nlabels)
		assert_memory_equal(p->labels, q->labels, p->nlabels * sizeof(*p->labels));
}

static void test_read_pprof_shares(void **state)
{
	(void)state;
	size_t saved = pp_share_min;
	for (int v = 0; v < 8; v++) {
		bool sparse = v & 1;
		int bad = v == 2 || v == 3 ? 217 : v == 6 ? 3 : -1;
		int over = v == 4 || v == 5 ? 150 : v == 6 ? 100 : -1;
		struct pb b;
		shares_profile(&b, sparse, bad, over);
		const struct enc *e = pb_finish(&b);
		struct pprof_profile *p = pprof_profile_new(), *q = pprof_profile_new();
		assert_non_null(p);
		assert_non_null(q);
		pp_share_min = SIZE_MAX; /* one walk */
		int sp = pprof_read_buffer(p, e->b, e->n, NULL);
		pp_share_min = 0; /* two shares */
		int sq = pprof_read_buffer(q, e->b, e->n, NULL);
		pp_share_min = saved;
		assert_int_equal(sp, sq);
		assert_string_equal(pprof_profile_error(p), pprof_profile_error(q));
		assert_int_equal(sp, bad >= 0 || over >= 0 ? PPROF_EINPUT : PPROF_OK);
		if (sp == PPROF_OK) {
			assert_true(p->nnodes > 100);
			assert_same_model(p, q);
			/* a second input goes on from the merged profile */
			assert_int_equal(pprof_read_buffer(p, e->b, e->n, NULL), PPROF_OK);
			pp_share_min = 0;
			assert_int_equal(pprof_read_buffer(q, e->b, e->n, NULL), PPROF_OK);
			pp_share_min = saved;
			assert_same_model(p, q);
		}
		pprof_profile_free(p);
		pprof_profile_free(q);
		pb_release(&b);
	}
}

/* pprof_read_options.skip_lines: a frame with a function keeps its name,
 * file and mapping alone, so that one function's lines, columns, addresses
 * and inlined marks are one frame (fewer frames and nodes), and the folded
 * stacks at every granularity that prints no line, for every type, are
 * those of the profile read without it; frames without a function are
 * kept apart by their addresses. */
static void test_read_pprof_skip_lines(void **state)
{
	(void)state;
	struct pb b;
	pb_init(&b);
	pb_type(&b, "samples", "count");
	pb_type(&b, "cpu", "nanoseconds");
	pb_sample(&b, LOCS(2, 1), VALS(1, 10));
	pb_sample(&b, LOCS(3, 1), VALS(2, 20));
	pb_sample(&b, LOCS(4, 1), VALS(4, 40));
	pb_sample(&b, LOCS(5, 2, 1), VALS(8, 80));
	pb_sample(&b, LOCS(6, 3, 1), VALS(16, 160));
	pb_sample(&b, LOCS(7, 1), VALS(32, 320));
	pb_sample(&b, LOCS(8, 1), VALS(64, 640));
	pb_sample(&b, LOCS(9, 6, 1), VALS(128, 1280));
	pb_sample(&b, LOCS(10, 1), VALS(256, 2560));
	pb_mapping(&b, 1, "/usr/lib/libfoo.so");
	pb_mapping(&b, 2, "/bin/app");
	pb_function(&b, 1, "main", "main.go");
	pb_function(&b, 2, "f", "a.go");
	pb_function(&b, 3, "f", "b.go");
	pb_function(&b, 4, "g", "a.go");
	pb_function(&b, 5, "h", NULL);
	pb_location(&b, 1, 2, 0x401500, 1, (const int64_t[][3]){{1, 3, 0}});
	/* f at three lines (a column at one), one with g inlined into it */
	pb_location(&b, 2, 2, 0x401000, 1, (const int64_t[][3]){{2, 10, 2}});
	pb_location(&b, 3, 2, 0x401010, 1, (const int64_t[][3]){{2, 11, 0}});
	pb_location(&b, 4, 2, 0x401020, 2, (const int64_t[][3]){{4, 30, 0}, {2, 12, 0}});
	/* f of another file, g again, h without a file in two mappings */
	pb_location(&b, 5, 0, 0, 1, (const int64_t[][3]){{3, 5, 0}});
	pb_location(&b, 6, 1, 0x450000, 1, (const int64_t[][3]){{5, 0, 0}});
	pb_location(&b, 9, 2, 0x402000, 1, (const int64_t[][3]){{5, 0, 0}});
	pb_location(&b, 10, 2, 0x401030, 1, (const int64_t[][3]){{4, 31, 0}});
	/* no function: a mapping and an address each */
	pb_location(&b, 7, 1, 0x450100, 0, NULL);
	pb_location(&b, 8, 1, 0x450200, 0, NULL);
	const struct enc *e = pb_finish(&b);
	struct pprof_read_options o = {0};
	struct pprof_profile *p = pprof_profile_new(), *q = pprof_profile_new();
	assert_non_null(p);
	assert_non_null(q);
	assert_int_equal(pprof_read_buffer(p, e->b, e->n, &o), PPROF_OK);
	o.skip_lines = 1;
	assert_int_equal(pprof_read_buffer(q, e->b, e->n, &o), PPROF_OK);
	static const enum pprof_granularity g[] = {PPROF_G_FUNCTIONS, PPROF_G_FILEFUNCTIONS,
						   PPROF_G_FILES};
	for (int t = 0; t < 2; t++)
		for (size_t k = 0; k < sizeof(g) / sizeof(*g); k++) {
			char *a = fold_str(p, t, g[k]), *c = fold_str(q, t, g[k]);
			assert_string_equal(a, c);
			free(a);
			free(c);
		}
	char *got = fold_str(q, 1, PPROF_G_FILES);
	assert_string_equal(got, "main.go;[libfoo.so] 960\n"
				 "main.go;[libfoo.so];[app] 1280\n"
				 "main.go;a.go 2590\n"
				 "main.go;a.go;[libfoo.so] 160\n"
				 "main.go;a.go;a.go 40\n"
				 "main.go;a.go;b.go 80\n");
	free(got);
	/* main, f, g, f of b.go, h in two mappings, two addresses (and the
	 * frame 0): against one frame a line */
	assert_int_equal(q->nframes, 9);
	assert_int_equal(p->nframes, 12);
	/* f's lines 10 and 11 under main: one entry */
	assert_int_equal(q->nentries, 8);
	assert_int_equal(p->nentries, 9);
	char *ef = entry_frames(q, 1);
	assert_string_equal(ef, "main[app] main.go:0:0;f[app] a.go:0:0;g[app] a.go:0:0");
	free(ef);
	pprof_profile_free(p);
	pprof_profile_free(q);
	pb_release(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_read_pprof_basic),
		cmocka_unit_test(test_read_pprof_inline_order),
		cmocka_unit_test(test_read_pprof_no_symbol),
		cmocka_unit_test(test_read_pprof_multiple_types_default),
		cmocka_unit_test(test_read_pprof_negative_values),
		cmocka_unit_test(test_read_pprof_unpacked_and_unknown_fields),
		cmocka_unit_test(test_read_pprof_shared_location),
		cmocka_unit_test(test_read_pprof_sparse_ids),
		cmocka_unit_test(test_read_pprof_labels),
		cmocka_unit_test(test_read_pprof_metadata),
		cmocka_unit_test(test_read_pprof_two_inputs),
		cmocka_unit_test(test_read_pprof_drop_frames),
		cmocka_unit_test(test_read_pprof_keep_frames),
		cmocka_unit_test(test_read_pprof_drop_frames_inlined),
		cmocka_unit_test(test_read_pprof_bad_regex),
		cmocka_unit_test(test_read_pprof_errors),
		cmocka_unit_test(test_read_pprof_bid),
		cmocka_unit_test(test_read_pprof_shares),
		cmocka_unit_test(test_read_pprof_skip_lines),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
