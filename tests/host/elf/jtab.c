// SPDX-License-Identifier: GPL-2.0
/*
 * Functions whose switch goes through a jump table, written out so that
 * where the table lands is known: jtab_into's table sends control to its
 * loop's head, 4 bytes in, inside the instructions a jump at its entry
 * would replace; jtab_clear's lands after them; jtab_abs (built without
 * PIE only, with -DJTAB_ABS) has a table of absolute addresses into its
 * first bytes.  jtab_none has no indirect jump, and reads a table-like
 * word that lands inside it.  jtab_entered is entered 4 bytes in by a
 * jmp of another function, jtab_enters (as libc's mempcpy enters
 * memcpy past its first instruction).
 */
__asm__(
	".text\n"
	".globl jtab_into\n.type jtab_into,@function\njtab_into:\n"
	"	endbr64\n"
	"1:	sub $1,%edi\n"		/* +4: a case lands here */
	"	cmp $2,%edi\n"
	"	ja 2f\n"
	"	lea 3f(%rip),%rdx\n"
	"	movslq (%rdx,%rdi,4),%rax\n"
	"	add %rdx,%rax\n"
	"	notrack jmp *%rax\n"
	"2:	mov %edi,%eax\n"
	"	ret\n"
	".size jtab_into,.-jtab_into\n"
	".section .rodata\n.p2align 2\n"
	"3:	.long 1b-3b, 2b-3b, 1b-3b\n"
	".text\n"

	".globl jtab_clear\n.type jtab_clear,@function\njtab_clear:\n"
	"	endbr64\n"
	"	sub $1,%edi\n"
	"1:	cmp $2,%edi\n"		/* +7: after the window (7 bytes) */
	"	ja 2f\n"
	"	lea 3f(%rip),%rcx\n"
	"	movslq (%rcx,%rdi,4),%r8\n"
	"	add %rcx,%r8\n"
	"	jmp *%r8\n"
	"2:	lea 1(%rdi),%eax\n"
	"	ret\n"
	".size jtab_clear,.-jtab_clear\n"
	".section .rodata\n.p2align 2\n"
	"3:	.long 2b-3b, 2b-3b, 1b-3b\n"
	".text\n"

	".globl jtab_none\n.type jtab_none,@function\njtab_none:\n"
	"	endbr64\n"
	"1:	mov 3f(%rip),%eax\n"
	"	add %edi,%eax\n"
	"	ret\n"
	".size jtab_none,.-jtab_none\n"
	".section .rodata\n.p2align 2\n"
	"3:	.long 1b-3b\n"
	".text\n"

	".globl jtab_entered\n.type jtab_entered,@function\njtab_entered:\n"
	"	endbr64\n"
	"	mov %edi,%eax\n"	/* +4: jtab_enters lands here */
	"	add $1,%eax\n"
	"	ret\n"
	".size jtab_entered,.-jtab_entered\n"
	".globl jtab_enters\n.type jtab_enters,@function\njtab_enters:\n"
	"	endbr64\n"
	"	add $1,%edi\n"
	"	jmp jtab_entered+4\n"
	".size jtab_enters,.-jtab_enters\n"
#ifdef JTAB_ABS
	".globl jtab_abs\n.type jtab_abs,@function\njtab_abs:\n"
	"	endbr64\n"
	"1:	sub $1,%edi\n"
	"	cmp $1,%edi\n"
	"	ja 2f\n"
	"	jmp *3f(,%rdi,8)\n"
	"2:	mov %edi,%eax\n"
	"	ret\n"
	".size jtab_abs,.-jtab_abs\n"
	".section .rodata\n.p2align 3\n"
	"3:	.quad 2b, 1b\n"
	".text\n"
#endif
);

int jtab_into(int x), jtab_clear(int x), jtab_none(int x);
int jtab_entered(int x), jtab_enters(int x);

int main(int argc, char **argv)
{
	(void)argv;
	return jtab_into(argc) + jtab_clear(argc) + jtab_none(argc) +
	       jtab_entered(argc) + jtab_enters(argc);
}
