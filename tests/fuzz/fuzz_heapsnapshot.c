/* fuzz_heapsnapshot.c: libFuzzer harness of the V8 heap snapshot reader.
 * Seeds: the fixtures' snapshots and tests/fuzz/corpus/heapsnapshot (run.sh). */
#include "config.h"

#include "harness.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fuzz_reader(&pp_reader_heapsnapshot, data, size);
	return 0;
}
