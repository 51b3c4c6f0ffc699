#!/usr/bin/env python3
"""Coefficients of the GPU pair kernels' erfc (src/cuda/pair_terms.cuh, kErfcxPoly).

The real-space Ewald force needs erfc(x) and exp(-x^2) at x = beta r. The kernels compute E = exp(-x^2) once
and erfc(x) = E * erfcx(x), where erfcx(x) = t Q(t) with t = 1 / (1 + P x) and Q a polynomial of degree 8,
fitted here (Chebyshev least squares weighted for relative error, converted to powers of t) over
0 <= x <= X_MAX. X_MAX = 6 covers every ewald-rtol down to erfc(6) ~ 2e-17; the kernels never evaluate beyond
beta * rc, and the executor refuses a beta * rc above X_MAX. Prints the C++ constants and the largest
relative error of erfcx in double and in float (Horner in float, as the kernel evaluates it).
Requires numpy and scipy. Usage: python3 scripts/fit_ewald_erfc.py
"""
import numpy as np
from scipy.special import erfcx

P = 0.4
X_MAX = 6.0
DEGREE = 8

t = np.linspace(1.0 / (1.0 + P * X_MAX), 1.0, 200001)
x = (1.0 / t - 1.0) / P
q = erfcx(x) / t
fit = np.polynomial.chebyshev.Chebyshev.fit(t, q, DEGREE, w=1.0 / q)
coef = fit.convert(kind=np.polynomial.Polynomial).coef
err_double = np.max(np.abs(fit(t) / q - 1.0))

tf = t.astype(np.float32)
acc = np.full_like(tf, np.float32(coef[-1]))
for c in coef[-2::-1]:
    acc = (acc * tf + np.float32(c)).astype(np.float32)
err_float = np.max(np.abs(acc.astype(np.float64) / q - 1.0))

print(f"// erfcx(x) = t Q(t), t = 1 / (1 + {P} x), 0 <= x <= {X_MAX}: relative error {err_double:.1e} "
      f"(double), {err_float:.1e} (float)")
print(f"constexpr float kErfcxP = {P}f;")
print(f"constexpr float kErfcxMaxX = {X_MAX}f;")
print("constexpr float kErfcxPoly[] = {" + ", ".join(f"{c:.9e}f" for c in coef) + "};")
