# The census gate in ctest (included from hip.cmake when the AMD code objects are built):
#   census.gate   qgate census over every kernel x target (AMD code objects and the sm_90
#                 ptxas reports); fails on a spill, scratch, a missing or exceeded budget.
#   census.mutant the staging-loop mutant (kernels/hip/census_mutants.cu) flagged by the ISA
#                 census, its clamped twin not; its code objects live apart
#                 (<build>/kernels/hip-census-mutants/<target>/), so the gate never sees them.
set(mutant_objects "")
foreach(kind hipcc clang)
  qgate_hip_compiler(${kind})
  if(NOT cc)
    continue()
  endif()
  foreach(target IN LISTS targets)
    set(co ${CMAKE_BINARY_DIR}/kernels/hip-census-mutants/${target}/census_mutants.co)
    add_custom_command(OUTPUT ${co}
      COMMAND ${cc} ${common} ${extra} --offload-arch=${target} -c ${PROJECT_SOURCE_DIR}/kernels/hip/census_mutants.cu -o ${co}
      COMMAND ${CMAKE_COMMAND} -DNM=${QGATE_HIP_NM} -DOBJ=${co} -P ${PROJECT_SOURCE_DIR}/kernels/hip/check_code_object.cmake
      DEPENDS ${PROJECT_SOURCE_DIR}/kernels/hip/census_mutants.cu ${PROJECT_SOURCE_DIR}/backends/cuda/vendor.cuh
      COMMENT "HIP ${target} (${kind}): census_mutants.co" VERBATIM)
    list(APPEND mutant_objects ${co})
  endforeach()
endforeach()
add_custom_target(qgate_hip_census_mutants ALL DEPENDS ${mutant_objects})

if(QGATE_TESTS)
  add_test(NAME census.gate COMMAND qgate census)
  set_tests_properties(census.gate PROPERTIES LABELS "hip;census")
  # The mutant is flagged on gfx1201 (RDNA4) and on every other target where the compiler
  # serialises it too; the twin passes everywhere. "$1" is qgate, "$2" the mutant objects.
  add_test(NAME census.mutant COMMAND sh -c [=[
    out=$("$1" census --objects "$2" --target 'gfx*' 2>&1); rc=$?
    [ "$rc" -eq 1 ] || { echo "exit $rc, want 1 (the mutant must fail the gate)"; echo "$out"; exit 1; }
    echo "$out" | grep -q "^FAIL gfx1201 stage_predicated: full_waits = [1-9][0-9]*, budget full_waits<=0" ||
      { echo "the predicated staging loop is not flagged on gfx1201"; echo "$out"; exit 1; }
    if echo "$out" | grep -q "^FAIL .* stage_clamped"; then echo "the clamped twin is flagged"; echo "$out"; exit 1; fi
    echo "$out" | grep "^FAIL" | sed 's/^FAIL \([a-z0-9]*\) .*/flagged on \1/' | sort -u]=]
    sh $<TARGET_FILE:qgate> ${CMAKE_BINARY_DIR}/kernels/hip-census-mutants)
  set_tests_properties(census.mutant PROPERTIES LABELS "hip;census")
endif()
