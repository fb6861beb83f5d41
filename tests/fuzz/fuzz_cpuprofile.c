/* fuzz_cpuprofile.c: libFuzzer harness of the V8 .cpuprofile reader.
 * Seeds: the fixtures' cpuprofile inputs (tests/fuzz/run.sh). */
#include "config.h"

#include "harness.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fuzz_reader(&pp_reader_cpuprofile, data, size);
	return 0;
}
