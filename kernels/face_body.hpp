#pragma once
// The halo face kernels of kernels/dslash_faces.hpp on one instruction set, included only through
// kernels/runner_table.hpp by the per-ISA translation units, and by kernels/cuda_runners.cuh for the
// GPU (SIMT lanes, Exec = Cuda). One work item is one face vector: W lanes of the kernel's spinor
// layout, all right-hand-side blocks (FaceArgs in dslash_runner.hpp). On the GPU, W threads do one
// item, a lane each, and vnode's spinors and links keep a lane's (re, im) adjacent (Body::kPairs).
// A launch may carry both hops of a direction (a, then b): the faces are short, latency-bound
// launches, and on the GPU a second one costs about as much as the first (2 H200s, 32^4 split in t,
// naive: completing both hops 13-15 us in one launch against 16-20 in two; the decomposed call's
// overhead +17-18% double, +24-26% single, against +25-26% and +26-32%).
//
// In a direction folded into the lanes, half the lanes of a face vector are on the face (those of
// one virtual node) and the message carries only them, in lane order. Lane bit 0 folded, W = 8:
//   project : lanes ABCD EFGH, node 0 on the face -> message ACEG
//   complete: message ACEG, node 1 on the face    -> 0A0C 0E0G, added (node 0 gets + 0)
#include "kernels/dslash_body.hpp"

namespace dslash::kernels {

template <class Real, class Vec, bool Folded>
struct FaceBody {
  static constexpr int W = static_cast<int>(Vec::size);
  using C = Complex<Vec>;
  using Body = DslashBody<Real, Vec, Folded>;
  static constexpr bool kSimt = Body::kSimt, kPairs = Body::kPairs;

  FaceArgs<Real> a, b;  // copies (a GPU kernel takes the body by value); b.count = 0: one hop

  // Direction Mu folded into the lanes: only one virtual node's lanes are on the face.
  template <int Mu>
  static constexpr bool kHalfLanes = Folded && lane_bit<W>(Mu) >= 0;
  template <int Mu>
  static constexpr int kMessageLanes = kHalfLanes<Mu> ? W / 2 : W;

  // The face's virtual node: project forward sends our lower face (node 0) to the domain below,
  // project backward our upper face (node 1); complete forward fills our upper face, backward our lower.
  DSLASH_INLINE_FUNCTION static int face_node(const FaceArgs<Real>& x) { return x.forward == x.complete ? 1 : 0; }

  // The face node's lanes come in runs of 2^bit: lanes [(2k + node) 2^bit, (2k + node + 1) 2^bit).
  // Copied run by run with compile-time lengths (no per-lane test), so the compiler unrolls them.
  template <int Mu>
  static constexpr int kRun = kHalfLanes<Mu> ? 1 << lane_bit<W>(Mu) : W;

  // SIMT: this thread's lane l is on the face when its bit is the node's; its place in the message
  // is l with that bit taken out.
  template <int Mu>
  DSLASH_INLINE_FUNCTION static bool on_face(int lane, int node) {
    return ((lane >> lane_bit<W>(Mu)) & 1) == node;
  }
  template <int Mu>
  DSLASH_INLINE_FUNCTION static int message_lane(int lane) {
    constexpr int R = kRun<Mu>;
    return (lane / (2 * R)) * R + lane % R;
  }

  template <int Mu>
  DSLASH_FORCE_INLINE static void put(Real* dst, const Vec& v, int node) {
    if constexpr (!kHalfLanes<Mu>) {
      v.store_unaligned(dst);
    } else if constexpr (kSimt) {
      if (on_face<Mu>(Vec::lane(), node)) dst[message_lane<Mu>(Vec::lane())] = v.v;
    } else {
      alignas(64) Real lanes[W];
      v.store_aligned(lanes);
      constexpr int R = kRun<Mu>;
      for (int k = 0; k < W / (2 * R); ++k)
        for (int j = 0; j < R; ++j) dst[k * R + j] = lanes[(2 * k + node) * R + j];
    }
  }
  template <int Mu>
  DSLASH_FORCE_INLINE static Vec get(const Real* src, int node) {
    if constexpr (!kHalfLanes<Mu>) {
      return Vec::load_unaligned(src);
    } else if constexpr (kSimt) {
      return Vec(on_face<Mu>(Vec::lane(), node) ? src[message_lane<Mu>(Vec::lane())] : Real(0));
    } else {
      alignas(64) Real lanes[W] = {};
      constexpr int R = kRun<Mu>;
      for (int k = 0; k < W / (2 * R); ++k)
        for (int j = 0; j < R; ++j) lanes[(2 * k + node) * R + j] = src[k * R + j];
      return Vec::load_aligned(lanes);
    }
  }

  // Where component (spin s, colour r) of vector i, block b starts in the message: (re, im), kMessageLanes each.
  template <int Mu>
  DSLASH_INLINE_FUNCTION static index_t message_offset(const FaceArgs<Real>& x, index_t i, int b, int s, int r) {
    return ((i * x.blocks + b) * 6 + 3 * s + r) * 2 * kMessageLanes<Mu>;
  }

  // Spin rows 0 and 1 of colour row r: U(r, :) h with the face's link, or h itself without one.
  DSLASH_FORCE_INLINE static void colour_row(const Real* lk, const C (&h)[2][3], int r, C (&uh)[2]) {
    if (lk) Body::mat_vec_row(lk + r * Body::kRowReals, h, uh);
    else uh[0] = h[0][r], uh[1] = h[1][r];
  }

  template <int Mu, int S>
  DSLASH_INLINE_FUNCTION static void project(const FaceArgs<Real>& x, index_t i) {
    constexpr int M = kMessageLanes<Mu>;
    const int node = face_node(x);
    const Real* lk = x.links ? x.links + i * Body::kLinkReals : nullptr;
    for (int b = 0; b < x.blocks; ++b) {
      C h[2][3];
      Body::template spin_project<Mu, S>(h, x.in + x.vectors[i] + b * x.block_stride * W, x.component_stride);
      for (int r = 0; r < 3; ++r) {
        C uh[2];
        colour_row(lk, h, r, uh);
        for (int s = 0; s < 2; ++s) {
          Real* dst = x.message + message_offset<Mu>(x, i, b, s, r);
          put<Mu>(dst, uh[s].re, node);
          put<Mu>(dst + M, uh[s].im, node);
        }
      }
    }
  }

  template <int Mu, int S>
  DSLASH_INLINE_FUNCTION static void complete(const FaceArgs<Real>& x, index_t i) {
    constexpr int M = kMessageLanes<Mu>;
    const int node = face_node(x);
    const Real* lk = x.links ? x.links + i * Body::kLinkReals : nullptr;
    for (int b = 0; b < x.blocks; ++b) {
      C h[2][3];
      for (int s = 0; s < 2; ++s)
        for (int r = 0; r < 3; ++r) {
          const Real* src = x.received + message_offset<Mu>(x, i, b, s, r);
          h[s][r] = {get<Mu>(src, node), get<Mu>(src + M, node)};
        }
      Real* o = x.out + x.vectors[i] + b * x.block_stride * W;
      for (int r = 0; r < 3; ++r) {
        C uh[2], acc[4];
        colour_row(lk, h, r, uh);
        for (int sp = 0; sp < 4; ++sp) acc[sp] = load_component<Vec, kPairs>(o, 3 * sp + r, x.component_stride);
        Body::template reconstruct<Mu, S>(acc, uh);
        for (int sp = 0; sp < 4; ++sp) {
          Real* re = o + 2 * (3 * sp + r) * x.component_stride * W;
          if constexpr (kPairs) {
            simd::stream_store_pair(re, acc[sp]);
            continue;
          }
          acc[sp].re.store_aligned(re);
          acc[sp].im.store_aligned(re + x.component_stride * W);
        }
      }
    }
  }

  // One index per face vector: W threads (a lane each) on a GPU, one with the lanes in a register on
  // a CPU; a's vectors, then b's. b is the other hop of direction Mu: its projector sign is -S.
  template <int Mu, int S, class Exec>
  void launch() const {
    const FaceBody body = *this;
    const index_t n = a.count;
    const RangePolicy<Exec> range(0, n + b.count, kSimt ? W : 1);
    if (a.complete)
      parallel_for(a.label, range, DSLASH_LAMBDA(index_t i) {
        if (i < n) FaceBody::template complete<Mu, S>(body.a, i);
        else FaceBody::template complete<Mu, -S>(body.b, i - n);
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

}  // namespace dslash::kernels
