#!/usr/bin/env bash
# Runs every command of docs/tutorial.md, in order, in an empty folder, with
# vxc installed into a fresh prefix: `<!-- file: PATH -->` blocks are
# written where they say, `<!-- sh -->` blocks run (each line must succeed;
# `<!-- sh fails -->` blocks must fail), and `<!-- output contains: TEXT -->`
# checks the output of the block before it.
#   tutorial.sh BUILD_DIR REPO
set -u
BUILD=$(cd "$1" && pwd) REPO=$(cd "$2" && pwd)
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
cmake --install "$BUILD" --prefix "$TMP/prefix" >"$TMP/install.log" 2>&1 || fail "install: $(cat "$TMP/install.log")"
# The Python package from a copy: pip builds in the folder it is given.
mkdir -p "$TMP/src" "$TMP/work"
cp -r "$REPO/python" "$TMP/src/python"
python3 - "$REPO/docs/tutorial.md" "$TMP/script.sh" <<'PY' || fail "cannot read the tutorial"
import re, sys
md = open(sys.argv[1]).read().split("\n")
out = ['cd "$WORK"']
i, n, blocks = 0, 0, 0
def fence(i):
    # The fenced block starting at line i (its opening ```): (body, next line).
    assert md[i].startswith("```"), md[i]
    j = i + 1
    while not md[j].startswith("```"):
        j += 1
    return md[i + 1:j], j + 1
while i < len(md):
    m = re.match(r"<!-- (file: (\S+)|sh fails|sh|output contains: (.*)) -->$", md[i])
    if not m:
        i += 1
        continue
    if m.group(2):
        body, i = fence(i + 1)
        out.append('mkdir -p "$WORK/$(dirname %s)"' % m.group(2))
        out.append("cat > \"$WORK/%s\" <<'VX_TUTORIAL_EOF'" % m.group(2))
        out += body
        out.append("VX_TUTORIAL_EOF")
    elif m.group(3) is not None:
        text = m.group(3).replace("'", "'\\''")
        out.append("grep -qF -- '%s' \"$WORK/.out%d\" || { echo \"FAIL: block %d printed no '%s'\" >&2; exit 1; }"
                   % (text, n, n, text))
        i += 1
    else:
        fails = m.group(1) == "sh fails"
        body, i = fence(i + 1)
        n += 1
        cmds = " && ".join(l for l in body if l.strip() and not l.strip().startswith("#"))
        out.append("echo '$ block %d'" % n)
        out.append("{ %s; } >\"$WORK/.out%d\" 2>&1; rc=$?" % (cmds, n))
        out.append('cat "$WORK/.out%d"' % n)
        if fails:
            out.append('[ $rc -ne 0 ] || { echo "FAIL: block %d should fail" >&2; exit 1; }' % n)
        else:
            out.append('[ $rc -eq 0 ] || { echo "FAIL: block %d exited $rc" >&2; exit 1; }' % n)
        blocks += 1
open(sys.argv[2], "w").write("\n".join(out) + "\n")
if blocks < 5:
    sys.exit("only %d command blocks found" % blocks)
PY
# Debian's Python (with its NumPy), as on a fresh machine, before any other.
[ -x /usr/bin/python3 ] && export PATH=/usr/bin:$PATH
(unset VXC_INCLUDE; WORK=$TMP/work VXC_PREFIX=$TMP/prefix VXC_SRC=$TMP/src VXC_NO_CACHE=1 bash "$TMP/script.sh") ||
  fail "the tutorial's commands did not all work (above)"
echo "ok: every command of docs/tutorial.md ran"
