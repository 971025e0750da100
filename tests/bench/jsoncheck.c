// SPDX-License-Identifier: GPL-2.0
/*
 * jsoncheck - parse one JSON document strictly (RFC 8259) and check that
 * every value in it is a number, but for members named with -s, which
 * must be strings.  The benchmark's JSON goes through it in the guest,
 * which has no JSON parser, and on the host.
 *
 *   jsoncheck [-s NAME]... [FILE]
 *
 * Reads FILE, or standard input, and prints each scalar as "PATH VALUE":
 * PATH is the member names from the top joined with '.', an array
 * element's index in brackets; VALUE is the value's JSON text.  Exit
 * status 0 when the document parses and every figure is a number; 1
 * otherwise, each problem on standard error (a syntax error with its
 * line and column, stopping there; a value of the wrong type, or a
 * member name given twice in one object, with its path); 2 on a usage
 * error.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_INPUT	(1 << 20)
#define MAX_DEPTH	64
#define MAX_PATH	4096

static const char *text;
static size_t len, pos;
static char path[MAX_PATH];
static size_t path_len;
static const char **strings;	/* the -s names */
static int nstrings;
static int problems;

static void where(size_t at, unsigned int *line, unsigned int *col)
{
	*line = 1;
	*col = 1;
	for (size_t i = 0; i < at && i < len; i++) {
		if (text[i] == '\n') {
			(*line)++;
			*col = 1;
		} else {
			(*col)++;
		}
	}
}

/* a syntax error ends the check */
static void syntax(const char *what)
{
	unsigned int line, col;

	where(pos, &line, &col);
	fprintf(stderr, "jsoncheck: line %u, column %u: %s\n", line, col, what);
	exit(1);
}

static const char *shown_path(void)
{
	return path_len ? path : "(the document)";
}

static void problem(const char *what)
{
	fprintf(stderr, "jsoncheck: %s: %s\n", shown_path(), what);
	problems++;
}

static void skip_ws(void)
{
	while (pos < len && (text[pos] == ' ' || text[pos] == '\t' ||
			     text[pos] == '\n' || text[pos] == '\r'))
		pos++;
}

static int peek(void)
{
	return pos < len ? (unsigned char)text[pos] : -1;
}

static int hex(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

static unsigned int hex4(void)
{
	unsigned int v = 0;

	for (int i = 0; i < 4; i++) {
		int d = hex(peek());

		if (d < 0)
			syntax("\\u needs four hexadecimal digits");
		v = v << 4 | d;
		pos++;
	}
	return v;
}

/* one UTF-8 sequence starting at pos, a byte >= 0x80 */
static void utf8(void)
{
	unsigned char c = text[pos];
	unsigned char lo = 0x80, hi = 0xbf;
	int more;

	if (c >= 0xc2 && c <= 0xdf) {
		more = 1;
	} else if (c >= 0xe0 && c <= 0xef) {
		more = 2;
		if (c == 0xe0)
			lo = 0xa0;	/* no overlong forms */
		if (c == 0xed)
			hi = 0x9f;	/* no surrogates */
	} else if (c >= 0xf0 && c <= 0xf4) {
		more = 3;
		if (c == 0xf0)
			lo = 0x90;
		if (c == 0xf4)
			hi = 0x8f;	/* nothing above U+10FFFF */
	} else {
		syntax("a byte that is not UTF-8");
		return;
	}
	pos++;
	for (int i = 0; i < more; i++, pos++) {
		int b = peek();

		if (b < lo || b > hi)
			syntax("a byte that is not UTF-8");
		lo = 0x80;
		hi = 0xbf;
	}
}

/*
 * A string at pos (its opening quote).  Its decoded bytes go to @out
 * (up to @size - 1 of them, then a NUL) when @out is not NULL; returns
 * the decoded length.
 */
static size_t string(char *out, size_t size)
{
	size_t n = 0;

#define PUT(ch) do { if (out && n + 1 < size) out[n] = (ch); n++; } while (0)
	pos++;
	for (;;) {
		int c = peek();

		if (c < 0)
			syntax("the string does not end");
		if (c == '"') {
			pos++;
			break;
		}
		if (c < 0x20)
			syntax("a control character in a string");
		if (c >= 0x80) {
			size_t from = pos;

			utf8();
			for (; from < pos; from++)
				PUT(text[from]);
			continue;
		}
		pos++;
		if (c != '\\') {
			PUT(c);
			continue;
		}
		c = peek();
		pos++;
		switch (c) {
		case '"': case '\\': case '/':
			PUT(c);
			break;
		case 'b': PUT('\b'); break;
		case 'f': PUT('\f'); break;
		case 'n': PUT('\n'); break;
		case 'r': PUT('\r'); break;
		case 't': PUT('\t'); break;
		case 'u': {
			unsigned int u = hex4();

			if (u >= 0xd800 && u <= 0xdbff) {
				unsigned int lo;

				if (peek() != '\\' || pos + 1 >= len || text[pos + 1] != 'u')
					syntax("a high surrogate without its low one");
				pos += 2;
				lo = hex4();
				if (lo < 0xdc00 || lo > 0xdfff)
					syntax("a high surrogate without its low one");
				u = 0x10000 + ((u - 0xd800) << 10) + (lo - 0xdc00);
			} else if (u >= 0xdc00 && u <= 0xdfff) {
				syntax("a low surrogate on its own");
			}
			/* as UTF-8 */
			if (u < 0x80) {
				PUT(u);
			} else if (u < 0x800) {
				PUT(0xc0 | u >> 6);
				PUT(0x80 | (u & 0x3f));
			} else if (u < 0x10000) {
				PUT(0xe0 | u >> 12);
				PUT(0x80 | (u >> 6 & 0x3f));
				PUT(0x80 | (u & 0x3f));
			} else {
				PUT(0xf0 | u >> 18);
				PUT(0x80 | (u >> 12 & 0x3f));
				PUT(0x80 | (u >> 6 & 0x3f));
				PUT(0x80 | (u & 0x3f));
			}
			break;
		}
		default:
			pos--;
			syntax("an unknown escape in a string");
		}
	}
	if (out)
		out[n < size ? n : size - 1] = '\0';
	return n;
#undef PUT
}

static void digits(void)
{
	if (peek() < '0' || peek() > '9')
		syntax("a digit expected");
	while (peek() >= '0' && peek() <= '9')
		pos++;
}

static void number(void)
{
	if (peek() == '-')
		pos++;
	if (peek() == '0') {
		pos++;
		if (peek() >= '0' && peek() <= '9')
			syntax("a number with a leading zero");
	} else {
		digits();
	}
	if (peek() == '.') {
		pos++;
		digits();
	}
	if (peek() == 'e' || peek() == 'E') {
		pos++;
		if (peek() == '+' || peek() == '-')
			pos++;
		digits();
	}
}

static void literal(const char *word)
{
	size_t n = strlen(word);

	if (len - pos < n || memcmp(text + pos, word, n))
		syntax("a value expected");
	pos += n;
}

static bool named_string(const char *name)
{
	for (int i = 0; name && i < nstrings; i++)
		if (!strcmp(name, strings[i]))
			return true;
	return false;
}

static size_t path_push(const char *fmt, const char *s, size_t i)
{
	size_t was = path_len;
	int n;

	if (s)
		n = snprintf(path + path_len, MAX_PATH - path_len, fmt, s);
	else
		n = snprintf(path + path_len, MAX_PATH - path_len, fmt, i);
	if (n < 0 || (size_t)n >= MAX_PATH - path_len)
		syntax("nested too deep");
	path_len += n;
	return was;
}

static void value(int depth, const char *name);

static void object(int depth)
{
	char **names = NULL;
	size_t nnames = 0;

	pos++;
	skip_ws();
	if (peek() == '}') {
		pos++;
		return;
	}
	for (;;) {
		char name[256];
		size_t n, was;

		skip_ws();
		if (peek() != '"')
			syntax("a member name expected");
		n = string(name, sizeof(name));
		if (n >= sizeof(name) || memchr(name, '\0', n))
			syntax("a member name this check does not take");
		was = path_push(path_len ? ".%s" : "%s", name, 0);
		for (size_t i = 0; i < nnames; i++)
			if (!strcmp(names[i], name))
				problem("a member name given twice");
		names = realloc(names, (nnames + 1) * sizeof(*names));
		if (!names || !(names[nnames++] = strdup(name))) {
			perror("jsoncheck");
			exit(2);
		}
		skip_ws();
		if (peek() != ':')
			syntax("':' expected after a member name");
		pos++;
		value(depth + 1, name);
		path_len = was;
		path[path_len] = '\0';
		skip_ws();
		if (peek() == ',') {
			pos++;
			continue;
		}
		if (peek() == '}') {
			pos++;
			break;
		}
		syntax("',' or '}' expected");
	}
	for (size_t i = 0; i < nnames; i++)
		free(names[i]);
	free(names);
}

static void array(int depth)
{
	size_t i = 0;

	pos++;
	skip_ws();
	if (peek() == ']') {
		pos++;
		return;
	}
	for (;; i++) {
		size_t was = path_push("[%zu]", NULL, i);

		value(depth + 1, NULL);
		path_len = was;
		path[path_len] = '\0';
		skip_ws();
		if (peek() == ',') {
			pos++;
			continue;
		}
		if (peek() == ']') {
			pos++;
			break;
		}
		syntax("',' or ']' expected");
	}
}

/* a value at pos; @name is the member's, NULL in an array or at the top */
static void value(int depth, const char *name)
{
	size_t from;
	bool is_number = false, is_string = false;

	if (depth > MAX_DEPTH)
		syntax("nested too deep");
	skip_ws();
	from = pos;
	switch (peek()) {
	case '{':
		object(depth);
		return;
	case '[':
		array(depth);
		return;
	case '"':
		string(NULL, 0);
		is_string = true;
		break;
	case 't':
		literal("true");
		break;
	case 'f':
		literal("false");
		break;
	case 'n':
		literal("null");
		break;
	case '-':
	case '0' ... '9':
		number();
		is_number = true;
		break;
	default:
		syntax("a value expected");
	}
	printf("%s %.*s\n", path_len ? path : ".", (int)(pos - from), text + from);
	if (named_string(name)) {
		if (!is_string)
			problem("not a string");
	} else if (!is_number) {
		problem("not a number");
	}
}

int main(int argc, char **argv)
{
	static char buf[MAX_INPUT + 1];
	FILE *f = stdin;
	int o;

	strings = calloc(argc, sizeof(*strings));
	if (!strings)
		return 2;
	while ((o = getopt(argc, argv, "s:")) != -1) {
		if (o != 's') {
			fprintf(stderr, "usage: jsoncheck [-s NAME]... [FILE]\n");
			return 2;
		}
		strings[nstrings++] = optarg;
	}
	if (optind + 1 < argc) {
		fprintf(stderr, "usage: jsoncheck [-s NAME]... [FILE]\n");
		return 2;
	}
	if (optind < argc && !(f = fopen(argv[optind], "r"))) {
		perror(argv[optind]);
		return 2;
	}
	len = fread(buf, 1, sizeof(buf), f);
	if (ferror(f) || len > MAX_INPUT) {
		fprintf(stderr, "jsoncheck: cannot read the input, or more than %d bytes\n",
			MAX_INPUT);
		return 2;
	}
	text = buf;
	skip_ws();
	if (pos == len)
		syntax("no JSON value in the input");
	value(0, NULL);
	skip_ws();
	if (pos != len)
		syntax("more after the JSON value");
	fflush(stdout);
	return problems ? 1 : 0;
}
