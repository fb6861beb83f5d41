/* fuzz_heapsnapshot_leaks.c: libFuzzer harness of the leak set between heap
 * snapshots and of retainer paths (heapsnap_leaks.c).  The input is FINAL,
 * or BASELINE "\n--\n" FINAL; without a BASELINE a small snapshot of three
 * objects is one.  FINAL is read along retainer paths of all its objects,
 * then with --since=BASELINE along dominator chains or retainer paths (the
 * input's length picks).  Seeds: those of fuzz_heapsnapshot (run.sh). */
#include "config.h"

#include <unistd.h>

#include "harness.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char small[] =
	"{\"snapshot\":{\"meta\":{\"node_fields\":[\"type\",\"name\",\"id\",\"self_size\","
	"\"edge_count\"],\"node_types\":[[\"hidden\",\"object\",\"synthetic\"],\"string\","
	"\"number\",\"number\",\"number\"],\"edge_fields\":[\"type\",\"name_or_index\","
	"\"to_node\"],\"edge_types\":[[\"element\",\"property\",\"weak\"],\"string_or_number\","
	"\"node\"]}},\"nodes\":[2,0,1,0,1,1,1,3,16,1,1,1,5,16,0],\"edges\":[1,2,5,1,2,10],"
	"\"strings\":[\"\",\"Node\",\"next\"]}";

static char path[64];

static void read_as(const uint8_t *data, size_t size, const char *since, int retainers)
{
	struct pprof_profile *p = pprof_profile_new();
	struct pprof_read_options o = fuzz_read_options;
	if (!p)
		return;
	o.heap_since = since;
	o.heap_retainers = retainers;
	p->format = pp_reader_heapsnapshot.format;
	if (pp_reader_heapsnapshot.read(p, data, size, &o) == PPROF_OK)
		fuzz_fold_all(p);
	else
		fuzz_check_error(p);
	pprof_profile_free(p);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const uint8_t *base = (const uint8_t *)small, *final = data;
	size_t nbase = sizeof(small) - 1, nfinal = size;
	for (size_t i = 0; i + 4 <= size; i++) {
		if (memcmp(data + i, "\n--\n", 4) == 0) {
			base = data;
			nbase = i;
			final = data + i + 4;
			nfinal = size - i - 4;
			break;
		}
	}
	if (!path[0]) {
		const char *tmp = getenv("TMPDIR");
		snprintf(path, sizeof(path), "%.40s/fuzzleaksXXXXXX", tmp && *tmp ? tmp : "/tmp");
		int fd = mkstemp(path);
		if (fd < 0)
			abort();
		close(fd);
	}
	FILE *f = fopen(path, "wb");
	if (!f || fwrite(base, 1, nbase, f) != nbase || fclose(f) != 0)
		abort();
	read_as(final, nfinal, NULL, 1);
	read_as(final, nfinal, path, (int)(size & 1));
	return 0;
}
