/* Unit tests of diff.c and top.c: the diff of two folded profiles
 * (difffolded.pl's lines and rounding), the fast folded path against the
 * reader, pprof's value labels and units, the -top table and the diff
 * table with its regression gate. */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "folded_private.h"

static struct pprof_profile *read_text(const char *text)
{
	struct pprof_profile *p = pprof_profile_new();
	assert_non_null(p);
	if (pprof_read_buffer(p, text, strlen(text), NULL) != PPROF_OK)
		fail_msg("read failed: %s", pprof_profile_error(p));
	return p;
}

static struct pprof_folded *fold_text(struct pprof_profile *p)
{
	struct pprof_fold_options o = {pprof_sample_type_select(p, NULL), PPROF_G_FUNCTIONS};
	struct pprof_folded *f = NULL;
	assert_int_equal(pprof_fold(p, &o, &f), PPROF_OK);
	return f;
}

static char *folded_str(const struct pprof_folded *f)
{
	struct pp_buf b;
	pp_buf_init(&b);
	for (size_t i = 0; i < f->n; i++) {
		pp_buf_add(&b, f->lines[i].stack, f->lines[i].len);
		pp_buf_addf(&b, " %lld\n", (long long)f->lines[i].value);
	}
	char *s = strdup(b.s);
	pp_buf_release(&b);
	return s;
}

static char *diff_str(const struct pprof_diff *d)
{
	char *s = NULL;
	size_t n = 0;
	FILE *m = open_memstream(&s, &n);
	assert_non_null(m);
	assert_int_equal(pprof_diff_write(d, m), PPROF_OK);
	fclose(m);
	return s;
}

/* The diff of two folded texts, as text. */
static char *diff_texts(const char *a, const char *b, int normalize, int strip)
{
	struct pprof_profile *pa = read_text(a), *pb = read_text(b);
	struct pprof_folded *fa = fold_text(pa), *fb = fold_text(pb);
	if (strip) {
		assert_int_equal(pprof_folded_strip_hex(pa, fa), PPROF_OK);
		assert_int_equal(pprof_folded_strip_hex(pb, fb), PPROF_OK);
	}
	struct pprof_diff_options o = {normalize};
	struct pprof_diff *d = NULL;
	assert_int_equal(pprof_diff_folded(pb, fa, fb, &o, &d), PPROF_OK);
	char *s = diff_str(d);
	pprof_diff_free(d);
	pprof_folded_free(fa);
	pprof_folded_free(fb);
	pprof_profile_free(pa);
	pprof_profile_free(pb);
	return s;
}

static void test_diff_lines_union_sorted(void **state)
{
	(void)state;
	char *s = diff_texts("b;c 2\na 1\nz 7\n", "a 3\nb;c;d 4\nb;c 2\n", 0, 0);
	assert_string_equal(s, "a 1 3\nb;c 2 2\nb;c;d 0 4\nz 7 0\n");
	free(s);
}

static void test_diff_normalize_as_perl(void **state)
{
	(void)state;
	/* totals 3 and 10: int(v * 10 / 3) truncates */
	char *s = diff_texts("a 1\nb 2\n", "a 5\nb 5\n", 1, 0);
	assert_string_equal(s, "a 3 5\nb 6 5\n");
	free(s);
	/* equal totals: nothing scaled */
	s = diff_texts("a 1\nb 2\n", "a 2\nc 1\n", 1, 0);
	assert_string_equal(s, "a 1 2\nb 2 0\nc 0 1\n");
	free(s);
}

static void test_diff_normalize_big_values(void **state)
{
	(void)state;
	/* The product passes 2^64: Perl multiplies in doubles. */
	char *s = diff_texts("a 4000000000000000000\nb 1\n", "a 9000000000000000000\n", 1, 0);
	/* 4e18 * 9e18 / (4e18 + 1) in doubles, truncated */
	double q = 4000000000000000000.0 * 9000000000000000000.0 / 4000000000000000001.0;
	char want[128];
	snprintf(want, sizeof(want), "a %lld 9000000000000000000\nb 2 0\n", (long long)q);
	assert_string_equal(s, want);
	free(s);
}

static void test_diff_strip_hex(void **state)
{
	(void)state;
	char *s = diff_texts("f;0x7fa0 1\nf;0xBEEF 2\ng;0xz 1\n", "f;0x1 4\n", 0, 1);
	assert_string_equal(s, "f;0x... 3 4\ng;0xz 1 0\n");
	free(s);
}

/* Writes TEXT to a temporary file; returns its malloc'd path. */
static char *tmp_file(const void *text, size_t n)
{
	char *path = strdup("/tmp/test_diff.XXXXXX");
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, n), (ssize_t)n);
	close(fd);
	return path;
}

/* Folded text that nothing transforms is folded from its lines as read
 * (FAST: pointing into the input, no call tree), with the same lines,
 * total, warnings and errors as through the tree. */
static void expect_fast(const char *text, bool fast)
{
	char *path = tmp_file(text, strlen(text));
	struct pprof_profile *p = pprof_profile_new();
	int s1 = pprof_read_file(p, path, NULL);
	struct pprof_profile *q = pprof_profile_new();
	int s2 = pprof_read_file(q, path, NULL);
	assert_int_equal(s1, s2);
	if (s1 != PPROF_OK) {
		assert_false(fast);
		assert_string_equal(pprof_profile_error(p), pprof_profile_error(q));
		pprof_profile_free(p);
		pprof_profile_free(q);
		unlink(path);
		free(path);
		return;
	}
	assert_int_equal(pp_settle(q), PPROF_OK); /* the tree, as a transform makes it */
	struct pprof_folded *f = fold_text(p), *g = fold_text(q);
	char *got = folded_str(f), *want = folded_str(g);
	assert_string_equal(got, want);
	assert_int_equal(f->total, g->total);
	assert_null(g->buf == NULL && g->n ? "tree lines without a buffer" : NULL);
	bool took = f->buf == NULL; /* the lines point into P's input */
	if (took != fast)
		fail_msg("fast path %s for %s", took ? "taken" : "not taken", text);
	assert_int_equal(pprof_profile_warning_count(p), pprof_profile_warning_count(q));
	free(got);
	free(want);
	pprof_folded_free(f);
	pprof_folded_free(g);
	pprof_profile_free(p);
	pprof_profile_free(q);
	unlink(path);
	free(path);
}

static void test_diff_fast_path_agrees(void **state)
{
	(void)state;
	expect_fast("a;b 1\na;c 2\n", true);
	expect_fast("b 1\na 2\nb 3\nc 0\n", true);         /* unsorted, duplicates, zero */
	expect_fast("a;b 5\r\na 1\r\n", true);              /* CRLF */
	expect_fast("# comment ;; x\n\na b;c d 4\n", true); /* comment, spaces in names */
	expect_fast("\xef\xbb\xbf" "a 1\n", true);          /* BOM */
	expect_fast("a 1\nb -3\n", true);                   /* negative */
	expect_fast("a;;b 1\n", false);                     /* empty frame */
	expect_fast(";a 1\n", false);
	expect_fast("a; 1\n", false);
	expect_fast("a\rb 1\n", false);                     /* CR in a name */
	expect_fast("a 1 2\n", true);                       /* three columns */
	expect_fast("a 1.5\nb 2.5\nb 0.5\n", true);         /* fractions, rounded per line */
	expect_fast("a 1\nbad\n", true);                    /* a line without count */
	expect_fast("a;12 3\n", true);                      /* a digit frame */
	expect_fast("12 3\n", true);
	expect_fast("x 12 3\n", true);
	expect_fast("a 99999999999999999999\n", false);     /* past int64 */
	expect_fast("a 9223372036854775807\na 1\n", false); /* a sum past int64 */
	expect_fast("a 1 2\nb 3\n", false);                 /* columns change */
}

static void test_diff_fast_path_not_folded(void **state)
{
	(void)state;
	/* A .cpuprofile goes to the tree. */
	const char *cpu = "{\"nodes\":[{\"id\":1,\"callFrame\":{\"functionName\":\"(root)\","
			  "\"scriptId\":\"0\",\"url\":\"\",\"lineNumber\":-1,\"columnNumber\":-1},"
			  "\"children\":[2]},{\"id\":2,\"callFrame\":{\"functionName\":\"f\","
			  "\"scriptId\":\"1\",\"url\":\"a.js\",\"lineNumber\":0,\"columnNumber\":0}}],"
			  "\"startTime\":0,\"endTime\":10,\"samples\":[2],\"timeDeltas\":[1]}";
	struct pprof_profile *p = pprof_profile_new();
	assert_int_equal(pprof_read_buffer(p, cpu, strlen(cpu), NULL), PPROF_OK);
	struct pprof_folded *f = fold_text(p);
	assert_non_null(f->buf);
	assert_int_equal(pprof_profile_format(p), PPROF_FMT_CPUPROFILE);
	pprof_folded_free(f);
	pprof_profile_free(p);
	/* Two folded inputs are summed in the tree. */
	p = pprof_profile_new();
	assert_int_equal(pprof_read_buffer(p, "a 1\n", 4, NULL), PPROF_OK);
	assert_int_equal(pprof_read_buffer(p, "a 2\nb 1\n", 8, NULL), PPROF_OK);
	f = fold_text(p);
	char *s = folded_str(f);
	assert_string_equal(s, "a 3\nb 1\n");
	assert_non_null(f->buf);
	free(s);
	pprof_folded_free(f);
	pprof_profile_free(p);
}

static void expect_label(int64_t v, const char *from, const char *to, const char *want)
{
	char buf[64];
	pprof_value_label(buf, sizeof(buf), v, from, to);
	assert_string_equal(buf, want);
}

static void test_diff_value_labels(void **state)
{
	(void)state;
	expect_label(1370000000, "nanoseconds", "s", "1.37s");
	expect_label(1370000000, "nanoseconds", "auto", "1.37s");
	expect_label(10000000, "nanoseconds", "ms", "10ms");
	expect_label(-10000000, "nanoseconds", "ms", "-10ms");
	expect_label(80939008, "bytes", "MB", "77.19MB");
	expect_label(4096, "bytes", "B", "4096B");
	expect_label(42, "count", "count", "42");
	expect_label(0, "nanoseconds", "s", "0");
	expect_label(1, "nanoseconds", "s", "0");        /* "0.00" then "0" */
	expect_label(5, "widgets", "widgets", "5widgets"); /* unknown unit kept */
	expect_label(3, "microseconds", "auto", "3us");
	expect_label(7200, "seconds", "auto", "2hrs");
}

static void expect_unit(int64_t min, int64_t max, const char *from, const char *want)
{
	char buf[32];
	pprof_output_unit(buf, sizeof(buf), min, max, from);
	assert_string_equal(buf, want);
}

static void test_diff_output_unit(void **state)
{
	(void)state;
	/* sample.cpu: smallest 10ms, total 1.76s: seconds with two decimals */
	expect_unit(10000000, 1760000000, "nanoseconds", "s");
	expect_unit(10000000, 70000000, "nanoseconds", "ms");
	expect_unit(64, 4710, "bytes", "B");
	expect_unit(0, 4710, "bytes", "kB");
	expect_unit(2097152, 80939008, "bytes", "MB");
	expect_unit(1, 100, "count", "count");
	expect_unit(1, 100, "Widgets", "widgets");
}

static struct pprof_top *top_of(struct pprof_profile *p, int cum, size_t limit)
{
	struct pprof_top_options o = {pprof_sample_type_select(p, NULL), PPROF_G_FUNCTIONS, cum, limit};
	struct pprof_top *t = NULL;
	assert_int_equal(pprof_top(p, &o, &t), PPROF_OK);
	return t;
}

static void test_top_recursion_once(void **state)
{
	(void)state;
	struct pprof_profile *p = read_text("a;b;a;b 5\na;c 3\nb 2\n");
	struct pprof_top *t = top_of(p, 0, 0);
	assert_int_equal(t->nall, 3);
	assert_int_equal(t->total, 10);
	/* by flat: b 7, c 3, a 0 */
	assert_string_equal(t->rows[0].name, "b");
	assert_int_equal(t->rows[0].flat, 7);
	assert_int_equal(t->rows[0].cum, 7);
	assert_string_equal(t->rows[1].name, "c");
	assert_int_equal(t->rows[1].cum, 3);
	assert_string_equal(t->rows[2].name, "a");
	assert_int_equal(t->rows[2].flat, 0);
	assert_int_equal(t->rows[2].cum, 8);
	pprof_top_free(t);
	/* by cum, limited */
	t = top_of(p, 1, 2);
	assert_int_equal(t->n, 2);
	assert_string_equal(t->rows[0].name, "a");
	assert_string_equal(t->rows[1].name, "b");
	assert_int_equal(t->flat_sum, 7);
	pprof_top_free(t);
	pprof_profile_free(p);
}

static char *top_text(struct pprof_top *t, enum pprof_table_format fmt)
{
	char *s = NULL;
	size_t n = 0;
	FILE *m = open_memstream(&s, &n);
	assert_int_equal(pprof_top_write(t, fmt, m), PPROF_OK);
	fclose(m);
	return s;
}

static void test_top_text_as_pprof(void **state)
{
	(void)state;
	struct pprof_profile *p = read_text("main;a 40\nmain;a;b 30\nmain;b 30\n");
	struct pprof_top *t = top_of(p, 0, 0);
	char *s = top_text(t, PPROF_TABLE_TEXT);
	assert_string_equal(s, "Type: samples\n"
			       "Showing nodes accounting for 100, 100% of 100 total\n"
			       "      flat  flat%   sum%        cum   cum%\n"
			       "        60 60.00% 60.00%         60 60.00%  b\n"
			       "        40 40.00%   100%         70 70.00%  a\n"
			       "         0     0%   100%        100   100%  main\n");
	free(s);
	s = top_text(t, PPROF_TABLE_TSV);
	assert_non_null(strstr(s, "\n60\t60.0000\t60.0000\t60\t60.0000\tb\t\n"));
	free(s);
	s = top_text(t, PPROF_TABLE_JSON);
	assert_non_null(strstr(s, "{\"function\":\"main\",\"flat\":0,"));
	free(s);
	pprof_top_free(t);
	pprof_profile_free(p);
}

static void test_diff_table_and_gate(void **state)
{
	(void)state;
	struct pprof_profile *pa = read_text("m;a 10\nm;b 10\nm;a;a 5\n");
	struct pprof_profile *pb = read_text("m;a 10\nm;b 30\nm;c 1\n");
	struct pprof_folded *fa = fold_text(pa), *fb = fold_text(pb);
	struct pprof_diff_options o = {0};
	struct pprof_diff *d = NULL;
	assert_int_equal(pprof_diff_folded(pb, fa, fb, &o, &d), PPROF_OK);
	assert_int_equal(d->total_before, 25);
	assert_int_equal(d->total_after, 41);
	struct pprof_diff_table *t = NULL;
	assert_int_equal(pprof_diff_table(pb, d, 0, &t), PPROF_OK);
	/* b +20 self; a -5 self (15 -> 10), total once per stack 15 -> 10;
	 * m self 0, total +16; c +1 */
	assert_int_equal(t->n, 4);
	assert_string_equal(t->rows[0].name, "b");
	assert_int_equal(t->rows[0].self_after - t->rows[0].self_before, 20);
	assert_string_equal(t->rows[1].name, "a");
	assert_int_equal(t->rows[1].total_before, 15);
	assert_int_equal(t->rows[1].total_after, 10);
	assert_string_equal(t->rows[2].name, "c");
	assert_string_equal(t->rows[3].name, "m");
	assert_int_equal(t->rows[3].total_after - t->rows[3].total_before, 16);
	const struct pprof_diff_row *worst;
	size_t nover;
	/* b grew by 20 = 80% of 25; the total by 64% */
	assert_true(pprof_diff_regressed(t, d, 50, 0, &worst, &nover));
	assert_string_equal(worst->name, "b");
	assert_int_equal(nover, 2); /* b and m */
	assert_false(pprof_diff_regressed(t, d, 80, 0, &worst, &nover));
	assert_int_equal(nover, 0);
	pprof_diff_table_free(t);
	assert_int_equal(pprof_diff_table(pb, d, 1, &t), PPROF_OK);
	assert_string_equal(t->rows[0].name, "b"); /* |20| then m |16| */
	assert_string_equal(t->rows[1].name, "m");
	pprof_diff_table_free(t);
	pprof_diff_free(d);
	pprof_folded_free(fa);
	pprof_folded_free(fb);
	pprof_profile_free(pa);
	pprof_profile_free(pb);
}

static void test_diff_totals_overflow(void **state)
{
	(void)state;
	struct pprof_profile *pa = read_text("a -9000000000000000000\n");
	struct pprof_profile *pb = read_text("a 9000000000000000000\n");
	struct pprof_folded *fa = fold_text(pa), *fb = fold_text(pb);
	struct pprof_diff_options o = {0};
	struct pprof_diff *d = NULL;
	assert_int_equal(pprof_diff_folded(pb, fa, fb, &o, &d), PPROF_EINPUT);
	assert_null(d);
	assert_string_equal(pprof_profile_error(pb),
			    "the difference of the totals leaves the 64-bit range");
	pprof_folded_free(fa);
	pprof_folded_free(fb);
	pprof_profile_free(pa);
	pprof_profile_free(pb);
}

static void test_diff_fold_vanished(void **state)
{
	(void)state;
	/* c is inlined into b in the second capture; a root stays */
	struct pprof_profile *pa = read_text("a;b;c 5\na;b 2\nx;c 1\nr;y 4\n");
	struct pprof_profile *pb = read_text("a;b 8\nr 1\n");
	struct pprof_folded *fa = fold_text(pa), *fb = fold_text(pb);
	assert_int_equal(pprof_folded_fold_vanished(pb, fa, fb), PPROF_OK);
	char *sa = folded_str(fa), *sb = folded_str(fb);
	assert_string_equal(sa, "a;b 7\nr 4\nx 1\n");
	assert_string_equal(sb, "a;b 8\nr 1\n");
	assert_int_equal(fa->total, 12);
	free(sa);
	free(sb);
	pprof_folded_free(fa);
	pprof_folded_free(fb);
	pprof_profile_free(pa);
	pprof_profile_free(pb);
}

static void test_diff_value_parse(void **state)
{
	(void)state;
	int64_t v = 0;
	assert_int_equal(pprof_value_parse("5ms", "nanoseconds", &v), PPROF_OK);
	assert_int_equal(v, 5000000);
	assert_int_equal(pprof_value_parse("2.5s", "nanoseconds", &v), PPROF_OK);
	assert_int_equal(v, 2500000000);
	assert_int_equal(pprof_value_parse("1MiB", "bytes", &v), PPROF_OK);
	assert_int_equal(v, 1048576);
	assert_int_equal(pprof_value_parse("1MB", "bytes", &v), PPROF_OK);
	assert_int_equal(v, 1048576);
	assert_int_equal(pprof_value_parse("1.5kb", "bytes", &v), PPROF_OK);
	assert_int_equal(v, 1536);
	assert_int_equal(pprof_value_parse("12", "count", &v), PPROF_OK);
	assert_int_equal(v, 12);
	assert_int_equal(pprof_value_parse("5ms", "bytes", &v), PPROF_EUSAGE);
	assert_int_equal(pprof_value_parse("5ms", "count", &v), PPROF_EUSAGE);
	assert_int_equal(pprof_value_parse("-1", "count", &v), PPROF_EUSAGE);
	assert_int_equal(pprof_value_parse("", "count", &v), PPROF_EUSAGE);
	assert_int_equal(pprof_value_parse("1e30", "count", &v), PPROF_EUSAGE);
}

/* Pictures' units (units.c): the largest unit reached, decimals for the
 * resolution, never finer than the counts' unit; fractions kept. */
static void check_human(double v, const char *unit, double res, bool sign, const char *want)
{
	char buf[128];
	size_t n = pp_human_value(buf, sizeof(buf), v, unit, res, sign);
	assert_string_equal(buf, want);
	assert_int_equal(n, strlen(want));
}

static void test_human_values(void **state)
{
	(void)state;
	double base;
	assert_int_equal(pp_human_kind("nanoseconds", &base), PP_HUMAN_TIME);
	assert_true(base == 1);
	assert_int_equal(pp_human_kind("ms", &base), PP_HUMAN_TIME);
	assert_true(base == 1e6);
	assert_int_equal(pp_human_kind("bytes", &base), PP_HUMAN_BYTES);
	assert_int_equal(pp_human_kind("samples", &base), PP_HUMAN_NONE);
	assert_int_equal(pp_human_kind("count", &base), PP_HUMAN_NONE);
	assert_int_equal(pp_human_kind(NULL, &base), PP_HUMAN_NONE);
	check_human(250101000, "nanoseconds", 3678524000.0 / 20000, false, "250.1 ms");
	check_human(3678524000.0, "nanoseconds", 3678524000.0 / 20000, false, "3.6785 s");
	check_human(999, "ns", 10, false, "999 ns");
	check_human(1500, "ns", 0, false, "1.50 \xc2\xb5s");
	check_human(6, "ms", 152.0 / 20000, false, "6 ms");
	check_human(-4000000, "ns", 1e5, true, "-4.0 ms");
	check_human(4000000, "ns", 1e5, true, "+4.0 ms");
	check_human(2621544, "bytes", 1.2e9 / 20000, false, "2.50 MiB");
	check_human(98304, "B", 98304.0 / 20000, false, "96.000 KiB");
	check_human(0.25, "bytes", 4.8 / 20000, false, "0.2500 B");
	check_human(3 * 1073741824.0, "bytes", 0, false, "3.00 GiB");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_diff_lines_union_sorted),
		cmocka_unit_test(test_diff_normalize_as_perl),
		cmocka_unit_test(test_diff_normalize_big_values),
		cmocka_unit_test(test_diff_strip_hex),
		cmocka_unit_test(test_diff_fast_path_agrees),
		cmocka_unit_test(test_diff_fast_path_not_folded),
		cmocka_unit_test(test_diff_value_labels),
		cmocka_unit_test(test_diff_output_unit),
		cmocka_unit_test(test_human_values),
		cmocka_unit_test(test_top_recursion_once),
		cmocka_unit_test(test_top_text_as_pprof),
		cmocka_unit_test(test_diff_table_and_gate),
		cmocka_unit_test(test_diff_totals_overflow),
		cmocka_unit_test(test_diff_fold_vanished),
		cmocka_unit_test(test_diff_value_parse),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
