# `vxc lsp` as an editor runs it: framed JSON-RPC on stdin/stdout, logs on
# stderr; a session publishes diagnostics and exits 0 after shutdown + exit.
. "$(dirname "$0")/lib.bash" "$@"
export XDG_CACHE_HOME=$TMP/cache  # where the error pages are written
frame() { printf 'Content-Length: %d\r\n\r\n%s' "${#1}" "$1"; }
text=$(python3 -c 'import json,sys; print(json.dumps(open(sys.argv[1]).read()))' "$ROOT/tests/examples/bad/double_wait.vx")
{
  frame '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"capabilities":{}}}'
  frame '{"jsonrpc":"2.0","method":"initialized","params":{}}'
  frame '{not json'
  frame "{\"jsonrpc\":\"2.0\",\"method\":\"textDocument/didOpen\",\"params\":{\"textDocument\":{\"uri\":\"file:///tmp/double_wait.vx\",\"languageId\":\"vx\",\"version\":1,\"text\":$text}}}"
  frame '{"jsonrpc":"2.0","id":2,"method":"shutdown"}'
  frame '{"jsonrpc":"2.0","method":"exit"}'
} > "$TMP/in"
expect_status 0 "$VXC" lsp --stdio < "$TMP/in"
contains "$OUT" '"serverInfo":{"name":"vxc"'
contains "$OUT" '"code":-32700'
contains "$OUT" '"method":"textDocument/publishDiagnostics"'
contains "$OUT" '"code":"E6002"'
contains "$OUT" "\"href\":\"file://$TMP/cache/vxc/"
contains "$OUT" '"id":2,"jsonrpc":"2.0","result":null'
# The end of the input without `shutdown` is status 1, as the protocol says.
head -c 200 "$TMP/in" > "$TMP/cut"
expect_status 1 "$VXC" lsp < "$TMP/cut"
expect_status 0 "$VXC" lsp --help
contains "$OUT" "Language Server Protocol"
echo ok
