/* naming.c: a frame's printed name at each granularity, as pprof's
 * NodeInfo.NameComponents builds it after dropping what the granularity
 * does not keep. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "model_private.h"

/* The folded format's separators made harmless, in place. */
static void make_harmless(char *d, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		char c = d[i];
		d[i] = c == ';' ? ':' : (c == '\n' || c == '\r') ? ' ' : c;
	}
}

/* Appends S with the folded format's separators made harmless. */
static bool add_clean(struct pp_buf *b, const char *s, size_t n)
{
	if (!pp_buf_grow(b, n))
		return false;
	char *d = b->s + b->len;
	memcpy(d, s, n);
	make_harmless(d, n);
	b->len += n;
	b->s[b->len] = '\0';
	return true;
}

/* A URL's "scheme:" (RFC 3986: a letter, then letters, digits, "+", "-",
 * "."), of two characters at least so that a drive letter is not one. */
static bool has_scheme(const char *s, size_t n)
{
	size_t i = 0;
	if (n == 0 || !((s[0] | 0x20) >= 'a' && (s[0] | 0x20) <= 'z'))
		return false;
	for (i = 1; i < n; i++) {
		char c = s[i];
		bool alpha = (c | 0x20) >= 'a' && (c | 0x20) <= 'z';
		if (!alpha && !(c >= '0' && c <= '9') && c != '+' && c != '-' && c != '.')
			break;
	}
	return i >= 2 && i < n && s[i] == ':';
}

/* Appends file name S as pprof prints it: through Go's filepath.Clean
 * (slashes collapsed, "." and ".." segments folded, no trailing slash),
 * unless it starts with a scheme (webpack://app/x.ts, file:///x.js stay). */
static bool add_file(struct pp_buf *b, const char *s, size_t n)
{
	if (n == 0 || has_scheme(s, n))
		return add_clean(b, s, n);
	if (!pp_buf_grow(b, n + 1)) /* the result is never longer, or "." */
		return false;
	char *d = b->s + b->len;
	bool rooted = s[0] == '/';
	size_t r = 0, w = 0, dotdot = 0; /* dotdot: where ".." can no longer go back */
	if (rooted) {
		d[w++] = '/';
		r = dotdot = 1;
	}
	while (r < n) {
		if (s[r] == '/') {
			r++;
		} else if (s[r] == '.' && (r + 1 == n || s[r + 1] == '/')) {
			r++;
		} else if (s[r] == '.' && s[r + 1] == '.' && (r + 2 == n || s[r + 2] == '/')) {
			r += 2;
			if (w > dotdot) {
				w--;
				while (w > dotdot && d[w] != '/')
					w--;
			} else if (!rooted) {
				if (w > 0)
					d[w++] = '/';
				d[w++] = '.';
				d[w++] = '.';
				dotdot = w;
			}
		} else {
			if (w != (rooted ? 1 : 0))
				d[w++] = '/';
			while (r < n && s[r] != '/')
				d[w++] = s[r++];
		}
	}
	if (w == 0)
		d[w++] = '.';
	make_harmless(d, w);
	b->len += w;
	b->s[b->len] = '\0';
	return true;
}

static bool sep(struct pp_buf *b, bool *first)
{
	if (*first) {
		*first = false;
		return true;
	}
	return pp_buf_addc(b, ' ');
}

bool pp_frame_name(const struct pprof_profile *p, uint32_t frame,
		   enum pprof_granularity g, struct pp_buf *b)
{
	const struct pp_frame *f = &p->frames[frame];
	bool use_name = g != PPROF_G_FILES;
	bool use_file = g != PPROF_G_FUNCTIONS;
	bool use_line = g == PPROF_G_LINES || g == PPROF_G_ADDRESSES;
	bool use_addr = g == PPROF_G_ADDRESSES && (f->flags & PP_FRAME_HAS_ADDRESS);
	uint32_t name = use_name && !(f->flags & PP_FRAME_NO_SYMBOL) ? f->name : 0;
	uint32_t file = use_file ? f->file : 0;
	int64_t line = use_line ? (f->at_line ? f->at_line : f->line) : 0; /* with no file: "NAME :LINE", as pprof */
	bool first = true;
	bool ok = true;

	if (use_addr && f->address) {
		ok = ok && pp_buf_addf(b, "%016llx", (unsigned long long)f->address);
		first = false;
	}
	if (name) {
		ok = ok && sep(b, &first) && add_clean(b, pp_str(p, name), pp_strlen(p, name));
	}
	if (line) {
		ok = ok && sep(b, &first) &&
		     (!file || add_file(b, pp_str(p, file), pp_strlen(p, file))) &&
		     pp_buf_addf(b, ":%lld", (long long)line);
	} else if (file) {
		ok = ok && sep(b, &first) && add_file(b, pp_str(p, file), pp_strlen(p, file));
	} else if (name) {
		/* the name alone */
	} else if (f->mapping) {
		ok = ok && sep(b, &first) && pp_buf_addc(b, '[') &&
		     add_clean(b, pp_str(p, f->mapping), pp_strlen(p, f->mapping)) &&
		     pp_buf_addc(b, ']');
	} else {
		ok = ok && sep(b, &first) && pp_buf_add(b, "<unknown>", 9);
	}
	return ok;
}

/* At function granularity a frame with a symbol is named by its function
 * name alone: frames of one function (the lines of a profile at line level,
 * 349k frames for 5k names on the bench pprof) are named and interned once,
 * by name string (MEMO: its interned name + 1). */
int pp_frame_names(struct pprof_profile *p, enum pprof_granularity g, uint32_t *out)
{
	uint32_t nstrs = p->nstrs; /* frames' names are among these */
	uint32_t *memo = NULL;
	if (g == PPROF_G_FUNCTIONS && !(memo = calloc(nstrs ? nstrs : 1, sizeof(*memo))))
		return pp_nomem(p);
	struct pp_buf b;
	pp_buf_init(&b);
	int s = PPROF_OK;
	out[0] = 0;
	for (uint32_t i = 1; i < p->nframes && s == PPROF_OK; i++) {
		const struct pp_frame *f = &p->frames[i];
		bool by_name = memo && f->name && !(f->flags & PP_FRAME_NO_SYMBOL) &&
			       f->name < nstrs;
		if (by_name && memo[f->name]) {
			out[i] = memo[f->name] - 1;
			continue;
		}
		pp_buf_reset(&b);
		if (!pp_frame_name(p, i, g, &b))
			s = pp_nomem(p);
		else if ((s = pp_intern(p, b.s, b.len, &out[i])) == PPROF_OK && by_name)
			memo[f->name] = out[i] + 1;
	}
	pp_buf_release(&b);
	free(memo);
	return s;
}
