#!/bin/sh
# The progress line (tools/progress.h): on a terminal, a read or write that
# takes over a second shows a line on standard error, erased when done;
# never when standard error is not a terminal, unless --progress forces it
# (then one plain line per update); --quiet silences warnings and the line.
. "$(dirname "$0")/../lib.sh"

GZ=$FIX/pprof/workerd-min.cpu.pb.gz

test_must_be_empty() {
	if [ -s "$1" ]; then
		echo "$1 is not empty:"
		cat "$1"
		return 1
	fi
}

# A folded input of 10 MB (9.5 MiB), so the library reports it twice on the
# way; bytewise sorted and distinct, so the output is the same bytes.
awk 'BEGIN { for (i = 0; i < 500000; i++) printf "main;work;f%06d 1\n", i }' >"$TRASH/big"

test_expect_success 'not a terminal: no progress line' '
	pprof-fold "$GZ" >expect 2>err && test_must_be_empty err &&
	cat "$TRASH/big" | pprof-fold >/dev/null 2>err && test_must_be_empty err
'

test_expect_success '--progress forces it: the input read, the output written' '
	pprof-fold "$GZ" >expect &&
	pprof-fold --progress "$GZ" >actual 2>err &&
	test_cmp expect actual &&
	sed "s/ [0-9.]* [KM]iB$/ N/" err >err.n &&
	printf "%s\n" "pprof-fold: $GZ: read N" "pprof-fold: <stdout>: wrote N" >expect.err &&
	test_cmp expect.err err.n
'

test_expect_success '--progress on a pipe: the bytes read every 4 MiB' '
	cat "$TRASH/big" | pprof-fold --progress >actual 2>err &&
	test_cmp "$TRASH/big" actual &&
	grep "^pprof-fold: <stdin>: " err | sed "/wr/d" >lines &&
	printf "%s\n" "pprof-fold: <stdin>: reading 4.0 MiB" "pprof-fold: <stdin>: reading 8.0 MiB" \
		"pprof-fold: <stdin>: read 9.5 MiB" >expect.err &&
	test_cmp expect.err lines
'

test_expect_success '--progress on gzip: the share of the compressed input inflated' '
	gzip -c <"$TRASH/big" >big.gz &&
	pprof-fold --progress big.gz >actual 2>err &&
	test_cmp "$TRASH/big" actual &&
	grep -c "^pprof-fold: big.gz: inflating  *[0-9]*% of [0-9.]* [KM]iB$" err >n &&
	test "$(cat n)" -ge 2 &&
	grep -q "^pprof-fold: big.gz: read [0-9.]* [KM]iB$" err
'

test_expect_success '--progress on a large output: the bytes written' '
	pprof-fold --progress -o out.folded "$TRASH/big" 2>err &&
	grep "^pprof-fold: out.folded: " err >lines &&
	printf "%s\n" "pprof-fold: out.folded: writing 4.0 MiB" "pprof-fold: out.folded: writing 8.0 MiB" \
		"pprof-fold: out.folded: wrote 9.5 MiB" >expect.err &&
	test_cmp expect.err lines &&
	test_cmp "$TRASH/big" out.folded
'

test_expect_success '--quiet silences warnings' '
	printf "a;b 1.5\n" >frac &&
	pprof-fold frac >out 2>err && grep -q "warning" err &&
	pprof-fold --quiet frac >out 2>err && test_must_be_empty err &&
	echo "a;b 2" >expect && test_cmp expect out
'

# On a terminal: script(1) runs the program on a pseudo-terminal.
if script -qec true /dev/null >/dev/null 2>&1 </dev/null; then
	tty_run() {
		script -qec "$1" /dev/null </dev/null >"$2" 2>&1
	}
	test_expect_success 'terminal: a read that takes over a second shows the line, then erases it' '
		tty_run "{ head -c 5000000 \"$TRASH/big\"; sleep 1.5; tail -c +5000001 \"$TRASH/big\"; } | pprof-fold >/dev/null" typescript &&
		grep -q "pprof-fold: <stdin>: reading 8.0 MiB" typescript &&
		tr "\r" "\n" <typescript | tail -1 | od -c | grep -q "033   \[   K" &&
		! grep -q "read 9" typescript
	'
	test_expect_success 'terminal: a quick read shows nothing' '
		tty_run "pprof-fold \"$GZ\" >/dev/null" typescript &&
		test_must_be_empty typescript
	'
	test_expect_success 'terminal: --quiet shows no line' '
		tty_run "{ head -c 5000000 \"$TRASH/big\"; sleep 1.5; tail -c +5000001 \"$TRASH/big\"; } | pprof-fold --quiet >/dev/null" typescript &&
		test_must_be_empty typescript
	'
else
	test_skip 'script(1) cannot open a pseudo-terminal here'
fi

test_done
