// SPDX-License-Identifier: GPL-2.0
/*
 * Misbehaves on purpose, so that "make check-harness" can prove that the
 * test harness notices: mode=warn prints a WARNING, mode=oops oopses,
 * mode=panic panics, mode=hang blocks insmod uninterruptibly for 8 s
 * (for the hung-task detector), mode=uaf reads freed memory (for KASAN),
 * mode=leak loses an allocation (for kmemleak); mode=none loads quietly
 * (used by the smoke test).
 */
#include <linux/bug.h>
#include <linux/delay.h>
#include <linux/module.h>
#include <linux/panic.h>
#include <linux/slab.h>
#include <linux/string.h>

static char *mode = "none";
static int *harness_null;
static int harness_sink;
module_param(mode, charp, 0444);
MODULE_PARM_DESC(mode, "none, warn, oops, panic, hang, uaf or leak");

static void harness_use_after_free(void)
{
	int *p = kmalloc(sizeof(*p), GFP_KERNEL);

	if (!p)
		return;
	*p = 1;
	kfree(p);
	harness_sink = READ_ONCE(*p);
}

static void harness_leak(void)
{
	/* the only pointer to it dies with this frame */
	int *p = kmalloc(128, GFP_KERNEL);

	harness_sink = !!p;
}

static int __init harness_fault_init(void)
{
	if (!strcmp(mode, "warn"))
		WARN(1, "harness_fault: warning on request\n");
	else if (!strcmp(mode, "oops"))
		*READ_ONCE(harness_null) = 1;
	else if (!strcmp(mode, "panic"))
		panic("harness_fault: panic on request\n");
	else if (!strcmp(mode, "hang"))
		msleep(8000);
	else if (!strcmp(mode, "uaf"))
		harness_use_after_free();
	else if (!strcmp(mode, "leak"))
		harness_leak();
	else if (strcmp(mode, "none"))
		return -EINVAL;
	return 0;
}

static void __exit harness_fault_exit(void)
{
}

module_init(harness_fault_init);
module_exit(harness_fault_exit);
MODULE_DESCRIPTION("Faults on request, to test the test harness");
MODULE_LICENSE("GPL");
