/* fuzz_cpuprofile.c: libFuzzer harness of the V8 .cpuprofile reader.
 * Seeds: the fixtures' cpuprofile inputs (tests/fuzz/run.sh).
 *
 * Each input is also read the ways the tools read it, which must fail with
 * the same message or fold to the same stacks as the plain read: without
 * the time order (pprof_read_options.skip_sequence), read with the second
 * thread whatever the input's size (pp_ahead_min 0: the arrays found from
 * the end, the deltas summed as they are read, the fallbacks to the whole
 * sort and to the main thread's read), at every granularity; and also
 * without the lines (skip_lines), at the granularities that print no
 * line.  The plain read has no thread (the inputs are small). */
#include "config.h"

#include "harness.h"
#include "v8.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The folded text of P (type T, granularity G) into *OUT, or the error. */
static int fold_text(struct pprof_profile *p, int t, enum pprof_granularity g, char **out,
		     size_t *len)
{
	FILE *f = open_memstream(out, len);
	if (!f)
		return PPROF_ENOMEM;
	struct pprof_fold_options o = {t, g};
	int s = pprof_fold_write(p, &o, f);
	fclose(f);
	return s;
}

/* Q folds as P does at the granularities of mask GS (bit 1 << g). */
static void same_folds(struct pprof_profile *p, struct pprof_profile *q, unsigned gs,
		       const char *what)
{
	for (int t = 0; t < (int)p->ntypes; t++) {
		for (int g = PPROF_G_FUNCTIONS; g <= PPROF_G_ADDRESSES; g++) {
			if (!(gs & (1u << g)))
				continue;
			char *a = NULL, *b = NULL;
			size_t na = 0, nb = 0;
			int fa = fold_text(p, t, (enum pprof_granularity)g, &a, &na);
			int fb = fold_text(q, t, (enum pprof_granularity)g, &b, &nb);
			if (fa != fb || (fa == PPROF_OK && (na != nb || memcmp(a, b, na) != 0)) ||
			    (fa != PPROF_OK && fa != PPROF_ENOMEM &&
			     strcmp(pprof_profile_error(p), pprof_profile_error(q)) != 0))
				fuzz_fail(what, b ? b : "", nb);
			free(a);
			free(b);
		}
	}
}

/* DATA read with the options the tools give, as the plain read P. */
static void same_as_plain(const uint8_t *data, size_t size, struct pprof_profile *p, int sp,
			  int skip_lines)
{
	struct pprof_profile *q = pprof_profile_new();
	struct pprof_read_options o = fuzz_read_options;
	if (!q)
		return;
	q->format = PPROF_FMT_CPUPROFILE;
	o.skip_sequence = 1;
	o.skip_lines = skip_lines;
	size_t saved = pp_ahead_min;
	pp_ahead_min = 0;
	int sq = pp_reader_cpuprofile.read(q, data, size, &o);
	pp_ahead_min = saved;
	const char *what = skip_lines ? "skip_lines" : "skip_sequence";
	if (sp != sq)
		fuzz_fail(what, pprof_profile_error(sp ? p : q),
			  strlen(pprof_profile_error(sp ? p : q)));
	if (sp != PPROF_OK) {
		if (strcmp(pprof_profile_error(p), pprof_profile_error(q)) != 0)
			fuzz_fail(what, pprof_profile_error(q), strlen(pprof_profile_error(q)));
	} else {
		if (p->period != q->period || p->duration_nanos != q->duration_nanos)
			fuzz_fail(what, "another period or duration", 26);
		/* the lines left out print at lines and addresses */
		unsigned no_lines = 1u << PPROF_G_FUNCTIONS | 1u << PPROF_G_FILEFUNCTIONS |
				    1u << PPROF_G_FILES;
		same_folds(p, q, skip_lines ? no_lines : ~0u, what);
	}
	pprof_profile_free(q);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fuzz_reader(&pp_reader_cpuprofile, data, size);
	struct pprof_profile *p = pprof_profile_new();
	if (!p)
		return 0;
	p->format = PPROF_FMT_CPUPROFILE;
	int sp = pp_reader_cpuprofile.read(p, data, size, &fuzz_read_options);
	same_as_plain(data, size, p, sp, 0);
	same_as_plain(data, size, p, sp, 1);
	pprof_profile_free(p);
	return 0;
}
