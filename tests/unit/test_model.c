/* Unit tests of the model (profile.c), the folded writer (fold.c), naming
 * and the folded reader. */
#include "config.h"

#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "folded_private.h"
#include "pprof_private.h"
#include "walk_private.h"

/* A new profile of one sample type, samples/count, begun. */
static struct pprof_profile *counted_profile(void)
{
	struct pprof_profile *p = pprof_profile_new();
	assert_non_null(p);
	struct pp_sample_type t;
	assert_int_equal(pp_intern_cstr(p, "samples", &t.type), PPROF_OK);
	assert_int_equal(pp_intern_cstr(p, "count", &t.unit), PPROF_OK);
	assert_int_equal(pp_begin_input(p, &t, 1, -1), PPROF_OK);
	return p;
}

/* Folds P at sample index 0 and granularity G into a malloc'd string. */
static char *fold_str(struct pprof_profile *p, int sel, enum pprof_granularity g)
{
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

static struct pprof_profile *read_text(const char *text)
{
	struct pprof_profile *p = pprof_profile_new();
	assert_non_null(p);
	int s = pprof_read_buffer(p, text, strlen(text), NULL);
	if (s != PPROF_OK)
		fail_msg("read failed: %s", pprof_profile_error(p));
	return p;
}

static void expect_fold(const char *in, const char *want)
{
	struct pprof_profile *p = read_text(in);
	char *got = fold_str(p, pprof_sample_type_select(p, NULL), PPROF_G_FUNCTIONS);
	assert_string_equal(got, want);
	free(got);
	pprof_profile_free(p);
}

static void test_model_intern_strings(void **state)
{
	(void)state;
	struct pprof_profile *p = pprof_profile_new();
	uint32_t a, b, c, e;
	assert_int_equal(pp_intern(p, "main", 4, &a), PPROF_OK);
	assert_int_equal(pp_intern(p, "mainx", 4, &b), PPROF_OK);
	assert_int_equal(pp_intern(p, "other", 5, &c), PPROF_OK);
	assert_int_equal(pp_intern(p, "", 0, &e), PPROF_OK);
	assert_int_equal(a, b);
	assert_int_not_equal(a, c);
	assert_int_equal(e, 0);
	assert_string_equal(pp_str(p, a), "main");
	/* enough strings to grow the table several times */
	char buf[32];
	for (int i = 0; i < 20000; i++) {
		uint32_t id;
		int n = snprintf(buf, sizeof(buf), "f%d", i);
		assert_int_equal(pp_intern(p, buf, (size_t)n, &id), PPROF_OK);
	}
	assert_int_equal(pp_intern(p, "f1234", 5, &b), PPROF_OK);
	assert_string_equal(pp_str(p, b), "f1234");
	assert_int_equal(pp_intern(p, "main", 4, &b), PPROF_OK);
	assert_int_equal(a, b);
	pprof_profile_free(p);
}

static void test_model_frames_and_tree(void **state)
{
	(void)state;
	struct pprof_profile *p = pprof_profile_new();
	struct pp_frame f = {0};
	uint32_t f1, f2, f3, n1, n2, n3;
	pp_intern_cstr(p, "a", &f.name);
	assert_int_equal(pp_frame_intern(p, &f, &f1), PPROF_OK);
	f.line = 3;
	assert_int_equal(pp_frame_intern(p, &f, &f2), PPROF_OK);
	f.line = 0;
	assert_int_equal(pp_frame_intern(p, &f, &f3), PPROF_OK);
	assert_int_not_equal(f1, f2);
	assert_int_equal(f1, f3);
	assert_int_equal(pp_node_child(p, 0, f1, &n1), PPROF_OK);
	assert_int_equal(pp_node_child(p, n1, f2, &n2), PPROF_OK);
	assert_int_equal(pp_node_child(p, 0, f1, &n3), PPROF_OK);
	assert_int_equal(n1, n3);
	assert_int_equal(p->nodes[n2].parent, n1);
	pprof_profile_free(p);
}

/* Stacks walked ahead in batches and finished in order make the nodes, in
 * the order, that one walk of them after the other makes.  Locations
 * share frames (an inlined location's first frame is another's only one),
 * so that a walk ahead stops inside a location as well as between two. */
static void test_locwalk_ahead(void **state)
{
	(void)state;
	static const uint32_t frames[] = {1, 1, 2, 3, 3, 4, 5, 2, 5, 1, 4, 4, 4};
	static const struct {
		uint32_t off, n;
	} shape[] = {{0, 1}, {1, 2}, {3, 1}, {4, 3}, {7, 1}, {8, 2}, {10, 3}, {0, 0}};
	enum { NLOC = sizeof(shape) / sizeof(*shape), NSTACK = 3000, DEPTH = 12 };
	struct pp_loc locs[2][NLOC];
	memset(locs, 0, sizeof(locs));
	for (int k = 0; k < 2; k++)
		for (int i = 0; i < NLOC; i++) {
			locs[k][i].off = shape[i].off;
			locs[k][i].n = shape[i].n;
		}
	static uint32_t stacks[NSTACK][DEPTH];
	size_t depth[NSTACK];
	uint64_t seed = 7;
	for (size_t i = 0; i < NSTACK; i++) {
		seed = seed * 6364136223846793005ull + 1442695040888963407ull;
		depth[i] = (seed >> 33) % (DEPTH + 1);
		for (size_t d = 0; d < depth[i]; d++) {
			seed = seed * 6364136223846793005ull + 1442695040888963407ull;
			/* few roots, so that stacks meet */
			stacks[i][d] = (uint32_t)((seed >> 33) % (d + 1 == depth[i] ? 3 : NLOC));
		}
	}
	struct pprof_profile *p = pprof_profile_new(), *q = pprof_profile_new();
	assert_non_null(p);
	assert_non_null(q);
	struct pp_locwalk wp = {locs[0], frames, NULL, 0, 0, 0, UINT64_MAX, 0};
	struct pp_locwalk wq = {locs[1], frames, NULL, 0, 0, 0, UINT64_MAX, 0};
	uint32_t want[NSTACK];
	for (size_t i = 0; i < NSTACK; i++)
		assert_int_equal(pp_locwalk_node(p, &wp, stacks[i], depth[i], i, &want[i]),
				 PPROF_OK);
	struct pp_locpath path[40];
	size_t stops_inside = 0;
	for (size_t i = 0, b = 1; i < NSTACK; i += b, b = b % 37 + 1) {
		size_t n = NSTACK - i < b ? NSTACK - i : b;
		for (size_t k = 0; k < n; k++) {
			path[k].stack = stacks[i + k];
			path[k].n = depth[i + k];
		}
		pp_locwalk_ahead(q, &wq, path, n);
		for (size_t k = 0; k < n; k++) {
			stops_inside += path[k].d < path[k].n && path[k].k > 0;
			uint32_t node;
			assert_int_equal(pp_locwalk_finish(q, &wq, &path[k], i + k, &node),
					 PPROF_OK);
			assert_int_equal(node, want[i + k]);
		}
	}
	assert_true(stops_inside > 0);
	assert_true(p->nnodes > 500);
	assert_int_equal(p->nnodes, q->nnodes);
	assert_memory_equal(p->nodes, q->nodes, p->nnodes * sizeof(*p->nodes));
	/* each location of a stack counted once at most, as one walk counts */
	uint64_t most = 0;
	for (size_t i = 0; i < NSTACK; i++)
		for (size_t d = 0; d < depth[i]; d++)
			most += shape[stacks[i][d]].n;
	assert_true(wp.steps <= most);
	assert_true(wq.steps > 0 && wq.steps <= most);
	pp_locwalk_release(&wp);
	pp_locwalk_release(&wq);
	pprof_profile_free(p);
	pprof_profile_free(q);
}

/* The frame index, dropped, is rebuilt when a frame is interned again:
 * the same frames get the same ids, new ones new ids, through growth. */
static void test_model_frame_index_dropped(void **state)
{
	(void)state;
	struct pprof_profile *p = pprof_profile_new();
	struct pp_frame f = {0};
	uint32_t ids[3000], id;
	pp_intern_cstr(p, "a", &f.name);
	for (int i = 0; i < 3000; i++) {
		f.line = i;
		assert_int_equal(pp_frame_intern(p, &f, &ids[i]), PPROF_OK);
	}
	pp_drop_frame_index(p);
	pp_drop_frame_index(p);
	for (int i = 2999; i >= 0; i--) {
		f.line = i;
		assert_int_equal(pp_frame_intern(p, &f, &id), PPROF_OK);
		assert_int_equal(id, ids[i]);
	}
	pp_drop_frame_index(p);
	assert_int_equal(pp_reserve(p, 5000, 0, 0), PPROF_OK);
	for (int i = 3000; i < 8000; i++) {
		f.line = i;
		assert_int_equal(pp_frame_intern(p, &f, &id), PPROF_OK);
		assert_int_equal(id, (uint32_t)i + 1);
	}
	f.line = 17;
	assert_int_equal(pp_frame_intern(p, &f, &id), PPROF_OK);
	assert_int_equal(id, ids[17]);
	pprof_profile_free(p);
}

static void test_model_sum_overflow(void **state)
{
	(void)state;
	struct pprof_profile *p = counted_profile();
	int64_t v = INT64_MAX;
	assert_int_equal(pp_add_sample(p, 1, 0, &v, 0), PPROF_OK);
	v = 1;
	assert_int_equal(pp_add_sample(p, 1, 0, &v, 42), PPROF_EINPUT);
	assert_non_null(strstr(pprof_profile_error(p), "64-bit"));
	assert_non_null(strstr(pprof_profile_error(p), "(at byte 42)"));
	pprof_profile_free(p);
}

static void test_model_sample_type_select(void **state)
{
	(void)state;
	struct pprof_profile *p = pprof_profile_new();
	struct pp_sample_type t[3];
	pp_intern_cstr(p, "alloc_objects", &t[0].type);
	pp_intern_cstr(p, "inuse_space", &t[1].type);
	pp_intern_cstr(p, "alloc_space", &t[2].type);
	pp_intern_cstr(p, "bytes", &t[0].unit);
	t[1].unit = t[2].unit = t[0].unit;
	assert_int_equal(pp_begin_input(p, t, 3, -1), PPROF_OK);
	assert_int_equal(pprof_sample_type_select(p, NULL), 2);
	/* pprof strips inuse_ from the asked name, not from the types' */
	assert_int_equal(pprof_sample_type_select(p, "space"), -1);
	assert_int_equal(pprof_sample_type_select(p, "inuse_space"), 1);
	assert_int_equal(pprof_sample_type_select(p, "inuse_alloc_space"), 2);
	assert_int_equal(pprof_sample_type_select(p, "alloc_space"), 2);
	assert_int_equal(pprof_sample_type_select(p, "0"), 0);
	assert_int_equal(pprof_sample_type_select(p, "3"), -1);
	assert_int_equal(pprof_sample_type_select(p, "cpu"), -1);
	assert_non_null(strstr(pprof_profile_error(p), "alloc_objects inuse_space alloc_space"));
	p->default_type = 0;
	assert_int_equal(pprof_sample_type_select(p, ""), 0);
	pprof_profile_free(p);
}

static void test_fold_sorted_and_merged(void **state)
{
	(void)state;
	expect_fold("b;a 1\na;b 2\na 3\na;b 4\n", "a 3\na;b 6\nb;a 1\n");
}

/* A sibling whose name extends another's with a byte below ';' sorts between
 * the shorter sibling's own line and its descendants. */
static void test_fold_prefix_names_order(void **state)
{
	(void)state;
	expect_fold("f;x 1\nf 2\nf b;y 3\nf-c 4\nf;a 5\n",
		    "f 2\nf b;y 3\nf-c 4\nf;a 5\nf;x 1\n");
}

static void test_fold_zero_and_negative(void **state)
{
	(void)state;
	expect_fold("a;b 0\na;c -5\na 0\n", "a;c -5\n");
}

static void test_fold_separators_in_names(void **state)
{
	(void)state;
	struct pprof_profile *p = counted_profile();
	struct pp_frame f = {0};
	pp_intern_cstr(p, "a;b\nc\r", &f.name);
	uint32_t fid, n;
	pp_frame_intern(p, &f, &fid);
	pp_node_child(p, 0, fid, &n);
	int64_t v = 7;
	pp_add_sample(p, n, 0, &v, 0);
	char *got = fold_str(p, 0, PPROF_G_FUNCTIONS);
	assert_string_equal(got, "a:b c  7\n");
	free(got);
	pprof_profile_free(p);
}

static void test_fold_granularities(void **state)
{
	(void)state;
	struct pprof_profile *p = counted_profile();
	struct pp_frame f = {0}, g = {0}, h = {0};
	pp_intern_cstr(p, "main", &f.name);
	pp_intern_cstr(p, "app/main.c", &f.file);
	f.line = 12;
	f.address = 0x401000;
	f.flags = PP_FRAME_HAS_ADDRESS;
	g.flags = PP_FRAME_NO_SYMBOL | PP_FRAME_HAS_ADDRESS;
	g.address = 0x7f0000001234;
	pp_intern_cstr(p, "libfoo.so", &g.mapping);
	h.flags = PP_FRAME_NO_SYMBOL | PP_FRAME_HAS_ADDRESS;
	h.address = 0xdeadbeef;
	uint32_t a, b, c, n;
	pp_frame_intern(p, &f, &a);
	pp_frame_intern(p, &g, &b);
	pp_frame_intern(p, &h, &c);
	pp_node_child(p, 0, a, &n);
	pp_node_child(p, n, b, &n);
	pp_node_child(p, n, c, &n);
	int64_t v = 300;
	pp_add_sample(p, n, 0, &v, 0);
	static const char *const want[] = {
		"main;[libfoo.so];<unknown> 300\n",
		"main app/main.c;[libfoo.so];<unknown> 300\n",
		"main app/main.c:12;[libfoo.so];<unknown> 300\n",
		"app/main.c;[libfoo.so];<unknown> 300\n",
		"0000000000401000 main app/main.c:12;00007f0000001234 [libfoo.so];"
		"00000000deadbeef <unknown> 300\n",
	};
	for (int gi = 0; gi < 5; gi++) {
		char *got = fold_str(p, 0, (enum pprof_granularity)gi);
		assert_string_equal(got, want[gi]);
		free(got);
	}
	pprof_profile_free(p);
}

static void test_folded_reader_formats(void **state)
{
	(void)state;
	/* CRLF, BOM, comments, fractions, a trailing ';', spaces in names */
	expect_fold("\xef\xbb\xbf# comment\r\nmain;do work 2.5\r\nmain;do work; 1\r\n\r\n",
		    "main;do work 4\n");
	/* 3 columns: the default value is the last (after) */
	expect_fold("a;b 1 2\na;c 3 0\n", "a;b 2\n");
}

static void test_folded_reader_mixed_columns(void **state)
{
	(void)state;
	struct pprof_profile *p = pprof_profile_new();
	const char *in = "a;b 1 2\na;c 3\n";
	assert_int_equal(pprof_read_buffer(p, in, strlen(in), NULL), PPROF_EINPUT);
	assert_string_equal(pprof_profile_error(p),
			    "line 2: 2 columns where earlier lines have 3 (at byte 8)");
	pprof_profile_free(p);
}

static void test_folded_reader_utf16(void **state)
{
	(void)state;
	static const unsigned char le[] = {0xff, 0xfe, 'a', 0, ';', 0, 'b', 0, ' ', 0, '3', 0, '\n', 0};
	struct pprof_profile *p = pprof_profile_new();
	assert_int_equal(pprof_read_buffer(p, le, sizeof(le), NULL), PPROF_OK);
	char *got = fold_str(p, 0, PPROF_G_FUNCTIONS);
	assert_string_equal(got, "a;b 3\n");
	free(got);
	pprof_profile_free(p);
}

static void test_read_empty_and_unknown(void **state)
{
	(void)state;
	struct pprof_profile *p = pprof_profile_new();
	assert_int_equal(pprof_read_buffer(p, "", 0, NULL), PPROF_EINPUT);
	assert_string_equal(pprof_profile_error(p), "empty input");
	assert_int_equal(pprof_read_buffer(p, "hello\n", 6, NULL), PPROF_EINPUT);
	assert_non_null(strstr(pprof_profile_error(p), "unrecognized profile format"));
	pprof_profile_free(p);
}

/* Several inputs sum, whatever the order of their lines. */
static void test_read_merge_inputs(void **state)
{
	(void)state;
	struct pprof_profile *p = pprof_profile_new();
	const char *a = "x;y 1\nx 2\n", *b = "x;y 3\nz 1\n";
	assert_int_equal(pprof_read_buffer(p, a, strlen(a), NULL), PPROF_OK);
	assert_int_equal(pprof_read_buffer(p, b, strlen(b), NULL), PPROF_OK);
	char *got = fold_str(p, 0, PPROF_G_FUNCTIONS);
	assert_string_equal(got, "x 2\nx;y 4\nz 1\n");
	free(got);
	/* A 3-column input does not merge with a 2-column one. */
	const char *c = "x 1 2\n";
	assert_int_equal(pprof_read_buffer(p, c, strlen(c), NULL), PPROF_EINPUT);
	assert_non_null(strstr(pprof_profile_error(p), "incompatible sample types"));
	pprof_profile_free(p);
}

/* 100k frames deep: no recursion anywhere on the way. */
static void test_fold_deep_stack(void **state)
{
	(void)state;
	size_t depth = 100000;
	char *in = malloc(depth * 2 + 16);
	size_t n = 0;
	for (size_t i = 0; i < depth; i++) {
		in[n++] = 'f';
		in[n++] = ';';
	}
	n--;
	n += (size_t)sprintf(in + n, " 1\n");
	struct pprof_profile *p = read_text(in);
	char *got = fold_str(p, 0, PPROF_G_FUNCTIONS);
	assert_int_equal(strlen(got), n);
	assert_memory_equal(got, in, n);
	free(got);
	free(in);
	pprof_profile_free(p);
}

/* Folds P with pprof_fold_write() into a malloc'd string (*LEN bytes):
 * on one thread, or on two when THREADS. */
static char *fold_write_str(struct pprof_profile *p, bool threads, size_t *len)
{
	struct pprof_fold_options o = {0, PPROF_G_FUNCTIONS};
	char *s = NULL;
	FILE *f = open_memstream(&s, len);
	assert_non_null(f);
	size_t saved = pp_fold_par_min;
	pp_fold_par_min = threads ? 0 : SIZE_MAX;
	int st = pprof_fold_write(p, &o, f);
	pp_fold_par_min = saved;
	assert_int_equal(st, PPROF_OK);
	assert_int_equal(fclose(f), 0);
	return s;
}

/* A random tree where names repeat among siblings (they merge) and values
 * are often 0, one stack's line longer than a thread's buffer, and lines
 * that fill it: the text written on two threads is that of one. */
static void test_fold_two_threads(void **state)
{
	(void)state;
	struct pprof_profile *p = counted_profile();
	uint32_t frames[64];
	for (int i = 0; i < 64; i++) {
		char name[64];
		snprintf(name, sizeof(name), "fn%d%s", i % 40, i % 7 ? "" : "_with_a_longer_name");
		struct pp_frame f = {0};
		pp_intern_cstr(p, name, &f.name);
		f.line = i; /* frames apart, printed alike at -g functions */
		assert_int_equal(pp_frame_intern(p, &f, &frames[i]), PPROF_OK);
	}
	uint64_t x = 88172645463325252ull;
	for (int s = 0; s < 20000; s++) {
		uint32_t node = 0;
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		int depth = 1 + (int)(x % 12);
		for (int d = 0; d < depth; d++) {
			x ^= x << 13, x ^= x >> 7, x ^= x << 17;
			assert_int_equal(pp_node_child(p, node, frames[x % (d < 2 ? 6 : 64)], &node),
					 PPROF_OK);
		}
		int64_t v = (int64_t)(x >> 40) % 5 - 1;
		assert_int_equal(pp_add_sample(p, node, 0, &v, 0), PPROF_OK);
	}
	/* 5 MB of one stack */
	uint32_t node = 0;
	for (int d = 0; d < 700000; d++)
		assert_int_equal(pp_node_child(p, node, frames[d % 64], &node), PPROF_OK);
	int64_t v = 3;
	assert_int_equal(pp_add_sample(p, node, 0, &v, 0), PPROF_OK);
	/* and 40 lines of 0.8 MB: a thread's buffer fills in one task */
	node = 0;
	for (int d = 0; d < 100000; d++) {
		assert_int_equal(pp_node_child(p, node, frames[(d * 7) % 64], &node), PPROF_OK);
		if (d >= 100000 - 40)
			assert_int_equal(pp_add_sample(p, node, 0, &v, 0), PPROF_OK);
	}
	size_t n1, n2;
	char *one = fold_write_str(p, false, &n1);
	char *two = fold_write_str(p, true, &n2);
	assert_true(n1 > ((size_t)30 << 20));
	assert_int_equal(n1, n2);
	assert_memory_equal(one, two, n1);
	free(one);
	free(two);

	/* a write that fails says so alike */
	struct pprof_fold_options o = {0, PPROF_G_FUNCTIONS};
	FILE *full = fopen("/dev/full", "w");
	if (full) {
		size_t saved = pp_fold_par_min;
		pp_fold_par_min = 0;
		assert_int_equal(pprof_fold_write(p, &o, full), PPROF_EIO);
		pp_fold_par_min = saved;
		assert_non_null(strstr(pprof_profile_error(p), "write error: "));
		fclose(full);
	}
	pprof_profile_free(p);
}

/* pp_frame_names() names each frame as pp_frame_name() does, at every
 * granularity: frames of one function at several lines (named once by
 * name at function granularity), a name with a separator, frames without
 * a symbol (named by mapping or <unknown>, never by name). */
static void test_model_frame_names(void **state)
{
	(void)state;
	struct pprof_profile *p = pprof_profile_new();
	struct pp_frame f = {0};
	uint32_t id;
	pp_intern_cstr(p, "main", &f.name);
	pp_intern_cstr(p, "app/main.c", &f.file);
	for (int line = 1; line <= 3; line++) {
		f.line = line;
		assert_int_equal(pp_frame_intern(p, &f, &id), PPROF_OK);
	}
	pp_intern_cstr(p, "a;b\nc", &f.name);
	assert_int_equal(pp_frame_intern(p, &f, &id), PPROF_OK);
	f.line = 9;
	assert_int_equal(pp_frame_intern(p, &f, &id), PPROF_OK);
	struct pp_frame g = {0};
	g.flags = PP_FRAME_NO_SYMBOL | PP_FRAME_HAS_ADDRESS;
	pp_intern_cstr(p, "main", &g.name); /* not printed: no symbol */
	pp_intern_cstr(p, "libfoo.so", &g.mapping);
	g.address = 0x1234;
	assert_int_equal(pp_frame_intern(p, &g, &id), PPROF_OK);
	g.address = 0x5678;
	assert_int_equal(pp_frame_intern(p, &g, &id), PPROF_OK);
	g.mapping = 0;
	assert_int_equal(pp_frame_intern(p, &g, &id), PPROF_OK);
	f.line = 4; /* main again, after others */
	pp_intern_cstr(p, "main", &f.name);
	assert_int_equal(pp_frame_intern(p, &f, &id), PPROF_OK);
	uint32_t n = p->nframes;
	assert_int_equal(n, 10);
	uint32_t *got = malloc(n * sizeof(*got));
	assert_non_null(got);
	for (int gi = 0; gi < 5; gi++) {
		enum pprof_granularity gr = (enum pprof_granularity)gi;
		assert_int_equal(pp_frame_names(p, gr, got), PPROF_OK);
		assert_int_equal(got[0], 0);
		for (uint32_t i = 1; i < n; i++) {
			struct pp_buf b;
			pp_buf_init(&b);
			assert_true(pp_frame_name(p, i, gr, &b));
			assert_int_equal(pp_strlen(p, got[i]), b.len);
			assert_memory_equal(pp_str(p, got[i]), b.s, b.len);
			pp_buf_release(&b);
		}
	}
	/* at function granularity: "main" for the lines of main, the name
	 * made harmless, the mapping for frames without a symbol */
	assert_int_equal(pp_frame_names(p, PPROF_G_FUNCTIONS, got), PPROF_OK);
	assert_int_equal(got[1], got[2]);
	assert_int_equal(got[1], got[n - 1]);
	assert_string_equal(pp_str(p, got[4]), "a:b c");
	assert_string_equal(pp_str(p, got[6]), "[libfoo.so]");
	assert_string_equal(pp_str(p, got[8]), "<unknown>");
	free(got);
	pprof_profile_free(p);
}

struct oline {
	char *stack;
	int64_t value;
};

static int oline_cmp(const void *a, const void *b)
{
	return strcmp(((const struct oline *)a)->stack, ((const struct oline *)b)->stack);
}

/* The name tree (fold.c) against a fold done here the slow way: random
 * stacks over frames of which many print alike at -g functions (same name,
 * other lines), so that siblings merge in every order: a parent's only
 * child, its newest, and the map of a parent's many children. */
static void test_fold_names_merge(void **state)
{
	(void)state;
	struct pprof_profile *p = counted_profile();
	enum { NF = 48, NS = 30000 };
	uint32_t frames[NF];
	char names[NF][8];
	for (int i = 0; i < NF; i++) {
		snprintf(names[i], sizeof(names[i]), "f%d", i % 9);
		struct pp_frame f = {0};
		pp_intern_cstr(p, names[i], &f.name);
		f.line = i;
		assert_int_equal(pp_frame_intern(p, &f, &frames[i]), PPROF_OK);
	}
	struct oline *o = calloc(NS, sizeof(*o));
	assert_non_null(o);
	uint64_t x = 0x2545F4914F6CDD1Dull;
	for (int s = 0; s < NS; s++) {
		uint32_t node = 0;
		char path[16 * 8] = "";
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		int depth = 1 + (int)(x % 14);
		for (int d = 0; d < depth; d++) {
			x ^= x << 13, x ^= x >> 7, x ^= x << 17;
			/* few frames near the root, so that stacks share paths */
			int fi = (int)(x % (d < 3 ? 4 + 4 * (uint64_t)d : NF));
			assert_int_equal(pp_node_child(p, node, frames[fi], &node), PPROF_OK);
			if (d)
				strcat(path, ";");
			strcat(path, names[fi]);
		}
		int64_t v = (int64_t)(x >> 40) % 7 - 2;
		assert_int_equal(pp_add_sample(p, node, 0, &v, 0), PPROF_OK);
		o[s].stack = strdup(path);
		o[s].value = v;
	}
	qsort(o, NS, sizeof(*o), oline_cmp);
	struct pp_buf want;
	pp_buf_init(&want);
	for (int s = 0; s < NS;) {
		int e = s;
		int64_t sum = 0;
		for (; e < NS && strcmp(o[e].stack, o[s].stack) == 0; e++)
			sum += o[e].value;
		if (sum)
			pp_buf_addf(&want, "%s %lld\n", o[s].stack, (long long)sum);
		s = e;
	}
	char *got = fold_str(p, 0, PPROF_G_FUNCTIONS);
	assert_string_equal(got, want.s);
	free(got);
	pp_buf_release(&want);
	for (int s = 0; s < NS; s++)
		free(o[s].stack);
	free(o);
	pprof_profile_free(p);
}

/* pp_populate_start() makes pages and leaves their bytes alone, however
 * they are written meanwhile. */
static void test_populate_keeps_bytes(void **state)
{
	(void)state;
	size_t n = (size_t)24 << 20;
	unsigned char *a = pp_big_calloc(n, 1), *b = pp_big_calloc(n / 2, 1);
	assert_non_null(a);
	assert_non_null(b);
	memset(a, 0x5a, n / 3);
	void *ptr[2] = {a, b};
	size_t bytes[2] = {n, n / 2};
	struct pp_populate *pg = pp_populate_start(ptr, bytes, 2);
	for (size_t i = n / 3; i < n; i += 4096 - 7)
		a[i] = (unsigned char)(i * 31);
	b[n / 2 - 1] = 7;
	pp_populate_end(pg);
	for (size_t i = 0; i < n / 3; i++)
		if (a[i] != 0x5a)
			fail_msg("byte %zu changed", i);
	for (size_t i = n / 3; i < n; i++) {
		size_t k = i - n / 3;
		unsigned char want = k % (4096 - 7) == 0 ? (unsigned char)(i * 31) : 0;
		if (a[i] != want)
			fail_msg("byte %zu is %d, not %d", i, a[i], want);
	}
	for (size_t i = 0; i + 1 < n / 2; i++)
		if (b[i])
			fail_msg("byte %zu of the second block is %d", i, b[i]);
	assert_int_equal(b[n / 2 - 1], 7);
	/* too little to be worth a thread; NULL ends as nothing */
	size_t small = (size_t)1 << 20;
	assert_null(pp_populate_start(ptr, &small, 1));
	pp_populate_end(NULL);
	pp_big_free(a, n, 1);
	pp_big_free(b, n / 2, 1);
}

/* pp_big_calloc() at the sizes around where its blocks become mappings of
 * their own (256 KiB) in whole huge pages: zeroed, writable to the last
 * byte, and freed (where they start is the kernel's choice). */
/* Blocks of 256 KiB to 2 MiB share huge pages (slabs): many at once, of
 * mixed sizes, never overlap, each is zero when given (also after others
 * in its slab were freed: a slab is carved from the front only), and
 * threads may take and free them at once. */
#define SLAB_BLOCKS 24
/* NULL, or what went wrong (fail_msg() would jump out of a thread) */
static const char *slab_round(uint32_t seed)
{
	uint32_t *b[SLAB_BLOCKS], tag[SLAB_BLOCKS];
	size_t n[SLAB_BLOCKS];
	const char *bad = NULL;
	for (int k = 0; k < SLAB_BLOCKS; k++) {
		seed = seed * 1103515245u + 12345u;
		/* 64 Ki to 512 Ki elements of 4 bytes: 256 KiB to 2 MiB */
		n[k] = ((size_t)64 << 10) + (seed >> 8) % ((size_t)448 << 10);
		b[k] = pp_big_calloc(n[k], sizeof(**b));
		if (!b[k])
			return "out of memory";
		for (size_t i = 0; i < n[k] && !bad; i++)
			if (b[k][i])
				bad = "a block given is not zero";
		tag[k] = seed;
		for (size_t i = 0; i < n[k]; i++)
			b[k][i] = tag[k] + (uint32_t)i;
	}
	for (int k = 0; k < SLAB_BLOCKS; k++)
		for (size_t i = 0; i < n[k] && !bad; i++)
			if (b[k][i] != tag[k] + (uint32_t)i)
				bad = "a block was written through another";
	/* freed out of order: every third, then the rest */
	for (int k = 0; k < SLAB_BLOCKS; k += 3)
		pp_big_free(b[k], n[k], sizeof(**b));
	for (int k = 0; k < SLAB_BLOCKS; k++)
		if (k % 3)
			pp_big_free(b[k], n[k], sizeof(**b));
	return bad;
}

static void *slab_thread(void *arg)
{
	const char *bad = NULL;
	for (uint32_t r = 0; r < 4 && !bad; r++)
		bad = slab_round((uint32_t)(uintptr_t)arg + r);
	return (void *)(uintptr_t)bad;
}

static void test_big_calloc_slabs(void **state)
{
	(void)state;
	const char *bad = slab_round(1);
	if (bad)
		fail_msg("%s", bad);
	/* a block in a slab whose others were freed: still zero */
	uint32_t *a = pp_big_calloc((size_t)100 << 10, sizeof(*a));
	assert_non_null(a);
	memset(a, 0xff, ((size_t)100 << 10) * sizeof(*a));
	pp_big_free(a, (size_t)100 << 10, sizeof(*a));
	uint32_t *d = pp_big_calloc((size_t)100 << 10, sizeof(*d));
	assert_non_null(d);
	for (size_t i = 0; i < ((size_t)100 << 10); i++)
		if (d[i])
			fail_msg("element %zu of a block given again is not zero", i);
	pp_big_free(d, (size_t)100 << 10, sizeof(*d));
	pthread_t th;
	void *other;
	assert_int_equal(pthread_create(&th, NULL, slab_thread, (void *)(uintptr_t)1000), 0);
	bad = slab_thread((void *)(uintptr_t)2000);
	assert_int_equal(pthread_join(th, &other), 0);
	if (bad || other)
		fail_msg("%s", bad ? bad : (const char *)other);
}

static void test_big_calloc_sizes(void **state)
{
	(void)state;
	const size_t sizes[] = {0,
				1,
				4096,
				((size_t)256 << 10) - 8,
				(size_t)256 << 10,
				((size_t)1 << 20) + 8,
				(size_t)2 << 20,
				((size_t)2 << 20) + 1};
	for (size_t k = 0; k < sizeof(sizes) / sizeof(*sizes); k++) {
		size_t n = sizes[k] / 8;
		uint64_t *a = pp_big_calloc(n, sizeof(*a));
		assert_non_null(a);
		for (size_t i = 0; i < n; i++) {
			if (a[i])
				fail_msg("element %zu of %zu is not zero", i, n);
			a[i] = i;
		}
		for (size_t i = 0; i < n; i++)
			assert_int_equal(a[i], i);
		pp_big_free(a, n, sizeof(*a));
	}
	/* a count whose product with the size leaves size_t */
	assert_null(pp_big_calloc(SIZE_MAX / 4, 8));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		/* first: a slab that hands out memory twice breaks the
		 * tables of the tests after it, which then hang */
		cmocka_unit_test(test_big_calloc_slabs),
		cmocka_unit_test(test_model_intern_strings),
		cmocka_unit_test(test_model_frames_and_tree),
		cmocka_unit_test(test_locwalk_ahead),
		cmocka_unit_test(test_model_frame_names),
		cmocka_unit_test(test_model_frame_index_dropped),
		cmocka_unit_test(test_model_sum_overflow),
		cmocka_unit_test(test_model_sample_type_select),
		cmocka_unit_test(test_fold_sorted_and_merged),
		cmocka_unit_test(test_fold_prefix_names_order),
		cmocka_unit_test(test_fold_zero_and_negative),
		cmocka_unit_test(test_fold_separators_in_names),
		cmocka_unit_test(test_fold_granularities),
		cmocka_unit_test(test_folded_reader_formats),
		cmocka_unit_test(test_folded_reader_mixed_columns),
		cmocka_unit_test(test_folded_reader_utf16),
		cmocka_unit_test(test_read_empty_and_unknown),
		cmocka_unit_test(test_read_merge_inputs),
		cmocka_unit_test(test_fold_deep_stack),
		cmocka_unit_test(test_fold_two_threads),
		cmocka_unit_test(test_fold_names_merge),
		cmocka_unit_test(test_populate_keeps_bytes),
		cmocka_unit_test(test_big_calloc_sizes),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
