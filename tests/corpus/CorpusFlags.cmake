# CorpusFlags.cmake: how the test corpus is compiled. include() it after
# cmake/KwalkHip.cmake (needs KWALK_CLANGXX, KWALK_HIP_RSP, KWALK_HIP_ARCH_FLAGS,
# KWALK_PYBIND11_INCLUDES and the kw_devlibs target).
#
#   KWALK_CORPUS_DIR        this directory
#   KWALK_CORPUS_TUS        the translation units, relative to KWALK_CORPUS_DIR
#   KWALK_CORPUS_FLAGS      the flags every corpus compile uses (aiter's JIT
#                           flags + the compat response file + the arches)
#   KWALK_CORPUS_PYBIND_TUS the TUs that include <pybind11/pybind11.h>; they
#                           also need ${KWALK_PYBIND11_INCLUDES}
#   kw_corpus_flags(TU OUT_VAR)       full flag list for one TU (no -c/-o)
#   kw_corpus_objects(TARGET OUTDIR [DEVICE_ONLY] [EXTRA_FLAGS f...] [DEPENDS d...])
#       adds TARGET building OUTDIR/<tu>.o for every TU (with -cuid=<tu name>
#       so the objects are reproducible); EXTRA_FLAGS e.g. -fplugin=...
set(KWALK_CORPUS_DIR "${CMAKE_CURRENT_LIST_DIR}")
set(KWALK_CORPUS_TUS
    rmsnorm_quant_kernels.hip
    rope_kernels.hip
    cache_kernels.hip
    sample_kernels.hip
    pybind/rmsnorm_quant_pybind.hip)
set(KWALK_CORPUS_PYBIND_TUS cache_kernels.hip pybind/rmsnorm_quant_pybind.hip)
set(KWALK_CORPUS_FLAGS
    ${KWALK_HIP_COMPILE_FLAGS} ${KWALK_HIP_ARCH_FLAGS}
    -O3 -std=c++20 -fgpu-flush-denormals-to-zero
    -mllvm -amdgpu-early-inline-all=true -mllvm -amdgpu-function-calls=false
    "-I${KWALK_CORPUS_DIR}/include")

function(kw_corpus_flags tu out_var)
  set(flags ${KWALK_CORPUS_FLAGS})
  if(tu IN_LIST KWALK_CORPUS_PYBIND_TUS)
    list(APPEND flags ${KWALK_PYBIND11_INCLUDES})
  endif()
  set(${out_var} ${flags} PARENT_SCOPE)
endfunction()

function(kw_corpus_objects target outdir)
  cmake_parse_arguments(A "DEVICE_ONLY" "" "EXTRA_FLAGS;DEPENDS" ${ARGN})
  file(GLOB headers CONFIGURE_DEPENDS "${KWALK_CORPUS_DIR}/include/*.h")
  set(outputs)
  foreach(tu IN LISTS KWALK_CORPUS_TUS)
    kw_corpus_flags(${tu} flags)
    string(REPLACE "/" "_" stem "${tu}")
    string(REGEX REPLACE "\\.hip$" "" stem "${stem}")
    set(out "${outdir}/${stem}.o")
    set(mode)
    if(A_DEVICE_ONLY)
      set(mode --cuda-device-only)
    endif()
    add_custom_command(
      OUTPUT "${out}"
      COMMAND "${CMAKE_COMMAND}" -E make_directory "${outdir}"
      COMMAND "${KWALK_CLANGXX}" ${flags} ${mode} "-cuid=${stem}" ${A_EXTRA_FLAGS}
              -c "${KWALK_CORPUS_DIR}/${tu}" -o "${out}"
      DEPENDS "${KWALK_CORPUS_DIR}/${tu}" ${headers} "${KWALK_HIP_RSP}" kw_devlibs
              ${A_DEPENDS}
      COMMENT "kwalk corpus: ${tu}"
      VERBATIM)
    list(APPEND outputs "${out}")
  endforeach()
  add_custom_target(${target} DEPENDS ${outputs})
endfunction()
