"""Vx kernels called from Python with NumPy arrays (docs/python.md).

    import numpy as np, vx
    k = vx.compile("stream_out.vx", target="cpu")     # or "tpu", "b200"
    out = np.zeros((128, 128), np.float32)
    k.stream_out(tiles, w, out)                        # `&mut` arrays are written

bf16 tensors take `ml_dtypes.bfloat16` arrays (NumPy has none; install
ml_dtypes, as JAX uses); f16 ones take `np.float16`.

cpu builds a shared library with `vxc build --emit=lib` and calls its C
entries through ctypes, on the arrays' own memory; b200 and h100 do the same
with the library `vxc build --emit=lib --interpret` builds (the CUDA source
as host C++ under vxc's CUDA interpreter, in this process). tpu runs the
kernel on vxsim through `vxc run --input/--output`: the same call, the data
copied in and out as .npy (and so do b200/h100 when the library cannot be
built: `Kernel.via` says which).
"""
import ctypes
import json
import os
import shutil
import subprocess
import sys
import tempfile

try:
    import numpy as np
except ImportError as _e:  # a Python without NumPy (a pyenv build, a bare venv)
    raise ImportError(
        "the vx package passes NumPy arrays, and this Python (%s) has no NumPy: install it into this "
        "Python (`%s -m pip install numpy`), or use Debian's /usr/bin/python3 with python3-numpy "
        "(scripts/install-deps.sh installs it)" % (sys.executable, sys.executable)) from _e

__all__ = ["compile", "Kernel", "VxError", "find_vxc"]

_DTYPES = {"f32": np.float32, "f64": np.float64, "f16": np.float16}


def _bf16():
    """NumPy has no bf16: the `ml_dtypes` package's (as JAX uses), if installed."""
    try:
        import ml_dtypes
    except ImportError:
        return None
    return ml_dtypes.bfloat16


def _dtype(p):
    if p["type"] == "bf16":
        bf = _bf16()
        if bf is None:
            raise VxError("`%s` is a bf16 tensor, and NumPy has no bf16: install ml_dtypes "
                          "(`pip install ml_dtypes`, as JAX uses) and pass `ml_dtypes.bfloat16` arrays" % p["name"])
        return bf
    dtype = _DTYPES.get(p["type"])
    if dtype is None:
        raise VxError("`%s`: %s tensors cannot be passed from NumPy in this version" % (p["name"], p["type"]))
    return dtype
_SCALARS = {
    "i32": ctypes.c_int32, "i64": ctypes.c_int64, "u32": ctypes.c_uint32, "u64": ctypes.c_uint64,
    "usize": ctypes.c_uint64, "f32": ctypes.c_float, "f64": ctypes.c_double, "bool": ctypes.c_bool,
    "bf16": ctypes.c_float, "f16": ctypes.c_float,
}
_TARGETS = ("cpu", "tpu", "b200", "h100")


class VxError(Exception):
    """vxc rejected the program or the call (the message is vxc's)."""


def find_vxc():
    """$VXC, else `vxc` on PATH."""
    path = os.environ.get("VXC") or shutil.which("vxc")
    if not path:
        raise VxError("vxc not found: put it on PATH or set VXC")
    return path


_INT_RANGE = {"i32": (-2**31, 2**31 - 1), "i64": (-2**63, 2**63 - 1), "u32": (0, 2**32 - 1),
              "u64": (0, 2**64 - 1), "usize": (0, 2**64 - 1)}


def _check_scalar_kind(p, a):
    """TypeError unless `a` is a value of scalar parameter `p`'s kind: an
    int (not a bool) for an integer type, an int or a float (not a bool) for
    a float type, a bool for `bool`."""
    t = p["type"]
    is_bool = isinstance(a, (bool, np.bool_))
    if t == "bool":
        ok, want = is_bool, "a bool"
    elif t in _INT_RANGE:
        ok, want = isinstance(a, (int, np.integer)) and not is_bool, "an int"
    else:
        ok, want = isinstance(a, (int, float, np.integer, np.floating)) and not is_bool, "an int or a float"
    if not ok:
        raise TypeError("`%s` is a `%s`: pass %s, not %s %r" % (p["name"], t, want, type(a).__name__, a))


def _run(args):
    p = subprocess.run(args, capture_output=True, text=True)
    if p.returncode != 0:
        raise VxError((p.stderr or p.stdout).strip())
    return p.stdout


def _const_flags(consts):
    """{"BM": 64, "ON": True} -> ["--const", "BM=64", "--const", "ON=true"]."""
    flags = []
    for name, value in (consts or {}).items():
        if isinstance(value, (bool, np.bool_)):
            value = "true" if value else "false"
        elif isinstance(value, np.integer):
            value = int(value)
        elif isinstance(value, np.floating):
            value = float(value)
        elif not isinstance(value, (int, float)):
            raise VxError("consts[%r] is %r: a const is set to an int, a float or a bool" % (name, value))
        flags += ["--const", "%s=%s" % (name, value)]
    return flags


def compile(path, target="cpu", vxc=None, consts=None, isolate=False):
    """Checks and builds the Vx file for `target`; returns a Kernel whose
    attributes are its functions. `consts` sets `const` items for this build
    ({"BM": 64}), as `--const NAME=VALUE` does. b200/h100 calls run in this
    process through the interpreter's C ABI; `isolate=True` runs each in a
    `vxc run` of its own instead, so that a trap (a race the interpreter
    finds) is a VxError rather than the end of the process."""
    if target not in _TARGETS:
        raise VxError("unknown target %r (%s)" % (target, ", ".join(_TARGETS)))
    return Kernel(os.path.abspath(path), target, vxc or find_vxc(), _const_flags(consts), isolate)


def _written(fn, name):
    """The shape of parameter `name` as written: `(m, 64)`."""
    for p in fn["params"]:
        if p["name"] == name:
            dims = p.get("extents") or [None] * len(p["shape"])
            return "(" + ", ".join(n if n else str(d) for n, d in zip(dims, p["shape"])) + ")"
    return "?"


class Kernel:
    def __init__(self, path, target, vxc, const_flags=(), isolate=False):
        self.path, self.target, self._vxc = path, target, vxc
        self._consts = list(const_flags)
        abi_target = "cpu" if target == "tpu" else target
        abi = json.loads(_run([vxc, "build", "--emit=abi", "--target", abi_target, path] + self._consts))
        self.functions = {f["name"]: f for f in abi["functions"]}
        self._dir = tempfile.mkdtemp(prefix="vx-py-")
        self._lib = None
        self.via = "vxc run"  # how a call runs: "C ABI" (in this process) or "vxc run"
        so = os.path.join(self._dir, "lib" + os.path.splitext(os.path.basename(path))[0] + ".so")
        if target == "cpu":
            _run([vxc, "build", "--emit=lib", path, "-o", so] + self._consts)
            self._lib = ctypes.CDLL(so)
            self.via = "C ABI"
        elif target in ("b200", "h100") and not isolate:
            # The interpreter's library, where this vxc builds one; else each
            # call is a `vxc run --interpret`.
            try:
                _run([vxc, "build", "--emit=lib", "--interpret", "--target", target, path, "-o", so] + self._consts)
                self._lib = ctypes.CDLL(so)
                self.via = "C ABI"
            except (VxError, OSError):
                self._lib = None

    def __del__(self):
        shutil.rmtree(getattr(self, "_dir", ""), ignore_errors=True)

    def __dir__(self):
        return list(self.functions) + ["functions", "path", "target", "via"]

    def __getattr__(self, name):
        fns = self.__dict__.get("functions", {})
        if name not in fns:
            raise AttributeError("%s has no function `%s` (it has: %s)" % (self.__dict__.get("path"), name,
                                                                            ", ".join(sorted(fns)) or "none"))
        fn = fns[name]
        return lambda *args: self._call(fn, args)

    # ---- arguments ----
    def _arrays(self, fn, args):
        # Run-time extents are not passed: they come from the arrays' shapes.
        params = [p for p in fn["params"] if not p.get("extent")]
        if len(args) != len(params):
            raise TypeError("%s takes %d arguments (%s), %d given" % (
                fn["name"], len(params), ", ".join(p["name"] for p in params), len(args)))
        out = []
        extents = {}  # name -> (value, the parameter that set it, its array's shape)
        for p, a in zip(params, args):
            if p["kind"] == "scalar":
                if isinstance(a, np.ndarray):
                    raise TypeError("`%s` is a scalar `%s`, not an array" % (p["name"], p["type"]))
                # A value of another kind is refused here, by the parameter's
                # name, on every target (ctypes would count C arguments, and
                # take True for 1).
                _check_scalar_kind(p, a)
                # An integer out of the type's range is refused, as `vxc run`
                # refuses it (ctypes would wrap it silently).
                if p["type"] in _INT_RANGE and isinstance(a, (int, np.integer)) and not isinstance(a, bool):
                    lo, hi = _INT_RANGE[p["type"]]
                    if not lo <= int(a) <= hi:
                        raise ValueError("`%s` is a `%s`: %d is out of its range %d..%d" % (
                            p["name"], p["type"], int(a), lo, hi))
                out.append(a)
                continue
            dtype = _dtype(p)
            shape = tuple(p["shape"])
            if p["mut"]:
                if not isinstance(a, np.ndarray) or a.dtype != dtype or not a.flags.c_contiguous or not a.flags.writeable:
                    raise TypeError("`%s` is written: pass a writeable, C-contiguous %s array" % (
                        p["name"], np.dtype(dtype).name))
            else:
                a = np.ascontiguousarray(a, dtype=dtype)
            if p.get("extents"):
                # (m, k): each extent from this array's dimension, one value per name.
                names = p["extents"]
                written = "(" + ", ".join(n if n else str(d) for n, d in zip(names, shape)) + ")"
                if a.ndim != len(shape):
                    raise ValueError("`%s` takes an array of shape %s, not %s" % (p["name"], written, a.shape))
                for d, (n, size) in enumerate(zip(names, shape)):
                    if n is None:
                        if a.shape[d] != size:
                            raise ValueError("`%s` takes an array of shape %s, not %s" % (p["name"], written, a.shape))
                        continue
                    if n in extents and extents[n][0] != a.shape[d]:
                        v, other, other_shape = extents[n]
                        raise ValueError("`%s` is %s and `%s` is %s, but `%s` has shape %s and `%s` has shape %s: "
                                         "`%s` is %d in one and %d in the other" % (
                                             other, _written(fn, other), p["name"], written, other, other_shape,
                                             p["name"], a.shape, n, v, a.shape[d]))
                    extents.setdefault(n, (a.shape[d], p["name"], a.shape))
                out.append(a)
                continue
            want = ("n",) + shape if p["kind"] == "vec" else shape
            got = a.shape[1:] if p["kind"] == "vec" else a.shape
            if got != shape or (p["kind"] == "vec" and a.ndim != len(shape) + 1):
                raise ValueError("`%s` takes an array of shape %s, not %s" % (
                    p["name"], "(" + ", ".join(str(d) for d in want) + ")", a.shape))
            out.append(a)
        # The checker proves a kernel for parameters that do not overlap
        # where one is written (as Rust's `&mut`): two arrays sharing memory
        # (the same array twice, or overlapping slices of one) would let its
        # grid's instances, or a copy and the code after it, race.
        arrays = [(p, a) for p, a in zip(params, out) if p["kind"] != "scalar"]
        for i, (p, a) in enumerate(arrays):
            for q, b in arrays[i + 1:]:
                if (p["mut"] or q["mut"]) and np.may_share_memory(a, b):
                    written = q["name"] if q["mut"] else p["name"]
                    raise ValueError("`%s` and `%s` share memory, and `%s` is written: a kernel's parameters may not "
                                     "overlap where one is written (pass a copy, e.g. `%s.copy()`)" % (
                                         p["name"], q["name"], written, p["name"] if written == q["name"] else q["name"]))
        # The hidden parameters, in their order after the written ones.
        for p in fn["params"]:
            if p.get("extent"):
                out.append(extents.get(p["name"], (0,))[0])
        return out

    def _call(self, fn, args):
        if not fn["c_abi"]:
            raise VxError("`%s` has no C entry: %s" % (fn["name"], fn.get("why", "")))
        arrays = self._arrays(fn, args)
        if self._lib is not None:
            return self._call_c(fn, arrays)
        return self._call_run(fn, arrays)

    def _call_c(self, fn, arrays):
        f = getattr(self._lib, fn["symbol"])
        argtypes, values = [], []
        for p, a in zip(fn["params"], arrays):
            if p["kind"] == "scalar":
                argtypes.append(_SCALARS[p["type"]])
                values.append(a)
                continue
            argtypes.append(ctypes.c_void_p)
            values.append(a.ctypes.data)
            if p["kind"] == "vec":
                argtypes.append(ctypes.c_uint64)
                values.append(a.shape[0])
        f.argtypes = argtypes
        f.restype = _SCALARS[fn["result"]] if fn["result"] else None
        return f(*values)

    def _call_run(self, fn, arrays):
        work = tempfile.mkdtemp(dir=self._dir)
        cmd = [self._vxc, "run", "--target", self.target, "--entry", fn["name"], "--output", work] + self._consts
        if self.target in ("b200", "h100"):
            cmd.append("--interpret")
        for i, (p, a) in enumerate(zip(fn["params"], arrays)):
            if p["kind"] == "scalar":
                v = ("true" if a else "false") if p["type"] == "bool" else repr(a)
                cmd += ["--arg", "%s=%s" % (p["name"], v)]
            else:
                f = os.path.join(work, "in%d.npy" % i)
                # .npy has no bf16: as f32, which vxc rounds back exactly.
                np.save(f, a.astype(np.float32) if p["type"] == "bf16" else a)
                cmd += ["--input", "%s=%s" % (p["name"], f)]
        stdout = _run(cmd + [self.path])
        for p, a in zip(fn["params"], arrays):
            if p["kind"] != "scalar" and p["mut"]:
                a[...] = np.load(os.path.join(work, p["name"] + ".npy")).astype(a.dtype)
        shutil.rmtree(work, ignore_errors=True)
        for line in stdout.splitlines():
            if line.startswith("result = "):
                v = line[len("result = "):]
                t = fn["result"]
                return v == "true" if t == "bool" else float(v) if t and t[0] in "fb" else int(v)
        return None
