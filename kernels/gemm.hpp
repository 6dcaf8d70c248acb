// Dense matrix product C = alpha*A*B + beta*C (row-major): declarations for every backend.
#pragma once

#include "mm/matrix.hpp"

namespace mm {

// Serial reference: the naive i-j-k triple loop.
template <class T>
void gemm_ref(const Dense<T>& a, const Dense<T>& b, Dense<T>& c, T alpha, T beta);

}  // namespace mm
