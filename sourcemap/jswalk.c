/*
 * jswalk.c: the line and column of a byte of a JavaScript text, as
 * ECMA-426 counts them (0-based lines, UTF-16 columns), by walking the
 * text from a known place (jstoken.h).
 */
#include "jstoken.h"

#include <string.h>

#ifdef __SSE2__
#include <emmintrin.h>
#endif

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define LITTLE_ENDIAN_WORDS 1
#else
#define LITTLE_ENDIAN_WORDS 0
#endif

/* Walks W on in S up to byte E: a line ends at "\n", a lone "\r", LS and
 * PS (as ECMA-262 says); a 4-byte UTF-8 sequence is two UTF-16 units, any
 * other one.  The steps follow the lead bytes, so a walk to E and on to a
 * later E2 ends where a walk straight to E2 does. */
void pp_js_walk_to(const char *s, size_t len, size_t e, struct pp_js_walk *w)
{
	size_t at = w->at;
	uint32_t line = w->line, col = w->col;
	while (at < e) {
		unsigned char c = (unsigned char)s[at];
		if (c < 0x80 && c != '\n' && c != '\r') {
			/* a run of plain ASCII: one unit a byte, eight bytes at
			 * a time while none is a line end or >= 0x80 */
			size_t b = at++;
			const uint64_t ones = 0x0101010101010101u, high = 0x8080808080808080u;
#ifdef __SSE2__
			/* sixteen at a time, the same way; the last sixteen may
			 * reach past E (not past the text), their bits from E on
			 * left out: a walk from token to token ends there */
			const __m128i vcr = _mm_set1_epi8('\r'), vnl = _mm_set1_epi8('\n');
			while (at < e && at + 16 <= len) {
				__m128i x = _mm_loadu_si128((const __m128i *)(const void *)(s + at));
				if (_mm_movemask_epi8(x) | _mm_movemask_epi8(_mm_cmpeq_epi8(x, vcr)))
					break;
				unsigned nl = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(x, vnl));
				size_t step = e - at < 16 ? e - at : 16;
				nl &= (unsigned)((1u << step) - 1);
				if (nl) {
					b = at + (size_t)(31 - __builtin_clz(nl)) + 1;
					col = 0;
					for (; nl; nl &= nl - 1)
						line++;
				}
				at += step;
			}
#endif
			while (LITTLE_ENDIAN_WORDS && at + 8 <= e) {
				uint64_t x;
				memcpy(&x, s + at, 8);
				uint64_t cr = x ^ (ones * '\r');
				if ((x | ((cr - ones) & ~cr)) & high)
					break;
				/* "\n" bytes, exactly: a byte of y is 0 */
				uint64_t y = x ^ (ones * '\n'), low = ~high;
				uint64_t nl = ~(((y & low) + low) | y | low);
				if (nl) {
					/* the last "\n" of the eight starts the line */
					size_t last = (size_t)(63 - __builtin_clzll(nl)) / 8;
					line += (uint32_t)__builtin_popcountll(nl);
					col = 0;
					b = at + last + 1;
				}
				at += 8;
			}
			while (at < e && (unsigned char)s[at] < 0x80 && s[at] != '\n' &&
			       s[at] != '\r')
				at++;
			col += (uint32_t)(at - b);
			continue;
		}
		if (c == '\n') {
			line++;
			col = 0;
			at++;
			continue;
		}
		if (c == '\r' && !(at + 1 < len && s[at + 1] == '\n')) {
			line++;
			col = 0;
			at++;
			continue;
		}
		size_t k = c < 0x80 ? 1 : c < 0xe0 ? 2 : c < 0xf0 ? 3 : 4;
		if (c == 0xe2 && at + 2 < len && (unsigned char)s[at + 1] == 0x80 &&
		    ((unsigned char)s[at + 2] == 0xa8 || (unsigned char)s[at + 2] == 0xa9)) {
			line++; /* LS, PS end lines as ECMA-262 says */
			col = 0;
			at += 3;
			continue;
		}
		col += k == 4 ? 2 : 1;
		at += k;
	}
	w->at = at;
	w->line = line;
	w->col = col;
}

void pp_js_walk_marks(const char *s, size_t len, const struct pp_js_tok *t, size_t n, size_t step,
		      struct pp_js_walk *out)
{
	struct pp_js_walk w = {0, 0, 0};
	for (size_t i = 0; i < n; i += step) {
		pp_js_walk_to(s, len, t[i].off, &w);
		out[i / step] = w;
	}
}
