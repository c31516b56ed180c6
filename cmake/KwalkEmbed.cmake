# KwalkEmbed.cmake: turns a whitespace-separated data file of annotations/
# (one record a line, '#' comments) into a C initializer list
# {"field1", "field2", ...}, ... that the plugin includes. Run with
#   cmake -DIN=file -DOUT=file -DFIELDS=N -P KwalkEmbed.cmake
# A record must have exactly FIELDS fields (default 2).
if(NOT FIELDS)
  set(FIELDS 2)
endif()
file(STRINGS "${IN}" lines)
set(body "/* generated from ${IN} by cmake/KwalkEmbed.cmake: do not edit */\n")
foreach(line IN LISTS lines)
  string(STRIP "${line}" line)
  if(line STREQUAL "" OR line MATCHES "^#")
    continue()
  endif()
  string(REGEX REPLACE "[ \t]+" ";" fields "${line}")
  list(LENGTH fields n)
  if(NOT n EQUAL FIELDS)
    message(FATAL_ERROR "${IN}: '${line}' has ${n} fields, ${FIELDS} expected")
  endif()
  set(row "{")
  foreach(f IN LISTS fields)
    string(APPEND row "\"${f}\", ")
  endforeach()
  string(APPEND body "${row}},\n")
endforeach()
file(WRITE "${OUT}.tmp" "${body}")
file(RENAME "${OUT}.tmp" "${OUT}")
