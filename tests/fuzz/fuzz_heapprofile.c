/* fuzz_heapprofile.c: libFuzzer harness of the V8 .heapprofile reader.
 * Seeds: the fixtures' heapprofile inputs (tests/fuzz/run.sh). */
#include "config.h"

#include "harness.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fuzz_reader(&pp_reader_heapprofile, data, size);
	return 0;
}
