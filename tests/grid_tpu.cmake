# Tests of grids and blocks on the tpu target and vxsim (docs/grid.md).
