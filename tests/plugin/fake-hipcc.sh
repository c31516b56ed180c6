#!/bin/sh
# fake-hipcc.sh: stands in for ROCm's hipcc in the kwalk-env test. Like hipcc,
# it compiles HIP with clang++ and appends $HIPCC_COMPILE_FLAGS_APPEND (split
# at blanks) to the command line. KWALK_TEST_CLANGXX names the clang++ and
# KWALK_TEST_RSP the project's HIP compat response file (empty under ROCm).
set -f
exec "$KWALK_TEST_CLANGXX" -x hip @"$KWALK_TEST_RSP" "$@" $HIPCC_COMPILE_FLAGS_APPEND
