# KwalkInstall.cmake: `cmake --install BUILD [--prefix P]` lays out kwalk as a
# CMake package (included at the end of the top-level CMakeLists.txt):
#
#   P/lib/kwalk/libkwalk.so             the Clang plugin as -fplugin= takes it: a loader
#                                       that loads the next file only into the clang
#                                       major it was built against (LLVM_VERSION_MAJOR)
#                                       and warns in any other
#   P/lib/kwalk/libkwalk-clangNN.so     the real plugin, for clang NN
#   P/bin/kwalk                         the command
#   P/bin/kwalk-env.sh                  the hipcc / aiter JIT environment (scripts/)
#   P/share/kwalk/annotations/...       the annotation data. The kwalk command
#                                       embeds these files at build time
#                                       (cmake/KwalkEmbed.cmake) and needs none
#                                       at run time; installed for reference and
#                                       as the starting point of a
#                                       KWALK_ANNOTATIONS=DIR override.
#   P/share/kwalk/python/kwalk_pyscan.py the Python reader (python/): run with the
#                                       user's python3 on their model repository
#                                       (docs/python-chains.md)
#   P/share/kwalk/python/...            the Triton capture hook (python/: kwalk_triton
#                                       and its sitecustomize.py); put it on PYTHONPATH
#                                       with KWALK_TRITON_DIR=DIR set (docs/triton.md)
#   P/share/doc/kwalk/...               README and docs/
#   P/lib/cmake/kwalk/kwalkConfig.cmake (+ kwalkConfigVersion.cmake, and
#                                       kwalkWalkthroughs.cmake): find_package(kwalk)
#                                       gives kwalk::kwalk, kwalk::plugin, KWALK_PLUGIN,
#                                       KWALK_EXECUTABLE and kwalk_document(TARGET ...)
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(KWALK_INSTALL_PLUGINDIR "${CMAKE_INSTALL_LIBDIR}/kwalk" CACHE STRING
    "Where libkwalk.so is installed, relative to the prefix")
set(KWALK_INSTALL_CMAKEDIR "${CMAKE_INSTALL_LIBDIR}/cmake/kwalk" CACHE STRING
    "Where kwalkConfig.cmake is installed, relative to the prefix")
set(KWALK_INSTALL_DATADIR "${CMAKE_INSTALL_DATADIR}/kwalk")

# The installed kwalk keeps the run path to the libraries it links outside the
# prefix (libLLVM of a ROCm or llvm-NN tree is not on the loader's default path).
set_target_properties(kwalk PROPERTIES INSTALL_RPATH_USE_LINK_PATH TRUE)
install(TARGETS kwalk_plugin kwalk_clang_plugin LIBRARY DESTINATION "${KWALK_INSTALL_PLUGINDIR}")
install(TARGETS kwalk kwalk-irfacts RUNTIME DESTINATION "${CMAKE_INSTALL_BINDIR}")
install(PROGRAMS "${PROJECT_SOURCE_DIR}/scripts/kwalk-env.sh"
        DESTINATION "${CMAKE_INSTALL_BINDIR}")
install(DIRECTORY "${PROJECT_SOURCE_DIR}/annotations/"
        DESTINATION "${KWALK_INSTALL_DATADIR}/annotations"
        FILES_MATCHING PATTERN "*.txt" PATTERN "*.h" PATTERN "*.yaml" PATTERN "*.md")
install(PROGRAMS "${PROJECT_SOURCE_DIR}/python/kwalk_pyscan.py"
        DESTINATION "${KWALK_INSTALL_DATADIR}/python")
install(DIRECTORY "${PROJECT_SOURCE_DIR}/python/" DESTINATION "${KWALK_INSTALL_DATADIR}/python"
        FILES_MATCHING PATTERN "*.py" PATTERN "kwalk_pyscan.py" EXCLUDE PATTERN "__pycache__" EXCLUDE)
install(FILES "${PROJECT_SOURCE_DIR}/README.md" DESTINATION "${CMAKE_INSTALL_DOCDIR}")
install(DIRECTORY "${PROJECT_SOURCE_DIR}/docs/" DESTINATION "${CMAKE_INSTALL_DOCDIR}"
        FILES_MATCHING PATTERN "*.md")

# Paths for the config file, relative to the prefix (made absolute by
# @PACKAGE_INIT@ wherever the package is installed or moved).
set(KWALK_CONFIG_PLUGIN "${KWALK_INSTALL_PLUGINDIR}/libkwalk.so")
set(KWALK_CONFIG_EXECUTABLE "${CMAKE_INSTALL_BINDIR}/kwalk")
set(KWALK_CONFIG_ENV_SCRIPT "${CMAKE_INSTALL_BINDIR}/kwalk-env.sh")
set(KWALK_CONFIG_ANNOTATIONS "${KWALK_INSTALL_DATADIR}/annotations")
configure_package_config_file(
  "${PROJECT_SOURCE_DIR}/cmake/kwalkConfig.cmake.in"
  "${PROJECT_BINARY_DIR}/package/kwalkConfig.cmake"
  INSTALL_DESTINATION "${KWALK_INSTALL_CMAKEDIR}"
  PATH_VARS KWALK_CONFIG_PLUGIN KWALK_CONFIG_EXECUTABLE KWALK_CONFIG_ENV_SCRIPT
            KWALK_CONFIG_ANNOTATIONS)
# The plugin is tied to one clang major, not to kwalk's own version scheme;
# the version file is about kwalk (SameMinorVersion while at 0.x).
write_basic_package_version_file(
  "${PROJECT_BINARY_DIR}/package/kwalkConfigVersion.cmake"
  VERSION "${PROJECT_VERSION}" COMPATIBILITY SameMinorVersion)
install(FILES "${PROJECT_BINARY_DIR}/package/kwalkConfig.cmake"
              "${PROJECT_BINARY_DIR}/package/kwalkConfigVersion.cmake"
              "${PROJECT_SOURCE_DIR}/cmake/kwalkWalkthroughs.cmake"
        DESTINATION "${KWALK_INSTALL_CMAKEDIR}")
