# Time-tiled kernels store to global memory only the values live out of their tiles
# (sched/liveout.c): runs a kernel on the emulator with the CLI (checked against the C
# function) and fails if its launches store more than LIMIT bytes to global memory (the sum of
# global_store_bytes in JIT_EMU_STATS), or if it is not bit-identical. With FIELD, the sum of
# that counter of JIT_EMU_STATS instead (l2_model_dram_bytes: the DRAM bytes of the L2 model; a
# member of an object as its path, instructions_by_class^^mem_global); with TILE, those tile
# sizes (JIT_TILE).
#   cmake -DCLI=path -DKERNEL=file.c -DTILING=hybrid|split -DLIMIT=bytes -DSTATS=file
#         -DARGS=a^^b [-DFIELD=counter] [-DTILE=sizes] -P liveout_test.cmake
string(REPLACE "^^" ";" args "${ARGS}")
if(NOT FIELD)
  set(FIELD global_store_bytes)
endif()
string(REPLACE "^^" ";" field "${FIELD}")
file(REMOVE ${STATS})
set(ENV{JIT_TILING} ${TILING})
if(TILE)
  set(ENV{JIT_TILE} ${TILE})
endif()
set(ENV{JIT_EMU_STATS} ${STATS})
set(ENV{JIT_CACHE} off)
set(ENV{JIT_CHECK_TILES} 1)
execute_process(COMMAND ${CLI} run --device emu --check ${KERNEL} ${args} RESULT_VARIABLE code
  OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT code EQUAL 0 OR NOT "${out}${err}" MATCHES "bit-identical")
  message(FATAL_ERROR "run failed (exit code ${code}):\n${out}${err}")
endif()
file(STRINGS ${STATS} lines)
set(stored 0)
set(launches 0)
foreach(line IN LISTS lines)
  string(JSON bytes GET "${line}" ${field})
  math(EXPR stored "${stored} + ${bytes}")
  math(EXPR launches "${launches} + 1")
endforeach()
message("${TILING}: ${launches} launches, ${FIELD} ${stored} (limit ${LIMIT})")
if(launches EQUAL 0 OR stored GREATER LIMIT)
  message(FATAL_ERROR "${FIELD} over the limit")
endif()
