/* jswalk_ref.h: the walk from a byte to a line and UTF-16 column as
 * ECMA-426 counts positions, one character at a time: what pp_js_walk_to()
 * and pp_js_walk_marks() must equal however they go faster.  For
 * test_jstoken.c and fuzz_jstoken.c. */
#ifndef JSWALK_REF_H
#define JSWALK_REF_H

#include <stddef.h>

#include "jstoken.h"

/* Walks W on from W->at to byte E of S (LEN bytes). */
static void walk_ref(const char *s, size_t len, size_t e, struct pp_js_walk *w)
{
	while (w->at < e) {
		unsigned char c = (unsigned char)s[w->at];
		size_t k = c < 0x80 ? 1 : c < 0xe0 ? 2 : c < 0xf0 ? 3 : 4;
		if (c == '\n' || (c == '\r' && !(w->at + 1 < len && s[w->at + 1] == '\n')) ||
		    (c == 0xe2 && w->at + 2 < len && (unsigned char)s[w->at + 1] == 0x80 &&
		     ((unsigned char)s[w->at + 2] == 0xa8 || (unsigned char)s[w->at + 2] == 0xa9))) {
			w->line++;
			w->col = 0;
			w->at += c == 0xe2 ? 3 : 1;
			continue;
		}
		w->col += k == 4 ? 2 : 1;
		w->at += k;
	}
}

#endif
