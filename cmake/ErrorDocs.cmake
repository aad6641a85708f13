# Embeds docs/errors/*.md into the compiler so that `vxc explain` and the
# JSON `code.explanation` field work from an installed binary.
file(GLOB VXC_ERROR_DOCS CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/docs/errors/*.md)
string(REPLACE ";" "|" VXC_ERROR_DOCS_ARG "${VXC_ERROR_DOCS}")
set(VXC_ERROR_DOCS_CPP ${PROJECT_BINARY_DIR}/generated/ErrorDocs.cpp)
add_custom_command(
  OUTPUT ${VXC_ERROR_DOCS_CPP}
  COMMAND ${CMAKE_COMMAND} -DOUT=${VXC_ERROR_DOCS_CPP} -DFILES=${VXC_ERROR_DOCS_ARG}
          -DHEADER=diag/ErrorDocs.h -DNS=vx::diag -DARRAY=kErrorDocs
          -P ${PROJECT_SOURCE_DIR}/cmake/EmbedText.cmake
  DEPENDS ${VXC_ERROR_DOCS} ${PROJECT_SOURCE_DIR}/cmake/EmbedText.cmake
  COMMENT "Embedding docs/errors"
  VERBATIM)
