/* fuzz_heapsnapshot.c: libFuzzer harness of the V8 heap snapshot reader.
 * Seeds: the fixtures' snapshots and tests/fuzz/corpus/heapsnapshot (run.sh).
 * The input is read whole (`read`) and, gzipped here, as the door's stream
 * (`read_stream`, the chunked parser): both must succeed or fail alike,
 * with the same message (a stream's error bytes are the inflated text's). */
#include "config.h"

#include <string.h>
#include <zlib.h>

#include "harness.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* DATA gzipped into a malloc'd buffer, or NULL. */
static unsigned char *gzip_of(const uint8_t *data, size_t size, size_t *out)
{
	z_stream z;
	memset(&z, 0, sizeof(z));
	if (deflateInit2(&z, 1, Z_DEFLATED, 31, 8, Z_DEFAULT_STRATEGY) != Z_OK)
		return NULL;
	size_t cap = deflateBound(&z, (uLong)size) + 32;
	unsigned char *b = malloc(cap);
	if (!b) {
		deflateEnd(&z);
		return NULL;
	}
	z.next_in = (Bytef *)(uintptr_t)data;
	z.avail_in = (uInt)size;
	z.next_out = b;
	z.avail_out = (uInt)cap;
	int r = deflate(&z, Z_FINISH);
	*out = cap - z.avail_out;
	deflateEnd(&z);
	if (r != Z_STREAM_END) {
		free(b);
		return NULL;
	}
	return b;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fuzz_reader(&pp_reader_heapsnapshot, data, size);
	/* the stream decodes UTF-16 and nested gzip, which a whole read of
	 * these bytes does not */
	if (size == 0 || pp_is_gzip(data, size) || pp_is_utf16(data, size))
		return 0;
	size_t glen;
	unsigned char *g = gzip_of(data, size, &glen);
	if (!g)
		return 0;
	struct pprof_profile *w = pprof_profile_new(), *s = pprof_profile_new();
	struct pp_stream *st = s ? pp_stream_open(s, g, glen, &fuzz_read_options) : NULL;
	if (w && st) {
		w->format = s->format = pp_reader_heapsnapshot.format;
		int a = pp_reader_heapsnapshot.read(w, data, size, &fuzz_read_options);
		int b = pp_reader_heapsnapshot.read_stream(s, st, &fuzz_read_options);
		if (a != PPROF_ENOMEM && b != PPROF_ENOMEM) {
			if ((a == PPROF_OK) != (b == PPROF_OK))
				fuzz_fail("whole and stream reads disagree", "", 0);
			if (a != PPROF_OK &&
			    strcmp(pprof_profile_error(w), pprof_profile_error(s)) != 0)
				fuzz_fail("whole and stream reads fail differently",
					  pprof_profile_error(s), strlen(pprof_profile_error(s)));
		}
	}
	pp_stream_free(st);
	pprof_profile_free(w);
	pprof_profile_free(s);
	free(g);
	return 0;
}
