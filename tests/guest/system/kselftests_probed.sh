#!/bin/sh
# The kernel's selftests again, with file probes on libc: see kselftests.sh.
exec "$(dirname "$0")/kselftests.sh" probed
