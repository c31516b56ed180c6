# KwalkHip.cmake: placeholder
