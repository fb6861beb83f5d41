/* filter.c: go tool pprof's sample filters (focus, ignore, hide, show,
 * show_from, prune_from, tagfocus, tagignore, tagroot, tagleaf), the rename
 * rules of a rules file, and two of our own (collapse-recursion,
 * drop-idle), as one rewrite of the call tree.
 *
 * pprof filters Locations, and a Location is a run of frames here: the
 * reader puts its outermost Line first and flags the inlined ones after it.
 * Whether a location matches is whether one of its frames does, so most
 * filters decide per frame (a few thousand) and then per sample; show_from
 * and prune_from also trim inside each run, as pprof trims a Location's
 * Lines, so runs are tracked through the rewrite.
 *
 * The rewrite walks each aggregated sample's stack (iteratively, from the
 * node up), maps it through the filters and adds it to a fresh tree built
 * in a scratch profile; the fresh tree then replaces the old one.  Frames
 * made by renames and tag frames are interned in the profile itself. */
#include "config.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "filter_private.h"

bool pp_buf_add_line(struct pp_buf *b, const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		bool ok = c == '\n'   ? pp_buf_add(b, "\\n", 2)
			  : c == '\r' ? pp_buf_add(b, "\\r", 2)
			  : c < 0x20 || c == 0x7f ? pp_buf_addc(b, '?')
						  : pp_buf_addc(b, (char)c);
		if (!ok)
			return false;
	}
	return true;
}

/* ---- PCRE2 helpers ---- */

pcre2_code *pp_re_compile(const char *pattern, size_t len, int *err, size_t *erroff)
{
	PCRE2_SIZE off = 0;
	pcre2_code *re = pcre2_compile((PCRE2_SPTR)pattern, len,
				       PCRE2_UTF | PCRE2_MATCH_INVALID_UTF | PCRE2_DOLLAR_ENDONLY,
				       err, &off, NULL);
	if (!re) {
		*erroff = off;
		return NULL;
	}
	/* Without JIT support the interpreter still matches. */
	(void)pcre2_jit_compile(re, PCRE2_JIT_COMPLETE);
	return re;
}

bool pp_re_match(const pcre2_code *re, const char *s, size_t n, pcre2_match_data *md)
{
	/* 0 means "matched, ovector too small": still a match. */
	return pcre2_match(re, (PCRE2_SPTR)s, n, 0, 0, md, NULL) >= 0;
}

static bool is_word(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '_';
}

bool pp_re_template_ok(const pcre2_code *re, const char *t, char *msg, size_t size)
{
	uint32_t ngroups = 0;
	pcre2_pattern_info(re, PCRE2_INFO_CAPTURECOUNT, &ngroups);
	for (const char *s = t; *s; s++) {
		if (*s != '$')
			continue;
		s++;
		if (*s == '$')
			continue;
		bool brace = *s == '{';
		if (brace)
			s++;
		const char *b = s;
		while (is_word(*s))
			s++;
		size_t n = (size_t)(s - b);
		if (n == 0 || (brace && *s != '}')) {
			snprintf(msg, size, "bad group reference in replacement '%s'", t);
			return false;
		}
		if (!brace)
			s--;
		char name[128];
		if (n >= sizeof(name)) {
			snprintf(msg, size, "group name too long in replacement '%s'", t);
			return false;
		}
		memcpy(name, b, n);
		name[n] = '\0';
		if (b[0] >= '0' && b[0] <= '9') {
			char *end;
			unsigned long g = strtoul(name, &end, 10);
			if (*end != '\0') {
				snprintf(msg, size, "bad group reference in replacement '%s'", t);
				return false;
			}
			if (g > ngroups) {
				snprintf(msg, size, "replacement '%s' refers to group %lu; the regex has %u",
					 t, g, ngroups);
				return false;
			}
		} else if (pcre2_substring_number_from_name(re, (PCRE2_SPTR)name) < 0) {
			snprintf(msg, size, "replacement '%s' refers to no group named '%s'", t, name);
			return false;
		}
	}
	return true;
}

int pp_re_expand(const pcre2_code *re, const char *s, size_t n, const char *tmpl,
		 struct pp_buf *out)
{
	PCRE2_SIZE cap = 256;
	for (;;) {
		if (!pp_buf_grow(out, cap))
			return -1;
		PCRE2_SIZE len = cap;
		int rc = pcre2_substitute(re, (PCRE2_SPTR)s, n, 0,
					  PCRE2_SUBSTITUTE_REPLACEMENT_ONLY |
						  PCRE2_SUBSTITUTE_OVERFLOW_LENGTH |
						  PCRE2_SUBSTITUTE_UNSET_EMPTY,
					  NULL, NULL, (PCRE2_SPTR)tmpl, PCRE2_ZERO_TERMINATED,
					  (PCRE2_UCHAR *)out->s + out->len, &len);
		if (rc == PCRE2_ERROR_NOMEMORY) {
			cap = len + 1;
			continue;
		}
		if (rc <= 0)
			return 0; /* no match (templates were checked when loaded) */
		out->len += len;
		out->s[out->len] = '\0';
		return 1;
	}
}

/* ---- units: pp_unit_scale() (units.c) ---- */

/* VALUE in unit FROM scaled to unit TO; *U receives the unit it is in. */
static void scale(int64_t value, const char *from, const char *to, double *v, const char **u)
{
	*v = pp_unit_scale(value, from, to, u);
}

/* A numeric label as pprof prints it at its "minimum" unit: "1.50kB". */
static bool scaled_label(int64_t value, const char *unit, struct pp_buf *b)
{
	char num[160];
	size_t n = pprof_value_label(num, sizeof(num), value, unit, "minimum");
	return pp_buf_add(b, num, n < sizeof(num) ? n : sizeof(num) - 1);
}

/* ---- the filter object ---- */

enum tf_kind { TF_REGEX, TF_EQ, TF_GE, TF_LE, TF_RANGE };

/* One tagfocus or tagignore value, as pprof's compileTagFilter reads it. */
struct tagfilter {
	char *key; /* NULL: any key */
	enum tf_kind kind;
	double lo, hi;
	char *unit; /* the range's unit as scale() names it */
	pcre2_code **re;
	size_t nre;
};

struct rxlist {
	pcre2_code **v;
	size_t n;
};

enum { NRX = PPROF_FILTER_PRUNE_FROM + 1 };

struct pprof_filter {
	struct rxlist rx[NRX];
	struct tagfilter *tf[2]; /* tagfocus, tagignore */
	size_t ntf[2];
	char **keys[2]; /* tagroot, tagleaf */
	size_t nkeys[2];
	bool given[PPROF_FILTER_NOPTIONS];
	/* pprof's report legend: "name=value" of the sample filters, as given */
	char **legend[PPROF_FILTER_NOPTIONS];
	size_t nlegend[PPROF_FILTER_NOPTIONS];
	const struct pprof_rules *rules;
	struct pp_buf error;
};

static const char *const option_names[PPROF_FILTER_NOPTIONS] = {
	"focus",    "ignore",    "hide",    "show",	   "show-from",		 "prune-from",
	"tagfocus", "tagignore", "tagroot", "tagleaf", "collapse-recursion", "drop-idle",
};

const char *pprof_filter_option_name(enum pprof_filter_option o)
{
	return (unsigned)o < PPROF_FILTER_NOPTIONS ? option_names[o] : NULL;
}

int pprof_filter_option_parse(const char *name)
{
	for (int i = 0; i < PPROF_FILTER_NOPTIONS; i++) {
		const char *n = option_names[i];
		size_t k = 0;
		/* show_from and show-from alike, as pprof spells them */
		while (n[k] && (name[k] == n[k] || (n[k] == '-' && name[k] == '_')))
			k++;
		if (!n[k] && !name[k])
			return i;
	}
	return -1;
}

struct pprof_filter *pprof_filter_new(void)
{
	struct pprof_filter *f = calloc(1, sizeof(*f));
	if (f)
		pp_buf_init(&f->error);
	return f;
}

static void tagfilter_release(struct tagfilter *t)
{
	free(t->key);
	free(t->unit);
	for (size_t i = 0; i < t->nre; i++)
		pcre2_code_free(t->re[i]);
	free(t->re);
}

void pprof_filter_free(struct pprof_filter *f)
{
	if (!f)
		return;
	for (int i = 0; i < NRX; i++) {
		for (size_t k = 0; k < f->rx[i].n; k++)
			pcre2_code_free(f->rx[i].v[k]);
		free(f->rx[i].v);
	}
	for (int i = 0; i < 2; i++) {
		for (size_t k = 0; k < f->ntf[i]; k++)
			tagfilter_release(&f->tf[i][k]);
		free(f->tf[i]);
		for (size_t k = 0; k < f->nkeys[i]; k++)
			free(f->keys[i][k]);
		free(f->keys[i]);
	}
	for (int i = 0; i < PPROF_FILTER_NOPTIONS; i++) {
		for (size_t k = 0; k < f->nlegend[i]; k++)
			free(f->legend[i][k]);
		free(f->legend[i]);
	}
	pp_buf_release(&f->error);
	free(f);
}

const char *pprof_filter_error(const struct pprof_filter *f)
{
	return f->error.s;
}

static int ferr(struct pprof_filter *f, int status, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static int ferr(struct pprof_filter *f, int status, const char *fmt, ...)
{
	char tmp[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(tmp, sizeof(tmp), fmt, ap);
	va_end(ap);
	f->error.len = 0;
	/* Values quoted in messages may hold line breaks. */
	if (!pp_buf_add_line(&f->error, tmp, strlen(tmp)))
		f->error.len = 0;
	return status;
}

static int compile(struct pprof_filter *f, enum pprof_filter_option o, const char *pat,
		   size_t len, pcre2_code **out)
{
	int err;
	size_t off;
	*out = pp_re_compile(pat, len, &err, &off);
	if (*out)
		return PPROF_OK;
	if (err == PCRE2_ERROR_NOMEMORY)
		return ferr(f, PPROF_ENOMEM, "out of memory");
	PCRE2_UCHAR msg[256];
	pcre2_get_error_message(err, msg, sizeof(msg));
	return ferr(f, PPROF_EUSAGE, "bad %s regular expression '%.*s': %s at offset %zu",
		    option_names[o], (int)len, pat, (const char *)msg, off);
}

static bool push_ptr(void ***arr, size_t *n, void *v)
{
	void **a = realloc(*arr, (*n + 1) * sizeof(*a));
	if (!a)
		return false;
	a[(*n)++] = v;
	*arr = a;
	return true;
}

/* Finds up to two matches of pprof's range pattern ([+-]?digits letters?),
 * leftmost first, as regexp.FindAllStringSubmatch does. */
struct rmatch {
	size_t b, e;   /* the whole match */
	size_t numend; /* end of the number, start of the unit */
};

static size_t find_ranges(const char *s, struct rmatch m[2])
{
	size_t n = 0, i = 0, len = strlen(s);
#define DIGIT(c) ((c) >= '0' && (c) <= '9')
#define ALPHA(c) (((c) >= 'a' && (c) <= 'z') || ((c) >= 'A' && (c) <= 'Z'))
	while (i < len && n < 2) {
		size_t b = i;
		if ((s[i] == '+' || s[i] == '-') && i + 1 < len && DIGIT(s[i + 1]))
			i++;
		else if (!DIGIT(s[i])) {
			i++;
			continue;
		}
		while (i < len && DIGIT(s[i]))
			i++;
		m[n].b = b;
		m[n].numend = i;
		while (i < len && ALPHA(s[i]))
			i++;
		m[n++].e = i;
	}
#undef DIGIT
#undef ALPHA
	return n;
}

static bool parse_int(const char *s, size_t n, int64_t *out)
{
	char tmp[32];
	if (n >= sizeof(tmp))
		return false;
	memcpy(tmp, s, n);
	tmp[n] = '\0';
	char *end;
	errno = 0;
	long long v = strtoll(tmp, &end, 10);
	if (errno || *end)
		return false;
	*out = v;
	return true;
}

/* pprof's parseTagFilterRange: 1 when V is a range (filled in T), 0 when it
 * is to be read as regexes, -1 on a number out of range. */
static int parse_range(const char *v, struct tagfilter *t)
{
	struct rmatch m[2];
	size_t n = find_ranges(v, m);
	if (n == 0)
		return 0;
	size_t len = strlen(v);
	char u0[64], u1[64];
	int64_t a, b;
	size_t ul = m[0].e - m[0].numend;
	if (ul >= sizeof(u0))
		return 0;
	memcpy(u0, v + m[0].numend, ul);
	u0[ul] = '\0';
	if (!parse_int(v + m[0].b, m[0].numend - m[0].b, &a))
		return -1;
	const char *unit;
	scale(a, u0, u0, &t->lo, &unit);
	size_t ml = m[0].e - m[0].b;
	if (n == 1) {
		if (m[0].b == 0 && len == ml)
			t->kind = TF_EQ;
		else if (m[0].b == 0 && len == ml + 1 && v[ml] == ':')
			t->kind = TF_GE;
		else if (m[0].b == 1 && v[0] == ':' && len == ml + 1)
			t->kind = TF_LE;
		else
			return 0;
		t->hi = t->lo;
	} else {
		if (!(m[0].b == 0 && v[m[0].e] == ':' && m[1].b == m[0].e + 1 && m[1].e == len))
			return 0;
		ul = m[1].e - m[1].numend;
		if (ul >= sizeof(u1))
			return 0;
		memcpy(u1, v + m[1].numend, ul);
		u1[ul] = '\0';
		if (!parse_int(v + m[1].b, m[1].numend - m[1].b, &b))
			return -1;
		const char *unit2;
		scale(b, u1, unit, &t->hi, &unit2);
		if (strcmp(unit, unit2) != 0)
			return 0;
		t->kind = TF_RANGE;
	}
	t->unit = strdup(unit);
	return t->unit ? 1 : -2;
}

static int add_tagfilter(struct pprof_filter *f, enum pprof_filter_option o, const char *value)
{
	int which = o == PPROF_FILTER_TAGIGNORE;
	struct tagfilter t;
	memset(&t, 0, sizeof(t));
	const char *eq = strchr(value, '=');
	const char *v = value;
	if (eq) {
		t.key = strndup(value, (size_t)(eq - value));
		if (!t.key)
			return ferr(f, PPROF_ENOMEM, "out of memory");
		v = eq + 1;
	}
	int r = parse_range(v, &t);
	if (r == -1) {
		tagfilter_release(&t);
		return ferr(f, PPROF_EUSAGE, "bad %s range '%s': number out of range",
			    option_names[o], v);
	}
	if (r < 0) {
		tagfilter_release(&t);
		return ferr(f, PPROF_ENOMEM, "out of memory");
	}
	if (r == 0) {
		t.kind = TF_REGEX;
		const char *s = v;
		for (;;) {
			const char *c = strchr(s, ',');
			size_t n = c ? (size_t)(c - s) : strlen(s);
			pcre2_code *re;
			int st = compile(f, o, s, n, &re);
			if (st == PPROF_OK && !push_ptr((void ***)&t.re, &t.nre, re)) {
				pcre2_code_free(re);
				st = ferr(f, PPROF_ENOMEM, "out of memory");
			}
			if (st != PPROF_OK) {
				tagfilter_release(&t);
				return st;
			}
			if (!c)
				break;
			s = c + 1;
		}
	}
	struct tagfilter *a = realloc(f->tf[which], (f->ntf[which] + 1) * sizeof(*a));
	if (!a) {
		tagfilter_release(&t);
		return ferr(f, PPROF_ENOMEM, "out of memory");
	}
	a[f->ntf[which]++] = t;
	f->tf[which] = a;
	return PPROF_OK;
}

/* pprof's filters of samples and frames (driver_focus.go's applyFocus),
 * which it applies after the report has taken the total, and their names
 * in its legend ("Active filters:"); 0: not one of them, "": not shown. */
static const char *const pprof_legend_names[PPROF_FILTER_NOPTIONS] = {
	[PPROF_FILTER_FOCUS] = "focus",		[PPROF_FILTER_IGNORE] = "ignore",
	[PPROF_FILTER_HIDE] = "hide",		[PPROF_FILTER_SHOW] = "show",
	[PPROF_FILTER_SHOW_FROM] = "show_from", [PPROF_FILTER_PRUNE_FROM] = "",
	[PPROF_FILTER_TAGFOCUS] = "tagfocus",	[PPROF_FILTER_TAGIGNORE] = "tagignore",
};

static int add_legend(struct pprof_filter *f, enum pprof_filter_option o, const char *value)
{
	const char *name = pprof_legend_names[o];
	if (!name || !*name)
		return PPROF_OK;
	size_t n = strlen(name) + strlen(value) + 2;
	char *s = malloc(n);
	if (!s)
		return ferr(f, PPROF_ENOMEM, "out of memory");
	snprintf(s, n, "%s=%s", name, value);
	if (!push_ptr((void ***)&f->legend[o], &f->nlegend[o], s)) {
		free(s);
		return ferr(f, PPROF_ENOMEM, "out of memory");
	}
	return PPROF_OK;
}

int pprof_filter_add(struct pprof_filter *f, enum pprof_filter_option o, const char *value)
{
	if ((unsigned)o >= PPROF_FILTER_NOPTIONS)
		return ferr(f, PPROF_EUSAGE, "unknown filter option %d", (int)o);
	if (value && add_legend(f, o, value) != PPROF_OK)
		return PPROF_ENOMEM;
	if (o == PPROF_FILTER_COLLAPSE_RECURSION || o == PPROF_FILTER_DROP_IDLE) {
		f->given[o] = true;
		return PPROF_OK;
	}
	if (!value)
		return ferr(f, PPROF_EUSAGE, "%s needs a value", option_names[o]);
	if ((int)o < NRX) {
		pcre2_code *re;
		int st = compile(f, o, value, strlen(value), &re);
		if (st != PPROF_OK)
			return st;
		if (!push_ptr((void ***)&f->rx[o].v, &f->rx[o].n, re)) {
			pcre2_code_free(re);
			return ferr(f, PPROF_ENOMEM, "out of memory");
		}
		f->given[o] = true;
		return PPROF_OK;
	}
	if (o == PPROF_FILTER_TAGFOCUS || o == PPROF_FILTER_TAGIGNORE) {
		int st = add_tagfilter(f, o, value);
		if (st == PPROF_OK)
			f->given[o] = true;
		return st;
	}
	/* tagroot, tagleaf: comma-separated keys, empty ones dropped */
	int which = o == PPROF_FILTER_TAGLEAF;
	const char *s = value;
	for (;;) {
		const char *c = strchr(s, ',');
		size_t n = c ? (size_t)(c - s) : strlen(s);
		if (n) {
			char *k = strndup(s, n);
			if (!k || !push_ptr((void ***)&f->keys[which], &f->nkeys[which], k)) {
				free(k);
				return ferr(f, PPROF_ENOMEM, "out of memory");
			}
			f->given[o] = true;
		}
		if (!c)
			break;
		s = c + 1;
	}
	return PPROF_OK;
}

int pprof_filter_has(const struct pprof_filter *f, enum pprof_filter_option o)
{
	return (unsigned)o < PPROF_FILTER_NOPTIONS && f->given[o];
}

int pprof_filter_use_rules(struct pprof_filter *f, const struct pprof_rules *r)
{
	bool before[PPROF_FILTER_NOPTIONS];
	memcpy(before, f->given, sizeof(before));
	f->rules = r;
	for (size_t i = 0; i < r->ndefaults; i++) {
		const struct pp_rule_default *d = &r->defaults[i];
		if (before[d->opt])
			continue;
		int st = pprof_filter_add(f, d->opt, d->value);
		if (st != PPROF_OK) {
			char msg[1024];
			snprintf(msg, sizeof(msg), "%s (at line %lu, column %lu)", f->error.s, d->line,
				 d->column);
			return ferr(f, st, "%s", msg);
		}
	}
	return PPROF_OK;
}

int pprof_filter_is_empty(const struct pprof_filter *f)
{
	for (int i = 0; i < PPROF_FILTER_NOPTIONS; i++)
		if (f->given[i])
			return 0;
	return !f->rules || f->rules->nrenames == 0;
}

/* ---- applying ---- */

/* Per-frame match bits. */
enum {
	M_FOCUS = 1u << 0,
	M_IGNORE = 1u << 1,
	M_HIDE = 1u << 2,
	M_SHOW = 1u << 3,
	M_SHOWFROM = 1u << 4,     /* on the function or file name */
	M_SHOWFROM_MAP = 1u << 5, /* on the mapping: the whole location */
	M_PRUNE = 1u << 6,
	M_DONE = 1u << 7,
};

/* A frame of the stack being rewritten and the location (run) it is in. */
struct wf {
	uint32_t frame;
	uint32_t run;
};

/* What the rename of one original frame gave. */
struct renamed {
	uint32_t frame; /* 0: not computed yet */
	bool group;
};

struct applier {
	const struct pprof_filter *f;
	struct pprof_profile *p; /* frames and strings are interned here */
	struct pprof_profile *q; /* the new tree is built here */
	pcre2_match_data *md;
	struct pp_buf tmp, tmp2;

	struct renamed *ren; /* per original frame */
	uint32_t nold;       /* number of original frames */
	uint8_t *bits;       /* per frame of p, grown as frames are added */
	size_t capbits;

	/* tag frames per label set: tags[ls * ntag + k], 0 = not computed */
	uint32_t *tags;
	size_t ntag;
	int8_t *tagkeep; /* per label set: -1 unknown, 0 drop, 1 keep */
	struct {
		uint32_t key;
		const char *unit;
	} *units; /* numeric label keys and their units */
	size_t nunits;

	struct wf *w;
	size_t capw;
	uint32_t *path;
	size_t cappath;
	/* the previous stack inserted, to reuse its root-side part */
	uint32_t *prevf, *prevn;
	size_t prevlen, capprevf, capprevn;

	bool matched[PPROF_FILTER_NOPTIONS];
};

static bool rx_any(struct applier *A, const struct rxlist *l, const char *s, size_t n)
{
	for (size_t i = 0; i < l->n; i++)
		if (pp_re_match(l->v[i], s, n, A->md))
			return true;
	return false;
}

/* pprof's simplifyFunc: no leading '.', and no argument list from the first
 * '(' that does not open "(anonymous namespace)" or belong to "operator()". */
static size_t simplify_func(const char **s, size_t n)
{
	static const char anon[] = "(anonymous namespace)", op[] = "operator()";
	const char *b = *s;
	if (n && b[0] == '.') {
		b++;
		n--;
	}
	*s = b;
	for (size_t i = 0; i < n; i++) {
		if (n - i >= sizeof(anon) - 1 && memcmp(b + i, anon, sizeof(anon) - 1) == 0) {
			i += sizeof(anon) - 2;
			continue;
		}
		if (n - i >= sizeof(op) - 1 && memcmp(b + i, op, sizeof(op) - 1) == 0) {
			i += sizeof(op) - 2;
			continue;
		}
		if (b[i] == '(')
			return i;
	}
	return n;
}

static uint8_t frame_bits(struct applier *A, uint32_t id)
{
	struct pprof_profile *p = A->p;
	if (A->bits[id] & M_DONE)
		return A->bits[id];
	const struct pp_frame *fr = &p->frames[id];
	/* pprof matches the name and file of every Line's function, empty or
	 * not, and of a Location without Lines (which the reader makes a
	 * frame with nothing but a mapping) only the mapping's file. */
	bool lineless = !fr->name && !fr->file && !fr->line &&
			(fr->flags & PP_FRAME_NO_SYMBOL) && !(fr->flags & PP_FRAME_INLINED);
	const char *name = lineless ? NULL : pp_str(p, fr->name);
	const char *file = lineless ? NULL : pp_str(p, fr->file);
	/* A frame without a mapping has go tool pprof's fake one, with an
	 * empty file name, that a profile without mappings gets. */
	const char *map = pp_str(p, fr->mapping);
	size_t nl = pp_strlen(p, fr->name);
	size_t fl = pp_strlen(p, fr->file);
	size_t ml = pp_strlen(p, fr->mapping);
	uint8_t b = M_DONE;
	static const uint8_t bit[4] = {M_FOCUS, M_IGNORE, M_HIDE, M_SHOW};
	for (int o = 0; o < 4; o++) {
		const struct rxlist *l = &A->f->rx[o];
		if (l->n && ((name && rx_any(A, l, name, nl)) || (file && rx_any(A, l, file, fl)) ||
			     (map && rx_any(A, l, map, ml))))
			b |= bit[o];
	}
	/* show keeps a matching Location's Lines; one without has none. */
	if (lineless)
		b &= (uint8_t)~M_SHOW;
	const struct rxlist *sf = &A->f->rx[PPROF_FILTER_SHOW_FROM];
	if (sf->n) {
		if ((name && rx_any(A, sf, name, nl)) || (file && rx_any(A, sf, file, fl)))
			b |= M_SHOWFROM;
		if (map && rx_any(A, sf, map, ml))
			b |= M_SHOWFROM_MAP;
	}
	const struct rxlist *pf = &A->f->rx[PPROF_FILTER_PRUNE_FROM];
	if (pf->n && fr->name) {
		const char *s = name;
		size_t n = simplify_func(&s, nl);
		if (rx_any(A, pf, s, n))
			b |= M_PRUNE;
	}
	A->bits[id] = b;
	return b;
}

/* The frame original frame OLD becomes through the rename rules. */
static int rename_frame(struct applier *A, uint32_t old, struct renamed *out)
{
	struct pprof_profile *p = A->p;
	if (A->ren[old].frame) {
		*out = A->ren[old];
		return PPROF_OK;
	}
	struct pp_frame fr = p->frames[old];
	const struct pprof_rules *r = A->f->rules;
	bool group = false;
	for (size_t i = 0; r && i < r->nrenames; i++) {
		const struct pp_rename *rn = &r->renames[i];
		uint32_t subj = rn->in_file ? fr.file : fr.name;
		if (!subj)
			continue;
		const char *s = pp_str(p, subj);
		size_t n = pp_strlen(p, subj);
		if (!pp_re_match(rn->re, s, n, A->md))
			continue;
		/* The subject lives in p's arena, which interning may grow but
		 * never moves. */
		uint32_t name = fr.name, file = fr.file;
		if (rn->name) {
			A->tmp.len = 0;
			if (pp_re_expand(rn->re, s, n, rn->name, &A->tmp) < 0)
				return pp_nomem(p);
			int st = pp_intern(p, A->tmp.s, A->tmp.len, &name);
			if (st)
				return st;
		}
		if (rn->file) {
			A->tmp.len = 0;
			if (pp_re_expand(rn->re, s, n, rn->file, &A->tmp) < 0)
				return pp_nomem(p);
			int st = pp_intern(p, A->tmp.s, A->tmp.len, &file);
			if (st)
				return st;
			if (!file)
				fr.line = fr.column = fr.at_line = 0;
		} else if (rn->group) {
			file = 0;
		}
		fr.name = name;
		fr.file = file;
		if (name)
			fr.flags &= ~(uint32_t)PP_FRAME_NO_SYMBOL;
		else
			fr.flags |= PP_FRAME_NO_SYMBOL;
		if (rn->group) {
			group = true;
			fr.line = fr.column = fr.at_line = 0;
			fr.address = 0;
			fr.flags &= ~(uint32_t)(PP_FRAME_INLINED | PP_FRAME_HAS_ADDRESS);
		}
		break;
	}
	uint32_t id = old;
	if (memcmp(&fr, &p->frames[old], sizeof(fr)) != 0) {
		int st = pp_frame_intern(p, &fr, &id);
		if (st)
			return st;
	}
	A->ren[old].frame = id;
	A->ren[old].group = group;
	*out = A->ren[old];
	return PPROF_OK;
}

/* The unit pprof gives numeric label KEY (identifyNumLabelUnits). */
static const char *key_unit(struct applier *A, uint32_t key)
{
	for (size_t i = 0; i < A->nunits; i++)
		if (A->units[i].key == key)
			return A->units[i].unit;
	return "";
}

static int build_units(struct applier *A)
{
	struct pprof_profile *p = A->p;
	size_t cap = 0;
	for (uint32_t i = 0; i < p->nlabels; i++) {
		const struct pp_label *l = &p->labels[i];
		if (l->str)
			continue;
		size_t k = 0;
		while (k < A->nunits && A->units[k].key != l->key)
			k++;
		if (k == A->nunits) {
			if (!pp_grow((void **)&A->units, &cap, A->nunits + 1, sizeof(*A->units)))
				return pp_nomem(p);
			A->units[k].key = l->key;
			A->units[k].unit = NULL;
			A->nunits++;
		}
		if (!A->units[k].unit && l->unit && pp_strlen(p, l->unit))
			A->units[k].unit = pp_str(p, l->unit);
	}
	for (size_t k = 0; k < A->nunits; k++) {
		if (A->units[k].unit)
			continue;
		const char *key = pp_str(p, A->units[k].key);
		A->units[k].unit =
			!strcmp(key, "alignment") || !strcmp(key, "request") ? "bytes" : key;
	}
	return PPROF_OK;
}

static bool tf_num_ok(const struct tagfilter *t, int64_t v, const char *unit)
{
	double sv;
	const char *su;
	scale(v, unit, t->unit, &sv, &su);
	if (strcmp(su, t->unit) != 0)
		return false;
	switch (t->kind) {
	case TF_EQ:
		return sv == t->lo;
	case TF_GE:
		return sv >= t->lo;
	case TF_LE:
		return sv <= t->lo;
	default:
		return sv >= t->lo && sv <= t->hi;
	}
}

/* Whether label set LS passes tag filter T (compileTagFilter's closures). */
static int tf_match(struct applier *A, const struct tagfilter *t, uint32_t ls, bool *out)
{
	struct pprof_profile *p = A->p;
	uint32_t n = p->labelsets[ls + 1] - p->labelsets[ls];
	const struct pp_label *l = n ? p->labels + p->labelsets[ls] : NULL;
	*out = false;
	if (t->kind != TF_REGEX) {
		for (uint32_t i = 0; i < n; i++) {
			if (l[i].str || (t->key && strcmp(pp_str(p, l[i].key), t->key) != 0))
				continue;
			if (tf_num_ok(t, l[i].num, key_unit(A, l[i].key))) {
				*out = true;
				break;
			}
		}
		return PPROF_OK;
	}
	if (t->key) {
		for (uint32_t i = 0; i < n && !*out; i++) {
			if (!l[i].str || strcmp(pp_str(p, l[i].key), t->key) != 0)
				continue;
			for (size_t r = 0; r < t->nre && !*out; r++)
				*out = pp_re_match(t->re[r], pp_str(p, l[i].str),
						   pp_strlen(p, l[i].str), A->md);
		}
		return PPROF_OK;
	}
	/* Without a key every regex must match some "key:value". */
	for (size_t r = 0; r < t->nre; r++) {
		bool hit = false;
		for (uint32_t i = 0; i < n && !hit; i++) {
			if (!l[i].str)
				continue;
			A->tmp2.len = 0;
			if (!pp_buf_add(&A->tmp2, pp_str(p, l[i].key), pp_strlen(p, l[i].key)) ||
			    !pp_buf_addc(&A->tmp2, ':') ||
			    !pp_buf_add(&A->tmp2, pp_str(p, l[i].str), pp_strlen(p, l[i].str)))
				return pp_nomem(p);
			hit = pp_re_match(t->re[r], A->tmp2.s, A->tmp2.len, A->md);
		}
		if (!hit)
			return PPROF_OK;
	}
	*out = true;
	return PPROF_OK;
}

static int tag_keep(struct applier *A, uint32_t ls, bool *keep)
{
	if (A->tagkeep[ls] >= 0) {
		*keep = A->tagkeep[ls];
		return PPROF_OK;
	}
	const struct pprof_filter *f = A->f;
	bool k = true;
	for (size_t i = 0; i < f->ntf[0]; i++) {
		bool m;
		int st = tf_match(A, &f->tf[0][i], ls, &m);
		if (st)
			return st;
		if (m)
			A->matched[PPROF_FILTER_TAGFOCUS] = true;
		else
			k = false;
	}
	for (size_t i = 0; i < f->ntf[1]; i++) {
		bool m;
		int st = tf_match(A, &f->tf[1][i], ls, &m);
		if (st)
			return st;
		if (m) {
			A->matched[PPROF_FILTER_TAGIGNORE] = true;
			k = false;
		}
	}
	A->tagkeep[ls] = k;
	*keep = k;
	return PPROF_OK;
}

/* The tag frame of KEY for label set LS: the key's values, strings first,
 * joined by ',' as the function name, and KEY as the file (pprof's
 * addLabelNodes). */
static int tag_frame(struct applier *A, uint32_t ls, size_t k, uint32_t *id)
{
	uint32_t *slot = &A->tags[(size_t)ls * A->ntag + k];
	if (*slot) {
		*id = *slot;
		return PPROF_OK;
	}
	struct pprof_profile *p = A->p;
	const struct pprof_filter *f = A->f;
	const char *key = k < f->nkeys[0] ? f->keys[0][k] : f->keys[1][k - f->nkeys[0]];
	uint32_t n = p->labelsets[ls + 1] - p->labelsets[ls];
	const struct pp_label *l = n ? p->labels + p->labelsets[ls] : NULL;
	struct pp_buf *b = &A->tmp;
	b->len = 0;
	bool any = false;
	for (int pass = 0; pass < 2; pass++)
		for (uint32_t i = 0; i < n; i++) {
			if ((pass == 0) != (l[i].str != 0) || strcmp(pp_str(p, l[i].key), key) != 0)
				continue;
			if (any && !pp_buf_addc(b, ','))
				return pp_nomem(p);
			any = true;
			bool ok = pass == 0 ? pp_buf_add(b, pp_str(p, l[i].str), pp_strlen(p, l[i].str))
					    : scaled_label(l[i].num,
							   l[i].unit ? pp_str(p, l[i].unit) : "", b);
			if (!ok)
				return pp_nomem(p);
		}
	if (any)
		A->matched[k < f->nkeys[0] ? PPROF_FILTER_TAGROOT : PPROF_FILTER_TAGLEAF] = true;
	struct pp_frame fr;
	memset(&fr, 0, sizeof(fr));
	int st = pp_intern(p, b->s, b->len, &fr.name);
	if (!st)
		st = pp_intern_cstr(p, key, &fr.file);
	if (!fr.name)
		fr.flags = PP_FRAME_NO_SYMBOL;
	if (!st)
		st = pp_frame_intern(p, &fr, slot);
	*id = *slot;
	return st;
}

static bool push_w(struct applier *A, size_t *n, uint32_t frame, uint32_t run)
{
	if (!pp_grow((void **)&A->w, &A->capw, *n + 1, sizeof(*A->w)))
		return false;
	A->w[*n].frame = frame;
	A->w[*n].run = run;
	(*n)++;
	return true;
}

/* show_from (pprof's ShowFrom): in each location that matches, the lines
 * outside its outermost match go; the stack starts at the outermost
 * matching location.  Returns the new length, 0 when nothing matched. */
static size_t show_from(struct applier *A, struct wf *w, size_t n)
{
	size_t out = 0;
	bool started = false;
	for (size_t a = 0; a < n;) {
		size_t b = a;
		bool map = false;
		size_t first = SIZE_MAX;
		while (b < n && w[b].run == w[a].run) {
			uint8_t bits = frame_bits(A, w[b].frame);
			if (bits & M_SHOWFROM_MAP)
				map = true;
			if ((bits & M_SHOWFROM) && first == SIZE_MAX)
				first = b;
			b++;
		}
		bool matched = map || first != SIZE_MAX;
		if (matched) {
			started = true;
			A->matched[PPROF_FILTER_SHOW_FROM] = true;
		}
		if (started) {
			size_t from = map || !matched ? a : first;
			for (size_t i = from; i < b; i++)
				w[out++] = w[i];
		}
		a = b;
	}
	return out;
}

/* prune_from (pprof's PruneFrom): in each location, the lines inside its
 * innermost match go; the stack ends at the innermost matching location. */
static size_t prune_from(struct applier *A, struct wf *w, size_t n)
{
	size_t out = 0, cut = SIZE_MAX;
	for (size_t a = 0; a < n;) {
		size_t b = a, last = SIZE_MAX;
		while (b < n && w[b].run == w[a].run) {
			if (frame_bits(A, w[b].frame) & M_PRUNE)
				last = b;
			b++;
		}
		size_t to = last != SIZE_MAX ? last + 1 : b;
		for (size_t i = a; i < to; i++)
			w[out++] = w[i];
		if (last != SIZE_MAX)
			cut = out;
		a = b;
	}
	return cut != SIZE_MAX ? cut : out;
}

static bool same_function(const struct pprof_profile *p, uint32_t a, uint32_t b)
{
	const struct pp_frame *x = &p->frames[a], *y = &p->frames[b];
	return x->name == y->name && x->file == y->file && x->mapping == y->mapping &&
	       (x->name || x->file || a == b);
}

/* The node of the rewritten stack w[0..n) in the new tree. */
static int insert(struct applier *A, size_t n, uint32_t *node)
{
	struct pprof_profile *p = A->p;
	if (!pp_grow((void **)&A->prevf, &A->capprevf, n, sizeof(*A->prevf)) ||
	    !pp_grow((void **)&A->prevn, &A->capprevn, n, sizeof(*A->prevn)))
		return pp_nomem(p);
	/* A location whose head went keeps its inlined frames as a location
	 * of their own. */
	for (size_t d = 0; d < n; d++) {
		uint32_t fr = A->w[d].frame;
		if ((p->frames[fr].flags & PP_FRAME_INLINED) &&
		    (d == 0 || A->w[d - 1].run != A->w[d].run)) {
			struct pp_frame c = p->frames[fr];
			c.flags &= ~(uint32_t)PP_FRAME_INLINED;
			int st = pp_frame_intern(p, &c, &A->w[d].frame);
			if (st)
				return st;
		}
	}
	uint32_t cur = 0;
	size_t d = 0;
	while (d < n && d < A->prevlen && A->prevf[d] == A->w[d].frame)
		cur = A->prevn[d++];
	for (; d < n; d++) {
		int st = pp_node_child(A->q, cur, A->w[d].frame, &cur);
		if (st)
			return pp_error(p, st, "%s", pprof_profile_error(A->q));
		A->prevf[d] = A->w[d].frame;
		A->prevn[d] = cur;
	}
	A->prevlen = n;
	*node = cur;
	return PPROF_OK;
}

/* Rewrites the stack of entry E into A->w; returns its length through *N,
 * or *KEEP false when the sample goes. */
static int rewrite(struct applier *A, uint32_t e, size_t *np, bool *keep)
{
	struct pprof_profile *p = A->p;
	const struct pprof_filter *f = A->f;
	uint32_t ls = p->entries[e].labels;
	*keep = false;

	if (f->ntf[0] || f->ntf[1]) {
		int st = tag_keep(A, ls, keep);
		if (st || !*keep)
			return st;
		*keep = false;
	}

	/* The original stack, root first. */
	size_t depth = 0;
	for (uint32_t n = p->entries[e].node; n; n = p->nodes[n].parent) {
		if (!pp_grow((void **)&A->path, &A->cappath, depth + 1, sizeof(*A->path)))
			return pp_nomem(p);
		A->path[depth++] = p->nodes[n].frame;
	}
	for (size_t i = 0; i < depth / 2; i++) {
		uint32_t t = A->path[i];
		A->path[i] = A->path[depth - 1 - i];
		A->path[depth - 1 - i] = t;
	}

	if (f->given[PPROF_FILTER_DROP_IDLE] && depth) {
		const struct pp_frame *leaf = &p->frames[A->path[depth - 1]];
		if (leaf->name && (strcmp(pp_str(p, leaf->name), "(idle)") == 0 ||
				   strcmp(pp_str(p, leaf->name), "(program)") == 0)) {
			A->matched[PPROF_FILTER_DROP_IDLE] = true;
			return PPROF_OK;
		}
	}

	/* Renames, tag frames, and the runs (locations) of the frames. */
	size_t n = 0;
	uint32_t run = 0;
	for (size_t k = 0; k < f->nkeys[0]; k++) {
		uint32_t id;
		int st = tag_frame(A, ls, k, &id);
		if (st)
			return st;
		if (!push_w(A, &n, id, ++run))
			return pp_nomem(p);
	}
	bool prev_group = true; /* no location to continue yet */
	for (size_t i = 0; i < depth; i++) {
		struct renamed r = {0, false};
		int st = rename_frame(A, A->path[i], &r);
		if (st)
			return st;
		if (r.group) {
			if (!(prev_group && n && A->w[n - 1].frame == r.frame && i > 0) &&
			    !push_w(A, &n, r.frame, ++run))
				return pp_nomem(p);
			prev_group = true;
			continue;
		}
		bool inl = (p->frames[A->path[i]].flags & PP_FRAME_INLINED) && !prev_group;
		if (!push_w(A, &n, r.frame, inl ? run : ++run))
			return pp_nomem(p);
		prev_group = false;
	}
	for (size_t k = 0; k < f->nkeys[1]; k++) {
		uint32_t id;
		int st = tag_frame(A, ls, f->nkeys[0] + k, &id);
		if (st)
			return st;
		if (!push_w(A, &n, id, ++run))
			return pp_nomem(p);
	}

	/* Match bits for the frames interned so far. */
	if (A->capbits < p->nframes) {
		size_t old = A->capbits;
		if (!pp_grow((void **)&A->bits, &A->capbits, p->nframes, 1))
			return pp_nomem(p);
		memset(A->bits + old, 0, A->capbits - old);
	}

	/* focus, ignore */
	if (f->rx[PPROF_FILTER_FOCUS].n || f->rx[PPROF_FILTER_IGNORE].n) {
		bool focused = !f->rx[PPROF_FILTER_FOCUS].n, ignored = false;
		for (size_t i = 0; i < n; i++) {
			uint8_t b = frame_bits(A, A->w[i].frame);
			if (b & M_IGNORE)
				ignored = true;
			else if (b & M_FOCUS)
				focused = true;
		}
		if (ignored)
			A->matched[PPROF_FILTER_IGNORE] = true;
		if (focused && f->rx[PPROF_FILTER_FOCUS].n)
			A->matched[PPROF_FILTER_FOCUS] = true;
		if (ignored || !focused)
			return PPROF_OK;
	}

	/* hide, show */
	if (f->rx[PPROF_FILTER_HIDE].n || f->rx[PPROF_FILTER_SHOW].n) {
		bool show = f->rx[PPROF_FILTER_SHOW].n;
		size_t out = 0;
		for (size_t i = 0; i < n; i++) {
			uint8_t b = frame_bits(A, A->w[i].frame);
			if (b & M_HIDE) {
				A->matched[PPROF_FILTER_HIDE] = true;
				continue;
			}
			if (show && !(b & M_SHOW))
				continue;
			if (show)
				A->matched[PPROF_FILTER_SHOW] = true;
			A->w[out++] = A->w[i];
		}
		n = out;
		if (n == 0)
			return PPROF_OK;
	}

	if (f->rx[PPROF_FILTER_SHOW_FROM].n) {
		n = show_from(A, A->w, n);
		if (n == 0)
			return PPROF_OK;
	}
	if (f->rx[PPROF_FILTER_PRUNE_FROM].n) {
		size_t m = prune_from(A, A->w, n);
		if (m != n)
			A->matched[PPROF_FILTER_PRUNE_FROM] = true;
		n = m;
	}

	if (f->given[PPROF_FILTER_COLLAPSE_RECURSION]) {
		size_t out = 0;
		for (size_t i = 0; i < n; i++) {
			if (out && same_function(p, A->w[out - 1].frame, A->w[i].frame)) {
				A->matched[PPROF_FILTER_COLLAPSE_RECURSION] = true;
				continue;
			}
			A->w[out++] = A->w[i];
		}
		n = out;
	}
	*np = n;
	*keep = true;
	return PPROF_OK;
}

static void swap_tree(struct pprof_profile *a, struct pprof_profile *b)
{
#define SWAP(field)                          \
	do {                                 \
		__typeof__(a->field) t_ = a->field; \
		a->field = b->field;         \
		b->field = t_;               \
	} while (0)
	SWAP(nodes);
	SWAP(nnodes);
	SWAP(capnodes);
	SWAP(nodehash);
	SWAP(entries);
	SWAP(values);
	SWAP(nentries);
	SWAP(capentries);
	SWAP(entryhash);
	SWAP(seq);
	SWAP(nseq);
	SWAP(capseq);
#undef SWAP
}

static void applier_release(struct applier *A)
{
	pcre2_match_data_free(A->md);
	pp_buf_release(&A->tmp);
	pp_buf_release(&A->tmp2);
	free(A->ren);
	free(A->bits);
	free(A->tags);
	free(A->tagkeep);
	free(A->units);
	free(A->w);
	free(A->path);
	free(A->prevf);
	free(A->prevn);
	pprof_profile_free(A->q);
}

void pprof_filter_report_free(struct pprof_filter_report *r)
{
	if (!r)
		return;
	for (size_t i = 0; i < r->nfilters; i++)
		free(r->filters[i]);
	free(r->filters);
	free(r->totals);
	free(r);
}

/* pprof's total of a table for each sample type, as the report takes it
 * before the filters run: the magnitudes of all samples, or of the
 * pprof::base samples only in a -diff_base profile. */
static int totals_before(struct pprof_profile *p, int64_t **out)
{
	uint32_t base = p->nlabelsets > 1 ? pp_label_key(p, "pprof::base") : 0;
	int64_t *t = calloc(p->ntypes ? p->ntypes : 1, sizeof(*t));
	if (!t)
		return pp_nomem(p);
	for (uint32_t k = 0; k < p->ntypes; k++) {
		uint64_t total = 0, basetotal = 0;
		for (uint32_t e = 0; e < p->nentries; e++) {
			int64_t v = p->values[(size_t)e * p->ntypes + k];
			if (v == 0)
				continue;
			uint64_t m = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
			if (__builtin_add_overflow(total, m, &total) || total > INT64_MAX) {
				free(t);
				return pp_error(p, PPROF_EINPUT, "sum of values leaves the 64-bit range");
			}
			if (base && pp_has_label(p, p->entries[e].labels, base, "true"))
				basetotal += m;
		}
		t[k] = (int64_t)(basetotal ? basetotal : total);
	}
	*out = t;
	return PPROF_OK;
}

/* The report of F on P, before F changes P; *OUT stays NULL when there is
 * nothing to say. */
static int make_report(const struct pprof_filter *f, struct pprof_profile *p,
		       struct pprof_filter_report **out)
{
	/* As pprof: the percentages of a table stay those of all samples
	 * under its sample filters (not under --drop-idle, which is ours and
	 * is meant to leave the idle time out of the total). */
	bool pprofs = false;
	size_t n = 0;
	for (int o = 0; o < PPROF_FILTER_NOPTIONS; o++) {
		pprofs |= f->given[o] && pprof_legend_names[o];
		n += f->nlegend[o];
	}
	bool totals = pprofs && !f->given[PPROF_FILTER_DROP_IDLE];
	if (!totals && n == 0)
		return PPROF_OK;
	struct pprof_filter_report *r = calloc(1, sizeof(*r));
	if (!r || !(r->filters = calloc(n ? n : 1, sizeof(*r->filters)))) {
		free(r);
		return pp_nomem(p);
	}
	for (int o = 0; o < PPROF_FILTER_NOPTIONS; o++)
		for (size_t k = 0; k < f->nlegend[o]; k++) {
			if (!(r->filters[r->nfilters] = strdup(f->legend[o][k]))) {
				pprof_filter_report_free(r);
				return pp_nomem(p);
			}
			r->nfilters++;
		}
	if (totals) {
		int s = totals_before(p, &r->totals);
		if (s != PPROF_OK) {
			pprof_filter_report_free(r);
			return s;
		}
		r->ntypes = p->ntypes;
	}
	*out = r;
	return PPROF_OK;
}

int pprof_filter_apply(const struct pprof_filter *f, struct pprof_profile *p,
		       struct pprof_filter_report **report)
{
	if (report)
		*report = NULL;
	if (pprof_filter_is_empty(f))
		return PPROF_OK;
	int settled = pp_settle(p);
	if (settled != PPROF_OK)
		return settled;
	struct pprof_filter_report *rep = NULL;
	if (report) {
		int s = make_report(f, p, &rep);
		if (s != PPROF_OK)
			return s;
	}
	struct applier A;
	memset(&A, 0, sizeof(A));
	A.f = f;
	A.p = p;
	pp_buf_init(&A.tmp);
	pp_buf_init(&A.tmp2);
	A.q = pprof_profile_new();
	A.md = pcre2_match_data_create(1, NULL);
	A.nold = p->nframes;
	A.ren = calloc(p->nframes ? p->nframes : 1, sizeof(*A.ren));
	A.ntag = f->nkeys[0] + f->nkeys[1];
	A.tags = calloc((size_t)p->nlabelsets * (A.ntag ? A.ntag : 1), sizeof(*A.tags));
	A.tagkeep = malloc(p->nlabelsets ? p->nlabelsets : 1);
	uint32_t *nodemap = NULL;
	int st = PPROF_OK;
	if (!A.q || !A.md || !A.ren || !A.tags || !A.tagkeep) {
		st = pp_nomem(p);
		goto out;
	}
	memset(A.tagkeep, -1, p->nlabelsets ? p->nlabelsets : 1);
	if ((st = build_units(&A)))
		goto out;

	/* The scratch profile takes the sample types (named in its own
	 * strings, for its messages) so that it sums values alike. */
	struct pp_sample_type *t = malloc((p->ntypes ? p->ntypes : 1) * sizeof(*t));
	if (!t) {
		st = pp_nomem(p);
		goto out;
	}
	for (uint32_t i = 0; i < p->ntypes && !st; i++)
		if (!(st = pp_intern(A.q, pp_str(p, p->types[i].type),
				     pp_strlen(p, p->types[i].type), &t[i].type)))
			st = pp_intern(A.q, pp_str(p, p->types[i].unit),
				       pp_strlen(p, p->types[i].unit), &t[i].unit);
	if (!st)
		st = pp_begin_input(A.q, t, p->ntypes, p->default_type);
	free(t);
	if (st) {
		st = pp_error(p, st, "%s", pprof_profile_error(A.q));
		goto out;
	}

	if (p->nseq) {
		nodemap = malloc((size_t)p->nnodes * sizeof(*nodemap));
		if (!nodemap) {
			st = pp_nomem(p);
			goto out;
		}
		memset(nodemap, 0xff, (size_t)p->nnodes * sizeof(*nodemap));
	}
	for (uint32_t e = 0; e < p->nentries; e++) {
		size_t n = 0;
		bool keep;
		if ((st = rewrite(&A, e, &n, &keep)))
			goto out;
		if (!keep)
			continue;
		uint32_t node = 0;
		if ((st = insert(&A, n, &node)))
			goto out;
		if (nodemap && p->entries[e].labels == 0)
			nodemap[p->entries[e].node] = node;
		st = pp_add_sample(A.q, node, p->entries[e].labels,
				   p->values + (size_t)e * p->ntypes, 0);
		if (st) {
			st = pp_error(p, st, "%s", pprof_profile_error(A.q));
			goto out;
		}
	}
	for (size_t i = 0; i < p->nseq; i++) {
		uint32_t n = nodemap[p->seq[i].node];
		if (n == UINT32_MAX)
			continue;
		if ((st = pp_seq_push(A.q, n, p->seq[i].time, p->seq[i].wall))) {
			st = pp_nomem(p);
			goto out;
		}
	}
	swap_tree(p, A.q);

	static const char *const what[PPROF_FILTER_NOPTIONS] = {
		"focus", "ignore", "hide", "show", "show-from", NULL,
		"tagfocus", "tagignore", "tagroot", "tagleaf", NULL, NULL,
	};
	for (int o = 0; o < PPROF_FILTER_NOPTIONS; o++)
		if (what[o] && f->given[o] && !A.matched[o])
			pp_warn(p, "%s expression matched no samples", what[o]);
out:
	free(nodemap);
	applier_release(&A);
	if (st == PPROF_OK && report)
		*report = rep;
	else
		pprof_filter_report_free(rep);
	return st;
}
