# KwalkC.cmake: how C modules are built. Each C library exists twice when
# KWALK_SANITIZE is on: NAME, plain, for the plugin (a sanitized library cannot
# be loaded into clang), and NAME_tool, with ASan+UBSan, for the kwalk command
# and the tests. Without KWALK_SANITIZE, NAME_tool is NAME.
#
# Include paths name the layer: a library's public headers are included as
# "FOLDER/kw_x.h" (the project root is its PUBLIC include directory); its own
# folder is a PRIVATE include directory, for its internal headers and generated
# sources. tests/arch/check_layers.py checks which folder may include which.

function(kw_c_library name)
  cmake_parse_arguments(A "" "" "SOURCES;LINK" ${ARGN})
  add_library(${name} STATIC ${A_SOURCES})
  target_include_directories(${name} PUBLIC ${PROJECT_SOURCE_DIR} PRIVATE ${CMAKE_CURRENT_SOURCE_DIR})
  target_compile_options(${name} PRIVATE ${KWALK_C_WARNINGS})
  target_link_libraries(${name} PUBLIC ${A_LINK})
  if(KWALK_SANITIZE)
    set(tool_links)
    foreach(l IN LISTS A_LINK)
      if(l MATCHES "^kw_")
        list(APPEND tool_links ${l}_tool)
      else()
        list(APPEND tool_links ${l})
      endif()
    endforeach()
    add_library(${name}_tool STATIC ${A_SOURCES})
    target_include_directories(${name}_tool PUBLIC ${PROJECT_SOURCE_DIR}
                               PRIVATE ${CMAKE_CURRENT_SOURCE_DIR})
    target_compile_options(${name}_tool PRIVATE ${KWALK_C_WARNINGS} ${KWALK_SAN_FLAGS})
    target_link_options(${name}_tool PUBLIC ${KWALK_SAN_FLAGS})
    target_link_libraries(${name}_tool PUBLIC ${tool_links})
  else()
    add_library(${name}_tool ALIAS ${name})
  endif()
endfunction()

# A C executable of the tool side (the kwalk command, unit tests).
function(kw_c_executable name)
  cmake_parse_arguments(A "" "" "SOURCES;LINK" ${ARGN})
  add_executable(${name} ${A_SOURCES})
  target_compile_options(${name} PRIVATE ${KWALK_C_WARNINGS} ${KWALK_SAN_FLAGS})
  target_link_options(${name} PRIVATE ${KWALK_SAN_FLAGS})
  set(tool_links)
  foreach(l IN LISTS A_LINK)
    if(l MATCHES "^kw_")
      list(APPEND tool_links ${l}_tool)
    else()
      list(APPEND tool_links ${l})
    endif()
  endforeach()
  target_link_libraries(${name} PRIVATE ${tool_links})
endfunction()
