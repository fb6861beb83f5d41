/* sourcemap-lookup: original positions and names for generated positions. */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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

/* Positions read and not yet printed.  Those with a column are looked up
 * together (smap_lookup_many(), in the order of the map), the others one
 * by one; all are printed in the order read. */
struct batch {
	size_t n, cap, room; /* positions: read, at most, room for */
	unsigned char *kind; /* each one's POS_ */
	size_t ncol;         /* with a column: */
	uint32_t *lines, *cols;
	struct smap_mapping *res;
	int *rc;
	size_t nline, lroom; /* a line alone: */
	uint32_t *lline;
	struct smap_mapping *lres;
	int *lrc;
	char *text; /* bad positions: each its size_t length and bytes */
	size_t tlen, tcap;
};

enum { POS_COL, POS_LINE, POS_BAD };

/* Stdin is read in batches of this many positions, or fewer when the bad
 * ones' text passes BATCH_TEXT bytes. */
#define BATCH_POS ((size_t)1 << 20)
#define BATCH_TEXT ((size_t)1 << 20)
/* Room for this many at first. */
#define BATCH_FIRST ((size_t)1 << 17)

static void batch_free(struct batch *b)
{
	free(b->kind);
	free(b->lines);
	free(b->cols);
	free(b->res);
	free(b->rc);
	free(b->lline);
	free(b->lres);
	free(b->lrc);
	free(b->text);
}

/* At most CAP positions at a time (the arrays grow up to it). */
static void batch_init(struct batch *b, size_t cap)
{
	memset(b, 0, sizeof(*b));
	b->cap = cap ? cap : 1;
}

/* Grows array P to NC elements, or returns false. */
#define GROW(p, nc)                                           \
	do {                                                  \
		void *q_ = realloc((p), (nc) * sizeof(*(p))); \
		if (!q_)                                      \
			return false;                         \
		(p) = q_;                                     \
	} while (0)

/* Adds position S (N bytes).  False when out of memory. */
static bool batch_add(struct batch *b, const char *s, size_t n, bool zero)
{
	uint32_t line, col;
	bool has_col;

	if (b->n == b->room) {
		/* grown as needed: most inputs are far below a batch; not from
		 * a few, which costs a page fault per 4 KiB copied */
		size_t nc = b->room ? b->room * 2 : BATCH_FIRST;

		if (nc > b->cap)
			nc = b->cap;
		GROW(b->kind, nc);
		GROW(b->lines, nc);
		GROW(b->cols, nc);
		GROW(b->res, nc);
		GROW(b->rc, nc);
		b->room = nc;
	}
	if (!parse_pos(s, n, zero, &line, &col, &has_col)) {
		size_t need = sizeof(n) + n;

		if (n > SIZE_MAX - sizeof(n) - b->tlen)
			return false;
		if (b->tcap - b->tlen < need) {
			size_t nc = b->tcap * 2 > b->tlen + need ? b->tcap * 2 : b->tlen + need;
			char *t = realloc(b->text, nc);

			if (!t)
				return false;
			b->text = t;
			b->tcap = nc;
		}
		memcpy(b->text + b->tlen, &n, sizeof(n));
		memcpy(b->text + b->tlen + sizeof(n), s, n);
		b->tlen += need;
		b->kind[b->n++] = POS_BAD;
	} else if (has_col) {
		b->lines[b->ncol] = line;
		b->cols[b->ncol++] = col;
		b->kind[b->n++] = POS_COL;
	} else {
		if (b->nline == b->lroom) {
			size_t nc = b->lroom ? b->lroom * 2 : 256;

			if (nc > b->cap)
				nc = b->cap;
			GROW(b->lline, nc);
			GROW(b->lres, nc);
			GROW(b->lrc, nc);
			b->lroom = nc;
		}
		b->lline[b->nline++] = line;
		b->kind[b->n++] = POS_LINE;
	}
	return true;
}

/* Looks up the positions of B.  In an index map, the lines alone are
 * looked up between the columns before and after them, as one by one. */
static void batch_lookup(struct batch *b, struct smap_map *m)
{
	bool index = smap_map_is_index(m);
	size_t i, j = 0, k = 0, from = 0;

	for (i = 0; i < b->n; i++) {
		if (b->kind[i] == POS_COL)
			j++;
		if (b->kind[i] != POS_LINE)
			continue;
		if (index) {
			smap_lookup_many(m, j - from, b->lines + from, b->cols + from,
					 b->res + from, b->rc + from);
			from = j;
		}
		b->lrc[k] = smap_lookup_line(m, b->lline[k], &b->lres[k]);
		k++;
	}
	smap_lookup_many(m, j - from, b->lines + from, b->cols + from, b->res + from, b->rc + from);
}

/* Prints the positions of B in order, and empties it. */
static void batch_print(FILE *out, struct batch *b, struct smap_map *m, bool zero, bool func,
			bool *bad, struct cli *c)
{
	size_t i, j = 0, k = 0, t = 0;
	unsigned add = zero ? 0 : 1;

	for (i = 0; i < b->n; i++) {
		struct smap_mapping r;
		uint32_t line = 0, col = 0;
		bool has_col = b->kind[i] == POS_COL;
		int rc;

		if (b->kind[i] == POS_BAD) {
			size_t n;

			memcpy(&n, b->text + t, sizeof(n));
			cli_error(c, "bad position '%.*s' (expected %s)", (int)n,
				  b->text + t + sizeof(n),
				  zero ? "LINE:COL, 0-based" : "LINE:COL, 1-based");
			t += sizeof(n) + n;
			*bad = true;
			fputs("-\n", out);
			continue;
		}
		if (has_col) {
			line = b->lines[j];
			col = b->cols[j];
			r = b->res[j];
			rc = b->rc[j++];
		} else {
			r = b->lres[k];
			rc = b->lrc[k++];
		}
		if (rc == SMAP_NONE) {
			fputs("-\n", out);
			continue;
		}
		if (rc != SMAP_OK) {
			cli_error(c, "%s", smap_map_error(m));
			*bad = true;
			fputs("-\n", out);
			continue;
		}
		/* by hand: a hundred thousand positions make printf show */
		if (func) {
			struct smap_function f;

			r.name = NULL;
			if (has_col && smap_function_at(m, line, col, &f) != SMAP_OK) {
				cli_error(c, "%s", smap_map_error(m));
				*bad = true;
			} else if (has_col && f.name && f.foreign != 1) {
				/* not where the script and map are another
				 * build's than the script's own (pprof-fold -m
				 * leaves that frame as V8 named it) */
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
	b->n = b->ncol = b->nline = b->tlen = 0;
}

/* Looks up and prints the positions of B. */
static void batch_run(FILE *out, struct batch *b, struct smap_map *m, bool zero, bool func,
		      bool *bad, struct cli *c)
{
	batch_lookup(b, m);
	batch_print(out, b, m, zero, func, bad, c);
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
	struct batch b = {0};
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
	/* a user typing positions sees each answer at once */
	batch_init(&b, optind < argc          ? (size_t)(argc - optind)
		       : isatty(STDIN_FILENO) ? 1
					      : BATCH_POS);
	if (optind < argc) {
		for (i = optind; i < argc; i++)
			if (!batch_add(&b, argv[i], strlen(argv[i]), zero))
				goto nomem;
		batch_run(out, &b, m, zero, func, &bad, &c);
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
			if (!batch_add(&b, s, (size_t)n, zero)) {
				free(line);
				goto nomem;
			}
			if (b.n == b.cap || b.tlen >= BATCH_TEXT)
				batch_run(out, &b, m, zero, func, &bad, &c);
		}
		free(line);
		batch_run(out, &b, m, zero, func, &bad, &c);
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
	goto done;
nomem:
	cli_error(&c, "out of memory");
done:
	batch_free(&b);
	smap_map_free(m);
	cli_release(&c);
	return status;
}
