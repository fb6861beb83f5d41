/* fuzz_input.c: libFuzzer harness of what comes before the readers: gzip
 * members inflated under the bound (at most 1 MiB here), UTF-16 text
 * converted, the readers' bids, and the reader that won.  The input is read
 * twice into one profile, as `pprof-fold a a` would, to cover merging.
 * Seeds: every fixture as it is on disk, gzipped or not. */
#include "config.h"

#include "harness.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pprof_profile *p = pprof_profile_new();
	if (!p)
		return 0;
	int s = pprof_read_buffer(p, data, size, &fuzz_read_options);
	if (s == PPROF_OK) {
		(void)pprof_format_name(pprof_profile_format(p));
		/* The same input again must merge: same types, and sums that
		 * leave int64 are the only new way to fail. */
		s = pprof_read_buffer(p, data, size, &fuzz_read_options);
		if (s == PPROF_OK)
			fuzz_fold_all(p);
		else if (!strstr(pprof_profile_error(p), "64-bit") &&
			 !strstr(pprof_profile_error(p), "int64"))
			fuzz_fail("a second read of the same input failed",
				  pprof_profile_error(p), strlen(pprof_profile_error(p)));
	}
	if (s != PPROF_OK)
		fuzz_check_error(p);
	pprof_profile_free(p);
	return 0;
}
