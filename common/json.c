/*
 * json.c: a strict (RFC 8259) pull parser over a buffer in memory.
 *
 * One call of json_next() consumes the separator that follows the previous
 * token (',' or ':') together with the next token, so a token costs one
 * call.  Plain runs of string bytes are found 16 at a time with SSE2 where
 * the compiler offers it, else through a table; a string left raw (not
 * decoded) passes one-byte escapes 64 bytes at a time too.  Strings without
 * escapes are returned in place.
 *
 * Chunked mode runs the same code over a window that holds the input from
 * where the current token (and the white space before it) starts: a token
 * that meets the end of the window before the end of the input (the places
 * that fail with short_input() or set shortin, and a number that ends with
 * the window) is read again once the window holds more, at least twice as
 * much, so that a long token costs linear time.  The whole-buffer mode pays
 * one branch per token for it.
 */
#include "json.h"

#include <locale.h>
#include <stdlib.h>
#include <string.h>

#ifdef __SSE2__
#include <emmintrin.h>
#endif

#define JSON_DEFAULT_MAX_DEPTH 1000000u

enum json_state {
	ST_START = 0,    /* before the top-level value */
	ST_ARRAY_FIRST,  /* after '[': a value or ']' */
	ST_OBJECT_FIRST, /* after '{': a key or '}' */
	ST_COLON,        /* after a key: ':' then a value */
	ST_AFTER,        /* after a value: ',', a closing bracket, or the end */
	ST_END,
	ST_ERROR,
};

/* Character classes. */
enum {
	C_WS = 1,      /* insignificant whitespace */
	C_DIGIT = 2,   /* 0-9 */
	C_PLAIN = 4,   /* a string byte needing no attention */
	C_NUMTAIL = 8, /* can continue a number: digit . e E + - */
	C_ESC = 16,    /* follows a backslash as a one-byte escape: "\\/bfnrt */
};

static unsigned char cls[256];
static signed char hexval[256];

static void init_tables(void)
{
	/* Idempotent: racing threads write the same values. */
	static volatile int done;
	int c;

	if (done)
		return;
	for (c = 0; c < 256; c++) {
		unsigned char k = 0;

		if (c == ' ' || c == '\t' || c == '\n' || c == '\r')
			k |= C_WS;
		if (c >= '0' && c <= '9')
			k |= C_DIGIT | C_NUMTAIL;
		if (c == '.' || c == 'e' || c == 'E' || c == '+' || c == '-')
			k |= C_NUMTAIL;
		if (c >= 0x20 && c < 0x80 && c != '"' && c != '\\')
			k |= C_PLAIN;
		if (c && strchr("\"\\/bfnrt", c))
			k |= C_ESC;
		cls[c] = k;
		if (c >= '0' && c <= '9')
			hexval[c] = (signed char)(c - '0');
		else if (c >= 'a' && c <= 'f')
			hexval[c] = (signed char)(c - 'a' + 10);
		else if (c >= 'A' && c <= 'F')
			hexval[c] = (signed char)(c - 'A' + 10);
		else
			hexval[c] = -1;
	}
	done = 1;
}

void json_init(struct json *j, const void *buf, size_t len, uint32_t max_depth)
{
	init_tables();
	memset(j, 0, sizeof(*j));
	j->buf = buf;
	j->size = len;
	j->max_depth = max_depth ? max_depth : JSON_DEFAULT_MAX_DEPTH;
	j->state = ST_START;
	j->err = "";
	j->str = "";
}

void json_release(struct json *j)
{
	free(j->stack);
	free(j->scratch);
	free(j->win);
	j->stack = NULL;
	j->scratch = NULL;
	j->win = NULL;
	j->stackcap = 0;
	j->scratchcap = 0;
	j->wincap = 0;
}

static int fail(struct json *j, const char *msg, size_t pos)
{
	j->err = msg;
	j->errpos = j->base + pos;
	j->state = ST_ERROR;
	j->str = "";
	j->len = 0;
	return JSON_ERROR;
}

/* A failure at the end of the window: in chunked mode, more input may
 * make it a token. */
static int short_input(struct json *j, const char *msg, size_t pos)
{
	j->shortin = true;
	return fail(j, msg, pos);
}

bool json_read_failed(const struct json *j)
{
	return j->readerr && j->state == ST_ERROR;
}

/* Moves the window to start at j->pos and pulls pieces until it holds at
 * least twice what it held from there (or the input ends).  False when
 * MORE failed or memory ran out (the error set). */
static bool refill(struct json *j)
{
	size_t tail = j->size - j->pos, from = j->pos;
	/* pinned bytes stay (json_pin()) */
	if (j->pinned && j->pin < j->base + from)
		from = j->pin > j->base ? j->pin - j->base : 0;
	size_t want = (j->pos - from) + (tail ? tail * 2 : 1);
	if (from) {
		memmove(j->win, j->win + from, j->size - from);
		j->base += from;
		j->size -= from;
		j->pos -= from;
	}
	while (!j->eof && j->size < want) {
		const void *c;
		size_t n;
		if (!j->more(j->ctx, &c, &n)) {
			j->readerr = true;
			fail(j, "read error", j->size);
			return false;
		}
		if (n == 0) {
			j->eof = true;
			break;
		}
		if (j->size + n > j->wincap) {
			size_t cap = j->wincap ? j->wincap : 4096;
			while (cap < j->size + n) {
				if (cap > SIZE_MAX / 2) {
					fail(j, "out of memory", j->size);
					return false;
				}
				cap *= 2;
			}
			unsigned char *w = realloc(j->win, cap);
			if (!w) {
				fail(j, "out of memory", j->size);
				return false;
			}
			j->win = w;
			j->wincap = cap;
		}
		memcpy(j->win + j->size, c, n);
		j->size += n;
	}
	/* never NULL: an empty input has no window, and NULL + 0 is undefined */
	j->buf = j->win ? j->win : (const unsigned char *)"";
	return true;
}

void json_init_chunked(struct json *j, bool (*more)(void *ctx, const void **buf, size_t *len),
		       void *ctx, uint32_t max_depth)
{
	json_init(j, "", 0, max_depth);
	j->more = more;
	j->ctx = ctx;
}

void json_pin(struct json *j, size_t at)
{
	j->pin = at;
	j->pinned = true;
}

void json_unpin(struct json *j)
{
	j->pinned = false;
}

const unsigned char *json_bytes(const struct json *j, size_t at, size_t len)
{
	if (at < j->base || at - j->base > j->size || len > j->size - (at - j->base))
		return NULL;
	return j->buf + (at - j->base);
}

const char *json_error(const struct json *j)
{
	return j->err;
}

size_t json_error_offset(const struct json *j)
{
	return j->errpos;
}

size_t json_offset(const struct json *j)
{
	return j->base + j->tokpos;
}

bool json_failed(const struct json *j)
{
	return j->state == ST_ERROR;
}

void json_set_base(struct json *j, size_t base)
{
	j->base = base;
}

bool json_is(const struct json *j, const char *s)
{
	size_t n = strlen(s);

	return j->len == n && memcmp(j->str, s, n) == 0;
}

/* ---- nesting ---- */

static inline bool in_object(const struct json *j)
{
	uint32_t i = j->depth - 1;

	return (j->stack[i >> 6] >> (i & 63)) & 1;
}

static bool push(struct json *j, bool object, size_t pos)
{
	uint32_t i = j->depth;
	size_t w = i >> 6;

	if (i >= j->max_depth) {
		fail(j, "nesting deeper than the maximum depth", pos);
		return false;
	}
	if (w >= j->stackcap) {
		size_t cap = j->stackcap ? j->stackcap * 2 : 4;
		uint64_t *s = realloc(j->stack, cap * sizeof(*s));

		if (!s) {
			fail(j, "out of memory", pos);
			return false;
		}
		j->stack = s;
		j->stackcap = cap;
	}
	if (object)
		j->stack[w] |= UINT64_C(1) << (i & 63);
	else
		j->stack[w] &= ~(UINT64_C(1) << (i & 63));
	j->depth = i + 1;
	return true;
}

/* ---- strings ---- */

/* The first byte at or after P that is not plain (see C_PLAIN), or END. */
static inline const unsigned char *scan_plain(const unsigned char *p,
					      const unsigned char *end)
{
#ifdef __SSE2__
	const __m128i quote = _mm_set1_epi8('"');
	const __m128i bslash = _mm_set1_epi8('\\');
	const __m128i space = _mm_set1_epi8(0x20);

	/* A signed compare against 0x20 also catches bytes >= 0x80. */
	while (end - p >= 16) {
		__m128i v = _mm_loadu_si128((const __m128i *)(const void *)p);
		__m128i m = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, quote),
						      _mm_cmpeq_epi8(v, bslash)),
					 _mm_cmplt_epi8(v, space));
		unsigned mask = (unsigned)_mm_movemask_epi8(m);

		if (mask)
			return p + __builtin_ctz(mask);
		p += 16;
	}
#endif
	while (p < end && (cls[*p] & C_PLAIN))
		p++;
	return p;
}

#ifdef __SSE2__
/* Bit k set where byte k of the 64 at P is '"', '\\' or (signed, so that
 * bytes >= 0x80 count) below 0x20: *QUOTE, *BSLASH and *SPECIAL apart. */
static inline void marks64(const unsigned char *p, uint64_t *quote, uint64_t *bslash,
			   uint64_t *special)
{
	const __m128i vq = _mm_set1_epi8('"');
	const __m128i vb = _mm_set1_epi8('\\');
	const __m128i vs = _mm_set1_epi8(0x20);
	uint64_t q = 0, b = 0, s = 0;

	for (int k = 0; k < 4; k++) {
		__m128i v = _mm_loadu_si128((const __m128i *)(const void *)(p + 16 * k));

		q |= (uint64_t)(unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(v, vq)) << (16 * k);
		b |= (uint64_t)(unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(v, vb)) << (16 * k);
		s |= (uint64_t)(unsigned)_mm_movemask_epi8(_mm_cmplt_epi8(v, vs)) << (16 * k);
	}
	*quote = q;
	*bslash = b;
	*special = s;
}
#endif

/*
 * For a string not decoded: the first byte at or after Q that the loop of
 * parse_string() must see (the closing quote, a byte below 0x20 or from
 * 0x80, a backslash not followed by a one-byte escape), or one short of
 * END, passing plain bytes and one-byte escapes 64 bytes at a time
 * (sourcesContent has an escape every 20 bytes or so: "\n" at each line's
 * end, quotes).  *ESCAPED is set when an escape was passed.  A block never
 * ends inside an escape: a backslash in its last byte ends the block.
 */
static inline const unsigned char *skip_plain_escapes(const unsigned char *q,
						      const unsigned char *end, bool *escaped)
{
#ifdef __SSE2__
	while (end - q >= 64) {
		uint64_t quote, bs, special, esc = 0, stop;

		marks64(q, &quote, &bs, &special);
		stop = special;
		for (uint64_t b = bs; b;) {
			unsigned i = (unsigned)__builtin_ctzll(b);

			/* Q[I + 1] is in the block when I < 63 */
			if (i == 63 || !(cls[q[i + 1]] & C_ESC)) {
				stop |= UINT64_C(1) << i;
				break;
			}
			esc |= UINT64_C(2) << i;
			b &= ~(UINT64_C(3) << i);
		}
		stop |= quote & ~esc;
		if (!stop) {
			*escaped |= bs != 0;
			q += 64;
			continue;
		}
		unsigned at = (unsigned)__builtin_ctzll(stop);

		*escaped |= (bs & ((UINT64_C(1) << at) - 1)) != 0;
		return q + at;
	}
#endif
	return scan_plain(q, end);
}

/* Length of the well-formed UTF-8 sequence at P (RFC 3629: no overlong
 * forms, no surrogates, nothing past U+10FFFF), or 0. */
static inline size_t utf8_len(const unsigned char *p, const unsigned char *end)
{
	size_t avail = (size_t)(end - p);
	unsigned c = p[0];

	if (c >= 0xc2 && c <= 0xdf) {
		if (avail >= 2 && (p[1] & 0xc0) == 0x80)
			return 2;
		return 0;
	}
	if (c >= 0xe0 && c <= 0xef) {
		unsigned lo = 0x80, hi = 0xbf;

		if (c == 0xe0)
			lo = 0xa0;
		else if (c == 0xed)
			hi = 0x9f;
		if (avail >= 3 && p[1] >= lo && p[1] <= hi && (p[2] & 0xc0) == 0x80)
			return 3;
		return 0;
	}
	if (c >= 0xf0 && c <= 0xf4) {
		unsigned lo = 0x80, hi = 0xbf;

		if (c == 0xf0)
			lo = 0x90;
		else if (c == 0xf4)
			hi = 0x8f;
		if (avail >= 4 && p[1] >= lo && p[1] <= hi && (p[2] & 0xc0) == 0x80 &&
		    (p[3] & 0xc0) == 0x80)
			return 4;
		return 0;
	}
	return 0;
}

static bool scratch_reserve(struct json *j, size_t need)
{
	size_t cap;
	char *s;

	if (need <= j->scratchcap)
		return true;
	cap = j->scratchcap ? j->scratchcap : 256;
	while (cap < need) {
		if (cap > SIZE_MAX / 2)
			return false;
		cap *= 2;
	}
	s = realloc(j->scratch, cap);
	if (!s)
		return false;
	j->scratch = s;
	j->scratchcap = cap;
	return true;
}

static inline int hex4(const unsigned char *p)
{
	int a = hexval[p[0]], b = hexval[p[1]], c = hexval[p[2]], d = hexval[p[3]];

	if ((a | b | c | d) < 0)
		return -1;
	return (a << 12) | (b << 8) | (c << 4) | d;
}

/* Writes code point CP as UTF-8 at O (room for 4 bytes); its length. */
static size_t put_utf8(char *o, unsigned cp)
{
	if (cp < 0x80) {
		o[0] = (char)cp;
		return 1;
	}
	if (cp < 0x800) {
		o[0] = (char)(0xc0 | (cp >> 6));
		o[1] = (char)(0x80 | (cp & 0x3f));
		return 2;
	}
	if (cp < 0x10000) {
		o[0] = (char)(0xe0 | (cp >> 12));
		o[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
		o[2] = (char)(0x80 | (cp & 0x3f));
		return 3;
	}
	o[0] = (char)(0xf0 | (cp >> 18));
	o[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
	o[2] = (char)(0x80 | ((cp >> 6) & 0x3f));
	o[3] = (char)(0x80 | (cp & 0x3f));
	return 4;
}

/*
 * The string whose opening quote is at *PP.  On success *PP is past the
 * closing quote and j->str / j->len hold the contents; with DECODE false,
 * escapes are only checked (for json_skip) and j->str is left alone.
 */
static bool parse_string(struct json *j, const unsigned char **pp, bool decode)
{
	const unsigned char *base = j->buf, *end = base + j->size;
	const unsigned char *start = *pp + 1;
	const unsigned char *p = start; /* start of the run not yet copied */
	const unsigned char *q = start;
	size_t out = 0;                 /* bytes decoded into scratch */
	bool escaped = false;

	for (;;) {
		unsigned cp;
		char c;

		q = decode ? scan_plain(q, end) : skip_plain_escapes(q, end, &escaped);
		if (q >= end) {
			short_input(j, "unterminated string", (size_t)(start - 1 - base));
			return false;
		}
		if (*q == '"')
			break;
		if (*q >= 0x80) {
			size_t n = utf8_len(q, end);

			if (!n) {
				if (end - q < 4)
					j->shortin = true;
				fail(j, "invalid UTF-8 in string", (size_t)(q - base));
				return false;
			}
			q += n;
			continue;
		}
		if (*q < 0x20) {
			fail(j, "control character in string", (size_t)(q - base));
			return false;
		}
		/* A backslash: flush the run before it, with room for the
		 * longest UTF-8 form of the escape. */
		if (decode) {
			size_t n = (size_t)(q - p);

			if (!scratch_reserve(j, out + n + 4)) {
				fail(j, "out of memory", (size_t)(q - base));
				return false;
			}
			memcpy(j->scratch + out, p, n);
			out += n;
		}
		escaped = true;
		if (end - q < 2) {
			short_input(j, "unterminated string", (size_t)(start - 1 - base));
			return false;
		}
		switch (q[1]) {
		case '"': c = '"'; break;
		case '\\': c = '\\'; break;
		case '/': c = '/'; break;
		case 'b': c = '\b'; break;
		case 'f': c = '\f'; break;
		case 'n': c = '\n'; break;
		case 'r': c = '\r'; break;
		case 't': c = '\t'; break;
		case 'u': c = 0; break;
		default:
			fail(j, "invalid escape in string", (size_t)(q - base));
			return false;
		}
		if (q[1] != 'u') {
			if (decode)
				j->scratch[out++] = c;
			p = q = q + 2;
			continue;
		}
		if (end - q < 6 || hex4(q + 2) < 0) {
			if (end - q < 6)
				j->shortin = true;
			fail(j, "invalid \\u escape in string", (size_t)(q - base));
			return false;
		}
		cp = (unsigned)hex4(q + 2);
		if (cp >= 0xdc00 && cp <= 0xdfff) {
			fail(j, "lone surrogate in \\u escape", (size_t)(q - base));
			return false;
		}
		if (cp >= 0xd800 && cp <= 0xdbff) {
			int lo = -1;

			if (end - q >= 12 && q[6] == '\\' && q[7] == 'u')
				lo = hex4(q + 8);
			if (lo < 0xdc00 || lo > 0xdfff) {
				if (end - q < 12)
					j->shortin = true;
				fail(j, "lone surrogate in \\u escape", (size_t)(q - base));
				return false;
			}
			cp = 0x10000 + ((cp - 0xd800) << 10) + ((unsigned)lo - 0xdc00);
			q += 12;
		} else {
			q += 6;
		}
		p = q;
		if (decode)
			out += put_utf8(j->scratch + out, cp);
	}
	/* *q is the closing quote. */
	if (!escaped) {
		j->str = (const char *)start;
		j->len = (size_t)(q - start);
	} else if (decode) {
		size_t n = (size_t)(q - p);

		if (!scratch_reserve(j, out + n + 1)) {
			fail(j, "out of memory", (size_t)(q - base));
			return false;
		}
		memcpy(j->scratch + out, p, n);
		out += n;
		j->str = j->scratch;
		j->len = out;
	}
	*pp = q + 1;
	return true;
}

/* ---- numbers and literals ---- */

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define JSON_SWAR 1
static inline uint64_t load64(const unsigned char *p)
{
	uint64_t x;

	memcpy(&x, p, 8);
	return x;
}

/* Bit 8k+7 set where byte k of X is not an ASCII digit. */
static inline uint64_t nondigit_mask(uint64_t x)
{
	const uint64_t f0 = UINT64_C(0xf0f0f0f0f0f0f0f0);
	const uint64_t t0 = UINT64_C(0x3030303030303030);
	const uint64_t lo7 = UINT64_C(0x7f7f7f7f7f7f7f7f);
	/* High nibble 3, and low nibble at most 9 (adding 6 keeps the high
	 * nibble 3).  A carry out of a non-digit byte only spoils bytes after
	 * it, which do not matter. */
	uint64_t m = ((x & f0) ^ t0) | (((x + UINT64_C(0x0606060606060606)) & f0) ^ t0);

	return (((m & lo7) + lo7) | m) & ~lo7;
}
#endif

/* The first byte at or after P that is not a digit, or END.  Number lengths
 * vary from token to token, so a loop mispredicts its exit; eight bytes at
 * a time do not. */
static inline const unsigned char *scan_digits(const unsigned char *p,
					       const unsigned char *end)
{
#ifdef JSON_SWAR
	while (end - p >= 8) {
		uint64_t m = nondigit_mask(load64(p));

		if (m)
			return p + (__builtin_ctzll(m) >> 3);
		p += 8;
	}
#endif
	while (p < end && (cls[*p] & C_DIGIT))
		p++;
	return p;
}

/* The number at *PP (RFC 8259 grammar); on success *PP is past it. */
static bool parse_number(struct json *j, const unsigned char **pp)
{
	const unsigned char *base = j->buf, *end = base + j->size;
	const unsigned char *s = *pp, *p = s;

	if (*p == '-')
		p++;
	if (p >= end || !(cls[*p] & C_DIGIT)) {
		j->shortin = p >= end;
		fail(j, "expected a digit in number", (size_t)(p - base));
		return false;
	}
	if (*p == '0') {
		p++;
		if (p < end && (cls[*p] & C_DIGIT)) {
			fail(j, "leading zero in number", (size_t)(s - base));
			return false;
		}
	} else {
		p = scan_digits(p, end);
	}
	if (p < end && *p == '.') {
		p++;
		if (p >= end || !(cls[*p] & C_DIGIT)) {
			j->shortin = p >= end;
			fail(j, "expected a digit after '.' in number", (size_t)(p - base));
			return false;
		}
		while (p < end && (cls[*p] & C_DIGIT))
			p++;
	}
	if (p < end && (*p == 'e' || *p == 'E')) {
		p++;
		if (p < end && (*p == '+' || *p == '-'))
			p++;
		if (p >= end || !(cls[*p] & C_DIGIT)) {
			j->shortin = p >= end;
			fail(j, "expected a digit in exponent", (size_t)(p - base));
			return false;
		}
		while (p < end && (cls[*p] & C_DIGIT))
			p++;
	}
	j->str = (const char *)s;
	j->len = (size_t)(p - s);
	*pp = p;
	return true;
}

static int literal(struct json *j, const unsigned char **pp, const char *word,
		   size_t n, int tok)
{
	const unsigned char *p = *pp;

	if ((size_t)(j->buf + j->size - p) < n || memcmp(p, word, n) != 0) {
		j->shortin = (size_t)(j->buf + j->size - p) < n;
		fail(j, "invalid literal", (size_t)(p - j->buf));
		return JSON_ERROR;
	}
	j->str = (const char *)p;
	j->len = n;
	*pp = p + n;
	return tok;
}

/* ---- tokens ---- */

static inline const unsigned char *skip_ws(const unsigned char *p,
					   const unsigned char *end)
{
	while (p < end && (cls[*p] & C_WS))
		p++;
	return p;
}

/* The closing bracket C at P: pops a level. */
static int close_level(struct json *j, const unsigned char *p, int tok)
{
	j->depth--;
	j->tokpos = (size_t)(p - j->buf);
	j->pos = j->tokpos + 1;
	j->state = ST_AFTER;
	j->str = "";
	j->len = 0;
	return tok;
}

static int next_token(struct json *j, bool decode)
{
	const unsigned char *base = j->buf, *end = base + j->size;
	const unsigned char *p = base + j->pos;
	bool after_comma = false;
	int tok;

	switch (j->state) {
	case ST_START:
		/* RFC 8259 lets a parser ignore a byte order mark. */
		if (j->size >= 3 && base[0] == 0xef && base[1] == 0xbb && base[2] == 0xbf)
			p += 3;
		else if (j->size < 3 && (!j->size || memcmp(base, "\xef\xbb\xbf", j->size) == 0))
			j->shortin = true; /* the start of a mark, or nothing yet */
		p = skip_ws(p, end);
		if (p >= end)
			return short_input(j, j->size ? "expected a value" : "empty input",
					   (size_t)(p - base));
		goto value;
	case ST_AFTER:
		p = skip_ws(p, end);
		if (j->depth == 0) {
			if (p < end)
				return fail(j, "unexpected data after the top-level value",
					    (size_t)(p - base));
			j->state = ST_END;
			j->pos = j->tokpos = j->size;
			j->shortin = true; /* the end only at the end of the input */
			j->str = "";
			j->len = 0;
			return JSON_END;
		}
		if (p >= end)
			return short_input(j, "unexpected end of input", (size_t)(p - base));
		if (in_object(j)) {
			if (*p == ',') {
				p = skip_ws(p + 1, end);
				after_comma = true;
				goto key;
			}
			if (*p == '}')
				return close_level(j, p, JSON_OBJECT_END);
			return fail(j, "expected ',' or '}' after object member",
				    (size_t)(p - base));
		}
		if (*p == ',') {
			p = skip_ws(p + 1, end);
			after_comma = true;
			goto value;
		}
		if (*p == ']')
			return close_level(j, p, JSON_ARRAY_END);
		return fail(j, "expected ',' or ']' after array element",
			    (size_t)(p - base));
	case ST_OBJECT_FIRST:
		p = skip_ws(p, end);
		if (p < end && *p == '}')
			return close_level(j, p, JSON_OBJECT_END);
		goto key;
	case ST_ARRAY_FIRST:
		p = skip_ws(p, end);
		if (p < end && *p == ']')
			return close_level(j, p, JSON_ARRAY_END);
		goto value;
	case ST_COLON:
		p = skip_ws(p, end);
		if (p >= end)
			return short_input(j, "unexpected end of input", (size_t)(p - base));
		if (*p != ':')
			return fail(j, "expected ':' after object key", (size_t)(p - base));
		p = skip_ws(p + 1, end);
		goto value;
	case ST_END:
		return JSON_END;
	default:
		return JSON_ERROR;
	}

key:
	if (p >= end)
		return short_input(j, "unexpected end of input", (size_t)(p - base));
	if (*p != '"') {
		if (after_comma && *p == '}')
			return fail(j, "trailing comma in object", (size_t)(p - base));
		return fail(j, "expected a string as object key", (size_t)(p - base));
	}
	j->tokpos = (size_t)(p - base);
	if (!parse_string(j, &p, decode))
		return JSON_ERROR;
	j->pos = (size_t)(p - base);
	j->state = ST_COLON;
	return JSON_KEY;

value:
	if (p >= end)
		return short_input(j, "unexpected end of input", (size_t)(p - base));
	j->tokpos = (size_t)(p - base);
	switch (*p) {
	case '"':
		if (!parse_string(j, &p, decode))
			return JSON_ERROR;
		tok = JSON_STRING;
		break;
	case '-': case '0': case '1': case '2': case '3': case '4':
	case '5': case '6': case '7': case '8': case '9':
		if (!parse_number(j, &p))
			return JSON_ERROR;
		tok = JSON_NUMBER;
		break;
	case '{':
		if (!push(j, true, j->tokpos))
			return JSON_ERROR;
		j->pos = j->tokpos + 1;
		j->state = ST_OBJECT_FIRST;
		j->str = "";
		j->len = 0;
		return JSON_OBJECT_BEGIN;
	case '[':
		if (!push(j, false, j->tokpos))
			return JSON_ERROR;
		j->pos = j->tokpos + 1;
		j->state = ST_ARRAY_FIRST;
		j->str = "";
		j->len = 0;
		return JSON_ARRAY_BEGIN;
	case 't':
		tok = literal(j, &p, "true", 4, JSON_TRUE);
		break;
	case 'f':
		tok = literal(j, &p, "false", 5, JSON_FALSE);
		break;
	case 'n':
		tok = literal(j, &p, "null", 4, JSON_NULL);
		break;
	case ']':
		if (after_comma)
			return fail(j, "trailing comma in array", j->tokpos);
		return fail(j, "expected a value", j->tokpos);
	default:
		return fail(j, "expected a value", j->tokpos);
	}
	if (tok == JSON_ERROR)
		return JSON_ERROR;
	j->pos = (size_t)(p - base);
	j->state = ST_AFTER;
	return tok;
}

/* next_token() in chunked mode: again with more input while the token
 * met the end of the window before the end of the input. */
static __attribute__((noinline)) int next_chunked(struct json *j, bool decode)
{
	for (;;) {
		size_t pos = j->pos;
		int state = j->state;
		j->shortin = false;
		int t = next_token(j, decode);
		if (j->eof || (!j->shortin && !(t == JSON_NUMBER && j->pos == j->size)))
			return t;
		j->pos = pos;
		j->state = state;
		j->err = "";
		j->errpos = 0;
		if (!refill(j))
			return JSON_ERROR;
	}
}

int json_next(struct json *j)
{
	if (j->more)
		return next_chunked(j, true);
	return next_token(j, true);
}

int json_next_u32(struct json *j, uint32_t *out, bool *have)
{
	*have = false;
	if ((j->state != ST_AFTER && j->state != ST_ARRAY_FIRST) || j->depth == 0 ||
	    in_object(j))
		return json_next(j);
	const unsigned char *base = j->buf, *end = base + j->size;
	const unsigned char *p = skip_ws(base + j->pos, end);
	if (j->state == ST_AFTER) {
		if (p >= end || *p != ',')
			return json_next(j);
		p = skip_ws(p + 1, end);
	}
	/* 1 to 9 digits, no leading zero but "0" itself, and a byte after
	 * them in the buffer that cannot continue a number: anything else
	 * (and its errors) is json_next()'s */
	const unsigned char *q = p;
	uint32_t v = 0;
	while (q < end && q - p < 10 && (cls[*q] & C_DIGIT))
		v = v * 10 + (uint32_t)(*q++ - '0');
	size_t n = (size_t)(q - p);
	if (n == 0 || n > 9 || q >= end || (cls[*q] & C_NUMTAIL) || (*p == '0' && n > 1))
		return json_next(j);
	j->tokpos = (size_t)(p - base);
	j->pos = (size_t)(q - base);
	j->str = (const char *)p;
	j->len = n;
	j->state = ST_AFTER;
	*out = v;
	*have = true;
	return JSON_NUMBER;
}

size_t json_ints(struct json *j, int64_t *out, size_t max)
{
	if (!max || (j->state != ST_AFTER && j->state != ST_ARRAY_FIRST) || j->depth == 0 ||
	    in_object(j))
		return 0;
	const unsigned char *base = j->buf, *end = base + j->size;
	const unsigned char *p = base + j->pos, *tok = NULL;
	bool first = j->state == ST_ARRAY_FIRST;
	size_t n = 0;

	while (n < max) {
		const unsigned char *q = p;
		bool neg;
		uint64_t v = 0;
		size_t k;

#ifdef JSON_SWAR
		/* ",DIGITS" or ",-DIGITS" with room to load eight bytes: V8's
		 * compact arrays, with the fewest tests */
		if (!first && end - p >= 10 && *p == ',') {
			q = p + 1;
			neg = *q == '-';
			q += neg;
			uint64_t x = load64(q), m = nondigit_mask(x);

			k = (size_t)(__builtin_ctzll(m | (UINT64_C(1) << 63)) >> 3);
			if (m && k && !(cls[q[k]] & C_NUMTAIL) && (*q != '0' || k == 1)) {
				x = (x << (8 * (8 - k))) & UINT64_C(0x0f0f0f0f0f0f0f0f);
				x = (x * 10 + (x >> 8)) & UINT64_C(0x00ff00ff00ff00ff);
				x = (x * 100 + (x >> 16)) & UINT64_C(0x0000ffff0000ffff);
				v = (x * 10000 + (x >> 32)) & UINT64_C(0xffffffff);
				out[n++] = neg ? -(int64_t)v : (int64_t)v;
				tok = p + 1;
				p = q + k;
				continue;
			}
			q = p;
		}
#endif
		if (!first) {
			if (q < end && (cls[*q] & C_WS))
				q = skip_ws(q, end);
			if (q >= end || *q != ',')
				break;
			q++;
		}
		if (q < end && (cls[*q] & C_WS))
			q = skip_ws(q, end);
		const unsigned char *s = q;
		neg = q < end && *q == '-';
		q += neg;
#ifdef JSON_SWAR
		if (end - q >= 8) {
			/* 1 to 7 digits and the byte after them in one load: the
			 * common case, without a branch per digit */
			uint64_t x = load64(q), m = nondigit_mask(x);

			if (!m)
				goto long_number;
			k = (size_t)(__builtin_ctzll(m) >> 3);
			if (k == 0 || (cls[q[k]] & C_NUMTAIL) || (*q == '0' && k > 1))
				break;
			x = (x << (8 * (8 - k))) & UINT64_C(0x0f0f0f0f0f0f0f0f);
			x = (x * 10 + (x >> 8)) & UINT64_C(0x00ff00ff00ff00ff);
			x = (x * 100 + (x >> 16)) & UINT64_C(0x0000ffff0000ffff);
			v = (x * 10000 + (x >> 32)) & UINT64_C(0xffffffff);
			goto have;
		}
long_number:
#endif
		for (k = 0; q + k < end && k < 19 && (cls[q[k]] & C_DIGIT); k++)
			v = v * 10 + (uint64_t)(q[k] - '0');
		/* at most 18 digits (no overflow), a byte after them that
		 * cannot continue a number, no leading zero but "0" itself */
		if (k == 0 || k > 18 || q + k >= end || (cls[q[k]] & C_NUMTAIL) ||
		    (*q == '0' && k > 1))
			break;
#ifdef JSON_SWAR
have:
#endif
		out[n++] = neg ? -(int64_t)v : (int64_t)v;
		tok = s;
		p = q + k;
		first = false;
	}
	if (n) {
		j->tokpos = (size_t)(tok - base);
		j->pos = (size_t)(p - base);
		j->str = (const char *)tok;
		j->len = (size_t)(p - tok);
		j->state = ST_AFTER;
	}
	return n;
}

/* Digits of an unsigned number at P (at most 9, no leading zero but "0"
 * itself) ending with the byte STOP; P past the stop, or NULL. */
static inline const unsigned char *pair_digits(const unsigned char *p, const unsigned char *end,
					       unsigned char stop, uint32_t *out)
{
	const unsigned char *q = p;
	uint32_t v = 0;

	while (q < end && q - p < 10 && (cls[*q] & C_DIGIT))
		v = v * 10 + (uint32_t)(*q++ - '0');
	if (q == p || q - p > 9 || q >= end || *q != stop || (*p == '0' && q - p > 1))
		return NULL;
	*out = v;
	return q + 1;
}

/* "KEY": at P; P past the colon, or NULL. */
static inline const unsigned char *pair_key(const unsigned char *p, const unsigned char *end,
					    const char *key, size_t n)
{
	if ((size_t)(end - p) < n + 3 || p[0] != '"' || memcmp(p + 1, key, n) != 0 ||
	    p[n + 1] != '"' || p[n + 2] != ':')
		return NULL;
	return p + n + 3;
}

bool json_int_pair(struct json *j, const char *ka, const char *kb, uint32_t *a, uint32_t *b)
{
	if ((j->state != ST_AFTER && j->state != ST_ARRAY_FIRST) || j->depth == 0 ||
	    j->depth >= j->max_depth || in_object(j))
		return false;
	const unsigned char *base = j->buf, *end = base + j->size;
	const unsigned char *p = skip_ws(base + j->pos, end);
	if (j->state == ST_AFTER) {
		if (p >= end || *p != ',')
			return false;
		p = skip_ws(p + 1, end);
	}
	const unsigned char *start = p;
	if (p >= end || *p != '{' || !(p = pair_key(p + 1, end, ka, strlen(ka))) ||
	    !(p = pair_digits(p, end, ',', a)) || !(p = pair_key(p, end, kb, strlen(kb))) ||
	    !(p = pair_digits(p, end, '}', b)))
		return false;
	j->tokpos = (size_t)(start - base);
	j->pos = (size_t)(p - base);
	j->str = "";
	j->len = 0;
	j->state = ST_AFTER;
	return true;
}

const unsigned char *json_element(const struct json *j, uint32_t levels, const unsigned char **end)
{
	if (j->more || (j->state != ST_AFTER && j->state != ST_ARRAY_FIRST) || j->depth == 0 ||
	    levels > j->max_depth || j->depth > j->max_depth - levels || in_object(j))
		return NULL;
	const unsigned char *base = j->buf, *e = base + j->size;
	const unsigned char *p = skip_ws(base + j->pos, e);
	if (j->state == ST_AFTER) {
		if (p >= e || *p != ',')
			return NULL;
		p = skip_ws(p + 1, e);
	}
	if (p >= e || *p == ']')
		return NULL;
	*end = e;
	return p;
}

void json_element_done(struct json *j, const unsigned char *at, const unsigned char *end)
{
	j->tokpos = (size_t)(at - j->buf);
	j->pos = (size_t)(end - j->buf);
	j->str = "";
	j->len = 0;
	j->state = ST_AFTER;
}

void json_value_done(struct json *j, const unsigned char *end)
{
	close_level(j, end - 1, 0);
}

const unsigned char *json_plain_end(const unsigned char *p, const unsigned char *end)
{
	return scan_plain(p, end);
}

int json_skip(struct json *j, int t)
{
	uint32_t depth;

	if (t != JSON_OBJECT_BEGIN && t != JSON_ARRAY_BEGIN)
		return t == JSON_ERROR || j->state == ST_ERROR ? JSON_ERROR : t;
	if (j->state == ST_ERROR)
		return JSON_ERROR;
	depth = j->depth - 1;
	for (;;) {
		int k = j->more ? next_chunked(j, false) : next_token(j, false);

		if (k == JSON_ERROR)
			return JSON_ERROR;
		if ((k == JSON_OBJECT_END || k == JSON_ARRAY_END) && j->depth == depth)
			return t;
	}
}

/* ---- conversions ---- */

/* json_int64() and json_double() leave the parser usable when they fail:
 * the caller may try the other conversion on the same token. */
static bool conv_fail(struct json *j, const char *msg)
{
	j->err = msg;
	j->errpos = j->base + j->tokpos;
	return false;
}

/*
 * A number with a fraction or an exponent, or many digits.  Its value is the
 * digit string D (integer digits, then fraction digits) times
 * 10^(exponent - fraction length).  Leading zeros of D change nothing; a
 * negative power must be absorbed by trailing zeros of D, else the number
 * has a fractional part.
 */
static __attribute__((noinline)) bool int64_slow(struct json *j, int64_t *out)
{
	const unsigned char *p = (const unsigned char *)j->str;
	const unsigned char *end = p + j->len;
	const unsigned char *d[2] = { NULL, NULL }, *de[2] = { NULL, NULL };
	bool neg = false;
	uint64_t v = 0, lim;
	int64_t exp = 0, e;
	size_t total, nz = 0, lead = 0, keep, i;
	int k;

	if (p < end && *p == '-') {
		neg = true;
		p++;
	}
	/* The magnitude limit: 2^63 - 1, or 2^63 for a negative number. */
	lim = neg ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX;
	if (p >= end || !(cls[*p] & C_DIGIT))
		return conv_fail(j, "not a number");
	d[0] = p;
	while (p < end && (cls[*p] & C_DIGIT))
		p++;
	de[0] = p;
	if (p < end && *p == '.') {
		d[1] = ++p;
		while (p < end && (cls[*p] & C_DIGIT))
			p++;
		de[1] = p;
	}
	if (p < end && (*p == 'e' || *p == 'E')) {
		bool eneg = false;

		p++;
		if (p < end && (*p == '+' || *p == '-'))
			eneg = *p++ == '-';
		/* Saturates: such a power gives 0, or leaves int64 anyway. */
		for (; p < end && (cls[*p] & C_DIGIT); p++)
			if (exp < 100000000)
				exp = exp * 10 + (*p - '0');
		if (eneg)
			exp = -exp;
	}
	if (p != end)
		return conv_fail(j, "not a number");

	total = (size_t)(de[0] - d[0]) + (size_t)(de[1] - d[1]);
	e = exp - (int64_t)(de[1] - d[1]);
	for (k = 1; k >= 0; k--) {
		const unsigned char *r = de[k];

		while (r > d[k] && r[-1] == '0') {
			r--;
			nz++;
		}
		if (r > d[k])
			break;
	}
	if (nz == total) {
		*out = 0;
		return true;
	}
	for (k = 0; k < 2; k++) {
		const unsigned char *r = d[k];

		while (r < de[k] && *r == '0') {
			r++;
			lead++;
		}
		if (r < de[k])
			break;
	}
	keep = total;
	if (e < 0) {
		if ((uint64_t)-e > nz)
			return conv_fail(j, "number is not an integer");
		keep = total - (size_t)-e;
		e = 0;
	}
	/* D has a nonzero digit in [lead, keep), so V ends up at least 1 and
	 * the loop over E stops within 19 rounds. */
	i = 0;
	for (k = 0; k < 2; k++) {
		const unsigned char *r;

		for (r = d[k]; r < de[k]; r++, i++) {
			unsigned dig = (unsigned)(*r - '0');

			if (i < lead || i >= keep)
				continue;
			if (v > (lim - dig) / 10)
				return conv_fail(j, "integer out of range");
			v = v * 10 + dig;
		}
	}
	for (; e > 0; e--) {
		if (v > lim / 10)
			return conv_fail(j, "integer out of range");
		v *= 10;
	}
	if (neg)
		*out = v == (uint64_t)INT64_MAX + 1 ? INT64_MIN : -(int64_t)v;
	else
		*out = (int64_t)v;
	return true;
}

bool json_int64(struct json *j, int64_t *out)
{
	const unsigned char *p = (const unsigned char *)j->str;
	const unsigned char *end = p + j->len;
	bool neg = false;
	uint64_t v = 0;

	/* The common case: up to 18 digits, which cannot overflow. */
	if (p < end && *p == '-') {
		neg = true;
		p++;
	}
	if (p == end || end - p > 18)
		return int64_slow(j, out);
#ifdef JSON_SWAR
	/* Up to eight digits at once, when eight bytes can be read: shifted
	 * so that the padding acts as leading zeros. */
	if (end - p <= 8 && (uintptr_t)p >= (uintptr_t)j->buf &&
	    (uintptr_t)p + 8 <= (uintptr_t)j->buf + j->size) {
		uint64_t x = load64(p);
		unsigned n = (unsigned)(end - p);
		uint64_t pad = n < 8 ? UINT64_C(0x3030303030303030) >> (8 * n) : 0;

		x <<= 8 * (8 - n);
		if (nondigit_mask(x | pad))
			return int64_slow(j, out);
		x &= UINT64_C(0x0f0f0f0f0f0f0f0f);
		x = (x * 10 + (x >> 8)) & UINT64_C(0x00ff00ff00ff00ff);
		x = (x * 100 + (x >> 16)) & UINT64_C(0x0000ffff0000ffff);
		x = (x * 10000 + (x >> 32)) & UINT64_C(0xffffffff);
		*out = neg ? -(int64_t)x : (int64_t)x;
		return true;
	}
#endif
	for (; p < end; p++) {
		unsigned dig = (unsigned)(*p - '0');

		if (dig > 9)
			return int64_slow(j, out);
		v = v * 10 + dig;
	}
	*out = neg ? -(int64_t)v : (int64_t)v;
	return true;
}

bool json_double(struct json *j, double *out)
{
	char small[64], *s = small, *endp;
	const char *dp = localeconv()->decimal_point;
	size_t n = j->len, dplen = strlen(dp), i, o = 0;
	double d;

	if (!n)
		return conv_fail(j, "not a number");
	/* strtod() wants a terminated string in the current locale's form. */
	if (n + dplen + 1 > sizeof(small)) {
		s = malloc(n + dplen + 1);
		if (!s)
			return conv_fail(j, "out of memory");
	}
	for (i = 0; i < n; i++) {
		if (j->str[i] == '.') {
			memcpy(s + o, dp, dplen);
			o += dplen;
		} else {
			s[o++] = j->str[i];
		}
	}
	s[o] = '\0';
	d = strtod(s, &endp);
	if (endp != s + o) {
		if (s != small)
			free(s);
		return conv_fail(j, "not a number");
	}
	if (s != small)
		free(s);
	*out = d;
	return true;
}

/* ---- a look at the first bytes ---- */

struct once {
	const void *buf;
	size_t len;
	bool given;
};

static bool give_once(void *ctx, const void **buf, size_t *len)
{
	struct once *o = ctx;
	if (o->given)
		return false;
	o->given = true;
	*buf = o->buf;
	*len = o->len;
	return true;
}

bool json_is_prefix(const void *buf, size_t len, size_t *erroff)
{
	struct once o = {buf, len, false};
	struct json j;
	bool ok;
	json_init_chunked(&j, give_once, &o, 0);
	for (;;) {
		int t = json_next(&j);
		if (t == JSON_END || t == JSON_ERROR) {
			ok = t == JSON_END || json_read_failed(&j);
			if (!ok && erroff)
				*erroff = json_error_offset(&j);
			break;
		}
	}
	json_release(&j);
	return ok;
}

/* ---- strings left raw ---- */

int json_next_raw(struct json *j, bool *escaped)
{
	*escaped = false;
	if (j->more)
		return next_chunked(j, true);
	/* parse_string() without decoding points j.str at the string only
	 * when it has no escape */
	j->str = NULL;
	int t = next_token(j, false);
	if (t == JSON_STRING) {
		const char *raw = (const char *)j->buf + j->tokpos + 1;
		size_t len = j->pos - j->tokpos - 2;

		*escaped = !(j->str == raw && j->len == len);
		j->str = raw;
		j->len = len;
	} else if (t == JSON_KEY && !j->str) {
		/* a key with escapes: decoded, as json_next() has it */
		j->pos = j->tokpos;
		j->state = ST_OBJECT_FIRST;
		t = next_token(j, true);
	}
	return t;
}

size_t json_unescape(const char *raw, size_t len, char *out)
{
	const char *p = raw, *end = raw + len;
	size_t o = 0;

	while (p < end) {
		const char *b = memchr(p, '\\', (size_t)(end - p));
		size_t n = (size_t)((b ? b : end) - p);

		memmove(out + o, p, n);
		o += n;
		if (!b)
			break;
		p = b;
		if (end - p < 2)
			break; /* not from json_next_raw() */
		char c = p[1];
		unsigned cp;

		switch (c) {
		case 'b':
			out[o++] = '\b';
			p += 2;
			continue;
		case 'f':
			out[o++] = '\f';
			p += 2;
			continue;
		case 'n':
			out[o++] = '\n';
			p += 2;
			continue;
		case 'r':
			out[o++] = '\r';
			p += 2;
			continue;
		case 't':
			out[o++] = '\t';
			p += 2;
			continue;
		case 'u':
			break;
		default:
			out[o++] = c;
			p += 2;
			continue;
		}
		if (end - p < 6)
			break;
		cp = (unsigned)hex4((const unsigned char *)p + 2);
		p += 6;
		if (cp >= 0xd800 && cp <= 0xdbff && end - p >= 6 && p[0] == '\\' && p[1] == 'u') {
			cp = 0x10000 + ((cp - 0xd800) << 10) +
			     ((unsigned)hex4((const unsigned char *)p + 2) - 0xdc00);
			p += 6;
		}
		o += put_utf8(out + o, cp);
	}
	return o;
}
