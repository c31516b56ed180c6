# KwalkHip.cmake: how HIP sources (tests/corpus, examples) are compiled in this
# build. Included from the top-level CMakeLists.txt after find_package(LLVM);
# expects KWALK_LLVM_BINDIR.
#
# Exports:
#   KWALK_CLANGXX         the clang++ of the LLVM we build against
#   KWALK_HIP_ARCHS       the arches tests and examples target (cache variable):
#                         "gfx942;gfx950" by default, "gfx942" for clang 19,
#                         which has no gfx950. The tests read the list from
#                         here (KWALK_TEST_ARCHS in their environment).
#   KWALK_HIP_ARCHS_CSV   the same, comma-separated (for test environments)
#   KWALK_HIP_ARCH_FLAGS  --offload-arch=... for each of KWALK_HIP_ARCHS
#   KWALK_HIP_RSP         ${CMAKE_BINARY_DIR}/hip-compat/hip-compat.rsp, a clang
#                         response file with the extra flags a HIP compile needs
#                         on this machine. THE one place those flags live: use
#                         `${KWALK_CLANGXX} -x hip @${KWALK_HIP_RSP} ${KWALK_HIP_ARCH_FLAGS} ...`
#                         and make the compile depend on the kw_devlibs target.
#   KWALK_HIP_COMPILE_FLAGS  convenience list: -x hip @${KWALK_HIP_RSP}
#   KWALK_HIP_COMPAT_DIR  the compat device-lib directory (when KWALK_HIP_COMPAT)
#   KWALK_PYBIND11_INCLUDES  -I flags for a pybind11 TU (Python.h + pybind11),
#                         empty if not found
# Target:
#   kw_devlibs (ALL)      builds the compat directory and the .rsp
#
# KWALK_HIP_COMPAT (default ON when Debian's ROCm 5.2 device libs are present)
# builds the compat device-lib directory with scripts/make-devlibs.sh; see
# docs/hip-compat.md. With it OFF (a real ROCm install with ROCm's clang) the
# .rsp is empty: ROCm needs no extra flags.

get_filename_component(_kw_devlibs_script
  "${CMAKE_CURRENT_LIST_DIR}/../scripts/make-devlibs.sh" ABSOLUTE)

set(KWALK_CLANGXX "${KWALK_LLVM_BINDIR}/clang++")
if(LLVM_VERSION_MAJOR LESS 20)
  set(_kw_archs_default "gfx942")
else()
  set(_kw_archs_default "gfx942;gfx950")
endif()
set(KWALK_HIP_ARCHS "${_kw_archs_default}" CACHE STRING
    "Arches the corpus, examples and tests compile for (;-separated)")
if(LLVM_VERSION_MAJOR LESS 20 AND "gfx950" IN_LIST KWALK_HIP_ARCHS)
  message(FATAL_ERROR "kwalk: clang ${LLVM_VERSION_MAJOR} has no gfx950 (KWALK_HIP_ARCHS is "
                      "'${KWALK_HIP_ARCHS}'): configure with -DKWALK_HIP_ARCHS=gfx942")
endif()
string(REPLACE ";" "," KWALK_HIP_ARCHS_CSV "${KWALK_HIP_ARCHS}")
set(KWALK_HIP_ARCH_FLAGS)
foreach(_kw_arch IN LISTS KWALK_HIP_ARCHS)
  list(APPEND KWALK_HIP_ARCH_FLAGS "--offload-arch=${_kw_arch}")
endforeach()

set(KWALK_DEBIAN_BITCODE_DIR "/usr/lib/x86_64-linux-gnu/amdgcn/bitcode"
    CACHE PATH "ROCm 5.2 device-lib bitcode directory the compat dir is made from")
if(EXISTS "${KWALK_DEBIAN_BITCODE_DIR}/ockl.bc")
  set(_kw_compat_default ON)
else()
  set(_kw_compat_default OFF)
endif()
option(KWALK_HIP_COMPAT
       "Build the compat device-lib dir for clang >= 18 + Debian's HIP 5.2"
       ${_kw_compat_default})

set(KWALK_HIP_COMPAT_DIR "${CMAKE_BINARY_DIR}/hip-compat")
set(KWALK_HIP_RSP "${KWALK_HIP_COMPAT_DIR}/hip-compat.rsp")
set(KWALK_HIP_COMPILE_FLAGS -x hip "@${KWALK_HIP_RSP}")

if(KWALK_HIP_COMPAT)
  file(GLOB _kw_bitcode CONFIGURE_DEPENDS "${KWALK_DEBIAN_BITCODE_DIR}/*.bc")
  # The script writes the whole directory (rsp included) into a temporary
  # sibling and moves it into place, so the outputs appear together.
  add_custom_command(
    OUTPUT "${KWALK_HIP_RSP}"
    BYPRODUCTS "${KWALK_HIP_COMPAT_DIR}/ockl.bc"
               "${KWALK_HIP_COMPAT_DIR}/hip_compat.h"
    COMMAND "${_kw_devlibs_script}"
            "${KWALK_HIP_COMPAT_DIR}" "${KWALK_LLVM_BINDIR}"
            "${KWALK_DEBIAN_BITCODE_DIR}"
    # The script is a no-op when its stamp matches; touch so make sees fresh
    # outputs after the script itself changed.
    COMMAND "${CMAKE_COMMAND}" -E touch_nocreate "${KWALK_HIP_RSP}"
    DEPENDS "${_kw_devlibs_script}" ${_kw_bitcode}
    COMMENT "kwalk: compat device-lib dir for HIP 5.2 + clang ${LLVM_VERSION_MAJOR}"
    VERBATIM)
  add_custom_target(kw_devlibs ALL DEPENDS "${KWALK_HIP_RSP}")
  message(STATUS "kwalk: HIP compat dir ${KWALK_HIP_COMPAT_DIR} (flags in ${KWALK_HIP_RSP})")
else()
  # ROCm: no extra flags. An empty response file keeps the command lines the
  # same in both setups.
  file(MAKE_DIRECTORY "${KWALK_HIP_COMPAT_DIR}")
  file(WRITE "${KWALK_HIP_RSP}" "")
  add_custom_target(kw_devlibs ALL)
  message(STATUS "kwalk: HIP compat dir disabled; ${KWALK_HIP_RSP} is empty")
endif()

# pybind11 TUs of the corpus (compile-only; no linking against libpython).
set(KWALK_PYBIND11_INCLUDES)
find_path(KWALK_PYBIND11_INCLUDE_DIR pybind11/pybind11.h)
find_path(KWALK_PYTHON_INCLUDE_DIR Python.h
          PATHS /usr/include/python3.13 /usr/include/python3.12
                /usr/include/python3.11 /usr/include/python3.10
          NO_DEFAULT_PATH)
if(KWALK_PYBIND11_INCLUDE_DIR AND KWALK_PYTHON_INCLUDE_DIR)
  set(KWALK_PYBIND11_INCLUDES "-I${KWALK_PYTHON_INCLUDE_DIR}")
  # never -I/usr/include: it would break libstdc++'s #include_next
  if(NOT KWALK_PYBIND11_INCLUDE_DIR STREQUAL "/usr/include")
    list(APPEND KWALK_PYBIND11_INCLUDES "-I${KWALK_PYBIND11_INCLUDE_DIR}")
  endif()
endif()
