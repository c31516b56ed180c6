# KwalkCorpus.cmake: compiling HIP sources with the kwalk plugin loaded, the
# way aiter's JIT compiles them (hipcc flags: -O3, -std=c++20, denormals
# flushed, early inlining, no function calls), for every arch in
# KWALK_HIP_ARCHS. Used by the example build (the main job) and the tests.
#
#   kw_hip_object(OUT_OBJECT SOURCE src OUTDIR dir [NAME name] [FLAGS ...]
#                 [DEPENDS headers...] [NO_PLUGIN])
#
# produces dir/name.o and, with the plugin, dir/name.o.kwalk.yaml. The -cuid is
# fixed (the object's name) so that objects are reproducible.

set(KWALK_AITER_FLAGS -O3 -std=c++20 -fgpu-flush-denormals-to-zero
    -mllvm -amdgpu-early-inline-all=true -mllvm -amdgpu-function-calls=false)

function(kw_hip_object out_var)
  cmake_parse_arguments(A "NO_PLUGIN" "SOURCE;OUTDIR;NAME" "FLAGS;DEPENDS" ${ARGN})
  get_filename_component(src "${A_SOURCE}" ABSOLUTE)
  if(NOT A_NAME)
    get_filename_component(A_NAME "${src}" NAME_WE)
  endif()
  set(obj "${A_OUTDIR}/${A_NAME}.o")
  set(outputs "${obj}")
  set(plugin_flags)
  set(deps kw_devlibs "${src}" ${A_DEPENDS})
  if(NOT A_NO_PLUGIN)
    # plain YAML (the plugin's default is FILE.kwalk.yaml.zst): the tests read
    # these sidecars with PyYAML, independently of kwalk
    set(plugin_flags "-fplugin=$<TARGET_FILE:kwalk_plugin>" -fplugin-arg-kwalk-compress=none)
    list(APPEND outputs "${obj}.kwalk.yaml")
    list(APPEND deps kwalk_plugin kwalk_clang_plugin) # the loader and the plugin it loads
  endif()
  add_custom_command(
    OUTPUT ${outputs}
    COMMAND "${CMAKE_COMMAND}" -E make_directory "${A_OUTDIR}"
    COMMAND "${KWALK_CLANGXX}" ${KWALK_HIP_COMPILE_FLAGS} ${KWALK_HIP_ARCH_FLAGS}
            ${KWALK_AITER_FLAGS} -cuid=${A_NAME} ${A_FLAGS} ${plugin_flags}
            -c "${src}" -o "${obj}"
    DEPENDS ${deps}
    COMMENT "kwalk: compiling ${A_NAME} for ${KWALK_HIP_ARCHS}"
    VERBATIM)
  set(${out_var} ${outputs} PARENT_SCOPE)
endfunction()
