# src/reach/: the reach layer (docs/layout.md).
file(GLOB _sr_layer_sources CONFIGURE_DEPENDS ${CMAKE_CURRENT_LIST_DIR}/*.c)
list(APPEND SR_LIB_SOURCES ${_sr_layer_sources})
