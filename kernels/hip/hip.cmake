# HIP: every CUDA-dialect kernel source of kernels/cuda/ compiled as
# HIP through the one vendor header (backends/cuda/vendor.cuh) into AMD code objects, one
# per source x target, in <build>/kernels/hip/<target>/<source>.co. Custom commands only:
# no HIP language, nothing links these objects (the HIP runtime, backends/hip, loads them
# as modules at run time), so the main build never waits for them except as one more ALL target.
#   hipcc (Debian's ROCm 5.2, clang 15) with ROCm 5.2's device libraries: gfx90a, gfx1030.
#   clang-19 -x hip -nogpulib with ROCm 5.2's headers: gfx1100, gfx1151, gfx1201, gfx942
#     (no device libraries for them in Debian; QGATE_HIP_NO_DEVICE_LIBS makes vendor.cuh
#     lower the indices, the barrier and the math to amdgcn builtins).
# Every code object is checked fully resolved (check_code_object.cmake: llvm-nm -u empty).
# docs/HIP.md has the table of targets reached.
option(QGATE_HIP "Build AMD code objects of the CUDA-dialect kernels (needs Debian's hipcc and/or clang-19)" ON)
option(QGATE_HIP_REQUIRED "Fail the configure when the AMD code objects cannot be built (the hip preset)" OFF)
set(QGATE_HIP_HIPCC_TARGETS gfx90a gfx1030 CACHE STRING "AMD targets compiled with hipcc (ROCm device libraries)")
set(QGATE_HIP_CLANG_TARGETS gfx1100 gfx1151 gfx1201 gfx942 CACHE STRING
    "AMD targets compiled with clang -x hip -nogpulib (vendor.cuh's builtin lowering)")
set(QGATE_HAVE_HIP_CODE_OBJECTS OFF)
if(QGATE_HIP)
  find_program(QGATE_HIPCC hipcc)
  find_program(QGATE_HIP_CLANG NAMES clang-19 PATHS /usr/lib/llvm-19/bin)
  find_program(QGATE_HIP_NM NAMES llvm-nm-19 llvm-nm-15 llvm-nm PATHS /usr/lib/llvm-19/bin /usr/lib/llvm-15/bin)
  find_path(QGATE_HIP_INCLUDE hip/hip_runtime.h PATHS /usr/include /opt/rocm/include)
  set(why "")
  if(NOT QGATE_HIP_NM)
    set(why "no llvm-nm (llvm-19 or llvm-15) to check the code objects")
  elseif(NOT QGATE_HIP_INCLUDE)
    set(why "no HIP headers (hip/hip_runtime.h; Debian: libamdhip64-dev, pulled in by hipcc)")
  elseif(NOT QGATE_HIPCC AND NOT QGATE_HIP_CLANG)
    set(why "neither hipcc nor clang-19 found (ci/setup-debian.sh installs both)")
  endif()
  if(why AND QGATE_HIP_REQUIRED)
    message(FATAL_ERROR "qgate: AMD code objects required (QGATE_HIP_REQUIRED) but not buildable: ${why}")
  elseif(why)
    message(STATUS "qgate: AMD code objects not built: ${why}")
  else()
    set(QGATE_HAVE_HIP_CODE_OBJECTS ON)
  endif()
endif()

# The compiler of one kind (hipcc or clang) into cc, its targets into targets and its extra
# flags into extra, in the caller's scope (empty cc: that compiler is absent).
macro(qgate_hip_compiler kind)
  if("${kind}" STREQUAL "hipcc")
    set(cc ${QGATE_HIPCC})
    set(targets ${QGATE_HIP_HIPCC_TARGETS})
    set(extra "")
  else()
    set(cc ${QGATE_HIP_CLANG})
    set(targets ${QGATE_HIP_CLANG_TARGETS})
    set(extra -nogpulib -DQGATE_HIP_NO_DEVICE_LIBS)
    if(NOT QGATE_HIP_INCLUDE STREQUAL "/usr/include")  # already searched; naming it breaks <cmath>
      list(APPEND extra -isystem ${QGATE_HIP_INCLUDE})
    endif()
  endif()
endmacro()

if(QGATE_HAVE_HIP_CODE_OBJECTS)
  file(GLOB qgate_hip_sources CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/kernels/cuda/*.cu)
  # The same meaning as the CUDA build: C++20, -O3, IEEE (no fast math; denormals kept,
  # which is clang's HIP default). QGATE_MUTANTS only declares the mutant entry points
  # mutants.cu defines; no production source changes with it.
  set(common -x hip -std=c++20 -O3 -DQGATE_HIP -DQGATE_MUTANTS -I${PROJECT_SOURCE_DIR}
      --offload-device-only --no-gpu-bundle-output -Wno-pass-failed)
  set(qgate_hip_objects "")
  set(reached "")
  foreach(kind hipcc clang)
    qgate_hip_compiler(${kind})
    if(NOT cc)
      if(targets)
        message(STATUS "qgate: AMD targets ${targets} not built: no ${kind} found")
      endif()
      continue()
    endif()
    foreach(target IN LISTS targets)
      list(APPEND reached "${target}(${kind})")
      foreach(src IN LISTS qgate_hip_sources)
        get_filename_component(name ${src} NAME_WE)
        set(co ${CMAKE_CURRENT_BINARY_DIR}/kernels/hip/${target}/${name}.co)
        add_custom_command(OUTPUT ${co}
          COMMAND ${cc} ${common} ${extra} --offload-arch=${target} -c ${src} -o ${co} -MD -MF ${co}.d
          COMMAND ${CMAKE_COMMAND} -DNM=${QGATE_HIP_NM} -DOBJ=${co}
                  -P ${PROJECT_SOURCE_DIR}/kernels/hip/check_code_object.cmake
          DEPENDS ${src} ${PROJECT_SOURCE_DIR}/kernels/hip/check_code_object.cmake
          DEPFILE ${co}.d  # the headers the compiler read: a header no kernel includes rebuilds none
          COMMENT "HIP ${target} (${kind}): ${name}.co" VERBATIM)
        list(APPEND qgate_hip_objects ${co})
      endforeach()
    endforeach()
  endforeach()
  add_custom_target(qgate_hip_code_objects ALL DEPENDS ${qgate_hip_objects})
  message(STATUS "qgate: AMD code objects for ${reached}")
  # The census gate over them (qgate census) and the census mutant, in ctest.
  include(${PROJECT_SOURCE_DIR}/kernels/hip/census.cmake)
endif()

