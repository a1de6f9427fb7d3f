# Regenerates the git revision on every build (not only at configure time), so the
# provenance written into each reward log names the code that produced it.
set(HPCREWARD_GENERATED_DIR ${CMAKE_BINARY_DIR}/generated)
add_custom_target(hpcreward_git_revision
  COMMAND ${CMAKE_COMMAND} -DSOURCE_DIR=${CMAKE_SOURCE_DIR}
          -DOUTPUT=${HPCREWARD_GENERATED_DIR}/git_revision.cpp
          -P ${CMAKE_SOURCE_DIR}/cmake/write_git_revision.cmake
  BYPRODUCTS ${HPCREWARD_GENERATED_DIR}/git_revision.cpp
  COMMENT "Recording git revision")
