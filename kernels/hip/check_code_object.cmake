# A code object must be fully resolved: an undefined symbol (an __ockl_*/__ocml_* call left
# by a missing device library) would load nowhere. cmake -DNM=llvm-nm -DOBJ=x.co -P this.
execute_process(COMMAND ${NM} -u ${OBJ} RESULT_VARIABLE rc OUTPUT_VARIABLE undefined ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${OBJ}: ${NM} failed: ${err}")
endif()
if(NOT undefined STREQUAL "")
  file(REMOVE ${OBJ})
  message(FATAL_ERROR "${OBJ}: unresolved symbols:\n${undefined}")
endif()
