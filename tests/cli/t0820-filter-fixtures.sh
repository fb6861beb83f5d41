#!/bin/sh
# The filters and rules on the fixtures, with goldens checked by hand
# (expected/filter/*.folded): what go tool pprof has no option for
# (collapse-recursion, drop-idle, rules), filters after symbolication, and
# the errors.  FILTER_REGEN=1 rewrites the goldens instead of comparing.
. "$(dirname "$0")/../lib.sh"

G=$EXP/filter
W=$G/input-worker.cpuprofile
RULES=$SRC/examples/workers.rules.yaml

# golden NAME ARGS...: pprof-fold ARGS equals expected/filter/NAME.folded
# (run here, where the arguments are still words; compared in the test).
golden() {
	name=$1
	shift
	out=$TRASH/golden.$name
	pprof-fold --quiet "$@" >"$out" 2>&1
	echo "exit $?" >>"$out"
	if [ -n "${FILTER_REGEN:-}" ]; then
		sed '$d' "$out" >"$G/$name.folded"
	fi
	test_expect_success "$name: pprof-fold $*" '
		tail -1 "$out" >status && echo "exit 0" >ok && test_cmp ok status &&
		sed "\$d" "$out" >actual &&
		test_cmp "$G/$name.folded" actual
	'
}

golden worker-rules --rules "$RULES" "$W"
golden worker-rules-filefunctions -g filefunctions --rules "$RULES" "$W"
golden worker-rules-focus --rules "$RULES" --focus='^visit$' "$W"
golden worker-collapse --collapse-recursion "$W"
golden worker-drop-idle --drop-idle "$W"
golden worker-tagroot-none --tagroot=worker --hide='^\(' "$W"
golden plain-drop-idle --drop-idle "$FIX/profiles/workerd-plain.cpuprofile"
golden plain-collapse --collapse-recursion "$FIX/profiles/workerd-plain.cpuprofile"
golden plain-heap-focus -i objects --focus='^visitObject$' "$FIX/profiles/workerd-plain.alloc.heapprofile"
# Filters see the symbolicated frames: src/... only exists after -m.
golden min-sym-show-src -m "$FIX/worker" -g files --show='^src/' "$FIX/profiles/workerd-min.cpuprofile"
golden min-sym-prune -m "$FIX/worker" --prune-from='^handleTransform$' "$FIX/profiles/workerd-min.cpuprofile"

test_expect_success 'without source maps, show ^src/ keeps nothing' '
	pprof-fold --quiet -g files --show="^src/" "$FIX/profiles/workerd-min.cpuprofile" >actual &&
	test_cmp /dev/null actual
'

test_expect_success 'the command line overrides the rules file' '
	cat >r.yaml <<-\EOF2 &&
	version: 1
	filters:
	  focus: "^handler$"
	  drop-idle: true
	EOF2
	pprof-fold --quiet --rules r.yaml "$W" >a &&
	pprof-fold --quiet --focus="^handler$" --drop-idle "$W" >b &&
	test_cmp b a &&
	pprof-fold --quiet --focus="^merge$" --rules r.yaml "$W" >a &&
	pprof-fold --quiet --focus="^merge$" --drop-idle "$W" >b &&
	test_cmp b a
'

test_expect_success 'a warning when a filter matches nothing' '
	pprof-fold --focus=nothing-here "$W" >out 2>err &&
	test_cmp /dev/null out &&
	echo "pprof-fold: warning: focus expression matched no samples" >expect &&
	test_cmp expect err
'

test_expect_success 'a bad rules file: exit 1, its line and column, no output' '
	printf "version: 1\nrename:\n  - match: \"(\"\n    name: x\n" >bad.yaml &&
	test_fails 1 pprof-fold --rules bad.yaml "$W" &&
	echo "pprof-fold: bad.yaml: bad match regular expression '"'"'('"'"': missing closing parenthesis at offset 1 (at line 3, column 12)" >expect &&
	test_cmp expect err
'

test_expect_success 'a YAML syntax error says where' '
	printf "version: 1\nfilters: [\n" >bad.yaml &&
	test_fails 1 pprof-fold --rules bad.yaml "$W" &&
	grep -q "(at line 3, column 1)\$" err
'

test_expect_success 'an unknown rules version is refused' '
	printf "version: 2\n" >bad.yaml &&
	test_fails 1 pprof-fold --rules bad.yaml "$W" &&
	grep -q "unsupported rules version" err
'

test_expect_success 'a missing rules file' '
	test_fails 1 pprof-fold --rules no-such.yaml "$W" &&
	echo "pprof-fold: no-such.yaml: No such file or directory" >expect &&
	test_cmp expect err
'

test_expect_success 'a bad regex is a usage error (exit 2), before any input' '
	pprof-fold --focus="(" no-such-input >out 2>err
	test $? = 2 &&
	test_cmp /dev/null out &&
	head -1 err >first &&
	echo "pprof-fold: bad focus regular expression '"'"'('"'"': missing closing parenthesis at offset 1" >expect &&
	test_cmp expect first
'

test_expect_success 'a bad tag filter is a usage error' '
	pprof-fold --tagfocus="k=a,(" "$W" >out 2>err
	test $? = 2 && test_cmp /dev/null out
'

test_expect_success 'a rules file maps script URLs to source maps, relative to itself' '
	mkdir -p conf/maps &&
	cp "$FIX/worker/worker.js.map" conf/maps/ &&
	cat >conf/r.yaml <<-\EOF2 &&
	version: 1
	sourcemaps:
	  - url-regex: "^(worker)\\.js$"
	    map: "maps/$1.js.map"
	EOF2
	pprof-fold --quiet --rules conf/r.yaml "$FIX/profiles/workerd-min.cpuprofile" >a &&
	pprof-fold --quiet -m "$FIX/worker" "$FIX/profiles/workerd-min.cpuprofile" >b &&
	test_cmp b a &&
	! pprof-fold --quiet "$FIX/profiles/workerd-min.cpuprofile" | cmp -s - b
'

test_expect_success 'the example rules file loads' '
	pprof-fold --rules "$RULES" "$FIX/profiles/workerd-plain.cpuprofile" >/dev/null
'
test_done
