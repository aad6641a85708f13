# Embeds docs/errors/*.md into the compiler so that `vxc explain` and the
# JSON `code.explanation` field work from an installed binary.
file(GLOB VXC_ERROR_DOCS CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/docs/errors/*.md)
string(REPLACE ";" "|" VXC_ERROR_DOCS_ARG "${VXC_ERROR_DOCS}")
set(VXC_ERROR_DOCS_CPP ${PROJECT_BINARY_DIR}/generated/ErrorDocs.cpp)
add_custom_command(
  OUTPUT ${VXC_ERROR_DOCS_CPP}
  COMMAND ${CMAKE_COMMAND} -DOUT=${VXC_ERROR_DOCS_CPP} -DDOCS=${VXC_ERROR_DOCS_ARG}
          -P ${PROJECT_SOURCE_DIR}/cmake/EmbedErrorDocs.cmake
  DEPENDS ${VXC_ERROR_DOCS} ${PROJECT_SOURCE_DIR}/cmake/EmbedErrorDocs.cmake
  COMMENT "Embedding docs/errors"
  VERBATIM)
