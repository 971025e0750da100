// SPDX-License-Identifier: GPL-2.0
/*
 * utprobes: the text of probed processes.  An int3 goes into the
 * process's private copy of the page (a forced write makes one; the
 * page cache and the file never see it), and the original byte comes
 * back the same way.  The text of a process and of a file is read.
 */
#include "internal.h"

/*
 * Text.
 */

/* The byte at @vaddr of @page, mapped by @vma. */
static u8 utp_page_byte(struct page *page, unsigned long vaddr)
{
	u8 *kaddr = kmap_local_page(page), byte;

	byte = kaddr[offset_in_page(vaddr)];
	kunmap_local(kaddr);
	return byte;
}

/*
 * Map @new_page at @vaddr of @vma in place of @old_page, or just unmap
 * @old_page if @new_page is NULL (a fault maps the file's page again).
 * The page-table entry is cleared and flushed from every CPU that may
 * hold it before the new page goes in: no thread ever executes a page
 * that is being written, each sees either the old copy or the new one.
 * mmap_lock held.  Returns 0, or -EAGAIN if @old_page is no longer
 * mapped there.
 */
static int utp_replace_page(struct vm_area_struct *vma, unsigned long vaddr,
			    struct page *old_page, struct page *new_page)
{
	struct folio *old = page_folio(old_page), *new = NULL;
	DEFINE_FOLIO_VMA_WALK(pvmw, old, vma, vaddr, 0);
	struct mm_struct *mm = vma->vm_mm;
	struct mmu_notifier_range range;
	int ret;

	if (new_page) {
		new = page_folio(new_page);
		ret = mem_cgroup_charge(new, mm, GFP_KERNEL);
		if (ret)
			return ret;
	}
	mmu_notifier_range_init(&range, MMU_NOTIFY_CLEAR, 0, mm, vaddr,
				vaddr + PAGE_SIZE);
	/* folio_free_swap() wants it locked */
	folio_lock(old);
	mmu_notifier_invalidate_range_start(&range);
	ret = -EAGAIN;
	if (!page_vma_mapped_walk(&pvmw))
		goto unlock;
	if (!pte_present(ptep_get(pvmw.pte))) {
		page_vma_mapped_walk_done(&pvmw);
		goto unlock;
	}
	if (new) {
		folio_get(new);
		folio_add_new_anon_rmap(new, vma, vaddr, RMAP_EXCLUSIVE);
		folio_add_lru_vma(new, vma);
	} else {
		dec_mm_counter(mm, MM_ANONPAGES);
	}
	if (!folio_test_anon(old)) {
		dec_mm_counter(mm, mm_counter_file(old));
		inc_mm_counter(mm, MM_ANONPAGES);
	}
	flush_cache_page(vma, vaddr, pte_pfn(ptep_get(pvmw.pte)));
	ptep_clear_flush(vma, vaddr, pvmw.pte);
	if (new)
		set_pte_at(mm, vaddr, pvmw.pte,
			   mk_pte(new_page, vma->vm_page_prot));
	folio_remove_rmap_pte(old, old_page, vma);
	if (!folio_mapped(old))
		folio_free_swap(old);
	page_vma_mapped_walk_done(&pvmw);
	folio_put(old);
	ret = 0;
unlock:
	mmu_notifier_invalidate_range_end(&range);
	folio_unlock(old);
	return ret;
}

/*
 * Is @page, a private copy of a page of @vma's file at @vaddr, the same
 * as the file's page now?  Then the copy can go, and the process map the
 * file's page again, as it did before it was probed.
 */
static bool utp_same_as_file(struct vm_area_struct *vma, unsigned long vaddr,
			     struct page *page)
{
	pgoff_t index = linear_page_index(vma, vaddr);
	struct folio *folio;
	bool same;

	if (!vma->vm_file)
		return false;
	folio = filemap_get_folio(vma->vm_file->f_mapping, index);
	if (IS_ERR(folio))
		return false;
	same = folio_test_uptodate(folio) &&
	       pages_identical(page, folio_file_page(folio, index));
	folio_put(folio);
	return same;
}

/*
 * Write the bytes of @pk[0..@n) that are still to go (->ret 0), all in
 * the page of @vma that @old_page is, into a new copy of @old_page, and
 * map that copy in its place: a byte is never written into a page that
 * threads may be executing (an emulated CPU, QEMU's TCG, has been seen to
 * keep running its translation of a page written under it by another
 * CPU).  A copy that comes out the same as the file's page is not
 * mapped: the file's page comes back.  mmap_lock held.
 */
static int utp_write_bytes(struct vm_area_struct *vma, struct page *old_page,
			   struct utp_poke *pk, unsigned int n)
{
	unsigned long vaddr = pk[0].vaddr & PAGE_MASK;
	struct page *new_page;
	struct folio *folio;
	unsigned int i;
	u8 *kaddr;
	int ret;

	if (is_zero_page(old_page))
		return -EFAULT;
	ret = anon_vma_prepare(vma);
	if (ret)
		return ret;
	folio = vma_alloc_folio(GFP_HIGHUSER_MOVABLE, 0, vma, vaddr, false);
	if (!folio)
		return -ENOMEM;
	new_page = &folio->page;
	__folio_mark_uptodate(folio);
	copy_highpage(new_page, old_page);
	kaddr = kmap_local_page(new_page);
	for (i = 0; i < n; i++)
		if (!pk[i].ret)
			kaddr[offset_in_page(pk[i].vaddr)] = pk[i].new;
	kunmap_local(kaddr);
	if (PageAnon(old_page) && utp_same_as_file(vma, vaddr, new_page))
		ret = utp_replace_page(vma, vaddr, old_page, NULL);
	else
		ret = utp_replace_page(vma, vaddr, old_page, new_page);
	folio_put(folio);
	return ret;
}

/*
 * May @pk's byte be written into @vma?  0, or why not.  An int3 goes
 * only into executable text; a point's own byte goes back into text
 * that was made unexecutable for a while (mprotect(), as a loader
 * applying text relocations does), the point being still the mapping's
 * (not stale): else the int3 would be there when it runs again.
 */
static int utp_poke_check(struct vm_area_struct *vma,
			  const struct utp_poke *pk, bool restore)
{
	const struct utprobe *up = pk->up;

	if (!vma || !(vma->vm_flags & (restore ? VM_MAYEXEC : VM_EXEC)) ||
	    (vma->vm_flags & VM_MAYSHARE))
		return -EFAULT;
	if (pk->pt && READ_ONCE(pk->pt->stale))
		return -EAGAIN;
	if (restore && READ_ONCE(pk->pt->dbg_bp))
		return -EBUSY;
	if (up && up->inode &&
	    (!vma->vm_file || file_inode(vma->vm_file) != up->inode ||
	     ((loff_t)vma->vm_pgoff << PAGE_SHIFT) +
	     (pk->vaddr - vma->vm_start) != up->offset))
		return -EAGAIN;
	return 0;
}

/* A function a worker runs for a caller that is dying. */
struct utp_unkillable {
	struct work_struct work;
	void (*fn)(void *arg);
	void *arg;
};

static void utp_unkillable_fn(struct work_struct *work)
{
	struct utp_unkillable *u = container_of(work, struct utp_unkillable,
						work);

	u->fn(u->arg);
}

/*
 * Run @fn(@arg) in a worker and wait for it: for a caller with a fatal
 * signal pending, whose page lookups give up (-EINTR) where a byte left
 * unwritten would be an int3 without a probe, or half a jump.  The
 * caller's locks are held for @fn, which must not take them.
 */
void utp_call_unkillable(void (*fn)(void *arg), void *arg)
{
	struct utp_unkillable u = { .fn = fn, .arg = arg };

	INIT_WORK_ONSTACK(&u.work, utp_unkillable_fn);
	queue_work(system_unbound_wq, &u.work);
	flush_work(&u.work);
	destroy_work_on_stack(&u.work);
}

/* __utp_poke_page() with @mm's mmap_lock held for writing already. */
void utp_poke_page_locked(struct mm_struct *mm, struct utp_poke *pk,
			  unsigned int n, bool restore)
{
	struct vm_area_struct *vma;
	unsigned int i, todo;
	struct page *page;
	int ret;

	mmap_assert_write_locked(mm);
again:
	vma = vma_lookup(mm, pk[0].vaddr);
	for (i = 0, todo = 0; i < n; i++) {
		pk[i].ret = utp_poke_check(vma, &pk[i], restore);
		todo += !pk[i].ret;
	}
	if (!todo)
		return;
	page = get_user_page_vma_remote(mm, pk[0].vaddr,
					FOLL_FORCE | FOLL_SPLIT_PMD, &vma);
	ret = IS_ERR(page) ? PTR_ERR(page) : 0;
	for (i = 0, todo = 0; i < n; i++) {
		if (!pk[i].ret)
			pk[i].ret = ret ?: (utp_page_byte(page, pk[i].vaddr) ==
					    pk[i].old ? 0 : -EBUSY);
		todo += !pk[i].ret;
	}
	if (ret)
		return;
	ret = todo ? utp_write_bytes(vma, page, pk, n) : 0;
	put_page(page);
	/* the page changed under us: look again */
	if (ret == -EAGAIN)
		goto again;
	for (i = 0; ret && i < n; i++)
		if (!pk[i].ret)
			pk[i].ret = ret;
}

static void utp_poke_page_now(struct mm_struct *mm, struct utp_poke *pk,
			      unsigned int n, bool restore)
{
	unsigned int i;
	int ret = -ESRCH;

	if (!mmget_not_zero(mm))
		goto fail;
	ret = -EINTR;
	if (restore) {
		mmap_write_lock(mm);
	} else if (mmap_write_lock_killable(mm)) {
		mmput(mm);
		goto fail;
	}
	utp_poke_page_locked(mm, pk, n, restore);
	mmap_write_unlock(mm);
	mmput(mm);
	return;
fail:
	for (i = 0; i < n; i++)
		pk[i].ret = ret;
}

/* What a worker needs to write a dying caller's bytes back. */
struct utp_poke_args {
	struct mm_struct *mm;
	struct utp_poke *pk;
	unsigned int n;
};

static void utp_poke_restore_fn(void *arg)
{
	struct utp_poke_args *a = arg;

	utp_poke_page_now(a->mm, a->pk, a->n, true);
}

/*
 * Change the bytes of @pk[0..@n), all in one page of @mm, each from its
 * ->old to its ->new, with one copy of the page.  Text is only ever
 * written into a private executable mapping, in a private copy of the
 * page (utp_write_bytes(): the page cache and the file never see it),
 * and only over the byte expected there: checked under mmap_lock, so
 * that a mapping that replaced the probed one (a shared file mapped at
 * the same place after munmap, say) is never written.
 *
 * An int3 for a point goes in only if the point is not stale, and for a
 * probe on a file, only into a mapping of that file at the probe's
 * offset: both are checked under mmap_lock, which the mmap that makes a
 * point stale holds for writing.  The caller found the mapping earlier,
 * without that lock.  A point's own byte goes back over its int3 only
 * if no debugger's breakpoint is there too: checked under mmap_lock,
 * which keeps debuggers' accesses (__utprobe_access_write()) out
 * meanwhile.  mmap_lock is held for writing: a debugger's write into
 * the page between our copy of it and the copy's mapping would be lost.
 * @restore (bytes going back): not killable, an int3 left behind would
 * be a SIGTRAP; for a caller that is dying, written by a worker.
 *
 * Each ->ret is 0, -EFAULT (no private executable mapping there),
 * -EBUSY (another byte there, or a debugger's breakpoint), -EAGAIN
 * (the point stale, or not the probe's file there) or another -errno.
 */
void __utp_poke_page(struct mm_struct *mm, struct utp_poke *pk,
		     unsigned int n, bool restore)
{
	struct utp_poke_args a = { .mm = mm, .pk = pk, .n = n };
	unsigned int i;

	utp_poke_page_now(mm, pk, n, restore);
	/*
	 * A caller with a fatal signal pending (a tool killed while it
	 * removes its probes) has its page lookup give up, before any
	 * byte is written: the bytes go back from a worker instead.
	 */
	for (i = 0; restore && i < n; i++)
		if (pk[i].ret == -EINTR && fatal_signal_pending(current)) {
			utp_call_unkillable(utp_poke_restore_fn, &a);
			break;
		}
}

/* __utp_poke_page() of one byte: its outcome. */
int __utp_poke(struct mm_struct *mm, unsigned long vaddr, u8 old,
	       u8 new, const struct utp_point *pt,
	       const struct utprobe *up)
{
	struct utp_poke pk = {
		.vaddr = vaddr, .old = old, .new = new, .pt = pt, .up = up,
	};

	__utp_poke_page(mm, &pk, 1, pt && new != UTP_BREAK_INSN);
	return pk.ret;
}

/* Put back the byte an int3 of ours replaced, or take one out. */
int utp_poke(struct mm_struct *mm, unsigned long vaddr, u8 old, u8 new)
{
	return __utp_poke(mm, vaddr, old, new, NULL, NULL);
}

/*
 * Make every thread of @proc execute its text as it is now, after int3s
 * were written into it under the running threads: the cross-modifying
 * code of x86, where the writer makes each CPU that may execute the old
 * instructions go through a serialising event before it counts the new
 * ones as in place (text_poke_sync() reasons so for the kernel's text).
 *
 * A full TLB flush of the mm does that: its IPI interrupts every CPU
 * running one of the mm's threads (the return from the interrupt
 * serialises), and a CPU on which the mm is lazily loaded, or not at
 * all, reloads CR3 before it runs one of them again.  It must be a full
 * flush, by CR3: under emulation (QEMU's TCG), a CPU that flushed only
 * the written page has been seen to go on running its translation of
 * the page's old copy (the write made a new copy of the page) for
 * seconds, while a CR3 load drops every translation it looks up by
 * address.
 */
void utp_sync(struct utp_proc *proc)
{
	flush_tlb_mm(proc->mm);
}

/*
 * Check that @vaddr is in private executable text of @mm and read the
 * instruction there.  Returns the number of bytes read or an errno.
 */
int utp_read_text(struct mm_struct *mm, unsigned long vaddr,
		  u8 *buf, int len)
{
	struct vm_area_struct *vma;
	int ret;

	mmap_read_lock(mm);
	vma = vma_lookup(mm, vaddr);
	if (!vma || !(vma->vm_flags & VM_EXEC) ||
	    (vma->vm_flags & VM_MAYSHARE))
		ret = -EFAULT;
	else
		ret = min_t(unsigned long, len, vma->vm_end - vaddr);
	mmap_read_unlock(mm);
	if (ret < 0)
		return ret;
	ret = access_remote_vm(mm, vaddr, buf, ret, FOLL_FORCE);
	return ret > 0 ? ret : -EFAULT;
}

/*
 * Read @len bytes at @pos of @inode's page cache.  A mapping without
 * ->read_folio is read through shmem if it is one (a page of a tmpfs
 * file that is not in memory, a hole say); any other is refused with
 * -EIO, as mainline uprobes refuses it (overlayfs, for one).
 */
static int utp_read_cache(struct inode *inode, loff_t pos, void *buf,
			  size_t len)
{
	struct address_space *mapping = inode->i_mapping;

	if (!mapping->a_ops->read_folio && !shmem_mapping(mapping))
		return -EIO;
	while (len) {
		struct folio *folio;
		size_t off, n;

		if (mapping->a_ops->read_folio)
			folio = read_mapping_folio(mapping, pos >> PAGE_SHIFT,
						   NULL);
		else
			folio = shmem_read_folio(mapping, pos >> PAGE_SHIFT);
		if (IS_ERR(folio))
			return PTR_ERR(folio);
		off = offset_in_folio(folio, pos);
		n = min(len, folio_size(folio) - off);
		memcpy_from_folio(buf, folio, off, n);
		folio_put(folio);
		buf += n;
		pos += n;
		len -= n;
	}
	return 0;
}

/*
 * Check that @offset is in an executable segment of the ELF file @inode
 * and read the instruction there.  Returns the number of bytes read or
 * -ENXIO (beyond the end of the file), -ENOEXEC (not a 64-bit ELF file),
 * -EFAULT (not in executable text).
 */
int utp_read_file_text(struct inode *inode, loff_t offset, u8 *buf,
		       int len)
{
	loff_t size = i_size_read(inode);
	struct elf64_phdr phdr;
	struct elf64_hdr ehdr;
	int i, ret;

	if (offset < 0 || offset >= size)
		return -ENXIO;
	if (size < sizeof(ehdr))
		return -ENOEXEC;
	ret = utp_read_cache(inode, 0, &ehdr, sizeof(ehdr));
	if (ret)
		return ret;
	if (memcmp(ehdr.e_ident, ELFMAG, SELFMAG) ||
	    ehdr.e_ident[EI_CLASS] != ELFCLASS64 ||
	    ehdr.e_phentsize != sizeof(phdr))
		return -ENOEXEC;
	for (i = 0; i < ehdr.e_phnum; i++) {
		loff_t pos = ehdr.e_phoff + (loff_t)i * sizeof(phdr);

		if (pos + sizeof(phdr) > size)
			return -ENOEXEC;
		ret = utp_read_cache(inode, pos, &phdr, sizeof(phdr));
		if (ret)
			return ret;
		if (phdr.p_type != PT_LOAD || !(phdr.p_flags & PF_X) ||
		    offset < phdr.p_offset ||
		    offset >= phdr.p_offset + phdr.p_filesz)
			continue;
		len = min_t(loff_t, len, phdr.p_offset + phdr.p_filesz - offset);
		len = min_t(loff_t, len, size - offset);
		ret = utp_read_cache(inode, offset, buf, len);
		return ret ? ret : len;
	}
	return -EFAULT;
}
