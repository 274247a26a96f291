# Vulkan kernels: GLSL compiled to SPIR-V by glslc at build time and embedded in the
# binary. The format list is read from kernels.inc (registered once). Included from
# kernels/CMakeLists.txt (not a subdirectory: the generated sources must belong to the
# directory whose targets compile them).
set(vk_src ${CMAKE_CURRENT_SOURCE_DIR}/vulkan)
file(STRINGS ${vk_src}/kernels.inc vk_lines REGEX "^QGATE_VK_[A-Z_]*FORMAT\\(")
set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${vk_src}/kernels.inc)  # a new line reconfigures
# Block geometry from the format's formats.inc row, stated nowhere else: -DQK -DSUB -DBLOCK_BYTES.
set(vk_formats_inc ${PROJECT_SOURCE_DIR}/oracles/formats/formats.inc)
file(STRINGS ${vk_formats_inc} vk_format_rows REGEX "^QGATE_FORMAT\\(")
set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${vk_formats_inc})
foreach(row ${vk_format_rows})
  if(row MATCHES "^QGATE_FORMAT\\(([A-Za-z0-9_]+), *-?[0-9]+, *[a-z0-9_]+, *([0-9]+), *([0-9]+), *([0-9]+)\\)")
    if(NOT CMAKE_MATCH_2 EQUAL 0)
      set(vk_geometry_${CMAKE_MATCH_1} "-DQK=${CMAKE_MATCH_2}u;-DSUB=${CMAKE_MATCH_3}u;-DBLOCK_BYTES=${CMAKE_MATCH_4}u")
    endif()
  else()
    message(FATAL_ERROR "formats.inc: cannot read the geometry of: ${row}")
  endif()
endforeach()
set(vk_shader_sources "")
set(vk_dir ${CMAKE_CURRENT_BINARY_DIR}/vulkan/spv)
file(MAKE_DIRECTORY ${vk_dir})
set(vk_deps ${vk_src}/common.glsl ${vk_src}/formats.glsl ${vk_src}/q8_term.glsl ${vk_formats_inc}
            ${PROJECT_SOURCE_DIR}/cmake/embed_spirv.cmake)
function(qgate_vk_shader comp fmt variant defines bindings push)
  set(name ${variant}_${fmt})
  set(spv ${vk_dir}/${name}.spv)
  set(cpp ${vk_dir}/${name}.cpp)
  add_custom_command(OUTPUT ${spv}
    COMMAND ${QGATE_GLSLC} --target-env=vulkan1.2 -O -DFMT_${fmt} ${vk_geometry_${fmt}} ${defines} -o ${spv} ${vk_src}/${comp}
    DEPENDS ${vk_src}/${comp} ${vk_deps} VERBATIM)
  add_custom_command(OUTPUT ${cpp}
    COMMAND ${CMAKE_COMMAND} -DIN=${spv} -DOUT=${cpp} -DSYM=qgate_vk_${name} -DNAME=${name}
            -DBINDINGS=${bindings} -DPUSH=${push} -P ${PROJECT_SOURCE_DIR}/cmake/embed_spirv.cmake
    DEPENDS ${spv} ${PROJECT_SOURCE_DIR}/cmake/embed_spirv.cmake VERBATIM)
  set(vk_shader_sources ${vk_shader_sources} ${cpp} PARENT_SCOPE)
endfunction()
# Each shader twice: as is, and asking for f32 denormals to be preserved (_dp), which only
# devices with shaderDenormPreserveFloat32 may run; the runtime picks.
function(qgate_vk_shader_pair comp fmt variant defines bindings push)
  qgate_vk_shader(${comp} ${fmt} ${variant} "${defines}" ${bindings} ${push})
  qgate_vk_shader(${comp} ${fmt} ${variant}_dp "${defines};-DQGATE_DENORM_PRESERVE" ${bindings} ${push})
  set(vk_shader_sources ${vk_shader_sources} PARENT_SCOPE)
endfunction()
# The activation quantizers of the int8 path.
qgate_vk_shader_pair(quant_act.comp q8_1 quant "-DACT_Q8_1" 4 4)
qgate_vk_shader_pair(quant_act.comp q8_K quant "-DACT_Q8_K" 4 4)
# Per format line (kernels.inc): dequant to f32 and f16; mat-vec on f32 activations unless
# a dequant-only line; the int8 mat-vec and GEMM (portable and packed-dot) on a QFORMAT or
# TABLE_FORMAT line; a codebook (TABLE) format binds one more storage buffer, its table.
foreach(line ${vk_lines})
  string(REGEX REPLACE "^QGATE_VK_[A-Z_]*FORMAT\\(([A-Za-z0-9_]+).*" "\\1" fmt "${line}")
  set(table 0)
  if(line MATCHES "^QGATE_VK_TABLE_FORMAT\\(")
    set(table 1)
  endif()
  math(EXPR nd "2 + ${table}")
  math(EXPR nm "3 + ${table}")
  math(EXPR nq "5 + ${table}")
  qgate_vk_shader_pair(dequant.comp ${fmt} dequant_f32 "" ${nd} 8)
  qgate_vk_shader_pair(dequant.comp ${fmt} dequant_f16 "-DOUT_F16" ${nd} 8)
  if(NOT line MATCHES "^QGATE_VK_DEQUANT_FORMAT\\(")
    qgate_vk_shader_pair(matvec.comp ${fmt} matvec_f32 "" ${nm} 16)
  endif()
  if(line MATCHES "^QGATE_VK_(Q|TABLE_)FORMAT\\([A-Za-z0-9_]+, *(q8_1|q8_K)")
    string(TOUPPER ${CMAKE_MATCH_2} act)
    qgate_vk_shader_pair(matvec_q8.comp ${fmt} matvec_q8 "-DACT_${act}" ${nq} 20)
    qgate_vk_shader_pair(matvec_q8.comp ${fmt} matvec_q8dot "-DACT_${act};-DQGATE_INT_DOT" ${nq} 20)
    qgate_vk_shader_pair(matvec_q8.comp ${fmt} matvec_q8m1 "-DACT_${act};-DMAXM=1u" ${nq} 20)
    qgate_vk_shader_pair(matvec_q8.comp ${fmt} matvec_q8dotm1 "-DACT_${act};-DQGATE_INT_DOT;-DMAXM=1u" ${nq} 20)
    qgate_vk_shader_pair(gemm_q8.comp ${fmt} gemm_q8 "-DACT_${act}" ${nq} 16)
    qgate_vk_shader_pair(gemm_q8.comp ${fmt} gemm_q8dot "-DACT_${act};-DQGATE_INT_DOT" ${nq} 16)
  endif()
endforeach()
# GPTQ / AutoRound int4, a tensor-level format (no kernels.inc line): gptq.comp.
qgate_vk_shader_pair(gptq.comp gptq_int4 dequant_f32 "-DDEQUANT" 2 44)
qgate_vk_shader_pair(gptq.comp gptq_int4 dequant_f16 "-DDEQUANT;-DOUT_F16" 2 44)
qgate_vk_shader_pair(gptq.comp gptq_int4 gptq_matvec_f32 "" 3 44)
qgate_vk_shader_pair(gptq.comp gptq_int4 gptq_matvec_q8 "-DQ8;-DACT_Q8_1" 5 44)
qgate_vk_shader_pair(gptq.comp gptq_int4 gptq_matvec_q8dot "-DQ8;-DACT_Q8_1;-DQGATE_INT_DOT" 5 44)
# The benchmarks' bandwidth ceiling (kernels/vulkan/bench_vk.cpp).
qgate_vk_shader(stream_read.comp all stream_read "" 2 4)
# Mutant shaders: planted defects, linked only into the mutant build of the kernels.
qgate_vk_shader(matvec.comp q4_0 mutant_crossed_lanes_matvec_f32 "-DMUTANT_crossed_lanes" 3 16)
qgate_vk_shader(matvec.comp q6_K mutant_rows_past_m_matvec_f32 "-DMUTANT_rows_past_m" 3 16)
qgate_vk_shader(gemm_q8.comp q4_K mutant_missing_barrier_gemm_q8dot "-DACT_Q8_K;-DQGATE_INT_DOT;-DMUTANT_missing_barrier" 5 16)
qgate_vk_shader(gptq.comp gptq_int4 mutant_stored_zero_gptq_matvec_f32 "-DMUTANT_stored_zero" 3 44)
qgate_vk_shader(matvec_q8.comp q4_K mutant_single_sweep_matvec_q8 "-DACT_Q8_K;-DMUTANT_single_sweep" 5 20)
set(QGATE_VK_SHADER_SOURCES ${vk_shader_sources})
