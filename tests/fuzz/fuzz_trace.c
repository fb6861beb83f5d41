/* fuzz_trace.c: libFuzzer harness of the Chrome trace reader.
 * Seeds: fixtures/trace/edge and a cut of the Chromium trace
 * (tests/fuzz/run.sh). */
#include "config.h"

#include "harness.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fuzz_reader(&pp_reader_trace, data, size);
	return 0;
}
