# Vulkan kernels: GLSL compiled to SPIR-V by glslc at build time and embedded in the
# binary. The format list is read from kernels.inc (registered once). Included from
# kernels/CMakeLists.txt (not a subdirectory: the generated sources must belong to the
# directory whose targets compile them).
set(vk_src ${CMAKE_CURRENT_SOURCE_DIR}/vulkan)
file(STRINGS ${vk_src}/kernels.inc vk_lines REGEX "^QGATE_VK_(DEQUANT_|TABLE_)?FORMAT\\(")
set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${vk_src}/kernels.inc)  # a new line reconfigures
set(vk_shader_sources "")
set(vk_dir ${CMAKE_CURRENT_BINARY_DIR}/vulkan/spv)
file(MAKE_DIRECTORY ${vk_dir})
set(vk_deps ${vk_src}/common.glsl ${vk_src}/formats.glsl
            ${PROJECT_SOURCE_DIR}/cmake/embed_spirv.cmake)
function(qgate_vk_shader comp fmt variant defines bindings push)
  set(name ${variant}_${fmt})
  set(spv ${vk_dir}/${name}.spv)
  set(cpp ${vk_dir}/${name}.cpp)
  add_custom_command(OUTPUT ${spv}
    COMMAND ${QGATE_GLSLC} --target-env=vulkan1.2 -O -DFMT_${fmt} ${defines} -o ${spv} ${vk_src}/${comp}
    DEPENDS ${vk_src}/${comp} ${vk_deps} VERBATIM)
  add_custom_command(OUTPUT ${cpp}
    COMMAND ${CMAKE_COMMAND} -DIN=${spv} -DOUT=${cpp} -DSYM=qgate_vk_${name} -DNAME=${name}
            -DBINDINGS=${bindings} -DPUSH=${push} -P ${PROJECT_SOURCE_DIR}/cmake/embed_spirv.cmake
    DEPENDS ${spv} ${PROJECT_SOURCE_DIR}/cmake/embed_spirv.cmake VERBATIM)
  set(vk_shader_sources ${vk_shader_sources} ${cpp} PARENT_SCOPE)
endfunction()
# Each shader twice: as is, and asking for f32 denormals to be preserved (_dp), which only
# devices with shaderDenormPreserveFloat32 may run; the runtime picks.
# QGATE_VK_DEQUANT_FORMAT lines (activation formats) get the dequant shaders only;
# QGATE_VK_TABLE_FORMAT lines (codebook formats) one more storage buffer, the table.
foreach(line ${vk_lines})
  string(REGEX REPLACE "^QGATE_VK_(DEQUANT_|TABLE_)?FORMAT\\(([A-Za-z0-9_]+).*" "\\2" fmt "${line}")
  set(table 0)
  if(line MATCHES "^QGATE_VK_TABLE_FORMAT\\(")
    set(table 1)
  endif()
  math(EXPR nd "2 + ${table}")
  math(EXPR nm "3 + ${table}")
  qgate_vk_shader(dequant.comp ${fmt} dequant_f32 "" ${nd} 8)
  qgate_vk_shader(dequant.comp ${fmt} dequant_f16 "-DOUT_F16" ${nd} 8)
  qgate_vk_shader(dequant.comp ${fmt} dequant_f32_dp "-DQGATE_DENORM_PRESERVE" ${nd} 8)
  qgate_vk_shader(dequant.comp ${fmt} dequant_f16_dp "-DOUT_F16;-DQGATE_DENORM_PRESERVE" ${nd} 8)
  if(NOT line MATCHES "^QGATE_VK_DEQUANT_FORMAT\\(")
    qgate_vk_shader(matvec.comp ${fmt} matvec_f32 "" ${nm} 16)
    qgate_vk_shader(matvec.comp ${fmt} matvec_f32_dp "-DQGATE_DENORM_PRESERVE" ${nm} 16)
  endif()
endforeach()
# Mutant shaders: planted defects, linked only into the mutant build of the kernels.
qgate_vk_shader(matvec.comp q4_0 mutant_crossed_lanes_matvec_f32 "-DMUTANT_crossed_lanes" 3 16)
qgate_vk_shader(matvec.comp q6_K mutant_rows_past_m_matvec_f32 "-DMUTANT_rows_past_m" 3 16)
set(QGATE_VK_SHADER_SOURCES ${vk_shader_sources})
