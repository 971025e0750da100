# SPDX-License-Identifier: GPL-2.0
# What the guest's shell tests share, on top of the kernel's KTAP
# helpers, which this brings in: sourced by each of them.
. /usr/libexec/utrace-tests/ktap_helpers.sh

# check STATUS DESCRIPTION: one result, a pass if STATUS is 0
check() {
	ktap_test_result "$2" [ "$1" = 0 ]
}

# hits NAME: the hit count of probe NAME in utprobe_profile ("" if none)
hits() {
	awk -v n="$1" '$1 == n { print $NF }' /sys/kernel/tracing/utprobe_profile
}

# values: the values of each record of uprobe-cli trace's table, one
# record a line
values() {
	sed -n -E 's/^ *[0-9]+\.[0-9]+ +[0-9]+ +[0-9]+ +[^ ]+ +//p'
}

# same WHAT EXPECTED ACTUAL: 0 if equal, else 1 with both shown
same() {
	if [ "$2" = "$3" ]; then
		return 0
	fi
	echo "# $1 differs: expected, then got:"
	echo "$2" | head -5 | sed 's/^/#   /'
	echo "$3" | head -5 | sed 's/^/#   /'
	return 1
}

# blocked_sqlite3 DIR: start sqlite3 with the libraries of DIR/lib first
# (LD_LIBRARY_PATH), reading a FIFO that nothing writes, and wait until
# it is blocked in read(2) of its input with a library of DIR/lib
# mapped: it maps them and runs none of their code.  Mainline uprobes
# looks at a probed instruction only where its file is mapped, so that
# only then does enabling an event it cannot probe fail.  0 once it is
# blocked, 1 if it was not within 60 s; unblocked_sqlite3 kills it
# (SIGKILL: none of its code runs again) either way.
blocked_sqlite3() {
	rm -f "$1/fifo"
	mkfifo "$1/fifo"
	# held open for writing, so that opening it to read does not wait
	exec 8<> "$1/fifo"
	LD_LIBRARY_PATH=$1/lib sqlite3 :memory: < "$1/fifo" > /dev/null 2>&1 &
	BLOCKED=$!
	i=0
	while ! grep -q '^0 0x0 ' /proc/$BLOCKED/syscall 2> /dev/null &&
		[ $i -lt 600 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	grep -q '^0 0x0 ' /proc/$BLOCKED/syscall 2> /dev/null &&
		grep -q " $1/lib/" /proc/$BLOCKED/maps
}

unblocked_sqlite3() {
	kill -9 $BLOCKED 2> /dev/null
	wait $BLOCKED 2> /dev/null
	exec 8>&-
}
