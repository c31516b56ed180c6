# kwalkWalkthroughs.cmake: the command of the TARGET_walkthroughs targets that
# kwalk_document() adds (installed beside kwalkConfig.cmake). Run as
#   cmake -DKWALK=<kwalk> -DOUT=<sidecar dir> [-DSTRICT=ON] -P kwalkWalkthroughs.cmake
# It gathers the sidecars of OUT into OUT/kwalk.db and renders every
# instantiation into OUT/walkthroughs/ (replaced as a whole, so pages of
# kernels that are gone do not linger). A kwalk failure (no sidecars yet, a
# bad sidecar) is a warning, like the plugin's own problems, unless STRICT.
foreach(v KWALK OUT)
  if(NOT DEFINED ${v})
    message(FATAL_ERROR "kwalkWalkthroughs.cmake: -D${v}=... is required")
  endif()
endforeach()

function(_kwalk_step what)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err
                  OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_STRIP_TRAILING_WHITESPACE)
  if(NOT rc EQUAL 0)
    if(STRICT)
      message(FATAL_ERROR "kwalk ${what} failed (${rc}): ${err}")
    endif()
    message(WARNING "kwalk ${what} failed (${rc}), no walkthroughs for ${OUT}: ${err}")
    set(_kwalk_failed TRUE PARENT_SCOPE)
  elseif(out AND what STREQUAL "index")
    message(STATUS "${out}")
  endif()
endfunction()

set(_kwalk_failed FALSE)
_kwalk_step(index "${KWALK}" index "${OUT}" -o "${OUT}/kwalk.db")
if(NOT _kwalk_failed)
  file(REMOVE_RECURSE "${OUT}/walkthroughs")
  _kwalk_step(render "${KWALK}" render --all --db "${OUT}/kwalk.db"
              -o "${OUT}/walkthroughs")
endif()
if(NOT _kwalk_failed)
  message(STATUS "kwalk: walkthroughs in ${OUT}/walkthroughs")
endif()
