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
 * After JSON_KEY or JSON_STRING, j.str / j.len hold the decoded string
 * (UTF-8, escapes resolved; j.str points into the input when the string had
 * no escapes, else into a scratch buffer valid until the next call).  The
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
	const unsigned char *buf;
	size_t size, pos, tokpos;
	uint32_t max_depth;
	uint64_t *stack; /* bit per level: 1 = object, 0 = array */
	size_t stackcap; /* in 64-bit words */
	int state;
	char *scratch;
	size_t scratchcap;
	const char *err;
	size_t errpos;
	size_t base; /* added to every offset reported */
};

/* MAX_DEPTH 0 means the default, 1,000,000 levels. */
void json_init(struct json *j, const void *buf, size_t len, uint32_t max_depth);
void json_release(struct json *j);

/* Offsets reported from now on (json_offset(), json_error_offset()) are
 * BASE plus the position in the buffer: for a parser over a slice of a
 * larger input, whose offsets the messages name. */
void json_set_base(struct json *j, size_t base);

/* The next token.  JSON_ERROR is sticky. */
int json_next(struct json *j);

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
