#!/bin/sh
# Writes the man pages scope-bpf.1 and scope-bpf-CMD.1 (one per subcommand) from
# the built binary's own --help, so the pages and --help never disagree.
#
# Usage: packaging/gen-man.sh BINARY OUTDIR
#
# The subcommands are the "commands:" list of `BINARY --help`; each page's
# NAME line is its entry there, SYNOPSIS the "usage:" lines of its --help and
# DESCRIPTION the rest: running text is filled, indented blocks (option
# tables, lists) are kept line for line; characters beyond ASCII become
# groff's \[uXXXX] escapes.
set -eu

bin=$1
out=$2
mkdir -p "$out"
version=$("$bin" --version | awk '{ print $NF; exit }')
commands=$("$bin" --help | awk 'tolower($0) ~ /^commands:/ { on = 1; next } on && /^  [a-z]/ { print $1 } on && /^$/ { on = 0 }')

# $1 page name, $2 NAME line's description, $3 SEE ALSO; the help text on stdin.
to_roff() {
	awk -v page="$1" -v what="$2" -v see="$3" -v version="$version" '
	function esc(s) {
		gsub(/\\/, "\\e", s)
		gsub(/-/, "\\-", s)
		if (s ~ /^[.\047]/)
			s = "\\&" s
		return s
	}
	BEGIN {
		title = toupper(page)
		printf ".TH %s 1 \"\" \"scope-bpf %s\" \"scope-bpf manual\"\n", title, version
		printf ".SH NAME\n%s \\- %s\n", esc(page), esc(what)
	}
	# The "usage:" line and its continuations, up to the first blank line.
	NR == 1 && sub(/^[Uu]sage: /, "") { print ".SH SYNOPSIS\n.nf"; synopsis = 1 }
	synopsis && /^$/ { print ".fi\n.SH DESCRIPTION"; synopsis = 0; para = 0; next }
	synopsis { sub(/^ +/, ""); print esc($0); next }
	NR == 1 { print ".SH DESCRIPTION" }
	/^$/ { if (pre) print ".fi"; pre = 0; para = 1; next }
	/^ / { if (!pre) print (para ? ".PP\n" : "") ".nf"; pre = 1; para = 0; print esc($0); next }
	{ if (pre) print ".fi"; if (para) print ".PP"; pre = 0; para = 0; print esc($0) }
	END {
		if (pre || synopsis)
			print ".fi"
		printf ".SH SEE ALSO\n%s\n", esc(see)
	}' | perl -CSD -pe 's/([^\x00-\x7f])/sprintf("\\[u%04X]", ord $1)/ge'
}

all_pages=""
for c in $commands; do
	all_pages="$all_pages${all_pages:+, }scope-bpf-$c(1)"
done
"$bin" --help | to_roff scope-bpf "trace regions marked in programs with eBPF, and report on them" \
	"$all_pages" > "$out/scope-bpf.1"
for c in $commands; do
	what=$("$bin" --help | awk -v c="$c" 'tolower($0) ~ /^commands:/ { on = 1; next }
		on && $1 == c { $1 = ""; sub(/^ +/, ""); print; exit }')
	"$bin" "$c" --help | to_roff "scope-bpf-$c" "$what" "scope-bpf(1)" > "$out/scope-bpf-$c.1"
done
