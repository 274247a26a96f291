# cmake -P embed_spirv.cmake -DIN=<file.spv> -DOUT=<file.cpp> -DSYM=<symbol> -DNAME=<shader name>
#   -DBINDINGS=<n> -DPUSH=<bytes>
# Writes a C++ source defining `const qgate::vk::Shader SYM` with the SPIR-V words.
# With -DPLAIN=1 (plugins, which see no qgate type): a C source defining
# `const uint32_t SYM[]` and `const size_t SYM_words`.
file(READ "${IN}" hex HEX)
string(LENGTH "${hex}" n)
math(EXPR words "${n} / 8")
set(body "")
set(i 0)
while(i LESS n)
  string(SUBSTRING "${hex}" ${i} 8 w)
  # bytes are in file (little-endian) order: b0 b1 b2 b3 -> 0xb3b2b1b0
  string(SUBSTRING "${w}" 0 2 b0)
  string(SUBSTRING "${w}" 2 2 b1)
  string(SUBSTRING "${w}" 4 2 b2)
  string(SUBSTRING "${w}" 6 2 b3)
  string(APPEND body "0x${b3}${b2}${b1}${b0}u,")
  math(EXPR i "${i} + 8")
  math(EXPR col "(${i} / 8) % 8")
  if(col EQUAL 0)
    string(APPEND body "\n")
  endif()
endwhile()
if(PLAIN)
  file(WRITE "${OUT}" "/* Generated from ${NAME} by cmake/embed_spirv.cmake; do not edit. */\n#include <stddef.h>\n#include <stdint.h>\nconst uint32_t ${SYM}[] = {\n${body}};\nconst size_t ${SYM}_words = ${words};\n")
  return()
endif()
file(WRITE "${OUT}" "// Generated from ${NAME} by cmake/embed_spirv.cmake; do not edit.\n#include \"backends/vulkan/vk_runtime.hpp\"\nnamespace {\nconst uint32_t kWords[] = {\n${body}};\n}\nextern const qgate::vk::Shader ${SYM} = {\"${NAME}\", kWords, ${words}, ${BINDINGS}, ${PUSH}};\n")
