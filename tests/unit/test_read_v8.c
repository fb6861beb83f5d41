/* Unit tests of the V8 readers: read_cpuprofile.c, read_heapprofile.c and
 * what they share (v8.c). */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "pprof_private.h"
#include "v8.h"

/* ---- helpers ---- */

static char *fold_str(struct pprof_profile *p, int sel, enum pprof_granularity g)
{
	struct pprof_fold_options o = { sel, g };
	struct pprof_folded *f = NULL;
	struct pp_buf b;
	char *s;
	size_t i;

	assert_int_equal(pprof_fold(p, &o, &f), PPROF_OK);
	pp_buf_init(&b);
	for (i = 0; i < f->n; i++) {
		pp_buf_add(&b, f->lines[i].stack, f->lines[i].len);
		pp_buf_addf(&b, " %lld\n", (long long)f->lines[i].value);
	}
	pprof_folded_free(f);
	s = strdup(b.s);
	assert_non_null(s);
	pp_buf_release(&b);
	return s;
}

/* Reads TEXT through the bids (as the tools do); fails the test on error. */
static struct pprof_profile *read_ok(const char *text)
{
	struct pprof_profile *p = pprof_profile_new();

	assert_non_null(p);
	if (pprof_read_buffer(p, text, strlen(text), NULL) != PPROF_OK)
		fail_msg("read failed: %s", pprof_profile_error(p));
	return p;
}

static void expect_fold_g(const char *in, const char *type, enum pprof_granularity g,
			  const char *want)
{
	struct pprof_profile *p = read_ok(in);
	int sel = pprof_sample_type_select(p, type);
	char *got;

	assert_true(sel >= 0);
	got = fold_str(p, sel, g);
	assert_string_equal(got, want);
	free(got);
	pprof_profile_free(p);
}

static void expect_fold(const char *in, const char *type, const char *want)
{
	expect_fold_g(in, type, PPROF_G_FUNCTIONS, want);
}

/* Reads IN with reader R (max_depth 0 unless given) and expects failure
 * with the message WANT. */
static void expect_error_r(const struct pp_reader *r, const char *in, uint32_t max_depth,
			   const char *want)
{
	struct pprof_profile *p = pprof_profile_new();
	struct pprof_read_options o = { 0, max_depth };
	int s;

	assert_non_null(p);
	s = r->read(p, (const unsigned char *)in, strlen(in), &o);
	if (s == PPROF_OK)
		fail_msg("accepted: %s", in);
	assert_int_equal(s, PPROF_EINPUT);
	assert_string_equal(pprof_profile_error(p), want);
	pprof_profile_free(p);
}

static void expect_cpu_error(const char *in, const char *want)
{
	expect_error_r(&pp_reader_cpuprofile, in, 0, want);
}

/* "WHAT (at byte N)" where N is the offset of the OCCURRENCE-th (1-based)
 * NEEDLE in IN, plus PLUS. */
static char *at_plus(const char *what, const char *in, const char *needle, int occurrence,
		     size_t plus)
{
	const char *q = in;
	char *s;
	int i;

	for (i = 0; i < occurrence; i++) {
		q = strstr(i ? q + 1 : q, needle);
		assert_non_null(q);
	}
	assert_true(asprintf(&s, "%s (at byte %zu)", what, (size_t)(q - in) + plus) > 0);
	return s;
}

static char *at(const char *what, const char *in, const char *needle, int occurrence)
{
	return at_plus(what, in, needle, occurrence, 0);
}

struct err_case {
	const char *in;
	const char *what;
	const char *needle; /* where the offset points, or NULL for none */
};

static void expect_errors(const struct pp_reader *r, const struct err_case *c, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		char *want = c[i].needle ? at(c[i].what, c[i].in, c[i].needle, 1)
					 : strdup(c[i].what);

		assert_non_null(want);
		expect_error_r(r, c[i].in, 0, want);
		free(want);
	}
}

static void sums(const struct pprof_profile *p, int64_t *a, int64_t *b)
{
	uint32_t e;

	*a = *b = 0;
	assert_int_equal(p->ntypes, 2);
	for (e = 0; e < p->nentries; e++) {
		*a += p->values[(size_t)e * 2];
		*b += p->values[(size_t)e * 2 + 1];
	}
}

static char *repeat_join(const char *s, const char *sep, size_t n)
{
	size_t ls = strlen(s), lp = strlen(sep), i;
	char *out = malloc(n * (ls + lp) + 1), *o = out;

	assert_non_null(out);
	for (i = 0; i < n; i++) {
		if (i) {
			memcpy(o, sep, lp);
			o += lp;
		}
		memcpy(o, s, ls);
		o += ls;
	}
	*o = '\0';
	return out;
}

/* ---- .cpuprofile ---- */

static const char basic_cpu[] =
	"{\"nodes\":["
	"{\"id\":1,\"callFrame\":{\"functionName\":\"(root)\",\"scriptId\":\"0\",\"url\":\"\","
	"\"lineNumber\":-1,\"columnNumber\":-1},\"hitCount\":0,\"children\":[2,3]},"
	"{\"id\":2,\"callFrame\":{\"functionName\":\"main\",\"scriptId\":\"1\",\"url\":\"app.js\","
	"\"lineNumber\":0,\"columnNumber\":9},\"hitCount\":1,\"children\":[4]},"
	"{\"id\":3,\"callFrame\":{\"functionName\":\"(garbage collector)\",\"scriptId\":\"0\","
	"\"url\":\"\",\"lineNumber\":-1,\"columnNumber\":-1},\"hitCount\":1},"
	"{\"id\":4,\"callFrame\":{\"functionName\":\"\",\"scriptId\":\"1\",\"url\":\"app.js\","
	"\"lineNumber\":4,\"columnNumber\":2},\"hitCount\":2,\"children\":[]}"
	"],\"startTime\":100,\"endTime\":200,\"samples\":[2,4,4,3],"
	"\"timeDeltas\":[10,20,30,15]}";

static const char basic_wall[] = "(garbage collector) 25000\n"
				 "main 20000\n"
				 "main;(anonymous) 45000\n";
static const char basic_samples[] = "(garbage collector) 1\n"
				    "main 1\n"
				    "main;(anonymous) 2\n";

static void test_read_v8_cpu_basic(void **state)
{
	struct pprof_profile *p;
	uint32_t i, main_frame = 0;

	(void)state;
	expect_fold(basic_cpu, NULL, basic_wall);
	expect_fold(basic_cpu, "wall", basic_wall);
	expect_fold(basic_cpu, "samples", basic_samples);
	expect_fold_g(basic_cpu, NULL, PPROF_G_LINES,
		      "(garbage collector) 25000\n"
		      "main app.js:1 20000\n"
		      "main app.js:1;(anonymous) app.js:5 45000\n");

	p = read_ok(basic_cpu);
	assert_int_equal(pprof_profile_format(p), PPROF_FMT_CPUPROFILE);
	assert_int_equal(pprof_sample_type_count(p), 2);
	assert_string_equal(pprof_sample_type_name(p, 0), "samples");
	assert_string_equal(pprof_sample_type_unit(p, 0), "count");
	assert_string_equal(pprof_sample_type_name(p, 1), "wall");
	assert_string_equal(pprof_sample_type_unit(p, 1), "nanoseconds");
	assert_int_equal(pprof_sample_type_select(p, NULL), 1);

	/* Positions are stored 1-based, -1 as 0. */
	for (i = 1; i < p->nframes; i++) {
		const struct pp_frame *f = &p->frames[i];

		if (strcmp(pp_str(p, f->name), "main") == 0) {
			main_frame = i;
			assert_string_equal(pp_str(p, f->file), "app.js");
			assert_int_equal(f->line, 1);
			assert_int_equal(f->column, 10);
		}
		if (strcmp(pp_str(p, f->name), "(garbage collector)") == 0) {
			assert_int_equal(f->file, 0);
			assert_int_equal(f->line, 0);
			assert_int_equal(f->column, 0);
		}
		assert_string_not_equal(pp_str(p, f->name), "(root)");
	}
	assert_int_not_equal(main_frame, 0);

	/* The time sequence: every sample, in time order, in ns from
	 * startTime. */
	assert_int_equal(p->nseq, 4);
	assert_int_equal(p->seq[0].time, 10000);
	assert_int_equal(p->seq[0].wall, 20000);
	assert_int_equal(p->nodes[p->seq[0].node].frame, main_frame);
	assert_int_equal(p->seq[1].time, 30000);
	assert_int_equal(p->seq[1].wall, 30000);
	assert_int_equal(p->seq[2].time, 60000);
	assert_int_equal(p->seq[2].wall, 15000);
	assert_int_equal(p->seq[1].node, p->seq[2].node);
	assert_int_equal(p->seq[3].time, 75000);
	assert_int_equal(p->seq[3].wall, 25000);
	pprof_profile_free(p);
}

/* The same profile with nodes in reverse order (children before parents),
 * arbitrary ids, keys in other orders, samples before nodes, and fields
 * the reader does not use. */
static void test_read_v8_cpu_order_independence(void **state)
{
	static const char in[] =
		"{\"samples\":[-5,99999999999,99999999999,7],\"timeDeltas\":[10,20,30,15],"
		"\"endTime\":200,\"meta\":{\"x\":[1,{\"y\":null}]},\"nodes\":["
		"{\"children\":[],\"positionTicks\":[{\"line\":5,\"ticks\":2}],"
		"\"callFrame\":{\"columnNumber\":2,\"lineNumber\":4,\"url\":\"app.js\","
		"\"functionName\":\"\",\"extra\":[1]},\"id\":99999999999},"
		"{\"hitCount\":1,\"id\":7,\"callFrame\":{\"url\":\"\",\"functionName\":"
		"\"(garbage collector)\"},\"deoptReason\":\"\"},"
		"{\"callFrame\":{\"functionName\":\"main\",\"url\":\"app.js\",\"lineNumber\":0,"
		"\"columnNumber\":9},\"children\":[99999999999],\"id\":-5},"
		"{\"children\":[7,-5],\"id\":1000,\"callFrame\":{\"functionName\":\"(root)\"}}"
		"],\"startTime\":100}";

	(void)state;
	expect_fold(in, NULL, basic_wall);
	expect_fold(in, "samples", basic_samples);
	expect_fold_g(in, NULL, PPROF_G_LINES,
		      "(garbage collector) 25000\n"
		      "main app.js:1 20000\n"
		      "main app.js:1;(anonymous) app.js:5 45000\n");
}

static void test_read_v8_cpu_negative_deltas(void **state)
{
	/* Timestamps 10, 15, 12, 16, 16: sorted a(10) c(12) b(15) a(16) b(16),
	 * the tie kept in file order; walls 2, 3, 1, 0, 30 - 16. */
	static const char in[] =
		"{\"nodes\":[{\"id\":1,\"callFrame\":{\"functionName\":\"(root)\"},"
		"\"children\":[2,3,4]},"
		"{\"id\":2,\"callFrame\":{\"functionName\":\"a\"},\"hitCount\":9},"
		"{\"id\":3,\"callFrame\":{\"functionName\":\"b\"},\"hitCount\":9},"
		"{\"id\":4,\"callFrame\":{\"functionName\":\"c\"},\"hitCount\":9}],"
		"\"startTime\":0,\"endTime\":30,\"samples\":[2,3,4,2,3],"
		"\"timeDeltas\":[10,5,-3,4,0]}";
	struct pprof_profile *p;
	static const char *const names[] = { "a", "c", "b", "a", "b" };
	static const int64_t times[] = { 10000, 12000, 15000, 16000, 16000 };
	static const int64_t walls[] = { 2000, 3000, 1000, 0, 14000 };
	size_t i;

	(void)state;
	expect_fold(in, NULL, "a 2000\nb 15000\nc 3000\n");
	/* hitCount is not used when samples exist. */
	expect_fold(in, "samples", "a 2\nb 2\nc 1\n");

	p = read_ok(in);
	assert_int_equal(p->nseq, 5);
	for (i = 0; i < 5; i++) {
		uint32_t f = p->nodes[p->seq[i].node].frame;

		assert_string_equal(pp_str(p, p->frames[f].name), names[i]);
		assert_int_equal(p->seq[i].time, times[i]);
		assert_int_equal(p->seq[i].wall, walls[i]);
	}
	pprof_profile_free(p);
}

static void test_read_v8_cpu_end_before_last_sample(void **state)
{
	static const char in[] =
		"{\"nodes\":[{\"id\":1,\"callFrame\":{\"functionName\":\"(root)\"},"
		"\"children\":[2,3]},"
		"{\"id\":2,\"callFrame\":{\"functionName\":\"a\"}},"
		"{\"id\":3,\"callFrame\":{\"functionName\":\"b\"}}],"
		"\"startTime\":0,\"endTime\":12,\"samples\":[2,3],\"timeDeltas\":[10,5]}";
	static const char noend[] =
		"{\"nodes\":[{\"id\":1,\"callFrame\":{\"functionName\":\"(root)\"},"
		"\"children\":[2,3]},"
		"{\"id\":2,\"callFrame\":{\"functionName\":\"a\"}},"
		"{\"id\":3,\"callFrame\":{\"functionName\":\"b\"}}],"
		"\"startTime\":0,\"samples\":[2,3],\"timeDeltas\":[10,5]}";

	(void)state;
	/* b's wall is 0, so it drops out of the wall output only. */
	expect_fold(in, NULL, "a 5000\n");
	expect_fold(in, "samples", "a 1\nb 1\n");
	expect_fold(noend, NULL, "a 5000\n");
}

static void test_read_v8_cpu_root_samples(void **state)
{
	static const char in[] =
		"{\"nodes\":[{\"id\":1,\"callFrame\":{\"functionName\":\"(root)\"},"
		"\"children\":[2]},"
		"{\"id\":2,\"callFrame\":{\"functionName\":\"a\"}}],"
		"\"startTime\":0,\"endTime\":40,\"samples\":[1,2,1],\"timeDeltas\":[10,10,10]}";
	struct pprof_profile *p;
	int64_t count, wall;

	(void)state;
	expect_fold(in, NULL, "a 10000\n");
	expect_fold(in, "samples", "a 1\n");
	p = read_ok(in);
	sums(p, &count, &wall);
	assert_int_equal(count, 1);
	assert_int_equal(wall, 10000);
	/* The sequence keeps them, on the root. */
	assert_int_equal(p->nseq, 3);
	assert_int_equal(p->seq[0].node, 0);
	assert_int_equal(p->seq[0].wall, 10000);
	assert_int_not_equal(p->seq[1].node, 0);
	assert_int_equal(p->seq[2].node, 0);
	assert_int_equal(p->seq[2].wall, 10000);
	pprof_profile_free(p);
}

static void test_read_v8_cpu_no_samples_uses_hitcount(void **state)
{
	static const char in[] =
		"{\"nodes\":[{\"id\":1,\"callFrame\":{\"functionName\":\"(root)\"},"
		"\"hitCount\":5,\"children\":[2]},"
		"{\"id\":2,\"callFrame\":{\"functionName\":\"a\"},\"hitCount\":3,\"children\":[3]},"
		"{\"id\":3,\"callFrame\":{\"functionName\":\"b\"},\"hitCount\":4}],"
		"\"startTime\":0,\"endTime\":40}";
	struct pprof_profile *p;

	(void)state;
	/* The default is then samples, as wall is 0 everywhere. */
	expect_fold(in, NULL, "a 3\na;b 4\n");
	expect_fold(in, "wall", "");
	p = read_ok(in);
	assert_int_equal(pprof_sample_type_select(p, NULL), 0);
	assert_int_equal(p->nseq, 0);
	pprof_profile_free(p);
}

static void test_read_v8_cpu_no_time_deltas(void **state)
{
	static const char in[] =
		"{\"nodes\":[{\"id\":1,\"callFrame\":{\"functionName\":\"(root)\"},"
		"\"children\":[2]},{\"id\":2,\"callFrame\":{\"functionName\":\"a\"}}],"
		"\"startTime\":0,\"endTime\":40,\"samples\":[2,2]}";
	struct pprof_profile *p;

	(void)state;
	expect_fold(in, "samples", "a 2\n");
	expect_fold(in, "wall", "");
	p = read_ok(in);
	assert_int_equal(pprof_profile_warning_count(p), 1);
	assert_string_equal(pprof_profile_warning(p, 0), "no timeDeltas: wall times are 0");
	pprof_profile_free(p);
}

static const char old_cpu[] =
	"{\"head\":{\"functionName\":\"(root)\",\"url\":\"\",\"lineNumber\":-1,\"id\":1,"
	"\"hitCount\":0,\"scriptId\":0,\"children\":["
	"{\"functionName\":\"\",\"url\":\"a.js\",\"lineNumber\":0,\"callUID\":1,\"id\":2,"
	"\"hitCount\":0,\"children\":["
	"{\"functionName\":\"f\",\"url\":\"a.js\",\"lineNumber\":5,\"id\":3,\"hitCount\":3,"
	"\"bailoutReason\":\"\",\"children\":[]}]}]},"
	"\"startTime\":100,\"endTime\":101,\"samples\":[3,2,3],"
	"\"timestamps\":[100000500,100000700,100001000%s]}";

static void test_read_v8_cpu_old_format(void **state)
{
	char *in;
	struct pprof_profile *p;

	(void)state;
	/* One more timestamp than samples: the last wall runs to it. */
	assert_true(asprintf(&in, old_cpu, ",100001400") > 0);
	expect_fold(in, NULL, "(anonymous) 300000\n(anonymous);f 600000\n");
	expect_fold(in, "samples", "(anonymous) 1\n(anonymous);f 2\n");
	expect_fold_g(in, NULL, PPROF_G_LINES,
		      "(anonymous) a.js:1 300000\n(anonymous) a.js:1;f a.js:6 600000\n");
	p = read_ok(in);
	assert_int_equal(pprof_profile_format(p), PPROF_FMT_CPUPROFILE);
	/* startTime is in seconds, the timestamps in microseconds. */
	assert_int_equal(p->nseq, 3);
	assert_int_equal(p->seq[0].time, 500000);
	assert_int_equal(p->seq[2].time, 1000000);
	assert_int_equal(p->seq[2].wall, 400000);
	pprof_profile_free(p);
	free(in);

	/* As many timestamps as samples: the last wall is 0. */
	assert_true(asprintf(&in, old_cpu, "") > 0);
	expect_fold(in, NULL, "(anonymous) 300000\n(anonymous);f 200000\n");
	expect_fold(in, "samples", "(anonymous) 1\n(anonymous);f 2\n");
	free(in);

	/* Timestamps out of order are sorted too: 2 at 500, 3 at 700 and
	 * 1000, then the closing 1400. */
	in = strdup(old_cpu);
	assert_non_null(in);
	memcpy(strstr(in, "100000500,100000700"), "100000700,100000500", 19);
	{
		char *full;

		assert_true(asprintf(&full, in, ",100001400") > 0);
		expect_fold(full, NULL, "(anonymous) 200000\n(anonymous);f 700000\n");
		free(full);
	}
	free(in);
}

static void test_read_v8_cpu_old_format_fractional_start(void **state)
{
	static const char in[] =
		"{\"head\":{\"functionName\":\"(root)\",\"children\":[{\"functionName\":\"g\","
		"\"id\":2,\"children\":[]}],\"id\":1},\"startTime\":100.0001,\"endTime\":100.5,"
		"\"samples\":[2,2],\"timestamps\":[100000500,100000600]}";
	struct pprof_profile *p;

	(void)state;
	p = read_ok(in);
	assert_int_equal(p->nseq, 2);
	assert_int_equal(p->seq[0].time, 400000);
	assert_int_equal(p->seq[0].wall, 100000);
	assert_int_equal(p->seq[1].wall, 0);
	pprof_profile_free(p);
}

static void test_read_v8_cpu_names(void **state)
{
	static const char in[] =
		"{\"nodes\":[{\"id\":1,\"callFrame\":{\"functionName\":\"(root)\"},"
		"\"children\":[2,3]},"
		"{\"id\":2,\"callFrame\":{\"functionName\":\"a;b\\nc\\r\\nd\"}},"
		"{\"id\":3,\"callFrame\":{\"functionName\":\"\\u00e9t\\u00e9\",\"url\":\"x.js\"}}],"
		"\"startTime\":0,\"endTime\":3,\"samples\":[2,3],\"timeDeltas\":[1,1]}";

	(void)state;
	expect_fold(in, "samples", "a:b c  d 1\n\xc3\xa9t\xc3\xa9 1\n");
	/* A url without a line prints alone. */
	expect_fold_g(in, "samples", PPROF_G_LINES,
		      "a:b c  d 1\n\xc3\xa9t\xc3\xa9 x.js 1\n");
}

static void test_read_v8_cpu_several_roots(void **state)
{
	/* A parentless node not named (root) is a frame of its own. */
	static const char in[] =
		"{\"nodes\":[{\"id\":1,\"callFrame\":{\"functionName\":\"(root)\"},"
		"\"children\":[2]},"
		"{\"id\":2,\"callFrame\":{\"functionName\":\"a\"}},"
		"{\"id\":3,\"callFrame\":{\"functionName\":\"orphan\"}}],"
		"\"startTime\":0,\"endTime\":3,\"samples\":[2,3],\"timeDeltas\":[1,1]}";

	(void)state;
	expect_fold(in, "samples", "a 1\norphan 1\n");
}

static void test_read_v8_cpu_graph_errors(void **state)
{
	static const char dangling[] =
		"{\"nodes\":[{\"id\":1,\"callFrame\":{\"functionName\":\"(root)\"},"
		"\"children\":[2,99]},{\"id\":2,\"callFrame\":{\"functionName\":\"a\"}}],"
		"\"samples\":[],\"timeDeltas\":[]}";
	static const char cycle[] =
		"{\"nodes\":[{\"id\":1,\"callFrame\":{\"functionName\":\"(root)\"}},"
		"{\"id\":2,\"callFrame\":{\"functionName\":\"a\"},\"children\":[3]},"
		"{\"id\":3,\"callFrame\":{\"functionName\":\"b\"},\"children\":[2]}]}";
	static const char self[] =
		"{\"nodes\":[{\"id\":1,\"callFrame\":{\"functionName\":\"(root)\"},"
		"\"children\":[]},"
		"{\"id\":2,\"callFrame\":{\"functionName\":\"a\"},\"children\":[2]}]}";
	static const char two_parents[] =
		"{\"nodes\":[{\"id\":1,\"callFrame\":{\"functionName\":\"(root)\"},"
		"\"children\":[2,3]},"
		"{\"id\":2,\"callFrame\":{\"functionName\":\"a\"}},"
		"{\"id\":3,\"callFrame\":{\"functionName\":\"b\"},\"children\":[2]}]}";
	static const char dup[] =
		"{\"nodes\":[{\"id\":1,\"callFrame\":{\"functionName\":\"(root)\"}},"
		"{\"id\":2,\"callFrame\":{\"functionName\":\"a\"}},"
		"{\"id\":2,\"callFrame\":{\"functionName\":\"b\"}}]}";
	static const char bad_sample[] =
		"{\"nodes\":[{\"id\":1,\"callFrame\":{\"functionName\":\"(root)\"}}],"
		"\"startTime\":0,\"endTime\":5,\"samples\":[1,5],\"timeDeltas\":[1,1]}";
	char *want;

	(void)state;
	want = at("node 1: child 99 does not exist", dangling, "99", 1);
	expect_cpu_error(dangling, want);
	free(want);
	want = at("node graph has a cycle through node 3", cycle, "{\"id\":3", 1);
	expect_cpu_error(cycle, want);
	free(want);
	want = at("node graph has a cycle through node 2", self, "{\"id\":2", 1);
	expect_cpu_error(self, want);
	free(want);
	want = at_plus("node 2 has more than one parent", two_parents, "[2]", 1, 1);
	expect_cpu_error(two_parents, want);
	free(want);
	want = at("duplicate node id 2", dup, "{\"id\":2", 2);
	expect_cpu_error(dup, want);
	free(want);
	want = at("sample 1: node 5 does not exist", bad_sample, "5]", 1);
	expect_cpu_error(bad_sample, want);
	free(want);
}

static void test_read_v8_cpu_input_errors(void **state)
{
	static const char nodes_ok[] =
		"\"nodes\":[{\"id\":1,\"callFrame\":{\"functionName\":\"(root)\"}}]";
	char *in, *want;

	(void)state;
	static const struct err_case cases[] = {
		{ "[1]", "a cpuprofile is a JSON object", "[" },
		{ "{\"nodes\":[{},]}", "trailing comma in array", "]" },
		{ "{\"nodes\":[]} x", "unexpected data after the top-level value", "x" },
		{ "", "empty input (at byte 0)", NULL },
		{ "{}", "not a cpuprofile: no nodes", NULL },
		{ "{\"nodes\":{}}", "nodes is not an array", "{}" },
		{ "{\"nodes\":[3]}", "a node is not an object", "3" },
		{ "{\"nodes\":[],\"head\":{}}", "a cpuprofile with both nodes and head", NULL },
		{ "{\"nodes\":[],\"nodes\":[]}", "duplicate key \"nodes\"", "\"nodes\":[]}" },
		{ "{\"nodes\":[{\"children\":[1.5]}]}", "child id is not a 64-bit integer", "1.5" },
		{ "{\"nodes\":[{\"children\":[\"2\"]}]}", "a child is neither a node id nor a node",
		  "\"2\"" },
		{ "{\"nodes\":[{\"children\":{}}]}", "children is not an array", "{}" },
		{ "{\"nodes\":[{\"id\":\"1\"}]}", "node id is not a number", "\"1\"" },
		{ "{\"nodes\":[{\"id\":1e400}]}", "node id is not a 64-bit integer", "1e400" },
		{ "{\"nodes\":[{\"callFrame\":{\"functionName\":7}}]}",
		  "functionName is not a string", "7" },
		{ "{\"nodes\":[{\"callFrame\":[]}]}", "callFrame is not an object", "[]" },
		{ "{\"nodes\":[],\"samples\":[1,\"x\"]}",
		  "samples holds something other than a number", "\"x\"" },
		{ "{\"nodes\":[],\"timeDeltas\":[0.5]}",
		  "timeDeltas holds a number that is not a 64-bit integer", "0.5" },
		{ "{\"nodes\":[],\"startTime\":\"0\"}", "startTime is not a number", "\"0\"" },
		{ "{\"nodes\":[],\"endTime\":1e999}", "endTime is out of range", "1e999" },
		{ "{\"nodes\":[{\"callFrame\":{\"url\":\"\\ud800\"}}]}",
		  "lone surrogate in \\u escape", "\\ud800" },
	};

	expect_errors(&pp_reader_cpuprofile, cases, sizeof(cases) / sizeof(cases[0]));
	assert_true(asprintf(&in, "{%s,\"samples\":[1,1],\"timeDeltas\":[1]}", nodes_ok) > 0);
	expect_cpu_error(in, "samples has 2 entries but timeDeltas 1");
	free(in);

	/* Sums that leave int64, in microseconds and in nanoseconds. */
	assert_true(asprintf(&in,
			     "{%s,\"startTime\":9223372036854775000,\"samples\":[1,1],"
			     "\"timeDeltas\":[100,1000]}",
			     nodes_ok) > 0);
	want = at("timestamp leaves the 64-bit range", in, "1000]", 1);
	expect_cpu_error(in, want);
	free(want);
	free(in);
	assert_true(asprintf(&in,
			     "{%s,\"startTime\":0,\"samples\":[1,1],"
			     "\"timeDeltas\":[1,10000000000000000]}",
			     nodes_ok) > 0);
	expect_cpu_error(in, "a time in nanoseconds leaves the 64-bit range");
	free(in);
}

/* A chain of N frames below the root, flat (listed leaf first) or nested
 * (Node's old format). */
static char *chain(size_t n, bool nested)
{
	struct pp_buf b;
	size_t i;
	char *s;

	pp_buf_init(&b);
	if (nested) {
		pp_buf_addf(&b, "{\"head\":{\"functionName\":\"(root)\",\"id\":0,\"children\":[");
		for (i = 1; i <= n; i++)
			pp_buf_addf(&b, "{\"functionName\":\"f\",\"id\":%zu,\"children\":[", i);
		for (i = 0; i <= n; i++)
			pp_buf_add(&b, "]}", 2);
		pp_buf_addf(&b, ",\"startTime\":0,\"endTime\":1,\"samples\":[%zu],"
			    "\"timestamps\":[5,7]}", n);
	} else {
		pp_buf_addf(&b, "{\"nodes\":[");
		for (i = n + 1; i-- > 0;) {
			if (i)
				pp_buf_addf(&b, "{\"id\":%zu,\"callFrame\":{\"functionName\":\"f\"}", i);
			else
				pp_buf_addf(&b, "{\"id\":0,\"callFrame\":{\"functionName\":\"(root)\"}");
			if (i < n)
				pp_buf_addf(&b, ",\"children\":[%zu]", i + 1);
			pp_buf_add(&b, i ? "}," : "}", i ? 2 : 1);
		}
		pp_buf_addf(&b, "],\"startTime\":0,\"endTime\":12,\"samples\":[%zu],"
			    "\"timeDeltas\":[5]}", n);
	}
	s = strdup(b.s);
	assert_non_null(s);
	pp_buf_release(&b);
	return s;
}

static void test_read_v8_cpu_deep_chain(void **state)
{
	size_t n = 100000;
	char *frames = repeat_join("f", ";", n), *want, *in;
	int nested;

	(void)state;
	for (nested = 0; nested < 2; nested++) {
		in = chain(n, nested);
		assert_true(asprintf(&want, "%s %d\n", frames, nested ? 2000 : 7000) > 0);
		expect_fold(in, NULL, want);
		free(want);
		free(in);
	}
	free(frames);

	/* The parser's depth bound holds for the nested form. */
	in = chain(10, true);
	{
		/* Levels: the top object, head, its children, node 1, and node 1's
		 * children is the fifth. */
		const char *needle = "\"id\":1,\"children\":[";
		char *w = at_plus("nesting deeper than the maximum depth", in, needle, 1,
				  strlen(needle) - 1);

		expect_error_r(&pp_reader_cpuprofile, in, 4, w);
		free(w);
	}
	free(in);
}

/* ---- .heapprofile ---- */

static const char basic_heap[] =
	"{\"head\":{\"callFrame\":{\"functionName\":\"(root)\",\"scriptId\":\"0\",\"url\":\"\","
	"\"lineNumber\":-1,\"columnNumber\":-1},\"selfSize\":0,\"id\":1,\"children\":["
	"{\"callFrame\":{\"functionName\":\"alloc\",\"scriptId\":\"1\",\"url\":\"a.js\","
	"\"lineNumber\":2,\"columnNumber\":0},\"selfSize\":1000,\"id\":2,\"children\":["
	"{\"callFrame\":{\"functionName\":\"\",\"url\":\"a.js\",\"lineNumber\":9,"
	"\"columnNumber\":4},\"selfSize\":0,\"id\":3,\"children\":[]}]},"
	"{\"callFrame\":{\"functionName\":\"alloc\",\"url\":\"a.js\",\"lineNumber\":2,"
	"\"columnNumber\":0},\"selfSize\":24,\"id\":4,\"children\":[]}]},"
	"\"samples\":[{\"size\":500,\"nodeId\":2,\"ordinal\":1},"
	"{\"size\":500,\"nodeId\":2,\"ordinal\":2},{\"size\":32,\"nodeId\":3,\"ordinal\":3},"
	"{\"size\":8,\"nodeId\":1,\"ordinal\":4}]}";

static void test_read_v8_heap_basic(void **state)
{
	struct pprof_profile *p;

	(void)state;
	/* Nodes 2 and 4 are the same frame under the root; the sample on the
	 * root has an empty stack. */
	expect_fold(basic_heap, NULL, "alloc 1024\n");
	expect_fold(basic_heap, "space", "alloc 1024\n");
	expect_fold(basic_heap, "objects", "alloc 2\nalloc;(anonymous) 1\n");
	expect_fold_g(basic_heap, NULL, PPROF_G_LINES, "alloc a.js:3 1024\n");
	p = read_ok(basic_heap);
	assert_int_equal(pprof_profile_format(p), PPROF_FMT_HEAPPROFILE);
	assert_string_equal(pprof_sample_type_name(p, 0), "objects");
	assert_string_equal(pprof_sample_type_unit(p, 0), "count");
	assert_string_equal(pprof_sample_type_name(p, 1), "space");
	assert_string_equal(pprof_sample_type_unit(p, 1), "bytes");
	assert_int_equal(pprof_sample_type_select(p, NULL), 1);
	assert_int_equal(p->nseq, 0);
	pprof_profile_free(p);
}

static void test_read_v8_heap_without_samples(void **state)
{
	static const char in[] =
		"{\"head\":{\"selfSize\":0,\"children\":[{\"callFrame\":{\"functionName\":\"x\"},"
		"\"selfSize\":0,\"children\":[{\"children\":[],\"selfSize\":64,"
		"\"callFrame\":{\"functionName\":\"y\"}}]}],"
		"\"callFrame\":{\"functionName\":\"(root)\"}}}";

	(void)state;
	expect_fold(in, NULL, "x;y 64\n");
	expect_fold(in, "objects", "");
}

/* Node 20's --heap-prof names nodes that are not in the tree: such a sample
 * counts nowhere, and one warning says how many there were. */
static void test_read_v8_heap_missing_node(void **state)
{
	static const char in[] =
		"{\"head\":{\"callFrame\":{\"functionName\":\"(root)\"},\"id\":1,\"selfSize\":0,"
		"\"children\":[{\"callFrame\":{\"functionName\":\"f\"},\"id\":2,\"selfSize\":96,"
		"\"children\":[]}]},\"samples\":[{\"nodeId\":2,\"size\":32},{\"nodeId\":77,\"size\":32},"
		"{\"nodeId\":2,\"size\":32},{\"nodeId\":78,\"size\":32},{\"nodeId\":2,\"size\":32}]}";
	struct pprof_profile *p;
	char *got;

	(void)state;
	p = read_ok(in);
	assert_int_equal(pprof_profile_warning_count(p), 1);
	assert_string_equal(pprof_profile_warning(p, 0),
			    "2 of 5 samples name a node that is not in the tree: counted nowhere");
	got = fold_str(p, pprof_sample_type_select(p, "objects"), PPROF_G_FUNCTIONS);
	assert_string_equal(got, "f 3\n");
	free(got);
	got = fold_str(p, pprof_sample_type_select(p, "space"), PPROF_G_FUNCTIONS);
	assert_string_equal(got, "f 96\n");
	free(got);
	pprof_profile_free(p);
}

/* positionTicks put a node's own samples on the lines where they fell
 * (lines.h): in proportion to the ticks, largest remainder (ties: the
 * smaller line), a line repeated in several entries (workerd) summed;
 * callers keep their function's line; "functions" output unchanged. */
#define TICKS_PROFILE(TICKS)                                                                  \
	"{\"nodes\":[{\"id\":1,\"callFrame\":{\"functionName\":\"(root)\",\"url\":\"\","      \
	"\"lineNumber\":-1,\"columnNumber\":-1},\"children\":[2]},"                           \
	"{\"id\":2,\"callFrame\":{\"functionName\":\"f\",\"url\":\"a.js\",\"lineNumber\":0,"  \
	"\"columnNumber\":10},\"children\":[3],\"positionTicks\":[{\"line\":2,\"ticks\":1}]}," \
	"{\"id\":3,\"callFrame\":{\"functionName\":\"g\",\"url\":\"a.js\",\"lineNumber\":9,"  \
	"\"columnNumber\":0},\"positionTicks\":" TICKS "}],"                                   \
	"\"startTime\":0,\"endTime\":7000,\"samples\":[3,3,3,3,3,3,2],"                       \
	"\"timeDeltas\":[0,1000,1000,1000,1000,1000,1000]}"

static void test_read_v8_cpu_position_ticks(void **state)
{
	(void)state;
	/* g's 6 samples over ticks 1:2:2 on lines 13, 11, 12 (13 twice) */
	static const char in[] = TICKS_PROFILE(
		"[{\"line\":13,\"ticks\":1},{\"line\":11,\"ticks\":2},{\"line\":12,\"ticks\":2},"
		"{\"line\":14,\"ticks\":0}]");
	/* 6 * 1/5 = 1.2, 6 * 2/5 = 2.4 twice: 1, 2, 2 and the one left to the
	 * largest remainder, 2.4's, the smaller line first: 11 */
	expect_fold_g(in, "samples", PPROF_G_LINES,
		      "f a.js:1;g a.js:11 3\nf a.js:1;g a.js:12 2\nf a.js:1;g a.js:13 1\nf a.js:2 1\n");
	expect_fold_g(in, "wall", PPROF_G_LINES,
		      "f a.js:1;g a.js:11 2400000\nf a.js:1;g a.js:12 2400000\n"
		      "f a.js:1;g a.js:13 1200000\nf a.js:2 1000000\n");
	expect_fold_g(in, "samples", PPROF_G_FUNCTIONS, "f 1\nf;g 6\n");
	expect_fold_g(in, "samples", PPROF_G_FILEFUNCTIONS, "f a.js 1\nf a.js;g a.js 6\n");

	/* workerd repeats a line: the entries of one line are summed */
	static const char rep[] = TICKS_PROFILE(
		"[{\"line\":11,\"ticks\":1},{\"line\":12,\"ticks\":1},{\"line\":11,\"ticks\":1}]");
	expect_fold_g(rep, "samples", PPROF_G_LINES,
		      "f a.js:1;g a.js:11 4\nf a.js:1;g a.js:12 2\nf a.js:2 1\n");

	/* no ticks (or only zero ticks): the function's line */
	static const char none[] = TICKS_PROFILE("[{\"line\":11,\"ticks\":0}]");
	expect_fold_g(none, "samples", PPROF_G_LINES, "f a.js:1;g a.js:10 6\nf a.js:2 1\n");
	static const char empty[] = TICKS_PROFILE("[]");
	expect_fold_g(empty, "samples", PPROF_G_LINES, "f a.js:1;g a.js:10 6\nf a.js:2 1\n");

	/* the time order keeps the function's node */
	struct pprof_profile *p = read_ok(in);
	assert_int_equal(p->nseq, 7);
	for (size_t i = 0; i < p->nseq; i++)
		assert_int_equal(p->frames[p->nodes[p->seq[i].node].frame].at_line, 0);
	pprof_profile_free(p);
}

static void expect_ticks_error(const char *in, const char *what, const char *needle,
			       size_t plus)
{
	char *want = at_plus(what, in, needle, 1, plus);

	expect_cpu_error(in, want);
	free(want);
}

static void test_read_v8_cpu_position_ticks_errors(void **state)
{
	(void)state;
	expect_ticks_error(TICKS_PROFILE("[{\"line\":0,\"ticks\":1}]"),
			   "positionTicks line 0 is not 1 or more", "\"line\":0", 7);
	expect_ticks_error(TICKS_PROFILE("[{\"line\":3,\"ticks\":-1}]"),
			   "negative positionTicks ticks -1", "\"ticks\":-1", 8);
	expect_ticks_error(TICKS_PROFILE("[{\"line\":3}]"), "a positionTicks entry without ticks",
			   "{\"line\":3}", 0);
	expect_ticks_error(TICKS_PROFILE("{}"), "positionTicks is not an array", "{}}", 0);
	expect_ticks_error(TICKS_PROFILE("[{\"line\":3,\"ticks\":9223372036854775807},"
					 "{\"line\":4,\"ticks\":1}]"),
			   "the positionTicks of a node leave the 64-bit range", "{\"id\":3", 0);
}

/* IN read with pprof_read_options.skip_lines, and without: the same
 * folded stacks at the granularities that print no line, for every type;
 * the same error when one fails.  Returns the profile read with it. */
static struct pprof_profile *expect_same_without_lines(const char *in)
{
	struct pprof_read_options o = {0};
	struct pprof_profile *p = pprof_profile_new(), *q = pprof_profile_new();
	static const enum pprof_granularity g[] = {PPROF_G_FUNCTIONS, PPROF_G_FILEFUNCTIONS,
						   PPROF_G_FILES};

	assert_non_null(p);
	assert_non_null(q);
	int sp = pprof_read_buffer(p, in, strlen(in), &o);
	o.skip_lines = 1;
	int sq = pprof_read_buffer(q, in, strlen(in), &o);
	assert_int_equal(sp, sq);
	if (sp != PPROF_OK) {
		assert_string_equal(pprof_profile_error(p), pprof_profile_error(q));
		pprof_profile_free(p);
		pprof_profile_free(q);
		return NULL;
	}
	for (int t = 0; t < 2; t++) {
		for (size_t k = 0; k < sizeof(g) / sizeof(*g); k++) {
			struct pprof_fold_options fo = {t, g[k]};
			struct pprof_folded *a = NULL, *b = NULL;
			int fa = pprof_fold(p, &fo, &a), fb = pprof_fold(q, &fo, &b);

			assert_int_equal(fa, fb);
			if (fa != PPROF_OK) {
				assert_string_equal(pprof_profile_error(p), pprof_profile_error(q));
				continue;
			}
			assert_int_equal(a->n, b->n);
			for (size_t i = 0; i < a->n; i++) {
				assert_int_equal(a->lines[i].len, b->lines[i].len);
				assert_memory_equal(a->lines[i].stack, b->lines[i].stack,
						    a->lines[i].len);
				assert_int_equal(a->lines[i].value, b->lines[i].value);
			}
			pprof_folded_free(a);
			pprof_folded_free(b);
		}
	}
	pprof_profile_free(p);
	return q;
}

/* The lines left out, then wanted after all (values whose sum leaves
 * int64, or a negative one): read again from each node's own object, as they would have been
 * kept.  Nested nodes (Node's old layout), a node's positionTicks in two
 * keys around its children, an entry's keys in another order; and flat
 * nodes, V8's layout and another (white space) side by side. */
static void test_read_v8_cpu_skip_lines_again(void **state)
{
	(void)state;
	static const char nested[] =
		"{\"head\":{\"functionName\":\"(root)\",\"url\":\"\",\"lineNumber\":-1,\"id\":1,"
		"\"hitCount\":0,\"children\":[{\"functionName\":\"f\",\"url\":\"a.js\","
		"\"lineNumber\":0,\"id\":2,\"hitCount\":-1,"
		"\"positionTicks\":[{\"line\":3,\"ticks\":2}],\"children\":["
		"{\"functionName\":\"g\",\"url\":\"a.js\",\"lineNumber\":9,\"id\":3,"
		"\"hitCount\":5000000000000000000,\"positionTicks\":[{\"line\":11,\"ticks\":1},"
		"{\"ticks\":4,\"line\":12}],\"children\":[]}],"
		"\"positionTicks\":[{\"line\":2,\"ticks\":1}]}]},"
		"\"startTime\":100,\"endTime\":101}";
	static const char flat[] =
		"{\"nodes\":[{\"id\":1,\"callFrame\":{\"functionName\":\"(root)\",\"url\":\"\","
		"\"lineNumber\":-1,\"columnNumber\":-1},\"children\":[2,3]},"
		"{\"id\":2,\"callFrame\":{\"functionName\":\"f\",\"url\":\"a.js\",\"lineNumber\":0,"
		"\"columnNumber\":0},\"hitCount\":-1,"
		"\"positionTicks\":[{\"line\":2,\"ticks\":1},{\"line\":3,\"ticks\":3}]},"
		"{ \"id\":3, \"callFrame\":{\"functionName\":\"g\",\"url\":\"a.js\","
		"\"lineNumber\":4,\"columnNumber\":0}, \"hitCount\":5000000000000000000,"
		"\"positionTicks\":[{\"line\":6,\"ticks\":1}], \"positionTicks\":"
		"[{\"line\":5,\"ticks\":2}] }]}";
	const char *ins[] = {nested, flat};
	const char *want[] = {"f a.js:1;g a.js:11 1000000000000000000\n"
			      "f a.js:1;g a.js:12 4000000000000000000\n"
			      "f a.js:3 -1\n",
			      "f a.js:3 -1\n"
			      "g a.js:5 3333333333333333333\n"
			      "g a.js:6 1666666666666666667\n"};

	for (size_t k = 0; k < sizeof(ins) / sizeof(*ins); k++) {
		struct pprof_read_options o = {0};
		struct pprof_profile *p = pprof_profile_new(), *q = pprof_profile_new();

		assert_non_null(p);
		assert_non_null(q);
		assert_int_equal(pprof_read_buffer(p, ins[k], strlen(ins[k]), &o), PPROF_OK);
		o.skip_lines = 1;
		assert_int_equal(pprof_read_buffer(q, ins[k], strlen(ins[k]), &o), PPROF_OK);
		char *a = fold_str(p, pprof_sample_type_select(p, "samples"), PPROF_G_LINES);
		char *b = fold_str(q, pprof_sample_type_select(q, "samples"), PPROF_G_LINES);
		assert_string_equal(a, b);
		assert_string_equal(b, want[k]);
		free(a);
		free(b);
		pprof_profile_free(p);
		pprof_profile_free(q);
	}
}

static void test_read_v8_cpu_skip_lines(void **state)
{
	(void)state;
	static const char in[] = TICKS_PROFILE(
		"[{\"line\":13,\"ticks\":1},{\"line\":11,\"ticks\":2},{\"line\":12,\"ticks\":2},"
		"{\"line\":14,\"ticks\":0},{\"line\":11,\"ticks\":1}]");
	struct pprof_profile *q = expect_same_without_lines(in);

	/* the lines are not there: the functions' lines at -g lines */
	char *l = fold_str(q, pprof_sample_type_select(q, "samples"), PPROF_G_LINES);
	assert_string_equal(l, "f a.js:1 1\nf a.js:1;g a.js:10 6\n");
	free(l);
	pprof_profile_free(q);
	pprof_profile_free(expect_same_without_lines(TICKS_PROFILE("[]")));
	pprof_profile_free(expect_same_without_lines(TICKS_PROFILE("[{\"line\":9,\"ticks\":0}]")));
	/* the errors of the lines left out */
	expect_same_without_lines(TICKS_PROFILE("[{\"line\":3,\"ticks\":9223372036854775807},"
						"{\"line\":4,\"ticks\":1}]"));
	expect_same_without_lines(TICKS_PROFILE("[{\"line\":0,\"ticks\":1}]"));
	/* values whose sum leaves int64 (5e18 ns twice): read with the lines,
	 * so that sums fail where they would have */
	static const char big[] =
		"{\"nodes\":[{\"id\":1,\"callFrame\":{\"functionName\":\"(root)\",\"url\":\"\","
		"\"lineNumber\":-1,\"columnNumber\":-1},\"children\":[2,3]},"
		"{\"id\":2,\"callFrame\":{\"functionName\":\"f\",\"url\":\"a.js\",\"lineNumber\":0,"
		"\"columnNumber\":0},\"positionTicks\":[{\"line\":2,\"ticks\":1},"
		"{\"line\":3,\"ticks\":1}]},"
		"{\"id\":3,\"callFrame\":{\"functionName\":\"f\",\"url\":\"a.js\",\"lineNumber\":0,"
		"\"columnNumber\":0},\"positionTicks\":[{\"line\":2,\"ticks\":1}]}],"
		"\"startTime\":0,\"endTime\":10000000000000000,\"samples\":[2,3],"
		"\"timeDeltas\":[0,5000000000000000]}";
	pprof_profile_free(expect_same_without_lines(big));
	struct pprof_read_options o = {0};
	o.skip_lines = 1;
	q = pprof_profile_new();
	assert_non_null(q);
	assert_int_equal(pprof_read_buffer(q, big, strlen(big), &o), PPROF_OK);
	l = fold_str(q, pprof_sample_type_select(q, "samples"), PPROF_G_LINES);
	assert_string_equal(l, "f a.js:2 2\n");
	free(l);
	pprof_profile_free(q);
}

static void test_read_v8_heap_errors(void **state)
{
	static const char no_id[] =
		"{\"head\":{\"callFrame\":{\"functionName\":\"(root)\"},\"id\":1,\"selfSize\":0,"
		"\"children\":[]},\"samples\":[{\"size\":1}]}";
	char *want;

	(void)state;
	want = at("sample without a nodeId", no_id, "{\"size\"", 1);
	expect_error_r(&pp_reader_heapprofile, no_id, 0, want);
	free(want);
	{
		static const struct err_case cases[] = {
			{ "{\"samples\":[]}", "not a heapprofile: no head", NULL },
			{ "{\"head\":[]}", "head is not an object", "[" },
			{ "{\"head\":{},\"samples\":[1]}", "a sample is not an object", "1" },
			{ "{\"head\":{},\"samples\":{}}", "samples is not an array", "{}}" },
			{ "{\"head\":{\"selfSize\":\"1\"}}", "selfSize is not a number", "\"1\"" },
			{ "{\"head\":{},\"samples\":[{\"nodeId\":null}]}", "nodeId is not a number",
			  "null" },
			{ "{\"head\":{},\"head\":{}}", "duplicate key \"head\"", "\"head\":{}}" },
			{ "{\"head\":{\"children\":[{\"selfSize\":1}", "unexpected end of input",
			  NULL },
			{ "7", "a heapprofile is a JSON object", "7" },
		};
		char *in = strdup("{\"head\":{\"children\":[{\"selfSize\":1}");
		char *w;

		assert_non_null(in);
		assert_true(asprintf(&w, "unexpected end of input (at byte %zu)", strlen(in)) > 0);
		expect_errors(&pp_reader_heapprofile, cases, 7);
		expect_errors(&pp_reader_heapprofile, cases + 8, 1);
		expect_error_r(&pp_reader_heapprofile, in, 0, w);
		free(w);
		free(in);
	}
}

static void test_read_v8_heap_deep_chain(void **state)
{
	size_t n = 100000, i;
	struct pp_buf b;
	char *frames = repeat_join("g", ";", n), *want;

	(void)state;
	pp_buf_init(&b);
	pp_buf_addf(&b, "{\"head\":{\"callFrame\":{\"functionName\":\"(root)\"},\"children\":[");
	for (i = 1; i <= n; i++)
		pp_buf_addf(&b, "{\"callFrame\":{\"functionName\":\"g\"},\"selfSize\":%d,"
			    "\"children\":[", i == n ? 5 : 0);
	for (i = 0; i <= n; i++)
		pp_buf_add(&b, "]}", 2);
	pp_buf_addc(&b, '}');
	assert_true(asprintf(&want, "%s 5\n", frames) > 0);
	expect_fold(b.s, NULL, want);
	free(want);
	free(frames);
	pp_buf_release(&b);
}

/* ---- bids ---- */

static int bid(const struct pp_reader *r, const char *s)
{
	return r->bid((const unsigned char *)s, strlen(s));
}

static void test_read_v8_bids(void **state)
{
	static const char cpu_named_selfsize[] =
		"{\"nodes\":[{\"id\":1,\"callFrame\":{\"functionName\":\"(root)\"},"
		"\"children\":[2]},{\"id\":2,\"callFrame\":{\"functionName\":\"selfSize\"}}],"
		"\"startTime\":0,\"endTime\":2,\"samples\":[2],\"timeDeltas\":[1]}";
	/* Keys in an unusual order: samples and children first. */
	static const char heap_odd_order[] =
		"\xef\xbb\xbf \n{\"samples\":[],\"head\":{\"children\":[],\"selfSize\":0,"
		"\"callFrame\":{\"functionName\":\"(root)\"}}}";
	const struct pp_reader *cpu = &pp_reader_cpuprofile, *heap = &pp_reader_heapprofile;
	struct pprof_profile *p;
	char *old;

	(void)state;
	assert_true(bid(cpu, basic_cpu) > bid(heap, basic_cpu));
	assert_true(bid(heap, basic_heap) > bid(cpu, basic_heap));
	assert_true(bid(cpu, cpu_named_selfsize) > bid(heap, cpu_named_selfsize));
	assert_true(bid(heap, heap_odd_order) > bid(cpu, heap_odd_order));
	assert_true(asprintf(&old, old_cpu, "") > 0);
	assert_true(bid(cpu, old) > bid(heap, old));
	free(old);
	/* Both beat the other readers on their inputs. */
	assert_true(bid(cpu, basic_cpu) > pp_reader_folded.bid((const unsigned char *)basic_cpu,
							       strlen(basic_cpu)));
	assert_true(bid(cpu, basic_cpu) > pp_reader_pprof.bid((const unsigned char *)basic_cpu,
							      strlen(basic_cpu)));
	/* Not V8. */
	assert_int_equal(bid(cpu, "a;b 1\n"), 0);
	assert_int_equal(bid(heap, "a;b 1\n"), 0);
	assert_int_equal(bid(cpu, "[{\"nodes\":[]}]"), 0);
	assert_int_equal(bid(heap, "{\"version\":3,\"mappings\":\"\"}"), 0);
	assert_int_equal(bid(cpu, "{\"version\":3,\"mappings\":\"\"}"), 0);
	assert_int_equal(bid(cpu, ""), 0);
	/* A key named inside a string is not a key. */
	assert_int_equal(bid(cpu, "{\"x\":\"a\\\"nodes\\\":b\"}"), 0);

	p = read_ok(cpu_named_selfsize);
	assert_int_equal(pprof_profile_format(p), PPROF_FMT_CPUPROFILE);
	pprof_profile_free(p);
	p = read_ok(heap_odd_order);
	assert_int_equal(pprof_profile_format(p), PPROF_FMT_HEAPPROFILE);
	pprof_profile_free(p);
}

/* ---- real files (skipped when absent) ---- */

static char *data_path(const char *rel)
{
	const char *top = getenv("top_srcdir");
	char *s;

	assert_true(asprintf(&s, "%s/%s", top ? top : ".", rel) > 0);
	return s;
}

struct real {
	const char *path; /* from the source tree */
	int64_t type0, type1; /* samples and wall, or objects and space */
	size_t nseq;
};

static void test_read_v8_real_totals(void **state)
{
	static const struct real files[] = {
		{ "../shared/real/profiles/workerd-min.cpuprofile", 2894, 5545603000, 2894 },
		{ "../shared/testdata/speedscope/chrome/chrome65-sucrase.cpuprofile", 17138,
		  22003906000, 17138 },
		{ "../shared/testdata/speedscope/chrome/chrome65-simple.cpuprofile", 29, 36317000,
		  29 },
		{ "../shared/testdata/speedscope/chrome/node10-example.cpuprofile", 29, 45920000,
		  29 },
		{ "../shared/real/profiles/workerd-min.alloc.heapprofile", 2457, 1289435196, 0 },
		{ "../shared/real/profiles/workerd-min.live.heapprofile", 563, 18514468, 0 },
		{ "../shared/testdata/speedscope/heap/chrome69-Heap-20181005T144546.heapprofile", 0,
		  10030888, 0 },
		{ "../shared/testdata/speedscope/heap/node10-Heap-20181003T105432.heapprofile", 0,
		  525704, 0 },
	};
	size_t i, found = 0;

	(void)state;
	for (i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		char *path = data_path(files[i].path);
		struct pprof_profile *p = pprof_profile_new();
		FILE *f = fopen(path, "rb");
		int64_t a, b;

		assert_non_null(p);
		if (!f) {
			free(path);
			pprof_profile_free(p);
			continue;
		}
		fclose(f);
		found++;
		if (pprof_read_file(p, path, NULL) != PPROF_OK)
			fail_msg("%s: %s", path, pprof_profile_error(p));
		sums(p, &a, &b);
		if (a != files[i].type0 || b != files[i].type1 || p->nseq != files[i].nseq)
			fail_msg("%s: totals %lld %lld, %zu in sequence", path, (long long)a,
				 (long long)b, p->nseq);
		free(path);
		pprof_profile_free(p);
	}
	if (!found)
		skip();
}

/* ---- V8's own layout (read from the bytes) and the samples read ahead ---- */

/* S with every ':' followed by a space: the same profile, which the readers
 * read token by token (the names and URLs below hold no ':'). */
static char *spaced(const char *s)
{
	size_t n = 0;
	for (const char *q = s; *q; q++)
		n += *q == ':' ? 2 : 1;
	char *r = malloc(n + 1), *o = r;
	assert_non_null(r);
	for (const char *q = s; *q; q++) {
		*o++ = *q;
		if (*q == ':')
			*o++ = ' ';
	}
	*o = '\0';
	return r;
}

/* A and B read to the same model: strings, frames and nodes in the same
 * order, the same folded lines at every granularity, the same time order. */
static void expect_same_model(const char *a, const char *b)
{
	struct pprof_profile *p = read_ok(a), *q = read_ok(b);

	assert_int_equal(p->nstrs, q->nstrs);
	for (uint32_t i = 0; i < p->nstrs; i++)
		assert_string_equal(pp_str(p, i), pp_str(q, i));
	assert_int_equal(p->nframes, q->nframes);
	assert_memory_equal(p->frames, q->frames, p->nframes * sizeof(*p->frames));
	assert_int_equal(p->nnodes, q->nnodes);
	assert_memory_equal(p->nodes, q->nodes, p->nnodes * sizeof(*p->nodes));
	assert_int_equal(p->nseq, q->nseq);
	for (size_t i = 0; i < p->nseq; i++) {
		assert_int_equal(p->seq[i].node, q->seq[i].node);
		assert_int_equal(p->seq[i].time, q->seq[i].time);
		assert_int_equal(p->seq[i].wall, q->seq[i].wall);
	}
	assert_int_equal(p->period, q->period);
	assert_int_equal(p->duration_nanos, q->duration_nanos);
	for (int g = PPROF_G_FUNCTIONS; g <= PPROF_G_ADDRESSES; g++) {
		for (int sel = 0; sel < 2; sel++) {
			char *x = fold_str(p, sel, (enum pprof_granularity)g);
			char *y = fold_str(q, sel, (enum pprof_granularity)g);
			assert_string_equal(x, y);
			free(x);
			free(y);
		}
	}
	pprof_profile_free(p);
	pprof_profile_free(q);
}

#define FAST_NODE(ID, NAME, LINE, REST)                                                    \
	"{\"id\":" #ID ",\"callFrame\":{\"functionName\":\"" NAME "\",\"scriptId\":\"7\"," \
	"\"url\":\"a.js\",\"lineNumber\":" #LINE ",\"columnNumber\":4}" REST "}"

static void test_read_v8_cpu_fast_layout(void **state)
{
	(void)state;
	/* compact nodes as V8 writes them, one with an escape and one with
	 * a key V8 does not write (read token by token), a name shared */
	static const char in[] =
		"{\"nodes\":["
		"{\"id\":1,\"callFrame\":{\"functionName\":\"(root)\",\"scriptId\":\"0\","
		"\"url\":\"\",\"lineNumber\":-1,\"columnNumber\":-1},\"hitCount\":0,"
		"\"children\":[2,5]}," FAST_NODE(
			2, "f", 0,
			",\"hitCount\":1,\"children\":[3,4],"
			"\"positionTicks\":[{\"line\":2,\"ticks\":1}]") "," FAST_NODE(3, "g", 9,
										      ",\"hitCount\":4,\"positionTicks\":[{\"line\":12,\"ticks\":3},"
										      "{\"line\":11,\"ticks\":1}]") "," FAST_NODE(4,
																  "h\\u0041",
																  20,
																  ",\"hitCount\":1") "," FAST_NODE(5,
																				   "g",
																				   9,
																				   ",\"hitCount\":1,\"deoptReason\":\"x\",\"children\":[]") "],"
																											    "\"startTime\":0,\"endTime\":8000,\"samples\":[3,3,3,3,2,4,5],"
																											    "\"timeDeltas\":[0,1000,1000,1000,1000,1000,1000]}";
	char *sp = spaced(in);

	expect_same_model(in, sp);
	expect_fold_g(in, "samples", PPROF_G_LINES,
		      "f a.js:1;g a.js:11 1\nf a.js:1;g a.js:12 3\nf a.js:1;hA a.js:21 1\n"
		      "f a.js:2 1\ng a.js:10 1\n");
	free(sp);
}

/* IN read for a flame chart (the samples one by one) and without the time
 * order (the second thread's sums of a big input): the same values, times
 * and errors. */
static void expect_same_sums(const char *in)
{
	struct pprof_read_options o = {0};
	struct pprof_profile *p = pprof_profile_new(), *q = pprof_profile_new();

	assert_non_null(p);
	assert_non_null(q);
	p->format = q->format = PPROF_FMT_CPUPROFILE;
	int sp = pp_reader_cpuprofile.read(p, (const unsigned char *)in, strlen(in), &o);
	o.skip_sequence = 1;
	int sq = pp_reader_cpuprofile.read(q, (const unsigned char *)in, strlen(in), &o);
	assert_int_equal(sp, sq);
	if (sp != PPROF_OK) {
		assert_string_equal(pprof_profile_error(p), pprof_profile_error(q));
	} else {
		assert_int_equal(p->period, q->period);
		assert_int_equal(p->duration_nanos, q->duration_nanos);
		for (int g = PPROF_G_FUNCTIONS; g <= PPROF_G_LINES; g++) {
			for (int sel = 0; sel < 2; sel++) {
				char *x = fold_str(p, sel, (enum pprof_granularity)g);
				char *y = fold_str(q, sel, (enum pprof_granularity)g);
				assert_string_equal(x, y);
				free(x);
				free(y);
			}
		}
	}
	pprof_profile_free(p);
	pprof_profile_free(q);
}

/* A profile of N samples over nodes 2, 3 and 4 (4 with positionTicks),
 * more than a MiB; the delta of sample i is DELTA(i), START and END the
 * times. */
static char *big_profile(size_t n, int64_t (*delta)(size_t), const char *start, const char *end)
{
	struct pp_buf b;

	pp_buf_init(&b);
	pp_buf_addf(&b,
		    "{\"nodes\":["
		    "{\"id\":1,\"callFrame\":{\"functionName\":\"(root)\",\"scriptId\":\"0\","
		    "\"url\":\"\",\"lineNumber\":-1,\"columnNumber\":-1},\"children\":[2,3]}," FAST_NODE(
			    2, "f", 0,
			    ",\"children\":[4]") "," FAST_NODE(3, "g", 5,
							       "") "," FAST_NODE(4, "h", 9,
										 ",\"positionTicks\":[{\"line\":12,\"ticks\":3},{\"line\":11,\"ticks\":1}]") "],"
																			     "\"startTime\":%s,\"endTime\":%s,\"samples\":[",
		    start, end);
	for (size_t i = 0; i < n; i++)
		pp_buf_addf(&b, "%s%d", i ? "," : "", (int)(2 + i % 3));
	pp_buf_addf(&b, "],\"timeDeltas\":[");
	for (size_t i = 0; i < n; i++)
		pp_buf_addf(&b, "%s%lld", i ? "," : "", (long long)delta(i));
	pp_buf_add(&b, "]}", 2);
	assert_true(n < 100000 || b.len > ((size_t)1 << 20));
	char *s = strdup(b.s);
	assert_non_null(s);
	pp_buf_release(&b);
	return s;
}

static int64_t d_few_back(size_t i)
{
	return i % 7 == 6 ? -1 : (int64_t)(i % 5 + 1);
}

static int64_t d_sorted(size_t i)
{
	return (int64_t)(i % 5 + 1);
}

static int64_t d_shuffled(size_t i)
{
	/* far out of order: past the insertion sort's budget */
	return i % 2 ? 100000 : -99990;
}

static int64_t d_equal(size_t i)
{
	return i % 3 ? 0 : 2;
}

static int64_t d_huge(size_t i)
{
	return i == 1000 ? INT64_MAX / 2 : i == 2000 ? INT64_MAX / 2 + 10 : 1;
}

static int64_t d_wall_sum(size_t i)
{
	/* the gaps after samples 999 and 1002 (node 2) fit in ns, their sum
	 * does not */
	return i == 1000 || i == 1003 ? 4650000000000000 : 1;
}

static int64_t d_negative_time(size_t i)
{
	return i == 0 ? -5 : 1;
}

/* Sample 500 goes back BACK places (the others 10 apart), for the ring of
 * samples not yet summed (read_cpuprofile.c, 64 of them). */
static size_t back;
static int64_t d_back(size_t i)
{
	return i == 500 ? -(int64_t)(10 * back + 5) : i == 501 ? (int64_t)(10 * back + 15) : 10;
}

/* Small inputs through the second thread too (pp_ahead_min 0): samples
 * that go back less than the ring holds, as many, one more, far more. */
static void test_read_v8_cpu_sums_small(void **state)
{
	(void)state;
	size_t saved = pp_ahead_min;
	pp_ahead_min = 0;
	const size_t backs[] = {0, 1, 2, 62, 63, 64, 65, 66, 200, 499};
	for (size_t k = 0; k < sizeof(backs) / sizeof(*backs); k++) {
		back = backs[k];
		char *in = big_profile(1000, d_back, "0", "20000");
		expect_same_sums(in);
		free(in);
	}
	int64_t (*deltas[])(size_t) = {d_few_back, d_sorted, d_shuffled, d_equal, d_negative_time};
	for (size_t k = 0; k < sizeof(deltas) / sizeof(*deltas); k++) {
		for (size_t n = 1; n <= 130; n += 43) {
			char *in = big_profile(n, deltas[k], "5", "900000");
			expect_same_sums(in);
			free(in);
		}
	}
	pp_ahead_min = saved;
}

static void test_read_v8_cpu_sums_ahead(void **state)
{
	(void)state;
	const size_t n = 300000;
	struct {
		int64_t (*delta)(size_t);
		const char *start, *end;
	} cases[] = {
		{d_few_back, "10", "2000000"},
		{d_sorted, "0", "600000"},
		{d_sorted, "0", "10"},
		{d_sorted, "9223372036854775000", "9223372036854775807"},
		{d_sorted, "-9223372036854775000", "0"},
		{d_sorted, "0", "9223372036854775807"},
		{d_sorted, "1.5", "1e300"},
		{d_shuffled, "0", "100000000"},
		{d_equal, "0", "1"},
		{d_huge, "0", "1"},
		{d_wall_sum, "0", "1"},
		{d_negative_time, "100", "900000"},
	};

	for (size_t k = 0; k < sizeof(cases) / sizeof(*cases); k++) {
		char *in = big_profile(n, cases[k].delta, cases[k].start, cases[k].end);

		expect_same_sums(in);
		/* a sample naming a missing node, a bad delta */
		char *x = strstr(in, "\"samples\":[") + 11 + 6;
		char save = *x;
		*x = '9';
		expect_same_sums(in);
		*x = save;
		x = strstr(in, "\"timeDeltas\":[") + 14;
		*x = '"';
		expect_same_sums(in);
		free(in);
	}

	/* the tree is built while the thread reads: its errors, after those
	 * of the rest of the text */
	char *in = big_profile(n, d_sorted, "0", "1"), *w;
	char *x = strstr(in, "{\"id\":4,");
	x[6] = '3';
	w = at("duplicate node id 3", in, "{\"id\":3,", 2);
	expect_cpu_error(in, w);
	expect_same_sums(in);
	free(w);
	in[strlen(in) - 1] = '\0';
	assert_true(asprintf(&w, "unexpected end of input (at byte %zu)", strlen(in)) > 0);
	expect_cpu_error(in, w);
	expect_same_sums(in);
	free(w);
	free(in);
}

/* More than a MiB of samples: read on the second thread when written as V8
 * writes them, by the main parse otherwise; the same either way, errors
 * included (their offsets follow the bytes). */
static void test_read_v8_cpu_samples_ahead(void **state)
{
	(void)state;
	const size_t n = 300000;
	struct pp_buf b;

	pp_buf_init(&b);
	pp_buf_addf(&b,
		    "{\"nodes\":["
		    "{\"id\":1,\"callFrame\":{\"functionName\":\"(root)\",\"scriptId\":\"0\","
		    "\"url\":\"\",\"lineNumber\":-1,\"columnNumber\":-1},\"children\":[2,3]}," FAST_NODE(
			    2, "f", 0,
			    "") "," FAST_NODE(3, "g", 5,
					      "") "],\"startTime\":10,\"endTime\":%zu,\"samples\":[",
		    10 + 3 * n);
	for (size_t i = 0; i < n; i++)
		pp_buf_addf(&b, "%s%d", i ? "," : "", i % 3 ? 2 : 3);
	pp_buf_addf(&b, "],\"timeDeltas\":[");
	for (size_t i = 0; i < n; i++)
		pp_buf_addf(&b, "%s%d", i ? "," : "", i % 7 == 6 ? -1 : (int)(i % 5) + 1);
	pp_buf_add(&b, "]}", 2);
	assert_true(b.len > ((size_t)1 << 20));
	char *sp = spaced(b.s);
	expect_same_model(b.s, sp);

	/* a sample naming a missing node, near the end */
	char *bad = strdup(b.s), *badsp;
	assert_non_null(bad);
	char *k = strstr(bad, "],\"timeDeltas\"");
	assert_non_null(k);
	k[-1] = '9';
	badsp = spaced(bad);
	char want[128];
	snprintf(want, sizeof(want), "sample %zu: node 9 does not exist (at byte %zu)", n - 1,
		 (size_t)(k - 1 - bad));
	expect_cpu_error(bad, want);
	snprintf(want, sizeof(want), "sample %zu: node 9 does not exist (at byte %zu)", n - 1,
		 (size_t)(strstr(badsp, "],\"timeDeltas\"") - 1 - badsp));
	expect_cpu_error(badsp, want);
	/* a delta that is not a number */
	k = strstr(bad, "\"timeDeltas\":[") + 14;
	k[0] = '"';
	k[2] = '"';
	char *w = at("timeDeltas holds something other than a number", bad, "\"timeDeltas\":[", 1);
	char *w2 = malloc(strlen(w) + 32);
	assert_non_null(w2);
	/* the string starts at the '[' plus one */
	size_t off = (size_t)(k - bad);
	snprintf(w2, strlen(w) + 32, "timeDeltas holds something other than a number (at byte %zu)",
		 off);
	expect_cpu_error(bad, w2);
	free(w);
	free(w2);
	free(bad);
	free(badsp);
	free(sp);
	pp_buf_release(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_read_v8_cpu_basic),
		cmocka_unit_test(test_read_v8_cpu_order_independence),
		cmocka_unit_test(test_read_v8_cpu_negative_deltas),
		cmocka_unit_test(test_read_v8_cpu_end_before_last_sample),
		cmocka_unit_test(test_read_v8_cpu_root_samples),
		cmocka_unit_test(test_read_v8_cpu_no_samples_uses_hitcount),
		cmocka_unit_test(test_read_v8_cpu_no_time_deltas),
		cmocka_unit_test(test_read_v8_cpu_old_format),
		cmocka_unit_test(test_read_v8_cpu_old_format_fractional_start),
		cmocka_unit_test(test_read_v8_cpu_names),
		cmocka_unit_test(test_read_v8_cpu_several_roots),
		cmocka_unit_test(test_read_v8_cpu_graph_errors),
		cmocka_unit_test(test_read_v8_cpu_input_errors),
		cmocka_unit_test(test_read_v8_cpu_deep_chain),
		cmocka_unit_test(test_read_v8_heap_basic),
		cmocka_unit_test(test_read_v8_heap_without_samples),
		cmocka_unit_test(test_read_v8_cpu_position_ticks),
		cmocka_unit_test(test_read_v8_cpu_position_ticks_errors),
		cmocka_unit_test(test_read_v8_cpu_skip_lines),
		cmocka_unit_test(test_read_v8_cpu_skip_lines_again),
		cmocka_unit_test(test_read_v8_cpu_fast_layout),
		cmocka_unit_test(test_read_v8_cpu_samples_ahead),
		cmocka_unit_test(test_read_v8_cpu_sums_ahead),
		cmocka_unit_test(test_read_v8_cpu_sums_small),
		cmocka_unit_test(test_read_v8_heap_missing_node),
		cmocka_unit_test(test_read_v8_heap_errors),
		cmocka_unit_test(test_read_v8_heap_deep_chain),
		cmocka_unit_test(test_read_v8_bids),
		cmocka_unit_test(test_read_v8_real_totals),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
