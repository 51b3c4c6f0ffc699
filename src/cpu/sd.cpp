#include "cpu/sd.h"

#include <cmath>

#include "core/parallel.h"
#include "core/random.h"
#include "core/units.h"

namespace halomd {

StochasticDynamics::StochasticDynamics(const MdParams& mdp, int groups, uint64_t seed) : seed_(seed) {
  for (int g = 0; g < groups; ++g) {
    const double tau = mdp.tau_ts.size() > static_cast<size_t>(g) ? mdp.tau_ts[g] : mdp.tau_t;
    const double ref = mdp.ref_ts.size() > static_cast<size_t>(g) ? mdp.ref_ts[g] : mdp.ref_t;
    const double em = std::exp(-mdp.dt / tau);
    em_.push_back(em);
    sigma_.push_back(std::sqrt(units::kBoltzmann * ref * (1.0 - em * em)));
  }
}

Vec3 StochasticDynamics::kick(int64_t step, int g, int group, double inv_mass, const Vec3& vn) const {
  if (inv_mass <= 0.0) return vn;  // massless (virtual sites): built from their atoms
  const double noise = sigma_[group] * std::sqrt(inv_mass);
  Vec3 out;
  if (noise == 0.0) {  // ref-t = 0: friction alone, and no numbers drawn
    for (int d = 0; d < 3; ++d) out[d] = vn[d] * em_[group];
    return out;
  }
  CounterRandom rng(mix64(seed_ ^ mix64(static_cast<uint64_t>(g) + 1)), RandomStream::Langevin,
                    static_cast<uint64_t>(step));
  for (int d = 0; d < 3; ++d) out[d] = vn[d] * em_[group] + noise * rng.normal();
  return out;
}

void StochasticDynamics::combined(int64_t step, const std::vector<Vec3>& x, std::vector<Vec3>& v,
                                  const std::vector<Vec3>& f, const std::vector<double>& inv_mass,
                                  const std::vector<int>* group, std::span<const int> global, double dt,
                                  std::vector<Vec3>& x_new, int threads) const {
  parallel_for(static_cast<int64_t>(x.size()), threads, [&](int64_t i) {
    const Vec3 vn = v[i] + f[i] * (inv_mass[i] * dt);
    const int g = global.empty() ? static_cast<int>(i) : global[i];
    const Vec3 vk = kick(step, g, group ? (*group)[i] : 0, inv_mass[i], vn);
    v[i] = vk;
    x_new[i] = inv_mass[i] > 0.0 ? x[i] + (vn + vk) * (0.5 * dt) : x[i];
  });
}

void StochasticDynamics::friction_and_noise(int64_t step, std::vector<Vec3>& v,
                                            const std::vector<double>& inv_mass,
                                            const std::vector<int>* group, std::span<const int> global,
                                            double dt, std::vector<Vec3>& x_new, int threads) const {
  parallel_for(static_cast<int64_t>(v.size()), threads, [&](int64_t i) {
    if (inv_mass[i] <= 0.0) return;
    const int g = global.empty() ? static_cast<int>(i) : global[i];
    const Vec3 vn = v[i];
    v[i] = kick(step, g, group ? (*group)[i] : 0, inv_mass[i], vn);
    x_new[i] += (v[i] - vn) * (0.5 * dt);
  });
}

}  // namespace halomd
