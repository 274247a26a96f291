# The CUDA kernels (included from kernels/CMakeLists.txt when QGATE_HAVE_CUDA).
# Device code compiles ONCE, into qgate_cuda_device (both kernel libraries link it); the
# planted defects (mutants.cu) join only the mutant library; the host launch and registry
# (.cpp) join both kernel libraries like every other backend's.
# No fast math: IEEE division, denormals kept (the activation quantizers are bit-exact to
# the oracle, the mat-vec declares no flush). sm_90 only (CMAKE_CUDA_ARCHITECTURES).
file(GLOB qgate_cuda_device_sources CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/cuda/*.cu)
list(FILTER qgate_cuda_device_sources EXCLUDE REGEX "/(fused_)?mutants\\.cu$")
add_library(qgate_cuda_device STATIC ${qgate_cuda_device_sources})
target_include_directories(qgate_cuda_device PUBLIC $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}>)
target_compile_options(qgate_cuda_device PRIVATE
  $<$<COMPILE_LANGUAGE:CUDA>:--ftz=false --prec-div=true --prec-sqrt=true>)
target_link_libraries(qgate_cuda_device PUBLIC CUDA::cudart_static)

set(QGATE_CUDA_HOST_SOURCES cuda/launch.cpp cuda/registry_cuda.cpp cuda/replay_chain.cpp cuda/bench_cuda.cpp
    cuda/fused_launch.cpp cuda/fused_gate_up.cpp)
set(QGATE_CUDA_MUTANT_SOURCES cuda/mutants.cu cuda/fused_mutants.cu)

# The device activation quantizers against the oracle's bytes (label quantize_cuda).
if(QGATE_TESTS)
  qgate_gtest(qgate_quantize_act_tests_cuda LABEL quantize_cuda DEVICES cuda:1
              SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/cuda/quantize_act_test.cpp LIBS qgate_kernels qgate_backends)
  # vendor.cuh's int8 tile products (instruction and portable HIP form) against their definition.
  qgate_gtest(qgate_mma_tests_cuda LABEL mma_cuda DEVICES cuda:1
              SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/cuda/mma_test.cpp LIBS qgate_kernels qgate_backends)
endif()

# Part of the CMake package (qgate::kernels links it; the config finds CUDAToolkit).
set_target_properties(qgate_cuda_device PROPERTIES EXPORT_NAME cuda_device)
install(TARGETS qgate_cuda_device EXPORT qgateTargets ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})

# The replay probe as a ctest entry (77 = skipped: no CUDA device here).
if(QGATE_TESTS)
  add_test(NAME probe.replay.cuda COMMAND qgate probe replay --backend cuda --steps 64)
  set_tests_properties(probe.replay.cuda PROPERTIES LABELS "probe_cuda" SKIP_RETURN_CODE 77 RESOURCE_GROUPS cuda:1)
endif()
