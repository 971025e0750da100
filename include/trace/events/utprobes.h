/* SPDX-License-Identifier: GPL-2.0 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM utprobes

#if !defined(_TRACE_UTPROBES_H) || defined(TRACE_HEADER_MULTI_READ)
#define _TRACE_UTPROBES_H

#include <linux/sched.h>
#include <linux/tracepoint.h>
#include <linux/utprobes.h>

/*
 * utprobe_hit - a thread hit a utprobe
 * @up:	the probe
 * @ip:	the probed address
 */
TRACE_EVENT(utprobe_hit,
	    TP_PROTO(struct utprobe *up, unsigned long ip),
	    TP_ARGS(up, ip),
	    TP_STRUCT__entry(__field(pid_t, pid)
			     __field(pid_t, tid)
			     __string(probe, up->name ?: "")
			     __field(unsigned long, ip)),
	    TP_fast_assign(__entry->pid = task_tgid_nr(current);
			   __entry->tid = task_pid_nr(current);
			   __assign_str(probe);
			   __entry->ip = ip;),
	    TP_printk("pid=%d tid=%d probe=%s ip=0x%lx", __entry->pid,
		      __entry->tid, __get_str(probe), __entry->ip));

/*
 * utprobe_ret - a function a return probe followed returned
 * @up:		the probe
 * @func:	the function's address
 * @ret_ip:	where it returned to
 * @rax:	its return value
 * @ns:		nanoseconds since its entry
 */
TRACE_EVENT(utprobe_ret,
	    TP_PROTO(struct utprobe *up, unsigned long func,
		     unsigned long ret_ip, unsigned long rax, u64 ns),
	    TP_ARGS(up, func, ret_ip, rax, ns),
	    TP_STRUCT__entry(__field(pid_t, pid)
			     __field(pid_t, tid)
			     __string(probe, up->name ?: "")
			     __field(unsigned long, func)
			     __field(unsigned long, ret_ip)
			     __field(unsigned long, rax)
			     __field(u64, ns)),
	    TP_fast_assign(__entry->pid = task_tgid_nr(current);
			   __entry->tid = task_pid_nr(current);
			   __assign_str(probe);
			   __entry->func = func;
			   __entry->ret_ip = ret_ip;
			   __entry->rax = rax;
			   __entry->ns = ns;),
	    TP_printk("pid=%d tid=%d probe=%s func=0x%lx ret_ip=0x%lx rax=0x%lx ns=%llu",
		      __entry->pid, __entry->tid, __get_str(probe),
		      __entry->func, __entry->ret_ip, __entry->rax,
		      __entry->ns));

#endif /* _TRACE_UTPROBES_H */

/* This part must be outside protection */
#include <trace/define_trace.h>
