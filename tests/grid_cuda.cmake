# Tests of grids and blocks on the b200/h100 targets (docs/b200.md "Blocks
# and tensor maps", "Grids"). Included from tests/CMakeLists.txt.

# Block copies under the interpreter against a host reference: where a
# tensor-map copy lands (the 128-byte swizzle and back), boxes past the
# edge, row-by-row copies, mma on a swizzled A. One binary per modelled
# machine.
foreach(sm 100 90)
  add_executable(vx_cuda_block_tests_sm${sm} ${CMAKE_CURRENT_SOURCE_DIR}/unit/main.cpp
                 ${CMAKE_CURRENT_SOURCE_DIR}/run/cuda_block_tma_test.cpp)
  target_include_directories(vx_cuda_block_tests_sm${sm} SYSTEM PRIVATE ${DOCTEST_INCLUDE})
  target_include_directories(vx_cuda_block_tests_sm${sm} PRIVATE ${PROJECT_SOURCE_DIR}/include)
  target_compile_definitions(vx_cuda_block_tests_sm${sm} PRIVATE VX_CUDA_SM=${sm})
endforeach()
add_test(NAME cuda.block.copies_match_a_host_reference.b200 COMMAND vx_cuda_block_tests_sm100)
add_test(NAME cuda.block.copies_match_a_host_reference.h100 COMMAND vx_cuda_block_tests_sm90)

# The grid examples under the b200 and h100 interpreters agree with the cpu
# target at several shapes, schedules and CTA counts; blocks of the builtin
# docs check and run; a read of a block copy's buffer before its wait stops.
add_test(NAME cuda.grid.examples_agree_with_cpu
         COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/run/cuda_grid_agrees_with_cpu.sh $<TARGET_FILE:vxc> ${PROJECT_SOURCE_DIR})
set_tests_properties(cuda.grid.examples_agree_with_cpu PROPERTIES TIMEOUT 1200)

# Two instances of a grid writing one element of global memory, or one
# reading what another writes, stop the interpreter (the dynamic E6010), in
# a program the checker never saw.
add_test(NAME cuda.grid.instances_on_one_element_stop_the_run
         COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/run/cuda_grid_race.sh $<TARGET_FILE:vxc> ${PROJECT_SOURCE_DIR})
set_tests_properties(cuda.grid.instances_on_one_element_stop_the_run PROPERTIES TIMEOUT 600)

# nvcc builds both grid examples for sm_100a and sm_90a without warnings or
# spills, their PTX holds the tensor-map copies and stores, their objects
# ask the runtime for the driver's encoder and link no driver library.
# Skipped, visibly, without nvcc.
add_test(NAME cuda.grid.nvcc_builds_the_tma_path
         COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/run/cuda_grid_nvcc.sh $<TARGET_FILE:vxc> ${PROJECT_SOURCE_DIR})
set_tests_properties(cuda.grid.nvcc_builds_the_tma_path PROPERTIES TIMEOUT 1200 SKIP_RETURN_CODE 77)
