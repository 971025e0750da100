// SPDX-License-Identifier: GPL-2.0
/*
 * --filter: ftrace's event filter syntax, parsed and checked against a
 * probe's fields before the kernel is given it.
 */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "filter.h"

/* The longest expression taken: it goes into a trigger's line too */
#define FILTER_MAX	1024

/* The kernel's bounds on a value: MAX_FILTER_STR_VAL, its num_buf[24] */
#define STRING_MAX	255
#define NUMBER_MAX	23

enum tok_kind {
	T_END, T_IDENT, T_NUMBER, T_STRING, T_OP, T_AND, T_OR, T_NOT,
	T_OPEN, T_CLOSE,
};

struct token {
	enum tok_kind kind;
	char *text;		/* an ident's, number's or string's, op's */
	int col;		/* where it starts in the expression, from 1 */
};

/* FIELD OP VALUE, by its tokens */
struct pred {
	int field, op, value;
};

struct up_filter {
	struct token *t;
	int nt;
	struct pred *p;
	int np;
	const char **names;	/* the fields named, each once */
	int nnames;
	int pos;		/* the parser's */
};

static void set_err(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
}

static int add_token(struct up_filter *f, enum tok_kind kind,
		     const char *s, size_t len, int col)
{
	struct token *more = realloc(f->t, (f->nt + 1) * sizeof(*more));

	if (!more)
		return -ENOMEM;
	f->t = more;
	more[f->nt].text = strndup(s, len);
	if (!more[f->nt].text)
		return -ENOMEM;
	more[f->nt].kind = kind;
	more[f->nt].col = col;
	f->nt++;
	return 0;
}

/* The operators, longest first */
static const char *const ops[] = {
	"==", "!=", "<=", ">=", "&&", "||", "<", ">", "&", "~", "!", "(", ")",
};

static enum tok_kind op_kind(const char *op)
{
	if (!strcmp(op, "&&"))
		return T_AND;
	if (!strcmp(op, "||"))
		return T_OR;
	if (!strcmp(op, "!"))
		return T_NOT;
	if (!strcmp(op, "("))
		return T_OPEN;
	if (!strcmp(op, ")"))
		return T_CLOSE;
	return T_OP;
}

/* @expr's tokens into @f: 0, -ENOMEM, or -EINVAL with a message */
static int tokenize(struct up_filter *f, const char *expr, char *err,
		    size_t errlen)
{
	const char *s = expr;

	while (*s) {
		int col = s - expr + 1;
		size_t len = 0;
		bool op = false;

		if (isspace((unsigned char)*s)) {
			s++;
			continue;
		}
		for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++)
			if (!strncmp(s, ops[i], strlen(ops[i]))) {
				len = strlen(ops[i]);
				op = true;
				break;
			}
		if (op) {
			if (add_token(f, T_OP, s, len, col))
				return -ENOMEM;
			f->t[f->nt - 1].kind = op_kind(f->t[f->nt - 1].text);
		} else if (*s == '"' || *s == '\'') {
			const char *end = strchr(s + 1, *s);

			if (!end) {
				set_err(err, errlen,
					"--filter: the string at column %d has no closing %c",
					col, *s);
				return -EINVAL;
			}
			if (add_token(f, T_STRING, s + 1, end - s - 1, col))
				return -ENOMEM;
			len = end - s + 1;
		} else if (isdigit((unsigned char)*s) || (*s == '-' &&
			   isdigit((unsigned char)s[1]))) {
			/* all of it, to refuse as one what is not a number */
			len = 1 + strspn(s + 1, "abcdefghijklmnopqrstuvwxyz"
					 "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_");
			if (add_token(f, T_NUMBER, s, len, col))
				return -ENOMEM;
		} else if (isalpha((unsigned char)*s) || *s == '_') {
			len = strspn(s, "abcdefghijklmnopqrstuvwxyz"
				     "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_");
			if (add_token(f, T_IDENT, s, len, col))
				return -ENOMEM;
		} else {
			set_err(err, errlen,
				"--filter: unexpected '%c' at column %d", *s,
				col);
			return -EINVAL;
		}
		s += len;
	}
	return add_token(f, T_END, "", 0, (int)(s - expr) + 1);
}

static const struct token *peek(const struct up_filter *f)
{
	return &f->t[f->pos];
}

/* What the parser found where it expected something else: -EINVAL */
static int expected(struct up_filter *f, const char *what, char *err,
		    size_t errlen)
{
	const struct token *t = peek(f);

	if (t->kind == T_END)
		set_err(err, errlen, "--filter: expected %s at the end",
			what);
	else
		set_err(err, errlen,
			"--filter: expected %s at column %d, not '%s'", what,
			t->col, t->text);
	return -EINVAL;
}

static int note_name(struct up_filter *f, const char *name)
{
	const char **more;

	for (int i = 0; i < f->nnames; i++)
		if (!strcmp(f->names[i], name))
			return 0;
	more = realloc(f->names, (f->nnames + 1) * sizeof(*more));
	if (!more)
		return -ENOMEM;
	f->names = more;
	more[f->nnames++] = name;
	return 0;
}

/* The fields every event has that a filter may name */
static const struct up_filter_field common[] = {
	{ "common_pid", UP_FIELD_SIGNED, 32 },
	{ "comm", UP_FIELD_STRING, 0 },
};

static const struct up_filter_field *common_field(const char *name)
{
	for (size_t i = 0; i < sizeof(common) / sizeof(common[0]); i++)
		if (!strcmp(common[i].name, name))
			return &common[i];
	return NULL;
}

static int parse_or(struct up_filter *f, char *err, size_t errlen);

/* FIELD OP VALUE: 0, -ENOMEM, or -EINVAL with a message */
static int parse_pred(struct up_filter *f, char *err, size_t errlen)
{
	struct pred p = { .field = f->pos };
	struct pred *more;

	if (peek(f)->kind != T_IDENT)
		return expected(f, "a field name, '!' or '('", err, errlen);
	f->pos++;
	if (peek(f)->kind != T_OP)
		return expected(f, "a comparison (== != < <= > >= & ~)", err,
				errlen);
	p.op = f->pos++;
	if (peek(f)->kind != T_NUMBER && peek(f)->kind != T_STRING &&
	    peek(f)->kind != T_IDENT)
		return expected(f, "a number or a string", err, errlen);
	p.value = f->pos++;
	more = realloc(f->p, (f->np + 1) * sizeof(*more));
	if (!more)
		return -ENOMEM;
	f->p = more;
	more[f->np++] = p;
	if (!common_field(f->t[p.field].text) &&
	    note_name(f, f->t[p.field].text))
		return -ENOMEM;
	return 0;
}

static int parse_unary(struct up_filter *f, char *err, size_t errlen)
{
	int r;

	if (peek(f)->kind == T_NOT) {
		f->pos++;
		return parse_unary(f, err, errlen);
	}
	if (peek(f)->kind != T_OPEN)
		return parse_pred(f, err, errlen);
	f->pos++;
	r = parse_or(f, err, errlen);
	if (r)
		return r;
	if (peek(f)->kind != T_CLOSE)
		return expected(f, "')'", err, errlen);
	f->pos++;
	return 0;
}

static int parse_and(struct up_filter *f, char *err, size_t errlen)
{
	int r = parse_unary(f, err, errlen);

	while (!r && peek(f)->kind == T_AND) {
		f->pos++;
		r = parse_unary(f, err, errlen);
	}
	return r;
}

static int parse_or(struct up_filter *f, char *err, size_t errlen)
{
	int r = parse_and(f, err, errlen);

	while (!r && peek(f)->kind == T_OR) {
		f->pos++;
		r = parse_and(f, err, errlen);
	}
	return r;
}

void up_filter_free(struct up_filter *f)
{
	if (!f)
		return;
	for (int i = 0; i < f->nt; i++)
		free(f->t[i].text);
	free(f->t);
	free(f->p);
	free(f->names);
	free(f);
}

int up_filter_parse(const char *expr, struct up_filter **out, char *err,
		    size_t errlen)
{
	struct up_filter *f = calloc(1, sizeof(*f));
	int r;

	*out = NULL;
	if (!f) {
		set_err(err, errlen, "out of memory");
		return -ENOMEM;
	}
	if (strlen(expr) > FILTER_MAX) {
		set_err(err, errlen, "--filter: longer than %d characters",
			FILTER_MAX);
		r = -E2BIG;
	} else {
		r = tokenize(f, expr, err, errlen);
	}
	if (!r && f->t[0].kind == T_END) {
		set_err(err, errlen, "--filter: the expression is empty");
		r = -EINVAL;
	}
	if (!r)
		r = parse_or(f, err, errlen);
	if (!r && peek(f)->kind != T_END)
		r = expected(f, "'&&', '||' or ')'", err, errlen);
	if (r == -ENOMEM)
		set_err(err, errlen, "out of memory");
	if (r) {
		up_filter_free(f);
		return r;
	}
	*out = f;
	return 0;
}

int up_filter_names(const struct up_filter *f, const char *const **names)
{
	*names = f->names;
	return f->nnames;
}

/* @v as a number field @f holds: 0, or -EINVAL with a message */
static int check_number(const struct up_filter_field *f,
			const struct token *v, char *err, size_t errlen)
{
	int bits = f->bits > 0 && f->bits < 64 ? f->bits : 64;
	bool sign = f->kind == UP_FIELD_SIGNED;
	unsigned long long u = 0;
	long long l = 0;
	char *end;

	if (v->kind != T_NUMBER) {
		set_err(err, errlen,
			"--filter: '%s' is a number; '%s' (column %d) is not",
			f->name, v->text, v->col);
		return -EINVAL;
	}
	if (!sign && *v->text == '-') {
		set_err(err, errlen,
			"--filter: '%s' is unsigned; it is never %s", f->name,
			v->text);
		return -EINVAL;
	}
	errno = 0;
	if (sign)
		l = strtoll(v->text, &end, 0);
	else
		u = strtoull(v->text, &end, 0);
	if (*end || errno || strlen(v->text) > NUMBER_MAX) {
		set_err(err, errlen,
			"--filter: '%s' (column %d) is not a number of 64 bits at most, written in %d characters at most",
			v->text, v->col, NUMBER_MAX);
		return -EINVAL;
	}
	/* the kernel compares the value cut to the field's width */
	if (bits < 64 && (sign ? l < -(1LL << (bits - 1)) ||
				 l >= 1LL << (bits - 1) :
				 u >> bits)) {
		set_err(err, errlen,
			"--filter: '%s' is %s, of %d bits; %s is out of its range",
			f->name, sign ? "signed" : "unsigned", bits, v->text);
		return -EINVAL;
	}
	return 0;
}

/* Append @s to @out (@len so far): 0, or -E2BIG if it does not fit */
static int put(char *out, size_t outlen, size_t *len, const char *s)
{
	size_t l = strlen(s);

	if (*len + l + 1 > outlen)
		return -E2BIG;
	memcpy(out + *len, s, l + 1);
	*len += l;
	return 0;
}

int up_filter_check(const struct up_filter *f,
		    const struct up_filter_field *fields, int n, char *out,
		    size_t outlen, char *err, size_t errlen)
{
	size_t len = 0;
	int k = 0;

	*out = '\0';
	for (int i = 0; i < f->np; i++) {
		const struct pred *p = &f->p[i];
		const char *name = f->t[p->field].text;
		const char *op = f->t[p->op].text;
		const struct token *v = &f->t[p->value];
		const struct up_filter_field *field = common_field(name);

		for (int j = 0; j < n && !field; j++)
			if (!strcmp(fields[j].name, name))
				field = &fields[j];
		if (!field) {
			set_err(err, errlen,
				"--filter: the probe has no value '%s'", name);
			return -EINVAL;
		}
		if (field->kind == UP_FIELD_STRING) {
			if (strcmp(op, "==") && strcmp(op, "!=") &&
			    strcmp(op, "~")) {
				set_err(err, errlen,
					"--filter: '%s' is a string: compare it with ==, != or ~ (a glob), not %s",
					name, op);
				return -EINVAL;
			}
			if (v->kind == T_NUMBER || strchr(v->text, '"')) {
				set_err(err, errlen,
					"--filter: '%s' is a string; give a quoted string, not %s (column %d)",
					name, v->text, v->col);
				return -EINVAL;
			}
			if (strlen(v->text) > STRING_MAX) {
				set_err(err, errlen,
					"--filter: the string at column %d is longer than the kernel's %d characters",
					v->col, STRING_MAX);
				return -EINVAL;
			}
		} else {
			if (!strcmp(op, "~")) {
				set_err(err, errlen,
					"--filter: '%s' is a number; ~ matches a string against a glob",
					name);
				return -EINVAL;
			}
			if (check_number(field, v, err, errlen))
				return -EINVAL;
		}
	}
	/* the kernel's text: the tokens, strings in double quotes */
	for (int i = 0; i < f->nt - 1; i++) {
		const struct token *t = &f->t[i];
		bool str = t->kind == T_STRING ||
			   (t->kind == T_IDENT && k < f->np &&
			    i == f->p[k].value);

		if (k < f->np && i == f->p[k].value)
			k++;
		if ((i && put(out, outlen, &len, " ")) ||
		    (str && put(out, outlen, &len, "\"")) ||
		    put(out, outlen, &len, t->text) ||
		    (str && put(out, outlen, &len, "\""))) {
			set_err(err, errlen, "--filter: longer than %zu characters",
				outlen - 1);
			return -E2BIG;
		}
	}
	return 0;
}
