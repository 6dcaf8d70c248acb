// Runs a heated-room stencil implementation twice (each run starts again from the initial grid)
// and returns the grid: shared by the stencil tests and the system tests' matrix form.
#pragma once

#include <stdexcept>
#include <string>
#include <vector>

#include "jacobi.hpp"
#include "random_matrices.hpp"

namespace mm::test {

// TUNING and TIME_TILE (cuda-timetile's K; 0: its default) as the tools pass them.
template <class T>
std::vector<T> run_stencil(const Impl<StencilMake<T>>& impl, int dim, std::int64_t n,
                           const JacobiStop& stop, JacobiResult& res,
                           const JacobiTuning& tuning = {}, int time_tile = 0) {
  const HeatedRoom room = heated_room(dim, n);
  std::vector<T> u(static_cast<std::size_t>(room.points()), test::poison<T>());
  StencilProblem<T> p{room, u.data(), stop, &res, tuning, time_tile};
  auto r = impl.make(p);
  r->upload();
  r->run();
  r->run();  // a second run starts again from the initial grid
  r->download();
  return u;
}

// The stencil implementation called NAME.
template <class T>
const Impl<StencilMake<T>>& stencil_impl(const std::string& name) {
  for (const auto& i : stencil_impls<T>())
    if (i.name == name) return i;
  throw std::logic_error("no stencil implementation " + name);
}

}  // namespace mm::test
