# Tests of grids and blocks on the tpu target and vxsim (docs/grid.md,
# docs/tpu/lowering.md "Grids, blocks and run-time extents"). The unit
# tests of dma.strided and of several cores are in tests/unit/sim
# (sim.unit), the .vxdma forms in tests/unit/tpu (tpu.unit) and
# tests/lit/codegen-tpu/grid*.vx (lit).

# The examples against the cpu target: the same checksums at several shapes,
# run-time extents from --arg (differential.sh also runs --sync-baseline;
# OVERLAP=1: the asynchronous build must take fewer cycles).
function(vx_tpu_grid_differential name file entry overlap)
  add_test(NAME tpu.grid.differential.${name}
           COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/tpu/differential.sh $<TARGET_FILE:vxc>
                   ${PROJECT_SOURCE_DIR}/${file} ${entry} ${ARGN})
  set_tests_properties(tpu.grid.differential.${name} PROPERTIES TIMEOUT 900 ENVIRONMENT OVERLAP=${overlap})
endfunction()
# m, n and k unequal, several K steps: the ring of copies overlaps the mma.
vx_tpu_grid_differential(gemm_rowmajor examples/gemm_rowmajor.vx gemm 1
                         "--seed 1 --arg m=384 --arg n=256 --arg k=512" "--seed 2 --arg m=256 --arg n=512 --arg k=384")
# One K step (k = BK, and k = 192: the columns past the last whole step are
# not used), one instance, and an empty grid (m < BM: C keeps its input).
vx_tpu_grid_differential(gemm_rowmajor_edges examples/gemm_rowmajor.vx gemm 0
                         "--seed 3 --arg m=128 --arg n=384 --arg k=128" "--seed 4 --arg m=256 --arg n=128 --arg k=192"
                         "--seed 5 --arg m=128 --arg n=128 --arg k=128" "--seed 6 --arg m=64 --arg n=256 --arg k=256")
# Full-width row blocks, contiguous in HBM; m not a multiple of R.
vx_tpu_grid_differential(rows examples/rows.vx rows 0
                         "--seed 7 --arg m=64" "--seed 8 --arg m=8" "--seed 9 --arg m=1000")
# A block of a run-time m x k matrix outside a grid, guarded (and not taken).
vx_tpu_grid_differential(builtin_block docs/language/builtins/block.vx second_row_block 0
                         "--seed 10 --arg m=64 --arg k=32" "--seed 11 --arg m=100 --arg k=96" "--seed 12 --arg m=16 --arg k=96")
vx_tpu_grid_differential(builtin_block_mut docs/language/builtins/block_mut.vx rows 0
                         "--seed 13 --arg m=96" "--seed 14 --arg m=32")

# Run-time extents from --input shapes, and their usage errors.
add_test(NAME tpu.grid.extents_from_input_shapes
         COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/tpu/grid_inputs.sh $<TARGET_FILE:vxc> ${PROJECT_SOURCE_DIR})
set_tests_properties(tpu.grid.extents_from_input_shapes PROPERTIES TIMEOUT 900)

# The checker's E6010 against vxsim's race detector: overlapping instances,
# built with the verdict overridden (the soundness oracle), race.
add_test(NAME tpu.grid.overlapping_instances_race
         COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/tpu/grid_races.sh $<TARGET_FILE:vx-oracle> ${PROJECT_SOURCE_DIR})

# vx-oracle leaves unjudged an accepted kernel that never ends in vxsim.
add_test(NAME tpu.oracle_limit
         COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/tpu/oracle_limit.sh $<TARGET_FILE:vx-oracle> ${PROJECT_SOURCE_DIR})

# E6004/E6005 between blocks of one tensor race at their lines (--unchecked);
# blocks sharing rows but not columns run clean: strided DMAs own no gaps.
add_test(NAME tpu.grid.block_hazards_race
         COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/run/soundness_replay.py $<TARGET_FILE:vxc>
                 ${PROJECT_SOURCE_DIR} ${CMAKE_CURRENT_SOURCE_DIR}/tpu/grid/block_hazards.vx)

# The performance target: gemm_rowmajor at m = n = k = 512 on 2 simulated
# cores at least 1.9x faster than on 1 (bench/tpu_grid.sh).
add_test(NAME tpu.grid.two_cores_run_the_gemm_1.9x_faster
         COMMAND ${CMAKE_COMMAND} -E env VXC=$<TARGET_FILE:vxc> VXSIM=$<TARGET_FILE:vxsim>
                 bash ${PROJECT_SOURCE_DIR}/bench/tpu_grid.sh --check 1.9)
set_tests_properties(tpu.grid.two_cores_run_the_gemm_1.9x_faster PROPERTIES TIMEOUT 900)
