#pragma once
// Which lanes of a kernel vector lie on a face, and where a halo message keeps them
// (kernels/dslash_faces.hpp). Shared by the face kernels (kernels/face_body.hpp) and the Dslash body,
// which reads a received message itself when the halo is in before it runs (RunHalo::received).
//
// In a direction folded into the lanes, half the lanes of a face vector are on the face (those of
// one virtual node) and the message carries only them, in lane order. Lane bit 0 folded, W = 8:
//   project : lanes ABCD EFGH, node 0 on the face -> message ACEG
//   complete: message ACEG, node 1 on the face    -> 0A0C 0E0G, added (node 0 gets + 0)
// Not folded (naive, mrhs, or a direction vnode keeps whole), every lane is on the face.
#include "dslash/core.hpp"
#include "dslash/core/macros.hpp"
#include "simd/complex.hpp"
#include "simd/lane_traits.hpp"

namespace dslash::kernels {

// The lane bit of direction Mu when W lanes fold the last log2(W) directions; -1 if not folded.
template <int W>
constexpr int lane_bit(int mu) {
  int d = 0;
  while ((1 << d) < W) ++d;
  return mu >= 4 - d ? mu - (4 - d) : -1;
}

template <class Real, class Vec, bool Folded>
struct FaceLanes {
  static constexpr int W = static_cast<int>(Vec::size);
  static constexpr bool kSimt = simd::is_simt<Vec>;
  using C = simd::Complex<Vec>;

  // Direction Mu folded into the lanes: only one virtual node's lanes are on the face.
  template <int Mu>
  static constexpr bool kHalfLanes = Folded && lane_bit<W>(Mu) >= 0;
  template <int Mu>
  static constexpr int kMessageLanes = kHalfLanes<Mu> ? W / 2 : W;

  // The face's virtual node: project forward sends our lower face (node 0) to the domain below,
  // project backward our upper face (node 1); complete forward fills our upper face, backward our lower.
  DSLASH_INLINE_FUNCTION static constexpr int face_node(bool forward, bool complete) { return forward == complete ? 1 : 0; }

  // The face node's lanes come in runs of 2^bit: lanes [(2k + node) 2^bit, (2k + node + 1) 2^bit),
  // packed and unpacked on a CPU by simd::compress_half and expand_half (simd/lane_traits.hpp).
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

  // The face lanes of v into the message at dst.
  template <int Mu>
  DSLASH_FORCE_INLINE static void put(Real* dst, const Vec& v, int node) {
    if constexpr (!kHalfLanes<Mu>) {
      v.store_unaligned(dst);
    } else if constexpr (kSimt) {
      if (on_face<Mu>(Vec::lane(), node)) dst[message_lane<Mu>(Vec::lane())] = v.v;
    } else {
      simd::compress_half<lane_bit<W>(Mu)>(dst, v, node);
    }
  }
  // The message at src as a vector: its values in the face lanes, zero in the others.
  template <int Mu>
  DSLASH_FORCE_INLINE static Vec get(const Real* src, int node) {
    if constexpr (!kHalfLanes<Mu>) {
      return Vec::load_unaligned(src);
    } else if constexpr (kSimt) {
      return Vec(on_face<Mu>(Vec::lane(), node) ? src[message_lane<Mu>(Vec::lane())] : Real(0));
    } else {
      Vec v;
      simd::expand_half<lane_bit<W>(Mu)>(v, src, node);
      return v;
    }
  }

  // Where the message of a face of `items` vectors keeps component (spin row s, colour r) of vector
  // i, block b: its real part at message_offset, its imaginary part im_distance further. Item-major
  // (a vector's 12 components together, kMessageLanes reals each), except where a GPU thread is a
  // whole item of one lane (naive): there component-major, the items fastest, so a warp reads and
  // writes each component as one 128-byte run, where item-major puts its threads 48 bytes apart
  // (partial sectors; over NVLink a remote write at half the rate).
  //   item-major     : [i0: c0 re, c0 im, c1 re, ...] [i1: c0 re, ...]
  //   items fastest  : [c0 re: i0 i1 i2 ...] [c0 im: i0 i1 ...] [c1 re: ...]
  static constexpr bool kItemsFastest = kSimt && W == 1;
  template <int Mu>
  DSLASH_INLINE_FUNCTION static index_t message_offset(index_t items, int blocks, index_t i, int b, int s, int r) {
    if constexpr (kItemsFastest) return (b * 6 + 3 * s + r) * 2 * items + i;
    else return ((i * blocks + b) * 6 + 3 * s + r) * 2 * kMessageLanes<Mu>;
  }
  template <int Mu>
  DSLASH_INLINE_FUNCTION static index_t im_distance(index_t items) {
    if constexpr (kItemsFastest) return items;
    else return kMessageLanes<Mu>;
  }

  // The half spinor (2 spin rows x 3 colours) of face vector i, block b, from the message.
  template <int Mu>
  DSLASH_FORCE_INLINE static void get_half_spinor(C (&h)[2][3], const Real* message, index_t items, int blocks, index_t i, int b, int node) {
    const index_t im = im_distance<Mu>(items);
    for (int s = 0; s < 2; ++s)
      for (int r = 0; r < 3; ++r) {
        const Real* src = message + message_offset<Mu>(items, blocks, i, b, s, r);
        h[s][r] = {get<Mu>(src, node), get<Mu>(src + im, node)};
      }
  }
};

}  // namespace dslash::kernels
