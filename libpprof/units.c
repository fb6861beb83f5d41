/* units.c: units as pprof's internal/measurement names and scales them,
 * and the value labels and table units printed with them (its
 * measurement.ScaledLabel, report.selectOutputUnit): the one place for
 * unit names, shared by the tag filters and the top tables. */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pprof_private.h"
#include "top_private.h"

struct unit {
	const char *name;
	const char *alias[3];
	double factor;
};

struct unit_type {
	const struct unit *u;
	size_t n;
	const char *defname;
	double deffactor;
};

static const struct unit byte_units[] = {
	{"B", {"b", "byte", NULL}, 1},
	{"kB", {"kb", "kbyte", "kilobyte"}, 1024.0},
	{"MB", {"mb", "mbyte", "megabyte"}, 1048576.0},
	{"GB", {"gb", "gbyte", "gigabyte"}, 1073741824.0},
	{"TB", {"tb", "tbyte", "terabyte"}, 1099511627776.0},
	{"PB", {"pb", "pbyte", "petabyte"}, 1125899906842624.0},
};

static const struct unit time_units[] = {
	{"ns", {"ns", "nanosecond", NULL}, 1},
	{"us", {"\xce\xbcs", "us", "microsecond"}, 1e3},
	{"ms", {"ms", "millisecond", NULL}, 1e6},
	{"s", {"s", "sec", "second"}, 1e9},
	{"hrs", {"hour", "hr", NULL}, 3600e9},
};

static const struct unit gcu_units[] = {
	{"n*GCU", {"nanogcu", NULL, NULL}, 1e-9},
	{"u*GCU", {"microgcu", NULL, NULL}, 1e-6},
	{"m*GCU", {"milligcu", NULL, NULL}, 1e-3},
	{"GCU", {"gcu", NULL, NULL}, 1},
	{"k*GCU", {"kilogcu", NULL, NULL}, 1e3},
	{"M*GCU", {"megagcu", NULL, NULL}, 1e6},
	{"G*GCU", {"gigagcu", NULL, NULL}, 1e9},
	{"T*GCU", {"teragcu", NULL, NULL}, 1e12},
	{"P*GCU", {"petagcu", NULL, NULL}, 1e15},
};

static const struct unit_type unit_types[] = {
	{byte_units, sizeof(byte_units) / sizeof(byte_units[0]), "B", 1},
	{time_units, sizeof(time_units) / sizeof(time_units[0]), "s", 1e9},
	{gcu_units, sizeof(gcu_units) / sizeof(gcu_units[0]), "GCU", 1},
};

void pp_ascii_lower(char *d, const char *s, size_t size)
{
	size_t i = 0;
	for (; s[i] && i + 1 < size; i++)
		d[i] = s[i] >= 'A' && s[i] <= 'Z' ? (char)(s[i] + 32) : s[i];
	d[i] = '\0';
}

/* pprof's unit look-up: lower case, and one trailing 's' dropped from a
 * name longer than two bytes ("seconds", "bytes"). */
static const struct unit *sniff(const struct unit_type *t, const char *unit)
{
	char s[32];
	size_t n = strlen(unit);
	if (n >= sizeof(s))
		return NULL;
	pp_ascii_lower(s, unit, sizeof(s));
	if (n > 2 && s[n - 1] == 's')
		s[n - 1] = '\0';
	for (size_t i = 0; i < t->n; i++)
		for (size_t a = 0; a < 3 && t->u[i].alias[a]; a++)
			if (strcmp(t->u[i].alias[a], s) == 0)
				return &t->u[i];
	return NULL;
}

static bool is_auto(const char *to)
{
	return strcmp(to, "minimum") == 0 || strcmp(to, "auto") == 0;
}

/* VALUE in FROM as a number of the unit put in *UNIT ("" for counts). */
double pp_unit_scale(int64_t value, const char *from, const char *to, const char **unit)
{
	if (value < 0 && value != INT64_MIN)
		return -pp_unit_scale(-value, from, to, unit);
	for (size_t k = 0; k < sizeof(unit_types) / sizeof(unit_types[0]); k++) {
		const struct unit_type *t = &unit_types[k];
		const struct unit *fu = sniff(t, from);
		if (!fu)
			continue;
		double v = (double)value * fu->factor;
		if (is_auto(to)) {
			double f = 0;
			const char *name = NULL;
			for (size_t i = 0; i < t->n; i++) {
				if (t->u[i].factor >= f && v / t->u[i].factor >= 1.0) {
					f = t->u[i].factor;
					name = t->u[i].name;
				}
			}
			if (f != 0) {
				*unit = name;
				return v / f;
			}
			*unit = t->defname;
			return v / t->deffactor;
		}
		const struct unit *tu = sniff(t, to);
		if (!tu) {
			*unit = t->defname;
			return v / t->deffactor;
		}
		*unit = tu->name;
		return v / tu->factor;
	}
	if (is_auto(to) || strcmp(to, "count") == 0 || strcmp(to, "sample") == 0 ||
	    strcmp(to, "unit") == 0)
		*unit = "";
	else
		*unit = to;
	return (double)value;
}

size_t pprof_value_label(char *buf, size_t size, int64_t value, const char *from_unit,
			 const char *to_unit)
{
	const char *u;
	double v = pp_unit_scale(value, from_unit, to_unit, &u);
	char num[128];
	snprintf(num, sizeof(num), "%.2f", v);
	size_t n = strlen(num);
	if (n >= 3 && strcmp(num + n - 3, ".00") == 0)
		num[n - 3] = '\0';
	int r;
	if (strcmp(num, "0") == 0 || strcmp(num, "-0") == 0)
		r = snprintf(buf, size, "0");
	else
		r = snprintf(buf, size, "%s%s", num, u);
	return r < 0 ? 0 : (size_t)r;
}

void pprof_output_unit(char *buf, size_t size, int64_t min, int64_t max, const char *from_unit)
{
	char su[64];
	pp_ascii_lower(su, from_unit, sizeof(su));
	if (min == 0)
		min = max;
	const char *minu, *maxu, *unit;
	pp_unit_scale(min, su, "minimum", &minu);
	pp_unit_scale(max, su, "minimum", &maxu);
	unit = minu;
	/* Go's int64 arithmetic wraps; so does this. */
	int64_t min100 = (int64_t)((uint64_t)min * 100u);
	if (strcmp(minu, maxu) != 0 && min100 < max)
		pp_unit_scale(min100, su, "minimum", &unit);
	snprintf(buf, size, "%s", *unit ? unit : su);
}

/* measurement.Percentage: at least two significant digits, "100%" near it. */
void pp_percentage(char *buf, size_t size, int64_t value, int64_t total)
{
	double r = 0;
	if (total != 0)
		r = fabs((double)value / (double)total) * 100;
	if (r >= 99.95 && r <= 100.05)
		snprintf(buf, size, "  100%%");
	else if (r >= 1.0)
		snprintf(buf, size, "%5.2f%%", r);
	else
		snprintf(buf, size, "%5.2g%%", r);
}

int pprof_value_parse(const char *text, const char *unit, int64_t *out)
{
	char *end;
	errno = 0;
	double v = strtod(text, &end);
	if (end == text || errno || !(v >= 0) || isinf(v) || !isdigit((unsigned char)*text))
		return PPROF_EUSAGE;
	double f = 1;
	if (*end) {
		/* "MiB": pprof's MB (1024-based) */
		char u[32];
		size_t n = strlen(end);
		if (n >= sizeof(u))
			return PPROF_EUSAGE;
		memcpy(u, end, n + 1);
		if (n == 3 && (u[1] == 'i' || u[1] == 'I') && (u[2] == 'B' || u[2] == 'b'))
			memmove(u + 1, u + 2, 2);
		const struct unit *from = NULL, *to = NULL;
		for (size_t k = 0; k < sizeof(unit_types) / sizeof(unit_types[0]) && !from; k++) {
			const struct unit *a = sniff(&unit_types[k], u),
					  *b = sniff(&unit_types[k], unit);
			if (a && b) {
				from = a;
				to = b;
			}
		}
		if (!from)
			return PPROF_EUSAGE;
		f = from->factor / to->factor;
	}
	double r = v * f + 0.5; /* >= 0: rounded by the cast */
	if (!(r < 9223372036854775808.0))
		return PPROF_EUSAGE;
	*out = (int64_t)r;
	return PPROF_OK;
}

/* ---- pictures' units ---- */

enum pp_human_kind pp_human_kind(const char *unit, double *base)
{
	if (!unit || !*unit)
		return PP_HUMAN_NONE;
	const struct unit *u = sniff(&unit_types[1], unit);
	if (u && u->factor < 3600e9) {
		*base = u->factor;
		return PP_HUMAN_TIME;
	}
	u = sniff(&unit_types[0], unit);
	if (u) {
		*base = u->factor;
		return PP_HUMAN_BYTES;
	}
	return PP_HUMAN_NONE;
}

struct human_unit {
	const char *name;
	double factor;
};

static const struct human_unit human_time[] = {
	{"ns", 1}, {"\xc2\xb5s", 1e3}, {"ms", 1e6}, {"s", 1e9},
};
static const struct human_unit human_bytes[] = {
	{"B", 1}, {"KiB", 1024.0}, {"MiB", 1048576.0}, {"GiB", 1073741824.0},
	{"TiB", 1099511627776.0},
};

size_t pp_human_value(char *buf, size_t size, double value, const char *unit, double resolution,
		      bool sign)
{
	double base = 1;
	enum pp_human_kind k = pp_human_kind(unit, &base);
	const struct human_unit *hu = k == PP_HUMAN_BYTES ? human_bytes : human_time;
	size_t nhu = k == PP_HUMAN_BYTES ? sizeof(human_bytes) / sizeof(human_bytes[0])
					 : sizeof(human_time) / sizeof(human_time[0]);
	double v = value * base, res = resolution * base;
	double mag = v < 0 ? -v : v;
	size_t i = 0;
	while (i + 1 < nhu && mag >= hu[i + 1].factor)
		i++;
	double f = hu[i].factor;
	/* Decimals: a step of the last digit at most RES, or three
	 * significant digits, and never finer than UNIT itself. */
	int d = 0;
	/* Counts with a fraction keep it. */
	double floor_base = mag < 9e15 ? (double)(int64_t)(mag / base) * base : mag;
	double finest = floor_base == mag ? base : 0;
	if (res > 0) {
		double step = f;
		while (d < 6 && step > res && step / 10 >= finest) {
			step /= 10;
			d++;
		}
	} else {
		double m = mag / f;
		d = m >= 100 || f <= finest ? 0 : m >= 10 ? 1 : 2;
	}
	int r = snprintf(buf, size, "%s%.*f %s", sign && v > 0 ? "+" : "", d, v / f, hu[i].name);
	return r < 0 ? 0 : (size_t)r;
}
