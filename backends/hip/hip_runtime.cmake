# The HIP runtime (included from backends/CMakeLists.txt; docs/HIP.md). Compiled against the
# HIP headers (Debian: libamdhip64-dev, ROCm 5.2, pulled in by hipcc); libamdhip64.so.5 is
# opened at run time (hip_runtime.hpp says why it is not linked). The tests (label hip) skip
# with the reason where there is no runtime or no AMD device.
find_path(QGATE_HIP_RUNTIME_INCLUDE hip/hip_runtime_api.h PATHS /usr/include /opt/rocm/include)
set(QGATE_HAVE_HIP_RUNTIME OFF)
if((NOT DEFINED QGATE_HIP OR QGATE_HIP) AND QGATE_HIP_RUNTIME_INCLUDE)  # QGATE_HIP: kernels/hip/hip.cmake
  set(QGATE_HAVE_HIP_RUNTIME ON)
  set(QGATE_HIP_WHY "")
elseif(DEFINED QGATE_HIP AND NOT QGATE_HIP)
  set(QGATE_HIP_WHY "disabled with -DQGATE_HIP=OFF")
else()
  set(QGATE_HIP_WHY "configure found no HIP headers (hip/hip_runtime_api.h; Debian: libamdhip64-dev)")
endif()

function(qgate_hip_runtime_setup lib)
  target_sources(${lib} PRIVATE ${PROJECT_SOURCE_DIR}/backends/hip/hip_runtime.cpp)
  if(NOT QGATE_HIP_RUNTIME_INCLUDE STREQUAL "/usr/include")
    target_include_directories(${lib} SYSTEM PRIVATE ${QGATE_HIP_RUNTIME_INCLUDE})
  endif()
  target_compile_definitions(${lib} PRIVATE QGATE_HAVE_HIP_RUNTIME=1
    QGATE_HIP_CODE_OBJECT_DIR="${CMAKE_BINARY_DIR}/kernels/hip")
  target_link_libraries(${lib} PUBLIC ${CMAKE_DL_LIBS})
endfunction()

if(QGATE_HAVE_HIP_RUNTIME AND QGATE_TESTS)
  qgate_gtest(qgate_hip_tests LABEL hip DEVICES hip:1 SOURCES ${PROJECT_SOURCE_DIR}/backends/hip/hip_runtime_test.cpp
              LIBS qgate_backends)
  target_compile_definitions(qgate_hip_tests PRIVATE
    QGATE_HIP_CENSUS_MUTANTS_DIR="${CMAKE_BINARY_DIR}/kernels/hip-census-mutants")
endif()
