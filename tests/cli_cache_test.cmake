# stenciljit cache list|clear|size against a directory of its own, around one compile that
# stores its image there.   cmake -DCLI=path -DKERNEL=file.c -DDIR=dir -P cli_cache_test.cmake
set(ENV{JIT_CACHE_DIR} "${DIR}")
unset(ENV{JIT_CACHE})
function(step expect_code regex) # one run of the tool, checked by cli_test.cmake
  set(EXPECT ${expect_code})
  set(REGEX "${regex}")
  string(JOIN "^^" ARGS ${ARGN})
  include(${CMAKE_CURRENT_LIST_DIR}/cli_test.cmake)
endfunction()

step(0 "removed [0-9]+ file" cache clear)
step(0 "^0 bytes \\(0 B\\) in 0 entries, bound 256.0 MiB: " cache size)
step(0 "\\.entry" ptx ${KERNEL} -D T=3 -D N=40 -D M=33 --device emu)
step(0 "cubin +jacobi2d T=3 N=40 M=33 on emu sm_[0-9]+\n1 entry, " cache list)
step(0 "^[1-9][0-9]* bytes .* in 1 entry" cache size)
set(ENV{JIT_CACHE} off)
step(0 "JIT_CACHE=off: the library does not use it.*removed 1 file" cache clear)
step(0 "\n0 entries, 0 B in " cache list)
step(1 "list, clear, size" cache frob)
