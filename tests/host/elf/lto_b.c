// SPDX-License-Identifier: GPL-2.0
/* main() of the -flto fixture: lto_step() inlined here at link time */
int lto_step(int x);
volatile int lto_sink;

int main(int argc, char **argv)
{
	(void)argv;
	for (int i = 0; i < argc * 3; i++)
		lto_sink = lto_step(i + argc);
	return 0;
}
