"""The Python package against NumPy references: the repository's examples,
their tiles shrunk to 64x64 (so that they fit every target), called on cpu
(the C ABI), tpu (vxsim) and b200 (the CUDA interpreter)."""
import os
import tempfile
import unittest

import numpy as np

import vx

try:
    import ml_dtypes
except ImportError:  # the bf16 tests say they are skipped
    ml_dtypes = None

REPO = os.environ.get("VX_REPO", os.path.join(os.path.dirname(__file__), "..", ".."))
TMP = tempfile.mkdtemp(prefix="vx-py-test-")


def example(name):
    return os.path.join(REPO, "examples", name + ".vx")


# The examples with T x T tiles (128 on cpu and tpu, 64 on b200/h100), as
# checked in, built with 64 x 64 tiles on every target.
T64 = {"T": 64}


def source(name, text):
    """A Vx file of the test's own, written to TMP: its path."""
    path = os.path.join(TMP, name)
    with open(path, "w") as f:
        f.write(text)
    return path


def inputs(n, seed):
    rng = np.random.default_rng(seed)
    # Multiples of 1/8 in [-1, 1]: products and sums are exact in f32.
    tiles = rng.integers(-8, 9, size=(n, 64, 64)).astype(np.float32) / 8
    w = rng.integers(-8, 9, size=(64, 64)).astype(np.float32) / 8
    return tiles, w


class CallsAgreeWithNumPy(unittest.TestCase):
    def check_stream_out(self, target):
        k = vx.compile(example("stream_out"), target=target, consts=T64)
        tiles, w = inputs(3, 1)
        out = np.zeros((64, 64), np.float32)
        self.assertIsNone(k.stream_out(tiles, w, out))
        np.testing.assert_array_equal(out, sum(t @ w for t in tiles))

    def test_stream_out_on_cpu(self):
        self.check_stream_out("cpu")

    def test_stream_out_on_tpu(self):
        self.check_stream_out("tpu")

    def test_stream_out_on_b200_interpreted(self):
        self.check_stream_out("b200")

    def test_epilogue_on_cpu_and_tpu(self):
        x, w = inputs(4, 2)
        bias = np.linspace(-1, 1, 64 * 64, dtype=np.float32).reshape(64, 64)
        want = np.maximum(0.25 * sum(t @ w for t in x) + bias, 0)
        for target in ("cpu", "tpu"):
            out = np.full((64, 64), 7, np.float32)
            vx.compile(example("epilogue"), target=target, consts=T64).epilogue(x, w, bias, out)
            np.testing.assert_allclose(out, want, rtol=1e-6, atol=1e-6, err_msg=target)

    def test_scalars_in_and_a_scalar_result(self):
        path = example("early_exit")
        tiles, w = inputs(5, 3)
        for target in ("cpu", "tpu"):
            k = vx.compile(path, target=target, consts=T64)
            self.assertEqual(k.next_kept(2, 9), 3, target)   # 2 is skipped (i % 3 == 2)
            self.assertEqual(k.next_kept(8, 8), 8, target)   # none left
            out = np.zeros((64, 64), np.float32)
            k.early_exit(tiles, w, out, 4)                   # tiles 0, 1, 3 (2 is skipped)
            np.testing.assert_array_equal(out, tiles[0] @ w + tiles[1] @ w + tiles[3] @ w, err_msg=target)
            before = np.ones((64, 64), np.float32)
            k.early_exit(tiles, w, before, 0)                # limit 0: `out` stays as it was
            np.testing.assert_array_equal(before, np.ones((64, 64), np.float32), err_msg=target)

    def test_inputs_are_converted_outputs_are_not(self):
        k = vx.compile(example("stream_out"), target="cpu", consts=T64)
        tiles, w = inputs(2, 4)
        out = np.zeros((64, 64), np.float32)
        k.stream_out(tiles.astype(np.float64), w.tolist(), out)  # inputs: any array-like, converted
        np.testing.assert_array_equal(out, tiles[0] @ w + tiles[1] @ w)


class BadCallsAreErrors(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.k = vx.compile(example("stream_out"), target="cpu", consts=T64)

    def test_wrong_shape(self):
        tiles, w = inputs(2, 5)
        with self.assertRaisesRegex(ValueError, r"`w` takes an array of shape \(64, 64\), not \(32, 64\)"):
            self.k.stream_out(tiles, w[:32], np.zeros((64, 64), np.float32))
        with self.assertRaisesRegex(ValueError, r"`tiles` takes an array of shape \(n, 64, 64\)"):
            self.k.stream_out(w, w, np.zeros((64, 64), np.float32))

    def test_output_of_the_wrong_type_is_not_copied_silently(self):
        tiles, w = inputs(2, 6)
        with self.assertRaisesRegex(TypeError, "`out` is written: pass a writeable, C-contiguous float32 array"):
            self.k.stream_out(tiles, w, np.zeros((64, 64), np.float64))
        with self.assertRaisesRegex(TypeError, "`out` is written"):
            self.k.stream_out(tiles, w, np.zeros((64, 128), np.float32)[:, ::2])

    def test_wrong_arity_and_unknown_function(self):
        with self.assertRaisesRegex(TypeError, r"stream_out takes 3 arguments \(tiles, w, out\), 1 given"):
            self.k.stream_out(np.zeros((1, 64, 64), np.float32))
        with self.assertRaisesRegex(AttributeError, "has no function `gemm`"):
            self.k.gemm

    def test_a_program_the_checker_rejects(self):
        bad = os.path.join(REPO, "tests", "examples", "bad", "stale.vx")
        with self.assertRaisesRegex(vx.VxError, "E6004"):
            vx.compile(bad)

    def test_consts_set_const_items_for_the_build(self):
        path = source("consts.vx", "const R: usize = 8;\nconst S: f32 = 0.5;\n"
                      "fn f(a: &Tensor<f32, [R, 64]>, out: &mut Tensor<f32, [R, 64]>) on Topology::TensorCore {\n"
                      "  let v = transfer(a, Memory::VMEM);\n  let y = scale(v, S);\n  store(&y, out);\n}\n")
        a = np.arange(4 * 64, dtype=np.float32).reshape(4, 64)
        for target in ("cpu", "tpu"):
            k = vx.compile(path, target=target, consts={"R": 4, "S": 2.0})
            out = np.zeros((4, 64), np.float32)
            k.f(a, out)
            np.testing.assert_array_equal(out, a * 2)
        with self.assertRaisesRegex(vx.VxError, "there is no `const Q`; did you mean `R`"):
            vx.compile(path, consts={"Q": 4})
        with self.assertRaisesRegex(vx.VxError, "a const is set to an int, a float or a bool"):
            vx.compile(path, consts={"R": "four"})
        # NumPy scalars are numbers too.
        k = vx.compile(path, consts={"R": np.int64(4), "S": np.float32(2.0)})
        out = np.zeros((4, 64), np.float32)
        k.f(a, out)
        np.testing.assert_array_equal(out, a * 2)

    def test_integers_out_of_a_parameters_range_are_refused(self):
        path = source("ints.vx", "fn addi(x: i32, y: i32) -> i32 on Topology::TensorCore {\n  x + y\n}\n"
                      "fn addu(x: u32) -> u32 on Topology::TensorCore {\n  x\n}\n"
                      "fn adds(x: usize) -> usize on Topology::TensorCore {\n  x\n}\n")
        # The C ABI (cpu) as `vxc run` (tpu): refused, not wrapped by ctypes.
        for target in ("cpu", "tpu"):
            k = vx.compile(path, target=target)
            self.assertEqual(k.addi(2**31 - 2, 1), 2**31 - 1, target)
            self.assertEqual(k.adds(2**63 - 1), 2**63 - 1, target)  # tpu: below 2^63
            for call in (lambda: k.addi(2**32 + 5, 0), lambda: k.addi(-2**31 - 1, 0), lambda: k.addu(-1),
                         lambda: k.adds(-1), lambda: k.addu(np.int64(2**32))):
                with self.assertRaises((ValueError, vx.VxError), msg=target):
                    call()

    def test_scalars_of_another_kind_are_a_type_error_naming_the_parameter(self):
        path = source("kinds.vx", "fn addu(x: usize, y: usize) -> usize on Topology::TensorCore {\n  x + y\n}\n"
                      "fn pick(c: bool, x: i32) -> i32 on Topology::TensorCore {\n  let mut r = 0;\n  if c { r = x; }\n  r\n}\n")
        # The same on every target (ctypes took True for 1, and named the C
        # argument's position).
        for target in ("cpu", "tpu"):
            k = vx.compile(path, target=target)
            self.assertEqual(k.addu(2, np.uint64(3)), 5, target)
            self.assertEqual(k.pick(True, 7), 7, target)
            for call, name in ((lambda: k.addu(True, 1), "x"), (lambda: k.addu(1, 2.5), "y"),
                               (lambda: k.pick(1, 7), "c"), (lambda: k.pick(True, None), "x")):
                with self.assertRaisesRegex(TypeError, r"^`%s` is a `" % name, msg=target):
                    call()
        # A float parameter takes ints and floats, not bools or text (cpu:
        # the tpu returns no float).
        k = vx.compile(source("floats.vx", "fn same(x: f32) -> f32 on Topology::TensorCore {\n  x\n}\n"), target="cpu")
        self.assertEqual(k.same(3), 3.0)
        self.assertEqual(k.same(np.float32(1.5)), 1.5)
        for bad in ("1", False, None):
            with self.assertRaisesRegex(TypeError, r"^`x` is a `f32`: pass an int or a float"):
                k.same(bad)

    def test_unknown_target(self):
        with self.assertRaisesRegex(vx.VxError, "unknown target 'gpu'"):
            vx.compile(example("stream_out"), target="gpu")


if __name__ == "__main__":
    unittest.main()


BF16_KERNEL = """
fn sums(a: &Tensor<bf16, [8, 16]>, s: &mut Tensor<bf16, [8, 1]>, e: &mut Tensor<bf16, [8, 16]>) on Topology::TensorCore {
  let x = transfer(a, Memory::VMEM);
  let r = row_sum(&x);
  store(&r, s);
  let y = exp(&x);
  store(&y, e);
}
"""


@unittest.skipIf(ml_dtypes is None, "ml_dtypes is not installed: bf16 arrays cannot be made (scripts/install-deps.sh fetches it)")
class Bf16ArraysThroughMlDtypes(unittest.TestCase):
    def check(self, target):
        path = os.path.join(TMP, "bf16.vx")
        with open(path, "w") as f:
            f.write(BF16_KERNEL)
        k = vx.compile(path, target=target)
        rng = np.random.default_rng(5)
        # Multiples of 1/8 in [-1, 1]: exact in bf16, and so are their row sums.
        a = (rng.integers(-8, 9, size=(8, 16)) / 8).astype(ml_dtypes.bfloat16)
        s = np.zeros((8, 1), ml_dtypes.bfloat16)
        e = np.zeros((8, 16), ml_dtypes.bfloat16)
        k.sums(a, s, e)
        np.testing.assert_array_equal(s.astype(np.float32), a.astype(np.float32).sum(axis=1, keepdims=True))
        want = np.exp(a.astype(np.float32)).astype(ml_dtypes.bfloat16).astype(np.float32)
        np.testing.assert_allclose(e.astype(np.float32), want, rtol=2 ** -8, err_msg=target)
        # f32 inputs are rounded to bf16 on the way in; a written array must be bf16 already.
        k.sums(a.astype(np.float32), s, e)
        with self.assertRaises(TypeError):
            k.sums(a, np.zeros((8, 1), np.float32), e)

    def test_bf16_on_cpu(self):
        self.check("cpu")

    def test_bf16_on_tpu(self):
        self.check("tpu")

    def test_bf16_on_b200_interpreted(self):
        self.check("b200")


class Bf16WithoutMlDtypes(unittest.TestCase):
    def test_a_bf16_parameter_names_ml_dtypes(self):
        path = os.path.join(TMP, "bf16_missing.vx")
        with open(path, "w") as f:
            f.write(BF16_KERNEL)
        k = vx.compile(path, target="cpu")
        real = vx._bf16
        vx._bf16 = lambda: None
        try:
            with self.assertRaises(vx.VxError) as e:
                k.sums(np.zeros((8, 16), np.float32), np.zeros((8, 1), np.float32), np.zeros((8, 16), np.float32))
            self.assertIn("ml_dtypes", str(e.exception))
        finally:
            vx._bf16 = real


def numpy_softmax(x):
    e = np.exp(x - x.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


class SoftmaxAgreesWithNumPy(unittest.TestCase):
    """examples/softmax.vx (a grid of row groups, each streamed in blocks) at
    several tile shapes set with `consts=`, on m x n arrays as they are."""

    def check(self, target, bm, n, t, groups):
        path = os.path.join(REPO, "examples", "softmax.vx")
        k = vx.compile(path, target=target, consts={"BM": bm, "N": n, "T": t})
        rng = np.random.default_rng(bm * 1000 + n)
        x = (rng.standard_normal((groups * t * bm, n)) * 4).astype(np.float32)
        out = np.zeros_like(x)
        k.softmax(x, out)
        np.testing.assert_allclose(out, numpy_softmax(x), rtol=2e-6, atol=1e-8, err_msg="%s %dx%d" % (target, bm, n))
        np.testing.assert_allclose(out.sum(axis=-1), 1.0, rtol=1e-5)

    def test_softmax_on_cpu(self):
        for bm, n, t, groups in ((8, 128, 3, 2), (16, 64, 2, 3), (1, 256, 5, 1)):
            self.check("cpu", bm, n, t, groups)

    def test_softmax_on_tpu(self):
        for bm, n, t, groups in ((8, 128, 3, 2), (32, 32, 1, 3)):
            self.check("tpu", bm, n, t, groups)

    def test_softmax_on_b200_interpreted(self):
        self.check("b200", 8, 64, 2, 2)

    @unittest.skipIf(ml_dtypes is None, "ml_dtypes is not installed: bf16 arrays cannot be made")
    def test_bf16_softmax_on_every_target(self):
        # bf16 in and out, f32 on chip: within bf16's rounding of the result.
        path = os.path.join(REPO, "examples", "softmax.vx")
        bf = ml_dtypes.bfloat16
        rng = np.random.default_rng(11)
        x = (rng.standard_normal((64, 64)) * 4).astype(bf)
        want = numpy_softmax(x.astype(np.float32))
        for target in ("cpu", "tpu", "b200", "h100"):
            k = vx.compile(path, target=target, consts={"BM": 8, "N": 64, "T": 2})
            out = np.zeros((64, 64), bf)
            k.softmax_bf16(x, out)
            np.testing.assert_allclose(out.astype(np.float32), want, rtol=2 ** -8, atol=1e-6, err_msg=target)


def numpy_rmsnorm(x, w, eps=1e-6):
    x64 = x.astype(np.float64)
    return (x64 / np.sqrt((x64 * x64).mean(axis=-1, keepdims=True) + eps) * w.astype(np.float64)).astype(np.float32)


class RmsNormAgreesWithNumPy(unittest.TestCase):
    """examples/rmsnorm.vx (a grid of row groups) at several tile shapes set
    with `consts=`, on m x n arrays as they are."""

    def check(self, target, bm, n, t, groups):
        path = os.path.join(REPO, "examples", "rmsnorm.vx")
        k = vx.compile(path, target=target, consts={"BM": bm, "N": n, "T": t})
        rng = np.random.default_rng(bm * 7 + n)
        x = (rng.standard_normal((groups * t * bm, n)) * 3).astype(np.float32)
        w = rng.uniform(0.5, 1.5, size=(1, n)).astype(np.float32)
        out = np.zeros_like(x)
        k.rmsnorm(x, w, out)
        np.testing.assert_allclose(out, numpy_rmsnorm(x, w), rtol=1e-5, atol=1e-6, err_msg="%s %dx%d" % (target, bm, n))

    def test_rmsnorm_on_cpu(self):
        for bm, n, t, groups in ((8, 128, 3, 2), (16, 64, 2, 1), (1, 32, 4, 3)):
            self.check("cpu", bm, n, t, groups)

    def test_rmsnorm_on_tpu(self):
        for bm, n, t, groups in ((8, 128, 2, 2), (32, 64, 1, 3)):
            self.check("tpu", bm, n, t, groups)

    def test_rmsnorm_on_b200_and_h100_interpreted(self):
        self.check("b200", 8, 64, 2, 2)
        self.check("h100", 4, 32, 2, 3)

    @unittest.skipIf(ml_dtypes is None, "ml_dtypes is not installed: bf16 arrays cannot be made")
    def test_bf16_rmsnorm_on_every_target(self):
        path = os.path.join(REPO, "examples", "rmsnorm.vx")
        bf = ml_dtypes.bfloat16
        rng = np.random.default_rng(12)
        x = (rng.standard_normal((96, 32)) * 3).astype(bf)
        w = rng.uniform(0.5, 1.5, size=(1, 32)).astype(bf)
        want = numpy_rmsnorm(x.astype(np.float32), w.astype(np.float32))
        for target in ("cpu", "tpu", "b200", "h100"):
            k = vx.compile(path, target=target, consts={"BM": 8, "N": 32, "T": 3})
            out = np.zeros((96, 32), bf)
            k.rmsnorm_bf16(x, w, out)
            np.testing.assert_allclose(out.astype(np.float32), want, rtol=2 ** -8, atol=1e-6, err_msg=target)

    def test_softmax_on_h100_interpreted(self):
        SoftmaxAgreesWithNumPy.check(self, "h100", 4, 32, 2, 3)


def numpy_attention(q, k, v, scale):
    s = (q.astype(np.float64) @ k.astype(np.float64).T) * scale
    p = np.exp(s - s.max(axis=-1, keepdims=True))
    return (p / p.sum(axis=-1, keepdims=True)) @ v.astype(np.float64)


@unittest.skipIf(ml_dtypes is None, "ml_dtypes is not installed: the bf16 inputs cannot be made")
class AttentionAgreesWithNumPy(unittest.TestCase):
    """examples/attention.vx (a grid of query blocks, each an online softmax
    over streamed key/value blocks, bf16 inputs) at several shapes. The reference takes the same bf16 values
    in f64; the kernel rounds its softmax weights to bf16 for the product
    with v (2^-9 relative), hence the tolerance."""

    def check(self, target, bq, bk, d, qblocks, blocks, atol):
        path = os.path.join(REPO, "examples", "attention.vx")
        scale = 1 / np.sqrt(d)
        k = vx.compile(path, target=target, consts={"BQ": bq, "BK": bk, "D": d, "SCALE": float(scale)})
        rng = np.random.default_rng(bq + bk + d + blocks)
        bf = ml_dtypes.bfloat16
        q = rng.standard_normal((qblocks * bq, d)).astype(bf)
        keys = rng.standard_normal((blocks * bk, d)).astype(bf)
        vals = rng.standard_normal((blocks * bk, d)).astype(bf)
        out = np.zeros((qblocks * bq, d), np.float32)
        k.attention(q, keys, vals, out)
        want = numpy_attention(q, keys, vals, np.float32(scale))
        np.testing.assert_allclose(out, want, rtol=1e-2, atol=atol,
                                   err_msg="%s %d/%d/%d %dx%d" % (target, bq, bk, d, qblocks, blocks))

    def test_attention_on_cpu(self):
        for bq, bk, d, qblocks, blocks in ((16, 32, 64, 3, 4), (8, 16, 32, 1, 1), (32, 64, 16, 2, 3)):
            self.check("cpu", bq, bk, d, qblocks, blocks, 1e-2)

    def test_attention_on_tpu(self):
        for bq, bk, d, qblocks, blocks in ((16, 32, 64, 2, 3), (8, 64, 32, 3, 2)):
            self.check("tpu", bq, bk, d, qblocks, blocks, 1e-2)

    def test_attention_on_b200_and_h100_interpreted(self):
        self.check("b200", 16, 32, 64, 2, 2, 2e-2)
        self.check("h100", 8, 16, 32, 3, 2, 2e-2)


class RunTimeExtentsComeFromTheArrays(unittest.TestCase):
    """examples/gemm_rowmajor.vx and rows.vx take m x k arrays as they are:
    their run-time extents come from the NumPy shapes (one value per name
    across the arguments), on every target."""

    def check_gemm(self, target, shapes, consts):
        k = vx.compile(os.path.join(REPO, "examples", "gemm_rowmajor.vx"), target=target, consts=consts)
        rng = np.random.default_rng(len(shapes))
        for m, n, kk in shapes:
            a = (rng.integers(-8, 9, size=(m, kk)) / 8).astype(np.float32)
            b = (rng.integers(-8, 9, size=(kk, n)) / 8).astype(np.float32)
            c = np.zeros((m, n), np.float32)
            k.gemm(a, b, c)
            # b200/h100 multiply in tf32; the values here are exact in it.
            np.testing.assert_allclose(c, a @ b, rtol=1e-6, atol=1e-6, err_msg="%s %dx%dx%d" % (target, m, n, kk))

    def test_gemm_on_cpu(self):
        self.check_gemm("cpu", [(128, 192, 96), (64, 64, 32), (192, 64, 320)], {"BM": 64, "BN": 64, "BK": 32})
        self.check_gemm("cpu", [(256, 128, 128)], None)

    def test_gemm_on_tpu(self):
        self.check_gemm("tpu", [(256, 128, 384), (128, 256, 128)], None)

    def test_gemm_on_the_b200_and_h100_interpreters(self):
        # Their default tiles (BM = BN = 128, BK = 32): m, n, k unequal, and
        # K with one step.
        self.check_gemm("b200", [(256, 128, 64)], None)
        self.check_gemm("h100", [(128, 256, 32)], None)

    def test_rows_on_cpu_and_tpu(self):
        rng = np.random.default_rng(7)
        for target in ("cpu", "tpu"):
            k = vx.compile(os.path.join(REPO, "examples", "rows.vx"), target=target)
            for m in (8, 40):
                x = rng.standard_normal((m, 256)).astype(np.float32)
                y = np.zeros_like(x)
                k.rows(x, y)
                e = np.exp(x - x.max(axis=1, keepdims=True))
                np.testing.assert_allclose(y, e / e.sum(axis=1, keepdims=True), rtol=1e-5, atol=1e-6, err_msg=target)

    def test_rows_on_the_gpu_targets_through_the_c_abi_and_isolated(self):
        # In this process through the interpreter's C ABI, and in a `vxc run`
        # of its own with isolate=True: the same rows, bit for bit.
        rng = np.random.default_rng(9)
        x = rng.standard_normal((16, 256)).astype(np.float32)
        for target in ("b200", "h100"):
            direct = vx.compile(os.path.join(REPO, "examples", "rows.vx"), target=target)
            isolated = vx.compile(os.path.join(REPO, "examples", "rows.vx"), target=target, isolate=True)
            self.assertEqual(direct.via, "C ABI", target)
            self.assertEqual(isolated.via, "vxc run", target)
            y, z = np.zeros_like(x), np.zeros_like(x)
            direct.rows(x, y)
            isolated.rows(x, z)
            np.testing.assert_array_equal(y, z, err_msg=target)
            e = np.exp(x - x.max(axis=1, keepdims=True))
            np.testing.assert_allclose(y, e / e.sum(axis=1, keepdims=True), rtol=1e-5, atol=1e-6, err_msg=target)

    def test_a_written_array_may_not_overlap_another_argument(self):
        # The same array twice, or overlapping slices of one: the kernel was
        # proved for parameters that do not alias, so the call is refused.
        k = vx.compile(os.path.join(REPO, "examples", "rows.vx"), target="cpu")
        x = np.ones((16, 256), np.float32)
        with self.assertRaisesRegex(ValueError, r"`x` and `y` share memory, and `y` is written"):
            k.rows(x, x)
        big = np.ones((24, 256), np.float32)
        with self.assertRaisesRegex(ValueError, r"share memory"):
            k.rows(big[8:], big[:16])
        # Disjoint slices of one array are fine.
        k.rows(big[:8], big[8:16])
        np.testing.assert_allclose(big[8:16], np.full((8, 256), 1 / 256, np.float32), rtol=1e-6)

    def test_extents_that_disagree_name_both_arrays(self):
        k = vx.compile(os.path.join(REPO, "examples", "gemm_rowmajor.vx"), target="cpu")
        a = np.zeros((128, 64), np.float32)
        with self.assertRaisesRegex(ValueError, r"`a` is \(m, k\) and `b` is \(k, n\), but `a` has shape \(128, 64\) "
                                                r"and `b` has shape \(128, 128\): `k` is 64 in one and 128 in the other"):
            k.gemm(a, np.zeros((128, 128), np.float32), np.zeros((128, 128), np.float32))
        with self.assertRaisesRegex(ValueError, r"`a` takes an array of shape \(m, k\), not \(128,\)"):
            k.gemm(np.zeros(128, np.float32), np.zeros((128, 128), np.float32), np.zeros((128, 128), np.float32))
        with self.assertRaisesRegex(TypeError, r"gemm takes 3 arguments \(a, b, c\), 4 given"):
            k.gemm(a, a, a, 128)
