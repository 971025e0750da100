/* SPDX-License-Identifier: GPL-2.0 */
/*
 * --filter EXPR: an expression over a probe's values, checked here so
 * that a bad one is refused before anything is placed, then applied by
 * the kernel (the event's filter, or a hist trigger's "if"), so that a
 * hit that does not match costs no record.
 *
 * The syntax is ftrace's event filter's: predicates FIELD OP VALUE,
 * with OP one of == != < <= > >= & (numbers) or == != ~ (strings, ~ a
 * glob), joined by && and ||, negated by !, grouped by parentheses.
 */
#ifndef UPROBE_CLI_FILTER_H
#define UPROBE_CLI_FILTER_H

#include <stddef.h>

/* What a field of the event holds, for the operators it takes */
enum up_field_kind {
	UP_FIELD_UNSIGNED,
	UP_FIELD_SIGNED,
	UP_FIELD_STRING,
};

struct up_filter_field {
	const char *name;
	enum up_field_kind kind;
	int bits;		/* a number's width (the kernel compares */
				/* it cut to that): 8 to 64, 0 for 64 */
};

struct up_filter;

/*
 * Parse @expr into *@out (up_filter_free() it): 0, or -errno with a
 * one-line message naming the problem and where it is in @err: -EINVAL
 * for a bad expression, -E2BIG for one too long, -ENOMEM.
 */
int up_filter_parse(const char *expr, struct up_filter **out, char *err,
		    size_t errlen);

/*
 * The fields @f names, each once, in the order they first appear: their
 * count, the names in *@names (@f's, while it lives).  The fields the
 * event has (common_pid, comm) are not among them.
 */
int up_filter_names(const struct up_filter *f, const char *const **names);

/*
 * Check @f against the event's fields @fields[0..@n) (and its common
 * ones): each field it names exists, each comparison suits the field's
 * kind, and each value is one the field can hold and the kernel's
 * filter takes (a number in the field's range, written in fewer than
 * 24 characters; a string of fewer than 256).  0 with the text the
 * kernel takes in @out, or -errno with a message in @err: -EINVAL if it
 * does not suit the fields, -E2BIG if that text does not fit @out.
 */
int up_filter_check(const struct up_filter *f,
		    const struct up_filter_field *fields, int n, char *out,
		    size_t outlen, char *err, size_t errlen);

void up_filter_free(struct up_filter *f);

#endif
