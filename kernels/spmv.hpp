// Sparse matrix-vector product y = alpha*A*x + beta*y: declarations for every backend.
#pragma once

#include <complex>
#include <cstdint>

#include "mm/matrix.hpp"

namespace mm {

// Serial reference: plain loops over CSR rows, the oracle for every other backend.
template <class I, class T>
void spmv_ref(const Csr<I, T>& a, const T* x, T* y, T alpha, T beta);

}  // namespace mm
