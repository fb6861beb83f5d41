/*
 * find.c: from a script to its map: the sourceMappingURL comment
 * (ECMA-426 "JavaScriptExtractSourceMapURL", without parsing), data: URLs,
 * and URLs that name local files.
 */
#include "smap_private.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* Length of the whitespace or line terminator (JavaScript's \s) at P, or
 * 0.  UTF-8. */
static size_t ws_len(const unsigned char *p, const unsigned char *end)
{
	size_t n = (size_t)(end - p);

	if (n == 0)
		return 0;
	switch (p[0]) {
	case ' ': case '\t': case '\n': case '\v': case '\f': case '\r':
		return 1;
	case 0xc2:
		return n >= 2 && p[1] == 0xa0 ? 2 : 0;
	case 0xe1:
		return n >= 3 && p[1] == 0x9a && p[2] == 0x80 ? 3 : 0;
	case 0xe2:
		if (n < 3)
			return 0;
		if (p[1] == 0x80 && ((p[2] >= 0x80 && p[2] <= 0x8a) ||
				     p[2] == 0xa8 || p[2] == 0xa9 || p[2] == 0xaf))
			return 3;
		if (p[1] == 0x81 && p[2] == 0x9f)
			return 3;
		return 0;
	case 0xe3:
		return n >= 3 && p[1] == 0x80 && p[2] == 0x80 ? 3 : 0;
	case 0xef:
		return n >= 3 && p[1] == 0xbb && p[2] == 0xbf ? 3 : 0;
	}
	return 0;
}

/* MatchSourceMapURL: ^[@#]\s*sourceMappingURL=(\S*?)\s*$ */
static const char *match_url(const unsigned char *p, const unsigned char *end,
			     size_t *len)
{
	static const char key[] = "sourceMappingURL=";
	const unsigned char *u;
	size_t w;

	if (p == end || (*p != '@' && *p != '#'))
		return NULL;
	p++;
	while ((w = ws_len(p, end)))
		p += w;
	if ((size_t)(end - p) < sizeof(key) - 1 ||
	    memcmp(p, key, sizeof(key) - 1) != 0)
		return NULL;
	p += sizeof(key) - 1;
	u = p;
	while (p < end && !ws_len(p, end))
		p++;
	*len = (size_t)(p - u);
	while (p < end && (w = ws_len(p, end)))
		p += w;
	return p == end ? (const char *)u : NULL;
}

/* Whether a comment holds what makes ECMA-426 give up: a quote, or the end
 * of a block comment (the line may be inside a string or a comment). */
static bool suspicious(const unsigned char *p, const unsigned char *end)
{
	for (; p < end; p++) {
		if (*p == '"' || *p == '\'' || *p == '`')
			return true;
		if (*p == '*' && p + 1 < end && p[1] == '/')
			return true;
	}
	return false;
}

const char *smap_script_find_url(const void *script, size_t len,
				 size_t *url_len)
{
	const unsigned char *s = script, *lend = s + len;

	*url_len = 0;
	for (;;) {
		const unsigned char *lstart = lend, *p;
		size_t w;

		/* back to the start of this line */
		while (lstart > s) {
			unsigned char c = lstart[-1];

			if (c == '\n' || c == '\r')
				break;
			if ((c == 0xa8 || c == 0xa9) && lstart - s >= 3 &&
			    lstart[-2] == 0x80 && lstart[-3] == 0xe2)
				break;
			lstart--;
		}
		p = lstart;
		while (p < lend) {
			if (*p == '/' && p + 1 < lend) {
				const char *u;

				if (p[1] != '/')
					return NULL;
				p += 2;
				if (suspicious(p, lend))
					return NULL;
				u = match_url(p, lend, url_len);
				if (u)
					return u;
				p = lend;
			} else if ((w = ws_len(p, lend))) {
				p += w;
			} else {
				return NULL;
			}
		}
		if (lstart == s)
			return NULL;
		/* past the terminator */
		lend = lstart - 1;
		if (*lend == 0xa8 || *lend == 0xa9)
			lend -= 2;
	}
}

bool smap_url_is_data(const char *url, size_t len)
{
	return len >= 5 && (url[0] | 0x20) == 'd' && (url[1] | 0x20) == 'a' &&
	       (url[2] | 0x20) == 't' && (url[3] | 0x20) == 'a' && url[4] == ':';
}

static int hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* Percent-decodes S into OUT (room for n bytes); returns the length. */
static size_t pct_decode(const char *s, size_t n, char *out)
{
	size_t i, o = 0;

	for (i = 0; i < n; i++) {
		if (s[i] == '%' && i + 2 < n && hexval(s[i + 1]) >= 0 &&
		    hexval(s[i + 2]) >= 0) {
			out[o++] = (char)(hexval(s[i + 1]) * 16 + hexval(s[i + 2]));
			i += 2;
		} else {
			out[o++] = s[i];
		}
	}
	return o;
}

int smap_data_url_decode(const char *url, size_t len, char **out,
			 size_t *out_len)
{
	const char *comma, *data;
	size_t hlen, n, i, o = 0;
	bool b64 = false;
	char *buf;

	*out = NULL;
	*out_len = 0;
	if (!smap_url_is_data(url, len))
		return SMAP_EINPUT;
	comma = memchr(url, ',', len);
	if (!comma)
		return SMAP_EINPUT;
	hlen = (size_t)(comma - url);
	if (hlen >= 5 + 7 && strncasecmp(comma - 7, ";base64", 7) == 0)
		b64 = true;
	data = comma + 1;
	n = len - hlen - 1;
	buf = malloc(n + 1);
	if (!buf)
		return SMAP_ENOMEM;
	if (!b64) {
		o = pct_decode(data, n, buf);
	} else {
		uint32_t acc = 0;
		int bits = 0;
		char *tmp = malloc(n + 1);
		size_t tn;

		if (!tmp) {
			free(buf);
			return SMAP_ENOMEM;
		}
		/* base64 in a URL may itself be percent-encoded */
		tn = pct_decode(data, n, tmp);
		for (i = 0; i < tn; i++) {
			unsigned char c = (unsigned char)tmp[i];
			int v;

			if (c >= 'A' && c <= 'Z')
				v = c - 'A';
			else if (c >= 'a' && c <= 'z')
				v = c - 'a' + 26;
			else if (c >= '0' && c <= '9')
				v = c - '0' + 52;
			else if (c == '+' || c == '-')
				v = 62;
			else if (c == '/' || c == '_')
				v = 63;
			else if (c == '=')
				break;
			else if (c == ' ' || c == '\t' || c == '\n' || c == '\r' ||
				 c == '\f')
				continue;
			else {
				free(tmp);
				free(buf);
				return SMAP_EINPUT;
			}
			acc = (acc << 6) | (uint32_t)v;
			bits += 6;
			if (bits >= 8) {
				bits -= 8;
				buf[o++] = (char)((acc >> bits) & 0xff);
			}
		}
		free(tmp);
	}
	buf[o] = '\0';
	*out = buf;
	*out_len = o;
	return SMAP_OK;
}

char *smap_url_to_path(const char *script_path, const char *url,
		       size_t url_len)
{
	size_t n = url_len, i, dl = 0, o;
	char *path;
	const char *slash;

	for (i = 0; i < n; i++)
		if (url[i] == '?' || url[i] == '#') {
			n = i;
			break;
		}
	if (n >= 7 && strncasecmp(url, "file://", 7) == 0) {
		const char *p = memchr(url + 7, '/', n - 7);

		/* file://host/path: only the local host */
		if (!p)
			return NULL;
		if (p != url + 7 && !((size_t)(p - url - 7) == 9 &&
				      strncasecmp(url + 7, "localhost", 9) == 0))
			return NULL;
		n -= (size_t)(p - url);
		url = p;
	} else {
		/* any other scheme (two letters or more) is not a file */
		for (i = 0; i < n; i++) {
			char c = url[i];

			if (c == ':' && i >= 2)
				return NULL;
			if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
			      (i > 0 && ((c >= '0' && c <= '9') || c == '+' ||
					 c == '-' || c == '.'))))
				break;
		}
		if (n == 0)
			return NULL;
		if (url[0] != '/' && script_path &&
		    (slash = strrchr(script_path, '/')))
			dl = (size_t)(slash - script_path) + 1;
	}
	path = malloc(dl + n + 1);
	if (!path)
		return NULL;
	if (dl) /* script_path may be NULL: memcpy wants a pointer */
		memcpy(path, script_path, dl);
	o = dl + pct_decode(url, n, path + dl);
	path[o] = '\0';
	return path;
}

int smap_map_load_url(struct smap_map *m, const char *script_path,
		      const char *url, size_t url_len, unsigned flags)
{
	char *buf, *path;
	size_t len;
	int rc;

	if (smap_url_is_data(url, url_len)) {
		rc = smap_data_url_decode(url, url_len, &buf, &len);
		if (rc == SMAP_ENOMEM)
			return pp_smap_fail(m, rc, "out of memory");
		if (rc)
			return pp_smap_fail(m, SMAP_EINPUT, "malformed data: URL");
		rc = smap_map_parse(m, buf, len, flags);
		free(buf);
		return rc;
	}
	path = smap_url_to_path(script_path, url, url_len);
	if (!path)
		return pp_smap_fail(m, SMAP_EUSAGE,
				    "%.*s: not a local file", (int)(url_len > 200 ? 200 : url_len),
				    url);
	rc = smap_map_load_file(m, path, flags);
	free(path);
	return rc;
}
