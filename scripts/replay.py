#!/usr/bin/env python3
"""Replays every input the repository holds through the command-line tools.

  scripts/replay.py --vxc VXC --vxsim VXSIM [--jobs N] [--timeout S] [PATH...]

- every `.vx` file (tests/, examples/, stdlib/, fuzz/, ...) and every file of
  a fuzz corpus or regression folder (`fuzz/*/`): `vxc check` in the human,
  JSON and SARIF formats (status 0 or 1), and `vxc lsp` in one framed session
  per file: initialize, initialized, didOpen, an incremental didChange that
  deletes the first line, shutdown, exit (status 0, every reply framed JSON,
  diagnostics published for the document, shutdown answered);
- every `.vx` file that `vxc check` accepts is also built for every target
  as far as vxc itself goes, without the host compilers: `vxc build --emit=`
  `mlir,cpp,abi` (cpu, and `cpp` with `--sync-baseline`), `mlir,vxdma`
  (tpu; the program then runs in vxsim) and `mlir,cu` (b200, h100; `abi`
  too for b200), status 0 or 1 (a program may not fit a target).
  This is what the end-to-end tests drive vxc through, without the g++ and
  nvcc time that the sanitizer stage would not sanitize anyway;
- folders named `*-lsp` under fuzz/ hold raw client input: each file is fed
  to `vxc lsp` as it is (status 0 or 1);
- `.vxdma` programs (tests/tpu/, fuzz/*-vxdma/): `vxsim --print` and a run
  (status 0, 2 or 3).

Extra PATHs (files or folders, e.g. a local fuzzing corpus) are replayed as Vx
sources. A run that crashes, times out, exits with another status or prints a
sanitizer report fails; the script lists every failure and exits 1. Built
with -DVXC_SANITIZE=ON, the tools turn every memory error, leak and undefined
behaviour on these inputs into such a failure (scripts/sanitize.sh).
"""
import argparse
import concurrent.futures
import json
import os
import re
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SANITIZER_MARKERS = ("ERROR: AddressSanitizer", "ERROR: LeakSanitizer", "runtime error:", ": Assertion '",
                     "SUMMARY: UndefinedBehaviorSanitizer")


def repository_inputs():
    """(kind, path) for every input of the repository, sorted."""
    inputs = set()
    for top, dirs, files in os.walk(ROOT):
        rel = os.path.relpath(top, ROOT)
        # Build folders and hidden ones (.git) hold no inputs of their own.
        dirs[:] = [d for d in dirs if not d.startswith((".", "build"))]
        parts = rel.split(os.sep)
        in_fuzz_folder = len(parts) >= 2 and parts[0] == "fuzz"
        for f in files:
            path = os.path.join(top, f)
            if in_fuzz_folder and parts[1].endswith("-lsp"):
                inputs.add(("lsp-raw", path))
            elif f.endswith(".vxdma") or (in_fuzz_folder and parts[1].endswith("-vxdma")):
                inputs.add(("vxdma", path))
            elif f.endswith(".vx") or in_fuzz_folder:
                inputs.add(("vx", path))
    return sorted(inputs, key=lambda kv: kv[1])


def extra_inputs(paths):
    out = []
    for p in paths:
        if os.path.isdir(p):
            for top, _, files in os.walk(p):
                out += [("vx", os.path.join(top, f)) for f in sorted(files)]
        else:
            out.append(("vx", p))
    return out


def frame(message):
    body = json.dumps(message).encode()
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


def lsp_session(uri, text):
    """The client's side of a session that opens `text`, edits it once and exits."""
    first_line_end = text.find("\n")
    end = {"line": 1, "character": 0} if first_line_end >= 0 else {"line": 0, "character": len(text)}
    return b"".join(frame(m) for m in [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"capabilities": {}}},
        {"jsonrpc": "2.0", "method": "initialized", "params": {}},
        {"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {"textDocument": {
            "uri": uri, "languageId": "vx", "version": 1, "text": text}}},
        {"jsonrpc": "2.0", "method": "textDocument/didChange", "params": {
            "textDocument": {"uri": uri, "version": 2},
            "contentChanges": [{"range": {"start": {"line": 0, "character": 0}, "end": end},
                                "text": ""}]}},
        {"jsonrpc": "2.0", "id": 2, "method": "shutdown"},
        {"jsonrpc": "2.0", "method": "exit"},
    ])


def read_frames(data):
    """The JSON messages of framed server output; raises ValueError when it is not."""
    out = []
    pos = 0
    while pos < len(data):
        head_end = data.find(b"\r\n\r\n", pos)
        if head_end < 0:
            raise ValueError("output ends inside a header")
        length = None
        for line in data[pos:head_end].split(b"\r\n"):
            name, _, value = line.partition(b":")
            if name.strip().lower() == b"content-length":
                length = int(value)
        if length is None:
            raise ValueError("a frame without Content-Length")
        body = data[head_end + 4:head_end + 4 + length]
        if len(body) != length:
            raise ValueError("a frame shorter than its Content-Length")
        out.append(json.loads(body))
        pos = head_end + 4 + length
    return out


class Runner:
    def __init__(self, args, scratch):
        self.args = args
        self.env = dict(os.environ, XDG_CACHE_HOME=os.path.join(scratch, "cache"))
        self.scratch = scratch
        self.runs = 0

    def run(self, argv, stdin=b""):
        """(status, stdout, stderr, problem): problem is None when nothing is wrong yet."""
        self.runs += 1
        try:
            p = subprocess.run(argv, input=stdin, capture_output=True, env=self.env,
                               timeout=self.args.timeout)
        except subprocess.TimeoutExpired:
            return None, b"", b"", f"no answer after {self.args.timeout} s"
        err = p.stderr.decode(errors="replace")
        for marker in SANITIZER_MARKERS:
            if marker in err:
                return p.returncode, p.stdout, p.stderr, "sanitizer report:\n" + tail(err)
        return p.returncode, p.stdout, p.stderr, None


def tail(text, lines=40):
    return "\n".join(text.splitlines()[-lines:])


def replay_vx(r, path):
    problems = []
    for fmt in ("human", "json", "sarif"):
        argv = [r.args.vxc, "check", "--color=never", f"--error-format={fmt}", path]
        status, _, err, problem = r.run(argv)
        if problem is None and status not in (0, 1):
            problem = f"exit status {status}:\n" + tail(err.decode(errors="replace"))
        if problem:
            problems.append(f"vxc check --error-format={fmt}: {problem}")
    if not problems and path.endswith(".vx") and checked_ok(r, path):
        problems += replay_builds(r, path)
    with open(path, "rb") as f:
        # Not valid UTF-8 (fuzz inputs): the editor would show U+FFFD.
        text = f.read().decode(errors="replace")
    uri = "file:///replay/" + os.path.basename(path)
    status, out, err, problem = r.run([r.args.vxc, "lsp"], lsp_session(uri, text))
    if problem is None and status != 0:
        problem = f"exit status {status}:\n" + tail(err.decode(errors="replace"))
    if problem is None:
        try:
            messages = read_frames(out)
            if not any(m.get("method") == "textDocument/publishDiagnostics"
                       and m["params"]["uri"] == uri for m in messages):
                problem = "no diagnostics published for the document"
            elif not any(m.get("id") == 2 and "result" in m for m in messages):
                problem = "shutdown not answered"
        except (ValueError, KeyError, TypeError) as e:
            problem = f"bad output: {e}"
    if problem:
        problems.append(f"vxc lsp: {problem}")
    return problems


# Each target and the source forms vxc writes for it (no host compiler runs).
BUILDS = (("cpu", "mlir,cpp,abi", []), ("cpu", "cpp", ["--sync-baseline"]), ("tpu", "mlir,vxdma", []),
          ("b200", "mlir,cu,abi", []), ("h100", "mlir,cu", []))


def checked_ok(r, path):
    status, _, _, problem = r.run([r.args.vxc, "check", "--color=never", path])
    return problem is None and status == 0


def replay_builds(r, path):
    problems = []
    with tempfile.TemporaryDirectory(dir=r.scratch) as out:
        for target, emit, flags in BUILDS:
            stem = os.path.join(out, target)
            argv = [r.args.vxc, "build", "--color=never", f"--target={target}", f"--emit={emit}"] + flags + \
                ["-o", stem, path]
            status, _, err, problem = r.run(argv)
            text = err.decode(errors="replace")
            runs = [(argv, status, text, problem, stem)]
            # tpu: a file of several kernels builds one entry at a time; one
            # with none is a usage error (status 2), as it should be.
            if target == "tpu" and problem is None and status == 2:
                if "choose an entry with `--entry NAME` (one of " in text:
                    names = re.findall(r"`([A-Za-z_][A-Za-z0-9_]*)`", text.split("(one of ", 1)[1])
                    runs = []
                    for name in names:
                        entry_stem = f"{stem}-{name}"
                        entry_argv = argv[:-3] + ["--entry", name, "-o", entry_stem, path]
                        st, _, e, pr = r.run(entry_argv)
                        runs.append((entry_argv, st, e.decode(errors="replace"), pr, entry_stem))
                elif "has no function that can be an entry" in text:
                    runs = []
            for run_argv, status, text, problem, out_stem in runs:
                if problem is None and status not in (0, 1):
                    problem = f"exit status {status}:\n" + tail(text)
                if problem:
                    problems.append(f"{' '.join(run_argv[1:-3])}: {problem}")
                elif target == "tpu" and status == 0 and os.path.exists(out_stem + ".vxdma"):
                    st, _, e, pr = r.run([r.args.vxsim, out_stem + ".vxdma", "--max-instructions", "1000000"])
                    if pr is None and st not in (0, 2, 3):
                        pr = f"exit status {st}:\n" + tail(e.decode(errors="replace"))
                    if pr:
                        problems.append(f"vxsim (built from it): {pr}")
    return problems


def replay_lsp_raw(r, path):
    with open(path, "rb") as f:
        data = f.read()
    status, _, err, problem = r.run([r.args.vxc, "lsp"], data)
    if problem is None and status not in (0, 1):
        problem = f"exit status {status}:\n" + tail(err.decode(errors="replace"))
    return [f"vxc lsp: {problem}"] if problem else []


def replay_vxdma(r, path):
    problems = []
    for extra, ok in ((["--print"], (0, 2)), (["--max-instructions", "1000000"], (0, 2, 3))):
        status, _, err, problem = r.run([r.args.vxsim, path] + extra)
        if problem is None and status not in ok:
            problem = f"exit status {status}:\n" + tail(err.decode(errors="replace"))
        if problem:
            problems.append(f"vxsim {' '.join(extra)}: {problem}")
    return problems


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--vxc", required=True)
    ap.add_argument("--vxsim", required=True)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--timeout", type=int, default=300, help="seconds per run")
    ap.add_argument("paths", nargs="*", help="more Vx sources (files or folders)")
    args = ap.parse_args()
    inputs = repository_inputs() + extra_inputs(args.paths)
    replay = {"vx": replay_vx, "lsp-raw": replay_lsp_raw, "vxdma": replay_vxdma}
    start = time.monotonic()
    failures = 0
    with tempfile.TemporaryDirectory() as scratch:
        r = Runner(args, scratch)
        with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
            results = pool.map(lambda kv: (kv, replay[kv[0]](r, kv[1])), inputs)
            for (kind, path), problems in results:
                shown = os.path.relpath(path, ROOT) if path.startswith(ROOT) else path
                for p in problems:
                    failures += 1
                    print(f"FAIL {shown}: {p}", flush=True)
    counts = {k: sum(1 for kind, _ in inputs if kind == k) for k in replay}
    print(f"replay: {counts['vx']} Vx sources, {counts['lsp-raw']} raw LSP inputs, "
          f"{counts['vxdma']} .vxdma programs; {r.runs} runs in {time.monotonic() - start:.0f} s; "
          f"{failures} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
