// mmjacobi's CPU ranks behind RoomEngine: slabs and boxes.
#include "dist/room_engine.hpp"

namespace mm::dist {

namespace {

template <class T>
class SlabEngine final : public RoomEngine<T> {
 public:
  SlabEngine(const Comm& comm, const HeatedRoom& room, const SlabSplit& s)
      : s_(s), jac_(comm, room, s) {}
  void prepare() override { jac_.start(); }
  JacobiResult run(const JacobiStop& stop) override { return jac_.run(stop); }
  std::vector<T> output_planes() override { return jac_.output_planes(); }
  double exchange_seconds() const override { return jac_.exchange_seconds(); }
  double allreduce_seconds() const override { return jac_.allreduce_seconds(); }
  std::int64_t halo_values() const override { return jac_.halo().halo_values(); }
  std::int64_t points() const override {
    const std::int64_t m = s_.n - 2;
    return s_.planes() * (s_.dim == 3 ? m * m : m);
  }

 private:
  SlabSplit s_;
  SlabJacobi<T> jac_;
};

template <class T>
class BoxEngine final : public RoomEngine<T> {
 public:
  BoxEngine(const Comm& comm, const HeatedRoom& room, const BoxSplit& s, const SlabSplit& out)
      : comm_(comm), room_(room), s_(s), out_(out), jac_(comm, room, s) {}
  void prepare() override { jac_.start(); }
  JacobiResult run(const JacobiStop& stop) override { return jac_.run(stop); }
  std::vector<T> output_planes() override {
    return boxes_to_planes(comm_, room_, s_, jac_.owned(), out_);
  }
  double exchange_seconds() const override { return jac_.exchange_seconds(); }
  double allreduce_seconds() const override { return jac_.allreduce_seconds(); }
  std::int64_t halo_values() const override { return jac_.halo().halo_values(); }
  std::int64_t points() const override { return s_.points(); }

 private:
  Comm comm_;
  HeatedRoom room_;
  BoxSplit s_;
  SlabSplit out_;
  BoxJacobi<T> jac_;
};

}  // namespace

template <class T>
std::unique_ptr<RoomEngine<T>> slab_engine(const Comm& comm, const HeatedRoom& room,
                                           const SlabSplit& s) {
  return std::make_unique<SlabEngine<T>>(comm, room, s);
}

template <class T>
std::unique_ptr<RoomEngine<T>> box_engine(const Comm& comm, const HeatedRoom& room,
                                          const BoxSplit& s, const SlabSplit& out) {
  return std::make_unique<BoxEngine<T>>(comm, room, s, out);
}

#define MM_ROOM_ENGINES(T)                                                               \
  template std::unique_ptr<RoomEngine<T>> slab_engine<T>(const Comm&, const HeatedRoom&, \
                                                         const SlabSplit&);              \
  template std::unique_ptr<RoomEngine<T>> box_engine<T>(const Comm&, const HeatedRoom&,  \
                                                        const BoxSplit&, const SlabSplit&);
MM_ROOM_ENGINES(float)
MM_ROOM_ENGINES(double)

}  // namespace mm::dist
