# KwalkEmbed.cmake: turns a whitespace-separated data file of annotations/
# (NAME PATTERN per line, '#' comments) into a C initializer list
# {"NAME", "PATTERN"}, ... included by the plugin. Run with
#   cmake -DIN=file -DOUT=file -P KwalkEmbed.cmake
file(STRINGS "${IN}" lines)
set(body "/* generated from ${IN} by cmake/KwalkEmbed.cmake: do not edit */\n")
foreach(line IN LISTS lines)
  string(STRIP "${line}" line)
  if(line STREQUAL "" OR line MATCHES "^#")
    continue()
  endif()
  string(REGEX MATCH "^([^ \t]+)[ \t]+([^ \t]+)" m "${line}")
  if(NOT m)
    message(FATAL_ERROR "${IN}: cannot read line '${line}'")
  endif()
  string(APPEND body "{\"${CMAKE_MATCH_1}\", \"${CMAKE_MATCH_2}\"},\n")
endforeach()
file(WRITE "${OUT}.tmp" "${body}")
file(RENAME "${OUT}.tmp" "${OUT}")
