/* fuzz_folded.c: libFuzzer harness of the folded stacks reader (2 and 3 columns).
 * Seeds: the fixtures' folded inputs (tests/fuzz/run.sh).
 *
 * Also the two halves of the input (cut at a line break) as the two sides
 * of pprof-diff --fold-vanished: both totals stay, and every function left
 * in a stack but its root is in both sides. */
#include "config.h"

#include "harness.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct pprof_folded *half(struct pprof_profile *p, const uint8_t *data, size_t size)
{
	struct pprof_folded *f = NULL;
	struct pprof_read_options o = fuzz_read_options;
	if (pp_reader_folded.read(p, data, size, &o) != PPROF_OK)
		return NULL;
	struct pprof_fold_options fo = {pprof_sample_type_select(p, NULL), PPROF_G_FUNCTIONS};
	if (fo.sample_index < 0 || pprof_fold(p, &fo, &f) != PPROF_OK)
		return NULL;
	return f;
}

static void fold_vanished(const uint8_t *data, size_t size)
{
	const uint8_t *nl = size > 2 ? memchr(data + size / 2, '\n', size - size / 2) : NULL;
	if (!nl)
		return;
	size_t na = (size_t)(nl - data) + 1;
	struct pprof_profile *pa = pprof_profile_new(), *pb = pprof_profile_new();
	struct pprof_folded *fa = pa ? half(pa, data, na) : NULL;
	struct pprof_folded *fb = pb ? half(pb, nl + 1, size - na) : NULL;
	if (fa && fb) {
		int64_t ta = fa->total, tb = fb->total;
		int s = pprof_folded_fold_vanished(pb, fa, fb);
		if (s == PPROF_OK && (fa->total != ta || fb->total != tb))
			fuzz_fail("fold-vanished changed a total", "", 0);
		if (s != PPROF_OK && s != PPROF_EINPUT && s != PPROF_ENOMEM)
			fuzz_fail("fold-vanished failed", pprof_profile_error(pb),
				  strlen(pprof_profile_error(pb)));
	}
	pprof_folded_free(fa);
	pprof_folded_free(fb);
	pprof_profile_free(pa);
	pprof_profile_free(pb);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fuzz_reader(&pp_reader_folded, data, size);
	fold_vanished(data, size);
	return 0;
}
