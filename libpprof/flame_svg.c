/*
 * flame_svg.c: the SVG of a flame graph, as flamegraph.pl writes it: the
 * same header, frames, titles, labels and numbers printed as Perl prints
 * them, names as well-formed XML whatever their bytes, and the script
 * (flame_script.js) that zooms and searches.
 */
#include "config.h"

#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "flame_private.h"

#include "flame_script.h"

/* ---- options ---- */

void pprof_flame_options_init(struct pprof_flame_options *o)
{
	memset(o, 0, sizeof(*o));
	o->fonttype = "Verdana";
	o->countname = "samples";
	o->nametype = "Function:";
	o->palette = PPROF_FLAME_HOT;
	o->width = 1200;
	o->frameheight = 16;
	o->fontsize = 12;
	o->fontwidth = 0.59;
	o->minwidth = 0.1;
	o->factor = 1;
}

/* ---- output ---- */

struct fl_out {
	FILE *f;
	char buf[1 << 16];
	size_t n;
	bool err;
};

static void fl_flush(struct fl_out *o)
{
	if (o->n && fwrite(o->buf, 1, o->n, o->f) != o->n)
		o->err = true;
	o->n = 0;
}

static void fl_put(struct fl_out *o, const char *s, size_t n)
{
	if (o->n + n > sizeof(o->buf)) {
		fl_flush(o);
		if (n > sizeof(o->buf)) {
			if (fwrite(s, 1, n, o->f) != n)
				o->err = true;
			return;
		}
	}
	memcpy(o->buf + o->n, s, n);
	o->n += n;
}

static void fl_puts(struct fl_out *o, const char *s)
{
	fl_put(o, s, strlen(s));
}

static void fl_printf(struct fl_out *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void fl_printf(struct fl_out *o, const char *fmt, ...)
{
	char tmp[512];
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(tmp, sizeof(tmp), fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if ((size_t)n < sizeof(tmp)) {
		fl_put(o, tmp, (size_t)n);
		return;
	}
	char *big = malloc((size_t)n + 1);
	if (!big) {
		o->err = true;
		return;
	}
	va_start(ap, fmt);
	vsnprintf(big, (size_t)n + 1, fmt, ap);
	va_end(ap);
	fl_put(o, big, (size_t)n);
	free(big);
}

/* Writes an unsigned integer; returns the digits written. */
static size_t fl_utoa(char *p, uint64_t v)
{
	char t[24];
	size_t n = 0;
	do {
		t[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	for (size_t i = 0; i < n; i++)
		p[i] = t[n - 1 - i];
	return n;
}

/* printf("%.<digits>f", d) for digits 1 or 2, without printf when the
 * answer is certain: a value that is not near a rounding tie. */
static size_t fl_fixed(char *p, double d, int digits)
{
	double scale = digits == 1 ? 10.0 : 100.0;
	if (d >= 0 && d < 1e9) {
		double t = d * scale;
		double fl = fl_floor(t);
		double frac = t - fl;
		if (fl_fabs(frac - 0.5) > 1e-6) {
			uint64_t r = (uint64_t)fl + (frac > 0.5);
			uint64_t ip = r / (uint64_t)scale, fp = r % (uint64_t)scale;
			size_t n = fl_utoa(p, ip);
			p[n++] = '.';
			if (digits == 2)
				p[n++] = (char)('0' + fp / 10);
			p[n++] = (char)('0' + fp % 10);
			return n;
		}
	}
	int n = snprintf(p, 64, digits == 1 ? "%.1f" : "%.2f", d);
	return n < 0 ? 0 : n < 64 ? (size_t)n : 63;
}

/* A number as Perl prints it ("%.15g"), fast for integers and halves. */
static size_t fl_perlnum(char *p, double d)
{
	if (d >= 0 && d < 1e15) {
		double t = d * 2;
		if (t == fl_floor(t)) {
			uint64_t h = (uint64_t)t;
			size_t n = fl_utoa(p, h / 2);
			if (h & 1) {
				p[n++] = '.';
				p[n++] = '5';
			}
			return n;
		}
	}
	int n = snprintf(p, 64, "%.15g", d);
	return n < 0 ? 0 : n < 64 ? (size_t)n : 63;
}

/* The shortest text that reads back as D, for the s and w attributes. */
static size_t fl_exact(char *p, double d)
{
	if (d >= 0 && d < 9e15 && d == fl_floor(d))
		return fl_utoa(p, (uint64_t)d);
	for (int prec = 15; prec <= 17; prec++) {
		int n = snprintf(p, 64, "%.*g", prec, d);
		if (strtod(p, NULL) == d || prec == 17)
			return n < 0 ? 0 : n < 64 ? (size_t)n : 63;
	}
	return 0;
}

/* ---- names: UTF-8 decoding and XML escaping ---- */

/* Decodes one character at S[*I]; an invalid byte is consumed alone and
 * returns -1. */
int32_t fl_utf8(const unsigned char *s, size_t n, size_t *i)
{
	unsigned char c = s[*i];
	if (c < 0x80) {
		(*i)++;
		return c;
	}
	int need;
	uint32_t v, min;
	if (c >= 0xc2 && c <= 0xdf) {
		need = 1;
		v = c & 0x1f;
		min = 0x80;
	} else if (c >= 0xe0 && c <= 0xef) {
		need = 2;
		v = c & 0x0f;
		min = 0x800;
	} else if (c >= 0xf0 && c <= 0xf4) {
		need = 3;
		v = c & 0x07;
		min = 0x10000;
	} else {
		(*i)++;
		return -1;
	}
	if (*i + (size_t)need >= n) {
		(*i)++;
		return -1;
	}
	for (int k = 1; k <= need; k++) {
		unsigned char d = s[*i + (size_t)k];
		if ((d & 0xc0) != 0x80) {
			(*i)++;
			return -1;
		}
		v = v << 6 | (d & 0x3f);
	}
	if (v < min || v > 0x10ffff || (v >= 0xd800 && v < 0xe000)) {
		(*i)++;
		return -1;
	}
	*i += (size_t)need + 1;
	return (int32_t)v;
}

/* The number of characters of a name, invalid bytes counting one each. */
static size_t fl_chars(const char *s, size_t n)
{
	size_t count = 0;
	for (size_t i = 0; i < n;) {
		if ((unsigned char)s[i] < 0x80) {
			i++;
		} else {
			fl_utf8((const unsigned char *)s, n, &i);
		}
		count++;
	}
	return count;
}

/* Byte length of the first CHARS characters. */
static size_t fl_prefix_bytes(const char *s, size_t n, size_t chars)
{
	size_t i = 0;
	while (i < n && chars > 0) {
		if ((unsigned char)s[i] < 0x80)
			i++;
		else
			fl_utf8((const unsigned char *)s, n, &i);
		chars--;
	}
	return i;
}

enum { FL_ESC_TEXT = 0, FL_ESC_ATTR = 1 };

/* Writes S as XML character data: markup characters escaped, control
 * characters shown as their Unicode control pictures, invalid UTF-8 and
 * non-characters as U+FFFD, so any bytes give well-formed XML. */
static void fl_xml(struct fl_out *o, const char *s, size_t n, int mode)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t i = 0, run = 0;
	while (i < n) {
		unsigned char c = u[i];
		if (c >= 0x20 && c < 0x7f && c != '&' && c != '<' && c != '>' &&
		    !(c == '"' && mode == FL_ESC_ATTR)) {
			i++;
			continue;
		}
		fl_put(o, s + run, i - run);
		if (c < 0x80) {
			switch (c) {
			case '&': fl_puts(o, "&amp;"); break;
			case '<': fl_puts(o, "&lt;"); break;
			case '>': fl_puts(o, "&gt;"); break;
			case '"': fl_puts(o, "&quot;"); break;
			case 0x7f: fl_puts(o, "\xe2\x90\xa1"); break; /* U+2421 */
			default: {
				/* U+2400 + c: the control picture of C0 characters. */
				char pic[3] = {(char)0xe2, (char)0x90, (char)(0x80 + c)};
				fl_put(o, pic, 3);
			}
			}
			i++;
		} else {
			size_t at = i;
			int32_t cp = fl_utf8(u, n, &i);
			if (cp < 0 || cp == 0xfffe || cp == 0xffff)
				fl_puts(o, "\xef\xbf\xbd");
			else
				fl_put(o, s + at, i - at);
		}
		run = i;
	}
	fl_put(o, s + run, n - run);
}

static void fl_xml_cstr(struct fl_out *o, const char *s, int mode)
{
	fl_xml(o, s, strlen(s), mode);
}

/* ---- the SVG ---- */

/* A font list for CSS: letters (any non-ASCII character too), digits,
 * spaces, commas, quotes, dots, hyphens and underscores only, so it can't
 * close the style or load anything. */
int pprof_flame_fonttype_ok(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
		      (*s >= '0' && *s <= '9') || (unsigned char)*s >= 0x80 ||
		      strchr(" ,'\"._-", *s)))
			return false;
	return true;
}

/* Title counts: "%.0f" with thousands commas, as flamegraph.pl prints them. */
static size_t fl_count(char *p, double v)
{
	char raw[400];
	size_t n;
	if (v >= 0 && v < 9e15 && v == fl_floor(v))
		n = fl_utoa(raw, (uint64_t)v);
	else
		n = (size_t)snprintf(raw, sizeof(raw), "%.0f", v);
	if (n >= sizeof(raw))
		n = sizeof(raw) - 1;
	size_t k = 0, i = 0;
	if (raw[0] == '-' || raw[0] == '+')
		p[k++] = raw[i++];
	size_t digits = n - i;
	for (; i < n; i++) {
		p[k++] = raw[i];
		size_t left = n - i - 1;
		if (left > 0 && left % 3 == 0 && digits > 3)
			p[k++] = ',';
	}
	return k;
}

/* Strips a perf annotation (_[k], _[w], _[i], _[j]) from the end of a name. */
static size_t fl_strip_annotation(const char *s, size_t n)
{
	if (n >= 4 && s[n - 4] == '_' && s[n - 3] == '[' && s[n - 1] == ']' &&
	    strchr("kwij", s[n - 2]) && s[n - 2])
		return n - 4;
	return n;
}

struct fl_writer {
	struct fl_out *out;
	const struct pprof_flame_options *o;
	struct pprof_flame *f;
	struct fl_colorer col;
	double wpt, timemax, imageheight, ypad1, ypad2, maxdelta;
	double time0;   /* with AXIS: the time of the chart's left edge, in the unit */
	double charw;
	bool diff;
	bool human;     /* titles in human units (o->unit) */
	bool freetails; /* titles not flamegraph.pl's: w always written */
	bool incltitle; /* differential titles with before, after and delta */
	double res;     /* the resolution of human values */
	bool axis;      /* a flame chart in time: a time axis, starts in titles */
};

/* A value for a title: in human units, or a count with commas (and the
 * count name when NAMED). */
static void fl_value(struct fl_writer *W, double v, bool sign, bool named)
{
	char buf[1100];
	size_t k;
	if (W->human) {
		k = pp_human_value(buf, sizeof(buf), v, W->o->unit, W->res, sign);
		fl_put(W->out, buf, k < sizeof(buf) ? k : sizeof(buf) - 1);
		return;
	}
	v *= W->o->factor;
	if (sign && v > 0)
		fl_puts(W->out, "+");
	if (v < 0) {
		fl_puts(W->out, "-");
		v = -v;
	}
	if (v == fl_floor(v) || v >= 9e15) {
		k = fl_count(buf, v);
	} else {
		int n = snprintf(buf, sizeof(buf), "%.15g", v);
		k = n < 0 ? 0 : (size_t)n < sizeof(buf) ? (size_t)n : sizeof(buf) - 1;
	}
	fl_put(W->out, buf, k);
	if (named) {
		fl_puts(W->out, " ");
		fl_xml_cstr(W->out, W->o->countname, FL_ESC_TEXT);
	}
}

/* "; before B, after A, delta D, R%; self before b, after a, delta d",
 * without the value the width already shows. */
static void fl_diff_tail(struct fl_writer *W, const struct fl_node *nd)
{
	struct fl_out *out = W->out;
	double b = nd->ib, a = nd->ia, d = a - b;
	/* The width's own value is not repeated. */
	enum pprof_flame_diff_width dw = W->o->diff_width;
	if (dw != PPROF_FLAME_DIFF_BEFORE) {
		fl_puts(out, "; before ");
		fl_value(W, b, false, false);
	}
	if (dw != PPROF_FLAME_DIFF_AFTER) {
		fl_puts(out, dw == PPROF_FLAME_DIFF_BEFORE ? "; after " : ", after ");
		fl_value(W, a, false, false);
	}
	fl_puts(out, ", delta ");
	fl_value(W, d, true, false);
	if (b > 0) {
		char num[512];
		int n = snprintf(num, sizeof(num), "%s%.2f%%", d > 0 ? ", +" : ", ", 100 * d / b);
		fl_put(out, num, n < 0 ? 0 : (size_t)n < sizeof(num) ? (size_t)n : sizeof(num) - 1);
	} else if (a > 0) {
		fl_puts(out, ", new");
	}
	if (nd->sb != 0 || nd->sa != 0) {
		fl_puts(out, "; self before ");
		fl_value(W, nd->sb, false, false);
		fl_puts(out, ", after ");
		fl_value(W, nd->sa, false, false);
		fl_puts(out, ", delta ");
		fl_value(W, nd->sa - nd->sb, true, false);
	}
}

static void fl_frame(struct fl_writer *W, const struct fl_node *nd, bool is_root)
{
	const struct pprof_flame_options *o = W->o;
	struct fl_out *out = W->out;
	char num[64];
	size_t k;
	double stime = nd->start, etime = is_root ? W->timemax : nd->end;
	double x1 = 10 + stime * W->wpt;
	double x2 = 10 + etime * W->wpt;
	double depth = nd->depth;
	double y1, y2;
	if (!(o->flags & PPROF_FLAME_INVERTED)) {
		y1 = W->imageheight - W->ypad2 - (depth + 1) * o->frameheight + 1;
		y2 = W->imageheight - W->ypad2 - depth * o->frameheight;
	} else {
		y1 = W->ypad1 + depth * o->frameheight;
		y2 = W->ypad1 + (depth + 1) * o->frameheight - 1;
	}
	size_t namelen = fl_strip_annotation(nd->name, nd->len);

	fl_puts(out, "<g");
	if (stime != 0) {
		fl_puts(out, " s=\"");
		k = fl_exact(num, stime);
		fl_put(out, num, k);
		fl_puts(out, "\"");
	}
	/* The width, unless the title's count says it exactly. */
	double width = etime - stime;
	double shown = width * o->factor;
	if (W->freetails || !(o->factor == 1 && width == fl_floor(width) && width < 9e15)) {
		fl_puts(out, " w=\"");
		k = fl_exact(num, width);
		fl_put(out, num, k);
		fl_puts(out, "\"");
	}
	fl_puts(out, "><title>");
	if (W->freetails) {
		/* name (W, P%[; before B, after A, delta D, R%; self ...]) */
		if (is_root)
			fl_puts(out, "all");
		else
			fl_xml(out, nd->name, namelen, FL_ESC_TEXT);
		fl_puts(out, " (");
		bool dt = W->incltitle && !fl_isnan(nd->ib);
		if (dt)
			fl_puts(out, o->diff_width == PPROF_FLAME_DIFF_BEFORE ? "before "
				     : o->diff_width == PPROF_FLAME_DIFF_MAX  ? "max "
									      : "after ");
		fl_value(W, width, false, !W->human);
		if (is_root) {
			fl_puts(out, ", 100%");
		} else {
			fl_puts(out, ", ");
			k = fl_fixed(num, 100 * width / W->timemax, 2);
			fl_put(out, num, k);
			fl_puts(out, "%");
		}
		if (dt) {
			fl_diff_tail(W, nd);
		} else if (W->axis && !is_root) {
			fl_puts(out, "; start ");
			fl_value(W, W->time0 + stime, false, false);
		} else if (W->diff && !is_root && !fl_isnan(nd->delta) && nd->name != fl_other_name) {
			/* Leaf deltas, as flamegraph.pl, in the unit. */
			double d = (o->flags & PPROF_FLAME_NEGATE) ? -nd->delta + 0.0 : nd->delta;
			fl_puts(out, "; ");
			fl_value(W, d, true, false);
		}
		fl_puts(out, ")");
		goto title_done;
	}
	/* samples = sprintf("%.0f", width * factor); pct from that text. */
	char samples[1024]; /* up to 400 digits and their commas */
	double sv;
	if (shown >= 0 && shown < 9e15) {
		double r = fl_floor(shown);
		double frac = shown - r;
		if (fl_fabs(frac - 0.5) > 1e-9 || shown == r)
			sv = r + (frac > 0.5);
		else {
			snprintf(samples, sizeof(samples), "%.0f", shown);
			sv = strtod(samples, NULL);
		}
	} else {
		snprintf(samples, sizeof(samples), "%.0f", shown);
		sv = strtod(samples, NULL);
	}
	k = fl_count(samples, sv);
	if (is_root) {
		fl_puts(out, "all (");
		fl_put(out, samples, k);
		fl_puts(out, " ");
		fl_xml_cstr(out, o->countname, FL_ESC_TEXT);
		fl_puts(out, ", 100%)");
	} else {
		fl_xml(out, nd->name, namelen, FL_ESC_TEXT);
		fl_puts(out, " (");
		fl_put(out, samples, k);
		fl_puts(out, " ");
		fl_xml_cstr(out, o->countname, FL_ESC_TEXT);
		fl_puts(out, ", ");
		double pct = 100 * sv / (W->timemax * o->factor);
		k = fl_fixed(num, pct, 2);
		fl_put(out, num, k);
		fl_puts(out, "%");
		double d = (o->flags & PPROF_FLAME_INCLUSIVE_DELTA) ? nd->incl : nd->delta;
		if (W->diff && !fl_isnan(d) && nd->name != fl_other_name) {
			/* Perl's integer zero has no sign: "+ 0.0" drops it. */
			if (o->flags & PPROF_FLAME_NEGATE)
				d = -d + 0.0;
			/* A change can dwarf the total: room for any double. */
			double dp = 100 * d / (W->timemax * o->factor);
			char dps[512];
			int pn = snprintf(dps, sizeof(dps), "%.2f", dp);
			fl_puts(out, "; ");
			if (d > 0)
				fl_puts(out, "+");
			fl_put(out, dps, pn < 0 ? 0 : pn < (int)sizeof(dps) ? (size_t)pn : sizeof(dps) - 1);
			fl_puts(out, "%");
		}
		fl_puts(out, ")");
	}
title_done:
	fl_puts(out, "</title><rect x=\"");
	/* x and width as flamegraph.pl: each edge to 0.1, the width from those. */
	char xs[64], x2s[64];
	size_t xn = fl_fixed(xs, x1, 1), x2n = fl_fixed(x2s, x2, 1);
	xs[xn] = x2s[x2n] = '\0';
	fl_put(out, xs, xn);
	fl_puts(out, "\" y=\"");
	k = fl_perlnum(num, y1);
	fl_put(out, num, k);
	fl_puts(out, "\" width=\"");
	k = fl_fixed(num, strtod(x2s, NULL) - strtod(xs, NULL), 1);
	fl_put(out, num, k);
	fl_puts(out, "\" height=\"");
	k = fl_fixed(num, y2 - y1, 1);
	fl_put(out, num, k);
	fl_puts(out, "\" fill=\"");

	struct fl_rgb rgb;
	const char *fixed = NULL;
	double dcol = (o->flags & PPROF_FLAME_INCLUSIVE_DELTA) ? nd->incl : nd->delta;
	if (nd->len == 2 && memcmp(nd->name, "--", 2) == 0) {
		rgb = (struct fl_rgb){160, 160, 160};
	} else if (nd->len == 1 && nd->name[0] == '-') {
		rgb = (struct fl_rgb){200, 200, 200};
	} else if (W->diff && !fl_isnan(dcol) && nd->name != fl_other_name) {
		rgb = fl_color_scale(dcol, W->maxdelta, (o->flags & PPROF_FLAME_NEGATE) != 0);
	} else if (o->flags & PPROF_FLAME_CONSISTENT) {
		struct fl_map_entry *e = fl_map_get(&W->f->palette, nd->name, nd->len);
		if (e && !e->val) {
			rgb = fl_color(&W->col, nd->name, nd->len);
			char tmp[40];
			snprintf(tmp, sizeof(tmp), "rgb(%d,%d,%d)", rgb.r, rgb.g, rgb.b);
			e->val = strdup(tmp);
		}
		if (e && e->val)
			fixed = e->val;
		else
			rgb = fl_color(&W->col, nd->name, nd->len);
	} else {
		rgb = fl_color(&W->col, nd->name, nd->len);
	}
	if (fixed) {
		fl_puts(out, fixed);
	} else {
		static const char hex[] = "0123456789abcdef";
		char c[7] = {'#',
			     hex[(rgb.r >> 4) & 15], hex[rgb.r & 15],
			     hex[(rgb.g >> 4) & 15], hex[rgb.g & 15],
			     hex[(rgb.b >> 4) & 15], hex[rgb.b & 15]};
		fl_put(out, c, 7);
	}
	fl_puts(out, "\"/>");

	/* The label: as many characters as fit, the last two as "..". */
	double fchars = (x2 - x1) / W->charw;
	if (fchars >= 3 && !is_root) {
		size_t chars = fchars > 1e9 ? (size_t)1e9 : (size_t)fchars;
		fl_puts(out, "<text x=\"");
		k = fl_fixed(num, x1 + 3, 2);
		fl_put(out, num, k);
		fl_puts(out, "\" y=\"");
		k = fl_perlnum(num, 3 + (y1 + y2) / 2);
		fl_put(out, num, k);
		fl_puts(out, "\">");
		size_t total = chars < namelen ? fl_chars(nd->name, namelen) : namelen;
		if (chars < total) {
			size_t b = fl_prefix_bytes(nd->name, namelen, chars - 2);
			fl_xml(out, nd->name, b, FL_ESC_TEXT);
			fl_puts(out, "..");
		} else {
			fl_xml(out, nd->name, namelen, FL_ESC_TEXT);
		}
		fl_puts(out, "</text>");
	}
	fl_puts(out, "</g>\n");
}

/* The time axis of a flame chart, its line at Y: ticks every 1, 2 or 5
 * times a power of ten of the unit, about ten of them, labelled from the
 * capture's start. */
static void fl_axis(struct fl_writer *W, double y)
{
	const struct pprof_flame_options *o = W->o;
	struct fl_out *out = W->out;
	double span = W->timemax, step = 1;
	/* A power of ten with 10 to 100 of them, then 5 to 10 ticks. */
	while (span / step > 100 && step < 1e300)
		step *= 10;
	while (span / step <= 10 && step > 1e-300)
		step /= 10;
	step *= span / step > 50 ? 10 : span / step > 20 ? 5 : 2;
	fl_printf(out, "<g id=\"axis\" stroke=\"rgb(90,90,90)\" stroke-width=\"1\">"
		       "<line x1=\"10.0\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>\n",
		  y, o->width - 10, y);
	/* Ticks at the multiples of STEP from the capture's start that fall
	 * within the chart, whose left edge is TIME0. */
	double t0 = W->time0, first = -fl_floor(-(t0 / step - 1e-9)) * step;
	for (double t = first; t - t0 <= span * 1.0000001; t += step) {
		double x = 10 + (t - t0) * W->wpt;
		char label[1100];
		pp_human_value(label, sizeof(label), t, o->unit, 0, false);
		if (t == 0)
			snprintf(label, sizeof(label), "0");
		fl_printf(out, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>"
			       "<text x=\"%.1f\" y=\"%.1f\" stroke=\"none\"%s>%s</text>\n",
			  x, y, x, y + 4, x, y + 4 + o->fontsize,
			  t == 0 ? "" : " text-anchor=\"middle\"", label);
	}
	fl_puts(out, "</g>\n");
}

/* "SOURCE — TYPE (UNIT), total T, duration D"; for a differential graph
 * the totals before and after.  NULL when out of memory. */
static char *fl_default_subtitle(struct fl_writer *W, const struct fl_layout *L)
{
	const struct pprof_flame_options *o = W->o;
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);
	if (!m)
		return NULL;
	if (o->source && *o->source)
		fprintf(m, "%s \xe2\x80\x94 ", o->source);
	bool type = o->sample_type && *o->sample_type;
	bool unit = o->unit && *o->unit;
	if (type)
		fputs(o->sample_type, m);
	if (unit)
		fprintf(m, type ? " (%s)" : "%s", o->unit);
	/* The root's totals. */
	const struct fl_node *root = NULL;
	for (size_t i = 0; i < L->n; i++)
		if (L->nodes[i].depth == 0)
			root = &L->nodes[i];
	char v[1100];
	bool human = pp_human_kind(o->unit, &(double){0}) != PP_HUMAN_NONE && o->factor == 1;
	double res = 0;
	if (root) {
		double vals[3] = {root->ia, root->ib, root->ia - root->ib};
		const char *names[3] = {"total", "before", "delta"};
		if (W->diff)
			names[0] = "after";
		static const int order_diff[] = {1, 0, 2}, order_one[] = {0};
		const int *order = W->diff ? order_diff : order_one;
		for (int j = 0; j < (W->diff ? 3 : 1); j++) {
			int i = order[j];
			double x = vals[i] * (human ? 1 : o->factor);
			if (human) {
				pp_human_value(v, sizeof(v), x, o->unit, res, i == 2);
			} else {
				size_t k = 0;
				if (i == 2 && x > 0)
					v[k++] = '+';
				if (x < 0) {
					v[k++] = '-';
					x = -x;
				}
				if (x == fl_floor(x) || x >= 9e15)
					k += fl_count(v + k, x);
				else
					k += (size_t)snprintf(v + k, 64, "%.15g", x);
				snprintf(v + k, sizeof(v) - k, " %s", o->countname);
			}
			fprintf(m, ", %s %s", names[i], v);
		}
	}
	if (o->duration > 0) {
		pp_human_value(v, sizeof(v), o->duration, "ns", 0, false);
		fprintf(m, ", duration %s", v);
	}
	if (fclose(m) != 0) {
		free(buf);
		return NULL;
	}
	return buf;
}

int pprof_flame_write_svg(struct pprof_flame *f, const struct pprof_flame_options *o, FILE *file)
{
	int status = PPROF_OK;
	struct fl_layout L;
	memset(&L, 0, sizeof(L));
	struct fl_out *out = NULL;
	bool flamechart = (o->flags & PPROF_FLAME_FLAMECHART) != 0;

	if (o->width <= 0 || o->frameheight <= 0 || o->fontsize <= 0 || o->fontwidth <= 0 ||
	    o->minwidth < 0 || !(o->factor == o->factor))
		return fl_error(f, PPROF_EUSAGE, "invalid drawing parameters");
	if (!pprof_flame_fonttype_ok(o->fonttype))
		return fl_error(f, PPROF_EUSAGE, "invalid font type");
	const char *bg2;
	const char *bg1 = fl_bg(o->bgcolors, o->palette, &bg2);
	if (!bg1)
		return fl_error(f, PPROF_EUSAGE, "unrecognized background colors \"%s\"", o->bgcolors);

	if (o->flags & PPROF_FLAME_REVERSE) {
		status = fl_reverse(f);
		if (status != PPROF_OK)
			return status;
	}
	if (!flamechart && !f->timeline && !fl_lines_sorted(f->lines, f->nlines)) {
		if (fl_own_lines(f) != PPROF_OK)
			return PPROF_ENOMEM;
		if (!fl_sort_lines(f->lines, f->nlines))
			return fl_nomem(f);
	}

	/* Totals first: minwidth in samples needs the sum. */
	double time = 0;
	bool diff = false;
	double maxleaf = 1;
	for (size_t i = 0; i < f->nlines; i++) {
		const struct pp_fline *l = &f->lines[i];
		double w = l->after;
		if (!fl_isnan(l->before)) {
			diff = true;
			double d = l->after - l->before;
			if (fl_fabs(d) > maxleaf)
				maxleaf = fl_fabs(d);
			if (o->diff_width == PPROF_FLAME_DIFF_BEFORE)
				w = l->before;
			else if (o->diff_width == PPROF_FLAME_DIFF_MAX && l->before > w)
				w = l->before;
		}
		time += w;
	}
	if (!(time > 0))
		return fl_error(f, PPROF_EINPUT, "no stack counts found");
	if (time - time != 0)
		return fl_error(f, PPROF_EINPUT, "stack counts too large");
	double timemax = time;
	if (o->total > 0 && o->total >= time)
		timemax = o->total;
	double wpt = (o->width - 20) / timemax;
	L.minwidth_time = o->minwidth_percent ? timemax * o->minwidth / 100 : o->minwidth / wpt;
	L.keep_other = (o->flags & PPROF_FLAME_MERGE_SMALL) != 0;

	for (size_t i = 0; i < f->nlines; i++) {
		const struct pp_fline *l = &f->lines[i];
		if (i + 8 < f->nlines) {
			const struct pp_fline *n = &f->lines[i + 8];
			__builtin_prefetch(n->key);
			__builtin_prefetch(n->key + (n->stacklen & ~FL_MODEL_BIT) / 2);
			__builtin_prefetch(n->key + (n->stacklen & ~FL_MODEL_BIT));
		}
		double w = l->after;
		if (!fl_isnan(l->before)) {
			if (o->diff_width == PPROF_FLAME_DIFF_BEFORE)
				w = l->before;
			else if (o->diff_width == PPROF_FLAME_DIFF_MAX && l->before > w)
				w = l->before;
		}
		if (!fl_flow(&L, l->key, l->stacklen & ~FL_MODEL_BIT, l->before, l->after, w)) {
			status = fl_nomem(f);
			goto out;
		}
	}
	if (!fl_close(&L, 0)) {
		status = fl_nomem(f);
		goto out;
	}
	if ((o->flags & (PPROF_FLAME_SORT_WIDTH | PPROF_FLAME_MERGE_SMALL)) && !flamechart) {
		if (!fl_relayout(&L, (o->flags & PPROF_FLAME_SORT_WIDTH) != 0,
				 (o->flags & PPROF_FLAME_MERGE_SMALL) != 0)) {
			status = fl_nomem(f);
			goto out;
		}
	}

	uint32_t depthmax = 0;
	double maxincl = 0;
	for (size_t i = 0; i < L.n; i++) {
		if (L.nodes[i].depth > depthmax)
			depthmax = L.nodes[i].depth;
		if (L.nodes[i].depth > 0 && fl_fabs(L.nodes[i].incl) > maxincl)
			maxincl = fl_fabs(L.nodes[i].incl);
	}

	struct fl_writer W;
	memset(&W, 0, sizeof(W));
	out = malloc(sizeof(*out));
	if (!out) {
		status = fl_nomem(f);
		goto out;
	}
	out->f = file;
	out->n = 0;
	out->err = false;
	W.out = out;
	W.o = o;
	W.f = f;
	W.diff = diff;
	W.col.palette = o->palette;
	W.col.hash = (o->flags & PPROF_FLAME_HASH) != 0;
	W.col.random = (o->flags & PPROF_FLAME_RANDOM) != 0;
	W.col.rstate = o->seed ? o->seed : fl_clock_seed();
	W.col.classes = &f->classes;
	W.timemax = timemax;
	W.wpt = wpt;
	W.ypad1 = o->fontsize * 3;
	W.ypad2 = o->fontsize * 2 + 10;
	double ypad3 = o->fontsize * 2;
	double ubase;
	W.human = pp_human_kind(o->unit, &ubase) != PP_HUMAN_NONE &&
		  !(o->flags & PPROF_FLAME_COUNTS) && o->factor == 1;
	W.incltitle = diff && (o->flags & PPROF_FLAME_INCLUSIVE_DELTA);
	W.freetails = W.human || W.incltitle;
	/* A flame chart of samples in time order, in time: a time axis under
	 * the frames, and each frame's start in its title. */
	W.axis = W.human && flamechart && f->timeline && !diff &&
		 pp_human_kind(o->unit, &ubase) == PP_HUMAN_TIME;
	W.time0 = W.axis && f->have_time0 ? f->time0 / ubase : 0;
	double axish = W.axis ? o->fontsize + 10 : 0;
	double details_pad = W.ypad2;
	W.ypad2 += axish;
	W.imageheight = (depthmax + 1) * o->frameheight + W.ypad1 + W.ypad2;
	W.res = timemax / 20000;
	/* The default subtitle: the input, its sample type and total. */
	char *autosub = NULL;
	if (!o->subtitle && ((o->sample_type && *o->sample_type) || (o->unit && *o->unit))) {
		autosub = fl_default_subtitle(&W, &L);
		if (!autosub) {
			status = fl_nomem(f);
			goto out;
		}
	}
	const char *subtext = autosub ? autosub : o->subtitle;
	bool subtitle = subtext && *subtext;
	if (subtitle)
		W.imageheight += ypad3;
	W.charw = o->fontsize * o->fontwidth;
	W.maxdelta = (o->flags & PPROF_FLAME_INCLUSIVE_DELTA) ? (maxincl > 0 ? maxincl : 1) : maxleaf;

	const char *title = o->title && *o->title ? o->title
			    : flamechart		? "Flame Chart"
			    : (o->flags & PPROF_FLAME_INVERTED) ? "Icicle Graph"
								: "Flame Graph";
	char a[64], b[64];
	size_t an, bn;
	an = fl_perlnum(a, o->width);
	a[an] = '\0';
	bn = fl_perlnum(b, W.imageheight);
	b[bn] = '\0';
	fl_puts(out, "<?xml version=\"1.0\" standalone=\"no\"?>\n");
	fl_printf(out, "<svg version=\"1.1\" width=\"%s\" height=\"%s\" viewBox=\"0 0 %s %s\" "
		       "xmlns=\"http://www.w3.org/2000/svg\">\n", a, b, a, b);
	fl_puts(out, "<!-- Flame graph written by pprof-flame: flamegraph.pl's geometry and "
		     "options; click a frame to zoom, Ctrl-F to search. -->\n");
	fl_puts(out, "<!-- NOTES: ");
	if (o->notes) {
		/* A comment may not hold "--"; keep the text, break the pairs. */
		const char *s = o->notes;
		size_t n = strlen(s), run = 0;
		for (size_t i = 0; i < n; i++) {
			if (s[i] == '-' && (i + 1 == n || s[i + 1] == '-')) {
				fl_xml(out, s + run, i + 1 - run, FL_ESC_TEXT);
				fl_puts(out, " ");
				run = i + 1;
			}
		}
		fl_xml(out, s + run, n - run, FL_ESC_TEXT);
	}
	fl_puts(out, " -->\n");
	fl_printf(out, "<defs><linearGradient id=\"background\" y1=\"0\" y2=\"1\" x1=\"0\" x2=\"0\">"
		       "<stop stop-color=\"%s\" offset=\"5%%\"/><stop stop-color=\"%s\" "
		       "offset=\"95%%\"/></linearGradient></defs>\n", bg1, bg2);
	char fs[64];
	size_t fsn = fl_perlnum(fs, o->fontsize);
	fs[fsn] = '\0';
	char ts[64];
	size_t tsn = fl_perlnum(ts, o->fontsize + 5);
	ts[tsn] = '\0';
	fl_puts(out, "<style type=\"text/css\">\n");
	fl_puts(out, "text { font-family:");
	fl_xml_cstr(out, o->fonttype, FL_ESC_TEXT);
	fl_printf(out, "; font-size:%spx; fill:rgb(0,0,0); }\n", fs);
	fl_puts(out, "#search, #ignorecase { fill:rgb(70,70,70); cursor:pointer; }\n"
		     "#search:hover, #search.show, #ignorecase:hover, #ignorecase.show { fill:rgb(0,0,0); "
		     "text-decoration:underline; }\n"
		     "#subtitle { text-anchor:middle; fill:rgb(160,160,160); }\n");
	fl_printf(out, "#title { text-anchor:middle; font-size:%spx; }\n", ts);
	fl_puts(out, "#unzoom { cursor:pointer; }\n"
		     "#frames > *:hover { stroke:black; stroke-width:0.5; cursor:pointer; }\n"
		     ".hide { display:none; }\n"
		     ".parent { opacity:0.5; }\n"
		     "#frames > .m > rect { fill:rgb(230,0,230); }\n"
		     "</style>\n");
	char tmp[64];
	size_t tn;
	fl_printf(out, "<rect x=\"0.0\" y=\"0\" width=\"%.1f\" height=\"%.1f\" "
		       "fill=\"url(#background)\"/>\n", o->width, W.imageheight);
	fl_printf(out, "<text id=\"title\" x=\"%.2f\" y=\"", (double)(int64_t)(o->width / 2));
	tn = fl_perlnum(tmp, o->fontsize * 2);
	fl_put(out, tmp, tn);
	fl_puts(out, "\">");
	fl_xml_cstr(out, title, FL_ESC_TEXT);
	fl_puts(out, "</text>\n");
	if (subtitle) {
		fl_printf(out, "<text id=\"subtitle\" x=\"%.2f\" y=\"", (double)(int64_t)(o->width / 2));
		tn = fl_perlnum(tmp, o->fontsize * 4);
		fl_put(out, tmp, tn);
		fl_puts(out, "\">");
		fl_xml_cstr(out, subtext, FL_ESC_TEXT);
		fl_puts(out, "</text>\n");
	}
	char ybot[64], ytop[64];
	size_t ybn = fl_perlnum(ybot, W.imageheight - details_pad / 2);
	ybot[ybn] = '\0';
	size_t ytn = fl_perlnum(ytop, o->fontsize * 2);
	ytop[ytn] = '\0';
	fl_printf(out, "<text id=\"details\" x=\"10.00\" y=\"%s\"> </text>\n", ybot);
	fl_printf(out, "<text id=\"unzoom\" x=\"10.00\" y=\"%s\" class=\"hide\">Reset Zoom</text>\n", ytop);
	fl_printf(out, "<text id=\"search\" x=\"%.2f\" y=\"%s\">Search</text>\n", o->width - 110, ytop);
	fl_printf(out, "<text id=\"ignorecase\" x=\"%.2f\" y=\"%s\">ic</text>\n", o->width - 26, ytop);
	fl_printf(out, "<text id=\"matched\" x=\"%.2f\" y=\"%s\" class=\"hide\"> </text>\n",
		  o->width - 110, ybot);

	if (W.axis)
		fl_axis(&W, W.imageheight - W.ypad2 + 2);

	/* The drawing parameters, for the script. */
	double y0 = (o->flags & PPROF_FLAME_INVERTED) ? W.ypad1
						      : W.imageheight - W.ypad2 - o->frameheight + 1;
	fl_puts(out, "<g id=\"frames\" total=\"");
	tn = fl_exact(tmp, timemax);
	fl_put(out, tmp, tn);
	if (W.axis) {
		fl_puts(out, "\" start=\"");
		tn = fl_exact(tmp, W.time0);
		fl_put(out, tmp, tn);
	}
	fl_puts(out, "\" imagewidth=\"");
	tn = fl_exact(tmp, o->width);
	fl_put(out, tmp, tn);
	fl_puts(out, "\" frameheight=\"");
	tn = fl_exact(tmp, o->frameheight);
	fl_put(out, tmp, tn);
	fl_puts(out, "\" y0=\"");
	tn = fl_exact(tmp, y0);
	fl_put(out, tmp, tn);
	fl_puts(out, "\" fontsize=\"");
	tn = fl_exact(tmp, o->fontsize);
	fl_put(out, tmp, tn);
	fl_puts(out, "\" fontwidth=\"");
	tn = fl_exact(tmp, o->fontwidth);
	fl_put(out, tmp, tn);
	if (o->factor != 1) {
		fl_puts(out, "\" factor=\"");
		tn = fl_exact(tmp, o->factor);
		fl_put(out, tmp, tn);
	}
	if (o->flags & PPROF_FLAME_INVERTED)
		fl_puts(out, "\" inverted=\"1");
	if (W.freetails)
		fl_puts(out, "\" tails=\"free");
	fl_puts(out, "\" nametype=\"");
	fl_xml_cstr(out, o->nametype, FL_ESC_ATTR);
	fl_puts(out, "\" countname=\"");
	fl_xml_cstr(out, o->countname, FL_ESC_ATTR);
	fl_puts(out, "\">\n");

	for (size_t i = 0; i < L.n; i++) {
		const struct fl_node *nd = &L.nodes[i];
		fl_frame(&W, nd, nd->depth == 0);
	}
	fl_puts(out, "</g>\n<script type=\"text/ecmascript\"><![CDATA[\n");
	fl_put(out, pp_flame_script, sizeof(pp_flame_script) - 1);
	fl_puts(out, "]]></script>\n</svg>\n");
	fl_flush(out);
	if (out->err || ferror(file))
		status = fl_error(f, PPROF_EIO, "write error: %s", strerror(errno ? errno : EIO));
	free(W.col.cp);
	free(autosub);
out:
	free(out);
	free(L.nodes);
	free(L.open);
	return status;
}

/* The number of attribute NAME (" name=\"") in [S, END), or -1. */
static double fl_svg_attr(const char *s, const char *end, const char *name)
{
	size_t k = strlen(name);
	for (const char *q = s; q + k + 3 <= end; q++) {
		if (q[0] == ' ' && memcmp(q + 1, name, k) == 0 && q[k + 1] == '=' && q[k + 2] == '"') {
			char *e;
			double d = strtod(q + k + 3, &e);
			return e > q + k + 3 && e < end && *e == '"' ? d : -1;
		}
	}
	return -1;
}

static const char *fl_find(const char *s, size_t n, const char *needle)
{
	size_t k = strlen(needle);
	for (size_t i = 0; i + k <= n; i++)
		if (memcmp(s + i, needle, k) == 0)
			return s + i;
	return NULL;
}

int pprof_flame_stack_svgs(const char *const *svgs, const size_t *lens, size_t n, FILE *file)
{
	const char *mark = "\n<svg version=\"1.1\" ";
	double width = 0, height = 0;
	for (size_t i = 0; i < n; i++) {
		const char *at = fl_find(svgs[i], lens[i], mark);
		const char *gt = at ? memchr(at, '>', lens[i] - (size_t)(at - svgs[i])) : NULL;
		double w = gt ? fl_svg_attr(at, gt, "width") : -1;
		double h = gt ? fl_svg_attr(at, gt, "height") : -1;
		if (w < 0 || h < 0 || !fl_find(svgs[i], lens[i], "<g id=\"frames\" "))
			return PPROF_EINPUT;
		if (w > width)
			width = w;
		height += h;
	}
	char a[64], b[64];
	a[fl_perlnum(a, width)] = '\0';
	b[fl_perlnum(b, height)] = '\0';
	fprintf(file, "<?xml version=\"1.0\" standalone=\"no\"?>\n"
		      "<svg version=\"1.1\" width=\"%s\" height=\"%s\" viewBox=\"0 0 %s %s\" "
		      "xmlns=\"http://www.w3.org/2000/svg\">\n", a, b, a, b);
	double y = 0;
	for (size_t i = 0; i < n; i++) {
		const char *s = svgs[i], *end = s + lens[i];
		const char *at = fl_find(s, lens[i], mark) + 1;
		const char *gt = memchr(at, '>', (size_t)(end - at));
		const char *fr = fl_find(s, lens[i], "<g id=\"frames\" ") + 15;
		char yy[64];
		yy[fl_perlnum(yy, y)] = '\0';
		/* "<svg" y="Y" ... up to the frames' group, then its number. */
		fprintf(file, "<svg y=\"%s\"", yy);
		fwrite(at + 4, 1, (size_t)(fr - at - 4), file);
		if (i > 0)
			fprintf(file, "chart=\"%zu\" ", i + 1);
		fwrite(fr, 1, (size_t)(end - fr), file);
		y += fl_svg_attr(at, gt, "height");
	}
	fputs("</svg>\n", file);
	return ferror(file) ? PPROF_EIO : PPROF_OK;
}
