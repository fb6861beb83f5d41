/* fuzz_folded.c: libFuzzer harness of the folded stacks reader (2 and 3 columns).
 * Seeds: the fixtures' folded inputs (tests/fuzz/run.sh). */
#include "config.h"

#include "harness.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fuzz_reader(&pp_reader_folded, data, size);
	return 0;
}
