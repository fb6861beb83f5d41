/* sourcemap-lookup: original positions and names for generated positions. */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "sourcemap.h"

enum {
	OPT_ZERO = CLI_OPT_FIRST_TOOL,
	OPT_VALIDATE,
	OPT_FUNCTION,
	OPT_SCRIPT,
	OPT_SOURCE_PATH,
};

static void usage(FILE *out)
{
	fputs("usage: sourcemap-lookup [--zero-based] [--validate] [--function]\n"
	      "                        [--script=file] [--source-path=dir]\n"
	      "                        [-o file] [--quiet]\n"
	      "                        map [line:col ...]\n"
	      "\n"
	      "Prints \"SOURCE:LINE:COL NAME\" for each generated position, one line\n"
	      "per position in order, \"-\" when nothing maps there (\"?\" stands for a\n"
	      "null source; NAME is left out when the map has none).  Positions come\n"
	      "from the arguments, or from standard input one per line (blank lines\n"
	      "skipped).  A position is LINE:COL, or LINE alone (then only when all\n"
	      "segments of the line agree); anything before them is ignored, and so\n"
	      "is a \")\" after them: a stack trace's \"at f (worker.js:1:48212)\" or\n"
	      "\"f@worker.js:1:48212\" is a position.  A bad position prints \"-\", is\n"
	      "named on standard error, and makes the exit status 1 once all are done.\n"
	      "Lines and columns are 1-based, as stack traces print them.\n"
	      "\n"
	      "      --zero-based  lines and columns are 0-based (V8 profiles, the format)\n"
	      "      --validate    check the map strictly against ECMA-426 first: exit 1\n"
	      "                    with the reason when it is invalid; without positions\n"
	      "                    on the command line, only check\n"
	      "      --function    NAME is the original function that starts at the\n"
	      "                    position (a profile's call frame), as pprof-fold -m\n"
	      "                    names it, not the segment's name\n"
	      "      --script=FILE the generated script (default: the map's name\n"
	      "                    without .map, when it exists), for --function\n"
	      "      --source-path=DIR the original sources, for --function where the\n"
	      "                    map has no sourcesContent\n"
	      "  -o, --output=FILE write FILE atomically instead of standard output\n"
	      "      --quiet       no warnings about skipped parts of the map\n"
	      "      --help, --version\n",
	      out);
}

static bool parse_u32(const char *s, size_t n, uint32_t *out)
{
	uint64_t v = 0;
	size_t i;

	if (n == 0 || n > 10)
		return false;
	for (i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return false;
		v = v * 10 + (uint64_t)(s[i] - '0');
	}
	if (v > UINT32_MAX)
		return false;
	*out = (uint32_t)v;
	return true;
}

/* "[anything:]LINE[:COL]", trimmed, as stack traces print it: a
 * trailing ")" is dropped, so "at f (worker.js:1:2100)", Firefox's
 * "f@worker.js:1:2100" and "worker.js:1:2100" all give 1:2100.  *HAS_COL
 * false for LINE alone. */
static bool parse_pos(const char *s, size_t n, bool zero, uint32_t *line,
		      uint32_t *col, bool *has_col)
{
	const char *c1, *c2 = NULL;
	size_t i;

	while (n > 0 && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\r'))
		n--;
	if (n > 0 && s[n - 1] == ')')
		n--;

	c1 = NULL;
	for (i = n; i > 0; i--) {
		if (s[i - 1] == ':') {
			if (!c1)
				c1 = s + i - 1;
			else {
				c2 = s + i - 1;
				break;
			}
		}
	}
	if (!c1) {
		if (!parse_u32(s, n, line))
			return false;
		*has_col = false;
		*col = 0;
	} else {
		const char *ls = c2 ? c2 + 1 : s;

		if (!parse_u32(c1 + 1, (size_t)(s + n - c1 - 1), col))
			return false;
		if (!parse_u32(ls, (size_t)(c1 - ls), line)) {
			/* "file:LINE" */
			if (!c2 && c1 > s) {
				*line = *col;
				*col = 0;
				*has_col = false;
				goto check;
			}
			return false;
		}
		*has_col = true;
	}
check:
	if (!zero) {
		if (*line == 0 || (*has_col && *col == 0))
			return false;
		(*line)--;
		if (*has_col)
			(*col)--;
	}
	return true;
}

/* SEP and the decimal digits of V. */
static void put_num(FILE *out, char sep, uint64_t v)
{
	char buf[24];
	size_t i = sizeof(buf);

	do {
		buf[--i] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	buf[--i] = sep;
	fwrite(buf + i, 1, sizeof(buf) - i, out);
}

static void print_result(FILE *out, struct smap_map *m, const char *s,
			 size_t n, bool zero, bool func, bool *bad, struct cli *c)
{
	struct smap_mapping r;
	uint32_t line, col;
	bool has_col;
	int rc;
	unsigned add = zero ? 0 : 1;

	if (!parse_pos(s, n, zero, &line, &col, &has_col)) {
		cli_error(c, "bad position '%.*s' (expected %s)", (int)n, s,
			  zero ? "LINE:COL, 0-based" : "LINE:COL, 1-based");
		*bad = true;
		fputs("-\n", out);
		return;
	}
	rc = has_col ? smap_lookup(m, line, col, &r) :
		       smap_lookup_line(m, line, &r);
	if (rc == SMAP_NONE) {
		fputs("-\n", out);
		return;
	}
	if (rc != SMAP_OK) {
		cli_error(c, "%s", smap_map_error(m));
		*bad = true;
		fputs("-\n", out);
		return;
	}
	/* by hand: a hundred thousand positions make printf show */
	if (func) {
		struct smap_function f;

		r.name = NULL;
		if (has_col && smap_function_at(m, line, col, &f) != SMAP_OK) {
			cli_error(c, "%s", smap_map_error(m));
			*bad = true;
		} else if (has_col && f.name) {
			r.name = f.name[0] ? f.name : "(anonymous)";
		}
	}
	fputs(r.source ? r.source : "?", out);
	put_num(out, ':', (uint64_t)r.line + add);
	put_num(out, ':', (uint64_t)r.column + add);
	if (r.name) {
		fputc(' ', out);
		fputs(r.name, out);
	}
	fputc('\n', out);
}

/* The generated script for --function: FILE, else the map's name without
 * ".map" when it exists.  False after an error. */
static bool load_script(struct cli *c, struct smap_map *m, const char *map,
			const char *file)
{
	char *def = NULL;
	FILE *f;
	size_t n = strlen(map);
	bool ok = false;

	if (!file) {
		if (n <= 4 || strcmp(map + n - 4, ".map") != 0)
			return true;
		if (!(def = strdup(map)))
			goto nomem;
		def[n - 4] = '\0';
		file = def;
	}
	f = fopen(file, "rb");
	if (!f) {
		bool given = !def;

		if (given)
			cli_error(c, "%s: %s", file, strerror(errno));
		free(def);
		return !given; /* the default script may be absent */
	}
	{
		char *buf = NULL, *nb;
		size_t len = 0, cap = 0, got;

		for (;;) {
			if (len == cap) {
				cap = cap ? cap * 2 : 65536;
				if (!(nb = realloc(buf, cap))) {
					free(buf);
					fclose(f);
					free(def);
					goto nomem;
				}
				buf = nb;
			}
			got = fread(buf + len, 1, cap - len, f);
			len += got;
			if (got == 0)
				break;
		}
		if (ferror(f))
			cli_error(c, "%s: read error", file);
		else if (smap_map_set_script(m, buf, len) != SMAP_OK)
			cli_error(c, "%s", smap_map_error(m));
		else
			ok = true;
		free(buf);
	}
	fclose(f);
	free(def);
	return ok;
nomem:
	cli_error(c, "out of memory");
	return false;
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "zero-based", no_argument, NULL, OPT_ZERO },
		{ "validate", no_argument, NULL, OPT_VALIDATE },
		{ "function", no_argument, NULL, OPT_FUNCTION },
		{ "script", required_argument, NULL, OPT_SCRIPT },
		{ "source-path", required_argument, NULL, OPT_SOURCE_PATH },
		{ "output", required_argument, NULL, 'o' },
		{ "quiet", no_argument, NULL, CLI_OPT_QUIET },
		{ "help", no_argument, NULL, CLI_OPT_HELP },
		{ "version", no_argument, NULL, CLI_OPT_VERSION },
		{ NULL, 0, NULL, 0 },
	};
	struct cli c;
	struct smap_map *m = NULL;
	bool zero = false, validate = false, func = false, bad = false;
	const char *path, *w, *script = NULL, *srcdir = NULL;
	int opt, status = CLI_FAIL, i;
	FILE *out;

	cli_huge_pages(argv);
	cli_init(&c, "sourcemap-lookup", usage);
	while ((opt = cli_getopt(&c, argc, argv, "o:", longopts)) != -1) {
		switch (opt) {
		case OPT_ZERO:
			zero = true;
			break;
		case OPT_VALIDATE:
			validate = true;
			break;
		case OPT_FUNCTION:
			func = true;
			break;
		case OPT_SCRIPT:
			script = optarg;
			break;
		case OPT_SOURCE_PATH:
			srcdir = optarg;
			break;
		default:
			if (!cli_option(&c, opt, optarg))
				cli_usage_error(&c, "unknown option");
		}
	}
	if (optind >= argc)
		cli_usage_error(&c, "no map named");
	path = argv[optind++];
	m = smap_map_new();
	if (!m) {
		cli_error(&c, "out of memory");
		goto done;
	}
	if (smap_map_load_file(m, path, validate ? SMAP_STRICT : 0) != SMAP_OK) {
		cli_error(&c, "%s: %s", path, smap_map_error(m));
		goto done;
	}
	if (validate && optind >= argc) {
		status = CLI_OK;
		goto done;
	}
	if (func && !load_script(&c, m, path, script))
		goto done;
	if (func && ((srcdir && smap_map_set_source_dir(m, srcdir) != SMAP_OK) ||
		     smap_map_set_location(m, path) != SMAP_OK)) {
		cli_error(&c, "%s", smap_map_error(m));
		goto done;
	}
	out = cli_open_output(&c);
	if (!out)
		goto done;
	if (optind < argc) {
		for (i = optind; i < argc; i++)
			print_result(out, m, argv[i], strlen(argv[i]), zero, func,
				     &bad, &c);
	} else {
		char *line = NULL;
		size_t cap = 0;
		ssize_t n;

		while ((n = getline(&line, &cap, stdin)) >= 0) {
			const char *s = line;

			while (n > 0 && (s[n - 1] == '\n' || s[n - 1] == '\r' ||
					 s[n - 1] == ' ' || s[n - 1] == '\t'))
				n--;
			while (n > 0 && (*s == ' ' || *s == '\t')) {
				s++;
				n--;
			}
			if (n == 0)
				continue;
			print_result(out, m, s, (size_t)n, zero, func, &bad, &c);
		}
		free(line);
		if (ferror(stdin)) {
			cli_error(&c, "<stdin>: read error");
			bad = true;
		}
	}
	w = smap_map_warning(m);
	if (w)
		cli_warn(&c, "%s: %s", path, w);
	for (i = 0; func && (size_t)i < smap_map_source_count(m); i++) {
		const char *file;
		unsigned nbad, nchecked;

		if (smap_map_source_file(m, (size_t)i, &file, &nbad, &nchecked) == SMAP_FILE_STALE)
			cli_warn(&c,
				 "%s: %s is not the source it was made from (%u of %u positions "
				 "map onto white space or into a word; edited since the build?): "
				 "not read for names",
				 path, file, nbad, nchecked);
	}
	status = cli_commit(&c);
	if (status == CLI_OK && bad)
		status = CLI_FAIL;
done:
	smap_map_free(m);
	cli_release(&c);
	return status;
}
