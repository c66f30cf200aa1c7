#pragma once
// The Wilson hop's spin projectors in the DeGrand-Rossi basis (CONVENTIONS.md), shared by the SIMD
// kernel body and the scalar face code. (1 + S g_mu) psi has two independent rows:
//   h0 = p0 + S k0 p[a0],  h1 = p1 + S k1 p[a1]
// and rows 2, 3 are multiples of them: r2 = S k2 h[b2], r3 = S k3 h[b3].
// Units k in {+1, -1, +i, -i} are written 1, -1, 2, -2: a sign flip or an i costs no multiply.
namespace dslash::kernels {

struct Projector {
  int a0, k0, a1, k1, b2, k2, b3, k3;
};
inline constexpr Projector kProjector[4] = {
    {3, 2, 2, 2, 1, -2, 0, -2},   // x: h0 = p0 + S i p3, h1 = p1 + S i p2; r2 = -S i h1, r3 = -S i h0
    {3, -1, 2, 1, 1, 1, 0, -1},   // y: h0 = p0 - S p3,   h1 = p1 + S p2;   r2 =  S h1,   r3 = -S h0
    {2, 2, 3, -2, 0, -2, 1, 2},   // z: h0 = p0 + S i p2, h1 = p1 - S i p3; r2 = -S i h0, r3 =  S i h1
    {2, 1, 3, 1, 0, 1, 1, 1},     // t: h0 = p0 + S p2,   h1 = p1 + S p3;   r2 =  S h0,   r3 =  S h1
};

// Projector sign S of a hop: the forward hop (x -> x + mu) takes (1 - g_mu) for D and (1 + g_mu)
// for D^dagger, the backward hop the other.
constexpr int projector_sign(bool forward, bool dagger) { return forward == dagger ? 1 : -1; }

}  // namespace dslash::kernels
