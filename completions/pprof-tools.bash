# bash completion for pprof-tools: pprof-fold, pprof-flame, pprof-diff,
# pprof-top, pprof-convert and sourcemap-lookup.
#
# Installed once per program name under
# $(datadir)/bash-completion/completions/, where bash-completion loads it on
# the first TAB after that name; or source it from ~/.bashrc.
#
# The options come from each program's own --help (read once per shell and
# program), so they cannot drift from what the program accepts.  Option
# arguments with a fixed set of values are listed here.

# _pprof_tools_options PROG: the options PROG's --help names, one per word,
# long ones that take a value ending in "=".  $_pprof_tools_cmd is the
# command as typed (./pprof-fold in a build tree), PROG its base name.
_pprof_tools_options()
{
	local prog=$1 var
	var=_pprof_tools_opts_${prog//-/_}
	if [[ -z ${!var-} ]]; then
		# Options are read from the usage lines ("[--hash]") and from the
		# option lines (those that start with blanks and a dash), never
		# from the prose around them.
		local opts
		opts=$(LC_ALL=C "${_pprof_tools_cmd:-$prog}" --help 2>/dev/null | LC_ALL=C awk '
			/^usage:/ { u = 1 }
			/^$/ { u = 0 }
			u || /^[ \t]+-/ {
				line = $0
				if (!u) {
					sub(/^[ \t]+/, "", line)
					sub(/[ \t][ \t]+[^-].*$/, "", line)
				}
				while (match(line, /(^|[][ ,|])--?[A-Za-z0-9][A-Za-z0-9_-]*(\[?=| [a-z])?/)) {
					w = substr(line, RSTART, RLENGTH)
					line = substr(line, RSTART + RLENGTH)
					sub(/^[][ ,|]/, "", w)
					if (sub(/\[=$/, "", w)) {
						opt[w] = 1	# "--top[=N]": with or without
						val[w] = 1
					} else if (sub(/( [a-z]|=)$/, "", w)) {
						val[w] = 1	# "--title text", "--width=N"
					} else if (w ~ /^-[A-Za-z0-9][A-Za-z0-9]+$/) {
						# "[-ns]": two short options
						for (i = 2; i <= length(w); i++)
							seen["-" substr(w, i, 1)] = 1
						continue
					}
					seen[w] = 1
				}
			}
			END {
				for (w in seen) {
					if (w !~ /^--/ || !val[w] || opt[w])
						print w
					if (w ~ /^--/ && val[w])
						print w "="
				}
			}' | LC_ALL=C sort -u)
		[[ -n $opts ]] || opts=--help
		printf -v "$var" '%s' "$opts"
	fi
	printf '%s\n' "${!var}"
}

# _pprof_tools_takes_value PROG OPT: whether OPT is followed by a value.
_pprof_tools_takes_value()
{
	case $2 in
	-i | -g | -o | -m | -n) [[ $1 != pprof-diff || $2 != -n ]] ;;
	--*) _pprof_tools_options "$1" | grep -qxF -- "$2=" ;;
	*) return 1 ;;
	esac
}

# _pprof_tools_values PROG OPT CUR: completes the value of OPT.
_pprof_tools_values()
{
	local prog=$1 opt=$2 cur=$3 words=
	case $opt in
	-g | --granularity) words="functions filefunctions lines files addresses" ;;
	-i | --sample-index) words="cpu samples wall space objects alloc_space alloc_objects inuse_space inuse_objects" ;;
	--format) words="text tsv json" ;;
	--colors) words="hot mem io wakeup java js perl red green blue aqua yellow purple orange ts" ;;
	--bgcolors) words="yellow blue green grey" ;;
	--paths) words="dominators retainers" ;;
	--delta) words="inclusive leaf" ;;
	--count-unit) words="ns us ms s nanoseconds bytes samples" ;;
	--diff-width) words="after before max" ;;
	--fonttype) words="Verdana Helvetica monospace" ;;
	-m | --sourcemap)
		compopt -o filenames 2>/dev/null
		mapfile -t COMPREPLY < <(compgen -d -- "$cur"; compgen -f -X '!*.map' -- "$cur")
		return
		;;
	--source-path)
		compopt -o filenames 2>/dev/null
		mapfile -t COMPREPLY < <(compgen -d -- "$cur")
		return
		;;
	--rules)
		compopt -o filenames 2>/dev/null
		mapfile -t COMPREPLY < <(compgen -d -- "$cur"; compgen -f -X '!*.@(yaml|yml)' -- "$cur")
		return
		;;
	-o | --output | --cp | --since | --until)
		compopt -o filenames 2>/dev/null
		mapfile -t COMPREPLY < <(compgen -f -- "$cur")
		return
		;;
	*)
		COMPREPLY=()
		return
		;;
	esac
	mapfile -t COMPREPLY < <(compgen -W "$words" -- "$cur")
}

_pprof_tools()
{
	local prog=${1##*/} cur=${COMP_WORDS[COMP_CWORD]} prev=
	local _pprof_tools_cmd=$1
	((COMP_CWORD > 0)) && prev=${COMP_WORDS[COMP_CWORD - 1]}
	COMPREPLY=()

	# bash splits "--opt=value" at "=" (COMP_WORDBREAKS): the words are
	# "--opt", "=", "value".
	if [[ $cur == = && $prev == --* ]]; then
		_pprof_tools_values "$prog" "$prev" ""
		return
	fi
	if [[ $prev == = ]] && ((COMP_CWORD > 1)); then
		_pprof_tools_values "$prog" "${COMP_WORDS[COMP_CWORD - 2]}" "$cur"
		return
	fi
	if [[ $cur == --*=* ]]; then
		_pprof_tools_values "$prog" "${cur%%=*}" "${cur#*=}"
		local i
		for i in "${!COMPREPLY[@]}"; do
			COMPREPLY[i]=${cur%%=*}=${COMPREPLY[i]}
		done
		return
	fi
	if [[ $prev == -* ]] && _pprof_tools_takes_value "$prog" "$prev"; then
		_pprof_tools_values "$prog" "$prev" "$cur"
		return
	fi
	if [[ $cur == -* ]]; then
		mapfile -t COMPREPLY < <(compgen -W "$(_pprof_tools_options "$prog")" -- "$cur")
		# "--opt=" waits for its value: no space after it.
		[[ ${#COMPREPLY[@]} == 1 && ${COMPREPLY[0]} == *= ]] && compopt -o nospace 2>/dev/null
		return
	fi
	# Operands: profiles for every program; sourcemap-lookup takes a map
	# first, then positions (nothing to complete).
	compopt -o filenames 2>/dev/null
	if [[ $prog == sourcemap-lookup ]]; then
		local i n=0
		for ((i = 1; i < COMP_CWORD; i++)); do
			case ${COMP_WORDS[i]} in
			-o | --output) ((i++)) ;;
			-*) ;;
			*) ((n++)) ;;
			esac
		done
		if ((n > 0)); then
			COMPREPLY=()
			return
		fi
		mapfile -t COMPREPLY < <(compgen -d -- "$cur"; compgen -f -X '!*.map' -- "$cur")
		return
	fi
	mapfile -t COMPREPLY < <(compgen -f -- "$cur")
}

complete -F _pprof_tools pprof-fold pprof-flame pprof-diff pprof-top pprof-convert \
	sourcemap-lookup
