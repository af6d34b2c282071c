// TFRIG_TRY(expr): evaluate a core::Result<T> or core::Status; on failure,
// return its error from the enclosing function (whatever Result<U> or Status
// that returns); on success the expression is the T (moved out), or void for a
// Status. It replaces the hand-written pair
//
//   auto text = read_whole(src);
//   if (!text) return tl::unexpected(text.error());
//   use(*text);
//
// with `auto text = TFRIG_TRY(read_whole(src)); use(text);`, and
// `if (auto st = check(x); !st) return tl::unexpected(st.error());` with
// `TFRIG_TRY(check(x));`.
//
// It is a GNU statement expression (GCC and Clang, the only compilers tfrig is
// built with; `__extension__` keeps -Wpedantic quiet about it). A `return`
// inside one returns from the enclosing function, which is the point; the
// value is the last expression's, moved into the caller's variable.
#pragma once

#include <utility>

#include <tl/expected.hpp>

namespace tfrig::core::try_detail {

// The value of a successful Result, moved out; nothing for a Status.
template <class T, class E>
T take(tl::expected<T, E>&& r) {
  return std::move(*r);
}
template <class E>
void take(tl::expected<void, E>&&) {}

}  // namespace tfrig::core::try_detail

#define TFRIG_TRY_CONCAT_INNER(a, b) a##b
#define TFRIG_TRY_CONCAT(a, b) TFRIG_TRY_CONCAT_INNER(a, b)

// Variadic so that a braced initialiser's commas (`TFRIG_TRY(f(T{a, b}))` is
// fine anyway; `TFRIG_TRY(T{a, b}.check())` would not be) need no parentheses.
#define TFRIG_TRY(...) TFRIG_TRY_IMPL(TFRIG_TRY_CONCAT(tfrig_try_result_, __COUNTER__), __VA_ARGS__)

#define TFRIG_TRY_IMPL(result, ...)                                  \
  __extension__({                                                    \
    auto result = (__VA_ARGS__);                                     \
    if (!result) return ::tl::unexpected(std::move(result).error()); \
    ::tfrig::core::try_detail::take(std::move(result));              \
  })
