"""The Python package against NumPy references: the repository's examples,
their tiles shrunk to 64x64 (so that they fit every target), called on cpu
(the C ABI), tpu (vxsim) and b200 (the CUDA interpreter)."""
import os
import tempfile
import unittest

import numpy as np

import vx

REPO = os.environ.get("VX_REPO", os.path.join(os.path.dirname(__file__), "..", ".."))
TMP = tempfile.mkdtemp(prefix="vx-py-test-")


def example(name):
    with open(os.path.join(REPO, "examples", name + ".vx")) as f:
        text = f.read().replace("128, 128", "64, 64")
    path = os.path.join(TMP, name + ".vx")
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
        k = vx.compile(example("stream_out"), target=target)
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
            vx.compile(example("epilogue"), target=target).epilogue(x, w, bias, out)
            np.testing.assert_allclose(out, want, rtol=1e-6, atol=1e-6, err_msg=target)

    def test_scalars_in_and_a_scalar_result(self):
        path = example("early_exit")
        tiles, w = inputs(5, 3)
        for target in ("cpu", "tpu"):
            k = vx.compile(path, target=target)
            self.assertEqual(k.next_kept(2, 9), 3, target)   # 2 is skipped (i % 3 == 2)
            self.assertEqual(k.next_kept(8, 8), 8, target)   # none left
            out = np.zeros((64, 64), np.float32)
            k.early_exit(tiles, w, out, 4)                   # tiles 0, 1, 3 (2 is skipped)
            np.testing.assert_array_equal(out, tiles[0] @ w + tiles[1] @ w + tiles[3] @ w, err_msg=target)
            before = np.ones((64, 64), np.float32)
            k.early_exit(tiles, w, before, 0)                # limit 0: `out` stays as it was
            np.testing.assert_array_equal(before, np.ones((64, 64), np.float32), err_msg=target)

    def test_inputs_are_converted_outputs_are_not(self):
        k = vx.compile(example("stream_out"), target="cpu")
        tiles, w = inputs(2, 4)
        out = np.zeros((64, 64), np.float32)
        k.stream_out(tiles.astype(np.float64), w.tolist(), out)  # inputs: any array-like, converted
        np.testing.assert_array_equal(out, tiles[0] @ w + tiles[1] @ w)


class BadCallsAreErrors(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.k = vx.compile(example("stream_out"), target="cpu")

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
        path = os.path.join(TMP, "consts.vx")
        with open(path, "w") as f:
            f.write("const R: usize = 8;\nconst S: f32 = 0.5;\n"
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

    def test_unknown_target(self):
        with self.assertRaisesRegex(vx.VxError, "unknown target 'gpu'"):
            vx.compile(example("stream_out"), target="gpu")


if __name__ == "__main__":
    unittest.main()
