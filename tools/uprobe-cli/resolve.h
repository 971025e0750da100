/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Probe specs to file offsets, with elfutils (libdwfl).
 */
#ifndef UPROBE_CLI_RESOLVE_H
#define UPROBE_CLI_RESOLVE_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>
#include <elfutils/libdwfl.h>

/*
 * Globs matching more functions than this are refused: the kernel's
 * default bound on one process's probes (utprobes.points_max).  Every
 * function of libc is some 3,000; of a large C++ library, 20,000.
 */
#define UP_GLOB_MAX	65536

/* The argument specs of an SDT marker fit this, with their NUL. */
#define UP_SDT_ARGS_MAX	512

/* One place a spec resolved to. */
struct up_place {
	const char *path;	/* the binary, resolved (up_intern()) */
	unsigned long vaddr;	/* its link-time address */
	unsigned long offset;	/* its offset in the file */
	char symbol[256];	/* the function it is in ("" if none), or */
				/* PROVIDER:NAME of an SDT marker */
	unsigned long sym_off;	/* its offset in that function */
	unsigned long func_size; /* that function's size, or 0 */
	bool glob;		/* one of the functions a glob matched */
	bool dup;		/* another function of the binary has */
	unsigned long func_vaddr; /* its name: this one is at this address */
	bool entered_in_window;	/* at its entry, a branch of the binary */
				/* or a jump table of the function lands */
				/* in its first bytes */
	const char *inline_of;	/* a copy of this function inlined into */
				/* @symbol, or NULL (up_intern()) */
	bool sdt;		/* an SDT marker: */
	unsigned long ref_offset; /* its semaphore's file offset, or 0 */
	char sdt_args[UP_SDT_ARGS_MAX]; /* its argument specs */
};

/*
 * @s kept for as long as the program runs, one copy per distinct
 * string: the binaries' paths of every place (thousands of places, a
 * few binaries).  NULL if out of memory.
 */
const char *up_intern(const char *s);
/*
 * The C++ name that @name is the mangled form of, malloc()ed, or NULL
 * (not a mangled name, or out of memory).
 */
char *up_demangle(const char *name);

/*
 * Is @what, a spec's part after BINARY:, FILE:LINE?  Not a C++ name's
 * "::" (ns::Klass::method).
 */
bool up_spec_is_line(const char *what);

/*
 * Resolve @spec (BINARY:SYMBOL, BINARY:SYMBOL+OFF, BINARY:0xADDR,
 * BINARY:FILE:LINE, BINARY:GLOB or BINARY:sdt:PROVIDER:NAME, with globs
 * in PROVIDER and NAME).  BINARY is a path, a program found
 * in $PATH, or a library's short name (libc, or libc.so.6) found as the
 * dynamic loader would, or in the maps of @pid if it is not 0.
 * Returns the number of places in *@places (malloc'ed), or -errno with
 * a one-line message naming the problem in @err: -EINVAL for a bad
 * spec, -ENOENT for a binary, function, line or marker not found,
 * -ENOEXEC for a file not ELF, -E2BIG for a glob matching more than
 * UP_GLOB_MAX, -ENOMEM, the -errno of a system call.
 */
int up_resolve(const char *spec, pid_t pid, struct up_place **places,
	       char *err, size_t errlen);

/*
 * BINARY:SYMBOL names a function wherever its code runs: its own entry
 * (if it has an out-of-line copy) and each place the compiler inlined
 * it, from the DWARF (DW_TAG_inlined_subroutine), as perf probe does.
 * Set this to resolve the entry alone (--no-inline).
 */
extern bool up_no_inline;

/*
 * What a message about a binary without debug information adds: where
 * it was looked for, and how to get it (DEBUGINFOD_URLS, the servers
 * libdw asks through libdebuginfod, with its cache).
 */
const char *up_debuginfo_hint(void);

/* A function's copy that the compiler inlined, by its entry. */
struct up_inlined {
	const char *name;	/* libdw's, while the binary is open */
	unsigned long entry;
};

/* An open binary: libdwfl's view and the main ELF file's. */
struct up_binary {
	Dwfl *dwfl;
	Dwfl_Module *mod;
	Elf *elf;		/* the main file, for program headers */
	GElf_Addr bias;
	int fd;
	unsigned long *targets;	/* direct branches' targets, sorted */
	size_t ntargets;	/* ... how many, once found */
	bool targets_found;
	struct up_inlined *inlined; /* functions' inlined copies, by name */
	size_t ninlined;	/* ... how many, once found */
	bool inlined_found;
	char **demangled;	/* C++ names of the symbols, by index */
	size_t ndemangled;	/* ... (NULL: not mangled), once found */
	bool demangled_found;
};

/*
 * Find @b's inlined copies of every function, once (inlined.c): 0, or
 * -ENOMEM.
 */
int up_inlined_copies(struct up_binary *b);

/*
 * The first of @b's inlined copies of @name, found by
 * up_inlined_copies(), and (*@n) how many.
 */
const struct up_inlined *up_inlined_of(const struct up_binary *b,
				       const char *name, size_t *n);

/*
 * The functions inlined where @pc is in module @m, innermost first, into
 * @out (@max at most), their names demangled and interned: how many.
 * Their caller is the symbol's function (inlined.c).
 */
int up_inlined_at(Dwfl_Module *m, Dwarf_Addr pc, const char **out, int max);

/*
 * Open @path with libdwfl, its separate debug file found as resolution
 * does; 0, or -errno with a message in @err (-ENOEXEC for a file libdwfl
 * cannot take, -EINVAL for one not regular).
 */
int up_binary_open(const char *path, struct up_binary *b, char *err,
		   size_t errlen);
void up_binary_close(struct up_binary *b);

/*
 * @path opened by up_binary_open() once for the command, and kept open
 * (its symbols, DWARF and what was found in them) for every later spec,
 * value or listing that names it, until up_binaries_close(); opened
 * afresh if the path names another file since.  The 32 used last are
 * kept: the binary returned is valid until the next call.  NULL, with a
 * message in @err and errno set (up_binary_open()'s, or ENOMEM), if it
 * cannot be opened.
 */
struct up_binary *up_binary_get(const char *path, char *err, size_t errlen);

/*
 * Close every binary up_binary_get() kept: done by the time probes are
 * placed, so that a command that runs for long holds no file (nor the
 * mount it is on) open for them.
 */
void up_binaries_close(void);

/*
 * "/proc/PID/root" into @root if process @pid has another root or mount
 * namespace than ours (it runs in a container), where its paths are
 * looked up; "" if it shares ours.
 */
void up_root_of(pid_t pid, char *root, size_t size);

/* vsnprintf() into @err, @len bytes (binary.c) */
void up_set_err(char *err, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/*
 * Translate link-time address @in of @b to a file offset (@to_offset),
 * or a file offset to an address, through its PT_LOAD segments, those
 * that are executable only if @exec; 0, or -ENOENT if none holds it
 * (-ENOEXEC if the program headers cannot be read) (segments.c).
 */
int up_translate(struct up_binary *b, unsigned long in, bool to_offset,
		 bool exec, unsigned long *out);

/*
 * Does something that the kernel does not see (a direct branch from
 * anywhere in @b, one of the function's jump tables) land inside the
 * instructions a jump at the entry of the function at @start, @size
 * bytes long, would replace?  False where the function cannot be read
 * or decoded (the kernel's own decoding refuses it then), or out of
 * memory (jumpwindow.c).
 */
bool up_entered_in_window(struct up_binary *b, unsigned long start,
			  unsigned long size);

/*
 * Find BINARY as up_resolve() does: in the root of @pid if that is not
 * ours (see up_root_of()); 0, or -errno with a message in @err: -ENOENT
 * for none found, -ENOEXEC for a file not ELF, -EINVAL for one not
 * regular, that of a system call.
 */
int up_find_binary(const char *name, pid_t pid, char *path, size_t size,
		   char *err, size_t errlen);

/*
 * The libraries of program @path (as up_find_binary() found it) into
 * *@libs (malloc'ed; the paths interned): those process @pid maps
 * executable if it is not 0, named as the process names them (for
 * up_resolve() with @pid), else those the program needs (DT_NEEDED)
 * and those they need in turn, found where the dynamic loader looks by
 * default.  Their number, or -errno with a message in @err (-ENOMEM,
 * that of reading the maps).
 */
int up_libraries(const char *path, pid_t pid, const char ***libs, char *err,
		 size_t errlen);

/*
 * Call @fn for each function symbol of @path whose name matches @glob
 * (every one if NULL), in address order, with its size and how many
 * copies of a function of its name the compiler inlined (DWARF); 0, or
 * -errno with a message in @err (up_binary_get()'s, -ENOMEM).
 */
int up_functions(const char *path, const char *glob,
		 void (*fn)(const struct up_place *place, unsigned long size,
			    unsigned int inlined, void *arg),
		 void *arg, char *err, size_t errlen);

/*
 * The function and offset of file offset @offset of @path ("" if none):
 * 0, or -errno (up_binary_open()'s, -ENOENT for an offset in no
 * segment, -ENOMEM).
 */
int up_describe(const char *path, unsigned long offset,
		struct up_place *place);

/*
 * The same for many offsets: the last binary described stays open, with
 * its functions, for the next offset of it.  NULL out of memory.
 */
struct up_describer;
struct up_describer *up_describer_new(void);
int up_describe_in(struct up_describer *d, const char *path,
		   unsigned long offset, struct up_place *place);
void up_describer_free(struct up_describer *d);

#endif /* UPROBE_CLI_RESOLVE_H */
