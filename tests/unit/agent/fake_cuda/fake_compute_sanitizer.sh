#!/bin/sh
# TEST DOUBLE of `compute-sanitizer --tool memcheck` for the fake CUDA driver
# (fake_device.h): runs the command with FAKE_CUDA_MEMCHECK pointing at a
# report file that the fake driver appends every out-of-bounds access to,
# then prints them the way memcheck does ("========= Invalid __global__ ...",
# "========= ERROR SUMMARY: N errors") and exits with --error-exitcode when
# there were any. What it checks is only what the fake driver checks: the
# canary past every allocation, and the accesses the case kernels report.
errexit=0
limit=100
while [ $# -gt 0 ]; do
  case "$1" in
    --error-exitcode) errexit=$2; shift 2 ;;
    --print-limit) limit=$2; shift 2 ;;
    --tool|--report-api-errors|--leak-check) shift 2 ;;
    --*) shift ;;
    *) break ;;
  esac
done
report=$(mktemp "${TMPDIR:-/tmp}/fake-memcheck-XXXXXX")
FAKE_CUDA_MEMCHECK=$report "$@"
rc=$?
echo "========= COMPUTE-SANITIZER (fake, tests/unit/agent/fake_cuda)"
# The first `limit` errors in full (as --print-limit), then the count of all.
n=$(wc -l <"$report")
awk -F'|' -v limit="$limit" 'NR <= limit {
    print "========= " $1; for (i = 2; i <= NF; i++) print "=========     " $i; print "=========" }' "$report"
rm -f "$report"
if [ "$n" = 1 ]; then echo "========= ERROR SUMMARY: 1 error"; else echo "========= ERROR SUMMARY: $n errors"; fi
if [ "$n" -gt 0 ] && [ "$errexit" != 0 ]; then exit "$errexit"; fi
exit $rc
