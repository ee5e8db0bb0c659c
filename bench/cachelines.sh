#!/bin/sh
# cachelines.sh [commit...]: the production lines of the caching machinery
# (issue 22): every non-test file that exists to keep a projection (an
# in-memory view of the database) or to notice when one is stale. Lines are
# code lines: neither blank nor only a // comment. A file absent at a
# commit counts 0. Default commits: v0.1.0 (cff8f3d) and HEAD.
#   sh bench/cachelines.sh            # both counts and the files
#   sh bench/cachelines.sh main HEAD  # any commits
set -eu
FILES='
internal/memo/memo.go
internal/memo/keyed.go
internal/readmodel/readmodel.go
internal/readmodel/snapshot.go
internal/readmodel/values.go
internal/readmodel/check.go
internal/readmodel/counters.go
internal/readmodel/lists.go
internal/projcheck/projcheck.go
internal/dbwatch/dbwatch.go
internal/dbwatch/counters.go
internal/dbwatch/shm_unix.go
internal/dbwatch/shm_other.go
internal/dbwatch/stmtcache.go
internal/stmtcache/stmtcache.go
internal/session/cache.go
modules/camellos/index.go
modules/camellos/index_near.go
modules/camellos/index_table.go
modules/camellos/index_build.go
modules/camellos/index_render.go
modules/camellos/summaries.go
modules/agenda/view.go
modules/agenda/answers.go
modules/catalog/cache.go
modules/jobs/board.go
modules/jobs/board_packed.go
modules/jobs/parties.go
modules/quotes/list.go
modules/messages/list.go
modules/search/vocabulary.go
modules/search/reviews.go
modules/places/index.go
'
[ $# -gt 0 ] || set -- cff8f3d HEAD
cd "$(git rev-parse --show-toplevel)"
for c in "$@"; do
	total=0
	for f in $FILES; do
		n=$(git show "$c:$f" 2>/dev/null | awk '/^[[:space:]]*$/ {next} /^[[:space:]]*\/\// {next} {n++} END {print n+0}')
		[ "$n" -gt 0 ] && printf '%6d  %s\n' "$n" "$f"
		total=$((total + n))
	done
	printf '%6d  total at %s (%s)\n\n' "$total" "$c" "$(git rev-parse --short "$c")"
done
