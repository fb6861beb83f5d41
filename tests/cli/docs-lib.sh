# tests/cli/docs-lib.sh: pulling the examples and the SYNOPSIS out of the
# man pages and README.md, for t1000-docs-examples.sh and
# t1010-docs-synopsis.sh.  Sourced after tests/lib.sh.

# man_examples PAGE DIR: each .Bd -literal block under .Sh EXAMPLES of the
# mdoc PAGE becomes DIR/N.sh (N from 1), with roff escapes undone.  In a
# block written as a session ("$ command" lines, a trailing backslash
# continuing one), the commands go to DIR/N.sh and the other lines, the
# output shown, to DIR/N.out (none when the block shows no output).
man_examples() {
	mkdir -p "$2" && awk -v dir="$2" '
		function unescape(s) {
			gsub(/\\&/, "", s)
			gsub(/\\\(aq/, "'\''", s)
			gsub(/\\\(dq/, "\"", s)
			gsub(/\\\(ti/, "~", s)
			gsub(/\\\(ha/, "^", s)
			gsub(/\\-/, "-", s)
			gsub(/\\e/, "\\", s)
			return s
		}
		/^\.Sh / { ex = ($2 == "EXAMPLES"); next }
		ex && /^\.Bd[ \t]+-literal/ { n++; lit = 1; nl = 0; session = 0; next }
		lit && /^\.Ed/ {
			lit = 0
			f = dir "/" n ".sh"
			cont = 0
			for (i = 1; i <= nl; i++) {
				l = line[i]
				if (!session) {
					print l > f
				} else if (l ~ /^\$ / || cont) {
					if (!cont)
						sub(/^\$ /, "", l)
					print l > f
					cont = (l ~ /\\$/)
				} else {
					print l > (dir "/" n ".out")
				}
			}
			close(f)
			close(dir "/" n ".out")
			next
		}
		lit {
			line[++nl] = unescape($0)
			if (line[nl] ~ /^\$ /)
				session = 1
		}
	' "$1"
}

# readme_examples FILE DIR: each ```sh block of the Markdown FILE becomes
# DIR/N.sh; a ```text block that follows it (blank lines between at most)
# becomes DIR/N.out, the output the example must print.
readme_examples() {
	mkdir -p "$2" && awk -v dir="$2" '
		/^```/ && inblk {
			inblk = 0; close(f); after = (kind == "sh"); next
		}
		/^```sh[ \t]*$/ { n++; inblk = 1; kind = "sh"; f = dir "/" n ".sh"; next }
		/^```text[ \t]*$/ && after { inblk = 1; kind = "text"; f = dir "/" n ".out"; printf "" > f; next }
		/^```/ { inblk = 1; kind = "other"; f = "/dev/null"; after = 0; next }
		inblk { if (kind != "other") print > f; next }
		/^[ \t]*$/ { next }
		{ after = 0 }
	' "$1"
}

# man_synopsis PAGE: the SYNOPSIS of the mdoc PAGE as it reads, on one line
# with single spaces ("prog [-i sample] [file ...]"); several forms of the
# command are joined with a space.  The macros a synopsis uses: Nm, Op,
# Oo/Oc, Fl, Ar, Cm, Ic, Li, Pa, Ns, and delimiters.
man_synopsis() {
	awk '
		function emit(w, nospace_before) {
			if (out != "" && !glue && !nospace_before)
				out = out " "
			out = out w
			glue = 0
		}
		function flag(w) { return "-" w }
		/^\.Sh / { syn = ($2 == "SYNOPSIS"); if ($2 == "NAME") name = 1; else name = 0; next }
		name && /^\.Nm / && prog == "" { prog = $2 }
		!syn { next }
		/^\.\\"/ { next }
		{
			# One macro line: split into words, honouring "quoted words".
			line = $0
			sub(/^\./, "", line)
			nw = 0
			while (line != "") {
				sub(/^[ \t]+/, "", line)
				if (line == "")
					break
				if (substr(line, 1, 1) == "\"") {
					match(substr(line, 2), /"/)
					w = substr(line, 2, RSTART - 1)
					line = substr(line, RSTART + 2)
				} else {
					match(line, /[ \t]|$/)
					w = substr(line, 1, RSTART - 1)
					line = substr(line, RSTART)
				}
				word[++nw] = w
			}
			# Close the brackets this line opens (Op) at its end.
			depth = 0
			mode = ""
			for (i = 1; i <= nw; i++) {
				w = word[i]
				gsub(/\\&/, "", w)
				gsub(/\\-/, "-", w)
				if (w == "Nm") {
					if (out != "" && i == 1)
						; # a new form of the command
					nxt = (i < nw) ? word[i + 1] : ""
					if (i == nw || nxt ~ /^[A-Z][a-z]$/)
						emit(prog)
					mode = "nm"
				} else if (w == "Op") {
					emit("[")
					glue = 1
					depth++
					mode = ""
				} else if (w == "Oo") {
					emit("[")
					glue = 1
				} else if (w == "Oc") {
					emit("]", 1)
				} else if (w == "Fl") {
					mode = "fl"
					# "Fl" alone, or before another macro: a lone dash
					if (i == nw || word[i + 1] ~ /^[A-Z][a-z]$/)
						emit("-")
				} else if (w == "Ar") {
					mode = "ar"
					if (i == nw || word[i + 1] ~ /^[A-Z][a-z]$/)
						emit("file ...")
				} else if (w == "Ns") {
					glue = 1
					mode = ""
				} else if (w ~ /^(Cm|Ic|Li|Pa|Ql|Dq|Sy|Em)$/) {
					mode = "text"
				} else if (w == "|") {
					emit("|")
				} else if (w ~ /^[.,;:)\]]$/) {
					emit(w, 1)
				} else if (w ~ /^[(\[]$/) {
					emit(w)
					glue = 1
				} else if (mode == "fl") {
					emit(flag(w))
				} else if (mode == "nm") {
					emit(w)
				} else {
					emit(w)
				}
			}
			while (depth-- > 0)
				emit("]", 1)
		}
		END { print out }
	' "$1"
}

# usage_synopsis PROG: the usage lines of PROG --help (up to the first blank
# line) on one line with single spaces, without "usage: ".
usage_synopsis() {
	"$1" --help | awk '
		NR == 1 { sub(/^usage:[ \t]*/, "") }
		/^[ \t]*$/ { exit }
		{ gsub(/[ \t]+/, " "); sub(/^ /, ""); sub(/ $/, ""); out = out (out == "" ? "" : " ") $0 }
		END { print out }
	'
}

# example_words BLOCK: the words of the shell example BLOCK that say what it
# needs, one per line: "cmd NAME" for a command, "in PATH" for a file it
# reads, "out PATH" for a file it writes.  Quoted strings, words with a $
# and comments are left out; it is a reading of plain examples, not a shell.
example_words() {
	awk '
		BEGIN { cmdpos = 1 }
		{
			line = $0
			gsub(/\\$/, "", line)
			gsub(/'\''[^'\'']*'\''/, " Q ", line)
			gsub(/"[^"]*"/, " Q ", line)
			sub(/(^|[ \t])#.*$/, "", line)
			gsub(/\$\(/, " ; ", line)
			gsub(/&&|\|\||[|;&()]/, " ; ", line)
			gsub(/>>?/, " > ", line)
			gsub(/</, " < ", line)
			n = split(line, w, /[ \t]+/)
			for (i = 1; i <= n; i++) {
				t = w[i]
				if (t == "")
					continue
				if (t == ";") { cmdpos = 1; continue }
				if (t == ">") { redir = "out"; continue }
				if (t == "<") { redir = "in"; continue }
				if (redir != "") {
					if (t != "Q" && t !~ /\$/)
						print redir, t
					redir = ""
					continue
				}
				if (cmdpos) {
					cmdpos = 0
					if (t ~ /^(for|while|until|if|then|else|do|done|fi|in|!|\{|\})$/) {
						cmdpos = (t != "for" && t != "in")
						continue
					}
					if (t ~ /^[A-Za-z_][A-Za-z0-9_]*=/)
						{ cmdpos = 1; continue }
					if (t !~ /\$/ && t != "Q")
						print "cmd", t
					cmd = t
					continue
				}
				if (t == "-o" || t == "--output") { redir = "out"; continue }
				if (t ~ /^(-o|--output=)./) {
					sub(/^(-o|--output=)/, "", t)
					print "out", t
					continue
				}
				if (t ~ /^-/ || t == "Q" || t ~ /\$/)
					continue
				if (cmd == "mkdir") {
					print "out", t
					continue
				}
				if (t ~ /\// || t ~ /\.(pb|pb\.gz|gz|cpuprofile|heapprofile|folded|map|yaml|yml|svg|txt)$/)
					print "in", t
			}
			# A new line is a new command, unless a backslash continues it.
			if ($0 !~ /\\[ \t]*$/)
				cmdpos = 1
		}
	' "$1"
}

# example_skip BLOCK: prints why BLOCK is not run here, or nothing: a build or
# install command (the test is what those run), a command that is not
# installed, or an input file that does not exist (the reader's own files,
# e.g. captures/*.pb.gz) and that no earlier part of the block writes.
example_skip() {
	example_words "$1" >"$1.words" || return 1
	_outs=" "
	while read -r _kind _w; do
		case $_kind in
		cmd)
			case $_w in
			./build.sh | ./autogen.sh | ./configure | */configure | make | apt-get | sudo | git)
				echo "a build or install command ($_w)"
				return 0
				;;
			esac
			case $_w in
			*/*) [ -x "$_w" ] && continue ;;
			*) command -v "$_w" >/dev/null 2>&1 && continue ;;
			esac
			echo "needs $_w, which is not installed"
			return 0
			;;
		out) _outs="$_outs$_w " ;;
		in)
			# Written before, or under a directory made before.
			case $_outs in *" $_w "*) continue ;; esac
			_made=
			for _o in $_outs; do
				case $_w in "$_o"/*) _made=1 ;; esac
			done
			[ -n "$_made" ] && continue
			# A glob that matches nothing stays as it is written.
			# shellcheck disable=SC2086
			set -- $_w
			[ -e "$1" ] && continue
			echo "needs $_w, which does not exist here"
			return 0
			;;
		esac
	done <"$1.words"
	return 0
}
