// Severity colours on a terminal (red errors, yellow warnings, cyan infos),
// shared by every text renderer so that one finding looks the same in doctor,
// explain and fleet.
#pragma once

#include <string>

#include "rules/rule.h"

namespace tfrig::report {

// text in the severity's ANSI colour when color is true, else unchanged.
std::string paint_severity(bool color, rules::Severity s, const std::string& text);
// The severity and a rule area as the reader's language says them (JSON keeps the ids).
std::string severity_label(rules::Severity s);
std::string area_label(std::string_view area);

}  // namespace tfrig::report
