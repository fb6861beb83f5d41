/*
 * resolve.c: the name a source is shown by (DESIGN.md, "Decisions").
 *
 * sourceRoot joined to the source with a "/" only when needed, then "."
 * and ".." segments folded; ".." that would climb above the start is
 * dropped, so "../../src/a.ts" is "src/a.ts".  A scheme and authority
 * ("webpack://app/") stay as they are, and a source that is an absolute URL
 * is not put under sourceRoot.  There is no base URL: names stay relative,
 * as the map wrote them, which is what a user wants to read.
 */
#include "smap_private.h"

#include <string.h>

/* Length of a URL scheme with its ':' at the start of S, or 0.  One letter
 * is a Windows drive ("C:"), not a scheme. */
size_t pp_smap_scheme_len(const char *s)
{
	size_t i = 0;

	if (!((s[0] >= 'a' && s[0] <= 'z') || (s[0] >= 'A' && s[0] <= 'Z')))
		return 0;
	for (i = 1; s[i]; i++) {
		char c = s[i];

		if (c == ':')
			return i >= 2 ? i + 1 : 0;
		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		      (c >= '0' && c <= '9') || c == '+' || c == '-' || c == '.'))
			return 0;
	}
	return 0;
}

char *pp_smap_resolve(struct pp_smap_arena *a, const char *root,
		      const char *source)
{
	size_t rl = root ? strlen(root) : 0, sl = strlen(source), n, base, o,
	       i, sch;
	char *joined, *out;
	const char *p, *end;

	if (sl >= 5 && strncmp(source, "data:", 5) == 0)
		return pp_smap_strndup(a, source, sl);
	if (pp_smap_scheme_len(source) || rl == 0) {
		joined = pp_smap_strndup(a, source, sl);
		if (!joined)
			return NULL;
		n = sl;
	} else {
		bool rs = root[rl - 1] == '/', ss = source[0] == '/';

		joined = pp_smap_alloc(a, rl + sl + 2);
		if (!joined)
			return NULL;
		memcpy(joined, root, rl);
		n = rl;
		if (!rs && !ss)
			joined[n++] = '/';
		if (rs && ss) {
			source++;
			sl--;
		}
		memcpy(joined + n, source, sl);
		n += sl;
		joined[n] = '\0';
	}
	/* The prefix that folding keeps: "scheme://authority/", "scheme:",
	 * or "/" of an absolute path. */
	base = 0;
	sch = pp_smap_scheme_len(joined);
	if (sch) {
		base = sch;
		if (joined[base] == '/' && joined[base + 1] == '/') {
			const char *slash = strchr(joined + base + 2, '/');

			if (!slash)
				return joined;
			base = (size_t)(slash - joined) + 1;
		}
	} else if (joined[0] == '/') {
		base = 1;
	}
	out = pp_smap_alloc(a, n + 1);
	if (!out)
		return NULL;
	memcpy(out, joined, base);
	o = base;
	p = joined + base;
	end = joined + n;
	while (p < end) {
		const char *q = memchr(p, '/', (size_t)(end - p));
		size_t len;

		if (!q)
			q = end;
		len = (size_t)(q - p);
		if (len == 0 || (len == 1 && p[0] == '.')) {
			/* nothing */
		} else if (len == 2 && p[0] == '.' && p[1] == '.') {
			if (o > base) {
				for (i = o; i > base && out[i - 1] != '/'; i--)
					;
				o = i > base ? i - 1 : base;
			}
		} else {
			if (o > base)
				out[o++] = '/';
			memcpy(out + o, p, len);
			o += len;
		}
		p = q + 1;
	}
	out[o] = '\0';
	return out;
}
