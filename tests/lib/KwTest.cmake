# tests/lib/KwTest.cmake: CMake helpers the test folders share (included by
# tests/CMakeLists.txt before any of them).

# The folder of the shared helpers: C headers (kw_test.h, kw_test_sidecar.h),
# the fuzz driver (fuzz_driver.c) and the Python modules the scripts import.
set(KWALK_TEST_LIB ${CMAKE_CURRENT_LIST_DIR})
# Hand-written sidecars the C unit tests and the CLI tests read.
set(KWALK_TEST_FIXTURES ${PROJECT_SOURCE_DIR}/tests/sidecar/fixtures)

# kw_test_c_unit(EXE TEST folder.name LINK lib... [ARGS arg...]): the C unit
# test EXE.c of the calling folder, built with tests/lib on its include path
# (ASan+UBSan when KWALK_SANITIZE is on; LeakSanitizer makes a leak a failure)
# and registered as the ctest test folder.name, run with the ARGS given in the
# folder's build directory.
function(kw_test_c_unit name)
  cmake_parse_arguments(U "" "TEST" "LINK;ARGS" ${ARGN})
  if(NOT U_TEST)
    message(FATAL_ERROR "kw_test_c_unit(${name}): give its ctest name: TEST folder.name")
  endif()
  kw_c_executable(${name} SOURCES ${name}.c LINK ${U_LINK})
  target_include_directories(${name} PRIVATE ${KWALK_TEST_LIB})
  target_compile_definitions(${name} PRIVATE KW_FIXTURES="${KWALK_TEST_FIXTURES}")
  add_test(NAME ${U_TEST} COMMAND ${name} ${U_ARGS} WORKING_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR})
endfunction()

# kw_test_defaults(): called at the end of each test folder's CMakeLists.txt.
# Every test of the folder must be named folder.name (a group is then one
# `ctest -R '^folder\.'`), and exit 77 means skipped (SKIP_RETURN_CODE 77, where
# the test does not set another): what kwcheck.Checker.skip(reason) exits with.
# Every test's kwalk keeps its decode cache in the build tree (KWALK_CACHE).
function(kw_test_defaults)
  get_property(tests DIRECTORY PROPERTY TESTS)
  foreach(t IN LISTS tests)
    if(NOT t MATCHES "^[a-z][a-z0-9_]*\\.[A-Za-z0-9_.]+$")
      message(FATAL_ERROR "${CMAKE_CURRENT_SOURCE_DIR}: the test ${t} is not named folder.name")
    endif()
    get_test_property(${t} SKIP_RETURN_CODE code)
    if(NOT code)
      set_tests_properties(${t} PROPERTIES SKIP_RETURN_CODE 77)
    endif()
    # the decode cache (docs/index-schema.md): the build's own file, never $HOME's
    set_property(TEST ${t} APPEND PROPERTY ENVIRONMENT
                 "KWALK_CACHE=${CMAKE_BINARY_DIR}/tests/kwalk-decoded.db")
  endforeach()
endfunction()

# kw_major_independent(test...): labels the tests major_independent, those whose
# result cannot depend on the clang major the build was configured with: they run
# no clang, LLVM tool, plugin or IR pass of the build, no kwalk command that opens
# the build's libLLVM (the disassembler, LLVM's demangler), and read nothing the
# build's clang made (the corpus, compiled objects). scripts/test.sh runs them in
# clang 22's ctest only (`ctest -LE major_independent` for the other majors);
# docs/test-time.md says how the list was checked (no process of each test opens a
# file of /usr/lib/llvm-M).
function(kw_major_independent)
  set_property(TEST ${ARGN} APPEND PROPERTY LABELS major_independent)
endfunction()

# kw_major_once(test...): labels the tests major_once, those that read the build's
# corpus or fixture build (so they are not major_independent) but only to compare
# kwalk with itself: two printers of the same page (site.tables,
# aiter.site_tables: the HTML site against libcmark-gfm's HTML of the Markdown
# pages), two reads of the same index (index.only: only the rows a page needs
# against the whole read), kwalk's trace reader on damaged traces (trace.mutations:
# one error line or a report, never a crash; the index is only the join), the capture
# checkers on an intact and a planted copy of the corpus's sidecars (capture.selftest:
# it tests the tests' Python, the same on every major). Whichever major compiled the input, both sides of the
# comparison are the same kwalk's (its disassembler's text, where a page has
# one, is on both sides), so the check does not depend on the major;
# scripts/test.sh runs them in clang 22's ctest only, as major_independent
# (`ctest -LE 'major_independent|major_once'` for the other majors), and in
# every major's when 22 is not among them.
function(kw_major_once)
  set_property(TEST ${ARGN} APPEND PROPERTY LABELS major_once)
endfunction()
