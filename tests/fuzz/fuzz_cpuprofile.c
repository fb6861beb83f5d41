/* fuzz_cpuprofile.c: libFuzzer harness of the V8 .cpuprofile reader.
 * Seeds: the fixtures' cpuprofile inputs (tests/fuzz/run.sh).
 *
 * Each input is also read with pprof_read_options.skip_lines, which must
 * fail with the same message or fold to the same stacks at the
 * granularities that print no line. */
#include "config.h"

#include "harness.h"

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

static void same_without_lines(const uint8_t *data, size_t size)
{
	struct pprof_profile *p = pprof_profile_new(), *q = pprof_profile_new();
	struct pprof_read_options o = fuzz_read_options;
	if (!p || !q)
		goto out;
	p->format = q->format = PPROF_FMT_CPUPROFILE;
	o.skip_sequence = 1;
	int sp = pp_reader_cpuprofile.read(p, data, size, &o);
	o.skip_lines = 1;
	int sq = pp_reader_cpuprofile.read(q, data, size, &o);
	if (sp != sq)
		fuzz_fail("skip_lines: another status", pprof_profile_error(sp ? p : q),
			  strlen(pprof_profile_error(sp ? p : q)));
	if (sp != PPROF_OK) {
		if (strcmp(pprof_profile_error(p), pprof_profile_error(q)) != 0)
			fuzz_fail("skip_lines: another error", pprof_profile_error(q),
				  strlen(pprof_profile_error(q)));
		goto out;
	}
	static const enum pprof_granularity gs[] = {PPROF_G_FUNCTIONS, PPROF_G_FILEFUNCTIONS,
						    PPROF_G_FILES};
	for (int t = 0; t < (int)p->ntypes; t++) {
		for (size_t k = 0; k < sizeof(gs) / sizeof(*gs); k++) {
			char *a = NULL, *b = NULL;
			size_t na = 0, nb = 0;
			int fa = fold_text(p, t, gs[k], &a, &na),
			    fb = fold_text(q, t, gs[k], &b, &nb);
			if (fa != fb || (fa == PPROF_OK && (na != nb || memcmp(a, b, na) != 0)) ||
			    (fa != PPROF_OK && fa != PPROF_ENOMEM &&
			     strcmp(pprof_profile_error(p), pprof_profile_error(q)) != 0))
				fuzz_fail("skip_lines: other folded stacks", b ? b : "", nb);
			free(a);
			free(b);
		}
	}
out:
	pprof_profile_free(p);
	pprof_profile_free(q);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fuzz_reader(&pp_reader_cpuprofile, data, size);
	same_without_lines(data, size);
	return 0;
}
