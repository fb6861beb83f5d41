#!/bin/sh
# Where the kernel gives transparent huge pages only to memory that asks
# (THP "madvise"), each program restarts itself once with glibc's malloc
# asking for them and its threads in the main arena (GLIBC_TUNABLES=
# glibc.malloc.hugetlb=1:glibc.malloc.arena_max=1, tools/cli.c), keeps the
# user's other tunables (arena_max too), and does not restart when the user
# named the first; with the tunable, the program break starts at a 2 MiB
# boundary, so that the heap's first megabytes can have huge pages too.
# The restart is seen with strace; the output is the same either way.
. "$(dirname "$0")/../lib.sh"

THP=$(cat /sys/kernel/mm/transparent_hugepage/enabled 2>/dev/null)
if ! command -v strace >/dev/null 2>&1; then
	test_skip "strace is not installed"
elif [ -n "$SANITIZED" ]; then
	test_skip "the sanitized build does not restart (its own allocator)"
elif [ "${THP#*\[madvise\]}" = "$THP" ]; then
	test_skip "huge pages are not given on request here ($THP)"
else
	test_expect_success 'a restart with glibc.malloc.hugetlb=1' '
		env -u GLIBC_TUNABLES strace -f -qq -v -s 300 -e trace=execve -e signal=none -o trace \
			pprof-fold "$FIX/profiles/workerd-min.cpuprofile" >with &&
		test "$(grep -c "execve(\"/proc/self/exe\"" trace)" = 1 &&
		grep "execve(\"/proc/self/exe\"" trace | grep -q "\"GLIBC_TUNABLES=glibc.malloc.hugetlb=1:glibc.malloc.arena_max=1\"" &&
		GLIBC_TUNABLES=glibc.malloc.hugetlb=0 pprof-fold "$FIX/profiles/workerd-min.cpuprofile" >without &&
		test -s with &&
		test_cmp without with
	'
	test_expect_success 'the heap starts at a 2 MiB boundary after the restart' '
		env -u GLIBC_TUNABLES strace -f -qq -e trace=execve,brk -e signal=none -o trace \
			pprof-fold "$FIX/profiles/workerd-min.cpuprofile" >out &&
		sed -n "/execve(\"\/proc\/self\/exe\"/,\$p" trace |
			sed -n "s/.*brk(0x[0-9a-f]*) *= *\(0x[0-9a-f]*\).*/\1/p" >moves &&
		test -s moves &&
		test $(( $(head -n 1 moves) % 2097152 )) = 0
	'
	test_expect_success 'the user'"'"'s other tunables are kept' '
		GLIBC_TUNABLES=glibc.malloc.perturb=0 strace -f -qq -v -s 300 -e trace=execve \
			-e signal=none -o trace pprof-top "$FIX/profiles/workerd-min.cpuprofile" >out &&
		grep "execve(\"/proc/self/exe\"" trace |
			grep -q "\"GLIBC_TUNABLES=glibc.malloc.perturb=0:glibc.malloc.hugetlb=1:glibc.malloc.arena_max=1\"" &&
		GLIBC_TUNABLES=glibc.malloc.arena_max=4 strace -f -qq -v -s 300 -e trace=execve \
			-e signal=none -o trace pprof-top "$FIX/profiles/workerd-min.cpuprofile" >out &&
		grep "execve(\"/proc/self/exe\"" trace |
			grep -q "\"GLIBC_TUNABLES=glibc.malloc.arena_max=4:glibc.malloc.hugetlb=1\""
	'
	test_expect_success 'no restart under LD_PRELOAD (another allocator, valgrind)' '
		env -u GLIBC_TUNABLES LD_PRELOAD=libc.so.6 strace -f -qq -e trace=execve \
			-e signal=none -o trace pprof-fold --version >out &&
		! grep -q "/proc/self/exe" trace &&
		grep -q "^pprof-fold " out
	'
	test_expect_success 'no restart when the user named the tunable' '
		GLIBC_TUNABLES=glibc.malloc.hugetlb=0 strace -f -qq -e trace=execve -e signal=none \
			-o trace sourcemap-lookup --version >out &&
		! grep -q "/proc/self/exe" trace &&
		grep -q "^sourcemap-lookup " out
	'
fi

test_done
