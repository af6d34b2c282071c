// The throughput calibration fitted on the embedded measurements and GPU
// catalog, shipped as data/knowledge/plan_fit.json so that a plan does not
// refit at every run: the fit with its leave-one-source-out band is some 25
// fits (2.4 CPU-s a `tfrig plan` with 381 rows and 24 sources; tens of
// seconds under the sanitizers, for every plan and pipeline a test runs).
//
// The shipped fit is used only when the fit's inputs are exactly those it was
// made from: the fingerprint of every row's features (fit_fingerprint in
// plan/throughput.h). Anything else (a --knowledge folder's rows, a subset
// held out by the validation) is fitted as before. The test
// PlanFit.ShippedFitIsTheFitOfTheShippedData refits the embedded data and
// compares, so a change to the data or to the fit that was not followed by
// `bash scripts/gen_plan_validation.sh` (which rewrites the file) fails CI.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "plan/throughput.h"

namespace tfrig::plan {

nlohmann::json calibration_to_json(const Calibration& c);
// nullopt when a field is missing or of the wrong type.
std::optional<Calibration> calibration_from_json(const nlohmann::json& j);

// plan_fit.json's document: what it is, how it is made, the fingerprint of
// the inputs and the calibration.
nlohmann::json shipped_fit_document(const Calibration& c, std::string_view fingerprint);

// The embedded plan_fit.json's calibration when its fingerprint is this one;
// nullopt when it is another (or the file is missing or unreadable).
std::optional<Calibration> shipped_calibration(std::string_view fingerprint);

}  // namespace tfrig::plan
