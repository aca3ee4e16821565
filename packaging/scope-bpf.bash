# bash completion for scope-bpf. The subcommands and each one's options are
# read from scope-bpf's own --help, so they never fall behind; files otherwise.

_scope_bpf_help_words()
{
	"$@" --help 2>/dev/null | grep -oE -- '(^|[ ,[])--?[A-Za-z][-A-Za-z0-9]*' | sed 's/^[ ,[]*//'
}

_scope_bpf()
{
	local bin=${COMP_WORDS[0]} cur=${COMP_WORDS[COMP_CWORD]} words i

	if [ "$COMP_CWORD" -eq 1 ]; then
		words=$("$bin" --help 2>/dev/null | awk 'tolower($0) ~ /^commands:/ { on = 1; next }
			on && /^  [a-z]/ { print $1 } on && /^$/ { on = 0 }')
		COMPREPLY=($(compgen -W "$words --help --version" -- "$cur"))
		return
	fi
	# After record's --, the words are the traced command's own.
	for ((i = 2; i < COMP_CWORD; i++)); do
		if [ "${COMP_WORDS[i]}" = -- ]; then
			if [ "$i" -eq $((COMP_CWORD - 1)) ]; then
				COMPREPLY=($(compgen -c -- "$cur"))
			else
				COMPREPLY=($(compgen -f -- "$cur"))
			fi
			return
		fi
	done
	case $cur in
	-*)
		words=$(_scope_bpf_help_words "$bin" "${COMP_WORDS[1]}")
		COMPREPLY=($(compgen -W "$words" -- "$cur"))
		;;
	*)
		COMPREPLY=($(compgen -f -- "$cur"))
		;;
	esac
}

complete -o filenames -F _scope_bpf scope-bpf
