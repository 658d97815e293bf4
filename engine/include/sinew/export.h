/* Sinew export macro. The library is built with hidden visibility; only
 * declarations marked SN_API are exported from libsinew.so. On Windows the
 * DLL is built with SINEW_SHARED_BUILD (dllexport) and programs that link
 * the DLL define SINEW_SHARED (dllimport; CMake's sinew::sinew does it);
 * with neither, SN_API is empty (the static library).
 * SPDX-License-Identifier: MIT */
#ifndef SINEW_EXPORT_H
#define SINEW_EXPORT_H

#if defined(_WIN32) && defined(SINEW_SHARED_BUILD)
#define SN_API __declspec(dllexport)
#elif defined(_WIN32) && defined(SINEW_SHARED)
#define SN_API __declspec(dllimport)
#elif defined(_WIN32)
#define SN_API /* the static library */
#elif defined(__GNUC__) || defined(__clang__)
#define SN_API __attribute__((visibility("default")))
#else
#define SN_API
#endif

#endif /* SINEW_EXPORT_H */
