/*
 * read_trace.c: Chrome trace files (the Trace Event Format, as the
 * Performance panel of DevTools saves them, and as Tracing.start of the
 * DevTools protocol delivers them), for the CPU profiles V8 writes into
 * them.  doc/trace-format.md says what is read and why; the semantics are
 * DevTools' own (SamplesHandler.ts, CPUProfileDataModel.ts).
 *
 * A trace is a bare array of events or an object whose "traceEvents" is
 * that array.  Events are read one by one, front to back; only four kinds
 * matter (M thread_name, M process_name, P Profile, P ProfileChunk) and
 * every other event is skipped without building anything.  An event's
 * "args" usually comes first (Chrome writes keys sorted), before its kind
 * is known: it is skipped, and parsed from its byte range only when the
 * event turns out to matter.
 *
 * A profile is keyed by (pid, id); its thread is the tid of its Profile
 * event.  Chunks append nodes (linked by "parent"), samples and
 * timeDeltas.  At the end each thread's last profile becomes samples with
 * the labels pid, tid, process and thread.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "filter_private.h"
#include "lines.h"
#include "read_trace.h"
#include "v8.h"

/* ---- profiles ---- */

/* pp_grow() from a capacity of 1: a trace may hold a million profiles of
 * one chunk each (only those with a Profile event count, at the end). */
static bool grow(void **a, size_t *cap, size_t need, size_t size)
{
	if (need <= *cap)
		return true;
	if (*cap == 0) {
		void *n = malloc(size);
		if (!n)
			return false;
		*a = n;
		*cap = 1;
	}
	return pp_grow(a, cap, need, size);
}

struct chunkmark {
	size_t first;    /* index of the chunk's first sample */
	uint64_t offset; /* the chunk event's byte offset */
};

struct tprof {
	int64_t pid;
	uint32_t id;     /* string id of the profile id ("0x1") */
	int64_t tid;
	bool has_tid;    /* a Profile event was seen */
	int64_t start;   /* args.data.startTime, µs */
	bool has_start;
	uint64_t offset; /* the Profile event's byte offset (or the first chunk's) */
	struct pp_v8 v;
	uint32_t *samples; /* node ids as written */
	int64_t *stamps;   /* running sums of timeDeltas, µs from startTime */
	size_t nsamples, capsamples, nstamps, capstamps;
	int64_t cum;
	struct chunkmark *marks;
	size_t nmarks, capmarks;
	/* the line of each sample (1-based, 0 unknown), for samples
	 * [0, nlines); NULL while every line read was 0 */
	uint32_t *lines;
	size_t nlines, caplines;
	/* once in the model: the span of its samples, ns on the trace's
	 * clock, and its average interval (0 with fewer than 2 samples) */
	int64_t begin_ns, end_ns, interval;
	bool spans;
};

struct tr {
	struct pprof_profile *p;
	const struct pprof_read_options *o;
	const unsigned char *buf; /* the input when whole, else NULL */
	size_t len;               /* its length; SIZE_MAX until a stream ends */
	struct pp_stream *stream; /* the input as a stream of chunks, else NULL */
	uint32_t max_depth;
	struct json j;
	struct tprof *profs;
	uint32_t nprofs, capprofs;
	struct kvmap profmap;    /* (pid, id string) -> profile */
	struct kvmap threadname; /* (pid, tid) -> string id */
	struct kvmap procname;   /* (pid, 0) -> string id */
	char *idbuf;
	size_t idlen, idcap;
	size_t nevents;   /* complete events read */
	unsigned char *drop; /* the buffer, when the library owns it: pages behind the parser are let go */
	size_t dropped;      /* bytes of it let go so far */
	struct pp_emap **emap_tail; /* where the next embedded map goes */
	uint32_t *clines;  /* the lines of the chunk being read */
	size_t nclines, capclines;
	bool chunk_lines;  /* the chunk has a lines array */
	size_t last_end;  /* byte after the last complete event */
	bool have_profile_event;
	int64_t date_ns; /* metadata.startTime, ns since the epoch (0: none) */
	int64_t origin_us; /* the capture's start: the earliest startTime */
	bool has_origin;
};

enum evkind { EV_OTHER, EV_THREAD_NAME, EV_PROCESS_NAME, EV_PROFILE, EV_CHUNK };

static int jerr(struct tr *t, const struct json *j)
{
	/* the stream failed (gzip): its message is on P already */
	if (t->stream && pp_stream_status(t->stream) != PPROF_OK)
		return pp_stream_status(t->stream);
	if (json_read_failed(j))
		return PPROF_EINPUT;
	return pp_v8_json_error(t->p, j);
}

static int get_prof(struct tr *t, int64_t pid, uint32_t id, uint64_t offset, struct tprof **out)
{
	uint32_t k = pp_kv_get(&t->profmap, pid, id);

	if (k == UINT32_MAX) {
		if (t->nprofs == t->capprofs) {
			uint32_t c = t->capprofs ? t->capprofs * 2 : 8;
			struct tprof *b;

			if (t->capprofs >= UINT32_MAX / 4)
				return pp_nomem(t->p);
			b = realloc(t->profs, (size_t)c * sizeof(*b));
			if (!b)
				return pp_nomem(t->p);
			t->profs = b;
			t->capprofs = c;
		}
		k = t->nprofs;
		if (!pp_kv_put(&t->profmap, pid, id, k))
			return pp_nomem(t->p);
		t->nprofs++;
		struct tprof *f = &t->profs[k];
		memset(f, 0, sizeof(*f));
		f->pid = pid;
		f->id = id;
		f->offset = offset;
		pp_v8_init(&f->v, t->p, NULL);
	}
	*out = &t->profs[k];
	return PPROF_OK;
}

static void prof_release(struct tprof *f)
{
	pp_v8_release(&f->v);
	free(f->samples);
	free(f->stamps);
	free(f->marks);
	free(f->lines);
}

/* ---- args ---- */

/* The shape every object here is read with: the next key (*END at the
 * object's end), the value after a key (*K its first token), or that value
 * skipped; PPROF_OK or the parser's error. */
static int next_key(struct tr *t, struct json *j, bool *end)
{
	int k = json_next(j);

	*end = k == JSON_OBJECT_END;
	return k == JSON_ERROR ? jerr(t, j) : PPROF_OK;
}

static int value(struct tr *t, struct json *j, int *k)
{
	*k = json_next(j);
	return *k == JSON_ERROR ? jerr(t, j) : PPROF_OK;
}

static int skip_value(struct tr *t, struct json *j)
{
	int k = json_next(j);

	return k == JSON_ERROR || json_skip(j, k) == JSON_ERROR ? jerr(t, j) : PPROF_OK;
}

/* Positions the parser J (over an args object, whose OBJECT_BEGIN is the
 * next token) inside the object at args.data: true when found (the
 * OBJECT_BEGIN of data was the last token), false when absent or not an
 * object (then nothing is to be read), with *S set on a parse error. */
static bool enter_data(struct tr *t, struct json *j, int *s)
{
	int k = json_next(j);
	bool end;

	*s = PPROF_OK;
	if (k != JSON_OBJECT_BEGIN) {
		if (k == JSON_ERROR)
			*s = jerr(t, j);
		return false;
	}
	for (;;) {
		if ((*s = next_key(t, j, &end)) != PPROF_OK || end)
			return false;
		bool is_data = KEY_IS(j, "data");
		if ((*s = value(t, j, &k)) != PPROF_OK)
			return false;
		if (is_data && k == JSON_OBJECT_BEGIN)
			return true;
		if (json_skip(j, k) == JSON_ERROR) {
			*s = jerr(t, j);
			return false;
		}
	}
}

/* Skips the rest of the object the parser is in. */
static int skip_rest(struct tr *t, struct json *j)
{
	if (json_skip(j, JSON_OBJECT_BEGIN) == JSON_ERROR)
		return jerr(t, j);
	return PPROF_OK;
}

/* M thread_name / process_name: args.name. */
static int read_name_args(struct tr *t, struct json *j, uint32_t *name, bool *found)
{
	int k = json_next(j), s;
	bool end;

	*found = false;
	if (k == JSON_ERROR)
		return jerr(t, j);
	if (k != JSON_OBJECT_BEGIN)
		return PPROF_OK;
	for (;;) {
		if ((s = next_key(t, j, &end)) != PPROF_OK || end)
			return s;
		bool is_name = KEY_IS(j, "name");
		if ((s = value(t, j, &k)) != PPROF_OK)
			return s;
		if (is_name && k == JSON_STRING) {
			s = pp_intern(t->p, j->str, j->len, name);
			if (s != PPROF_OK)
				return s;
			*found = true;
			continue;
		}
		if (json_skip(j, k) == JSON_ERROR)
			return jerr(t, j);
	}
}

static int read_profile_args(struct tr *t, struct json *j, struct tprof *f)
{
	int s, k;
	bool end;

	if (!enter_data(t, j, &s))
		return s;
	for (;;) {
		if ((s = next_key(t, j, &end)) != PPROF_OK || end)
			return s;
		bool start = KEY_IS(j, "startTime");
		if ((s = value(t, j, &k)) != PPROF_OK)
			return s;
		if (start && k == JSON_NUMBER) {
			double d;

			if (json_int64(j, &f->start)) {
				f->has_start = true;
			} else if (json_double(j, &d) && d > -9e18 && d < 9e18) {
				f->start = (int64_t)d - ((double)(int64_t)d > d);
				f->has_start = true;
			}
			continue;
		}
		if (json_skip(j, k) == JSON_ERROR)
			return jerr(t, j);
	}
}

/* The integers of the array WHAT that starts with token K, each given to
 * EACH (V NULL for a number that is not a 64-bit integer). */
typedef int (*int_fn)(struct tr *t, struct json *j, struct tprof *f, const int64_t *v);
static int read_ints(struct tr *t, struct json *j, int k, struct tprof *f, const char *what,
		     int_fn each)
{
	if (k != JSON_ARRAY_BEGIN)
		return pp_error_at(t->p, PPROF_EINPUT, json_offset(j), "%s is not an array", what);
	for (;;) {
		int64_t v;
		int s;

		k = json_next(j);
		if (k == JSON_ARRAY_END)
			return PPROF_OK;
		if (k == JSON_ERROR)
			return jerr(t, j);
		if (k != JSON_NUMBER)
			return pp_error_at(t->p, PPROF_EINPUT, json_offset(j),
					   "%s holds something other than a number", what);
		s = each(t, j, f, json_int64(j, &v) ? &v : NULL);
		if (s != PPROF_OK)
			return s;
	}
}

static int add_sample_id(struct tr *t, struct json *j, struct tprof *f, const int64_t *v)
{
	if (!v || *v < 0 || *v >= UINT32_MAX)
		return pp_error_at(t->p, PPROF_EINPUT, json_offset(j), "sample node id out of range");
	if (f->nsamples == f->capsamples &&
	    !grow((void **)&f->samples, &f->capsamples, f->nsamples + 1, sizeof(*f->samples)))
		return pp_nomem(t->p);
	f->samples[f->nsamples++] = (uint32_t)*v;
	return PPROF_OK;
}

static int add_delta(struct tr *t, struct json *j, struct tprof *f, const int64_t *v)
{
	if (!v)
		return pp_error_at(t->p, PPROF_EINPUT, json_offset(j),
				   "timeDeltas holds a number that is not a 64-bit integer");
	if (__builtin_add_overflow(f->cum, *v, &f->cum))
		return pp_error_at(t->p, PPROF_EINPUT, json_offset(j),
				   "timestamp leaves the 64-bit range");
	if (f->nstamps == f->capstamps &&
	    !grow((void **)&f->stamps, &f->capstamps, f->nstamps + 1, sizeof(*f->stamps)))
		return pp_nomem(t->p);
	f->stamps[f->nstamps++] = f->cum;
	return PPROF_OK;
}

/* A line of the chunk being read (1-based; 0 unknown). */
static int add_line(struct tr *t, struct json *j, struct tprof *f, const int64_t *v)
{
	(void)f;
	if (!v || *v < 0 || *v >= UINT32_MAX)
		return pp_error_at(t->p, PPROF_EINPUT, json_offset(j), "line number out of range");
	if (t->nclines == t->capclines &&
	    !grow((void **)&t->clines, &t->capclines, t->nclines + 1, sizeof(*t->clines)))
		return pp_nomem(t->p);
	t->clines[t->nclines++] = (uint32_t)*v;
	return PPROF_OK;
}

/* A lines array of the chunk (the last one read counts). */
static int read_lines(struct tr *t, struct json *j, int k, struct tprof *f)
{
	t->nclines = 0;
	t->chunk_lines = true;
	return read_ints(t, j, k, f, "lines", add_line);
}

static int read_cpu_profile(struct tr *t, struct json *j, int k, struct tprof *f)
{
	bool end;
	int s;

	if (k != JSON_OBJECT_BEGIN)
		return json_skip(j, k) == JSON_ERROR ? jerr(t, j) : PPROF_OK;
	for (;;) {
		if ((s = next_key(t, j, &end)) != PPROF_OK || end)
			return s;
		if (KEY_IS(j, "nodes")) {
			if ((s = value(t, j, &k)) != PPROF_OK)
				return s;
			if (k != JSON_ARRAY_BEGIN)
				return pp_error_at(t->p, PPROF_EINPUT, json_offset(j),
						   "nodes is not an array");
			for (;;) {
				k = json_next(j);
				if (k == JSON_ARRAY_END)
					break;
				if (k == JSON_ERROR)
					return jerr(t, j);
				if (k != JSON_OBJECT_BEGIN)
					return pp_error_at(t->p, PPROF_EINPUT, json_offset(j),
							   "a node is not an object");
				f->v.j = j;
				s = pp_v8_read_node(&f->v);
				f->v.j = NULL;
				if (s != PPROF_OK)
					return s;
			}
		} else if (KEY_IS(j, "samples")) {
			if ((s = value(t, j, &k)) == PPROF_OK)
				s = read_ints(t, j, k, f, "samples", add_sample_id);
		} else if (KEY_IS(j, "lines")) {
			if ((s = value(t, j, &k)) == PPROF_OK)
				s = read_lines(t, j, k, f);
		} else {
			s = skip_value(t, j);
		}
		if (s != PPROF_OK)
			return s;
	}
}

/* The chunk's lines, for its samples [N0, f->nsamples): kept when some
 * line is known.  DevTools takes a chunk without lines as all 0; lines
 * that do not match the samples in number are left out, with a warning
 * (DevTools would shift every later line). */
static int chunk_lines(struct tr *t, struct tprof *f, size_t n0)
{
	size_t n = f->nsamples - n0, i;

	if (!t->chunk_lines || t->nclines == 0)
		return PPROF_OK;
	if (t->nclines != n) {
		pp_warn(t->p, "a ProfileChunk's lines do not match its samples in number: "
			      "its lines are left out");
		return PPROF_OK;
	}
	for (i = 0; i < n && t->clines[i] == 0; i++)
		;
	if (i == n)
		return PPROF_OK;
	if (!grow((void **)&f->lines, &f->caplines, f->nsamples, sizeof(*f->lines)))
		return pp_nomem(t->p);
	if (f->nlines < n0)
		memset(f->lines + f->nlines, 0, (n0 - f->nlines) * sizeof(*f->lines));
	memcpy(f->lines + n0, t->clines, n * sizeof(*f->lines));
	f->nlines = f->nsamples;
	return PPROF_OK;
}

static int read_chunk_args(struct tr *t, struct json *j, struct tprof *f, uint64_t evoff)
{
	size_t n0 = f->nsamples, d0 = f->nstamps;
	bool end;
	int s, k;

	t->chunk_lines = false;
	t->nclines = 0;
	if (!enter_data(t, j, &s))
		return s;
	for (;;) {
		if ((s = next_key(t, j, &end)) != PPROF_OK)
			return s;
		if (end)
			break;
		if (KEY_IS(j, "cpuProfile")) {
			if ((s = value(t, j, &k)) == PPROF_OK)
				s = read_cpu_profile(t, j, k, f);
		} else if (KEY_IS(j, "timeDeltas")) {
			if ((s = value(t, j, &k)) == PPROF_OK)
				s = read_ints(t, j, k, f, "timeDeltas", add_delta);
		} else if (KEY_IS(j, "lines")) {
			if ((s = value(t, j, &k)) == PPROF_OK)
				s = read_lines(t, j, k, f);
		} else {
			s = skip_value(t, j);
		}
		if (s != PPROF_OK)
			return s;
	}
	if (f->nsamples - n0 != f->nstamps - d0)
		return pp_error_at(t->p, PPROF_EINPUT, evoff,
				   "ProfileChunk has %zu samples but %zu timeDeltas",
				   f->nsamples - n0, f->nstamps - d0);
	if (f->nsamples > n0) {
		if (f->nmarks == f->capmarks &&
		    !grow((void **)&f->marks, &f->capmarks, f->nmarks + 1, sizeof(*f->marks)))
			return pp_nomem(t->p);
		f->marks[f->nmarks++] = (struct chunkmark){ n0, evoff };
	}
	return chunk_lines(t, f, n0);
}

/* ---- events ---- */

static enum evkind event_kind(const struct json *j)
{
	if (KEY_IS(j, "ProfileChunk"))
		return EV_CHUNK;
	if (KEY_IS(j, "Profile"))
		return EV_PROFILE;
	if (KEY_IS(j, "thread_name"))
		return EV_THREAD_NAME;
	if (KEY_IS(j, "process_name"))
		return EV_PROCESS_NAME;
	return EV_OTHER;
}

/* An integer field (pid, tid): a number, or a string of digits as some
 * exporters write them; *OK false otherwise. */
static int int_value(struct tr *t, struct json *j, int64_t *out, bool *ok)
{
	int k = json_next(j);

	*ok = false;
	if (k == JSON_NUMBER) {
		*ok = json_int64(j, out);
		return PPROF_OK;
	}
	if (k == JSON_ERROR || json_skip(j, k) == JSON_ERROR)
		return jerr(t, j);
	return PPROF_OK;
}

/* Parses the args of an event that matters from its byte range. */
static int event_args(struct tr *t, enum evkind kind, size_t at, size_t end, int64_t pid,
		      int64_t tid, uint32_t id, uint64_t evoff)
{
	struct json j;
	struct tprof *f = NULL;
	uint32_t name = 0;
	bool found = false;
	int s;

	/* the bytes are pinned in the outer parser (read_event()) */
	const unsigned char *args = json_bytes(&t->j, at, end - at);

	if (!args)
		return pp_error_at(t->p, PPROF_ENOMEM, at, "an event's args were not kept");
	json_init(&j, args, end - at, t->max_depth > 2 ? t->max_depth - 2 : 1);
	json_set_base(&j, at);
	switch (kind) {
	case EV_THREAD_NAME:
	case EV_PROCESS_NAME:
		s = read_name_args(t, &j, &name, &found);
		if (s == PPROF_OK && found &&
		    !pp_kv_put(kind == EV_THREAD_NAME ? &t->threadname : &t->procname, pid,
			    kind == EV_THREAD_NAME ? tid : 0, name))
			s = pp_nomem(t->p);
		break;
	case EV_PROFILE:
		s = get_prof(t, pid, id, evoff, &f);
		if (s == PPROF_OK) {
			f->tid = tid;
			f->has_tid = true;
			f->offset = evoff;
			s = read_profile_args(t, &j, f);
		}
		break;
	default:
		s = get_prof(t, pid, id, evoff, &f);
		if (s == PPROF_OK)
			s = read_chunk_args(t, &j, f, evoff);
		break;
	}
	json_release(&j);
	return s;
}

/* One event, whose OBJECT_BEGIN was the last token: its args are pinned
 * from where they start (a stream keeps them while the event is read). */
static int read_event_pinned(struct tr *t);
static int read_event(struct tr *t)
{
	int s = read_event_pinned(t);

	json_unpin(&t->j);
	return s;
}

static int read_event_pinned(struct tr *t)
{
	struct json *j = &t->j;
	uint64_t evoff = json_offset(j);
	enum evkind kind = EV_OTHER;
	bool have_name = false, have_ph = false, has_pid = false, has_tid = false, has_id = false;
	char ph = 0;
	int64_t pid = 0, tid = 0;
	size_t args_at = 0, args_end = 0;
	int k, s;

	for (;;) {
		bool end;

		if ((s = next_key(t, j, &end)) != PPROF_OK)
			return s;
		if (end)
			break;
		if (KEY_IS(j, "ph")) {
			if ((s = value(t, j, &k)) != PPROF_OK)
				return s;
			if (k != JSON_STRING || j->len != 1 || (j->str[0] != 'M' && j->str[0] != 'P'))
				return json_skip(j, k) == JSON_ERROR ? jerr(t, j) : skip_rest(t, j);
			ph = j->str[0];
			have_ph = true;
		} else if (KEY_IS(j, "name")) {
			if ((s = value(t, j, &k)) != PPROF_OK)
				return s;
			if (k != JSON_STRING || (kind = event_kind(j)) == EV_OTHER)
				return json_skip(j, k) == JSON_ERROR ? jerr(t, j) : skip_rest(t, j);
			have_name = true;
		} else if (KEY_IS(j, "pid")) {
			s = int_value(t, j, &pid, &has_pid);
		} else if (KEY_IS(j, "tid")) {
			s = int_value(t, j, &tid, &has_tid);
		} else if (KEY_IS(j, "id")) {
			if ((s = value(t, j, &k)) != PPROF_OK)
				return s;
			if (k == JSON_STRING || k == JSON_NUMBER) {
				/* j->str may be scratch: copied. */
				if (j->len > t->idcap) {
					char *b = realloc(t->idbuf, j->len);
					if (!b)
						return pp_nomem(t->p);
					t->idbuf = b;
					t->idcap = j->len;
				}
				if (j->len)
					memcpy(t->idbuf, j->str, j->len);
				t->idlen = j->len;
				has_id = true;
			} else if (json_skip(j, k) == JSON_ERROR) {
				return jerr(t, j);
			}
		} else if (KEY_IS(j, "args")) {
			if ((s = value(t, j, &k)) != PPROF_OK)
				return s;
			args_at = args_end = 0;
			if (k == JSON_OBJECT_BEGIN) {
				args_at = json_offset(j);
				json_pin(j, args_at);
			}
			if (json_skip(j, k) == JSON_ERROR)
				return jerr(t, j);
			if (k == JSON_OBJECT_BEGIN)
				args_end = json_offset(j) + 1;
		} else {
			s = skip_value(t, j);
		}
		if (s != PPROF_OK)
			return s;
	}
	if (!have_ph || !have_name || !has_pid || args_end == 0)
		return PPROF_OK;
	if (ph == 'M' && kind != EV_THREAD_NAME && kind != EV_PROCESS_NAME)
		return PPROF_OK;
	if (ph == 'P' && kind != EV_PROFILE && kind != EV_CHUNK)
		return PPROF_OK;
	if (kind == EV_THREAD_NAME && !has_tid)
		return PPROF_OK;
	if ((kind == EV_PROFILE || kind == EV_CHUNK) && !has_id)
		return PPROF_OK;
	if (kind == EV_PROFILE && !has_tid)
		return PPROF_OK;
	uint32_t id = 0;
	if (kind == EV_PROFILE || kind == EV_CHUNK) {
		s = pp_intern(t->p, t->idbuf ? t->idbuf : "", t->idlen, &id);
		if (s != PPROF_OK)
			return s;
		if (kind == EV_PROFILE)
			t->have_profile_event = true;
	}
	return event_args(t, kind, args_at, args_end, pid, tid, id, evoff);
}

/* An error of the parser that the end of the input caused: the trace was
 * cut (DevTools and Chrome leave such files when a recording stops early). */
/* The input's length, or SIZE_MAX when it is longer than AT: a stream
 * not read to its end yet is read on that far (the parser has failed, so
 * nothing else needs the rest).  A stream that fails meanwhile keeps its
 * error, which jerr() reports. */
static size_t input_len_after(struct tr *t, size_t at)
{
	while (t->len == SIZE_MAX && t->stream && pp_stream_offset(t->stream) <= at) {
		const unsigned char *b;
		size_t n;

		if (pp_stream_next(t->stream, &b, &n) != PPROF_OK)
			break;
		if (n == 0)
			t->len = (size_t)pp_stream_offset(t->stream);
	}
	return t->len;
}

static bool cut_short(struct tr *t)
{
	const char *m = json_error(&t->j);
	size_t at = json_error_offset(&t->j);

	if (!strcmp(m, "unexpected end of input") || !strcmp(m, "unterminated string"))
		return true;
	/* a literal, a number or an escape cut in the middle */
	return (!strcmp(m, "invalid literal") || !strncmp(m, "expected a digit", 16) ||
		!strcmp(m, "invalid \\u escape in string")) &&
	       at + 6 >= input_len_after(t, at + 6);
}

/* The trace is read front to back once and nothing points into it once an
 * event is done (strings are interned, args parsed): the pages of a buffer
 * the library owns (a file's mapping, an inflated or piped input) are given
 * back behind the parser, so that a big trace does not stay resident whole.
 * Whatever is read again (never, here) would come back from the file or as
 * zeros. */
#define DROP_STEP ((size_t)32 << 20)
static void drop_behind(struct tr *t, size_t upto)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	uintptr_t b = (uintptr_t)t->drop + t->dropped, e = (uintptr_t)t->drop + upto;

	b = (b + page - 1) & ~(uintptr_t)(page - 1);
	e &= ~(uintptr_t)(page - 1);
	if (e > b && madvise((void *)b, e - b, MADV_DONTNEED) != 0)
		t->drop = NULL; /* not possible here: keep it all */
	t->dropped = upto;
}

static int read_events(struct tr *t, bool *cut)
{
	struct json *j = &t->j;

	for (;;) {
		int k = json_next(j), s;

		if (k == JSON_ARRAY_END)
			return PPROF_OK;
		if (k == JSON_ERROR) {
			if (cut_short(t)) {
				*cut = true;
				return PPROF_OK;
			}
			return jerr(t, j);
		}
		if (k == JSON_OBJECT_BEGIN) {
			s = read_event(t);
			if (s != PPROF_OK) {
				/* The outer parser failed (not an event's args):
				 * perhaps the input ends inside this event. */
				if (json_failed(j) && cut_short(t)) {
					*cut = true;
					return PPROF_OK;
				}
				return s;
			}
			t->last_end = json_offset(j) + 1;
		} else if (json_skip(j, k) == JSON_ERROR) {
			if (cut_short(t)) {
				*cut = true;
				return PPROF_OK;
			}
			return jerr(t, j);
		}
		t->nevents++;
		if (t->drop && json_offset(j) - t->dropped >= DROP_STEP)
			drop_behind(t, json_offset(j));
	}
}

/* metadata.sourceMaps (DevTools' "Include script source maps"): a list of
 * {url, sourceMapUrl, sourceMap}, the map as a JSON object.  Each map is
 * kept, in the arena, for pprof_symbolicate(), keyed by its script's URL.
 * Anything else in metadata is skipped; so is an entry without both. */
static int read_metadata(struct tr *t)
{
	struct json *j = &t->j;
	int k = json_next(j);

	if (k != JSON_OBJECT_BEGIN)
		return k == JSON_ERROR || json_skip(j, k) == JSON_ERROR ? jerr(t, j) : PPROF_OK;
	for (;;) {
		bool end;
		int s;

		if ((s = next_key(t, j, &end)) != PPROF_OK || end)
			return s;
		bool maps = KEY_IS(j, "sourceMaps"), start = KEY_IS(j, "startTime");
		if ((s = value(t, j, &k)) != PPROF_OK)
			return s;
		if (start && k == JSON_STRING) {
			int64_t ns;
			if (pp_iso_date_ns(j->str, j->len, &ns))
				t->date_ns = ns;
			continue;
		}
		if (!maps || k != JSON_ARRAY_BEGIN) {
			if (json_skip(j, k) == JSON_ERROR)
				return jerr(t, j);
			continue;
		}
		for (;;) {
			k = json_next(j);
			if (k == JSON_ARRAY_END)
				break;
			if (k == JSON_ERROR)
				return jerr(t, j);
			if (k != JSON_OBJECT_BEGIN) {
				if (json_skip(j, k) == JSON_ERROR)
					return jerr(t, j);
				continue;
			}
			uint32_t url = 0;
			bool has_url = false;
			const char *text = NULL;
			size_t len = 0;
			for (;;) {
				if ((s = next_key(t, j, &end)) != PPROF_OK)
					return s;
				if (end)
					break;
				bool is_url = KEY_IS(j, "url"), is_map = KEY_IS(j, "sourceMap");
				if ((s = value(t, j, &k)) != PPROF_OK)
					return s;
				if (is_url && k == JSON_STRING) {
					s = pp_intern(t->p, j->str, j->len, &url);
					if (s != PPROF_OK)
						return s;
					has_url = true;
				} else if (is_map && (k == JSON_OBJECT_BEGIN || k == JSON_STRING)) {
					size_t at = json_offset(j);
					const char *src = j->str;
					if (k == JSON_OBJECT_BEGIN) {
						json_pin(j, at);
						if (json_skip(j, k) == JSON_ERROR) {
							json_unpin(j);
							return jerr(t, j);
						}
						len = json_offset(j) + 1 - at;
						src = (const char *)json_bytes(j, at, len);
						json_unpin(j);
					} else {
						len = j->len;
					}
					char *c = pp_arena_alloc(&t->p->arena, len ? len : 1);
					if (!c || !src)
						return pp_nomem(t->p);
					memcpy(c, src, len);
					text = c;
				} else if (json_skip(j, k) == JSON_ERROR) {
					return jerr(t, j);
				}
			}
			if (has_url && text) {
				struct pp_emap *e = pp_arena_alloc(&t->p->arena, sizeof(*e));
				if (!e)
					return pp_nomem(t->p);
				*e = (struct pp_emap){ NULL, url, text, len };
				/* in file order: appended */
				if (!t->emap_tail) {
					t->emap_tail = &t->p->emaps;
					while (*t->emap_tail)
						t->emap_tail = &(*t->emap_tail)->next;
				}
				*t->emap_tail = e;
				t->emap_tail = &e->next;
			}
		}
	}
}

static int read_top(struct tr *t, bool *cut)
{
	struct json *j = &t->j;
	int k = json_next(j), s;
	bool seen = false;

	if (k == JSON_ERROR)
		return jerr(t, j);
	if (k == JSON_ARRAY_BEGIN) {
		s = read_events(t, cut);
		if (s != PPROF_OK || *cut)
			return s;
		/* The closing bracket is optional in the Trace Event Format. */
		k = json_next(j);
		if (k == JSON_END)
			return PPROF_OK;
		return jerr(t, j);
	}
	if (k != JSON_OBJECT_BEGIN)
		return pp_error_at(t->p, PPROF_EINPUT, json_offset(j),
				   "a trace is a JSON array or object");
	for (;;) {
		k = json_next(j);
		if (k == JSON_OBJECT_END)
			break;
		if (k == JSON_ERROR) {
			if (seen && cut_short(t)) {
				*cut = true;
				return PPROF_OK;
			}
			return jerr(t, j);
		}
		if (KEY_IS(j, "traceEvents")) {
			if (seen)
				return pp_error_at(t->p, PPROF_EINPUT, json_offset(j),
						   "duplicate key \"traceEvents\"");
			seen = true;
			k = json_next(j);
			if (k == JSON_ERROR) {
				if (cut_short(t)) {
					*cut = true;
					return PPROF_OK;
				}
				return jerr(t, j);
			}
			if (k != JSON_ARRAY_BEGIN)
				return pp_error_at(t->p, PPROF_EINPUT, json_offset(j),
						   "traceEvents is not an array");
			s = read_events(t, cut);
			if (s != PPROF_OK || *cut)
				return s;
			continue;
		}
		if (KEY_IS(j, "metadata")) {
			s = read_metadata(t);
			if (s != PPROF_OK) {
				if (seen && json_failed(j) && cut_short(t)) {
					*cut = true;
					return PPROF_OK;
				}
				return s;
			}
			continue;
		}
		k = json_next(j);
		if (k == JSON_ERROR || json_skip(j, k) == JSON_ERROR) {
			if (seen && cut_short(t)) {
				*cut = true;
				return PPROF_OK;
			}
			return jerr(t, j);
		}
	}
	k = json_next(j);
	if (k != JSON_END)
		return jerr(t, j);
	if (!seen)
		return pp_error(t->p, PPROF_EINPUT, "not a trace: no traceEvents");
	return PPROF_OK;
}

/* ---- from profiles to samples ---- */

struct stamp {
	int64_t t;
	uint32_t i;
};

static int cmp_stamp(const void *a, const void *b)
{
	const struct stamp *x = a, *y = b;

	if (x->t != y->t)
		return x->t < y->t ? -1 : 1;
	return x->i < y->i ? -1 : x->i > y->i;
}

static int range_error(struct tr *t)
{
	return pp_error(t->p, PPROF_EINPUT, "a time in nanoseconds leaves the 64-bit range");
}

/* The offset of sample I's chunk, for messages. */
static uint64_t sample_offset(const struct tprof *f, size_t i)
{
	size_t lo = 0, hi = f->nmarks;

	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;
		if (f->marks[mid].first <= i)
			lo = mid;
		else
			hi = mid;
	}
	return f->nmarks ? f->marks[lo].offset : f->offset;
}

struct acc {
	int64_t count, wall;
};

static int profile_to_model(struct tr *t, struct tprof *f, bool timeline)
{
	struct pprof_profile *p = t->p;
	size_t n = f->nsamples, i;
	struct stamp *st = NULL;
	uint32_t *seq = NULL;
	int64_t *ts = NULL;
	struct acc *acc = NULL;
	struct pp_label lab[4];
	uint32_t nlab = 0, labels, name, *ln = NULL;
	/* the samples on a line (lines.h): an at-line node's values */
	struct kvmap atmap;
	struct atline {
		uint32_t model, node;
		struct acc a;
	} *at = NULL;
	size_t nat = 0, capat = 0;
	int s;

	memset(&atmap, 0, sizeof(atmap));
	f->v.j = NULL;
	s = pp_v8_build(&f->v);
	if (s != PPROF_OK)
		return s;
	if (n > UINT32_MAX)
		return pp_error(p, PPROF_ENOMEM, "more than 2^32 samples in one profile");

	/* labels */
	memset(lab, 0, sizeof(lab));
	if ((s = pp_intern_cstr(p, "pid", &lab[nlab].key)) != PPROF_OK)
		return s;
	lab[nlab++].num = f->pid;
	if ((s = pp_intern_cstr(p, "tid", &lab[nlab].key)) != PPROF_OK)
		return s;
	lab[nlab++].num = f->tid;
	if ((name = pp_kv_get(&t->procname, f->pid, 0)) != UINT32_MAX) {
		if ((s = pp_intern_cstr(p, "process", &lab[nlab].key)) != PPROF_OK)
			return s;
		lab[nlab++].str = name;
	}
	if ((name = pp_kv_get(&t->threadname, f->pid, f->tid)) != UINT32_MAX) {
		if ((s = pp_intern_cstr(p, "thread", &lab[nlab].key)) != PPROF_OK)
			return s;
		lab[nlab++].str = name;
	}
	if ((s = pp_labelset_intern(p, lab, nlab, &labels)) != PPROF_OK)
		return s;

	/* node indexes, in file order */
	seq = malloc((n ? n : 1) * sizeof(*seq));
	acc = calloc((size_t)f->v.n + 1, sizeof(*acc));
	if (!seq || !acc) {
		s = pp_nomem(p);
		goto out;
	}
	for (i = 0; i < n; i++) {
		uint32_t k = pp_v8_find(&f->v, f->samples[i]);

		if (k == PP_V8_NONE) {
			s = pp_error_at(p, PPROF_EINPUT, sample_offset(f, i),
					"sample %zu: node %lld does not exist", i,
					(long long)f->samples[i]);
			goto out;
		}
		seq[i] = k;
	}
	ts = f->stamps;
	if (f->lines) {
		/* a line for every sample: 0 for those of chunks without */
		if (!grow((void **)&f->lines, &f->caplines, n, sizeof(*f->lines))) {
			s = pp_nomem(p);
			goto out;
		}
		memset(f->lines + f->nlines, 0, (n - f->nlines) * sizeof(*f->lines));
		f->nlines = n;
		ln = f->lines;
	}
	/* Stable sort by timestamp: usually in order already, nearly so
	 * otherwise (V8 writes a negative delta now and then). */
	for (i = 1; i < n; i++)
		if (ts[i] < ts[i - 1])
			break;
	if (i < n) {
		st = malloc(n * sizeof(*st));
		if (!st) {
			s = pp_nomem(p);
			goto out;
		}
		for (i = 0; i < n; i++)
			st[i] = (struct stamp){ ts[i], (uint32_t)i };
		size_t moves = 0, budget = 16 * n;
		for (i = 1; i < n && moves <= budget; i++) {
			struct stamp x = st[i];
			size_t k = i;
			while (k > 0 && st[k - 1].t > x.t && moves++ <= budget) {
				st[k] = st[k - 1];
				k--;
			}
			st[k] = x;
		}
		if (moves > budget)
			qsort(st, n, sizeof(*st), cmp_stamp);
		/* samples and stamps in time order */
		uint32_t *sorted = malloc(n * sizeof(*sorted));
		if (!sorted) {
			s = pp_nomem(p);
			goto out;
		}
		for (i = 0; i < n; i++) {
			sorted[i] = seq[st[i].i];
			ts[i] = st[i].t;
		}
		free(seq);
		seq = sorted;
		if (ln) {
			/* the lines with their samples */
			uint32_t *sl = malloc(n * sizeof(*sl));
			if (!sl) {
				s = pp_nomem(p);
				goto out;
			}
			for (i = 0; i < n; i++)
				sl[i] = ln[st[i].i];
			free(f->lines);
			f->lines = ln = sl;
			f->caplines = f->nlines = n;
		}
	}
	if (!(t->o && t->o->trace_keep_missing))
		pp_trace_fix_missing(p, &f->v, seq, n);

	/* The last sample stands for DevTools' average interval. */
	int64_t last_wall = 0;
	if (n > 1) {
		int64_t span;
		if (__builtin_sub_overflow(ts[n - 1], ts[0], &span) ||
		    __builtin_mul_overflow(span, 1000, &span)) {
			s = range_error(t);
			goto out;
		}
		last_wall = span / (int64_t)(n - 1);
	}
	int64_t base = f->has_start ? 0 : (n ? ts[0] : 0);
	/* flame chart time from the capture's start, not this profile's */
	if (f->has_start && t->has_origin && __builtin_sub_overflow(t->origin_us, f->start, &base))
		base = 0;
	/* the span: from startTime (or the first sample) to the last sample's
	 * end; left out when it leaves int64 */
	if (n > 0 && !__builtin_add_overflow(f->start, f->has_start ? 0 : ts[0], &f->begin_ns) &&
	    !__builtin_mul_overflow(f->begin_ns, 1000, &f->begin_ns) &&
	    !__builtin_add_overflow(f->start, ts[n - 1], &f->end_ns) &&
	    !__builtin_mul_overflow(f->end_ns, 1000, &f->end_ns) &&
	    !__builtin_add_overflow(f->end_ns, last_wall, &f->end_ns) && f->end_ns >= f->begin_ns)
		f->spans = true;
	f->interval = last_wall;
	for (i = 0; i < n; i++) {
		uint32_t k = seq[i], model = f->v.nodes[k].model;
		int64_t wall = last_wall, time;
		struct acc *a = &acc[k];

		if (i + 1 < n &&
		    (__builtin_sub_overflow(ts[i + 1], ts[i], &wall) ||
		     __builtin_mul_overflow(wall, 1000, &wall))) {
			s = range_error(t);
			goto out;
		}
		/* The sample's exact line (lines.h), in a script (a native
		 * frame has no lines to put it on). */
		if (ln && ln[i] && model && f->v.nodes[k].url) {
			s = pp_node_at_line(p, model, ln[i], &model);
			if (s != PPROF_OK)
				goto out;
			uint32_t x = pp_kv_get(&atmap, model, 0);
			if (x == UINT32_MAX) {
				if (!grow((void **)&at, &capat, nat + 1, sizeof(*at)) ||
				    !pp_kv_put(&atmap, model, 0, (uint32_t)nat)) {
					s = pp_nomem(p);
					goto out;
				}
				x = (uint32_t)nat;
				at[nat++] = (struct atline){ model, k, { 0, 0 } };
			}
			a = &at[x].a;
		}
		if (__builtin_add_overflow(a->wall, wall, &a->wall)) {
			s = pp_error(p, PPROF_EINPUT, "sum of wall values leaves the 64-bit range");
			goto out;
		}
		a->count++;
		if (timeline) {
			if (__builtin_sub_overflow(ts[i], base, &time) ||
			    __builtin_mul_overflow(time, 1000, &time)) {
				s = range_error(t);
				goto out;
			}
			s = pp_seq_push(p, model, time, wall);
			if (s != PPROF_OK)
				goto out;
		}
	}
	for (uint32_t x = 0; x < f->v.n; x++) {
		int64_t vals[2] = { acc[x].count, acc[x].wall };

		if (f->v.nodes[x].model == 0 || (vals[0] == 0 && vals[1] == 0))
			continue;
		s = pp_add_sample(p, f->v.nodes[x].model, labels, vals, f->v.nodes[x].offset);
		if (s != PPROF_OK)
			goto out;
	}
	for (size_t x = 0; x < nat; x++) {
		int64_t vals[2] = { at[x].a.count, at[x].a.wall };

		s = pp_add_sample(p, at[x].model, labels, vals, f->v.nodes[at[x].node].offset);
		if (s != PPROF_OK)
			goto out;
	}
	s = PPROF_OK;
out:
	free(st);
	free(seq);
	free(acc);
	free(at);
	free(atmap.slots);
	return s;
}

/* The profile's time (metadata.startTime), duration (the samples' span
 * over all threads read) and period (the average interval of the flame
 * chart's thread), merged with the earlier inputs' by pp_input_times():
 * the earliest time, the durations summed, the first period. */
static int set_times(struct tr *t, int64_t duration, int64_t period)
{
	struct pprof_profile *p = t->p;
	struct pp_sample_type pt = { 0, 0 };
	int s;

	if (period > 0 && ((s = pp_intern_cstr(p, "wall", &pt.type)) != PPROF_OK ||
			   (s = pp_intern_cstr(p, "nanoseconds", &pt.unit)) != PPROF_OK))
		return s;
	pp_input_times(p, t->date_ns, duration, pt, period > 0 ? period : 0);
	return PPROF_OK;
}

static int finish(struct tr *t)
{
	struct pprof_profile *p = t->p;
	struct kvmap winner;
	struct pp_sample_type types[2];
	uint32_t *order = NULL, nwin = 0, best = UINT32_MAX;
	size_t most = 0;
	bool several = false, spans = false;
	int64_t begin = 0, end = 0, period = 0;
	int s;

	if (!t->have_profile_event)
		return pp_error(p, PPROF_EINPUT,
				t->nevents ? "not a trace with a CPU profile: no Profile events"
					   : "not a trace with a CPU profile: no events");
	memset(&winner, 0, sizeof(winner));
	/* Each thread's last profile with nodes (SamplesHandler.ts keeps one
	 * profile per thread, the later overwriting the earlier). */
	for (uint32_t i = 0; i < t->nprofs; i++) {
		struct tprof *f = &t->profs[i];

		if (!f->has_tid || f->v.n == 0)
			continue;
		if (pp_kv_get(&winner, f->pid, f->tid) != UINT32_MAX)
			several = true;
		if (!pp_kv_put(&winner, f->pid, f->tid, i)) {
			free(winner.slots);
			return pp_nomem(p);
		}
	}
	if (several)
		pp_warn(p, "several profiles on one thread: the last one is read, as DevTools does");
	order = malloc(((size_t)t->nprofs + 1) * sizeof(*order));
	if (!order) {
		free(winner.slots);
		return pp_nomem(p);
	}
	for (uint32_t i = 0; i < t->nprofs; i++) {
		struct tprof *f = &t->profs[i];

		if (!f->has_tid || f->v.n == 0 || pp_kv_get(&winner, f->pid, f->tid) != i)
			continue;
		order[nwin++] = i;
	}
	free(winner.slots);
	/* The capture's start: the earliest startTime of its profiles, the
	 * origin of the flame chart's time (so that the charts of several
	 * threads count from one start). */
	for (uint32_t w = 0; w < nwin; w++) {
		struct tprof *f = &t->profs[order[w]];

		if (f->has_start && (!t->has_origin || f->start < t->origin_us)) {
			t->origin_us = f->start;
			t->has_origin = true;
		}
	}

	/* --thread: only the threads whose name matches. */
	if (t->o && t->o->trace_thread) {
		int err;
		size_t erroff;
		pcre2_code *re = pp_re_compile(t->o->trace_thread, strlen(t->o->trace_thread),
					       &err, &erroff);
		pcre2_match_data *md = re ? pcre2_match_data_create_from_pattern(re, NULL) : NULL;
		uint32_t kept = 0;

		if (!re || !md) {
			pcre2_match_data_free(md);
			pcre2_code_free(re);
			free(order);
			return re ? pp_nomem(p)
				  : pp_error(p, PPROF_EUSAGE, "bad thread regex at offset %zu", erroff);
		}
		for (uint32_t w = 0; w < nwin; w++) {
			struct tprof *f = &t->profs[order[w]];
			uint32_t nm = pp_kv_get(&t->threadname, f->pid, f->tid);

			if (nm != UINT32_MAX && pp_re_match(re, pp_str(p, nm), pp_strlen(p, nm), md))
				order[kept++] = order[w];
		}
		pcre2_match_data_free(md);
		pcre2_code_free(re);
		if (kept == 0 && nwin > 0)
			pp_warn(p, "no thread's name matches %s", t->o->trace_thread);
		nwin = kept;
	}
	/* trace_pick: the one thread asked for. */
	if (t->o && t->o->trace_pick) {
		uint32_t kept = 0;

		for (uint32_t w = 0; w < nwin; w++) {
			struct tprof *f = &t->profs[order[w]];

			if ((int64_t)f->pid == t->o->trace_pid && (int64_t)f->tid == t->o->trace_tid)
				order[kept++] = order[w];
		}
		nwin = kept;
	}
	/* The flame chart's thread: the one with the most samples (the first
	 * of equals). */
	for (uint32_t w = 0; w < nwin; w++) {
		struct tprof *f = &t->profs[order[w]];

		if (best == UINT32_MAX || f->nsamples > most) {
			best = w;
			most = f->nsamples;
		}
	}

	if ((s = pp_intern_cstr(p, "samples", &types[0].type)) != PPROF_OK ||
	    (s = pp_intern_cstr(p, "count", &types[0].unit)) != PPROF_OK ||
	    (s = pp_intern_cstr(p, "wall", &types[1].type)) != PPROF_OK ||
	    (s = pp_intern_cstr(p, "nanoseconds", &types[1].unit)) != PPROF_OK ||
	    (s = pp_begin_input(p, types, 2, 1)) != PPROF_OK)
		goto out;
	for (uint32_t w = 0; w < nwin; w++) {
		struct tprof *f = &t->profs[order[w]];

		s = profile_to_model(t, f, w == best);
		if (s == PPROF_OK && f->spans) {
			if (!spans || f->begin_ns < begin)
				begin = f->begin_ns;
			if (!spans || f->end_ns > end)
				end = f->end_ns;
			spans = true;
		}
		if (w == best)
			period = f->interval;
		/* done with it: a million profiles are not all held built */
		prof_release(f);
		memset(f, 0, sizeof(*f));
		if (s != PPROF_OK)
			goto out;
	}
	s = set_times(t, spans && !__builtin_sub_overflow(end, begin, &end) ? end : 0, period);
	if (s != PPROF_OK)
		goto out;
	if (nwin == 0)
		pp_warn(p, "the trace's profiles have no samples");
	s = PPROF_OK;
out:
	free(order);
	return s;
}

/* Reads the trace T's parser is set up over. */
static int trace_run(struct tr *t)
{
	bool cut = false;
	int s = read_top(t, &cut);

	if (s == PPROF_OK && cut)
		pp_warn(t->p, "truncated trace: read up to the last complete event (at byte %zu)",
			t->last_end);
	if (s == PPROF_OK)
		s = finish(t);
	for (uint32_t i = 0; i < t->nprofs; i++)
		prof_release(&t->profs[i]);
	free(t->profs);
	free(t->profmap.slots);
	free(t->threadname.slots);
	free(t->procname.slots);
	free(t->idbuf);
	free(t->clines);
	json_release(&t->j);
	return s;
}

static void trace_init(struct tr *t, struct pprof_profile *p, const struct pprof_read_options *o)
{
	memset(t, 0, sizeof(*t));
	t->p = p;
	t->o = o;
	t->max_depth = o && o->max_depth ? o->max_depth : 1000000;
}

/* The whole input in memory (a file's mapping, a pipe's bytes): pages
 * behind the parser are let go when the library owns them. */
static int trace_read(struct pprof_profile *p, const unsigned char *buf, size_t len,
		      const struct pprof_read_options *o)
{
	struct tr t;

	trace_init(&t, p, o);
	t.buf = buf;
	t.len = len;
	if (p->hold && p->hold->ptr == buf)
		t.drop = (unsigned char *)buf;
	json_init(&t.j, buf, len, t.max_depth);
	return trace_run(&t);
}

/* The stream's next piece for the parser; the input's length once it ends. */
static bool trace_more(void *ctx, const void **buf, size_t *len)
{
	struct tr *t = ctx;

	if (!pp_stream_json_more(t->stream, buf, len))
		return false;
	if (*len == 0)
		t->len = (size_t)pp_stream_offset(t->stream);
	return true;
}

/* A decoded input (gzip inflated as it is read): never whole in memory,
 * only the window of the parser, which holds the event being read. */
static int trace_read_stream(struct pprof_profile *p, struct pp_stream *s,
			     const struct pprof_read_options *o)
{
	struct tr t;

	trace_init(&t, p, o);
	t.len = SIZE_MAX;
	t.stream = s;
	json_init_chunked(&t.j, trace_more, &t, t.max_depth);
	return trace_run(&t);
}

const struct pp_reader pp_reader_trace = {
	.format = PPROF_FMT_TRACE,
	.name = "trace",
	.bid = pp_trace_bid,
	.read = trace_read,
	.read_stream = trace_read_stream,
};
