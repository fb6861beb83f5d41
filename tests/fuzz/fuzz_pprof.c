/* fuzz_pprof.c: libFuzzer harness of the pprof reader (profile.proto, not gzipped: the input harness covers gzip).
 * Seeds: the fixtures' pprof inputs (tests/fuzz/run.sh). */
#include "config.h"

#include "harness.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fuzz_reader(&pp_reader_pprof, data, size);
	return 0;
}
