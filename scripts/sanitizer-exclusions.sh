#!/usr/bin/env bash
# The ctest regular expression of the tests the CI sanitizer stage leaves out
# (.ci/run says why for each): end-to-end tests whose time is g++'s and nvcc's
# compiling generated programs; their vxc paths run sanitized in the replay.
tests=(
  'run\.cuda\.nvcc'
  'cuda\.grid\.nvcc_builds_the_tma_path'
  'run\.cuda\.interpret'
  'cuda\.grid\.examples_agree_with_cpu'
  'cuda\.soundness'
  'run\.pipeline-matches-the-plain-loop'
  'run\.compute-matches-a-reference'
  'run\.differential\..*'
  'run\.early-exits\..*'
  'python\.package'
  'cli\.check_accepts_only_what_build_builds'
)
(IFS='|'; echo "^(${tests[*]})\$")
