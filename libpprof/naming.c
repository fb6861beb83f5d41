/* naming.c: a frame's printed name at each granularity, as pprof's
 * NodeInfo.NameComponents builds it after dropping what the granularity
 * does not keep. */
#include "config.h"

#include <string.h>

#include "pprof_private.h"

/* Appends S with the folded format's separators made harmless. */
static bool add_clean(struct pp_buf *b, const char *s, size_t n)
{
	if (!pp_buf_grow(b, n))
		return false;
	char *d = b->s + b->len;
	for (size_t i = 0; i < n; i++) {
		char c = s[i];
		d[i] = c == ';' ? ':' : (c == '\n' || c == '\r') ? ' ' : c;
	}
	b->len += n;
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
	int64_t line = use_line && file ? (f->at_line ? f->at_line : f->line) : 0;
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
		ok = ok && sep(b, &first) && add_clean(b, pp_str(p, file), pp_strlen(p, file)) &&
		     pp_buf_addf(b, ":%lld", (long long)line);
	} else if (file) {
		ok = ok && sep(b, &first) && add_clean(b, pp_str(p, file), pp_strlen(p, file));
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
