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
