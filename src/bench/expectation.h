// What this hardware should give: for each bench result, the figure the
// knowledge base expects (a GPU's catalog peak, a PCIe link's rate), so
// `tfrig bench --compare` can say "62% of the catalog peak" next to the
// change against the previous run.
#pragma once

#include <optional>
#include <string>

#include "bench/benchmark.h"
#include "inventory/inventory.h"
#include "knowledge/knowledge.h"

namespace tfrig::bench {

// The expectation for one measurement, empty where the knowledge base has
// none for this hardware (memory and storage: DIMM and disk models are not
// in the catalog), or where the result says nothing to compare (skipped).
std::optional<Expectation> expectation_for(const Measurement& m, const inventory::Inventory& inv,
                                           const knowledge::Knowledge& k);

// Fills Measurement::expected for every result it can.
void add_expectations(std::vector<Measurement>& results, const inventory::Inventory& inv,
                      const knowledge::Knowledge& k);

}  // namespace tfrig::bench
