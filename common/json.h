/*
 * json.h: a strict (RFC 8259) pull parser over a buffer in memory.
 *
 * Private to the project's libraries (libpprof, libsourcemap); not
 * installed.  It never recurses on input-controlled depth: nesting is kept
 * as a bit stack, bounded by max_depth.  Errors carry the byte offset.
 *
 *	struct json j;
 *	json_init(&j, buf, len, 0);
 *	for (;;) {
 *		int t = json_next(&j);
 *		if (t == JSON_ERROR) -> json_error(&j), json_error_offset(&j)
 *		if (t == JSON_END) break;
 *		...
 *	}
 *	json_release(&j);
 *
 * Chunked mode: the parser pulls its input from a callback, piece by piece,
 * so a big document need not be in memory at once.  Tokens (a string, a
 * number) may span pieces; offsets (json_offset(), json_error_offset()) are
 * from the start of the whole input; the grammar, the bit stack and the
 * depth limit are those of the whole-buffer mode, and so are the tokens and
 * the errors (message and offset) on the same bytes:
 *
 *	static bool more(void *ctx, const void **buf, size_t *len)
 *	{
 *		// the next piece into *buf / *len (0: the end of the input),
 *		// valid until the next call; false: reading failed
 *		...
 *	}
 *	struct json j;
 *	json_init_chunked(&j, more, ctx, 0);
 *	... json_next(&j) as above ...
 *	json_release(&j);
 *
 * The parser copies the pieces into a window of its own, which holds the
 * token being read (it grows to the longest token, not to the document).
 * When MORE fails the parser fails with "read error" (json_read_failed()
 * tells it apart), at the offset reached.
 *
 * After JSON_KEY or JSON_STRING, j.str / j.len hold the decoded string
 * (UTF-8, escapes resolved; j.str points into the input when the string had
 * no escapes, else into a scratch buffer valid until the next call; in
 * chunked mode it is always valid only until the next call).  The
 * string is not NUL-terminated.  After JSON_NUMBER, j.str / j.len hold the
 * number's text; json_int64() and json_double() convert it.
 */
#ifndef PP_JSON_H
#define PP_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum json_token {
	JSON_ERROR = -1,
	JSON_END = 0, /* the one top-level value is complete, only whitespace after it */
	JSON_OBJECT_BEGIN,
	JSON_OBJECT_END,
	JSON_ARRAY_BEGIN,
	JSON_ARRAY_END,
	JSON_KEY,
	JSON_STRING,
	JSON_NUMBER,
	JSON_TRUE,
	JSON_FALSE,
	JSON_NULL,
};

struct json {
	/* read-only for the caller */
	const char *str; /* current key, string or number text */
	size_t len;
	uint32_t depth; /* current nesting depth (0 at top level) */

	/* private */
	const unsigned char *buf; /* the input, or the window in chunked mode */
	size_t size, pos, tokpos;
	size_t base; /* offset of buf[0] in the input */
	uint32_t max_depth;
	uint64_t *stack; /* bit per level: 1 = object, 0 = array */
	size_t stackcap; /* in 64-bit words */
	int state;
	char *scratch;
	size_t scratchcap;
	const char *err;
	size_t errpos;
	/* chunked mode */
	bool (*more)(void *ctx, const void **buf, size_t *len);
	void *ctx;
	unsigned char *win;
	size_t wincap;
	bool eof, shortin, readerr;
	size_t pin; /* json_pin(): kept in the window from this offset */
	bool pinned;
};

/* MAX_DEPTH 0 means the default, 1,000,000 levels. */
void json_init(struct json *j, const void *buf, size_t len, uint32_t max_depth);
/* Chunked mode: the input comes from MORE(CTX, ...) (see above). */
void json_init_chunked(struct json *j, bool (*more)(void *ctx, const void **buf, size_t *len),
		       void *ctx, uint32_t max_depth);
void json_release(struct json *j);
/* The last error is MORE's failure ("read error"), not the input's. */
bool json_read_failed(const struct json *j);
/* BUF[0 .. LEN) is a JSON text, or the start of one: no error but the end
 * of the bytes (for a bid on the first bytes of an input).  When not,
 * *ERROFF (if not NULL) receives the offset of the error. */
bool json_is_prefix(const void *buf, size_t len, size_t *erroff);

/* Offsets reported from now on (json_offset(), json_error_offset()) are
 * BASE plus the position in the buffer: for a parser over a slice of a
 * larger input, whose offsets the messages name. */
void json_set_base(struct json *j, size_t base);

/* Chunked mode keeps in its window only the token being read.  json_pin()
 * keeps the input from offset AT on (AT no earlier than the start of the
 * last token returned) until json_unpin(), so that json_bytes() can hand
 * out a value that was skipped: the window grows to hold it.  Nothing to
 * do in whole-buffer mode. */
void json_pin(struct json *j, size_t at);
void json_unpin(struct json *j);
/* The input's bytes [AT, AT + LEN), or NULL when they are not in the
 * buffer (chunked mode: bytes not pinned, or not read yet).  Valid until
 * the next json_next() or json_skip(). */
const unsigned char *json_bytes(const struct json *j, size_t at, size_t len);

/* The next token.  JSON_ERROR is sticky. */
int json_next(struct json *j);

/* json_next(), with a fast path for the elements of an array of unsigned
 * integers: when the token is a number of at most 9 digits, *HAVE is set
 * and *OUT is its value (else *HAVE is false; the token is json_next()'s). */
int json_next_u32(struct json *j, uint32_t *out, bool *have);

/* Reads on in the current array while its elements are plain integers (an
 * optional '-', 1 to 18 digits, no fraction or exponent): up to MAX of
 * them into OUT, as MAX calls of json_next() and json_int64() would.  The
 * parser is left after the last one read, as after json_next() returned
 * it (json_offset(), j.str name it).  Returns how many were read: fewer
 * than MAX when the next token is anything else (the array's end, another
 * number, an error), which json_next() then reads as always.  0 when the
 * parser is not inside an array. */
size_t json_ints(struct json *j, int64_t *out, size_t max);

/* When the next element of the current array is the object
 * {"KA":A,"KB":B} written without white space inside it (the keys without
 * escapes, A and B of 1 to 9 digits), reads it whole into *A and *B and
 * returns true: json_offset() is then the offset of its '{'.  Otherwise
 * returns false and reads nothing.  (V8's positionTicks entries.) */
bool json_int_pair(struct json *j, const char *ka, const char *kb, uint32_t *a, uint32_t *b);

/* Whole-buffer mode, for a caller that reads an array's elements itself
 * from the bytes (a fast path for one layout, falling back on json_next()
 * for anything else):
 *
 * json_element() gives the first byte of the current array's next
 * element (after the ',' and white space before it) and the end of the
 * buffer, without reading anything: NULL when the parser is not inside an
 * array before an element (at its end, after an error, chunked mode), or
 * when LEVELS more levels of nesting would pass the depth limit.
 * json_element_done() then says that the caller read that element, whole
 * and well-formed, from AT up to END (past its last byte): the parser goes
 * on after it as after json_next() returned (and json_skip() skipped) it,
 * json_offset() being AT's.  The caller vouches that the bytes are one
 * value as json_next() would have read it within the depth limit. */
const unsigned char *json_element(const struct json *j, uint32_t levels, const unsigned char **end);
void json_element_done(struct json *j, const unsigned char *at, const unsigned char *end);

/* Whole-buffer mode: the array or object whose JSON_ARRAY_BEGIN or
 * JSON_OBJECT_BEGIN was the last token returned was read by someone else
 * (another parser over the same bytes, which found it well-formed) up to
 * END, the byte past its closing bracket: the parser goes on from there as
 * after the matching JSON_ARRAY_END / JSON_OBJECT_END. */
void json_value_done(struct json *j, const unsigned char *end);

/* The first byte at or after P (before END) that a string cannot hold as
 * it is: '"', '\\', a control character or a byte >= 0x80; END when none. */
const unsigned char *json_plain_end(const unsigned char *p, const unsigned char *end);

/* json_next(), except that a string value is not decoded: after
 * JSON_STRING, j.str / j.len hold its text between the quotes as the input
 * has it (checked as json_next() checks it), and *ESCAPED tells whether it
 * has escapes (json_unescape() then decodes it).  For a long string kept
 * for later, most of which is never looked at (a source map's
 * sourcesContent).  In chunked mode it is json_next(), *ESCAPED false. */
int json_next_raw(struct json *j, bool *escaped);
/* Decodes RAW (LEN bytes), the text of a string json_next_raw() returned
 * with *ESCAPED set, into OUT, which has room for LEN bytes (the decoded
 * text is never longer).  Returns the decoded length. */
size_t json_unescape(const char *raw, size_t len, char *out);

/* Skips the value that starts with token T (the token json_next() just
 * returned): for OBJECT_BEGIN / ARRAY_BEGIN, up to and including the matching
 * end; for a scalar, nothing.  Returns T's kind, or JSON_ERROR. */
int json_skip(struct json *j, int t);

/* The current JSON_NUMBER as an integer.  False (and an error set) when it
 * has a fraction or exponent that does not give an integer, or leaves int64. */
bool json_int64(struct json *j, int64_t *out);
/* The current JSON_NUMBER as a double. */
bool json_double(struct json *j, double *out);

/* The current key or string equals the C string S. */
bool json_is(const struct json *j, const char *s);

/* Whether the parser has failed (JSON_ERROR was returned; it is sticky). */
bool json_failed(const struct json *j);

/* The error message ("expected ':' after object key") and its byte offset. */
const char *json_error(const struct json *j);
size_t json_error_offset(const struct json *j);
/* Byte offset of the start of the last token returned. */
size_t json_offset(const struct json *j);

#endif /* PP_JSON_H */
