// The listed interactions of a topology as grompp 2022 reads them: the parameter-type directives
// ([ bondtypes ], [ angletypes ], [ dihedraltypes ], [ pairtypes ]) and a molecule's [ bonds ], [ angles ],
// [ dihedrals ] and [ pairs ] lines, with their parameters written out or looked up by type (toppush.cpp's
// rules: exact names, dihedral wildcards by most real matches, funct 9 blocks, gen-pairs with fudgeLJ).
#pragma once

#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "io/top_parser.h"

namespace halomd::io {

// Throws InputError for the line being read with the given message.
using TopFail = std::function<void(const std::string&)>;

// C6, C12 of two atom types: the combination rule, or their [ nonbond_params ] entry.
std::pair<double, double> lj_c6_c12(const TopData& d, const std::string& a, const std::string& b);

// A line of a parameter-type directive (directive: "bondtypes", "angletypes", "dihedraltypes",
// "pairtypes"; fields: the whitespace-separated words).
void add_param_type(TopData& d, const std::string& directive, const std::vector<std::string>& fields,
                    const TopFail& fail);

// A molecule's line of [ bonds ], [ angles ], [ dihedrals ] or [ pairs ] (directive as for add_param_type
// without "types"): atoms (local, 0-based), funct and the parameter words after it. Appends the terms to
// m.interactions and returns true, or returns false for a function type halomd cannot run.
bool add_interaction(const TopData& d, TopMoleculeType& m, const std::string& directive,
                     const std::vector<int>& atoms, int funct, const std::vector<std::string>& params,
                     const TopFail& fail);

}  // namespace halomd::io
