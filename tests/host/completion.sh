#!/bin/bash
# Host test of uprobe-cli's bash completion, with a stand-in for
# uprobe-cli that lists functions and two probes: commands, the options
# before them and after, --format's values, a binary then its functions
# after the colon (bash cutting the word at the colon or not), the probe
# names of "del", and the command after "--"; and "make install"
# installing it.  Prints TAP through the kernel's KTAP helpers.
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/build/linux/tools/testing/selftests/kselftest/ktap_helpers.sh"
. "$top/tools/uprobe-cli/bash-completion/uprobe-cli"
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
mkdir "$t/bin"
: > "$t/bin/probed_prog"
printf '#!/bin/sh\n' > "$t/bin/probed_tool"
chmod +x "$t/bin/probed_tool"
PATH=$t/bin:$PATH
cat > "$t/fake" <<'FAKE'
#!/bin/sh
case "$1 $3" in
"funcs w*") printf '%s\n' "FUNCTION ADDRESS" "work 0x1139" "wait_all 0x1200" ;;
"funcs m*") printf '%s\n' "FUNCTION ADDRESS" "main 0x1040" ;;
"funcs "*) printf '%s\n' "FUNCTION ADDRESS" "main 0x1040" "work 0x1139" "wait_all 0x1200" ;;
"list "*) printf '%s\n' "NAME WHERE" "uprobe_cli_1 /bin/x:work" "mine 42:0x1000" ;;
esac
FAKE
chmod +x "$t/fake"
export UPROBE_CLI=$t/fake

# completions LINE: what completing at the end of LINE offers, sorted
completions() {
	local -a w
	COMP_LINE=$1
	COMP_POINT=${#1}
	read -ra w <<< "$1"
	[[ $1 == *" " ]] && w+=("")
	COMP_WORDS=("${w[@]}")
	COMP_CWORD=$((${#w[@]} - 1))
	COMPREPLY=()
	_uprobe_cli
	printf '%s\n' "${COMPREPLY[@]}" | sort | paste -sd ' '
}

# offers DESCRIPTION LINE EXPECTED
offers() {
	local got
	got=$(completions "$2")
	if [ "$got" = "$3" ]; then
		ktap_test_pass "$1"
	else
		ktap_print_msg "'$2' offers '$got', not '$3'"
		ktap_test_fail "$1"
	fi
}

ktap_print_header
ktap_set_plan 22
offers "the commands" "uprobe-cli l" "latency list"
offers "a command's options" "uprobe-cli stat -" "--format --help --textfile -i -j -n"
offers "the options before the command" "uprobe-cli -" \
	"--format --help --json --version -j"
offers "the commands after those options" "uprobe-cli -j --format json l" \
	"latency list"
offers "the commands after -f FORMAT" "uprobe-cli -f json l" "latency list"
offers "-f's values" "uprobe-cli -f o" "openmetrics"
offers "a command's options after those options" "uprobe-cli --format json latency -" \
	"-- --format --help -j"
offers "serve's options" "uprobe-cli serve -" "--help --listen --trap -e"
COMP_WORDBREAKS=$' \t\n"\'><=;|&(:'
offers "--format's values, the word cut at =" "uprobe-cli list --format=j" "json"
COMP_WORDBREAKS=$' \t\n"\'><;|&('
offers "--format's values, the word whole" "uprobe-cli list --format=o" "--format=openmetrics"
offers "--format VALUE" "uprobe-cli count --format t" "table"
offers "a binary, then its colon" "uprobe-cli add $t/bin/probed_p" "$t/bin/probed_prog:"
offers "its functions after the colon, the word whole" \
	"uprobe-cli count -e $t/bin/probed_prog:w" \
	"$t/bin/probed_prog:wait_all $t/bin/probed_prog:work"
COMP_WORDBREAKS=$' \t\n"\'><=;|&(:'
offers "its functions after the colon, the word cut at :" \
	"uprobe-cli latency $t/bin/probed_prog:m" "main"
offers "the probes del removes" "uprobe-cli del " "mine uprobe_cli_1"
offers "the commands that read values, and help" "uprobe-cli h" "help hist"
offers "help's command" "uprobe-cli help l" "latency list"
offers "trace's probe" "uprobe-cli trace -j $t/bin/probed_prog:w" "wait_all work"
offers "trace's probe after --format" \
	"uprobe-cli -j trace --format json $t/bin/probed_prog:w" "wait_all work"
offers "nothing for trace's values" "uprobe-cli trace $t/bin/probed_prog:work " ""
offers "the command after --" "uprobe-cli count -e x:y -- probed_t" "probed_tool"
# "make install" puts it where bash-completion looks for it
make -s -C "$top/tools/uprobe-cli" O="$top/build/host/cli" DESTDIR="$t/root" \
	PREFIX=/usr install > "$t/install.log" 2>&1
st=$?
sed 's/^/# /' "$t/install.log"
if [ $st = 0 ] && cmp -s "$top/tools/uprobe-cli/bash-completion/uprobe-cli" \
	"$t/root/usr/share/bash-completion/completions/uprobe-cli"; then
	ktap_test_pass "make install installs it for bash-completion"
else
	ktap_test_fail "make install installs it for bash-completion"
fi
ktap_finished
