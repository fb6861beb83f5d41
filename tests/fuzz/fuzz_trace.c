/* fuzz_trace.c: libFuzzer harness of the Chrome trace reader.
 * Seeds: fixtures/trace/edge and a cut of the Chromium trace
 * (tests/fuzz/run.sh).  The input is read whole (`read`) and as a stream
 * (`read_stream`, the chunked parser, as for a gzipped trace): both must
 * give the same status, the same message or the same folded lines. */
#include "config.h"

#include "harness.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct digest {
	uint64_t h;
	size_t n;
};

static int digest_emit(void *ctx, const char *stack, size_t len, int64_t value)
{
	struct digest *d = ctx;
	for (size_t i = 0; i < len; i++)
		d->h = (d->h ^ (unsigned char)stack[i]) * UINT64_C(0x100000001b3);
	d->h = (d->h ^ (uint64_t)value) * UINT64_C(0x100000001b3);
	d->n++;
	return PPROF_OK;
}

/* The outcome of one way of reading: status, message, folded lines. */
struct outcome {
	int status;
	char msg[512];
	struct digest d;
};

static void outcome_of(struct pprof_profile *p, int status, struct outcome *o)
{
	o->status = status;
	o->msg[0] = 0;
	o->d = (struct digest){ UINT64_C(0xcbf29ce484222325), 0 };
	for (size_t i = 0; i < pprof_profile_warning_count(p); i++) {
		const char *w = pprof_profile_warning(p, i);
		digest_emit(&o->d, w, strlen(w), 1);
	}
	if (status != PPROF_OK) {
		snprintf(o->msg, sizeof(o->msg), "%s", pprof_profile_error(p));
		return;
	}
	struct pprof_fold_options fo = {pprof_sample_type_select(p, NULL), PPROF_G_LINES};
	if (fo.sample_index >= 0)
		o->status = pprof_fold_each(p, &fo, digest_emit, &o->d);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fuzz_reader(&pp_reader_trace, data, size);

	if (pp_is_gzip(data, size) || pp_is_utf16(data, size))
		return 0; /* the stream would decode what the whole read does not */
	struct outcome whole, stream;
	struct pprof_profile *p = pprof_profile_new();
	if (!p)
		return 0;
	p->format = pp_reader_trace.format;
	outcome_of(p, pp_reader_trace.read(p, data, size, &fuzz_read_options), &whole);
	pprof_profile_free(p);
	if (whole.status == PPROF_ENOMEM)
		return 0;
	p = pprof_profile_new();
	if (!p)
		return 0;
	p->format = pp_reader_trace.format;
	struct pp_stream *s = pp_stream_open(p, data, size, &fuzz_read_options);
	if (!s) {
		pprof_profile_free(p);
		return 0;
	}
	int st = pp_reader_trace.read_stream(p, s, &fuzz_read_options);
	outcome_of(p, st, &stream);
	pp_stream_free(s);
	pprof_profile_free(p);
	if (stream.status == PPROF_ENOMEM)
		return 0;
	if (whole.status != stream.status || strcmp(whole.msg, stream.msg) != 0 ||
	    whole.d.h != stream.d.h || whole.d.n != stream.d.n)
		fuzz_fail("the stream reads otherwise than the whole input", stream.msg,
			  strlen(stream.msg));
	return 0;
}
