// SPDX-License-Identifier: GPL-2.0
/*
 * Stacks counted by their frames' names, and shown: the most frequent
 * as a table or JSON, every one folded (FlameGraph's input), or a flame
 * graph of them as a self-contained interactive SVG.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <search.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json_writer.h"
#include "stack.h"

/* A stack: its frames outermost first, joined by ';', and its count */
struct stk_entry {
	char *folded;
	unsigned long long count;
};

struct stk_counts {
	void *tree;		/* of struct stk_entry, by folded */
	struct stk_entry **all;	/* the same, in order of first sight */
	size_t n, cap;
	unsigned long long hits;
};

struct stk_counts *stk_counts_new(void)
{
	return calloc(1, sizeof(struct stk_counts));
}

static int entry_cmp(const void *a, const void *b)
{
	return strcmp(((const struct stk_entry *)a)->folded,
		      ((const struct stk_entry *)b)->folded);
}

int stk_counts_add(struct stk_counts *c, const char *const *names, int n)
{
	struct stk_entry key, *e, **found;
	size_t len = 1;
	char *p;

	for (int i = 0; i < n; i++)
		len += strlen(names[i]) + 1;
	key.folded = malloc(len);
	if (!key.folded)
		return -ENOMEM;
	p = key.folded;
	*p = '\0';
	for (int i = n - 1; i >= 0; i--) {
		/* ';' parts frames: none may hold one */
		for (const char *s = names[i]; *s; s++)
			*p++ = *s == ';' ? ':' : *s;
		if (i)
			*p++ = ';';
	}
	*p = '\0';
	c->hits++;
	found = tfind(&key, &c->tree, entry_cmp);
	if (found) {
		(*found)->count++;
		free(key.folded);
		return 0;
	}
	if (c->n == c->cap) {
		size_t cap = c->cap ? 2 * c->cap : 256;
		struct stk_entry **more = reallocarray(c->all, cap,
						       sizeof(*more));

		if (!more) {
			free(key.folded);
			return -ENOMEM;
		}
		c->all = more;
		c->cap = cap;
	}
	e = malloc(sizeof(*e));
	if (!e) {
		free(key.folded);
		return -ENOMEM;
	}
	e->folded = key.folded;
	e->count = 1;
	if (!tsearch(e, &c->tree, entry_cmp)) {
		free(e->folded);
		free(e);
		return -ENOMEM;
	}
	c->all[c->n++] = e;
	return 0;
}

unsigned long long stk_counts_hits(const struct stk_counts *c)
{
	return c->hits;
}

static int by_folded(const void *a, const void *b)
{
	return strcmp((*(struct stk_entry *const *)a)->folded,
		      (*(struct stk_entry *const *)b)->folded);
}

/* Most frequent first; ties by their frames */
static int by_count(const void *a, const void *b)
{
	const struct stk_entry *x = *(struct stk_entry *const *)a;
	const struct stk_entry *y = *(struct stk_entry *const *)b;

	if (x->count != y->count)
		return x->count < y->count ? 1 : -1;
	return strcmp(x->folded, y->folded);
}

/* c->all sorted by @cmp, a copy: NULL when out of memory */
static struct stk_entry **sorted(const struct stk_counts *c,
				 int (*cmp)(const void *, const void *))
{
	struct stk_entry **s = malloc((c->n + 1) * sizeof(*s));

	if (s) {
		memcpy(s, c->all, c->n * sizeof(*s));
		qsort(s, c->n, sizeof(*s), cmp);
	}
	return s;
}

void stk_counts_folded(const struct stk_counts *c, FILE *out)
{
	struct stk_entry **s = sorted(c, by_folded);

	for (size_t i = 0; s && i < c->n; i++)
		fprintf(out, "%s %llu\n", s[i]->folded, s[i]->count);
	free(s);
}

/* Call @fn for each frame of @e, innermost first */
static void frames_inner_first(const struct stk_entry *e,
			       void (*fn)(const char *f, size_t len, void *),
			       void *arg)
{
	const char *end = e->folded + strlen(e->folded), *p;

	while (end > e->folded) {
		for (p = end; p > e->folded && p[-1] != ';'; p--)
			;
		fn(p, end - p, arg);
		end = p > e->folded ? p - 1 : p;
	}
}

struct table_arg {
	FILE *out;
	bool first;
	unsigned long long count;
};

static void table_frame(const char *f, size_t len, void *arg)
{
	struct table_arg *t = arg;

	if (t->first)
		fprintf(t->out, "%10llu  %.*s\n", t->count, (int)len, f);
	else
		fprintf(t->out, "%10s  %.*s\n", "", (int)len, f);
	t->first = false;
}

void stk_counts_table(const struct stk_counts *c, int top, FILE *out)
{
	struct stk_entry **s = sorted(c, by_count);

	fprintf(out, "%10s  %s\n", "COUNT", "STACK (innermost frame first)");
	for (size_t i = 0; s && i < c->n && (int)i < top; i++) {
		struct table_arg t = { out, true, s[i]->count };

		frames_inner_first(s[i], table_frame, &t);
		fputc('\n', out);
	}
	if (s && c->n > (size_t)top)
		fprintf(out, "(%zu more stacks; --folded lists them all)\n",
			c->n - top);
	free(s);
}

struct json_arg {
	json_writer_t *w;
	void (*str)(json_writer_t *w, const char *s);
};

static void json_frame(const char *f, size_t len, void *arg)
{
	struct json_arg *j = arg;
	char *name = strndup(f, len);

	if (name)
		j->str(j->w, name);
	free(name);
}

void stk_counts_json(const struct stk_counts *c, json_writer_t *w, int top,
		     void (*str)(json_writer_t *w, const char *s))
{
	struct stk_entry **s = sorted(c, by_count);
	struct json_arg j = { w, str };

	jsonw_uint_field(w, "hits", c->hits);
	jsonw_uint_field(w, "distinct", c->n);
	jsonw_name(w, "stacks");
	jsonw_start_array(w);
	for (size_t i = 0; s && i < c->n && (int)i < top; i++) {
		jsonw_start_object(w);
		jsonw_uint_field(w, "count", s[i]->count);
		jsonw_name(w, "frames");
		jsonw_start_array(w);
		frames_inner_first(s[i], json_frame, &j);
		jsonw_end_array(w);
		jsonw_end_object(w);
	}
	jsonw_end_array(w);
	free(s);
}

/* ---- flame graph ------------------------------------------------------ */

/* A frame of the flame graph: a call chain's prefix, and its hits */
struct flame_node {
	const char *name;		/* into a stk_entry's folded */
	size_t len;
	unsigned long long count;
	struct flame_node *child, *next;	/* first child, next sibling */
	struct flame_node *last;		/* last child */
};

#define FLAME_WIDTH	1200	/* pixels */
#define FLAME_ROW	16
#define FLAME_TOP	36	/* the title and the controls */
#define FLAME_PAD	10
#define FLAME_CHAR_PX	7	/* 12px monospace, about */

static struct flame_node *flame_child(struct flame_node *parent,
				      const char *name, size_t len)
{
	struct flame_node *c;

	/* the stacks come sorted: a frame shared is the last child */
	c = parent->last;
	if (c && c->len == len && !memcmp(c->name, name, len))
		return c;
	c = calloc(1, sizeof(*c));
	if (!c)
		return NULL;
	c->name = name;
	c->len = len;
	if (parent->last)
		parent->last->next = c;
	else
		parent->child = c;
	parent->last = c;
	return c;
}

/* @e's frames into the tree at @root, *@depth its deepest: 0, -ENOMEM */
static int flame_add(struct flame_node *root, const struct stk_entry *e,
		     int *depth)
{
	struct flame_node *n = root;
	const char *p = e->folded;
	int d = 0;

	root->count += e->count;
	while (*p) {
		size_t len = strcspn(p, ";");

		n = flame_child(n, p, len);
		if (!n)
			return -ENOMEM;
		n->count += e->count;
		d++;
		p += len;
		if (*p)
			p++;
	}
	if (d > *depth)
		*depth = d;
	return 0;
}

static void flame_free(struct flame_node *n)
{
	struct flame_node *c = n->child, *next;

	for (; c; c = next) {
		next = c->next;
		flame_free(c);
		free(c);
	}
}

/* The length of the valid UTF-8 sequence at @s (@left bytes), or 0 */
static size_t utf8_len(const unsigned char *s, size_t left)
{
	size_t n = s[0] >= 0xf0 && s[0] <= 0xf4 ? 4 :
		   s[0] >= 0xe0 ? 3 : s[0] >= 0xc2 && s[0] < 0xe0 ? 2 : 0;

	if (!n || n > left)
		return 0;
	for (size_t i = 1; i < n; i++)
		if ((s[i] & 0xc0) != 0x80)
			return 0;
	return n;
}

/*
 * @s, @len bytes, with XML's special characters escaped, and what is
 * not UTF-8 (a file's name may be anything) shown as '?'
 */
static void xml_text(FILE *f, const char *s, size_t len)
{
	for (size_t i = 0; i < len; i++) {
		if ((unsigned char)s[i] >= 0x80) {
			size_t n = utf8_len((const unsigned char *)s + i,
					    len - i);

			if (n)
				fwrite(s + i, 1, n, f);
			else
				fputc('?', f);
			i += n ? n - 1 : 0;
			continue;
		}
		switch (s[i]) {
		case '&':
			fputs("&amp;", f);
			break;
		case '<':
			fputs("&lt;", f);
			break;
		case '>':
			fputs("&gt;", f);
			break;
		case '"':
			fputs("&quot;", f);
			break;
		default:
			/* control characters have no place in XML 1.0 */
			fputc((unsigned char)s[i] < 0x20 ? '?' : s[i], f);
		}
	}
}

/* A warm colour of its own for each name, as flame graphs have it */
static void flame_colour(const char *name, size_t len, int *r, int *g,
			 int *b)
{
	unsigned int h = 2166136261u;

	for (size_t i = 0; i < len; i++)
		h = (h ^ (unsigned char)name[i]) * 16777619u;
	*r = 205 + h % 50;
	*g = (h >> 8) % 180;
	*b = (h >> 16) % 55;
}

struct flame_out {
	FILE *f;
	unsigned long long total;
	int height;
};

static void flame_frame(struct flame_out *o, const struct flame_node *n,
			double x, int depth)
{
	double w = (double)n->count * FLAME_WIDTH / o->total;
	int y = o->height - FLAME_PAD - (depth + 1) * FLAME_ROW, r, g, b;
	int chars;
	const struct flame_node *c;

	/* too narrow to see, and so are its callees */
	if (w < 0.1)
		return;
	flame_colour(n->name, n->len, &r, &g, &b);
	fprintf(o->f, "<g class=\"f\" data-x=\"%.2f\" data-w=\"%.2f\" data-d=\"%d\"><title>",
		x, w, depth);
	xml_text(o->f, n->name, n->len);
	fprintf(o->f, " (%llu hits, %.2f%%)</title>", n->count,
		100.0 * n->count / o->total);
	fprintf(o->f, "<rect x=\"%.2f\" y=\"%d\" width=\"%.2f\" height=\"%d\" fill=\"rgb(%d,%d,%d)\" rx=\"2\"/>",
		x, y, w, FLAME_ROW - 1, r, g, b);
	fprintf(o->f, "<text x=\"%.2f\" y=\"%d\">", x + 3, y + FLAME_ROW - 4);
	/*
	 * cut to its frame's width for a viewer without scripts (an image
	 * in a page); the script fits it again as it zooms
	 */
	chars = (int)((w - 6) / FLAME_CHAR_PX);
	if (chars >= 3 && n->len <= (size_t)chars) {
		xml_text(o->f, n->name, n->len);
	} else if (chars >= 3) {
		xml_text(o->f, n->name, chars - 2);
		fputs("..", o->f);
	}
	fputs("</text></g>\n", o->f);
	for (c = n->child; c; c = c->next) {
		flame_frame(o, c, x, depth + 1);
		x += (double)c->count * FLAME_WIDTH / o->total;
	}
}

/*
 * The page's behaviour: names cut to their frame's width, a click on a
 * frame zooms to it (its callers stay, greyed), a click on "Reset zoom"
 * undoes it, "Search" colours the frames whose name matches a regular
 * expression and says what share of the hits they hold.
 */
static const char flame_script[] =
"var W=document.documentElement.width.baseVal.value,fs=[].slice.call(document.querySelectorAll('g.f'));\n"
"function fit(g,x,w){var t=g.querySelector('text'),r=g.querySelector('rect'),"
"n=g.querySelector('title').textContent.replace(/ \\(\\d+ hits.*$/,'');\n"
" r.setAttribute('x',x);r.setAttribute('width',w);t.setAttribute('x',x+3);\n"
" var c=Math.floor((w-6)/7);t.textContent=c<3?'':(n.length<=c?n:n.slice(0,c-2)+'..');}\n"
"function zoom(z){var zx=+z.dataset.x,zw=+z.dataset.w,zd=+z.dataset.d;\n"
" fs.forEach(function(g){var x=+g.dataset.x,w=+g.dataset.w,d=+g.dataset.d;\n"
"  if(d<zd&&x<=zx+0.01&&x+w>=zx+zw-0.01){g.style.display='';g.style.opacity=0.5;fit(g,0,W);}\n"
"  else if(d>=zd&&x>=zx-0.01&&x+w<=zx+zw+0.01){g.style.display='';g.style.opacity=1;fit(g,(x-zx)*W/zw,w*W/zw);}\n"
"  else g.style.display='none';});}\n"
"function reset(){fs.forEach(function(g){g.style.display='';g.style.opacity=1;"
"fit(g,+g.dataset.x,+g.dataset.w);});}\n"
"function search(){var s=prompt('Search frames (a regular expression)');if(s===null)return;\n"
" var re=new RegExp(s),tot=+document.getElementById('total').dataset.n,hit=0,spans=[];\n"
" fs.forEach(function(g){var n=g.querySelector('title').textContent,m=s&&re.test(n.replace(/ \\(\\d+ hits.*$/,''));\n"
"  g.querySelector('rect').style.fill=m?'rgb(230,0,230)':'';\n"
"  if(m){var x=+g.dataset.x,w=+g.dataset.w;if(!spans.some(function(p){return x>=p[0]-0.01&&x+w<=p[1]+0.01;})){"
"spans.push([x,x+w]);hit+=+n.match(/\\((\\d+) hits/)[1];}}});\n"
" document.getElementById('matched').textContent=s?'Matched: '+(100*hit/tot).toFixed(2)+'%':'';}\n"
"fs.forEach(function(g){fit(g,+g.dataset.x,+g.dataset.w);"
"g.addEventListener('click',function(){zoom(g);});});\n";

int stk_counts_svg(const struct stk_counts *c, const char *title,
		   const char *path)
{
	struct stk_entry **s = sorted(c, by_folded);
	struct flame_node root = { .name = "all", .len = 3 };
	struct flame_out o;
	int depth = 0, ret = 0;
	FILE *f;

	if (!s)
		return -ENOMEM;
	for (size_t i = 0; i < c->n && !ret; i++)
		ret = flame_add(&root, s[i], &depth);
	f = ret ? NULL : fopen(path, "we");
	if (!f) {
		ret = ret ? -ENOMEM : -errno;
		goto out;
	}
	o = (struct flame_out){ f, root.count ? root.count : 1,
				FLAME_TOP + (depth + 1) * FLAME_ROW +
				FLAME_PAD };
	fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"no\"?>\n"
		"<svg version=\"1.1\" xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\">\n"
		"<style>text{font-family:monospace;font-size:12px;fill:#000}"
		"g.f{cursor:pointer}g.f:hover rect{stroke:#000;stroke-width:0.5}"
		".c{cursor:pointer;fill:#333}</style>\n"
		"<rect width=\"100%%\" height=\"100%%\" fill=\"rgb(248,248,240)\"/>\n",
		FLAME_WIDTH, o.height, FLAME_WIDTH, o.height);
	fprintf(f, "<text x=\"%d\" y=\"16\" text-anchor=\"middle\" style=\"font-size:15px\">",
		FLAME_WIDTH / 2);
	xml_text(f, title, strlen(title));
	fprintf(f, "</text>\n<text id=\"total\" data-n=\"%llu\" x=\"10\" y=\"30\">%llu hits</text>\n"
		"<text class=\"c\" x=\"10\" y=\"16\" onclick=\"reset()\">Reset zoom</text>\n"
		"<text class=\"c\" x=\"%d\" y=\"16\" text-anchor=\"end\" onclick=\"search()\">Search</text>\n"
		"<text id=\"matched\" x=\"%d\" y=\"30\" text-anchor=\"end\"></text>\n",
		root.count, root.count, FLAME_WIDTH - FLAME_PAD,
		FLAME_WIDTH - FLAME_PAD);
	flame_frame(&o, &root, 0, 0);
	fprintf(f, "<script type=\"text/ecmascript\"><![CDATA[\n%s]]></script>\n</svg>\n",
		flame_script);
	if (ferror(f))
		ret = -EIO;
	if (fclose(f) && !ret)
		ret = -errno;
out:
	flame_free(&root);
	free(s);
	return ret;
}

static void entry_free(void *p)
{
	struct stk_entry *e = p;

	free(e->folded);
	free(e);
}

void stk_counts_free(struct stk_counts *c)
{
	if (!c)
		return;
	tdestroy(c->tree, entry_free);
	free(c->all);
	free(c);
}
