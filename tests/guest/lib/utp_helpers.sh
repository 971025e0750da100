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
