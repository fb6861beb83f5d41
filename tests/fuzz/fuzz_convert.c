/* fuzz_convert.c: libFuzzer harness of the pprof writer: any input that
 * reads (in any format) is written as pprof, must read back, and must fold
 * the same at every granularity and for every sample type, as
 * pprof-convert promises.  Seeds: every profile of the fixtures (run.sh
 * convert, or the input harness's corpus). */
#include "config.h"

#include "harness.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char *fold_text(struct pprof_profile *p, int t, enum pprof_granularity g, size_t *len)
{
	char *buf = NULL;
	*len = 0;
	FILE *f = open_memstream(&buf, len);
	if (!f)
		return NULL;
	struct pprof_fold_options o = {t, g};
	int s = pprof_fold_write(p, &o, f);
	fclose(f);
	if (s != PPROF_OK) {
		free(buf);
		return NULL;
	}
	return buf;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pprof_profile *p = pprof_profile_new();
	if (!p)
		return 0;
	if (pprof_read_buffer(p, data, size, &fuzz_read_options) != PPROF_OK) {
		fuzz_check_error(p);
		pprof_profile_free(p);
		return 0;
	}
	char *out = NULL;
	size_t outlen = 0;
	FILE *f = open_memstream(&out, &outlen);
	int s = f ? pprof_write_pprof(p, f) : PPROF_ENOMEM;
	if (f)
		fclose(f);
	if (s != PPROF_OK) {
		fuzz_check_error(p);
		free(out);
		pprof_profile_free(p);
		return 0;
	}
	struct pprof_profile *q = pprof_profile_new();
	if (q && pprof_read_buffer(q, out, outlen, NULL) != PPROF_OK)
		fuzz_fail("pprof output does not read back", pprof_profile_error(q),
			  strlen(pprof_profile_error(q)));
	if (q && pprof_sample_type_count(q) != pprof_sample_type_count(p))
		fuzz_fail("sample types lost", "", 0);
	if (q && pprof_sample_type_count(p) &&
	    pprof_sample_type_select(q, NULL) != pprof_sample_type_select(p, NULL))
		fuzz_fail("default sample type lost", "", 0);
	size_t nt = pprof_sample_type_count(p);
	for (size_t t = 0; q && t < nt && t < 4; t++)
		for (int g = PPROF_G_FUNCTIONS; g <= PPROF_G_ADDRESSES; g++) {
			size_t la, lb;
			char *a = fold_text(p, (int)t, (enum pprof_granularity)g, &la);
			char *b = fold_text(q, (int)t, (enum pprof_granularity)g, &lb);
			if (a && b && (la != lb || memcmp(a, b, la) != 0))
				fuzz_fail("pprof output folds differently", a, la);
			free(a);
			free(b);
		}
	pprof_profile_free(q);
	pprof_profile_free(p);
	free(out);
	return 0;
}
