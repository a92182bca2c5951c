#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause OR GPL-2.0-only
#
# The README's table of issue 30's instruction-count figures (its
# figures:count block), from the count-figures.txt files that make
# bench-count CC=gcc and CC=clang leave in their build directories: one
# row per figure, the gcc and clang values with their status, the target.
# Prints Markdown rows only (mk/ofl_embed.py splice keeps lines that start
# with "|"), e.g.:
#   make bench-count CC=gcc && make bench-count CC=clang &&
#   make -s bench-count-table > build/figures-count.txt &&
#   python3 mk/ofl_embed.py splice README.md count build/figures-count.txt
#
# Usage: count_table.sh GCC_BUILD_DIR CLANG_BUILD_DIR

g=${1:-build/callgrind-gcc}/count-figures.txt
c=${2:-build/callgrind-clang}/count-figures.txt
for f in "$g" "$c"; do
    if [ ! -s "$f" ]; then
        echo "count_table: no $f (run make bench-count with that compiler)" >&2
        exit 1
    fi
done
echo "| figure | gcc | clang | target |"
echo "|---|---:|---:|---|"
# bench-count: NAME VALUE UNIT (target OP T: ok|miss)
# In the order; a figure not listed here comes after them.
awk -v want="send64_library write4k_further_fpdu_library write4k_overhead_library write4k_payload_passes_per_side tpt_check_translate_vs_floor dt_exchange_vs_floor cm4_offload_o_bytes_added" '
    BEGIN { n = split(want, order, " "); for (i = 1; i <= n; i++) seen[order[i]] = 1 }
    FNR == 1 { file++ }
    {
        name = $2; val = $3 " " $4; op = $6; t = $7; st = $8
        sub(/:$/, "", t); sub(/\)$/, "", st)
        if (!(name in seen)) { seen[name] = 1; order[++n] = name }
        tgt[name] = op " " t
        v[name, file] = val " (" st ")"
    }
    END {
        for (i = 1; i <= n; i++) {
            k = order[i]
            if (!((k, 1) in v) && !((k, 2) in v))
                continue
            printf "| `%s` | %s | %s | %s |\n", k,
                ((k, 1) in v) ? v[k, 1] : "-", ((k, 2) in v) ? v[k, 2] : "-", tgt[k]
        }
    }' "$g" "$c"
