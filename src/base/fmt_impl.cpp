// fmt's compiled part, built once for all of affix (the build's only copy).
//
// Debian's libfmt-dev ships fmt's headers and a shared libfmt.so, no static
// library. Linking libfmt.so would put a second shared library on every
// launch (docs/performance.md, "Linking"); compiling fmt header-only
// (FMT_HEADER_ONLY) compiled fmt's implementation again in every one of
// affix's translation units, about 4 s each on 2 CPUs, most of a clean build
// (README, "Build times"). This unit compiles that implementation
// (<fmt/format-inl.h>) once, as fmt's own src/format.cc does: its non-template
// functions, and the few templates fmt's headers declare `extern template`.
#include <fmt/format-inl.h>

FMT_BEGIN_NAMESPACE
namespace detail {

template FMT_API auto thousands_sep_impl(locale_ref) -> thousands_sep_result<char>;
template FMT_API auto decimal_point_impl(locale_ref) -> char;
template FMT_API auto thousands_sep_impl(locale_ref) -> thousands_sep_result<wchar_t>;
template FMT_API auto decimal_point_impl(locale_ref) -> wchar_t;
template FMT_API locale_ref::locale_ref(const std::locale& loc);
template FMT_API auto locale_ref::get<std::locale>() const -> std::locale;

}  // namespace detail
FMT_END_NAMESPACE
