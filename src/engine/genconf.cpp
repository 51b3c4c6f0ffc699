#include "engine/genconf.h"

#include "core/errors.h"
#include "io/gro.h"
#include "io/top.h"

namespace halomd {

void genconf(const std::string& conf, const std::string& top, int nx, int ny, int nz,
             const std::string& out_prefix) {
  if (nx < 1 || ny < 1 || nz < 1) throw InputError("", 0, "--nbox needs three positive integers");
  const io::GroFile in = io::read_gro(conf);
  io::GroFile out;
  out.title = in.title + " (replicated " + std::to_string(nx) + "x" + std::to_string(ny) + "x" +
              std::to_string(nz) + " by halomd genconf)";
  out.box.len = {in.box.len.x * nx, in.box.len.y * ny, in.box.len.z * nz};
  const int n = in.num_atoms();
  int residue_offset = 0;
  const int residues_per_copy = n > 0 ? in.residue_number.back() - in.residue_number.front() + 1 : 0;
  // Same order as gmx genconf: x outermost, then y, then z; every copy holds the whole input in order.
  for (int ix = 0; ix < nx; ++ix)
    for (int iy = 0; iy < ny; ++iy)
      for (int iz = 0; iz < nz; ++iz) {
        const Vec3 shift{ix * in.box.len.x, iy * in.box.len.y, iz * in.box.len.z};
        for (int i = 0; i < n; ++i) {
          out.residue_number.push_back(in.residue_number[i] + residue_offset);
          out.residue_name.push_back(in.residue_name[i]);
          out.atom_name.push_back(in.atom_name[i]);
          out.x.push_back(in.x[i] + shift);
          if (in.has_velocities()) out.v.push_back(in.v[i]);
        }
        residue_offset += residues_per_copy;
      }
  io::write_gro(out_prefix + ".gro", out);
  io::write_replicated_top(top, out_prefix + ".top", nx * ny * nz);
}

}  // namespace halomd
