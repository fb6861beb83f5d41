/* fuzz_pprof.c: libFuzzer harness of the pprof reader (profile.proto, not gzipped: the input harness covers gzip).
 * Seeds: the fixtures' pprof inputs (tests/fuzz/run.sh).
 *
 * Also differential: the input read again with defer_tree (the samples
 * kept as lists of locations, as pprof-top reads them) must read alike
 * (the same error, but for the bound on the frames the stacks expand to,
 * which counts every frame of a deferred sample), give the same top
 * tables (with the walk in one share and in two threads), and fold alike
 * once pprof_fold settles the deferred samples, and the same trees
 * (pprof -tree) and tags (pprof -tags).  And read with its samples walked
 * in two shares on two threads (as big inputs are), the same error or
 * the same tree, aggregated samples and label sets.  And read with
 * skip_lines (a function's lines as one frame), the same folded text at
 * the granularities that print no line. */
#include "config.h"

#include "folded_private.h"
#include "harness.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char *view_text(struct pprof_profile *p, int t, size_t limit, unsigned threads, int tree);

static char *top_text(struct pprof_profile *p, int t, size_t limit, unsigned threads)
{
	return view_text(p, t, limit, threads, 0);
}

static char *view_text(struct pprof_profile *p, int t, size_t limit, unsigned threads, int tree)
{
	struct pprof_top_options o = {t, PPROF_G_FUNCTIONS, 0, limit, threads};
	o.tree = tree;
	struct pprof_top *tab = NULL;
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	if (!f)
		return NULL;
	if (pprof_top(p, &o, &tab) == PPROF_OK)
		pprof_top_write(tab, tree ? PPROF_TABLE_TEXT : PPROF_TABLE_TSV, f);
	else
		fprintf(f, "error: %s\n", pprof_profile_error(p));
	pprof_top_free(tab);
	fclose(f);
	return buf;
}

/* The folded text at granularity G, written on two threads when THREADS
 * (fold.c). */
static char *fold_text_g(struct pprof_profile *p, int t, enum pprof_granularity g, bool threads)
{
	struct pprof_fold_options o = {t, g};
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	if (!f)
		return NULL;
	size_t saved = pp_fold_par_min;
	pp_fold_par_min = threads ? 0 : SIZE_MAX;
	if (pprof_fold_write(p, &o, f) != PPROF_OK)
		fprintf(f, "error: %s\n", pprof_profile_error(p));
	pp_fold_par_min = saved;
	fclose(f);
	return buf;
}

static char *fold_text(struct pprof_profile *p, int t, bool threads)
{
	return fold_text_g(p, t, PPROF_G_FUNCTIONS, threads);
}

/* Whether an error (or folded text ending in one) may come at another
 * point when a function's lines are merged in the read (skip_lines)
 * rather than in the fold: a sum leaving int64, the walk's step bound. */
static bool moved_error(const char *s)
{
	return s &&
	       (strstr(s, "leaves the 64-bit range") || strstr(s, "stacks expand to more than"));
}

/* Read with skip_lines (push_frame(): a function's lines, addresses and
 * inlined marks as one frame): the same error, or the same folded text
 * for every type at each granularity that prints no line. */
static void skip_lines_alike(const uint8_t *data, size_t size, struct pprof_profile *t, int st)
{
	struct pprof_read_options o = fuzz_read_options;
	struct pprof_profile *k = pprof_profile_new();
	if (!k)
		return;
	o.skip_lines = 1;
	int sk = pp_reader_pprof.read(k, data, size, &o);
	if (sk != st ||
	    (st != PPROF_OK && strcmp(pprof_profile_error(t), pprof_profile_error(k)) != 0)) {
		if (!moved_error(pprof_profile_error(t)) && !moved_error(pprof_profile_error(k))) {
			fprintf(stderr, "lines: %d %s\nskip_lines: %d %s\n", st,
				pprof_profile_error(t), sk, pprof_profile_error(k));
			pprof_profile_free(k);
			fuzz_fail("the read with skip_lines differs", "", 0);
		}
		pprof_profile_free(k);
		return;
	}
	static const enum pprof_granularity g[] = {PPROF_G_FUNCTIONS, PPROF_G_FILEFUNCTIONS,
						   PPROF_G_FILES};
	for (uint32_t ty = 0; st == PPROF_OK && ty < t->ntypes && ty < 4; ty++)
		for (size_t i = 0; i < sizeof(g) / sizeof(*g); i++) {
			char *a = fold_text_g(t, (int)ty, g[i], false);
			char *b = fold_text_g(k, (int)ty, g[i], false);
			if (a && b && strcmp(a, b) != 0 && !moved_error(a) && !moved_error(b)) {
				fprintf(stderr, "lines:\n%s\nskip_lines:\n%s\n", a, b);
				fuzz_fail("the fold with skip_lines differs", "", 0);
			}
			free(a);
			free(b);
		}
	pprof_profile_free(k);
}

static char *tags_text(struct pprof_profile *p, int t)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	if (!f)
		return NULL;
	if (pprof_tags_write(p, t, NULL, f) != PPROF_OK)
		fprintf(f, "error: %s\n", pprof_profile_error(p));
	fclose(f);
	return buf;
}

static void same(const char *what, char *a, char *b)
{
	if (a && b && strcmp(a, b) != 0) {
		fprintf(stderr, "tree:\n%s\ndeferred:\n%s\n", a, b);
		fuzz_fail(what, "", 0);
	}
	free(a);
	free(b);
}

static void differential(const uint8_t *data, size_t size)
{
	struct pprof_read_options o = fuzz_read_options;
	struct pprof_profile *t = pprof_profile_new(), *d = pprof_profile_new();
	if (!t || !d)
		goto out;
	int st = pp_reader_pprof.read(t, data, size, &o);
	o.defer_tree = 1;
	int sd = pp_reader_pprof.read(d, data, size, &o);
	if (sd != PPROF_OK && strstr(pprof_profile_error(d), "stacks expand to more than"))
		goto out;
	if (st != sd || (st != PPROF_OK && strcmp(pprof_profile_error(t),
						   pprof_profile_error(d)) != 0)) {
		fprintf(stderr, "tree: %d %s\ndeferred: %d %s\n", st, pprof_profile_error(t), sd,
			pprof_profile_error(d));
		fuzz_fail("the deferred read differs", "", 0);
	}
	/* the samples walked in two shares on two threads (read_pprof_share.c):
	 * the same error, or the same model */
	{
		struct pprof_profile *h = pprof_profile_new();
		if (!h)
			goto out;
		size_t saved = pp_share_min;
		pp_share_min = 0;
		o.defer_tree = 0;
		int sh = pp_reader_pprof.read(h, data, size, &o);
		pp_share_min = saved;
		bool differs = sh != st ||
			       strcmp(pprof_profile_error(t), pprof_profile_error(h)) != 0;
		if (!differs && st == PPROF_OK)
			differs =
				t->nnodes != h->nnodes || t->nentries != h->nentries ||
				t->nlabelsets != h->nlabelsets ||
				memcmp(t->nodes, h->nodes, t->nnodes * sizeof(*t->nodes)) != 0 ||
				(t->nentries &&
				 (memcmp(t->entries, h->entries, t->nentries * sizeof(*t->entries)) ||
				  memcmp(t->values, h->values,
					 (size_t)t->nentries * t->ntypes * sizeof(*t->values)))) ||
				memcmp(t->labelsets, h->labelsets,
				       (t->nlabelsets + 1) * sizeof(*t->labelsets)) != 0;
		if (differs) {
			fprintf(stderr, "tree: %d %s\nshares: %d %s\n", st, pprof_profile_error(t),
				sh, pprof_profile_error(h));
			pprof_profile_free(h);
			fuzz_fail("the read in two shares differs", "", 0);
		}
		pprof_profile_free(h);
	}
	skip_lines_alike(data, size, t, st);
	if (st != PPROF_OK)
		goto out;
	int ty = pprof_sample_type_select(t, NULL);
	if (ty < 0)
		goto out;
	/* the deferred walk split in two shares (threads), then in one */
	same("the deferred top table differs", top_text(t, ty, 0, 0), top_text(d, ty, 0, 2));
	same("the deferred top table differs (2 rows)", top_text(t, ty, 2, 0), top_text(d, ty, 2, 1));
	same("the settled fold differs", fold_text(t, ty, false), fold_text(d, ty, true));
	/* pprof -tree, all rows and 3 (the deferred samples settle for it) */
	same("the tree differs", view_text(t, ty, 0, 0, 1), view_text(d, ty, 0, 0, 1));
	same("the tree differs (3 rows)", view_text(t, ty, 3, 0, 1), view_text(d, ty, 3, 0, 1));
	same("the tags differ", tags_text(t, ty), tags_text(d, ty));
out:
	pprof_profile_free(t);
	pprof_profile_free(d);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fuzz_reader(&pp_reader_pprof, data, size);
	differential(data, size);
	return 0;
}
