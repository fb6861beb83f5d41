/* fuzz_input.c: libFuzzer harness of what comes before the readers: gzip
 * members inflated under the bound (at most 1 MiB here), UTF-16 text
 * converted, the readers' bids, and the reader that won.  The input is read
 * twice into one profile, as `pprof-fold a a` would, to cover merging.
 * Gzip is also inflated with a progress callback (zlib's path) and must
 * give what libdeflate's path gave: the same bytes or the same error.
 * Seeds: every fixture as it is on disk, gzipped or not. */
#include "config.h"

#include "harness.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void no_progress(void *ctx, uint64_t done, uint64_t total)
{
	(void)ctx;
	(void)done;
	(void)total;
}

static void both_inflates(const uint8_t *data, size_t size)
{
	if (!pp_is_gzip(data, size))
		return;
	struct pprof_profile *p = pprof_profile_new(), *q = pprof_profile_new();
	struct pprof_read_options slow = fuzz_read_options;
	slow.progress = no_progress;
	unsigned char *a = NULL, *b = NULL;
	size_t na = 0, nb = 0;
	int sa = p && q ? pp_gunzip(p, data, size, &fuzz_read_options, &a, &na) : -1;
	int sb = p && q ? pp_gunzip(q, data, size, &slow, &b, &nb) : -1;
	if (sa >= 0 && sb >= 0 &&
	    (sa != sb || (sa == PPROF_OK && (na != nb || memcmp(a, b, na) != 0)) ||
	     (sa != PPROF_OK && strcmp(pprof_profile_error(p), pprof_profile_error(q)) != 0)))
		fuzz_fail("libdeflate and zlib inflate differently", "", 0);
	if (sa == PPROF_OK)
		free(a);
	if (sb == PPROF_OK)
		free(b);
	pprof_profile_free(p);
	pprof_profile_free(q);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	both_inflates(data, size);
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
