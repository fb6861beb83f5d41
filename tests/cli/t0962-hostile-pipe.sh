#!/bin/sh
# Garbage on a pipe is refused once its first 64 KiB are in, not after
# reading it up to --max-input (4 GiB by default); a folded first line
# longer than that still reads.  A counting relay between the generator and
# the program says how much the program took before it closed the pipe.
. "$(dirname "$0")/../lib.sh"

if ! command -v perl >/dev/null; then
	test_skip "perl absent"
	test_done
	exit
fi

# relay COUNTFILE: copies stdin to stdout and writes into COUNTFILE how many
# bytes the reader took before it went away (or all of them).
relay() {
	perl -e '
		$SIG{PIPE} = "IGNORE";
		my ($n, $buf) = (0);
		while (my $r = sysread(STDIN, $buf, 65536)) {
			my $off = 0;
			while ($off < $r) {
				my $w = syswrite(STDOUT, $buf, $r - $off, $off);
				if (!defined $w) { $n += $off; goto done; }
				$off += $w;
			}
			$n += $r;
		}
		done:
		open(my $f, ">", $ARGV[0]) or die; print $f "$n\n";
	' "$1"
}

# took_little: the program took at most 1 MiB of the stream (the first
# 64 KiB, what the pipes held, what the relay had read ahead).
took_little() {
	n=$(cat count) &&
	if [ "$n" -gt 1048576 ]; then
		echo "read $n bytes before refusing"
		return 1
	fi
}

UNRECOGNIZED="unrecognized profile format (not pprof, V8 JSON or folded stacks) (at byte 0)"

test_expect_success '1 GiB of 0xff bytes on a pipe is refused after a small prefix' '
	{ head -c 1073741824 /dev/zero | tr "\000" "\377" | relay count |
		timeout $((60 * TSCALE)) pprof-fold >out 2>err; echo $? >status; } &&
	echo 1 >expect && test_cmp expect status &&
	test_cmp /dev/null out &&
	echo "pprof-fold: <stdin>: $UNRECOGNIZED" >expect && test_cmp expect err &&
	took_little
'

test_expect_success 'an endless stream of zero bytes is refused the same way' '
	{ relay count </dev/zero | timeout $((60 * TSCALE)) pprof-fold >out 2>err; echo $? >status; } &&
	echo 1 >expect && test_cmp expect status &&
	echo "pprof-fold: <stdin>: $UNRECOGNIZED" >expect && test_cmp expect err &&
	took_little
'

test_expect_success 'gzipped garbage on a pipe is refused from its first inflated bytes' '
	{ head -c 1073741824 /dev/zero | tr "\000" "\377" | gzip -1 | relay count |
		timeout $((60 * TSCALE)) pprof-fold >out 2>err; echo $? >status; } &&
	echo 1 >expect && test_cmp expect status &&
	echo "pprof-fold: <stdin>: $UNRECOGNIZED" >expect && test_cmp expect err &&
	took_little
'

test_expect_success 'pprof-diff and pprof-flame refuse garbage on a pipe as early' '
	printf "a;b 1\n" >a.folded &&
	for p in pprof-diff pprof-flame; do
		[ -x "$BUILD/$p" ] || continue
		if [ $p = pprof-diff ]; then set -- a.folded -; else set --; fi
		{ relay count </dev/zero | timeout $((60 * TSCALE)) $p "$@" >out 2>err; echo $? >status; } &&
		echo 1 >expect && test_cmp expect status &&
		echo "$p: <stdin>: $UNRECOGNIZED" >expect && test_cmp expect err &&
		took_little || return 1
	done
'

# The stack of 20,000 frames "frame" is 120 KiB; the bid waits for its end.
long_folded() {
	perl -e 'print join(";", ("frame") x 20000), " 3\n", "a;b 2\n"'
}

test_expect_success 'a folded first line of 120 KiB reads from a pipe' '
	long_folded >long.folded &&
	{ echo "a;b 2"; perl -e "print join(q(;), (q(frame)) x 20000), qq( 3\n)"; } >expect &&
	long_folded | pprof-fold >actual &&
	test_cmp expect actual &&
	long_folded | gzip -c | pprof-fold >actual &&
	test_cmp expect actual &&
	pprof-fold long.folded >actual &&
	test_cmp expect actual
'

test_expect_success 'a long first line of text without a count is refused when it ends' '
	perl -e "print q(z) x 200000, qq(\n), qq(no count here\n) x 100" >nocount &&
	cat nocount | test_fails 1 pprof-fold &&
	echo "pprof-fold: <stdin>: $UNRECOGNIZED" >expect && test_cmp expect err
'

test_expect_success 'an endless line of text stops at --max-input' '
	{ yes f | tr -d "\n" | timeout $((60 * TSCALE)) pprof-fold --max-input=1m >out 2>err; echo $? >status; } &&
	echo 1 >expect && test_cmp expect status &&
	echo "pprof-fold: <stdin>: input larger than the limit (1 MiB; raise it with --max-input)" >expect &&
	test_cmp expect err
'

test_done
