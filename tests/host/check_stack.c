// SPDX-License-Identifier: GPL-2.0
/*
 * uprobe-cli's counting of stacks (stackcount.c) on its own: stacks
 * counted by their frames, the folded lines FlameGraph reads, the table
 * of the most frequent, their JSON, and the flame graph: well-formed
 * XML (xmllint), a frame for each call chain's prefix with its share,
 * the names escaped, and its names on screen in a real browser.
 */
#define _GNU_SOURCE
#include "check_main.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "json_writer.h"
#include "stack.h"

/* Count the stack @s (frames innermost first, ',' between) @n times */
static void add(struct stk_counts *c, const char *s, int n)
{
	char *copy = strdup(s), *save, *f;
	const char *names[32];
	int k = 0;

	for (f = strtok_r(copy, ",", &save); f; f = strtok_r(NULL, ",", &save))
		names[k++] = f;
	while (n--)
		ck_assert_int_eq(stk_counts_add(c, names, k), 0);
	free(copy);
}

static struct stk_counts *sample(void)
{
	struct stk_counts *c = stk_counts_new();

	ck_assert_ptr_nonnull(c);
	add(c, "leaf,b,a,main,_start", 30);
	add(c, "leaf,c,main,_start", 20);
	add(c, "leaf,b,a,worker,start_thread", 25);
	add(c, "leaf,rec,rec," STACK_CUT, 5);
	/* a name with the folded format's separator, and XML's specials */
	add(c, "operator;<int>&,main,_start", 2);
	return c;
}

/* What @fn printed to a FILE, as a string to free */
static char *printed(void (*fn)(const struct stk_counts *, int, FILE *),
		     const struct stk_counts *c, int top)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	fn(c, top, f);
	fclose(f);
	return buf;
}

static void folded(const struct stk_counts *c, int top, FILE *f)
{
	(void)top;
	stk_counts_folded(c, f);
}

START_TEST(folded_lines_outermost_first_sorted)
{
	struct stk_counts *c = sample();
	char *out = printed(folded, c, 0);

	ck_assert_str_eq(out,
			 "[stack cut];rec;rec;leaf 5\n"
			 "_start;main;a;b;leaf 30\n"
			 "_start;main;c;leaf 20\n"
			 "_start;main;operator:<int>& 2\n"
			 "start_thread;worker;a;b;leaf 25\n");
	ck_assert_uint_eq(stk_counts_hits(c), 82);
	free(out);
	stk_counts_free(c);
}
END_TEST

START_TEST(table_of_the_most_frequent)
{
	struct stk_counts *c = sample();
	char *out = printed(stk_counts_table, c, 2);

	ck_assert_str_eq(out,
			 "     COUNT  STACK (innermost frame first)\n"
			 "        30  leaf\n"
			 "            b\n"
			 "            a\n"
			 "            main\n"
			 "            _start\n"
			 "\n"
			 "        25  leaf\n"
			 "            b\n"
			 "            a\n"
			 "            worker\n"
			 "            start_thread\n"
			 "\n"
			 "(3 more stacks; --folded lists them all)\n");
	free(out);
	stk_counts_free(c);
}
END_TEST

START_TEST(json_of_the_most_frequent)
{
	struct stk_counts *c = sample();
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	json_writer_t *w = jsonw_new(f);

	jsonw_start_object(w);
	stk_counts_json(c, w, 1, jsonw_string);
	jsonw_end_object(w);
	jsonw_destroy(&w);
	fclose(f);
	ck_assert_str_eq(buf, "{\"hits\":82,\"distinct\":5,\"stacks\":[{\"count\":30,\"frames\":[\"leaf\",\"b\",\"a\",\"main\",\"_start\"]}]}\n");
	free(buf);
	stk_counts_free(c);
}
END_TEST

START_TEST(flame_graph_is_xml_with_a_frame_per_prefix)
{
	struct stk_counts *c = sample();
	char path[] = "/tmp/check_stack_XXXXXX", cmd[128], *svg;
	size_t len = 0;
	FILE *f;
	int fd = mkstemp(path);

	ck_assert_int_ge(fd, 0);
	close(fd);
	ck_assert_int_eq(stk_counts_svg(c, "Stacks of <leaf>", path), 0);
	snprintf(cmd, sizeof(cmd), "xmllint --noout %s", path);
	ck_assert_int_eq(system(cmd), 0);
	f = fopen(path, "r");
	ck_assert_ptr_nonnull(f);
	ck_assert_int_gt(getdelim(&svg, &len, '\0', f), 0);
	fclose(f);
	/* the root, each chain's frames summed over the stacks they are in */
	ck_assert_ptr_nonnull(strstr(svg, "<title>all (82 hits, 100.00%)</title>"));
	ck_assert_ptr_nonnull(strstr(svg, "<title>_start (52 hits, 63.41%)</title>"));
	ck_assert_ptr_nonnull(strstr(svg, "<title>main (52 hits, 63.41%)</title>"));
	ck_assert_ptr_nonnull(strstr(svg, "<title>a (30 hits, 36.59%)</title>"));
	ck_assert_ptr_nonnull(strstr(svg, "<title>worker (25 hits, 30.49%)</title>"));
	ck_assert_ptr_nonnull(strstr(svg, "<title>operator:&lt;int&gt;&amp; (2 hits, 2.44%)</title>"));
	ck_assert_ptr_nonnull(strstr(svg, ">Stacks of &lt;leaf&gt;</text>"));
	/* names cut to their frames' widths (7 px a character) */
	ck_assert_ptr_nonnull(strstr(svg, ">[stack ..</text>"));
	ck_assert_ptr_nonnull(strstr(svg, ">o..</text>"));
	ck_assert_ptr_nonnull(strstr(svg, ">start_thread</text>"));
	/* one frame per distinct prefix: 5 leaves, and their callers */
	{
		int frames = 0;

		for (char *p = svg; (p = strstr(p, "<g class=\"f\"")); p++)
			frames++;
		/* all, _start, main, a, b, leaf, c, leaf, operator,
		 * start_thread, worker, a, b, leaf, cut, rec, rec, leaf */
		ck_assert_int_eq(frames, 18);
	}
	free(svg);
	unlink(path);
	stk_counts_free(c);
}
END_TEST

START_TEST(flame_graph_names_that_are_not_utf8)
{
	struct stk_counts *c = stk_counts_new();
	char path[] = "/tmp/check_stack_XXXXXX", cmd[128], *svg = NULL;
	size_t len = 0;
	FILE *f;
	int fd = mkstemp(path);

	ck_assert_int_ge(fd, 0);
	close(fd);
	add(c, "[lib\xff\xfe.so],caf\xc3\xa9,main", 3);
	ck_assert_int_eq(stk_counts_svg(c, "t", path), 0);
	snprintf(cmd, sizeof(cmd), "xmllint --noout %s", path);
	ck_assert_int_eq(system(cmd), 0);
	f = fopen(path, "r");
	ck_assert_int_gt(getdelim(&svg, &len, '\0', f), 0);
	fclose(f);
	ck_assert_ptr_nonnull(strstr(svg, "<title>[lib??.so] (3 hits, 100.00%)</title>"));
	ck_assert_ptr_nonnull(strstr(svg, "<title>caf\xc3\xa9 (3 hits, 100.00%)</title>"));
	free(svg);
	unlink(path);
	stk_counts_free(c);
}
END_TEST

/* The file at @path, as a string to free */
static char *slurp(const char *path)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = fopen(path, "r");

	ck_assert_msg(f != NULL, "%s: %s", path, strerror(errno));
	if (getdelim(&buf, &len, '\0', f) < 0) {
		free(buf);
		buf = strdup("");
	}
	fclose(f);
	return buf;
}

/*
 * Opened in a real browser, Debian's chromium (headless), the flame
 * graph shows its frames' names: read back from the screenshot by OCR
 * (tesseract).  The page holds the SVG as an <object> (its script runs)
 * shown in grey with a strong contrast, at twice the scale: OCR reads
 * text on the frames' warm colours poorly, black on near white well.
 * And its script loads without an error on the console.
 */
static const char view_html[] =
	"<!DOCTYPE html>\n<html><body style=\"margin:0\">\n"
	"<object data=\"flame.svg\" type=\"image/svg+xml\" width=\"1200\" "
	"height=\"300\" style=\"filter: grayscale(1) brightness(1.8) "
	"contrast(4)\"></object>\n</body></html>\n";

START_TEST(flame_graph_in_a_browser_shows_its_names)
{
	struct stk_counts *c = stk_counts_new();
	char dir[] = "/tmp/check_stack_XXXXXX", cmd[1024], *text, *log;
	FILE *f;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	add(c, "checksum,compress,worker,start_thread,clone", 40);
	add(c, "checksum,main,_start", 30);
	add(c, "compress,main,_start", 15);
	snprintf(cmd, sizeof(cmd), "%s/flame.svg", dir);
	ck_assert_int_eq(stk_counts_svg(c, "Stacks of checksum", cmd), 0);
	snprintf(cmd, sizeof(cmd), "%s/view.html", dir);
	f = fopen(cmd, "w");
	ck_assert_ptr_nonnull(f);
	fputs(view_html, f);
	fclose(f);
	snprintf(cmd, sizeof(cmd),
		 "cd %s && timeout 120 chromium --headless=new --no-sandbox "
		 "--disable-gpu --hide-scrollbars --user-data-dir=%s/profile "
		 "--force-device-scale-factor=2 --window-size=1200,400 "
		 "--enable-logging=stderr --v=0 --screenshot=%s/shot.png "
		 "file://%s/view.html 2> %s/log && "
		 "tesseract %s/shot.png %s/ocr --psm 3 2>> %s/log",
		 dir, dir, dir, dir, dir, dir, dir, dir);
	ck_assert_msg(system(cmd) == 0, "%s failed", cmd);
	text = slurp(strcat(strcpy(cmd, dir), "/ocr.txt"));
	log = slurp(strcat(strcpy(cmd, dir), "/log"));
	ck_assert_msg(strstr(text, "Stacks of checksum") &&
		      strstr(text, "85 hits") && strstr(text, "checksum") &&
		      strstr(text, "compress") && strstr(text, "worker") &&
		      strstr(text, "main") && strstr(text, "clone"),
		      "the screenshot reads:\n%s", text);
	ck_assert_msg(!strstr(log, "Uncaught"), "the console:\n%s", log);
	free(text);
	free(log);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	ck_assert_int_eq(system(cmd), 0);
	stk_counts_free(c);
}
END_TEST

START_TEST(flame_graph_to_a_bad_path_fails)
{
	struct stk_counts *c = sample();

	ck_assert_int_eq(stk_counts_svg(c, "x", "/nonexistent/dir/f.svg"),
			 -ENOENT);
	stk_counts_free(c);
}
END_TEST

static void add_tests(TCase *tc)
{
	tcase_add_test(tc, folded_lines_outermost_first_sorted);
	tcase_add_test(tc, table_of_the_most_frequent);
	tcase_add_test(tc, json_of_the_most_frequent);
	tcase_add_test(tc, flame_graph_is_xml_with_a_frame_per_prefix);
	tcase_add_test(tc, flame_graph_names_that_are_not_utf8);
	tcase_add_test(tc, flame_graph_in_a_browser_shows_its_names);
	tcase_add_test(tc, flame_graph_to_a_bad_path_fails);
}

int main(void)
{
	return check_run("stack", add_tests) ? 1 : 0;
}
