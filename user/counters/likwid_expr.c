/* LIKWID metric formulas: a recursive-descent compiler to a postfix program, and its evaluator. */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "counters/likwid_expr.h"

#define EXPR_MAX_OPS 512	/* the longest formula Debian ships has ~190 terms */
#define EXPR_MAX_DEPTH 64

enum expr_op { OP_NUM, OP_COUNTER, OP_TIME, OP_INVCLK, OP_ADD, OP_SUB, OP_MUL, OP_DIV, OP_NEG };

struct expr_step {
	enum expr_op op;
	double num;		/* OP_NUM */
	unsigned int counter;	/* OP_COUNTER */
};

struct sb_likwid_expr {
	struct expr_step *steps;
	unsigned int n_steps;
	bool uncounted;
};

struct compiler {
	const char *text, *pos;
	char *const *names;
	unsigned int n_names, n_counted;
	struct sb_likwid_expr *e;
	struct sb_error *err;
	unsigned int depth;
};

static int fail(struct compiler *c, const char *what)
{
	return sb_fail(c->err, EINVAL, "column %d: %s", (int)(c->pos - c->text) + 1, what);
}

static int emit(struct compiler *c, enum expr_op op, double num, unsigned int counter)
{
	struct expr_step *s;

	if (c->e->n_steps == EXPR_MAX_OPS)
		return fail(c, "formula too long");
	s = &c->e->steps[c->e->n_steps++];
	s->op = op;
	s->num = num;
	s->counter = counter;
	return 0;
}

static void skip_space(struct compiler *c)
{
	while (isspace((unsigned char)*c->pos))
		c->pos++;
}

/* A counter with its options (PMC3:EDGEDETECT, CBOX0C0:STATE=0x3F) is one name. */
static size_t name_length(const char *p)
{
	size_t n = 0;

	while (isalnum((unsigned char)p[n]) || p[n] == '_' ||
	       (n && (p[n] == ':' || p[n] == '=') && isalnum((unsigned char)p[n + 1])))
		n++;
	return n;
}

/*
 * The counter a formula names: by its EVENTSET spelling with options, or by
 * the bare counter when the EVENTSET adds options the formula leaves out
 * (PMC1:MATCH0=0x0081:MATCH1=0x1 read as PMC1). n_names when none.
 */
static unsigned int find_counter(const struct compiler *c, size_t len)
{
	unsigned int i;

	for (i = 0; i < c->n_names; i++)
		if (strlen(c->names[i]) == len && !strncmp(c->names[i], c->pos, len))
			return i;
	for (i = 0; i < c->n_names; i++)
		if (strcspn(c->names[i], ":") == len && !strncmp(c->names[i], c->pos, len))
			return i;
	return c->n_names;
}

static int name_term(struct compiler *c)
{
	size_t len = name_length(c->pos);
	char what[160];
	unsigned int i;

	i = find_counter(c, len);
	if (i < c->n_names) {
		c->pos += len;
		if (i >= c->n_counted)
			c->e->uncounted = true;
		return emit(c, OP_COUNTER, 0, i);
	}
	if (len == 4 && !strncmp(c->pos, "time", 4)) {
		c->pos += len;
		return emit(c, OP_TIME, 0, 0);
	}
	if (len == 12 && !strncmp(c->pos, "inverseClock", 12)) {
		c->pos += len;
		return emit(c, OP_INVCLK, 0, 0);
	}
	/* LIKWID's topology counts: only zen2's data-fabric (uncore) metrics use them */
	if ((len == 15 && !strncmp(c->pos, "num_numadomains", 15)) ||
	    (len == 11 && !strncmp(c->pos, "num_sockets", 11))) {
		c->pos += len;
		c->e->uncounted = true;
		return emit(c, OP_NUM, NAN, 0);
	}
	snprintf(what, sizeof(what), "unknown counter %.*s (not in the EVENTSET)", (int)len, c->pos);
	return fail(c, what);
}

static int sum(struct compiler *c);

static int primary(struct compiler *c)
{
	char *end;
	double v;
	int ret;

	skip_space(c);
	if (*c->pos == '(') {
		if (++c->depth > EXPR_MAX_DEPTH)
			return fail(c, "parentheses nested too deep");
		c->pos++;
		ret = sum(c);
		if (ret)
			return ret;
		skip_space(c);
		if (*c->pos != ')')
			return fail(c, "unbalanced parenthesis: '(' not closed");
		c->pos++;
		c->depth--;
		return 0;
	}
	if (isdigit((unsigned char)*c->pos) || *c->pos == '.') {
		v = strtod(c->pos, &end);
		if (end == c->pos)
			return fail(c, "bad number");
		c->pos = end;
		return emit(c, OP_NUM, v, 0);
	}
	if (isalpha((unsigned char)*c->pos) || *c->pos == '_')
		return name_term(c);
	return fail(c, *c->pos ? "expected a number, a counter or '('" : "formula ends early");
}

static int unary(struct compiler *c)
{
	int ret;

	skip_space(c);
	if (*c->pos == '-' || *c->pos == '+') {
		bool neg = *c->pos == '-';

		c->pos++;
		ret = unary(c);
		return ret || !neg ? ret : emit(c, OP_NEG, 0, 0);
	}
	return primary(c);
}

static int product(struct compiler *c)
{
	int ret = unary(c);
	char op;

	while (!ret) {
		skip_space(c);
		op = *c->pos;
		if (op != '*' && op != '/')
			break;
		c->pos++;
		ret = unary(c);
		if (!ret)
			ret = emit(c, op == '*' ? OP_MUL : OP_DIV, 0, 0);
	}
	return ret;
}

static int sum(struct compiler *c)
{
	int ret = product(c);
	char op;

	while (!ret) {
		skip_space(c);
		op = *c->pos;
		if (op != '+' && op != '-')
			break;
		c->pos++;
		ret = product(c);
		if (!ret)
			ret = emit(c, op == '+' ? OP_ADD : OP_SUB, 0, 0);
	}
	return ret;
}

struct sb_likwid_expr *sb_likwid_expr_compile(const char *text, char *const *names,
					      unsigned int n_names, unsigned int n_counted,
					      struct sb_error *err)
{
	struct compiler c = { .text = text, .pos = text, .names = names, .n_names = n_names,
			      .n_counted = n_counted, .err = err };
	int ret;

	c.e = calloc(1, sizeof(*c.e));
	if (c.e)
		c.e->steps = calloc(EXPR_MAX_OPS, sizeof(*c.e->steps));
	if (!c.e || !c.e->steps) {
		sb_likwid_expr_free(c.e);
		sb_fail(err, ENOMEM, "out of memory");
		return NULL;
	}
	ret = sum(&c);
	skip_space(&c);
	if (!ret && *c.pos)
		ret = fail(&c, *c.pos == ')' ? "unbalanced parenthesis: ')' without '('"
					     : "unexpected character");
	if (ret) {
		sb_likwid_expr_free(c.e);
		return NULL;
	}
	return c.e;
}

bool sb_likwid_expr_uncounted(const struct sb_likwid_expr *e)
{
	return e->uncounted;
}

static double apply(enum expr_op op, double a, double b)
{
	switch (op) {
	case OP_ADD:
		return a + b;
	case OP_SUB:
		return a - b;
	case OP_MUL:
		return a * b;
	default:
		return b == 0 ? NAN : a / b;
	}
}

double sb_likwid_expr_eval(const struct sb_likwid_expr *e, const double *counts, double time_s,
			   double inverse_clock)
{
	double stack[EXPR_MAX_OPS];
	unsigned int i, sp = 0;

	if (e->uncounted)
		return NAN;
	for (i = 0; i < e->n_steps; i++) {
		const struct expr_step *s = &e->steps[i];

		switch (s->op) {
		case OP_NUM:
			stack[sp++] = s->num;
			break;
		case OP_COUNTER:
			stack[sp++] = counts[s->counter];
			break;
		case OP_TIME:
			stack[sp++] = time_s;
			break;
		case OP_INVCLK:
			stack[sp++] = inverse_clock;
			break;
		case OP_NEG:
			stack[sp - 1] = -stack[sp - 1];
			break;
		default:
			sp--;
			stack[sp - 1] = apply(s->op, stack[sp - 1], stack[sp]);
		}
	}
	return sp == 1 ? stack[0] : NAN;
}

void sb_likwid_expr_free(struct sb_likwid_expr *e)
{
	if (!e)
		return;
	free(e->steps);
	free(e);
}
