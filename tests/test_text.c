/* Every sentence a detector or the engine prints exists in English and
 * Chinese (report/text.h), and both formats take the same arguments:
 * a Chinese format that converts an argument as another type would read
 * the wrong bytes. */
#include <criterion/criterion.h>
#include <glib.h>
#include <string.h>

#include "analyzer/run.h"
#include "heuristics/detector.h"
#include "report/text.h"

/* One conversion of a printf format: its argument position (1-based) and
 * a letter for the type it reads. */
typedef struct conv {
	int pos;
	char type; /* i int, l long, L long long, u/U/V unsigned, d double, s string, p pointer */
} conv;

/* The conversions of fmt in argument order; false if it cannot be read
 * (mixed positional and plain conversions, unknown letters). */
static bool parse(const char *fmt, conv *out, int *n)
{
	int next = 1, count = 0;
	bool positional = false, plain = false;
	for (const char *p = fmt; *p; p++) {
		if (*p != '%')
			continue;
		p++;
		if (*p == '%')
			continue;
		int pos = 0;
		const char *q = p;
		while (*q >= '0' && *q <= '9')
			q++;
		if (*q == '$') {
			pos = atoi(p);
			positional = true;
			p = q + 1;
		} else {
			plain = true;
		}
		while (strchr("-+ #0", *p))
			p++;
		if (*p == '*')
			return false; /* a width argument: not used here */
		while ((*p >= '0' && *p <= '9') || *p == '.')
			p++;
		int longs = 0;
		while (*p == 'l' || *p == 'h' || *p == 'z' || *p == 'j') {
			longs += *p == 'l' || *p == 'z' || *p == 'j';
			p++;
		}
		char t;
		switch (*p) {
		case 'd':
		case 'i':
			t = longs == 0 ? 'i' : longs == 1 ? 'l' : 'L';
			break;
		case 'u':
		case 'x':
		case 'X':
		case 'o':
			t = longs == 0 ? 'u' : longs == 1 ? 'U' : 'V';
			break;
		case 'f':
		case 'g':
		case 'e':
		case 'G':
			t = 'd';
			break;
		case 's':
			t = 's';
			break;
		case 'p':
			t = 'p';
			break;
		case 'c':
			t = 'i';
			break;
		default:
			return false;
		}
		if (count >= 32)
			return false;
		out[count].pos = pos ? pos : next++;
		out[count].type = t;
		count++;
	}
	if (positional && plain)
		return false;
	*n = count;
	return true;
}

/* The argument types by position, 0 where none. */
static void by_position(const conv *c, int n, char types[33])
{
	memset(types, 0, 33);
	for (int i = 0; i < n; i++)
		if (c[i].pos > 0 && c[i].pos <= 32)
			types[c[i].pos] = c[i].type;
}

Test(text, chinese_takes_the_english_arguments)
{
	/* link every detector and the engine in: their texts are the section */
	cr_assert_gt(pd_detectors_len, 0);
	pd_run_opts o;
	pd_run_opts_default(&o);
	const pd_text *b = pd_texts_begin(), *e = pd_texts_end();
	cr_assert(b && e && e > b, "no texts found in the pd_texts section");
	int checked = 0;
	for (const pd_text *t = b; t < e; t++) {
		conv ce[32], cz[32];
		int ne = 0, nz = 0;
		cr_assert(parse(t->en, ce, &ne), "%s:%d: cannot read the English format", t->file, t->line);
		if (!t->zh)
			continue;
		cr_assert(parse(t->zh, cz, &nz), "%s:%d: cannot read the Chinese format", t->file, t->line);
		char te[33], tz[33];
		by_position(ce, ne, te);
		by_position(cz, nz, tz);
		for (int i = 1; i <= 32; i++)
			cr_expect(te[i] == tz[i], "%s:%d: argument %d is '%c' in English, '%c' in Chinese", t->file,
				  t->line, i, te[i] ? te[i] : '-', tz[i] ? tz[i] : '-');
		checked++;
	}
	cr_expect_gt(checked, 5, "too few translated texts: %d", checked);
}
