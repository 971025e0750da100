// SPDX-License-Identifier: GPL-2.0
/*
 * uprobe-cli: finding a binary by the name a spec gives (in the maps of
 * a process, in its root, on the library path or PATH), the libraries it
 * needs, and opening it with libdwfl, kept open for the command's other
 * specs.  Below resolve.c, which resolves specs in what this opens.
 */
#define _GNU_SOURCE
#include <elfutils/libdwfl.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <glob.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "resolve.h"

/* The strings up_intern() kept, newest first. */
static struct interned {
	struct interned *next;
	char s[];
} *interned;

const char *up_intern(const char *s)
{
	struct interned *i;

	for (i = interned; i; i = i->next)
		if (!strcmp(i->s, s))
			return i->s;
	i = malloc(sizeof(*i) + strlen(s) + 1);
	if (!i)
		return NULL;
	strcpy(i->s, s);
	i->next = interned;
	interned = i;
	return i->s;
}

void up_set_err(char *err, size_t len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, len, fmt, ap);
	va_end(ap);
}

/*
 * Open @path for reading if it is a regular file: the fd, or -errno
 * (-EINVAL for a FIFO, a device, a directory).  Never blocks: opening a
 * FIFO for reading would wait for a writer.
 */
static int open_regular(const char *path)
{
	struct stat st;
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) ||
	    fcntl(fd, F_SETFL, 0)) {
		close(fd);
		return -EINVAL;
	}
	return fd;
}

/*
 * Is @path a regular file that starts as an ELF file does: 1, 0, or
 * open_regular()'s -errno
 */
static int is_elf(const char *path)
{
	unsigned char magic[4];
	int fd = open_regular(path), ok;

	if (fd < 0)
		return fd;
	ok = read(fd, magic, 4) == 4 && !memcmp(magic, ELFMAG, SELFMAG);
	close(fd);
	return ok;
}

/*
 * A library by short name, in the maps of @pid; its mapping's range
 * ("START-END") into @range if not NULL.  0, -ENOENT if it is not
 * there, or the -errno of reading the maps.
 */
static int find_in_maps(const char *name, pid_t pid, char *path, size_t size,
			char *range, size_t rsize)
{
	char maps[64], line[PATH_MAX + 128];
	size_t n = strlen(name);
	int found = -ENOENT;
	FILE *f;

	snprintf(maps, sizeof(maps), "/proc/%d/maps", pid);
	f = fopen(maps, "re");
	if (!f)
		return -errno;
	while (found && fgets(line, sizeof(line), f)) {
		char *p = strchr(line, '/'), *base;

		if (!p)
			continue;
		p[strcspn(p, "\n")] = '\0';
		base = strrchr(p, '/') + 1;
		if (!strcmp(base, name) ||
		    (!strncmp(base, name, n) && base[n] == '.') ||
		    (!strncmp(base, "lib", 3) && !strncmp(base + 3, name, n) &&
		     base[3 + n] == '.')) {
			snprintf(path, size, "%s", p);
			if (range)
				snprintf(range, rsize, "%.*s",
					 (int)strcspn(line, " "), line);
			found = 0;
		}
	}
	fclose(f);
	return found;
}

/*
 * A library by short name, where the dynamic loader looks by default:
 * 0, or -ENOENT (-ENOMEM out of memory).
 */
static int find_library(const char *name, char *path, size_t size)
{
	static const char *const dirs[] = {
		"/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu",
		"/lib64", "/usr/lib64", "/lib", "/usr/lib",
	};
	static const char *const pats[] = {
		"%s/%s", "%s/%s.so", "%s/%s.so.*", "%s/lib%s.so", "%s/lib%s.so.*",
	};
	char *ldpath = getenv("LD_LIBRARY_PATH"), *copy = NULL, *dir, *save;
	char pattern[PATH_MAX];
	int ret = -ENOENT;

	/* as find_program(): out of memory, nothing is found */
	if (ldpath) {
		copy = strdup(ldpath);
		if (!copy)
			return -ENOMEM;
	}
	for (int d = -1; ret && d < (int)(sizeof(dirs) / sizeof(dirs[0])); d++) {
		const char *dirv[64];
		int nd = 0;

		if (d < 0) {
			for (dir = copy ? strtok_r(copy, ":", &save) : NULL;
			     dir && nd < 64; dir = strtok_r(NULL, ":", &save))
				dirv[nd++] = dir;
		} else {
			dirv[nd++] = dirs[d];
		}
		for (int i = 0; ret && i < nd; i++) {
			for (size_t p = 0; ret && p < sizeof(pats) / sizeof(pats[0]); p++) {
				glob_t g;

				snprintf(pattern, sizeof(pattern), pats[p], dirv[i],
					 name);
				if (glob(pattern, 0, NULL, &g))
					continue;
				for (size_t k = 0; ret && k < g.gl_pathc; k++)
					if (is_elf(g.gl_pathv[k]) == 1 &&
					    realpath(g.gl_pathv[k], path))
						ret = 0;
				globfree(&g);
			}
		}
	}
	free(copy);
	(void)size;
	return ret;
}

/* A program in $PATH: 0, or -ENOENT (-ENOMEM out of memory). */
static int find_program(const char *name, char *path, size_t size)
{
	char *env = getenv("PATH"), *copy, *dir, *save;
	char cand[PATH_MAX];
	int ret = -ENOENT;

	copy = strdup(env ? env : "/usr/bin:/bin");
	if (!copy)
		return -ENOMEM;
	for (dir = strtok_r(copy, ":", &save); ret && dir;
	     dir = strtok_r(NULL, ":", &save)) {
		snprintf(cand, sizeof(cand), "%s/%s", dir, name);
		if (!access(cand, X_OK) && realpath(cand, path))
			ret = 0;
	}
	free(copy);
	(void)size;
	return ret;
}

void up_root_of(pid_t pid, char *root, size_t size)
{
	struct stat theirs, ours, their_ns, our_ns;
	char path[64], ns[64];

	*root = '\0';
	snprintf(path, sizeof(path), "/proc/%d/root", (int)pid);
	snprintf(ns, sizeof(ns), "/proc/%d/ns/mnt", (int)pid);
	if (stat(path, &theirs) || stat("/", &ours))
		return;
	if (theirs.st_dev != ours.st_dev || theirs.st_ino != ours.st_ino ||
	    (!stat(ns, &their_ns) && !stat("/proc/self/ns/mnt", &our_ns) &&
	     their_ns.st_ino != our_ns.st_ino))
		snprintf(root, size, "%s", path);
}

/*
 * @name, an absolute path as another process sees it from its root
 * @root ("/proc/PID/root"), into @path: @root followed by the same path
 * with its symbolic links resolved in that root, not in ours (where an
 * absolute link's target would be looked up if the kernel followed it
 * through @root).  0, or -errno.
 */
static int path_in_root(const char *root, const char *name, char *path,
			size_t size)
{
	char rest[PATH_MAX], done[PATH_MAX] = "", link[PATH_MAX];
	char full[2 * PATH_MAX + 64], comp[NAME_MAX + 1], *p, *slash;
	int links = 0;
	ssize_t l;
	size_t n;

	snprintf(rest, sizeof(rest), "%s", name);
	while (*rest) {
		p = rest + strspn(rest, "/");
		n = strcspn(p, "/");
		if (n > NAME_MAX)
			goto too_long;
		memcpy(comp, p, n);
		comp[n] = '\0';
		memmove(rest, p + n, strlen(p + n) + 1);
		if (!n || !strcmp(comp, "."))
			continue;
		if (!strcmp(comp, "..")) {
			/* never above the root */
			slash = strrchr(done, '/');
			if (slash)
				*slash = '\0';
			continue;
		}
		snprintf(full, sizeof(full), "%s%s/%s", root, done, comp);
		l = readlink(full, link, sizeof(link) - 1);
		if (l < 0 && errno != EINVAL)
			return -errno;
		if (l < 0) {
			/* not a link: resolved */
			if (strlen(done) + n + 2 > sizeof(done))
				goto too_long;
			strcat(done, "/");
			strcat(done, comp);
			continue;
		}
		if (++links > 40)
			return -ELOOP;
		link[l] = '\0';
		/* what is left, behind the link's target */
		if (strlen(link) + strlen(rest) + 2 > sizeof(rest))
			goto too_long;
		memmove(rest + l + 1, rest, strlen(rest) + 1);
		memcpy(rest, link, l);
		rest[l] = '/';
		if (*link == '/')
			*done = '\0';
	}
	if (snprintf(path, size, "%s%s", root, *done ? done : "/") <
	    (int)size)
		return 0;
too_long:
	return -ENAMETOOLONG;
}

/*
 * @name (a path, or a library's short name found in the maps of @pid)
 * in the root of @pid, which is not ours; no $PATH or library path of
 * ours is looked in.  0, or -errno with a message in @err: -ENOENT for
 * no such library, -EINVAL for a relative path.
 */
static int find_in_root(const char *name, pid_t pid, const char *root,
			char *path, size_t size, char *err, size_t errlen)
{
	char in[PATH_MAX], range[64];
	int r;

	if (!strchr(name, '/')) {
		/* the maps show it as another namespace may: the very file */
		if (!find_in_maps(name, pid, in, sizeof(in), range,
				  sizeof(range))) {
			snprintf(path, size, "/proc/%d/map_files/%s", (int)pid,
				 range);
			return 0;
		}
		up_set_err(err, errlen,
			"%s: no such library in the maps of process %d (whose root is not ours: give its path there)",
			name, pid);
		return -ENOENT;
	}
	if (*name != '/') {
		up_set_err(err, errlen,
			"%s: not an absolute path in the root of process %d",
			name, pid);
		return -EINVAL;
	}
	r = path_in_root(root, name, path, size);
	if (r)
		up_set_err(err, errlen, "%s%s: %s", root, name, strerror(-r));
	return r;
}

int up_find_binary(const char *name, pid_t pid, char *path, size_t size,
		   char *err, size_t errlen)
{
	char root[64] = "";
	int elf;

	if (pid)
		up_root_of(pid, root, sizeof(root));
	if (*root) {
		elf = find_in_root(name, pid, root, path, size, err, errlen);
		if (elf)
			return elf;
	} else if (strchr(name, '/')) {
		if (!realpath(name, path)) {
			elf = -errno;
			up_set_err(err, errlen, "%s: %s", name, strerror(-elf));
			return elf;
		}
	} else if (!(pid && !find_in_maps(name, pid, path, size, NULL, 0)) &&
		   find_program(name, path, size) &&
		   find_library(name, path, size)) {
		if (pid)
			up_set_err(err, errlen,
				"%s: no such program or library (not in $PATH, the library path, or the maps of process %d)",
				name, pid);
		else
			up_set_err(err, errlen,
				"%s: no such program or library (not in $PATH or the library path)",
				name);
		return -ENOENT;
	}
	elf = is_elf(path);
	if (elf < 0) {
		up_set_err(err, errlen, "%s: %s", path, elf == -EINVAL ?
			"not a regular file" : strerror(-elf));
		return elf;
	}
	if (!elf) {
		up_set_err(err, errlen, "%s: not an ELF file", path);
		return -ENOEXEC;
	}
	return 0;
}

/* A growing list of interned paths, without repeats. */
struct path_list {
	const char **v;
	int n;
};

/* Add @path unless it is there; 0, or -ENOMEM. */
static int path_list_add(struct path_list *l, const char *path)
{
	const char *kept = up_intern(path), **more;

	if (!kept)
		return -ENOMEM;
	for (int i = 0; i < l->n; i++)
		if (l->v[i] == kept)
			return 0;
	more = realloc(l->v, (l->n + 1) * sizeof(*more));
	if (!more)
		return -ENOMEM;
	l->v = more;
	l->v[l->n++] = kept;
	return 0;
}

/*
 * The libraries process @pid maps executable, but @path: 0, or -errno
 * with a message in @err.
 */
static int mapped_libraries(const char *path, pid_t pid, struct path_list *l,
			    char *err, size_t errlen)
{
	char maps[64], line[PATH_MAX + 128], lib[PATH_MAX], perm[8];
	int ret = 0;
	FILE *f;

	snprintf(maps, sizeof(maps), "/proc/%d/maps", (int)pid);
	f = fopen(maps, "re");
	if (!f) {
		ret = -errno;
		up_set_err(err, errlen, "process %d: %s", (int)pid,
			strerror(-ret));
		return ret;
	}
	while (!ret && fgets(line, sizeof(line), f)) {
		char *p = strchr(line, '/');

		if (!p || sscanf(line, "%*s %7s", perm) != 1 ||
		    !strchr(perm, 'x'))
			continue;
		p[strcspn(p, "\n")] = '\0';
		/* " (deleted)", or no longer there: not probed */
		if (up_find_binary(p, pid, lib, sizeof(lib), err, errlen)) {
			*err = '\0';
			continue;
		}
		/* as the process names it: resolved in its root again */
		if (strcmp(lib, path) && path_list_add(l, p)) {
			up_set_err(err, errlen, "out of memory");
			ret = -ENOMEM;
		}
	}
	fclose(f);
	return ret;
}

/*
 * Add to @l the libraries named by the DT_NEEDED entries of @path: 0, or
 * -ENOMEM.
 */
static int add_needed(const char *path, struct path_list *l)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), ret = 0;
	char lib[PATH_MAX];
	Elf_Scn *scn = NULL;
	Elf *e;

	if (fd < 0)
		return 0;
	elf_version(EV_CURRENT);
	e = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	while (e && !ret && (scn = elf_nextscn(e, scn))) {
		Elf_Data *d = elf_getdata(scn, NULL);
		GElf_Shdr sh;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_DYNAMIC ||
		    !d || !sh.sh_entsize)
			continue;
		for (size_t i = 0; !ret && i < sh.sh_size / sh.sh_entsize; i++) {
			const char *name;
			GElf_Dyn dyn;

			if (!gelf_getdyn(d, i, &dyn) || dyn.d_tag != DT_NEEDED)
				continue;
			name = elf_strptr(e, sh.sh_link, dyn.d_un.d_val);
			/* one the loader would not find is not probed */
			if (name && !find_library(name, lib, sizeof(lib)))
				ret = path_list_add(l, lib);
		}
	}
	elf_end(e);
	close(fd);
	return ret;
}

int up_libraries(const char *path, pid_t pid, const char ***libs, char *err,
		 size_t errlen)
{
	struct path_list l = { 0 };
	int ret = 0;

	if (pid) {
		ret = mapped_libraries(path, pid, &l, err, errlen);
	} else {
		/* breadth first: each one's needs once it is in the list */
		ret = add_needed(path, &l);
		for (int i = 0; !ret && i < l.n; i++)
			ret = add_needed(l.v[i], &l);
		if (ret)
			up_set_err(err, errlen, "out of memory");
	}
	if (ret) {
		free(l.v);
		return ret;
	}
	*libs = l.v;
	return l.n;
}

static char *debuginfo_path;

static const Dwfl_Callbacks offline_callbacks = {
	.find_debuginfo = dwfl_standard_find_debuginfo,
	.section_address = dwfl_offline_section_address,
	.debuginfo_path = &debuginfo_path,
};

int up_binary_open(const char *path, struct up_binary *b, char *err,
		   size_t errlen)
{
	int fd;

	memset(b, 0, sizeof(*b));
	b->fd = -1;
	/* where separate debug files are looked for; NULL: /usr/lib/debug */
	debuginfo_path = getenv("UPROBE_CLI_DEBUGINFO_PATH");
	b->dwfl = dwfl_begin(&offline_callbacks);
	if (!b->dwfl) {
		up_set_err(err, errlen, "libdwfl: %s", dwfl_errmsg(-1));
		return -ENOMEM;
	}
	/* libdwfl reads the file we checked, through a copy of our fd */
	b->fd = open_regular(path);
	fd = b->fd < 0 ? b->fd : dup(b->fd);
	if (b->fd >= 0 && fd < 0)
		fd = -errno;
	if (fd < 0) {
		up_set_err(err, errlen, "%s: %s", path,
			fd == -EINVAL ? "not a regular file" : strerror(-fd));
		if (b->fd >= 0)
			close(b->fd);
		dwfl_end(b->dwfl);
		return fd;
	}
	b->mod = dwfl_report_offline(b->dwfl, "", path, fd);
	dwfl_report_end(b->dwfl, NULL, NULL);
	/* the fd is libdwfl's if it took the file */
	if (b->mod)
		b->elf = dwfl_module_getelf(b->mod, &b->bias);
	else
		close(fd);
	if (!b->elf) {
		up_set_err(err, errlen, "%s: %s", path, dwfl_errmsg(-1));
		close(b->fd);
		dwfl_end(b->dwfl);
		return -ENOEXEC;
	}
	return 0;
}

void up_binary_close(struct up_binary *b)
{
	for (size_t i = 0; i < b->ndemangled; i++)
		free(b->demangled[i]);
	free(b->demangled);
	free(b->targets);
	free(b->inlined);
	if (b->fd >= 0)
		close(b->fd);
	dwfl_end(b->dwfl);
}

/*
 * The binaries opened for this command's specs, kept open until
 * up_binaries_close(): a binary's symbols, DWARF and inlined copies are
 * read once however many specs, values and listings name it.
 */
struct kept_binary {
	struct up_binary b;
	const char *path;	/* up_intern()'ed */
	const char *debug_dirs;	/* where debug files were looked for */
	struct stat st;		/* of its file, when opened */
};

static struct kept_binary **kept;	/* the last used last */
static size_t nkept;

/*
 * The binaries kept open at most: each holds two or three descriptors
 * (top -p resolves every library of a process)
 */
#define KEPT_MAX	32

/*
 * Whether @path still names the file @k opened, and its debug file would
 * be looked for where it was (the tests change that)
 */
static bool kept_current(const struct kept_binary *k, const char *path,
			 const char *debug_dirs)
{
	struct stat st;

	return k->debug_dirs == debug_dirs && !stat(path, &st) &&
	       st.st_dev == k->st.st_dev &&
	       st.st_ino == k->st.st_ino &&
	       st.st_mtim.tv_sec == k->st.st_mtim.tv_sec &&
	       st.st_mtim.tv_nsec == k->st.st_mtim.tv_nsec;
}

struct up_binary *up_binary_get(const char *path, char *err, size_t errlen)
{
	const char *name = up_intern(path), *dirs = NULL;
	struct kept_binary *k, **more;
	int r;

	if (getenv("UPROBE_CLI_DEBUGINFO_PATH"))
		dirs = up_intern(getenv("UPROBE_CLI_DEBUGINFO_PATH"));
	if (!name) {
		up_set_err(err, errlen, "out of memory");
		errno = ENOMEM;
		return NULL;
	}
	for (size_t i = 0; i < nkept; i++) {
		if (kept[i]->path != name)
			continue;
		k = kept[i];
		memmove(&kept[i], &kept[i + 1], (nkept - i - 1) * sizeof(*kept));
		nkept--;
		if (kept_current(k, path, dirs)) {
			kept[nkept++] = k;
			return &k->b;
		}
		/* replaced since: open it afresh */
		up_binary_close(&k->b);
		free(k);
		break;
	}
	/* the least recently used goes */
	if (nkept == KEPT_MAX) {
		up_binary_close(&kept[0]->b);
		free(kept[0]);
		memmove(&kept[0], &kept[1], --nkept * sizeof(*kept));
	}
	k = calloc(1, sizeof(*k));
	more = realloc(kept, (nkept + 1) * sizeof(*more));
	if (!k || !more) {
		free(k);
		if (more)
			kept = more;
		up_set_err(err, errlen, "out of memory");
		errno = ENOMEM;
		return NULL;
	}
	kept = more;
	r = up_binary_open(path, &k->b, err, errlen);
	if (r) {
		free(k);
		errno = -r;
		return NULL;
	}
	k->path = name;
	k->debug_dirs = dirs;
	fstat(k->b.fd, &k->st);
	kept[nkept++] = k;
	return &k->b;
}

void up_binaries_close(void)
{
	for (size_t i = 0; i < nkept; i++) {
		up_binary_close(&kept[i]->b);
		free(kept[i]);
	}
	free(kept);
	kept = NULL;
	nkept = 0;
}
