# One gtest binary and its ctest entries, one per test case (discovered from the binary):
#   qgate_gtest(<target> LABEL <label> SOURCES <src>... LIBS <lib>...
#               [DEVICES <resource groups>] [TIMEOUT <discovery s>] [DISCOVERY <gtest_discover_tests args>...])
# A case that prints "[  SKIPPED ]" is reported skipped, never passed. DEVICES (e.g. cuda:1) is
# each entry's RESOURCE_GROUPS, used when ctest runs with --resource-spec-file (README, several
# GPUs). One label per entry: CMake 3.25's gtest_discover_tests flattens a list-valued LABELS.
find_package(GTest REQUIRED)
include(GoogleTest)

function(qgate_gtest target)
  cmake_parse_arguments(T "" "LABEL;DEVICES;TIMEOUT" "SOURCES;LIBS;DISCOVERY" ${ARGN})
  if(NOT T_TIMEOUT)
    set(T_TIMEOUT 60)
  endif()
  add_executable(${target} ${T_SOURCES})
  target_link_libraries(${target} PRIVATE ${T_LIBS} GTest::gtest GTest::gtest_main)
  set(devices "")
  if(T_DEVICES)
    set(devices RESOURCE_GROUPS ${T_DEVICES})
  endif()
  gtest_discover_tests(${target} NO_PRETTY_VALUES ${T_DISCOVERY} DISCOVERY_TIMEOUT ${T_TIMEOUT}
                       PROPERTIES SKIP_REGULAR_EXPRESSION "\\[  SKIPPED \\]" LABELS ${T_LABEL} ${devices})
endfunction()
