execute_process(COMMAND git -C ${SOURCE_DIR} describe --always --dirty --abbrev=40
                OUTPUT_VARIABLE revision OUTPUT_STRIP_TRAILING_WHITESPACE
                RESULT_VARIABLE failed ERROR_QUIET)
if(failed OR revision STREQUAL "")
  set(revision "unknown")
endif()
set(content "namespace hpcreward { const char *git_revision() { return \"${revision}\"; } }\n")
if(EXISTS ${OUTPUT})
  file(READ ${OUTPUT} previous)
endif()
if(NOT "${previous}" STREQUAL "${content}")
  file(WRITE ${OUTPUT} "${content}")
endif()
