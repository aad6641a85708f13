#!/usr/bin/env bash
# `vxc check --target T` accepts a file only if `vxc build --target T`
# builds it: for every .vx file of the repository (tests, examples, docs, the
# shared examples), on every target. cpu builds an object (the generated C++
# compiled); tpu builds every TensorCore function as an entry (a function
# that cannot be one is a usage error, not a diagnostic); b200 and h100
# emit their CUDA source (`--emit=cu`; tests/run/cuda_build.sh compiles the
# examples with nvcc). The check also must
# never crash, and a build never report diagnostics the check did not.
source "$(dirname "$0")/lib.bash"
FILES=$(cd "$ROOT" && { find tests examples docs -name '*.vx'; if [ -d ../shared/examples ]; then find ../shared/examples -name '*.vx'; fi; } | sort)
[ -n "$FILES" ] || fail "no .vx files under $ROOT"
checked=0 built=0
for rel in $FILES; do
  f="$ROOT/$rel"
  for t in cpu tpu b200 h100; do
    "$VXC" check --target "$t" "$f" >"$TMP/out" 2>"$TMP/err"
    rc=$?
    grep -q "internal compiler error" "$TMP/err" && fail "check --target $t $rel: $(cat "$TMP/err")"
    [ $rc -le 1 ] || continue  # a usage error (e.g. a file the UI runner reads as bytes)
    checked=$((checked + 1))
    [ $rc = 0 ] || continue
    case $t in
      cpu)
        "$VXC" build "$f" --emit=obj -o "$TMP/o.o" >"$TMP/out" 2>"$TMP/err" \
          || fail "check --target cpu accepts $rel but the build fails: $(cat "$TMP/err")"
        built=$((built + 1)) ;;
      tpu)
        for entry in $(grep -oE '^ *(pub +)?fn +[A-Za-z_][A-Za-z0-9_]*[^{]*on +Topology::TensorCore' "$f" |
                       sed -E 's/^ *(pub +)?fn +([A-Za-z_][A-Za-z0-9_]*).*/\2/'); do
          "$VXC" build "$f" --target tpu --entry "$entry" -o "$TMP/k.vxdma" >"$TMP/out" 2>"$TMP/err"
          rc=$?
          [ $rc = 1 ] && fail "check --target tpu accepts $rel but building entry $entry reports: $(cat "$TMP/err")"
          grep -q "internal compiler error" "$TMP/err" && fail "build --target tpu --entry $entry $rel: $(cat "$TMP/err")"
          [ $rc = 0 ] && built=$((built + 1))
        done ;;
      b200|h100)
        "$VXC" build "$f" --target "$t" --emit=cu -o "$TMP/k.cu" >"$TMP/out" 2>"$TMP/err" \
          || fail "check --target $t accepts $rel but the build fails: $(cat "$TMP/err")"
        built=$((built + 1)) ;;
    esac
  done
done
echo "ok: $checked checks, $built builds agree"
