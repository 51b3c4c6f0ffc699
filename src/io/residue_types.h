// GROMACS's residue types (residuetypes.dat: "ALA Protein", "SOL Water", "NA Ion", ...), which its default
// index groups (Protein, Non-Protein, Water, Ion, Water_and_ions, ...) are made from.
#pragma once

#include <map>
#include <string>

namespace halomd::io {

// Residue name -> type, from residuetypes.dat in $GMXLIB's folders or GROMACS's share folder
// (/usr/share/gromacs/top); empty when none has it.
std::map<std::string, std::string> read_residue_types();

}  // namespace halomd::io
