#!/bin/bash
# Builds the marker header tests over compilers, standards, -O levels and link modes; checks each.
#
# Usage: tools/header-check.sh BUILD_DIR	(outputs go to BUILD_DIR/header-check)
#
# Per combination: a warning-free build (-Wall -Wextra -pedantic -Werror),
# stapsdt notes with provider scope_bpf, probes region_begin and region_end,
# a register argument, each note's semaphore the object's own semaphore
# symbol, its base the .stapsdt.base section, a 1-byte nop at each probe
# address, and a run that exits 0 (the tests trace themselves, see
# tests/header/selftrace.h). -DSCOPE_BPF_DISABLE builds must have no notes.
# Each header of include/scope_bpf/ must also compile on its own, warning-free;
# abi.h and probe.h (what the recorder and the CUPTI library include) alone
# must define nothing: no symbol, no probe, no semaphore.

set -u

build=${1:-build}
case $build in /*) ;; *) build=$PWD/$build ;; esac
out=$build/header-check
root=$(cd "$(dirname "$0")/.." && pwd) && cd "$root" || exit 1
src=tests/header
arch=$(uname -m)
jobs=$(nproc 2>/dev/null || echo 2)

case $arch in
x86_64)		argre='^8@%r[a-z0-9]+$'; argre4='^-4@%[a-z0-9]+$'; nop='90' ;;
aarch64)	argre='^8@x[0-9]+$'; argre4='^-4@w[0-9]+$'; nop='d503201f' ;;
*)		echo "header-check: unsupported architecture $arch" >&2; exit 1 ;;
esac

# Hex text without 0x and leading zeros, so readelf, nm and objdump addresses compare as strings.
hexnorm='function hex(h) {
	h = tolower(h); sub(/^0x/, "", h); sub(/^0+/, "", h); return h == "" ? "0" : h
}'

# Checks the probes of one object file; prints the first problem.
check_notes() {
	local obj=$1 notes sems base

	notes=$(readelf -n "$obj" | awk '
		/^ +stapsdt / { in_note = 1; next }
		in_note && /Provider:/ { prov = $2 }
		in_note && /Name:/ { name = $2 }
		in_note && /Location:/ { gsub(",", ""); pc = $2; base = $4; sem = $6 }
		in_note && /Arguments:/ { print prov, name, pc, base, sem, $2, $3; in_note = 0 }')
	[ -n "$notes" ] || { echo "no stapsdt notes"; return; }
	base=$(readelf -SW "$obj" | sed 's/^ *\[ *[0-9]*\]//' | awk '$1 == ".stapsdt.base" { print $3 }')
	[ -n "$base" ] || { echo "no .stapsdt.base section"; return; }
	sems=$(nm "$obj" | awk '/ scope_bpf_(region_begin|region_end|fast)_semaphore$/ { print $3, $1 }')
	echo "$notes" | awk -v argre="$argre" -v argre4="$argre4" -v base="$base" -v sems="$sems" "$hexnorm"'
		BEGIN {
			n = split(sems, s, "[ \n]")
			for (i = 1; i < n; i += 2)
				sem[s[i]] = hex(s[i + 1])
		}
		$1 != "scope_bpf" { print "foreign provider " $1; bad = 1; exit }
		$2 != "region_begin" && $2 != "region_end" && $2 != "fast_ready" && $2 != "fast_site" &&
		$2 != "fast_wake" {
			print "unknown probe " $2; bad = 1; exit
		}
		{
			seen[$2]++
			# The fast probes share one semaphore (include/scope_bpf/state.h).
			want = sem["scope_bpf_" ($2 ~ /^fast_/ ? "fast" : $2) "_semaphore"]
			if (hex($5) == "0" || hex($5) != want) {
				print $2 " semaphore " $5 " is not its symbol"; bad = 1; exit
			}
			if (hex($4) != hex(base)) { print $2 " base " $4 " is not .stapsdt.base"; bad = 1; exit }
			# fast_ready has a second argument, the memory descriptor (-4@reg).
			if ($6 !~ argre) { print $2 " argument " $6; bad = 1; exit }
			if ($2 == "fast_ready" && $7 !~ argre4) { print $2 " argument " $7; bad = 1; exit }
			print "PC", hex($3)
		}
		END {
			if (!bad && (!seen["region_begin"] || !seen["region_end"]))
				print "missing region_begin or region_end"
			else if (!bad && (!seen["fast_ready"] || !seen["fast_site"] || !seen["fast_wake"]))
				print "missing fast_ready, fast_site or fast_wake"
		}' >"$obj.notes" 2>&1 || { echo "awk failed on notes"; return; }
	if grep -qv '^PC ' "$obj.notes" || ! [ -s "$obj.notes" ]; then
		grep -v '^PC ' "$obj.notes" | head -1
		return
	fi
	# Each probe address must start an instruction made of exactly the nop's bytes.
	objdump -d "$obj" | awk -v nop="$nop" -v list="$obj.notes" "$hexnorm"'
		BEGIN { while ((getline l < list) > 0) { split(l, f, " "); want[f[2]] = 1 } }
		/^ +[0-9a-f]+:\t/ {
			split($0, f, "\t")
			a = f[1]; gsub(/[ :]/, "", a); a = hex(a)
			b = f[2]; gsub(" ", "", b)
			if (a in want) { got[a] = b; delete want[a]; checked++ }
		}
		END {
			for (a in want) { print "no instruction at probe 0x" a; exit }
			for (a in got) if (got[a] != nop) { print "probe 0x" a " holds " got[a]; exit }
			if (!checked) print "no probe checked"
		}' 2>&1 || echo "awk failed on disassembly"
}

# Each header of include/scope_bpf/ built alone in directory $1; prints the first problem.
check_alone() {
	local dir=$1 h defs

	for h in abi.h probe.h; do
		defs=$(nm "$dir/$h.o" | tr '\n' ' ')
		[ -z "$defs" ] || { echo "$h alone defines $defs"; return; }
		readelf -SW "$dir/$h.o" | grep -qE '\.probes|\.stapsdt' &&
			{ echo "$h alone has probe sections"; return; }
	done
}

# One combination: compiler, -std, -O level, mode (pie, shared, disable, alone).
one() {
	local cc=$1 std=$2 opt=$3 mode=$4 file flags why rc h note=""
	local id="$cc-$std-$opt-$mode"
	dir=$out/$id

	rm -rf "$dir" && mkdir -p "$dir"
	case $cc in
	gcc|clang)	file=$src/marker_c.c ;;
	*)		file=$src/marker_cxx.cc ;;
	esac
	flags="-std=$std -$opt -Wall -Wextra -pedantic -Werror -Iinclude -I$src"
	why=$(
		set -e
		exec 2>"$dir/build.log"
		case $mode in
		pie|disable)
			[ $mode = disable ] && flags="$flags -DSCOPE_BPF_DISABLE"
			$cc $flags -fPIE -pie "$file" -o "$dir/test" -ldl
			;;
		shared)
			$cc $flags -fPIC -shared -DHC_LIBRARY "$file" -o "$dir/libhc.so" -ldl
			$cc $flags -fPIE -pie -DHC_DRIVER "$file" -o "$dir/test" \
				-L"$dir" -lhc -Wl,-rpath,'$ORIGIN'
			;;
		alone)
			for h in include/scope_bpf/*.h; do
				echo "#include \"scope_bpf/${h##*/}\"" >"$dir/alone.${file##*.}"
				$cc $flags -c "$dir/alone.${file##*.}" -o "$dir/${h##*/}.o"
			done
			;;
		esac
	) || why="build failed: $(head -3 "$dir/build.log" | tr '\n' ' ')"
	[ -z "$why" ] && [ -s "$dir/build.log" ] &&
		why="build printed: $(head -3 "$dir/build.log" | tr '\n' ' ')"
	if [ -z "$why" ]; then
		case $mode in
		pie)	why=$(check_notes "$dir/test") ;;
		shared)	why=$(check_notes "$dir/libhc.so") ;;
		disable)
			readelf -n "$dir/test" | grep -q stapsdt && why="notes in a disabled build"
			readelf -SW "$dir/test" | grep -qE '\.probes|\.stapsdt' &&
				why="probe sections in a disabled build"
			;;
		alone)	why=$(check_alone "$dir") ;;
		esac
	fi
	if [ -z "$why" ] && [ "$mode" != alone ]; then
		timeout 20 "$dir/test" >/dev/null 2>"$dir/run.err"
		rc=$?
		case $rc in
		0)	;;
		77)	note=" (self-trace skipped: code not writable)" ;;
		*)	why="run failed (exit $rc): $(head -3 "$dir/run.err" | tr '\n' ' ')" ;;
		esac
	fi
	if [ -z "$why" ]; then
		echo "PASS $id$note"
	else
		echo "FAIL $id: $why"
	fi
}

matrix() {
	local cc std stds opt mode

	for cc in gcc clang g++ clang++; do
		if ! command -v $cc >/dev/null; then
			echo "SKIP $cc"
			continue
		fi
		case $cc in
		gcc|clang)	stds="c99 c11" ;;
		*)		stds="c++11 c++17" ;;
		esac
		for std in $stds; do
			for opt in O0 O2 O3; do
				for mode in pie shared; do
					echo "$cc $std $opt $mode"
				done
			done
			echo "$cc $std O2 disable"
			echo "$cc $std O2 alone"
		done
	done
}

if [ "${HC_ONE:-}" = 1 ]; then
	shift
	one "$@"
	exit 0
fi

mkdir -p "$out" || exit 1
matrix | grep '^SKIP' >&2
results=$(matrix | grep -v '^SKIP' |
	HC_ONE=1 xargs -P "$jobs" -L 1 "$root/tools/header-check.sh" "$build")
echo "$results" | sort
pass=$(echo "$results" | grep -c '^PASS')
fail=$(echo "$results" | grep -c '^FAIL')
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ] && [ "$pass" -gt 0 ]
