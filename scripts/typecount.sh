#!/bin/sh
# typecount.sh DIR...: for each struct type declared in DIR's non-test .go
# files, the methods declared on it (value or pointer receiver, any file of
# DIR) and the sync.Mutex / sync.RWMutex fields in its declaration. Types
# with neither are left out. Embedded types' methods are not added: a type
# that embeds another is counted with its own methods only.
#
#   sh scripts/typecount.sh hostlink ahpclient
set -eu
for dir in "$@"; do
	files=$(ls "$dir"/*.go | grep -v '_test\.go$')
	# shellcheck disable=SC2086
	awk -v dir="$dir" '
		/^type [A-Za-z_][A-Za-z0-9_]* struct *\{ *$/ { t = $2; order[++n] = t; locks[t] += 0; inside = 1; next }
		inside && /^\}/ { inside = 0; next }
		inside && /(^|[^A-Za-z])sync\.(RW)?Mutex([^A-Za-z]|$)/ { locks[t]++ }
		/^func \([A-Za-z_][A-Za-z0-9_]* \*?[A-Za-z_][A-Za-z0-9_]*\) / {
			r = $3; sub(/^\*/, "", r); sub(/\)$/, "", r); methods[r]++
		}
		END {
			total = 0
			for (i = 1; i <= n; i++) {
				t = order[i]
				if (methods[t] + locks[t] == 0) continue
				printf "%s.%s methods=%d locks=%d\n", dir, t, methods[t], locks[t]
				total += locks[t]
			}
			printf "%s: locks in struct types=%d\n", dir, total
		}' $files
done
