// Compile-time checks of hand-written C declarations (tfrig declares the CUDA
// and NVML entry points it dlopens itself) against the vendor's headers:
// same_shape<Real, Ours> holds when both function pointer types travel the
// same way through the C calling convention: every data pointer is a
// pointer, every enum its underlying integer, and an integer is its width
// (signedness does not change how it is passed).
#pragma once

#include <tuple>
#include <type_traits>

namespace tfrig::test {

template <class T, class = void>
struct Abi {
  using type = std::remove_cv_t<T>;
};
template <class T>
struct Abi<T, std::enable_if_t<std::is_pointer_v<T>>> {
  using type = const volatile void*;
};
template <class T>
struct Abi<T, std::enable_if_t<std::is_integral_v<T> && !std::is_same_v<T, bool>>> {
  using type = std::make_signed_t<std::remove_cv_t<T>>;
};
template <class T>
struct Abi<T, std::enable_if_t<std::is_enum_v<T>>> {
  using type = std::make_signed_t<std::underlying_type_t<T>>;
};
template <class T>
using abi_t = typename Abi<T>::type;

template <class R, class... A>
std::tuple<abi_t<R>, abi_t<A>...> abi_shape(R (*)(A...));

template <class Real, class Ours>
constexpr bool same_shape = std::is_same_v<decltype(abi_shape(std::declval<Real>())), decltype(abi_shape(std::declval<Ours>()))>;

}  // namespace tfrig::test
