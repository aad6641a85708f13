# Tests of grids and blocks on the b200/h100 targets (docs/grid.md).
