#pragma once
// The halo face kernels of kernels/dslash_faces.hpp on one instruction set, included only through
// kernels/runner_table.hpp by the per-ISA translation units, and by kernels/cuda_runners.cuh for the
// GPU (SIMT lanes, Exec = Cuda). One work item is one face vector: W lanes of the kernel's spinor
// layout, all right-hand-side blocks (FaceArgs in dslash_runner.hpp). On the GPU, W threads do one
// item, a lane each, and vnode's spinors and links keep a lane's (re, im) adjacent (Body::kPairs).
// A launch may carry both hops of a direction (a, then b): the faces are short, latency-bound
// launches, and on the GPU a second one costs about as much as the first (docs/history/HISTORY.md,
// "GPU to GPU halos").
//
// Which lanes are on a face and where the message keeps them: kernels/face_lanes.hpp.
#include "kernels/dslash_body.hpp"

namespace dslash::kernels {

template <class Real, class Vec, bool Folded>
struct FaceBody {
  static constexpr int W = static_cast<int>(Vec::size);
  using C = Complex<Vec>;
  using Body = DslashBody<Real, Vec, Folded>;
  static constexpr bool kSimt = Body::kSimt, kPairs = Body::kPairs;

  FaceArgs<Real> a, b;  // copies (a GPU kernel takes the body by value); b.count = 0: one hop

  using Lanes = FaceLanes<Real, Vec, Folded>;
  template <int Mu>
  static constexpr int kMessageLanes = Lanes::template kMessageLanes<Mu>;
  DSLASH_INLINE_FUNCTION static int face_node(const FaceArgs<Real>& x) { return Lanes::face_node(x.forward, x.complete); }

  // A GPU thread is one lane. In a folded direction half the lanes are off the face: their thread
  // has nothing to send and nothing to add, so it reads and writes nothing, and their sectors of
  // the face vectors never move (with an epilogue every lane of a boundary vector takes the xpay).
  template <int Mu>
  DSLASH_INLINE_FUNCTION static bool off_face_thread(int node) {
    if constexpr (kSimt && Lanes::template kHalfLanes<Mu>) return !Lanes::template on_face<Mu>(Vec::lane(), node);
    else return false;
  }

  template <int Mu, int S>
  DSLASH_INLINE_FUNCTION static void project(const FaceArgs<Real>& x, index_t i) {
    const index_t im = Lanes::template im_distance<Mu>(x.count);
    const int node = face_node(x);
    if (off_face_thread<Mu>(node)) return;
    for (int b = 0; b < x.blocks; ++b) {
      C h[2][3];  // no link: the receiver applies it (kernels/dslash_faces.hpp)
      Body::template spin_project<Mu, S>(h, x.in + x.vectors[i] + b * x.block_stride * W, x.component_stride);
      for (int r = 0; r < 3; ++r)
        for (int s = 0; s < 2; ++s) {
          Real* dst = x.message + Lanes::template message_offset<Mu>(x.count, x.blocks, i, b, s, r);
          Lanes::template put<Mu>(dst, h[s][r].re, node);
          Lanes::template put<Mu>(dst + im, h[s][r].im, node);
        }
    }
  }

  // With an epilogue (x.xpay, the GPU only): the vector's lanes become a x + b acc after the halo's
  // hops, and their sums go into sums, as the kernel's epilogue does it (DslashBody::xpay_sums).
  template <int Mu, int S, Epilogue E = Epilogue::None>
  DSLASH_INLINE_FUNCTION static void complete(const FaceArgs<Real>& x, index_t i, EpilogueSumsOf<E>& sums) {
    const int node = face_node(x);
    if constexpr (E == Epilogue::None)
      if (off_face_thread<Mu>(node)) return;
    const Real* lk = x.links + i * Body::kFaceLinkReals;  // the receiver's: U_mu(x), or U_mu(x - mu)^dagger from below
    for (int b = 0; b < x.blocks; ++b) {
      C h[2][3];
      Lanes::template get_half_spinor<Mu>(h, x.received, x.count, x.blocks, i, b, node);
      Real* o = x.out + x.vectors[i] + b * x.block_stride * W;
      // Every read before the first write: the compiler must assume the output may alias the links
      // and the message, and row by row it kept each row's reads behind the previous row's writes
      // (PTX) (docs/history/HISTORY.md, "GPU to GPU halos", item 9).
      C acc[3][4];
      for (int r = 0; r < 3; ++r)
        for (int sp = 0; sp < 4; ++sp) acc[r][sp] = load_component<Vec, kPairs>(o, 3 * sp + r, x.component_stride);
      for (int r = 0; r < 3; ++r) {
        C uh[2];
        Body::mat_vec_row(lk + r * Body::kRowReals, h, uh);
        Body::template reconstruct<Mu, S>(acc[r], uh);
      }
      if constexpr (E != Epilogue::None) {
        const index_t offset = x.vectors[i] + b * x.block_stride * W;
        const auto at = [&](const Real* v) { return v != nullptr ? v + offset : nullptr; };
        Body::template xpay_sums<E>(x.xpay.x + offset, at(x.xpay.w), at(x.xpay.w2), x.component_stride, x.xpay.a, x.xpay.b, acc, sums);
      }
      for (int r = 0; r < 3; ++r)
        for (int sp = 0; sp < 4; ++sp) {
          Real* re = o + 2 * (3 * sp + r) * x.component_stride * W;
          if constexpr (kPairs) {
            simd::stream_store_pair(re, acc[r][sp]);
            continue;
          }
          acc[r][sp].re.store_aligned(re);
          acc[r][sp].im.store_aligned(re + x.component_stride * W);
        }
    }
  }

  // Every face that vector j of DslashFaces::project_all lies on, one after the other: its spinor
  // comes from memory for the first and from L1 for the others.
  template <bool Dagger>
  DSLASH_INLINE_FUNCTION static void project_vector(const FacesProjectArgs<Real>& x, index_t j) {
    const std::array<std::int32_t, 8>& item = x.items[j];
    [&]<int... K>(std::integer_sequence<int, K...>) {
      ((item[K] >= 0 ? project<K / 2, projector_sign(K % 2 == 0, Dagger)>(x.faces[K / 2][K % 2], item[K]) : void()), ...);
    }(std::make_integer_sequence<int, 8>{});
  }

  // The completion with an epilogue: both hops' face vectors sum into one destination.
  template <int Mu, int S, Epilogue E, class Exec>
  void complete_reducing(const RangePolicy<Exec>& range, ReduceInto<EpilogueSumsOf<E>> into) const {
    const FaceBody body = *this;
    const index_t n = a.count;
    parallel_reduce(a.label, range, DSLASH_LAMBDA(index_t i, EpilogueSumsOf<E>& sums) {
      if (i < n) FaceBody::template complete<Mu, S, E>(body.a, i, sums);
      else FaceBody::template complete<Mu, -S, E>(body.b, i - n, sums);
    }, into);
  }

  // One index per face vector: W threads (a lane each) on a GPU, one with the lanes in a register on
  // a CPU; a's vectors, then b's. b is the other hop of direction Mu: its projector sign is -S.
  template <int Mu, int S, class Exec>
  void launch() const {
    const FaceBody body = *this;
    const index_t n = a.count;
    const RangePolicy<Exec> range(0, n + b.count, kSimt ? W : 1);
    if constexpr (kSimt) {  // the xpay is built for the GPU alone: CPU ranks read their halo in the kernel
      if (a.complete && a.xpay.w != nullptr) return complete_reducing<Mu, S, Epilogue::NormDot>(range, a.xpay.sums);
      if (a.complete && a.xpay.x != nullptr) return complete_reducing<Mu, S, Epilogue::Norm>(range, a.xpay.norm);
    }
    if (a.complete)
      parallel_for(a.label, range, DSLASH_LAMBDA(index_t i) {
        double unused = 0;
        if (i < n) FaceBody::template complete<Mu, S>(body.a, i, unused);
        else FaceBody::template complete<Mu, -S>(body.b, i - n, unused);
      });
    else
      parallel_for(a.label, range, DSLASH_LAMBDA(index_t i) {
        if (i < n) FaceBody::template project<Mu, S>(body.a, i);
        else FaceBody::template project<Mu, -S>(body.b, i - n);
      });
  }
};

// second: null, or the other hop of first's direction and stage, in the same launch (their face
// vectors must differ: the caller checks).
template <class Real, class Vec, bool Folded, class Exec = DefaultExecutionSpace>
void run_faces(const FaceArgs<Real>& first, const FaceArgs<Real>* second) {
  FaceArgs<Real> none{};
  none.count = 0;
  const FaceBody<Real, Vec, Folded> body{first, second ? *second : none};
  const FaceArgs<Real>& args = first;
  // Direction and projector sign are template parameters (the units of the projector are free).
  const int key = 2 * args.mu + (projector_sign(args.forward, args.dagger) > 0 ? 1 : 0);
  [&]<int... K>(std::integer_sequence<int, K...>) {
    ((K == key ? body.template launch<K / 2, K % 2 == 1 ? 1 : -1, Exec>() : void()), ...);
  }(std::make_integer_sequence<int, 8>{});
}

// DslashFaces::project_all: one launch, a work item a face vector (the CPU's: its tables only).
template <class Real, class Vec, bool Folded, class Exec = DefaultExecutionSpace>
void run_project_all(const FacesProjectArgs<Real>& x) {
  using Body = FaceBody<Real, Vec, Folded>;
  const FacesProjectArgs<Real> args = x;
  const RangePolicy<Exec> range(0, x.count, Body::kSimt ? Body::W : 1);
  if (x.dagger) parallel_for("dslash_face_project_all", range, DSLASH_LAMBDA(index_t j) { Body::template project_vector<true>(args, j); });
  else parallel_for("dslash_face_project_all", range, DSLASH_LAMBDA(index_t j) { Body::template project_vector<false>(args, j); });
}

}  // namespace dslash::kernels
