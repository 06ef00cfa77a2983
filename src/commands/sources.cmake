# src/commands/: the commands layer (docs/layout.md).
file(GLOB _sr_layer_sources CONFIGURE_DEPENDS ${CMAKE_CURRENT_LIST_DIR}/*.c)
list(REMOVE_ITEM _sr_layer_sources ${CMAKE_CURRENT_LIST_DIR}/main.c)
list(APPEND SR_LIB_SOURCES ${_sr_layer_sources})
