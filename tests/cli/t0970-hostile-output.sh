#!/bin/sh
# Output integrity: -o FILE is written to a temporary file and renamed, so a
# failed run never leaves a partial file or a stray temporary one; write
# errors (a full disk, a file size limit) are exit 1 with one line; -o on a
# device or a FIFO writes it in place.  Every program that writes.
. "$(dirname "$0")/../lib.sh"
H=$SRC/tests/hostile

programs="pprof-fold pprof-top pprof-flame pprof-convert"
# An input whose output is big for every program: 100,000 distinct frames.
make_big() {
	perl "$SRC/tests/hostile/gen.pl" deep-distinct.folded 100000 >big.folded
}

# no_stray: nothing but the listed files in the current directory.
no_stray() {
	ls -A | sort >../have.$$
	printf '%s\n' "$@" | sort >../want.$$
	test_cmp ../want.$$ ../have.$$
}

for p in $programs; do
	[ -x "$BUILD/$p" ] || continue

	test_expect_success "$p -o FILE: a bad input leaves FILE as it was" '
		echo previous >out.file &&
		test_fails 1 $p -o out.file "$H/dangling-location.pb" &&
		echo previous >expect && test_cmp expect out.file &&
		no_stray out.file expect err out
	'

	test_expect_success "$p -o FILE: a bad input creates no FILE" '
		test_fails 1 $p -o new.file "$H/varint-overflow.pb" &&
		no_stray err out
	'

	[ $p = pprof-flame ] || test_expect_success "$p -o FILE: one bad input among good ones" '
		test_fails 1 $p -o new.file "$H/ok.pb" "$H/truncated.cpuprofile" &&
		no_stray err out
	'

	test_expect_success "$p: a full disk on standard output is exit 1" '
		$p "$H/ok.pb" >/dev/full 2>err
		test $? = 1 && test "$(wc -l <err)" = 1 &&
		grep -q "^$p: .*No space left on device" err
	'

	test_expect_success "$p -o /dev/full: exit 1, the device is kept" '
		test_fails 1 $p -o /dev/full "$H/ok.pb" &&
		grep -q "^$p: /dev/full: .*No space left on device" err &&
		test -c /dev/full
	'

	test_expect_success "$p -o FIFO writes into the FIFO" '
		mkfifo fifo &&
		{ cat fifo >got & } &&
		$p -o fifo "$H/ok.pb" >out 2>err &&
		wait &&
		test -p fifo && test -s got
	'

	# SIGXFSZ is ignored so that the write fails with EFBIG instead.
	test_expect_success "$p -o FILE past a file size limit: exit 1, no file left" '
		make_big &&
		( trap "" XFSZ; ulimit -f 8; exec $p -o big.out big.folded ) >out 2>err;
		test $? = 1 &&
		grep -q "^$p: .*\(too large\|write error\)" err &&
		test "$(wc -l <err)" = 1 &&
		no_stray big.folded err out
	'

	test_expect_success "$p -o in a missing directory: exit 1, one line" '
		test_fails 1 $p -o no/such/dir/out "$H/ok.pb" &&
		grep -q "^$p: no/such/dir/out: No such file or directory" err
	'
done

test_done
