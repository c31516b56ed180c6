# tests/lib/KwTest.cmake: CMake helpers the test folders share (included by
# tests/CMakeLists.txt before any of them).

# The folder of the shared helpers: C headers (kw_test.h, kw_test_sidecar.h),
# the fuzz driver (fuzz_driver.c) and the Python modules the scripts import.
set(KWALK_TEST_LIB ${CMAKE_CURRENT_LIST_DIR})
# Hand-written sidecars the C unit tests and the CLI tests read.
set(KWALK_TEST_FIXTURES ${PROJECT_SOURCE_DIR}/tests/sidecar/fixtures)

# kw_test_c_unit(NAME LINK lib... [ARGS arg...]): the C unit test NAME.c of
# the calling folder, run with the ARGS given, built with tests/lib on its include path (ASan+UBSan when
# KWALK_SANITIZE is on; LeakSanitizer makes a leak a failure) and registered
# as the ctest test NAME, run in the folder's build directory.
function(kw_test_c_unit name)
  cmake_parse_arguments(U "" "" "LINK;ARGS" ${ARGN})
  kw_c_executable(${name} SOURCES ${name}.c LINK ${U_LINK})
  target_include_directories(${name} PRIVATE ${KWALK_TEST_LIB})
  target_compile_definitions(${name} PRIVATE KW_FIXTURES="${KWALK_TEST_FIXTURES}")
  add_test(NAME ${name} COMMAND ${name} ${U_ARGS} WORKING_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR})
endfunction()
