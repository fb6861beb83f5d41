/* read_trace_parts.c: the parts of the Chrome trace reader that stand on
 * their own (read_trace.h). */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#include "read_trace.h"

/* ---- a small open-addressing map from (int64, int64) to uint32 ---- */


static uint32_t kv_slot(const struct kvmap *m, int64_t a, int64_t b)
{
	uint64_t h = ((uint64_t)a ^ m->seed) * UINT64_C(0x9e3779b97f4a7c15);

	h ^= (uint64_t)b * UINT64_C(0xc2b2ae3d27d4eb4f);
	h ^= h >> 29;
	h *= UINT64_C(0xbf58476d1ce4e5b9);
	return (uint32_t)(h >> 32) & (m->cap - 1);
}

/* The value of (A, B), or UINT32_MAX. */
uint32_t pp_kv_get(const struct kvmap *m, int64_t a, int64_t b)
{
	if (!m->cap)
		return UINT32_MAX;
	for (uint32_t k = kv_slot(m, a, b); m->slots[k].val; k = (k + 1) & (m->cap - 1))
		if (m->slots[k].a == a && m->slots[k].b == b)
			return m->slots[k].val - 1;
	return UINT32_MAX;
}

bool pp_kv_put(struct kvmap *m, int64_t a, int64_t b, uint32_t val)
{
	if (m->n + 1 > m->cap / 2) {
		uint32_t cap = m->cap ? m->cap * 2 : 64;
		struct kvslot *old = m->slots;
		uint32_t oldcap = m->cap;

		if (cap > (1u << 30))
			return false;
		m->slots = calloc(cap, sizeof(*m->slots));
		if (!m->slots) {
			m->slots = old;
			return false;
		}
		if (!oldcap) {
			uint64_t r = (uint64_t)(uintptr_t)m->slots;

			if (getrandom(&m->seed, sizeof(m->seed), GRND_NONBLOCK) !=
			    (ssize_t)sizeof(m->seed))
				m->seed = r * 0x9e3779b97f4a7c15ull;
		}
		m->cap = cap;
		m->n = 0;
		for (uint32_t i = 0; i < oldcap; i++)
			if (old[i].val)
				pp_kv_put(m, old[i].a, old[i].b, old[i].val - 1);
		free(old);
	}
	uint32_t k = kv_slot(m, a, b);

	while (m->slots[k].val) {
		if (m->slots[k].a == a && m->slots[k].b == b) {
			m->slots[k].val = val + 1;
			return true;
		}
		k = (k + 1) & (m->cap - 1);
	}
	m->slots[k] = (struct kvslot){ a, b, val + 1 };
	m->n++;
	return true;
}

/* Days from 1970-01-01 to Y-M-D in the proleptic Gregorian calendar
 * (March-based years, so that the leap day ends a year). */
static int64_t days_from_civil(int64_t y, int64_t m, int64_t d)
{
	y -= m <= 2;
	int64_t era = (y >= 0 ? y : y - 399) / 400;
	int64_t yoe = y - era * 400;
	int64_t doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
	int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;

	return era * 146097 + doe - 719468;
}

/* N digits at *P into *V. */
static bool digits(const char **p, const char *e, int n, int64_t *v)
{
	*v = 0;
	for (int i = 0; i < n; i++, (*p)++) {
		if (*p >= e || **p < '0' || **p > '9')
			return false;
		*v = *v * 10 + (**p - '0');
	}
	return true;
}

/* DevTools' metadata.startTime, Date.prototype.toJSON's form of ISO 8601:
 * YYYY-MM-DDTHH:MM:SS[.fraction](Z|+HH:MM|-HH:MM), as nanoseconds since
 * the epoch; false for anything else or a time outside 1970..2262. */
bool pp_iso_date_ns(const char *p, size_t len, int64_t *out)
{
	static const int mdays[] = { 31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31 };
	const char *e = p + len;
	int64_t y, mo, d, h, mi, sec, frac = 0, off = 0, v;

	if (!digits(&p, e, 4, &y) || p >= e || *p++ != '-' || !digits(&p, e, 2, &mo) ||
	    p >= e || *p++ != '-' || !digits(&p, e, 2, &d) || p >= e || *p++ != 'T' ||
	    !digits(&p, e, 2, &h) || p >= e || *p++ != ':' || !digits(&p, e, 2, &mi) ||
	    p >= e || *p++ != ':' || !digits(&p, e, 2, &sec))
		return false;
	if (mo < 1 || mo > 12 || d < 1 || d > mdays[mo - 1] ||
	    (mo == 2 && d == 29 && !(y % 4 == 0 && (y % 100 != 0 || y % 400 == 0))) || h > 23 ||
	    mi > 59 || sec > 60)
		return false;
	if (p < e && *p == '.') {
		int n = 0;
		for (p++; p < e && *p >= '0' && *p <= '9'; p++, n++)
			if (n < 9)
				frac = frac * 10 + (*p - '0');
		if (n == 0)
			return false;
		for (; n < 9; n++)
			frac *= 10;
	}
	if (p < e && *p == 'Z') {
		p++;
	} else if (p < e && (*p == '+' || *p == '-')) {
		int64_t oh, om;
		bool neg = *p++ == '-';
		if (!digits(&p, e, 2, &oh) || p >= e || *p++ != ':' || !digits(&p, e, 2, &om) ||
		    oh > 23 || om > 59)
			return false;
		off = (oh * 60 + om) * 60;
		if (neg)
			off = -off;
	} else {
		return false; /* a local time: which zone, no one knows */
	}
	if (p != e)
		return false;
	v = days_from_civil(y, mo, d) * 86400 + h * 3600 + mi * 60 + sec - off;
	if (v < 0 || v > INT64_MAX / 1000000000 - 1)
		return false;
	*out = v * 1000000000 + frac;
	return true;
}

/* ---- DevTools' repair ---- */

static bool name_is(struct pprof_profile *p, uint32_t s, const char *lit)
{
	size_t n = strlen(lit);

	return pp_strlen(p, s) == n && memcmp(pp_str(p, s), lit, n) == 0;
}

/* The outermost frame's node of node I: the ancestor just below the root
 * (the root itself for the root). */
static uint32_t bottom(const struct pp_v8 *v, uint32_t i)
{
	/* Depth is bounded by the number of nodes, and the tree has no
	 * cycle once pp_v8_build() succeeded. */
	while (v->nodes[i].parent != PP_V8_NONE &&
	       v->nodes[v->nodes[i].parent].parent != PP_V8_NONE)
		i = v->nodes[i].parent;
	return i;
}

/*
 * DevTools' fixMissingSamples (CPUProfileDataModel.ts): a (program) sample
 * between two samples that are not (program), (garbage collector) or
 * (idle) and whose outermost frames are the same node takes the previous
 * sample's node.  "Previous" is the previous sample as it was before the
 * repair.  The system nodes are found among the root's children in node
 * order, the search stopping once all three are known (the last one of a
 * name before that wins).  At least 3 samples.
 */
void pp_trace_fix_missing(struct pprof_profile *p, struct pp_v8 *v, uint32_t *seq, size_t n)
{
	uint32_t prog = PP_V8_NONE, gc = PP_V8_NONE, idle = PP_V8_NONE, root = PP_V8_NONE;

	for (uint32_t i = 0; i < v->n; i++)
		if (v->nodes[i].parent == PP_V8_NONE) {
			root = i;
			break;
		}
	if (root == PP_V8_NONE)
		return;
	for (uint32_t i = 0; i < v->n && !(prog != PP_V8_NONE && gc != PP_V8_NONE && idle != PP_V8_NONE);
	     i++) {
		if (v->nodes[i].parent != root)
			continue;
		if (name_is(p, v->nodes[i].name, "(garbage collector)"))
			gc = i;
		else if (name_is(p, v->nodes[i].name, "(program)"))
			prog = i;
		else if (name_is(p, v->nodes[i].name, "(idle)"))
			idle = i;
	}
	if (prog == PP_V8_NONE || n < 3)
		return;
#define SYSTEM(x) ((x) == prog || (x) == gc || (x) == idle)
	uint32_t prev = seq[0], cur = seq[1];
	for (size_t i = 1; i + 1 < n; i++) {
		uint32_t next = seq[i + 1];

		if (cur == prog && !SYSTEM(prev) && !SYSTEM(next) &&
		    bottom(v, prev) == bottom(v, next))
			seq[i] = prev;
		prev = cur;
		cur = next;
	}
#undef SYSTEM
}

/* ---- bid ---- */

static const unsigned char *skip_ws(const unsigned char *p, const unsigned char *e)
{
	while (p < e && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r'))
		p++;
	return p;
}

/* KEY (with its quotes) followed by ':' in [B, E). */
static bool has_key(const unsigned char *b, const unsigned char *e, const char *key)
{
	size_t n = strlen(key);

	for (const unsigned char *p = b; p < e;) {
		const unsigned char *q = memmem(p, (size_t)(e - p), key, n);

		if (!q)
			return false;
		if (skip_ws(q + n, e) < e && *skip_ws(q + n, e) == ':')
			return true;
		p = q + 1;
	}
	return false;
}

int pp_trace_bid(const unsigned char *buf, size_t len)
{
	const unsigned char *p = buf, *e = buf + len, *w;
	const size_t window = 65536;

	if (len >= 3 && p[0] == 0xef && p[1] == 0xbb && p[2] == 0xbf)
		p += 3;
	p = skip_ws(p, e);
	if (p >= e)
		return 0;
	w = (size_t)(e - p) > window ? p + window : e;
	if (*p == '[') {
		const unsigned char *q = skip_ws(p + 1, e);
		/* An array of events; any other array is no profile, but the
		 * trace reader's message says so best. */
		if (q < e && *q == '{' && has_key(q, w, "\"ph\""))
			return 80;
		return 5;
	}
	if (*p != '{')
		return 0;
	if (has_key(p, w, "\"traceEvents\""))
		return 80;
	if ((size_t)(e - p) > window && has_key(e - window, e, "\"traceEvents\""))
		return 80;
	/* DevTools' files may start with a long "metadata" (embedded source
	 * maps): look at the top-level keys. */
	{
		struct json j;
		int k, bid = 0;

		json_init(&j, p, (size_t)(e - p), 0);
		if (json_next(&j) == JSON_OBJECT_BEGIN) {
			for (int keys = 0; keys < 16; keys++) {
				k = json_next(&j);
				if (k != JSON_KEY)
					break;
				if (json_is(&j, "traceEvents")) {
					bid = 80;
					break;
				}
				if (!json_is(&j, "metadata"))
					break;
				k = json_next(&j);
				if (json_skip(&j, k) == JSON_ERROR)
					break;
			}
		}
		json_release(&j);
		return bid;
	}
}

