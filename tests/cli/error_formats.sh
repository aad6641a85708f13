# JSON: one object per line per diagnostic; SARIF: one 2.1.0 log on stdout.
. "$(dirname "$0")/lib.bash" "$@"
expect_status 1 "$VXC" check --error-format=json "$ROOT/tests/examples/bad/syntax.vx"
[ "$(printf '%s\n' "$ERR" | wc -l)" = 2 ] || fail "expected 2 JSON lines, got: $ERR"
printf '%s\n' "$ERR" | /usr/bin/python3 -c '
import json, sys
for line in sys.stdin:
    d = json.loads(line)
    assert d["code"]["code"] == "E0001", d
    assert d["spans"][0]["is_primary"] is True
    assert d["level"] == "error"
' || fail "JSON lines do not parse"
expect_status 1 "$VXC" check --error-format=sarif "$ROOT/tests/examples/bad/syntax.vx"
printf '%s' "$OUT" | /usr/bin/python3 -c '
import json, sys
log = json.load(sys.stdin)
assert log["version"] == "2.1.0"
results = log["runs"][0]["results"]
assert [r["locations"][0]["physicalLocation"]["region"]["startLine"] for r in results] == [2, 3], results
' || fail "SARIF log is wrong"
expect_status 1 "$VXC" check --color=always "$ROOT/tests/examples/bad/syntax.vx"
contains "$ERR" $'\x1b[1;31merror[E0001]'
expect_status 1 "$VXC" check "$ROOT/tests/examples/bad/syntax.vx"
case "$ERR" in *$'\x1b['*) fail "colour on a non-tty";; esac

# A file that cannot be read is reported after the others are checked
# (exit 2): their diagnostics are not lost.
printf 'fn f() -> u32 { y }\n' > "$TMP/one.vx"
printf 'fn g() -> u32 { z }\n' > "$TMP/two.vx"
expect_status 2 "$VXC" check "$TMP/missing.vx" "$TMP/one.vx"
contains "$ERR" "cannot read"
contains "$ERR" "cannot find value \`y\`"
# `vxc fix` with SARIF: one log on stdout for all its files, and a dry run's
# diff on stderr, so that stdout stays one JSON document.
expect_status 1 "$VXC" fix --error-format=sarif "$TMP/one.vx" "$TMP/two.vx"
printf '%s' "$OUT" | /usr/bin/python3 -c '
import json, sys
log = json.load(sys.stdin)
uris = [r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for r in log["runs"][0]["results"]]
assert [u.rsplit("/", 1)[-1] for u in uris] == ["one.vx", "two.vx"], uris
' || fail "vxc fix --error-format=sarif is not one log: $OUT"
# SARIF's `uri` is a URI: a space and `#` percent-encoded, an absolute
# path a `file://` URI, a relative one a relative reference.
mkdir -p "$TMP/sp ace"
printf 'fn f() -> u32 { y }\n' > "$TMP/sp ace/a#1.vx"
expect_status 1 "$VXC" check --error-format=sarif "$TMP/sp ace/a#1.vx"
printf '%s' "$OUT" | /usr/bin/python3 -c '
import json, sys
uri = json.load(sys.stdin)["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
assert uri.startswith("file:///") and uri.endswith("/sp%20ace/a%231.vx"), uri
' || fail "not a file URI: $OUT"
(cd "$TMP" && "$VXC" check --error-format=sarif "sp ace/a#1.vx") | /usr/bin/python3 -c '
import json, sys
uri = json.load(sys.stdin)["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
assert uri == "sp%20ace/a%231.vx", uri
' || fail "not a relative reference"
cp "$ROOT/tests/examples/bad/dropped.vx" "$TMP/dropped.vx"
expect_status 0 "$VXC" fix --dry-run --error-format=sarif "$TMP/dropped.vx"
printf '%s' "$OUT" | /usr/bin/python3 -c 'import json, sys; json.load(sys.stdin)' ||
  fail "a dry run's SARIF is not JSON: $OUT"
contains "$ERR" "+  "
echo ok
