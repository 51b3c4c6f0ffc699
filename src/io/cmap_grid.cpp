#include "io/cmap_grid.h"

namespace halomd::io {
namespace {

// Second derivatives of the natural cubic spline through y (n points dx apart; zero at both ends), by the
// tridiagonal system y2[i-1] + 4 y2[i] + y2[i+1] = 6 (y[i+1] - 2 y[i] + y[i-1]) / dx^2, eliminated forward
// and substituted back.
std::vector<double> natural_spline(double dx, const std::vector<double>& y) {
  const size_t n = y.size();
  std::vector<double> y2(n, 0.0), u(n, 0.0);
  for (size_t i = 1; i + 1 < n; ++i) {
    const double p = 0.5 * y2[i - 1] + 2.0;
    y2[i] = -0.5 / p;
    const double q = (y[i + 1] - 2.0 * y[i] + y[i - 1]) / dx;
    u[i] = (3.0 * q / dx - 0.5 * u[i - 1]) / p;
  }
  y2[n - 1] = 0.0;
  for (size_t i = n - 1; i-- > 0;) y2[i] = y2[i] * y2[i + 1] + u[i];
  return y2;
}

// The spline (points x0 + k dx) and its derivative at x.
void spline_at(double x0, double dx, const std::vector<double>& y, const std::vector<double>& y2, double x,
               double& value, double& slope) {
  const int k = static_cast<int>((x - x0) / dx);
  const double a = (x0 + (k + 1) * dx - x) / dx;
  const double b = (x - x0 - k * dx) / dx;
  value = a * y[k] + b * y[k + 1] + ((a * a * a - a) * y2[k] + (b * b * b - b) * y2[k + 1]) * (dx * dx) / 6.0;
  slope = (y[k + 1] - y[k]) / dx - (3.0 * a * a - 1.0) / 6.0 * dx * y2[k] +
          (3.0 * b * b - 1.0) / 6.0 * dx * y2[k + 1];
}

}  // namespace

CmapGrid make_cmap_grid(int spacing, const std::vector<double>& values) {
  const int n = spacing, m = 2 * spacing;  // the grid laid out twice over, from -360 degrees
  const double dx = 360.0 / n;
  const double x0 = -180.0 - dx * n / 2;
  // Row r of the doubled grid (phi = x0 + r dx) along psi, and its spline.
  std::vector<std::vector<double>> rows(m, std::vector<double>(m)), rows2(m);
  for (int r = 0; r < m; ++r) {
    const int i = (r + n - n / 2) % n;
    for (int c = 0; c < m; ++c) rows[r][c] = values[i * n + (c + n - n / 2) % n];
    rows2[r] = natural_spline(dx, rows[r]);
  }
  CmapGrid g;
  g.spacing = n;
  g.data.resize(4 * static_cast<size_t>(n) * n);
  std::vector<double> v_at(m), dpsi_at(m);
  for (int i = 0; i < n; ++i) {
    const double phi = i * dx - 180.0;
    for (int j = 0; j < n; ++j) {
      const double psi = j * dx - 180.0;
      // V and dV/dpsi along each row at psi, then both along phi at phi.
      for (int r = 0; r < m; ++r) spline_at(x0, dx, rows[r], rows2[r], psi, v_at[r], dpsi_at[r]);
      double v = 0.0, dphi = 0.0, dpsi = 0.0, dphi_dpsi = 0.0;
      spline_at(x0, dx, v_at, natural_spline(dx, v_at), phi, v, dphi);
      spline_at(x0, dx, dpsi_at, natural_spline(dx, dpsi_at), phi, dpsi, dphi_dpsi);
      double* p = g.data.data() + 4 * (static_cast<size_t>(i) * n + j);
      p[0] = values[i * n + j];
      p[1] = dphi;
      p[2] = dpsi;
      p[3] = dphi_dpsi;
    }
  }
  return g;
}

}  // namespace halomd::io
