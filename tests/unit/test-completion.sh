#!/bin/bash
# SPDX-License-Identifier: MIT
# tests/unit/test-completion.sh COMPLETION_FILE: the bash completion loads
# in a plain bash (no bash-completion package needed) and completes the
# verbs, each verb's options, the global options, --log-format's values,
# policy's values, and cgroup paths under --cgroup-root. Prints TAP.
set -u
file=${1:?usage: test-completion.sh data/cgoom.bash-completion}
n=0
failed=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
not_ok() { n=$((n + 1)); failed=$((failed + 1)); echo "not ok $n - $1"; shift; for l in "$@"; do echo "# $l"; done; }

# complete WORDS...: COMPREPLY for the command line WORDS (the last word
# is the one being completed), sorted, space separated
complete_line() {
	COMP_WORDS=("$@")
	COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
	COMP_LINE="$*"
	COMP_POINT=${#COMP_LINE}
	COMPREPLY=()
	_cgoom
	printf '%s\n' "${COMPREPLY[@]}" | sort | tr '\n' ' ' | sed 's/ $//'
}
expect() { # expect DESC WANT WORDS...
	local desc=$1 want=$2 got
	shift 2
	got=$(complete_line "$@")
	if [ "$got" = "$want" ]; then ok "$desc"; else not_ok "$desc" "line: $*" "want: [$want]" "got:  [$got]"; fi
}

echo "TAP version 13"
# shellcheck disable=SC1090
if source "$file" 2> /tmp/cgoom-completion.err && declare -F _cgoom > /dev/null &&
	complete -p cgoom 2> /dev/null | grep -q -- '-F _cgoom'; then
	ok "the completion loads in bash and registers _cgoom for cgoom"
else
	not_ok "the completion loads in bash and registers _cgoom for cgoom" "$(cat /tmp/cgoom-completion.err)"
	echo "1..$n"
	exit 1
fi

root=$(mktemp -d /tmp/cgoom-completion.XXXXXX)
trap 'rm -rf "$root" /tmp/cgoom-completion.err' EXIT
mkdir -p "$root/system.slice/cron.service" "$root/system.slice/ssh.service" "$root/user.slice"
: > "$root/memory.max"

expect "verbs" "explain kill policy run" cgoom ''
expect "verbs by prefix" "kill" cgoom k
expect "global options before the verb" "--cgroup-root --config --help --log-format --proc-root --version" cgoom --
expect "verbs after a global option and its value" "explain kill policy run" cgoom --config /etc/cgoom.conf ''
expect "--log-format values" "json text" cgoom --log-format ''
expect "explain's options and the global ones" "--cgroup-root --config --full --help --json --log-format --proc-root --version --watch --watch=" cgoom explain --
expect "run's options" "--dry-run" cgoom run --d
expect "kill's options" "--cgroup-root --config --dry-run --full --help --log-format --proc-root --version" cgoom kill --dry --
expect "explain DOMAIN: / and the top-level cgroups under --cgroup-root" "/ /system.slice/ /user.slice/" cgoom --cgroup-root "$root" explain /
expect "explain DOMAIN: one level down, by prefix" "/system.slice/cron.service/" cgoom --cgroup-root "$root" explain /system.slice/cr
expect "--cgroup-root=DIR counts too" "/user.slice/" cgoom "--cgroup-root=$root" kill /u
expect "policy CGROUP" "/system.slice/" cgoom --cgroup-root "$root" policy /s
expect "policy CGROUP VALUE" "cgroup none tree" cgoom --cgroup-root "$root" policy /system.slice ''
expect "nothing after explain's DOMAIN" "" cgoom --cgroup-root "$root" explain /system.slice ''
expect "--config completes files" "$root/memory.max" cgoom --config "$root/mem"

echo "1..$n"
[ $failed = 0 ]
