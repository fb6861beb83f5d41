/* Unit tests of the deferred samples (pprof_read_options.defer_tree):
 * pprof_top() on samples kept as lists of locations prints the same table,
 * byte for byte, as on the call tree, for every pprof file of the fixtures
 * and of the shared test data (when present), every granularity, both
 * sorts and several row limits (the second walk for the inline labels);
 * and whatever else uses a deferred profile (fold, filters, a second input
 * of another format) sees the same tree as without deferring. */
#include "config.h"

#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <unistd.h>
#include <zlib.h>

#include "gz.h"
#include "pprof_private.h"

static const char *top_srcdir(void)
{
	const char *top = getenv("top_srcdir");
	return top && *top ? top : SRCDIR;
}

static struct pprof_profile *read_paths(const char *const *paths, size_t n, int defer)
{
	struct pprof_profile *p = pprof_profile_new();
	assert_non_null(p);
	struct pprof_read_options o = {0};
	o.defer_tree = defer;
	for (size_t i = 0; i < n; i++)
		if (pprof_read_file(p, paths[i], &o) != PPROF_OK) {
			const char *e = pprof_profile_error(p);
			pprof_profile_free(p);
			fail_msg("%s: %s", paths[i], e);
		}
	return p;
}

/* The table of P as text, tsv and json, or the error. */
static char *table(struct pprof_profile *p, int sample, enum pprof_granularity g, int cum,
		   size_t limit, unsigned threads)
{
	struct pprof_top_options o = {sample, g, cum, limit, threads};
	struct pprof_top *t = NULL;
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	assert_non_null(f);
	if (pprof_top(p, &o, &t) != PPROF_OK) {
		fprintf(f, "error: %s\n", pprof_profile_error(p));
	} else {
		assert_int_equal(pprof_top_write(t, PPROF_TABLE_TEXT, f), PPROF_OK);
		assert_int_equal(pprof_top_write(t, PPROF_TABLE_TSV, f), PPROF_OK);
		assert_int_equal(pprof_top_write(t, PPROF_TABLE_JSON, f), PPROF_OK);
	}
	pprof_top_free(t);
	fclose(f);
	return buf;
}

static char *folded(struct pprof_profile *p, int sample)
{
	struct pprof_fold_options o = {sample, PPROF_G_FUNCTIONS};
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	assert_non_null(f);
	if (pprof_fold_write(p, &o, f) != PPROF_OK)
		fprintf(f, "error: %s\n", pprof_profile_error(p));
	fclose(f);
	return buf;
}

static size_t ntables;

/* Every table of PATHS, deferred and not. */
static void same_tables(const char *const *paths, size_t n)
{
	static const enum pprof_granularity gs[] = {PPROF_G_FUNCTIONS, PPROF_G_FILEFUNCTIONS,
						    PPROF_G_LINES, PPROF_G_FILES,
						    PPROF_G_ADDRESSES};
	static const size_t limits[] = {0, 1, 3, 10};
	struct pprof_profile *tree = read_paths(paths, n, 0);
	size_t ntypes = pprof_sample_type_count(tree);
	for (size_t s = 0; s < ntypes; s++)
		for (size_t g = 0; g < sizeof(gs) / sizeof(gs[0]); g++)
			for (int cum = 0; cum < 2; cum++)
				for (size_t l = 0; l < sizeof(limits) / sizeof(limits[0]); l++) {
					/* each table from a fresh read: a table may be the
					 * first use of the deferred samples or not */
					struct pprof_profile *d = read_paths(paths, n, 1);
					char *want = table(tree, (int)s, gs[g], cum, limits[l], 0);
					/* the walk in one share, then in three (threads) */
					for (unsigned th = 1; th <= 3; th += 2) {
						char *got = table(d, (int)s, gs[g], cum, limits[l], th);
						if (strcmp(want, got) != 0)
							fail_msg("%s: type %zu, granularity %zu, cum %d, limit %zu, %u threads:\n"
								 "tree:\n%s\ndeferred:\n%s",
								 paths[0], s, g, cum, limits[l], th, want, got);
						free(got);
					}
					free(want);
					pprof_profile_free(d);
					ntables++;
				}
	pprof_profile_free(tree);
}

static bool is_pprof_name(const char *name)
{
	size_t n = strlen(name);
	return (n > 6 && strcmp(name + n - 6, ".pb.gz") == 0) ||
	       (n > 3 && strcmp(name + n - 3, ".pb") == 0) ||
	       (n > 5 && strcmp(name + n - 5, ".prof") == 0);
}

/* The pprof files of DIR that read without error. */
static size_t each_pprof(const char *dir)
{
	DIR *d = opendir(dir);
	if (!d)
		return 0;
	size_t n = 0;
	struct dirent *e;
	while ((e = readdir(d))) {
		if (!is_pprof_name(e->d_name))
			continue;
		char path[4096];
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		struct pprof_profile *p = pprof_profile_new();
		int ok = pprof_read_file(p, path, NULL) == PPROF_OK &&
			 pprof_profile_format(p) == PPROF_FMT_PPROF && pprof_sample_type_count(p);
		pprof_profile_free(p);
		if (!ok)
			continue;
		const char *one[] = {path};
		same_tables(one, 1);
		n++;
	}
	closedir(d);
	return n;
}

static void test_fixtures(void **state)
{
	(void)state;
	char dir[4096];
	snprintf(dir, sizeof(dir), "%s/fixtures/pprof", top_srcdir());
	assert_true(each_pprof(dir) >= 5);
	/* inlined lines: the labels' walks */
	snprintf(dir, sizeof(dir), "%s/fixtures/edge", top_srcdir());
	assert_true(each_pprof(dir) >= 1);
	/* two captures summed */
	char a[4096], b[4096];
	snprintf(a, sizeof(a), "%s/fixtures/pprof/workerd-min.cpu.nomap.pb.gz", top_srcdir());
	snprintf(b, sizeof(b), "%s/fixtures/pprof/workerd-min-b.cpu.nomap.pb.gz", top_srcdir());
	const char *two[] = {a, b};
	same_tables(two, 2);
}

static void test_shared_testdata(void **state)
{
	(void)state;
	const char *shared = getenv("PPROF_SHARED");
	char root[4096], dir[4200];
	if (shared && *shared)
		snprintf(root, sizeof(root), "%s/testdata", shared);
	else
		snprintf(root, sizeof(root), "%s/../shared/testdata", top_srcdir());
	static const char *const sub[] = {"edge", "google-pprof/proto", "google-pprof/derived",
					  "speedscope/pprof"};
	size_t n = 0;
	for (size_t i = 0; i < sizeof(sub) / sizeof(sub[0]); i++) {
		snprintf(dir, sizeof(dir), "%s/%s", root, sub[i]);
		n += each_pprof(dir);
	}
	if (n == 0)
		skip();
	print_message("%zu tables compared\n", ntables);
}

/* Anything but pprof_top builds the tree first: the same one. */
static void test_settle(void **state)
{
	(void)state;
	char a[4096], b[4096], c[4096];
	snprintf(a, sizeof(a), "%s/fixtures/pprof/workerd-min.cpu.nomap.pb.gz", top_srcdir());
	snprintf(b, sizeof(b), "%s/fixtures/pprof/workerd-min-b.cpu.nomap.pb.gz", top_srcdir());
	snprintf(c, sizeof(c), "%s/fixtures/edge/inline.pb.gz", top_srcdir());
	const char *const sets[][2] = {{a, NULL}, {a, b}, {c, NULL}};
	for (size_t i = 0; i < 3; i++) {
		size_t n = sets[i][1] ? 2 : 1;
		struct pprof_profile *tree = read_paths(sets[i], n, 0);
		struct pprof_profile *d = read_paths(sets[i], n, 1);
		assert_non_null(d->deferred);
		int s = pprof_sample_type_select(tree, NULL);
		char *want = folded(tree, s), *got = folded(d, s);
		assert_null(d->deferred);
		assert_string_equal(want, got);
		free(got);
		/* then the table, from the tree */
		char *t1 = table(tree, s, PPROF_G_FUNCTIONS, 0, 3, 0);
		char *t2 = table(d, s, PPROF_G_FUNCTIONS, 0, 3, 2);
		assert_string_equal(t1, t2);
		free(want);
		free(t1);
		free(t2);
		pprof_profile_free(tree);
		pprof_profile_free(d);
	}
}

/* The pprof of folded TEXT, in a malloc'd buffer. */
static char *pprof_of(const char *text, size_t *len)
{
	struct pprof_profile *q = pprof_profile_new();
	assert_int_equal(pprof_read_buffer(q, text, strlen(text), NULL), PPROF_OK);
	char *buf = NULL;
	FILE *f = open_memstream(&buf, len);
	assert_int_equal(pprof_write_pprof(q, f), PPROF_OK);
	fclose(f);
	pprof_profile_free(q);
	return buf;
}

/* A deferred pprof and a folded input of the same sample type in one
 * profile: the table comes from the tree they make together, as when
 * nothing is deferred. */
static void test_mixed_inputs(void **state)
{
	(void)state;
	size_t len;
	char *pb = pprof_of("main;a;b 3\nmain;a 2\nmain;c;a 4\n", &len);
	const char *text = "main;c 5\nmain;a;b 1\nother 7\n";
	struct pprof_read_options defer = {0};
	defer.defer_tree = 1;
	for (size_t limit = 0; limit < 3; limit++) {
		struct pprof_profile *tree = pprof_profile_new(), *d = pprof_profile_new();
		assert_int_equal(pprof_read_buffer(tree, pb, len, NULL), PPROF_OK);
		assert_int_equal(pprof_read_buffer(tree, text, strlen(text), NULL), PPROF_OK);
		assert_int_equal(pprof_read_buffer(d, pb, len, &defer), PPROF_OK);
		assert_non_null(d->deferred);
		assert_int_equal(pprof_read_buffer(d, text, strlen(text), &defer), PPROF_OK);
		assert_non_null(d->deferred);
		int s = pprof_sample_type_select(tree, NULL);
		char *want = table(tree, s, PPROF_G_FUNCTIONS, 0, limit, 0);
		char *got = table(d, s, PPROF_G_FUNCTIONS, 0, limit, 2);
		assert_null(d->deferred);
		assert_string_equal(want, got);
		/* both inputs count: 9 + 13 */
		assert_non_null(strstr(want, "# total\t22\n"));
		free(want);
		free(got);
		pprof_profile_free(tree);
		pprof_profile_free(d);
	}
	free(pb);
}

/* ---- profiles written here, field by field ---- */

struct pbw {
	unsigned char b[1024];
	size_t n;
};

static void pv(struct pbw *w, uint64_t v)
{
	do {
		assert_true(w->n < sizeof(w->b));
		w->b[w->n++] = (unsigned char)((v & 0x7f) | (v > 0x7f ? 0x80 : 0));
		v >>= 7;
	} while (v);
}

static void pvi(struct pbw *w, unsigned num, uint64_t v)
{
	pv(w, (uint64_t)num << 3);
	pv(w, v);
}

static void pld(struct pbw *w, unsigned num, const void *data, size_t len)
{
	pv(w, (uint64_t)num << 3 | 2);
	pv(w, len);
	assert_true(w->n + len <= sizeof(w->b));
	memcpy(w->b + w->n, data, len);
	w->n += len;
}

/* A profile of two functions, f1 and f2 (locations 1 and 2), whose first
 * sample (5) has an empty packed location field and whose second (7) is
 * at f2 called by f1. */
static void empty_first(struct pbw *out)
{
	static const char *const strs[] = {"", "samples", "count", "f1", "f2"};
	struct pbw m = {{0}, 0}, s = {{0}, 0};
	memset(out, 0, sizeof(*out));
	pvi(&m, 1, 1);
	pvi(&m, 2, 2);
	pld(out, 1, m.b, m.n);
	pld(&s, 1, "", 0);
	pvi(&s, 2, 5);
	pld(out, 2, s.b, s.n);
	s.n = 0;
	pld(&s, 1, "\x02\x01", 2);
	pvi(&s, 2, 7);
	pld(out, 2, s.b, s.n);
	for (unsigned i = 1; i <= 2; i++) {
		struct pbw l = {{0}, 0}, line = {{0}, 0};
		pvi(&line, 1, i);
		pvi(&l, 1, i);
		pld(&l, 4, line.b, line.n);
		pld(out, 4, l.b, l.n);
	}
	for (unsigned i = 1; i <= 2; i++) {
		struct pbw f = {{0}, 0};
		pvi(&f, 1, i);
		pvi(&f, 2, 2 + i);
		pld(out, 5, f.b, f.n);
	}
	for (size_t i = 0; i < sizeof(strs) / sizeof(strs[0]); i++)
		pld(out, 6, strs[i], strlen(strs[i]));
}

/* A sample whose packed location field is empty, first in its share:
 * the table of a stack without frames, however it is kept (copied from
 * the caller's buffer, or in the inflated buffer the profile keeps). */
static void test_empty_packed(void **state)
{
	(void)state;
	struct pbw pb;
	empty_first(&pb);
	size_t gzlen;
	unsigned char *zipped = gz(pb.b, pb.n, &gzlen);
	struct pprof_read_options defer = {0};
	defer.defer_tree = 1;
	struct pprof_profile *tree = pprof_profile_new();
	assert_int_equal(pprof_read_buffer(tree, pb.b, pb.n, NULL), PPROF_OK);
	char *want = table(tree, 0, PPROF_G_FUNCTIONS, 0, 0, 0);
	assert_non_null(strstr(want, "f2"));
	for (int g = 0; g < 2; g++)
		for (unsigned th = 1; th <= 2; th++) {
			struct pprof_profile *d = pprof_profile_new();
			assert_int_equal(g ? pprof_read_buffer(d, zipped, gzlen, &defer)
					   : pprof_read_buffer(d, pb.b, pb.n, &defer),
					 PPROF_OK);
			assert_non_null(d->deferred);
			char *got = table(d, 0, PPROF_G_FUNCTIONS, 0, 0, th);
			assert_string_equal(want, got);
			free(got);
			pprof_profile_free(d);
		}
	free(want);
	free(zipped);
	pprof_profile_free(tree);
}

/* A file read with deferred samples is not read again after: writing it
 * between the read and the table changes nothing. */
static void test_file_rewritten(void **state)
{
	(void)state;
	struct pbw pb;
	empty_first(&pb);
	char path[] = "test_top.XXXXXX"; /* in the build directory */
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, pb.b, pb.n), (ssize_t)pb.n);
	struct pprof_read_options defer = {0};
	defer.defer_tree = 1;
	struct pprof_profile *tree = pprof_profile_new(), *d = pprof_profile_new();
	assert_int_equal(pprof_read_file(tree, path, NULL), PPROF_OK);
	assert_int_equal(pprof_read_file(d, path, &defer), PPROF_OK);
	unsigned char junk[sizeof(pb.b)];
	memset(junk, 0xff, sizeof(junk));
	assert_int_equal(pwrite(fd, junk, pb.n, 0), (ssize_t)pb.n);
	close(fd);
	unlink(path);
	char *want = table(tree, 0, PPROF_G_FUNCTIONS, 0, 0, 0);
	char *got = table(d, 0, PPROF_G_FUNCTIONS, 0, 0, 1);
	assert_string_equal(want, got);
	free(want);
	free(got);
	pprof_profile_free(tree);
	pprof_profile_free(d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fixtures),
		cmocka_unit_test(test_shared_testdata),
		cmocka_unit_test(test_settle),
		cmocka_unit_test(test_mixed_inputs),
		cmocka_unit_test(test_empty_packed),
		cmocka_unit_test(test_file_rewritten),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
