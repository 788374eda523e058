// fmt's compiled part (what libfmt holds), built once here instead of in every file.
//
// lab_check does not link libfmt: the binary stays self-contained (Debian ships libfmt only as a
// shared library). fmt's header-only mode does that too, but it makes every function of
// fmt/format-inl.h inline, so each translation unit that formats anything generated and
// optimised its own copy of them; compiling them once here took a first build on two cores from
// 381 s to 311 s (issue 24, docs/benchmarks.md). With FMT_HEADER_ONLY off, this file compiles
// that source and instantiates the templates fmt 9 declares `extern` (for char), as fmt's own
// src/format.cc does for libfmt. CMakeLists.txt uses this only with fmt 9; under any other fmt the
// build is header-only and this file is empty.
#include <fmt/format.h>

#ifndef FMT_HEADER_ONLY
#include <fmt/format-inl.h>

FMT_BEGIN_NAMESPACE
namespace detail {

template FMT_API auto dragonbox::to_decimal(float x) noexcept -> dragonbox::decimal_fp<float>;
template FMT_API auto dragonbox::to_decimal(double x) noexcept -> dragonbox::decimal_fp<double>;
template FMT_API locale_ref::locale_ref(const std::locale& loc);
template FMT_API auto locale_ref::get<std::locale>() const -> std::locale;
template FMT_API auto thousands_sep_impl(locale_ref) -> thousands_sep_result<char>;
template FMT_API auto decimal_point_impl(locale_ref) -> char;

}  // namespace detail
FMT_END_NAMESPACE
#endif  // FMT_HEADER_ONLY
