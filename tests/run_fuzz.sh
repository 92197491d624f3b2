#!/bin/sh
# run_fuzz.sh DIR SECONDS TARGET... — each libFuzzer target for SECONDS on its seeds, one line each
# (executions, coverage, features); a finding stops with its log and leaves its input in
# DIR/crash-TARGET-*. flipkit tests/: make fuzz (300 s each), make check-fuzz (20 s each).
# New inputs go to DIR/found-TARGET (kept between runs); the seeds in DIR/corpus stay as made.
set -u
dir=$1 seconds=$2
shift 2
for t in "$@"; do
    mkdir -p "$dir/found-$t"
    if ! "$dir/fuzz_$t" -max_total_time="$seconds" -print_final_stats=1 -rss_limit_mb=2048 \
         -artifact_prefix="$dir/crash-$t-" "$dir/found-$t" "$dir/corpus/$t" > "$dir/$t.log" 2>&1; then
        tail -n 40 "$dir/$t.log"
        echo "check-fuzz: fuzz_$t found a failure; its input is in $dir/crash-$t-*"
        exit 1
    fi
    awk -v t="$t" '/^#[0-9]+.*(DONE|pulse|NEW|REDUCE)/ { last = $0 }
        /stat::number_of_executed_units/ { runs = $2 }
        END { n = split(last, w, " "); cov = "?"; ft = "?"
              for (i = 1; i <= n; i++) { if (w[i] == "cov:") cov = w[i + 1]; if (w[i] == "ft:") ft = w[i + 1] }
              printf "check-fuzz: fuzz_%s: %s executions, cov %s, ft %s, no finding\n", t, runs, cov, ft }' "$dir/$t.log"
done
