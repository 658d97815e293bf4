# sinew_add_plugin(<name> SOURCES <file>... [STATIC])
#
# Builds a constraint plugin the way Sinew builds its own: a loadable module
# <name>.so (no "lib" prefix) from the sources, compiled against the headers
# only (sinew::headers, which brings -lm for sinew/plugin_math.h), with hidden
# visibility (only the entry is exported) and -z defs (a plugin must not need
# libsinew or any symbol it does not link). With STATIC, also a static
# library <name>_static of the same sources built with SN_PLUGIN_STATIC=<name>,
# for programs that link their plugins in (sn_registry_add_static with
# sn_plugin_entry_<name>).
function(sinew_add_plugin name)
  cmake_parse_arguments(PARSE_ARGV 1 arg "STATIC" "" "SOURCES")
  if(NOT arg_SOURCES)
    message(FATAL_ERROR "sinew_add_plugin(${name}): give SOURCES")
  endif()
  if(NOT name MATCHES "^[A-Za-z_][A-Za-z0-9_]*$")
    message(FATAL_ERROR "sinew_add_plugin(${name}): the name must be a C identifier (it names sn_plugin_entry_<name>)")
  endif()
  add_library(${name} MODULE ${arg_SOURCES})
  target_link_libraries(${name} PRIVATE sinew::headers)
  set_target_properties(${name} PROPERTIES PREFIX "" C_VISIBILITY_PRESET hidden CXX_VISIBILITY_PRESET hidden
                                           VISIBILITY_INLINES_HIDDEN ON)
  if(CMAKE_SYSTEM_NAME STREQUAL "Linux")
    target_link_options(${name} PRIVATE "LINKER:-z,defs")
  endif()
  if(arg_STATIC)
    add_library(${name}_static STATIC ${arg_SOURCES})
    target_link_libraries(${name}_static PUBLIC sinew::headers)
    target_compile_definitions(${name}_static PRIVATE SN_PLUGIN_STATIC=${name})
    set_target_properties(${name}_static PROPERTIES POSITION_INDEPENDENT_CODE ON C_VISIBILITY_PRESET hidden
                                                    CXX_VISIBILITY_PRESET hidden)
  endif()
endfunction()
