# cmake -P embed_spirv.cmake -DIN=<file.spv> -DOUT=<file.c> -DSYM=<symbol> -DNAME=<shader name>
# Writes a C source defining `const uint32_t SYM[]` and `const size_t SYM_words`: the SPIR-V
# of the example Vulkan plugin, which sees no qgate type. (qgate's own shaders go in by the
# assembler: kernels/vulkan/shaders.cmake.)
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
file(WRITE "${OUT}" "/* Generated from ${NAME} by cmake/embed_spirv.cmake; do not edit. */\n#include <stddef.h>\n#include <stdint.h>\nconst uint32_t ${SYM}[] = {\n${body}};\nconst size_t ${SYM}_words = ${words};\n")
